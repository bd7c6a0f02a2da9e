//! Soundboard sounds (§10.2).

use discord_emulator::default_state;
use discord_emulator::state::{Sound, State};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry, with_bot_permissions};
use crate::emulator_support::files::{data_uri, mp3, ogg};
use crate::emulator_support::{T, err_code, error_at};

fn sounds_path(t: &T) -> String {
    format!("/guilds/{}/soundboard-sounds", t.g())
}

fn mp3_uri(frames: usize) -> String {
    data_uri("audio/mpeg", &mp3(frames))
}

#[tokio::test]
async fn a_sound_is_created_and_served_exactly() {
    let t = T::new().await;
    let bytes = mp3(100); // 2.6 s
    let (s, v) = t
        .call(
            Method::POST,
            &sounds_path(&t),
            Some(
                json!({"name": "airhorn", "sound": data_uri("audio/mpeg", &bytes),
                        "emoji_name": "📯"}),
            ),
            Some("sound%20as%20code"),
        )
        .await;
    assert_eq!(s, 201, "create answers 201: {v}");
    assert_eq!(
        (v["name"].clone(), v["volume"].clone()),
        (json!("airhorn"), json!(1.0)),
        "volume defaults to 1"
    );
    assert_eq!(
        (v["emoji_name"].clone(), v["emoji_id"].clone()),
        (json!("📯"), Value::Null)
    );
    assert_eq!(
        (v["guild_id"].clone(), v["available"].clone()),
        (json!(t.g()), json!(true))
    );
    assert_eq!(v["user"]["id"], t.emu.state().bot_user_id.as_str());
    let id = v["sound_id"].as_str().unwrap();
    let (s, ct, got) = t.cdn(&format!("soundboard-sounds/{id}")).await;
    assert_eq!((s, ct.as_str(), got), (200, "audio/mpeg", bytes));
    let log = last_entry(&t, 130).await;
    assert_eq!(
        (log["target_id"].clone(), log["reason"].clone()),
        (json!(id), json!("sound as code"))
    );
    assert_eq!(change(&log, "name"), Some(&json!("airhorn")));
    let (s, list) = t.get(&sounds_path(&t)).await;
    assert_eq!(s, 200);
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["sound_id"] == id),
        "{list}"
    );
    let (s, one) = t.get(&format!("{}/{id}", sounds_path(&t))).await;
    assert_eq!((s, &one), (200, &v));
    // Ogg is the other format, served as such.
    let (s, v) = t
        .post(
            &sounds_path(&t),
            json!({"name": "quack", "sound": data_uri("audio/ogg", &ogg(1.5)), "volume": 0.25}),
        )
        .await;
    assert_eq!((s, v["volume"].clone()), (201, json!(0.25)));
    let (_, ct, _) = t
        .cdn(&format!(
            "soundboard-sounds/{}",
            v["sound_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(ct, "audio/ogg");
}

#[tokio::test]
async fn sounds_are_mp3_or_ogg_within_512_kib_and_5_2_seconds() {
    let t = T::new().await;
    let path = sounds_path(&t);
    let body = |name: &str, sound: String| json!({"name": name, "sound": sound});
    // 199 frames play 5.198 s, 200 frames 5.224 s.
    let (s, _) = t.post(&path, body("just_right", mp3_uri(199))).await;
    assert_eq!(s, 201);
    let (s, v) = t.post(&path, body("too_long", mp3_uri(200))).await;
    assert_eq!(
        (s, error_at(&v, &["sound"]).as_str()),
        (400, "SOUND_DURATION_TOO_LONG")
    );
    let (s, _) = t
        .post(&path, body("ogg_5_2", data_uri("audio/ogg", &ogg(5.2))))
        .await;
    assert_eq!(s, 201);
    let (s, v) = t
        .post(&path, body("ogg_5_3", data_uri("audio/ogg", &ogg(5.3))))
        .await;
    assert_eq!(
        (s, error_at(&v, &["sound"]).as_str()),
        (400, "SOUND_DURATION_TOO_LONG")
    );
    // 512 KiB at most, counted on the decoded bytes.
    let mut big = mp3(10);
    big.resize(512 * 1024 + 1, 0);
    let (s, v) = t
        .post(&path, body("too_big", data_uri("audio/mpeg", &big)))
        .await;
    assert_eq!(
        (s, error_at(&v, &["sound"]).as_str()),
        (400, "BINARY_TYPE_MAX_SIZE")
    );
    for not_sound in [
        data_uri("audio/wav", b"RIFF\x24\x00\x00\x00WAVEfmt "),
        data_uri("audio/mpeg", b"not an mp3 at all"),
        "not a data uri".to_owned(),
    ] {
        let (s, v) = t.post(&path, body("nope", not_sound)).await;
        assert_eq!((s, err_code(&v)), (400, 50046));
    }
    let (s, v) = t.post(&path, json!({"name": "nothing"})).await;
    assert_eq!(
        (s, error_at(&v, &["sound"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    for (volume, code) in [
        (json!(1.5), "NUMBER_TYPE_MAX"),
        (json!(-0.1), "NUMBER_TYPE_MIN"),
        (json!("loud"), "NUMBER_TYPE_COERCE"),
    ] {
        let (s, v) = t
            .post(
                &path,
                json!({"name": "vol", "sound": mp3_uri(10), "volume": volume}),
            )
            .await;
        assert_eq!((s, error_at(&v, &["volume"]).as_str()), (400, code));
    }
    let (s, v) = t.post(&path, body("x", mp3_uri(10))).await;
    assert_eq!(
        (s, error_at(&v, &["name"]).as_str()),
        (400, "BASE_TYPE_BAD_LENGTH")
    );
}

#[tokio::test]
async fn modify_never_changes_the_sound() {
    let t = T::new().await;
    let bytes = mp3(40);
    let (_, v) = t
        .post(
            &sounds_path(&t),
            json!({"name": "horn", "sound": data_uri("audio/mpeg", &bytes)}),
        )
        .await;
    let id = v["sound_id"].as_str().unwrap();
    let one = format!("{}/{id}", sounds_path(&t));
    let emoji = "1300000000000000000";
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(
                json!({"name": "horn_2", "volume": 0.5, "emoji_id": emoji, "emoji_name": null,
                        "sound": data_uri("audio/ogg", &ogg(1.0))}),
            ),
            Some("quieter"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (
            v["name"].clone(),
            v["volume"].clone(),
            v["emoji_id"].clone()
        ),
        (json!("horn_2"), json!(0.5), json!(emoji))
    );
    let (_, ct, got) = t.cdn(&format!("soundboard-sounds/{id}")).await;
    assert_eq!((ct.as_str(), got), ("audio/mpeg", bytes), "the sound stays");
    let log = last_entry(&t, 131).await;
    assert_eq!(
        (change(&log, "volume"), log["reason"].clone()),
        (Some(&json!(0.5)), json!("quieter"))
    );
    let (s, _) = t.delete(&one).await;
    assert_eq!(s, 204);
    let (s, v) = t.get(&one).await;
    assert_eq!((s, err_code(&v)), (404, 10097));
    assert_eq!(last_entry(&t, 132).await["target_id"], id);
}

fn with_sounds(tier: u8, n: usize) -> State {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    g.premium_tier = tier;
    g.soundboard_sounds = (0..n)
        .map(|i| Sound {
            sound_id: (1_300_000_000_000_000_000u64 + i as u64).to_string(),
            name: format!("hand {i}"),
            volume: 1.0,
            emoji_id: None,
            emoji_name: None,
            available: true,
            user_id: Some(g.owner_id.clone()),
            sound: None,
        })
        .collect();
    st
}

#[tokio::test]
async fn slots_follow_the_boost_tier() {
    let t = T::with(with_sounds(0, 8)).await;
    let (s, v) = t
        .post(
            &sounds_path(&t),
            json!({"name": "ninth", "sound": mp3_uri(10)}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 30045));
    assert_eq!(
        v["message"],
        "Maximum number of soundboard sounds reached (8)"
    );
    let t = T::with(with_sounds(1, 23)).await;
    let (s, _) = t
        .post(
            &sounds_path(&t),
            json!({"name": "24th", "sound": mp3_uri(10)}),
        )
        .await;
    assert_eq!(s, 201);
    let mut st = with_sounds(0, 8);
    st.guilds[0].features.push("MORE_SOUNDBOARD".into());
    let t = T::with(st).await;
    let (s, _) = t
        .post(
            &sounds_path(&t),
            json!({"name": "more", "sound": mp3_uri(10)}),
        )
        .await;
    assert_eq!(s, 201);
}

#[tokio::test]
async fn others_sounds_need_manage_guild_expressions() {
    let mut st = with_bot_permissions(Permissions::CREATE_GUILD_EXPRESSIONS);
    st.guilds[0].soundboard_sounds = with_sounds(1, 1).guilds[0].soundboard_sounds.clone();
    let t = T::with(st).await;
    let other = format!("{}/1300000000000000000", sounds_path(&t));
    let (s, v) = t.patch(&other, json!({"volume": 0.1})).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t.delete(&other).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, mine) = t
        .post(
            &sounds_path(&t),
            json!({"name": "mine", "sound": mp3_uri(10)}),
        )
        .await;
    assert_eq!(s, 201);
    let (s, _) = t
        .delete(&format!(
            "{}/{}",
            sounds_path(&t),
            mine["sound_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(s, 204);
    let t = T::with(with_bot_permissions(Permissions::MANAGE_GUILD_EXPRESSIONS)).await;
    let (s, v) = t
        .post(
            &sounds_path(&t),
            json!({"name": "nope", "sound": mp3_uri(10)}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
}
