//! `guildctl drift` over HTTP against the emulator: blame from the audit log (who,
//! when, why), guildctl's own changes told apart from hand edits, unmanaged objects by
//! risk, a read-only bot, and bounded reads. Hand edits are made with reqwest as a
//! human member holding its own token.

use crate::common;

use common::{GuildNames, Harness, arrange};
use discord_emulator::State;
use discord_emulator::state::{AuditChange, AuditEntry};
use serde_json::{Value, json};

/// The guild owner, a human, acts with this token.
const HUMAN_TOKEN: &str = "human-owner-token-for-drift-tests";
const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;

/// The default state with a token for the owner (ferris, a human) and no webhooks
/// (they would be hand-made, high-risk objects in every report).
fn state() -> State {
    let mut st = discord_emulator::default_state();
    arrange(&mut st).owner_token(HUMAN_TOKEN).webhooks.clear();
    st
}

async fn harness(st: State) -> Harness {
    let h = Harness::with_state(Some(st)).await;
    // The bot's token must be among the state's tokens next to the human's.
    assert!(!h.emu.token.is_empty());
    h
}

/// The manifest's roles match the default guild; only what a test changes drifts. Helper
/// is declared because, left out, its manage_messages would make it a high-risk unmanaged
/// role in every report.
const MANIFEST: &str = "version: 1
roles:
  - name: Admin
  - name: Moderator
    color: \"#3498db\"
  - name: Helper
";

/// A hand edit: `method path body` as the human, with an audit-log reason.
async fn as_human(h: &Harness, method: reqwest::Method, path: &str, body: Value, reason: &str) {
    let url = format!("{}{path}", h.emu.api_base);
    let res = reqwest::Client::new()
        .request(method, &url)
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header(
            "X-Audit-Log-Reason",
            percent_encoding::utf8_percent_encode(reason, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
        )
        .json(&body)
        .send()
        .await
        .expect("request");
    assert!(res.status().is_success(), "{path}: {}", res.status());
}

async fn drift_json(
    h: &Harness,
    manifest: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, Value) {
    let m = h.manifest("m.yaml", manifest);
    let mut args = vec!["drift", "-f", m.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let run = h.run_env(&args, env).await;
    assert!(
        !run.stdout.contains(&h.emu.token),
        "the bot token is in the output"
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}\n--- stdout\n{}\n--- stderr\n{}",
            run.stdout, run.stderr
        )
    });
    (run.code, v)
}

/// The blame of `field` on the drifted object named `object`.
fn field_blame<'a>(report: &'a Value, object: &str, field: &str) -> &'a Value {
    report["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == object)
        .and_then(|d| {
            d["fields"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["field"] == field)
        })
        .map(|f| &f["blame"])
        .unwrap_or_else(|| panic!("no drift of {object}.{field} in {report:#}"))
}

#[tokio::test]
async fn a_clean_guild_has_no_drift() {
    let h = harness(state()).await;
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["drifted"], json!([]));
    // Only the unmanaged objects' creators are looked for: one page of an empty log.
    assert_eq!(r["audit_log"]["pages_read"], 1);
    assert_eq!(r["audit_log"]["stopped"], "end_of_log");
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_members_colour_change_is_blamed_on_them_with_time_and_reason() {
    let h = harness(state()).await;
    let g = h.emu.guild_id.clone();
    let moderator = h.role_id("Moderator");
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 0xff0000}),
        "mods want red — ticket #7",
    )
    .await;
    h.emu.clear_requests();
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 2);
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["user"]["name"], "ferris", "{b:#}");
    assert_eq!(b["entry"]["user"]["kind"], "human");
    assert_eq!(b["entry"]["reason"], "mods want red — ticket #7");
    assert_eq!(b["entry"]["ago"], "just now");
    let at = b["entry"]["at"].as_str().unwrap();
    assert!(at.ends_with('Z') && at.len() == 20, "{at}");
    assert!(h.writes().is_empty(), "drift wrote");

    // The text form puts a who / when / why line under the field.
    let m = h.manifest("m.yaml", MANIFEST);
    let text = h.run_env(&["drift", "-f", m.to_str().unwrap()], &[]).await;
    text.assert_code(2);
    assert!(
        text.stdout.contains("who / when / why: ferris")
            && text.stdout.contains("\"mods want red — ticket #7\""),
        "{}",
        text.stdout
    );
}

