//! `guildctl github ...` against a stand-in for GitHub's REST API that checks every
//! request and response against GitHub's OpenAPI description (tests/suite/common/github.rs).

use crate::common;

use std::path::{Path, PathBuf};

use common::github::{BOT_LOGIN, FakeGitHub, OTHER_LOGIN, PR_NUMBER, REPO, USER_LOGIN};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn event(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(format!("github-event-{name}.json"))
}

async fn github(gh: &FakeGitHub, event_path: &Path, args: &[&str]) -> Out {
    github_with(gh, event_path, args, &[]).await
}

/// `github`, with variables set over the runner's (another token, an author).
async fn github_with(
    gh: &FakeGitHub,
    event_path: &Path,
    args: &[&str],
    vars: &[(&str, &str)],
) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
    cmd.arg("github").args(args);
    for (k, v) in gh.env() {
        cmd.env(k, v);
    }
    cmd.env_remove("GUILDCTL_GITHUB_AUTHOR");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd
        .env("GITHUB_EVENT_PATH", event_path)
        .env("GITHUB_EVENT_NAME", "pull_request")
        .output()
        .await
        .expect("guildctl runs");
    let out = Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    for token in [&gh.token, &gh.user_token] {
        assert!(
            !out.stdout.contains(token.as_str()) && !out.stderr.contains(token.as_str()),
            "a token was printed"
        );
    }
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[tokio::test]
async fn a_pull_request_gets_one_plan_comment_kept_current() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let opened = event("pull_request-opened");
    gh.add_comment(PR_NUMBER, "LGTM, but see the plan");
    let first = write(dir.path(), "a.md", "### guildctl plan\n\n2 to create.\n");
    let args = ["comment", "--marker", "plan:guild.yaml", "--body-file"];

    let out = github(
        &gh,
        &opened,
        &[&args[..], &[first.to_str().unwrap()]].concat(),
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2);
    let ours = &comments[1];
    assert!(
        ours.body
            .starts_with("<!-- guildctl:plan:guild.yaml -->\n### guildctl plan"),
        "{}",
        ours.body
    );
    assert_eq!(
        out.stdout.trim(),
        format!(
            "https://github.com/{REPO}/pull/{PR_NUMBER}#issuecomment-{}",
            ours.id
        )
    );

    // A second push: the same comment says the new plan.
    let second = write(dir.path(), "b.md", "### guildctl plan\n\n1 to update.\n");
    let synced = event("pull_request-synchronize");
    let out = github(
        &gh,
        &synced,
        &[&args[..], &[second.to_str().unwrap()]].concat(),
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2, "still one plan comment");
    assert_eq!(comments[1].id, ours.id);
    assert!(comments[1].body.ends_with("1 to update.\n"));
    assert!(out.stderr.contains("Updated the comment"), "{}", out.stderr);

    // Nothing new: nothing is written.
    let writes = gh.writes().len();
    let out = github(
        &gh,
        &synced,
        &[&args[..], &[second.to_str().unwrap()]].concat(),
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gh.writes().len(), writes);

    // Another manifest has its own comment.
    let out = github(
        &gh,
        &synced,
        &[
            "comment",
            "--marker",
            "plan:staging/guild.yaml",
            "--body-file",
            second.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gh.comments(PR_NUMBER).len(), 3);
    gh.assert_conforms();
}

#[tokio::test]
async fn the_comment_is_found_past_the_first_page() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let opened = event("pull_request-opened");
    let body = write(dir.path(), "a.md", "plan one");
    let args = [
        "comment",
        "--marker",
        "plan:guild.yaml",
        "--body-file",
        body.to_str().unwrap(),
    ];
    for i in 0..150 {
        gh.add_comment(PR_NUMBER, &format!("comment {i}"));
    }
    assert_eq!(github(&gh, &opened, &args).await.code, 0);
    std::fs::write(&body, "plan two").unwrap();
    let out = github(&gh, &opened, &args).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ours: Vec<_> = gh
        .comments(PR_NUMBER)
        .into_iter()
        .filter(|c| c.body.contains("guildctl:plan"))
        .collect();
    assert_eq!(ours.len(), 1, "found on page 2, not posted twice");
    assert!(ours[0].body.ends_with("plan two"));
    assert!(
        gh.requests().iter().any(|r| r.path.contains("page=2")),
        "the second page was read"
    );
    gh.assert_conforms();
}

