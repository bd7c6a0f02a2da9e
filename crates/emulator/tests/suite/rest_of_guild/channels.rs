//! Channel flags and channel followers (issue 33, point 6; resources/channel).

use discord_emulator::state::State;
use discord_emulator::{default_state, with_guild_copies};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry};
use crate::emulator_support::{T, err_code, error_at};

const REQUIRE_TAG: u64 = 1 << 4;
const HIDE_MEDIA_DOWNLOAD_OPTIONS: u64 = 1 << 15;
const IS_SPOILER_CHANNEL: u64 = 1 << 21;

async fn create(t: &T, body: Value) -> (u16, Value) {
    t.post(&format!("/guilds/{}/channels", t.g()), body).await
}

#[tokio::test]
async fn flags_are_kept_by_the_types_that_take_them() {
    let t = T::new().await;
    let all = REQUIRE_TAG | HIDE_MEDIA_DOWNLOAD_OPTIONS | IS_SPOILER_CHANNEL;
    for (kind, name, kept) in [
        (16, "clips", all),
        (15, "ideas", REQUIRE_TAG | IS_SPOILER_CHANNEL),
        (0, "spoilers", IS_SPOILER_CHANNEL),
        (2, "Spoiler Voice", IS_SPOILER_CHANNEL),
        (13, "Stage", 0),
        (4, "Category", 0),
    ] {
        let (s, c) = create(&t, json!({"name": name, "type": kind, "flags": all})).await;
        assert_eq!(s, 201, "{c}");
        assert_eq!(c["flags"], kept, "type {kind}");
        let (_, got) = t
            .get(&format!("/channels/{}", c["id"].as_str().unwrap()))
            .await;
        assert_eq!(got["flags"], kept, "read back");
    }
    // Set and cleared on modify, and logged.
    let (_, c) = create(&t, json!({"name": "media", "type": 16})).await;
    let one = format!("/channels/{}", c["id"].as_str().unwrap());
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(json!({"flags": HIDE_MEDIA_DOWNLOAD_OPTIONS})),
            Some("no%20downloads"),
        )
        .await;
    assert_eq!(
        (s, v["flags"].clone()),
        (200, json!(HIDE_MEDIA_DOWNLOAD_OPTIONS))
    );
    let log = last_entry(&t, 11).await;
    assert_eq!(
        change(&log, "flags"),
        Some(&json!(HIDE_MEDIA_DOWNLOAD_OPTIONS))
    );
    let (s, v) = t.patch(&one, json!({"flags": 0})).await;
    assert_eq!((s, v["flags"].clone()), (200, json!(0)));
}

#[tokio::test]
async fn a_spoiler_channel_is_never_age_restricted() {
    let t = T::new().await;
    let (s, v) = create(
        &t,
        json!({"name": "nsfw-spoilers", "nsfw": true, "flags": IS_SPOILER_CHANNEL}),
    )
    .await;
    assert_eq!(
        (s, error_at(&v, &["flags"]).as_str()),
        (400, "CHANNEL_SPOILER_NSFW")
    );
    let (_, c) = create(&t, json!({"name": "spoilers", "flags": IS_SPOILER_CHANNEL})).await;
    let one = format!("/channels/{}", c["id"].as_str().unwrap());
    let (s, v) = t.patch(&one, json!({"nsfw": true})).await;
    assert_eq!(
        (s, error_at(&v, &["nsfw"]).as_str()),
        (400, "CHANNEL_SPOILER_NSFW")
    );
    assert!(
        !t.channel(c["id"].as_str().unwrap()).await["nsfw"]
            .as_bool()
            .unwrap()
    );
    let (s, v) = t.patch(&one, json!({"nsfw": true, "flags": 0})).await;
    assert_eq!(
        (s, v["nsfw"].clone()),
        (200, json!(true)),
        "no longer a spoiler channel"
    );
}

