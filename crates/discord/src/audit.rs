//! The audit log as Discord sends it: the action types guildctl asks about, by name, and
//! the wire shapes of a page of `GET /guilds/{g}/audit-logs` (docs/discord.md §7).
//!
//! An action type is a bare number on the wire; each one guildctl reads has a name here, so
//! the code that asks the log a question says which write it means (docs/discord.md §7.2,
//! §10; the full list is the spec's `AuditLogActionTypes`).

use serde::Deserialize;
use serde_json::Value;

/// An audit-log action type: the number in an entry's `action_type` (docs/discord.md §7.2).
pub type ActionType = u32;

/// The action types guildctl reads, by name (`action::ROLE_UPDATE`).
pub mod action {
    use super::ActionType;

    /// Not an action type: the slot of a write Discord records under no type of its own
    /// (a kind that has no create or delete entry of its own).
    pub const NONE: ActionType = 0;

    /// `PATCH /guilds/{g}` and the widget: GUILD_UPDATE (docs/discord.md §7.2).
    pub const GUILD_UPDATE: ActionType = 1;
    /// A channel created: CHANNEL_CREATE (docs/discord.md §7.2).
    pub const CHANNEL_CREATE: ActionType = 10;
    /// A channel's fields or position changed: CHANNEL_UPDATE (docs/discord.md §7.2).
    pub const CHANNEL_UPDATE: ActionType = 11;
    /// A channel deleted: CHANNEL_DELETE (docs/discord.md §7.2).
    pub const CHANNEL_DELETE: ActionType = 12;
    /// A permission overwrite added: CHANNEL_OVERWRITE_CREATE, `target_id` the channel,
    /// `options.id` the role or member (docs/discord.md §7.2).
    pub const CHANNEL_OVERWRITE_CREATE: ActionType = 13;
    /// A permission overwrite changed: CHANNEL_OVERWRITE_UPDATE (docs/discord.md §7.2).
    pub const CHANNEL_OVERWRITE_UPDATE: ActionType = 14;
    /// A permission overwrite removed: CHANNEL_OVERWRITE_DELETE (docs/discord.md §7.2).
    pub const CHANNEL_OVERWRITE_DELETE: ActionType = 15;
    /// A member banned: MEMBER_BAN_ADD, `target_id` the user (docs/discord.md §7.2).
    pub const MEMBER_BAN_ADD: ActionType = 22;
    /// A ban lifted: MEMBER_BAN_REMOVE, `target_id` the user (docs/discord.md §7.2).
    pub const MEMBER_BAN_REMOVE: ActionType = 23;
    /// A member's roles changed: MEMBER_ROLE_UPDATE, with `$add` and `$remove` lists of
    /// `{id, name}` (docs/discord.md §7.2).
    pub const MEMBER_ROLE_UPDATE: ActionType = 25;
    /// A role created: ROLE_CREATE (docs/discord.md §7.2).
    pub const ROLE_CREATE: ActionType = 30;
    /// A role's fields changed: ROLE_UPDATE (docs/discord.md §7.2).
    pub const ROLE_UPDATE: ActionType = 31;
    /// A role deleted: ROLE_DELETE (docs/discord.md §7.2).
    pub const ROLE_DELETE: ActionType = 32;
    /// An invite created: INVITE_CREATE, its code among the changes (docs/discord.md §7.2).
    pub const INVITE_CREATE: ActionType = 40;
    /// An invite changed: INVITE_UPDATE (docs/discord.md §7.2).
    pub const INVITE_UPDATE: ActionType = 41;
    /// An invite deleted: INVITE_DELETE (docs/discord.md §7.2).
    pub const INVITE_DELETE: ActionType = 42;
    /// A webhook created: WEBHOOK_CREATE (docs/discord.md §7.2).
    pub const WEBHOOK_CREATE: ActionType = 50;
    /// A webhook changed or moved: WEBHOOK_UPDATE (docs/discord.md §7.2).
    pub const WEBHOOK_UPDATE: ActionType = 51;
    /// A webhook deleted: WEBHOOK_DELETE (docs/discord.md §7.2).
    pub const WEBHOOK_DELETE: ActionType = 52;
    /// A custom emoji created: EMOJI_CREATE (docs/discord.md §10.2).
    pub const EMOJI_CREATE: ActionType = 60;
    /// A custom emoji changed: EMOJI_UPDATE (docs/discord.md §10.2).
    pub const EMOJI_UPDATE: ActionType = 61;
    /// A custom emoji deleted: EMOJI_DELETE (docs/discord.md §10.2).
    pub const EMOJI_DELETE: ActionType = 62;
    /// An integration added: INTEGRATION_CREATE (docs/discord.md §7.2).
    pub const INTEGRATION_CREATE: ActionType = 80;
    /// An integration changed: INTEGRATION_UPDATE (docs/discord.md §7.2).
    pub const INTEGRATION_UPDATE: ActionType = 81;
    /// An integration removed: INTEGRATION_DELETE (docs/discord.md §7.2).
    pub const INTEGRATION_DELETE: ActionType = 82;
    /// A guild sticker created: STICKER_CREATE (docs/discord.md §10.2).
    pub const STICKER_CREATE: ActionType = 90;
    /// A guild sticker changed: STICKER_UPDATE (docs/discord.md §10.2).
    pub const STICKER_UPDATE: ActionType = 91;
    /// A guild sticker deleted: STICKER_DELETE (docs/discord.md §10.2).
    pub const STICKER_DELETE: ActionType = 92;
    /// A scheduled event created: GUILD_SCHEDULED_EVENT_CREATE (docs/discord.md §10.3).
    pub const SCHEDULED_EVENT_CREATE: ActionType = 100;
    /// A scheduled event changed: GUILD_SCHEDULED_EVENT_UPDATE (docs/discord.md §10.3).
    pub const SCHEDULED_EVENT_UPDATE: ActionType = 101;
    /// A scheduled event deleted: GUILD_SCHEDULED_EVENT_DELETE (docs/discord.md §10.3).
    pub const SCHEDULED_EVENT_DELETE: ActionType = 102;
    /// A soundboard sound created: SOUNDBOARD_SOUND_CREATE (docs/discord.md §10.2).
    pub const SOUNDBOARD_SOUND_CREATE: ActionType = 130;
    /// A soundboard sound changed: SOUNDBOARD_SOUND_UPDATE (docs/discord.md §10.2).
    pub const SOUNDBOARD_SOUND_UPDATE: ActionType = 131;
    /// A soundboard sound deleted: SOUNDBOARD_SOUND_DELETE (docs/discord.md §10.2).
    pub const SOUNDBOARD_SOUND_DELETE: ActionType = 132;
    /// An AutoMod rule created: AUTO_MODERATION_RULE_CREATE (docs/discord.md §10.1).
    pub const AUTO_MODERATION_RULE_CREATE: ActionType = 140;
    /// An AutoMod rule changed: AUTO_MODERATION_RULE_UPDATE (docs/discord.md §10.1).
    pub const AUTO_MODERATION_RULE_UPDATE: ActionType = 141;
    /// An AutoMod rule deleted: AUTO_MODERATION_RULE_DELETE (docs/discord.md §10.1).
    pub const AUTO_MODERATION_RULE_DELETE: ActionType = 142;
    /// An onboarding prompt created: ONBOARDING_PROMPT_CREATE, one entry per prompt
    /// (docs/discord.md §7.2).
    pub const ONBOARDING_PROMPT_CREATE: ActionType = 163;
    /// An onboarding prompt changed: ONBOARDING_PROMPT_UPDATE (docs/discord.md §7.2).
    pub const ONBOARDING_PROMPT_UPDATE: ActionType = 164;
    /// An onboarding prompt deleted: ONBOARDING_PROMPT_DELETE (docs/discord.md §7.2).
    pub const ONBOARDING_PROMPT_DELETE: ActionType = 165;
    /// Onboarding set up: ONBOARDING_CREATE (docs/discord.md §7.2).
    pub const ONBOARDING_CREATE: ActionType = 166;
    /// Onboarding changed: ONBOARDING_UPDATE (docs/discord.md §7.2).
    pub const ONBOARDING_UPDATE: ActionType = 167;
    /// Discord's own rewrite of roles and overwrites when it split `pin_messages` off
    /// `manage_messages` (docs/discord.md §7.2; not in the OpenAPI enum).
    pub const PIN_MESSAGES_MIGRATION: ActionType = 212;
    /// Discord's own rewrite of roles and overwrites when it split `bypass_slowmode` off
    /// `manage_channels`/`manage_threads` (docs/discord.md §7.2; not in the OpenAPI enum).
    pub const BYPASS_SLOWMODE_MIGRATION: ActionType = 213;

