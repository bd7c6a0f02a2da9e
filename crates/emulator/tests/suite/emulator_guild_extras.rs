//! The emulator's onboarding, welcome screen and widget routes and
//! the `large_state` generator, observed over real HTTP on loopback.

use crate::emulator_support;

use discord_emulator::state::State;
use discord_emulator::{LargeStateOptions, default_state, large_state};
use discord_permissions::Permissions;
use emulator_support::{T, err_code, field_error};
use reqwest::Method;
use serde_json::{Value, json};

// ---------------------------------------------------------------- onboarding

/// The default guild made a community (rules and updates channels set).
fn community_state() -> State {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    g.features
        .extend(["COMMUNITY".to_owned(), "NEWS".to_owned()]);
    let id = |n: &str| g.channels.iter().find(|c| c.name == n).unwrap().id.clone();
    g.rules_channel_id = Some(id("rules"));
    g.public_updates_channel_id = Some(id("mod-log"));
    st
}

impl T {
    fn chans(&self, names: &[&str]) -> Vec<String> {
        names.iter().map(|n| self.chan(n)).collect()
    }
    async fn onboarding(&self, body: Value) -> (u16, Value) {
        self.call(
            Method::PUT,
            &format!("/guilds/{}/onboarding", self.g()),
            Some(body),
            Some("onboarding"),
        )
        .await
    }
}

/// Seven channels of the default guild, five of which @everyone may write in
/// (#welcome and #rules are read-only: Information denies send_messages).
const SEVEN: [&str; 7] = [
    "general",
    "off-topic",
    "memes",
    "help",
    "bot-spam",
    "welcome",
    "rules",
];

fn prompt(id: &str, title: &str, options: Value) -> Value {
    json!({"id": id, "title": title, "options": options, "single_select": false,
           "required": false, "in_onboarding": true, "type": 0})
}

#[tokio::test]
async fn onboarding_starts_blank_and_needs_manage_guild_and_manage_roles() {
    let t = T::new().await;
    let (s, o) = t.get(&format!("/guilds/{}/onboarding", t.g())).await;
    assert_eq!(s, 200);
    assert_eq!(
        o,
        json!({"guild_id": t.g(), "prompts": [], "default_channel_ids": [], "enabled": false, "mode": 0})
    );
    for p in [Permissions::MANAGE_GUILD, Permissions::MANAGE_ROLES] {
        let t = T::non_admin(p | Permissions::VIEW_CHANNEL).await;
        let (s, v) = t.onboarding(json!({"mode": 1})).await;
        assert_eq!((s, err_code(&v)), (403, 50013), "only {p:?}");
    }
    let t = T::non_admin(Permissions::MANAGE_GUILD | Permissions::MANAGE_ROLES).await;
    let (s, v) = t.onboarding(json!({"mode": 1})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["mode"], 1);
}

#[tokio::test]
async fn onboarding_validation_uses_the_error_tree() {
    let t = T::with(community_state()).await;
    let member = t.role("Member");
    let general = t.chan("general");
    let too_many: Vec<Value> = (0..16)
        .map(|i| prompt("1", &format!("p{i}"), json!([{"title": "o"}])))
        .collect();
    let cases: Vec<(Value, Vec<&str>, &str)> = vec![
        (
            json!({"prompts": too_many}),
            vec!["prompts"],
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            json!({"prompts": [{"title": "t", "options": [{"title": "o"}]}]}),
            vec!["prompts", "0", "id"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            json!({"prompts": [prompt("1", &"x".repeat(101), json!([{"title": "o"}]))]}),
            vec!["prompts", "0", "title"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"prompts": [prompt("1", "t", json!([]))]}),
            vec!["prompts", "0", "options"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"prompts": [prompt("1", "t", json!([{"description": "no title"}]))]}),
            vec!["prompts", "0", "options", "0", "title"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            json!({"prompts": [prompt("1", "t", json!([{"title": "o", "role_ids": [member, "123456789012345678"]}]))]}),
            vec!["prompts", "0", "options", "0", "role_ids", "1"],
            "ROLE_NOT_FOUND",
        ),
        (
            json!({"prompts": [prompt("1", "t", json!([{"title": "o", "channel_ids": ["nope"]}]))]}),
            vec!["prompts", "0", "options", "0", "channel_ids", "0"],
            "NUMBER_TYPE_COERCE",
        ),
        (
            json!({"default_channel_ids": ["123456789012345678", general]}),
            vec!["default_channel_ids", "0"],
            "CHANNEL_NOT_FOUND",
        ),
        (json!({"mode": 2}), vec!["mode"], "BASE_TYPE_CHOICES"),
        (
            json!({"prompts": "x"}),
            vec!["prompts"],
            "LIST_TYPE_CONVERT",
        ),
    ];
    for (body, path, code) in cases {
        let (s, v) = t.onboarding(body.clone()).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{body}: {v}");
        assert_eq!(field_error(&v, &path)["code"], code, "{body}: {v}");
    }
    assert!(
        t.audit("?action_type=163").await.is_empty(),
        "nothing stored"
    );
}

