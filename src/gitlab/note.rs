//! One note per marker on a merge request, created once and then edited in place; only a
//! note the token's own user wrote is ever edited (GitLab's system notes never are).

use reqwest::Method;
use serde_json::{Value, json};

use super::body_with_marker;
use super::client::{GitLab, Identity, author};
use super::error::GitlabError;
use crate::forge::carries;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteAction {
    Created,
    Updated,
    /// The note already said exactly this.
    Unchanged,
}

/// What happened to the note, and what was left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upserted {
    pub id: u64,
    /// The merge request's page with the note's anchor.
    pub url: String,
    pub action: NoteAction,
    /// Notes that carry the marker but someone else wrote: (id, username).
    pub foreign: Vec<(u64, String)>,
}

fn id_of(v: &Value, method: &str, path: &str) -> Result<u64, GitlabError> {
    v.get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| GitlabError::Decode {
            method: method.to_owned(),
            path: path.to_owned(),
            detail: "no id".into(),
        })
}

/// What [`upsert_note`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Noted {
    Written(Upserted),
    /// The merge request's head is another commit than the one the note is about: a
    /// newer push, whose own pipeline writes the note. Nothing was written.
    Superseded {
        head: String,
    },
}

/// Creates the note carrying `marker` on merge request `iid`, or edits the one that
/// already carries it and that `me` wrote, so a merge request shows one current plan per
/// manifest.
///
/// With `commit` (the commit the pipeline planned), the note is written only while that
/// commit is the merge request's head (its `sha`, read just before writing): an older
/// pipeline that finishes after a newer push's never replaces the newer plan's note, which
/// is the plan a merge applies.
pub async fn upsert_note(
    gl: &GitLab,
    me: &Identity,
    iid: u64,
    marker: &str,
    body: &str,
    commit: Option<&str>,
) -> Result<Noted, GitlabError> {
    let body = body_with_marker(marker, body);
    let mr_path = gl.project_path(&format!("/merge_requests/{iid}"));
    let list = format!("{mr_path}/notes?sort=asc&order_by=created_at&per_page=100");
    let notes = gl.get_all(&list).await?;
    let (ours, foreign): (Vec<&Value>, Vec<&Value>) = notes
        .iter()
        .filter(|n| n.get("system").and_then(Value::as_bool) != Some(true))
        .filter(|n| {
            n.get("body")
                .and_then(Value::as_str)
                .is_some_and(|b| carries(b, marker))
        })
        .partition(|n| me.wrote(n));
    let foreign = foreign
        .iter()
        .map(|n| {
            (
                n.get("id").and_then(Value::as_u64).unwrap_or(0),
                author(n).unwrap_or("ghost").to_owned(),
            )
        })
        .collect();
    // The merge request as it is now, just before writing: its head, and its page for
    // the note's URL.
    let (mr, _) = gl.send(Method::GET, &mr_path, None).await?;
    let decode = |detail: &str| GitlabError::Decode {
        method: "GET".into(),
        path: mr_path.clone(),
        detail: detail.into(),
    };
    if let Some(commit) = commit {
        let head = mr
            .get("sha")
            .and_then(Value::as_str)
            .ok_or_else(|| decode("no sha"))?;
        if !head.eq_ignore_ascii_case(commit) {
            return Ok(Noted::Superseded {
                head: head.to_owned(),
            });
        }
    }
    let web = mr
        .get("web_url")
        .and_then(Value::as_str)
        .ok_or_else(|| decode("no web_url"))?
        .to_owned();
    let (id, action) = match ours.first() {
        Some(n) if n.get("body").and_then(Value::as_str) == Some(body.as_str()) => {
            (id_of(n, "GET", &list)?, NoteAction::Unchanged)
        }
        Some(n) => {
            let path = format!("{mr_path}/notes/{}", id_of(n, "GET", &list)?);
            let (resp, _) = gl
                .send(Method::PUT, &path, Some(&json!({ "body": body })))
                .await?;
            (id_of(&resp, "PUT", &path)?, NoteAction::Updated)
        }
        None => {
            let path = format!("{mr_path}/notes");
            let (resp, _) = gl
                .send(Method::POST, &path, Some(&json!({ "body": body })))
                .await?;
            (id_of(&resp, "POST", &path)?, NoteAction::Created)
        }
    };
    // Notes carry no URL of their own: the merge request's page, at the note's anchor.
    Ok(Noted::Written(Upserted {
        id,
        url: format!("{web}#note_{id}"),
        action,
        foreign,
    }))
}
