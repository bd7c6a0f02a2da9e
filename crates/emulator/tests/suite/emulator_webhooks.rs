//! The emulator's webhook routes (create, modify, delete, the token routes), observed
//! over real HTTP on loopback.

use crate::emulator_support;

use discord_permissions::Permissions;
use emulator_support::{T, err_code, field_error};
use reqwest::Method;
use serde_json::json;

fn webhook_id(t: &T, name: &str) -> String {
    t.emu.state().guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("webhook {name}"))
        .id
        .clone()
}

fn webhook_token(t: &T, name: &str) -> String {
    t.emu.state().guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == name)
        .and_then(|w| w.token.clone())
        .unwrap_or_else(|| panic!("token of {name}"))
}

// ---------------------------------------------------------------- webhooks

#[tokio::test]
async fn creating_a_webhook_returns_its_token_once_and_logs_without_it() {
    let t = T::new().await;
    let general = t.chan("general");
    let (s, w) = t
        .call(
            Method::POST,
            &format!("/channels/{general}/webhooks"),
            Some(json!({"name": "  Deploys  ", "avatar": "data:image/png;base64,iVBORw0KGgo="})),
            Some("add%20deploy%20hook"),
        )
        .await;
    assert_eq!(s, 200, "create is 200, not 201: {w}");
    assert_eq!(w["name"], "Deploys", "name is trimmed");
    assert_eq!(w["type"], 1);
    assert_eq!(w["channel_id"], general.as_str());
    assert_eq!(w["guild_id"], t.g().as_str());
    let bot = t.emu.state().bot_user_id;
    assert_eq!(w["application_id"], bot.as_str());
    assert_eq!(w["user"]["id"], bot.as_str());
    let token = w["token"].as_str().expect("token for its creator");
    assert_eq!(token.len(), 68);
    assert!(w["avatar"].as_str().is_some_and(|h| h.len() == 32), "{w}");

    let id = w["id"].as_str().unwrap();
    let entries = t.audit(&format!("?action_type=50&target_id={id}")).await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["reason"], "add deploy hook");
    let keys: Vec<&str> = entries[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"name") && keys.contains(&"avatar_hash"),
        "{keys:?}"
    );
    let (_, log) = t.get(&format!("/guilds/{}/audit-logs", t.g())).await;
    assert!(
        !log.to_string().contains(token),
        "token leaked into the log"
    );
    let listed = log["webhooks"].as_array().unwrap();
    assert!(
        listed.iter().any(|x| x["id"] == id),
        "log lists the webhook"
    );
    assert!(listed.iter().all(|x| x.get("token").is_none()));
}

#[tokio::test]
async fn webhook_names_follow_discords_rules() {
    let t = T::new().await;
    let path = format!("/channels/{}/webhooks", t.chan("general"));
    for (body, key, code) in [
        (
            json!({"name": "My Discord Bot"}),
            "name",
            "USERNAME_INVALID_CONTAINS",
        ),
        (
            json!({"name": "CLYDE"}),
            "name",
            "USERNAME_INVALID_CONTAINS",
        ),
        (json!({"name": "   "}), "name", "BASE_TYPE_BAD_LENGTH"),
        (
            json!({"name": "x".repeat(81)}),
            "name",
            "BASE_TYPE_BAD_LENGTH",
        ),
        (json!({}), "name", "BASE_TYPE_REQUIRED"),
        (json!({"name": null}), "name", "BASE_TYPE_REQUIRED"),
        (json!({"name": 5}), "name", "BASE_TYPE_STRING"),
        (
            json!({"name": "ok", "avatar": "not an image"}),
            "avatar",
            "IMAGE_INVALID",
        ),
    ] {
        let (s, v) = t.post(&path, body.clone()).await;
        assert_eq!(s, 400, "{body}: {v}");
        assert_eq!(err_code(&v), 50035);
        assert_eq!(field_error(&v, &[key])["code"], code, "{body}: {v}");
    }
    let (_, v) = t.post(&path, json!({"name": "discord"})).await;
    assert_eq!(
        field_error(&v, &["name"])["message"],
        "Username cannot contain \"discord\""
    );
    let (s, _) = t.post(&path, json!({"name": "x".repeat(80)})).await;
    assert_eq!(s, 200, "80 characters are fine");
}

