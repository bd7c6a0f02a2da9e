//! The files a pull request changes, from GitHub
//! (`GET /repos/{owner}/{repo}/pulls/{n}/files`), for `changed-guilds`
//! (`forge::touched_guilds` says which guilds they touch).

use serde_json::Value;

use crate::forge::ChangedFiles;

use super::client::GitHub;
use super::error::GithubError;

/// GitHub lists at most this many files of a pull request.
const GITHUB_FILE_CAP: usize = 3000;

pub async fn pull_request_files(gh: &GitHub, number: u64) -> Result<ChangedFiles, GithubError> {
    let path = gh.repo_path(&format!("/pulls/{number}/files?per_page=100"));
    let files = gh.get_all(&path).await?;
    let complete = files.len() < GITHUB_FILE_CAP;
    let mut paths = Vec::new();
    for f in &files {
        for key in ["filename", "previous_filename"] {
            if let Some(p) = f.get(key).and_then(Value::as_str) {
                paths.push(p.to_owned());
            }
        }
    }
    Ok(ChangedFiles { paths, complete })
}
