//! Diagnostics about a manifest, placed in its files, and their three renderings:
//!
//! - text, compiler-style, by [annotate-snippets](https://docs.rs/annotate-snippets) (the
//!   renderer rustc uses):
//!
//!   ```text
//!   error: duplicate role name "Moderator" (first declared at roles[0])
//!     --> guild.yaml:12:11
//!      |
//!    5 |   - name: Moderator
//!      |           --------- roles[0]
//!   ...
//!   12 |   - name: Moderator
//!      |           ^^^^^^^^^
//!      = note: at roles[2].name
//!      = help: rename or merge one of them
//!   ```
//! - GitHub workflow annotations (`::error file=…,line=…,col=…::…`);
//! - JSON, for tools.
//!
//! A [`Diagnostic`] names the node it is about by its path (`roles[2].name`); a [`Report`]
//! places each one in a file through the manifest's [`SourceMap`], sorted by position.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use hashbrown::HashSet;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use serde::Serialize;

use super::source::SourceFile;
use super::source_map::{SourceMap, Span};
use crate::inert;

/// How bad a diagnostic is: errors stop `validate`, `plan` and `apply`; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The manifest cannot be used as it is.
    Error,
    /// Worth a look; the manifest is used.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One finding about a manifest. `path` names the offending node (`roles[2].name`,
/// `channels[0].channels[3].overwrites[1].deny[0]`, `settings.afk_timeout`; `""` is the root).
/// Other nodes a message names by path (`first declared at roles[0]`) are shown beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// The node it is about (`roles[2].name`); `""` is the root.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when there is something to say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error about the node at `path`.
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            message: message.into(),
            help: None,
        }
    }

    /// A warning about the node at `path`.
    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    /// This diagnostic with what to do about it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// It is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// One line: `error: roles[2].name: duplicate role name "x"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.severity, self.message)
        } else {
            write!(f, "{}: {}: {}", self.severity, self.path, self.message)
        }
    }
}

/// True if any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// `"2 errors, 1 warning"`.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    counts(errors, diags.len() - errors)
}

fn counts(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

// ---------------------------------------------------------------------------------------------
// Placed diagnostics

/// A diagnostic placed in the manifest's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// How bad it is.
    pub severity: Severity,
    /// What found it: `read`, `syntax`, `limits`, `version`, `merge`, `schema`, `type`, one of
    /// [`super::check::RULES`], `avatar-files`, or `plan`.
    pub rule: Cow<'static, str>,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when there is something to say.
    pub help: Option<String>,
    /// The node it is about (`roles[2].name`); empty when it is not about one node.
    pub path: String,
    /// Where it is; `None` when it is about no place in a file (a folder without YAML files).
    pub span: Option<Span>,
    /// Other places the problem involves (the first declaration of a duplicate): a label
    /// (usually a node path) and the place.
    pub related: Vec<(String, Span)>,
}

impl Located {
    /// It is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The diagnostics a run has shown, by file (its real path), line, column, severity and
/// message: see [`Report::unseen`].
pub type Seen = HashSet<(PathBuf, usize, usize, Severity, String)>;

/// The diagnostics about one manifest (a file or a folder of files), sorted by position,
/// with the files' text for excerpts.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What `-f` named: the manifest file or folder.
    pub root: PathBuf,
    /// The manifest's files with their text, which the places name by index.
    pub files: Vec<SourceFile>,
    /// The findings, sorted by position.
    pub items: Vec<Located>,
}

impl Report {
    /// A report on the manifest at `root` (its `files`) with nothing found yet.
    pub fn new(root: &Path, files: Vec<SourceFile>) -> Self {
        Report {
            root: root.to_path_buf(),
            files,
            items: Vec::new(),
        }
    }

    /// How many errors.
    pub fn errors(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    /// How many warnings.
    pub fn warnings(&self) -> usize {
        self.items.len() - self.errors()
    }

    /// Any error at all: the manifest cannot be used.
    pub fn has_errors(&self) -> bool {
        self.errors() > 0
    }

    /// `"2 errors, 1 warning"`.
    pub fn summary(&self) -> String {
        counts(self.errors(), self.warnings())
    }

    /// Places path-based diagnostics with `map` and adds them. Node paths that a message
    /// mentions and the map knows exactly become related places.
    pub fn add_diagnostics<'a>(
        &mut self,
        map: &SourceMap,
        diags: impl IntoIterator<Item = (Cow<'static, str>, &'a Diagnostic)>,
    ) {
        for (rule, d) in diags {
            let related = mentioned_paths(&d.message)
                .into_iter()
                .filter(|p| *p != d.path)
                .filter_map(|p| {
                    map.exact(p)
                        .and_then(|_| map.display_span(p))
                        .map(|s| (p.to_string(), s))
                })
                .collect();
            self.items.push(Located {
                severity: d.severity,
                rule,
                message: d.message.clone(),
                help: d.help.clone(),
                path: d.path.clone(),
                span: map.display_span(&d.path),
                related,
            });
        }
    }