    /// The action types under which Discord rewrote roles and overwrites itself when it split
    /// permissions off others. An entry of one reads as the role update ([`ROLE_UPDATE`]) or
    /// overwrite update ([`CHANNEL_OVERWRITE_UPDATE`]) it stands for: the role or channel as
    /// target, the overwrite's id in `options`, `permissions` or `allow`/`deny` as keys.
    pub const PERMISSION_MIGRATIONS: [ActionType; 2] =
        [PIN_MESSAGES_MIGRATION, BYPASS_SLOWMODE_MIGRATION];
}

/// One page of `GET /guilds/{g}/audit-logs`: the entries, newest first with `before`, and
/// the users, webhooks and integrations they name (docs/discord.md §7.3).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditPage {
    /// The entries of the page.
    pub audit_log_entries: Vec<AuditEntry>,
    /// The users the entries name.
    pub users: Vec<AuditUser>,
    /// The webhooks the entries name.
    pub webhooks: Vec<Named>,
    /// The integrations the entries name.
    pub integrations: Vec<Named>,
}

/// One entry: who did what to which object, with the changed keys (docs/discord.md §7.3).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditEntry {
    /// The entry's snowflake: its time (docs/discord.md §8).
    pub id: String,
    /// What was done ([`ActionType`], named in [`action`]).
    pub action_type: ActionType,
    /// Who did it (`None`: a system change).
    pub user_id: Option<String>,
    /// The object it was done to, as a string.
    pub target_id: Option<String>,
    /// The keys changed.
    pub changes: Vec<AuditChange>,
    /// Extra facts of the action (an overwrite's `id` and `type`, …); values are strings.
    pub options: Option<serde_json::Map<String, Value>>,
    /// The `X-Audit-Log-Reason` the write carried (docs/discord.md §7.1).
    pub reason: Option<String>,
}

