//! Safe by construction (issue 9): the deletion gate, `protect`, the guild a manifest
//! names, and saved plans bound to their manifest, guild and guildctl version. The real
//! binary runs against the emulator over loopback HTTP, as in tests/suite/end_to_end.rs.

use crate::common;

use common::{Harness, Run};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// One channel declared, every other channel pruned: 17 of the default guild's 18
/// channels, and the 2 webhooks in #mod-log and #general go with their channels.
const PRUNE_ALL_BUT_ONE: &str =
    "version: 1\nchannels:\n  - name: bot-spam\nprune: { channels: true }\n";

/// `guildctl ARGS` against the emulator with extra (or removed, when the value is `None`)
/// environment variables.
async fn run_env(h: &Harness, args: &[&str], env: &[(&str, Option<&str>)]) -> Run {
    let mut cmd = h.command(args);
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    Run::of(cmd.output().await.expect("guildctl runs"))
}

/// The emulator's request log, read over HTTP as any tool would.
async fn request_log(h: &Harness) -> Vec<Value> {
    let root = h.emu.api_base.trim_end_matches("/api/v10");
    reqwest::get(format!("{root}/_emulator/requests"))
        .await
        .expect("request log")
        .json()
        .await
        .expect("request log JSON")
}

async fn writes_logged(h: &Harness) -> Vec<Value> {
    request_log(h)
        .await
        .into_iter()
        .filter(|r| r["method"] != "GET")
        .collect()
}

fn channel_count(h: &Harness) -> usize {
    h.guild().channels.len()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test]
async fn plan_shows_in_every_format_that_apply_will_refuse_a_mass_deletion() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", PRUNE_ALL_BUT_ONE);
    let m = m.to_str().unwrap();

    let text = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    // plan itself succeeds: changes pending.
    text.assert_code(2);
    assert!(
        text.stdout.contains(
            "Apply will refuse: deletes 17 of 18 channels (94%), above the default limit of 5 (30% of 18, at least 2, at most 10); to allow its 19 deletion(s) (17 channels, 2 webhooks with their channels), pass --allow-deletes 19 to apply, or set `safety: { allow_deletes: 19 }` in the manifest (--yes does not)"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("webhook `Mod Mail` (id 849074983010304000) is deleted with Staff/#mod-log"),
        "{}",
        text.stdout
    );

    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(0);
    assert!(
        md.stdout
            .contains("> [!CAUTION]\n> **Apply will refuse:** deletes 17 of 18 channels \\(94%\\)"),
        "{}",
        md.stdout
    );

    let json = h.run(&["plan", "-f", m, "--format", "json"]).await;
    json.assert_code(0);
    let plan: Value = serde_json::from_str(&json.stdout).unwrap();
    let gate = &plan["deletion_gate"];
    assert_eq!(gate["refused"], true);
    assert_eq!(gate["deletes"], 19);
    assert_eq!(
        gate["kinds"],
        json!([
            {"kind": "roles", "live": 8, "deletes": 0, "limit": 2},
            {"kind": "channels", "live": 18, "deletes": 17, "limit": 5},
            {"kind": "webhooks", "live": 4, "deletes": 2, "with_channels": 2, "limit": 2}
        ])
    );
    assert!(
        gate["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("deletes 17 of 18 channels (94%)")
    );
    assert!(writes_logged(&h).await.is_empty(), "plan never writes");
}

#[tokio::test]
async fn apply_yes_does_not_lift_the_deletion_gate_and_nothing_is_written() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", PRUNE_ALL_BUT_ONE);
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "error: apply refused: the plan deletes 17 of 18 channels (94%), above the default limit of 5"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Nothing was changed"), "{}", run.stderr);
    let log = request_log(&h).await;
    assert!(!log.is_empty(), "apply read the guild");
    assert!(
        log.iter().all(|r| r["method"] == "GET"),
        "no write: {log:?}"
    );
    assert_eq!(channel_count(&h), 18);
}

