//! One comment per marker on a pull request, created once and then edited in place.

use reqwest::Method;
use serde_json::{Value, json};

use super::client::GitHub;
use super::error::GithubError;
use super::types::body_with_marker;

/// What happened to the comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upserted {
    pub url: String,
    pub id: u64,
    pub action: CommentAction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentAction {
    Created,
    Updated,
    /// The comment already said exactly this.
    Unchanged,
}

/// Creates the comment carrying `marker` on issue or pull request `number`, or edits
/// the one that already carries it, so a pull request shows one current plan per manifest.
pub async fn upsert_comment(
    gh: &GitHub,
    number: u64,
    marker: &str,
    body: &str,
) -> Result<Upserted, GithubError> {
    let body = body_with_marker(marker, body);
    let list = gh.repo_path(&format!("/issues/{number}/comments?per_page=100"));
    let comments = gh.get_all(&list).await?;
    let existing = comments.iter().find(|c| {
        c.get("body")
            .and_then(Value::as_str)
            .is_some_and(|b| b.starts_with(marker) || b.contains(&format!("\n{marker}")))
    });
    let (method, path, action) = match existing {
        Some(c) if c.get("body").and_then(Value::as_str) == Some(body.as_str()) => {
            return decode(c, CommentAction::Unchanged, "GET", &list);
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
    decode(&resp, action, method.as_str(), &path)
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
) -> Result<Upserted, GithubError> {
    Ok(Upserted {
        url: url_of(v, method, path)?,
        id: id_of(v, method, path)?,
        action,
    })
}
