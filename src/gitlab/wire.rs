//! GitLab's answers, as the typed shapes guildctl reads of them (the fields it uses, as
//! GitLab's REST API v4 documents them).

use serde::Deserialize;

use crate::forge;

/// `GET /user`, and an item's `author`.
#[derive(Debug, Deserialize)]
pub struct User {
    pub username: String,
}

fn username(author: &Option<User>) -> Option<String> {
    author.as_ref().map(|u| u.username.clone())
}

/// `GET /projects/:id/merge_requests/:iid/notes`, and a note written.
#[derive(Debug, Deserialize)]
pub struct Note {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub author: Option<User>,
    /// GitLab's own notes ("added 1 commit"): never guildctl's.
    #[serde(default)]
    pub system: bool,
}

impl Note {
    /// Notes carry no URL of their own: the merge request's `page`, at the note's anchor.
    pub fn into_comment(self, page: &str) -> forge::Comment {
        forge::Comment {
            id: self.id,
            author: username(&self.author),
            body: self.body.unwrap_or_default(),
            system: self.system,
            url: format!("{page}#note_{}", self.id),
        }
    }
}

/// `GET /projects/:id/issues`, and an issue written.
#[derive(Debug, Deserialize)]
pub struct Issue {
    pub iid: u64,
    pub web_url: String,
    pub title: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub author: Option<User>,
}

impl From<Issue> for forge::Issue {
    fn from(i: Issue) -> forge::Issue {
        forge::Issue {
            number: i.iid,
            author: username(&i.author),
            title: i.title,
            body: i.description.unwrap_or_default(),
            url: i.web_url,
        }
    }
}

/// `GET /projects/:id/merge_requests/:iid`.
#[derive(Debug, Deserialize)]
pub struct MergeRequest {
    /// Its head commit.
    #[serde(default)]
    pub sha: Option<String>,
    #[serde(default)]
    pub web_url: Option<String>,
}

/// `GET /projects/:id/repository/commits/:sha/merge_requests`.
#[derive(Debug, Deserialize)]
pub struct CommitMergeRequest {
    pub iid: u64,
    pub state: String,
    #[serde(default)]
    pub target_project_id: Option<u64>,
    #[serde(default)]
    pub sha: Option<String>,
}

/// `GET /projects/:id/merge_requests/:iid/pipelines`.
#[derive(Debug, Deserialize)]
pub struct Pipeline {
    pub id: u64,
    #[serde(default)]
    pub project_id: Option<u64>,
    #[serde(default)]
    pub sha: Option<String>,
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

/// `GET /projects/:id/pipelines/:pipeline_id/jobs`.
#[derive(Debug, Deserialize)]
pub struct Job {
    pub id: u64,
    pub name: String,
    pub status: String,
}
