//! Which plan was reviewed for a commit on the default branch: the merge request the
//! commit merged (into this project), and the newest successful pipeline of that merge
//! request that ran in this project, for its head commit, on the merge request's own ref
//! (`refs/merge-requests/IID/head`), with a successful plan job (or, for a workspace,
//! whose plan job fails when one guild's plan does, a failed one too). The rules are GitHub's
//! (`forge::Pick`): a pipeline for the same commit is not enough, since the same commit
//! can be another merge request's head or be pushed to a fork.

use serde_json::Value;

use super::client::GitLab;
use super::error::GitlabError;
use crate::forge::{PassedOver, Pick};

/// The merge request a commit merged, and the pipeline and job whose plan reviewed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    pub merge_request: u64,
    pub head_sha: String,
    pub pipeline_id: Option<u64>,
    /// The plan job of that pipeline, whose artifacts hold the plan.
    pub job_id: Option<u64>,
    /// Newer pipelines of the merge request that were not taken, newest first, with why.
    pub passed_over: Vec<PassedOver>,
}

fn decode(path: &str, detail: &str) -> GitlabError {
    GitlabError::Decode {
        method: "GET".into(),
        path: path.to_owned(),
        detail: detail.into(),
    }
}

/// `None` when `sha` merged no merge request into this project (a direct push).
///
/// With `include_failed`, a pipeline and plan job that failed count as ones that
/// succeeded (never canceled or skipped ones): a workspace's plan job fails when one
/// guild's plan does, and still saves the plans of the others, which the merge applies.
pub async fn reviewed_plan(
    gl: &GitLab,
    sha: &str,
    job: &str,
    include_failed: bool,
) -> Result<Option<Reviewed>, GitlabError> {
    if !(7..=64).contains(&sha.len()) || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(GitlabError::BadSha(sha.to_owned()));
    }
    let path = gl.project_path(&format!("/repository/commits/{sha}/merge_requests"));
    let mrs = gl.get_all(&path).await?;
    let project = gl.project();
    let Some(mr) = mrs.iter().find(|m| {
        m.get("state").and_then(Value::as_str) == Some("merged")
            && m.get("target_project_id").and_then(Value::as_u64) == Some(project)
    }) else {
        return Ok(None);
    };
    let iid = mr
        .get("iid")
        .and_then(Value::as_u64)
        .ok_or_else(|| decode(&path, "a merge request without an iid"))?;
    let head_sha = mr
        .get("sha")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| decode(&path, "a merge request without a head sha"))?
        .to_owned();
    // GitLab lists a merge request's pipelines newest first.
    let list = gl.project_path(&format!("/merge_requests/{iid}/pipelines?per_page=100"));
    let pipelines = gl.get_all(&list).await?;
    let mut pick = Pick::default();
    let mut job_id = None;
    for p in &pipelines {
        let Some(id) = p.get("id").and_then(Value::as_u64) else {
            continue;
        };
        let mut why = why_not(p, project, iid, &head_sha, include_failed);
        if why.is_none() {
            match plan_job(gl, id, job, include_failed).await? {
                Some(j) => job_id = Some(j),
                None if include_failed => {
                    why = Some(format!("has no job {job} that succeeded or failed"))
                }
                None => why = Some(format!("has no successful job {job}")),
            }
        }
        if pick.consider(id, why) {
            break;
        }
    }
    Ok(Some(Reviewed {
        merge_request: iid,
        head_sha,
        pipeline_id: pick.chosen,
        job_id: pick.chosen.and(job_id),
        passed_over: pick.passed_over,
    }))
}

/// Why pipeline `p` is not merge request `iid`'s own in `project` for `head_sha`, or
/// `None` when it is.
fn why_not(
    p: &Value,
    project: u64,
    iid: u64,
    head_sha: &str,
    include_failed: bool,
) -> Option<String> {
    match p.get("project_id").and_then(Value::as_u64) {
        Some(id) if id == project => {}
        Some(id) => return Some(format!("ran in project {id} (a fork)")),
        None => return Some("names no project".into()),
    }
    let sha = p.get("sha").and_then(Value::as_str).unwrap_or("?");
    if sha != head_sha {
        return Some(format!("is for commit {sha}"));
    }
    let own = format!("refs/merge-requests/{iid}/head");
    match p.get("ref").and_then(Value::as_str) {
        Some(r) if r == own => {}
        Some(r) => return Some(format!("ran for {r}, not {own}")),
        None => return Some("names no ref".into()),
    }
    match p.get("status").and_then(Value::as_str) {
        Some("success") => None,
        Some("failed") if include_failed => None,
        Some(s) => Some(format!("did not succeed ({s})")),
        None => Some("has no status".into()),
    }
}

/// The id of the successful job named `name` in pipeline `pipeline` (or, with
/// `include_failed`, the one that succeeded or failed).
async fn plan_job(
    gl: &GitLab,
    pipeline: u64,
    name: &str,
    include_failed: bool,
) -> Result<Option<u64>, GitlabError> {
    let statuses: &[&str] = if include_failed {
        &["success", "failed"]
    } else {
        &["success"]
    };
    let scopes: String = statuses.iter().map(|s| format!("scope[]={s}&")).collect();
    let path = gl.project_path(&format!("/pipelines/{pipeline}/jobs?{scopes}per_page=100"));
    let jobs = gl.get_all(&path).await?;
    Ok(jobs
        .iter()
        .filter(|j| {
            j.get("status")
                .and_then(Value::as_str)
                .is_some_and(|s| statuses.contains(&s))
        })
        .find(|j| j.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|j| j.get("id").and_then(Value::as_u64)))
}

/// What a path segment keeps unencoded: RFC 3986's unreserved characters.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Writes the file `artifact` (a path inside the job's artifacts) of job `job` to `out`.
pub async fn download_artifact(
    gl: &GitLab,
    job: u64,
    artifact: &str,
    out: &std::path::Path,
) -> Result<usize, GitlabError> {
    let bad = || GitlabError::BadArtifactPath(artifact.to_owned());
    if artifact.is_empty() || artifact.starts_with('/') {
        return Err(bad());
    }
    let mut segments = Vec::new();
    for s in artifact.split('/') {
        if s.is_empty() || s == "." || s == ".." {
            return Err(bad());
        }
        segments.push(percent_encoding::utf8_percent_encode(s, SEGMENT).to_string());
    }
    let path = gl.project_path(&format!("/jobs/{job}/artifacts/{}", segments.join("/")));
    let bytes = gl.get_raw(&path).await?;
    std::fs::write(out, &bytes).map_err(|source| GitlabError::Write {
        path: out.display().to_string(),
        source,
    })?;
    Ok(bytes.len())
}
