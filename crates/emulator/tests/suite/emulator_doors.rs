//! The ways into a guild, over real HTTP: integrations (bots and apps), invites,
//! incident actions (lockdown), voice regions, the vanity URL, the widget image
//! and the prune count, with the reference's permissions, errors and audit entries.

use crate::emulator_support;

use discord_emulator::default_state;
use discord_emulator::state::{Member, Role, State, User, Webhook};
use discord_permissions::Permissions;
use emulator_support::{T, err_code, rfc3339_in};
use reqwest::Method;
use serde_json::{Value, json};

/// The default guild with a hand-added bot ("Raidbot", administrator) that made a
/// webhook in #general, and `n` more command-only apps.
fn with_raidbot(extra_apps: usize) -> State {
    let mut st = default_state();
    let bot_id = "900000000000000001".to_owned();
    let app_id = "900000000000000002".to_owned();
    st.users.push(User {
        id: bot_id.clone(),
        username: "raidbot".into(),
        discriminator: "0".into(),
        bot: true,
        ..User::default()
    });
    let g = &mut st.guilds[0];
    let general = g
        .channels
        .iter()
        .find(|c| c.name == "general")
        .unwrap()
        .id
        .clone();
    g.roles.push(Role {
        id: "900000000000000003".into(),
        name: "Raidbot".into(),
        permissions: Permissions::ADMINISTRATOR,
        position: 1,
        color: 0,
        secondary_color: None,
        tertiary_color: None,
        hoist: false,
        managed: true,
        mentionable: false,
        icon: None,
        unicode_emoji: None,
        flags: 0,
        tags: Some(json!({"bot_id": bot_id})),
    });
    g.members.push(Member {
        user_id: bot_id.clone(),
        roles: vec!["900000000000000003".into()],
        nick: None,
        joined_at: "2024-01-01T00:00:00.000000+00:00".into(),
    });
    g.webhooks.push(Webhook {
        id: "900000000000000004".into(),
        kind: 1,
        channel_id: Some(general),
        name: "Raid".into(),
        avatar: None,
        token: Some("t".repeat(68)),
        application_id: Some(app_id.clone()),
        user_id: Some(bot_id.clone()),
        source_guild: None,
        source_channel: None,
    });
    let mut integrations: Vec<Value> = vec![json!({
        "id": "900000000000000005", "name": "Raidbot", "type": "discord",
        "application": {"id": app_id, "name": "Raidbot", "bot_id": bot_id},
        "user_id": g.owner_id, "scopes": ["bot"],
    })];
    for k in 0..extra_apps {
        integrations.push(json!({
            "id": format!("91000000000000{k:04}"), "name": format!("App {k}"),
            "application": {"id": format!("92000000000000{k:04}"), "name": format!("App {k}")},
            "scopes": ["applications.commands"],
        }));
    }
    for i in integrations {
        g.integrations.push(serde_json::from_value(i).unwrap());
    }
    st
}

#[tokio::test]
async fn deleting_an_integration_removes_its_bot_role_and_webhooks() {
    let t = T::with(with_raidbot(0)).await;
    let g = t.g();
    let (s, list) = t.get(&format!("/guilds/{g}/integrations")).await;
    assert_eq!(s, 200, "{list}");
    let raid = list
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Raidbot")
        .unwrap();
    assert_eq!(raid["application"]["bot"]["id"], "900000000000000001");
    assert_eq!(raid["account"]["id"], "900000000000000002");
    assert!(raid.get("role_id").is_none(), "absent for bot integrations");

    let (s, _) = t
        .call(
            Method::DELETE,
            &format!("/guilds/{g}/integrations/900000000000000005"),
            None,
            Some("remove%20raidbot"),
        )
        .await;
    assert_eq!(s, 204);
    let st = t.emu.state();
    let guild = &st.guilds[0];
    assert!(guild.integrations.iter().all(|i| i.name != "Raidbot"));
    assert!(
        guild
            .members
            .iter()
            .all(|m| m.user_id != "900000000000000001")
    );
    assert!(guild.roles.iter().all(|r| r.name != "Raidbot"));
    assert!(guild.webhooks.iter().all(|w| w.name != "Raid"));
    assert_eq!(guild.webhooks.len(), 4, "other webhooks stay");
    let entries = t.audit("?action_type=82").await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["target_id"], "900000000000000005");
    assert_eq!(entries[0]["reason"], "remove raidbot");

    let (s, e) = t
        .delete(&format!("/guilds/{g}/integrations/900000000000000005"))
        .await;
    assert_eq!((s, err_code(&e)), (404, 10005));
}

