//! One comment per marker on a pull request, created once and then edited in place;
//! only a comment the token's own identity wrote is ever edited.

use reqwest::Method;
use serde_json::{Value, json};

use super::client::GitHub;
use super::error::GithubError;
use super::identity::{Identity, author};
use super::types::body_with_marker;

/// What happened to the comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upserted {
    pub url: String,
    pub id: u64,
    pub action: CommentAction,
    /// Comments or issues that carry the marker but someone else wrote: left alone.
    pub foreign: Vec<Foreign>,
    /// Who GitHub says wrote what guildctl just created, when that is not `Identity`:
    /// the next run would not know it as its own.
    pub written_as: Option<String>,
}

/// An item carrying guildctl's marker that guildctl did not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// The comment's id or the number.
    pub id: u64,
    /// Its author's login (`ghost` for a deleted account).
    pub author: String,
}

impl Foreign {
    pub(crate) fn of(item: &Value, key: &str) -> Foreign {
        Foreign {
            id: item.get(key).and_then(Value::as_u64).unwrap_or(0),
            author: author(item).unwrap_or("ghost").to_owned(),
        }
    }
}

/// The author of something guildctl just created, when it is not `me`.
pub(crate) fn written_as(created: &Value, me: &Identity) -> Option<String> {
    (!me.wrote(created)).then(|| author(created).unwrap_or("ghost").to_owned())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentAction {
    Created,
    Updated,
    /// The comment already said exactly this.
    Unchanged,
}

/// Creates the comment carrying `marker` on issue or pull request `number`, or edits
/// the one that already carries it and that `me` wrote, so a pull request shows one
/// current plan per manifest. A comment with the marker by anyone else is left alone.
pub async fn upsert_comment(
    gh: &GitHub,
    me: &Identity,
    number: u64,
    marker: &str,
    body: &str,
) -> Result<Upserted, GithubError> {
    let body = body_with_marker(marker, body);
    let list = gh.repo_path(&format!("/issues/{number}/comments?per_page=100"));
    let comments = gh.get_all(&list).await?;
    let (ours, foreign): (Vec<&Value>, Vec<&Value>) = comments
        .iter()
        .filter(|c| {
            c.get("body")
                .and_then(Value::as_str)
                .is_some_and(|b| crate::forge::carries(b, marker))
        })
        .partition(|c| me.wrote(c));
    let foreign: Vec<Foreign> = foreign.iter().map(|c| Foreign::of(c, "id")).collect();
    let (method, path, action) = match ours.first() {
        Some(c) if c.get("body").and_then(Value::as_str) == Some(body.as_str()) => {
            return decode(c, CommentAction::Unchanged, "GET", &list, foreign, None);
        }
        Some(c) => {
            let id = id_of(c, "GET", &list)?;
            (
                Method::PATCH,
                gh.repo_path(&format!("/issues/comments/{id}")),
                CommentAction::Updated,
            )
        }
        None => (
            Method::POST,
            gh.repo_path(&format!("/issues/{number}/comments")),
            CommentAction::Created,
        ),
    };
    let (resp, _) = gh
        .send(method.clone(), &path, Some(&json!({ "body": body })))
        .await?;
    let written = (action == CommentAction::Created)
        .then(|| written_as(&resp, me))
        .flatten();
    decode(&resp, action, method.as_str(), &path, foreign, written)
}

pub(crate) fn id_of(v: &Value, method: &str, path: &str) -> Result<u64, GithubError> {
    v.get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| GithubError::Decode {
            method: method.to_owned(),
            path: path.to_owned(),
            detail: "no id".into(),
        })
}

pub(crate) fn url_of(v: &Value, method: &str, path: &str) -> Result<String, GithubError> {
    v.get("html_url")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| GithubError::Decode {
            method: method.to_owned(),
            path: path.to_owned(),
            detail: "no html_url".into(),
        })
}

fn decode(
    v: &Value,
    action: CommentAction,
    method: &str,
    path: &str,
    foreign: Vec<Foreign>,
    written_as: Option<String>,
) -> Result<Upserted, GithubError> {
    Ok(Upserted {
        url: url_of(v, method, path)?,
        id: id_of(v, method, path)?,
        action,
        foreign,
        written_as,
    })
}
