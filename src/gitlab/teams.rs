//! A GitLab group's members, for the people file's groups that take them (`gitlab_group:`).

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

use super::client::GitLab;
use super::wire;
use crate::forge::CallError;

/// The usernames of group `path`'s members, those inherited from its parent groups
/// included (GitLab's "List all members of a group"), every page.
pub async fn members(gl: &GitLab, path: &str) -> Result<Vec<String>, CallError> {
    let id = utf8_percent_encode(path, NON_ALPHANUMERIC);
    let list = format!("/groups/{id}/members/all?per_page=100");
    let users: Vec<wire::User> = gl.rest.get_all(&list).await?;
    Ok(users.into_iter().map(|u| u.username).collect())
}