#[tokio::test]
async fn guildctls_apply_and_a_hand_revert_are_told_apart() {
    let h = harness(state()).await;
    let g = h.emu.guild_id.clone();
    let red = MANIFEST.replace("#3498db", "#e74c3c");
    let m = h.manifest("red.yaml", &red);
    let reason = "guildctl apply: commit abc1234 by Test";
    h.run_env(
        &[
            "apply",
            "-f",
            m.to_str().unwrap(),
            "--yes",
            "--reason",
            reason,
        ],
        &[],
    )
    .await
    .assert_code(0);

    // The manifest moved on (green) without an apply: the live red is guildctl's,
    // from a commit that is not the current one.
    let green = MANIFEST.replace("#3498db", "#00ff00");
    let (_, r) = drift_json(&h, &green, &[], &[("GITHUB_SHA", "fff0000111")]).await;
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["guildctl"]["commit"], "abc1234", "{b:#}");
    assert_eq!(b["entry"]["guildctl"]["current"], false);
    assert_eq!(b["entry"]["user"]["kind"], "this_bot");

    // A hand revert to blue: attributed to the member, guildctl's apply shown before it.
    let moderator = h.role_id("Moderator");
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 0x3498db}),
        "revert: red is too loud",
    )
    .await;
    let (code, r) = drift_json(&h, &red, &[], &[("GITHUB_SHA", "abc1234def5678")]).await;
    assert_eq!(code, 2);
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["user"]["name"], "ferris", "{b:#}");
    assert_eq!(b["entry"]["reason"], "revert: red is too loud");
    assert!(b["entry"]["guildctl"].is_null());
    assert_eq!(b["previous_guildctl"]["guildctl"]["commit"], "abc1234");
    assert_eq!(b["previous_guildctl"]["guildctl"]["current"], true);
}

#[tokio::test]
async fn a_hand_made_administrator_role_is_high_risk_and_exits_2() {
    let h = harness(state()).await;
    let (code, _) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 0, "the baseline is clean");
    let g = h.emu.guild_id.clone();
    as_human(
        &h,
        reqwest::Method::POST,
        &format!("/guilds/{g}/roles"),
        json!({"name": "Totally Legit", "permissions": "8"}),
        "temporary",
    )
    .await;
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 2, "{r:#}");
    let first = &r["unmanaged"][0];
    assert_eq!(first["name"], "Totally Legit");
    assert_eq!(first["high_risk"], true);
    assert_eq!(first["risk"], "grants administrator");
    assert_eq!(first["blame"]["entry"]["user"]["name"], "ferris");
    assert_eq!(first["blame"]["entry"]["reason"], "temporary");

    // A harmless hand-made role does not fail drift, unless asked to.
    h.arrange(|g| g.roles.retain(|r| r.name != "Totally Legit"));
    as_human(
        &h,
        reqwest::Method::POST,
        &format!("/guilds/{g}/roles"),
        json!({"name": "Cosmetic", "permissions": "0"}),
        "colour role",
    )
    .await;
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 0, "{r:#}");
    assert!(
        r["unmanaged"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["name"] == "Cosmetic")
    );
    let (code, _) = drift_json(&h, MANIFEST, &["--fail-on-unmanaged"], &[]).await;
    assert_eq!(code, 2);
}