#[tokio::test]
async fn prompt_ids_are_assigned_by_the_server_and_kept_on_update() {
    let t = T::with(community_state()).await;
    let (general, memes) = (t.chan("general"), t.chan("memes"));
    let member = t.role("Member");
    let (s, o) = t
        .onboarding(
            json!({"prompts": [prompt("0", "What brings you here?", json!([
            {"title": "Memes", "channel_ids": [memes], "emoji_name": "🦀"},
            {"title": "Help", "description": "Ask away", "role_ids": [member, member]}
        ]))], "default_channel_ids": [general, general]}),
        )
        .await;
    assert_eq!(s, 200, "{o}");
    let p = &o["prompts"][0];
    let pid = p["id"].as_str().unwrap().to_owned();
    assert_ne!(pid, "0", "the placeholder id is replaced");
    assert!(pid.len() >= 17);
    let opt = &p["options"][0];
    assert!(opt["id"].as_str().is_some_and(|i| i.len() >= 17));
    assert_eq!(
        opt["emoji"],
        json!({"id": null, "name": "🦀", "animated": false})
    );
    assert!(opt["description"].is_null());
    assert_eq!(
        p["options"][1]["role_ids"],
        json!([member]),
        "ids are a set"
    );
    assert_eq!(o["default_channel_ids"], json!([general]));
    assert_eq!(
        t.audit("?action_type=166").await.len(),
        1,
        "first save creates"
    );
    let created = t.audit("?action_type=163").await;
    assert_eq!(created.len(), 1);
    assert_eq!(created[0]["target_id"], pid.as_str());
    assert_eq!(created[0]["reason"], "onboarding");

    // Sending the prompt back with its id updates it in place.
    let opt_id = opt["id"].as_str().unwrap().to_owned();
    let (s, o) = t
        .onboarding(json!({"prompts": [prompt(&pid, "Why are you here?", json!([
            {"id": opt_id, "title": "Memes!"}
        ]))]}))
        .await;
    assert_eq!(s, 200, "{o}");
    assert_eq!(o["prompts"][0]["id"], pid.as_str());
    assert_eq!(o["prompts"][0]["options"][0]["id"], opt_id.as_str());
    assert_eq!(
        o["default_channel_ids"],
        json!([general]),
        "left out = kept"
    );
    let updated = t.audit("?action_type=164").await;
    assert_eq!(updated.len(), 1);
    let keys: Vec<&str> = updated[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["title", "options"]);
    assert!(
        t.audit("?action_type=167").await.is_empty(),
        "no onboarding-level change"
    );

    // Prompts left out of the list are deleted.
    let (s, o) = t.onboarding(json!({"prompts": [], "mode": 1})).await;
    assert_eq!(s, 200);
    assert_eq!(o["prompts"], json!([]));
    let deleted = t.audit("?action_type=165").await;
    assert_eq!(deleted[0]["target_id"], pid.as_str());
    let level = t.audit("?action_type=167").await;
    assert_eq!(
        level[0]["changes"],
        json!([{"key": "mode", "old_value": 0, "new_value": 1}])
    );
}

#[tokio::test]
async fn enabling_onboarding_needs_seven_default_channels_five_writable() {
    // Not a community: never.
    let t = T::new().await;
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&SEVEN)}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 350000), "{v}");

    let t = T::with(community_state()).await;
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&SEVEN[..6])}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 350000), "six channels: {v}");
    let four_writable = [
        "general",
        "off-topic",
        "memes",
        "help",
        "welcome",
        "rules",
        "faq",
    ];
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&four_writable)}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 350000), "four writable: {v}");
    assert_eq!(
        v["message"],
        "Cannot enable onboarding, requirements are not met"
    );
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&SEVEN)}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["enabled"], true);

    // Enabled: an update that falls below is refused with the other code.
    let (s, v) = t
        .onboarding(json!({"default_channel_ids": t.chans(&SEVEN[..6])}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 350001), "{v}");
    // Disabling is always allowed, even below the requirements.
    let (s, v) = t
        .onboarding(json!({"enabled": false, "default_channel_ids": []}))
        .await;
    assert_eq!(s, 200, "{v}");

    // Advanced mode counts the prompts' channels too.
    let five = t.chans(&SEVEN[..5]);
    let extra = t.chans(&["welcome", "rules"]);
    let body = |mode: u8| {
        json!({"enabled": true, "mode": mode, "default_channel_ids": five,
               "prompts": [prompt("1", "Topics", json!([{"title": "Info", "channel_ids": extra}]))]})
    };
    let (s, v) = t.onboarding(body(0)).await;
    assert_eq!((s, err_code(&v)), (400, 350000), "default mode: {v}");
    let (s, v) = t.onboarding(body(1)).await;
    assert_eq!(s, 200, "advanced mode: {v}");
}

