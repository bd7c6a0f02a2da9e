//! Scheduled events as read live: one GET of `/guilds/{g}/scheduled-events`, made only for
//! a manifest that declares `events:` (or prunes them).

use serde::{Deserialize, Serialize};

use super::optional;
use crate::discord::{Client, ClientError};
use crate::manifest::{Frequency, Manifest, NthWeekday, Recurrence, Weekday};

/// A scheduled event as the API returns it (exceptions to recurring events left out: their
/// API is undocumented, and guildctl leaves them alone).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ScheduledEvent {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub channel_id: Option<String>,
    #[serde(default)]
    pub creator_id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub scheduled_start_time: String,
    #[serde(default)]
    pub scheduled_end_time: Option<String>,
    #[serde(default)]
    pub privacy_level: u8,
    /// 1 scheduled, 2 active, 3 completed, 4 canceled.
    #[serde(default)]
    pub status: u8,
    /// 1 stage, 2 voice, 3 external.
    pub entity_type: u8,
    #[serde(default)]
    pub entity_metadata: Option<EntityMetadata>,
    /// The cover image's hash.
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub recurrence_rule: Option<RecurrenceRule>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EntityMetadata {
    #[serde(default)]
    pub location: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RecurrenceRule {
    pub start: String,
    #[serde(default)]
    pub end: Option<String>,
    pub frequency: u8,
    #[serde(default = "one")]
    pub interval: u32,
    #[serde(default)]
    pub by_weekday: Option<Vec<u8>>,
    #[serde(default)]
    pub by_n_weekday: Option<Vec<NWeekday>>,
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

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct NWeekday {
    pub n: u8,
    pub day: u8,
}

impl ScheduledEvent {
    /// Its cover image on the CDN, when it has one.
    pub fn live_image(&self) -> Option<crate::discord::cdn::LiveImage<'_>> {
        let hash = self.image.as_deref()?;
        // A hash is hex, `a_` first when animated: anything else would be a path on the CDN.
        let plain =
            !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        plain.then_some(crate::discord::cdn::LiveImage {
            kind: "guild-events",
            id: &self.id,
            hash,
        })
    }
}

/// Whether `m` asks about scheduled events.
pub fn wanted(m: &Manifest) -> bool {
    m.events.is_some() || m.prune.events
}

/// The guild's events the bot can see; `None` when Discord refuses the listing.
pub async fn read(
    client: &Client,
    guild_id: &str,
) -> Result<Option<Vec<ScheduledEvent>>, ClientError> {
    optional(client.get(&format!("/guilds/{guild_id}/scheduled-events"))).await
}

/// A live rule as the manifest writes it.
pub fn recurrence_as_written(r: &RecurrenceRule) -> Recurrence {
    Recurrence {
        frequency: Frequency::from_value(r.frequency.into()).unwrap_or_default(),
        interval: (r.interval != 1).then_some(r.interval),
        weekdays: r
            .by_weekday
            .iter()
            .flatten()
            .filter_map(|d| Weekday::from_value((*d).into()))
            .collect(),
        nth_weekday: r
            .by_n_weekday
            .as_ref()
            .and_then(|l| l.first())
            .and_then(|n| {
                Some(NthWeekday {
                    n: n.n,
                    day: Weekday::from_value(n.day.into())?,
                })
            }),
        month: r.by_month.as_ref().and_then(|m| m.first().copied()),
        month_day: r.by_month_day.as_ref().and_then(|d| d.first().copied()),
    }
}
