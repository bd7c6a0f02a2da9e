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
// The description

struct Spec {
    doc: Value,
    cache: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl Spec {
    fn load() -> Spec {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/github-openapi-subset.json"
        ))
        .expect("the GitHub API subset is present");
        let mut doc: Value = serde_json::from_str(&text).expect("it parses");
        denull(&mut doc);
        Spec {
            doc,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The path template and operation that serve `path` with `method`, and the path's
    /// parameters.
    fn route(
        &self,
        method: &Method,
        path: &str,
    ) -> Option<(String, &Value, HashMap<String, String>)> {
        let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let paths = self.doc["paths"].as_object()?;
        for (template, ops) in paths {
            let tsegs: Vec<&str> = template.trim_start_matches('/').split('/').collect();
            if tsegs.len() != segs.len() {
                continue;
            }
            let mut params = HashMap::new();
            let matched = tsegs.iter().zip(&segs).all(|(t, s)| {
                if let Some(name) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                    let value = percent_encoding::percent_decode_str(s).decode_utf8_lossy();
                    params.insert(name.to_owned(), value.into_owned());
                    !s.is_empty()
                } else {
                    t == s
                }
            });
            if let Some(op) = ops.get(method.as_str().to_lowercase()).filter(|_| matched) {
                return Some((template.clone(), op, params));
            }
        }
        None
    }

    fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => self
                .doc
                .pointer(r.trim_start_matches('#'))
                .unwrap_or(&Value::Null),
            None => v,
        }
    }

    fn errors(&self, key: &str, schema: &Value, instance: &Value) -> Vec<String> {
        let validator = {
            let mut cache = self.cache.lock().unwrap();
            cache
                .entry(key.to_owned())
                .or_insert_with(|| {
                    // The schema with the description's components, so `#/components/...`
                    // references resolve inside it.
                    let mut root = match schema {
                        Value::Object(m) => m.clone(),
                        other => {
                            let mut m = serde_json::Map::new();
                            m.insert("allOf".into(), json!([other]));
                            m
                        }
                    };
                    root.insert("components".into(), self.doc["components"].clone());
                    Arc::new(
                        jsonschema::options()
                            .with_draft(jsonschema::Draft::Draft202012)
                            .should_validate_formats(true)
                            .build(&Value::Object(root))
                            .expect("the description's schema compiles"),
                    )
                })
                .clone()
        };
        validator
            .iter_errors(instance)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }
}

/// OpenAPI 3.0's `nullable: true` as JSON Schema's `null` type (what OpenAPI 3.1 and
/// GitHub's descriptions-next write).
fn denull(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for child in m.values_mut() {
                denull(child);
            }
            if m.get("nullable") == Some(&Value::Bool(true)) {
                m.remove("nullable");
                match m.get("type").cloned() {
                    Some(Value::String(t)) => {
                        m.insert("type".into(), json!([t, "null"]));
                        if let Some(Value::Array(e)) = m.get_mut("enum") {
                            e.push(Value::Null);
                        }
                    }
                    _ => {
                        let inner = Value::Object(std::mem::take(m));
                        m.insert("anyOf".into(), json!([inner, { "type": "null" }]));
                    }
                }
            } else if m.get("nullable") == Some(&Value::Bool(false)) {
                m.remove("nullable");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(denull),
        _ => {}
    }
}

/// A parameter's text as the JSON value its schema describes.
fn typed(schema: &Value, text: &str) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(text.to_owned())),
        Some("boolean") => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

fn query_pairs(uri: &Uri) -> Vec<(String, String)> {
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (dec(k), dec(v))
        })
        .collect()
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

// ---------------------------------------------------------------------------------------
// Behaviour

const TIME: &str = "2026-11-01T12:00:00Z";