#[tokio::test]
async fn drift_opens_updates_and_closes_one_labelled_issue() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ev = event("pull_request-opened");
    let report = write(
        dir.path(),
        "drift.md",
        "### guildctl drift report\n\n1 to update.\n",
    );
    let drift = |drifted: &'static str| {
        vec![
            "drift-issue".to_owned(),
            "--marker".into(),
            "drift:guild.yaml".into(),
            "--body-file".into(),
            report.to_str().unwrap().to_owned(),
            "--drifted".into(),
            drifted.into(),
        ]
    };
    let run = |args: Vec<String>| {
        let gh = &gh;
        let ev = ev.clone();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            github(gh, &ev, &args).await
        }
    };
    let ours = |gh: &FakeGitHub| {
        gh.issues()
            .into_iter()
            .filter(|i| i.body.contains("guildctl:drift:guild.yaml"))
            .collect::<Vec<_>>()
    };

    // No drift and no issue: nothing at all is written.
    let out = run(drift("false")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(gh.writes().is_empty());
    assert_eq!(out.stdout, "");

    let out = run(drift("true")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let issues = ours(&gh);
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].labels, ["guildctl-drift"]);
    assert_eq!(issues[0].state, "open");
    assert_eq!(
        out.stdout.trim(),
        format!("https://github.com/{REPO}/issues/{}", issues[0].number)
    );

    // Still drifted, with a different report: the same issue says it.
    std::fs::write(&report, "### guildctl drift report\n\n2 to update.\n").unwrap();
    let out = run(drift("true")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let again = ours(&gh);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].number, issues[0].number);
    assert!(again[0].body.ends_with("2 to update.\n"));
    let writes = gh.writes().len();
    assert_eq!(run(drift("true")).await.code, 0);
    assert_eq!(
        gh.writes().len(),
        writes,
        "an unchanged report writes nothing"
    );

    // The guild matches again: a comment, then the issue closes as completed.
    std::fs::write(&report, "No changes: the guild matches the manifest.\n").unwrap();
    let out = run(drift("false")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let closed = ours(&gh);
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].state, "closed");
    assert_eq!(closed[0].state_reason.as_deref(), Some("completed"));
    let comments = gh.comments(closed[0].number);
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0]
            .body
            .contains("matches its manifest again ([run 4242](https://github.com/Codertocat/Hello-World/actions/runs/4242))"),
        "{}",
        comments[0].body
    );

    // Drift again later: a new issue, the closed one stays closed.
    let out = run(drift("true")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let all = ours(&gh);
    assert_eq!(all.len(), 2);
    assert_eq!(all.iter().filter(|i| i.state == "open").count(), 1);

    // The pull request and the unrelated issue were never touched.
    for i in gh.issues().iter().filter(|i| i.number <= 2) {
        assert_eq!(i.state, "open");
        assert!(!i.body.contains("guildctl"), "{i:?}");
    }
    gh.assert_conforms();
}

