//! What the GitHub and GitLab sides share (`github`, `gitlab`): the flows, written once
//! over the [`Tracker`] and [`Reviews`] traits each forge's adapter implements (the drift
//! issue's four states, the plan comment or note kept current, the reviewed-plan pick),
//! paging, the markers that find guildctl's own comments and issues again, bodies cut to
//! a forge's limit, which of the marked items are guildctl's own, the guilds a change
//! touches, the teams a people file names, and what a saved plan file says of itself. Nothing here talks HTTP: the
//! adapters do, and an in-memory fake (`fake`, in tests) stands in for them.

mod cli_args;
mod comment;
mod drift_issue;
#[cfg(test)]
pub(crate) mod fake;
mod marker;
mod paging;
mod plan_file;
mod rest;
mod reviewed;
mod teams;
#[cfg(test)]
mod tests;
mod touched;
mod tracker;

pub use cli_args::{DriftIssueArgs, Marked, MarkedBody, given_author};
pub use comment::{CommentAction, Posted, Upserted, upsert_comment};
pub use drift_issue::{DriftIssue, DriftReport, DriftSync, Foreign, left_alone, sync_drift_issue};
pub use marker::{EmptyMarker, body_with_marker, carries, marker};
pub use paging::{MAX_PAGES, every_page, next_link};
pub use plan_file::{PlanFileError, plan_digest, plan_rehearsal, read};
pub use rest::{Auth, CallError, Rest, api_base, clean_token, env_var};
pub use reviewed::{PassedOver, Pick, Reviewed, passed_over_lines, reviewed_plan};
pub use teams::{named_teams, read_each, write_teams};
pub use touched::{
    ChangedFiles, Touched, absolute, every_guild, is_same_file, touched_guilds, used_by_guilds,
};
pub use tracker::{
    Candidate, Comment, Issue, Merged, NotASha, Page, PlanRuns, Reviews, Thread, Tracker, Words,
};