#[tokio::test]
async fn tokens_are_shown_only_to_the_creating_application() {
    let t = T::new().await;
    let (s, list) = t.get(&format!("/guilds/{}/webhooks", t.g())).await;
    assert_eq!(s, 200);
    let by_name = |n: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == n)
            .unwrap_or_else(|| panic!("{n} listed"))
            .clone()
    };
    assert!(by_name("CI")["token"].is_string(), "the bot made CI");
    assert!(
        by_name("GitHub").get("token").is_none(),
        "ferris made GitHub"
    );
    assert_eq!(by_name("GitHub")["user"]["username"], "ferris");
    let follower = by_name("Rust Blog #announcements");
    assert_eq!(follower["type"], 2);
    assert_eq!(
        follower["source_guild"]["name"],
        "Rust Programming Language"
    );
    assert_eq!(follower["source_channel"]["name"], "announcements");

    let (s, chan) = t
        .get(&format!("/channels/{}/webhooks", t.chan("bot-spam")))
        .await;
    assert_eq!(s, 200);
    let names: Vec<&str> = chan
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["GitHub", "CI"], "only that channel's, oldest first");

    let (s, gh) = t
        .get(&format!("/webhooks/{}", webhook_id(&t, "GitHub")))
        .await;
    assert_eq!(s, 200);
    assert!(gh.get("token").is_none());
}

#[tokio::test]
async fn webhook_routes_need_manage_webhooks_where_the_webhook_lives() {
    let t = T::non_admin(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES).await;
    let general = t.chan("general");
    let gh = webhook_id(&t, "GitHub");
    for (method, path, body) in [
        (
            Method::POST,
            format!("/channels/{general}/webhooks"),
            Some(json!({"name": "x"})),
        ),
        (Method::GET, format!("/channels/{general}/webhooks"), None),
        (Method::GET, format!("/guilds/{}/webhooks", t.g()), None),
        (Method::GET, format!("/webhooks/{gh}"), None),
        (
            Method::PATCH,
            format!("/webhooks/{gh}"),
            Some(json!({"name": "y"})),
        ),
        (Method::DELETE, format!("/webhooks/{gh}"), None),
    ] {
        let (s, v) = t.call(method.clone(), &path, body, None).await;
        assert_eq!((s, err_code(&v)), (403, 50013), "{method} {path}: {v}");
    }
    // The creating application may read its own webhook without the permission.
    let (s, ci) = t.get(&format!("/webhooks/{}", webhook_id(&t, "CI"))).await;
    assert_eq!(s, 200);
    assert!(ci["token"].is_string());

    // With the permission but not seeing the channel: missing access.
    let t = T::non_admin(Permissions::VIEW_CHANNEL | Permissions::MANAGE_WEBHOOKS).await;
    let (s, v) = t
        .get(&format!("/channels/{}/webhooks", t.chan("mod-log")))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001));
    let (s, _) = t
        .get(&format!("/channels/{}/webhooks", t.chan("general")))
        .await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn modifying_renames_and_moves_within_the_guild() {
    let t = T::new().await;
    let gh = webhook_id(&t, "GitHub");
    let general = t.chan("general");
    let (s, w) = t
        .call(
            Method::PATCH,
            &format!("/webhooks/{gh}"),
            Some(json!({"name": "GitHub Releases", "channel_id": general})),
            Some("move"),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "GitHub Releases");
    assert_eq!(w["channel_id"], general.as_str());
    let entries = t.audit(&format!("?action_type=51&target_id={gh}")).await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["reason"], "move");
    let changes = &entries[0]["changes"];
    assert_eq!(changes.as_array().unwrap().len(), 2, "{changes}");
    assert!(changes.to_string().contains("channel_id"));

    // An unchanged PATCH logs nothing.
    let (s, _) = t
        .patch(
            &format!("/webhooks/{gh}"),
            json!({"name": "GitHub Releases"}),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(t.audit("?action_type=51").await.len(), 1);

    // Avatars: set then removed with null.
    let (_, w) = t
        .patch(
            &format!("/webhooks/{gh}"),
            json!({"avatar": "data:image/gif;base64,R0lGODlh"}),
        )
        .await;
    assert!(w["avatar"].is_string());
    let (_, w) = t
        .patch(&format!("/webhooks/{gh}"), json!({"avatar": null}))
        .await;
    assert!(w["avatar"].is_null());
    let last = &t.audit("?action_type=51&limit=1").await[0];
    assert_eq!(last["changes"][0]["key"], "avatar_hash");

    for (body, status, code) in [
        (json!({"channel_id": t.chan("General")}), 400, 50024),
        (json!({"channel_id": "123456789012345678"}), 404, 10003),
        (json!({"channel_id": null}), 400, 50035),
        (json!({"name": "discord hook"}), 400, 50035),
    ] {
        let (s, v) = t.patch(&format!("/webhooks/{gh}"), body.clone()).await;
        assert_eq!((s, err_code(&v)), (status, code), "{body}: {v}");
    }
    let (s, v) = t.get("/webhooks/123456789012345678").await;
    assert_eq!((s, err_code(&v)), (404, 10015));
}

