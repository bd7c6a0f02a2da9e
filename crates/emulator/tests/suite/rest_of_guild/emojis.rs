//! Emoji (§10.2).

use discord_emulator::default_state;
use discord_emulator::state::{Emoji, State};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry, with_bot_permissions};
use crate::emulator_support::files::{data_uri, gif, jpeg, png, png_sized};
use crate::emulator_support::{T, err_code, error_at};

fn emojis_path(t: &T) -> String {
    format!("/guilds/{}/emojis", t.g())
}

fn png_uri() -> String {
    data_uri("image/png", &png(128, 128))
}

/// An emoji someone else (the owner, ferris) made by hand.
fn by_ferris(st: &State, id: &str, animated: bool) -> Emoji {
    Emoji {
        id: id.into(),
        name: format!("hand_{id}"),
        roles: Vec::new(),
        user_id: Some(st.guilds[0].owner_id.clone()),
        require_colons: true,
        managed: false,
        animated,
        available: true,
        image: Some(png_uri()),
    }
}

/// The default state at boost tier `tier`, without emoji, plus `n` static and `a`
/// animated ones made by hand.
fn with_emojis(tier: u8, n: usize, a: usize) -> State {
    let mut st = default_state();
    st.guilds[0].premium_tier = tier;
    st.guilds[0].emojis.clear();
    for i in 0..n + a {
        let e = by_ferris(
            &st,
            &(1_100_000_000_000_000_000u64 + i as u64).to_string(),
            i >= n,
        );
        st.guilds[0].emojis.push(e);
    }
    st
}