#[tokio::test]
async fn pull_requests_from_forks_are_not_commented_on() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ev: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(event("pull_request-opened")).unwrap())
            .unwrap();
    ev["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World".into();
    let ev_path = write(dir.path(), "event.json", &ev.to_string());
    let body = write(dir.path(), "a.md", "plan");
    let out = github(
        &gh,
        &ev_path,
        &[
            "comment",
            "--marker",
            "plan:guild.yaml",
            "--body-file",
            body.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("::notice::"), "{}", out.stderr);
    assert!(out.stderr.contains("fork"), "{}", out.stderr);
    assert!(
        gh.requests().is_empty(),
        "a read-only token is not even tried"
    );
}

#[tokio::test]
async fn failures_say_what_github_said_and_never_print_the_token() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let body = write(dir.path(), "a.md", "plan");
    let args = [
        "comment",
        "--marker",
        "plan:guild.yaml",
        "--body-file",
        body.to_str().unwrap(),
    ];

    let wrong = "ghs_theWrongTokenXYZ";
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .arg("github")
        .args(args)
        .envs(gh.env())
        .env("GITHUB_TOKEN", wrong)
        .env("GITHUB_EVENT_PATH", event("pull_request-opened"))
        .env("GITHUB_EVENT_NAME", "pull_request")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("401") && stderr.contains("Bad credentials"),
        "{stderr}"
    );
    assert!(!stderr.contains(wrong) && !String::from_utf8_lossy(&out.stdout).contains(wrong));
    let sent = gh.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].authorization.as_deref(),
        Some(&*format!("Bearer {wrong}"))
    );

    // Not a pull request's event, and no --pr: said plainly, nothing sent.
    let push = write(dir.path(), "push.json", r#"{"ref": "refs/heads/main"}"#);
    let out = github(&gh, &push, &args).await;
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("not about a pull request"),
        "{}",
        out.stderr
    );
    assert_eq!(gh.requests().len(), 1);

    // A pull request that does not exist: GitHub's 404, with a hint.
    let out = github(&gh, &push, &[&args[..], &["--pr", "99"]].concat()).await;
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("404"), "{}", out.stderr);
    gh.assert_conforms();
}

#[tokio::test]
async fn a_plans_digest_is_its_changes_digest_or_the_files() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let digest = |p: &Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
            .args(["github", "plan-digest"])
            .arg(p)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        )
    };
    let old = write(dir.path(), "old.json", "{\"format\": 1, \"changes\": []}\n");
    let hex: String = Sha256::digest(std::fs::read(&old).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest(&old), (Some(0), hex));
    let new = write(
        dir.path(),
        "new.json",
        "{\"format\": 2, \"changes_sha256\": \"abc123\", \"changes\": []}\n",
    );
    assert_eq!(digest(&new), (Some(0), "abc123".to_owned()));
    let bad = write(dir.path(), "bad.json", "not json");
    assert_eq!(digest(&bad).0, Some(1));
}

