//! The ways into a guild, end to end over HTTP against the emulator: a hand-added bot
//! with administrator is high-risk drift and is removed by prune with its webhooks; a
//! permanent hand-made invite is flagged and pruned; a lockdown is set, shown by drift
//! and lifted; an unknown voice region is refused at plan; manifests without these
//! sections keep the seven reads.

use crate::common;

use common::{Bot, GuildNames, Harness, arrange};
use discord_emulator::state::{AuditChange, AuditEntry, State, Webhook};
use discord_permissions::Permissions;
use serde_json::{Value, json};

const RAIDBOT: &str = "900000000000000001";
const RAIDBOT_APP: &str = "900000000000000002";
const RAIDBOT_INTEGRATION: &str = "900000000000000005";
const RAIDBOT_IDS: Bot = Bot {
    name: "Raidbot",
    user_id: RAIDBOT,
    application_id: RAIDBOT_APP,
    role_id: "900000000000000003",
    integration_id: RAIDBOT_INTEGRATION,
};

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A snowflake for a time `ago_ms` in the past (the audit log's entry ids carry it).
fn snowflake_ago(ago_ms: u64) -> String {
    ((now_ms() - ago_ms - 1_420_070_400_000) << 22).to_string()
}

/// The default guild, where ferris (the owner) added "Raidbot" by hand an hour ago: a
/// bot with an administrator role that made a webhook in #general.
fn with_raidbot() -> State {
    let mut st = discord_emulator::default_state();
    let mut g = arrange(&mut st);
    g.add_bot(&RAIDBOT_IDS, Permissions::ADMINISTRATOR);
    let owner = g.owner_id.clone();
    let general = g.channel_id("general");
    g.webhooks.push(Webhook {
        id: "900000000000000004".into(),
        kind: 1,
        channel_id: Some(general),
        name: "Raid".into(),
        avatar: None,
        token: Some("t".repeat(68)),
        application_id: Some(RAIDBOT_APP.into()),
        user_id: Some(RAIDBOT.into()),
        source_guild: None,
        source_channel: None,
    });
    g.audit_log.push(AuditEntry {
        id: snowflake_ago(3_600_000),
        action_type: 80,
        user_id: Some(owner),
        target_id: Some(RAIDBOT_INTEGRATION.into()),
        changes: vec![AuditChange {
            key: "name".into(),
            old_value: None,
            new_value: Some(json!("Raidbot")),
        }],
        options: None,
        reason: Some("needed a music bot".into()),
    });
    st
}

/// The application id of the default guild's command-only app, "Ferris Polls".
fn polls_app(h: &Harness) -> String {
    let g = h.guild();
    g.integration_named("Ferris Polls")
        .application
        .as_ref()
        .unwrap()
        .id
        .clone()
}

async fn drift_json(h: &Harness, manifest: &str, extra: &[&str]) -> (i32, Value) {
    let m = h.manifest("m.yaml", manifest);
    let mut args = vec!["drift", "-f", m.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let run = h.run(&args).await;
    let v = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", run.stdout, run.stderr));
    (run.code, v)
}

fn unmanaged<'a>(report: &'a Value, kind: &str) -> Vec<&'a Value> {
    report["unmanaged"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["kind"] == kind)
        .collect()
}

