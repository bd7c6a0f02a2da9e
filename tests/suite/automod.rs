//! `automod:` (issue 33, point 1) over HTTP against the emulator: apply, converge, rename
//! in place, a trigger kind change as a gated delete and create, Discord's own mention-spam
//! rule taken over, limits refused at the manifest line, a rule turned off by hand blamed on
//! who did it, the export round trip, and the rehearsal's copy holding the rules.

use crate::common::Harness;
use discord_emulator::State;
use discord_emulator::state::BotToken;
use serde_json::{Value, json};

/// The guild owner, a human, acts with this token.
const HUMAN_TOKEN: &str = "human-owner-token-for-automod-tests";

fn state() -> State {
    let mut st = discord_emulator::default_state();
    let owner = st.guilds[0].owner_id.clone();
    st.tokens.push(BotToken {
        token: HUMAN_TOKEN.into(),
        user_id: owner,
    });
    st
}

/// The default guild's own rule, as the issue writes it, and two rules more.
const RULES: &str = "version: 1
automod:
  - name: No invite links
    trigger: { keywords: [\"discord.gg/*\"] }
    actions:
      - block: { message: Invites are not allowed here }
      - alert: mod-log
    exempt_roles: [Moderator]
    enabled: true
  - name: No slurs
    trigger: { preset: [slurs, profanity], allow: [scunthorpe] }
    actions: [block: {}]
  - name: Mention spam
    trigger: { mention_limit: 8, raid_protection: true }
    actions:
      - block: {}
      - timeout: 600
";

fn rule<'g>(
    g: &'g discord_emulator::state::Guild,
    name: &str,
) -> &'g discord_emulator::state::AutoModRule {
    g.auto_moderation_rules
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("rule {name}: {:#?}", g.auto_moderation_rules))
}

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

async fn as_human(h: &Harness, method: reqwest::Method, path: &str, body: Value, reason: &str) {
    let res = reqwest::Client::new()
        .request(method, format!("{}{path}", h.emu.api_base))
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", reason)
        .json(&body)
        .send()
        .await
        .expect("request");
    assert!(res.status().is_success(), "{path}: {}", res.status());
}

