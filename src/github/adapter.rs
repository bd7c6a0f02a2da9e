//! GitHub behind the forge's traits (`forge::Tracker`, `forge::Reviews`): the drift issue
//! is an issue, the plan comment an issue comment on the pull request, the reviewed plan
//! a run of the plan workflow. The flows are `forge`'s; this says how GitHub's REST API
//! does each step, and GitHub's rules for a run that is a pull request's own.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::json;

use super::client::GitHub;
use super::error::GithubError;
use super::types::{COMPONENT, body_with_marker};
use super::wire;
use crate::forge::{
    CallError, Candidate, Comment, Issue, Merged, Page, PlanRuns, Reviews, Thread, Tracker, Words,
};

const WORDS: Words = Words {
    forge: "GitHub",
    comment: "comment",
    commented: "Commented on",
    change: "#",
    run: "run",
    runs: "runs",
};

impl Tracker for GitHub {
    type Error = GithubError;

    fn words(&self) -> Words {
        WORDS
    }

    fn body_with_marker(&self, marker: &str, body: &str) -> String {
        body_with_marker(marker, body)
    }

    async fn open_issues(&self, label: &str) -> Result<Vec<Issue>, GithubError> {
        let label = utf8_percent_encode(label, COMPONENT);
        let list = self.repo_path(&format!("/issues?state=open&labels={label}&per_page=100"));
        let issues: Vec<wire::Issue> = self.rest.get_all(&list).await?;
        // Pull requests are issues too in this listing; they are never drift issues.
        Ok(issues
            .into_iter()
            .filter(|i| i.pull_request.is_none())
            .map(Issue::from)
            .collect())
    }

    async fn open_issue(&self, title: &str, body: &str, label: &str) -> Result<Issue, GithubError> {
        let payload = json!({ "title": title, "body": body, "labels": [label] });
        let path = self.repo_path("/issues");
        Ok(self
            .rest
            .write::<wire::Issue, _>(Method::POST, &path, &payload)
            .await?)
    }

    async fn edit_issue(&self, number: u64, title: &str, body: &str) -> Result<Issue, GithubError> {
        let path = self.repo_path(&format!("/issues/{number}"));
        let payload = json!({ "title": title, "body": body });
        Ok(self
            .rest
            .write::<wire::Issue, _>(Method::PATCH, &path, &payload)
            .await?)
    }

    async fn comment_on_issue(&self, number: u64, body: &str) -> Result<(), GithubError> {
        let path = self.repo_path(&format!("/issues/{number}/comments"));
        let _: (wire::IssueComment, _) = self
            .rest
            .send_as(Method::POST, &path, Some(&json!({ "body": body })))
            .await?;
        Ok(())
    }

    async fn close_issue(&self, number: u64) -> Result<Issue, GithubError> {
        let path = self.repo_path(&format!("/issues/{number}"));
        let payload = json!({ "state": "closed", "state_reason": "completed" });
        Ok(self
            .rest
            .write::<wire::Issue, _>(Method::PATCH, &path, &payload)
            .await?)
    }

    async fn thread(&self, change: u64, _with_head: bool) -> Result<Thread, GithubError> {
        let list = self.repo_path(&format!("/issues/{change}/comments?per_page=100"));
        let comments: Vec<wire::IssueComment> = self.rest.get_all(&list).await?;
        Ok(Thread {
            change,
            comments: comments.into_iter().map(Comment::from).collect(),
            // A pull request's comment is written by any run (the Action plans one head
            // per run, and cancels the older run's job).
            head: None,
            page: None,
        })
    }

    async fn create_comment(&self, thread: &Thread, body: &str) -> Result<Comment, GithubError> {
        let path = self.repo_path(&format!("/issues/{}/comments", thread.change));
        self.write_comment(Method::POST, &path, body).await
    }

    async fn edit_comment(
        &self,
        _thread: &Thread,
        id: u64,
        body: &str,
    ) -> Result<Comment, GithubError> {
        let path = self.repo_path(&format!("/issues/comments/{id}"));
        self.write_comment(Method::PATCH, &path, body).await
    }
}

