//! `guildctl gitlab ...` against a stand-in for GitLab's REST API v4 held to GitLab's
//! documented routes (tests/suite/common/gitlab.rs): one plan note per manifest kept current,
//! the drift issue's life, and the reviewed plan of a merged merge request.

use crate::common;

use std::path::{Path, PathBuf};

use common::gitlab::{BOT_USERNAME, FORK_ID, FakeGitLab, OTHER_USERNAME, PROJECT_ID, TOKEN};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn gitlab(gl: &FakeGitLab, args: &[&str], vars: &[(&str, &str)]) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
    cmd.arg("gitlab").args(args);
    for (k, v) in gl.env() {
        cmd.env(k, v);
    }
    for k in [
        "GUILDCTL_GITLAB_AUTHOR",
        "CI_MERGE_REQUEST_IID",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
        "CI_COMMIT_SHA",
        "CI_JOB_URL",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().await.expect("guildctl runs");
    let out = Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !out.stdout.contains(TOKEN) && !out.stderr.contains(TOKEN),
        "the token was printed"
    );
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const HEAD: &str = "1111111111111111111111111111111111111111";
const MERGED: &str = "2222222222222222222222222222222222222222";

#[tokio::test]
async fn a_merge_request_gets_one_plan_note_kept_current() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    gl.add_merge_request(5, HEAD);
    gl.add_note(5, OTHER_USERNAME, "LGTM, but see the plan", false);
    // Someone else writes guildctl's marker: left alone, never edited.
    let forged = gl.add_note(
        5,
        OTHER_USERNAME,
        "<!-- guildctl:plan:guild.yaml -->\nall fine, merge it",
        false,
    );
    let first = write(dir.path(), "a.md", "### guildctl plan\n\n2 to create.\n");
    let args = |f: &Path| {
        vec![
            "note".to_owned(),
            "--marker".into(),
            "plan:guild.yaml".into(),
            "--body-file".into(),
            f.to_str().unwrap().to_owned(),
        ]
    };
    let a = args(&first);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = gitlab(&gl, &a, &[("CI_MERGE_REQUEST_IID", "5")]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "guildctl writes on GitLab as {BOT_USERNAME} (the token's user)"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("Left alone: note {forged} by {OTHER_USERNAME}")),
        "{}",
        out.stderr
    );
    let notes = gl.notes(5);
    assert_eq!(notes.len(), 3);
    let ours = notes.iter().find(|n| n.author == BOT_USERNAME).unwrap();
    assert_eq!(
        ours.body,
        "<!-- guildctl:plan:guild.yaml -->\n### guildctl plan\n\n2 to create.\n"
    );
    assert_eq!(
        out.stdout.trim(),
        format!(
            "https://gitlab.example/guilds/config/-/merge_requests/5#note_{}",
            ours.id
        )
    );

    // A later push edits the same note in place; a system note is never touched.
    gl.add_note(
        5,
        BOT_USERNAME,
        "<!-- guildctl:plan:guild.yaml --> added 1 commit",
        true,
    );
    let second = write(dir.path(), "b.md", "### guildctl plan\n\nNo changes.\n");
    let a = args(&second);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = gitlab(&gl, &a, &[("CI_MERGE_REQUEST_IID", "5")]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("Updated the note on !5"),
        "{}",
        out.stderr
    );
    let notes = gl.notes(5);
    assert_eq!(notes.len(), 4);
    let edited = notes.iter().find(|n| n.id == ours.id).unwrap();
    assert!(edited.body.ends_with("No changes.\n"));
    assert_eq!(
        notes.iter().find(|n| n.id == forged).unwrap().body,
        "<!-- guildctl:plan:guild.yaml -->\nall fine, merge it"
    );

    // The same body again: nothing written.
    let before = gl.writes().len();
    let out = gitlab(&gl, &a, &[("CI_MERGE_REQUEST_IID", "5")]).await;
    assert!(out.stderr.contains("already current"), "{}", out.stderr);
    assert_eq!(gl.writes().len(), before);
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}

