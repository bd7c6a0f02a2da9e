//! AutoMod rules as read live: one GET of `/guilds/{g}/auto-moderation/rules`, made only
//! for a manifest that declares `automod:` (or prunes it).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::optional;
use crate::discord::{Client, ClientError};
use crate::manifest::{AutoModPreset, AutoModTrigger, AutoModTriggerType, Manifest};

/// An AutoMod rule as the API returns it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct AutoModRule {
    pub id: String,
    pub name: String,
    /// Who made it: a member, a bot, or Discord's system user for the rule Discord makes.
    #[serde(default)]
    pub creator_id: String,
    pub event_type: u8,
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

#[skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TriggerMetadata {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyword_filter: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regex_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_list: Vec<String>,
    pub mention_total_limit: Option<u32>,
    pub mention_raid_protection_enabled: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct AutoModAction {
    /// 1 block message, 2 send alert, 3 timeout, 4 block member interaction.
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(default)]
    pub metadata: ActionMetadata,
}

#[skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ActionMetadata {
    pub channel_id: Option<String>,
    pub duration_seconds: Option<u32>,
    pub custom_message: Option<String>,
}

/// Whether `m` asks about AutoMod rules.
pub fn wanted(m: &Manifest) -> bool {
    m.automod.is_some() || m.prune.automod
}

/// The guild's rules; `None` when the bot may not read them (403: it lacks `manage_guild`).
pub async fn read(
    client: &Client,
    guild_id: &str,
) -> Result<Option<Vec<AutoModRule>>, ClientError> {
    optional(client.get(&format!("/guilds/{guild_id}/auto-moderation/rules"))).await
}

/// A trigger as the manifest writes it, for display and export.
pub fn trigger_as_written(trigger_type: u8, m: &TriggerMetadata) -> AutoModTrigger {
    let some = |l: &Vec<String>| (!l.is_empty()).then(|| l.clone());
    match AutoModTriggerType::from_value(trigger_type.into()) {
        Some(AutoModTriggerType::Keyword | AutoModTriggerType::MemberProfile) => {
            // A keyword rule with no words yet still says its kind.
            let bare =
                trigger_type == 1 && m.keyword_filter.is_empty() && m.regex_patterns.is_empty();
            AutoModTrigger {
                keywords: if bare {
                    Some(Vec::new())
                } else {
                    some(&m.keyword_filter)
                },
                regex: some(&m.regex_patterns),
                allow: some(&m.allow_list),
                member_profile: trigger_type == 6,
                ..Default::default()
            }
        }
        Some(AutoModTriggerType::Preset) => AutoModTrigger {
            preset: Some(
                m.presets
                    .iter()
                    .filter_map(|p| AutoModPreset::from_value((*p).into()))
                    .collect(),
            ),
            allow: some(&m.allow_list),
            ..Default::default()
        },
        Some(AutoModTriggerType::MentionSpam) => AutoModTrigger {
            mention_limit: m.mention_total_limit,
            raid_protection: m.mention_raid_protection_enabled,
            ..Default::default()
        },
        _ => AutoModTrigger {
            spam: true,
            ..Default::default()
        },
    }
}