/// Markdown puts high-risk rows first, in one table.
#[tokio::test]
async fn markdown_lists_high_risk_first() {
    let h = harness(state()).await;
    let g = h.emu.guild_id.clone();
    let moderator = h.role_id("Moderator");
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 1}),
        "x",
    )
    .await;
    as_human(
        &h,
        reqwest::Method::POST,
        &format!("/guilds/{g}/roles"),
        json!({"name": "Boss", "permissions": "32"}),
        "y",
    )
    .await;
    let m = h.manifest("m.yaml", MANIFEST);
    let run = h
        .run_env(
            &["drift", "-f", m.to_str().unwrap(), "--format", "markdown"],
            &[],
        )
        .await;
    run.assert_code(2);
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(
        rows[1].contains("HIGH") && rows[1].contains("Boss"),
        "{}",
        run.stdout
    );
    assert!(
        rows[2].contains("Moderator") && rows[2].contains("ferris"),
        "{}",
        run.stdout
    );
}

#[tokio::test]
async fn a_read_only_bot_runs_drift_and_lists_what_it_could_not_read() {
    let mut st = state();
    arrange(&mut st)
        .role("guildctl")
        .permissions(&["view_channel", "view_audit_log"]);
    let h = harness(st).await;
    let g = h.emu.guild_id.clone();
    let moderator = h.role_id("Moderator");
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 5}),
        "by hand",
    )
    .await;
    h.emu.clear_requests();
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert!(code == 0 || code == 2, "{r:#}");
    let parts: Vec<&str> = r["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["part"].as_str().unwrap())
        .collect();
    assert!(
        parts.contains(&"webhooks") && parts.contains(&"hidden channels"),
        "{parts:?}"
    );
    let why = &r["unreadable"][0]["why"];
    assert!(
        why.as_str().unwrap().contains("needs manage_webhooks"),
        "{why}"
    );
    // view_audit_log is enough to attribute.
    assert_eq!(
        field_blame(&r, "Moderator", "color")["entry"]["user"]["name"],
        "ferris"
    );
    assert!(h.writes().is_empty(), "drift wrote");

    // Without view_audit_log: a 403 on the log, said as the reason.
    h.arrange(|g| {
        g.role("guildctl").permissions(&["view_channel"]);
    });
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 2);
    let b = field_blame(&r, "Moderator", "color");
    assert!(
        b["not_found"].as_str().unwrap().contains("view_audit_log"),
        "{b:#}"
    );
    assert_eq!(r["audit_log"]["stopped"], "forbidden");
}

