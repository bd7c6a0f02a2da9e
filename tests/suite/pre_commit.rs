//! The `guildctl-validate` hook (.pre-commit-hooks.yaml) as pre-commit runs it: `pre-commit
//! run` with a config naming this repository and commit clones it into pre-commit's store,
//! builds guildctl there (the hook's first run) and runs the hook in a sample config
//! repository. A valid workspace passes; a broken base fails with the file:line:column
//! diagnostic. Both commits use one store, so the hook is built once, as for a user.
//!
//! pre-commit comes from PyPI (pinned, in `.ci/run`'s cache folder); `.ci/run` passes it
//! as `GUILDCTL_PRE_COMMIT`. Built without it (build.rs), the hook's test is ignored, with
//! how to get it as the reason; `.ci/run` fails if it is ignored there.
//!
//! The hook's build is a release build (pre-commit runs `cargo install`), which for
//! guildctl means fat LTO; the test turns LTO and optimisation off through cargo's
//! `CARGO_PROFILE_RELEASE_*` variables and keeps the build in one target folder across
//! runs (`GUILDCTL_PRE_COMMIT_TARGET`, else the test target's tmp folder), so only
//! guildctl itself is compiled, once a run (docs/pre-commit.md has the timings). It was
//! `pre-commit try-repo` twice, which clones into a new temporary store each time and so
//! built guildctl twice (docs/performance.md, "The test command's time").

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use crate::common::{self, git};

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// This repository as pre-commit sees it: its path and the commit to clone. A clean
/// checkout is taken at its commit; one with changes is committed as it is into a clone
/// of its own in `scratch` (the "shadow" repository `pre-commit try-repo` makes: the
/// staged files and every change to a tracked file), so what is tested is the work tree.
fn hook_repository(scratch: &Path) -> (PathBuf, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let head = git(repo, &["rev-parse", "HEAD"]);
    if git(repo, &["status", "--porcelain", "--untracked-files=no"]).is_empty() {
        return (repo.to_path_buf(), head);
    }
    let shadow = scratch.join("shadow-repo");
    let out = Command::new("git")
        .arg("clone")
        .args(["-q", "--no-checkout"])
        .arg(repo)
        .arg(&shadow)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "{out:?}");
    git(&shadow, &["checkout", "-q", &head, "-b", "_pc_tmp"]);
    // The work tree's changes are added from the repository into the shadow's index and
    // object store, as try-repo adds them, leaving the repository's own index alone.
    let add = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(repo)
            .env("GIT_INDEX_FILE", shadow.join(".git/index"))
            .env("GIT_OBJECT_DIRECTORY", shadow.join(".git/objects"))
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    let staged = git(repo, &["diff", "--cached", "--name-only", "--no-renames"]);
    for file in staged.lines().filter(|f| repo.join(f).exists()) {
        add(&["add", "--", file]);
    }
    add(&["add", "-u"]);
    git(&shadow, &["commit", "-qm", "the work tree under test"]);
    let commit = git(&shadow, &["rev-parse", "HEAD"]);
    (shadow, commit)
}

/// The user's `.pre-commit-config.yaml` naming this repository's `guildctl-validate` hook
/// at `rev`, as the README's config repository has it (written outside the sample, as
/// try-repo writes its own).
fn hook_config(scratch: &Path, repo: &Path, rev: &str) -> PathBuf {
    let config = scratch.join("pre-commit-config.yaml");
    std::fs::write(
        &config,
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: guildctl-validate\n",
            // A JSON string is a YAML string, whatever the path holds.
            serde_json::Value::from(repo.display().to_string())
        ),
    )
    .unwrap();
    config
}

