//! `guildctl github ...` against a stand-in for GitHub's REST API that checks every
//! request and response against GitHub's OpenAPI description (tests/suite/common/github/):
//! the GitHub adapter's contract in one test, and what the subcommands do around the
//! flows (forks, failures, who guildctl is, digests, changed guilds). The flows (the drift
//! issue, the plan comment, the reviewed pick) are tested over an in-memory fake forge in
//! src/forge/tests.rs.

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

/// The GitHub adapter's contract: every operation the forge's flows ask of it
/// (`forge::Tracker`, `forge::Reviews`; the flows themselves are tested over the in-memory
/// fake in `forge::tests`), spoken to the stand-in that holds each request and answer to
/// GitHub's OpenAPI description: a pull request's comments read across pages, one
/// comment created, edited and left when current, a marker comment by someone else left
/// alone; the drift issue opened with its label, edited, commented on and closed as
/// completed; the reviewed plan run found past others' runs on a later page, and with
/// `--include-failed` among the finished ones.
#[tokio::test]
async fn the_github_adapter_speaks_githubs_rest_api() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ev = event("pull_request-opened");
    let run = |args: Vec<String>| {
        let (gh, ev) = (&gh, ev.clone());
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = github(gh, &ev, &args).await;
            assert_eq!(out.code, 0, "{}", out.stderr);
            out
        }
    };
    let args = |words: &[&str], file: &Path| {
        let mut a: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        a.extend(["--body-file".into(), file.to_str().unwrap().to_owned()]);
        a
    };

    // The plan comment.
    for i in 0..150 {
        gh.add_comment(PR_NUMBER, &format!("comment {i}"));
    }
    let planted = "<!-- guildctl:plan:guild.yaml -->\nNo changes. Approve away.";
    let theirs = gh.add_comment(PR_NUMBER, planted);
    let plan = write(dir.path(), "plan.md", "### guildctl plan\n\n2 to create.\n");
    let comment = args(&["comment", "--marker", "plan:guild.yaml"], &plan);
    let out = run(comment.clone()).await;
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 152);
    let ours = comments.last().unwrap().clone();
    assert_eq!(ours.author, BOT_LOGIN);
    assert_eq!(
        ours.body,
        "<!-- guildctl:plan:guild.yaml -->\n### guildctl plan\n\n2 to create.\n"
    );
    assert_eq!(
        out.stdout,
        format!(
            "https://github.com/{REPO}/pull/{PR_NUMBER}#issuecomment-{}\n",
            ours.id
        )
    );
    for line in [
        "guildctl writes on GitHub as github-actions[bot] (an installation token".to_owned(),
        format!(
            "Left alone: comment {theirs} by {OTHER_LOGIN} carries guildctl's marker, but guildctl writes as {BOT_LOGIN}."
        ),
        format!("Commented on #{PR_NUMBER}: https://github.com/"),
    ] {
        assert!(out.stderr.contains(&line), "{line}\n{}", out.stderr);
    }
    assert!(
        gh.requests().iter().any(|r| r.path.contains("page=2")),
        "the comments' second page was read"
    );
    std::fs::write(&plan, "### guildctl plan\n\n1 to update.\n").unwrap();
    let out = run(comment.clone()).await;
    assert!(
        out.stderr
            .contains(&format!("Updated the comment on #{PR_NUMBER}")),
        "{}",
        out.stderr
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 152, "edited in place");
    assert!(comments[151].body.ends_with("1 to update.\n"));
    assert_eq!(comments[150].body, planted);
    let writes = gh.writes().len();
    let out = run(comment).await;
    assert!(out.stderr.contains("already current"), "{}", out.stderr);
    assert_eq!(
        gh.writes().len(),
        writes,
        "an unchanged comment writes nothing"
    );

    // The drift issue.
    let report = write(
        dir.path(),
        "drift.md",
        "### guildctl drift report\n\n1 to update.\n",
    );
    let drift = |drifted: &str| {
        let mut a = args(&["drift-issue", "--marker", "drift:guild.yaml"], &report);
        a.extend(["--drifted".into(), drifted.into()]);
        a
    };
    let ours = |gh: &FakeGitHub| {
        gh.issues()
            .into_iter()
            .filter(|i| i.body.contains("guildctl:drift:guild.yaml"))
            .collect::<Vec<_>>()
    };
    let out = run(drift("true")).await;
    let opened = ours(&gh);
    assert_eq!(opened.len(), 1);
    assert_eq!(
        (opened[0].labels.as_slice(), opened[0].state.as_str()),
        (&["guildctl-drift".to_owned()][..], "open")
    );
    assert_eq!(
        out.stdout,
        format!("https://github.com/{REPO}/issues/{}\n", opened[0].number)
    );
    std::fs::write(&report, "### guildctl drift report\n\n2 to update.\n").unwrap();
    let out = run(drift("true")).await;
    assert!(
        out.stderr.contains("Updated drift issue #"),
        "{}",
        out.stderr
    );
    assert!(ours(&gh)[0].body.ends_with("2 to update.\n"));
    let out = run(drift("false")).await;
    assert!(
        out.stderr.contains("Closed drift issue #"),
        "{}",
        out.stderr
    );
    let closed = &ours(&gh)[0];
    assert_eq!(
        (closed.state.as_str(), closed.state_reason.as_deref()),
        ("closed", Some("completed"))
    );
    let said = gh.comments(closed.number);
    assert_eq!(said.len(), 1);
    assert!(
        said[0].body.contains("matches its manifest again ([run 4242](https://github.com/Codertocat/Hello-World/actions/runs/4242))"),
        "{}",
        said[0].body
    );
    // The pull request and the unrelated issue were never touched.
    for i in gh.issues().iter().filter(|i| i.number <= 2) {
        assert_eq!(i.state, "open");
        assert!(!i.body.contains("guildctl"), "{i:?}");
    }

    // The reviewed plan run: the pull request's own, past 100 newer runs of pull request
    // #9 with the same head and a fork's run, on the second page.
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    let merge = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
    let wf = "guild-plan.yml";
    gh.merge_pull(PR_NUMBER, head, merge);
    let mine = vec![(PR_NUMBER, REPO.to_owned())];
    let own = gh.add_run_with(wf, head, "pull_request", "success", mine.clone(), REPO);
    for _ in 0..100 {
        gh.add_run_with(
            wf,
            head,
            "pull_request",
            "success",
            vec![(9, REPO.to_owned())],
            REPO,
        );
    }
    let fork = gh.add_run_with(
        wf,
        head,
        "pull_request",
        "success",
        mine.clone(),
        "mallory/Hello-World",
    );
    let reviewed = |extra: &[&str]| {
        let mut a: Vec<String> = ["reviewed-plan", "--workflow", wf, "--sha", merge]
            .iter()
            .map(|w| w.to_string())
            .collect();
        a.extend(extra.iter().map(|w| w.to_string()));
        a
    };
    let out = run(reviewed(&[])).await;
    assert_eq!(
        out.stdout,
        format!("pull-request={PR_NUMBER}\nhead-sha={head}\nrun-id={own}\n")
    );
    for line in [
        format!("Passed over: run {fork} came from fork mallory/Hello-World."),
        "Passed over 81 more runs.".to_owned(),
        format!("Pull request #{PR_NUMBER} (head {head}): plan run {own}."),
    ] {
        assert!(out.stderr.contains(&line), "{line}\n{}", out.stderr);
    }
    assert!(
        gh.requests()
            .iter()
            .any(|r| r.path.contains("/runs?") && r.path.contains("page=2")),
        "the runs' second page was read"
    );
    // A workspace's failed plan run counts with --include-failed, never a cancelled one.
    let failed = gh.add_run_with(wf, head, "pull_request", "failure", mine.clone(), REPO);
    let cancelled = gh.add_run_with(wf, head, "pull_request", "cancelled", mine, REPO);
    let out = run(reviewed(&["--include-failed"])).await;
    assert!(
        out.stdout.ends_with(&format!("run-id={failed}\n")),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(&format!(
            "Passed over: run {cancelled} concluded cancelled."
        )),
        "{}",
        out.stderr
    );
    assert!(
        gh.requests()
            .iter()
            .any(|r| r.path.contains("status=completed"))
    );
    // A direct push merged no pull request: empty values, still a success.
    let out = github(
        &gh,
        &ev,
        &[
            "reviewed-plan",
            "--workflow",
            wf,
            "--sha",
            "0123456789abcdef",
        ],
    )
    .await;
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "pull-request=\nhead-sha=\nrun-id=\n")
    );
    gh.assert_conforms();
}

