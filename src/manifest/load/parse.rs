//! Stage 2, syntax: each file's text into a YAML tree with positions, within the loader's
//! budget (depth, nodes, aliases, one document); a file that does not parse is a problem
//! placed where its mistake most likely is ([`super::wording`]).

use std::borrow::Cow;

use super::comments;
use super::wording::{
    describe_parse_error, error_span, mentions_tab, tab_at_or_after, unclosed_before,
};
use super::{MAX_ALIASES, MAX_DEPTH, MAX_NODES};
use crate::manifest::diagnostic::{Located, Report, Severity};
use crate::manifest::source::{self, SourceFile};
use crate::manifest::source_map::Span;
use crate::manifest::tree::{At, Limits, Node, parse_fast};

/// The loader's budget, as the fast parse keeps to it.
const LIMITS: Limits = Limits {
    max_depth: MAX_DEPTH,
    max_nodes: MAX_NODES,
    max_events: 4 * MAX_NODES,
    max_bytes: source::MAX_FILE_BYTES as usize,
    max_buffered_comments: 32,
};

/// A file's YAML tree: built from the parser's events where the text is a plain manifest
/// ([`parse_fast`]), else by serde-saphyr, which also says what is wrong with a broken one.
fn parse(text: &str) -> Result<At<Node>, serde_saphyr::Error> {
    match parse_fast(text, &LIMITS) {
        Some(tree) => Ok(tree),
        None => serde_saphyr::from_str_with_options::<At<Node>>(text, tree_options()),
    }
}

/// A YAML text's tree with places, by the manifest's parser and within its limits (for the
/// workspace file).
pub(crate) fn parse_tree(text: &str) -> Result<At<Node>, serde_saphyr::Error> {
    parse(text)
}

/// Whether the text parses by the fast path (for tests: the manifests guildctl writes and
/// the examples should). A test hook (the `test-hooks` feature).
#[cfg(feature = "test-hooks")]
pub fn parses_fast(text: &str) -> bool {
    parse_fast(text, &LIMITS).is_some()
}

/// Panics unless the fast parse, where it answers, gives serde-saphyr's tree (places
/// included). For the fuzz harness: a test hook (the `test-hooks` feature).
#[cfg(feature = "test-hooks")]
pub fn assert_parses_agree(text: &str) {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if let Some(fast) = parse_fast(&text, &LIMITS) {
        match serde_saphyr::from_str_with_options::<At<Node>>(&text, tree_options()) {
            Ok(slow) => assert_eq!(fast, slow, "the two parses differ on {text:?}"),
            Err(e) => panic!("the fast parse accepted what serde-saphyr refuses ({e}): {text:?}"),
        }
    }
}

/// YAML 1.2 core schema: only `true`/`false` are booleans, so `no`, `on`, `off`, `yes` are
/// strings. Octal needs `0o`. `.nan`/`.inf` stay text (a string field may hold them). The
/// budget refuses huge or deeply nested input before it costs memory.
fn tree_options() -> serde_saphyr::Options {
    let mut o = serde_saphyr::options! {
        strict_booleans: true,
        legacy_octal_numbers: false,
        with_snippet: false,
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            flow_nesting_limit: MAX_DEPTH,
            max_nodes: MAX_NODES,
            max_events: 4 * MAX_NODES,
            max_aliases: MAX_ALIASES,
            max_anchors: MAX_ALIASES,
            max_recorded_anchor_events: MAX_NODES,
            max_documents: 1,
            max_total_scalar_bytes: source::MAX_FILE_BYTES as usize,
            max_inclusion_depth: 0,
        },
    };
    o.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    o
}

/// Files' text with line breaks as YAML counts them: CR LF and CR become LF, so places and
/// the text shown in excerpts agree.
pub(super) fn normalize_breaks(files: &mut [SourceFile]) {
    for f in files {
        if f.text.contains('\r') {
            f.text = f.text.replace("\r\n", "\n").replace('\r', "\n");
        }
    }
}

/// Stage 2 on the files from `first` on (`usable[i - first]`: file `i` was read): their
/// trees, and a problem for each that does not parse.
pub(super) fn parse_files(
    report: &mut Report,
    first: usize,
    usable: &[bool],
) -> Vec<(usize, At<Node>)> {
    let mut trees: Vec<(usize, At<Node>)> = Vec::new();
    let mut problems = Vec::new();
    for (i, f) in report.files.iter().enumerate().skip(first) {
        if !usable.get(i - first).copied().unwrap_or(false) {
            continue;
        }
        let traps = comments::find(&f.text);
        match parse(&f.text) {
            Ok(tree) => {
                let traps = comments::worth_saying(traps, &tree);
                problems.extend(traps.iter().map(|t| t.located(i)));
                trees.push((i, tree));
            }
            Err(e) => {
                // A comment that hid a closing bracket is the mistake, not the bracket.
                let hid_bracket = traps.iter().any(|t| {
                    t.trap == comments::Trap::HidesBracket
                        && e.location().is_none_or(|l| t.line <= l.line() as usize)
                });
                if hid_bracket {
                    problems.extend(traps.iter().map(|t| t.located(i)));
                    continue;
                }
                let (rule, mut message, mut help) = describe_parse_error(&e);
                let mut span = error_span(&e, i, &f.text);
                if rule == "syntax"
                    && mentions_tab(&message)
                    && let Some((line, column)) = tab_at_or_after(&f.text, span.line, span.column)
                {
                    span = Span {
                        file: i,
                        line,
                        column,
                        len: 1,
                    };
                } else if rule == "syntax"
                    && let Some((line, column, what)) =
                        unclosed_before(&f.text, span.line, span.column)
                {
                    message = format!(
                        "invalid YAML: this {what} is never closed (the parser stopped at line {}: {})",
                        span.line,
                        message.trim_start_matches("invalid YAML: ")
                    );
                    help = format!("close the {what} on this line");
                    span = Span {
                        file: i,
                        line,
                        column,
                        len: 1,
                    };
                }
                problems.push(Located {
                    severity: Severity::Error,
                    rule: Cow::Borrowed(rule),
                    message,
                    help: Some(help),
                    path: String::new(),
                    span: Some(span),
                    related: Vec::new(),
                });
            }
        }
    }
    report.items.extend(problems);
    trees
}
