//! Stages 3 and 4: each file is a mapping of sections with `version: 1`, and a folder's files
//! are merged by top-level section into one tree, with the source map of where each entry
//! was written; [`merged_value`] is that tree as JSON.

use std::borrow::Cow;
use std::sync::Arc;

use hashbrown::HashMap;
use serde_json::Value;

use super::{MANIFEST_VERSION, push};
use crate::manifest::diagnostic::{Located, Report, Severity};
use crate::manifest::source_map::{Part, Span, Trees, key_span, span_of};
use crate::manifest::tree::{At, Node, Scalar, ScalarNode, to_json};

/// Whether top-level section `name` is a list a folder's files may each hold part of
/// ([`SECTION_KEYS`](crate::manifest::SECTION_KEYS)).
pub fn is_split_list(name: &str) -> bool {
    crate::manifest::SECTION_KEYS
        .iter()
        .any(|s| s.split && s.key == name)
}

/// Each file must be a mapping of sections; `version` must be 1 wherever it is written, and
/// written at least once (in a file manifest: in the file).
pub(super) fn check_files(report: &mut Report, is_dir: bool, trees: &[(usize, At<Node>)]) {
    let help_version = format!(
        "start the manifest with `version: {MANIFEST_VERSION}`; this guildctl reads only version {MANIFEST_VERSION}"
    );
    let mut has_version = false;
    for (i, tree) in trees {
        let root_span = span_of(*i, tree).unwrap_or(Span {
            file: *i,
            line: 1,
            column: 1,
            len: 1,
        });
        let entries = match &tree.value {
            Node::Map(entries) => entries,
            // An empty file (or only comments) in a folder declares nothing.
            Node::Scalar(ScalarNode {
                kind: Scalar::Null, ..
            }) if is_dir => continue,
            Node::Scalar(ScalarNode {
                kind: Scalar::Null, ..
            }) => {
                push(
                    report,
                    "version",
                    Some(Span {
                        file: *i,
                        line: 1,
                        column: 1,
                        len: 1,
                    }),
                    "the manifest is empty".into(),
                    help_version.clone(),
                );
                continue;
            }
            _ => {
                push(
                    report,
                    "version",
                    Some(root_span),
                    "a manifest must be a YAML mapping (`version: 1`, `roles:`, `channels:`, ...)"
                        .into(),
                    if is_dir {
                        "each file of a folder manifest is a mapping of top-level sections (`roles:`, `channels:`, ...)".into()
                    } else {
                        help_version.clone()
                    },
                );
                continue;
            }
        };
        match entries.iter().find(|(k, _)| k.value.0 == "version") {
            None if !is_dir => push(
                report,
                "version",
                Some(root_span),
                "the manifest has no `version` field".into(),
                help_version.clone(),
            ),
            None => {}
            Some((_, v)) => {
                has_version = true;
                let span = span_of(*i, v).or_else(|| span_of(*i, tree));
                match &v.value {
                    Node::Scalar(ScalarNode {
                        kind: Scalar::Int(n),
                        ..
                    }) if *n == i128::from(MANIFEST_VERSION) => {}
                    Node::Scalar(ScalarNode {
                        kind: Scalar::Str(text),
                        ..
                    }) if text.trim() == MANIFEST_VERSION.to_string() => push(
                        report,
                        "version",
                        span,
                        format!(
                            "`version` is the string \"{text}\", not the number {MANIFEST_VERSION}"
                        ),
                        format!("remove the quotes: `version: {MANIFEST_VERSION}`"),
                    ),
                    Node::Scalar(s) => push(
                        report,
                        "version",
                        span,
                        format!(
                            "unsupported manifest version {}: this guildctl understands version {MANIFEST_VERSION}",
                            s.kind.display()
                        ),
                        help_version.clone(),
                    ),
                    _ => push(
                        report,
                        "version",
                        span,
                        "`version` must be a number".into(),
                        help_version.clone(),
                    ),
                }
            }
        }
    }
    if is_dir && !has_version && !trees.is_empty() && !report.has_errors() {
        push(
            report,
            "version",
            None,
            "no file of the folder sets `version`".into(),
            format!(
                "write `version: {MANIFEST_VERSION}` in one of the files (guild.yaml, say); a folder's files may each repeat it"
            ),
        );
    }
}

