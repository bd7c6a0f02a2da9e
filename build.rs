//! The tools guildctl's tests drive beside cargo (pre-commit, gitlab-ci-local, Chromium),
//! found from the variables naming them: a test that needs one is compiled `#[ignore]`d
//! without it, with the reason, so `cargo test` reports it as ignored, never as passed
//! (docs/architecture.md, "Tests"). `.ci/run` installs them and fails when a test it
//! expects to run is ignored.
//!
//! Chromium is also found as `chromium` on PATH (a developer's machine has it there), and
//! with `CI` set its tests are compiled to run whatever is found: they then fail, saying
//! what is missing, rather than be skipped.

use std::path::Path;

/// Each tool: the variable naming its path, and the cfg set when that is an executable.
const TOOLS: &[(&str, &str)] = &[
    ("GUILDCTL_PRE_COMMIT", "guildctl_pre_commit"),
    ("GUILDCTL_GITLAB_CI_LOCAL", "guildctl_gitlab_ci_local"),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    chromium();
    for (var, cfg) in TOOLS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo::rerun-if-env-changed={var}");
        let Some(path) = std::env::var_os(var) else {
            continue;
        };

        let path = Path::new(&path);
        if is_executable(path) {
            println!("cargo::rustc-cfg={cfg}");
        } else {
            println!(
                "cargo::warning={var}={} is not an executable file: the tests that need it are ignored",
                path.display()
            );
        }
    }
}

/// `cfg(guildctl_chromium)`: GUILDCTL_CHROMIUM, else `chromium` on PATH (read once: a
/// change of PATH does not rebuild), or `CI` set, when the tests must run or fail.
fn chromium() {
    println!("cargo::rustc-check-cfg=cfg(guildctl_chromium)");
    println!("cargo::rerun-if-env-changed=GUILDCTL_CHROMIUM");
    println!("cargo::rerun-if-env-changed=CI");
    let named = std::env::var_os("GUILDCTL_CHROMIUM").map(std::path::PathBuf::from);
    if let Some(path) = &named
        && !is_executable(path)
    {
        println!(
            "cargo::warning=GUILDCTL_CHROMIUM={} is not an executable file: the tests that need it are ignored",
            path.display()
        );
    }
    let on_path = || {
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|d| is_executable(&d.join("chromium")))
        })
    };
    let found = match &named {
        Some(path) => is_executable(path),
        None => on_path(),
    };
    if found || std::env::var_os("CI").is_some() {
        println!("cargo::rustc-cfg=guildctl_chromium");
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