#[tokio::test]
async fn integrations_need_manage_guild_and_only_50_are_listed() {
    let t = T::with(with_raidbot(60)).await;
    let (s, list) = t.get(&format!("/guilds/{}/integrations", t.g())).await;
    assert_eq!(s, 200);
    assert_eq!(list.as_array().unwrap().len(), 50);

    let t = T::non_admin(Permissions::VIEW_AUDIT_LOG).await;
    let (s, e) = t.get(&format!("/guilds/{}/integrations", t.g())).await;
    assert_eq!((s, err_code(&e)), (403, 50013));
}

#[tokio::test]
async fn invite_metadata_needs_manage_guild() {
    let t = T::new().await;
    let path = format!("/guilds/{}/invites", t.g());
    let (s, list) = t.get(&path).await;
    assert_eq!(s, 200);
    let ferris = list
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == "ferrisfans")
        .unwrap();
    assert_eq!(ferris["uses"], 412);
    assert_eq!(ferris["max_age"], 0);
    assert_eq!(ferris["expires_at"], Value::Null);
    assert_eq!(ferris["inviter"]["username"], "ferris");

    let t = T::non_admin(Permissions::VIEW_AUDIT_LOG).await;
    let (s, list) = t.get(&path).await;
    assert_eq!(s, 200);
    let first = &list[0];
    assert!(first.get("uses").is_none() && first.get("max_uses").is_none());
    assert!(
        first.get("expires_at").is_some(),
        "expires_at is not metadata"
    );

    let t = T::non_admin(Permissions::VIEW_CHANNEL).await;
    let (s, e) = t.get(&path).await;
    assert_eq!((s, err_code(&e)), (403, 50013));
}

#[tokio::test]
async fn deleting_an_invite_returns_it_and_logs_its_code() {
    let t = T::new().await;
    let (s, inv) = t.get("/invites/helpdesk?with_counts=true").await;
    assert_eq!(s, 200);
    assert!(inv["approximate_member_count"].as_u64().unwrap() > 0);
    assert!(inv.get("uses").is_none(), "Get Invite carries no metadata");

    let (s, gone) = t
        .call(
            Method::DELETE,
            "/invites/helpdesk",
            None,
            Some("not%20ours"),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(gone["code"], "helpdesk");
    let entries = t.audit("?action_type=42").await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["reason"], "not ours");
    let code = entries[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "code")
        .unwrap();
    assert_eq!(code["old_value"], "helpdesk");
    let (s, e) = t.get("/invites/helpdesk").await;
    assert_eq!((s, err_code(&e)), (404, 10006));

    // MANAGE_CHANNELS alone is not MANAGE_GUILD, but is enough on the invite's channel.
    let t = T::non_admin(Permissions::MANAGE_CHANNELS | Permissions::VIEW_CHANNEL).await;
    let (s, _) = t.delete("/invites/ferrisfans").await;
    assert_eq!(s, 200);
    let t = T::non_admin(Permissions::VIEW_CHANNEL).await;
    let (s, e) = t.delete("/invites/ferrisfans").await;
    assert_eq!((s, err_code(&e)), (403, 50013));
}

