//! The five expression-like objects of a guild as the emulator keeps them: custom emoji,
//! stickers, soundboard sounds, AutoMod rules and scheduled events.

use serde::{Deserialize, Serialize};

/// A custom emoji. The image is kept as uploaded (a data URI) so the CDN serves its exact
/// bytes; a state without it (a rehearsal copy) serves none.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Emoji {
    pub id: String,
    pub name: String,
    /// Roles allowed to use it; empty = everyone.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The creator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(default = "super::yes")]
    pub require_colons: bool,
    #[serde(default)]
    pub managed: bool,
    #[serde(default)]
    pub animated: bool,
    #[serde(default = "super::yes")]
    pub available: bool,
    /// The image as uploaded: `data:image/png;base64,…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// A guild sticker (type 2). The file is kept (base64) so the CDN serves its exact bytes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sticker {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Autocomplete tags (by convention the name of a related emoji).
    #[serde(default)]
    pub tags: String,
    /// 1 PNG, 2 APNG, 3 LOTTIE, 4 GIF.
    #[serde(default = "png_format")]
    pub format_type: u8,
    #[serde(default = "super::yes")]
    pub available: bool,
    /// The creator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// The uploaded file, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

fn png_format() -> u8 {
    1
}

/// A soundboard sound. The sound is kept as uploaded (a data URI) for the CDN.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sound {
    pub sound_id: String,
    pub name: String,
    /// 0 to 1.
    #[serde(default = "full_volume")]
    pub volume: f64,
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
    #[serde(default = "super::yes")]
    pub available: bool,
    /// The creator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// The sound as uploaded: `data:audio/ogg;base64,…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sound: Option<String>,
}

fn full_volume() -> f64 {
    1.0
}

/// An AutoMod rule, in the shape the API returns it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AutoModRule {
    pub id: String,
    pub name: String,
    /// Who made it: a member, or Discord's system user for the rule Discord makes.
    pub creator_id: String,
    /// 1 MESSAGE_SEND, 2 MEMBER_UPDATE.
    pub event_type: u8,
    /// 1 KEYWORD, 3 SPAM, 4 KEYWORD_PRESET, 5 MENTION_SPAM, 6 MEMBER_PROFILE.
    pub trigger_type: u8,
    #[serde(default)]
    pub trigger_metadata: TriggerMetadata,
    #[serde(default)]
    pub actions: Vec<AutoModAction>,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub exempt_roles: Vec<String>,
    #[serde(default)]
    pub exempt_channels: Vec<String>,
}

/// What a rule matches; which fields count depends on the trigger type.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TriggerMetadata {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyword_filter: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regex_patterns: Vec<String>,
    /// 1 PROFANITY, 2 SEXUAL_CONTENT, 3 SLURS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_list: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mention_total_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mention_raid_protection_enabled: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AutoModAction {
    /// 1 BLOCK_MESSAGE, 2 SEND_ALERT_MESSAGE, 3 TIMEOUT, 4 BLOCK_MEMBER_INTERACTION.
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(default)]
    pub metadata: ActionMetadata,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ActionMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_message: Option<String>,
}

/// A scheduled event, in the shape the API returns it (without the creator's user object).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScheduledEvent {
    pub id: String,
    /// The stage or voice channel; `None` for external events.
    #[serde(default)]
    pub channel_id: Option<String>,
    #[serde(default)]
    pub creator_id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// ISO 8601.
    pub scheduled_start_time: String,
    #[serde(default)]
    pub scheduled_end_time: Option<String>,
    /// 2 GUILD_ONLY.
    #[serde(default = "guild_only")]
    pub privacy_level: u8,
    /// 1 SCHEDULED, 2 ACTIVE, 3 COMPLETED, 4 CANCELED.
    #[serde(default = "scheduled")]
    pub status: u8,
    /// 1 STAGE_INSTANCE, 2 VOICE, 3 EXTERNAL.
    pub entity_type: u8,
    #[serde(default)]
    pub entity_id: Option<String>,
    /// External events: `{location}`.
    #[serde(default)]
    pub entity_metadata: Option<EntityMetadata>,
    /// Cover image hash (the data is in the guild's `images`).
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub recurrence_rule: Option<RecurrenceRule>,
    /// Users interested in it.
    #[serde(default)]
    pub user_count: u32,
}

fn guild_only() -> u8 {
    2
}
fn scheduled() -> u8 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EntityMetadata {
    pub location: String,
}

/// How an event recurs (a subset of iCalendar's RRULE).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecurrenceRule {
    /// ISO 8601.
    pub start: String,
    /// Never settable by apps; kept for states written from a real guild.
    #[serde(default)]
    pub end: Option<String>,
    /// 0 YEARLY, 1 MONTHLY, 2 WEEKLY, 3 DAILY.
    pub frequency: u8,
    #[serde(default = "one")]
    pub interval: u32,
    /// 0 Monday … 6 Sunday.
    #[serde(default)]
    pub by_weekday: Option<Vec<u8>>,
    #[serde(default)]
    pub by_n_weekday: Option<Vec<NWeekday>>,
    /// 1 January … 12 December.
    #[serde(default)]
    pub by_month: Option<Vec<u8>>,
    #[serde(default)]
    pub by_month_day: Option<Vec<u8>>,
    #[serde(default)]
    pub by_year_day: Option<Vec<u16>>,
    #[serde(default)]
    pub count: Option<u32>,
}

fn one() -> u32 {
    1
}

/// The `n`th (1–5) `day` of a month.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NWeekday {
    pub n: u8,
    pub day: u8,
}
