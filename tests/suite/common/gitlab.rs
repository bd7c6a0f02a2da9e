//! A stand-in for GitLab's REST API v4 on loopback: one project's merge requests and their
//! notes and pipelines, issues and their notes, pipeline jobs and their artifacts, held to
//! GitLab's documented routes and fields (docs.gitlab.com/api: notes.md "Merge requests"
//! and "Issues", issues.md, commits.md "List merge requests associated with a commit",
//! merge_requests.md "List merge request pipelines", jobs.md "List pipeline jobs" and
//! job_artifacts.md "Download a single artifact file by job ID", users.md
//! "Get the current user"). Authentication is `PRIVATE-TOKEN`; a request without a known
//! token is refused 401 as GitLab does. A route or body GitLab does not document is
//! answered 404 or 400 and recorded as a violation; tests assert there is none.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The project the runner's `CI_PROJECT_ID` names.
pub const PROJECT_ID: u64 = 7;
/// A fork of it, where a fork's merge request pipelines run.
pub const FORK_ID: u64 = 99;
/// Who the project access token writes as.
pub const BOT_USERNAME: &str = "project_7_bot_guildctl";
/// Someone else, the author of `add_note`'s and `add_issue`'s items.
pub const OTHER_USERNAME: &str = "mallory";
pub const TOKEN: &str = "glpat-stand-in-token-0123";
pub const WEB: &str = "https://gitlab.example/guilds/config";

#[derive(Debug, Clone)]
pub struct GlNote {
    pub id: u64,
    pub body: String,
    pub author: String,
    pub system: bool,
}

#[derive(Debug, Clone)]
pub struct GlIssue {
    pub iid: u64,
    pub title: String,
    pub description: String,
    pub labels: Vec<String>,
    pub state: String,
    pub author: String,
    pub notes: Vec<GlNote>,
}

#[derive(Debug, Clone)]
pub struct GlMergeRequest {
    pub iid: u64,
    pub state: String,
    pub head_sha: String,
    pub merge_commit_sha: Option<String>,
    pub target_project_id: u64,
    pub notes: Vec<GlNote>,
}

#[derive(Debug, Clone)]
pub struct GlPipeline {
    pub id: u64,
    pub mr: u64,
    pub project_id: u64,
    pub sha: String,
    pub git_ref: String,
    pub status: String,
    /// (job id, name, status).
    pub jobs: Vec<(u64, String, String)>,
}

#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    /// Read in failure messages only (`{:?}` of the log).
    #[allow(dead_code)]
    pub status: u16,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    mrs: Vec<GlMergeRequest>,
    issues: Vec<GlIssue>,
    pipelines: Vec<GlPipeline>,
    artifacts: HashMap<(u64, String), Vec<u8>>,
    /// Each group's members' usernames, by the group's full path.
    groups: HashMap<String, Vec<String>>,
    log: Vec<Logged>,
    violations: Vec<String>,
}

#[derive(Clone)]
pub struct FakeGitLab {
    inner: Arc<Mutex<Inner>>,
    pub api: String,
}

impl FakeGitLab {
    pub async fn start() -> FakeGitLab {
        let inner = Arc::new(Mutex::new(Inner {
            next_id: 1000,
            ..Inner::default()
        }));
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeGitLab {
            inner,
            api: format!("http://{addr}/api/v4"),
        }
    }

