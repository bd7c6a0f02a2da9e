//! The whole guild: welcome screen, onboarding, widget, webhooks, and `export`
//! round trips, run as a user would against the emulator.

use crate::common;

use common::{GuildNames, Harness, example};
use serde_json::Value;

/// Every secret the emulator knows: the bot token and all webhook tokens.
fn secrets(h: &Harness) -> Vec<String> {
    let mut out = vec![h.emu.token.clone()];
    for g in h.emu.state().guilds {
        out.extend(g.webhooks.iter().filter_map(|w| w.token.clone()));
    }
    assert!(out.len() > 1, "the guild has webhooks with tokens");
    out
}

fn assert_no_secret(h: &Harness, what: &str, text: &str) {
    for s in secrets(h) {
        assert!(!text.contains(&s), "a secret appears in {what}");
    }
}

async fn export_round_trip(h: &Harness) {
    let export = h.run(&["export", "-o", "exported.yaml"]).await;
    export.assert_code(0);
    // The seven, and the listings of emojis, soundboard sounds, stickers, AutoMod rules and
    // scheduled events (issue 33): an export holds them.
    assert_eq!(h.requests().len(), 12, "export reads in twelve calls");
    let path = h.dir.path().join("exported.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_no_secret(h, "the export", &text);
    // Editors find the schema from the first line (docs/editor.md).
    let modeline = format!(
        "# yaml-language-server: $schema={}\n",
        guildctl::manifest::SCHEMA_ID
    );
    assert!(text.starts_with(&modeline), "{text}");
    // What guildctl writes loads by the fast parse, to the tree serde-saphyr would build.
    assert!(guildctl::manifest::load::parses_fast(&text));
    guildctl::manifest::load::assert_parses_agree(&text);
    let p = path.to_str().unwrap();
    h.run(&["validate", "-f", p]).await.assert_code(0);
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", p, "--detailed-exitcode"]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);
    // The export declares `emojis:`, `soundboard:`, `stickers:`, `automod:` and `events:`: a
    // listing each.
    assert_eq!(h.requests().len(), 12, "plan reads in twelve calls");
    h.run(&["apply", "-f", p, "--yes"]).await.assert_code(0);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn export_of_the_default_guild_plans_back_to_no_changes() {
    let h = Harness::start().await;
    export_round_trip(&h).await;
}

#[tokio::test]
async fn export_of_a_large_guild_plans_back_to_no_changes() {
    let state = discord_emulator::large_state(discord_emulator::LargeStateOptions {
        roles: 100,
        channels: 200,
        webhooks: 10,
        members: 50,
        community: true,
    });
    let g = &state.guilds[0];
    assert!(g.channels.len() >= 200 && g.roles.len() >= 100);
    assert!(g.onboarding.prompts.len() >= 10);
    assert!(g.onboarding.enabled);
    assert_eq!(g.welcome_screen.welcome_channels.len(), 5);
    assert!(g.widget_enabled);
    assert!(g.webhooks.len() >= 10);
    let h = Harness::with_state(Some(state)).await;
    export_round_trip(&h).await;
}

#[tokio::test]
async fn the_example_uses_every_section_and_converges() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let text = std::fs::read_to_string(&m).unwrap();
    for section in [
        "settings:",
        "roles:",
        "channels:",
        "welcome_screen:",
        "onboarding:",
        "widget:",
        "webhooks:",
        "prune:",
    ] {
        assert!(
            text.contains(&format!("\n{section}")),
            "the example lacks {section}"
        );
    }
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    h.emu.clear_requests();
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    let g = h.guild();
    assert!(g.features.iter().any(|f| f == "WELCOME_SCREEN_ENABLED"));
    assert!(g.onboarding.enabled);
    assert!(g.widget_enabled);
}

async fn refused(yaml: &str, expect: &[&str]) {
    let h = Harness::start().await;
    std::fs::create_dir_all(h.dir.path().join("m")).unwrap();
    std::fs::write(h.dir.path().join("outside.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    let m = h.manifest("m/m.yaml", yaml);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    for e in expect {
        assert!(run.stderr.contains(e), "expected `{e}` in:\n{}", run.stderr);
    }
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn onboarding_below_its_requirements_is_refused_with_counts() {
    refused(
        r#"version: 1
channels:
  - name: Information
    type: category
    overwrites: [{ role: "@everyone", deny: [send_messages] }]
    channels:
      - { name: welcome, sync_permissions: true }
      - { name: rules, sync_permissions: true }
      - { name: faq, sync_permissions: true }
onboarding:
  enabled: true
  default_channels: [welcome, rules, faq, general, off-topic, memes, help]
"#,
        &["7 channels", "4 of them writable"],
    )
    .await;
}

#[tokio::test]
async fn a_welcome_screen_with_six_channels_is_refused() {
    refused(
        r#"version: 1
welcome_screen:
  enabled: true
  channels:
    - { channel: welcome, description: a }
    - { channel: rules, description: b }
    - { channel: faq, description: c }
    - { channel: general, description: d }
    - { channel: help, description: e }
    - { channel: memes, description: f }
"#,
        &["6", "5"],
    )
    .await;
}

#[tokio::test]
async fn a_webhook_named_discord_bot_is_refused() {
    refused(
        "version: 1\nwebhooks:\n  - { name: Discord Bot, channel: general }\n",
        &["discord"],
    )
    .await;
}

#[tokio::test]
async fn community_without_a_rules_channel_is_refused() {
    refused(
        "version: 1\nsettings:\n  community: true\n  verification_level: low\n  explicit_content_filter: all_members\n  public_updates_channel: general\n",
        &["rules"],
    )
    .await;
}

#[tokio::test]
async fn an_avatar_outside_the_manifest_folder_is_refused() {
    refused(
        "version: 1\nwebhooks:\n  - { name: Deploys, channel: general, avatar: ../outside.png }\n",
        &["avatar"],
    )
    .await;
}

#[tokio::test]
async fn webhooks_are_created_renamed_moved_and_pruned() {
    let h = Harness::start().await;
    let ci_id = h.guild().webhook_named("CI").id.clone();
    std::fs::create_dir_all(h.dir.path().join("assets")).unwrap();
    std::fs::copy(
        example("assets/ci.png"),
        h.dir.path().join("assets/deploy.png"),
    )
    .unwrap();
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
webhooks:
  - { name: Continuous Integration, previous_names: [CI], channel: general }
  - { name: Deploys, channel: bot-spam, avatar: assets/deploy.png }
prune: { webhooks: true }
"#,
    );
    let m = m.to_str().unwrap();
    let run = h
        .run(&["apply", "-f", m, "--yes", "--webhook-urls", "urls.json"])
        .await;
    run.assert_code(0);
    let g = h.guild();
    let ci = g
        .webhooks
        .iter()
        .find(|w| w.id == ci_id)
        .expect("renamed in place");
    assert_eq!(ci.name, "Continuous Integration");
    let general = g.channel_named("general");
    assert_eq!(ci.channel_id.as_deref(), Some(general.id.as_str()));
    let deploys = g.webhook_named("Deploys");
    assert!(deploys.avatar.is_some());
    // People's incoming webhooks are pruned; the channel follower is not managed.
    assert!(
        !g.webhooks
            .iter()
            .any(|w| w.name == "GitHub" || w.name == "Mod Mail")
    );
    assert!(g.webhooks.iter().any(|w| w.kind == 2));

    let urls_path = h.dir.path().join("urls.json");
    let urls: Value = serde_json::from_str(&std::fs::read_to_string(&urls_path).unwrap()).unwrap();
    let token = deploys.token.clone().unwrap();
    assert!(
        urls["Deploys"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/webhooks/{}/{token}", deploys.id))
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&urls_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(!run.stdout.contains(&token) && !run.stderr.contains(&token));

    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn no_token_appears_in_any_output_or_file() {
    let h = Harness::start().await;
    let example = example("community.yaml");
    let dir = h.dir.path();
    // Work on a copy so the avatar next to the example is found.
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    for entry in std::fs::read_dir(example.parent().unwrap().join("assets")).unwrap() {
        let e = entry.unwrap();
        std::fs::copy(e.path(), dir.join("assets").join(e.file_name())).unwrap();
    }
    std::fs::copy(&example, dir.join("guild.yaml")).unwrap();
    let mut runs = Vec::new();
    runs.push(h.run(&["validate", "-f", "guild.yaml"]).await);
    runs.push(h.run(&["schema"]).await);
    for format in ["text", "markdown", "json"] {
        runs.push(
            h.run(&[
                "plan",
                "-f",
                "guild.yaml",
                "--format",
                format,
                "--out",
                "plan.json",
            ])
            .await,
        );
        runs.push(
            h.run(&["drift", "-f", "guild.yaml", "--format", format])
                .await,
        );
    }
    runs.push(h.run(&["export"]).await);
    runs.push(h.run(&["export", "-o", "export.yaml"]).await);
    runs.push(
        h.run(&[
            "apply",
            "-f",
            "guild.yaml",
            "--yes",
            "--webhook-urls",
            "urls.json",
        ])
        .await,
    );
    runs.push(
        h.run(&["apply", "-f", "guild.yaml", "--plan", "plan.json", "--yes"])
            .await,
    );
    for format in ["text", "markdown", "json"] {
        runs.push(
            h.run(&["drift", "-f", "guild.yaml", "--format", format])
                .await,
        );
    }
    runs.push(h.run(&["export", "-o", "export.yaml"]).await);
    for (i, r) in runs.iter().enumerate() {
        assert_no_secret(&h, &format!("stdout of run {i}"), &r.stdout);
        assert_no_secret(&h, &format!("stderr of run {i}"), &r.stderr);
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path.file_name().unwrap() != "urls.json" {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            assert_no_secret(&h, &path.display().to_string(), &text);
        }
    }
    // The URL file holds the new webhooks' secrets, for the user's secret store.
    let urls = std::fs::read_to_string(dir.join("urls.json")).unwrap();
    assert!(secrets(&h).iter().any(|s| urls.contains(s)));
}
