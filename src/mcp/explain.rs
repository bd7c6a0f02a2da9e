//! `explain`: what a rule id (`unique-role-names`, `risk-grant`, …) or a Discord error code
//! (`50013`) means and how to fix what it found, as `rustc --explain` does for its codes.
//!
//! The texts are docs/rules.md, one `` ## `id` `` section per rule, compiled in
//! (`manifest::rules`): one place that reads the same on GitHub, in an assistant and in a
//! code-scanning alert, and a test holds it to every rule the code can name.

use crate::manifest::closest;

/// The prefix of a Discord JSON error code's id (`discord-50013`).
const DISCORD_CODE: &str = "discord-";

/// A rule's explanation: its id and its section of docs/rules.md (markdown, without the
/// heading).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explanation {
    pub id: &'static str,
    pub text: &'static str,
}

/// A query that names no rule: the closest id, if one is close, and every id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no rule or Discord error code is called {query:?}{}", did_you_mean(.suggestion))]
pub struct Unknown {
    pub query: String,
    pub suggestion: Option<&'static str>,
    pub known: Vec<&'static str>,
}

fn did_you_mean(suggestion: &Option<&str>) -> String {
    suggestion
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// Every explanation, in the order of docs/rules.md.
pub fn all() -> impl Iterator<Item = Explanation> {
    crate::manifest::rules::sections().map(|(id, text)| Explanation { id, text })
}

/// The explanation of `query`: a rule id as diagnostics, SARIF results and plan findings
/// name it (any case, in backticks or not), or a Discord error code (`50013`,
/// `Discord error 50013`, `discord-50013`).
pub fn explain(query: &str) -> Result<Explanation, Unknown> {
    let wanted = normalise(query);
    if let Some(found) = all().find(|e| e.id == wanted) {
        return Ok(found);
    }
    let known: Vec<&'static str> = all().map(|e| e.id).collect();
    Err(Unknown {
        query: query.to_owned(),
        suggestion: closest(&wanted, known.iter().copied()),
        known,
    })
}

fn normalise(query: &str) -> String {
    let q = query.trim().trim_matches('`').trim().to_lowercase();
    // A Discord error code however it is quoted: the digits of "Discord error 50013".
    let digits: String = q.chars().filter(char::is_ascii_digit).collect();
    let rest_is_words = q
        .chars()
        .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase() || c == ' ' || c == '-');
    let names_code = q.strip_prefix(DISCORD_CODE).is_some()
        || q.starts_with("discord error")
        || q.starts_with("error ")
        || q == digits;
    if !digits.is_empty() && rest_is_words && names_code {
        return format!("{DISCORD_CODE}{digits}");
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_rule_in_any_quoting() {
        for q in ["unique-role-names", " `Unique-Role-Names` "] {
            let e = explain(q).expect("known");
            assert_eq!(e.id, "unique-role-names");
            assert!(e.text.contains("Fix"), "{}", e.text);
        }
    }

    #[test]
    fn finds_a_discord_code_however_it_is_written() {
        for q in [
            "50013",
            "Discord error 50013",
            "discord-50013",
            "error 50013",
        ] {
            assert_eq!(explain(q).expect(q).id, "discord-50013");
        }
    }

    #[test]
    fn an_unknown_rule_gets_the_closest_one() {
        let e = explain("unique-role-name").unwrap_err();
        assert_eq!(e.suggestion, Some("unique-role-names"));
        assert!(e.to_string().contains("did you mean `unique-role-names`"));
        assert!(e.known.contains(&"risk-grant"));
    }

    /// Every rule the code can name has its section: the semantic rules, the loader's
    /// stages, the plan's findings.
    #[test]
    fn every_rule_is_explained() {
        let known: Vec<&str> = all().map(|e| e.id).collect();
        let stages = [
            "read",
            "syntax",
            "limits",
            "version",
            "merge",
            "schema",
            "type",
            "avatar-files",
            "workspace",
            "policy-breaches",
        ];
        let plan_rules = crate::report::sarif::PLAN_RULES.iter().map(|(id, _)| *id);
        let findings = ["risk-access", "risk-bans-member"];
        let missing: Vec<&str> = crate::manifest::check::RULES
            .iter()
            .map(|(id, _)| *id)
            .chain(stages)
            .chain(plan_rules)
            .chain(findings)
            .filter(|id| !known.contains(id))
            .collect();
        assert!(missing.is_empty(), "docs/rules.md lacks {missing:?}");
        let mut sorted = known.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), known.len(), "an id is explained twice");
    }
}
