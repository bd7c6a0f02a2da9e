//! The template as Discord sends it (`GET /guilds/templates/{code}`): only the fields the
//! import reads, every one optional but the guild; ids and permission bits as integers or
//! strings of digits.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::permissions::Permissions;

/// `GET /guilds/templates/{code}`. Only `serialized_source_guild` is required; the rest
/// names the template in the manifest's header.
#[derive(Debug, Deserialize)]
pub struct Template {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub source_guild_id: Option<Id>,
    pub serialized_source_guild: SourceGuild,
}

/// The guild a template holds.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SourceGuild {
    pub name: Option<String>,
    pub description: Option<String>,
    pub region: Option<String>,
    pub verification_level: Option<i64>,
    pub default_message_notifications: Option<i64>,
    pub explicit_content_filter: Option<i64>,
    pub preferred_locale: Option<String>,
    pub afk_channel_id: Option<Id>,
    pub afk_timeout: Option<i64>,
    pub system_channel_id: Option<Id>,
    pub system_channel_flags: Option<i64>,
    pub icon_hash: Option<String>,
    pub roles: Option<Vec<TemplateRole>>,
    pub channels: Option<Vec<TemplateChannel>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateRole {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub permissions: Option<Bits>,
    pub color: Option<i64>,
    pub colors: Option<RoleColors>,
    pub hoist: Option<bool>,
    pub mentionable: Option<bool>,
    pub icon: Option<String>,
    pub unicode_emoji: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RoleColors {
    pub primary_color: Option<i64>,
    pub secondary_color: Option<i64>,
    pub tertiary_color: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateChannel {
    pub id: Option<Id>,
    #[serde(rename = "type")]
    pub kind: Option<i64>,
    pub name: Option<String>,
    pub position: Option<i64>,
    pub topic: Option<String>,
    pub bitrate: Option<i64>,
    pub user_limit: Option<i64>,
    pub nsfw: Option<bool>,
    pub rate_limit_per_user: Option<i64>,
    pub parent_id: Option<Id>,
    pub default_auto_archive_duration: Option<i64>,
    pub permission_overwrites: Option<Vec<TemplateOverwrite>>,
    pub available_tags: Option<Vec<TemplateTag>>,
    pub template: Option<String>,
    pub default_reaction_emoji: Option<ReactionEmoji>,
    pub default_thread_rate_limit_per_user: Option<i64>,
    pub default_sort_order: Option<i64>,
    pub default_forum_layout: Option<i64>,
    pub default_tag_setting: Option<String>,
    pub theme_color: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub struct TemplateOverwrite {
    pub id: Id,
    /// 0 a role, 1 a member.
    #[serde(rename = "type", default)]
    pub kind: Option<i64>,
    #[serde(default)]
    pub allow: Option<Bits>,
    #[serde(default)]
    pub deny: Option<Bits>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateTag {
    pub name: Option<String>,
    pub emoji_id: Option<Id>,
    pub emoji_name: Option<String>,
    pub moderated: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ReactionEmoji {
    pub emoji_id: Option<Id>,
    pub emoji_name: Option<String>,
}

/// A template-local id or a snowflake: an integer, or a string of digits (Discord writes
/// template-local ids as integers where its schema says snowflake strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub u64);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(U64Visitor("an id (an integer or a string of digits)"))
            .map(Id)
    }
}

/// A permission bit set: a string of digits, as Discord sends it, or an integer, as older
/// templates have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits(pub Permissions);

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(U64Visitor(
            "a permission bit set (a string of digits, at most 2^64 - 1)",
        ))
        .map(|n| Bits(Permissions(n)))
    }
}

struct U64Visitor(&'static str);

impl Visitor<'_> for U64Visitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(E::invalid_value(de::Unexpected::Str(v), &self));
        }
        v.parse()
            .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_bits_are_integers_or_strings_of_digits() {
        let t: TemplateOverwrite =
            serde_json::from_str(r#"{"id": "7", "type": 0, "allow": 1024, "deny": "2048"}"#)
                .unwrap();
        assert_eq!(t.id, Id(7));
        assert_eq!(t.allow, Some(Bits(Permissions(1024))));
        assert_eq!(t.deny, Some(Bits(Permissions(2048))));
        for bad in [r#"{"id": -1}"#, r#"{"id": "x"}"#, r#"{"id": 1.5}"#] {
            assert!(
                serde_json::from_str::<TemplateOverwrite>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
