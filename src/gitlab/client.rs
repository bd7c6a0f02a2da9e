//! GitLab's REST API v4 client: the project, the token (`PRIVATE-TOKEN`) and the hints
//! for a refusal, the calls themselves being `forge::Rest`'s; and who the token writes as.

use std::fmt;

use reqwest::Method;

use super::error::GitlabError;
use super::wire::User;
use crate::forge::{Auth, CallError, Rest, api_base, clean_token, env_var, given_author};

/// The token: hidden from `Debug`, no `Display`, so it cannot be printed by accident.
#[derive(Clone)]
pub struct GitlabToken(String);

impl GitlabToken {
    pub fn new(token: impl Into<String>) -> Result<GitlabToken, GitlabError> {
        clean_token(token)
            .map(GitlabToken)
            .ok_or(GitlabError::BadToken)
    }
}

impl fmt::Debug for GitlabToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GitlabToken(***)")
    }
}

pub struct GitLab {
    /// Calls go through the forges' one mechanism (`forge::Rest`).
    pub(crate) rest: Rest,
    project: u64,
}

impl GitLab {
    pub fn new(api: &str, project: u64, token: GitlabToken) -> Result<GitLab, GitlabError> {
        let api = api_base(api).map_err(GitlabError::BadApiUrl)?;
        let auth = Auth {
            header: reqwest::header::HeaderName::from_static("private-token"),
            value: token.0.clone(),
            secret: &token.0,
        };
        // A redirect would carry the token (a header of GitLab's own) elsewhere: none is
        // followed.
        let rest = Rest::new("GitLab", api, auth, &[], false, hint)?;
        Ok(GitLab { rest, project })
    }

    /// From the runner's variables: `CI_API_V4_URL`, `CI_PROJECT_ID`, and the token in
    /// `GUILDCTL_GITLAB_TOKEN`.
    pub fn from_env() -> Result<GitLab, GitlabError> {
        let var = |name: &'static str| env_var(name).ok_or(GitlabError::MissingEnv(name));
        let api = var("CI_API_V4_URL")?;
        let project = var("CI_PROJECT_ID")?;
        let project = project
            .trim()
            .parse()
            .map_err(|_| GitlabError::BadProject(project.clone()))?;
        let token = GitlabToken::new(var("GUILDCTL_GITLAB_TOKEN")?)?;
        GitLab::new(&api, project, token)
    }

    pub fn project(&self) -> u64 {
        self.project
    }

    /// `/projects/ID` followed by `rest`.
    pub(crate) fn project_path(&self, rest: &str) -> String {
        format!("/projects/{}{rest}", self.project)
    }
}

fn hint(status: u16) -> &'static str {
    match status {
        401 => " (GUILDCTL_GITLAB_TOKEN is wrong or has expired)",
        403 => {
            " (does the token have the `api` scope and at least the Reporter role? Notes and \
             issues need it; CI_JOB_TOKEN cannot write them)"
        }
        404 => " (is CI_PROJECT_ID right, and can the token see the project?)",
        _ => "",
    }
}

/// The username guildctl writes as on GitLab. A note or issue that carries guildctl's
/// marker is guildctl's only when this user wrote it: anyone can write the marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub username: String,
    /// Given (`--author`), rather than read from `GET /user`.
    pub given: bool,
}

impl Identity {
    pub fn describe(&self) -> String {
        if self.given {
            format!("{} (as given)", self.username)
        } else {
            format!("{} (the token's user)", self.username)
        }
    }
}

/// `given` when there is one, else the token's user from `GET /user` (a project or group
/// access token has a bot user of its own). Any failure is an error: guildctl never
/// guesses whom to trust.
pub async fn identity(gl: &GitLab, given: Option<&str>) -> Result<Identity, GitlabError> {
    if let Some(username) = given_author(given, valid_username).map_err(GitlabError::BadAuthor)? {
        return Ok(Identity {
            username,
            given: true,
        });
    }
    let (User { username }, _) = gl.rest.send_as(Method::GET, "/user", None).await?;
    if !valid_username(&username) {
        return Err(CallError::decode("GitLab", "GET", "/user", "no username").into());
    }
    Ok(Identity {
        username,
        given: false,
    })
}

/// A GitLab username: letters, digits, `_`, `-` and `.`, up to 255 characters.
fn valid_username(name: &str) -> bool {
    (1..=255).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_and_tokens_are_checked() {
        assert!(valid_username("project_7_bot_1a2b"));
        assert!(!valid_username("a b"));
        assert_eq!(
            format!("{:?}", GitlabToken::new("glpat-secret").unwrap()),
            "GitlabToken(***)"
        );
    }
}
