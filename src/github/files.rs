//! The files a pull request changes, from GitHub
//! (`GET /repos/{owner}/{repo}/pulls/{n}/files`), for `changed-guilds`
//! (`forge::touched_guilds` says which guilds they touch).

use crate::forge::ChangedFiles;

use super::client::GitHub;
use super::error::GithubError;
use super::wire::ChangedFile;

/// GitHub lists at most this many files of a pull request.
const GITHUB_FILE_CAP: usize = 3000;

pub async fn pull_request_files(gh: &GitHub, number: u64) -> Result<ChangedFiles, GithubError> {
    let path = gh.repo_path(&format!("/pulls/{number}/files?per_page=100"));
    let files: Vec<ChangedFile> = gh.rest.get_all(&path).await?;
    let complete = files.len() < GITHUB_FILE_CAP;
    // A renamed file counts under both names.
    let paths = files
        .into_iter()
        .flat_map(|f| std::iter::once(f.filename).chain(f.previous_filename))
        .collect();
    Ok(ChangedFiles { paths, complete })
}