    /// Sorts by position: by file (in merge order), line and column; diagnostics without a
    /// place first (they are about the whole manifest). Stable for equal positions.
    pub fn sort(&mut self) {
        self.items
            .sort_by_key(|d| d.span.map(|s| (s.file, s.line, s.column)));
    }

    /// This report without the diagnostics `seen` holds, and how many were taken out; the
    /// others are added to `seen`. Manifests of one run that read the same base find its
    /// problems alike, at the same place: printed once, for the first manifest.
    pub fn unseen(&self, seen: &mut Seen) -> (Report, usize) {
        let mut shown = Report {
            root: self.root.clone(),
            files: self.files.clone(),
            items: Vec::new(),
        };
        let mut repeated = 0;
        for d in &self.items {
            // A diagnostic about no place is about this manifest alone.
            let Some(s) = d.span else {
                shown.items.push(d.clone());
                continue;
            };
            let file = self.file_of(Some(s));
            let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
            if seen.insert((file, s.line, s.column, d.severity, d.message.clone())) {
                shown.items.push(d.clone());
            } else {
                repeated += 1;
            }
        }
        (shown, repeated)
    }

    /// The file a diagnostic is in (or the manifest's root when it has no place), for output.
    fn file_of(&self, span: Option<Span>) -> &Path {
        span.and_then(|s| self.files.get(s.file))
            .map(|f| f.path.as_path())
            .unwrap_or(&self.root)
    }

    /// That file's name as shown: file names come from outside (a pull request names
    /// them), so the name is made inert ([`inert::terminal`]).
    fn shown_file(&self, span: Option<Span>) -> String {
        inert::terminal(&self.file_of(span).display().to_string()).into_owned()
    }

