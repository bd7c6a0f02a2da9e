//! GitLab's REST API (v4), for the CI/CD component in a config repository
//! (`templates/guildctl.yml`): one plan note per manifest on a merge request, kept
//! current; one drift issue per manifest, opened, updated and closed; the plan reviewed on
//! the merged merge request's own pipeline; only ever guildctl's own notes and issues
//! (written by the token's user). `guildctl gitlab ...` (see `cli`) is how the
//! component's jobs call it; docs/gitlab.md describes the whole flow. What is the same as
//! on GitHub (markers, bodies, the reviewed-run pick, plan files) is in `forge`.
//!
//! Everything comes from the variables a GitLab runner sets: `CI_API_V4_URL`,
//! `CI_PROJECT_ID`, `CI_MERGE_REQUEST_IID`, `CI_COMMIT_SHA`, and the token in
//! `GUILDCTL_GITLAB_TOKEN` (a project access token), which is sent to the API base only
//! and never printed.

pub mod cli;
mod client;
mod error;
mod issue;
mod note;
mod reviewed;

pub use client::{GitLab, GitlabToken, Identity, identity};
pub use error::GitlabError;
pub use issue::{DriftIssue, sync_drift_issue};
pub use note::{NoteAction, Noted, Upserted, upsert_note};
pub use reviewed::{Reviewed, download_artifact, reviewed_plan};

/// GitLab refuses a note or description longer than this many characters.
pub const MAX_BODY_CHARS: usize = 1_000_000;

/// `marker` on its own line, then the body, cut to GitLab's limit with a note saying so.
pub fn body_with_marker(marker: &str, body: &str) -> String {
    crate::forge::body_with_marker(
        marker,
        body,
        MAX_BODY_CHARS,
        "cut to fit GitLab's limit; the whole report is in the job's artifacts",
    )
}
