//! Loading a manifest, one file or a folder of files, in stages that each report every problem
//! they find before the next one runs:
//!
//! 1. **read** ([`super::source`]): size limits, UTF-8;
//! 2. **syntax**: YAML 1.2 into a tree with positions, within a parse budget (depth, nodes,
//!    aliases, one document);
//! 3. **version**: `version: 1`, before the shape is looked at (a future format may not fit);
//! 4. **merge**: a folder's files merged by top-level section, into one JSON value and a
//!    [`SourceMap`] from node paths (`roles[2].name`) to file, line and column;
//! 5. **schema**: the value against the generated JSON schema (every violation at once);
//! 6. **type**: the typed [`Manifest`] from the value.
//!
//! The semantic checks ([`super::check`]) run on the result.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hashbrown::HashMap;
use serde_json::Value;

use super::diagnostic::{Diagnostic, Located, Report, Severity};
use super::extends;
use super::shared::Derived;
use super::source::{self, SourceFile, Within};
use super::source_map::{Part, SourceMap, Span, Trees, key_span, span_of};
use super::tree::{At, Limits, Node, Scalar, ScalarNode, parse_fast, to_json};
use super::types::Manifest;

/// The only manifest format version.
pub const MANIFEST_VERSION: u32 = 1;

/// How deep YAML may nest (mappings and lists). The deepest manifest node
/// (`onboarding.prompts[].options[].emoji.id`) is at depth 7.
pub const MAX_DEPTH: usize = 32;
/// The most YAML nodes (scalars, mappings, lists) a file may have, aliases expanded.
pub const MAX_NODES: usize = 250_000;
/// The most aliases (`*name`) a file may use.
pub const MAX_ALIASES: usize = 1_000;

/// Top-level sections that are lists: a folder's files may each hold part of them.
pub const LIST_SECTIONS: [&str; 5] = ["roles", "channels", "webhooks", "bans", "policies"];

/// A parsed manifest with its files' text and node locations.
#[derive(Debug, Clone)]
pub struct LoadedManifest {
    /// What `-f` named: the manifest file, or the folder of its files.
    pub path: PathBuf,
    /// Whether `path` is a folder.
    pub is_dir: bool,
    /// The files, in merge order (one for a file manifest).
    pub files: Vec<SourceFile>,
    /// Shared with every load of the same content in this process ([`super::shared`]).
    pub manifest: Arc<Manifest>,
    pub locations: SourceMap,
    /// [`Self::stored`] and the checks' findings, made once per content: the checks and the
    /// plan both read the stored form.
    derived: Arc<Derived>,
}

impl LoadedManifest {
    /// The manifest as Discord will store it ([`super::stored::as_stored`]), which the
    /// checks check and the plan plans.
    pub fn stored(&self) -> &Manifest {
        self.derived
            .stored
            .get_or_init(|| super::stored::as_stored(&self.manifest))
    }