/// An audit entry `ms` milliseconds after the Unix epoch, by the human, for a role's colour.
fn colour_entry(ms: u64, seq: u64, user: &str, role: &str, color: u32) -> AuditEntry {
    AuditEntry {
        id: (((ms - DISCORD_EPOCH_MS) << 22) + seq).to_string(),
        action_type: 31,
        user_id: Some(user.into()),
        target_id: Some(role.into()),
        changes: vec![AuditChange {
            key: "color".into(),
            old_value: Some(json!(0)),
            new_value: Some(json!(color)),
        }],
        options: None,
        reason: Some("old change".into()),
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test]
async fn changes_beyond_the_page_cap_or_retention_are_not_found_with_the_reason() {
    let mut st = state();
    let owner = st.guilds[0].owner_id.clone();
    let mut g = arrange(&mut st);
    let moderator = g.role("Moderator").color(0x123456).id.clone();
    let helper = g.role_id("Helper");
    let base = now_ms() - 3_600_000;
    // The colour change, then 150 newer edits of another role: past one page.
    g.audit_log
        .push(colour_entry(base, 0, &owner, &moderator, 0x123456));
    for i in 1..=150 {
        g.audit_log
            .push(colour_entry(base + i * 1000, 0, &owner, &helper, i as u32));
    }
    let h = harness(st).await;
    h.emu.clear_requests();
    let (_, r) = drift_json(&h, MANIFEST, &["--audit-pages", "1"], &[]).await;
    let b = field_blame(&r, "Moderator", "color");
    assert!(
        b["not_found"].as_str().unwrap().contains("the cap"),
        "{b:#}"
    );
    assert_eq!(r["audit_log"]["pages_read"], 1);
    assert_eq!(r["audit_log"]["stopped"], "page_cap");
    // With the default cap it is found on the second page.
    let (_, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["reason"], "old change", "{b:#}");
    assert_eq!(r["audit_log"]["pages_read"], 2);
    assert_eq!(b["entry"]["ago"], "1 hour ago");

    // An entry older than 45 days is beyond retention: Discord (and the emulator) no longer
    // serve it, so the log ends before the change is found, and drift says why.
    let mut st = h.emu.state();
    st.guilds[0].audit_log = vec![colour_entry(
        now_ms() - 50 * 86_400_000,
        0,
        &owner,
        &moderator,
        0x123456,
    )];
    h.emu.set_state(st);
    let (_, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    let b = field_blame(&r, "Moderator", "color");
    assert!(
        b["not_found"].as_str().unwrap().contains("45 days"),
        "{b:#}"
    );
    assert_eq!(r["audit_log"]["stopped"], "end_of_log");
}

/// Bounded reads on a guild at Discord's limits with 1,000 audit entries.
#[tokio::test]
async fn drift_on_a_large_guild_makes_a_bounded_number_of_requests() {
    let mut st = discord_emulator::large_state(discord_emulator::LargeStateOptions::default());
    let owner = st.guilds[0].owner_id.clone();
    let mut g = arrange(&mut st);
    let moderator = g.role("Moderator").color(0x123456).id.clone();
    let helper = g.role_id("Helper");
    let base = now_ms() - 3_600_000;
    g.audit_log.clear();
    g.audit_log
        .push(colour_entry(base, 0, &owner, &moderator, 0x123456));
    for i in 1..1000 {
        g.audit_log
            .push(colour_entry(base + i * 100, 0, &owner, &helper, i as u32));
    }
    let h = harness(st).await;
    h.emu.clear_requests();
    let (_, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    let requests = h.requests();
    let audit = requests
        .iter()
        .filter(|q| q.path.contains("audit-logs"))
        .count();
    let guild = requests.len() - audit;
    println!(
        "large guild: {guild} guild reads + {audit} audit-log pages = {} requests",
        requests.len()
    );
    // The guild's seven, and the role member counts of the access review.
    assert!(guild <= 8, "{guild} guild reads");
    // The colour change is the oldest of 1,000 entries: the 10th page of 100.
    assert_eq!(audit, 10);
    assert_eq!(
        field_blame(&r, "Moderator", "color")["entry"]["reason"],
        "old change"
    );
    assert!(requests.iter().all(|q| q.method == "GET"));
}

/// A declared channel that leaves `overwrites` out leaves them alone, so a hand-made
/// overwrite granting power there is an unmanaged, high-risk object, with its author.
#[tokio::test]
async fn a_powerful_overwrite_on_a_declared_channel_without_overwrites_is_high_risk() {
    let h = harness(state()).await;
    let manifest = format!("{MANIFEST}channels:\n  - name: bot-spam\n");
    let (code, r) = drift_json(&h, &manifest, &[], &[]).await;
    assert_eq!(code, 0, "the baseline is clean: {r:#}");
    let channel = h.channel_id("bot-spam");
    let moderator = h.role_id("Moderator");
    // manage_roles (1 << 28) through the channel, for a role the manifest manages.
    as_human(
        &h,
        reqwest::Method::PUT,
        &format!("/channels/{channel}/permissions/{moderator}"),
        json!({"type": 0, "allow": (1u64 << 28).to_string(), "deny": "0"}),
        "mods need it here",
    )
    .await;
    let (code, r) = drift_json(&h, &manifest, &[], &[]).await;
    assert_eq!(code, 2, "{r:#}");
    let first = &r["unmanaged"][0];
    assert_eq!(first["kind"], "overwrite", "{r:#}");
    assert_eq!(first["name"], "#bot-spam for role Moderator");
    assert_eq!(first["high_risk"], true);
    assert_eq!(first["risk"], "allows manage_roles");
    assert_eq!(first["blame"]["entry"]["user"]["name"], "ferris");
    assert_eq!(first["blame"]["entry"]["reason"], "mods need it here");

    // Declaring the overwrites manages them: the powerful one is then drift of a
    // managed field, blamed on the same member, and no longer an unmanaged object.
    let (code, r) = drift_json(&h, &format!("{manifest}    overwrites: []\n"), &[], &[]).await;
    assert_eq!(code, 2);
    assert!(
        !r["unmanaged"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["kind"] == "overwrite"),
        "{r:#}"
    );
    let b = field_blame(&r, "#bot-spam", "overwrites");
    assert_eq!(b["entry"]["user"]["name"], "ferris", "{r:#}");
    let plan = h
        .run(&[
            "plan",
            "-f",
            h.manifest("p.yaml", &manifest).to_str().unwrap(),
        ])
        .await;
    assert!(
        plan.stdout.contains("overwrites on #bot-spam"),
        "the plan names the overwrites it keeps: {}",
        plan.stdout
    );
}

/// Onboarding is blamed per field: the guild-level entry (166/167) for `mode`, the
/// prompt entries (163–165) for `prompts`, each with its own reason.
#[tokio::test]
async fn onboarding_fields_are_blamed_on_their_own_entries() {
    let h = harness(state()).await;
    let assets = h.dir.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::fs::copy(examples.join("assets/ci.png"), assets.join("ci.png")).unwrap();
    let manifest = std::fs::read_to_string(examples.join("community.yaml")).unwrap();
    let m = h.manifest("guild.yaml", &manifest);
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);

    let g = h.emu.guild_id.clone();
    let path = format!("/guilds/{g}/onboarding");
    let read = || async {
        reqwest::Client::new()
            .get(format!("{}{path}", h.emu.api_base))
            .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let mut onboarding = read().await;
    onboarding["mode"] = json!(1);
    as_human(&h, reqwest::Method::PUT, &path, onboarding, "advanced mode").await;
    let mut onboarding = read().await;
    onboarding["prompts"][0]["title"] = json!("Why are you here?");
    as_human(
        &h,
        reqwest::Method::PUT,
        &path,
        onboarding,
        "shorter question",
    )
    .await;

    let (code, r) = drift_json(&h, &manifest, &[], &[]).await;
    assert_eq!(code, 2, "{r:#}");
    let mode = field_blame(&r, "", "mode");
    assert_eq!(mode["entry"]["reason"], "advanced mode", "{r:#}");
    assert_eq!(mode["entry"]["user"]["name"], "ferris");
    let prompts = field_blame(&r, "", "prompts");
    assert_eq!(prompts["entry"]["reason"], "shorter question", "{r:#}");
}

/// Moderator's live permissions in the default guild, as the manifest declares them.
const MODERATOR_PERMISSIONS: &str = "[kick_members, ban_members, view_audit_log, \
    manage_messages, mute_members, deafen_members, move_members, manage_nicknames, \
    manage_threads, moderate_members]";

/// A managed role given administrator by hand is high risk like an unmanaged one: listed
/// first (before drift the plan finds earlier), in every format, with who gave it.
#[tokio::test]
async fn a_hand_given_administrator_on_a_managed_role_is_high_risk_and_listed_first() {
    let h = harness(state()).await;
    let manifest = format!(
        "version: 1
roles:
  - name: Admin
    color: \"#e74c3c\"
  - name: Moderator
    permissions: {MODERATOR_PERMISSIONS}
  - name: Helper
"
    );
    let (code, r) = drift_json(&h, &manifest, &[], &[]).await;
    assert_eq!(code, 0, "the baseline is clean: {r:#}");
    let g = h.emu.guild_id.clone();
    // Admin's colour first (earlier in the plan), then administrator for Moderator.
    let admin = h.role_id("Admin");
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{admin}"),
        json!({"color": 0x123456}),
        "darker",
    )
    .await;
    let moderator = h.role_id("Moderator");
    let live = h.guild().role_named("Moderator").permissions;
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"permissions": (live.0 | 8).to_string()}),
        "just for tonight",
    )
    .await;

    let (code, r) = drift_json(&h, &manifest, &[], &[]).await;
    assert_eq!(code, 2);
    let drifted = r["drifted"].as_array().unwrap();
    assert_eq!(drifted.len(), 2, "{r:#}");
    assert_eq!(drifted[0]["name"], "Moderator", "high risk first: {r:#}");
    assert_eq!(drifted[0]["high_risk"], true);
    let field = &drifted[0]["fields"][0];
    assert_eq!(field["field"], "permissions");
    assert_eq!(
        field["risk"],
        "live grants administrator, which the manifest does not"
    );
    assert_eq!(field["blame"]["entry"]["user"]["name"], "ferris");
    assert_eq!(field["blame"]["entry"]["reason"], "just for tonight");
    assert_eq!(drifted[1]["name"], "Admin");
    assert_eq!(drifted[1]["high_risk"], false);
    assert!(drifted[1]["fields"][0].get("risk").is_none());

    let m = h.manifest("m.yaml", &manifest);
    let text = h.run_env(&["drift", "-f", m.to_str().unwrap()], &[]).await;
    text.assert_code(2);
    let md = h
        .run_env(
            &["drift", "-f", m.to_str().unwrap(), "--format", "markdown"],
            &[],
        )
        .await;
    // Moderator first, high risk, with who gave administrator; then Admin's colour.
    let _redacted = common::snapshot::redacted();
    insta::assert_snapshot!("administrator_by_hand_text", text.stdout);
    insta::assert_snapshot!("administrator_by_hand_markdown", md.stdout);
}

