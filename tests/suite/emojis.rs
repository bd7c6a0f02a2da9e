//! `emojis:` over HTTP against the emulator: created once with the audit-log reason, compared
//! by content (an unchanged file is not sent again), renamed in place, a new image deleted and
//! created again under the deletion gate, Discord's limits refused at the manifest line, the
//! permission split of expressions, drift of a hand edit naming who made it, export as files
//! that plan back to nothing, and the rehearsal's copy holding the guild's emoji.

use crate::common::{Harness, state_with_owner_token};
use discord_emulator::State;
use serde_json::{Value, json};

/// The guild owner, a human, acts with this token.
const HUMAN_TOKEN: &str = "human-owner-token-for-emoji-tests";

/// A PNG of `w`×`h` pixels by its header (all the checks and the emulator read); `tag`
/// makes its bytes, and so its SHA-256, its own.
fn png(w: u32, h: u32, tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(&13u32.to_be_bytes());
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(tag.as_bytes());
    b
}

/// A GIF of 32×32 (animated, as Discord takes every GIF emoji).
fn gif(tag: &str) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend_from_slice(&[32, 0, 32, 0, 0, 0, 0]);
    b.extend_from_slice(tag.as_bytes());
    b
}

fn state() -> State {
    state_with_owner_token(HUMAN_TOKEN)
}

fn emoji_writes(h: &Harness) -> Vec<(String, String, Value)> {
    h.writes()
        .into_iter()
        .filter(|r| r.path.contains("/emojis"))
        .map(|r| (r.method.clone(), r.path.clone(), r.body.unwrap_or_default()))
        .collect()
}

fn live_emoji(h: &Harness, name: &str) -> Option<discord_emulator::state::Emoji> {
    h.guild().emojis.into_iter().find(|e| e.name == name)
}

const TWO: &str = "version: 1
emojis:
  - { name: crab_wave, image: emojis/crab_wave.png }
  - name: crab_dance
    image: emojis/crab_dance.gif
    roles: [Moderator]
";

async fn applied_two() -> (Harness, String) {
    let h = Harness::with_state(Some(state())).await;
    h.put("emojis/crab_wave.png", &png(64, 64, "wave"));
    h.put("emojis/crab_dance.gif", &gif("dance"));
    let m = h.manifest("guild.yaml", TWO);
    let m = m.to_str().unwrap().to_owned();
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    (h, m)
}

#[tokio::test]
async fn emojis_are_created_with_the_reason_and_a_second_plan_is_empty() {
    let (h, m) = applied_two().await;
    let writes = emoji_writes(&h);
    assert_eq!(writes.len(), 2, "{writes:#?}");
    for (method, _, body) in &writes {
        assert_eq!(method, "POST");
        assert!(
            body["image"].as_str().unwrap().starts_with("data:image/"),
            "{body}"
        );
    }
    let reasons: Vec<_> = h
        .writes()
        .into_iter()
        .filter(|r| r.path.contains("/emojis"))
        .map(|r| r.reason.unwrap_or_default())
        .collect();
    assert!(
        reasons.iter().all(|r| r.contains("guildctl")),
        "{reasons:?}"
    );
    let dance = live_emoji(&h, "crab_dance").expect("created");
    assert!(dance.animated);
    let moderator = h
        .guild()
        .roles
        .into_iter()
        .find(|r| r.name == "Moderator")
        .unwrap();
    assert_eq!(dance.roles, [moderator.id]);
    assert!(!live_emoji(&h, "crab_wave").unwrap().animated);
    // The guild's own emoji are kept, unmanaged.
    assert!(live_emoji(&h, "ferris_wave").is_some());

    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", &m, "--format", "json"]).await;
    again.assert_code(0);
    let plan = again.json();
    assert_eq!(plan["changes"], json!([]), "{plan:#}");
    let unmanaged: Vec<&str> = plan["unmanaged"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == "emoji")
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(unmanaged, ["ferris_wave", "party_crab"]);
    // One listing read beside the guild's seven (the CDN reads, one per emoji, are outside
    // the API's request log; the empty plan shows the images were read and compared).
    let reads: Vec<String> = h.requests().iter().map(|r| r.path.clone()).collect();
    let listing = reads.iter().filter(|p| p.ends_with("/emojis")).count();
    assert_eq!(listing, 1, "{reads:#?}");
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn a_manifest_without_emojis_reads_none() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest("guild.yaml", "version: 1\nroles:\n  - name: Moderator\n");
    h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert!(
        h.requests().iter().all(|r| !r.path.contains("emojis")),
        "{:#?}",
        h.requests()
    );
}