#[tokio::test]
async fn an_emoji_is_created_with_its_image_served_exactly_by_the_cdn() {
    let t = T::new().await;
    let bytes = png(128, 128);
    let (s, e) = t
        .call(
            Method::POST,
            &emojis_path(&t),
            Some(json!({"name": "ferris_wave", "image": data_uri("image/png", &bytes)})),
            Some("emoji%20as%20code"),
        )
        .await;
    assert_eq!(s, 201, "create answers 201: {e}");
    assert_eq!(e["name"], "ferris_wave");
    assert_eq!(
        (e["animated"].clone(), e["require_colons"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(
        (e["managed"].clone(), e["available"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(e["roles"], json!([]));
    assert_eq!(
        e["user"]["id"],
        t.emu.state().bot_user_id.as_str(),
        "the creator"
    );
    let id = e["id"].as_str().unwrap();
    let (s, ct, got) = t.cdn(&format!("emojis/{id}.png")).await;
    assert_eq!((s, ct.as_str()), (200, "image/png"));
    assert_eq!(got, bytes, "the CDN serves the exact bytes");
    let (s, _, _) = t.cdn(&format!("emojis/{id}.webp?size=64")).await;
    assert_eq!(s, 200, "any extension names the same emoji");
    let log = last_entry(&t, 60).await;
    assert_eq!(
        (log["target_id"].clone(), log["reason"].clone()),
        (json!(id), json!("emoji as code"))
    );
    assert_eq!(change(&log, "name"), Some(&json!("ferris_wave")));
    // A GIF makes an animated emoji; JPEG and WebP are taken; the type the URI names does
    // not matter, the bytes do.
    let (s, g) = t
        .post(
            &emojis_path(&t),
            json!({"name": "party", "image": data_uri("image/gif", &gif(64, 64))}),
        )
        .await;
    assert_eq!((s, g["animated"].clone()), (201, json!(true)));
    let (s, _) = t
        .post(
            &emojis_path(&t),
            json!({"name": "photo", "image": data_uri("image/png", &jpeg())}),
        )
        .await;
    assert_eq!(s, 201);
    let (_, ct, _) = t
        .cdn(&format!("emojis/{}.gif", g["id"].as_str().unwrap()))
        .await;
    assert_eq!(ct, "image/gif");
}

#[tokio::test]
async fn images_names_and_roles_are_checked() {
    let t = T::new().await;
    let path = emojis_path(&t);
    let body = |name: &str, image: String| json!({"name": name, "image": image});
    // 256 KiB is the most.
    let (s, _) = t
        .post(
            &path,
            body(
                "big_ok",
                data_uri("image/png", &png_sized(128, 128, false, 256 * 1024)),
            ),
        )
        .await;
    assert_eq!(s, 201);
    let (s, v) = t
        .post(
            &path,
            body(
                "too_big",
                data_uri("image/png", &png_sized(128, 128, false, 256 * 1024 + 1)),
            ),
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["image"]).as_str()),
        (400, "BINARY_TYPE_MAX_SIZE")
    );
    assert_eq!(
        v["errors"]["image"]["_errors"][0]["message"],
        "File cannot be larger than 256.0 kb."
    );
    for image in [
        data_uri("image/png", b"this is text, not an image"),
        data_uri("image/bmp", b"BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00"),
        "https://example.com/ferris.png".to_owned(),
    ] {
        let (s, v) = t.post(&path, body("not_image", image)).await;
        assert_eq!(
            (s, error_at(&v, &["image"]).as_str()),
            (400, "IMAGE_INVALID")
        );
    }
    for (name, code) in [
        ("x", "BASE_TYPE_BAD_LENGTH"),
        (&*"x".repeat(33), "BASE_TYPE_BAD_LENGTH"),
        ("ferris-wave", "STRING_TYPE_REGEX"),
        ("ferris wave", "STRING_TYPE_REGEX"),
    ] {
        let (s, v) = t.post(&path, body(name, png_uri())).await;
        assert_eq!((s, error_at(&v, &["name"]).as_str()), (400, code), "{name}");
    }
    let (s, v) = t.post(&path, json!({"name": "no_image"})).await;
    assert_eq!(
        (s, error_at(&v, &["image"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    let (s, v) = t
        .post(
            &path,
            json!({"name": "roles", "image": png_uri(), "roles": ["123456789012345678"]}),
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["roles", "0"]).as_str()),
        (400, "ROLE_NOT_FOUND")
    );
    let contributor = t.role("Contributor");
    let (s, v) = t
        .post(
            &path,
            json!({"name": "roles", "image": png_uri(), "roles": [contributor]}),
        )
        .await;
    assert_eq!((s, v["roles"].clone()), (201, json!([contributor])));
    assert_eq!(err_code(&v), -1);
}

#[tokio::test]
async fn modify_changes_name_and_roles_never_the_image() {
    let t = T::new().await;
    let bytes = png(128, 128);
    let (_, e) = t
        .post(
            &emojis_path(&t),
            json!({"name": "before", "image": data_uri("image/png", &bytes)}),
        )
        .await;
    let one = format!("{}/{}", emojis_path(&t), e["id"].as_str().unwrap());
    let member = t.role("Member");
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(json!({"name": "after", "roles": [member], "image": data_uri("image/gif", &gif(8, 8))})),
            Some("rename"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["name"].clone(), v["roles"].clone()),
        (json!("after"), json!([member]))
    );
    assert_eq!(v["animated"], false, "the image is not changed");
    let (_, _, got) = t
        .cdn(&format!("emojis/{}.png", e["id"].as_str().unwrap()))
        .await;
    assert_eq!(got, bytes);
    let log = last_entry(&t, 61).await;
    assert_eq!(
        (change(&log, "name"), log["reason"].clone()),
        (Some(&json!("after")), json!("rename"))
    );
    let (s, v) = t.patch(&one, json!({"roles": null})).await;
    assert_eq!((s, v["roles"].clone()), (200, json!([])));
    let (s, v) = t.patch(&one, json!({"name": "no-dashes"})).await;
    assert_eq!(
        (s, error_at(&v, &["name"]).as_str()),
        (400, "STRING_TYPE_REGEX")
    );
}

#[tokio::test]
async fn a_deleted_emoji_leaves_the_cdn_and_the_log_says_so() {
    let t = T::new().await;
    let (_, e) = t
        .post(
            &emojis_path(&t),
            json!({"name": "gone", "image": png_uri()}),
        )
        .await;
    let id = e["id"].as_str().unwrap();
    let (s, _) = t
        .call(
            Method::DELETE,
            &format!("{}/{id}", emojis_path(&t)),
            None,
            Some("bye"),
        )
        .await;
    assert_eq!(s, 204);
    let (s, v) = t.get(&format!("{}/{id}", emojis_path(&t))).await;
    assert_eq!((s, err_code(&v)), (404, 10014));
    let (s, _, _) = t.cdn(&format!("emojis/{id}.png")).await;
    assert_eq!(s, 404);
    let log = last_entry(&t, 62).await;
    assert_eq!(
        (log["target_id"].clone(), change(&log, "name")),
        (json!(id), Some(&json!("gone")))
    );
}

#[tokio::test]
async fn slots_follow_the_boost_tier_static_and_animated_apart() {
    let t = T::with(with_emojis(0, 50, 49)).await;
    let path = emojis_path(&t);
    let (s, v) = t
        .post(&path, json!({"name": "one_more", "image": png_uri()}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 30008));
    assert_eq!(v["message"], "Maximum number of emojis reached (50)");
    // Animated emoji have slots of their own.
    let gif_uri = data_uri("image/gif", &gif(8, 8));
    let (s, _) = t
        .post(&path, json!({"name": "moving", "image": gif_uri}))
        .await;
    assert_eq!(s, 201);
    let (s, v) = t
        .post(&path, json!({"name": "moving2", "image": gif_uri}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 30018));
    // Tier 1 has 100 of each; MORE_EMOJI raises tier 0 to the configured number.
    let t = T::with(with_emojis(1, 50, 0)).await;
    let (s, _) = t
        .post(
            &emojis_path(&t),
            json!({"name": "tier_one", "image": png_uri()}),
        )
        .await;
    assert_eq!(s, 201);
    let mut st = with_emojis(0, 50, 0);
    st.guilds[0].features.push("MORE_EMOJI".into());
    st.config.more_emoji_slots = 51;
    let t = T::with(st).await;
    let path = emojis_path(&t);
    let (s, _) = t
        .post(&path, json!({"name": "more", "image": png_uri()}))
        .await;
    assert_eq!(s, 201);
    let (s, v) = t
        .post(&path, json!({"name": "more2", "image": png_uri()}))
        .await;
    assert_eq!(
        (s, v["message"].clone()),
        (400, json!("Maximum number of emojis reached (51)"))
    );
}

#[tokio::test]
async fn create_needs_create_guild_expressions_and_others_emoji_need_manage() {
    let hand_made = "1100000000000000000";
    let state = |p: Permissions| {
        let mut st = with_bot_permissions(p);
        let e = by_ferris(&st, hand_made, false);
        st.guilds[0].emojis.push(e);
        st
    };
    // Since 2026-02-23 MANAGE_GUILD_EXPRESSIONS alone no longer creates.
    let t = T::with(state(Permissions::MANAGE_GUILD_EXPRESSIONS)).await;
    let (s, v) = t
        .post(
            &emojis_path(&t),
            json!({"name": "nope", "image": png_uri()}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, _) = t
        .patch(
            &format!("{}/{hand_made}", emojis_path(&t)),
            json!({"name": "managed_edit"}),
        )
        .await;
    assert_eq!(s, 200, "anyone's with MANAGE_GUILD_EXPRESSIONS");

    let t = T::with(state(Permissions::CREATE_GUILD_EXPRESSIONS)).await;
    let path = emojis_path(&t);
    let (s, own) = t
        .post(&path, json!({"name": "mine", "image": png_uri()}))
        .await;
    assert_eq!(s, 201);
    let own = format!("{path}/{}", own["id"].as_str().unwrap());
    let (s, _) = t.patch(&own, json!({"name": "still_mine"})).await;
    assert_eq!(s, 200, "one's own with CREATE_GUILD_EXPRESSIONS");
    let other = format!("{path}/{hand_made}");
    let (s, v) = t.patch(&other, json!({"name": "not_mine"})).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t.delete(&other).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // Reads: the list shows creators with either permission; a single emoji shows
    // another's creator only with MANAGE_GUILD_EXPRESSIONS.
    let (_, list) = t.get(&path).await;
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|e| e.get("user").is_some()),
        "{list}"
    );
    let (_, one) = t.get(&other).await;
    assert!(one.get("user").is_none(), "{one}");
    let (_, mine) = t.get(&own).await;
    assert!(mine.get("user").is_some());
    let (s, _) = t.delete(&own).await;
    assert_eq!(s, 204);

    let t = T::with(state(Permissions::VIEW_CHANNEL)).await;
    let (_, list) = t.get(&emojis_path(&t)).await;
    let list: &Vec<Value> = list.as_array().unwrap();
    assert!(!list.is_empty() && list.iter().all(|e| e.get("user").is_none()));
}
