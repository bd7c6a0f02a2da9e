//! The rest of the guild (docs/discord.md §10), over real HTTP on loopback: AutoMod
//! rules, emoji, stickers, soundboard sounds, scheduled events, channel flags and
//! channel followers. A module per resource.

mod automod;
mod channels;
mod emojis;
mod events;
mod soundboard;
mod stickers;

use crate::emulator_support::T;
use discord_emulator::state::State;
use discord_permissions::Permissions;
use serde_json::Value;

/// The default state with the bot's role holding exactly `p` (no ADMINISTRATOR).
pub fn with_bot_permissions(p: Permissions) -> State {
    let mut st = discord_emulator::default_state();
    let bot_role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .expect("the bot's role");
    bot_role.permissions = p;
    st
}

/// The newest audit-log entry of `action`.
pub async fn last_entry(t: &T, action: u32) -> Value {
    let entries = t.audit(&format!("?action_type={action}&limit=1")).await;
    entries.first().cloned().unwrap_or(Value::Null)
}

/// The `new_value` (or, for a deletion, the `old_value`) of `key` in an entry's changes.
pub fn change<'a>(entry: &'a Value, key: &str) -> Option<&'a Value> {
    entry["changes"]
        .as_array()?
        .iter()
        .find(|c| c["key"] == key)
        .map(|c| c.get("new_value").unwrap_or(&c["old_value"]))
}

/// Every write names the Gateway event a listening bot would be told of (the request
/// log's `events`).
#[tokio::test]
async fn each_write_fires_its_gateway_event() {
    use crate::emulator_support::files::{data_uri, mp3, png};
    use serde_json::json;
    let t = T::new().await;
    let g = t.g();
    let (_, rule) = t
        .post(
            &format!("/guilds/{g}/auto-moderation/rules"),
            json!({"name": "r", "event_type": 1, "trigger_type": 3, "actions": [{"type": 1}]}),
        )
        .await;
    let rule = format!(
        "/guilds/{g}/auto-moderation/rules/{}",
        rule["id"].as_str().unwrap()
    );
    t.patch(&rule, json!({"enabled": true})).await;
    t.delete(&rule).await;
    let (_, e) = t
        .post(
            &format!("/guilds/{g}/emojis"),
            json!({"name": "em", "image": data_uri("image/png", &png(8, 8))}),
        )
        .await;
    t.delete(&format!("/guilds/{g}/emojis/{}", e["id"].as_str().unwrap()))
        .await;
    let file = png(320, 320);
    t.multipart(
        &format!("/guilds/{g}/stickers"),
        &[
            ("name", None, b"st"),
            ("tags", None, b"x"),
            ("file", Some("f"), &file),
        ],
        None,
    )
    .await;
    let (_, s) = t
        .post(
            &format!("/guilds/{g}/soundboard-sounds"),
            json!({"name": "so", "sound": data_uri("audio/mpeg", &mp3(5))}),
        )
        .await;
    let sound = format!(
        "/guilds/{g}/soundboard-sounds/{}",
        s["sound_id"].as_str().unwrap()
    );
    t.patch(&sound, json!({"volume": 0.5})).await;
    t.delete(&sound).await;
    let (_, ev) = t
        .post(
            &format!("/guilds/{g}/scheduled-events"),
            json!({"name": "ev", "privacy_level": 2, "entity_type": 3,
                   "entity_metadata": {"location": "x"},
                   "scheduled_start_time": crate::emulator_support::rfc3339_in(5.0),
                   "scheduled_end_time": crate::emulator_support::rfc3339_in(6.0)}),
        )
        .await;
    let event = format!(
        "/guilds/{g}/scheduled-events/{}",
        ev["id"].as_str().unwrap()
    );
    t.patch(&event, json!({"name": "ev2"})).await;
    t.delete(&event).await;
    let fired: Vec<(String, Vec<String>)> = t
        .emu
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET")
        .map(|r| (r.method, r.events))
        .collect();
    let events: Vec<&str> = fired
        .iter()
        .flat_map(|(_, e)| e.iter().map(String::as_str))
        .collect();
    assert_eq!(
        events,
        [
            "AUTO_MODERATION_RULE_CREATE",
            "AUTO_MODERATION_RULE_UPDATE",
            "AUTO_MODERATION_RULE_DELETE",
            "GUILD_EMOJIS_UPDATE",
            "GUILD_EMOJIS_UPDATE",
            "GUILD_STICKERS_UPDATE",
            "GUILD_SOUNDBOARD_SOUND_CREATE",
            "GUILD_SOUNDBOARD_SOUND_UPDATE",
            "GUILD_SOUNDBOARD_SOUND_DELETE",
            "GUILD_SCHEDULED_EVENT_CREATE",
            "GUILD_SCHEDULED_EVENT_UPDATE",
            "GUILD_SCHEDULED_EVENT_DELETE",
        ],
        "{fired:?}"
    );
}
