//! `stickers:` over HTTP against the emulator: the issue's syntax uploaded as multipart and
//! converged, renamed in place, a new file deleted and created again under the deletion gate,
//! Discord's limits refused at the manifest line (size, type, pixels, Lottie, slots), a
//! rate-limited upload sent again whole, drift of a hand edit naming who made it, export as
//! files that plan back to nothing, and the rehearsal's copy.

use crate::common::{Harness, Run, state_with_owner_token};
use discord_emulator::State;
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet, Storm};
use serde_json::{Value, json};

/// The guild owner, a human, acts with this token.
const HUMAN_TOKEN: &str = "human-owner-token-for-sticker-tests";

/// A PNG of `w`×`h` pixels by its header (what the checks and the emulator read); `tag` makes
/// its bytes, and so its SHA-256, its own. With `animated`, an `acTL` chunk before any image
/// data makes it an APNG.
fn png(w: u32, h: u32, animated: bool, tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(&13u32.to_be_bytes());
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    if animated {
        b.extend_from_slice(&8u32.to_be_bytes());
        b.extend_from_slice(b"acTL");
        b.extend_from_slice(&[0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
    b.extend_from_slice(&(tag.len() as u32).to_be_bytes());
    b.extend_from_slice(b"tEXt");
    b.extend_from_slice(tag.as_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    b
}

/// A GIF of 320×320.
fn gif(tag: &str) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend_from_slice(&[0x40, 0x01, 0x40, 0x01, 0, 0, 0]);
    b.extend_from_slice(tag.as_bytes());
    b
}

/// A Lottie animation: JSON with its layers.
fn lottie(tag: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"v": "5.7.4", "fr": 30, "ip": 0, "op": 60, "w": 320, "h": 320, "nm": tag, "layers": []}))
        .unwrap()
}

fn state() -> State {
    state_with_owner_token(HUMAN_TOKEN)
}

fn sticker_writes(h: &Harness) -> Vec<(String, u16)> {
    h.writes()
        .into_iter()
        .filter(|r| r.path.contains("/stickers"))
        .map(|r| (r.method.clone(), r.status))
        .collect()
}

fn live_sticker(h: &Harness, name: &str) -> Option<discord_emulator::state::Sticker> {
    h.guild().stickers.into_iter().find(|s| s.name == name)
}

/// The bytes the emulator keeps of a sticker (what its CDN serves).
fn kept_file(s: &discord_emulator::state::Sticker) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s.file.as_deref().unwrap())
        .unwrap()
}

/// The issue's syntax, and a second sticker (a GIF).
const TWO: &str = "version: 1
stickers:
  - { name: ferris, image: stickers/ferris.png, tags: crab, description: Ferris waving }
  - { name: wave, image: stickers/wave.gif, tags: wave }
";

async fn applied_two() -> (Harness, String) {
    let h = Harness::with_state(Some(state())).await;
    h.put("stickers/ferris.png", &png(320, 320, false, "ferris"));
    h.put("stickers/wave.gif", &gif("wave"));
    let m = h.manifest("guild.yaml", TWO);
    let m = m.to_str().unwrap().to_owned();
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    (h, m)
}

#[tokio::test]
async fn the_issues_syntax_uploads_as_multipart_and_a_second_plan_is_empty() {
    let (h, m) = applied_two().await;
    // The guild's ferris is another file: replaced; wave is new.
    let writes = sticker_writes(&h);
    let methods: Vec<&str> = writes.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(methods, ["DELETE", "POST", "POST"], "{writes:#?}");
    let ferris = live_sticker(&h, "ferris").unwrap();
    assert_eq!(ferris.tags, "crab");
    assert_eq!(ferris.description.as_deref(), Some("Ferris waving"));
    assert_eq!(ferris.format_type, 1);
    assert_eq!(kept_file(&ferris), png(320, 320, false, "ferris"));
    let wave = live_sticker(&h, "wave").unwrap();
    assert_eq!(wave.format_type, 4, "a GIF sticker");
    assert_eq!(wave.description, None);
    assert_eq!(kept_file(&wave), gif("wave"));
    let reasons: Vec<String> = h
        .writes()
        .into_iter()
        .filter(|r| r.path.contains("/stickers"))
        .map(|r| r.reason.unwrap_or_default())
        .collect();
    assert!(
        reasons.iter().all(|r| r.contains("guildctl")),
        "{reasons:?}"
    );

    // Compared by content: one listing and one CDN read per sticker, nothing sent.
    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", &m, "--format", "json"]).await.json();
    assert_eq!(again["changes"], json!([]), "{again:#}");
    let listing = h
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/stickers"))
        .count();
    assert_eq!(listing, 1);
}

