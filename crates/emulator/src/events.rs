//! The Gateway events an operation fires, by the names they travel under on the
//! Gateway (the reference's Events table writes them as words: "Guild Member Update" is
//! `GUILD_MEMBER_UPDATE`). A handler attaches them to its response ([`crate::app::fired`]),
//! each a [`Dispatch`] with its payload; the request log records their names
//! (`GET /_emulator/requests`, `events`) and the Gateway sends them to the shards and
//! intents that see them (`crate::gateway`).

use serde_json::Value;

/// One Gateway dispatch a write fires: the event's name, the guild it happened in (which
/// decides the shard and, with the name, the intent that sees it), and its `d` as Discord's
/// Gateway Events page writes it. `data: None` is a name alone: logged, not sent.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub name: &'static str,
    pub guild_id: Option<String>,
    pub data: Option<Value>,
}

impl Dispatch {
    /// `name` in guild `guild_id`, with its payload `data`.
    pub fn new(name: &'static str, guild_id: &str, data: Value) -> Dispatch {
        Dispatch {
            name,
            guild_id: Some(guild_id.to_owned()),
            data: Some(data),
        }
    }
}

impl From<&'static str> for Dispatch {
    fn from(name: &'static str) -> Dispatch {
        Dispatch {
            name,
            guild_id: None,
            data: None,
        }
    }
}

pub const GUILD_UPDATE: &str = "GUILD_UPDATE";
pub const CHANNEL_CREATE: &str = "CHANNEL_CREATE";
pub const CHANNEL_UPDATE: &str = "CHANNEL_UPDATE";
pub const CHANNEL_DELETE: &str = "CHANNEL_DELETE";
pub const GUILD_MEMBER_ADD: &str = "GUILD_MEMBER_ADD";
pub const GUILD_MEMBER_UPDATE: &str = "GUILD_MEMBER_UPDATE";
pub const GUILD_MEMBER_REMOVE: &str = "GUILD_MEMBER_REMOVE";
pub const GUILD_BAN_ADD: &str = "GUILD_BAN_ADD";
pub const GUILD_BAN_REMOVE: &str = "GUILD_BAN_REMOVE";
pub const GUILD_ROLE_CREATE: &str = "GUILD_ROLE_CREATE";
pub const GUILD_ROLE_UPDATE: &str = "GUILD_ROLE_UPDATE";
pub const GUILD_ROLE_DELETE: &str = "GUILD_ROLE_DELETE";
pub const GUILD_INTEGRATIONS_UPDATE: &str = "GUILD_INTEGRATIONS_UPDATE";
pub const INTEGRATION_DELETE: &str = "INTEGRATION_DELETE";
pub const INVITE_DELETE: &str = "INVITE_DELETE";
pub const WEBHOOKS_UPDATE: &str = "WEBHOOKS_UPDATE";
/// Beyond the reference's table, from Discord's Gateway docs: what posting, editing and
/// deleting a message, and making or unarchiving a thread, fire.
pub const MESSAGE_CREATE: &str = "MESSAGE_CREATE";
pub const MESSAGE_UPDATE: &str = "MESSAGE_UPDATE";
pub const MESSAGE_DELETE: &str = "MESSAGE_DELETE";
pub const THREAD_CREATE: &str = "THREAD_CREATE";
pub const THREAD_UPDATE: &str = "THREAD_UPDATE";
/// Also from the Gateway docs: what the expression, AutoMod and scheduled-event routes
/// fire.
pub const GUILD_EMOJIS_UPDATE: &str = "GUILD_EMOJIS_UPDATE";
pub const GUILD_STICKERS_UPDATE: &str = "GUILD_STICKERS_UPDATE";
pub const GUILD_SOUNDBOARD_SOUND_CREATE: &str = "GUILD_SOUNDBOARD_SOUND_CREATE";
pub const GUILD_SOUNDBOARD_SOUND_UPDATE: &str = "GUILD_SOUNDBOARD_SOUND_UPDATE";
pub const GUILD_SOUNDBOARD_SOUND_DELETE: &str = "GUILD_SOUNDBOARD_SOUND_DELETE";
pub const AUTO_MODERATION_RULE_CREATE: &str = "AUTO_MODERATION_RULE_CREATE";
pub const AUTO_MODERATION_RULE_UPDATE: &str = "AUTO_MODERATION_RULE_UPDATE";
pub const AUTO_MODERATION_RULE_DELETE: &str = "AUTO_MODERATION_RULE_DELETE";
pub const GUILD_SCHEDULED_EVENT_CREATE: &str = "GUILD_SCHEDULED_EVENT_CREATE";
pub const GUILD_SCHEDULED_EVENT_UPDATE: &str = "GUILD_SCHEDULED_EVENT_UPDATE";
pub const GUILD_SCHEDULED_EVENT_DELETE: &str = "GUILD_SCHEDULED_EVENT_DELETE";