    /// The variables a GitLab runner sets, and the token as the component's CI/CD variable.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("CI_API_V4_URL", self.api.clone()),
            ("CI_PROJECT_ID", PROJECT_ID.to_string()),
            ("GUILDCTL_GITLAB_TOKEN", TOKEN.to_owned()),
        ]
    }

    fn id(&self) -> u64 {
        let mut g = self.inner.lock().unwrap();
        g.next_id += 1;
        g.next_id
    }

    pub fn add_merge_request(&self, iid: u64, head_sha: &str) {
        self.inner.lock().unwrap().mrs.push(GlMergeRequest {
            iid,
            state: "opened".into(),
            head_sha: head_sha.into(),
            merge_commit_sha: None,
            target_project_id: PROJECT_ID,
            notes: Vec::new(),
        });
    }

    /// A push to merge request `iid`'s branch: `head_sha` is its head from now on.
    pub fn push(&self, iid: u64, head_sha: &str) {
        let mut g = self.inner.lock().unwrap();
        let mr = g.mrs.iter_mut().find(|m| m.iid == iid).expect("the MR");
        mr.head_sha = head_sha.into();
    }

    /// Merges merge request `iid` as commit `merge_sha`.
    pub fn merge(&self, iid: u64, merge_sha: &str) {
        let mut g = self.inner.lock().unwrap();
        let mr = g.mrs.iter_mut().find(|m| m.iid == iid).expect("the MR");
        mr.state = "merged".into();
        mr.merge_commit_sha = Some(merge_sha.into());
    }

    /// A note by `author` (system notes are GitLab's own: "added 1 commit").
    pub fn add_note(&self, iid: u64, author: &str, body: &str, system: bool) -> u64 {
        let id = self.id();
        let mut g = self.inner.lock().unwrap();
        let mr = g.mrs.iter_mut().find(|m| m.iid == iid).expect("the MR");
        mr.notes.push(GlNote {
            id,
            body: body.into(),
            author: author.into(),
            system,
        });
        id
    }

    pub fn add_issue(&self, author: &str, title: &str, description: &str, label: &str) -> u64 {
        let mut g = self.inner.lock().unwrap();
        let iid = g.issues.len() as u64 + 1;
        g.issues.push(GlIssue {
            iid,
            title: title.into(),
            description: description.into(),
            labels: vec![label.into()],
            state: "opened".into(),
            author: author.into(),
            notes: Vec::new(),
        });
        iid
    }

    /// A pipeline of merge request `mr` with jobs `(name, status)`; returns the pipeline id
    /// and the jobs' ids.
    pub fn add_pipeline(
        &self,
        mr: u64,
        project_id: u64,
        sha: &str,
        git_ref: &str,
        status: &str,
        jobs: &[(&str, &str)],
    ) -> (u64, Vec<u64>) {
        let id = self.id();
        let jobs: Vec<(u64, String, String)> = jobs
            .iter()
            .map(|(n, s)| (self.id(), n.to_string(), s.to_string()))
            .collect();
        let ids = jobs.iter().map(|j| j.0).collect();
        self.inner.lock().unwrap().pipelines.push(GlPipeline {
            id,
            mr,
            project_id,
            sha: sha.into(),
            git_ref: git_ref.into(),
            status: status.into(),
            jobs,
        });
        (id, ids)
    }

    /// Group `path`'s members (inherited ones included), as `GET /groups/:id/members/all`
    /// lists them.
    pub fn set_group(&self, path: &str, usernames: &[&str]) {
        self.inner.lock().unwrap().groups.insert(
            path.to_owned(),
            usernames.iter().map(|u| (*u).to_owned()).collect(),
        );
    }

    pub fn add_artifact(&self, job: u64, path: &str, bytes: &[u8]) {
        self.inner
            .lock()
            .unwrap()
            .artifacts
            .insert((job, path.into()), bytes.to_vec());
    }

    pub fn notes(&self, iid: u64) -> Vec<GlNote> {
        let g = self.inner.lock().unwrap();
        g.mrs
            .iter()
            .find(|m| m.iid == iid)
            .map(|m| m.notes.clone())
            .unwrap_or_default()
    }

    pub fn issues(&self) -> Vec<GlIssue> {
        self.inner.lock().unwrap().issues.clone()
    }

    pub fn log(&self) -> Vec<Logged> {
        self.inner.lock().unwrap().log.clone()
    }

    pub fn writes(&self) -> Vec<Logged> {
        self.log()
            .into_iter()
            .filter(|l| l.method != "GET")
            .collect()
    }

    pub fn violations(&self) -> Vec<String> {
        self.inner.lock().unwrap().violations.clone()
    }
}

fn user(username: &str) -> Value {
    json!({
        "id": if username == BOT_USERNAME { 41 } else { 42 },
        "username": username,
        "name": username,
        "state": "active",
        "avatar_url": null,
        "web_url": format!("https://gitlab.example/{username}"),
    })
}

fn note_json(n: &GlNote, noteable: &str, iid: u64) -> Value {
    json!({
        "id": n.id,
        "type": null,
        "body": n.body,
        "author": user(&n.author),
        "created_at": "2026-11-01T10:00:00.000Z",
        "updated_at": "2026-11-01T10:00:00.000Z",
        "system": n.system,
        "noteable_type": noteable,
        "noteable_iid": iid,
        "project_id": PROJECT_ID,
        "resolvable": false,
        "confidential": false,
        "internal": false,
    })
}

