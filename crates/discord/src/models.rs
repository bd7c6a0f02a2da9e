//! The parts of Discord's API objects that guildctl reads.
//!
//! A field Discord always sends (Discord's OpenAPI lists it as required) is required
//! here too: a response without it is not what Discord sends, and the read fails
//! naming the call, rather than reading a missing list as an empty one and planning
//! against a guild that seems empty (docs/safety.md, "Broken reads"). Fields that are
//! required but may be `null` must be present (`nullable`). Only fields Discord may
//! leave out have a default; fields Discord adds are ignored.

use serde::{Deserialize, Deserializer, Serialize};

use discord_permissions::Permissions;

/// A field that must be present and may be `null` (plain `Option` fields may be absent).
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// Channel type numbers (docs/discord.md §4.1).
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
pub struct User {
    pub id: String,
    pub username: String,
    #[serde(default)]
    pub bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Member {
    #[serde(default)]
    pub user: Option<User>,
    pub roles: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Guild {
    pub id: String,
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub description: Option<String>,
    pub owner_id: String,
    pub verification_level: u64,
    pub default_message_notifications: u64,
    pub explicit_content_filter: u64,
    #[serde(deserialize_with = "nullable")]
    pub afk_channel_id: Option<String>,
    pub afk_timeout: u64,
    #[serde(deserialize_with = "nullable")]
    pub system_channel_id: Option<String>,
    pub system_channel_flags: u64,
    #[serde(deserialize_with = "nullable")]
    pub rules_channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub public_updates_channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub safety_alerts_channel_id: Option<String>,
    pub preferred_locale: String,
    pub premium_progress_bar_enabled: bool,
    /// Image hashes (`a_` first when animated); the image itself is on the CDN.
    #[serde(deserialize_with = "nullable")]
    pub icon: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub banner: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub splash: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub discovery_splash: Option<String>,
    pub premium_tier: u64,
    pub features: Vec<String>,
    pub roles: Vec<Role>,
    // Discord's own documentation marks the widget fields optional; absent reads as off.
    #[serde(default)]
    pub widget_enabled: bool,
    #[serde(default)]
    pub widget_channel_id: Option<String>,
    /// The vanity URL code (discord.gg/CODE), when the guild has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vanity_url_code: Option<String>,
    /// Incident actions in force (lockdown): `invites_disabled_until`, `dms_disabled_until`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incidents_data: Option<serde_json::Value>,
    /// Settings fields the response left out ([`LENIENT_GUILD_FIELDS`]), read as unknown.
    #[serde(skip)]
    pub unknown: Vec<&'static LenientField>,
}

/// A settings field a Discord-compatible server may leave out of a guild (Spacebar, which
/// people self-host, omits `safety_alerts_channel_id`).
#[derive(Debug)]
pub struct LenientField {
    /// Its name in the guild object.
    pub api: &'static str,
    /// The manifest's `settings` field read from it.
    pub setting: &'static str,
    /// What is read in its place; never compared, since the field is marked unknown.
    pub stand_in: fn() -> serde_json::Value,
}

const fn lenient(
    api: &'static str,
    setting: &'static str,
    stand_in: fn() -> serde_json::Value,
) -> LenientField {
    LenientField {
        api,
        setting,
        stand_in,
    }
}

/// The settings fields a guild read may lack: a guild without one of them is still read,
/// the field marked unknown ([`Guild::unknown`]), and the plan refuses only a manifest that
/// manages it. Every other field stays required: without its roles, features or id a guild
/// cannot be planned against at all.
pub const LENIENT_GUILD_FIELDS: &[LenientField] = &[
    lenient("description", "description", || serde_json::Value::Null),
    lenient("verification_level", "verification_level", || 0.into()),
    lenient(
        "default_message_notifications",
        "default_message_notifications",
        || 0.into(),
    ),
    lenient("explicit_content_filter", "explicit_content_filter", || {
        0.into()
    }),
    lenient("afk_channel_id", "afk_channel", || serde_json::Value::Null),
    lenient("afk_timeout", "afk_timeout", || 0.into()),
    lenient("system_channel_id", "system_channel", || {
        serde_json::Value::Null
    }),
    lenient("system_channel_flags", "system_channel_flags", || 0.into()),
    lenient("rules_channel_id", "rules_channel", || {
        serde_json::Value::Null
    }),
    lenient(
        "public_updates_channel_id",
        "public_updates_channel",
        || serde_json::Value::Null,
    ),
    lenient("safety_alerts_channel_id", "safety_alerts_channel", || {
        serde_json::Value::Null
    }),
    lenient("preferred_locale", "preferred_locale", || "en-US".into()),
    lenient(
        "premium_progress_bar_enabled",
        "premium_progress_bar_enabled",
        || false.into(),
    ),
    lenient("icon", "icon", || serde_json::Value::Null),
    lenient("banner", "banner", || serde_json::Value::Null),
    lenient("splash", "splash", || serde_json::Value::Null),
    lenient("discovery_splash", "discovery_splash", || {
        serde_json::Value::Null
    }),
];

/// Two fields are the same when they name the same API field.
impl PartialEq for LenientField {
    fn eq(&self, other: &Self) -> bool {
        self.api == other.api
    }
}

/// Decodes a response body into `T`; the error says where it does not fit (`at
/// roles[1].position: …`).
pub fn decode_at<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        if at == "." {
            inner.to_string()
        } else {
            format!("at {at}: {inner}")
        }
    })
}

