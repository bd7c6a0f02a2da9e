//! Behaviour

use super::*;

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
pub(super) fn behave(
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
        ("GET", "/orgs/{org}/teams/{team_slug}/members") => {
            let org = params.get("org").map_or("", String::as_str);
            let slug = params.get("team_slug").map_or("", String::as_str);
            let key = format!("{org}/{slug}");
            // A team the token cannot see is a 404, as on GitHub.
            let Some(logins) = d.teams.get(&key) else {
                return error(StatusCode::NOT_FOUND, "Not Found");
            };
            let items = logins.iter().map(|l| user(l)).collect();
            page(
                base,
                &format!("/orgs/{org}/teams/{slug}/members"),
                query,
                items,
            )
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
