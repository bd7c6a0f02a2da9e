//! GitHub's REST API client: the repository, the token as a bearer, the API version, and
//! the hints for a refusal; the calls themselves are `forge::Rest`'s.

use super::error::GithubError;
use super::types::{GithubToken, Repo};
use crate::forge::{Auth, Rest, api_base, env_var};

/// The REST API version the requests are written for.
const API_VERSION: &str = "2022-11-28";

pub struct GitHub {
    /// Calls go through the forges' one mechanism (`forge::Rest`).
    pub(crate) rest: Rest,
    repo: Repo,
}

impl GitHub {
    pub fn new(api: &str, repo: Repo, token: GithubToken) -> Result<GitHub, GithubError> {
        let api = api_base(api).map_err(GithubError::BadApiUrl)?;
        let auth = Auth {
            header: reqwest::header::AUTHORIZATION,
            value: format!("Bearer {}", token.expose()),
            secret: token.expose(),
        };
        let headers = [
            ("accept", "application/vnd.github+json"),
            ("x-github-api-version", API_VERSION),
        ];
        // Redirects are followed (a renamed repository answers with one): reqwest drops
        // the `Authorization` header on a redirect to another host.
        let rest = Rest::new("GitHub", api, auth, &headers, true, hint)?;
        Ok(GitHub { rest, repo })
    }

    /// From the runner's variables: `GITHUB_API_URL` (default `https://api.github.com`),
    /// `GITHUB_REPOSITORY` and `GITHUB_TOKEN`.
    pub fn from_env() -> Result<GitHub, GithubError> {
        let var = |name: &'static str| env_var(name).ok_or(GithubError::MissingEnv(name));
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
