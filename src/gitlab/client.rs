//! A small client for GitLab's REST API v4: JSON in and out, the token (`PRIVATE-TOKEN`)
//! sent only to the API base, pages followed through `Link: rel="next"`; and who the
//! token writes as.

use std::fmt;
use std::time::Duration;

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::GitlabError;
use super::wire::User;
use crate::forge::{Page, every_page, next_link};

const USER_AGENT: &str = concat!("guildctl/", env!("CARGO_PKG_VERSION"));

/// The token: hidden from `Debug`, no `Display`, so it cannot be printed by accident.
#[derive(Clone)]
pub struct GitlabToken(String);

impl GitlabToken {
    pub fn new(token: impl Into<String>) -> Result<GitlabToken, GitlabError> {
        let t = token.into().trim().to_owned();
        if t.is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(GitlabError::BadToken);
        }
        Ok(GitlabToken(t))
    }
}

impl fmt::Debug for GitlabToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GitlabToken(***)")
    }
}

pub struct GitLab {
    http: reqwest::Client,
    api: String,
    project: u64,
    token: GitlabToken,
}

impl GitLab {
    pub fn new(api: &str, project: u64, token: GitlabToken) -> Result<GitLab, GitlabError> {
        let api = api.trim().trim_end_matches('/').to_owned();
        if !(api.starts_with("https://") || api.starts_with("http://")) {
            return Err(GitlabError::BadApiUrl(api));
        }
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(Duration::from_secs(30))
            // A redirect would carry the token elsewhere: none is followed.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|source| GitlabError::Transport {
                method: "GET".into(),
                path: api.clone(),
                source,
            })?;
        Ok(GitLab {
            http,
            api,
            project,
            token,
        })
    }

    /// From the runner's variables: `CI_API_V4_URL`, `CI_PROJECT_ID`, and the token in
    /// `GUILDCTL_GITLAB_TOKEN`.
    pub fn from_env() -> Result<GitLab, GitlabError> {
        let var = |name: &'static str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .ok_or(GitlabError::MissingEnv(name))
        };
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

    /// One request; the body's bytes and the next page's URL. Not-success statuses are
    /// errors naming the call, with GitLab's message.
    async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(bytes::Bytes, Option<String>), GitlabError> {
        // A next-page URL comes back absolute; the token goes to the API base and nowhere else.
        let url = if path.starts_with('/') {
            format!("{}{path}", self.api)
        } else if path.starts_with(&format!("{}/", self.api)) {
            path.to_owned()
        } else {
            return Err(GitlabError::Decode {
                method: method.to_string(),
                path: path.to_owned(),
                detail: "a link that leaves the API base".into(),
            });
        };
        let shown = url.strip_prefix(&self.api).unwrap_or(&url).to_owned();
        let mut req = self
            .http
            .request(method.clone(), &url)
            .header("PRIVATE-TOKEN", &self.token.0);
        if let Some(b) = body {
            req = req.json(b);
        }
        let transport = |source| GitlabError::Transport {
            method: method.to_string(),
            path: shown.clone(),
            source,
        };
        let resp = req.send().await.map_err(transport)?;
        let status = resp.status();
        let next = resp
            .headers()
            .get("link")
            .and_then(|v| v.to_str().ok())
            .and_then(next_link);
        let bytes = resp.bytes().await.map_err(transport)?;
        if !status.is_success() {
            let json: Option<Value> = serde_json::from_slice(&bytes).ok();
            // GitLab says `message` (a string or an object of field errors) or `error`.
            let message = json
                .as_ref()
                .and_then(|j| j.get("message").or_else(|| j.get("error")))
                .map(|m| {
                    m.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| m.to_string())
                })
                .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned())
                // Never echo the token, whatever a server answers.
                .replace(&self.token.0, "***");
            return Err(GitlabError::Api {
                method: method.to_string(),
                path: shown,
                status: status.as_u16(),
                message,
                hint: hint(status.as_u16()),
            });
        }
        Ok((bytes, next))
    }

    /// One JSON request; the parsed body (null when empty) and the next page's URL.
    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(Value, Option<String>), GitlabError> {
        let (bytes, next) = self.request(method.clone(), path, body).await?;
        if bytes.is_empty() {
            return Ok((Value::Null, next));
        }
        let json = serde_json::from_slice(&bytes).map_err(|_| GitlabError::Decode {
            method: method.to_string(),
            path: path.to_owned(),
            detail: "the body is not JSON".into(),
        })?;
        Ok((json, next))
    }

    /// A file's bytes (a job's artifact).
    pub(crate) async fn get_raw(&self, path: &str) -> Result<bytes::Bytes, GitlabError> {
        Ok(self.request(Method::GET, path, None).await?.0)
    }

    /// One JSON request whose answer is read as `T` (the typed shapes of `wire`).
    pub(crate) async fn send_as<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(T, Option<String>), GitlabError> {
        let (v, next) = self.send(method.clone(), path, body).await?;
        let typed = serde_json::from_value(v).map_err(|e| GitlabError::Decode {
            method: method.to_string(),
            path: path.to_owned(),
            detail: e.to_string(),
        })?;
        Ok((typed, next))
    }

    /// Every item of a listing, page after page (`forge::every_page`).
    pub(crate) async fn get_all<T: DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<Vec<T>, GitlabError> {
        every_page(path, |url| async move {
            let (items, next) = self.send_as(Method::GET, &url, None).await?;
            Ok(Page { items, next })
        })
        .await
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
    if let Some(name) = given.map(str::trim).filter(|l| !l.is_empty()) {
        if !valid_username(name) {
            return Err(GitlabError::BadAuthor(name.to_owned()));
        }
        return Ok(Identity {
            username: name.to_owned(),
            given: true,
        });
    }
    let (User { username }, _) = gl.send_as(Method::GET, "/user", None).await?;
    if !valid_username(&username) {
        return Err(GitlabError::Decode {
            method: "GET".into(),
            path: "/user".into(),
            detail: "no username".into(),
        });
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