    /// Compiler-style text, one block per diagnostic separated by blank lines, with ANSI
    /// colours if `color`.
    pub fn render_text(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for (n, d) in self.items.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str(&renderer.render(&[self.group(d)]));
            out.push('\n');
        }
        out
    }

    fn group<'a>(&'a self, d: &'a Located) -> Group<'a> {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.primary_title(clean(&d.message));
        let mut elements: Vec<annotate_snippets::Element<'a>> = Vec::new();
        match d.span {
            Some(s) => {
                // Related places in the same file join the primary excerpt (annotate-snippets
                // shows their lines and folds what lies between); others get their own.
                let same: Vec<&(String, Span)> =
                    d.related.iter().filter(|(_, r)| r.file == s.file).collect();
                let lo = same.iter().map(|(_, r)| r.line).fold(s.line, usize::min);
                let hi = same.iter().map(|(_, r)| r.line).fold(s.line, usize::max);
                let mut snippet = self.snippet(s.file, lo, hi);
                let excerpt = self.excerpt(s.file, lo, hi);
                snippet = snippet
                    .annotation(AnnotationKind::Primary.span(self.range_in(&excerpt, lo, s)));
                for (label, r) in &same {
                    snippet = snippet.annotation(
                        AnnotationKind::Context
                            .span(self.range_in(&excerpt, lo, *r))
                            .label(Cow::Owned(clean(label))),
                    );
                }
                elements.push(snippet.into());
                for (label, r) in d.related.iter().filter(|(_, r)| r.file != s.file) {
                    let excerpt = self.excerpt(r.file, r.line, r.line);
                    elements.push(
                        self.snippet(r.file, r.line, r.line)
                            .annotation(
                                AnnotationKind::Context
                                    .span(self.range_in(&excerpt, r.line, *r))
                                    .label(Cow::Owned(clean(label))),
                            )
                            .into(),
                    );
                }
            }
            None => elements.push(Origin::path(self.shown_file(None)).into()),
        }
        if !d.path.is_empty() {
            elements.push(Level::NOTE.message(format!("at {}", clean(&d.path))).into());
        }
        if let Some(help) = &d.help {
            elements.push(Level::HELP.message(clean(help)).into());
        }
        title.elements(elements)
    }

    /// An excerpt of lines `lo..=hi` of a file, numbered, without annotations yet.
    fn snippet(
        &self,
        file: usize,
        lo: usize,
        hi: usize,
    ) -> Snippet<'_, annotate_snippets::Annotation<'_>> {
        Snippet::source(self.excerpt(file, lo, hi))
            .line_start(lo.max(1))
            .path(self.shown_file(Some(Span {
                file,
                line: lo,
                column: 1,
                len: 1,
            })))
    }

    /// Lines `lo..=hi` (1-based) of a file, without the final line break. annotate-snippets
    /// shows C0, DEL and bidi controls in excerpts as symbols; the other characters a
    /// terminal acts on (C1, bidi marks, line separators) become U+FFFD here, one for one,
    /// so columns still count right. A webhook URL's token is redacted ([`inert::redact`]):
    /// excerpts go to public job logs ([`Self::range_in`] moves columns past it).
    fn excerpt(&self, file: usize, lo: usize, hi: usize) -> Cow<'_, str> {
        let chunk = self.lines(file, lo, hi);
        let redacted = inert::redact(chunk);
        let chunk: Cow<'_, str> = if redacted == chunk {
            Cow::Borrowed(chunk)
        } else {
            Cow::Owned(redacted)
        };
        // What annotate-snippets leaves (it handles C0, tabs included, DEL and the bidi
        // embeddings, overrides and isolates itself).
        let acted_on = |c: char| {
            matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
            )
        };
        if chunk.chars().any(acted_on) {
            Cow::Owned(
                chunk
                    .chars()
                    .map(|c| if acted_on(c) { '\u{fffd}' } else { c })
                    .collect(),
            )
        } else {
            chunk
        }
    }

    /// Lines `lo..=hi` (1-based) of a file as they are, without the final line break.
    fn lines(&self, file: usize, lo: usize, hi: usize) -> &str {
        let text = self.files.get(file).map(|f| f.text.as_str()).unwrap_or("");
        let start = line_start(text, lo.max(1));
        let end = line_start(text, hi.max(1) + 1).max(start);
        let chunk = &text[start..end];
        let chunk = chunk.strip_suffix('\n').unwrap_or(chunk);
        chunk.strip_suffix('\r').unwrap_or(chunk)
    }

    /// The byte range of place `s` in an excerpt of its file that starts at line `lo`;
    /// columns and lengths are the file's characters, clamped to the line, and moved as a
    /// token redacted before them on the line moved the text.
    fn range_in(&self, excerpt: &str, lo: usize, s: Span) -> std::ops::Range<usize> {
        let at = line_start(excerpt, s.line.saturating_sub(lo) + 1);
        let rest = &excerpt[at..];
        let line = rest.split('\n').next().unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let original = self.lines(s.file, s.line, s.line);
        let shown = |column: usize| {
            let before = &original[..byte_of_char(original, column)];
            inert::redact(before).chars().count()
        };
        let from = byte_of_char(line, shown(s.column.saturating_sub(1)));
        let to = byte_of_char(line, shown(s.column.saturating_sub(1) + s.len.max(1)));
        (at + from)..(at + to.max(from))
    }

    /// GitHub workflow annotations, one per line:
    /// `::error file=guild.yaml,line=12,col=11,endLine=12,endColumn=19,title=guildctl (schema)::message`.
    pub fn render_github(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let mut props = vec![format!("file={}", gh_property(&self.shown_file(d.span)))];
            if let Some(s) = d.span {
                props.push(format!("line={}", s.line));
                props.push(format!("col={}", s.column));
                props.push(format!("endLine={}", s.line));
                props.push(format!("endColumn={}", s.column + s.len.max(1) - 1));
            }
            props.push(format!(
                "title={}",
                gh_property(&format!("guildctl ({})", d.rule))
            ));
            // Lines of the annotation: each made inert, then joined with line breaks the
            // runner decodes (%0A).
            let mut message = clean(&d.message);
            for (label, r) in &d.related {
                message.push_str(&format!(
                    "\n{} is at {}:{}:{}",
                    clean(label),
                    self.shown_file(Some(*r)),
                    r.line,
                    r.column
                ));
            }
            if !d.path.is_empty() {
                message.push_str(&format!("\nat {}", clean(&d.path)));
            }
            if let Some(help) = &d.help {
                message.push_str(&format!("\nhelp: {}", clean(help)));
            }
            out.push_str(&format!(
                "::{kind} {}::{}\n",
                props.join(","),
                gh_data(&message)
            ));
        }
        out
    }

    /// Where a diagnostic is, `file:line:column` (or the file alone), inert, for one line.
    fn place(&self, d: &Located) -> String {
        let file = self.shown_file(d.span);
        match d.span {
            Some(s) => format!("{file}:{}:{}", s.line, s.column),
            None => file,
        }
    }

    /// The first error on one line, `file:line:column: message`, inert: what a summary
    /// or a list of guilds says about a manifest that does not load.
    pub fn first_error(&self) -> Option<String> {
        let d = self.items.iter().find(|d| d.is_error())?;
        let more = self.errors() - 1;
        let more = match more {
            0 => String::new(),
            n => format!(" (and {n} more error{})", if n == 1 { "" } else { "s" }),
        };
        Some(format!("{}: {}{more}", self.place(d), clean(&d.message)))
    }

    /// The errors as a markdown list for a pull request's comment: each one's place
    /// (`file:line:column`) as code, its message, the node and the help; inert, as every
    /// text from the manifest in a comment is.
    pub fn render_markdown_errors(&self) -> String {
        let mut out = String::new();
        for d in self.items.iter().filter(|d| d.is_error()) {
            out.push_str(&format!(
                "- {}: **{}**",
                inert::markdown_code(&self.place(d)),
                inert::markdown_spans(&clean(&d.message))
            ));
            if !d.path.is_empty() {
                out.push_str(&format!(" (at {})", inert::markdown_code(&clean(&d.path))));
            }
            if let Some(help) = &d.help {
                out.push_str(&format!(". Help: {}", inert::markdown_spans(&clean(help))));
            }
            out.push('\n');
        }
        out
    }

    /// The diagnostics as JSON values (see docs/validation.md for the format).
    pub fn json_items(&self) -> Vec<serde_json::Value> {
        let place = |s: Option<Span>| {
            let mut o = serde_json::Map::new();
            o.insert("file".into(), self.file_of(s).display().to_string().into());
            if let Some(s) = s {
                o.insert("line".into(), s.line.into());
                o.insert("column".into(), s.column.into());
                o.insert("end_line".into(), s.line.into());
                o.insert("end_column".into(), (s.column + s.len.max(1)).into());
            }
            o
        };
        self.items
            .iter()
            .map(|d| {
                let mut o = place(d.span);
                o.insert("severity".into(), serde_json::json!(d.severity));
                o.insert("rule".into(), serde_json::json!(d.rule));
                o.insert("path".into(), serde_json::json!(d.path));
                o.insert(
                    "message".into(),
                    serde_json::json!(inert::redact(&d.message)),
                );
                o.insert(
                    "help".into(),
                    serde_json::json!(d.help.as_deref().map(inert::redact)),
                );
                let related: Vec<serde_json::Value> = d
                    .related
                    .iter()
                    .map(|(label, r)| {
                        let mut o = place(Some(*r));
                        o.insert("label".into(), serde_json::json!(inert::redact(label)));
                        serde_json::Value::Object(o)
                    })
                    .collect();
                o.insert("related".into(), serde_json::json!(related));
                serde_json::Value::Object(o)
            })
            .collect()
    }
}