fn issue_json(i: &GlIssue) -> Value {
    json!({
        "id": 5000 + i.iid,
        "iid": i.iid,
        "project_id": PROJECT_ID,
        "title": i.title,
        "description": i.description,
        "state": i.state,
        "labels": i.labels,
        "author": user(&i.author),
        "web_url": format!("{WEB}/-/issues/{}", i.iid),
        "created_at": "2026-11-01T10:00:00.000Z",
        "updated_at": "2026-11-01T10:00:00.000Z",
    })
}

fn mr_json(m: &GlMergeRequest) -> Value {
    json!({
        "id": 3000 + m.iid,
        "iid": m.iid,
        "project_id": m.target_project_id,
        "title": "Change the guild",
        "state": m.state,
        "target_branch": "main",
        "source_branch": format!("change-{}", m.iid),
        "source_project_id": m.target_project_id,
        "target_project_id": m.target_project_id,
        "sha": m.head_sha,
        "merge_commit_sha": m.merge_commit_sha,
        "squash_commit_sha": null,
        "web_url": format!("{WEB}/-/merge_requests/{}", m.iid),
    })
}

fn query(uri: &Uri) -> Vec<(String, String)> {
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let d = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (d(k), d(v))
        })
        .collect()
}

fn param(q: &[(String, String)], key: &str) -> Option<String> {
    q.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// One page of `items` (GitLab's offset pagination: `page`, `per_page` up to 100), with
/// `Link: <...>; rel="next"` while there are more.
fn page(items: Vec<Value>, uri: &Uri, api_origin: &str) -> Response {
    let q = query(uri);
    let per_page: usize = param(&q, "per_page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
        .clamp(1, 100);
    let page: usize = param(&q, "page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let start = (page - 1) * per_page;
    let chunk: Vec<Value> = items.iter().skip(start).take(per_page).cloned().collect();
    let mut resp = (StatusCode::OK, axum::Json(Value::Array(chunk))).into_response();
    if start + per_page < items.len() {
        let mut rest: Vec<String> = q
            .iter()
            .filter(|(k, _)| k != "page")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        rest.push(format!("page={}", page + 1));
        let link = format!(
            "<{api_origin}{}?{}>; rel=\"next\"",
            uri.path(),
            rest.join("&")
        );
        resp.headers_mut()
            .insert("link", HeaderValue::from_str(&link).unwrap());
    }
    resp
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "message": message }))).into_response()
}

fn string_field(body: &Value, key: &str) -> Option<String> {
    body.get(key).and_then(Value::as_str).map(str::to_owned)
}

async fn handle(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let origin = format!(
        "http://{}",
        headers
            .get("host")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1")
    );
    let resp = route(&inner, &method, &uri, &headers, &body, &origin);
    let mut g = inner.lock().unwrap();
    let status = resp.status().as_u16();
    if (status == 404 || status == 400) && !resp.headers().contains_key("x-stand-in-documented") {
        g.violations.push(format!(
            "{method} {path}: {status} (not a documented request)"
        ));
    }
    g.log.push(Logged {
        method: method.to_string(),
        path: uri.path_and_query().map(|p| p.to_string()).unwrap_or(path),
        status,
    });
    resp
}

