//! What can go wrong talking to GitHub, each saying what to do about it.

use std::path::PathBuf;

use crate::inert;

#[derive(Debug, thiserror::Error)]
pub enum GithubError {
    #[error("{0} is not set (it is set on GitHub Actions runners)")]
    MissingEnv(&'static str),
    #[error("GITHUB_REPOSITORY must be OWNER/NAME, not {0:?}")]
    BadRepository(String),
    #[error("GITHUB_API_URL must be an http(s) URL, not {0:?}")]
    BadApiUrl(String),
    #[error("the GitHub token is empty or has spaces in it")]
    BadToken,
    #[error("cannot read {}: {source}", inert::terminal(&.path.display().to_string()))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a JSON event payload: {source}", inert::terminal(&.path.display().to_string()))]
    Event {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("the event in GITHUB_EVENT_PATH is not about a pull request; pass --pr NUMBER")]
    NoPullRequest,
    #[error("{} is not a saved plan (JSON): {source}", inert::terminal(&.path.display().to_string()))]
    Plan {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    BadSha(#[from] crate::forge::NotASha),
    #[error(transparent)]
    Marker(#[from] crate::forge::EmptyMarker),
    #[error(transparent)]
    PlanFile(#[from] crate::forge::PlanFileError),
    #[error("{0:?} is not a GitHub login (letters, digits and hyphens, an App's ending in [bot])")]
    BadAuthor(String),
    #[error(transparent)]
    Call(#[from] crate::forge::CallError),
    #[error(transparent)]
    Workspace(#[from] crate::manifest::WorkspaceError),
    #[error(transparent)]
    People(#[from] crate::manifest::people::PeopleError),
    #[error(
        "cannot read the members of the GitHub team {team} (the people file's group `{group}`): {source}; the token needs to see the team: the workflow's own GITHUB_TOKEN cannot read an organisation's teams, so give github-token a GitHub App's token with the Members: read permission"
    )]
    Team {
        team: String,
        group: String,
        source: Box<crate::forge::CallError>,
    },
    #[error("cannot write {}: {source}", inert::terminal(&.path.display().to_string()))]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}