/// The reason is text anyone can type: "guildctl apply: commit …" from a member is that
/// member's change (the report says the reason claims guildctl); from the bot that
/// applies, the same reason is guildctl's.
#[tokio::test]
async fn a_reason_claiming_guildctl_is_guildctls_only_from_the_bot_that_applies() {
    let h = harness(state()).await;
    let g = h.emu.guild_id.clone();
    let moderator = h.role_id("Moderator");
    let spoof = "guildctl apply: commit abc1234 by x";
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 0xff0000}),
        spoof,
    )
    .await;
    let (code, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    assert_eq!(code, 2);
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["user"]["name"], "ferris", "{b:#}");
    assert_eq!(b["entry"]["user"]["kind"], "human");
    assert_eq!(b["entry"]["reason"], spoof);
    assert!(b["entry"]["guildctl"].is_null(), "{b:#}");
    assert_eq!(b["entry"]["claims_guildctl"], true);
    let m = h.manifest("m.yaml", MANIFEST);
    let text = h.run_env(&["drift", "-f", m.to_str().unwrap()], &[]).await;
    assert!(
        text.stdout
            .contains("who / when / why: ferris (id 849074773295104000, human) · ")
            && text
                .stdout
                .contains("· the reason claims guildctl, but the entry is not the applying bot's"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("guildctl apply from commit"));

    // The bot applies a colour with the very same reason: that entry is guildctl's.
    let green = MANIFEST.replace("#3498db", "#00ff00");
    let m = h.manifest("green.yaml", &green);
    h.run_env(
        &[
            "apply",
            "-f",
            m.to_str().unwrap(),
            "--yes",
            "--reason",
            spoof,
        ],
        &[],
    )
    .await
    .assert_code(0);
    let (_, r) = drift_json(&h, MANIFEST, &[], &[]).await;
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["user"]["kind"], "this_bot", "{b:#}");
    assert_eq!(b["entry"]["guildctl"]["commit"], "abc1234");
    assert!(b["entry"].get("claims_guildctl").is_none());
}

