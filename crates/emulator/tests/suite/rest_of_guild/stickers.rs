//! Stickers (§10.2).

use discord_emulator::default_state;
use discord_emulator::state::{State, Sticker};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry, with_bot_permissions};
use crate::emulator_support::files::{gif, jpeg, png, png_sized};
use crate::emulator_support::{T, err_code, error_at};

fn stickers_path(t: &T) -> String {
    format!("/guilds/{}/stickers", t.g())
}

/// Create Guild Sticker's parts around `file`.
async fn upload(t: &T, name: &str, file: &[u8]) -> (u16, Value) {
    t.multipart(
        &stickers_path(t),
        &[
            ("name", None, name.as_bytes()),
            ("description", None, b"Ferris waving"),
            ("tags", None, b"crab"),
            ("file", Some("sticker.png"), file),
        ],
        None,
    )
    .await
}

fn lottie() -> Vec<u8> {
    br#"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":320,"h":320,"layers":[]}"#.to_vec()
}

#[tokio::test]
async fn a_sticker_is_uploaded_as_multipart_and_served_exactly() {
    let t = T::new().await;
    let bytes = png(320, 320);
    let (s, v) = t
        .multipart(
            &stickers_path(&t),
            &[
                ("name", None, b"ferris"),
                ("description", None, b"Ferris waving"),
                ("tags", None, b"crab"),
                ("file", Some("ferris.png"), &bytes),
            ],
            Some("sticker%20as%20code"),
        )
        .await;
    assert_eq!(s, 201, "create answers 201: {v}");
    assert_eq!(
        (v["name"].clone(), v["tags"].clone()),
        (json!("ferris"), json!("crab"))
    );
    assert_eq!(
        (v["type"].clone(), v["format_type"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(
        (v["description"].clone(), v["available"].clone()),
        (json!("Ferris waving"), json!(true))
    );
    assert_eq!(v["guild_id"], t.g().as_str());
    assert_eq!(v["user"]["id"], t.emu.state().bot_user_id.as_str());
    let id = v["id"].as_str().unwrap();
    let (s, ct, got) = t.cdn(&format!("stickers/{id}.png")).await;
    assert_eq!((s, ct.as_str(), got), (200, "image/png", bytes));
    let log = last_entry(&t, 90).await;
    assert_eq!(
        (log["target_id"].clone(), log["reason"].clone()),
        (json!(id), json!("sticker as code"))
    );
    assert_eq!(change(&log, "tags"), Some(&json!("crab")));
    let (s, got) = t.get(&format!("{}/{id}", stickers_path(&t))).await;
    assert_eq!((s, &got), (200, &v));
}

#[tokio::test]
async fn the_file_is_png_apng_gif_or_lottie_within_512_kib_and_320_pixels() {
    let t = T::new().await;
    let (s, v) = upload(&t, "moving", &png_sized(320, 320, true, 0)).await;
    assert_eq!((s, v["format_type"].clone()), (201, json!(2)), "APNG");
    let (s, v) = upload(&t, "gif", &gif(160, 160)).await;
    assert_eq!((s, v["format_type"].clone()), (201, json!(4)));
    let (s, _) = upload(&t, "max size", &png_sized(320, 320, false, 512 * 1024)).await;
    assert_eq!(s, 201);
    assert_eq!(
        t.emu.state().guilds[0].premium_tier,
        1,
        "15 slots: room for these"
    );
    let (s, v) = upload(&t, "too big", &png_sized(320, 320, false, 512 * 1024 + 1)).await;
    assert_eq!((s, err_code(&v)), (400, 50045));
    for (name, file) in [
        ("too wide", png(321, 320)),
        ("too tall", gif(64, 400)),
        ("jpeg", jpeg()),
        ("text", b"not a sticker".to_vec()),
    ] {
        let (s, v) = upload(&t, name, &file).await;
        assert_eq!((s, err_code(&v)), (400, 50046), "{name}");
    }
    // Lottie only for verified or partnered guilds.
    let (s, v) = upload(&t, "lottie", &lottie()).await;
    assert_eq!((s, err_code(&v)), (400, 50046));
    let mut st = default_state();
    st.guilds[0].features.push("VERIFIED".into());
    let t = T::with(st).await;
    let (s, v) = upload(&t, "lottie", &lottie()).await;
    assert_eq!((s, v["format_type"].clone()), (201, json!(3)), "{v}");
    let (_, ct, got) = t
        .cdn(&format!("stickers/{}.json", v["id"].as_str().unwrap()))
        .await;
    assert_eq!((ct.as_str(), got), ("application/json", lottie()));
}

/// An upload of a good file with these text fields (`None`: left out).
async fn text_upload(
    t: &T,
    name: &str,
    description: Option<&str>,
    tags: Option<&str>,
) -> (u16, Value) {
    let file = png(320, 320);
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("name", None, name.as_bytes())];
    if let Some(d) = description {
        parts.push(("description", None, d.as_bytes()));
    }
    if let Some(tg) = tags {
        parts.push(("tags", None, tg.as_bytes()));
    }
    parts.push(("file", Some("f.png"), &file));
    t.multipart(&stickers_path(t), &parts, None).await
}

#[tokio::test]
async fn names_descriptions_and_tags_are_checked() {
    let t = T::new().await;
    let (s, v) = text_upload(&t, "x", Some("Ferris"), Some("crab")).await;
    assert_eq!(
        (s, error_at(&v, &["name"]).as_str()),
        (400, "BASE_TYPE_BAD_LENGTH")
    );
    let (s, v) = text_upload(&t, "ferris", Some("F"), Some("crab")).await;
    assert_eq!(
        (s, error_at(&v, &["description"]).as_str()),
        (400, "BASE_TYPE_BAD_LENGTH")
    );
    let (s, v) = text_upload(&t, "ferris", Some(""), Some("crab")).await;
    assert_eq!(
        (s, v["description"].clone()),
        (201, json!("")),
        "empty is allowed"
    );
    let (s, v) = text_upload(&t, "ferris", None, Some("crab")).await;
    assert_eq!(
        (s, v["description"].clone()),
        (201, Value::Null),
        "and so is none"
    );
    let (s, v) = text_upload(&t, "ferris", Some("Ferris"), None).await;
    assert_eq!(
        (s, error_at(&v, &["tags"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    let long = "t".repeat(201);
    let (s, v) = text_upload(&t, "ferris", Some("Ferris"), Some(&long)).await;
    assert_eq!(
        (s, error_at(&v, &["tags"]).as_str()),
        (400, "BASE_TYPE_BAD_LENGTH")
    );
    let (s, v) = t
        .multipart(
            &stickers_path(&t),
            &[("name", None, b"ferris"), ("tags", None, b"crab")],
            None,
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["file"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    // A JSON body is not a form: every field is missing.
    let (s, v) = t
        .post(
            &stickers_path(&t),
            json!({"name": "ferris", "tags": "crab"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert_eq!(error_at(&v, &["file"]), "BASE_TYPE_REQUIRED");
}

#[tokio::test]
async fn modify_changes_text_only_and_delete_removes_it() {
    let t = T::new().await;
    let bytes = png(320, 320);
    let (_, v) = upload(&t, "ferris", &bytes).await;
    let id = v["id"].as_str().unwrap();
    let one = format!("{}/{id}", stickers_path(&t));
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(json!({"name": "ferris2", "description": null, "tags": "crab,rust", "file": "x"})),
            Some("retag"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (
            v["name"].clone(),
            v["description"].clone(),
            v["tags"].clone()
        ),
        (json!("ferris2"), Value::Null, json!("crab,rust"))
    );
    let (_, _, got) = t.cdn(&format!("stickers/{id}.png")).await;
    assert_eq!(got, bytes, "the file does not change");
    let log = last_entry(&t, 91).await;
    assert_eq!(
        (change(&log, "tags"), log["reason"].clone()),
        (Some(&json!("crab,rust")), json!("retag"))
    );
    let (s, v) = t.patch(&one, json!({"name": "f"})).await;
    assert_eq!(
        (s, error_at(&v, &["name"]).as_str()),
        (400, "BASE_TYPE_BAD_LENGTH")
    );
    let (s, _) = t.delete(&one).await;
    assert_eq!(s, 204);
    let (s, v) = t.get(&one).await;
    assert_eq!((s, err_code(&v)), (404, 10060));
    assert_eq!(last_entry(&t, 92).await["target_id"], id);
}

fn with_stickers(tier: u8, n: usize) -> State {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    g.premium_tier = tier;
    g.stickers = (0..n)
        .map(|i| Sticker {
            id: (1_200_000_000_000_000_000u64 + i as u64).to_string(),
            name: format!("hand {i}"),
            description: None,
            tags: "x".into(),
            format_type: 1,
            available: true,
            user_id: Some(g.owner_id.clone()),
            file: None,
        })
        .collect();
    st
}

#[tokio::test]
async fn slots_follow_the_boost_tier() {
    let t = T::with(with_stickers(0, 5)).await;
    let (s, v) = upload(&t, "sixth", &png(320, 320)).await;
    assert_eq!((s, err_code(&v)), (400, 30039));
    assert_eq!(v["message"], "Maximum number of stickers reached (5)");
    // A sticker kept without its file has none on the CDN.
    let (s, _, _) = t.cdn("stickers/1200000000000000000.png").await;
    assert_eq!(s, 404);
    let t = T::with(with_stickers(2, 29)).await;
    let (s, _) = upload(&t, "thirtieth", &png(320, 320)).await;
    assert_eq!(s, 201);
    let (s, _) = upload(&t, "thirty-first", &png(320, 320)).await;
    assert_eq!(s, 400);
    let mut st = with_stickers(0, 5);
    st.guilds[0].features.push("MORE_STICKERS".into());
    let t = T::with(st).await;
    let (s, _) = upload(&t, "more", &png(320, 320)).await;
    assert_eq!(s, 201, "MORE_STICKERS raises tier 0's 5");
}

#[tokio::test]
async fn create_needs_create_guild_expressions_and_others_stickers_manage() {
    let mut st = with_bot_permissions(Permissions::CREATE_GUILD_EXPRESSIONS);
    st.guilds[0].stickers = with_stickers(1, 1).guilds[0].stickers.clone();
    let t = T::with(st).await;
    let other = format!("{}/1200000000000000000", stickers_path(&t));
    let (s, v) = t.patch(&other, json!({"name": "not mine"})).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = upload(&t, "mine", &png(320, 320)).await;
    assert_eq!(s, 201);
    let (s, _) = t
        .patch(
            &format!("{}/{}", stickers_path(&t), v["id"].as_str().unwrap()),
            json!({"name": "still mine"}),
        )
        .await;
    assert_eq!(s, 200);
    let (_, list) = t.get(&stickers_path(&t)).await;
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|s| s.get("user").is_some())
    );
    let t = T::with(with_bot_permissions(Permissions::MANAGE_GUILD_EXPRESSIONS)).await;
    let (s, v) = upload(&t, "nope", &png(320, 320)).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
}