/// Who guildctl is on GitHub (docs/github.md, "Whose comment is it"): an installation
/// token is taken for `github-actions[bot]`, a person's token is that person's
/// (`GET /user`), a given author is taken without asking, and a comment GitHub wrote as
/// another login than the given one is warned about at once.
#[tokio::test]
async fn guildctl_learns_its_login_from_author_or_github() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ev = event("pull_request-opened");
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
        out.stderr
            .contains("writes on GitHub as github-actions[bot]"),
        "{}",
        out.stderr
    );

    // With a person's token, GitHub names the person, and the Actions bot's comment is
    // not theirs: a second comment, by the person.
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
    assert_eq!(comments.len(), 2);
    assert_eq!(
        (comments[0].author.as_str(), comments[1].author.as_str()),
        (BOT_LOGIN, USER_LOGIN)
    );

    // An author given (the Action gives it for its own token) is taken without asking
    // GitHub; one GitHub does not write as is warned about at once.
    let users = |gh: &FakeGitHub| gh.requests().iter().filter(|r| r.path == "/user").count();
    let asked = users(&gh);
    std::fs::write(&body, "### guildctl plan\n\n5 to delete.\n").unwrap();
    let out = github_with(&gh, &ev, &args, &[("GUILDCTL_GITHUB_AUTHOR", BOT_LOGIN)]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(users(&gh), asked, "no GET /user");
    assert!(gh.comments(PR_NUMBER)[0].body.ends_with("5 to delete.\n"));
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
