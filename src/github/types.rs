//! The repository, the token, the markers that find guildctl's own comment and issue
//! again, and the pull request an event is about.

use std::fmt;
use std::path::Path;

use super::error::GithubError;
use crate::forge;

/// What a path segment or query value percent-encodes: all but RFC 3986's unreserved
/// characters.
pub(crate) const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// GitHub refuses an issue or comment body longer than this many characters.
pub const MAX_BODY_CHARS: usize = 65_536;

/// The repository the workflow runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    pub owner: String,
    pub name: String,
}

impl Repo {
    pub fn parse(s: &str) -> Result<Repo, GithubError> {
        let bad = || GithubError::BadRepository(s.to_owned());
        let (owner, name) = s.split_once('/').ok_or_else(bad)?;
        let ok = |p: &str| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        if !ok(owner) || !ok(name) {
            return Err(bad());
        }
        Ok(Repo {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for Repo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// The GitHub token: hidden from `Debug`, no `Display`, so it cannot be printed by accident.
#[derive(Clone)]
pub struct GithubToken(String);

impl GithubToken {
    pub fn new(token: impl Into<String>) -> Result<GithubToken, GithubError> {
        forge::clean_token(token)
            .map(GithubToken)
            .ok_or(GithubError::BadToken)
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for GithubToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GithubToken(***)")
    }
}

/// `marker` on its own line, then the body, cut to GitHub's limit with a note saying so.
pub fn body_with_marker(marker: &str, body: &str) -> String {
    forge::body_with_marker(
        marker,
        body,
        MAX_BODY_CHARS,
        "cut to fit GitHub's limit; the whole report is in the job summary",
    )
}

/// Reads a file the Action wrote (a report, an event payload).
pub(crate) fn read(path: &Path) -> Result<String, GithubError> {
    std::fs::read_to_string(path).map_err(|source| GithubError::Read {
        path: path.to_owned(),
        source,
    })
}

/// What the workflow's event says about the pull request it runs for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    /// `owner/name` of the repository the pull request's branch lives in.
    pub head_repo: Option<String>,
}

/// The pull request of a `pull_request`, `pull_request_target` or `issue_comment` (on a
/// pull request) event payload.
pub fn pull_request_from_event(path: &Path) -> Result<PullRequest, GithubError> {
    let text = read(path)?;
    let event: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| GithubError::Event {
            path: path.to_owned(),
            source,
        })?;
    if let Some(pr) = event.get("pull_request").filter(|p| p.is_object()) {
        let number = pr
            .get("number")
            .or_else(|| event.get("number"))
            .and_then(serde_json::Value::as_u64)
            .ok_or(GithubError::NoPullRequest)?;
        let head_repo = pr
            .pointer("/head/repo/full_name")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        return Ok(PullRequest { number, head_repo });
    }
    // An issue_comment on a pull request: the issue carries a pull_request link.
    if let Some(issue) = event
        .get("issue")
        .filter(|i| i.get("pull_request").is_some())
    {
        let number = issue
            .get("number")
            .and_then(serde_json::Value::as_u64)
            .ok_or(GithubError::NoPullRequest)?;
        return Ok(PullRequest {
            number,
            head_repo: None,
        });
    }
    Err(GithubError::NoPullRequest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forge::{EmptyMarker, marker};

    #[test]
    fn markers_stay_hidden_whatever_the_path() {
        assert_eq!(
            marker("plan:guild.yaml").unwrap(),
            "<!-- guildctl:plan:guild.yaml -->"
        );
        assert_eq!(
            marker("plan:prod-guild.yaml").unwrap(),
            "<!-- guildctl:plan:prod-guild.yaml -->"
        );
        let m = marker("plan:a-->b <x>-").unwrap();
        let inner = &m["<!-- ".len()..m.len() - " -->".len()];
        assert!(!inner.contains("--") && !inner.contains('>') && !inner.contains(' '));
        assert!(!inner.ends_with('-'));
        assert_eq!(marker("  "), Err(EmptyMarker));
    }

    #[test]
    fn long_bodies_are_cut_to_githubs_limit_with_fences_closed() {
        let body = format!("```diff\n{}", "+ line\n".repeat(20_000));
        let out = body_with_marker("<!-- guildctl:plan:x -->", &body);
        assert!(
            out.chars().count() <= MAX_BODY_CHARS,
            "{}",
            out.chars().count()
        );
        assert_eq!(out.matches("```").count() % 2, 0);
        assert!(out.ends_with("job summary)\n"));
        let short = body_with_marker("<!-- m -->", "hi");
        assert_eq!(short, "<!-- m -->\nhi");
    }

    #[test]
    fn repositories_and_tokens_are_checked() {
        assert_eq!(
            Repo::parse("octo/hello.world").unwrap().to_string(),
            "octo/hello.world"
        );
        assert!(Repo::parse("octo").is_err());
        assert!(Repo::parse("octo/a/b").is_err());
        assert!(GithubToken::new(" ").is_err());
        assert_eq!(
            format!("{:?}", GithubToken::new("ghs_secret").unwrap()),
            "GithubToken(***)"
        );
    }
}
