//! A stand-in for GitHub's REST API on loopback: one repository's issues, pull requests
//! and comments. Every request it gets is checked against GitHub's own OpenAPI
//! description (tests/data/github-openapi-subset.json: path, method, parameters, request
//! body) and every answer it gives is checked against the same description's response
//! schema for its status. What does not conform is recorded; tests assert there is none.
//!
//! Two tokens are known, as on GitHub: `token`, an installation token like a workflow's
//! `GITHUB_TOKEN` (it writes as `github-actions[bot]`, and `GET /user` answers it 403
//! "Resource not accessible by integration"), and `user_token`, a person's token
//! (`USER_LOGIN`, whom `GET /user` names). Every comment and issue has an author.
//!
//! The repository's data and the stand-in's API are here, with the serving; `spec` reads
//! GitHub's description and checks against it, `behaviour` answers each request as GitHub does.

mod behaviour;
mod spec;

use behaviour::behave;
use spec::{Spec, query_pairs, typed};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The repository of tests/data/github-event-pull_request-*.json.
pub const REPO: &str = "Codertocat/Hello-World";
/// Its pull request, and an ordinary issue beside it.
pub const PR_NUMBER: u64 = 2;
/// Who writes with the installation token (a workflow's `GITHUB_TOKEN`).
pub const BOT_LOGIN: &str = "github-actions[bot]";
/// Who writes with the user token.
pub const USER_LOGIN: &str = "Codertocat";
/// Someone else: the author of `add_comment`'s comments.
pub const OTHER_LOGIN: &str = "octocat";

#[derive(Debug, Clone)]
pub struct GhIssue {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
    pub state: String,
    pub state_reason: Option<String>,
    pub is_pull_request: bool,
    pub author: String,
}

#[derive(Debug, Clone)]
pub struct GhComment {
    pub id: u64,
    pub issue: u64,
    pub body: String,
    pub author: String,
}

/// A merged pull request: what `GET /repos/.../commits/{sha}/pulls` finds.
#[derive(Debug, Clone)]
pub struct GhPull {
    pub number: u64,
    pub head_sha: String,
    pub merge_commit_sha: String,
}

/// A workflow run, as `GET /repos/.../actions/workflows/{id}/runs` lists it.
#[derive(Debug, Clone)]
pub struct GhRun {
    pub id: u64,
    pub workflow_file: String,
    pub head_sha: String,
    pub event: String,
    pub conclusion: String,
    /// The run's `pull_requests`: numbers of pull requests, and the repository each
    /// belongs to (`REPO`, or another one's of the same number).
    pub pull_requests: Vec<(u64, String)>,
    /// `head_repository.full_name`: `REPO`, or a fork's.
    pub head_repo: String,
}

#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    /// Read in failure messages only (`{:?}` of the log).
    #[allow(dead_code)]
    pub status: u16,
    pub authorization: Option<String>,
}

#[derive(Default)]
struct Data {
    issues: Vec<GhIssue>,
    comments: Vec<GhComment>,
    next_comment: u64,
    pulls: Vec<GhPull>,
    runs: Vec<GhRun>,
    /// The files each pull request changes: (path, status, previous path of a rename).
    pull_files: HashMap<u64, Vec<(String, String, Option<String>)>>,
    /// Each team's members' logins, by `org/slug`.
    teams: HashMap<String, Vec<String>>,
    log: Vec<Logged>,
    violations: Vec<String>,
}

struct Shared {
    spec: Spec,
    /// The event payload's pull request and repository, the shapes answers are cut from.
    event: Value,
    token: String,
    user_token: String,
    base: Mutex<String>,
    data: Mutex<Data>,
}

