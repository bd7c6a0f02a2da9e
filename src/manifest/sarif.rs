//! Placed diagnostics as SARIF 2.1.0 (OASIS), for code-scanning views: GitHub code
//! scanning (`github/codeql-action/upload-sarif`) and GitLab. Every result is on a
//! manifest's file, line and column, as the text and annotations are
//! (`validate --format sarif`; the plan's findings come through `report::sarif`).
//!
//! Columns count Unicode code points (`columnKind`), as guildctl's diagnostics do (SARIF's
//! default is UTF-16 code units). GitHub renders a result's `message.text` as markdown, so
//! messages (with the names and file names they quote) are made inert as markdown prose
//! ([`inert::markdown_spans`]: nothing in them links, formats or mentions); the document is
//! written by [`inert::json_pretty`]. Each rule carries its section of docs/rules.md
//! ([`super::rules`]) as `fullDescription` and `help`, and its address as `helpUri`. A run
//! keeps at most [`MAX_RESULTS`], GitHub's limit, errors first, and says how many it left
//! out.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::diagnostic::{Located, Report, Severity};
use super::rules;
use super::source_map::Span;
use crate::inert;

/// The schema a document names: the OASIS standard's (errata 01), which GitHub links.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/guildctl/guildctl";

/// A rule's id and one sentence about it, for the driver's `rules`.
pub type RuleText = (&'static str, &'static str);

/// The rules of the loader's stages; the semantic checks (`check::RULES`) are described
/// by their names, and other rules come with their text ([`log`]'s `more_rules`).
const RULES: &[RuleText] = &[
    (
        "read",
        "The manifest's files could not be read within the limits.",
    ),
    ("syntax", "The manifest is not valid YAML."),
    (
        "yaml-comment",
        "A `#` after a space starts a YAML comment that takes what looks like part of a value.",
    ),
    (
        "limits",
        "The manifest is larger or deeper than guildctl reads.",
    ),
    ("version", "The manifest's version is missing or unknown."),
    (
        "merge",
        "A folder's files or a manifest's bases do not merge.",
    ),
    (
        "schema",
        "The manifest does not match guildctl's JSON schema.",
    ),
    ("type", "A value has the wrong type."),
    (
        "avatar-files",
        "An image file the manifest names is missing or unusable.",
    ),
    (
        "workspace",
        "The workspace file and a guild's manifest disagree.",
    ),
    (
        "owners",
        "A manifest file declares outside the delegation the workspace's `owners:` gives it.",
    ),
];

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The most results a run keeps: GitHub code scanning's limit per run (it ignores the
/// rest). Errors are kept first, then warnings, each in their order.
pub const MAX_RESULTS: usize = 25_000;

/// A SARIF log of one run of guildctl over `reports`; `more_rules` describes rules that
/// are not the loader's (the plan's). Every rule a kept result names is listed, by its
/// first use. Past [`MAX_RESULTS`] results, the run keeps the first errors and warnings up
/// to it and says in a tool notification how many it left out.
pub fn log(reports: &[&Report], more_rules: &[RuleText]) -> Value {
    let mut found: Vec<(&Report, &Located)> = reports
        .iter()
        .flat_map(|r| r.items.iter().map(move |d| (*r, d)))
        .collect();
    let total = found.len();
    if total > MAX_RESULTS {
        // Stable: each level keeps its order.
        found.sort_by_key(|(_, d)| d.severity != Severity::Error);
        found.truncate(MAX_RESULTS);
    }
    let left_out = total - found.len();
    // Rules in the order first used; results name them by id and index.
    let mut rules: Vec<&str> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut results = Vec::new();
    for (report, d) in found {
        let i = *index.entry(d.rule.as_ref()).or_insert_with(|| {
            rules.push(d.rule.as_ref());
            rules.len() - 1
        });
        results.push(result(report, d, i));
    }
    let rules: Vec<Value> = rules.iter().map(|id| rule(id, more_rules)).collect();
    let mut run = json!({
        "tool": {
            "driver": {
                "name": "guildctl",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if left_out > 0 {
        run["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": [{
                "level": "warning",
                "message": { "text": format!(
                    "{left_out} of {total} results were left out: code scanning takes at most {MAX_RESULTS} per run (errors were kept first); `guildctl validate` shows them all"
                ) },
            }],
        }]);
        run["properties"] = json!({ "resultsLeftOut": left_out, "resultsFound": total });
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run]
    })
}

/// The log as guildctl writes it, with a final line break.
pub fn render(reports: &[&Report], more_rules: &[RuleText]) -> String {
    let mut s = inert::json_pretty(&log(reports, more_rules));
    s.push('\n');
    s
}