#[tokio::test]
async fn a_hand_added_admin_bot_is_high_risk_and_pruned_with_its_webhooks() {
    let h = Harness::with_state(Some(with_raidbot())).await;
    let app = polls_app(&h);
    let manifest = format!(
        "version: 1\nintegrations:\n  - {{ application: \"{app}\", name: Ferris Polls }}\n"
    );
    let (code, r) = drift_json(&h, &manifest, &[]).await;
    assert_eq!(code, 2);
    let found = unmanaged(&r, "integration");
    assert_eq!(
        found.len(),
        1,
        "only Raidbot: Ferris Polls is listed, guildctl is itself"
    );
    let raid = found[0];
    assert_eq!(raid["name"], "Raidbot");
    assert_eq!(raid["id"], RAIDBOT_INTEGRATION);
    assert_eq!(raid["high_risk"], true);
    let risk = raid["risk"].as_str().unwrap();
    assert!(
        risk.contains("administrator") && risk.contains("added by ferris"),
        "{risk}"
    );
    assert_eq!(raid["blame"]["entry"]["user"]["name"], "ferris");
    assert_eq!(raid["blame"]["entry"]["reason"], "needed a music bot");
    // High risk comes first, before the unmanaged roles.
    let first_high = r["unmanaged"]
        .as_array()
        .unwrap()
        .iter()
        .position(|u| u["kind"] == "integration")
        .unwrap();
    assert!(
        r["unmanaged"].as_array().unwrap()[..first_high]
            .iter()
            .all(|u| u["high_risk"] == true)
    );

    let pruning = format!("{manifest}prune: {{ integrations: true }}\n");
    let m = h.manifest("prune.yaml", &pruning);
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m, "--format", "json"]).await;
    plan.assert_code(0);
    let p: Value = serde_json::from_str(&plan.stdout).unwrap();
    let change = &p["changes"][0];
    assert_eq!(
        (&change["action"], &change["object"]["kind"]),
        (&json!("delete"), &json!("integration"))
    );
    let field = |name: &str| {
        change["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["field"] == name)
            .map(|f| f["before"].clone())
    };
    assert_eq!(
        field("webhooks"),
        Some(json!(["Raid"])),
        "the plan says the webhook goes"
    );
    assert_eq!(field("bot"), Some(json!("raidbot")));
    assert_eq!(field("bot role"), Some(json!(["Raidbot"])));
    let gate = &p["deletion_gate"];
    assert_eq!(
        gate["deletes"], 2,
        "the integration and its webhook: {gate}"
    );
    let hooks = gate["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "webhooks")
        .unwrap();
    assert_eq!(hooks["with_integrations"], 1);

    // An allowance below the count refuses it, with nothing sent.
    h.emu.clear_requests();
    let refused = h
        .run(&["apply", "-f", m, "--yes", "--allow-deletes", "1"])
        .await;
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(h.writes().is_empty());

    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].method, "DELETE");
    assert!(
        writes[0]
            .path
            .ends_with(&format!("/integrations/{RAIDBOT_INTEGRATION}"))
    );
    assert!(
        writes[0]
            .reason
            .as_deref()
            .unwrap_or("")
            .starts_with("guildctl apply")
    );
    let g = h.guild();
    assert!(g.integrations.iter().all(|i| i.name != "Raidbot"));
    assert!(g.roles.iter().all(|r| r.name != "Raidbot"));
    assert!(g.members.iter().all(|m| m.user_id != RAIDBOT));
    assert!(g.webhooks.iter().all(|w| w.name != "Raid"));
    assert_eq!(g.integrations.len(), 2, "guildctl and Ferris Polls stay");

    let again = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    again.assert_code(0);
}

/// The default guild's invites: `ferrisfans` made by ferris, permanent and unlimited;
/// `helpdesk` by alice, limited to 100 uses. ferris's was made by hand a day ago.
fn with_invite_log() -> State {
    let mut st = discord_emulator::default_state();
    let g = &mut st.guilds[0];
    let owner = g.owner_id.clone();
    g.audit_log.push(AuditEntry {
        id: snowflake_ago(86_400_000),
        action_type: 40,
        user_id: Some(owner),
        target_id: None,
        changes: vec![AuditChange {
            key: "code".into(),
            old_value: None,
            new_value: Some(json!("ferrisfans")),
        }],
        options: None,
        reason: None,
    });
    st
}

const INVITE_RULES: &str = "version: 1
invites:
  rules:
    - { max_uses: 100 }
";