/// `pre-commit run --config CONFIG ARGS` in `sample`, with the store in `home`: the store
/// keeps its clone of the hook's repository, and so the hook's build, from one run to the
/// next, as a user's store keeps it between commits.
fn run_hook(
    pre_commit: &Path,
    home: &Path,
    config: &Path,
    sample: &Path,
    args: &[&str],
) -> (Output, String) {
    let target = std::env::var_os("GUILDCTL_PRE_COMMIT_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-build"));
    let out = Command::new(pre_commit)
        .arg("run")
        .arg("--config")
        .arg(config)
        .args(args)
        .current_dir(sample)
        .env("PRE_COMMIT_HOME", home)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        // As many codegen units as an incremental dev build: at opt-level 0 the five crates
        // build in 57 s on two cores with 256, 135 s with 16 (docs/performance.md).
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
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
fn the_hook_passes_a_valid_workspace_and_fails_a_broken_layout_once_at_its_line() {
    let pre_commit = common::external_tool("GUILDCTL_PRE_COMMIT");
    let home = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let (repo, rev) = hook_repository(scratch.path());
    let config = hook_config(scratch.path(), &repo, &rev);
    let sample = tempfile::tempdir().unwrap();
    let s = sample.path();
    git(s, &["init", "-q"]);
    // The README's workspace layout: the guilds' shared layout outside guilds/.
    readme_layout(s);
    write(s, "README.md", "not a manifest\n");
    git(s, &["add", "."]);
    git(s, &["commit", "-qm", "a config repository"]);

    let started = Instant::now();
    let (out, text) = run_hook(&pre_commit, home.path(), &config, s, &["--all-files"]);
    eprintln!(
        "pre-commit run on a valid workspace (the hook built): {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("guildctl validate"), "{text}");
    assert!(text.contains("Passed"), "{text}");

    // A commit that changes the layout alone: both guilds read it, and fail at its line,
    // said once, with the repository's path of it.
    write(
        s,
        "layouts/community.yaml",
        "version: 1\nsettings:\n  afk_timeout: 7\nroles:\n  - name: Moderators\n",
    );
    git(s, &["add", "layouts/community.yaml"]);
    let started = Instant::now();
    let (out, text) = run_hook(&pre_commit, home.path(), &config, s, &[]);
    eprintln!(
        "pre-commit run on a broken layout (the build kept): {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("Failed"), "{text}");
    assert!(!text.contains("no files to check"), "{text}");
    assert!(text.contains("Guild main is touched"), "{text}");
    assert!(text.contains("Guild staff is touched"), "{text}");
    assert_eq!(
        text.matches("--> layouts/community.yaml:3:16").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("is not a valid afk_timeout").count(),
        1,
        "{text}"
    );
    // Built once: the second run found the hook's build in the store.
    assert!(!text.contains("building guildctl"), "{text}");
    // The hook's own output (pre-commit names the hook first).
    let hook = text.split("- hook id:").nth(1).unwrap_or(&text);
    assert!(!hook.contains("../"), "{text}");
    assert!(!hook.contains(&s.display().to_string()), "{text}");
}

/// The README's workspace layout (README, "A workspace"): two guilds whose manifests extend
/// `../layouts/community.yaml`, one naming a role the layout declares.
fn readme_layout(dir: &Path) {
    write(
        dir,
        "guildctl.yaml",
        "guilds:\n  main: { id: \"111111111111111111\", manifest: guilds/main.yaml }\n  staff: { id: \"222222222222222222\", manifest: guilds/staff.yaml }\n",
    );
    write(
        dir,
        "layouts/community.yaml",
        "version: 1\nroles:\n  - name: Moderators\n",
    );
    write(
        dir,
        "guilds/main.yaml",
        "version: 1\nextends: ../layouts/community.yaml\nchannels:\n  - name: mod-log\n    overwrites:\n      - { role: Moderators, allow: [view_channel] }\n",
    );
    write(
        dir,
        "guilds/staff.yaml",
        "version: 1\nextends: ../layouts/community.yaml\n",
    );
}

/// `guildctl validate --changed FILE...` in `dir`: its exit code and stderr.
fn validate_changed(dir: &Path, files: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["validate", "--color", "never", "--changed"])
        .args(files)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The hook passes every changed file: a layout outside guilds/ is checked through the
/// guilds that read it, its problem shown once at the repository's path, other files are
/// left alone, and a role no manifest declares is an error.
#[test]
fn validate_changed_checks_a_layout_once_and_leaves_other_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    readme_layout(d);
    write(d, "README.md", "# Our guilds\n");
    write(
        d,
        ".github/dependabot.yml",
        "version: 2\nupdates:\n  - package-ecosystem: github-actions\n",
    );
    write(d, ".pre-commit-config.yaml", "repos: []\n");
    let others = [
        "README.md",
        ".github/dependabot.yml",
        ".pre-commit-config.yaml",
    ];

    let (code, err) = validate_changed(d, &others);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("nothing to validate"), "{err}");

    write(
        d,
        "layouts/community.yaml",
        "version: 1\nsettings:\n  afk_timeout: 7\nroles:\n  - name: Moderators\n",
    );
    let mut changed = vec!["layouts/community.yaml"];
    changed.extend(others);
    let (code, err) = validate_changed(d, &changed);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("Guild main is touched"), "{err}");
    assert!(err.contains("Guild staff is touched"), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.contains("--> layouts/community.yaml:3:16"), "{err}");
    assert!(!err.contains("../"), "{err}");
    assert!(!err.contains(&d.display().to_string()), "{err}");
    assert!(
        err.contains("guilds/main.yaml: invalid (1 error, 0 warnings)\n"),
        "{err}"
    );
    assert!(
        err.contains("guilds/staff.yaml: invalid (1 error, 0 warnings; 1 of them shown above)"),
        "{err}"
    );
    // Nothing else was taken for a manifest.
    assert!(!err.contains("README.md"), "{err}");
    assert!(!err.contains("dependabot"), "{err}");

    // A role the manifests do not declare: an error, as plan refuses it.
    readme_layout(d);
    write(
        d,
        "guilds/main.yaml",
        "version: 1\nextends: ../layouts/community.yaml\nchannels:\n  - name: mod-log\n    overwrites:\n      - { role: Moderatorz, allow: [view_channel] }\n",
    );
    let (code, err) = validate_changed(d, &["guilds/main.yaml"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("error: role \"Moderatorz\" is not declared in this manifest"),
        "{err}"
    );
    assert!(err.contains("did you mean \"Moderators\"?"), "{err}");
    assert!(err.contains("--> guilds/main.yaml:6:17"), "{err}");
}