/// The stand-in itself: what GitHub's description refuses, it records as a violation,
/// so the tests above would see a request guildctl got wrong.
#[tokio::test]
async fn the_stand_in_holds_requests_to_githubs_description() {
    let gh = FakeGitHub::start().await;
    let http = reqwest::Client::new();
    let send = |method: reqwest::Method, path: &str| {
        http.request(method, format!("{}{path}", gh.api_url))
            .header("User-Agent", "test")
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .bearer_auth(&gh.token)
    };
    let r = send(
        reqwest::Method::POST,
        &format!("/repos/{REPO}/issues/2/comments"),
    )
    .json(&serde_json::json!({ "body": 5 }))
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 422);
    let r = send(
        reqwest::Method::GET,
        &format!("/repos/{REPO}/issues?colour=red"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    let r = send(reqwest::Method::DELETE, &format!("/repos/{REPO}/issues/2"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v = gh.violations();
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(v[0].contains("body:"), "{}", v[0]);
    assert!(
        v[1].contains("undeclared query parameter colour"),
        "{}",
        v[1]
    );
    assert!(v[2].contains("no such operation"), "{}", v[2]);
    // And a conforming request passes, its answer validated too.
    let r = send(
        reqwest::Method::GET,
        &format!("/repos/{REPO}/issues?state=all&per_page=1"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("link").is_some(), "two issues, one a page");
    assert_eq!(gh.violations().len(), 3);
}

#[tokio::test]
async fn the_reviewed_plan_is_the_plan_run_for_the_merged_pull_requests_head() {
    let gh = FakeGitHub::start().await;
    let ev = event("pull_request-opened");
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    let merge = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
    gh.merge_pull(PR_NUMBER, head, merge);
    gh.add_run("guild-plan.yml", head, "pull_request", "failure");
    let reviewed = gh.add_run("guild-plan.yml", head, "pull_request", "success");
    gh.add_run("other.yml", head, "pull_request", "success");
    gh.add_run("guild-plan.yml", "abcdef0123", "pull_request", "success");
    let args = |sha: &'static str| {
        [
            "reviewed-plan",
            "--workflow",
            "guild-plan.yml",
            "--sha",
            sha,
        ]
    };

    let out = github(&gh, &ev, &args(merge)).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("pull-request={PR_NUMBER}\nhead-sha={head}\nrun-id={reviewed}\n")
    );

    // A direct push merged no pull request: empty values, still a success.
    let out = github(&gh, &ev, &args("0123456789abcdef")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "pull-request=\nhead-sha=\nrun-id=\n");

    // A merged pull request whose plan never succeeded: no run.
    gh.merge_pull(7, "3333333333", "4444444444");
    let out = github(&gh, &ev, &args("4444444444")).await;
    assert_eq!(out.stdout, "pull-request=7\nhead-sha=3333333333\nrun-id=\n");
    assert!(
        out.stderr.contains("no successful guild-plan.yml run"),
        "{}",
        out.stderr
    );

    // Not a sha: refused before any request.
    let sent = gh.requests().len();
    let out = github(&gh, &ev, &args("main/../x")).await;
    assert_eq!(out.code, 1);
    assert_eq!(gh.requests().len(), sent);
    gh.assert_conforms();
}

/// A run for the merged pull request's head is the reviewed plan only when GitHub lists
/// it as that pull request's own and it ran from this repository: not a run of another
/// pull request with the same head, not a run from a fork, not a run listing another
/// repository's pull request of the same number. The right one is found past newer
/// ones, on a later page.
#[tokio::test]
async fn the_reviewed_plan_run_belongs_to_the_merged_pull_request_and_this_repository() {
    let gh = FakeGitHub::start().await;
    let ev = event("pull_request-opened");
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    let merge = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
    gh.merge_pull(PR_NUMBER, head, merge);
    let ours = vec![(PR_NUMBER, REPO.to_owned())];
    let wf = "guild-plan.yml";
    let own = gh.add_run_with(wf, head, "pull_request", "success", ours.clone(), REPO);
    // Newer, and each with the same head: 100 runs of pull request #9 (a page's worth),
    // then a fork's run that even lists #2, and a run of another repository's #2.
    let mut others = Vec::new();
    for _ in 0..100 {
        others.push(gh.add_run_with(
            wf,
            head,
            "pull_request",
            "success",
            vec![(9, REPO.to_owned())],
            REPO,
        ));
    }
    let fork = gh.add_run_with(
        wf,
        head,
        "pull_request",
        "success",
        ours,
        "mallory/Hello-World",
    );
    let elsewhere = gh.add_run_with(
        wf,
        head,
        "pull_request",
        "success",
        vec![(PR_NUMBER, "mallory/Other".to_owned())],
        REPO,
    );
    let args = ["reviewed-plan", "--workflow", wf, "--sha", merge];

    let out = github(&gh, &ev, &args).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("pull-request={PR_NUMBER}\nhead-sha={head}\nrun-id={own}\n")
    );
    for line in [
        format!(
            "Passed over: run {elsewhere} is for pull request #{PR_NUMBER} of another repository."
        ),
        format!("Passed over: run {fork} came from fork mallory/Hello-World."),
        format!("Passed over: run {} is for pull request #9.", others[99]),
        "Passed over 82 more runs.".to_owned(),
    ] {
        assert!(out.stderr.contains(&line), "{line}\n{}", out.stderr);
    }
    assert!(
        gh.requests()
            .iter()
            .any(|r| r.path.contains("/runs?") && r.path.contains("page=2")),
        "the second page of runs was read"
    );

    // A merged pull request with only others' runs for its head: no reviewed plan, and
    // the message says why each was passed over.
    let (head2, merge2) = ("3333333333", "4444444444");
    gh.merge_pull(7, head2, merge2);
    let nine = gh.add_run_with(
        wf,
        head2,
        "pull_request",
        "success",
        vec![(9, REPO.to_owned())],
        REPO,
    );
    let forked = gh.add_run_with(
        wf,
        head2,
        "pull_request",
        "success",
        vec![],
        "mallory/Hello-World",
    );
    let out = github(
        &gh,
        &ev,
        &["reviewed-plan", "--workflow", wf, "--sha", merge2],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("pull-request=7\nhead-sha={head2}\nrun-id=\n")
    );
    assert!(
        out.stderr
            .contains(&format!("run {nine} is for pull request #9"))
            && out
                .stderr
                .contains(&format!("run {forked} came from fork mallory/Hello-World"))
            && out
                .stderr
                .contains("no successful guild-plan.yml run of its own"),
        "{}",
        out.stderr
    );
    gh.assert_conforms();
}

/// Anyone can write guildctl's marker into a comment. Only a comment the token's own
/// identity wrote is edited: a marker comment by someone else is left as it is, and
/// guildctl's own comment is created beside it, then kept current.
#[tokio::test]
async fn a_marker_comment_by_someone_else_is_left_alone() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ev = event("pull_request-opened");
    let planted =
        "<!-- guildctl:plan:guild.yaml -->\n### guildctl plan\n\nNo changes. Approve away.";
    let theirs = gh.add_comment(PR_NUMBER, planted);
    let body = write(dir.path(), "a.md", "### guildctl plan\n\n3 to delete.\n");
    let args = [
        "comment",
        "--marker",
        "plan:guild.yaml",
        "--body-file",
        body.to_str().unwrap(),
    ];

    let out = github(&gh, &ev, &args).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "Left alone: comment {theirs} by {OTHER_LOGIN} carries guildctl's marker"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("writes on GitHub as github-actions[bot]"),
        "{}",
        out.stderr
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!(
        (comments[0].id, comments[0].body.as_str()),
        (theirs, planted)
    );
    assert_eq!(comments[1].author, BOT_LOGIN);
    assert!(comments[1].body.ends_with("3 to delete.\n"));
    assert!(
        !gh.writes()
            .iter()
            .any(|w| w.path.ends_with(&format!("/comments/{theirs}"))),
        "the planted comment was never written to"
    );

    // The next push updates guildctl's comment, still not theirs.
    std::fs::write(&body, "### guildctl plan\n\n4 to delete.\n").unwrap();
    let out = github(&gh, &ev, &args).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2);
    assert_eq!(comments[0].body, planted);
    assert!(comments[1].body.ends_with("4 to delete.\n"));

    // With a person's token, GitHub names the person, and the Actions bot's comment is
    // not theirs either: a third comment, by the person.
    let out = github_with(&gh, &ev, &args, &[("GITHUB_TOKEN", &gh.user_token)]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "writes on GitHub as {USER_LOGIN} (the token's user)"
        )),
        "{}",
        out.stderr
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 3);
    assert_eq!(comments[2].author, USER_LOGIN);
    assert!(
        comments[1].body.ends_with("4 to delete.\n"),
        "the bot's comment is untouched"
    );

    // An author given (the Action gives it for its own token) is taken without asking
    // GitHub; one GitHub does not write as is warned about at once.
    let users = |gh: &FakeGitHub| gh.requests().iter().filter(|r| r.path == "/user").count();
    let asked = users(&gh);
    std::fs::write(&body, "### guildctl plan\n\n5 to delete.\n").unwrap();
    let out = github_with(&gh, &ev, &args, &[("GUILDCTL_GITHUB_AUTHOR", BOT_LOGIN)]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(users(&gh), asked, "no GET /user");
    assert!(gh.comments(PR_NUMBER)[1].body.ends_with("5 to delete.\n"));
    let out = github_with(
        &gh,
        &ev,
        &[&args[..], &["--author", "my-app[bot]"]].concat(),
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("::warning::guildctl: GitHub wrote this comment as github-actions[bot], not as my-app[bot]"),
        "{}",
        out.stderr
    );
    let out = github_with(&gh, &ev, &[&args[..], &["--author", "a b"]].concat(), &[]).await;
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("is not a GitHub login"),
        "{}",
        out.stderr
    );
    gh.assert_conforms();
}

