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
    /// A text channel.
    pub const TEXT: u8 = 0;
    /// A voice channel.
    pub const VOICE: u8 = 2;
    /// A category.
    pub const CATEGORY: u8 = 4;
    /// An announcement channel, which others can follow.
    pub const ANNOUNCEMENT: u8 = 5;
    /// A stage channel.
    pub const STAGE: u8 = 13;
    /// A forum channel.
    pub const FORUM: u8 = 15;
    /// A media channel.
    pub const MEDIA: u8 = 16;
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// A Discord user, as an answer names one.
pub struct User {
    /// The user's id.
    pub id: String,
    /// The username.
    pub username: String,
    #[serde(default)]
    /// Whether the user is a bot.
    pub bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// A guild member: the user and the ids of their roles.
pub struct Member {
    #[serde(default)]
    /// The member's user (absent in some answers).
    pub user: Option<User>,
    /// The ids of the member's roles.
    pub roles: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// `GET /guilds/{id}`: the guild's settings and roles (docs/discord.md §5.1).
pub struct Guild {
    /// The guild's id.
    pub id: String,
    /// The guild's name.
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    /// The description (a community guild's).
    pub description: Option<String>,
    /// The owner's user id.
    pub owner_id: String,
    /// The verification level (0–4).
    pub verification_level: u64,
    /// The default notification level (0 all messages, 1 mentions only).
    pub default_message_notifications: u64,
    /// The explicit content filter (0–2).
    pub explicit_content_filter: u64,
    #[serde(deserialize_with = "nullable")]
    /// The AFK voice channel.
    pub afk_channel_id: Option<String>,
    /// The AFK timeout in seconds (one of [`crate::limits::AFK_TIMEOUTS`]).
    pub afk_timeout: u64,
    #[serde(deserialize_with = "nullable")]
    /// Where system messages go.
    pub system_channel_id: Option<String>,
    /// Which system messages are suppressed (bit flags).
    pub system_channel_flags: u64,
    #[serde(deserialize_with = "nullable")]
    /// A community guild's rules channel.
    pub rules_channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// A community guild's channel for Discord's notices to moderators.
    pub public_updates_channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// A community guild's safety alerts channel.
    pub safety_alerts_channel_id: Option<String>,
    /// The preferred locale (docs/discord.md §9.4).
    pub preferred_locale: String,
    /// Whether the boost progress bar shows.
    pub premium_progress_bar_enabled: bool,
    /// Image hashes (`a_` first when animated); the image itself is on the CDN.
    #[serde(deserialize_with = "nullable")]
    pub icon: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// The banner's image hash.
    pub banner: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// The invite splash's image hash.
    pub splash: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// The discovery splash's image hash.
    pub discovery_splash: Option<String>,
    /// The boost level (0–3): what it unlocks (bitrates, expression slots).
    pub premium_tier: u64,
    /// The guild's features (`COMMUNITY`, `WELCOME_SCREEN_ENABLED`, …).
    pub features: Vec<String>,
    /// Every role, @everyone (the guild's id) included.
    pub roles: Vec<Role>,
    // Discord's own documentation marks the widget fields optional; absent reads as off.
    #[serde(default)]
    /// Whether the widget is on (docs/discord.md §5.5).
    pub widget_enabled: bool,
    #[serde(default)]
    /// The channel the widget's invite leads to (docs/discord.md §5.5).
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

