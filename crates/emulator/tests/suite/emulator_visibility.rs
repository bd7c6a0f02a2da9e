//! Channel visibility (docs/discord.md §9.1): channels the caller cannot
//! view are left out of every channel list and are Missing Access by id;
//! categories show through a visible child; administrators and the owner see
//! everything. Observed over real HTTP on loopback.

use crate::emulator_support;

use discord_emulator::default_state;
use discord_emulator::state::{BotToken, Channel, State};
use discord_permissions::Permissions;
use emulator_support::{T, err_code};
use serde_json::{Value, json};

/// The bot's role: no ADMINISTRATOR, but it may view channels at guild level
/// and manage channels, roles and webhooks.
fn bot_perms() -> Permissions {
    Permissions::VIEW_CHANNEL
        | Permissions::MANAGE_CHANNELS
        | Permissions::MANAGE_ROLES
        | Permissions::MANAGE_WEBHOOKS
}

fn bot_role_id(st: &State) -> String {
    st.guilds[0]
        .roles
        .iter()
        .find(|r| r.name == "guildctl")
        .expect("bot role")
        .id
        .clone()
}

/// The default state with a non-admin bot (see [`bot_perms`]).
fn non_admin_state() -> State {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
    bot_role.permissions = bot_perms();
    st
}

/// A channel as a state file would give it; other fields take defaults.
fn channel(id: u64, kind: u8, name: &str, parent: Option<u64>, overwrites: Value) -> Channel {
    serde_json::from_value(json!({
        "id": id.to_string(), "type": kind, "name": name, "position": 9,
        "parent_id": parent.map(|p| p.to_string()),
        "permission_overwrites": overwrites,
    }))
    .expect("channel parses")
}

async fn listed_names(t: &T) -> Vec<String> {
    let (s, v) = t.get(&format!("/guilds/{}/channels", t.g())).await;
    assert_eq!(s, 200, "{v}");
    v.as_array()
        .expect("array")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_channel_hidden_from_the_bot_is_not_listed_nor_readable() {
    let t = T::with(non_admin_state()).await;
    let g = t.g();
    let bot_role = bot_role_id(&t.emu.state());
    let view = Permissions::VIEW_CHANNEL.0.to_string();
    let (s, secret) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "secret", "permission_overwrites": [
                {"id": g, "type": 0, "deny": view},
                {"id": bot_role, "type": 0, "deny": view},
            ]}),
        )
        .await;
    assert_eq!(s, 201, "the bot may still create it: {secret}");
    let sid = secret["id"].as_str().unwrap().to_owned();
    assert!(t.emu.state().guilds[0].channel(&sid).is_some(), "it exists");

    let names = listed_names(&t).await;
    assert!(!names.contains(&"secret".to_owned()), "{names:?}");
    assert!(names.contains(&"general".to_owned()), "{names:?}");
    // The default Staff area denies @everyone VIEW_CHANNEL and lets only
    // Moderator in: hidden from this bot, the category included.
    for hidden in ["Staff", "mod-chat", "mod-log"] {
        assert!(!names.contains(&hidden.to_owned()), "{hidden}: {names:?}");
    }

    let (s, v) = t.get(&format!("/channels/{sid}")).await;
    assert_eq!((s, err_code(&v)), (403, 50001), "by id: {v}");
    // Writes keep answering Missing Access.
    let (s, v) = t
        .patch(&format!("/channels/{sid}"), json!({"topic": "x"}))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001), "{v}");
    let (s, v) = t.delete(&format!("/channels/{sid}")).await;
    assert_eq!((s, err_code(&v)), (403, 50001), "{v}");
}

