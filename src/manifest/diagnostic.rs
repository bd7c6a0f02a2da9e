//! Diagnostics about a manifest and their compiler-style rendering:
//!
//! ```text
//! error: duplicate role name "Moderator"
//!   --> guild.yaml:12:11
//!    |
//! 12 |   - name: Moderator
//!    |           ^^^^^^^^^
//!    = help: rename one of them, or merge the two entries
//! ```

use std::fmt::{self, Write as _};
use std::path::Path;

use serde::Serialize;

use super::load::LoadedManifest;

/// `(line, column, length)`, 1-based, lengths in characters.
type Span = (usize, usize, usize);

/// How bad a diagnostic is: errors stop `validate`, `plan` and `apply`; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub path: String,
    pub message: String,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            message: message.into(),
            help: None,
        }
    }

    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

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

/// Renders diagnostics compiler-style, sorted by their position in the file (diagnostics whose
/// path cannot be located come last), separated by blank lines. `color` adds ANSI colours.
pub fn render(loaded: &LoadedManifest, diags: &[Diagnostic], color: bool) -> String {
    let mut located: Vec<(Option<Span>, usize, &Diagnostic)> = diags
        .iter()
        .enumerate()
        .map(|(i, d)| (locate(loaded, &d.path), i, d))
        .collect();
    located.sort_by_key(|(loc, i, _)| (loc.is_none(), loc.map(|(l, c, _)| (l, c)), *i));
    let mut out = String::new();
    for (n, (loc, _, d)) in located.into_iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&render_at(&loaded.path, &loaded.source, d, loc, color));
    }
    out
}

/// `"2 errors, 1 warning"`.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

/// Where a diagnostic points: the node itself, or for a field of a mapping that is absent, the
/// nearest ancestor present in the file.
fn locate(loaded: &LoadedManifest, path: &str) -> Option<Span> {
    loaded.locations.locate_span(path)
}

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Renders one diagnostic at a known position (`(line, column, length)`, 1-based).
pub(crate) fn render_at(
    file: &Path,
    source: &str,
    d: &Diagnostic,
    loc: Option<Span>,
    color: bool,
) -> String {
    let st = Style { color };
    let sev_code = match d.severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}",
        st.paint(sev_code, &d.severity.to_string()),
        st.paint("1", &format!(": {}", d.message))
    );
    let line_text = loc.and_then(|(l, _, _)| source.lines().nth(l.saturating_sub(1)));
    let gutter = loc.map(|(l, _, _)| l.to_string().len()).unwrap_or(1);
    let pad = " ".repeat(gutter);
    let bar = st.paint("1;34", "|");
    match loc {
        Some((line, col, _)) => {
            let _ = writeln!(
                out,
                "{pad}{} {}:{line}:{col}",
                st.paint("1;34", "-->"),
                file.display()
            );
        }
        None => {
            let _ = writeln!(out, "{pad}{} {}", st.paint("1;34", "-->"), file.display());
        }
    }
    if let (Some((line, col, len)), Some(text)) = (loc, line_text) {
        let text = text.trim_end_matches('\r');
        let width = text.chars().count();
        // Columns are in characters; a marker never runs past the end of the line.
        let start = col.saturating_sub(1).min(width);
        let len = len.min(width.saturating_sub(start)).max(1);
        let prefix: String = text
            .chars()
            .take(start)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let _ = writeln!(out, "{pad} {bar}");
        let _ = writeln!(out, "{} {bar} {text}", st.paint("1;34", &line.to_string()));
        let _ = writeln!(
            out,
            "{pad} {bar} {prefix}{}",
            st.paint(sev_code, &"^".repeat(len))
        );
    }
    if !d.path.is_empty() {
        let _ = writeln!(out, "{pad} {} at: {}", st.paint("1;34", "="), d.path);
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "{pad} {} help: {help}", st.paint("1;34", "="));
    }
    out
}
