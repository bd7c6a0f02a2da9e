//! Placed diagnostics as SARIF 2.1.0 (OASIS), for code-scanning views: GitHub code
//! scanning (`github/codeql-action/upload-sarif`) and GitLab. Every result is on a
//! manifest's file, line and column, as the text and annotations are
//! (`validate --format sarif`; the plan's findings come through `report::sarif`).
//!
//! Columns count Unicode code points (`columnKind`), as guildctl's diagnostics do (SARIF's
//! default is UTF-16 code units). Texts from outside (names, file names, messages that
//! quote them) are made inert as for a terminal ([`inert::terminal`]), and the document is
//! written by [`inert::json_pretty`].

use std::collections::BTreeMap;
use std::path::{Component, Path};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::diagnostic::{Located, Report, Severity};
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
];

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A SARIF log of one run of guildctl over `reports`; `more_rules` describes rules that
/// are not the loader's (the plan's). Every rule a result names is listed, by its first use.
pub fn log(reports: &[&Report], more_rules: &[RuleText]) -> Value {
    // Rules in the order first used; results name them by id and index.
    let mut rules: Vec<&str> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut results = Vec::new();
    for report in reports {
        for d in &report.items {
            let i = *index.entry(d.rule.as_ref()).or_insert_with(|| {
                rules.push(d.rule.as_ref());
                rules.len() - 1
            });
            results.push(result(report, d, i));
        }
    }
    let rules: Vec<Value> = rules.iter().map(|id| rule(id, more_rules)).collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
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
        }]
    })
}

/// The log as guildctl writes it, with a final line break.
pub fn render(reports: &[&Report], more_rules: &[RuleText]) -> String {
    let mut s = inert::json_pretty(&log(reports, more_rules));
    s.push('\n');
    s
}

fn rule(id: &str, more_rules: &[RuleText]) -> Value {
    let description = RULES
        .iter()
        .chain(more_rules)
        .find(|(rule, _)| *rule == id)
        .map(|(_, text)| (*text).to_owned())
        .unwrap_or_else(|| format!("The manifest check {id} (docs/validation.md)."));
    let level = if id.starts_with("risk-") {
        "warning"
    } else {
        "error"
    };
    json!({
        "id": id,
        "name": id,
        "shortDescription": { "text": description },
        "defaultConfiguration": { "level": level },
        "properties": { "tags": tags(id) },
    })
}

fn tags(id: &str) -> Vec<&'static str> {
    if id.starts_with("risk-") {
        vec!["security", "discord"]
    } else {
        vec!["correctness", "discord"]
    }
}

fn result(report: &Report, d: &Located, rule_index: usize) -> Value {
    let mut message = inert::terminal(&d.message).into_owned();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(&inert::terminal(help));
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
            l["message"] = json!({ "text": inert::terminal(label) });
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
