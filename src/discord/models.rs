//! The parts of Discord's API objects that guildctl reads. Every field has a
//! default so that a field Discord leaves out (or adds) never breaks a read.

use serde::{Deserialize, Serialize};

use crate::permissions::Permissions;

/// Channel type numbers (discord-behaviour.md §4.1).
pub mod channel_type {
    pub const TEXT: u8 = 0;
    pub const VOICE: u8 = 2;
    pub const CATEGORY: u8 = 4;
    pub const ANNOUNCEMENT: u8 = 5;
    pub const STAGE: u8 = 13;
    pub const FORUM: u8 = 15;
    pub const MEDIA: u8 = 16;
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct User {
    pub id: String,
    pub username: String,
    pub bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Member {
    pub user: Option<User>,
    pub roles: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Guild {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub owner_id: String,
    pub verification_level: u64,
    pub default_message_notifications: u64,
    pub explicit_content_filter: u64,
    pub afk_channel_id: Option<String>,
    pub afk_timeout: u64,
    pub system_channel_id: Option<String>,
    pub system_channel_flags: u64,
    pub rules_channel_id: Option<String>,
    pub public_updates_channel_id: Option<String>,
    pub safety_alerts_channel_id: Option<String>,
    pub preferred_locale: String,
    pub premium_progress_bar_enabled: bool,
    pub premium_tier: u64,
    pub features: Vec<String>,
    pub roles: Vec<Role>,
    pub widget_enabled: bool,
    pub widget_channel_id: Option<String>,
}

impl Guild {
    pub fn has_feature(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Role {
    pub id: String,
    pub name: String,
    pub permissions: Permissions,
    pub position: i64,
    pub color: u32,
    pub hoist: bool,
    pub managed: bool,
    pub mentionable: bool,
    pub unicode_emoji: Option<String>,
    pub tags: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Channel {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub name: String,
    pub position: i64,
    pub parent_id: Option<String>,
    pub topic: Option<String>,
    pub nsfw: Option<bool>,
    pub rate_limit_per_user: Option<u32>,
    pub bitrate: Option<u32>,
    pub user_limit: Option<u32>,
    pub rtc_region: Option<String>,
    pub video_quality_mode: Option<u64>,
    pub default_auto_archive_duration: Option<u32>,
    pub default_thread_rate_limit_per_user: Option<u32>,
    pub permission_overwrites: Vec<Overwrite>,
}

/// Overwrite target types.
/// The locales Discord accepts as a guild's `preferred_locale`
/// (discord-behaviour.md §9.4); anything else is refused with 400 50035.
pub const LOCALES: [&str; 32] = [
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl",
    "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th",
    "zh-CN", "ja", "zh-TW", "ko",
];

pub const OVERWRITE_ROLE: u8 = 0;
pub const OVERWRITE_MEMBER: u8 = 1;

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(default)]
pub struct Overwrite {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub allow: Permissions,
    pub deny: Permissions,
}

impl Channel {
    /// The overwrites as a comparable set: all-zero ones dropped (they change
    /// nothing, and Discord's sync check treats a missing one as all-zero), sorted.
    pub fn overwrite_set(&self) -> Vec<Overwrite> {
        let mut v: Vec<Overwrite> = self
            .permission_overwrites
            .iter()
            .filter(|o| !(o.allow.is_empty() && o.deny.is_empty()))
            .cloned()
            .collect();
        v.sort();
        v
    }
}

/// Discord's error body (discord-behaviour.md §2.1).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ErrorBody {
    pub code: i64,
    pub message: String,
    pub errors: Option<serde_json::Value>,
    pub retry_after: Option<f64>,
    pub global: Option<bool>,
}

/// `GET /guilds/{id}/welcome-screen`. Whether it is shown is the guild feature
/// WELCOME_SCREEN_ENABLED, not a field (discord-behaviour.md §5.3).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct WelcomeScreen {
    pub description: Option<String>,
    pub welcome_channels: Vec<WelcomeChannel>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct WelcomeChannel {
    pub channel_id: String,
    pub description: String,
    pub emoji_id: Option<String>,
    pub emoji_name: Option<String>,
}

/// `GET /guilds/{id}/onboarding`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Onboarding {
    pub prompts: Vec<Prompt>,
    pub default_channel_ids: Vec<String>,
    pub enabled: bool,
    pub mode: u64,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Prompt {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u64,
    pub title: String,
    pub options: Vec<PromptOption>,
    pub single_select: bool,
    pub required: bool,
    pub in_onboarding: bool,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PromptOption {
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    pub channel_ids: Vec<String>,
    pub role_ids: Vec<String>,
    /// Responses carry the emoji nested; requests send it flat.
    pub emoji: Option<Emoji>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Emoji {
    pub id: Option<String>,
    pub name: Option<String>,
    pub animated: Option<bool>,
}

/// Webhook types (discord-behaviour.md §6).
pub const WEBHOOK_INCOMING: u8 = 1;

/// A webhook as guildctl reads it. There is deliberately no `token` field: the
/// token is a secret and is dropped as the response is read.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Webhook {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub channel_id: Option<String>,
    pub name: Option<String>,
    pub avatar: Option<String>,
    pub application_id: Option<String>,
}
