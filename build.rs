//! The tools guildctl's tests drive beside cargo (pre-commit, gitlab-ci-local), found from
//! the variables naming them: a test that needs one is compiled `#[ignore]`d without it,
//! with the reason, so `cargo test` reports it as ignored, never as passed
//! (docs/architecture.md, "Tests"). `.ci/run` installs both and fails when a test it
//! expects to run is ignored.

use std::path::Path;

/// Each tool: the variable naming its path, and the cfg set when that is an executable.
const TOOLS: &[(&str, &str)] = &[
    ("GUILDCTL_PRE_COMMIT", "guildctl_pre_commit"),
    ("GUILDCTL_GITLAB_CI_LOCAL", "guildctl_gitlab_ci_local"),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
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
