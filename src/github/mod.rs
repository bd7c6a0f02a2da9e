//! GitHub's REST API, for the Action in a config repository: one plan comment per
//! manifest on a pull request, kept current; one drift issue per manifest, opened,
//! updated and closed; only ever guildctl's own (written by the token's identity).
//! `guildctl github ...` (see `cli`) is how the Action's steps call it; docs/github.md
//! describes the whole flow. The flows are `forge`'s, over `forge::Tracker` and
//! `forge::Reviews`, which `adapter` implements for [`GitHub`].
//!
//! Everything comes from the variables a GitHub Actions runner sets: `GITHUB_API_URL`,
//! `GITHUB_REPOSITORY`, `GITHUB_EVENT_PATH`, `GITHUB_EVENT_NAME`, and the token in
//! `GITHUB_TOKEN`, which is sent to the API base only and never printed.

mod adapter;
pub mod cli;
mod client;
mod error;
mod files;
mod identity;
mod teams;
mod types;
mod wire;

pub use client::GitHub;
pub use error::GithubError;
pub use files::pull_request_files;
pub use identity::{ACTIONS_BOT, Identity, IdentitySource, identity};
pub use types::{
    GithubToken, MAX_BODY_CHARS, PullRequest, Repo, body_with_marker, pull_request_from_event,
};
