//! What `guildctl validate` prints, in each of its formats: the reports' diagnostics as
//! text, GitHub annotations, JSON or SARIF.

use super::diagnostic::Report;
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
    pub stdout: String,
    pub stderr: String,
}

/// Renders the reports of the manifests `validate` was given. Text: each manifest's
/// diagnostics and a line saying whether it is valid, on stderr. GitHub: the annotations on
/// stdout, the summary lines on stderr. JSON: one document on stdout (docs/validation.md).
/// SARIF: one log on stdout, the summary lines on stderr.
pub fn render_reports(reports: &[Report], format: ReportFormat, color: bool) -> Output {
    let mut out = Output::default();
    let summary_line = |r: &Report| {
        // The line opens with the file name: made inert, it cannot open a workflow command.
        let root = inert::terminal(&r.root.display().to_string()).into_owned();
        if r.has_errors() {
            format!("{root}: invalid ({})\n", r.summary())
        } else if r.warnings() > 0 {
            format!("{root}: valid ({})\n", r.summary())
        } else {
            format!("{root}: valid\n")
        }
    };
    match format {
        ReportFormat::Text => {
            for r in reports {
                out.stderr.push_str(&r.render_text(color));
                if !r.items.is_empty() {
                    out.stderr.push('\n');
                }
                out.stderr.push_str(&summary_line(r));
            }
        }
        ReportFormat::Github => {
            for r in reports {
                out.stdout.push_str(&r.render_github());
                out.stderr.push_str(&summary_line(r));
            }
        }
        ReportFormat::Sarif => {
            let all: Vec<&Report> = reports.iter().collect();
            out.stdout = sarif::render(&all, &[]);
            for r in reports {
                out.stderr.push_str(&summary_line(r));
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