#[tokio::test]
async fn a_previous_name_renames_in_place_and_roles_change_in_the_same_call() {
    let (h, _) = applied_two().await;
    let id = live_emoji(&h, "crab_wave").unwrap().id;
    let renamed = "version: 1
emojis:
  - { name: crab_hello, previous_names: [crab_wave], image: emojis/crab_wave.png, roles: [Moderator] }
  - name: crab_dance
    image: emojis/crab_dance.gif
    roles: []
";
    let m = h.manifest("guild.yaml", renamed);
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = emoji_writes(&h);
    assert_eq!(writes.len(), 2, "{writes:#?}");
    assert!(
        writes.iter().all(|(method, _, _)| method == "PATCH"),
        "{writes:#?}"
    );
    let hello = live_emoji(&h, "crab_hello").expect("renamed");
    assert_eq!(hello.id, id, "renamed in place");
    assert_eq!(hello.roles.len(), 1);
    assert!(live_emoji(&h, "crab_dance").unwrap().roles.is_empty());
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_changed_image_is_a_deletion_and_a_creation_under_the_gate() {
    let (h, m) = applied_two().await;
    let old = live_emoji(&h, "crab_wave").unwrap().id;
    h.put("emojis/crab_wave.png", &png(64, 64, "a new wave"));

    let plan = h.run(&["plan", "-f", &m, "--format", "json"]).await;
    plan.assert_code(0);
    let plan = plan.json();
    let actions: Vec<(&str, &str)> = plan["changes"]
        .as_array()
        .unwrap()
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
        [("delete", "crab_wave"), ("create", "crab_wave")],
        "{plan:#}"
    );
    let kinds = plan["deletion_gate"]["kinds"].as_array().unwrap();
    assert!(
        kinds
            .iter()
            .any(|k| k["kind"] == "emojis" && k["deletes"] == 1),
        "{kinds:#?}"
    );
    let text = h.run(&["plan", "-f", &m]).await;
    assert!(
        text.stdout
            .contains("Discord cannot replace an emoji's image"),
        "{}",
        text.stdout
    );

    // No deletion allowed: refused, nothing written.
    let strict = format!("{TWO}safety:\n  allow_deletes: 0\n");
    let strict_path = h.manifest("strict.yaml", &strict);
    h.emu.clear_requests();
    let refused = h
        .run(&["apply", "-f", strict_path.to_str().unwrap(), "--yes"])
        .await;
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(h.writes().is_empty(), "{:#?}", h.writes());

    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let writes = emoji_writes(&h);
    let methods: Vec<&str> = writes.iter().map(|(m, _, _)| m.as_str()).collect();
    assert_eq!(methods, ["DELETE", "POST"], "{writes:#?}");
    let new = live_emoji(&h, "crab_wave").unwrap();
    assert_ne!(new.id, old);
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn bad_names_and_files_are_refused_at_their_lines() {
    let h = Harness::with_state(Some(state())).await;
    h.put("emojis/big.png", &png(64, 64, &"x".repeat(300 * 1024)));
    h.put("emojis/notes.png", b"just text");
    h.put("emojis/ok.webp", b"RIFF\x10\0\0\0WEBPVP8 \x04\0\0\0abcd");
    let m = h.manifest(
        "guild.yaml",
        "version: 1
emojis:
  - { name: a-b, image: emojis/ok.webp }
  - { name: big, image: emojis/big.png }
  - { name: notes, image: emojis/notes.png }
  - { name: outside, image: ../escape.png }
",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("guild.yaml:3") && out.contains("contains '-'"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:4") && out.contains("256 KiB"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:5") && out.contains("not a PNG, JPEG, GIF or WebP file"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:6") && out.contains("leaves the manifest's folder"),
        "{out}"
    );
    assert!(
        !out.contains("at emojis[0].image"),
        "a WebP emoji is taken: {out}"
    );
    assert!(h.requests().is_empty());
}

