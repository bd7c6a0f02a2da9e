//! The rules' explanations: docs/rules.md, one `` ## `id` `` section per rule (diagnostics'
//! rules, the plan's findings, Discord's error codes), compiled in. SARIF's rule
//! descriptions and help ([`super::sarif`]) and the MCP server's `explain` read them here,
//! so a code-scanning alert, an assistant and GitHub's page of the file say the same.

/// docs/rules.md.
const RULES_DOC: &str = include_str!("../../docs/rules.md");

/// Every section as `(id, text)`: the id in the heading's backticks, the text (markdown)
/// without the heading, in the page's order.
pub fn sections() -> impl Iterator<Item = (&'static str, &'static str)> {
    RULES_DOC.split("\n## ").skip(1).filter_map(|section| {
        let (heading, text) = section.split_once('\n')?;
        let id = heading.trim().strip_prefix('`')?.strip_suffix('`')?;
        Some((id, text.trim()))
    })
}

/// The section of the rule `id`, if the page has one.
pub fn section(id: &str) -> Option<&'static str> {
    sections().find(|(i, _)| *i == id).map(|(_, text)| text)
}

/// A section's first paragraph: what the rule finds, before how to fix it.
pub fn first_paragraph(text: &str) -> &str {
    text.split("\n\n").next().unwrap_or(text).trim()
}

/// The address of the rule's section in the repository (Cargo.toml's `repository`), at
/// this version's tag: the heading `` ## `unique-role-names` `` is the anchor
/// `#unique-role-names`.
pub fn help_uri(id: &str) -> String {
    concat!(
        env!("CARGO_PKG_REPOSITORY"),
        "/blob/v",
        env!("CARGO_PKG_VERSION"),
        "/docs/rules.md#"
    )
    .to_owned()
        + id
}
