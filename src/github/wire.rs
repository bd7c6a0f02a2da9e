//! GitHub's answers, as the typed shapes guildctl reads of them (the fields it uses, as
//! GitHub's REST description names them; tests/data/github-openapi-subset.json).

use serde::Deserialize;

use crate::forge;

/// A comment's or issue's author; `user` is null for a deleted account.
#[derive(Debug, Deserialize)]
pub struct User {
    pub login: String,
}

fn login(user: &Option<User>) -> Option<String> {
    user.as_ref().map(|u| u.login.clone())
}

/// `GET /repos/{owner}/{repo}/issues/{n}/comments`, and a comment written.
#[derive(Debug, Deserialize)]
pub struct IssueComment {
    pub id: u64,
    pub html_url: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
}

impl From<IssueComment> for forge::Comment {
    fn from(c: IssueComment) -> forge::Comment {
        forge::Comment {
            id: c.id,
            author: login(&c.user),
            body: c.body.unwrap_or_default(),
            system: false,
            url: c.html_url,
        }
    }
}

/// `GET /repos/{owner}/{repo}/issues`, and an issue written.
#[derive(Debug, Deserialize)]
pub struct Issue {
    pub number: u64,
    pub html_url: String,
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
    /// Present when the issue is a pull request (the listing holds both).
    #[serde(default)]
    pub pull_request: Option<serde::de::IgnoredAny>,
}

impl From<Issue> for forge::Issue {
    fn from(i: Issue) -> forge::Issue {
        forge::Issue {
            number: i.number,
            author: login(&i.user),
            title: i.title,
            body: i.body.unwrap_or_default(),
            url: i.html_url,
        }
    }
}

/// `GET /user`.
#[derive(Debug, Deserialize)]
pub struct Me {
    pub login: String,
}

/// `GET /repos/{owner}/{repo}/commits/{sha}/pulls`.
#[derive(Debug, Deserialize)]
pub struct PullRequest {
    pub number: u64,
    #[serde(default)]
    pub merged_at: Option<String>,
    pub head: Head,
}

#[derive(Debug, Deserialize)]
pub struct Head {
    pub sha: String,
}

/// `GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs`.
#[derive(Debug, Deserialize)]
pub struct Runs {
    pub workflow_runs: Vec<Run>,
}

#[derive(Debug, Deserialize)]
pub struct Run {
    pub id: u64,
    #[serde(default)]
    pub head_sha: Option<String>,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub head_repository: Option<Repository>,
    #[serde(default)]
    pub pull_requests: Option<Vec<RunPullRequest>>,
}

#[derive(Debug, Deserialize)]
pub struct Repository {
    #[serde(default)]
    pub full_name: Option<String>,
}

/// A pull request a run lists: its number, and its API URL (whose repository it is).
#[derive(Debug, Deserialize)]
pub struct RunPullRequest {
    pub number: u64,
    pub url: String,
}

/// `GET /repos/{owner}/{repo}/pulls/{n}/files`.
#[derive(Debug, Deserialize)]
pub struct ChangedFile {
    pub filename: String,
    #[serde(default)]
    pub previous_filename: Option<String>,
}