#[tokio::test]
async fn allow_deletes_must_name_at_least_the_plans_deletions() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", PRUNE_ALL_BUT_ONE);
    let m = m.to_str().unwrap();

    let short = h
        .run(&["apply", "-f", m, "--yes", "--allow-deletes", "18"])
        .await;
    short.assert_code(1);
    assert!(
        short.stderr.contains(
            "apply refused: the plan deletes 19 object(s), more than the 18 that --allow-deletes 18 allows; to allow its 19 deletion(s) (17 channels, 2 webhooks with their channels), pass --allow-deletes 19 (--yes does not)"
        ),
        "{}",
        short.stderr
    );
    assert!(writes_logged(&h).await.is_empty());

    let exact = h
        .run(&["apply", "-f", m, "--yes", "--allow-deletes", "19"])
        .await;
    exact.assert_code(0);
    assert!(
        exact.stdout.contains(
            "Deletion gate: passes; deletes 17 of 18 channels (94%) and 2 of 4 webhooks (50%, 2 with their channels), allowed by --allow-deletes 19"
        ),
        "{}",
        exact.stdout
    );
    let names: Vec<String> = h.guild().channels.into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["bot-spam"]);
    let deletes = writes_logged(&h)
        .await
        .into_iter()
        .filter(|r| r["method"] == "DELETE")
        .count();
    assert_eq!(deletes, 17);
}

#[tokio::test]
async fn the_manifest_can_allow_deletions_by_number() {
    let h = Harness::start().await;
    let too_few = h.manifest(
        "few.yaml",
        &format!("{PRUNE_ALL_BUT_ONE}safety: {{ allow_deletes: 10 }}\n"),
    );
    let run = h
        .run(&["apply", "-f", too_few.to_str().unwrap(), "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "deletes 19 object(s), more than the 10 that `safety.allow_deletes: 10` allows; to allow its 19 deletion(s) (17 channels, 2 webhooks with their channels), raise `safety.allow_deletes` to 19 in the manifest, or pass --allow-deletes 19 to apply"
        ),
        "{}",
        run.stderr
    );
    assert!(writes_logged(&h).await.is_empty());

    let enough = h.manifest(
        "enough.yaml",
        &format!("{PRUNE_ALL_BUT_ONE}safety: {{ allow_deletes: 19 }}\n"),
    );
    let plan = h.run(&["plan", "-f", enough.to_str().unwrap()]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout
            .contains("allowed by `safety.allow_deletes: 19`"),
        "{}",
        plan.stdout
    );
    assert!(!plan.stdout.contains("Apply will refuse"));
    h.run(&["apply", "-f", enough.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    assert_eq!(channel_count(&h), 1);
}

#[tokio::test]
async fn small_deletions_pass_by_default_and_allow_deletes_zero_refuses_them() {
    let h = Harness::start().await;
    // Every role but Contributor and Muted, in their live order: 2 of 8 roles go.
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Admin\n  - name: guildctl\n  - name: Moderator\n  - name: Helper\n  - name: Server Booster\n  - name: Member\n  - name: \"@everyone\"\nprune: { roles: true }\n",
    );
    let m = m.to_str().unwrap();
    let zero = h
        .run(&["apply", "-f", m, "--yes", "--allow-deletes", "0"])
        .await;
    zero.assert_code(1);
    assert!(
        zero.stderr.contains(
            "the plan deletes 2 object(s), more than the 0 that --allow-deletes 0 allows"
        ),
        "{}",
        zero.stderr
    );
    assert!(writes_logged(&h).await.is_empty());

    let run = h.run(&["apply", "-f", m, "--yes"]).await;
    run.assert_code(0);
    assert!(
        run.stdout.contains(
            "Deletion gate: passes; deletes 2 of 8 roles (25%), within the default limits"
        ),
        "{}",
        run.stdout
    );
    let roles: Vec<String> = h.guild().roles.into_iter().map(|r| r.name).collect();
    assert!(!roles.contains(&"Muted".to_owned()), "{roles:?}");
    assert!(!roles.contains(&"Contributor".to_owned()), "{roles:?}");
}

#[tokio::test]
async fn protect_keeps_a_live_object_that_prune_would_delete() {
    // A second "Muted" made by hand: the manifest's Muted entry matches one, and
    // `prune.roles` would delete the other unless the entry protects every role it names.
    let mut state = discord_emulator::default_state();
    state.guilds[0].roles.push(
        serde_json::from_value(json!({"id": "930000000000000001", "name": "Muted", "position": 1}))
            .unwrap(),
    );
    let h = Harness::with_state(Some(state)).await;
    let roles = "version: 1\nroles:\n  - name: Admin\n  - name: guildctl\n  - name: Moderator\n  - name: Helper\n  - name: Contributor\n  - name: Server Booster\n  - name: Member\n  - name: Muted\n    PROTECT\n  - name: \"@everyone\"\nprune: { roles: true }\n";

    let unprotected = h.manifest("plain.yaml", &roles.replace("    PROTECT\n", ""));
    let plan = h.run(&["plan", "-f", unprotected.to_str().unwrap()]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout.contains("- delete role Muted"),
        "without protect the duplicate is deleted: {}",
        plan.stdout
    );

    let protected = h.manifest("protected.yaml", &roles.replace("PROTECT", "protect: true"));
    let p = protected.to_str().unwrap();
    let plan = h.run(&["plan", "-f", p, "--detailed-exitcode"]).await;
    plan.assert_code(0);
    assert!(!plan.stdout.contains("delete role"), "{}", plan.stdout);
    assert!(
        plan.stdout.contains(
            "! role `Muted` (id 930000000000000001) is kept although `prune.roles` is on: roles[7] protects it\n"
        ),
        "{}",
        plan.stdout
    );
    h.run(&["apply", "-f", p, "--yes"]).await.assert_code(0);
    let muted = h.guild().roles.iter().filter(|r| r.name == "Muted").count();
    assert_eq!(muted, 2);
    assert!(writes_logged(&h).await.is_empty());
}

#[tokio::test]
async fn a_protected_webhook_in_a_channel_the_plan_deletes_is_a_planning_problem() {
    let h = Harness::start().await;
    // Mod Mail lives in #mod-log, which this manifest does not declare and prunes.
    let m = h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - name: bot-spam\n  - name: Staff\n    type: category\n    channels: [{ name: mod-chat }]\nwebhooks:\n  - name: Mod Mail\n    channel: Staff/mod-log\n    protect: true\nprune: { channels: true }\nsafety: { allow_deletes: 40 }\n",
    );
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "error: webhook `Mod Mail` (webhooks[0]) is in Staff/#mod-log, which this plan deletes: Discord would delete the webhook with it"
        ),
        "{}",
        run.stderr
    );
    assert!(writes_logged(&h).await.is_empty());
}

