//! `settings:`, the guild's own settings, and the values they take.

use super::*;

/// Guild settings. Channels are referenced by name, or as `Category/name` when several share
/// the name, or by id; `null` clears a channel setting.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Guild name, 2-100 characters.
    #[schemars(extend("examples" = ["Rust Tools"]))]
    pub name: Option<String>,
    /// Guild description (at most 300 characters); `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub description: Option<Option<String>>,
    /// Who may talk: none (unrestricted), low (verified email), medium (registered longer
    /// than 5 minutes), high (member longer than 10 minutes), very_high (verified phone).
    pub verification_level: Option<VerificationLevel>,
    /// Which messages notify members who have not chosen for themselves: `all_messages` or
    /// `only_mentions` (advised for large guilds).
    pub default_message_notifications: Option<MessageNotifications>,
    /// Whose media is scanned for explicit content. A community guild needs `all_members`.
    pub explicit_content_filter: Option<ExplicitContentFilter>,
    /// Name of the voice channel idle members are moved to; `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    pub afk_channel: Option<Option<String>>,
    /// Seconds of inactivity before a member is moved to the AFK channel: 60, 300, 900, 1800 or 3600.
    #[schemars(extend("enum" = [60, 300, 900, 1800, 3600]))]
    pub afk_timeout: Option<u32>,
    /// Name of the text channel for join and boost notices; `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    pub system_channel: Option<Option<String>>,
    /// Notices the system channel suppresses. The list is authoritative when present.
    pub system_channel_flags: Option<Vec<SystemChannelFlag>>,
    /// Name of the rules channel (required for `community: true`); `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    pub rules_channel: Option<Option<String>>,
    /// Name of the channel that receives Discord's community updates (required for `community: true`).
    #[serde(default, deserialize_with = "double_option")]
    pub public_updates_channel: Option<Option<String>>,
    /// Name of the channel that receives safety alerts; `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    pub safety_alerts_channel: Option<Option<String>>,
    /// Preferred locale of a community guild, for example `en-US`: the language of Discord's
    /// messages to it, and how Discovery lists it.
    #[schemars(with = "Option<Locale>")]
    pub preferred_locale: Option<String>,
    /// Show the boost progress bar.
    pub premium_progress_bar_enabled: Option<bool>,
    /// The COMMUNITY feature. Turning it on needs the rules and public updates channels,
    /// verification level at least `low` and explicit content filter `all_members`, and a
    /// bot with Administrator.
    pub community: Option<bool>,
    /// Pause all invites (the INVITES_DISABLED feature).
    pub invites_disabled: Option<bool>,
    /// Turn off join-raid alerts (the RAID_ALERTS_DISABLED feature).
    pub raid_alerts_disabled: Option<bool>,
    /// The guild's icon: an image file (PNG, JPEG or GIF, at most 8 MiB) by its path relative to the manifest's folder and inside it; `null` removes it. An animated (GIF) icon needs the ANIMATED_ICON feature.
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["images/icon.png"]))]
    pub icon: Option<Option<String>>,
    /// The guild's banner, an image file like `icon`; needs the BANNER feature (a GIF, ANIMATED_BANNER too).
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["images/banner.png"]))]
    pub banner: Option<Option<String>>,
    /// The invite background, an image file like `icon` (PNG or JPEG); needs the INVITE_SPLASH feature.
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["images/splash.png"]))]
    pub splash: Option<Option<String>>,
    /// The Discovery background, an image file like `icon` (PNG or JPEG); needs the DISCOVERABLE feature.
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["images/discovery_splash.png"]))]
    pub discovery_splash: Option<Option<String>>,
}

named_enum!(
    /// Verification level.
    VerificationLevel {
        /// Unrestricted.
        None = 0 => "none",
        /// Members must have a verified email.
        Low = 1 => "low",
        /// Members must also have been registered on Discord for more than 5 minutes.
        Medium = 2 => "medium",
        /// Members must also have been in the guild for more than 10 minutes.
        High = 3 => "high",
        /// Members must have a verified phone number.
        VeryHigh = 4 => "very_high",
    }
);

named_enum!(
    /// Default message notification level.
    MessageNotifications {
        /// Members are notified of every message (Discord's default for a new guild).
        AllMessages = 0 => "all_messages",
        /// Members are notified only of messages that mention them.
        OnlyMentions = 1 => "only_mentions",
    }
);

named_enum!(
    /// Explicit content filter level.
    ExplicitContentFilter {
        /// No media is scanned.
        Disabled = 0 => "disabled",
        /// Media from members without a role is scanned.
        MembersWithoutRoles = 1 => "members_without_roles",
        /// Media from every member is scanned (required for a community guild).
        AllMembers = 2 => "all_members",
    }
);

named_enum!(
    /// A notice the system channel can suppress (each is one bit of system_channel_flags).
    SystemChannelFlag {
        /// No message when a member joins (bit 1 << 0).
        SuppressJoinNotifications = 1 => "suppress_join_notifications",
        /// No message when a member boosts the guild (bit 1 << 1).
        SuppressPremiumSubscriptions = 2 => "suppress_premium_subscriptions",
        /// No server setup tips (bit 1 << 2).
        SuppressGuildReminderNotifications = 4 => "suppress_guild_reminder_notifications",
        /// No sticker reply buttons on join messages (bit 1 << 3).
        SuppressJoinNotificationReplies = 8 => "suppress_join_notification_replies",
        /// No message when a member buys or renews a role subscription (bit 1 << 4).
        SuppressRoleSubscriptionPurchaseNotifications = 16 => "suppress_role_subscription_purchase_notifications",
        /// No sticker reply buttons on role subscription messages (bit 1 << 5).
        SuppressRoleSubscriptionPurchaseNotificationReplies = 32 => "suppress_role_subscription_purchase_notification_replies",
    }
);

/// A locale Discord knows, for `settings.preferred_locale` (only the schema uses this type).
pub struct Locale;

impl JsonSchema for Locale {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Locale".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::discord::models::{LOCALE_LANGUAGES, LOCALES};
        let locales: Vec<serde_json::Value> = LOCALES
            .iter()
            .zip(LOCALE_LANGUAGES)
            .map(|(code, language)| serde_json::json!({"const": code, "description": language}))
            .collect();
        schemars::json_schema!({
            "description": "A locale Discord accepts (docs/discord.md §9.4), written as Discord writes it (`en-US`, not `en-us`).",
            "type": "string",
            "oneOf": locales,
        })
    }
}