#[tokio::test]
async fn a_permanent_hand_made_invite_is_flagged_and_pruned() {
    let h = Harness::with_state(Some(with_invite_log())).await;
    let (code, r) = drift_json(&h, INVITE_RULES, &[]).await;
    assert_eq!(code, 2);
    let found = unmanaged(&r, "invite");
    assert_eq!(found.len(), 1, "helpdesk meets the rule: {found:?}");
    let inv = found[0];
    assert_eq!(inv["id"], "ferrisfans");
    assert_eq!(inv["name"], "ferrisfans into #welcome");
    assert_eq!(inv["medium_risk"], true);
    assert_eq!(inv["high_risk"], false);
    let risk = inv["risk"].as_str().unwrap();
    for part in ["never expires", "made by ferris", "412 uses, no limit"] {
        assert!(risk.contains(part), "{part}: {risk}");
    }
    assert_eq!(inv["blame"]["entry"]["user"]["name"], "ferris");
    // The text report marks it too.
    let m = h.manifest("t.yaml", INVITE_RULES);
    let text = h.run(&["drift", "-f", m.to_str().unwrap()]).await;
    assert!(
        text.stdout
            .contains("* invite ferrisfans into #welcome (id ferrisfans): medium risk"),
        "{}",
        text.stdout
    );

    let pruning = format!("{INVITE_RULES}prune: {{ invites: true }}\n");
    let m = h.manifest("prune.yaml", &pruning);
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    h.run(&["apply", "-f", m, "--yes", "--reason", "invites by rule"])
        .await
        .assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(
        (writes[0].method.as_str(), writes[0].path.as_str()),
        ("DELETE", "/api/v10/invites/ferrisfans")
    );
    assert_eq!(writes[0].reason.as_deref(), Some("invites by rule"));
    let codes: Vec<String> = h.guild().invites.iter().map(|i| i.code.clone()).collect();
    assert_eq!(codes, ["helpdesk"]);
    let deleted = h
        .guild()
        .audit_log
        .iter()
        .filter(|e| e.action_type == 42)
        .count();
    assert_eq!(deleted, 1);
    let (code, r) = drift_json(&h, INVITE_RULES, &[]).await;
    assert!(unmanaged(&r, "invite").is_empty(), "{r}");
    let _ = code;
}

#[tokio::test]
async fn without_manage_guild_invites_are_read_without_metadata_and_drift_says_so() {
    let mut st = discord_emulator::default_state();
    arrange(&mut st)
        .role("guildctl")
        .permissions(&["view_audit_log", "view_channel"]);
    let h = Harness::with_state(Some(st)).await;
    let (_, r) = drift_json(&h, INVITE_RULES, &[]).await;
    let parts: Vec<&str> = r["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["part"].as_str().unwrap())
        .collect();
    assert!(parts.contains(&"invite metadata"), "{parts:?}");
    // Neither invite can be judged on its uses: both are reported, neither flagged.
    let found = unmanaged(&r, "invite");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .all(|u| u["risk"].as_str().unwrap().contains("uses unknown"))
    );
}

