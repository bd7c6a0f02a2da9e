//! One drift issue per marker: opened when drift is found, updated while it lasts, closed
//! with a note when the guild matches the manifest again. Only an issue the token's own
//! user opened is ever updated or closed.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::{Value, json};

use super::body_with_marker;
use super::client::{GitLab, Identity, author};
use super::error::GitlabError;
use crate::forge::carries;

/// What was done with the drift issue (its project-scoped `iid` and web URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftIssue {
    Opened {
        iid: u64,
        url: String,
    },
    Updated {
        iid: u64,
        url: String,
    },
    Unchanged {
        iid: u64,
        url: String,
    },
    Closed {
        iid: u64,
        url: String,
    },
    /// No drift and no open issue: nothing to do.
    Nothing,
}

impl DriftIssue {
    pub fn url(&self) -> Option<&str> {
        match self {
            DriftIssue::Opened { url, .. }
            | DriftIssue::Updated { url, .. }
            | DriftIssue::Unchanged { url, .. }
            | DriftIssue::Closed { url, .. } => Some(url),
            DriftIssue::Nothing => None,
        }
    }
}

/// What percent-encodes in a query value: all but RFC 3986's unreserved characters.
const QUERY: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn field<'a>(v: &'a Value, key: &str, method: &str, path: &str) -> Result<&'a Value, GitlabError> {
    v.get(key)
        .filter(|x| !x.is_null())
        .ok_or_else(|| GitlabError::Decode {
            method: method.to_owned(),
            path: path.to_owned(),
            detail: format!("no {key}"),
        })
}

fn iid_url(v: &Value, method: &str, path: &str) -> Result<(u64, String), GitlabError> {
    let iid = field(v, "iid", method, path)?.as_u64().unwrap_or(0);
    let url = field(v, "web_url", method, path)?
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Ok((iid, url))
}

/// Opens, updates or closes the drift issue `me` opened; an issue with the label and the
/// marker that anyone else opened is left alone (returned as (iid, username)).
#[allow(clippy::too_many_arguments)]
pub async fn sync_drift_issue(
    gl: &GitLab,
    me: &Identity,
    marker: &str,
    label: &str,
    title: &str,
    report: &str,
    drifted: bool,
    closing_note: &str,
) -> Result<(DriftIssue, Vec<(u64, String)>), GitlabError> {
    let encoded = utf8_percent_encode(label, QUERY);
    let list = gl.project_path(&format!(
        "/issues?state=opened&labels={encoded}&per_page=100"
    ));
    let issues = gl.get_all(&list).await?;
    let (ours, foreign): (Vec<&Value>, Vec<&Value>) = issues
        .iter()
        .filter(|i| {
            i.get("description")
                .and_then(Value::as_str)
                .is_some_and(|b| carries(b, marker))
        })
        .partition(|i| me.wrote(i));
    let foreign = foreign
        .iter()
        .map(|i| {
            (
                i.get("iid").and_then(Value::as_u64).unwrap_or(0),
                author(i).unwrap_or("ghost").to_owned(),
            )
        })
        .collect();
    let body = body_with_marker(marker, report);
    let done = match (ours.first(), drifted) {
        (None, false) => DriftIssue::Nothing,
        (None, true) => {
            let path = gl.project_path("/issues");
            let payload = json!({ "title": title, "description": body, "labels": label });
            let (resp, _) = gl.send(Method::POST, &path, Some(&payload)).await?;
            let (iid, url) = iid_url(&resp, "POST", &path)?;
            DriftIssue::Opened { iid, url }
        }
        (Some(issue), true) => {
            let (iid, url) = iid_url(issue, "GET", &list)?;
            let same = issue.get("description").and_then(Value::as_str) == Some(body.as_str())
                && issue.get("title").and_then(Value::as_str) == Some(title);
            if same {
                DriftIssue::Unchanged { iid, url }
            } else {
                let path = gl.project_path(&format!("/issues/{iid}"));
                let payload = json!({ "title": title, "description": body });
                let (resp, _) = gl.send(Method::PUT, &path, Some(&payload)).await?;
                let (iid, url) = iid_url(&resp, "PUT", &path)?;
                DriftIssue::Updated { iid, url }
            }
        }
        (Some(issue), false) => {
            let (iid, _) = iid_url(issue, "GET", &list)?;
            let notes = gl.project_path(&format!("/issues/{iid}/notes"));
            gl.send(Method::POST, &notes, Some(&json!({ "body": closing_note })))
                .await?;
            let path = gl.project_path(&format!("/issues/{iid}"));
            let payload = json!({ "state_event": "close" });
            let (resp, _) = gl.send(Method::PUT, &path, Some(&payload)).await?;
            let (iid, url) = iid_url(&resp, "PUT", &path)?;
            DriftIssue::Closed { iid, url }
        }
    };
    Ok((done, foreign))
}
