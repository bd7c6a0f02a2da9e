//! Who guildctl is on GitHub: the login its token writes as. A comment or issue that
//! carries guildctl's marker is guildctl's only when this login wrote it; anyone can
//! write the marker (docs/github.md, "Whose comment is it").

use reqwest::Method;
use serde_json::Value;

use super::client::GitHub;
use super::error::GithubError;

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
    /// Whether `item` (a comment or an issue as GitHub returns it) was written by this login.
    pub fn wrote(&self, item: &Value) -> bool {
        author(item).is_some_and(|a| a.eq_ignore_ascii_case(&self.login))
    }

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

/// The login of an item's author (`user.login`); none for a deleted account.
pub fn author(item: &Value) -> Option<&str> {
    item.pointer("/user/login").and_then(Value::as_str)
}

/// The token's identity: `given` when there is one, else what `GET /user` says, else
/// (for an installation token, which GitHub will not name) `github-actions[bot]`.
/// Any other failure of `GET /user` is an error: guildctl never guesses whom to trust.
pub async fn identity(gh: &GitHub, given: Option<&str>) -> Result<Identity, GithubError> {
    if let Some(login) = given.map(str::trim).filter(|l| !l.is_empty()) {
        if !valid_login(login) {
            return Err(GithubError::BadAuthor(login.to_owned()));
        }
        return Ok(Identity {
            login: login.to_owned(),
            source: IdentitySource::Given,
        });
    }
    match gh.send(Method::GET, "/user", None).await {
        Ok((user, _)) => {
            let login = user
                .get("login")
                .and_then(Value::as_str)
                .filter(|l| valid_login(l))
                .ok_or_else(|| GithubError::Decode {
                    method: "GET".into(),
                    path: "/user".into(),
                    detail: "no login".into(),
                })?;
            Ok(Identity {
                login: login.to_owned(),
                source: IdentitySource::User,
            })
        }
        Err(GithubError::Api {
            status: 403,
            message,
            ..
        }) if message.starts_with(INSTALLATION_REFUSAL) => Ok(Identity {
            login: ACTIONS_BOT.to_owned(),
            source: IdentitySource::ActionsToken,
        }),
        Err(e) => Err(e),
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
    use serde_json::json;

    #[test]
    fn authors_are_compared_by_login_whatever_the_case() {
        let me = Identity {
            login: "github-actions[bot]".into(),
            source: IdentitySource::ActionsToken,
        };
        assert!(me.wrote(&json!({ "user": { "login": "GitHub-Actions[bot]" } })));
        assert!(!me.wrote(&json!({ "user": { "login": "github-actions" } })));
        assert!(!me.wrote(&json!({ "user": null })));
        assert!(!me.wrote(&json!({})));
    }

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