/// A `simple-user`: the Actions bot as GitHub shows it, anyone else as a user.
fn user(login: &str) -> Value {
    let bot = login == BOT_LOGIN;
    let u = format!(
        "https://api.github.com/users/{}",
        login.replace('[', "%5B").replace(']', "%5D")
    );
    let (id, node_id, avatar, html) = if bot {
        (
            41898282,
            "MDM6Qm90NDE4OTgyODI=".to_owned(),
            "https://avatars.githubusercontent.com/in/15368?v=4".to_owned(),
            "https://github.com/apps/github-actions".to_owned(),
        )
    } else {
        let id = 21031067 + login.bytes().map(u64::from).sum::<u64>();
        (
            id,
            format!("MDQ6VXNlcj{id}"),
            format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
            format!("https://github.com/{login}"),
        )
    };
    json!({
        "login": login, "id": id, "node_id": node_id,
        "avatar_url": avatar, "gravatar_id": "",
        "url": u, "html_url": html,
        "followers_url": format!("{u}/followers"), "following_url": format!("{u}/following{{/other_user}}"),
        "gists_url": format!("{u}/gists{{/gist_id}}"), "starred_url": format!("{u}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{u}/subscriptions"), "organizations_url": format!("{u}/orgs"),
        "repos_url": format!("{u}/repos"), "events_url": format!("{u}/events{{/privacy}}"),
        "received_events_url": format!("{u}/received_events"),
        "type": if bot { "Bot" } else { "User" }, "site_admin": false
    })
}

/// `GET /user`'s `private-user`: the authenticated person.
fn private_user(login: &str) -> Value {
    let mut v = user(login);
    let m = v.as_object_mut().expect("an object");
    for (k, val) in [
        ("name", json!("Monalisa Octocat")),
        ("company", Value::Null),
        ("blog", json!("")),
        ("location", Value::Null),
        ("email", Value::Null),
        ("hireable", Value::Null),
        ("bio", Value::Null),
        ("public_repos", json!(2)),
        ("public_gists", json!(0)),
        ("followers", json!(0)),
        ("following", json!(0)),
        ("created_at", json!(TIME)),
        ("updated_at", json!(TIME)),
        ("private_gists", json!(0)),
        ("total_private_repos", json!(0)),
        ("owned_private_repos", json!(0)),
        ("disk_usage", json!(0)),
        ("collaborators", json!(0)),
        ("two_factor_authentication", json!(true)),
        ("user_view_type", json!("private")),
    ] {
        m.insert(k.into(), val);
    }
    v
}

fn comment_json(base: &str, c: &GhComment) -> Value {
    json!({
        "id": c.id, "node_id": format!("IC_{}", c.id),
        "url": format!("{base}/repos/{REPO}/issues/comments/{}", c.id),
        "html_url": format!("https://github.com/{REPO}/pull/{}#issuecomment-{}", c.issue, c.id),
        "issue_url": format!("{base}/repos/{REPO}/issues/{}", c.issue),
        "body": c.body, "user": user(&c.author), "created_at": TIME, "updated_at": TIME,
        "author_association": "NONE"
    })
}

fn issue_json(base: &str, d: &Data, i: &GhIssue) -> Value {
    let api = format!("{base}/repos/{REPO}/issues/{}", i.number);
    let kind = if i.is_pull_request { "pull" } else { "issues" };
    let labels: Vec<Value> = i
        .labels
        .iter()
        .enumerate()
        .map(|(n, l)| {
            json!({ "id": 100 + n, "node_id": format!("LA_{n}"),
                    "url": format!("{base}/repos/{REPO}/labels/{l}"), "name": l,
                    "description": null, "color": "d73a4a", "default": false })
        })
        .collect();
    let mut v = json!({
        "id": 5000 + i.number, "node_id": format!("I_{}", i.number), "url": api,
        "repository_url": format!("{base}/repos/{REPO}"),
        "labels_url": format!("{api}/labels{{/name}}"), "comments_url": format!("{api}/comments"),
        "events_url": format!("{api}/events"),
        "html_url": format!("https://github.com/{REPO}/{kind}/{}", i.number),
        "number": i.number, "state": i.state, "state_reason": i.state_reason,
        "title": i.title, "body": i.body, "user": user(&i.author), "labels": labels,
        "assignee": null, "assignees": [], "milestone": null, "locked": false,
        "active_lock_reason": null,
        "comments": d.comments.iter().filter(|c| c.issue == i.number).count(),
        "closed_at": if i.state == "closed" { json!(TIME) } else { Value::Null },
        "created_at": TIME, "updated_at": TIME, "author_association": "NONE"
    });
    if i.is_pull_request {
        let pr = format!("https://github.com/{REPO}/pull/{}", i.number);
        v["pull_request"] = json!({
            "url": format!("{base}/repos/{REPO}/pulls/{}", i.number), "html_url": pr,
            "diff_url": format!("{pr}.diff"), "patch_url": format!("{pr}.patch"), "merged_at": null
        });
    }
    v
}

