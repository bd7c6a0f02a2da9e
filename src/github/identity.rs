//! Who guildctl is on GitHub: the login its token writes as. A comment or issue that
//! carries guildctl's marker is guildctl's only when this login wrote it; anyone can
//! write the marker (docs/github.md, "Whose comment is it").

use reqwest::Method;

use super::client::GitHub;
use super::error::GithubError;
use super::wire::Me;
use crate::forge::{CallError, given_author};

/// The login a workflow's own `GITHUB_TOKEN` writes as.
pub const ACTIONS_BOT: &str = "github-actions[bot]";

/// GitHub's answer to `GET /user` for a token that has no user behind it: a GitHub App
/// installation token, which is what a workflow's `GITHUB_TOKEN` is.
const INSTALLATION_REFUSAL: &str = "Resource not accessible by integration";

/// The login guildctl writes as, and how it was learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub login: String,
    pub source: IdentitySource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentitySource {
    /// `--author` (or `GUILDCTL_GITHUB_AUTHOR`; the Action sets it).
    Given,
    /// `GET /user`: the token is a person's (or an OAuth app's on a person's behalf).
    User,
    /// `GET /user` refused as GitHub refuses installation tokens: the token is taken to
    /// be the workflow's `GITHUB_TOKEN`, which writes as `github-actions[bot]`.
    ActionsToken,
}

impl Identity {
    /// How the login was learned, for the log.
    pub fn describe(&self) -> String {
        match self.source {
            IdentitySource::Given => format!("{} (as given)", self.login),
            IdentitySource::User => format!("{} (the token's user)", self.login),
            IdentitySource::ActionsToken => format!(
                "{} (an installation token, taken to be the workflow's GITHUB_TOKEN; \
                 pass --author for another GitHub App's token)",
                self.login
            ),
        }
    }
}

/// The token's identity: `given` when there is one, else what `GET /user` says, else
/// (for an installation token, which GitHub will not name) `github-actions[bot]`.
/// Any other failure of `GET /user` is an error: guildctl never guesses whom to trust.
pub async fn identity(gh: &GitHub, given: Option<&str>) -> Result<Identity, GithubError> {
    if let Some(login) = given_author(given, valid_login).map_err(GithubError::BadAuthor)? {
        return Ok(Identity {
            login,
            source: IdentitySource::Given,
        });
    }
    match gh.rest.send_as::<Me>(Method::GET, "/user", None).await {
        Ok((Me { login }, _)) if valid_login(&login) => Ok(Identity {
            login,
            source: IdentitySource::User,
        }),
        Ok(_) => Err(CallError::decode("GitHub", "GET", "/user", "no login").into()),
        Err(CallError::Api {
            status: 403,
            message,
            ..
        }) if message.starts_with(INSTALLATION_REFUSAL) => Ok(Identity {
            login: ACTIONS_BOT.to_owned(),
            source: IdentitySource::ActionsToken,
        }),
        Err(e) => Err(e.into()),
    }
}

/// A GitHub login: letters, digits and single hyphens, up to 39 characters; an App's
/// bot adds `[bot]`.
fn valid_login(login: &str) -> bool {
    let name = login.strip_suffix("[bot]").unwrap_or(login);
    (1..=39).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_are_checked() {
        for ok in ["octocat", "my-app[bot]", "a", "github-actions[bot]"] {
            assert!(valid_login(ok), "{ok}");
        }
        for bad in ["", "-x", "a b", "x[bot][bot]", "a/b", &"a".repeat(40)] {
            assert!(!valid_login(bad), "{bad}");
        }
    }
}
