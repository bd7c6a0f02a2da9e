//! `webhooks:`: incoming webhooks (their tokens are secrets, never in a manifest).

use super::*;

/// An incoming webhook.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Webhook {
    /// Pin this entry to a webhook id. Matching is by id, then name, then `previous_names`.
    pub id: Option<Snowflake>,
    /// The webhook's name, 1-80 characters, never containing "clyde" or "discord".
    #[schemars(extend("examples" = ["CI", "Releases"]))]
    pub name: String,
    /// Names this webhook had before: renamed in place (its URL keeps working).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The text, announcement, forum or media channel it posts to, by name, as
    /// `Category/name` or by id. Changing it moves the webhook (its URL keeps working).
    #[schemars(extend("examples" = ["announcements", "Dev/ci"]))]
    pub channel: String,
    /// An image file for its avatar: PNG, JPEG or GIF, at most 8 MiB, by its path relative to
    /// the manifest's folder and inside it (`assets/ci.png`); `null` removes the avatar. A webhook
    /// that already has an avatar keeps it until this changes to `null` and back (the guild's
    /// and roles' images are compared by content instead).
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["assets/ci.png"]))]
    pub avatar: Option<Option<String>>,
    /// Never delete this webhook (its URL would stop working), whatever `prune` says: nor any
    /// other incoming webhook this entry names (by `id`, `name` or `previous_names`). A plan
    /// that deletes the channel it is in is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
}
