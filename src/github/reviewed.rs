//! Which plan was reviewed for a commit on the default branch: the pull request the
//! commit merged, and the newest successful run of the plan workflow that GitHub
//! says ran for that pull request, from a branch of this repository (or the newest
//! that succeeded or failed, for a workspace's plan run, which fails when one guild's
//! plan does and saves the others').
//!
//! A run for the same head commit is not enough: the same commit can be the head of
//! another pull request (whose author chose what its run saved), or be pushed to a
//! fork, whose `pull_request` runs its author controls too.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::Value;

use super::client::{GitHub, MAX_PAGES};
use super::error::GithubError;
use crate::forge::{PassedOver, Pick};

/// The pull request a commit merged, and the plan run that reviewed its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    pub pull_request: u64,
    pub head_sha: String,
    /// The newest successful `pull_request` run of the plan workflow for `head_sha`
    /// that belongs to `pull_request` and ran from this repository.
    pub run_id: Option<u64>,
    /// Newer runs for the same head that were not taken, newest first, each with why.
    pub passed_over: Vec<PassedOver>,
}

/// `None` when `sha` merged no pull request (a direct push).
///
/// With `include_failed`, a run that failed counts as one that succeeded (never one
/// cancelled, skipped or timed out): a workspace's plan run fails when one guild's plan
/// does, and still saves the plans of the others, which the merge applies.
pub async fn reviewed_plan_run(
    gh: &GitHub,
    sha: &str,
    workflow: &str,
    include_failed: bool,
) -> Result<Option<Reviewed>, GithubError> {
    if !(7..=64).contains(&sha.len()) || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(GithubError::BadSha(sha.to_owned()));
    }
    let path = gh.repo_path(&format!("/commits/{sha}/pulls?per_page=100"));
    let pulls = gh.get_all(&path).await?;
    let Some(pr) = pulls
        .iter()
        .find(|p| p.get("merged_at").is_some_and(|m| !m.is_null()))
    else {
        return Ok(None);
    };
    let decode = |detail: &str| GithubError::Decode {
        method: "GET".into(),
        path: path.clone(),
        detail: detail.into(),
    };
    let pull_request = pr
        .get("number")
        .and_then(Value::as_u64)
        .ok_or_else(|| decode("a pull request without a number"))?;
    let head_sha = pr
        .pointer("/head/sha")
        .and_then(Value::as_str)
        .filter(|s| s.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| decode("a pull request without a head sha"))?
        .to_owned();
    let workflow = utf8_percent_encode(workflow, super::types::COMPONENT);
    let status = if include_failed {
        "completed"
    } else {
        "success"
    };
    let first = gh.repo_path(&format!(
        "/actions/workflows/{workflow}/runs?event=pull_request&status={status}&head_sha={head_sha}&per_page=100"
    ));
    // GitHub lists runs newest first; the first one that is the pull request's own wins.
    let mut pick = Pick::default();
    let mut next = Some(first.clone());
    let mut pages = 0;
    'pages: while let Some(url) = next.take() {
        pages += 1;
        let (page, link) = gh.send(Method::GET, &url, None).await?;
        let runs = page
            .get("workflow_runs")
            .and_then(Value::as_array)
            .ok_or_else(|| GithubError::Decode {
                method: "GET".into(),
                path: first.clone(),
                detail: "no workflow_runs list".into(),
            })?;
        for run in runs {
            let Some(id) = run.get("id").and_then(Value::as_u64) else {
                continue;
            };
            let why = why_not(run, gh, pull_request, &head_sha)
                .or_else(|| concluded_badly(run, include_failed));
            if pick.consider(id, why) {
                break 'pages;
            }
        }
        if pages < MAX_PAGES {
            next = link;
        }
    }
    Ok(Some(Reviewed {
        pull_request,
        head_sha,
        run_id: pick.chosen,
        passed_over: pick.passed_over,
    }))
}

/// Why a completed run's conclusion keeps it from counting, or `None` when it counts:
/// success, and with `include_failed` failure too.
fn concluded_badly(run: &Value, include_failed: bool) -> Option<String> {
    match run.get("conclusion").and_then(Value::as_str) {
        Some("success") => None,
        Some("failure") if include_failed => None,
        Some(other) => Some(format!("concluded {other}")),
        None => Some("has not concluded".into()),
    }
}

/// Why `run` is not the plan run of pull request `number` of this repository, or
/// `None` when it is.
fn why_not(run: &Value, gh: &GitHub, number: u64, head_sha: &str) -> Option<String> {
    let repo = gh.repo().to_string();
    match run
        .pointer("/head_repository/full_name")
        .and_then(Value::as_str)
    {
        Some(head) if head.eq_ignore_ascii_case(&repo) => {}
        Some(head) => return Some(format!("came from fork {head}")),
        None => return Some("names no head repository".into()),
    }
    if run.get("head_sha").and_then(Value::as_str) != Some(head_sha) {
        return Some(format!(
            "is for commit {}",
            run.get("head_sha").and_then(Value::as_str).unwrap_or("?")
        ));
    }
    let prs: Vec<&Value> = run
        .get("pull_requests")
        .and_then(Value::as_array)
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    // A pull request is this repository's when its API URL is under this repository:
    // a run can list another repository's pull request of the same number.
    let ours = format!("/repos/{repo}/pulls/{number}");
    let is_ours = |p: &Value| {
        p.get("number").and_then(Value::as_u64) == Some(number)
            && p.get("url")
                .and_then(Value::as_str)
                .is_some_and(|u| u.to_ascii_lowercase().ends_with(&ours.to_ascii_lowercase()))
    };
    if prs.iter().any(|p| is_ours(p)) {
        return None;
    }
    let numbers: Vec<String> = prs
        .iter()
        .filter_map(|p| p.get("number").and_then(Value::as_u64))
        .map(|n| format!("#{n}"))
        .collect();
    Some(match numbers.as_slice() {
        [] => "names no pull request".into(),
        _ if prs
            .iter()
            .any(|p| p.get("number").and_then(Value::as_u64) == Some(number)) =>
        {
            format!("is for pull request #{number} of another repository")
        }
        [one] => format!("is for pull request {one}"),
        many => format!("is for pull requests {}", many.join(", ")),
    })
}