#[tokio::test]
async fn a_plan_without_stickers_reads_none() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest("guild.yaml", "version: 1\n");
    h.run(&["plan", "-f", m.to_str().unwrap()])
        .await
        .assert_code(0);
    assert!(
        !h.requests().iter().any(|r| r.path.contains("/stickers")),
        "{:#?}",
        h.requests()
    );
}

#[tokio::test]
async fn a_previous_name_renames_in_place_with_tags_and_description() {
    let (h, _) = applied_two().await;
    let id = live_sticker(&h, "wave").unwrap().id;
    let m = h.manifest(
        "guild.yaml",
        "version: 1
stickers:
  - { name: ferris, image: stickers/ferris.png, tags: crab, description: Ferris waving }
  - { name: hello, previous_names: [wave], image: stickers/wave.gif, tags: wave, description: Hello there }
",
    );
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes: Vec<_> = h
        .writes()
        .into_iter()
        .filter(|r| r.path.contains("/stickers"))
        .collect();
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert_eq!(writes[0].method, "PATCH");
    assert_eq!(
        writes[0].body,
        Some(json!({"name": "hello", "description": "Hello there"}))
    );
    let hello = live_sticker(&h, "hello").unwrap();
    assert_eq!(hello.id, id, "renamed in place");
    assert_eq!(hello.description.as_deref(), Some("Hello there"));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_changed_file_is_a_deletion_and_a_creation_under_the_gate() {
    let (h, m) = applied_two().await;
    let old = live_sticker(&h, "wave").unwrap().id;
    h.put("stickers/wave.gif", &gif("wave, faster"));
    let plan = h.run(&["plan", "-f", &m, "--format", "json"]).await.json();
    let actions: Vec<&str> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["delete", "create"], "{plan:#}");
    assert!(
        plan["deletion_gate"]["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["kind"] == "stickers" && k["deletes"] == 1),
        "{plan:#}"
    );
    let warned = plan["warnings"].as_array().unwrap().iter().any(|w| {
        w["message"]
            .as_str()
            .is_some_and(|t| t.contains("cannot replace a sticker's file"))
    });
    assert!(warned, "{plan:#}");
    // The gate holds it back when no deletion is allowed.
    h.emu.clear_requests();
    let refused = h
        .run(&["apply", "-f", &m, "--yes", "--allow-deletes", "0"])
        .await;
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(sticker_writes(&h).is_empty());
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let new = live_sticker(&h, "wave").unwrap();
    assert_ne!(new.id, old);
    assert_eq!(kept_file(&new), gif("wave, faster"));
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn big_wrong_and_oversized_files_are_refused_at_their_lines() {
    let h = Harness::with_state(Some(state())).await;
    let mut big = png(320, 320, false, "big");
    big.resize(600 * 1024, 0);
    h.put("big.png", &big);
    h.put("photo.jpg", b"\xFF\xD8\xFF\xE0 a JPEG");
    h.put("wide.png", &png(640, 320, false, "wide"));
    h.put("apng.png", &png(320, 320, true, "apng"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1
stickers:
  - { name: big, image: big.png, tags: big }
  - { name: photo, image: photo.jpg, tags: photo }
  - { name: wide, image: wide.png, tags: wide }
  - { name: moving, image: apng.png, tags: moving, description: x }
",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("guild.yaml:3") && out.contains("512 KiB"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:4") && out.contains("not a PNG, APNG, GIF or Lottie JSON file"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:5") && out.contains("640x320 pixels"),
        "{out}"
    );
    // The APNG is taken; its one-letter description is not.
    assert!(
        out.contains("guild.yaml:6") && out.contains("sticker description"),
        "{out}"
    );
    assert!(!out.contains("at stickers[3].image"), "{out}");
    assert!(h.requests().is_empty());
}

#[tokio::test]
async fn a_lottie_sticker_needs_a_verified_guild() {
    let h = Harness::with_state(Some(state())).await;
    h.put("spin.json", &lottie("spin"));
    let yaml = "version: 1\nstickers:\n  - { name: spin, image: spin.json, tags: spin }\n";
    let m = h.manifest("guild.yaml", yaml);
    let m = m.to_str().unwrap().to_owned();
    h.run(&["validate", "-f", &m]).await.assert_code(0);
    let run = h.run(&["plan", "-f", &m]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("guild.yaml:3") && out.contains("VERIFIED or PARTNERED"),
        "{out}"
    );
    assert!(h.writes().is_empty());

    let mut st = state();
    st.guilds[0].features.push("VERIFIED".into());
    let h = Harness::with_state(Some(st)).await;
    h.put("spin.json", &lottie("spin"));
    let m = h.manifest("guild.yaml", yaml);
    let m = m.to_str().unwrap().to_owned();
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let spin = live_sticker(&h, "spin").unwrap();
    assert_eq!(spin.format_type, 3, "a Lottie sticker");
    assert_eq!(kept_file(&spin), lottie("spin"));
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn slots_by_boost_tier_are_refused_at_the_sticker_past_the_limit() {
    let mut st = state();
    st.guilds[0].premium_tier = 0;
    st.guilds[0].premium_subscription_count = 0;
    let h = Harness::with_state(Some(st)).await;
    let mut yaml = String::from("version: 1\nstickers:\n");
    // The guild has one sticker (ferris, kept, unmanaged): 5 new ones make 6 of 5 slots.
    for k in 0..5 {
        h.put(
            &format!("s{k}.png"),
            &png(320, 320, false, &format!("s{k}")),
        );
        yaml.push_str(&format!(
            "  - {{ name: sticker{k}, image: s{k}.png, tags: s{k} }}\n"
        ));
    }
    let m = h.manifest("guild.yaml", &yaml);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("guild.yaml:7"), "{out}");
    assert!(
        out.contains("sticker number 6") && out.contains("5 sticker slots"),
        "{out}"
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn another_members_sticker_needs_manage_guild_expressions() {
    let mut st = state();
    let g = &mut st.guilds[0];
    let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
    bot_role.permissions = guildctl::permissions::Permissions::CREATE_GUILD_EXPRESSIONS;
    let h = Harness::with_state(Some(st)).await;
    // The guild's own ferris, the same file: only its tags change, on ferris's sticker.
    h.put(
        "ferris.png",
        &kept_file(&live_sticker(&h, "ferris").unwrap()),
    );
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nstickers:\n  - { name: ferris, image: ferris.png, tags: rust }\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("update sticker ferris")
            && out.contains("manage_guild_expressions")
            && out.contains("ferris uploaded it"),
        "{out}"
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_rate_limited_upload_is_sent_again_whole() {
    let h = Harness::with_state(Some(state())).await;
    h.put("stickers/wave.gif", &gif("wave"));
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "POST".into(),
                path: "/guilds/*/stickers".into(),
                probability: 1.0,
                kind: FaultKind::Storm429(Storm {
                    count: 1,
                    retry_after: 0.5,
                    scope: Default::default(),
                }),
            }],
        })
        .unwrap();
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nstickers:\n  - { name: wave, image: stickers/wave.gif, tags: wave }\n",
    );
    let child = h
        .command(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("guildctl starts");
    // Every matching request would storm: the rule goes once the first upload is refused,
    // within the half second the 429 asks the client to wait.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while !sticker_writes(&h).iter().any(|(_, s)| *s == 429) {
        assert!(tokio::time::Instant::now() < deadline, "no upload came");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    h.emu.clear_faults();
    Run::of(child.wait_with_output().await.unwrap()).assert_code(0);
    let posts: Vec<u16> = sticker_writes(&h)
        .into_iter()
        .filter(|(m, _)| m == "POST")
        .map(|(_, s)| s)
        .collect();
    assert_eq!(posts, [429, 201]);
    assert_eq!(kept_file(&live_sticker(&h, "wave").unwrap()), gif("wave"));
}

#[tokio::test]
async fn an_upload_whose_answer_is_lost_is_found_not_sent_twice() {
    let h = Harness::with_state(Some(state())).await;
    h.put("stickers/wave.gif", &gif("wave"));
    h.lose_answers("POST", "/guilds/*/stickers");
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nstickers:\n  - { name: wave, image: stickers/wave.gif, tags: wave }\n",
    );
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    // Made once, its answer lost: the listing shows it, so it is not uploaded again.
    let posts = sticker_writes(&h)
        .into_iter()
        .filter(|(m, _)| m == "POST")
        .count();
    assert_eq!(posts, 1);
    let waves = h
        .guild()
        .stickers
        .iter()
        .filter(|s| s.name == "wave")
        .count();
    assert_eq!(waves, 1);
}

#[tokio::test]
async fn drift_names_who_changed_a_sticker_by_hand() {
    let (h, m) = applied_two().await;
    let id = live_sticker(&h, "ferris").unwrap().id;
    let g = h.emu.guild_id.clone();
    let res = reqwest::Client::new()
        .patch(format!("{}/guilds/{g}/stickers/{id}", h.emu.api_base))
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", "better tags")
        .json(&json!({"tags": "rust"}))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let run = h.run(&["drift", "-f", &m, "--format", "json"]).await;
    run.assert_code(2);
    let r = run.json();
    let d = r["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{r:#}"));
    let field = &d["fields"][0];
    assert_eq!(field["field"], "tags", "{d:#}");
    assert_eq!(field["live"], "rust");
    let entry = &field["blame"]["entry"];
    assert_eq!(entry["user"]["name"], "ferris", "{r:#}");
    assert_eq!(entry["reason"], "better tags");
    assert_eq!(entry["action_type"], 91);
}