#[tokio::test]
async fn onboarding_thresholds_are_configurable() {
    let mut st = community_state();
    st.config.onboarding_min_default_channels = 1;
    st.config.onboarding_min_writable_channels = 1;
    let t = T::with(st).await;
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&["rules"])}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 350000), "#rules is read-only: {v}");
    let (s, v) = t
        .onboarding(json!({"enabled": true, "default_channel_ids": t.chans(&["general"])}))
        .await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn deleted_channels_and_roles_leave_onboarding_and_community_removal_disables_it() {
    let t = T::with(community_state()).await;
    let member = t.role("Member");
    let (s, _) = t
        .onboarding(
            json!({"enabled": true, "default_channel_ids": t.chans(&SEVEN),
            "prompts": [prompt("1", "Roles", json!([{"title": "Member", "role_ids": [member],
                                                       "channel_ids": [t.chan("memes")]}]))]}),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = t.delete(&format!("/channels/{}", t.chan("memes"))).await;
    assert_eq!(s, 200);
    let (s, _) = t.delete(&format!("/guilds/{}/roles/{member}", t.g())).await;
    assert_eq!(s, 204);
    let (_, o) = t.get(&format!("/guilds/{}/onboarding", t.g())).await;
    assert_eq!(o["default_channel_ids"].as_array().unwrap().len(), 6);
    assert_eq!(o["prompts"][0]["options"][0]["role_ids"], json!([]));
    assert_eq!(o["prompts"][0]["options"][0]["channel_ids"], json!([]));

    let (s, g) = t
        .patch(&format!("/guilds/{}", t.g()), json!({"features": []}))
        .await;
    assert_eq!(s, 200, "{g}");
    let (_, o) = t.get(&format!("/guilds/{}/onboarding", t.g())).await;
    assert_eq!(o["enabled"], false);
}

// ---------------------------------------------------------------- welcome screen

#[tokio::test]
async fn welcome_screen_belongs_to_community_guilds() {
    let t = T::new().await;
    let path = format!("/guilds/{}/welcome-screen", t.g());
    let (s, v) = t.get(&path).await;
    assert_eq!((s, err_code(&v)), (404, 10069), "{v}");
    let (s, v) = t.patch(&path, json!({"enabled": true})).await;
    assert_eq!((s, err_code(&v)), (404, 10069), "{v}");
}

/// The same guild with a bot that may only view channels.
fn weak_bot(mut st: State) -> State {
    let bot_role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    bot_role.permissions = Permissions::VIEW_CHANNEL;
    st
}

#[tokio::test]
async fn welcome_screen_enabled_lives_in_the_guild_features() {
    // A bot without MANAGE_GUILD reads the screen only once it is enabled.
    let weak = T::with(weak_bot(community_state())).await;
    let path = format!("/guilds/{}/welcome-screen", weak.g());
    let (s, v) = weak.get(&path).await;
    assert_eq!((s, err_code(&v)), (403, 50013), "{v}");

    let t = T::with(community_state()).await;
    let guild = format!("/guilds/{}", t.g());
    let (s, v) = t.get(&path).await;
    assert_eq!(s, 200);
    assert_eq!(v, json!({"description": null, "welcome_channels": []}));
    let rules = t.chan("rules");
    let (s, v) = t
        .call(
            Method::PATCH,
            &path,
            Some(
                json!({"enabled": true, "description": "Welcome to Ferris Fans!",
                        "welcome_channels": [{"channel_id": rules, "description": "Start here",
                                              "emoji_name": "📜"}]}),
            ),
            Some("welcome"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert!(
        v.get("enabled").is_none(),
        "the response has no enabled: {v}"
    );
    assert_eq!(v["welcome_channels"][0]["emoji_id"], Value::Null);
    assert_eq!(v["welcome_channels"][0]["emoji_name"], "📜");
    let (_, g) = t.get(&guild).await;
    assert!(
        g["features"]
            .as_array()
            .unwrap()
            .contains(&json!("WELCOME_SCREEN_ENABLED"))
    );
    let e = &t.audit("?action_type=1").await[0];
    assert_eq!(e["reason"], "welcome");
    assert_eq!(e["changes"][0]["key"], "features");

    // Description and channels alone change no feature and log nothing.
    let (s, _) = t.patch(&path, json!({"description": null})).await;
    assert_eq!(s, 200);
    assert_eq!(t.audit("?action_type=1").await.len(), 1);
    let (_, v) = t.get(&path).await;
    assert!(v["description"].is_null());
    assert_eq!(v["welcome_channels"].as_array().unwrap().len(), 1, "kept");

    // Enabled: readable without MANAGE_GUILD.
    let weak = T::with(weak_bot(t.emu.state())).await;
    let (s, _) = weak.get(&path).await;
    assert_eq!(s, 200);

    // Deleting a listed channel drops it; dropping COMMUNITY drops the feature.
    let (s, _) = t
        .patch(&guild, json!({"rules_channel_id": t.chan("welcome")}))
        .await;
    assert_eq!(s, 200);
    let (s, _) = t.delete(&format!("/channels/{rules}")).await;
    assert_eq!(s, 200);
    let (_, v) = t.get(&path).await;
    assert_eq!(v["welcome_channels"], json!([]));
    let (_, g) = t.patch(&guild, json!({"features": []})).await;
    assert!(
        !g["features"].to_string().contains("WELCOME_SCREEN_ENABLED"),
        "{g}"
    );
}

#[tokio::test]
async fn welcome_screen_validation() {
    let t = T::with(community_state()).await;
    let path = format!("/guilds/{}/welcome-screen", t.g());
    let general = t.chan("general");
    let six: Vec<Value> = (0..6)
        .map(|_| json!({"channel_id": general, "description": "d"}))
        .collect();
    for (body, err_path, code) in [
        (
            json!({"welcome_channels": six}),
            vec!["welcome_channels"],
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            json!({"description": "x".repeat(141)}),
            vec!["description"],
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            json!({"welcome_channels": [{"channel_id": general, "description": ""}]}),
            vec!["welcome_channels", "0", "description"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"welcome_channels": [{"channel_id": general, "description": "x".repeat(51)}]}),
            vec!["welcome_channels", "0", "description"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"welcome_channels": [{"description": "d"}]}),
            vec!["welcome_channels", "0", "channel_id"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            json!({"welcome_channels": [{"channel_id": "123456789012345678", "description": "d"}]}),
            vec!["welcome_channels", "0", "channel_id"],
            "CHANNEL_NOT_FOUND",
        ),
        (
            json!({"enabled": "yes"}),
            vec!["enabled"],
            "BASE_TYPE_BOOLEAN",
        ),
    ] {
        let (s, v) = t.patch(&path, body.clone()).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{body}: {v}");
        assert_eq!(field_error(&v, &err_path)["code"], code, "{body}: {v}");
    }
    let (_, v) = t.get(&path).await;
    assert_eq!(v["welcome_channels"], json!([]), "nothing stored");
}

// ---------------------------------------------------------------- widget

#[tokio::test]
async fn widget_settings_need_manage_guild_and_are_audited() {
    let t = T::new().await;
    let path = format!("/guilds/{}/widget", t.g());
    let (s, v) = t.get(&path).await;
    assert_eq!(s, 200);
    assert_eq!(v, json!({"enabled": true, "channel_id": t.chan("welcome")}));
    let (s, v) = t
        .call(
            Method::PATCH,
            &path,
            Some(json!({"enabled": false, "channel_id": t.chan("general")})),
            Some("widget off"),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(
        v,
        json!({"enabled": false, "channel_id": t.chan("general")})
    );
    let e = &t.audit("?action_type=1").await[0];
    assert_eq!(e["reason"], "widget off");
    let keys: Vec<&str> = e["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["widget_enabled", "widget_channel_id"]);
    let (_, g) = t.get(&format!("/guilds/{}", t.g())).await;
    assert_eq!(g["widget_enabled"], false);
    assert_eq!(g["widget_channel_id"], t.chan("general").as_str());

    let (s, v) = t
        .patch(&path, json!({"channel_id": "123456789012345678"}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert_eq!(
        field_error(&v, &["channel_id"])["code"],
        "CHANNEL_NOT_FOUND"
    );
    let (s, v) = t.patch(&path, json!({"channel_id": null})).await;
    assert_eq!((s, v["channel_id"].clone()), (200, Value::Null));

    let t = T::non_admin(Permissions::VIEW_CHANNEL | Permissions::MANAGE_CHANNELS).await;
    for m in [Method::GET, Method::PATCH] {
        let (s, v) = t.call(m, &path, Some(json!({"enabled": true})), None).await;
        assert_eq!((s, err_code(&v)), (403, 50013));
    }
}

#[tokio::test]
async fn widget_json_is_public_and_off_when_disabled() {
    let t = T::new().await;
    let path = format!("/guilds/{}/widget.json", t.g());
    let (s, w) = t.anonymous(Method::GET, &path, None).await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["id"], t.g().as_str());
    assert_eq!(w["name"], "Ferris Fans");
    let names: Vec<&str> = w["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Lounge", "AFK", "Gaming"],
        "voice channels by position"
    );
    let invite = w["instant_invite"].as_str().unwrap();
    assert!(
        invite.starts_with("https://discord.com/invite/"),
        "{invite}"
    );
    assert_eq!(w["members"], json!([]));

    t.patch(
        &format!("/guilds/{}/widget", t.g()),
        json!({"channel_id": null}),
    )
    .await;
    let (_, w) = t.anonymous(Method::GET, &path, None).await;
    assert!(w["instant_invite"].is_null());
    t.patch(
        &format!("/guilds/{}/widget", t.g()),
        json!({"enabled": false}),
    )
    .await;
    let (s, v) = t.anonymous(Method::GET, &path, None).await;
    assert_eq!((s, err_code(&v)), (403, 50004), "{v}");
    let (s, v) = t
        .anonymous(Method::GET, "/guilds/123456789012345678/widget.json", None)
        .await;
    assert_eq!((s, err_code(&v)), (404, 10004));
}

// ---------------------------------------------------------------- large_state

#[tokio::test]
async fn a_large_guild_serves_and_hits_discords_limits() {
    let t = T::with(large_state(LargeStateOptions::default())).await;
    let g = t.g();
    let (s, roles) = t.get(&format!("/guilds/{g}/roles")).await;
    assert_eq!(s, 200);
    assert_eq!(roles.as_array().unwrap().len(), 250);
    let (s, chans) = t.get(&format!("/guilds/{g}/channels")).await;
    assert_eq!(s, 200);
    assert_eq!(chans.as_array().unwrap().len(), 500);
    let (s, hooks) = t.get(&format!("/guilds/{g}/webhooks")).await;
    assert_eq!(s, 200);
    let hooks = hooks.as_array().unwrap();
    assert_eq!(hooks.len(), 1000);
    assert_eq!(
        hooks.iter().filter(|w| w.get("token").is_some()).count(),
        200,
        "the bot's own: CI and every 5th of the 996 feeds"
    );
    let (s, o) = t.get(&format!("/guilds/{g}/onboarding")).await;
    assert_eq!((s, o["enabled"].clone()), (200, json!(true)));
    // Sent back unchanged (emoji objects as the flat request fields), it is
    // accepted, keeps every id and logs nothing.
    let mut body = o.clone();
    for opt in body["prompts"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|p| p["options"].as_array_mut().unwrap())
    {
        let emoji = opt["emoji"].take();
        opt["emoji_name"] = emoji["name"].clone();
        opt["emoji_id"] = emoji["id"].clone();
    }
    let (s, v) = t.onboarding(body).await;
    assert_eq!(s, 200, "{}", v["message"]);
    assert!(v == o, "the onboarding changed");
    assert!(t.audit("").await.is_empty());

    let (s, v) = t
        .post(&format!("/guilds/{g}/roles"), json!({"name": "x"}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 30005));
    let (s, v) = t
        .post(&format!("/guilds/{g}/channels"), json!({"name": "x"}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 30013));
    let (s, v) = t
        .post(
            &format!("/channels/{}/webhooks", t.chan("general")),
            json!({"name": "x"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 30058));

    // The generated roles sit below the bot: it may edit and move them.
    let team = t.role("Team 001");
    let (s, _) = t
        .patch(
            &format!("/guilds/{g}/roles/{team}"),
            json!({"name": "Team One"}),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = t
        .patch(
            &format!("/guilds/{g}/roles"),
            json!([{"id": team, "position": 1}]),
        )
        .await;
    assert_eq!(s, 200);
}
