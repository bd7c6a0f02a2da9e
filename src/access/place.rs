//! A channel as `guildctl access` names it in every view: its path, live id, kind, and
//! whether it sits in a category.

use serde::Serialize;
use serde_with::skip_serializing_none;

use super::model::Guild;
use crate::discord::models::channel_type;

/// A channel as a row of the matrix or a preview names it (its fields stand in the row's
/// JSON).
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    /// As plans name it: `Staff/#mod-log`.
    pub channel: String,
    /// The live id (none for a channel the plan creates).
    pub id: Option<String>,
    /// Discord's channel type, by name (`text`, `voice`, `category`, ...).
    pub kind: &'static str,
    /// Nested under a category (for the tree).
    pub in_category: bool,
}

impl Place {
    /// Channel `i` of `g`.
    pub fn of(g: &Guild, i: usize) -> Place {
        let c = &g.channels[i];
        Place {
            channel: g.path(i),
            id: live_id(&c.id),
            kind: kind_name(c.kind),
            in_category: c.parent.is_some(),
        }
    }
}

/// Discord's channel type, by name.
pub fn kind_name(kind: u8) -> &'static str {
    match kind {
        channel_type::TEXT => "text",
        channel_type::VOICE => "voice",
        channel_type::CATEGORY => "category",
        channel_type::ANNOUNCEMENT => "announcement",
        channel_type::STAGE => "stage",
        channel_type::FORUM => "forum",
        channel_type::MEDIA => "media",
        _ => "other",
    }
}

/// A live id (digits); none for an object the plan creates (its key).
fn live_id(id: &str) -> Option<String> {
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_owned())
}