#[tokio::test]
async fn an_expired_invite_is_gone() {
    let mut st = default_state();
    st.guilds[0].invites[0].max_age = 3600;
    let t = T::with(st).await;
    let (s, list) = t.get(&format!("/guilds/{}/invites", t.g())).await;
    assert_eq!(s, 200);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let (s, _) = t.get("/invites/ferrisfans").await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn incident_actions_are_capped_at_24_hours_and_null_lifts_them() {
    let t = T::new().await;
    let path = format!("/guilds/{}/incident-actions", t.g());
    let (s, v) = t
        .put(&path, json!({"invites_disabled_until": rfc3339_in(6.0), "dms_disabled_until": rfc3339_in(2.0)}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert!(v["invites_disabled_until"].as_str().is_some());
    let (_, guild) = t.get(&format!("/guilds/{}", t.g())).await;
    assert_eq!(
        guild["incidents_data"]["invites_disabled_until"],
        v["invites_disabled_until"]
    );

    let (s, e) = t
        .put(&path, json!({"invites_disabled_until": rfc3339_in(25.0)}))
        .await;
    assert_eq!((s, err_code(&e)), (400, 50035), "{e}");
    assert!(e["errors"]["invites_disabled_until"].is_object(), "{e}");
    let (s, e) = t.put(&path, json!({"dms_disabled_until": "soon"})).await;
    assert_eq!((s, err_code(&e)), (400, 50035));

    // Only the DMs are lifted: a key left out keeps its value.
    let (s, v) = t.put(&path, json!({"dms_disabled_until": null})).await;
    assert_eq!(s, 200);
    assert_eq!(v["dms_disabled_until"], Value::Null);
    assert!(v["invites_disabled_until"].as_str().is_some());

    let t = T::non_admin(Permissions::VIEW_AUDIT_LOG).await;
    let (s, e) = t
        .put(&format!("/guilds/{}/incident-actions", t.g()), json!({}))
        .await;
    assert_eq!((s, err_code(&e)), (403, 50013));
}

#[tokio::test]
async fn regions_vanity_widget_image_and_prune_count() {
    let mut st = default_state();
    st.guilds[0].vanity_url_code = Some("ferris".into());
    st.guilds[0].vanity_uses = 7;
    let t = T::with(st).await;
    let g = t.g();
    let (s, regions) = t.get(&format!("/guilds/{g}/regions")).await;
    assert_eq!(s, 200);
    let ids: Vec<&str> = regions
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"rotterdam") && !ids.contains(&"atlantis"),
        "{ids:?}"
    );

    let (s, v) = t.get(&format!("/guilds/{g}/vanity-url")).await;
    assert_eq!((s, v), (200, json!({"code": "ferris", "uses": 7})));

    let resp = reqwest::get(format!(
        "{}/guilds/{g}/widget.png?style=banner2",
        t.emu.api_base
    ))
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    assert!(resp.bytes().await.unwrap().starts_with(b"\x89PNG"));
    let (s, e) = t
        .anonymous(
            Method::GET,
            &format!("/guilds/{g}/widget.png?style=huge"),
            None,
        )
        .await;
    assert_eq!((s, err_code(&e)), (400, 50035));

    // Members without roles who joined over a day ago: alice..dave minus those with roles.
    let (s, v) = t.get(&format!("/guilds/{g}/prune?days=1")).await;
    assert_eq!(s, 200);
    let roleless = t.emu.state().guilds[0]
        .members
        .iter()
        .filter(|m| m.roles.is_empty() && m.user_id != t.emu.state().guilds[0].owner_id)
        .count();
    assert_eq!(v["pruned"], roleless as u64);
    let (s, e) = t.get(&format!("/guilds/{g}/prune?days=31")).await;
    assert_eq!((s, err_code(&e)), (400, 50035));

    let t = T::non_admin(Permissions::MANAGE_GUILD).await;
    let (s, e) = t.get(&format!("/guilds/{}/prune", t.g())).await;
    assert_eq!(
        (s, err_code(&e)),
        (403, 50013),
        "KICK_MEMBERS is needed too"
    );
}
