//! The command-line arguments `guildctl github` and `guildctl gitlab` share: what a comment,
//! note or issue is about and its markdown, and the drift issue's.

use std::path::PathBuf;

use clap::{ArgAction, Args};

use super::drift_issue::DriftReport;
use super::marker::{EmptyMarker, marker};
use super::plan_file::{PlanFileError, read};

/// `--marker` and `--body-file`.
#[derive(Args)]
pub struct MarkedBody {
    /// What it is about, e.g. `plan:guild.yaml` (a plan's comment or note) or
    /// `drift:guild.yaml` (a drift issue): the marker that finds it again.
    #[arg(long = "marker", value_name = "MARKER")]
    pub key: String,
    /// Its markdown.
    #[arg(long)]
    pub body_file: PathBuf,
}

/// A marker and the markdown it goes with.
pub struct Marked {
    pub marker: String,
    pub body: String,
}

impl MarkedBody {
    /// The marker of `--marker`, and the markdown of `--body-file`.
    pub fn read<E: From<EmptyMarker> + From<PlanFileError>>(&self) -> Result<Marked, E> {
        Ok(Marked {
            marker: marker(&self.key)?,
            body: read(&self.body_file)?,
        })
    }
}

/// `drift-issue`'s arguments.
#[derive(Args)]
pub struct DriftIssueArgs {
    #[command(flatten)]
    pub text: MarkedBody,
    /// `true`: drift was found, open or update the issue; `false`: close it.
    #[arg(long, action = ArgAction::Set)]
    pub drifted: bool,
    /// The label the issue carries, and is found by.
    #[arg(long, default_value = "guildctl-drift")]
    pub label: String,
    #[arg(
        long,
        default_value = "guildctl: the Discord guild drifted from its manifest"
    )]
    pub title: String,
}

impl DriftIssueArgs {
    /// The report these arguments describe, with the text read and the comment left on
    /// closing.
    pub fn report<'a>(&'a self, text: &'a Marked, closing_comment: &'a str) -> DriftReport<'a> {
        DriftReport {
            marker: &text.marker,
            label: &self.label,
            title: &self.title,
            body: &text.body,
            drifted: self.drifted,
            closing_comment,
        }
    }
}

/// The author given (`--author`), trimmed: `None` when none is (or it is blank), `Err` with
/// it when it is not a name the forge gives (`valid`), so nothing is written as a name
/// the forge could not have.
pub fn given_author(
    given: Option<&str>,
    valid: fn(&str) -> bool,
) -> Result<Option<String>, String> {
    match given.map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) if valid(a) => Ok(Some(a.to_owned())),
        Some(a) => Err(a.to_owned()),
        None => Ok(None),
    }
}