pub struct FakeGitHub {
    pub api_url: String,
    /// The installation token (`BOT_LOGIN` writes with it).
    pub token: String,
    /// A person's token (`USER_LOGIN` writes with it).
    pub user_token: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeGitHub {
    /// Serves `REPO` with pull request #2 open and issue #1 (labelled `bug`) beside it.
    pub async fn start() -> FakeGitHub {
        let token = "ghs_fakeGitHubTokenForTests0123456789".to_owned();
        let user_token = "ghp_fakeUserTokenForTests0123456789ab".to_owned();
        let data = Data {
            issues: vec![
                GhIssue {
                    number: 1,
                    title: "Something else".into(),
                    body: "Someone else's issue.".into(),
                    labels: vec!["bug".into()],
                    state: "open".into(),
                    state_reason: None,
                    is_pull_request: false,
                    author: OTHER_LOGIN.into(),
                },
                GhIssue {
                    number: PR_NUMBER,
                    title: "Update the README with new information.".into(),
                    body: "This is a pretty simple change that we need to pull into master.".into(),
                    labels: vec![],
                    state: "open".into(),
                    state_reason: None,
                    is_pull_request: true,
                    author: USER_LOGIN.into(),
                },
            ],
            next_comment: 1000,
            ..Data::default()
        };
        let event = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/github-event-pull_request-opened.json"
        ))
        .expect("the event payload is present");
        let shared = Arc::new(Shared {
            spec: Spec::load(),
            event: serde_json::from_str(&event).expect("it parses"),
            token: token.clone(),
            user_token: user_token.clone(),
            base: Mutex::new(String::new()),
            data: Mutex::new(data),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let api_url = format!("http://{}", listener.local_addr().unwrap());
        *shared.base.lock().unwrap() = api_url.clone();
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeGitHub {
            api_url,
            token,
            user_token,
            shared,
            task,
        }
    }

    /// The variables a runner sets for guildctl to find this API (with the
    /// installation token).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("GITHUB_API_URL", self.api_url.clone()),
            ("GITHUB_REPOSITORY", REPO.to_owned()),
            ("GITHUB_TOKEN", self.token.clone()),
            ("GITHUB_SERVER_URL", "https://github.com".to_owned()),
            ("GITHUB_RUN_ID", "4242".to_owned()),
        ]
    }

    pub fn comments(&self, issue: u64) -> Vec<GhComment> {
        let d = self.shared.data.lock().unwrap();
        d.comments
            .iter()
            .filter(|c| c.issue == issue)
            .cloned()
            .collect()
    }

    /// Someone else's (`OTHER_LOGIN`'s) comment on an issue or pull request.
    pub fn add_comment(&self, issue: u64, body: &str) -> u64 {
        self.add_comment_by(OTHER_LOGIN, issue, body)
    }

    /// `author`'s comment on an issue or pull request; returns its id.
    pub fn add_comment_by(&self, author: &str, issue: u64, body: &str) -> u64 {
        let mut d = self.shared.data.lock().unwrap();
        let id = d.next_comment;
        d.next_comment += 1;
        d.comments.push(GhComment {
            id,
            issue,
            body: body.to_owned(),
            author: author.to_owned(),
        });
        id
    }

    /// Records that `number`, with head `head_sha`, was merged as `merge_commit_sha`.
    pub fn merge_pull(&self, number: u64, head_sha: &str, merge_commit_sha: &str) {
        self.shared.data.lock().unwrap().pulls.push(GhPull {
            number,
            head_sha: head_sha.to_owned(),
            merge_commit_sha: merge_commit_sha.to_owned(),
        });
    }

    /// A finished run whose `pull_requests` and head repository are given: a run of
    /// another pull request with the same head, or a run from a fork.
    pub fn add_run_with(
        &self,
        workflow_file: &str,
        head_sha: &str,
        event: &str,
        conclusion: &str,
        pull_requests: Vec<(u64, String)>,
        head_repo: &str,
    ) -> u64 {
        let mut d = self.shared.data.lock().unwrap();
        let id = 9000 + d.runs.len() as u64;
        d.runs.push(GhRun {
            id,
            workflow_file: workflow_file.to_owned(),
            head_sha: head_sha.to_owned(),
            event: event.to_owned(),
            conclusion: conclusion.to_owned(),
            pull_requests,
            head_repo: head_repo.to_owned(),
        });
        id
    }

    /// The files pull request `number` changes, as `GET .../pulls/{n}/files` lists them:
    /// `(path, status)` with status `added`, `modified`, `removed` or `renamed FROM`.
    pub fn set_pull_files(&self, number: u64, files: &[(&str, &str)]) {
        let files = files
            .iter()
            .map(|(path, status)| match status.strip_prefix("renamed ") {
                Some(from) => (
                    (*path).to_owned(),
                    "renamed".to_owned(),
                    Some(from.to_owned()),
                ),
                None => ((*path).to_owned(), (*status).to_owned(), None),
            })
            .collect();
        self.shared
            .data
            .lock()
            .unwrap()
            .pull_files
            .insert(number, files);
    }

    /// Team `org/slug`'s members, as `GET /orgs/{org}/teams/{team_slug}/members` lists them.
    pub fn set_team(&self, team: &str, logins: &[&str]) {
        self.shared.data.lock().unwrap().teams.insert(
            team.to_owned(),
            logins.iter().map(|l| (*l).to_owned()).collect(),
        );
    }

    pub fn issues(&self) -> Vec<GhIssue> {
        self.shared.data.lock().unwrap().issues.clone()
    }

    pub fn requests(&self) -> Vec<Logged> {
        self.shared.data.lock().unwrap().log.clone()
    }

    pub fn writes(&self) -> Vec<Logged> {
        self.requests()
            .into_iter()
            .filter(|r| r.method != "GET")
            .collect()
    }

    /// Requests or responses that do not conform to GitHub's description.
    pub fn violations(&self) -> Vec<String> {
        self.shared.data.lock().unwrap().violations.clone()
    }

    pub fn assert_conforms(&self) {
        let v = self.violations();
        assert!(
            v.is_empty(),
            "GitHub API description violated:\n{}",
            v.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Serving

async fn handle(
    State(s): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let shown = uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| path.clone());
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut violations = Vec::new();
    let (status, body, link) = serve(
        &s,
        &method,
        &uri,
        &headers,
        &body,
        &authorization,
        &mut violations,
    );
    let mut d = s.data.lock().unwrap();
    d.log.push(Logged {
        method: method.to_string(),
        path: shown.clone(),
        status: status.as_u16(),
        authorization,
    });
    d.violations.extend(
        violations
            .into_iter()
            .map(|v| format!("{method} {shown}: {v}")),
    );
    drop(d);
    let mut resp = if body.is_null() {
        status.into_response()
    } else {
        (status, axum::Json(body)).into_response()
    };
    if let Some(link) = link {
        resp.headers_mut().insert(
            "link",
            HeaderValue::from_str(&link).expect("a header value"),
        );
    }
    resp
}

type Answer = (StatusCode, Value, Option<String>);

fn error(status: StatusCode, message: &str) -> Answer {
    (
        status,
        json!({ "message": message, "documentation_url": "https://docs.github.com/rest" }),
        None,
    )
}

fn serve(
    s: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &Bytes,
    authorization: &Option<String>,
    violations: &mut Vec<String>,
) -> Answer {
    // GitHub refuses a request without a User-Agent, and answers 401 to a wrong token.
    if headers.get("user-agent").is_none() {
        violations.push("no User-Agent".into());
        return error(
            StatusCode::FORBIDDEN,
            "Request forbidden by administrative rules.",
        );
    }
    let login = if authorization.as_deref() == Some(&format!("Bearer {}", s.token)) {
        BOT_LOGIN
    } else if authorization.as_deref() == Some(&format!("Bearer {}", s.user_token)) {
        USER_LOGIN
    } else {
        return error(StatusCode::UNAUTHORIZED, "Bad credentials");
    };
    if headers.get("accept").and_then(|v| v.to_str().ok()) != Some("application/vnd.github+json") {
        violations.push("Accept is not application/vnd.github+json".into());
    }
    if headers.get("x-github-api-version").is_none() {
        violations.push("no X-GitHub-Api-Version".into());
    }
    let Some((template, op, params)) = s.spec.route(method, uri.path()) else {
        violations.push("no such operation in the description".into());
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let op_key = format!("{method} {template}");

    // Parameters: each one the operation declares, with its schema; nothing else.
    let query = query_pairs(uri);
    let declared: Vec<Value> = op["parameters"]
        .as_array()
        .map(|ps| ps.iter().map(|p| s.spec.resolve(p).clone()).collect())
        .unwrap_or_default();
    for (name, value) in &query {
        match declared
            .iter()
            .find(|p| p["in"] == "query" && p["name"] == name.as_str())
        {
            None => violations.push(format!("undeclared query parameter {name}")),
            Some(p) => {
                let key = format!("{op_key} ?{name}");
                for e in s
                    .spec
                    .errors(&key, &p["schema"], &typed(&p["schema"], value))
                {
                    violations.push(format!("query {name}: {e}"));
                }
            }
        }
    }
    for p in declared.iter().filter(|p| p["in"] == "path") {
        let name = p["name"].as_str().unwrap_or_default();
        let value = params.get(name).cloned().unwrap_or_default();
        let key = format!("{op_key} /{name}");
        for e in s
            .spec
            .errors(&key, &p["schema"], &typed(&p["schema"], &value))
        {
            violations.push(format!("path {name}: {e}"));
        }
    }
    let in_repo = template.starts_with("/repos/");
    if in_repo
        && (params.get("owner").map(String::as_str) != REPO.split('/').next()
            || params.get("repo").map(String::as_str) != REPO.split('/').nth(1))
    {
        return checked(
            s,
            op,
            &op_key,
            error(StatusCode::NOT_FOUND, "Not Found"),
            violations,
        );
    }

    // The request body against the operation's requestBody schema.
    let json_body: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                violations.push(format!("the body is not JSON: {e}"));
                return error(StatusCode::BAD_REQUEST, "Problems parsing JSON");
            }
        }
    };
    match op.get("requestBody") {
        Some(rb) => {
            let rb = s.spec.resolve(rb);
            let ct = headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !ct.starts_with("application/json") {
                violations.push(format!("Content-Type {ct:?}, not application/json"));
            }
            if json_body.is_null() && rb["required"] == true {
                violations.push("a required body is missing".into());
            }
            if let Some(schema) = rb.pointer("/content/application~1json/schema") {
                let errors = s.spec.errors(&format!("{op_key} body"), schema, &json_body);
                if !errors.is_empty() {
                    for e in &errors {
                        violations.push(format!("body: {e}"));
                    }
                    return checked(
                        s,
                        op,
                        &op_key,
                        error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed"),
                        violations,
                    );
                }
            }
        }
        None if !json_body.is_null() => {
            violations.push("a body on an operation without one".into())
        }
        None => {}
    }

    let base = s.base.lock().unwrap().clone();
    let answer = {
        let mut d = s.data.lock().unwrap();
        behave(
            &mut d, &s.event, &base, login, method, &template, &params, &query, &json_body,
        )
    };
    checked(s, op, &op_key, answer, violations)
}

/// Checks an answer against the operation's response for its status.
fn checked(
    s: &Shared,
    op: &Value,
    op_key: &str,
    answer: Answer,
    violations: &mut Vec<String>,
) -> Answer {
    let status = answer.0.as_u16().to_string();
    match op["responses"].get(&status) {
        None => violations.push(format!("the description has no {status} response")),
        Some(r) => {
            let r = s.spec.resolve(r);
            match r.pointer("/content/application~1json/schema") {
                Some(schema) => {
                    let key = format!("{op_key} {status}");
                    for e in s.spec.errors(&key, schema, &answer.1) {
                        violations.push(format!("response {status}: {e}"));
                    }
                }
                None if !answer.1.is_null() => violations.push(format!(
                    "response {status} has a body the description has not"
                )),
                None => {}
            }
        }
    }
    answer
}