#[tokio::test]
async fn slots_by_boost_tier_are_refused_at_the_emoji_past_the_limit() {
    let mut st = state();
    let g = &mut st.guilds[0];
    g.premium_tier = 0;
    g.premium_subscription_count = 0;
    let template = g.emojis[0].clone();
    // 49 static emoji: one slot left of a tier-0 guild's 50.
    g.emojis.retain(|e| e.animated);
    for n in 0..49u64 {
        let mut e = template.clone();
        e.id = (900_000_000_000_000_000 + n).to_string();
        e.name = format!("filler_{n}");
        g.emojis.push(e);
    }
    let h = Harness::with_state(Some(st)).await;
    h.put("a.png", &png(32, 32, "a"));
    h.put("b.png", &png(32, 32, "b"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nemojis:\n  - { name: first, image: a.png }\n  - { name: second, image: b.png }\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("guild.yaml:4"), "{out}");
    assert!(
        out.contains("static emoji number 51") && out.contains("50 static slots"),
        "{out}"
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn another_members_emoji_needs_manage_guild_expressions() {
    let mut st = state();
    let g = &mut st.guilds[0];
    let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
    bot_role.permissions = guildctl::permissions::Permissions::CREATE_GUILD_EXPRESSIONS;
    let h = Harness::with_state(Some(st)).await;
    h.put("party.gif", &gif("not the live one"));
    // party_crab is alice's: renaming it needs manage_guild_expressions.
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nemojis:\n  - { name: crab_party, previous_names: [party_crab], image: party.gif }\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("manage_guild_expressions") && out.contains("alice uploaded it"),
        "{out}"
    );
    assert!(h.writes().is_empty());
}

async fn as_human(h: &Harness, method: reqwest::Method, path: &str, body: Value, reason: &str) {
    let url = format!("{}{path}", h.emu.api_base);
    let res = reqwest::Client::new()
        .request(method, &url)
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", reason)
        .json(&body)
        .send()
        .await
        .expect("request");
    assert!(res.status().is_success(), "{path}: {}", res.status());
}

fn drifted<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} not drifted: {r:#}"))
}

#[tokio::test]
async fn drift_names_who_changed_or_deleted_an_emoji_by_hand() {
    let (h, m) = applied_two().await;
    let g = h.emu.guild_id.clone();
    let dance = live_emoji(&h, "crab_dance").unwrap().id;
    let wave = live_emoji(&h, "crab_wave").unwrap().id;
    as_human(
        &h,
        reqwest::Method::PATCH,
        &format!("/guilds/{g}/emojis/{dance}"),
        json!({"roles": []}),
        "let everyone dance",
    )
    .await;
    as_human(
        &h,
        reqwest::Method::DELETE,
        &format!("/guilds/{g}/emojis/{wave}"),
        json!({}),
        "tidying",
    )
    .await;
    let run = h.run(&["drift", "-f", &m, "--format", "json"]).await;
    run.assert_code(2);
    let r = run.json();

    let changed = drifted(&r, "crab_dance");
    assert_eq!(changed["id"], dance.as_str());
    let field = &changed["fields"][0];
    assert_eq!(field["field"], "roles", "{changed:#}");
    let entry = &field["blame"]["entry"];
    assert_eq!(entry["user"]["name"], "ferris", "{r:#}");
    assert_eq!(entry["reason"], "let everyone dance");
    assert_eq!(entry["action_type"], 61);

    let gone = drifted(&r, "crab_wave");
    assert_eq!(gone["action"], "create", "{gone:#}");
    let entry = &gone["blame"]["entry"];
    assert_eq!(entry["user"]["name"], "ferris", "{r:#}");
    assert_eq!(entry["reason"], "tidying");
    assert_eq!(entry["action_type"], 62);
}

#[tokio::test]
async fn an_export_writes_the_emoji_images_and_plans_back_to_nothing() {
    let (h, _) = applied_two().await;
    let export = h.run(&["export", "-o", "exported.yaml"]).await;
    export.assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(text.contains("emojis:"), "{text}\n{}", export.stderr);
    assert!(text.contains("image: emojis/crab_wave.png"), "{text}");
    assert!(text.contains("image: emojis/party_crab.gif"), "{text}");
    let written = std::fs::read(h.dir.path().join("emojis/crab_wave.png")).unwrap();
    assert_eq!(written, png(64, 64, "wave"));
    let again = h
        .run(&["plan", "-f", "exported.yaml", "--detailed-exitcode"])
        .await;
    again.assert_code(0);
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_emojis_and_converges() {
    let (h, _) = applied_two().await;
    h.put("emojis/new.png", &png(16, 16, "new"));
    let m = h.manifest(
        "next.yaml",
        "version: 1
emojis:
  - { name: crab_hello, previous_names: [crab_wave], image: emojis/crab_wave.png }
  - { name: crab_dance, image: emojis/crab_dance.gif, roles: [Moderator] }
  - { name: fresh, image: emojis/new.png }
",
    );
    h.emu.clear_requests();
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 2, "{r:#}");
    assert!(h.writes().is_empty(), "the rehearsal writes nothing live");
}

#[tokio::test]
async fn prune_deletes_the_other_emojis_and_the_gate_counts_them() {
    let h = Harness::with_state(Some(state())).await;
    h.put("wave.png", &png(32, 32, "wave"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nemojis:\n  - { name: crab_wave, image: wave.png }\nprune:\n  emojis: true\n",
    );
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let gate = plan["deletion_gate"]["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "emojis")
        .cloned()
        .unwrap_or_else(|| panic!("{plan:#}"));
    assert_eq!(
        (gate["live"].as_u64(), gate["deletes"].as_u64()),
        (Some(2), Some(2))
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let names: Vec<String> = h.guild().emojis.into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["crab_wave"]);
}

#[tokio::test]
async fn a_base_declares_emojis_and_the_guild_changes_one_by_name() {
    let h = Harness::with_state(Some(state())).await;
    h.put("emojis/wave.png", &png(32, 32, "wave"));
    h.put("emojis/dance.gif", &gif("dance"));
    h.manifest(
        "base.yaml",
        "version: 1\nemojis:\n  - { name: crab_wave, image: emojis/wave.png }\n  - { name: crab_dance, image: emojis/dance.gif }\n",
    );
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nextends: base.yaml\nemojis:\n  - { name: crab_dance, roles: [Moderator] }\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let dance = live_emoji(&h, "crab_dance").expect("from the base, merged by name");
    assert_eq!(dance.roles.len(), 1);
    assert!(live_emoji(&h, "crab_wave").is_some());
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// Issue 41: an emoji's roles are named as Discord stores role names, as every reference
/// is: `" Moderator "` is the live Moderator role, planned, applied and planned to nothing.
#[tokio::test]
async fn an_emojis_roles_are_named_as_discord_stores_them() {
    let h = Harness::with_state(Some(state())).await;
    h.put("emojis/crab_wave.png", &png(64, 64, "wave"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nemojis:\n  - { name: crab_wave, image: emojis/crab_wave.png, roles: [\" Moderator \"] }\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let moderator = h.role_id("Moderator");
    assert_eq!(live_emoji(&h, "crab_wave").unwrap().roles, [moderator]);
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}
