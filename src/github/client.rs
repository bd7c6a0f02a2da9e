//! A small client for GitHub's REST API: JSON in and out, the token sent only to the
//! API base, pages followed through `Link: rel="next"`.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::error::GithubError;
use super::types::{GithubToken, Repo};

const USER_AGENT: &str = concat!("guildctl/", env!("CARGO_PKG_VERSION"));
/// The REST API version the requests are written for.
const API_VERSION: &str = "2022-11-28";
/// At 100 items a page, enough for any pull request's comments or open labelled issues.
pub(crate) const MAX_PAGES: usize = 50;

pub struct GitHub {
    http: reqwest::Client,
    api: String,
    repo: Repo,
    token: GithubToken,
}

impl GitHub {
    pub fn new(api: &str, repo: Repo, token: GithubToken) -> Result<GitHub, GithubError> {
        let api = api.trim().trim_end_matches('/').to_owned();
        if !(api.starts_with("https://") || api.starts_with("http://")) {
            return Err(GithubError::BadApiUrl(api));
        }
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|source| GithubError::Transport {
                method: "GET".into(),
                path: api.clone(),
                source,
            })?;
        Ok(GitHub {
            http,
            api,
            repo,
            token,
        })
    }

    /// From the runner's variables: `GITHUB_API_URL` (default `https://api.github.com`),
    /// `GITHUB_REPOSITORY` and `GITHUB_TOKEN`.
    pub fn from_env() -> Result<GitHub, GithubError> {
        let var = |name: &'static str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .ok_or(GithubError::MissingEnv(name))
        };
        let api = var("GITHUB_API_URL").unwrap_or_else(|_| "https://api.github.com".to_owned());
        let repo = Repo::parse(&var("GITHUB_REPOSITORY")?)?;
        let token = GithubToken::new(var("GITHUB_TOKEN")?)?;
        GitHub::new(&api, repo, token)
    }

    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// `/repos/OWNER/NAME` followed by `rest`.
    pub(crate) fn repo_path(&self, rest: &str) -> String {
        format!("/repos/{}/{}{rest}", self.repo.owner, self.repo.name)
    }

    /// One request; the parsed JSON body (null when there is none) and the next page's URL.
    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(Value, Option<String>), GithubError> {
        // A next-page URL comes back absolute; the token goes to the API base and nowhere else.
        let url = if path.starts_with('/') {
            format!("{}{path}", self.api)
        } else if path.starts_with(&format!("{}/", self.api)) {
            path.to_owned()
        } else {
            return Err(GithubError::Decode {
                method: method.to_string(),
                path: path.to_owned(),
                detail: "a link that leaves the API base".into(),
            });
        };
        let shown = url.strip_prefix(&self.api).unwrap_or(&url).to_owned();
        let mut req = self
            .http
            .request(method.clone(), &url)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", API_VERSION)
            .bearer_auth(self.token.expose());
        if let Some(b) = body {
            req = req.json(b);
        }
        let transport = |source| GithubError::Transport {
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
        let json: Option<Value> = serde_json::from_slice(&bytes).ok();
        if !status.is_success() {
            let message = json
                .as_ref()
                .and_then(|j| j.get("message"))
                .and_then(Value::as_str)
                .unwrap_or_else(|| status.canonical_reason().unwrap_or("error"))
                // Never echo the token, whatever a server answers.
                .replace(self.token.expose(), "***");
            return Err(GithubError::Api {
                method: method.to_string(),
                path: shown,
                status: status.as_u16(),
                message,
                hint: hint(status.as_u16()),
            });
        }
        match json {
            Some(v) => Ok((v, next)),
            None if bytes.is_empty() => Ok((Value::Null, next)),
            None => Err(GithubError::Decode {
                method: method.to_string(),
                path: shown,
                detail: "the body is not JSON".into(),
            }),
        }
    }

    /// Every item of a listing, page after page.
    pub(crate) async fn get_all(&self, path: &str) -> Result<Vec<Value>, GithubError> {
        let mut items = Vec::new();
        let mut next = Some(path.to_owned());
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            let (page, link) = self.send(Method::GET, &url, None).await?;
            match page {
                Value::Array(list) => items.extend(list),
                other => {
                    return Err(GithubError::Decode {
                        method: "GET".into(),
                        path: path.to_owned(),
                        detail: format!("a list was expected, got {}", kind(&other)),
                    });
                }
            }
            if pages < MAX_PAGES {
                next = link;
            }
        }
        Ok(items)
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn hint(status: u16) -> &'static str {
    match status {
        401 => " (the token is wrong or has expired)",
        403 => {
            " (does the workflow grant `pull-requests: write` for the plan comment and \
             `issues: write` for the drift issue? A pull request from a fork gets a read-only token)"
        }
        404 => " (is GITHUB_REPOSITORY right, and can the token see it?)",
        _ => "",
    }
}

/// The `rel="next"` URL of a `Link` header (RFC 8288, as GitHub writes it).
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"));
        let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
        is_next.then(|| url.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_link_is_read_from_githubs_header() {
        let h = r#"<https://api.github.com/repositories/1/issues/2/comments?page=2>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?page=5>; rel="last""#;
        assert_eq!(
            next_link(h).as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?page=2")
        );
        assert_eq!(next_link(r#"<https://x/?page=1>; rel="prev""#), None);
        assert_eq!(next_link("garbage"), None);
    }
}