#[tokio::test]
async fn an_export_writes_the_stickers_and_plans_back_to_nothing() {
    let (h, _) = applied_two().await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(text.contains("stickers:"), "{text}");
    assert!(text.contains("image: stickers/ferris.png"), "{text}");
    assert!(text.contains("image: stickers/wave.gif"), "{text}");
    assert!(text.contains("description: Ferris waving"), "{text}");
    let written = std::fs::read(h.dir.path().join("stickers/wave.gif")).unwrap();
    assert_eq!(written, gif("wave"));
    h.run(&["plan", "-f", "exported.yaml", "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_stickers_and_converges() {
    let (h, _) = applied_two().await;
    h.put("stickers/new.png", &png(160, 160, true, "new"));
    let m = h.manifest(
        "next.yaml",
        "version: 1
stickers:
  - { name: crab, previous_names: [ferris], image: stickers/ferris.png, tags: crab }
  - { name: wave, image: stickers/wave.gif, tags: hello }
  - { name: fresh, image: stickers/new.png, tags: new }
",
    );
    h.emu.clear_requests();
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 3, "{r:#}");
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_base_and_a_guild_merge_stickers_by_name() {
    let h = Harness::with_state(Some(state())).await;
    h.put("stickers/ferris.png", &png(320, 320, false, "ferris"));
    h.manifest(
        "base.yaml",
        "version: 1\nstickers:\n  - { name: ferris, image: stickers/ferris.png, tags: crab }\n",
    );
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nextends: base.yaml\nstickers:\n  - { name: ferris, image: stickers/ferris.png, tags: crab, description: Ferris waving }\n",
    );
    let plan = h
        .run(&["plan", "-f", m.to_str().unwrap(), "--format", "json"])
        .await
        .json();
    let creates: Vec<&Value> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] == "create")
        .collect();
    assert_eq!(creates.len(), 1, "one ferris, merged: {plan:#}");
    let fields = creates[0]["fields"].as_array().unwrap();
    assert!(
        fields
            .iter()
            .any(|f| f["field"] == "description" && f["after"] == "Ferris waving"),
        "{plan:#}"
    );
}
