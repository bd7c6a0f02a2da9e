//! One drift issue per marker: opened when drift is found, updated while it lasts,
//! closed with a comment when the guild matches the manifest again. Only an issue the
//! token's own identity opened is ever updated or closed.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::{Value, json};

use super::client::GitHub;
use super::comment::{Foreign, id_of, url_of, written_as};
use super::error::GithubError;
use super::identity::Identity;
use super::types::body_with_marker;

/// What was done with the drift issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftIssue {
    Opened {
        number: u64,
        url: String,
    },
    Updated {
        number: u64,
        url: String,
    },
    /// Still open and already saying exactly this.
    Unchanged {
        number: u64,
        url: String,
    },
    Closed {
        number: u64,
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

/// What was done, and what was left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftSync {
    pub issue: DriftIssue,
    /// Open issues with the label and the marker that someone else opened: left alone.
    pub foreign: Vec<Foreign>,
    /// Who GitHub says opened the issue guildctl just opened, when that is not its
    /// identity: the next run would not know it as its own.
    pub written_as: Option<String>,
}

/// The issue's wording, and whether the guild drifted.
pub struct DriftReport<'a> {
    pub marker: &'a str,
    pub label: &'a str,
    pub title: &'a str,
    /// The drift report (markdown).
    pub body: &'a str,
    pub drifted: bool,
    /// The comment left when the issue is closed.
    pub closing_comment: &'a str,
}

/// Opens, updates or closes the drift issue `me` opened; an issue with the marker that
/// anyone else opened is left alone (and a new one opened beside it when drifted).
pub async fn sync_drift_issue(
    gh: &GitHub,
    me: &Identity,
    report: &DriftReport<'_>,
) -> Result<DriftSync, GithubError> {
    let label = utf8_percent_encode(report.label, super::types::COMPONENT);
    let list = gh.repo_path(&format!("/issues?state=open&labels={label}&per_page=100"));
    let issues = gh.get_all(&list).await?;
    // Pull requests are issues too in this listing; they are never drift issues.
    let (ours, foreign): (Vec<&Value>, Vec<&Value>) = issues
        .iter()
        .filter(|i| {
            i.get("pull_request").is_none()
                && i.get("body")
                    .and_then(Value::as_str)
                    .is_some_and(|b| b.starts_with(report.marker))
        })
        .partition(|i| me.wrote(i));
    let foreign: Vec<Foreign> = foreign.iter().map(|i| Foreign::of(i, "number")).collect();
    let mut written = None;
    let issue = sync(gh, &list, ours.first().copied(), report, me, &mut written).await?;
    Ok(DriftSync {
        issue,
        foreign,
        written_as: written,
    })
}

async fn sync(
    gh: &GitHub,
    list: &str,
    open: Option<&Value>,
    report: &DriftReport<'_>,
    me: &Identity,
    written: &mut Option<String>,
) -> Result<DriftIssue, GithubError> {
    let body = body_with_marker(report.marker, report.body);
    match (open, report.drifted) {
        (None, false) => Ok(DriftIssue::Nothing),
        (None, true) => {
            let path = gh.repo_path("/issues");
            let payload = json!({ "title": report.title, "body": body, "labels": [report.label] });
            let (resp, _) = gh.send(Method::POST, &path, Some(&payload)).await?;
            *written = written_as(&resp, me);
            Ok(DriftIssue::Opened {
                number: number_of(&resp, "POST", &path)?,
                url: url_of(&resp, "POST", &path)?,
            })
        }
        (Some(issue), true) => {
            let number = number_of(issue, "GET", list)?;
            let same = issue.get("body").and_then(Value::as_str) == Some(body.as_str())
                && issue.get("title").and_then(Value::as_str) == Some(report.title);
            if same {
                return Ok(DriftIssue::Unchanged {
                    number,
                    url: url_of(issue, "GET", list)?,
                });
            }
            let path = gh.repo_path(&format!("/issues/{number}"));
            let payload = json!({ "title": report.title, "body": body });
            let (resp, _) = gh.send(Method::PATCH, &path, Some(&payload)).await?;
            Ok(DriftIssue::Updated {
                number,
                url: url_of(&resp, "PATCH", &path)?,
            })
        }
        (Some(issue), false) => {
            let number = number_of(issue, "GET", list)?;
            let comments = gh.repo_path(&format!("/issues/{number}/comments"));
            let (c, _) = gh
                .send(
                    Method::POST,
                    &comments,
                    Some(&json!({ "body": report.closing_comment })),
                )
                .await?;
            id_of(&c, "POST", &comments)?;
            let path = gh.repo_path(&format!("/issues/{number}"));
            let payload = json!({ "state": "closed", "state_reason": "completed" });
            let (resp, _) = gh.send(Method::PATCH, &path, Some(&payload)).await?;
            Ok(DriftIssue::Closed {
                number,
                url: url_of(&resp, "PATCH", &path)?,
            })
        }
    }
}

fn number_of(v: &Value, method: &str, path: &str) -> Result<u64, GithubError> {
    v.get("number")
        .and_then(Value::as_u64)
        .ok_or_else(|| GithubError::Decode {
            method: method.to_owned(),
            path: path.to_owned(),
            detail: "no issue number".into(),
        })
}