#[tokio::test]
async fn a_manifest_for_one_guild_is_refused_for_another_before_any_request() {
    let h = Harness::start().await;
    let other = "111111111111111111";
    let m = h.manifest(
        "m.yaml",
        &format!("version: 1\nguild: \"{other}\"\nroles:\n  - name: Member\n    hoist: true\n"),
    );
    let m = m.to_str().unwrap();
    let gid = h.emu.guild_id.clone();
    for args in [
        vec!["plan", "-f", m],
        vec!["apply", "-f", m, "--yes"],
        vec!["drift", "-f", m],
    ] {
        let run = h.run(&args).await;
        run.assert_code(1);
        let expected = format!(
            "m.yaml is for guild {other} (its `guild:`), but GUILDCTL_GUILD names guild {gid}; a manifest that names its guild is applied to that guild only: unset GUILDCTL_GUILD, or remove `guild:` from the manifest to choose the guild when running. Nothing was sent to Discord"
        );
        assert!(run.stderr.contains(&expected), "{args:?}: {}", run.stderr);
    }
    let flag = run_env(
        &h,
        &["plan", "-f", m, "--guild", &gid],
        &[("GUILDCTL_GUILD", None)],
    )
    .await;
    flag.assert_code(1);
    assert!(
        flag.stderr
            .contains(&format!("but --guild names guild {gid}; ")),
        "{}",
        flag.stderr
    );
    assert!(flag.stderr.contains("drop --guild"), "{}", flag.stderr);
    assert!(request_log(&h).await.is_empty(), "no request at all");

    // The same id is fine, and a manifest without `guild:` takes the environment's.
    let same = h.manifest(
        "same.yaml",
        &format!("version: 1\nguild: \"{gid}\"\nroles:\n  - name: Member\n"),
    );
    h.run(&["plan", "-f", same.to_str().unwrap()])
        .await
        .assert_code(0);
    let from_manifest = run_env(
        &h,
        &["plan", "-f", same.to_str().unwrap()],
        &[("GUILDCTL_GUILD", None)],
    )
    .await;
    from_manifest.assert_code(0);
    assert!(from_manifest.stdout.contains(&format!("({gid})")));
}

