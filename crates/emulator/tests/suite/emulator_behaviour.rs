//! The emulator's Discord behaviours, observed over real HTTP on loopback (channels'
//! have a file of their own, `emulator_channels`).

use crate::emulator_support;

use discord_emulator::state::State;
use discord_emulator::{EmulatorOptions, RunningEmulator, default_state};
use discord_permissions::Permissions;
use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

fn role_order(roles: &Value) -> Vec<String> {
    let mut rs: Vec<(i64, u64, String)> = roles
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["position"].as_i64().unwrap(),
                r["id"].as_str().unwrap().parse().unwrap(),
                r["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    rs.into_iter().map(|r| r.2).collect()
}

#[tokio::test]
async fn auth_is_required_and_framework_errors_have_discord_bodies() {
    let t = T::new().await;
    let url = format!("{}/users/@me", t.emu.api_base);
    let r = t.http.get(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v, json!({"message": "401: Unauthorized", "code": 0}));
    let r = t
        .http
        .get(&url)
        .header("Authorization", "Bot nope")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    let (s, me) = t.get("/users/@me").await;
    assert_eq!(s, 200);
    assert_eq!(me["username"], "guildctl");
    assert_eq!(me["bot"], true);

    let (s, v) = t.get("/nowhere").await;
    assert_eq!(
        (s, v),
        (404, json!({"message": "404: Not Found", "code": 0}))
    );
    let (s, v) = t.put(&format!("/guilds/{}", t.g()), json!({})).await;
    assert_eq!(
        (s, v),
        (
            405,
            json!({"message": "405: Method Not Allowed", "code": 0})
        )
    );

    let r = t
        .http
        .patch(format!("{}/guilds/{}", t.emu.api_base, t.g()))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(err_code(&v), 50109);
}

#[tokio::test]
async fn percent_encoded_path_segments_are_decoded_before_routing() {
    // @discordjs/rest and hikari send `@` as `%40` (§9.6).
    let t = T::new().await;
    let (s, plain) = t.get("/users/@me").await;
    assert_eq!(s, 200);
    let (s, encoded) = t.get("/users/%40me").await;
    assert_eq!((s, &encoded), (200, &plain));
    let (s, roles) = t.get(&format!("/guilds/{}/%72oles", t.g())).await;
    assert_eq!(s, 200, "{roles}");
    assert!(roles.as_array().is_some_and(|r| r.len() > 3));
    let general = t.chan("general");
    let (head, rest) = general.split_at(1);
    let (s, c) = t.get(&format!("/channels/%3{head}{rest}")).await;
    assert_eq!((s, &c["id"]), (200, &json!(general)));

    // `%2F` is data, not a separator; and a path is decoded once only.
    let (s, v) = t.get(&format!("/guilds/{}%2Froles", t.g())).await;
    assert_eq!((s, err_code(&v)), (404, 0), "{v}");
    let (s, v) = t.get(&format!("/guilds/{}%2froles", t.g())).await;
    assert_eq!((s, err_code(&v)), (404, 0), "{v}");
    let (s, _) = t.get("/users/%2540me").await;
    assert_eq!(s, 404);

    // The request log shows the path as routed: decoded.
    let paths: Vec<String> = t.emu.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths[1], "/api/v10/users/@me");
    assert_eq!(paths[2], format!("/api/v10/guilds/{}/roles", t.g()));
    assert_eq!(paths[4], format!("/api/v10/guilds/{}%2Froles", t.g()));
}