#[tokio::test]
async fn lockdown_is_set_shown_by_drift_and_lifted() {
    let h = Harness::start().await;
    let before = now_ms();
    let run = h
        .run(&[
            "lockdown",
            "--invites",
            "6h",
            "--dms",
            "2h",
            "--reason",
            "raid in general",
        ])
        .await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("joins (invites) paused until"),
        "{}",
        run.stdout
    );
    let writes = h.writes();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].method, "PUT");
    assert!(writes[0].path.ends_with("/incident-actions"));
    assert_eq!(writes[0].reason.as_deref(), Some("raid in general"));

    let (_, r) = drift_json(&h, "version: 1\n", &[]).await;
    let until = r["lockdown"]["invites_until"]
        .as_str()
        .expect("lockdown shown");
    let until_ms = guildctl::snapshot::doors::parse_timestamp(until).unwrap();
    let six_h = 6 * 3_600_000;
    assert!(
        until_ms >= before + six_h - 1000 && until_ms <= now_ms() + six_h,
        "{until}"
    );
    assert!(r["lockdown"]["dms_until"].is_string());
    let m = h.manifest("e.yaml", "version: 1\n");
    let text = h.run(&["drift", "-f", m.to_str().unwrap()]).await;
    assert!(
        text.stdout
            .contains("Lockdown in force: joins (invites) paused until"),
        "{}",
        text.stdout
    );

    // More than Discord allows is refused before anything is sent.
    h.emu.clear_requests();
    let too_long = h
        .run(&["lockdown", "--invites", "25h", "--reason", "x"])
        .await;
    assert_ne!(too_long.code, 0);
    assert!(
        too_long.stderr.contains("at most 24 hours"),
        "{}",
        too_long.stderr
    );
    assert!(h.requests().is_empty());

    h.run(&["lockdown", "--lift", "--reason", "raid over"])
        .await
        .assert_code(0);
    let (_, r) = drift_json(&h, "version: 1\n", &[]).await;
    assert!(r.get("lockdown").is_none(), "{}", r["lockdown"]);
    let data = h.guild().incidents_data.unwrap();
    assert_eq!(data["invites_disabled_until"], Value::Null);
}

#[tokio::test]
async fn an_unknown_voice_region_is_refused_at_plan() {
    let h = Harness::start().await;
    let channel = |region: &str| {
        format!(
            "version: 1
channels:
  - name: General
    type: category
    channels:
      - {{ name: Lounge, type: voice, rtc_region: {region} }}
"
        )
    };
    let m = h.manifest("bad.yaml", &channel("atlantis"));
    h.emu.clear_requests();
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("voice region `atlantis` is not one Discord offers"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("rotterdam"),
        "the help lists the regions: {}",
        run.stderr
    );
    assert!(h.writes().is_empty());
    assert!(h.requests().iter().any(|r| r.path.ends_with("/regions")));

    let m = h.manifest("good.yaml", &channel("rotterdam"));
    let run = h
        .run(&["plan", "-f", m.to_str().unwrap(), "--detailed-exitcode"])
        .await;
    run.assert_code(2);
    assert!(run.stdout.contains("rotterdam"), "{}", run.stdout);
}

#[tokio::test]
async fn manifests_without_these_sections_keep_seven_reads() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", "version: 1\nroles:\n  - name: Member\n");
    h.emu.clear_requests();
    h.run(&["plan", "-f", m.to_str().unwrap()])
        .await
        .assert_code(0);
    assert_eq!(h.requests().len(), 7, "{:?}", h.requests());

    let m = h.manifest(
        "d.yaml",
        "version: 1\nintegrations: []\ninvites: { codes: [ferrisfans] }\n",
    );
    h.emu.clear_requests();
    h.run(&["plan", "-f", m.to_str().unwrap()])
        .await
        .assert_code(0);
    let paths: Vec<String> = h.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths.len(), 9, "{paths:?}");
    assert!(paths.iter().any(|p| p.ends_with("/integrations")));
    assert!(paths.iter().any(|p| p.ends_with("/invites")));
}

#[tokio::test]
async fn drift_shows_the_prune_count_read_only() {
    let h = Harness::start().await;
    h.emu.clear_requests();
    let (_, r) = drift_json(&h, "version: 1\n", &["--prune-days", "7"]).await;
    let g = h.guild();
    let roleless = g
        .members
        .iter()
        .filter(|m| m.roles.is_empty() && m.user_id != g.owner_id)
        .count();
    assert_eq!(r["prune_count"]["days"], 7);
    assert_eq!(r["prune_count"]["members"], roleless as u64);
    assert!(h.requests().iter().all(|q| q.method == "GET"));
    assert!(
        h.requests()
            .iter()
            .any(|q| q.path.contains("/prune?days=7"))
    );
}
