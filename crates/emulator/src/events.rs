//! The Gateway events an operation fires, by the names they travel under on the
//! Gateway (the reference's Events table writes them as words: "Guild Member Update" is
//! `GUILD_MEMBER_UPDATE`). The emulator has no Gateway: a handler attaches the names to
//! its response ([`crate::app::fired`]) and the request log records them
//! (`GET /_emulator/requests`, `events`), so a test can see what a bot listening on the
//! Gateway would have been told.

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
