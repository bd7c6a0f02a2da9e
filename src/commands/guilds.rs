//! How a run over a workspace's guilds (`--all`, `--guilds`) is rendered: a one-line
//! summary per guild first, then each guild's report under its name, as one guild's command
//! renders it; JSON is one document with one result per guild. Exit codes combine as one
//! run's would: 1 if any guild failed, else 2 if any has changes (where the command reports
//! them), else 0. The guilds are run by `guildctl::ops`; this only renders their outcomes.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use guildctl::inert;
use guildctl::ops::apply::{NOT_PLANNED_LIST, PLANNED_LIST};
use guildctl::ops::{Failure, GuildTarget};
use guildctl::plan::Plan;
use guildctl::report::{self, Format, Heading};

use super::{EXIT_CHANGES, Invalid};

/// A guild's name in the workspace (its id for a guild given alone).
pub(crate) fn name(g: &GuildTarget) -> String {
    g.name.clone().unwrap_or_else(|| g.id.clone())
}

/// An error and its causes, as `main` prints an error (`{:#}`).
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    message
}

/// What one guild's run came to.
pub(crate) struct Outcome {
    pub(crate) name: String,
    pub(crate) id: String,
    pub(crate) code: u8,
    /// Whether the guild differs from its manifest (its plan or drift is not empty),
    /// whatever the exit code says (`plan` exits 0 on changes without
    /// `--detailed-exitcode`).
    pub(crate) changed: bool,
    /// One line for the summary table.
    pub(crate) summary: String,
    /// The guild's report as the single-guild command prints it (text or markdown).
    pub(crate) text: String,
    /// The same for `--format json`.
    pub(crate) json: Value,
    /// Whether `plan` saved a plan for the guild (`--out`): a guild without one is
    /// named in the folder's `not-planned.tsv`, with why, and not in `guilds.txt`.
    pub(crate) planned: bool,
    /// For a guild that failed before it had a report: the report's markdown body, the
    /// error with its file, line and column where the manifest is the cause.
    pub(crate) failure_markdown: Option<String>,
}

impl Outcome {
    pub(crate) fn failed(g: &GuildTarget, e: &Failure) -> Outcome {
        let message = chain(e.as_ref());
        // A manifest that does not load: its first error, placed, rather than a count.
        let invalid = e.downcast_ref::<Invalid>();
        let summary = match invalid.and_then(|i| i.report.first_error()) {
            Some(first) => format!("invalid manifest: {first}"),
            None => format!("error: {message}"),
        };
        let failure_markdown = Some(match invalid {
            Some(i) => format!(
                "**{} does not load ({}): nothing was planned, and nothing was sent to Discord.**\n\n{}",
                inert::markdown_code(&i.path.display().to_string()),
                i.report.summary(),
                i.report.render_markdown_errors()
            ),
            None => format!("{}\n", inert::markdown(&message)),
        });
        Outcome {
            name: name(g),
            id: g.id.clone(),
            code: 1,
            changed: false,
            summary,
            text: format!("error: {}\n", inert::terminal(&message)),
            json: json!({ "error": message }),
            planned: false,
            failure_markdown,
        }
    }
}

/// Writes each guild's report to `DIR/NAME.EXT` and the exit codes to `DIR/guilds.tsv`
/// (`--reports DIR`). A guild that failed before it had a report gets one saying why,
/// in markdown when the reports are.
pub(crate) fn write_reports(
    dir: &Path,
    outcomes: &[Outcome],
    format: Format,
    command: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the reports folder {}", dir.display()))?;
    let ext = match format {
        Format::Markdown => "md",
        Format::Json => "json",
        Format::Text => "txt",
    };
    let mut index = String::new();
    for o in outcomes {
        let mut body = match (format, &o.failure_markdown) {
            (Format::Markdown, Some(failure)) => {
                format!(
                    "### guildctl {command} failed for `{}`\n\n{failure}",
                    o.name
                )
            }
            (Format::Json, _) => inert::json_pretty(&o.json),
            _ => o.text.clone(),
        };
        // The comment or note this report replaces may show an older plan of the guild:
        // say it no longer holds, and that a merge now applies nothing to the guild.
        if format == Format::Markdown && command == "plan" && !o.planned {
            body.push_str(&format!(
                "\n> [!WARNING]\n> Any plan of `{}` shown here before is **no longer current**: merging this change applies nothing to `{}`. Fix what is above and push again; the next plan replaces this one.\n",
                o.name, o.name
            ));
        }
        let path = dir.join(format!("{}.{ext}", o.name));
        std::fs::write(&path, body)
            .with_context(|| format!("cannot write the report {}", path.display()))?;
        index.push_str(&format!("{}\t{}\n", o.name, o.code));
    }
    let path = dir.join("guilds.tsv");
    std::fs::write(&path, index).with_context(|| format!("cannot write {}", path.display()))
}