#[tokio::test]
async fn rules_are_created_with_a_reason_and_a_second_plan_is_empty() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest("m.yaml", RULES);
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    let plan = h.plan_json(m).await;
    // The seven reads of the guild and one listing of the rules.
    assert_eq!(h.requests().len(), 8, "{:#?}", h.requests());
    let changes = plan["changes"].as_array().unwrap();
    let actions: Vec<_> = changes
        .iter()
        .map(|c| {
            (
                c["action"].as_str().unwrap(),
                c["object"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [("create", "No slurs"), ("create", "Mention spam")],
        "the seeded rule matches as written: {plan:#}"
    );
    let applied = h.run(&["apply", "-f", m, "--yes"]).await;
    applied.assert_code(0);
    let posts: Vec<_> = h
        .writes()
        .into_iter()
        .filter(|w| w.path.ends_with("/auto-moderation/rules"))
        .collect();
    assert_eq!(posts.len(), 2, "{posts:#?}");
    let g = h.guild();
    let slurs = rule(&g, "No slurs");
    assert_eq!((slurs.trigger_type, slurs.enabled), (4, true));
    assert_eq!(slurs.trigger_metadata.presets, [3, 1]);
    let mentions = rule(&g, "Mention spam");
    assert_eq!(mentions.trigger_metadata.mention_total_limit, Some(8));
    assert_eq!(mentions.actions[1].metadata.duration_seconds, Some(600));
    // Each call carried apply's audit-log reason.
    let logged: Vec<_> = g
        .audit_log
        .iter()
        .filter(|e| e.action_type == 140)
        .collect();
    assert_eq!(logged.len(), 2);
    assert!(
        logged.iter().all(|e| e
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl"))),
        "{logged:#?}"
    );
    let again = h.plan_json(m).await;
    assert_eq!(again["changes"], json!([]), "{again:#}");
}

#[tokio::test]
async fn a_rule_is_renamed_in_place_and_its_fields_diffed() {
    let h = Harness::with_state(Some(state())).await;
    let id = rule(&h.guild(), "No invite links").id.clone();
    let m = h.manifest(
        "m.yaml",
        "version: 1
automod:
  - name: Invite filter
    previous_names: [No invite links]
    trigger: { keywords: [\"discord.gg/*\", \"discord.com/invite/*\"] }
    actions:
      - block: { message: Invites are not allowed here }
      - alert: mod-log
    exempt_roles: [Moderator]
",
    );
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let c = &plan["changes"][0];
    assert_eq!(plan["changes"].as_array().unwrap().len(), 1, "{plan:#}");
    assert_eq!(
        (c["action"].as_str(), c["object"]["id"].as_str()),
        (Some("update"), Some(id.as_str()))
    );
    let fields: Vec<_> = c["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "trigger"], "{c:#}");
    assert_eq!(
        c["fields"][1]["after"]["keywords"][1],
        "discord.com/invite/*"
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    assert_eq!(g.auto_moderation_rules.len(), 1);
    assert_eq!(rule(&g, "Invite filter").id, id, "the same rule, renamed");
    let again = h.plan_json(m).await;
    assert_eq!(again["changes"], json!([]), "{again:#}");
}

#[tokio::test]
async fn a_trigger_kind_change_is_a_delete_and_a_create_the_gate_counts() {
    let h = Harness::with_state(Some(state())).await;
    let manifest = "version: 1
automod:
  - name: No invite links
    trigger: { regex: [\"disc[o0]rd\\\\.gg\"] }
    actions: [block: {}]
safety: { allow_deletes: 0 }
";
    // A regex is still a keyword rule: updated in place.
    let m = h.manifest("same.yaml", manifest);
    let plan = h.plan_json(m.to_str().unwrap()).await;
    assert_eq!(plan["changes"][0]["action"], "update", "{plan:#}");

    let m = h.manifest(
        "kind.yaml",
        &manifest.replace("regex: [\"disc[o0]rd\\\\.gg\"]", "preset: [slurs]"),
    );
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let actions: Vec<_> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["delete", "create"], "{plan:#}");
    let text = h.run(&["plan", "-f", m]).await;
    assert!(
        text.stdout.contains("Discord cannot change in place"),
        "{}",
        text.stdout
    );
    h.emu.clear_requests();
    let refused = h.run(&["apply", "-f", m, "--yes"]).await;
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(
        format!("{}{}", refused.stdout, refused.stderr).contains("AutoMod rule"),
        "{}\n{}",
        refused.stdout,
        refused.stderr
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
    h.run(&["apply", "-f", m, "--yes", "--allow-deletes", "1"])
        .await
        .assert_code(0);
    let g = h.guild();
    assert_eq!(rule(&g, "No invite links").trigger_type, 4);
    assert_eq!(g.auto_moderation_rules.len(), 1);
}

#[tokio::test]
async fn discords_own_mention_spam_rule_is_taken_over_not_duplicated() {
    let mut st = state();
    let g = &mut st.guilds[0];
    g.features.push("COMMUNITY".into());
    g.auto_moderation_rules
        .push(discord_emulator::discord_mention_spam_rule(
            "999000000000000001".into(),
        ));
    let h = Harness::with_state(Some(st)).await;
    let m = h.manifest(
        "m.yaml",
        "version: 1
automod:
  - name: Mentions
    trigger: { mention_limit: 10 }
    actions: [block: {}]
",
    );
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let c = &plan["changes"][0];
    assert_eq!(plan["changes"].as_array().unwrap().len(), 1, "{plan:#}");
    assert_eq!(c["action"], "update");
    assert_eq!(c["object"]["id"], "999000000000000001");
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let mentions: Vec<_> = g
        .auto_moderation_rules
        .iter()
        .filter(|r| r.trigger_type == 5)
        .collect();
    assert_eq!(mentions.len(), 1);
    assert_eq!(mentions[0].trigger_metadata.mention_total_limit, Some(10));
    // Raid protection was not written: Discord's setting stays.
    assert_eq!(
        mentions[0].trigger_metadata.mention_raid_protection_enabled,
        Some(true)
    );
    assert_eq!(h.plan_json(m).await["changes"], json!([]));
}

#[tokio::test]
async fn limits_are_refused_at_the_manifest_line_before_any_call() {
    let h = Harness::with_state(Some(state())).await;
    let mut yaml = String::from("version: 1\nautomod:\n");
    for i in 0..7 {
        yaml.push_str(&format!(
            "  - name: words {i}\n    trigger: {{ keywords: [w{i}] }}\n    actions: [block: {{}}]\n"
        ));
    }
    yaml.push_str(
        "  - name: long\n    trigger: { mention_limit: 8 }\n    actions: [timeout: 2419201]\n",
    );
    let m = h.manifest("m.yaml", &yaml);
    h.emu.clear_requests();
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    // The seventh keyword rule's trigger is at line 22, the timeout at line 26.
    assert!(run.stderr.contains("m.yaml:22:14"), "{}", run.stderr);
    assert!(
        run.stderr.contains("a guild holds at most 6"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("m.yaml:26:24"), "{}", run.stderr);
    assert!(
        run.stderr.contains("at most 2419200 (4 weeks)"),
        "{}",
        run.stderr
    );
    assert!(h.requests().is_empty(), "{:#?}", h.requests());
}

#[tokio::test]
async fn a_rule_turned_off_by_hand_is_drift_naming_who_when_and_why() {
    let h = Harness::with_state(Some(state())).await;
    let g = h.guild();
    let id = rule(&g, "No invite links").id.clone();
    let m = h.manifest(
        "m.yaml",
        "version: 1
automod:
  - name: No invite links
    trigger: { keywords: [\"discord.gg/*\"] }
    actions:
      - block: { message: Invites are not allowed here }
      - alert: mod-log
    exempt_roles: [Moderator]
",
    );
    let m = m.to_str().unwrap();
    // Unmanaged roles and webhooks of the default guild make drift exit 2 already: what
    // counts is that the rule is not drifted.
    let clean = h.run(&["drift", "-f", m, "--format", "json"]).await;
    assert_eq!(
        json_of(&clean.stdout)["drifted"],
        json!([]),
        "{}",
        clean.stdout
    );
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{}/auto-moderation/rules/{id}", g.id),
        json!({"enabled": false}),
        "too many false positives",
    )
    .await;
    h.emu.clear_requests();
    let run = h.run(&["drift", "-f", m, "--format", "json"]).await;
    run.assert_code(2);
    assert!(h.writes().is_empty(), "drift only reads");
    let r = json_of(&run.stdout);
    let drifted = r["drifted"].as_array().unwrap();
    let d = drifted
        .iter()
        .find(|d| d["name"] == "No invite links")
        .unwrap_or_else(|| panic!("{r:#}"));
    let f = d["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "enabled")
        .unwrap();
    let who = &f["blame"]["entry"];
    assert_eq!(who["user"]["name"], "ferris", "{f:#}");
    assert_eq!(who["action_type"], 141);
    assert_eq!(who["reason"], "too many false positives");
    let text = h.run(&["drift", "-f", m]).await;
    assert!(
        text.stdout.contains("who / when / why: ferris"),
        "{}",
        text.stdout
    );
}

#[tokio::test]
async fn an_export_round_trips_the_rules() {
    let h = Harness::with_state(Some(state())).await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(yaml.contains("\nautomod:\n"), "{yaml}");
    assert!(yaml.contains("name: No invite links"), "{yaml}");
    assert!(yaml.contains("alert: mod-log"), "{yaml}");
    assert!(yaml.contains("exempt_roles: [Moderator]"), "{yaml}");
    let plan = h.plan_json("exported.yaml").await;
    assert_eq!(plan["changes"], json!([]), "{plan:#}");
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_rules() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest("m.yaml", &format!("{RULES}prune: {{ automod: false }}\n"));
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 2, "{r:#}");
    assert!(
        h.writes().is_empty(),
        "the rehearsal writes only to its copy"
    );
}

/// The default state with the bot's role holding every permission but `without`.
fn bot_without(without: u64) -> State {
    use discord_permissions::Permissions;
    let mut st = state();
    let g = &mut st.guilds[0];
    let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
    bot_role.permissions =
        Permissions(Permissions::known_mask() & !(Permissions::ADMINISTRATOR.0 | without));
    st
}

#[tokio::test]
async fn a_bot_without_manage_guild_is_refused_at_the_automod_line() {
    let h = Harness::with_state(Some(bot_without(
        discord_permissions::Permissions::MANAGE_GUILD.0,
    )))
    .await;
    let m = h.manifest("m.yaml", RULES);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("m.yaml:2:1")
            && run
                .stderr
                .contains("cannot read this guild's AutoMod rules")
            && run.stderr.contains("manage_guild"),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_timeout_rule_needs_moderate_members_checked_at_plan() {
    let h = Harness::with_state(Some(bot_without(
        discord_permissions::Permissions::MODERATE_MEMBERS.0,
    )))
    .await;
    let m = h.manifest("m.yaml", RULES);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains(
            "the bot lacks `moderate_members`, which create AutoMod rule Mention spam needs"
        ),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty());
}

/// Issue 41: a rule's exemptions name roles and channels as Discord stores them, as every
/// reference does (one stored form, `manifest::stored`): a role declared `"Deploy  bots "`
/// and exempted as `" Deploy bots"` is one role, planned, applied and then planned to
/// nothing.
#[tokio::test]
async fn exemptions_name_roles_and_channels_as_discord_stores_them() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1
roles:
  - name: \"Deploy  bots \"
automod:
  - name: No invite links
    trigger: { keywords: [\"discord.gg/*\"] }
    actions: [block: {}, alert: \" Mod-Log \"]
    exempt_roles: [\" Deploy bots\"]
    exempt_channels: [\"bot  spam\"]
",
    );
    let m = m.to_str().unwrap();
    let plan = h.rehearsed_plan(m).await;
    assert_eq!(plan["rehearsal"]["converges"], true, "{plan:#}");
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let role = g.roles.iter().find(|r| r.name == "Deploy bots").unwrap();
    assert_eq!(rule(&g, "No invite links").exempt_roles, [role.id.as_str()]);
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}