#[tokio::test]
async fn every_plan_format_shows_the_digests() {
    let h = Harness::start().await;
    let yaml = "version: 1\nroles:\n  - name: Member\n    hoist: true\n";
    let m = h.manifest("m.yaml", yaml);
    let m = m.to_str().unwrap();
    let manifest_sha = sha256_hex(yaml.as_bytes());

    let json = h.run(&["plan", "-f", m, "--format", "json"]).await;
    json.assert_code(0);
    let plan: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(plan["manifest_sha256"], manifest_sha.as_str());
    assert_eq!(plan["guildctl_version"], env!("CARGO_PKG_VERSION"));
    let changes_sha = plan["changes_sha256"].as_str().unwrap().to_owned();
    assert_eq!(changes_sha.len(), 64);

    let text = h.run(&["plan", "-f", m]).await;
    text.assert_code(0);
    assert!(
        text.stdout
            .contains(&format!("Changes digest:  sha256:{changes_sha}\n")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains(&format!("Manifest digest: sha256:{manifest_sha}\n")),
        "{}",
        text.stdout
    );
    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(0);
    assert!(
        md.stdout
            .contains(&format!("Changes digest:  `sha256:{changes_sha}`")),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout
            .contains(&format!("Manifest digest: `sha256:{manifest_sha}`")),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout
            .contains(&format!("by guildctl `{}`", env!("CARGO_PKG_VERSION")))
    );

    // The same manifest against the same guild: the same digest, for reviewers to match.
    let again = h.run(&["plan", "-f", m, "--format", "json"]).await;
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again["changes_sha256"], changes_sha.as_str());
    // Another change: another digest.
    let other = h.manifest(
        "o.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: false\n    mentionable: true\n",
    );
    let other = h
        .run(&["plan", "-f", other.to_str().unwrap(), "--format", "json"])
        .await;
    let other: Value = serde_json::from_str(&other.stdout).unwrap();
    assert_ne!(other["changes_sha256"], changes_sha.as_str());
}