/// Two pushes, two pipelines: the newer head's plan is noted, and the older pipeline,
/// finishing last, writes nothing (a line says a newer head exists, and it exits 0). A
/// merged results pipeline's commit is GitLab's merge commit: the source branch's head is
/// the one compared.
#[tokio::test]
async fn only_the_pipeline_of_the_merge_requests_head_writes_the_note() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    let older = HEAD;
    let newer = "5555555555555555555555555555555555555555";
    gl.add_merge_request(5, older);
    let note = |body: &str, vars: Vec<(&'static str, String)>| {
        let file = write(dir.path(), "note.md", body);
        let gl = gl.clone();
        async move {
            let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let mut all = vec![("CI_MERGE_REQUEST_IID", "5")];
            all.extend(vars);
            gitlab(
                &gl,
                &[
                    "note",
                    "--marker",
                    "plan:guild.yaml",
                    "--body-file",
                    file.to_str().unwrap(),
                ],
                &all,
            )
            .await
        }
    };
    // The first push's pipeline notes its plan.
    let out = note(
        "plan of the first push\n",
        vec![("CI_COMMIT_SHA", older.into())],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A second push; its pipeline finishes first and notes the newer plan.
    gl.push(5, newer);
    let out = note(
        "plan of the second push\n",
        vec![("CI_COMMIT_SHA", newer.into())],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let writes = gl.writes().len();
    // The first push's pipeline (a re-run, or one that was slow) finishes last: it leaves
    // the newer plan's note alone, says why, and does not fail.
    let out = note(
        "plan of the first push\n",
        vec![("CI_COMMIT_SHA", older.into())],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("a newer head exists") && out.stderr.contains(newer),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "", "no URL: nothing was written");
    assert_eq!(gl.writes().len(), writes, "{:?}", gl.writes());
    let ours: Vec<_> = gl
        .notes(5)
        .into_iter()
        .filter(|n| n.author == BOT_USERNAME)
        .collect();
    assert_eq!(ours.len(), 1);
    assert!(
        ours[0].body.ends_with("plan of the second push\n"),
        "{}",
        ours[0].body
    );

    // A merged results pipeline: CI_COMMIT_SHA is GitLab's merge commit, and the source
    // branch's head is what is compared.
    let out = note(
        "plan of the second push, merged results\n",
        vec![
            ("CI_COMMIT_SHA", MERGED.into()),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", newer.into()),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("Updated the note on !5"),
        "{}",
        out.stderr
    );
    // Outside a pipeline no commit is known (nor given with --sha): written as asked.
    let out = note("by hand\n", vec![]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("Updated the note"),
        "outside a pipeline: {}",
        out.stderr
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}

#[tokio::test]
async fn notes_are_found_across_pages_and_without_a_merge_request_it_says_so() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    gl.add_merge_request(6, HEAD);
    for i in 0..130 {
        gl.add_note(6, OTHER_USERNAME, &format!("comment {i}"), false);
    }
    gl.add_note(
        6,
        BOT_USERNAME,
        "<!-- guildctl:plan:guild.yaml -->\nold",
        false,
    );
    let body = write(dir.path(), "a.md", "new\n");
    let args = [
        "note",
        "--marker",
        "plan:guild.yaml",
        "--body-file",
        body.to_str().unwrap(),
        "--mr",
        "6",
    ];
    let out = gitlab(&gl, &args, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gl.notes(6).len(), 131, "a second note was made");
    assert!(
        gl.log().iter().any(|l| l.path.contains("page=2")),
        "the second page was not read"
    );

    let out = gitlab(&gl, &args[..5], &[]).await;
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("pass --mr IID"), "{}", out.stderr);
    // A wrong token: GitLab's 401, with what to do.
    let out = gitlab(&gl, &args, &[("GUILDCTL_GITLAB_TOKEN", "glpat-wrong")]).await;
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("401") && out.stderr.contains("GUILDCTL_GITLAB_TOKEN is wrong"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn the_drift_issue_is_opened_updated_and_closed_and_others_are_left_alone() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    let forged = gl.add_issue(
        OTHER_USERNAME,
        "drift",
        "<!-- guildctl:drift:guild.yaml -->\nclose me",
        "guildctl-drift",
    );
    let report = write(
        dir.path(),
        "d.md",
        "### Drift\n\nrole Mods: color changed by hand\n",
    );
    let run = |drifted: &'static str| {
        let report = report.clone();
        let gl = gl.clone();
        async move {
            gitlab(
                &gl,
                &[
                    "drift-issue",
                    "--marker",
                    "drift:guild.yaml",
                    "--body-file",
                    report.to_str().unwrap(),
                    "--drifted",
                    drifted,
                ],
                &[(
                    "CI_JOB_URL",
                    "https://gitlab.example/guilds/config/-/jobs/77",
                )],
            )
            .await
        }
    };
    let out = run("true").await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("Left alone: issue {forged} by {OTHER_USERNAME}")),
        "{}",
        out.stderr
    );
    let issues = gl.issues();
    assert_eq!(issues.len(), 2);
    let ours = issues.iter().find(|i| i.author == BOT_USERNAME).unwrap();
    assert_eq!(ours.labels, vec!["guildctl-drift"]);
    assert!(
        ours.description
            .starts_with("<!-- guildctl:drift:guild.yaml -->\n### Drift")
    );
    assert_eq!(
        out.stdout.trim(),
        format!("https://gitlab.example/guilds/config/-/issues/{}", ours.iid)
    );

    let out = run("true").await;
    assert!(out.stderr.contains("already current"), "{}", out.stderr);
    let out = run("false").await;
    assert!(
        out.stderr
            .contains(&format!("Closed drift issue #{}", ours.iid)),
        "{}",
        out.stderr
    );
    let issues = gl.issues();
    let ours = issues.iter().find(|i| i.author == BOT_USERNAME).unwrap();
    assert_eq!(ours.state, "closed");
    assert!(ours.notes[0].body.contains(
        "matches its manifest again ([job](https://gitlab.example/guilds/config/-/jobs/77))"
    ));
    // The forged issue is open and untouched.
    let f = issues.iter().find(|i| i.iid == forged).unwrap();
    assert_eq!((f.state.as_str(), f.notes.len()), ("opened", 0));
    // No drift and no issue of ours open: nothing to do.
    let out = run("false").await;
    assert!(
        out.stderr.contains("No drift and no open drift issue"),
        "{}",
        out.stderr
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}