impl Guild {
    /// Decodes a guild read, marking the [`LENIENT_GUILD_FIELDS`] it lacks as unknown; the
    /// error says where the body does not fit.
    pub fn decode(mut value: serde_json::Value) -> Result<Guild, String> {
        let mut unknown = Vec::new();
        if let serde_json::Value::Object(fields) = &mut value {
            for field in LENIENT_GUILD_FIELDS {
                if !fields.contains_key(field.api) {
                    fields.insert(field.api.to_owned(), (field.stand_in)());
                    unknown.push(field);
                }
            }
        }
        let mut guild: Guild = decode_at(value)?;
        guild.unknown = unknown;
        Ok(guild)
    }

    pub fn has_feature(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }
}

/// A role as guildctl reads it. Its colours are one reading ([`Role::colors`]): the
/// deprecated `color` is not kept beside them, so the planner, the rehearsal's copy and
/// drift cannot each take another (a Discord-compatible server may send `color: 0` beside
/// a colour set through `colors`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(from = "WireRole", into = "WireRole")]
pub struct Role {
    pub id: String,
    pub name: String,
    pub permissions: Permissions,
    pub position: i64,
    /// Primary, secondary and tertiary colour: the Role object's `colors`, or its `color`
    /// where a server sends no `colors` (older servers).
    pub colors: RoleColors,
    pub hoist: bool,
    pub managed: bool,
    pub mentionable: bool,
    pub unicode_emoji: Option<String>,
    /// The role icon's image hash.
    pub icon: Option<String>,
    pub tags: Option<serde_json::Value>,
}

/// A role as the API sends it, with both colour fields.
#[derive(Deserialize, Serialize)]
struct WireRole {
    id: String,
    name: String,
    permissions: Permissions,
    position: i64,
    /// The primary colour (deprecated in favour of `colors`, still sent).
    color: u32,
    #[serde(default)]
    colors: Option<RoleColors>,
    hoist: bool,
    managed: bool,
    mentionable: bool,
    // Optional in Discord's own documentation.
    #[serde(default)]
    unicode_emoji: Option<String>,
    #[serde(default)]
    icon: Option<String>,
    #[serde(default)]
    tags: Option<serde_json::Value>,
}

impl From<WireRole> for Role {
    fn from(w: WireRole) -> Role {
        Role {
            id: w.id,
            name: w.name,
            permissions: w.permissions,
            position: w.position,
            colors: w.colors.unwrap_or(RoleColors {
                primary_color: w.color,
                secondary_color: None,
                tertiary_color: None,
            }),
            hoist: w.hoist,
            managed: w.managed,
            mentionable: w.mentionable,
            unicode_emoji: w.unicode_emoji,
            icon: w.icon,
            tags: w.tags,
        }
    }
}

/// Written as Discord sends it: `color` is the primary colour (§3.1).
impl From<Role> for WireRole {
    fn from(r: Role) -> WireRole {
        WireRole {
            id: r.id,
            name: r.name,
            permissions: r.permissions,
            position: r.position,
            color: r.colors.primary_color,
            colors: Some(r.colors),
            hoist: r.hoist,
            managed: r.managed,
            mentionable: r.mentionable,
            unicode_emoji: r.unicode_emoji,
            icon: r.icon,
            tags: r.tags,
        }
    }
}

/// A role's colours (the Role object's `colors`).
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct RoleColors {
    pub primary_color: u32,
    #[serde(default)]
    pub secondary_color: Option<u32>,
    #[serde(default)]
    pub tertiary_color: Option<u32>,
}