/// Drift may run as a read-only bot while another applies: by default only the drift
/// bot's entries are guildctl's, so the applier's are not credited until `--applier`
/// names it.
#[tokio::test]
async fn drift_as_another_bot_credits_guildctl_only_to_the_applier_it_is_told() {
    const READER_TOKEN: &str = "read-only-drift-bot-token";
    const READER_ID: &str = "849074999999999999";
    let mut st = state();
    let applier = st.bot_user_id.clone();
    arrange(&mut st)
        .new_user(READER_ID, "guildctl-drift", true)
        .token_for("guildctl-drift", READER_TOKEN)
        // Moderator sees the channels and reads the audit log.
        .join("guildctl-drift", &["Moderator"]);
    let h = harness(st).await;
    let reason = "guildctl apply: commit abc1234 by Ann";
    let red = MANIFEST.replace("#3498db", "#e74c3c");
    let m = h.manifest("red.yaml", &red);
    h.run_env(
        &[
            "apply",
            "-f",
            m.to_str().unwrap(),
            "--yes",
            "--reason",
            reason,
        ],
        &[],
    )
    .await
    .assert_code(0);

    let as_reader = [("DISCORD_TOKEN", READER_TOKEN)];
    let (_, r) = drift_json(&h, MANIFEST, &[], &as_reader).await;
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["user"]["id"], applier.as_str(), "{b:#}");
    assert_eq!(b["entry"]["user"]["kind"], "bot");
    assert!(b["entry"]["guildctl"].is_null(), "{b:#}");
    assert_eq!(b["entry"]["claims_guildctl"], true);

    let (_, r) = drift_json(&h, MANIFEST, &["--applier", &applier], &as_reader).await;
    let b = field_blame(&r, "Moderator", "color");
    assert_eq!(b["entry"]["guildctl"]["commit"], "abc1234", "{b:#}");
    assert!(b["entry"].get("claims_guildctl").is_none());

    // A user id is digits; anything else is refused before any request.
    h.emu.clear_requests();
    let bad = h
        .run_env(
            &["drift", "-f", m.to_str().unwrap(), "--applier", "@guildctl"],
            &as_reader,
        )
        .await;
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("1 to 20 digits"), "{}", bad.stderr);
    assert!(h.requests().is_empty());
}