pub(crate) fn write_plan_index(dir: &Path, outcomes: &[Outcome]) -> Result<()> {
    let mut planned = String::new();
    let mut not_planned = String::new();
    for o in outcomes {
        if o.planned {
            planned.push_str(&format!("{}\n", o.name));
        } else {
            // One line, whatever the message holds.
            let why: String = inert::terminal(&o.summary)
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            not_planned.push_str(&format!("{}\t{why}\n", o.name));
        }
    }
    for (name, text) in [(PLANNED_LIST, planned), (NOT_PLANNED_LIST, not_planned)] {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Prints the outcomes: the summary table, then each guild's report (or one JSON
/// document), and returns the combined exit code.
pub(crate) fn finish(outcomes: &[Outcome], json_out: bool) -> u8 {
    let code = combined(outcomes.iter().map(|o| o.code));
    if json_out {
        let guilds: Vec<Value> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "name": o.name,
                    "id": o.id,
                    "exit_code": o.code,
                    "summary": o.summary,
                    "result": o.json,
                })
            })
            .collect();
        guildctl::outln!(
            "{}",
            inert::json_pretty(&json!({ "exit_code": code, "guilds": guilds }))
        );
        return code;
    }
    guildctl::out!("{}", summary_table(outcomes));
    for o in outcomes {
        guildctl::outln!("\n== {} ({}) ==", o.name, o.id);
        guildctl::out!("{}", o.text);
    }
    code
}

/// 1 if any failed, else 2 if any has changes, else 0.
pub(crate) fn combined(codes: impl Iterator<Item = u8>) -> u8 {
    codes.fold(0, |acc, c| match (acc, c) {
        (1, _) | (_, 1) => 1,
        (2, _) | (_, 2) => 2,
        _ => 0,
    })
}

/// One line per guild: name, id, exit code and what happened; then the counts.
pub(crate) fn summary_table(outcomes: &[Outcome]) -> String {
    let width = outcomes
        .iter()
        .map(|o| o.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!("{:width$}  {:20}  exit  result\n", "guild", "id");
    for o in outcomes {
        out.push_str(&format!(
            "{:width$}  {:20}  {:<4}  {}\n",
            o.name,
            o.id,
            o.code,
            inert::terminal(&o.summary)
        ));
    }
    let failed = outcomes.iter().filter(|o| o.code == 1).count();
    let changed = outcomes.iter().filter(|o| o.code != 1 && o.changed).count();
    out.push_str(&format!(
        "{} guild(s): {failed} failed, {changed} with changes, {} unchanged.\n",
        outcomes.len(),
        outcomes.len() - failed - changed
    ));
    out
}

pub(crate) fn plan_outcome(
    g: &GuildTarget,
    plan: &Plan,
    format: Format,
    color: bool,
    detailed_exitcode: bool,
) -> Outcome {
    let rendered = report::render(plan, format, Heading::Plan, color);
    Outcome {
        name: name(g),
        id: g.id.clone(),
        code: if detailed_exitcode && !plan.is_empty() {
            EXIT_CHANGES
        } else {
            0
        },
        changed: !plan.is_empty(),
        summary: report::summary_line(plan),
        json: match format {
            Format::Json => serde_json::from_str(&rendered).unwrap_or(Value::Null),
            _ => Value::Null,
        },
        text: rendered,
        planned: true,
        failure_markdown: None,
    }
}

#[cfg(test)]
mod tests {
    use super::combined;

    #[test]
    fn exit_codes_combine() {
        assert_eq!(combined([0, 0].into_iter()), 0);
        assert_eq!(combined([0, 2, 0].into_iter()), 2);
        assert_eq!(combined([2, 1, 0].into_iter()), 1);
        assert_eq!(combined([1, 2].into_iter()), 1);
    }
}
