//! The GitLab CI/CD component (templates/guildctl.yml) run by `gitlab-ci-local` in shell
//! mode, as a config repository includes it, against the Discord emulator and the stand-in
//! for GitLab's API (tests/suite/common/gitlab.rs): a merge request pipeline validates, plans
//! and keeps one note; a push to the default branch applies exactly the plan of the
//! merged merge request's own pipeline, and refuses when there is none; a scheduled
//! pipeline keeps the drift issue. With `guilds: all` (a workspace), one guild whose
//! manifest does not load gets a note saying why while the others are planned, noted and
//! applied; an older pipeline finishing last leaves the newer head's note alone.
//!
//! gitlab-ci-local comes from npm (4.73, the last for Node 20) and wants rsync; `.ci/run`
//! installs both and passes gitlab-ci-local as `GUILDCTL_GITLAB_CI_LOCAL`. Built without it
//! (build.rs), the test is ignored, with how to get it as the reason; `.ci/run` fails if it
//! is ignored there.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use common::gitlab::{BOT_USERNAME, FakeGitLab, PROJECT_ID, TOKEN};
use common::{Harness, git};

struct Pipeline {
    code: i32,
    log: String,
}

/// Runs gitlab-ci-local in `repo` (the jobs `jobs`, or the whole pipeline) with the
/// runner's variables `vars`; `guildctl` is the binary under test, first on PATH.
fn run(gcl: &Path, repo: &Path, jobs: &[&str], vars: &[(&str, String)]) -> Pipeline {
    let bin = Path::new(env!("CARGO_BIN_EXE_guildctl")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(gcl);
    cmd.args([
        "--force-shell-executor",
        "--no-color",
        "--max-job-name-padding",
        "0",
    ])
    .arg("--ignore-predefined-vars")
    .arg("CI_PIPELINE_SOURCE,CI_PROJECT_ID,CI_API_V4_URL,CI_COMMIT_SHA")
    .args(jobs);
    for (k, v) in vars {
        cmd.arg("--variable").arg(format!("{k}={v}"));
    }
    let out = cmd
        .current_dir(repo)
        .env("PATH", path)
        .env("HOME", repo.join(".home"))
        .env_remove("DISCORD_TOKEN")
        .output()
        .expect("gitlab-ci-local runs");
    Pipeline {
        code: out.status.code().unwrap_or(-1),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    not(guildctl_gitlab_ci_local),
    ignore = "needs gitlab-ci-local: `npm install gitlab-ci-local@4.73.0` (and rsync) and set GUILDCTL_GITLAB_CI_LOCAL to its path (.ci/run does)"
)]
async fn the_component_plans_notes_applies_the_reviewed_plan_and_keeps_the_drift_issue() {
    let gcl = common::external_tool("GUILDCTL_GITLAB_CI_LOCAL");
    let started = Instant::now();
    let h = Harness::start().await;
    let gl = FakeGitLab::start().await;
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    std::fs::create_dir_all(r.join("templates")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/guildctl.yml"),
        r.join("templates/guildctl.yml"),
    )
    .unwrap();
    std::fs::copy(common::example("minimal.yaml"), r.join("guild.yaml")).unwrap();
    // The component as a config repository includes it (a local include: the same file
    // a `component:` include fetches from the catalog).
    std::fs::write(
        r.join(".gitlab-ci.yml"),
        "include:\n  - local: templates/guildctl.yml\n    inputs:\n      manifest: guild.yaml\n      resource-group: guildctl-test\n",
    )
    .unwrap();
    git(r, &["init", "-q", "-b", "main"]);
    git(
        r,
        &[
            "remote",
            "add",
            "origin",
            "https://gitlab.example/guilds/config.git",
        ],
    );
    git(r, &["add", "."]);
    git(r, &["commit", "-qm", "the guild"]);
    let head = git(r, &["rev-parse", "HEAD"]);

    let runner = |source: &str| -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("CI_PIPELINE_SOURCE", source.to_owned()),
            ("CI_PROJECT_ID", PROJECT_ID.to_string()),
            ("CI_API_V4_URL", gl.api.clone()),
            ("GUILDCTL_GITLAB_TOKEN", TOKEN.to_owned()),
            ("GUILDCTL_API_BASE", h.emu.api_base.clone()),
            ("GUILDCTL_GUILD", h.emu.guild_id.clone()),
            ("DISCORD_PLAN_TOKEN", h.emu.token.clone()),
        ];
        if source == "merge_request_event" {
            v.push(("CI_MERGE_REQUEST_IID", "5".into()));
            v.push(("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", PROJECT_ID.to_string()));
        }
        v
    };

    // 1. The merge request's pipeline: validate, plan, one note.
    gl.add_merge_request(5, &head);
    let mr = run(&gcl, r, &[], &runner("merge_request_event"));
    assert_eq!(mr.code, 0, "{}", mr.log);
    assert!(mr.log.contains("guildctl-validate"), "{}", mr.log);
    let notes = gl.notes(5);
    assert_eq!(notes.len(), 1, "{}", mr.log);
    assert_eq!(notes[0].author, BOT_USERNAME);
    assert!(
        notes[0]
            .body
            .starts_with("<!-- guildctl:plan:guild.yaml -->\n### guildctl plan for"),
        "{}",
        notes[0].body
    );
    assert!(notes[0].body.contains("Plan digest `"), "{}", notes[0].body);
    // The access page of the same plan, among the job's artifacts, linked from the note.
    assert!(
        notes[0].body.contains("**Access page:**")
            && notes[0]
                .body
                .contains("/artifacts/file/guildctl/access.html)"),
        "{}",
        notes[0].body
    );
    assert!(h.writes().is_empty(), "the plan wrote to the guild");
    let artifacts = r.join(".gitlab-ci-local/artifacts/guildctl-plan/guildctl");
    let plan = std::fs::read(artifacts.join("plan.json")).expect("the plan artifact");
    let page = std::fs::read_to_string(artifacts.join("access.html")).expect("the access page");
    assert!(page.starts_with("<!DOCTYPE html>"));
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(artifacts.join("plan.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");

    // A second push to the merge request edits the same note.
    let again = run(&gcl, r, &["guildctl-plan"], &runner("merge_request_event"));
    assert_eq!(again.code, 0, "{}", again.log);
    assert_eq!(gl.notes(5).len(), 1, "{}", again.log);

    // 2. A push to main that no merge request's own pipeline reviewed: refused, nothing sent.
    gl.merge(5, &head);
    let mut push = runner("push");
    push.push(("DISCORD_TOKEN", h.emu.token.clone()));
    let refused = run(&gcl, r, &["guildctl-apply"], &push);
    assert_ne!(refused.code, 0, "{}", refused.log);
    assert!(
        refused.log.contains("No reviewed plan for"),
        "{}",
        refused.log
    );
    assert!(h.writes().is_empty(), "apply wrote without a reviewed plan");

    // 3. The merge request's own pipeline ran the plan job: its plan is applied, exactly.
    let (_, jobs) = gl.add_pipeline(
        5,
        PROJECT_ID,
        &head,
        "refs/merge-requests/5/head",
        "success",
        &[
            ("guildctl-validate", "success"),
            ("guildctl-plan", "success"),
        ],
    );
    gl.add_artifact(jobs[1], "guildctl/plan.json", &plan);
    let applied = run(&gcl, r, &["guildctl-apply"], &push);
    assert_eq!(applied.code, 0, "{}", applied.log);
    assert!(!h.writes().is_empty(), "{}", applied.log);
    let replan = h
        .run(&[
            "plan",
            "-f",
            r.join("guild.yaml").to_str().unwrap(),
            "--detailed-exitcode",
        ])
        .await;
    assert_eq!(replan.code, 0, "apply did not converge: {}", replan.stdout);

    // 4. A scheduled pipeline after a hand edit: the drift issue is opened.
    h.arrange(|g| g.role("Moderator").color ^= 0x00ff00);
    let drift = run(&gcl, r, &["guildctl-drift"], &runner("schedule"));
    assert_eq!(drift.code, 0, "{}", drift.log);
    let issues = gl.issues();
    assert_eq!(issues.len(), 1, "{}", drift.log);
    assert!(
        issues[0]
            .description
            .starts_with("<!-- guildctl:drift:guild.yaml -->")
    );
    assert_eq!(
        issues[0].title,
        "guildctl: the guild drifted from guild.yaml"
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
    eprintln!(
        "the component's pipelines: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Applies to one guild are serialised: the apply and drift jobs share the guild's
/// `resource_group`, and an apply is never cancelled by a newer pipeline, even in a
/// project whose `default:` makes its jobs interruptible. Read from the template itself,
/// so it holds without gitlab-ci-local.
#[test]
fn applies_to_one_guild_run_one_at_a_time_and_are_never_interrupted() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/guildctl.yml"),
    )
    .unwrap();
    // The spec, then the jobs: two documents.
    let (_, jobs) = text.split_once("\n---\n").expect("a spec and the jobs");
    let jobs: serde_json::Value = serde_saphyr::from_str(jobs).unwrap();
    let apply = &jobs["guildctl-apply"];
    let drift = &jobs["guildctl-drift"];
    assert_eq!(apply["resource_group"], "$[[ inputs.resource-group ]]");
    assert_eq!(drift["resource_group"], apply["resource_group"]);
    assert_eq!(apply["interruptible"], false, "{apply}");
    assert!(jobs["guildctl-plan"].get("resource_group").is_none());
}

/// The merge request jobs (validate, plan) are cancelled by a newer pipeline of the merge
/// request: they write nothing but the note, which only the head's pipeline writes. Apply
/// never is.
#[test]
fn merge_request_jobs_are_interruptible_and_apply_is_not() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/guildctl.yml"),
    )
    .unwrap();
    let (_, jobs) = text.split_once("\n---\n").expect("a spec and the jobs");
    let jobs: serde_json::Value = serde_saphyr::from_str(jobs).unwrap();
    for job in ["guildctl-validate", "guildctl-plan"] {
        assert_eq!(jobs[job]["interruptible"], true, "{job}: {}", jobs[job]);
    }
    assert_eq!(jobs["guildctl-apply"]["interruptible"], false);
    assert!(
        jobs.get(".guildctl")
            .and_then(|j| j.get("interruptible"))
            .is_none(),
        "not in the template every job extends"
    );
}

