//! The sandbox remembers across commands with `--sandbox-state FILE`: export,
//! edit, plan, apply, and a later plan sees what the apply did.

use std::process::Command;

fn guildctl(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GUILDCTL_GUILD")
        .env_remove("DISCORD_TOKEN")
        .output()
        .expect("guildctl runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_tour_across_separate_commands_keeps_the_sandbox_guild() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sandbox = ["--sandbox", "--sandbox-state", "sandbox.json"];

    // No state file yet: the default guild, exported as a manifest.
    let (code, _, err) = guildctl(d, &[&["export", "-o", "guild.yaml"][..], &sandbox].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        !d.join("sandbox.json").exists(),
        "export never writes the state"
    );

    // An edit: a new role at the bottom of the hierarchy, just above @everyone.
    let yaml = std::fs::read_to_string(d.join("guild.yaml")).unwrap();
    let edited = yaml.replacen(
        "  - name: \"@everyone\"",
        "  - name: Tour Guide\n    hoist: true\n  - name: \"@everyone\"",
        1,
    );
    assert_ne!(edited, yaml, "the export has a roles list");
    std::fs::write(d.join("guild.yaml"), edited).unwrap();

    let (code, out, err) = guildctl(
        d,
        &[
            &["plan", "-f", "guild.yaml", "--detailed-exitcode"][..],
            &sandbox,
        ]
        .concat(),
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("create role Tour Guide"), "{out}");

    let (code, out, err) = guildctl(
        d,
        &[&["apply", "-f", "guild.yaml", "--yes"][..], &sandbox].concat(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("Sandbox state saved to sandbox.json"), "{err}");
    let state = std::fs::read_to_string(d.join("sandbox.json")).unwrap();
    assert!(state.contains("\"Tour Guide\""));

    // A separate process: the saved guild has the role, so nothing is left to do.
    let (code, out, err) = guildctl(
        d,
        &[
            &["plan", "-f", "guild.yaml", "--detailed-exitcode"][..],
            &sandbox,
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("No changes"), "{out}");
}
