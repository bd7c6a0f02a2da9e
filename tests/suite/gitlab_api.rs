//! `guildctl gitlab ...` against a stand-in for GitLab's REST API v4 held to GitLab's
//! documented routes (tests/suite/common/gitlab.rs): the GitLab adapter's contract in one
//! test, and what the subcommands say without a merge request or with a wrong token. The
//! flows (the drift issue, the plan note, the reviewed pick) are tested over an in-memory
//! fake forge in src/forge/tests.rs.

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
async fn without_a_merge_request_or_with_a_wrong_token_it_says_so() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    gl.add_merge_request(6, HEAD);
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
    assert!(gl.writes().is_empty());
}

/// The GitLab adapter's contract: every operation the forge's flows ask of it
/// (`forge::Tracker`, `forge::Reviews`; the flows themselves are tested over the in-memory
/// fake in `forge::tests`), spoken to the stand-in held to GitLab's documented routes and
/// fields: a merge request's notes read across pages and its head just before writing, one
/// note created and edited in place (forged and system notes left alone), nothing written
/// by the pipeline of an older head; the drift issue opened with its label, left when
/// current, noted on and closed; the merge request's own pipeline and plan job found among
/// others, and its artifact read.
#[tokio::test]
async fn the_gitlab_adapter_speaks_gitlabs_rest_api() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    let run = |args: Vec<String>, vars: Vec<(&'static str, String)>| {
        let gl = gl.clone();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let out = gitlab(&gl, &args, &vars).await;
            assert_eq!(out.code, 0, "{}", out.stderr);
            out
        }
    };
    let args = |words: &[&str], file: &Path| {
        let mut a: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        a.extend(["--body-file".into(), file.to_str().unwrap().to_owned()]);
        a
    };

    // The plan note.
    gl.add_merge_request(5, HEAD);
    for i in 0..130 {
        gl.add_note(5, OTHER_USERNAME, &format!("comment {i}"), false);
    }
    let forged = gl.add_note(
        5,
        OTHER_USERNAME,
        "<!-- guildctl:plan:guild.yaml -->\nall fine, merge it",
        false,
    );
    gl.add_note(
        5,
        BOT_USERNAME,
        "<!-- guildctl:plan:guild.yaml --> added 1 commit",
        true,
    );
    let plan = write(dir.path(), "plan.md", "### guildctl plan\n\n2 to create.\n");
    let note = args(&["note", "--marker", "plan:guild.yaml"], &plan);
    let pipeline = |sha: &str| {
        vec![
            ("CI_MERGE_REQUEST_IID", "5".to_owned()),
            ("CI_COMMIT_SHA", sha.to_owned()),
        ]
    };
    let out = run(note.clone(), pipeline(HEAD)).await;
    for line in [
        format!("guildctl writes on GitLab as {BOT_USERNAME} (the token's user)"),
        format!("Left alone: note {forged} by {OTHER_USERNAME} carries guildctl's marker"),
        "Noted on !5: https://gitlab.example/".to_owned(),
    ] {
        assert!(out.stderr.contains(&line), "{line}\n{}", out.stderr);
    }
    let ours: Vec<_> = gl
        .notes(5)
        .into_iter()
        .filter(|n| n.author == BOT_USERNAME && !n.system)
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(
        ours[0].body,
        "<!-- guildctl:plan:guild.yaml -->\n### guildctl plan\n\n2 to create.\n"
    );
    assert_eq!(
        out.stdout,
        format!(
            "https://gitlab.example/guilds/config/-/merge_requests/5#note_{}\n",
            ours[0].id
        )
    );
    assert!(
        gl.log().iter().any(|l| l.path.contains("page=2")),
        "the notes' second page was read"
    );
    // A second push; the first push's pipeline, finishing last, writes nothing.
    let newer = "5555555555555555555555555555555555555555";
    gl.push(5, newer);
    let writes = gl.writes().len();
    let out = run(note.clone(), pipeline(HEAD)).await;
    assert!(
        out.stderr.contains("a newer head exists") && out.stderr.contains(newer),
        "{}",
        out.stderr
    );
    assert_eq!((out.stdout.as_str(), gl.writes().len()), ("", writes));
    // A merged results pipeline: its commit is GitLab's merge commit, and the source
    // branch's head is what is compared.
    std::fs::write(&plan, "### guildctl plan\n\nNo changes.\n").unwrap();
    let mut merged_results = pipeline(MERGED);
    merged_results.push(("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", newer.to_owned()));
    let out = run(note.clone(), merged_results.clone()).await;
    assert!(
        out.stderr.contains("Updated the note on !5"),
        "{}",
        out.stderr
    );
    let notes = gl.notes(5);
    assert!(
        notes
            .iter()
            .find(|n| n.id == ours[0].id)
            .unwrap()
            .body
            .ends_with("No changes.\n")
    );
    assert_eq!(
        notes.iter().find(|n| n.id == forged).unwrap().body,
        "<!-- guildctl:plan:guild.yaml -->\nall fine, merge it"
    );
    let writes = gl.writes().len();
    let out = run(note, merged_results).await;
    assert!(out.stderr.contains("already current"), "{}", out.stderr);
    assert_eq!(gl.writes().len(), writes);

    // The drift issue.
    let theirs = gl.add_issue(
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
    let drift = |drifted: &str| {
        let mut a = args(&["drift-issue", "--marker", "drift:guild.yaml"], &report);
        a.extend(["--drifted".into(), drifted.into()]);
        a
    };
    let job = || {
        vec![(
            "CI_JOB_URL",
            "https://gitlab.example/guilds/config/-/jobs/77".to_owned(),
        )]
    };
    let out = run(drift("true"), job()).await;
    assert!(
        out.stderr
            .contains(&format!("Left alone: issue {theirs} by {OTHER_USERNAME}")),
        "{}",
        out.stderr
    );
    let issues = gl.issues();
    let ours = issues.iter().find(|i| i.author == BOT_USERNAME).unwrap();
    assert_eq!(ours.labels, vec!["guildctl-drift"]);
    assert!(
        ours.description
            .starts_with("<!-- guildctl:drift:guild.yaml -->\n### Drift")
    );
    assert_eq!(
        out.stdout,
        format!(
            "https://gitlab.example/guilds/config/-/issues/{}\n",
            ours.iid
        )
    );
    let out = run(drift("true"), job()).await;
    assert!(out.stderr.contains("already current"), "{}", out.stderr);
    std::fs::write(&report, "### Drift\n\ntwo roles changed\n").unwrap();
    let out = run(drift("true"), job()).await;
    assert!(
        out.stderr
            .contains(&format!("Updated drift issue #{}", ours.iid)),
        "{}",
        out.stderr
    );
    let out = run(drift("false"), job()).await;
    assert!(
        out.stderr
            .contains(&format!("Closed drift issue #{}", ours.iid)),
        "{}",
        out.stderr
    );
    let issues = gl.issues();
    let closed = issues.iter().find(|i| i.iid == ours.iid).unwrap();
    assert!(closed.description.ends_with("two roles changed\n"));
    assert_eq!(closed.state, "closed");
    assert!(closed.notes[0].body.contains(
        "matches its manifest again ([job](https://gitlab.example/guilds/config/-/jobs/77))"
    ));
    let t = issues.iter().find(|i| i.iid == theirs).unwrap();
    assert_eq!((t.state.as_str(), t.notes.len()), ("opened", 0));

    // The reviewed plan: merge request 8's own pipeline, past newer ones that are not.
    gl.add_merge_request(8, HEAD);
    let own = "refs/merge-requests/8/head";
    let (own_pipeline, own_jobs) = gl.add_pipeline(
        8,
        PROJECT_ID,
        HEAD,
        own,
        "success",
        &[
            ("guildctl-validate", "success"),
            ("guildctl-plan", "success"),
        ],
    );
    let (failed_plan, failed_jobs) = gl.add_pipeline(
        8,
        PROJECT_ID,
        HEAD,
        own,
        "success",
        &[("guildctl-plan", "failed")],
    );
    gl.add_pipeline(
        8,
        PROJECT_ID,
        HEAD,
        "main",
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.add_pipeline(
        8,
        FORK_ID,
        HEAD,
        own,
        "success",
        &[("guildctl-plan", "success")],
    );
    gl.add_artifact(
        own_jobs[1],
        "guildctl/plan.json",
        br#"{"changes_sha256":"abc"}"#,
    );
    gl.merge(8, MERGED);
    let reviewed = |extra: &[&str]| {
        let mut a: Vec<String> = ["reviewed-plan", "--job", "guildctl-plan", "--sha", MERGED]
            .iter()
            .map(|w| w.to_string())
            .collect();
        a.extend(extra.iter().map(|w| w.to_string()));
        a
    };
    let out = run(reviewed(&[]), vec![]).await;
    assert_eq!(
        out.stdout,
        format!(
            "merge-request=8\nhead-sha={HEAD}\npipeline-id={own_pipeline}\njob-id={}\n",
            own_jobs[1]
        )
    );
    for why in [
        format!("ran in project {FORK_ID} (a fork)."),
        "ran for main, not refs/merge-requests/8/head.".to_owned(),
        "has no successful job guildctl-plan.".to_owned(),
    ] {
        assert!(out.stderr.contains(&why), "{why}: {}", out.stderr);
    }
    // With --include-failed, the newer pipeline whose plan job failed counts.
    let out = run(reviewed(&["--include-failed"]), vec![]).await;
    assert!(
        out.stdout.ends_with(&format!(
            "pipeline-id={failed_plan}\njob-id={}\n",
            failed_jobs[0]
        )),
        "{}",
        out.stdout
    );
    let plan_file = dir.path().join("plan.json");
    let job_id = own_jobs[1].to_string();
    let artifact = |path: &str| {
        [
            "artifact",
            "--job",
            &job_id,
            "--path",
            path,
            "--out",
            plan_file.to_str().unwrap(),
        ]
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
    };
    run(artifact("guildctl/plan.json"), vec![]).await;
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        r#"{"changes_sha256":"abc"}"#
    );
    let out = gitlab(
        &gl,
        &artifact("../etc/passwd")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
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
    let out = run(
        vec![
            "reviewed-plan".into(),
            "--job".into(),
            "guildctl-plan".into(),
            "--sha".into(),
            "4444444444444444444444444444444444444444".into(),
        ],
        vec![],
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
}

/// `guildctl gitlab teams` reads the members of the GitLab groups the people file's groups
/// name (by the group's full path, inherited members included) into the teams file the
/// runs that follow read (`GUILDCTL_TEAMS`); a group the token cannot see is named.
#[tokio::test]
async fn gitlab_teams_reads_the_people_files_groups_members() {
    let gl = FakeGitLab::start().await;
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "guildctl.yaml",
        "version: 1\npeople: people.yaml\nguilds:\n  en: { id: \"81384788765712384\", manifest: en.yaml }\n",
    );
    write(
        dir.path(),
        "people.yaml",
        "people:\n  alice: { discord: \"81384788765712399\", gitlab: alice }\ngroups:\n  staff:\n    roles: { en: Moderator }\n    gitlab_group: ferris/staff\n",
    );
    gl.set_group("ferris/staff", &["alice", "stranger"]);
    let out = dir.path().join("teams.json");
    let root = dir.path().to_str().unwrap();
    let read = gitlab(
        &gl,
        &["teams", "--out", out.to_str().unwrap(), "--repo-root", root],
        &[],
    )
    .await;
    assert_eq!(read.code, 0, "{}", read.stderr);
    let teams: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        teams["gitlab"]["ferris/staff"],
        serde_json::json!(["alice", "stranger"])
    );
    let asked = gl.log();
    assert!(
        asked.iter().any(|r| r
            .path
            .starts_with("/api/v4/groups/ferris%2Fstaff/members/all")),
        "{asked:?}"
    );
    gl.set_group("ferris/staff", &[]);
    let people = std::fs::read_to_string(dir.path().join("people.yaml")).unwrap();
    write(
        dir.path(),
        "people.yaml",
        &people.replace("ferris/staff", "ferris/hidden"),
    );
    let hidden = gitlab(
        &gl,
        &["teams", "--out", out.to_str().unwrap(), "--repo-root", root],
        &[],
    )
    .await;
    assert_eq!(hidden.code, 1);
    assert!(
        hidden
            .stderr
            .contains("cannot read the members of the GitLab group ferris/hidden"),
        "{}",
        hidden.stderr
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}
