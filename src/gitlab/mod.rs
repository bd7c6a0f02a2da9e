//! GitLab's REST API (v4), for the CI/CD component in a config repository
//! (`templates/guildctl.yml`): one plan note per manifest on a merge request, kept
//! current; one drift issue per manifest, opened, updated and closed; the plan reviewed on
//! the merged merge request's own pipeline; only ever guildctl's own notes and issues
//! (written by the token's user). `guildctl gitlab ...` (see `cli`) is how the
//! component's jobs call it; docs/gitlab.md describes the whole flow. The flows are the
//! same as on GitHub, written once in `forge` over `forge::Tracker` and `forge::Reviews`,
//! which `adapter` implements for [`GitLab`].
//!
//! Everything comes from the variables a GitLab runner sets: `CI_API_V4_URL`,
//! `CI_PROJECT_ID`, `CI_MERGE_REQUEST_IID`, `CI_COMMIT_SHA`, and the token in
//! `GUILDCTL_GITLAB_TOKEN` (a project access token), which is sent to the API base only
//! and never printed.

mod adapter;
mod artifact;
pub mod cli;
mod client;
mod error;
mod teams;
mod wire;

pub use artifact::download_artifact;
pub use client::{GitLab, GitlabToken, Identity, identity};
pub use error::GitlabError;

/// GitLab refuses a note or description longer than this many characters.
pub const MAX_BODY_CHARS: usize = 1_000_000;

/// What a path segment or query value keeps unencoded: RFC 3986's unreserved characters.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `marker` on its own line, then the body, cut to GitLab's limit with a note saying so.
pub fn body_with_marker(marker: &str, body: &str) -> String {
    crate::forge::body_with_marker(
        marker,
        body,
        MAX_BODY_CHARS,
        "cut to fit GitLab's limit; the whole report is in the job's artifacts",
    )
}