/// Two guilds for the bot; the second ("Ferris Fans 2") has an announcement channel
/// `news`. Returns the state and the announcement channel's id.
fn two_guilds() -> (State, String) {
    let mut st = with_guild_copies(default_state(), 2);
    let g = &mut st.guilds[1];
    g.features.push("NEWS".into());
    let c = g.channels.iter_mut().find(|c| c.name == "faq").unwrap();
    c.kind = 5;
    c.name = "news".into();
    let id = c.id.clone();
    (st, id)
}

#[tokio::test]
async fn following_an_announcement_channel_makes_a_channel_follower_webhook() {
    let (st, news) = two_guilds();
    let t = T::with(st).await;
    let general = t.chan("general");
    let (s, v) = t
        .call(
            Method::POST,
            &format!("/channels/{news}/followers"),
            Some(json!({"webhook_channel_id": general})),
            Some("follow%20news"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["channel_id"], news.as_str());
    let wid = v["webhook_id"].as_str().unwrap().to_owned();
    let (s, hooks) = t.get(&format!("/channels/{general}/webhooks")).await;
    assert_eq!(s, 200);
    let w = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == wid.as_str())
        .cloned()
        .expect("listed with the channel's webhooks");
    assert_eq!(w["type"], 2, "Channel Follower");
    assert!(w.get("token").is_none(), "follower webhooks have no token");
    assert_eq!(w["source_channel"], json!({"id": news, "name": "news"}));
    let source = &t.emu.state().guilds[1];
    assert_eq!(w["source_guild"]["id"], source.id.as_str());
    assert_eq!(w["source_guild"]["name"], source.name.as_str());
    assert_eq!(w["name"], format!("{} #news", source.name));
    let (_, guild_hooks) = t.get(&format!("/guilds/{}/webhooks", t.g())).await;
    assert!(
        guild_hooks
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == wid.as_str())
    );
    let log = last_entry(&t, 50).await;
    assert_eq!(
        (log["target_id"].clone(), log["reason"].clone()),
        (json!(wid), json!("follow news"))
    );
    assert_eq!(change(&log, "type"), Some(&json!(2)));
}

#[tokio::test]
async fn following_needs_an_announcement_source_and_a_text_target_with_manage_webhooks() {
    let (st, news) = two_guilds();
    let t = T::with(st.clone()).await;
    let general = t.chan("general");
    let follow = |source: String, body: Value| {
        let t = &t;
        async move { t.post(&format!("/channels/{source}/followers"), body).await }
    };
    let (s, v) = follow(general.clone(), json!({"webhook_channel_id": general})).await;
    assert_eq!(
        (s, err_code(&v)),
        (400, 50024),
        "a text channel is not followed"
    );
    let (s, v) = follow(
        news.clone(),
        json!({"webhook_channel_id": t.chan("Lounge")}),
    )
    .await;
    assert_eq!((s, err_code(&v)), (400, 50024), "into a voice channel");
    let (s, v) = follow(news.clone(), json!({})).await;
    assert_eq!(
        (s, error_at(&v, &["webhook_channel_id"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    let (s, v) = follow(
        news.clone(),
        json!({"webhook_channel_id": "123456789012345678"}),
    )
    .await;
    assert_eq!((s, err_code(&v)), (404, 10003));
    // A channel already holding 15 webhooks has no room.
    for i in 0..15 {
        let (s, _) = t
            .post(
                &format!("/channels/{}/webhooks", t.chan("off-topic")),
                json!({"name": format!("hook {i}")}),
            )
            .await;
        assert_eq!(s, 200);
    }
    let (s, v) = follow(
        news.clone(),
        json!({"webhook_channel_id": t.chan("off-topic")}),
    )
    .await;
    assert_eq!((s, err_code(&v)), (400, 30007));
    // MANAGE_WEBHOOKS in the target channel.
    let mut st = st;
    let bot_role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    bot_role.permissions = Permissions::VIEW_CHANNEL;
    let t = T::with(st).await;
    let (s, v) = t
        .post(
            &format!("/channels/{news}/followers"),
            json!({"webhook_channel_id": t.chan("general")}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
}
