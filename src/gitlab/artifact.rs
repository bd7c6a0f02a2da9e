//! One file of a job's artifacts: the plan the reviewed pipeline's plan job saved
//! (`forge::reviewed_plan` finds the job).

use reqwest::Method;

use super::SEGMENT;
use super::client::GitLab;
use super::error::GitlabError;

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
    let bytes = gl.rest.request(Method::GET, &path, None).await?.0;
    std::fs::write(out, &bytes).map_err(|source| GitlabError::Write {
        path: out.display().to_string(),
        source,
    })?;
    Ok(bytes.len())
}
