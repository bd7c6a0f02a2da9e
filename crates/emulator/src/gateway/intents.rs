//! Which intent makes a session receive which dispatch (Discord's Gateway page, "List of
//! Intents"; `docs/discord.md` §11.4).

const GUILDS: u64 = 1 << 0;
const GUILD_MEMBERS: u64 = 1 << 1;
const GUILD_MODERATION: u64 = 1 << 2;
const GUILD_EXPRESSIONS: u64 = 1 << 3;
const GUILD_INTEGRATIONS: u64 = 1 << 4;
const GUILD_WEBHOOKS: u64 = 1 << 5;
const GUILD_INVITES: u64 = 1 << 6;
const GUILD_MESSAGES: u64 = 1 << 9;
const GUILD_SCHEDULED_EVENTS: u64 = 1 << 16;
const AUTO_MODERATION_CONFIGURATION: u64 = 1 << 20;

/// The intent a dispatch needs; `None`: sent whatever the intents (READY, RESUMED).
pub(crate) fn intent_of(event: &str) -> Option<u64> {
    let bit = match event {
        "READY" | "RESUMED" => return None,
        "GUILD_CREATE"
        | "GUILD_UPDATE"
        | "GUILD_DELETE"
        | "GUILD_ROLE_CREATE"
        | "GUILD_ROLE_UPDATE"
        | "GUILD_ROLE_DELETE"
        | "CHANNEL_CREATE"
        | "CHANNEL_UPDATE"
        | "CHANNEL_DELETE"
        | "CHANNEL_PINS_UPDATE"
        | "THREAD_CREATE"
        | "THREAD_UPDATE"
        | "THREAD_DELETE"
        | "THREAD_LIST_SYNC"
        | "THREAD_MEMBER_UPDATE"
        | "STAGE_INSTANCE_CREATE"
        | "STAGE_INSTANCE_UPDATE"
        | "STAGE_INSTANCE_DELETE" => GUILDS,
        "GUILD_MEMBER_ADD"
        | "GUILD_MEMBER_UPDATE"
        | "GUILD_MEMBER_REMOVE"
        | "THREAD_MEMBERS_UPDATE" => GUILD_MEMBERS,
        "GUILD_AUDIT_LOG_ENTRY_CREATE" | "GUILD_BAN_ADD" | "GUILD_BAN_REMOVE" => GUILD_MODERATION,
        "GUILD_EMOJIS_UPDATE"
        | "GUILD_STICKERS_UPDATE"
        | "GUILD_SOUNDBOARD_SOUND_CREATE"
        | "GUILD_SOUNDBOARD_SOUND_UPDATE"
        | "GUILD_SOUNDBOARD_SOUND_DELETE"
        | "GUILD_SOUNDBOARD_SOUNDS_UPDATE" => GUILD_EXPRESSIONS,
        "GUILD_INTEGRATIONS_UPDATE"
        | "INTEGRATION_CREATE"
        | "INTEGRATION_UPDATE"
        | "INTEGRATION_DELETE" => GUILD_INTEGRATIONS,
        "WEBHOOKS_UPDATE" => GUILD_WEBHOOKS,
        "INVITE_CREATE" | "INVITE_DELETE" => GUILD_INVITES,
        "MESSAGE_CREATE" | "MESSAGE_UPDATE" | "MESSAGE_DELETE" | "MESSAGE_DELETE_BULK" => {
            GUILD_MESSAGES
        }
        "GUILD_SCHEDULED_EVENT_CREATE"
        | "GUILD_SCHEDULED_EVENT_UPDATE"
        | "GUILD_SCHEDULED_EVENT_DELETE"
        | "GUILD_SCHEDULED_EVENT_USER_ADD"
        | "GUILD_SCHEDULED_EVENT_USER_REMOVE" => GUILD_SCHEDULED_EVENTS,
        "AUTO_MODERATION_RULE_CREATE"
        | "AUTO_MODERATION_RULE_UPDATE"
        | "AUTO_MODERATION_RULE_DELETE" => AUTO_MODERATION_CONFIGURATION,
        // An event this table does not know goes to nobody, rather than to everybody.
        _ => 0,
    };
    Some(bit)
}
