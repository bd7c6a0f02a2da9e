//! The rest of the guild (discord-behaviour.md §10), over real HTTP on loopback: AutoMod
//! rules, emoji, stickers, soundboard sounds, scheduled events, channel flags and
//! channel followers. One test binary, a module per resource.

#[path = "../emulator_support/mod.rs"]
mod emulator_support;

mod automod;
mod channels;
mod emojis;
mod events;
mod soundboard;
mod stickers;

use discord_emulator::state::State;
use discord_permissions::Permissions;
use emulator_support::T;
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
