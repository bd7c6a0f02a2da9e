//! GitLab behind the forge's traits (`forge::Tracker`, `forge::Reviews`): the drift issue
//! is an issue, the plan comment a note on the merge request, the reviewed plan the plan
//! job of a merge request pipeline. The flows are `forge`'s; this says how GitLab's REST
//! API v4 does each step, and GitLab's rules for a pipeline that is a merge request's own.

use percent_encoding::utf8_percent_encode;
use reqwest::Method;
use serde_json::{Value, json};

use super::client::GitLab;
use super::error::GitlabError;
use super::wire;
use super::{SEGMENT, body_with_marker};
use crate::forge::{
    CallError, Candidate, Comment, Issue, Merged, Page, PlanRuns, Reviews, Thread, Tracker, Words,
};

const WORDS: Words = Words {
    forge: "GitLab",
    comment: "note",
    commented: "Noted on",
    change: "!",
    run: "pipeline",
    runs: "pipelines",
};

fn decode(method: &str, path: &str, detail: &str) -> GitlabError {
    CallError::decode("GitLab", method, path, detail).into()
}

impl Tracker for GitLab {
    type Error = GitlabError;

    fn words(&self) -> Words {
        WORDS
    }

    fn body_with_marker(&self, marker: &str, body: &str) -> String {
        body_with_marker(marker, body)
    }

    async fn open_issues(&self, label: &str) -> Result<Vec<Issue>, GitlabError> {
        let label = utf8_percent_encode(label, SEGMENT);
        let list = self.project_path(&format!("/issues?state=opened&labels={label}&per_page=100"));
        let issues: Vec<wire::Issue> = self.rest.get_all(&list).await?;
        Ok(issues.into_iter().map(Issue::from).collect())
    }

    async fn open_issue(&self, title: &str, body: &str, label: &str) -> Result<Issue, GitlabError> {
        let payload = json!({ "title": title, "description": body, "labels": label });
        self.write_issue(Method::POST, &self.project_path("/issues"), &payload)
            .await
    }

    async fn edit_issue(&self, number: u64, title: &str, body: &str) -> Result<Issue, GitlabError> {
        let path = self.project_path(&format!("/issues/{number}"));
        let payload = json!({ "title": title, "description": body });
        self.write_issue(Method::PUT, &path, &payload).await
    }

    async fn comment_on_issue(&self, number: u64, body: &str) -> Result<(), GitlabError> {
        let notes = self.project_path(&format!("/issues/{number}/notes"));
        self.rest
            .send_as::<Value>(Method::POST, &notes, Some(&json!({ "body": body })))
            .await?;
        Ok(())
    }

    async fn close_issue(&self, number: u64) -> Result<Issue, GitlabError> {
        let path = self.project_path(&format!("/issues/{number}"));
        let payload = json!({ "state_event": "close" });
        self.write_issue(Method::PUT, &path, &payload).await
    }

    /// The notes, then the merge request as it is just before writing: its head, and its
    /// page for the notes' URLs.
    async fn thread(&self, change: u64, with_head: bool) -> Result<Thread, GitlabError> {
        let mr_path = self.project_path(&format!("/merge_requests/{change}"));
        let list = format!("{mr_path}/notes?sort=asc&order_by=created_at&per_page=100");
        let notes: Vec<wire::Note> = self.rest.get_all(&list).await?;
        let (mr, _): (wire::MergeRequest, _) =
            self.rest.send_as(Method::GET, &mr_path, None).await?;
        let head = match (with_head, mr.sha) {
            (false, _) => None,
            (true, Some(sha)) => Some(sha),
            (true, None) => return Err(decode("GET", &mr_path, "no sha")),
        };
        let page = mr
            .web_url
            .ok_or_else(|| decode("GET", &mr_path, "no web_url"))?;
        Ok(Thread {
            change,
            comments: notes.into_iter().map(|n| n.into_comment(&page)).collect(),
            head,
            page: Some(page),
        })
    }

    async fn create_comment(&self, thread: &Thread, body: &str) -> Result<Comment, GitlabError> {
        let path = self.project_path(&format!("/merge_requests/{}/notes", thread.change));
        self.write_note(Method::POST, &path, thread, body).await
    }

    async fn edit_comment(
        &self,
        thread: &Thread,
        id: u64,
        body: &str,
    ) -> Result<Comment, GitlabError> {
        let path = self.project_path(&format!("/merge_requests/{}/notes/{id}", thread.change));
        self.write_note(Method::PUT, &path, thread, body).await
    }
}

impl GitLab {
    async fn write_issue(
        &self,
        method: Method,
        path: &str,
        payload: &serde_json::Value,
    ) -> Result<Issue, GitlabError> {
        Ok(self
            .rest
            .write::<wire::Issue, _>(method, path, payload)
            .await?)
    }

    async fn write_note(
        &self,
        method: Method,
        path: &str,
        thread: &Thread,
        body: &str,
    ) -> Result<Comment, GitlabError> {
        let payload = json!({ "body": body });
        let (note, _): (wire::Note, _) = self.rest.send_as(method, path, Some(&payload)).await?;
        Ok(note.into_comment(thread.page.as_deref().unwrap_or_default()))
    }
}

/// The merge request's pipelines: `name` is the plan job's; a pipeline reviewed the merge
/// request when it ran in this project, for its head, on its own ref, and succeeded.
impl Reviews for GitLab {
    type Error = GitlabError;