#[tokio::test]
async fn the_bots_application_is_served_at_oauth2_applications_me() {
    // Client libraries fetch it at start-up.
    let t = T::new().await;
    let bot = t.emu.state().bot_user_id;
    let (s, a) = t.get("/oauth2/applications/@me").await;
    assert_eq!(s, 200, "{a}");
    assert_eq!(
        a["id"],
        bot.as_str(),
        "a bot's application id is its user id"
    );
    assert_eq!(a["name"], "guildctl");
    assert_eq!(a["bot"]["id"], bot.as_str());
    assert_eq!(a["bot"]["bot"], true);
    assert_eq!(
        a["owner"]["username"], "ferris",
        "the guild owner by default"
    );
    assert_eq!(a["approximate_guild_count"], 1);
    assert_eq!(a["bot_public"], true);
    assert!(a["team"].is_null());
    let key = a["verify_key"].as_str().unwrap();
    assert!(key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(a["flags_new"], a["flags"].to_string());
    let (s, v) = t
        .anonymous(Method::GET, "/oauth2/applications/@me", None)
        .await;
    assert_eq!((s, err_code(&v)), (401, 0));

    // State may give the application an id of its own, and other details.
    let mut st = default_state();
    st.application.id = "849074999999999999".into();
    st.application.name = Some("Guild Tools".into());
    st.application.description = "Keeps the guild tidy".into();
    st.application.owner_id = Some(st.users[2].id.clone());
    st.application.bot_public = false;
    let t = T::with(st).await;
    let (s, a) = t.get("/oauth2/applications/@me").await;
    assert_eq!(s, 200);
    assert_eq!(a["id"], "849074999999999999");
    assert_eq!(a["bot"]["id"], bot.as_str());
    assert_eq!(a["name"], "Guild Tools");
    assert_eq!(a["description"], "Keeps the guild tidy");
    assert_eq!(a["owner"]["username"], "alice");
    assert_eq!(a["bot_public"], false);
    // Webhooks the bot creates belong to that application, token shown.
    let (s, w) = t
        .post(
            &format!("/channels/{}/webhooks", t.chan("general")),
            json!({"name": "Hook"}),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(w["application_id"], "849074999999999999");
    assert!(w["token"].is_string());
}

#[tokio::test]
async fn unknown_ids_give_their_codes() {
    let t = T::new().await;
    let (s, v) = t.get("/channels/123456789012345678").await;
    assert_eq!((s, err_code(&v)), (404, 10003));
    let (s, v) = t.get("/guilds/123456789012345678").await;
    assert_eq!((s, err_code(&v)), (404, 10004));
    let (s, v) = t
        .patch(
            &format!("/guilds/{}/roles/123456789012345678", t.g()),
            json!({"name": "x"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (404, 10011));
    let (s, v) = t
        .get(&format!("/guilds/{}/members/123456789012345678", t.g()))
        .await;
    assert_eq!((s, err_code(&v)), (404, 10013));
    let (s, v) = t
        .delete(&format!(
            "/channels/{}/permissions/123456789012345678",
            t.chan("general")
        ))
        .await;
    assert_eq!((s, err_code(&v)), (404, 10009));
}

#[tokio::test]
async fn guild_and_member_reads() {
    let t = T::new().await;
    let (s, g) = t.get(&format!("/guilds/{}?with_counts=true", t.g())).await;
    assert_eq!(s, 200);
    assert_eq!(g["name"], "Ferris Fans");
    assert_eq!(g["approximate_member_count"], 11);
    assert_eq!(g["roles"].as_array().unwrap().len(), 9);
    let everyone = g["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "@everyone")
        .unwrap();
    assert_eq!(everyone["id"], g["id"], "@everyone.id == guild.id");
    assert_eq!(everyone["position"], 0);
    let id = g["id"].as_str().unwrap();
    assert!((17..=19).contains(&id.len()));

    let me = t.emu.state().bot_user_id;
    let (s, m) = t.get(&format!("/guilds/{}/members/{me}", t.g())).await;
    assert_eq!(s, 200);
    assert_eq!(m["roles"], json!([t.role("guildctl")]));
}

#[tokio::test]
async fn hierarchy_blocks_roles_at_or_above_the_bot() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/roles/{}", t.role("Admin")),
            json!({"name": "Boss"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // Its own managed role sits at its own position: not editable.
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/roles/{}", t.role("guildctl")),
            json!({"color": 5}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // Below it: fine.
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/roles/{}", t.role("Moderator")),
            json!({"name": "Mods", "color": 255}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["name"], "Mods");
    assert_eq!(v["colors"]["primary_color"], 255);
    // Moving a role to the bot's own position is refused.
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/roles"),
            json!([{"id": t.role("Muted"), "position": 7}]),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
}

#[tokio::test]
async fn managed_roles_and_everyone_cannot_be_deleted() {
    let t = T::new().await;
    let g = t.g();
    for name in ["Server Booster", "@everyone"] {
        let (s, v) = t
            .delete(&format!("/guilds/{g}/roles/{}", t.role(name)))
            .await;
        assert_eq!((s, err_code(&v)), (400, 50028), "{name}");
    }
    let muted = t.role("Muted");
    let (s, _) = t.delete(&format!("/guilds/{g}/roles/{muted}")).await;
    assert_eq!(s, 204);
    let st = t.emu.state();
    assert!(st.guilds[0].role(&muted).is_none());
    assert!(
        st.guilds[0]
            .members
            .iter()
            .all(|m| !m.roles.contains(&muted))
    );
}

#[tokio::test]
async fn non_admin_bot_cannot_grant_what_it_lacks() {
    let p = Permissions::MANAGE_ROLES | Permissions::MANAGE_CHANNELS | Permissions::VIEW_CHANNEL;
    let t = T::non_admin(p).await;
    let g = t.g();
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/roles"),
            json!({"name": "x", "permissions": "8"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // Default permissions are @everyone's (the bot has those through @everyone).
    let (s, v) = t
        .post(&format!("/guilds/{g}/roles"), json!({"name": "x"}))
        .await;
    assert_eq!(s, 200);
    let st = t.emu.state();
    assert_eq!(
        json!(st.guilds[0].everyone().unwrap().permissions),
        v["permissions"]
    );
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/roles"),
            json!({"name": "ok", "permissions": 1024}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["permissions"], "1024");
    // MANAGE_ROLES inside an overwrite: administrators only.
    let (s, v) = t
        .put(
            &format!(
                "/channels/{}/permissions/{}",
                t.chan("general"),
                t.role("Member")
            ),
            json!({"type": 0, "allow": "268435456"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // No VIEW_AUDIT_LOG.
    let (s, v) = t.get(&format!("/guilds/{g}/audit-logs")).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // No MANAGE_GUILD.
    let (s, v) = t
        .patch(&format!("/guilds/{g}"), json!({"name": "Nope"}))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
}

#[tokio::test]
async fn hidden_channels_are_missing_access() {
    let p = Permissions::MANAGE_CHANNELS | Permissions::VIEW_CHANNEL;
    let t = T::non_admin(p).await;
    let (s, v) = t
        .patch(
            &format!("/channels/{}", t.chan("mod-chat")),
            json!({"topic": "x"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001));
}

#[tokio::test]
async fn new_roles_go_to_position_one_and_reorder_renumbers() {
    let t = T::new().await;
    let g = t.g();
    let (s, r) = t
        .post(&format!("/guilds/{g}/roles"), json!({"name": "Fresh"}))
        .await;
    assert_eq!(s, 200);
    assert_eq!(r["position"], 1);
    let (_, roles) = t.get(&format!("/guilds/{g}/roles")).await;
    let order = role_order(&roles);
    assert_eq!(
        order,
        [
            "Admin",
            "guildctl",
            "Moderator",
            "Helper",
            "Contributor",
            "Server Booster",
            "Member",
            "Muted",
            "Fresh",
            "@everyone"
        ]
    );
    // Muted to 4 ties with Server Booster (4): the older id ranks higher.
    let (s, roles) = t
        .patch(
            &format!("/guilds/{g}/roles"),
            json!([{"id": t.role("Muted"), "position": 4}]),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(roles.as_array().unwrap().len(), 10, "full list");
    assert_eq!(
        role_order(&roles)[5..9],
        ["Server Booster", "Muted", "Member", "Fresh"]
    );
    let mut positions: Vec<i64> = roles
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["position"].as_i64().unwrap())
        .collect();
    positions.sort();
    assert_eq!(positions, (0..10).collect::<Vec<_>>(), "contiguous");
}

#[tokio::test]
async fn preferred_locale_is_one_of_discords_locales() {
    let t = T::new().await;
    let path = format!("/guilds/{}", t.g());
    for locale in ["fr", "en-GB", "es-419", "pt-BR", "zh-TW", "en-US"] {
        let (s, g) = t.patch(&path, json!({"preferred_locale": locale})).await;
        assert_eq!((s, &g["preferred_locale"]), (200, &json!(locale)), "{g}");
    }
    for bad in ["fr-FR", "en-us", "english", "", "ar"] {
        let (s, v) = t.patch(&path, json!({"preferred_locale": bad})).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{bad}: {v}");
        let e = &v["errors"]["preferred_locale"]["_errors"][0];
        assert_eq!(e["code"], "BASE_TYPE_CHOICES", "{v}");
        assert!(e["message"].as_str().unwrap().contains("en-US"), "{v}");
    }
    let (s, v) = t.patch(&path, json!({"preferred_locale": 7})).await;
    assert_eq!((s, err_code(&v)), (400, 50035), "{v}");
    assert!(v["errors"]["preferred_locale"].is_object(), "{v}");
    assert_eq!(t.emu.state().guilds[0].preferred_locale, "en-US");
}

#[tokio::test]
async fn community_needs_rules_and_updates_channels() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t
        .patch(&format!("/guilds/{g}"), json!({"features": ["COMMUNITY"]}))
        .await;
    assert_eq!((s, err_code(&v)), (403, 40006));
    // Announcement channels need NEWS, which the guild lacks so far.
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "news", "type": 5}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"]["type"]["_errors"][0]["message"],
        "Value must be one of {0, 2, 4, 6, 13, 14, 15, 16}."
    );
    let rules = t.chan("rules");
    let updates = t.chan("mod-log");
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}"),
            json!({"features": ["COMMUNITY"], "rules_channel_id": rules,
                   "public_updates_channel_id": updates, "verification_level": 1,
                   "explicit_content_filter": 2}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let features = v["features"].as_array().unwrap();
    assert!(features.contains(&json!("COMMUNITY")));
    assert!(features.contains(&json!("NEWS")));
    assert!(features.contains(&json!("ANIMATED_ICON")), "immutable kept");
    let (s, v) = t.delete(&format!("/channels/{rules}")).await;
    assert_eq!((s, err_code(&v)), (400, 50074));
    let (s, v) = t
        .patch(&format!("/channels/{rules}"), json!({"type": 5}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 50086));
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "news", "type": 5}),
        )
        .await;
    assert_eq!(s, 201);
    assert_eq!(c["type"], 5);
}

#[tokio::test]
async fn community_needs_administrator() {
    let p = Permissions::MANAGE_GUILD | Permissions::VIEW_CHANNEL;
    let t = T::non_admin(p).await;
    let (s, v) = t
        .patch(
            &format!("/guilds/{}", t.g()),
            json!({"features": ["COMMUNITY"], "rules_channel_id": t.chan("rules"),
                   "public_updates_channel_id": t.chan("mod-log")}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t
        .patch(
            &format!("/guilds/{}", t.g()),
            json!({"features": ["INVITES_DISABLED"]}),
        )
        .await;
    assert_eq!(s, 200);
    assert!(
        v["features"]
            .as_array()
            .unwrap()
            .contains(&json!("INVITES_DISABLED"))
    );
}

#[tokio::test]
async fn validation_errors_use_discords_tree() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "", "rate_limit_per_user": 99999, "topic": "x".repeat(1025),
                   "permission_overwrites": [{"id": g, "allow": "1"}]}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(v["code"], 50035);
    assert_eq!(v["message"], "Invalid Form Body");
    let e = &v["errors"];
    assert_eq!(
        e["name"]["_errors"][0],
        json!({"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."})
    );
    assert_eq!(
        e["rate_limit_per_user"]["_errors"][0]["message"],
        "int value should be <= 21600 and >= 0."
    );
    assert_eq!(e["topic"]["_errors"][0]["code"], "BASE_TYPE_MAX_LENGTH");
    assert_eq!(
        e["permission_overwrites"]["0"]["type"]["_errors"][0]["code"],
        "BASE_TYPE_REQUIRED"
    );

    let (s, v) = t
        .patch(
            &format!("/guilds/{g}"),
            json!({"afk_timeout": 42, "name": "x", "verification_level": 9,
                   "afk_channel_id": t.chan("general"), "description": "d".repeat(301)}),
        )
        .await;
    assert_eq!(s, 400);
    let e = &v["errors"];
    assert_eq!(
        e["afk_timeout"]["_errors"][0]["message"],
        "Value must be one of (60, 300, 900, 1800, 3600)."
    );
    assert_eq!(
        e["name"]["_errors"][0]["message"],
        "Must be between 2 and 100 in length."
    );
    assert_eq!(
        e["verification_level"]["_errors"][0]["code"],
        "BASE_TYPE_CHOICES"
    );
    assert_eq!(
        e["afk_channel_id"]["_errors"][0]["code"],
        "GUILD_CREATE_AFK_CHANNEL_NOT_GUILD_VOICE"
    );
    assert_eq!(
        e["description"]["_errors"][0]["message"],
        "Must be 300 or fewer in length."
    );

    let (s, v) = t
        .post(
            &format!("/guilds/{g}/roles"),
            json!({"color": 16777216, "name": "n".repeat(101), "permissions": "abc"}),
        )
        .await;
    assert_eq!(s, 400);
    let e = &v["errors"];
    assert_eq!(
        e["color"]["_errors"][0],
        json!({"code": "NUMBER_TYPE_MAX", "message": "int value should be <= 16777215 and >= 0."})
    );
    assert_eq!(e["name"]["_errors"][0]["code"], "BASE_TYPE_MAX_LENGTH");
    assert_eq!(
        e["permissions"]["_errors"][0]["message"],
        "Value \"abc\" is not int."
    );

    let (s, v) = t
        .patch(
            &format!("/channels/{}", t.chan("Lounge")),
            json!({"bitrate": 256000, "user_limit": 100}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"]["bitrate"]["_errors"][0]["message"],
        "int value should be <= 128000 and >= 8000.",
        "tier 1 ceiling"
    );
    assert_eq!(
        v["errors"]["user_limit"]["_errors"][0]["code"],
        "NUMBER_TYPE_MAX"
    );
    let (s, v) = t
        .patch(
            &format!("/channels/{}", t.chan("general")),
            json!({"type": 2}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"]["type"]["_errors"][0]["code"],
        "BASE_TYPE_CHOICES"
    );
    // 256 must not wrap around to 0 (GUILD_TEXT).
    let (s, _) = t
        .patch(
            &format!("/channels/{}", t.chan("rules")),
            json!({"type": 256}),
        )
        .await;
    assert_eq!(s, 400);
}

#[tokio::test]
async fn ids_and_permissions_accept_strings_or_numbers() {
    let t = T::new().await;
    let g = t.g();
    let general: u64 = t.chan("General").parse().unwrap();
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "numbers", "parent_id": general,
                   "permission_overwrites": [{"id": g.parse::<u64>().unwrap(), "type": 0, "allow": 1024, "deny": "2048"}]}),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(c["parent_id"], general.to_string());
    assert_eq!(
        c["permission_overwrites"][0],
        json!({"id": g, "type": 0, "allow": "1024", "deny": "2048"})
    );
    let id: u64 = c["id"].as_str().unwrap().parse().unwrap();
    assert!(id > general, "timestamp-based and newer");
}

#[tokio::test]
async fn audit_log_entries_reasons_and_filters() {
    let t = T::new().await;
    let g = t.g();
    let helper = t.role("Helper");
    // Percent-decoded, '+' kept as is.
    let (s, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}/roles/{helper}"),
            Some(json!({"name": "Helpers", "hoist": true, "mentionable": true})),
            Some("guildctl+apply%3A%20%F0%9F%A6%80 abc1234"),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}"),
            Some(json!({"name": "Ferris Friends"})),
            Some("second"),
        )
        .await;
    assert_eq!(s, 200);
    let entries = t.audit("").await;
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["action_type"], 1, "newest first");
    assert_eq!(
        entries[0]["changes"][0],
        json!({"key": "name", "old_value": "Ferris Fans", "new_value": "Ferris Friends"})
    );
    let role_entry = &entries[1];
    assert_eq!(role_entry["action_type"], 31);
    assert_eq!(role_entry["target_id"], helper);
    assert_eq!(role_entry["user_id"], t.emu.state().bot_user_id);
    assert_eq!(role_entry["reason"], "guildctl+apply: 🦀 abc1234");
    assert_eq!(
        role_entry["changes"].as_array().unwrap().len(),
        2,
        "only changed keys"
    );

    let asc = t.audit("?after=0").await;
    assert_eq!(asc[0]["action_type"], 31, "after ⇒ oldest first");
    assert_eq!(t.audit("?action_type=31").await.len(), 1);
    assert_eq!(t.audit(&format!("?target_id={g}")).await.len(), 1);
    assert_eq!(t.audit("?user_id=1").await.len(), 0);
    assert_eq!(t.audit("?limit=1").await.len(), 1);
    let before = entries[0]["id"].as_str().unwrap();
    let older = t.audit(&format!("?before={before}")).await;
    assert_eq!(older.len(), 1);
    assert_eq!(older[0]["action_type"], 31);
    let (s, v) = t.get(&format!("/guilds/{g}/audit-logs?limit=101")).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    let (_, full) = t.get(&format!("/guilds/{g}/audit-logs")).await;
    assert_eq!(full["users"][0]["username"], "guildctl");

    // Reasons over 512 decoded characters are refused.
    let long = "%41".repeat(513);
    let (s, v) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}"),
            Some(json!({})),
            Some(&long),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    let ok = "%41".repeat(512);
    let (s, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}"),
            Some(json!({})),
            Some(&ok),
        )
        .await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn limits_on_roles_and_channels() {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    let template = g
        .channels
        .iter()
        .find(|c| c.name == "bot-spam")
        .unwrap()
        .clone();
    for i in 0..(500 - g.channels.len()) {
        let mut c = template.clone();
        c.id = (900_000_000_000_000_000u64 + i as u64).to_string();
        c.name = format!("filler-{i}");
        g.channels.push(c);
    }
    let role = g.roles.iter().find(|r| r.name == "Member").unwrap().clone();
    for i in 0..(250 - g.roles.len()) {
        let mut r = role.clone();
        r.id = (910_000_000_000_000_000u64 + i as u64).to_string();
        r.managed = false;
        g.roles.push(r);
    }
    let t = T::with(st).await;
    let (s, v) = t
        .post(
            &format!("/guilds/{}/channels", t.g()),
            json!({"name": "one-too-many"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 30013));
    let (s, v) = t
        .post(&format!("/guilds/{}/roles", t.g()), json!({"name": "x"}))
        .await;
    assert_eq!((s, err_code(&v)), (400, 30005));
}

#[tokio::test]
async fn control_endpoints_record_requests_and_swap_state() {
    let t = T::new().await;
    let http = &t.http;
    let base = &t.emu.base_url;
    let (s, _) = t
        .call(
            Method::POST,
            &format!("/guilds/{}/roles", t.g()),
            Some(json!({"name": "Logged"})),
            Some("why%20not"),
        )
        .await;
    assert_eq!(s, 200);
    let _ = t.get("/nowhere?x=1").await;
    let recs: Value = http
        .get(format!("{base}/_emulator/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let recs = recs.as_array().unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["method"], "POST");
    assert_eq!(recs[0]["path"], format!("/api/v10/guilds/{}/roles", t.g()));
    assert_eq!(recs[0]["status"], 200);
    assert_eq!(recs[0]["reason"], "why not");
    assert_eq!(recs[0]["body"], json!({"name": "Logged"}));
    assert_eq!(recs[1]["path"], "/api/v10/nowhere?x=1");
    assert_eq!(recs[1]["status"], 404);
    assert_eq!(t.emu.requests().len(), 2);

    let r = http
        .delete(format!("{base}/_emulator/requests"))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    assert!(t.emu.requests().is_empty());

    let mut st: Value = http
        .get(format!("{base}/_emulator/state"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    st["guilds"][0]["name"] = json!("Swapped");
    let r = http
        .put(format!("{base}/_emulator/state"))
        .json(&st)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let (s, g) = t.get(&format!("/guilds/{}", t.g())).await;
    assert_eq!(s, 200, "token survives the swap");
    assert_eq!(g["name"], "Swapped");
    assert_eq!(t.emu.state().guilds[0].name, "Swapped");

    let r = http
        .put(format!("{base}/_emulator/state"))
        .header("content-type", "application/json")
        .body("{\"guilds\": 3}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

#[tokio::test]
async fn tokens_are_random_unless_pinned_and_state_files_load() {
    let a = RunningEmulator::start(EmulatorOptions::default())
        .await
        .unwrap();
    let b = RunningEmulator::start(EmulatorOptions::default())
        .await
        .unwrap();
    assert_ne!(a.token, b.token);
    assert!(a.api_base.starts_with("http://127.0.0.1:"));
    assert!(
        !format!("{a:?}").contains(&a.token),
        "Debug hides the token"
    );
    a.shutdown().await;
    b.shutdown().await;

    let mut st = default_state();
    st.tokens.push(discord_emulator::state::BotToken {
        token: "pinned-token".into(),
        user_id: st.bot_user_id.clone(),
    });
    let dir = std::env::temp_dir().join(format!("guildctl-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.json");
    std::fs::write(&path, serde_json::to_string(&st).unwrap()).unwrap();
    let loaded = discord_emulator::load_state_file(&path).unwrap();
    let c = RunningEmulator::start(EmulatorOptions {
        state: Some(loaded),
    })
    .await
    .unwrap();
    assert_eq!(c.token, "pinned-token");
    c.shutdown().await;

    std::fs::write(&path, "{ nope").unwrap();
    let err = discord_emulator::load_state_file(&path).unwrap_err();
    assert!(err.to_string().contains("state.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_documented_state_example_loads_and_serves() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = doc
        .find("```json\n{\n  \"guilds\"")
        .expect("example in docs")
        + 8;
    let end = start + doc[start..].find("```").unwrap();
    let st: State = serde_json::from_str(&doc[start..end]).expect("example parses");
    let t = T::with(st).await;
    assert_eq!(t.emu.token, "pinned-token-for-tests");
    let (s, me) = t.get("/users/@me").await;
    assert_eq!(s, 200);
    assert_eq!(me["username"], "guildctl");
    let (s, c) = t
        .post(
            &format!("/guilds/{}/channels", t.g()),
            json!({"name": "New One", "parent_id": t.chan("General")}),
        )
        .await;
    assert_eq!(s, 201);
    assert_eq!(c["permission_overwrites"][0]["deny"], "2099200");
}