impl GitHub {
    async fn write_comment(
        &self,
        method: Method,
        path: &str,
        body: &str,
    ) -> Result<Comment, GithubError> {
        let payload = json!({ "body": body });
        Ok(self
            .rest
            .write::<wire::IssueComment, _>(method, path, &payload)
            .await?)
    }
}

/// The plan workflow's runs: `name` is its file name (or id); a run reviewed the pull
/// request when GitHub lists it as that pull request's and it ran from this repository.
impl Reviews for GitHub {
    type Error = GithubError;

    async fn merged(&self, sha: &str) -> Result<Option<Merged>, GithubError> {
        let path = self.repo_path(&format!("/commits/{sha}/pulls?per_page=100"));
        let pulls: Vec<wire::PullRequest> = self.rest.get_all(&path).await?;
        let Some(pr) = pulls.into_iter().find(|p| p.merged_at.is_some()) else {
            return Ok(None);
        };
        if !pr.head.sha.chars().all(|c| c.is_ascii_hexdigit()) {
            let detail = "a pull request without a head sha";
            return Err(CallError::decode("GitHub", "GET", &path, detail).into());
        }
        Ok(Some(Merged {
            number: pr.number,
            head_sha: pr.head.sha,
        }))
    }

    async fn runs(
        &self,
        change: &Merged,
        plan: PlanRuns<'_>,
        page: Option<String>,
    ) -> Result<Page<Candidate>, GithubError> {
        let path = page.unwrap_or_else(|| {
            let workflow = utf8_percent_encode(plan.name, COMPONENT);
            let status = if plan.include_failed {
                "completed"
            } else {
                "success"
            };
            self.repo_path(&format!(
                "/actions/workflows/{workflow}/runs?event=pull_request&status={status}&head_sha={}&per_page=100",
                change.head_sha
            ))
        });
        // GitHub lists runs newest first.
        let (runs, next): (wire::Runs, _) = self.rest.send_as(Method::GET, &path, None).await?;
        let repo = self.repo().to_string();
        let items = runs
            .workflow_runs
            .iter()
            .map(|run| Candidate {
                id: run.id,
                why_not: why_not(run, &repo, change)
                    .or_else(|| concluded_badly(run, plan.include_failed)),
            })
            .collect();
        Ok(Page { items, next })
    }

    /// A run's plan is its own artifact.
    async fn plan_in(
        &self,
        run: u64,
        _plan: PlanRuns<'_>,
    ) -> Result<Result<u64, String>, GithubError> {
        Ok(Ok(run))
    }
}

/// Why a completed run's conclusion keeps it from counting, or `None` when it counts:
/// success, and with `include_failed` failure too.
fn concluded_badly(run: &wire::Run, include_failed: bool) -> Option<String> {
    match run.conclusion.as_deref() {
        Some("success") => None,
        Some("failure") if include_failed => None,
        Some(other) => Some(format!("concluded {other}")),
        None => Some("has not concluded".into()),
    }
}