impl AuditEntry {
    /// Whether Discord made the change itself, in a permission migration: no person did.
    pub fn is_permission_migration(&self) -> bool {
        action::PERMISSION_MIGRATIONS.contains(&self.action_type)
    }
}

/// One changed key: no `new_value` means reset or null, no `old_value` null before
/// (docs/discord.md §7.3).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditChange {
    /// The key, as the log records it (`icon_hash`, `$add`, …; docs/discord.md §7.2).
    pub key: String,
    /// The value after.
    pub new_value: Option<Value>,
    /// The value before.
    pub old_value: Option<Value>,
}

/// A user an entry names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditUser {
    /// The user's id.
    pub id: String,
    /// The username.
    pub username: String,
    /// The display name, when set.
    pub global_name: Option<String>,
    /// Whether the user is a bot.
    pub bot: bool,
}

/// A webhook or integration an entry names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Named {
    /// Its id.
    pub id: String,
    /// Its name, when known.
    pub name: Option<String>,
    /// An integration's account (`{id, name}`), as sent.
    pub account: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_of_a_permission_migration_is_discords_own() {
        let page: AuditPage = serde_json::from_str(
            r#"{"audit_log_entries": [
                {"id": "1", "action_type": 212, "target_id": "9"},
                {"id": "2", "action_type": 31, "user_id": "5", "changes": [{"key": "name"}]}
            ], "users": [{"id": "5", "username": "mod"}]}"#,
        )
        .unwrap();
        let [migration, update] = &page.audit_log_entries[..] else {
            panic!("two entries: {page:?}");
        };
        assert!(migration.is_permission_migration());
        assert_eq!(update.action_type, action::ROLE_UPDATE);
        assert!(!update.is_permission_migration());
        assert_eq!(update.changes[0].new_value, None);
        assert_eq!(page.users[0].username, "mod");
    }
}