/// Merges the files' trees by top-level section: list sections ([`is_split_list`]) are
/// concatenated in file order; any other section may be written in one file only
/// (`version` may be repeated, and is checked by [`check_files`]). The source map keeps the
/// trees and which entries were taken.
pub(super) fn merge(report: &mut Report, trees: Vec<(usize, At<Node>)>) -> Trees {
    let mut merged = Trees::default();
    // Section → where it was first written (file, key span).
    let mut first: HashMap<String, Span> = HashMap::new();
    let mut list_len: HashMap<String, usize> = HashMap::new();
    for (t, (i, tree)) in trees.iter().enumerate() {
        if merged.root.is_none() {
            merged.root = span_of(*i, tree);
        }
        let Node::Map(entries) = &tree.value else {
            continue;
        };
        for (entry, (key, value)) in entries.iter().enumerate() {
            let name = &key.value.0;
            let key_span = key_span(*i, key);
            let is_list = is_split_list(name) && matches!(value.value, Node::Seq(_));
            if let Some(prev) = first.get(name).copied() {
                if name == "version" {
                    continue;
                }
                let both_lists = is_list && list_len.contains_key(name);
                if !both_lists {
                    let here = key_span.unwrap_or(Span {
                        file: *i,
                        line: 1,
                        column: 1,
                        len: 1,
                    });
                    let prev_file = report.files[prev.file].path.display().to_string();
                    report.items.push(Located {
                        severity: Severity::Error,
                        rule: Cow::Borrowed("merge"),
                        message: format!(
                            "section `{name}` is defined twice: here and in {prev_file}:{}:{}",
                            prev.line, prev.column
                        ),
                        help: Some(if is_split_list(name) {
                            format!(
                                "`{name}` may be split across files only as lists (`{name}:` followed by `- ...` items in each); merge the two"
                            )
                        } else {
                            format!(
                                "a folder's files are merged by top-level section, and `{name}` is not a list: keep it in one file"
                            )
                        }),
                        path: name.clone(),
                        span: Some(here),
                        related: vec![(format!("`{name}` first defined here"), prev)],
                    });
                    continue;
                }
            } else if let Some(s) = key_span {
                first.insert(name.clone(), s);
            }
            if let Some(s) = key_span
                && !merged.keys.iter().any(|(k, _)| k == name)
            {
                merged.keys.push((name.clone(), s));
            }
            let list_offset = match &value.value {
                Node::Seq(items) if is_list => {
                    let offset = list_len.get(name).copied().unwrap_or(0);
                    list_len.insert(name.clone(), offset + items.len());
                    Some(offset)
                }
                _ => None,
            };
            merged.parts.push(Part {
                tree: t,
                entry,
                list_offset,
            });
        }
    }
    merged.trees = trees.into_iter().map(|(i, t)| (i, Arc::new(t))).collect();
    merged
}

/// The merged manifest as JSON: each part's value, list sections' items appended in order.
pub(super) fn merged_value(trees: &Trees) -> Value {
    let mut root = serde_json::Map::new();
    for part in &trees.parts {
        let Some((_, tree)) = trees.trees.get(part.tree) else {
            continue;
        };
        let Node::Map(entries) = &tree.value else {
            continue;
        };
        let Some((key, value)) = entries.get(part.entry) else {
            continue;
        };
        let name = &key.value.0;
        match (&value.value, part.list_offset) {
            (Node::Seq(items), Some(_)) => {
                let list = root
                    .entry(name.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(a) = list {
                    a.extend(items.iter().map(|item| to_json(&item.value)));
                }
            }
            _ => {
                root.insert(name.clone(), to_json(&value.value));
            }
        }
    }
    Value::Object(root)
}
