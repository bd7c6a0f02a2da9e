//! Which plan was reviewed for a commit on the default branch: the pull request the
//! commit merged, and the newest successful run of the plan workflow for its head.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::Value;

use super::client::GitHub;
use super::error::GithubError;

/// The pull request a commit merged, and the plan run that reviewed its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    pub pull_request: u64,
    pub head_sha: String,
    /// The newest successful `pull_request` run of the plan workflow for `head_sha`.
    pub run_id: Option<u64>,
}

/// `None` when `sha` merged no pull request (a direct push).
pub async fn reviewed_plan_run(
    gh: &GitHub,
    sha: &str,
    workflow: &str,
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
    let runs = gh.repo_path(&format!(
        "/actions/workflows/{workflow}/runs?event=pull_request&status=success&head_sha={head_sha}&per_page=1"
    ));
    let (resp, _) = gh.send(Method::GET, &runs, None).await?;
    let run_id = resp
        .get("workflow_runs")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(|r| r.get("id"))
        .and_then(Value::as_u64);
    Ok(Some(Reviewed {
        pull_request,
        head_sha,
        run_id,
    }))
}