/// Byte offset where 1-based `line` starts in `text` (its length past the last line).
fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    let mut seen = 1;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            seen += 1;
            if seen == line {
                return i + 1;
            }
        }
    }
    text.len()
}

/// Byte offset of the `n`th character of `line` (its length past the end).
fn byte_of_char(line: &str, n: usize) -> usize {
    line.char_indices().nth(n).map_or(line.len(), |(i, _)| i)
}

/// Text from the manifest (names, values, file names) may hold control characters and
/// line breaks: shown escaped, on one line ([`inert::terminal`]).
fn clean(s: &str) -> String {
    inert::terminal(&inert::redact(s)).into_owned()
}

fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Node paths a message mentions (`first declared at roles[0]`): words that start with a
/// top-level section and go on with `[n]` or `.field`.
pub(crate) fn mentioned_paths(message: &str) -> Vec<&str> {
    let bytes = message.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b'.');
        let section = crate::manifest::SECTION_KEYS
            .iter()
            .filter(|s| s.placed)
            .map(|s| s.key)
            .find(|s| boundary && bytes[i..].starts_with(s.as_bytes()));
        let Some(section) = section else {
            i += 1;
            continue;
        };
        let mut j = i + section.len();
        let mut parts = 0;
        loop {
            match bytes.get(j) {
                Some(b'[') => {
                    let k = j + 1;
                    let digits = bytes[k..].iter().take_while(|b| b.is_ascii_digit()).count();
                    if digits > 0 && bytes.get(k + digits) == Some(&b']') {
                        j = k + digits + 1;
                        parts += 1;
                    } else {
                        break;
                    }
                }
                Some(b'.') => {
                    let k = j + 1;
                    let n = bytes[k..]
                        .iter()
                        .take_while(|b| b.is_ascii_lowercase() || **b == b'_')
                        .count();
                    if n > 0 {
                        j = k + n;
                        parts += 1;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        if parts > 0 {
            out.push(&message[i..j]);
        }
        i = j.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_mentioned_paths() {
        assert_eq!(
            mentioned_paths("duplicate (first declared at roles[0]); see channels[1].channels[2]."),
            vec!["roles[0]", "channels[1].channels[2]"]
        );
        assert!(mentioned_paths("the roles are fine; settings").is_empty());
        assert!(mentioned_paths("myroles[0]").is_empty());
    }

    #[test]
    fn github_escapes() {
        assert_eq!(gh_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(gh_property("a:b,c"), "a%3Ab%2Cc");
    }
}