/// One page of `items` with GitHub's `Link` header.
fn page(base: &str, path: &str, query: &[(String, String)], items: Vec<Value>) -> Answer {
    let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let per_page = get("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page = get("page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let last = items.len().div_ceil(per_page).max(1);
    let chunk: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    let link_to = |p: usize| {
        let mut q: Vec<String> = query
            .iter()
            .filter(|(k, _)| k != "page")
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    percent_encoding::utf8_percent_encode(v, percent_encoding::NON_ALPHANUMERIC)
                )
            })
            .collect();
        q.push(format!("page={p}"));
        format!("<{base}{path}?{}>", q.join("&"))
    };
    let link = (page < last).then(|| {
        format!(
            "{}; rel=\"next\", {}; rel=\"last\"",
            link_to(page + 1),
            link_to(last)
        )
    });
    (StatusCode::OK, Value::Array(chunk), link)
}

#[allow(clippy::too_many_arguments)]
fn behave(
    d: &mut Data,
    event: &Value,
    base: &str,
    login: &str,
    method: &Method,
    template: &str,
    params: &HashMap<String, String>,
    query: &[(String, String)],
    body: &Value,
) -> Answer {
    let number = params
        .get("issue_number")
        .and_then(|n| n.parse::<u64>().ok());
    let path = format!("/repos/{REPO}");
    match (method.as_str(), template) {
        ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments") => {
            let Some(n) = number.filter(|n| d.issues.iter().any(|i| i.number == *n)) else {
                return error(StatusCode::NOT_FOUND, "Not Found");
            };
            let items = d
                .comments
                .iter()
                .filter(|c| c.issue == n)
                .map(|c| comment_json(base, c))
                .collect();
            page(base, &format!("{path}/issues/{n}/comments"), query, items)
        }
        ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments") => {
            let Some(n) = number.filter(|n| d.issues.iter().any(|i| i.number == *n)) else {
                return error(StatusCode::NOT_FOUND, "Not Found");
            };
            let c = GhComment {
                id: d.next_comment,
                issue: n,
                body: body["body"].as_str().unwrap_or_default().to_owned(),
                author: login.to_owned(),
            };
            d.next_comment += 1;
            d.comments.push(c.clone());
            (StatusCode::CREATED, comment_json(base, &c), None)
        }
        ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}") => {
            let id = params.get("comment_id").and_then(|n| n.parse::<u64>().ok());
            let Some(c) = d.comments.iter_mut().find(|c| Some(c.id) == id) else {
                // The description lists only 200 and 422 here; GitHub answers 404 all the same.
                return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed");
            };
            c.body = body["body"].as_str().unwrap_or_default().to_owned();
            let c = c.clone();
            (StatusCode::OK, comment_json(base, &c), None)
        }
        ("GET", "/repos/{owner}/{repo}/issues") => {
            let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            let state = get("state").unwrap_or_else(|| "open".into());
            let labels: Vec<String> = get("labels")
                .map(|l| {
                    l.split(',')
                        .map(|x| x.trim().to_owned())
                        .filter(|x| !x.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            // Newest first, as GitHub sorts by default.
            let items = d
                .issues
                .iter()
                .rev()
                .filter(|i| state == "all" || i.state == state)
                .filter(|i| labels.iter().all(|l| i.labels.contains(l)))
                .map(|i| issue_json(base, d, i))
                .collect();
            page(base, &format!("{path}/issues"), query, items)
        }
        ("POST", "/repos/{owner}/{repo}/issues") => {
            let number = d.issues.iter().map(|i| i.number).max().unwrap_or(0) + 1;
            let labels = body["labels"]
                .as_array()
                .map(|ls| {
                    ls.iter()
                        .filter_map(|l| l.as_str().or_else(|| l["name"].as_str()))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let title = match &body["title"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let i = GhIssue {
                number,
                title,
                body: body["body"].as_str().unwrap_or_default().to_owned(),
                labels,
                state: "open".into(),
                state_reason: None,
                is_pull_request: false,
                author: login.to_owned(),
            };
            d.issues.push(i.clone());
            (StatusCode::CREATED, issue_json(base, d, &i), None)
        }
        ("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}") => {
            let Some(idx) = d.issues.iter().position(|i| Some(i.number) == number) else {
                return error(StatusCode::NOT_FOUND, "Not Found");
            };
            let i = &mut d.issues[idx];
            if let Some(t) = body["title"].as_str() {
                i.title = t.to_owned();
            }
            if let Some(b) = body["body"].as_str() {
                i.body = b.to_owned();
            }
            if let Some(st) = body["state"].as_str().filter(|st| *st != i.state) {
                let default = if st == "closed" {
                    "completed"
                } else {
                    "reopened"
                };
                i.state = st.to_owned();
                i.state_reason = Some(body["state_reason"].as_str().unwrap_or(default).to_owned());
            }
            if let Some(ls) = body["labels"].as_array() {
                i.labels = ls
                    .iter()
                    .filter_map(|l| l.as_str().or_else(|| l["name"].as_str()))
                    .map(str::to_owned)
                    .collect();
            }
            let i = i.clone();
            (StatusCode::OK, issue_json(base, d, &i), None)
        }
        ("GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls") => {
            let sha = params.get("commit_sha").cloned().unwrap_or_default();
            let items = d
                .pulls
                .iter()
                .filter(|p| p.merge_commit_sha == sha || p.head_sha == sha)
                .map(|p| pull_json(event, p))
                .collect();
            page(base, &format!("{path}/commits/{sha}/pulls"), query, items)
        }
        ("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs") => {
            let workflow = params.get("workflow_id").cloned().unwrap_or_default();
            let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            let runs: Vec<Value> = d
                .runs
                .iter()
                .rev()
                .filter(|r| r.workflow_file == workflow)
                .filter(|r| get("event").is_none_or(|e| e == r.event))
                .filter(|r| get("head_sha").is_none_or(|h| h == r.head_sha))
                .filter(|r| get("status").is_none_or(|s| s == r.conclusion || s == "completed"))
                .map(|r| run_json(event, base, r))
                .collect();
            let total = runs.len();
            let (status, list, link) = page(
                base,
                &format!("{path}/actions/workflows/{workflow}/runs"),
                query,
                runs,
            );
            (
                status,
                json!({ "total_count": total, "workflow_runs": list }),
                link,
            )
        }
        ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files") => {
            let n = params
                .get("pull_number")
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_default();
            let Some(files) = d.pull_files.get(&n) else {
                return error(StatusCode::NOT_FOUND, "Not Found");
            };
            let items = files
                .iter()
                .map(|(name, status, previous)| {
                    let mut f = json!({
                        "sha": "bbcd538c8e72b8c175046e27cc8f907076331401",
                        "filename": name,
                        "status": status,
                        "additions": 1,
                        "deletions": 1,
                        "changes": 2,
                        "blob_url": format!("https://github.com/{REPO}/blob/x/{name}"),
                        "raw_url": format!("https://github.com/{REPO}/raw/x/{name}"),
                        "contents_url": format!("{base}{path}/contents/{name}"),
                    });
                    if let Some(p) = previous {
                        f["previous_filename"] = json!(p);
                    }
                    f
                })
                .collect();
            page(base, &format!("{path}/pulls/{n}/files"), query, items)
        }
        // An installation token has no user behind it: GitHub refuses to say who it is.
        ("GET", "/user") if login == BOT_LOGIN => error(
            StatusCode::FORBIDDEN,
            "Resource not accessible by integration",
        ),
        ("GET", "/user") => (StatusCode::OK, private_user(login), None),
        _ => error(StatusCode::NOT_FOUND, "Not Found"),
    }
}

/// A `pull-request-simple`, cut from the event payload's pull request.
fn pull_json(event: &Value, p: &GhPull) -> Value {
    let mut v = event["pull_request"].clone();
    let m = v.as_object_mut().expect("a pull request object");
    for k in [
        "merged",
        "mergeable",
        "rebaseable",
        "mergeable_state",
        "merged_by",
        "comments",
        "review_comments",
        "maintainer_can_modify",
        "commits",
        "additions",
        "deletions",
        "changed_files",
    ] {
        m.remove(k);
    }
    m.insert("number".into(), json!(p.number));
    m.insert("state".into(), json!("closed"));
    m.insert("merged_at".into(), json!(TIME));
    m.insert("closed_at".into(), json!(TIME));
    m.insert("merge_commit_sha".into(), json!(p.merge_commit_sha));
    m.insert("auto_merge".into(), Value::Null);
    v["head"]["sha"] = json!(p.head_sha);
    v
}

/// A `minimal-repository` named `full_name`, cut from the event payload's repository.
fn repository_json(event: &Value, full_name: &str) -> Value {
    let mut repo = event["repository"].clone();
    if full_name == REPO {
        return repo;
    }
    let (owner, name) = full_name.split_once('/').expect("OWNER/NAME");
    let api = format!("https://api.github.com/repos/{full_name}");
    repo["full_name"] = json!(full_name);
    repo["name"] = json!(name);
    repo["id"] = json!(186853003 + full_name.len());
    repo["node_id"] = json!(format!("R_{full_name}"));
    repo["fork"] = json!(true);
    repo["html_url"] = json!(format!("https://github.com/{full_name}"));
    repo["url"] = json!(api);
    repo["owner"] = user(owner);
    repo
}

/// A run's `pull_requests` entry, a `pull-request-minimal`.
fn run_pull_json(base: &str, r: &GhRun, number: u64, repo: &str) -> Value {
    let name = repo.split('/').nth(1).unwrap_or(repo);
    let repo_ref = json!({ "id": 186853002 + repo.len(), "url": format!("{base}/repos/{repo}"), "name": name });
    json!({
        "id": 191568743 + number, "number": number,
        "url": format!("{base}/repos/{repo}/pulls/{number}"),
        "head": { "ref": "changes", "sha": r.head_sha, "repo": repo_ref.clone() },
        "base": { "ref": "master", "sha": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "repo": repo_ref }
    })
}

/// A `workflow-run`, its repositories cut from the event payload's.
fn run_json(event: &Value, base: &str, r: &GhRun) -> Value {
    let repo = event["repository"].clone();
    let head_repo = repository_json(event, &r.head_repo);
    let pulls: Vec<Value> = r
        .pull_requests
        .iter()
        .map(|(n, repo)| run_pull_json(base, r, *n, repo))
        .collect();
    let url = format!("{base}/repos/{REPO}/actions/runs/{}", r.id);
    json!({
        "id": r.id, "name": "guild plan", "node_id": format!("WFR_{}", r.id),
        "head_branch": "changes", "head_sha": r.head_sha,
        "path": format!(".github/workflows/{}", r.workflow_file),
        "display_title": "Update the guild", "run_number": r.id - 8999, "run_attempt": 1,
        "event": r.event, "status": "completed", "conclusion": r.conclusion,
        "workflow_id": 161335, "url": url,
        "html_url": format!("https://github.com/{REPO}/actions/runs/{}", r.id),
        "pull_requests": pulls, "created_at": TIME, "updated_at": TIME,
        "jobs_url": format!("{url}/jobs"), "logs_url": format!("{url}/logs"),
        "check_suite_url": format!("{base}/repos/{REPO}/check-suites/1"),
        "artifacts_url": format!("{url}/artifacts"), "cancel_url": format!("{url}/cancel"),
        "rerun_url": format!("{url}/rerun"),
        "workflow_url": format!("{base}/repos/{REPO}/actions/workflows/161335"),
        "head_commit": {
            "id": r.head_sha, "tree_id": r.head_sha, "message": "Update the guild",
            "timestamp": TIME,
            "author": { "name": "Codertocat", "email": "codertocat@example.com" },
            "committer": { "name": "Codertocat", "email": "codertocat@example.com" }
        },
        "repository": repo, "head_repository": head_repo
    })
}