async fn digest(h: &Harness) -> String {
    let run = h.run(&["plan", "-f", "guild", "--format", "json"]).await;
    run.assert_code(0);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    plan["manifest_sha256"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_folder_manifests_digest_covers_its_file_names() {
    let h = Harness::start().await;
    let dir = h.dir.path().join("guild");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.yaml"), "version: 1\n").unwrap();
    std::fs::write(dir.join("roles.yaml"), "roles:\n  - name: Member\n").unwrap();
    let first = digest(&h).await;
    assert_eq!(first.len(), 64);
    assert_eq!(digest(&h).await, first);
    // Same bytes under another name: another digest.
    std::fs::rename(dir.join("roles.yaml"), dir.join("more-roles.yaml")).unwrap();
    assert_ne!(digest(&h).await, first);
}

/// Makes a plan of one change, saved to plan.json; returns the saved JSON.
async fn saved_plan(h: &Harness, manifest: &str) -> Value {
    h.run(&["plan", "-f", manifest, "--out", "plan.json"])
        .await
        .assert_code(0);
    serde_json::from_str(&std::fs::read_to_string(h.dir.path().join("plan.json")).unwrap()).unwrap()
}

#[tokio::test]
async fn a_saved_plan_is_refused_with_another_manifest() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: true\n",
    );
    let saved = saved_plan(&h, m.to_str().unwrap()).await;
    // Another manifest (here one that would plan the same change, commented differently).
    let other_yaml = "# reviewed?\nversion: 1\nroles:\n  - name: Member\n    hoist: true\n";
    let other = h.manifest("other.yaml", other_yaml);
    h.emu.clear_requests();
    let run = h
        .run(&[
            "apply",
            "--plan",
            "plan.json",
            "-f",
            other.to_str().unwrap(),
            "--yes",
        ])
        .await;
    run.assert_code(1);
    let expected = format!(
        "refusing to apply plan.json with {}: it was made from a manifest with sha256 {}; the manifest given now has sha256 {}. Apply it with the manifest and guild it was made for",
        other.display(),
        saved["manifest_sha256"].as_str().unwrap(),
        sha256_hex(other_yaml.as_bytes())
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    assert!(run.stderr.contains("nothing was sent to Discord"));
    assert!(
        request_log(&h).await.is_empty(),
        "refused before any request"
    );

    // With its own manifest it applies.
    h.run(&[
        "apply",
        "--plan",
        "plan.json",
        "-f",
        m.to_str().unwrap(),
        "--yes",
    ])
    .await
    .assert_code(0);
    assert_eq!(writes_logged(&h).await.len(), 1);
}

#[tokio::test]
async fn a_saved_plan_made_by_another_version_or_edited_is_refused() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: true\n",
    );
    let m = m.to_str().unwrap();
    let saved = saved_plan(&h, m).await;
    let this = env!("CARGO_PKG_VERSION");

    let mut old = saved.clone();
    old["guildctl_version"] = json!("0.0.1");
    std::fs::write(h.dir.path().join("old.json"), old.to_string()).unwrap();
    h.emu.clear_requests();
    let run = h
        .run(&["apply", "--plan", "old.json", "-f", m, "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "refusing to apply old.json with {m}: it was made by guildctl 0.0.1; this is guildctl {this}."
        )),
        "{}",
        run.stderr
    );

    // Its operations edited after review: the changes digest no longer matches.
    let mut edited = saved.clone();
    edited["operations"][0]["body"]["permissions"] = json!("8");
    std::fs::write(h.dir.path().join("edited.json"), edited.to_string()).unwrap();
    let run = h
        .run(&["apply", "--plan", "edited.json", "-f", m, "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "its changes were edited after it was made (changes_sha256 {}, but they hash to ",
            saved["changes_sha256"].as_str().unwrap()
        )),
        "{}",
        run.stderr
    );

    // Indexes that point nowhere are refused, not followed.
    let mut broken = saved.clone();
    broken["operations"][0]["change"] = json!(99);
    std::fs::write(h.dir.path().join("broken.json"), broken.to_string()).unwrap();
    let run = h
        .run(&["apply", "--plan", "broken.json", "-f", m, "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("its operation 0 refers to a change or an operation it does not have"),
        "{}",
        run.stderr
    );

    // Made for another guild.
    let mut elsewhere = saved.clone();
    elsewhere["guild_id"] = json!("111111111111111111");
    std::fs::write(h.dir.path().join("elsewhere.json"), elsewhere.to_string()).unwrap();
    let run = h
        .run(&["apply", "--plan", "elsewhere.json", "-f", m, "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "it was made for guild 111111111111111111; this run targets guild {}",
            h.emu.guild_id
        )),
        "{}",
        run.stderr
    );
    assert!(
        request_log(&h).await.is_empty(),
        "refused before any request"
    );
}