/// Export states every channel's overwrites, `[]` when it has none (issue 20, point 2): an
/// overwrite added by hand afterwards is drift of a managed field, with its author.
#[tokio::test]
async fn an_exported_guild_sees_a_hand_overwrite_on_a_channel_that_had_none() {
    let h = harness(state()).await;
    let export = h.run(&["export", "-o", "exported.yaml"]).await;
    export.assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(text.contains("overwrites: []"), "{text}");
    // A channel that has no overwrites and does not follow a category.
    let g = h.guild();
    let bare = g
        .channels
        .iter()
        .find(|c| c.kind == 0 && c.permission_overwrites.is_empty() && c.parent_id.is_none())
        .or_else(|| {
            g.channels
                .iter()
                .find(|c| c.kind == 4 && c.permission_overwrites.is_empty())
        })
        .expect("a channel or category without overwrites")
        .clone();
    let exported = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    let (code, r) = drift_json(&h, &exported, &[], &[]).await;
    assert_eq!(code, 0, "the export is clean: {r:#}");

    // @everyone loses sight of it, by hand.
    as_human(
        &h,
        reqwest::Method::PUT,
        &format!("/channels/{}/permissions/{}", bare.id, g.id),
        json!({"type": 0, "allow": "0", "deny": (1u64 << 10).to_string()}),
        "hide it for now",
    )
    .await;
    let (code, r) = drift_json(&h, &exported, &[], &[]).await;
    assert_eq!(code, 2, "{r:#}");
    let drifted = r["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == bare.id.as_str())
        .unwrap_or_else(|| panic!("{} not drifted: {r:#}", bare.name));
    let field = drifted["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"].as_str().unwrap().starts_with("overwrites"))
        .unwrap_or_else(|| panic!("no overwrites drift: {drifted:#}"));
    assert_eq!(field["blame"]["entry"]["user"]["name"], "ferris", "{r:#}");
    assert_eq!(field["blame"]["entry"]["reason"], "hide it for now");
}

