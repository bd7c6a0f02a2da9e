//! A small client for GitHub's REST API: JSON in and out, the token sent only to the
//! API base, pages followed through `Link: rel="next"`.

use std::time::Duration;

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::GithubError;
use super::types::{GithubToken, Repo};
use crate::forge::{Page, every_page, next_link};

const USER_AGENT: &str = concat!("guildctl/", env!("CARGO_PKG_VERSION"));
/// The REST API version the requests are written for.
const API_VERSION: &str = "2022-11-28";

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

    /// One request whose answer is read as `T` (the typed shapes of `wire`).
    pub(crate) async fn send_as<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(T, Option<String>), GithubError> {
        let (v, next) = self.send(method.clone(), path, body).await?;
        let typed = serde_json::from_value(v).map_err(|e| GithubError::Decode {
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
    ) -> Result<Vec<T>, GithubError> {
        every_page(path, |url| async move {
            let (items, next) = self.send_as(Method::GET, &url, None).await?;
            Ok(Page { items, next })
        })
        .await
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
