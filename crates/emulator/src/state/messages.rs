//! What is posted into a guild's channels: threads, webhooks and the messages webhooks
//! posted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A thread of a text, announcement, forum or media channel.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Thread {
    pub id: String,
    /// 10 announcement thread, 11 public, 12 private.
    #[serde(rename = "type", default = "public_thread")]
    pub kind: u8,
    pub parent_id: String,
    pub name: String,
    /// Who made it (a webhook's id for a post a webhook started).
    pub owner_id: String,
    #[serde(default)]
    pub archived: bool,
    #[serde(default)]
    pub locked: bool,
    /// Minutes without activity before it archives: 60, 1440, 4320 or 10080.
    #[serde(default = "day_minutes")]
    pub auto_archive_duration: u32,
    /// When it was last archived or unarchived (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_timestamp: Option<String>,
    /// Tags of its forum or media channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_tags: Vec<String>,
    #[serde(default)]
    pub flags: u64,
    #[serde(default)]
    pub rate_limit_per_user: u32,
    /// Users who joined it (thread members).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub member_ids: Vec<String>,
    /// Messages ever sent in it (messages the emulator does not keep included).
    #[serde(default)]
    pub total_message_sent: u32,
}

fn public_thread() -> u8 {
    11
}
fn day_minutes() -> u32 {
    1440
}

/// A message a webhook posted.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Message {
    pub id: String,
    /// The channel or thread it is in.
    pub channel_id: String,
    pub webhook_id: String,
    /// The name and avatar it was posted under (the webhook's, or the overrides sent).
    pub username: String,
    #[serde(default)]
    pub avatar: Option<String>,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub embeds: Vec<Value>,
    #[serde(default)]
    pub components: Vec<Value>,
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll: Option<Value>,
    #[serde(default)]
    pub flags: u64,
    #[serde(default)]
    pub tts: bool,
    /// Users, roles and @everyone the message mentions, as allowed_mentions let it.
    #[serde(default)]
    pub mentions: Vec<String>,
    #[serde(default)]
    pub mention_roles: Vec<String>,
    #[serde(default)]
    pub mention_everyone: bool,
    /// ISO 8601.
    pub timestamp: String,
    #[serde(default)]
    pub edited_timestamp: Option<String>,
    /// The application of an application-owned webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application_id: Option<String>,
}

/// A file of a message: its description; the bytes are not kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Attachment {
    pub id: String,
    pub filename: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Webhook {
    pub id: String,
    /// 1 incoming, 2 channel follower, 3 application (§6).
    #[serde(rename = "type", default = "incoming")]
    pub kind: u8,
    #[serde(default)]
    pub channel_id: Option<String>,
    pub name: String,
    /// Image hash.
    #[serde(default)]
    pub avatar: Option<String>,
    /// Secret; shown only to the application that created the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default)]
    pub application_id: Option<String>,
    /// The creator.
    #[serde(default)]
    pub user_id: Option<String>,
    /// Channel follower webhooks: `{id, name, icon}` of the followed guild.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_guild: Option<Value>,
    /// Channel follower webhooks: `{id, name}` of the followed channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_channel: Option<Value>,
}

fn incoming() -> u8 {
    1
}