/// Discord's pin and slowmode permission migrations rewrote roles and overwrites under
/// audit-log types 212 and 213 (not in the OpenAPI enum, and with no user): a role's
/// permissions and a channel's overwrite changed that way are Discord's change, said so in
/// every format, not a person's and not "not found".
#[tokio::test]
async fn a_permission_migration_is_blamed_on_discord() {
    let h = harness(state()).await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let exported = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    let (code, r) = drift_json(&h, &exported, &[], &[]).await;
    assert_eq!(code, 0, "the export is clean: {r:#}");

    let pin_messages = common::guild::perms(&["pin_messages"]);
    let bypass_slowmode = common::guild::perms(&["bypass_slowmode"]);
    let mut st = h.emu.state();
    let mut g = arrange(&mut st);
    let mut moderator = g.role("Moderator");
    let before = moderator.permissions;
    moderator.permissions = before | pin_messages;
    let (role_id, after) = (moderator.id.clone(), moderator.permissions);
    let channel = g
        .channels
        .iter_mut()
        .find(|c| c.permission_overwrites.iter().any(|o| o.kind == 0))
        .expect("a channel with a role overwrite");
    let overwrite = channel
        .permission_overwrites
        .iter_mut()
        .find(|o| o.kind == 0)
        .unwrap();
    let allow_before = overwrite.allow;
    overwrite.allow = allow_before | bypass_slowmode;
    let (channel_id, overwrite_id, allow_after) =
        (channel.id.clone(), overwrite.id.clone(), overwrite.allow);
    let id = |seq: u64| (((now_ms() - DISCORD_EPOCH_MS) << 22) + seq).to_string();
    let change = |key: &str, old: u64, new: u64| AuditChange {
        key: key.into(),
        old_value: Some(json!(old.to_string())),
        new_value: Some(json!(new.to_string())),
    };
    g.audit_log.push(AuditEntry {
        id: id(0),
        action_type: 212,
        user_id: None,
        target_id: Some(role_id),
        changes: vec![change("permissions", before.0, after.0)],
        options: None,
        reason: None,
    });
    g.audit_log.push(AuditEntry {
        id: id(1),
        action_type: 213,
        user_id: None,
        target_id: Some(channel_id.clone()),
        changes: vec![change("allow", allow_before.0, allow_after.0)],
        options: Some(
            json!({"id": overwrite_id, "type": "0"})
                .as_object()
                .unwrap()
                .clone(),
        ),
        reason: None,
    });
    h.emu.set_state(st);

    let (code, r) = drift_json(&h, &exported, &[], &[]).await;
    assert_eq!(code, 2, "{r:#}");
    let role = &field_blame(&r, "Moderator", "permissions")["entry"];
    assert_eq!(
        role["user"]["name"], "Discord's permission migration",
        "{r:#}"
    );
    assert_eq!(role["user"]["kind"], "discord");
    assert_eq!(role["action_type"], 212);
    let channel = r["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == channel_id.as_str())
        .unwrap_or_else(|| panic!("{channel_id} not drifted: {r:#}"));
    let overwrites = channel["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"].as_str().unwrap().starts_with("overwrites"))
        .unwrap_or_else(|| panic!("no overwrites drift: {channel:#}"));
    let entry = &overwrites["blame"]["entry"];
    assert_eq!(
        entry["user"]["name"], "Discord's permission migration",
        "{r:#}"
    );
    assert_eq!(entry["user"]["kind"], "discord");
    assert_eq!(entry["action_type"], 213);

    let m = h.manifest("m.yaml", &exported);
    for format in ["text", "markdown"] {
        let run = h
            .run(&["drift", "-f", m.to_str().unwrap(), "--format", format])
            .await;
        run.assert_code(2);
        assert_eq!(
            run.stdout.matches("Discord's permission migration").count(),
            2,
            "{format}: {}",
            run.stdout
        );
    }
}