/// Why `run` is not the plan run of pull request `change` of repository `repo`, or
/// `None` when it is.
fn why_not(run: &wire::Run, repo: &str, change: &Merged) -> Option<String> {
    match run
        .head_repository
        .as_ref()
        .and_then(|r| r.full_name.as_deref())
    {
        Some(head) if head.eq_ignore_ascii_case(repo) => {}
        Some(head) => return Some(format!("came from fork {head}")),
        None => return Some("names no head repository".into()),
    }
    if run.head_sha.as_deref() != Some(change.head_sha.as_str()) {
        return Some(format!(
            "is for commit {}",
            run.head_sha.as_deref().unwrap_or("?")
        ));
    }
    let number = change.number;
    let prs = run.pull_requests.as_deref().unwrap_or_default();
    // A pull request is this repository's when its API URL is under this repository:
    // a run can list another repository's pull request of the same number.
    let ours = format!("/repos/{repo}/pulls/{number}").to_ascii_lowercase();
    if prs
        .iter()
        .any(|p| p.number == number && p.url.to_ascii_lowercase().ends_with(&ours))
    {
        return None;
    }
    let numbers: Vec<String> = prs.iter().map(|p| format!("#{}", p.number)).collect();
    Some(match numbers.as_slice() {
        [] => "names no pull request".into(),
        _ if prs.iter().any(|p| p.number == number) => {
            format!("is for pull request #{number} of another repository")
        }
        [one] => format!("is for pull request {one}"),
        many => format!("is for pull requests {}", many.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPO: &str = "Codertocat/Hello-World";
    const HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

    fn run(v: serde_json::Value) -> wire::Run {
        serde_json::from_value(v).unwrap()
    }

    fn judged(v: serde_json::Value, include_failed: bool) -> Option<String> {
        let change = Merged {
            number: 2,
            head_sha: HEAD.into(),
        };
        let r = run(v);
        why_not(&r, REPO, &change).or_else(|| concluded_badly(&r, include_failed))
    }

    fn own(pr_repo: &str, number: u64) -> serde_json::Value {
        json!([{ "number": number, "url": format!("https://api.github.com/repos/{pr_repo}/pulls/{number}") }])
    }

    /// GitHub's rules for a run that is the merged pull request's own, on runs as GitHub
    /// describes them: its repository, its head, its pull request, its conclusion.
    #[test]
    fn a_run_is_the_pull_requests_own_only_from_this_repository_for_its_head() {
        let base = |repo: &str, sha: &str, prs: serde_json::Value, conclusion: &str| {
            json!({ "id": 1, "head_sha": sha, "conclusion": conclusion,
                    "head_repository": { "full_name": repo }, "pull_requests": prs })
        };
        let ours = own(REPO, 2);
        assert_eq!(
            judged(base(REPO, HEAD, ours.clone(), "success"), false),
            None
        );
        assert_eq!(
            judged(
                base(
                    "codertocat/hello-world",
                    HEAD,
                    own("CODERTOCAT/Hello-World", 2),
                    "success"
                ),
                false
            ),
            None,
            "repositories compare without case"
        );
        for (v, why) in [
            (
                base("mallory/Hello-World", HEAD, ours.clone(), "success"),
                "came from fork mallory/Hello-World",
            ),
            (
                json!({ "id": 1, "head_sha": HEAD, "conclusion": "success", "head_repository": null }),
                "names no head repository",
            ),
            (
                base(REPO, "abc1234", ours.clone(), "success"),
                "is for commit abc1234",
            ),
            (
                base(REPO, HEAD, own(REPO, 9), "success"),
                "is for pull request #9",
            ),
            (
                base(REPO, HEAD, own("mallory/Other", 2), "success"),
                "is for pull request #2 of another repository",
            ),
            (
                base(REPO, HEAD, json!([]), "success"),
                "names no pull request",
            ),
            (
                base(REPO, HEAD, json!(null), "success"),
                "names no pull request",
            ),
            (
                base(REPO, HEAD, ours.clone(), "cancelled"),
                "concluded cancelled",
            ),
            (
                base(REPO, HEAD, ours.clone(), "failure"),
                "concluded failure",
            ),
        ] {
            assert_eq!(judged(v, false).as_deref(), Some(why));
        }
        let mut many = own(REPO, 9);
        many.as_array_mut()
            .unwrap()
            .extend(own(REPO, 10).as_array().unwrap().clone());
        assert_eq!(
            judged(base(REPO, HEAD, many, "success"), false).as_deref(),
            Some("is for pull requests #9, #10")
        );
        // A workspace's plan run that failed counts with include_failed; a cancelled never.
        assert_eq!(
            judged(base(REPO, HEAD, ours.clone(), "failure"), true),
            None
        );
        assert_eq!(
            judged(base(REPO, HEAD, ours.clone(), "cancelled"), true).as_deref(),
            Some("concluded cancelled")
        );
        assert_eq!(
            judged(json!({ "id": 1, "head_sha": HEAD, "conclusion": null, "head_repository": { "full_name": REPO }, "pull_requests": ours }), true).as_deref(),
            Some("has not concluded")
        );
    }
}