/// A workspace of three guilds whose third manifest does not load, through the component
/// with `guilds: all`: the merge request pipeline notes each guild (the third's note gives
/// the error with its file, line and column, and says its earlier plan no longer holds),
/// fails, and keeps the two plans; a pipeline of an older head writes no note; the merge
/// applies the two guilds planned and names the third with why.
#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    not(guildctl_gitlab_ci_local),
    ignore = "needs gitlab-ci-local: `npm install gitlab-ci-local@4.73.0` (and rsync) and set GUILDCTL_GITLAB_CI_LOCAL to its path (.ci/run does)"
)]
async fn a_workspace_with_one_broken_guild_notes_and_applies_the_others() {
    let gcl = common::external_tool("GUILDCTL_GITLAB_CI_LOCAL");
    let state = discord_emulator::with_guild_copies(discord_emulator::default_state(), 3);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let gl = FakeGitLab::start().await;
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    std::fs::create_dir_all(r.join("templates")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/guildctl.yml"),
        r.join("templates/guildctl.yml"),
    )
    .unwrap();
    std::fs::create_dir_all(r.join("guilds")).unwrap();
    std::fs::write(
        r.join("base.yaml"),
        "version: 1\nroles:\n  - { name: Shared Helper, color: \"#123456\" }\n",
    )
    .unwrap();
    let mut ws = String::from("guilds:\n");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        std::fs::write(
            r.join(format!("guilds/{name}.yaml")),
            "version: 1\nextends: ../base.yaml\n",
        )
        .unwrap();
        ws.push_str(&format!(
            "  {name}: {{ id: \"{id}\", manifest: guilds/{name}.yaml }}\n"
        ));
    }
    // The staff, once: a group whose members come from a GitLab group too.
    let alice = common::guild::StateNames::user_id(&h.emu.state(), "alice");
    std::fs::write(
        r.join("people.yaml"),
        format!(
            "people:\n  alice: {{ discord: \"{alice}\", gitlab: alice-gl }}\ngroups:\n  staff:\n    roles: {{ a: Shared Helper, b: Shared Helper }}\n    gitlab_group: ferris/staff\n"
        ),
    )
    .unwrap();
    gl.set_group("ferris/staff", &["alice-gl"]);
    std::fs::write(
        r.join("guildctl.yaml"),
        format!("people: people.yaml\n{ws}"),
    )
    .unwrap();
    // c's manifest does not load: line 3, column 8.
    std::fs::write(
        r.join("guilds/c.yaml"),
        "version: 1\nextends: ../base.yaml\nroles: 7\n",
    )
    .unwrap();
    std::fs::write(
        r.join(".gitlab-ci.yml"),
        "include:\n  - local: templates/guildctl.yml\n    inputs:\n      guilds: all\n      resource-group: guildctl-test\n",
    )
    .unwrap();
    git(r, &["init", "-q", "-b", "main"]);
    git(
        r,
        &[
            "remote",
            "add",
            "origin",
            "https://gitlab.example/guilds/config.git",
        ],
    );
    git(r, &["add", "."]);
    git(r, &["commit", "-qm", "three guilds"]);
    let head = git(r, &["rev-parse", "HEAD"]);
    let runner = |source: &str| -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("CI_PIPELINE_SOURCE", source.to_owned()),
            ("CI_PROJECT_ID", PROJECT_ID.to_string()),
            ("CI_API_V4_URL", gl.api.clone()),
            ("GUILDCTL_GITLAB_TOKEN", TOKEN.to_owned()),
            ("GUILDCTL_API_BASE", h.emu.api_base.clone()),
            ("DISCORD_PLAN_TOKEN", h.emu.token.clone()),
        ];
        if source == "merge_request_event" {
            v.push(("CI_MERGE_REQUEST_IID", "5".into()));
            v.push(("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", PROJECT_ID.to_string()));
        }
        v
    };

    // 1. The merge request's pipeline: validate names c's error; every guild noted; the
    // plan job fails for c.
    gl.add_merge_request(5, &head);
    let validate = run(
        &gcl,
        r,
        &["guildctl-validate"],
        &runner("merge_request_event"),
    );
    assert_ne!(validate.code, 0, "{}", validate.log);
    assert!(
        validate.log.contains("guilds/c.yaml:3:8"),
        "{}",
        validate.log
    );
    let mr = run(&gcl, r, &["guildctl-plan"], &runner("merge_request_event"));
    assert_ne!(mr.code, 0, "the plan job fails for c: {}", mr.log);
    let notes = gl.notes(5);
    let note = |name: &str| {
        notes
            .iter()
            .find(|n| {
                n.body
                    .starts_with(&format!("<!-- guildctl:plan:guild/{name} -->\n"))
            })
            .unwrap_or_else(|| panic!("{name}'s note: {notes:?}\n{}", mr.log))
            .body
            .clone()
    };
    for name in ["a", "b"] {
        let body = note(name);
        assert!(body.contains("### guildctl plan for"), "{body}");
        assert!(body.contains("Shared Helper"), "{body}");
        assert!(body.contains("Plan digest `"), "{body}");
        // Each planned guild's access page is among the artifacts, linked from its note.
        let link = format!("/artifacts/file/guildctl/reports/{name}.html)");
        assert!(body.contains(&link), "{body}");
        let page = r.join(format!(
            ".gitlab-ci-local/artifacts/guildctl-plan/guildctl/reports/{name}.html"
        ));
        assert!(page.is_file(), "{}", page.display());
    }
    let c = note("c");
    assert!(
        !c.contains("**Access page:**"),
        "a failed guild has no page: {c}"
    );
    assert!(c.contains("`guilds/c.yaml:3:8`"), "{c}");
    assert!(c.contains("expected a list"), "{c}");
    assert!(c.contains("no longer current"), "{c}");
    assert!(
        !c.contains(r.to_str().unwrap()),
        "the runner's folders: {c}"
    );
    // The roster changes by person, first, from the GitLab group read for the job.
    assert!(
        notes[0].body.starts_with("<!-- guildctl:plan:people -->")
            && notes[0].body.contains("alice gains Shared Helper in a, b"),
        "{notes:?}"
    );
    assert_eq!(notes.len(), 4, "{notes:?}");
    let artifacts = r.join(".gitlab-ci-local/artifacts/guildctl-plan/guildctl/plans");
    let read = |f: &str| std::fs::read(artifacts.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    assert_eq!(read("guilds.txt"), b"a\nb\n");
    assert!(
        String::from_utf8(read("not-planned.tsv"))
            .unwrap()
            .starts_with("c\tinvalid manifest: guilds/c.yaml:3:8"),
    );
    assert!(h.writes().is_empty(), "the plan wrote to a guild");

    // 2. A push moved the merge request's head: this (older) pipeline, run again, writes
    // no note and says why.
    let writes = gl.writes().len();
    gl.push(5, "5555555555555555555555555555555555555555");
    let stale = run(&gcl, r, &["guildctl-plan"], &runner("merge_request_event"));
    assert!(stale.log.contains("a newer head exists"), "{}", stale.log);
    assert_eq!(gl.writes().len(), writes, "{:?}", gl.writes());
    gl.push(5, &head);

    // 3. The merge: the merge request's own pipeline failed (for c), and its plans are
    // applied; c is named with why, and its guild gets nothing.
    gl.merge(5, &head);
    let (_, jobs) = gl.add_pipeline(
        5,
        PROJECT_ID,
        &head,
        "refs/merge-requests/5/head",
        "failed",
        &[("guildctl-validate", "failed"), ("guildctl-plan", "failed")],
    );
    for f in ["guilds.txt", "not-planned.tsv", "a.json", "b.json"] {
        gl.add_artifact(jobs[1], &format!("guildctl/plans/{f}"), &read(f));
    }
    let mut push = runner("push");
    push.push(("DISCORD_TOKEN", h.emu.token.clone()));
    let applied = run(&gcl, r, &["guildctl-apply"], &push);
    assert_ne!(applied.code, 0, "c was not applied: {}", applied.log);
    assert!(
        applied
            .log
            .contains("not applied: it had no plan at review (invalid manifest: guilds/c.yaml:3:8"),
        "{}",
        applied.log
    );
    for id in &ids[..2] {
        let guild = h.emu.state().guild(id).unwrap().clone();
        let helper = guild.roles.iter().find(|r| r.name == "Shared Helper");
        let helper = helper.unwrap_or_else(|| panic!("guild {id}: {}", applied.log));
        let member = guild.members.iter().find(|m| m.user_id == alice).unwrap();
        assert!(
            member.roles.contains(&helper.id),
            "alice, from the GitLab group: {}",
            applied.log
        );
    }
    assert!(
        !h.emu
            .state()
            .guild(&ids[2])
            .unwrap()
            .roles
            .iter()
            .any(|r| r.name == "Shared Helper")
    );

    // 4. A scheduled pipeline: one drift issue per guild drift could read (the guilds hold
    // roles with power their manifests do not declare), none for c, which fails the job.
    let drift = run(&gcl, r, &["guildctl-drift"], &runner("schedule"));
    assert_ne!(drift.code, 0, "{}", drift.log);
    let issues = gl.issues();
    let titles: Vec<&str> = issues.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "guildctl: guild a drifted from its manifest",
            "guildctl: guild b drifted from its manifest"
        ],
        "{}",
        drift.log
    );
    assert!(
        issues[0]
            .description
            .starts_with("<!-- guildctl:drift:guild/a -->"),
        "{}",
        issues[0].description
    );
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
}
