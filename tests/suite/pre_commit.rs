//! The `guildctl-validate` hook (.pre-commit-hooks.yaml) as pre-commit runs it: `pre-commit
//! try-repo` builds guildctl from this repository (`language: rust`) and runs the hook in
//! a sample config repository. A valid workspace passes; a broken base fails with the
//! file:line:column diagnostic.
//!
//! pre-commit comes from PyPI (pinned, in `.ci/run`'s cache folder); `.ci/run` passes it
//! as `GUILDCTL_PRE_COMMIT`. Built without it (build.rs), the hook's test is ignored, with
//! how to get it as the reason; `.ci/run` fails if it is ignored there.
//!
//! The hook's build is a release build (pre-commit runs `cargo install`), which for
//! guildctl means fat LTO; the test turns LTO and optimisation off through cargo's
//! `CARGO_PROFILE_RELEASE_*` variables and keeps the build in one target folder across
//! runs (`GUILDCTL_PRE_COMMIT_TARGET`, else the test target's tmp folder), so only
//! guildctl itself is compiled again (docs/pre-commit.md has the timings).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use crate::common::{self, git};

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `pre-commit try-repo THIS_REPOSITORY guildctl-validate ARGS` in `sample`.
fn try_repo(pre_commit: &Path, home: &Path, sample: &Path, args: &[&str]) -> (Output, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("GUILDCTL_PRE_COMMIT_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-build"));
    let mut cmd = Command::new(pre_commit);
    cmd.arg("try-repo").arg(repo).arg("guildctl-validate");
    // A clean checkout is tried at its commit; one with changes is copied as it is by
    // pre-commit (a "shadow" commit of the work tree).
    if git(repo, &["status", "--porcelain", "--untracked-files=no"]).is_empty() {
        cmd.args(["--ref", &git(repo, &["rev-parse", "HEAD"])]);
    }
    let out = cmd
        .args(args)
        .current_dir(sample)
        .env("PRE_COMMIT_HOME", home)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false")
        .env("NO_COLOR", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("pre-commit runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
#[cfg_attr(
    not(guildctl_pre_commit),
    ignore = "needs pre-commit: `pip install pre-commit==4.7.0` and set GUILDCTL_PRE_COMMIT to its path (.ci/run does)"
)]
fn the_hook_passes_a_valid_workspace_and_fails_a_broken_base_at_its_line() {
    let pre_commit = common::external_tool("GUILDCTL_PRE_COMMIT");
    let home = tempfile::tempdir().unwrap();
    let sample = tempfile::tempdir().unwrap();
    let s = sample.path();
    git(s, &["init", "-q"]);
    write(
        s,
        "guildctl.yaml",
        "guilds:\n  prod: { id: \"111111111111111111\", manifest: guilds/prod.yaml }\n",
    );
    write(
        s,
        "guilds/base.yaml",
        "version: 1\nroles:\n  - name: Moderators\n",
    );
    write(s, "guilds/prod.yaml", "version: 1\nextends: base.yaml\n");
    write(s, "README.md", "not a manifest\n");
    git(s, &["add", "."]);
    git(s, &["commit", "-qm", "a config repository"]);

    let started = Instant::now();
    let (out, text) = try_repo(&pre_commit, home.path(), s, &["--all-files"]);
    eprintln!(
        "try-repo on a valid workspace: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("guildctl validate"), "{text}");
    assert!(text.contains("Passed"), "{text}");

    // A base breaks: the guild that extends it is validated, and fails at the base's line.
    write(
        s,
        "guilds/base.yaml",
        "version: 1\nsettings:\n  afk_timeout: 7\n",
    );
    git(s, &["add", "."]);
    let started = Instant::now();
    let (out, text) = try_repo(
        &pre_commit,
        home.path(),
        s,
        &["--files", "guilds/base.yaml"],
    );
    eprintln!(
        "try-repo on a broken base: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("Failed"), "{text}");
    assert!(text.contains("Guild prod is touched"), "{text}");
    assert!(text.contains("guilds/base.yaml:3:16"), "{text}");
    assert!(text.contains("is not a valid afk_timeout"), "{text}");
}

/// What the hook runs, without pre-commit: `validate --changed` picks what the files touch.
#[test]
fn validate_changed_checks_what_the_changed_files_touch() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let validate = |files: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
            .args(["validate", "--color", "never", "--changed"])
            .args(files)
            .current_dir(d)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Without a workspace: each file is a manifest.
    write(d, "guild.yaml", "version: 1\nroles:\n  - name: Mods\n");
    write(
        d,
        "broken.yaml",
        "version: 1\nsettings:\n  afk_timeout: 7\n",
    );
    let (code, err) = validate(&["guild.yaml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("guild.yaml: valid"), "{err}");
    let (code, err) = validate(&["guild.yaml", "broken.yaml"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--> broken.yaml:3:16"), "{err}");
    let (code, err) = validate(&[]);
    assert_eq!(code, Some(0), "{err}");

    // A workspace: a base touches the guilds that extend it, the workspace file all.
    write(
        d,
        "guildctl.yaml",
        "guilds:\n  prod: { id: \"111111111111111111\", manifest: guilds/prod.yaml }\n  test: { id: \"222222222222222222\", manifest: guilds/test.yaml }\n",
    );
    write(
        d,
        "guilds/base.yaml",
        "version: 1\nroles:\n  - name: Moderators\n",
    );
    write(d, "guilds/prod.yaml", "version: 1\nextends: base.yaml\n");
    write(d, "guilds/test.yaml", "version: 1\n");
    let (code, err) = validate(&["guilds/base.yaml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("Guild prod is touched"), "{err}");
    assert!(!err.contains("Guild test is touched"), "{err}");
    let (_, err) = validate(&["guildctl.yaml"]);
    assert!(
        err.contains("Guild prod is touched") && err.contains("Guild test is touched"),
        "{err}"
    );
    // A file no guild uses is a manifest of its own; one that is not YAML of a guild and
    // not a manifest fails as one (the hook's `files:` keeps such files out).
    let (code, err) = validate(&["broken.yaml"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("broken.yaml:3:16"), "{err}");
    // The workspace's id check runs as `validate --all` runs it.
    write(
        d,
        "guilds/test.yaml",
        "version: 1\nguild: \"333333333333333333\"\n",
    );
    let (code, err) = validate(&["guilds/test.yaml"]);
    assert_eq!(code, Some(1), "{err}");
}