/// The same for drift issues: an open, labelled issue with guildctl's marker that
/// someone else opened is neither updated nor closed; guildctl opens its own.
#[tokio::test]
async fn a_drift_issue_opened_by_someone_else_is_left_alone() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ev = event("pull_request-opened");
    let planted = "<!-- guildctl:drift:guild.yaml -->\nAll good, close me.";
    let theirs = gh.add_issue_by(OTHER_LOGIN, "guildctl: drift", planted, &["guildctl-drift"]);
    let report = write(
        dir.path(),
        "drift.md",
        "### guildctl drift report\n\n1 to update.\n",
    );
    let args = |drifted: &'static str| {
        vec![
            "drift-issue".to_owned(),
            "--marker".into(),
            "drift:guild.yaml".into(),
            "--body-file".into(),
            report.to_str().unwrap().to_owned(),
            "--drifted".into(),
            drifted.into(),
        ]
    };
    let run = |a: Vec<String>| {
        let (gh, ev) = (&gh, ev.clone());
        async move {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            github(gh, &ev, &a).await
        }
    };
    let planted_issue = |gh: &FakeGitHub| {
        gh.issues()
            .into_iter()
            .find(|i| i.number == theirs)
            .unwrap()
    };

    // No drift: their issue is not closed (nothing is written at all).
    let out = run(args("false")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(gh.writes().is_empty(), "{:?}", gh.writes());
    assert!(
        out.stderr
            .contains(&format!("Left alone: issue {theirs} by {OTHER_LOGIN}")),
        "{}",
        out.stderr
    );

    // Drift: a new issue by guildctl, theirs untouched.
    let out = run(args("true")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ours: Vec<_> = gh
        .issues()
        .into_iter()
        .filter(|i| i.author == BOT_LOGIN)
        .collect();
    assert_eq!(ours.len(), 1);
    assert_ne!(ours[0].number, theirs);
    assert!(ours[0].body.ends_with("1 to update.\n"));
    let p = planted_issue(&gh);
    assert_eq!((p.state.as_str(), p.body.as_str()), ("open", planted));

    // Drift ends: guildctl closes its own issue, and only that one.
    let out = run(args("false")).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let closed = gh
        .issues()
        .into_iter()
        .find(|i| i.number == ours[0].number)
        .unwrap();
    assert_eq!(closed.state, "closed");
    let p = planted_issue(&gh);
    assert_eq!((p.state.as_str(), p.body.as_str()), ("open", planted));
    assert!(gh.comments(theirs).is_empty());
    assert!(
        !gh.writes()
            .iter()
            .any(|w| w.path.contains(&format!("/issues/{theirs}"))),
        "the planted issue was never written to"
    );
    gh.assert_conforms();
}

/// `changed-guilds` counts every file a manifest reads as that guild's (issue 30, point 5):
/// an image or an avatar a single-file manifest names, as much as the manifest itself and
/// its bases, so a pull request that changes only an image is planned and commented.
#[tokio::test]
async fn changed_guilds_names_the_guild_whose_image_or_avatar_changed() {
    let gh = FakeGitHub::start().await;
    let opened = event("pull_request-opened");
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join("guilds/images")).unwrap();
    std::fs::write(root.join("guilds/images/a-icon.png"), b"\x89PNG\r\n\x1a\na").unwrap();
    std::fs::write(root.join("guilds/images/b-hook.png"), b"\x89PNG\r\n\x1a\nb").unwrap();
    write(root, "base.yaml", "version: 1\nroles:\n  - name: Member\n");
    write(
        root,
        "guilds/a.yaml",
        "version: 1\nextends: ../base.yaml\nsettings:\n  icon: images/a-icon.png\n",
    );
    write(
        root,
        "guilds/b.yaml",
        "version: 1\nwebhooks:\n  - { name: CI, channel: general, avatar: ./images/b-hook.png }\n",
    );
    write(root, "guilds/c.yaml", "version: 1\nextends: ../base.yaml\n");
    write(
        root,
        "guildctl.yaml",
        "guilds:\n  a: { id: \"81384788765712384\", manifest: guilds/a.yaml }\n  b: { id: \"81384788765712385\", manifest: guilds/b.yaml }\n  c: { id: \"81384788765712386\", manifest: guilds/c.yaml }\n",
    );
    let root_arg = root.to_str().unwrap();
    let pr = PR_NUMBER.to_string();
    let args = ["changed-guilds", "--pr", &pr, "--repo-root", root_arg];
    for (files, guilds, why) in [
        (
            vec![("guilds/images/a-icon.png", "modified")],
            "a",
            "Guild a is touched: guilds/images/a-icon.png is an image its manifest names.",
        ),
        (
            vec![("guilds/images/b-hook.png", "removed")],
            "b",
            "Guild b is touched: guilds/images/b-hook.png is an image its manifest names.",
        ),
        (
            vec![("guilds/images/new.png", "renamed guilds/images/a-icon.png")],
            "a",
            "guilds/images/a-icon.png is an image its manifest names",
        ),
        (
            vec![("base.yaml", "modified")],
            "a,c",
            "Guild c is touched: base.yaml is one of its manifest's files.",
        ),
        (
            vec![("guilds/images/unused.png", "added")],
            "",
            "changes no guild",
        ),
    ] {
        gh.set_pull_files(PR_NUMBER, &files);
        let out = github(&gh, &opened, &args).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout.trim_end(), guilds, "{files:?}: {}", out.stderr);
        assert!(out.stderr.contains(why), "{files:?}: {}", out.stderr);
    }
    gh.assert_conforms();
}

