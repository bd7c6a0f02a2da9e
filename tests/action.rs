//! The GitHub Action's script, run as GitHub would run it (bash, with its
//! environment and output files) against the emulator.

mod common;

use common::{Harness, example};
use serde_json::Value;

/// The `run` script of the action step with id `run`.
fn action_script() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml")).unwrap();
    let action: Value = serde_saphyr::from_str(&text).expect("action.yml is YAML");
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "run")
        .and_then(|s| s["run"].as_str())
        .expect("a step with id run")
        .to_owned()
}

struct ActionRun {
    code: i32,
    outputs: String,
    summary: String,
    log: String,
}

async fn run_action(h: &Harness, command: &str, manifest: &str) -> ActionRun {
    let temp = h.dir.path().join(format!("runner-{command}"));
    std::fs::create_dir_all(temp.join("guildctl/bin")).unwrap();
    let bin = temp.join("guildctl/bin/guildctl");
    if !bin.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_guildctl"), &bin).unwrap();
    }
    let outputs = temp.join("outputs");
    let summary = temp.join("summary");
    std::fs::write(&outputs, "").unwrap();
    std::fs::write(&summary, "").unwrap();
    let out = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(action_script())
        .env("RUNNER_TEMP", &temp)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("DISCORD_TOKEN", &h.emu.token)
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_GUILD", &h.emu.guild_id)
        .env("GUILDCTL_COMMAND", command)
        .env("GUILDCTL_MANIFEST", manifest)
        .env("GUILDCTL_REASON", "")
        .output()
        .await
        .unwrap();
    ActionRun {
        code: out.status.code().unwrap_or(-1),
        outputs: std::fs::read_to_string(&outputs).unwrap(),
        summary: std::fs::read_to_string(&summary).unwrap(),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[tokio::test]
async fn the_action_validates_plans_applies_and_reports_drift() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();

    let validate = run_action(&h, "validate", m).await;
    assert_eq!(validate.code, 0, "{}", validate.log);

    let plan = run_action(&h, "plan", m).await;
    assert_eq!(plan.code, 0, "{}", plan.log);
    assert!(plan.outputs.contains("changes=true"), "{}", plan.outputs);
    assert!(
        plan.summary.starts_with("### guildctl plan"),
        "{}",
        plan.summary
    );
    assert!(h.writes().is_empty(), "plan writes nothing");

    let apply = run_action(&h, "apply", m).await;
    assert_eq!(apply.code, 0, "{}", apply.log);
    assert!(!h.writes().is_empty());

    // Nothing managed drifted, but the default guild has hand-made high-risk objects
    // the manifest does not declare (the Admin role, two webhooks): drift fails on them.
    let drift = run_action(&h, "drift", m).await;
    assert_eq!(drift.code, 2, "{}", drift.log);
    assert!(drift.outputs.contains("changes=true"), "{}", drift.outputs);
    assert!(drift.summary.contains("No changes"), "{}", drift.summary);
    assert!(drift.summary.contains("HIGH"), "{}", drift.summary);
    for run in [&validate, &plan, &apply, &drift] {
        assert!(!run.log.contains(&h.emu.token));
        assert!(!run.summary.contains(&h.emu.token));
    }
}

#[tokio::test]
async fn drift_fails_the_job_and_bad_manifests_are_annotated() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let drift = run_action(&h, "drift", m.to_str().unwrap()).await;
    assert_eq!(drift.code, 2, "{}", drift.log);
    assert!(drift.outputs.contains("changes=true"));

    let bad = h.manifest(
        "bad.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: \"#ffffff\"\n",
    );
    let validate = run_action(&h, "validate", bad.to_str().unwrap()).await;
    assert_eq!(validate.code, 1, "{}", validate.log);
    assert!(validate.log.contains("::error file="), "{}", validate.log);
    assert!(validate.log.contains("line=4"), "{}", validate.log);
}