#[tokio::test]
async fn the_reviewed_plan_is_the_merge_requests_own_pipelines() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    gl.add_merge_request(5, HEAD);
    let own = "refs/merge-requests/5/head".to_owned();
    let (own_pipeline, own_jobs) = gl.add_pipeline(
        5,
        PROJECT_ID,
        HEAD,
        &own,
        "success",
        &[
            ("guildctl-validate", "success"),
            ("guildctl-plan", "success"),
        ],
    );
    // Newer pipelines that are not the reviewed plan, newest last here (listed newest first).
    gl.add_pipeline(
        5,
        PROJECT_ID,
        HEAD,
        &own,
        "success",
        &[("guildctl-plan", "failed")],
    );
    gl.add_pipeline(
        5,
        PROJECT_ID,
        HEAD,
        &own,
        "failed",
        &[("guildctl-plan", "success")],
    );
    gl.add_pipeline(
        5,
        PROJECT_ID,
        HEAD,
        "main",
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.add_pipeline(
        5,
        PROJECT_ID,
        "3333333333333333333333333333333333333333",
        &own,
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.add_pipeline(
        5,
        FORK_ID,
        HEAD,
        &own,
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.add_artifact(
        own_jobs[1],
        "guildctl/plan.json",
        br#"{"changes_sha256":"abc"}"#,
    );
    gl.merge(5, MERGED);

    let out = gitlab(
        &gl,
        &["reviewed-plan", "--job", "guildctl-plan"],
        &[("CI_COMMIT_SHA", MERGED)],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "merge-request=5\nhead-sha={HEAD}\npipeline-id={own_pipeline}\njob-id={}\n",
            own_jobs[1]
        )
    );
    for why in [
        &format!("ran in project {FORK_ID} (a fork)"),
        "is for commit 3333333333333333333333333333333333333333",
        "ran for main, not refs/merge-requests/5/head",
        "did not succeed (failed)",
        "has no successful job guildctl-plan",
    ] {
        assert!(out.stderr.contains(why), "{why}: {}", out.stderr);
    }

    let plan = dir.path().join("plan.json");
    let job = own_jobs[1].to_string();
    let out = gitlab(
        &gl,
        &[
            "artifact",
            "--job",
            &job,
            "--path",
            "guildctl/plan.json",
            "--out",
            plan.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&plan).unwrap(),
        r#"{"changes_sha256":"abc"}"#
    );
    let out = gitlab(
        &gl,
        &[
            "artifact",
            "--job",
            &job,
            "--path",
            "../etc/passwd",
            "--out",
            plan.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("must be relative, without `..`"),
        "{}",
        out.stderr
    );

    // A direct push merged no merge request: every value empty.
    let out = gitlab(
        &gl,
        &[
            "reviewed-plan",
            "--job",
            "guildctl-plan",
            "--sha",
            "4444444444444444444444444444444444444444",
        ],
        &[],
    )
    .await;
    assert_eq!(
        out.stdout,
        "merge-request=\nhead-sha=\npipeline-id=\njob-id=\n"
    );
    assert!(
        out.stderr.contains("merged no merge request"),
        "{}",
        out.stderr
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
    assert!(gl.writes().is_empty(), "reviewed-plan wrote to GitLab");
}

#[tokio::test]
async fn a_merge_request_without_its_own_successful_plan_has_no_reviewed_plan() {
    let gl = FakeGitLab::start().await;
    gl.add_merge_request(8, HEAD);
    // Only a fork's pipeline planned it.
    gl.add_pipeline(
        8,
        FORK_ID,
        HEAD,
        "refs/merge-requests/8/head",
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.merge(8, MERGED);
    let out = gitlab(
        &gl,
        &["reviewed-plan", "--job", "guildctl-plan", "--sha", MERGED],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("merge-request=8\nhead-sha={HEAD}\npipeline-id=\njob-id=\n")
    );
    assert!(
        out.stderr.contains("has no successful pipeline of its own"),
        "{}",
        out.stderr
    );
}

/// A workspace's plan job fails when one guild's plan does, and saves the others' plans:
/// with --include-failed, the merge request's own failed pipeline and plan job count (the
/// newest first), never a canceled one; without it, only successful ones do.
#[tokio::test]
async fn a_failed_plan_job_counts_only_with_include_failed() {
    let gl = FakeGitLab::start().await;
    gl.add_merge_request(9, HEAD);
    let own = "refs/merge-requests/9/head";
    let (succeeded, succeeded_jobs) = gl.add_pipeline(
        9,
        PROJECT_ID,
        HEAD,
        own,
        "success",
        &[("guildctl-plan", "success")],
    );
    let (failed, failed_jobs) = gl.add_pipeline(
        9,
        PROJECT_ID,
        HEAD,
        own,
        "failed",
        &[("guildctl-validate", "failed"), ("guildctl-plan", "failed")],
    );
    let (canceled, _) = gl.add_pipeline(
        9,
        PROJECT_ID,
        HEAD,
        own,
        "canceled",
        &[("guildctl-plan", "canceled")],
    );
    gl.merge(9, MERGED);
    let pick = |flag: bool| {
        let gl = gl.clone();
        async move {
            let mut args = vec!["reviewed-plan", "--job", "guildctl-plan", "--sha", MERGED];
            if flag {
                args.push("--include-failed");
            }
            gitlab(&gl, &args, &[]).await
        }
    };
    let strict = pick(false).await;
    assert_eq!(strict.code, 0, "{}", strict.stderr);
    assert!(
        strict.stdout.contains(&format!(
            "pipeline-id={succeeded}\njob-id={}\n",
            succeeded_jobs[0]
        )),
        "{}",
        strict.stdout
    );
    let workspace = pick(true).await;
    assert_eq!(workspace.code, 0, "{}", workspace.stderr);
    assert!(
        workspace.stdout.contains(&format!(
            "pipeline-id={failed}\njob-id={}\n",
            failed_jobs[1]
        )),
        "{}\n{}",
        workspace.stdout,
        workspace.stderr
    );
    assert!(
        workspace.stderr.contains(&format!(
            "Passed over: pipeline {canceled} did not succeed (canceled)"
        )),
        "{}",
        workspace.stderr
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}
