//! `soundboard:` over HTTP against the emulator: the issue's syntax applied and converged,
//! renamed in place, a new file deleted and created again under the deletion gate, Discord's
//! limits refused at the manifest line (length, size, slots), drift of a hand edit naming who
//! made it, export as files that plan back to nothing, and the rehearsal's copy.

use crate::common::{Harness, state_with_owner_token};
use discord_emulator::State;
use serde_json::{Value, json};

const HUMAN_TOKEN: &str = "human-owner-token-for-sound-tests";

/// `n` MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz (26 ms each); `tag` in the first
/// frame's body makes the file its own.
fn mp3(n: usize, tag: &str) -> Vec<u8> {
    let mut frame = vec![0u8; 417];
    frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
    let mut b = frame.repeat(n);
    b[4..4 + tag.len()].copy_from_slice(tag.as_bytes());
    b
}

/// A real Ogg file of `seconds` (tests/data/sounds, made by oggenc and opusenc): Vorbis for
/// 2 and 6 seconds, Opus (pre-skip 312) for 1. Each length is its own file, so the sounds
/// differ by content.
fn ogg(seconds: u32) -> Vec<u8> {
    let name = match seconds {
        1 => "opus-1s.ogg",
        2 => "vorbis-2s.ogg",
        6 => "vorbis-6s.ogg",
        _ => unreachable!("no {seconds} s file in tests/data/sounds"),
    };
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/sounds")
            .join(name),
    )
    .unwrap()
}

fn state() -> State {
    state_with_owner_token(HUMAN_TOKEN)
}

fn sound_writes(h: &Harness) -> Vec<(String, Value)> {
    h.writes()
        .into_iter()
        .filter(|r| r.path.contains("/soundboard-sounds"))
        .map(|r| (r.method.clone(), r.body.unwrap_or_default()))
        .collect()
}

fn live_sound(h: &Harness, name: &str) -> Option<discord_emulator::state::Sound> {
    h.guild()
        .soundboard_sounds
        .into_iter()
        .find(|s| s.name == name)
}