    /// The rules' findings ([`super::check::check_loaded_by_rule`] without the file
    /// checks), made by `check` the first time any load of this content asks.
    pub(super) fn checked(
        &self,
        check: impl FnOnce(&Self) -> Vec<(&'static str, Diagnostic)>,
    ) -> &[(&'static str, Diagnostic)] {
        self.derived.checks.get_or_init(|| check(self))
    }

    /// The content digest (`plan::binding::manifest_digest`), made by `digest` the first
    /// time any load of this content asks: the same files in the same folder have one.
    pub(crate) fn digest(&self, digest: impl FnOnce(&Self) -> String) -> &str {
        self.derived.digest.get_or_init(|| digest(self))
    }

    /// The folder files the manifest names (webhook avatars) are relative to: the folder
    /// itself for a folder manifest, the file's folder otherwise (`.` for a bare file name).
    pub fn dir(&self) -> PathBuf {
        manifest_dir(&self.path, self.is_dir)
    }

    /// The manifest as JSON (its files merged), as validated against the schema. Made anew
    /// from the files' trees: nothing needs it after loading, so it is not kept.
    pub fn json_value(&self) -> Option<Value> {
        Some(value_of(&self.locations))
    }

    /// An empty report about this manifest, to add diagnostics to.
    pub fn report(&self) -> Report {
        Report::new(&self.path, self.files.clone())
    }
}

/// The folder a manifest's relative paths start from ([`LoadedManifest::dir`]).
fn manifest_dir(path: &Path, is_dir: bool) -> PathBuf {
    if is_dir {
        return path.to_path_buf();
    }
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Why a manifest could not be loaded: every problem of the stage that stopped it, placed in
/// the files. `Display` gives one `file:line:col: error: message` line per problem.
#[derive(Debug, Clone)]
pub struct LoadError {
    pub report: Report,
}

impl LoadError {
    /// The problems, sorted by position.
    pub fn items(&self) -> &[Located] {
        &self.report.items
    }

    /// `(line, column)` of the first problem, if it has a place.
    pub fn location(&self) -> Option<(usize, usize)> {
        self.report
            .items
            .first()
            .and_then(|d| d.span)
            .map(|s| (s.line, s.column))
    }

    /// The first problem's message.
    pub fn message(&self) -> &str {
        self.report.items.first().map_or("", |d| d.message.as_str())
    }

    /// The first problem's help.
    pub fn hint(&self) -> Option<&str> {
        self.report.items.first().and_then(|d| d.help.as_deref())
    }

    /// What found the first problem (`syntax`, `schema`, ...).
    pub fn rule(&self) -> &str {
        self.report.items.first().map_or("", |d| &d.rule)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.report.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let file = d
                .span
                .and_then(|s| self.report.files.get(s.file))
                .map_or(&self.report.root, |f| &f.path);
            match d.span {
                Some(s) => write!(f, "{}:{}:{}: ", file.display(), s.line, s.column)?,
                None => write!(f, "{}: ", file.display())?,
            }
            write!(f, "{}: {}", d.severity, crate::inert::redact(&d.message))?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Reads and parses a manifest given with `-f`: a YAML file, or a folder of them merged by
/// section. The path must stay inside the working folder if it is relative, inside the folder
/// it is given in if it is absolute ([`Within::given`]).
pub fn load(path: &Path) -> Result<LoadedManifest, LoadError> {
    load_in(path, &Within::given(path))
}

/// [`load`] for a path that must stay `within` a folder (a workspace's guild: its folder).
pub fn load_in(path: &Path, within: &Within) -> Result<LoadedManifest, LoadError> {
    let read = source::read(path, within);
    let mut report = Report::new(path, read.files);
    for p in read.problems {
        report.items.push(Located {
            severity: Severity::Error,
            rule: Cow::Borrowed("read"),
            message: p.message,
            help: Some(p.help),
            path: String::new(),
            span: match (p.file, p.at) {
                (Some(file), Some((line, column))) => Some(Span {
                    file,
                    line,
                    column,
                    len: 1,
                }),
                _ => None,
            },
            related: Vec::new(),
        });
    }
    load_files(report, read.is_dir, &read.usable)
}

/// Parses manifest text; `path` is only used in messages and [`LoadedManifest::path`].
pub fn load_str(path: &Path, source: String) -> Result<LoadedManifest, LoadError> {
    let report = Report::new(
        path,
        vec![SourceFile {
            path: path.to_path_buf(),
            text: source,
        }],
    );
    load_files(report, false, &[true])
}

/// Parses a folder manifest's files given in memory (`files` in merge order, paths as they
/// should be shown); `root` is the folder. For tests and fuzzing: [`load`] reads a folder.
pub fn load_folder_sources(
    root: &Path,
    files: Vec<SourceFile>,
) -> Result<LoadedManifest, LoadError> {
    let usable = vec![true; files.len()];
    let mut report = Report::new(root, files);
    if report.files.is_empty() {
        push(
            &mut report,
            "read",
            None,
            format!("the folder {} has no YAML files", root.display()),
            "put the manifest's sections in YAML files in this folder".into(),
        );
        return Err(fail(report));
    }
    load_files(report, true, &usable)
}

fn push(
    report: &mut Report,
    rule: &'static str,
    span: Option<Span>,
    message: String,
    help: String,
) {
    report.items.push(Located {
        severity: Severity::Error,
        rule: Cow::Borrowed(rule),
        message,
        help: Some(help),
        path: String::new(),
        span,
        related: Vec::new(),
    });
}

fn fail(mut report: Report) -> LoadError {
    report.sort();
    LoadError { report }
}

/// Stages 2 to 6 on files already read (`usable[i]`: file `i` was read without problems).
fn load_files(
    mut report: Report,
    is_dir: bool,
    usable: &[bool],
) -> Result<LoadedManifest, LoadError> {
    normalize_breaks(&mut report.files);
    // 2. Syntax, file by file: a broken file does not hide the problems of the others.
    let trees = parse_files(&mut report, 0, usable);
    if report.has_errors() {
        return Err(fail(report));
    }

    // 3. Shape of each file and the version gate.
    check_files(&mut report, is_dir, &trees);
    if report.has_errors() {
        return Err(fail(report));
    }

    // 4. Merge into one value, with the source map; then the bases it extends, if any.
    let merged = merge(&mut report, trees);
    if report.has_errors() {
        return Err(fail(report));
    }
    let locations = match extend(&mut report, merged) {
        Some(l) if !report.has_errors() => l,
        _ => return Err(fail(report)),
    };
    // 5 and 6, once per distinct content (`shared`): guilds that share a layout share them.
    let dir = manifest_dir(&report.root, is_dir);
    let derived = super::shared::derive(&dir, is_dir, &report.files, || {
        let mut found = Report::new(&report.root, Vec::new());
        match typed_manifest(&mut found, &locations) {
            Some(m) => Ok(m),
            None => Err(found.items),
        }
    });
    match derived {
        Ok(derived) => Ok(LoadedManifest {
            path: report.root,
            is_dir,
            files: report.files,
            manifest: Arc::clone(&derived.manifest),
            locations,
            derived,
        }),
        Err(items) => {
            report.items.extend(items);
            Err(fail(report))
        }
    }
}

/// Stages 5 and 6: the merged value against the schema, then the typed manifest; `None`
/// with the problems in `report`.
fn typed_manifest(report: &mut Report, locations: &SourceMap) -> Option<Manifest> {
    let value = value_of(locations);

    // 5. The JSON schema: every violation at once.
    let violations = super::schema::violations(&value);
    if !violations.is_empty() {
        for v in &violations {
            let span = if v.at_key {
                locations.key_span(&v.diagnostic.path)
            } else {
                None
            }
            .or_else(|| locations.span(&v.diagnostic.path));
            report.items.push(Located {
                severity: v.diagnostic.severity,
                rule: Cow::Borrowed("schema"),
                message: v.diagnostic.message.clone(),
                help: v.diagnostic.help.clone(),
                path: v.diagnostic.path.clone(),
                span,
                related: Vec::new(),
            });
        }
        return None;
    }

    // 6. The typed manifest. The schema accepted the value, so this fails only where the
    // types are stricter (a number too large for its field).
    // Read without tracking the path first (a third of the cost); only a value the types
    // refuse is read again to learn where.
    let typed = <Manifest as serde::Deserialize>::deserialize(&value)
        .or_else(|_| serde_path_to_error::deserialize::<_, Manifest>(&value));
    match typed {
        Ok(m) => Some(m),
        Err(e) => {
            let path = serde_path(e.path());
            let inner = e.into_inner().to_string();
            let d =
                Diagnostic::error(path.clone(), type_message(&inner))
                    .with_help(type_hint(&inner).unwrap_or_else(|| {
                    "see schema/guildctl.schema.json or docs/manifest.md for what this field takes"
                        .into()
                }));
            report.add_diagnostics(locations, [(Cow::Borrowed("type"), &d)]);
            None
        }
    }
}

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
pub(super) fn parse_tree(text: &str) -> Result<At<Node>, serde_saphyr::Error> {
    parse(text)
}

/// Whether the text parses by the fast path (for tests: the manifests guildctl writes and
/// the examples should).
#[doc(hidden)]
pub fn parses_fast(text: &str) -> bool {
    parse_fast(text, &LIMITS).is_some()
}

/// Panics unless the fast parse, where it answers, gives serde-saphyr's tree (places
/// included). For the fuzz harness.
#[doc(hidden)]
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

/// The place of a parse error: its line and column, one character long.
fn error_span(e: &serde_saphyr::Error, file: usize, text: &str) -> Span {
    let (line, column) = match e.location() {
        Some(loc) if loc.line() > 0 => (loc.line() as usize, loc.column().max(1) as usize),
        _ => (1, 1),
    };
    // A position past the end of the text (an unclosed bracket at the end) is shown on the
    // last line.
    let lines = text.split('\n').count().max(1);
    let line = line.min(lines);
    Span {
        file,
        line,
        column,
        len: 1,
    }
}

/// A syntax error is often found lines after the mistake: a quote or bracket left open runs
/// on until the parser gives up. Finds a quote opened on an earlier line and still open at
/// the error, or a bracket opened on an earlier line and still open when the text has come
/// back to that line's indentation: `(line, column, "quote" | "bracket")`.
fn unclosed_before(
    text: &str,
    err_line: usize,
    err_col: usize,
) -> Option<(usize, usize, &'static str)> {
    let mut stack: Vec<(usize, usize, usize)> = Vec::new(); // (line, column, indent of its line)
    let mut quote: Option<(char, usize, usize)> = None;
    for (n, line) in text.split('\n').enumerate() {
        let ln = n + 1;
        if ln > err_line {
            break;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if quote.is_none() && ln == err_line {
            // Back at (or left of) the indentation of the line that opened the bracket.
            if let Some(&(l, c, ind)) = stack.last()
                && l < err_line
                && !line.trim().is_empty()
                && indent <= ind
            {
                return Some((l, c, "bracket"));
            }
        }
        let mut prev: Option<char> = None; // previous non-space character on this line
        let mut chars = line.chars().enumerate().peekable();
        while let Some((i, ch)) = chars.next() {
            let col = i + 1;
            if ln == err_line && col >= err_col {
                break;
            }
            match quote {
                Some((q, _, _)) => {
                    if q == '"' && ch == '\\' {
                        chars.next();
                    } else if ch == q {
                        if q == '\'' && chars.peek().is_some_and(|(_, c)| *c == '\'') {
                            chars.next();
                        } else {
                            quote = None;
                        }
                    }
                }
                None => {
                    let starts_value =
                        matches!(prev, None | Some(':' | '-' | '[' | '{' | ',' | '?'));
                    match ch {
                        '#' if prev.is_none()
                            || line[..line.char_indices().nth(i).map_or(0, |(b, _)| b)]
                                .ends_with(' ') =>
                        {
                            break;
                        }
                        '"' | '\'' if starts_value => quote = Some((ch, ln, col)),
                        '[' | '{' if starts_value => stack.push((ln, col, indent)),
                        ']' | '}' => {
                            stack.pop();
                        }
                        _ => {}
                    }
                }
            }
            if !ch.is_whitespace() {
                prev = Some(ch);
            }
        }
    }
    match quote {
        Some((_, l, c)) if l < err_line => Some((l, c, "quote")),
        _ => None,
    }
}

/// serde-saphyr's message without its own " at line X, column Y" suffix, and the rule
/// (`syntax`, or `limits` for a budget breach) with a help text.
fn describe_parse_error(e: &serde_saphyr::Error) -> (&'static str, String, String) {
    let text = e.without_snippet().to_string();
    let text = match text.rfind(" at line ") {
        Some(i) if text[i..].contains("column") => text[..i].to_string(),
        _ => text,
    };
    let text = match text.find(", set DuplicateKeyPolicy") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    let message = text.trim().trim_end_matches(':').to_string();
    if message.contains("recursion limit exceeded") {
        return (
            "limits",
            format!("the YAML nests deeper than {MAX_DEPTH} levels"),
            "a manifest nests a few levels at most (channels in categories, overwrites): \
             check the indentation and brackets"
                .to_string(),
        );
    }
    if let Some(rest) = message.strip_prefix("budget breached: ") {
        let what = rest.split([' ', '{']).next().unwrap_or("");
        let (message, help) = match what {
            "Depth" => (
                format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                "a manifest nests a few levels at most (channels in categories, overwrites): \
                 check the indentation and brackets"
                    .to_string(),
            ),
            "Documents" => (
                "the file has more than one YAML document (a second `---`)".to_string(),
                "a manifest file is one document: remove the `---` line, or split the manifest \
                 into a folder of files"
                    .to_string(),
            ),
            "Nodes" | "Events" => (
                format!("the YAML has more than {MAX_NODES} values"),
                "a guild's manifest is far smaller: did -f name the wrong file?".to_string(),
            ),
            "Aliases" | "Anchors" | "AliasAnchorRatio" => (
                format!(
                    "the YAML uses more than {MAX_ALIASES} aliases or anchors, or expands them too much"
                ),
                "write the values out instead of repeating aliases (`*name`)".to_string(),
            ),
            _ => (
                format!("the YAML is too large ({rest})"),
                "a guild's manifest is far smaller: did -f name the wrong file?".to_string(),
            ),
        };
        return ("limits", message, help);
    }
    let help = syntax_hint(&message);
    ("syntax", format!("invalid YAML: {message}"), help)
}

fn syntax_hint(message: &str) -> String {
    if message.contains("duplicate") {
        "each key may appear once per mapping; remove or merge the repeated key".into()
    } else if message.contains("tabs") || message.contains(" tab ") {
        "YAML indents with spaces only; replace the tab characters".into()
    } else if message.contains("unclosed") {
        "close the bracket or quote that starts here".into()
    } else if message.contains("did not find expected '-'") {
        "this line is indented differently from the entries around it: line it up with the \
         other fields of its entry"
            .into()
    } else if message.contains("unknown anchor") {
        "define the anchor (`&name`) before the alias (`*name`) uses it, or write the value out"
            .into()
    } else {
        "check the indentation and quoting on this line and the one before it; \
         quote values that contain `: ` or start with `@`, `*`, `&`, `!`, `{` or `[`"
            .into()
    }
}

/// serde's message, tidied: `invalid value: integer `5000000000`, expected u32` → with the
/// Rust type names said in words.
fn type_message(message: &str) -> String {
    let m = message
        .replace(
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        )
        .replace("expected u64", "expected a whole number");
    match m.rfind(" at line ") {
        Some(i) if m[i..].contains("column") => m[..i].to_string(),
        _ => m,
    }
}

fn type_hint(message: &str) -> Option<String> {
    if message.contains("u32") || message.contains("u64") {
        return Some("write a whole number in range, without quotes or units".into());
    }
    None
}

/// serde_path_to_error's path (`roles[0].color`, `?` for unknown parts) as a node path.
fn serde_path(p: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for seg in p.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            serde_path_to_error::Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    out
}

/// Each file must be a mapping of sections; `version` must be 1 wherever it is written, and
/// written at least once (in a file manifest: in the file).
fn check_files(report: &mut Report, is_dir: bool, trees: &[(usize, At<Node>)]) {
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

/// Merges the files' trees by top-level section: list sections ([`LIST_SECTIONS`]) are
/// concatenated in file order; any other section may be written in one file only
/// (`version` may be repeated, and is checked by [`check_files`]). The source map keeps the
/// trees and which entries were taken.
fn merge(report: &mut Report, trees: Vec<(usize, At<Node>)>) -> Trees {
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
            let is_list =
                LIST_SECTIONS.contains(&name.as_str()) && matches!(value.value, Node::Seq(_));
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
                        help: Some(if LIST_SECTIONS.contains(&name.as_str()) {
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

/// The manifest as JSON: merged from its bases (`extends:`), or from its files' trees.
fn value_of(locations: &SourceMap) -> Value {
    locations
        .merged_value()
        .unwrap_or_else(|| merged_value(locations.trees()))
}

/// Files' text with line breaks as YAML counts them: CR LF and CR become LF, so places and
/// the text shown in excerpts agree.
fn normalize_breaks(files: &mut [SourceFile]) {
    for f in files {
        if f.text.contains('\r') {
            f.text = f.text.replace("\r\n", "\n").replace('\r', "\n");
        }
    }
}

/// Stage 2 on the files from `first` on (`usable[i - first]`: file `i` was read): their
/// trees, and a problem for each that does not parse.
fn parse_files(report: &mut Report, first: usize, usable: &[bool]) -> Vec<(usize, At<Node>)> {
    let mut trees: Vec<(usize, At<Node>)> = Vec::new();
    let mut problems = Vec::new();
    for (i, f) in report.files.iter().enumerate().skip(first) {
        if !usable.get(i - first).copied().unwrap_or(false) {
            continue;
        }
        match parse(&f.text) {
            Ok(tree) => trees.push((i, tree)),
            Err(e) => {
                let (rule, mut message, mut help) = describe_parse_error(&e);
                let mut span = error_span(&e, i, &f.text);
                if rule == "syntax"
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

/// The source map of a manifest: its own files' (`top`), or, when it `extends:` bases, the
/// bases read and loaded by the same stages and merged under it (`super::extends`). None
/// when a base could not be loaded (the report says why, on the `extends:` line or in the
/// base).
fn extend(report: &mut Report, top: Trees) -> Option<SourceMap> {
    let bases = match extends::extends_of(&top) {
        Ok(b) => b,
        Err(span) => {
            push(
                report,
                "extends",
                span,
                "`extends` must be the path of a base manifest, or a list of them".into(),
                "write `extends: base.yaml` or `extends: [layout.yaml, bans.yaml]`, paths relative to this file".into(),
            );
            return None;
        }
    };
    let workspace = workspace_layer(report);
    if report.has_errors() {
        return None;
    }
    if bases.is_empty() && workspace.is_none() {
        return Some(SourceMap::new(top));
    }
    let root = extends_root(&report.root);
    let mut chain: Vec<PathBuf> = std::fs::canonicalize(&report.root).into_iter().collect();
    let mut layers = vec![extends::Layer {
        trees: top,
        bases: Vec::new(),
    }];
    // The workspace's policies lie under every layer: each guild of the workspace keeps them.
    if let Some(trees) = workspace {
        layers.push(extends::Layer {
            trees,
            bases: Vec::new(),
        });
        layers[0].bases.push(1);
    }
    add_bases(report, &mut layers, 0, bases, &mut chain, &root);
    if report.has_errors() {
        return None;
    }
    let mut all = layers.first()?.trees.clone();
    for l in &layers[1..] {
        all.trees.extend(l.trees.trees.iter().cloned());
    }
    Some(SourceMap::merged(all, Box::new(extends::Layers(layers))))
}

/// The folder bases must lie in: the nearest folder above the manifest holding a workspace
/// file (`guildctl.yaml`), else the manifest's own folder.
fn extends_root(manifest: &Path) -> Within {
    let start = manifest_folder(manifest);
    match start
        .ancestors()
        .find(|d| d.join(super::source::WORKSPACE_FILE).is_file())
    {
        Some(workspace) => Within::workspace(workspace),
        None => Within::manifest_folder(&start),
    }
}

/// The manifest's folder (itself for a folder manifest), made absolute when it can be.
fn manifest_folder(manifest: &Path) -> PathBuf {
    let start = if manifest.is_dir() {
        manifest.to_path_buf()
    } else {
        match manifest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    std::fs::canonicalize(&start).unwrap_or(start)
}

/// The `policies:` of the workspace file above the manifest, as a layer under it (its file
/// added to the report's, so its lines are shown); `None` when the manifest is in no
/// workspace or the workspace states no policy. Only `policies` is taken: the rest of the
/// file (`guilds`, `version`) is the workspace's own ([`super::Workspace`]).
fn workspace_layer(report: &mut Report) -> Option<Trees> {
    let folder = manifest_folder(&report.root);
    let file = folder
        .ancestors()
        .map(|d| d.join(super::source::WORKSPACE_FILE))
        .find(|f| f.is_file())?;
    let real = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
    if report
        .files
        .iter()
        .any(|f| std::fs::canonicalize(&f.path).is_ok_and(|p| p == real))
    {
        return None;
    }
    let within = Within::workspace(file.parent().unwrap_or(&folder));
    let read = source::read(&file, &within);
    let first = report.files.len();
    for p in read.problems {
        push(report, "read", None, p.message, p.help);
    }
    if report.has_errors() {
        return None;
    }
    report.files.extend(read.files);
    normalize_breaks(&mut report.files[first..]);
    let trees = parse_files(report, first, &read.usable);
    if report.has_errors() {
        return None;
    }
    let mut trees = merge(report, trees);
    let is_policies = |t: &Trees, part: &Part| -> bool {
        let Some((_, tree)) = t.trees.get(part.tree) else {
            return false;
        };
        let Node::Map(entries) = &tree.value else {
            return false;
        };
        entries
            .get(part.entry)
            .is_some_and(|(k, _)| k.value.0 == "policies")
    };
    let parts: Vec<Part> = trees
        .parts
        .iter()
        .filter(|p| is_policies(&trees, p))
        .cloned()
        .collect();
    if parts.is_empty() {
        report.files.truncate(first);
        return None;
    }
    trees.parts = parts;
    trees.keys.retain(|(k, _)| k == "policies");
    Some(trees)
}

/// Bases parsed in this process, by canonical path: a workspace run loads the base that
/// 100 guilds extend once, not 100 times. A base is still read for every guild (its text
/// is the guild's report's and its plan's digest's), and its parse is reused only when
/// the text read is the text parsed, so a base edited between two loads is parsed again.
/// Only bases that loaded without a problem are kept: a broken one is reported in full
/// by every guild that extends it.
struct BaseCache {
    is_dir: bool,
    /// The files as parsed (line breaks normalized), in read order.
    files: Vec<SourceFile>,
    /// The base's trees and `extends:`, with file indexes counted from its first file.
    trees: Trees,
    sub: Vec<(String, Span)>,
}

/// The most bases kept: more distinct bases than this in one run are parsed again.
const MAX_CACHED_BASES: usize = 64;

static BASES: Mutex<Vec<(PathBuf, Arc<BaseCache>)>> = Mutex::new(Vec::new());

/// Held while a base that is not kept is parsed (see [`add_bases`]).
static PARSING: Mutex<()> = Mutex::new(());

impl BaseCache {
    fn get(real: &Path, is_dir: bool, files: &[SourceFile]) -> Option<Arc<BaseCache>> {
        let bases = BASES.lock().ok()?;
        let (_, hit) = bases.iter().find(|(p, _)| p == real)?;
        (hit.is_dir == is_dir && hit.files == files).then(|| Arc::clone(hit))
    }

    fn put(
        real: PathBuf,
        is_dir: bool,
        files: &[SourceFile],
        trees: &Trees,
        sub: &[(String, Span)],
        first: usize,
    ) {
        let Ok(mut bases) = BASES.lock() else {
            return;
        };
        let entry = Arc::new(BaseCache {
            is_dir,
            files: files.to_vec(),
            trees: shifted(trees, first, false),
            sub: sub
                .iter()
                .map(|(rel, s)| (rel.clone(), shift(*s, first, false)))
                .collect(),
        });
        bases.retain(|(p, _)| *p != real);
        if bases.len() >= MAX_CACHED_BASES {
            bases.remove(0);
        }
        bases.push((real, entry));
    }

    /// The trees and `extends:` for a report whose files from `first` on are this base's.
    fn placed(&self, first: usize) -> (Trees, Vec<(String, Span)>) {
        (
            shifted(&self.trees, first, true),
            self.sub
                .iter()
                .map(|(rel, s)| (rel.clone(), shift(*s, first, true)))
                .collect(),
        )
    }
}

/// A span with its file index moved by `by` (up, or down to count from a base's first file).
fn shift(mut s: Span, by: usize, up: bool) -> Span {
    s.file = if up { s.file + by } else { s.file - by };
    s
}

fn shifted(trees: &Trees, by: usize, up: bool) -> Trees {
    let mut t = trees.clone();
    for (file, _) in &mut t.trees {
        *file = if up { *file + by } else { *file - by };
    }
    t.root = t.root.map(|s| shift(s, by, up));
    for (_, s) in &mut t.keys {
        *s = shift(*s, by, up);
    }
    t
}

/// Reads and loads the bases of layer `at`, and theirs, adding them as layers.
fn add_bases(
    report: &mut Report,
    layers: &mut Vec<extends::Layer>,
    at: usize,
    bases: Vec<(String, Span)>,
    chain: &mut Vec<PathBuf>,
    root: &Within,
) {
    for (rel, span) in bases {
        let refuse = |report: &mut Report, message: String, help: &str| {
            push(report, "extends", Some(span), message, help.to_string());
        };
        if layers.len() > extends::MAX_BASES {
            refuse(
                report,
                format!(
                    "a manifest may be built on at most {} bases",
                    extends::MAX_BASES
                ),
                "merge some of the bases",
            );
            return;
        }
        let from = report.files[span.file]
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let path = from.join(&rel);
        let shown = format!("the base manifest {rel} ({})", path.display());
        let real = match source::resolve(&path, &shown, root) {
            Ok(r) => r.real,
            Err(refused) => {
                let help = if refused.is_outside() {
                    refused.help_outside()
                } else {
                    "the path is relative to the file that writes `extends:`".into()
                };
                refuse(report, refused.to_string(), &help);
                continue;
            }
        };
        if chain.contains(&real) {
            refuse(
                report,
                format!("the base manifest {rel} extends itself (through its bases)"),
                "remove the `extends:` that closes the circle",
            );
            continue;
        }
        let read = source::read(&path, root);
        let first = report.files.len();
        report.files.extend(read.files);
        normalize_breaks(&mut report.files[first..]);
        let read_problems = !read.problems.is_empty();
        for p in read.problems {
            let at = match (p.file, p.at) {
                (Some(file), Some((line, column))) => Some(Span {
                    file: first + file,
                    line,
                    column,
                    len: 1,
                }),
                _ => Some(span),
            };
            push(report, "read", at, p.message, p.help);
        }
        if read_problems {
            continue;
        }
        // One parse of a base per run: guilds loaded side by side wait for the first
        // to parse it rather than each parsing it too.
        let mut cached = BaseCache::get(&real, read.is_dir, &report.files[first..]);
        let one_parse = cached.is_none().then(|| PARSING.lock().ok()).flatten();
        if one_parse.is_some() {
            cached = BaseCache::get(&real, read.is_dir, &report.files[first..]);
        }
        let (trees, sub) = match cached {
            Some(hit) => hit.placed(first),
            None => {
                let trees = parse_files(report, first, &read.usable);
                let before = report.items.len();
                check_files(report, read.is_dir, &trees);
                if report.items.len() > before || report.has_errors() {
                    continue;
                }
                let trees = merge(report, trees);
                if let Some(g) = extends::guild_in(&trees) {
                    push(
                        report,
                        "extends",
                        Some(g),
                        format!("the base manifest {rel} names a guild; a base is shared by the guilds that extend it"),
                        "remove `guild:` from the base; each guild's own manifest (or guildctl.yaml) names its guild".into(),
                    );
                    continue;
                }
                let sub = match extends::extends_of(&trees) {
                    Ok(s) => s,
                    Err(s) => {
                        push(
                            report,
                            "extends",
                            s,
                            "`extends` must be the path of a base manifest, or a list of them"
                                .into(),
                            "write `extends: base.yaml`".into(),
                        );
                        continue;
                    }
                };
                BaseCache::put(
                    real.clone(),
                    read.is_dir,
                    &report.files[first..],
                    &trees,
                    &sub,
                    first,
                );
                (trees, sub)
            }
        };
        // Released before its own bases are read, which take it again.
        drop(one_parse);
        let index = layers.len();
        layers.push(extends::Layer {
            trees,
            bases: Vec::new(),
        });
        layers[at].bases.push(index);
        chain.push(real);
        add_bases(report, layers, index, sub, chain, root);
        chain.pop();
    }
}

/// The merged manifest as JSON: each part's value, list sections' items appended in order.
fn merged_value(trees: &Trees) -> Value {
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

/// Diagnostics about a loaded manifest (the planner's refusals), placed on its lines and
/// sorted by position, to render as text or GitHub annotations.
pub fn report_on(loaded: &LoadedManifest, diags: &[Diagnostic]) -> Report {
    let mut report = loaded.report();
    report.add_diagnostics(
        &loaded.locations,
        diags.iter().map(|d| (Cow::Borrowed("plan"), d)),
    );
    report.sort();
    report
}

/// Renders diagnostics about a loaded manifest compiler-style; `color` adds ANSI colours.
pub fn render(loaded: &LoadedManifest, diags: &[Diagnostic], color: bool) -> String {
    report_on(loaded, diags).render_text(color)
}