/// The hook's entry builds guildctl with `cargo install --locked` from its clone's folder
/// (so Cargo.lock's versions and rust-toolchain.toml hold), once, then runs `validate
/// --changed` with the files pre-commit passes. A stand-in `cargo` records how it was
/// called and installs a stand-in guildctl.
#[test]
#[cfg(unix)]
fn the_hooks_build_takes_the_versions_cargo_lock_pins() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hook: serde_json::Value = serde_saphyr::from_str(
        &std::fs::read_to_string(repo.join(".pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    let entry = hook[0]["entry"].as_str().unwrap();
    assert_eq!(hook[0]["language"].as_str(), Some("script"));
    // A copy of the hook in a folder of its own, as pre-commit's clone is.
    let clone = tempfile::tempdir().unwrap();
    write(
        clone.path(),
        entry,
        &std::fs::read_to_string(repo.join(entry)).unwrap(),
    );
    let script = clone.path().join(entry);
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tools = tempfile::tempdir().unwrap();
    let record = tools.path().join("cargo-calls");
    write(
        tools.path(),
        "cargo",
        &format!(
            "#!/bin/sh\necho \"$(pwd) $*\" >> '{record}'\nwhile [ \"$1\" != --root ]; do shift; done\nmkdir -p \"$2/bin\"\nprintf '#!/bin/sh\\necho \"guildctl $*\"\\n' > \"$2/bin/guildctl\"\nchmod +x \"$2/bin/guildctl\"\n",
            record = record.display()
        ),
    );
    std::fs::set_permissions(
        tools.path().join("cargo"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        tools.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sample = tempfile::tempdir().unwrap();
    let run = || {
        let out = Command::new(&script)
            .args(["guilds/main.yaml", "layouts/community.yaml"])
            .current_dir(sample.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        run().trim(),
        "guildctl validate --changed guilds/main.yaml layouts/community.yaml"
    );
    let calls = std::fs::read_to_string(&record).unwrap();
    let real_clone = std::fs::canonicalize(clone.path()).unwrap();
    assert!(
        calls.starts_with(&format!("{} install --locked ", real_clone.display())),
        "{calls}"
    );
    assert!(calls.trim_end().ends_with("--path ."), "{calls}");
    // Built once: the next commit runs what was built.
    run();
    assert_eq!(std::fs::read_to_string(&record).unwrap().lines().count(), 1);
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
