//! What `guildctl validate` prints, in each of its formats: the reports' diagnostics as
//! text, GitHub annotations, JSON or SARIF.

use super::diagnostic::{Report, Seen};
use super::sarif;
use crate::inert;

/// How `validate` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReportFormat {
    /// Compiler-style text on stderr.
    #[default]
    Text,
    /// GitHub workflow annotations (`::error file=…,line=…::…`) on stdout.
    Github,
    /// One JSON document on stdout.
    Json,
    /// One SARIF 2.1.0 log on stdout, for code-scanning views.
    Sarif,
}

/// What `validate` prints, on each stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// What goes to standard output.
    pub stdout: String,
    /// What goes to standard error.
    pub stderr: String,
}

/// Renders the reports of the manifests `validate` was given. Text: each manifest's
/// diagnostics and a line saying whether it is valid, on stderr. GitHub: the annotations on
/// stdout, the summary lines on stderr. JSON: one document on stdout (docs/validation.md).
/// SARIF: one log on stdout, the summary lines on stderr.
pub fn render_reports(reports: &[Report], format: ReportFormat, color: bool) -> Output {
    let mut out = Output::default();
    let summary_line = |r: &Report, repeated: usize| {
        // The line opens with the file name: made inert, it cannot open a workflow command.
        let root = inert::terminal(&r.root.display().to_string()).into_owned();
        let above = match repeated {
            0 => String::new(),
            n => format!("; {n} of them shown above"),
        };
        if r.has_errors() {
            format!("{root}: invalid ({}{above})\n", r.summary())
        } else if r.warnings() > 0 {
            format!("{root}: valid ({}{above})\n", r.summary())
        } else {
            format!("{root}: valid\n")
        }
    };
    // A problem in a file several of the manifests read (a base) is the same problem at the
    // same place for each: shown once, and each manifest's line counts it.
    let mut seen = Seen::new();
    match format {
        ReportFormat::Text => {
            for r in reports {
                let (shown, repeated) = r.unseen(&mut seen);
                out.stderr.push_str(&shown.render_text(color));
                if !shown.items.is_empty() {
                    out.stderr.push('\n');
                }
                out.stderr.push_str(&summary_line(r, repeated));
            }
        }
        ReportFormat::Github => {
            for r in reports {
                let (shown, repeated) = r.unseen(&mut seen);
                out.stdout.push_str(&shown.render_github());
                out.stderr.push_str(&summary_line(r, repeated));
            }
        }
        ReportFormat::Sarif => {
            let all: Vec<&Report> = reports.iter().collect();
            out.stdout = sarif::render(&all, &[]);
            for r in reports {
                out.stderr.push_str(&summary_line(r, 0));
            }
        }
        ReportFormat::Json => {
            let errors: usize = reports.iter().map(Report::errors).sum();
            let warnings: usize = reports.iter().map(Report::warnings).sum();
            let doc = serde_json::json!({
                "valid": errors == 0,
                "errors": errors,
                "warnings": warnings,
                "manifests": reports.iter().map(|r| serde_json::json!({
                    "path": r.root.display().to_string(),
                    "valid": !r.has_errors(),
                    "errors": r.errors(),
                    "warnings": r.warnings(),
                })).collect::<Vec<_>>(),
                "diagnostics": reports.iter().flat_map(Report::json_items).collect::<Vec<_>>(),
            });
            out.stdout = inert::json_pretty(&doc);
            out.stdout.push('\n');
        }
    }
    out
}