/// A rule's descriptor: a sentence (`shortDescription`), what the rule finds
/// (`fullDescription`, the first paragraph of its section of docs/rules.md), the whole
/// section as `help`, and its address as `helpUri`.
fn rule(id: &str, more_rules: &[RuleText]) -> Value {
    let section = rules::section(id);
    let sentence = RULES
        .iter()
        .chain(more_rules)
        .find(|(rule, _)| *rule == id)
        .map(|(_, text)| (*text).to_owned());
    let full = section
        .map(|s| rules::first_paragraph(s).to_owned())
        .or_else(|| sentence.clone())
        .unwrap_or_else(|| format!("The manifest check {id}."));
    let short = sentence.unwrap_or_else(|| first_sentence(&full));
    let help = section.map_or_else(|| full.clone(), str::to_owned);
    let level = if id.starts_with("risk-") {
        "warning"
    } else {
        "error"
    };
    json!({
        "id": id,
        "name": id,
        "shortDescription": { "text": short },
        "fullDescription": { "text": full, "markdown": full },
        "help": { "text": help, "markdown": help },
        "helpUri": rules::help_uri(id),
        "defaultConfiguration": { "level": level },
        "properties": { "tags": tags(id) },
    })
}

/// The first sentence of a paragraph (to its first `. `), on one line.
fn first_sentence(paragraph: &str) -> String {
    let one_line = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.find(". ") {
        Some(i) => one_line[..=i].to_owned(),
        None => one_line,
    }
}

fn tags(id: &str) -> Vec<&'static str> {
    if id.starts_with("risk-") {
        vec!["security", "discord"]
    } else {
        vec!["correctness", "discord"]
    }
}

fn result(report: &Report, d: &Located, rule_index: usize) -> Value {
    let mut message = inert::markdown_spans(&d.message);
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(&inert::markdown_spans(help));
    }
    let mut location = physical(report, d.span);
    if !d.path.is_empty() {
        location["logicalLocations"] = json!([{
            "fullyQualifiedName": inert::terminal(&d.path),
            "kind": "member",
        }]);
    }
    let related: Vec<Value> = d
        .related
        .iter()
        .enumerate()
        .map(|(i, (label, span))| {
            let mut l = physical(report, Some(*span));
            l["id"] = json!(i + 1);
            l["message"] = json!({ "text": inert::markdown_spans(label) });
            l
        })
        .collect();
    // Stable across runs whatever the line: the rule, the node and the message.
    let fingerprint: String = Sha256::digest(format!("{}\0{}\0{}", d.rule, d.path, d.message))
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut r = json!({
        "ruleId": d.rule,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": message },
        "locations": [location],
        "partialFingerprints": { "guildctl/v1": fingerprint },
    });
    if !related.is_empty() {
        r["relatedLocations"] = json!(related);
    }
    r
}

/// A location in a report's file; a finding without a place is put at the start of the
/// manifest's first file (code scanning needs a file for every result).
fn physical(report: &Report, span: Option<Span>) -> Value {
    let file = span
        .and_then(|s| report.files.get(s.file))
        .or_else(|| report.files.first())
        .map(|f| f.path.as_path())
        .unwrap_or(&report.root);
    let region = match span {
        Some(s) => json!({
            "startLine": s.line.max(1),
            "startColumn": s.column.max(1),
            "endLine": s.line.max(1),
            "endColumn": s.column.max(1) + s.len.max(1),
        }),
        None => json!({ "startLine": 1 }),
    };
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file) },
            "region": region,
        }
    })
}

/// What a path segment keeps unencoded: RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A file's path as a URI reference: relative paths stay relative (code scanning reads
/// them from the repository's root, where guildctl runs), and so does an absolute path
/// under the current folder (a workspace's manifests); `/` between segments on every
/// system, each segment percent-encoded; any other absolute path is a `file://` URI.
pub fn uri(path: &Path) -> String {
    let relative = path
        .is_absolute()
        .then(|| std::env::current_dir().ok())
        .flatten()
        .and_then(|cwd| {
            let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            real(path)
                .strip_prefix(real(&cwd))
                .ok()
                .map(Path::to_path_buf)
        });
    let path = relative.as_deref().unwrap_or(path);
    let mut segments: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in path.components() {
        match c {
            Component::RootDir => absolute = true,
            Component::Prefix(p) => {
                absolute = true;
                segments.push(p.as_os_str().to_string_lossy().replace('\\', "/"));
            }
            Component::CurDir => {}
            Component::ParentDir => segments.push("..".into()),
            Component::Normal(s) => {
                segments.push(utf8_percent_encode(&s.to_string_lossy(), SEGMENT).to_string())
            }
        }
    }
    let joined = segments.join("/");
    if absolute {
        format!("file:///{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri(Path::new("guild.yaml")), "guild.yaml");
        assert_eq!(
            uri(Path::new("./guilds/prod guild.yaml")),
            "guilds/prod%20guild.yaml"
        );
        assert_eq!(uri(Path::new("../a#b.yaml")), "../a%23b.yaml");
        assert_eq!(
            uri(Path::new("/srv/repo/guild.yaml")),
            "file:///srv/repo/guild.yaml"
        );
    }
}