    async fn merged(&self, sha: &str) -> Result<Option<Merged>, GitlabError> {
        let path = self.project_path(&format!("/repository/commits/{sha}/merge_requests"));
        let mrs: Vec<wire::CommitMergeRequest> = self.rest.get_all(&path).await?;
        let project = self.project();
        let Some(mr) = mrs
            .into_iter()
            .find(|m| m.state == "merged" && m.target_project_id == Some(project))
        else {
            return Ok(None);
        };
        let head_sha = mr
            .sha
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| decode("GET", &path, "a merge request without a head sha"))?;
        Ok(Some(Merged {
            number: mr.iid,
            head_sha,
        }))
    }

    async fn runs(
        &self,
        change: &Merged,
        plan: PlanRuns<'_>,
        page: Option<String>,
    ) -> Result<Page<Candidate>, GitlabError> {
        // GitLab lists a merge request's pipelines newest first.
        let path = page.unwrap_or_else(|| {
            self.project_path(&format!(
                "/merge_requests/{}/pipelines?per_page=100",
                change.number
            ))
        });
        let (pipelines, next): (Vec<wire::Pipeline>, _) =
            self.rest.send_as(Method::GET, &path, None).await?;
        let items = pipelines
            .iter()
            .map(|p| Candidate {
                id: p.id,
                why_not: why_not(p, self.project(), change, plan.include_failed),
            })
            .collect();
        Ok(Page { items, next })
    }

    /// The pipeline's plan job that succeeded (or, with `include_failed`, failed).
    async fn plan_in(
        &self,
        pipeline: u64,
        plan: PlanRuns<'_>,
    ) -> Result<Result<u64, String>, GitlabError> {
        let statuses: &[&str] = if plan.include_failed {
            &["success", "failed"]
        } else {
            &["success"]
        };
        let scopes: String = statuses.iter().map(|s| format!("scope[]={s}&")).collect();
        let path = self.project_path(&format!("/pipelines/{pipeline}/jobs?{scopes}per_page=100"));
        let jobs: Vec<wire::Job> = self.rest.get_all(&path).await?;
        let job = plan.name;
        Ok(jobs
            .iter()
            .find(|j| statuses.contains(&j.status.as_str()) && j.name == job)
            .map(|j| j.id)
            .ok_or_else(|| {
                if plan.include_failed {
                    format!("has no job {job} that succeeded or failed")
                } else {
                    format!("has no successful job {job}")
                }
            }))
    }
}

/// Why pipeline `p` is not merge request `change`'s own in `project` for its head, or
/// `None` when it is.
fn why_not(
    p: &wire::Pipeline,
    project: u64,
    change: &Merged,
    include_failed: bool,
) -> Option<String> {
    match p.project_id {
        Some(id) if id == project => {}
        Some(id) => return Some(format!("ran in project {id} (a fork)")),
        None => return Some("names no project".into()),
    }
    let sha = p.sha.as_deref().unwrap_or("?");
    if sha != change.head_sha {
        return Some(format!("is for commit {sha}"));
    }
    let own = format!("refs/merge-requests/{}/head", change.number);
    match p.git_ref.as_deref() {
        Some(r) if r == own => {}
        Some(r) => return Some(format!("ran for {r}, not {own}")),
        None => return Some("names no ref".into()),
    }
    match p.status.as_deref() {
        Some("success") => None,
        Some("failed") if include_failed => None,
        Some(s) => Some(format!("did not succeed ({s})")),
        None => Some("has no status".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "1111111111111111111111111111111111111111";

    /// GitLab's rules for a pipeline that is the merged merge request's own, on pipelines
    /// as GitLab documents them: its project, its commit, its ref, its status.
    #[test]
    fn a_pipeline_is_the_merge_requests_own_only_in_this_project_on_its_ref() {
        let change = Merged {
            number: 5,
            head_sha: HEAD.into(),
        };
        let judged = |v: serde_json::Value, include_failed: bool| {
            let p: wire::Pipeline = serde_json::from_value(v).unwrap();
            why_not(&p, 7, &change, include_failed)
        };
        let own = "refs/merge-requests/5/head";
        let p = |project: u64, sha: &str, r: &str, status: &str| json!({ "id": 1, "project_id": project, "sha": sha, "ref": r, "status": status });
        assert_eq!(judged(p(7, HEAD, own, "success"), false), None);
        for (v, why) in [
            (p(99, HEAD, own, "success"), "ran in project 99 (a fork)"),
            (
                json!({ "id": 1, "sha": HEAD, "ref": own, "status": "success" }),
                "names no project",
            ),
            (p(7, "3333333", own, "success"), "is for commit 3333333"),
            (
                p(7, HEAD, "main", "success"),
                "ran for main, not refs/merge-requests/5/head",
            ),
            (
                json!({ "id": 1, "project_id": 7, "sha": HEAD, "status": "success" }),
                "names no ref",
            ),
            (p(7, HEAD, own, "failed"), "did not succeed (failed)"),
            (p(7, HEAD, own, "canceled"), "did not succeed (canceled)"),
        ] {
            assert_eq!(judged(v, false).as_deref(), Some(why));
        }
        assert_eq!(judged(p(7, HEAD, own, "failed"), true), None);
        assert_eq!(
            judged(p(7, HEAD, own, "canceled"), true).as_deref(),
            Some("did not succeed (canceled)")
        );
    }
}