#[tokio::test]
async fn a_saved_plan_keeps_its_deletion_gate_at_apply() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", PRUNE_ALL_BUT_ONE);
    let m = m.to_str().unwrap();
    let saved = saved_plan(&h, m).await;
    assert_eq!(saved["deletion_gate"]["refused"], true);

    // A saved verdict edited to pass is not believed: apply judges the plan again.
    let mut forged = saved.clone();
    forged["deletion_gate"] = json!({"refused": false, "deletes": 0, "kinds": []});
    std::fs::write(h.dir.path().join("forged.json"), forged.to_string()).unwrap();
    let run = h
        .run(&["apply", "--plan", "forged.json", "-f", m, "--yes"])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("apply refused: the plan deletes 17 of 18 channels (94%)"),
        "{}",
        run.stderr
    );
    assert!(writes_logged(&h).await.is_empty());

    h.run(&[
        "apply",
        "--plan",
        "plan.json",
        "-f",
        m,
        "--yes",
        "--allow-deletes",
        "19",
    ])
    .await
    .assert_code(0);
    assert_eq!(channel_count(&h), 1);
}

/// A prune the bot cannot carry out points at the `prune:` line, names the role and offers
/// both ways out (issue 20, point 4); the first way out plans.
#[tokio::test]
async fn a_prune_of_a_role_above_the_bot_points_at_prune_and_offers_protect() {
    let h = Harness::start().await;
    let m = h.manifest(
        "g.yaml",
        "version: 1\nroles:\n  - name: Moderator\nprune: { roles: true }\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    for expected in [
        "error: `prune.roles` would delete role `Admin`, which is at or above the bot's highest role `guildctl`, so the bot cannot delete it",
        "g.yaml:4:17",
        "prune: { roles: true }",
        "declare it at the top of `roles` with `protect: true` (`- { name: \"Admin\", protect: true }`)",
        "move the bot's role above it in Discord",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{expected:?} in\n{}",
            run.stderr
        );
    }
    let fixed = h.manifest(
        "fixed.yaml",
        "version: 1\nroles:\n  - { name: \"Admin\", protect: true }\n  - name: Moderator\nprune: { roles: true }\n",
    );
    let run = h.run(&["plan", "-f", fixed.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(!run.stdout.contains("delete role Admin"), "{}", run.stdout);
}

/// The library operation both `apply` and `apply --all` run (`ops::plan_for_apply`): the
/// deletion gate is judged once, as the plan is made, with the allowance the request
/// carries; a plan the gate refuses comes back whole beside the refusal; nothing is written.
#[tokio::test]
async fn the_apply_pipeline_judges_the_gate_once_with_the_allowance_it_is_given() {
    use guildctl::discord::{Client, Token};
    use guildctl::ops::{self, ApplyRefused, ApplyRequest};
    use guildctl::plan::{PlanOptions, deletion_gate::AllowanceSource};

    let h = Harness::start().await;
    let m = h.manifest("m.yaml", PRUNE_ALL_BUT_ONE);
    let loaded = guildctl::manifest::load(&m).expect("manifest");
    let client = Client::new(&h.emu.api_base, Token::new(h.emu.token.clone()).unwrap()).unwrap();
    let snap = guildctl::snapshot::Snapshot::fetch(&client, &h.emu.guild_id)
        .await
        .expect("snapshot");
    h.emu.clear_requests();

    let refused = ops::plan_for_apply(&loaded, &snap, ApplyRequest::default())
        .await
        .unwrap_err();
    let ApplyRefused::Unsafe { plan, error } = &refused else {
        panic!("{refused}");
    };
    assert!(plan.deletion_gate.refused);
    assert_eq!(plan.deletion_gate.deletes, 19);
    assert_eq!(refused.plan(), Some(&**plan), "shown with its refusal");
    assert!(
        error.message.contains("deletes 17 of 18 channels"),
        "{}",
        error.message
    );

    let request = ApplyRequest {
        options: PlanOptions {
            allow_deletes: Some(19),
            ..PlanOptions::default()
        },
        ..ApplyRequest::default()
    };
    let plan = ops::plan_for_apply(&loaded, &snap, request)
        .await
        .expect("allowed");
    assert!(!plan.deletion_gate.refused);
    let allowance = plan.deletion_gate.allowance.expect("the flag's allowance");
    assert_eq!(allowance.deletes, 19);
    assert_eq!(allowance.source, AllowanceSource::Flag);
    assert!(h.writes().is_empty(), "planning writes nothing");
}