/// A workspace's plan run fails when one guild's plan does, and saves the others' plans:
/// with --include-failed the pull request's own failed run counts (the newest that
/// finished), never a cancelled one; without it only a successful run does.
#[tokio::test]
async fn a_failed_plan_run_counts_only_with_include_failed() {
    let gh = FakeGitHub::start().await;
    let ev = event("pull_request-opened");
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    let merge = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
    gh.merge_pull(PR_NUMBER, head, merge);
    let ours = vec![(PR_NUMBER, REPO.to_owned())];
    let wf = "guild-plan.yml";
    let succeeded = gh.add_run_with(wf, head, "pull_request", "success", ours.clone(), REPO);
    let failed = gh.add_run_with(wf, head, "pull_request", "failure", ours.clone(), REPO);
    let cancelled = gh.add_run_with(wf, head, "pull_request", "cancelled", ours, REPO);
    let strict = github(
        &gh,
        &ev,
        &["reviewed-plan", "--workflow", wf, "--sha", merge],
    )
    .await;
    assert_eq!(strict.code, 0, "{}", strict.stderr);
    assert!(
        strict.stdout.ends_with(&format!("run-id={succeeded}\n")),
        "{}",
        strict.stdout
    );
    let workspace = github(
        &gh,
        &ev,
        &[
            "reviewed-plan",
            "--workflow",
            wf,
            "--sha",
            merge,
            "--include-failed",
        ],
    )
    .await;
    assert_eq!(workspace.code, 0, "{}", workspace.stderr);
    assert!(
        workspace.stdout.ends_with(&format!("run-id={failed}\n")),
        "{}\n{}",
        workspace.stdout,
        workspace.stderr
    );
    assert!(
        workspace.stderr.contains(&format!(
            "Passed over: run {cancelled} concluded cancelled."
        )),
        "{}",
        workspace.stderr
    );
    assert!(
        gh.requests()
            .iter()
            .any(|r| r.path.contains("status=completed")),
        "asked GitHub for every finished run"
    );
    gh.assert_conforms();
}