impl Role {
    /// Primary, secondary and tertiary colour as the role has them now.
    pub fn color_triple(&self) -> (u32, Option<u32>, Option<u32>) {
        let c = self.colors;
        (c.primary_color, c.secondary_color, c.tertiary_color)
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Channel {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub name: String,
    pub position: i64,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub topic: Option<String>,
    #[serde(default)]
    pub nsfw: Option<bool>,
    #[serde(default)]
    pub rate_limit_per_user: Option<u32>,
    #[serde(default)]
    pub bitrate: Option<u32>,
    #[serde(default)]
    pub user_limit: Option<u32>,
    #[serde(default)]
    pub rtc_region: Option<String>,
    #[serde(default)]
    pub video_quality_mode: Option<u64>,
    #[serde(default)]
    pub default_auto_archive_duration: Option<u32>,
    #[serde(default)]
    pub default_thread_rate_limit_per_user: Option<u32>,
    /// Channel flags; guildctl manages the bits a manifest names ([`REQUIRE_TAG`],
    /// [`IS_SPOILER_CHANNEL`], [`HIDE_MEDIA_DOWNLOAD_OPTIONS`]) and keeps the rest.
    pub flags: u64,
    /// Forum and media channels only, like the next three (docs/discord.md §9.5).
    #[serde(default)]
    pub available_tags: Option<Vec<ForumTag>>,
    #[serde(default)]
    pub default_reaction_emoji: Option<DefaultReaction>,
    /// 0 latest activity, 1 creation date; `null` when never set.
    #[serde(default)]
    pub default_sort_order: Option<u8>,
    /// Forum channels: 0 not set, 1 list, 2 gallery.
    #[serde(default)]
    pub default_forum_layout: Option<u8>,
    /// Required although the OpenAPI marks it optional (a DM has none): Discord sends it
    /// for every guild channel, and read as none a locked channel would look open.
    pub permission_overwrites: Vec<Overwrite>,
}

/// The channel flag that makes a post in a forum or media channel carry a tag.
pub const REQUIRE_TAG: u64 = 1 << 4;
/// The channel flag that hides the download options of a media channel's media.
pub const HIDE_MEDIA_DOWNLOAD_OPTIONS: u64 = 1 << 15;
/// The channel flag that shows what a channel holds as a spoiler (§4.2).
pub const IS_SPOILER_CHANNEL: u64 = 1 << 21;

/// A tag of a forum or media channel. Discord sets at most one of the emoji fields.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct ForumTag {
    pub id: String,
    pub name: String,
    pub moderated: bool,
    #[serde(deserialize_with = "nullable")]
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub emoji_name: Option<String>,
}

/// The emoji of a forum or media channel's reaction button.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct DefaultReaction {
    #[serde(deserialize_with = "nullable")]
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub emoji_name: Option<String>,
}

/// The locales Discord accepts as a guild's `preferred_locale`
/// (docs/discord.md §9.4); anything else is refused with 400 50035.
pub const LOCALES: [&str; 32] = [
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl",
    "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th",
    "zh-CN", "ja", "zh-TW", "ko",
];

/// The language of each of [`LOCALES`], in the same order (Discord's names, with the
/// language's own name), for the JSON schema's descriptions.
pub const LOCALE_LANGUAGES: [&str; 32] = [
    "Indonesian (Bahasa Indonesia)",
    "Danish (Dansk)",
    "German (Deutsch)",
    "English, UK",
    "English, US",
    "Spanish (Español)",
    "Spanish, Latin America (Español, LATAM)",
    "French (Français)",
    "Croatian (Hrvatski)",
    "Italian (Italiano)",
    "Lithuanian (Lietuviškai)",
    "Hungarian (Magyar)",
    "Dutch (Nederlands)",
    "Norwegian (Norsk)",
    "Polish (Polski)",
    "Portuguese, Brazilian (Português do Brasil)",
    "Romanian (Română)",
    "Finnish (Suomi)",
    "Swedish (Svenska)",
    "Vietnamese (Tiếng Việt)",
    "Turkish (Türkçe)",
    "Czech (Čeština)",
    "Greek (Ελληνικά)",
    "Bulgarian (български)",
    "Russian (Русский)",
    "Ukrainian (Українська)",
    "Hindi (हिन्दी)",
    "Thai (ไทย)",
    "Chinese, China (中文)",
    "Japanese (日本語)",
    "Chinese, Taiwan (繁體中文)",
    "Korean (한국어)",
];

/// Overwrite target types.
pub const OVERWRITE_ROLE: u8 = 0;
pub const OVERWRITE_MEMBER: u8 = 1;

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

/// Discord's error body (docs/discord.md §2.1).
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
/// WELCOME_SCREEN_ENABLED, not a field (docs/discord.md §5.3).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct WelcomeScreen {
    #[serde(deserialize_with = "nullable")]
    pub description: Option<String>,
    pub welcome_channels: Vec<WelcomeChannel>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct WelcomeChannel {
    pub channel_id: String,
    pub description: String,
    #[serde(deserialize_with = "nullable")]
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub emoji_name: Option<String>,
}

