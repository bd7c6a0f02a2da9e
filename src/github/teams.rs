//! A GitHub team's members, for the people file's groups that take them (`github_team:`).

use percent_encoding::utf8_percent_encode;

use super::client::GitHub;
use super::types::COMPONENT;
use super::wire;
use crate::forge::CallError;

/// The logins of team `org/slug`'s members (its child teams' included, as GitHub lists
/// them), every page.
pub async fn members(gh: &GitHub, team: &str) -> Result<Vec<String>, CallError> {
    let (org, slug) = team.split_once('/').unwrap_or((team, ""));
    let path = format!(
        "/orgs/{}/teams/{}/members?per_page=100",
        utf8_percent_encode(org, COMPONENT),
        utf8_percent_encode(slug, COMPONENT)
    );
    let users: Vec<wire::User> = gh.rest.get_all(&path).await?;
    Ok(users.into_iter().map(|u| u.login).collect())
}