#[tokio::test]
async fn fifteen_webhooks_per_channel() {
    let t = T::new().await;
    let general = t.chan("general");
    // #general holds the follower webhook already.
    for i in 1..15 {
        let (s, v) = t
            .post(
                &format!("/channels/{general}/webhooks"),
                json!({"name": format!("hook {i}")}),
            )
            .await;
        assert_eq!(s, 200, "{i}: {v}");
    }
    let (s, v) = t
        .post(
            &format!("/channels/{general}/webhooks"),
            json!({"name": "one too many"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 30007), "{v}");
    let (s, v) = t
        .patch(
            &format!("/webhooks/{}", webhook_id(&t, "GitHub")),
            json!({"channel_id": general}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 30007), "moving in counts too");
    let (s, v) = t
        .post(
            &format!("/channels/{}/webhooks", t.chan("General")),
            json!({"name": "on a category"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50024));
}

#[tokio::test]
async fn token_routes_need_no_bot_and_hide_the_token_from_the_request_log() {
    let t = T::new().await;
    // Made by ferris, not the bot: only the token holder sees the token.
    let gh = webhook_id(&t, "GitHub");
    let token = webhook_token(&t, "GitHub");
    let path = format!("/webhooks/{gh}/{token}");
    let (s, w) = t.anonymous(Method::GET, &path, None).await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "GitHub");
    assert!(w.get("user").is_none(), "no user on token routes");
    assert_eq!(w["token"], token.as_str(), "the caller holds it already");
    let (s, w) = t.get(&format!("/webhooks/{gh}")).await;
    assert_eq!(s, 200);
    assert!(w.get("token").is_none(), "not the bot's webhook: {w}");
    assert_eq!(w["user"]["username"], "ferris");

    let (s, v) = t
        .anonymous(Method::GET, &format!("/webhooks/{gh}/wrong"), None)
        .await;
    assert_eq!((s, err_code(&v)), (401, 50027));
    let (s, v) = t
        .anonymous(
            Method::GET,
            &format!("/webhooks/123456789012345678/{token}"),
            None,
        )
        .await;
    assert_eq!((s, err_code(&v)), (404, 10015));
    // The follower webhook has no token at all.
    let follower = webhook_id(&t, "Rust Blog #announcements");
    let (s, _) = t
        .anonymous(Method::GET, &format!("/webhooks/{follower}/x"), None)
        .await;
    assert_eq!(s, 401);

    // PATCH by token renames but cannot move.
    let (s, w) = t
        .anonymous(
            Method::PATCH,
            &path,
            Some(json!({"name": "GH", "channel_id": t.chan("general")})),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "GH");
    assert_eq!(w["channel_id"], t.chan("bot-spam").as_str());
    assert_eq!(w["token"], token.as_str());
    assert!(w.get("user").is_none(), "no user on token routes");
    let e = &t.audit(&format!("?action_type=51&target_id={gh}")).await[0];
    assert!(e["user_id"].is_null(), "token calls have no user: {e}");
    let (_, log) = t.get(&format!("/guilds/{}/audit-logs", t.g())).await;
    assert!(!log.to_string().contains(&token), "token in the audit log");

    // Executing needs no bot either; without `wait` the answer is 204.
    let (s, v) = t
        .anonymous(Method::POST, &path, Some(json!({"content": "hi"})))
        .await;
    assert_eq!(s, 204, "{v}");

    let (s, _) = t.anonymous(Method::DELETE, &path, None).await;
    assert_eq!(s, 204);
    let (s, _) = t.get(&format!("/webhooks/{gh}")).await;
    assert_eq!(s, 404);
    assert_eq!(
        t.audit(&format!("?action_type=52&target_id={gh}"))
            .await
            .len(),
        1
    );

    let log = serde_json::to_string(&t.emu.requests()).unwrap();
    assert!(!log.contains(&token), "token in the request log");
    assert!(log.contains(&format!("/api/v10/webhooks/{gh}/{{webhook_token}}")));
}

#[tokio::test]
async fn deleting_webhooks_and_their_channels() {
    let t = T::new().await;
    let ci = webhook_id(&t, "CI");
    let (s, v) = t
        .call(
            Method::DELETE,
            &format!("/webhooks/{ci}"),
            None,
            Some("bye"),
        )
        .await;
    assert_eq!(s, 204, "{v}");
    let e = &t.audit(&format!("?action_type=52&target_id={ci}")).await[0];
    assert_eq!(e["reason"], "bye");
    assert_eq!(e["changes"][0]["old_value"], "CI");
    let (s, _) = t.delete(&format!("/webhooks/{ci}")).await;
    assert_eq!(s, 404);

    // A deleted channel takes its webhooks with it.
    let bot_spam = t.chan("bot-spam");
    let (s, _) = t.delete(&format!("/channels/{bot_spam}")).await;
    assert_eq!(s, 200);
    let st = t.emu.state();
    assert!(st.guilds[0].webhooks.iter().all(|w| w.name != "GitHub"));
    assert_eq!(st.guilds[0].webhooks.len(), 2);
}