fn route(
    inner: &Arc<Mutex<Inner>>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &Bytes,
    origin: &str,
) -> Response {
    if headers.get("private-token").and_then(|v| v.to_str().ok()) != Some(TOKEN) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "message": "401 Unauthorized" })),
        )
            .into_response();
    }
    let json_body: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "400 Bad request - body is not JSON",
                );
            }
        }
    };
    let Some(rest) = uri.path().strip_prefix("/api/v4") else {
        return error(StatusCode::NOT_FOUND, "404 Not Found");
    };
    let segs: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let mut g = inner.lock().unwrap();
    let project = PROJECT_ID.to_string();
    match (method.as_str(), segs.as_slice()) {
        ("GET", ["user"]) => axum::Json(user(BOT_USERNAME)).into_response(),
        // A group by its id or its URL-encoded full path; members inherited from parent
        // groups included ("List all members of a group or project").
        ("GET", ["groups", id, "members", "all"]) => {
            let path = percent_encoding::percent_decode_str(id).decode_utf8_lossy();
            match g.groups.get(path.as_ref()) {
                Some(members) => {
                    let items = members
                        .iter()
                        .map(|u| {
                            let mut m = user(u);
                            m["access_level"] = json!(30);
                            m["created_at"] = json!("2026-01-01T00:00:00.000Z");
                            m["expires_at"] = Value::Null;
                            m
                        })
                        .collect();
                    page(items, uri, origin)
                }
                // A group the token cannot see is GitLab's documented 404.
                None => error(StatusCode::NOT_FOUND, "404 Group Not Found").with_no_violation(),
            }
        }
        (_, ["projects", p, ..]) if *p != project => {
            error(StatusCode::NOT_FOUND, "404 Project Not Found")
        }
        // Notes of a merge request.
        ("GET", ["projects", _, "merge_requests", iid]) => {
            match g.mrs.iter().find(|m| m.iid.to_string() == *iid) {
                Some(m) => axum::Json(mr_json(m)).into_response(),
                None => error(StatusCode::NOT_FOUND, "404 Not found"),
            }
        }
        ("GET", ["projects", _, "merge_requests", iid, "notes"]) => {
            let Some(m) = g.mrs.iter().find(|m| m.iid.to_string() == *iid) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            let notes = m
                .notes
                .iter()
                .map(|n| note_json(n, "MergeRequest", m.iid))
                .collect();
            page(notes, uri, origin)
        }
        ("POST", ["projects", _, "merge_requests", iid, "notes"]) => {
            let Some(text) = string_field(&json_body, "body") else {
                return error(StatusCode::BAD_REQUEST, "400 Bad request - body is missing");
            };
            g.next_id += 1;
            let id = g.next_id;
            let Some(m) = g.mrs.iter_mut().find(|m| m.iid.to_string() == *iid) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            let n = GlNote {
                id,
                body: text,
                author: BOT_USERNAME.into(),
                system: false,
            };
            m.notes.push(n.clone());
            (
                StatusCode::CREATED,
                axum::Json(note_json(&n, "MergeRequest", m.iid)),
            )
                .into_response()
        }
        ("PUT", ["projects", _, "merge_requests", iid, "notes", id]) => {
            let Some(text) = string_field(&json_body, "body") else {
                return error(StatusCode::BAD_REQUEST, "400 Bad request - body is missing");
            };
            let Some(m) = g.mrs.iter_mut().find(|m| m.iid.to_string() == *iid) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            let m_iid = m.iid;
            let Some(n) = m.notes.iter_mut().find(|n| n.id.to_string() == *id) else {
                return error(StatusCode::NOT_FOUND, "404 Note Not Found");
            };
            // Only its author may edit a note.
            if n.author != BOT_USERNAME || n.system {
                return error(StatusCode::FORBIDDEN, "403 Forbidden");
            }
            n.body = text;
            axum::Json(note_json(n, "MergeRequest", m_iid)).into_response()
        }
        // The pipelines of a merge request, newest first.
        ("GET", ["projects", _, "merge_requests", iid, "pipelines"]) => {
            let mut list: Vec<&GlPipeline> = g
                .pipelines
                .iter()
                .filter(|p| p.mr.to_string() == *iid)
                .collect();
            list.sort_by_key(|p| std::cmp::Reverse(p.id));
            let items = list
                .iter()
                .map(|p| {
                    json!({
                        "id": p.id, "iid": p.id - 900, "project_id": p.project_id, "sha": p.sha,
                        "ref": p.git_ref, "status": p.status, "source": "merge_request_event",
                        "web_url": format!("{WEB}/-/pipelines/{}", p.id),
                    })
                })
                .collect();
            page(items, uri, origin)
        }
        (
            "GET",
            [
                "projects",
                _,
                "repository",
                "commits",
                sha,
                "merge_requests",
            ],
        ) => {
            let items = g
                .mrs
                .iter()
                .filter(|m| m.merge_commit_sha.as_deref() == Some(*sha) || m.head_sha == *sha)
                .map(mr_json)
                .collect();
            page(items, uri, origin)
        }
        ("GET", ["projects", _, "pipelines", id, "jobs"]) => {
            let q = query(uri);
            let scopes: Vec<String> = q
                .iter()
                .filter(|(k, _)| k == "scope[]" || k == "scope")
                .map(|(_, v)| v.clone())
                .collect();
            let Some(p) = g.pipelines.iter().find(|p| p.id.to_string() == *id) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            let items = p
                .jobs
                .iter()
                .filter(|(_, _, s)| scopes.is_empty() || scopes.contains(s))
                .map(|(jid, name, status)| {
                    json!({
                        "id": jid, "name": name, "status": status, "stage": "plan",
                        "ref": p.git_ref,
                        "pipeline": { "id": p.id, "project_id": p.project_id, "sha": p.sha, "ref": p.git_ref, "status": p.status },
                        "web_url": format!("{WEB}/-/jobs/{jid}"),
                    })
                })
                .collect();
            page(items, uri, origin)
        }
        ("GET", ["projects", _, "jobs", job, "artifacts", artifact @ ..])
            if !artifact.is_empty() =>
        {
            let decoded: Vec<String> = artifact
                .iter()
                .map(|s| {
                    percent_encoding::percent_decode_str(s)
                        .decode_utf8_lossy()
                        .into_owned()
                })
                .collect();
            let key = (job.parse().unwrap_or(0), decoded.join("/"));
            match g.artifacts.get(&key) {
                Some(bytes) => (StatusCode::OK, bytes.clone()).into_response(),
                // GitLab answers a missing file 404 too: not a violation of the routes.
                None => (
                    StatusCode::NOT_FOUND,
                    axum::Json(json!({ "message": "404 Not found" })),
                )
                    .into_response()
                    .with_no_violation(),
            }
        }
        // Issues.
        ("GET", ["projects", _, "issues"]) => {
            let q = query(uri);
            let state = param(&q, "state").unwrap_or_else(|| "all".into());
            let labels: Vec<String> = param(&q, "labels")
                .map(|l| l.split(',').map(str::to_owned).collect())
                .unwrap_or_default();
            let items = g
                .issues
                .iter()
                .filter(|i| state == "all" || i.state == state)
                .filter(|i| labels.iter().all(|l| i.labels.contains(l)))
                .map(issue_json)
                .collect();
            page(items, uri, origin)
        }
        ("POST", ["projects", _, "issues"]) => {
            let Some(title) = string_field(&json_body, "title") else {
                return error(
                    StatusCode::BAD_REQUEST,
                    "400 Bad request - title is missing",
                );
            };
            // `labels` is a comma-separated string.
            if json_body.get("labels").is_some_and(|l| !l.is_string()) {
                return error(
                    StatusCode::BAD_REQUEST,
                    "400 Bad request - labels is invalid",
                );
            }
            let iid = g.issues.len() as u64 + 1;
            let issue = GlIssue {
                iid,
                title,
                description: string_field(&json_body, "description").unwrap_or_default(),
                labels: string_field(&json_body, "labels")
                    .map(|l| l.split(',').map(str::to_owned).collect())
                    .unwrap_or_default(),
                state: "opened".into(),
                author: BOT_USERNAME.into(),
                notes: Vec::new(),
            };
            g.issues.push(issue.clone());
            (StatusCode::CREATED, axum::Json(issue_json(&issue))).into_response()
        }
        ("PUT", ["projects", _, "issues", iid]) => {
            let Some(i) = g.issues.iter_mut().find(|i| i.iid.to_string() == *iid) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            if let Some(t) = string_field(&json_body, "title") {
                i.title = t;
            }
            if let Some(d) = string_field(&json_body, "description") {
                i.description = d;
            }
            match json_body.get("state_event").and_then(Value::as_str) {
                Some("close") => i.state = "closed".into(),
                Some("reopen") => i.state = "opened".into(),
                Some(_) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "400 Bad request - state_event does not have a valid value",
                    );
                }
                None => {}
            }
            axum::Json(issue_json(i)).into_response()
        }
        ("POST", ["projects", _, "issues", iid, "notes"]) => {
            let Some(text) = string_field(&json_body, "body") else {
                return error(StatusCode::BAD_REQUEST, "400 Bad request - body is missing");
            };
            g.next_id += 1;
            let id = g.next_id;
            let Some(i) = g.issues.iter_mut().find(|i| i.iid.to_string() == *iid) else {
                return error(StatusCode::NOT_FOUND, "404 Not found");
            };
            let n = GlNote {
                id,
                body: text,
                author: BOT_USERNAME.into(),
                system: false,
            };
            i.notes.push(n.clone());
            (
                StatusCode::CREATED,
                axum::Json(note_json(&n, "Issue", i.iid)),
            )
                .into_response()
        }
        _ => error(StatusCode::NOT_FOUND, "404 Not Found"),
    }
}

/// A 404 that GitLab documents for a route (a missing artifact file, a group the token
/// cannot see), not a violation.
trait NoViolation {
    fn with_no_violation(self) -> Response;
}

impl NoViolation for Response {
    fn with_no_violation(mut self) -> Response {
        self.headers_mut()
            .insert("x-stand-in-documented", HeaderValue::from_static("1"));
        self
    }
}