/// The issue's syntax, and a second sound.
const TWO: &str = "version: 1
soundboard:
  - { name: airhorn, sound: sounds/airhorn.ogg, volume: 0.8, emoji: \"📯\" }
  - { name: boing, sound: sounds/boing.mp3 }
";

async fn applied_two() -> (Harness, String) {
    let h = Harness::with_state(Some(state())).await;
    h.put("sounds/airhorn.ogg", &ogg(2));
    h.put("sounds/boing.mp3", &mp3(40, "boing"));
    let m = h.manifest("guild.yaml", TWO);
    let m = m.to_str().unwrap().to_owned();
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    (h, m)
}

#[tokio::test]
async fn the_issues_syntax_applies_and_a_second_plan_is_empty() {
    let (h, m) = applied_two().await;
    // The guild's airhorn is another file (an MP3): replaced; boing is new.
    let writes = sound_writes(&h);
    let methods: Vec<&str> = writes.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(methods, ["DELETE", "POST", "POST"], "{writes:#?}");
    let airhorn = live_sound(&h, "airhorn").unwrap();
    assert_eq!(airhorn.volume, 0.8);
    assert_eq!(airhorn.emoji_name.as_deref(), Some("📯"));
    assert!(
        airhorn
            .sound
            .as_deref()
            .unwrap()
            .starts_with("data:audio/ogg;base64,")
    );
    assert_eq!(live_sound(&h, "boing").unwrap().volume, 1.0);
    let reasons: Vec<String> = h
        .writes()
        .into_iter()
        .filter(|r| r.path.contains("/soundboard-sounds"))
        .map(|r| r.reason.unwrap_or_default())
        .collect();
    assert!(
        reasons.iter().all(|r| r.contains("guildctl")),
        "{reasons:?}"
    );

    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", &m, "--format", "json"]).await.json();
    assert_eq!(again["changes"], json!([]), "{again:#}");
    let listing = h
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/soundboard-sounds"))
        .count();
    assert_eq!(listing, 1);
}

#[tokio::test]
async fn a_previous_name_renames_in_place_and_volume_and_emoji_change_with_it() {
    let (h, _) = applied_two().await;
    let id = live_sound(&h, "boing").unwrap().sound_id;
    let m = h.manifest(
        "guild.yaml",
        "version: 1
soundboard:
  - { name: airhorn, sound: sounds/airhorn.ogg, volume: 0.8, emoji: \"📯\" }
  - { name: bounce, previous_names: [boing], sound: sounds/boing.mp3, volume: 0.25, emoji: \"🏀\" }
",
    );
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = sound_writes(&h);
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert_eq!(writes[0].0, "PATCH");
    let bounce = live_sound(&h, "bounce").unwrap();
    assert_eq!(bounce.sound_id, id, "renamed in place");
    assert_eq!(bounce.volume, 0.25);
    assert_eq!(bounce.emoji_name.as_deref(), Some("🏀"));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_changed_file_is_a_deletion_and_a_creation_under_the_gate() {
    let (h, m) = applied_two().await;
    let old = live_sound(&h, "boing").unwrap().sound_id;
    h.put("sounds/boing.mp3", &mp3(40, "boing, louder"));
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
            .any(|k| k["kind"] == "sounds" && k["deletes"] == 1),
        "{plan:#}"
    );
    h.emu.clear_requests();
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    assert_ne!(live_sound(&h, "boing").unwrap().sound_id, old);
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn long_big_and_unreadable_sounds_are_refused_at_their_lines() {
    let h = Harness::with_state(Some(state())).await;
    h.put("long.ogg", &ogg(6));
    h.put("big.mp3", &mp3(1300, "big"));
    h.put("text.mp3", b"not a sound");
    let m = h.manifest(
        "guild.yaml",
        "version: 1
soundboard:
  - { name: long, sound: long.ogg }
  - { name: big, sound: big.mp3 }
  - { name: text, sound: text.mp3 }
",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("guild.yaml:3") && out.contains("plays 6.00 seconds"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:4") && out.contains("512 KiB"),
        "{out}"
    );
    assert!(
        out.contains("guild.yaml:5") && out.contains("not a readable MP3 or Ogg file"),
        "{out}"
    );
    assert!(h.requests().is_empty());
    // The volume's range is the schema's.
    let loud = h.manifest(
        "loud.yaml",
        "version: 1\nsoundboard:\n  - { name: loud, sound: big.mp3, volume: 2 }\n",
    );
    let run = h.run(&["validate", "-f", loud.to_str().unwrap()]).await;
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("loud.yaml:3") && out.contains("volume 2 is above the maximum"),
        "{out}"
    );
}

#[tokio::test]
async fn slots_by_boost_tier_are_refused_at_the_sound_past_the_limit() {
    let mut st = state();
    st.guilds[0].premium_tier = 0;
    st.guilds[0].premium_subscription_count = 0;
    let h = Harness::with_state(Some(st)).await;
    let mut yaml = String::from("version: 1\nsoundboard:\n");
    // The guild has one sound (airhorn, kept, unmanaged): 8 new ones make 9 of 8 slots.
    for k in 0..8 {
        h.put(&format!("s{k}.mp3"), &mp3(10, &format!("s{k}")));
        yaml.push_str(&format!("  - {{ name: sound{k}, sound: s{k}.mp3 }}\n"));
    }
    let m = h.manifest("guild.yaml", &yaml);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("guild.yaml:10"), "{out}");
    assert!(
        out.contains("sound number 9") && out.contains("8 soundboard slots"),
        "{out}"
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_sound_whose_answer_is_lost_is_found_not_sent_twice() {
    let h = Harness::with_state(Some(state())).await;
    h.put("sounds/boing.mp3", &mp3(40, "boing"));
    h.lose_answers("POST", "/guilds/*/soundboard-sounds");
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsoundboard:\n  - { name: boing, sound: sounds/boing.mp3 }\n",
    );
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    // Made once, its answer lost: the listing (`{"items": [...]}`) shows it, so it is
    // not uploaded again.
    let posts = sound_writes(&h)
        .into_iter()
        .filter(|(m, _)| m == "POST")
        .count();
    assert_eq!(posts, 1);
    let boings = h
        .guild()
        .soundboard_sounds
        .iter()
        .filter(|s| s.name == "boing")
        .count();
    assert_eq!(boings, 1);
}

#[tokio::test]
async fn drift_names_who_changed_a_sound_by_hand() {
    let (h, m) = applied_two().await;
    let id = live_sound(&h, "airhorn").unwrap().sound_id;
    let g = h.emu.guild_id.clone();
    let res = reqwest::Client::new()
        .patch(format!(
            "{}/guilds/{g}/soundboard-sounds/{id}",
            h.emu.api_base
        ))
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", "too loud")
        .json(&json!({"volume": 0.3}))
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
    assert_eq!(field["field"], "volume", "{d:#}");
    assert_eq!(field["live"], 0.3);
    let entry = &field["blame"]["entry"];
    assert_eq!(entry["user"]["name"], "ferris", "{r:#}");
    assert_eq!(entry["reason"], "too loud");
    assert_eq!(entry["action_type"], 131);
}

#[tokio::test]
async fn an_export_writes_the_sounds_and_plans_back_to_nothing() {
    let (h, _) = applied_two().await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(text.contains("soundboard:"), "{text}");
    assert!(text.contains("sound: sounds/airhorn.ogg"), "{text}");
    assert!(text.contains("sound: sounds/boing.mp3"), "{text}");
    let written = std::fs::read(h.dir.path().join("sounds/boing.mp3")).unwrap();
    assert_eq!(written, mp3(40, "boing"));
    h.run(&["plan", "-f", "exported.yaml", "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_sounds_and_converges() {
    let (h, _) = applied_two().await;
    h.put("sounds/new.ogg", &ogg(1));
    let m = h.manifest(
        "next.yaml",
        "version: 1
soundboard:
  - { name: horn, previous_names: [airhorn], sound: sounds/airhorn.ogg, volume: 0.5 }
  - { name: boing, sound: sounds/boing.mp3 }
  - { name: fresh, sound: sounds/new.ogg }
",
    );
    h.emu.clear_requests();
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 2, "{r:#}");
    assert!(h.writes().is_empty());
}

/// An export writes a sound's volume as a plain decimal: the fast parse reads it, to the tree
/// serde-saphyr builds; other spellings of numbers are left to serde-saphyr.
#[test]
fn plain_decimals_parse_fast_and_agree() {
    for text in [
        "version: 1\nsoundboard:\n  - { name: a, sound: a.ogg, volume: 0.8 }\n",
        "a: 1.0\nb: 10.25\nc: [0.5, 1.5]\n",
    ] {
        assert!(guildctl::manifest::load::parses_fast(text), "{text}");
        guildctl::manifest::load::assert_parses_agree(text);
    }
    for text in ["a: 01.5\n", "a: 1.\n", "a: .5\n", "a: 1e3\n", "a: -0.5\n"] {
        guildctl::manifest::load::assert_parses_agree(text);
    }
}
