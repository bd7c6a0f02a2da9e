//! `events:`: scheduled events by name (Discord's resources/guild-scheduled-event).

use super::*;

/// A scheduled event, in a voice or stage channel (`channel`) or elsewhere (`location`,
/// with an `end`). Only future and recurring events are managed: a one-off event whose time
/// has passed is not created again (docs/manifest.md, "Scheduled events").
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScheduledEvent {
    /// Pin this entry to an event id.
    pub id: Option<Snowflake>,
    /// The event's name, 1-100 characters.
    #[schemars(extend("examples" = ["Office hours"]))]
    pub name: String,
    /// Names this event had before: renamed in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The voice or stage channel it takes place in, by name, `Category/name` or id.
    pub channel: Option<String>,
    /// Where it takes place otherwise (1-100 characters): an external event, which needs `end`.
    pub location: Option<String>,
    /// When it starts, RFC 3339 (`2027-01-06T18:00:00Z`). For a recurring event, the first
    /// occurrence.
    #[schemars(extend("examples" = ["2027-01-06T18:00:00Z"]))]
    pub start: String,
    /// When it ends, RFC 3339, after `start`. Required with `location`.
    pub end: Option<String>,
    /// What it is about, at most 1000 characters.
    pub description: Option<String>,
    /// A cover image file: PNG, JPEG or GIF, at most 8 MiB, by its path relative to the
    /// manifest's folder; compared by content with the live cover. Left out: not managed.
    pub image: Option<String>,
    /// How it repeats, as Discord's recurrence rule allows (docs/manifest.md).
    pub recurrence: Option<Recurrence>,
}

/// Discord's recurrence rule, within what Discord lets applications set: daily on one of a
/// few sets of weekdays (or every day), weekly (every week or every other week) on one
/// weekday, monthly on the nth weekday, yearly on one date.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Recurrence {
    /// How often it repeats: `daily`, `weekly`, `monthly` or `yearly`.
    pub frequency: Frequency,
    /// 1 (the default), or 2 for every other week (weekly rules only).
    pub interval: Option<u32>,
    /// Daily: one of Monday-Friday, Tuesday-Saturday, Sunday-Thursday, Friday-Saturday,
    /// Saturday-Sunday, Sunday-Monday. Weekly: one day.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub weekdays: Vec<Weekday>,
    /// Monthly: the nth weekday of the month (`{ n: 1, day: monday }`).
    pub nth_weekday: Option<NthWeekday>,
    /// Yearly: the month (1-12), with `month_day`.
    pub month: Option<u8>,
    /// Yearly: the day of the month (1-31), with `month`.
    pub month_day: Option<u8>,
}

/// The nth weekday of a month.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NthWeekday {
    /// 1 to 5.
    pub n: u8,
    /// The weekday.
    pub day: Weekday,
}

named_enum! {
    /// How often an event repeats.
    #[derive(Default)]
    Frequency {
        /// Every year, on one date (`month`, `month_day`).
        Yearly = 0 => "yearly",
        /// Every month, on the nth weekday (`nth_weekday`).
        Monthly = 1 => "monthly",
        /// Every week (or every other week), on one weekday.
        #[default]
        Weekly = 2 => "weekly",
        /// Every day, or on one of the sets of weekdays Discord allows.
        Daily = 3 => "daily",
    }
}

named_enum! {
    /// A day of the week (Discord counts from Monday, 0).
    Weekday {
        /// Monday.
        Monday = 0 => "monday",
        /// Tuesday.
        Tuesday = 1 => "tuesday",
        /// Wednesday.
        Wednesday = 2 => "wednesday",
        /// Thursday.
        Thursday = 3 => "thursday",
        /// Friday.
        Friday = 4 => "friday",
        /// Saturday.
        Saturday = 5 => "saturday",
        /// Sunday.
        Sunday = 6 => "sunday",
    }
}