    /// Whether the guild has a feature (`COMMUNITY`, …).
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
    /// The role's id (@everyone's is the guild's).
    pub id: String,
    /// The role's name.
    pub name: String,
    /// The permissions the role grants (docs/discord.md §3.5).
    pub permissions: Permissions,
    /// The role's place in the hierarchy (docs/discord.md §3.3).
    pub position: i64,
    /// Primary, secondary and tertiary colour: the Role object's `colors`, or its `color`
    /// where a server sends no `colors` (older servers).
    pub colors: RoleColors,
    /// Whether members show apart in the member list.
    pub hoist: bool,
    /// Managed by an integration (a bot's own role): not guildctl's to change.
    pub managed: bool,
    /// Whether anyone can mention the role.
    pub mentionable: bool,
    /// The role's Unicode emoji icon.
    pub unicode_emoji: Option<String>,
    /// The role icon's image hash.
    pub icon: Option<String>,
    /// The role's tags (bot, integration, premium subscriber), as sent.
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
    /// The primary colour (24-bit RGB; 0 for none).
    pub primary_color: u32,
    #[serde(default)]
    /// The gradient's second colour.
    pub secondary_color: Option<u32>,
    #[serde(default)]
    /// The holographic style's third colour.
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
/// A guild channel or category (docs/discord.md §4).
pub struct Channel {
    /// The channel's id.
    pub id: String,
    #[serde(rename = "type")]
    /// The channel type ([`channel_type`], docs/discord.md §4.1).
    pub kind: u8,
    /// The channel's name, as Discord stored it (docs/discord.md §9.2).
    pub name: String,
    /// The channel's position among its siblings (docs/discord.md §4.3).
    pub position: i64,
    #[serde(default)]
    /// The category it is in.
    pub parent_id: Option<String>,
    #[serde(default)]
    /// The topic (a forum's guidelines).
    pub topic: Option<String>,
    #[serde(default)]
    /// Whether it is age-restricted.
    pub nsfw: Option<bool>,
    #[serde(default)]
    /// Slowmode, in seconds.
    pub rate_limit_per_user: Option<u32>,
    #[serde(default)]
    /// A voice or stage channel's bitrate.
    pub bitrate: Option<u32>,
    #[serde(default)]
    /// A voice or stage channel's user limit.
    pub user_limit: Option<u32>,
    #[serde(default)]
    /// A voice channel's region (`None`: automatic).
    pub rtc_region: Option<String>,
    #[serde(default)]
    /// A voice channel's video quality (1 auto, 2 full).
    pub video_quality_mode: Option<u64>,
    #[serde(default)]
    /// The default auto-archive duration of new threads, in minutes.
    pub default_auto_archive_duration: Option<u32>,
    #[serde(default)]
    /// The default slowmode of new threads, in seconds.
    pub default_thread_rate_limit_per_user: Option<u32>,
    /// Channel flags; guildctl manages the bits a manifest names ([`REQUIRE_TAG`],
    /// [`IS_SPOILER_CHANNEL`], [`HIDE_MEDIA_DOWNLOAD_OPTIONS`]) and keeps the rest.
    pub flags: u64,
    /// Forum and media channels only, like the next three (docs/discord.md §9.5).
    #[serde(default)]
    pub available_tags: Option<Vec<ForumTag>>,
    #[serde(default)]
    /// A forum or media channel's reaction button.
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
    /// The tag's id.
    pub id: String,
    /// The tag's name.
    pub name: String,
    /// Whether only moderators can apply it.
    pub moderated: bool,
    #[serde(deserialize_with = "nullable")]
    /// Its custom emoji.
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// Its Unicode emoji.
    pub emoji_name: Option<String>,
}

/// The emoji of a forum or media channel's reaction button.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct DefaultReaction {
    #[serde(deserialize_with = "nullable")]
    /// A custom emoji.
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// A Unicode emoji.
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
/// An overwrite for a member.
pub const OVERWRITE_MEMBER: u8 = 1;

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// A permission overwrite of a channel: allow and deny for a role or member (docs/discord.md §4.4).
pub struct Overwrite {
    /// The role or member it is for.
    pub id: String,
    #[serde(rename = "type")]
    /// [`OVERWRITE_ROLE`] or [`OVERWRITE_MEMBER`].
    pub kind: u8,
    /// The permissions allowed.
    pub allow: Permissions,
    /// The permissions denied.
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
    /// Discord's error code (docs/discord.md §2.3).
    pub code: i64,
    /// Discord's message.
    pub message: String,
    /// The nested tree of field errors, as sent.
    pub errors: Option<serde_json::Value>,
    /// A 429's wait, in seconds (docs/discord.md §1.3).
    pub retry_after: Option<f64>,
    /// Whether a 429 is the global limit.
    pub global: Option<bool>,
}

/// `GET /guilds/{id}/welcome-screen`. Whether it is shown is the guild feature
/// WELCOME_SCREEN_ENABLED, not a field (docs/discord.md §5.3).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct WelcomeScreen {
    #[serde(deserialize_with = "nullable")]
    /// The screen's description.
    pub description: Option<String>,
    /// The channels it lists.
    pub welcome_channels: Vec<WelcomeChannel>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// A channel a welcome screen lists (docs/discord.md §5.3).
pub struct WelcomeChannel {
    /// The channel.
    pub channel_id: String,
    /// What the screen says of it.
    pub description: String,
    #[serde(deserialize_with = "nullable")]
    /// Its custom emoji.
    pub emoji_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// Its Unicode emoji.
    pub emoji_name: Option<String>,
}

/// `GET /guilds/{id}/onboarding`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Onboarding {
    /// The prompts.
    pub prompts: Vec<Prompt>,
    /// The channels every new member sees.
    pub default_channel_ids: Vec<String>,
    /// Whether onboarding is on.
    pub enabled: bool,
    /// The mode (0 default channels only, 1 with advanced).
    pub mode: u64,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// An onboarding prompt (docs/discord.md §5.4).
pub struct Prompt {
    /// The prompt's id.
    pub id: String,
    #[serde(rename = "type")]
    /// The prompt type (0 multiple choice, 1 dropdown).
    pub kind: u64,
    /// The question asked.
    pub title: String,
    /// The answers offered.
    pub options: Vec<PromptOption>,
    /// Whether only one answer may be picked.
    pub single_select: bool,
    /// Whether an answer is required.
    pub required: bool,
    /// Whether it is asked while joining (else only in Channels & Roles).
    pub in_onboarding: bool,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
/// An option of an onboarding prompt: the channels it opens and the roles it gives.
pub struct PromptOption {
    /// The option's id.
    pub id: String,
    /// The option's title.
    pub title: String,
    #[serde(deserialize_with = "nullable")]
    /// The option's description.
    pub description: Option<String>,
    /// The channels it opens.
    pub channel_ids: Vec<String>,
    /// The roles it gives.
    pub role_ids: Vec<String>,
    /// Responses carry the emoji nested; requests send it flat.
    #[serde(default)]
    pub emoji: Option<Emoji>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
/// An emoji as a reference to one: custom (`id`) or Unicode (`name`).
pub struct Emoji {
    /// A custom emoji's id.
    pub id: Option<String>,
    /// The name, or the Unicode emoji itself.
    pub name: Option<String>,
    /// Whether a custom emoji is animated.
    pub animated: Option<bool>,
}

/// A custom emoji of the guild, as List Guild Emojis gives it. `user` (its creator) is shown
/// to a caller with an expression permission.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct GuildEmoji {
    /// The emoji's id.
    pub id: String,
    #[serde(default)]
    /// The emoji's name.
    pub name: Option<String>,
    /// Roles allowed to use it; empty, everyone.
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Who uploaded it.
    pub user: Option<User>,
    #[serde(default)]
    /// Whether it is animated (its own slots: docs/discord.md §10.2).
    pub animated: bool,
    /// Managed by an integration (Twitch subscriber emoji): not guildctl's to change.
    #[serde(default)]
    pub managed: bool,
}

/// A soundboard sound of the guild, as List Guild Soundboard Sounds gives it (its `items`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct SoundboardSound {
    /// The sound's id.
    pub sound_id: String,
    #[serde(default)]
    /// The sound's name.
    pub name: String,
    #[serde(default = "full_volume")]
    /// Its volume, 0 to 1.
    pub volume: f64,
    #[serde(default)]
    /// Its custom emoji.
    pub emoji_id: Option<String>,
    #[serde(default)]
    /// Its Unicode emoji.
    pub emoji_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Who uploaded it.
    pub user: Option<User>,
}

fn full_volume() -> f64 {
    1.0
}

/// List Guild Soundboard Sounds' answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SoundboardSounds {
    /// The guild's sounds.
    pub items: Vec<SoundboardSound>,
}

/// A guild sticker, as List Guild Stickers gives it. `user` (its creator) is shown to a
/// caller with an expression permission.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct GuildSticker {
    /// The sticker's id.
    pub id: String,
    #[serde(default)]
    /// The sticker's name.
    pub name: String,
    #[serde(default)]
    /// The sticker's description.
    pub description: Option<String>,
    /// Autocomplete tags (by convention an emoji's name).
    #[serde(default)]
    pub tags: String,
    /// 1 PNG, 2 APNG, 3 Lottie, 4 GIF.
    #[serde(default = "png_sticker")]
    pub format_type: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Who uploaded it.
    pub user: Option<User>,
}

fn png_sticker() -> u8 {
    STICKER_PNG
}

/// Sticker format types (resources/sticker, "Sticker Format Types"); the CDN names a
/// sticker's file by them.
pub const STICKER_PNG: u8 = 1;
/// Sticker format type 2: APNG.
pub const STICKER_APNG: u8 = 2;
/// Sticker format type 3: Lottie JSON.
pub const STICKER_LOTTIE: u8 = 3;
/// Sticker format type 4: GIF.
pub const STICKER_GIF: u8 = 4;

/// Webhook types (docs/discord.md §6).
pub const WEBHOOK_INCOMING: u8 = 1;

/// A webhook as guildctl reads it. There is deliberately no `token` field: the
/// token is a secret and is dropped as the response is read.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct Webhook {
    /// The webhook's id.
    pub id: String,
    #[serde(rename = "type")]
    /// The webhook type (docs/discord.md §6).
    pub kind: u8,
    #[serde(deserialize_with = "nullable")]
    /// The channel it posts in.
    pub channel_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// Its default name.
    pub name: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// Its default avatar's image hash.
    pub avatar: Option<String>,
    #[serde(deserialize_with = "nullable")]
    /// The application that made it (`None`: made by hand).
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
    /// The guild's or channel's id.
    pub id: String,
    #[serde(default)]
    /// Its name.
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
