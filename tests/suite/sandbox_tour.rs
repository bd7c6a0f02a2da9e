//! The sandbox remembers across commands with `--sandbox-state FILE`: export,
//! edit, plan, apply, and a later plan sees what the apply did; `guildctl emulator
//! call` makes a hand change in it. (tests/suite/readme_tour.rs runs the README's tour.)

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

/// `guildctl emulator call`: a hand change as a member of the saved guild, with their
/// permissions, recorded in the audit log, saved back without the call's token.
#[test]
fn a_hand_change_is_made_as_a_member_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let general = "/channels/849074915901440000";
    let slowmode = r#"{"rate_limit_per_user": 30}"#;
    let call = |who: &str, args: &[&str]| {
        let base = ["emulator", "call", "--state", "sandbox.json", "--as", who];
        guildctl(d, &[&base[..], args].concat())
    };
    // A state that does not exist is refused, unless --new starts it.
    let (code, _, err) = call("ferris", &["GET", general]);
    assert_eq!(code, 1);
    assert!(err.contains("sandbox.json does not exist"), "{err}");
    let (code, out, err) = call("ferris", &["--new", "GET", general]);
    assert_eq!(code, 0, "{out}{err}");
    let saved = std::fs::read_to_string(d.join("sandbox.json")).unwrap();

    // alice moderates but may not manage channels: Discord refuses, nothing is written.
    let (code, out, err) = call("alice", &["PATCH", general, slowmode]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("403") && err.contains("is unchanged"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("sandbox.json")).unwrap(),
        saved
    );

    let (code, out, err) = call("nobody", &["GET", general]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no user \"nobody\"") && err.contains("ferris"),
        "{out}{err}"
    );
    let (code, _, err) = call("ferris", &["PATCH", general, "{not json"]);
    assert_eq!(code, 1);
    assert!(err.contains("the body is not JSON"), "{err}");

    let (code, out, err) = call(
        "ferris",
        &["--reason", "too busy tonight", "PATCH", general, slowmode],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"rate_limit_per_user\": 30"), "{out}");
    assert!(
        err.contains("as ferris: done; saved to sandbox.json"),
        "{err}"
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("sandbox.json")).unwrap()).unwrap();
    let guild = &state["guilds"][0];
    let entry = guild["audit_log"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(entry["user_id"], guild["owner_id"], "{entry}");
    assert_eq!(entry["reason"], "too busy tonight");
    let tokens = state["tokens"].as_array().cloned().unwrap_or_default();
    assert!(
        tokens
            .iter()
            .all(|t| !t["token"].as_str().unwrap_or("").starts_with("hand-change")),
        "the call's token is not kept: {tokens:?}"
    );

    // A webhook made by hand: its token is in the state, never in the output.
    let (code, out, err) = call(
        "ferris",
        &[
            "POST",
            "/channels/849074962038784000/webhooks",
            r#"{"name": "By Hand"}"#,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"token\": \"(hidden)\""), "{out}");
    let state = std::fs::read_to_string(d.join("sandbox.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    let hooks = state["guilds"][0]["webhooks"].as_array().unwrap();
    for token in hooks.iter().filter_map(|w| w["token"].as_str()) {
        assert!(!out.contains(token) && !err.contains(token));
    }
}