#[tokio::test]
async fn a_category_shows_through_one_visible_child() {
    let mut st = non_admin_state();
    let gid = st.guilds[0].id.clone();
    let bot_role = bot_role_id(&st);
    let view = Permissions::VIEW_CHANNEL.0.to_string();
    let hide = json!([
        {"id": gid, "type": 0, "allow": "0", "deny": view},
        {"id": bot_role, "type": 0, "allow": "0", "deny": view},
    ]);
    let let_bot_in = json!([
        {"id": gid, "type": 0, "allow": "0", "deny": view},
        {"id": bot_role, "type": 0, "allow": view, "deny": "0"},
    ]);
    // Ids above the default state's.
    let base = st.snowflake.last + 1;
    let vault = base;
    st.guilds[0].channels.extend([
        channel(vault, 4, "Vault", None, hide.clone()),
        channel(base + 1, 0, "open-door", Some(vault), let_bot_in),
        channel(base + 2, 2, "Closed Room", Some(vault), hide.clone()),
        channel(base + 3, 4, "Empty Hidden", None, hide),
        channel(base + 4, 4, "Empty Open", None, json!([])),
    ]);
    st.snowflake.last = base + 4;
    let t = T::with(st).await;

    let names = listed_names(&t).await;
    assert!(names.contains(&"Vault".to_owned()), "{names:?}");
    assert!(names.contains(&"open-door".to_owned()), "{names:?}");
    assert!(!names.contains(&"Closed Room".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"Empty Hidden".to_owned()),
        "no visible child, no VIEW_CHANNEL: {names:?}"
    );
    assert!(
        names.contains(&"Empty Open".to_owned()),
        "VIEW_CHANNEL on the category itself is enough: {names:?}"
    );

    let (s, v) = t.get(&format!("/channels/{vault}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["name"], "Vault");
    assert_eq!(v["type"], 4);
    let (s, v) = t.get(&format!("/channels/{}", base + 2)).await;
    assert_eq!((s, err_code(&v)), (403, 50001), "{v}");
    // Seeing a category through a child grants nothing on the category.
    let (s, v) = t
        .patch(&format!("/channels/{vault}"), json!({"name": "Vault 2"}))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001), "{v}");
}

#[tokio::test]
async fn webhooks_in_hidden_channels_are_still_listed() {
    // §9.1: references such as webhooks may point at channels the bot cannot
    // see; only channel objects are left out.
    let t = T::with(non_admin_state()).await;
    let mod_log = t.chan("mod-log");
    let (s, v) = t.get(&format!("/guilds/{}/webhooks", t.g())).await;
    assert_eq!(s, 200, "{v}");
    let mod_mail = v
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "Mod Mail")
        .unwrap_or_else(|| panic!("Mod Mail listed: {v}"));
    assert_eq!(mod_mail["channel_id"], mod_log.as_str());
    assert!(!listed_names(&t).await.contains(&"mod-log".to_owned()));
}

#[tokio::test]
async fn an_admin_bot_sees_every_channel() {
    let t = T::new().await;
    let st = t.emu.state();
    let (s, v) = t.get(&format!("/guilds/{}/channels", t.g())).await;
    assert_eq!(s, 200);
    let listed: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    let all: Vec<&str> = st.guilds[0]
        .channels
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(listed, all);
    let (s, v) = t.get(&format!("/channels/{}", t.chan("mod-log"))).await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn the_owner_sees_every_channel_without_any_role() {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    let owner = g.owner_id.clone();
    // No Admin role: ownership alone must be enough (§3.6).
    g.members
        .iter_mut()
        .find(|m| m.user_id == owner)
        .unwrap()
        .roles
        .clear();
    st.tokens.push(BotToken {
        token: "owner-token".into(),
        user_id: owner,
    });
    let count = st.guilds[0].channels.len();
    let t = T::with(st).await;
    let resp = t
        .http
        .get(format!("{}/guilds/{}/channels", t.emu.api_base, t.g()))
        .header("Authorization", "Bot owner-token")
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status().as_u16(), 200);
    let v: Value = resp.json().await.expect("json");
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names.len(), count, "{names:?}");
    assert!(names.contains(&"mod-log"), "{names:?}");
}
