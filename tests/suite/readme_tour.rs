//! The README's "Five-minute tour" runs as written under `cargo test` too: this runs
//! `.ci/readme-tour` (which extracts the tour's shell blocks, runs them with `bash -euo
//! pipefail` in an empty folder and checks plan, apply, drift, exit codes and that no
//! token is printed) with this build's `guildctl` first on PATH.

use std::path::Path;
use std::process::Command;

#[test]
fn the_readme_tour_runs_as_written() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_guildctl"))
        .parent()
        .expect("the binary's folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join(".ci/readme-tour"))
        .env("GUILDCTL_BIN_DIR", bin_dir)
        .current_dir(root)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("as README.md writes them"), "{stdout}");
}