/// `GET /guilds/{id}/onboarding`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Onboarding {
    pub prompts: Vec<Prompt>,
    pub default_channel_ids: Vec<String>,
    pub enabled: bool,
    pub mode: u64,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
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
pub struct PromptOption {
    pub id: String,
    pub title: String,
    #[serde(deserialize_with = "nullable")]
    pub description: Option<String>,
    pub channel_ids: Vec<String>,
    pub role_ids: Vec<String>,
    /// Responses carry the emoji nested; requests send it flat.
    #[serde(default)]
    pub emoji: Option<Emoji>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Emoji {
    pub id: Option<String>,
    pub name: Option<String>,
    pub animated: Option<bool>,
}

/// A custom emoji of the guild, as List Guild Emojis gives it. `user` (its creator) is shown
/// to a caller with an expression permission.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct GuildEmoji {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    /// Roles allowed to use it; empty, everyone.
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
    #[serde(default)]
    pub animated: bool,
    /// Managed by an integration (Twitch subscriber emoji): not guildctl's to change.
    #[serde(default)]
    pub managed: bool,
}

/// A soundboard sound of the guild, as List Guild Soundboard Sounds gives it (its `items`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct SoundboardSound {
    pub sound_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default = "full_volume")]
    pub volume: f64,
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
}

fn full_volume() -> f64 {
    1.0
}

/// List Guild Soundboard Sounds' answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SoundboardSounds {
    pub items: Vec<SoundboardSound>,
}

/// A guild sticker, as List Guild Stickers gives it. `user` (its creator) is shown to a
/// caller with an expression permission.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct GuildSticker {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Autocomplete tags (by convention an emoji's name).
    #[serde(default)]
    pub tags: String,
    /// 1 PNG, 2 APNG, 3 Lottie, 4 GIF.
    #[serde(default = "png_sticker")]
    pub format_type: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
}

fn png_sticker() -> u8 {
    STICKER_PNG
}

/// Sticker format types (resources/sticker, "Sticker Format Types"); the CDN names a
/// sticker's file by them.
pub const STICKER_PNG: u8 = 1;
pub const STICKER_APNG: u8 = 2;
pub const STICKER_LOTTIE: u8 = 3;
pub const STICKER_GIF: u8 = 4;

/// Webhook types (docs/discord.md §6).
pub const WEBHOOK_INCOMING: u8 = 1;

/// A webhook as guildctl reads it. There is deliberately no `token` field: the
/// token is a secret and is dropped as the response is read.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Webhook {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(deserialize_with = "nullable")]
    pub channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub name: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub avatar: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub application_id: Option<String>,
    /// A channel follower's: the guild of the followed channel; absent when the follower's
    /// creator lost access to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_guild: Option<FollowSource>,
    /// A channel follower's: the followed announcement channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_channel: Option<FollowSource>,
}

/// The guild or channel a channel follower webhook copies from (`{id, name}`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct FollowSource {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// Webhook type 2: made by following an announcement channel (§6).
pub const WEBHOOK_CHANNEL_FOLLOWER: u8 = 2;

impl Webhook {
    /// The announcement channel this webhook follows, for a channel follower.
    pub fn followed_channel(&self) -> Option<&str> {
        (self.kind == WEBHOOK_CHANNEL_FOLLOWER)
            .then_some(self.source_channel.as_ref())
            .flatten()
            .map(|c| c.id.as_str())
    }

    /// A follower as people know it: "Rust Blog #announcements" (Discord names the webhook
    /// so), else the followed channel's id.
    pub fn follow_label(&self) -> String {
        match (&self.name, self.followed_channel()) {
            (Some(name), _) if !name.is_empty() => name.clone(),
            (_, Some(id)) => format!("channel {id}"),
            _ => format!("webhook {}", self.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn welcome(v: serde_json::Value) -> Result<WelcomeScreen, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn nullable_fields_must_be_present_and_lists_required() {
        assert_eq!(
            welcome(json!({"description": null, "welcome_channels": []})),
            Ok(WelcomeScreen::default())
        );
        let missing = welcome(json!({"welcome_channels": []})).unwrap_err();
        assert!(missing.contains("missing field `description`"), "{missing}");
        let no_list = welcome(json!({"description": "hi"})).unwrap_err();
        assert!(
            no_list.contains("missing field `welcome_channels`"),
            "{no_list}"
        );
        // Fields Discord adds are ignored.
        assert!(welcome(json!({"description": null, "welcome_channels": [], "new": 1})).is_ok());
    }
}
