//! `events:`, the guild's scheduled events: below the planner (`planner::events`).

use serde_json::Value;

use super::{ExportedFiles, Names, PlanTurn, Section, SectionId, write_declared};
use crate::discord::models::User;
use crate::discord::time::{parse_rfc3339, rfc3339};
use crate::manifest::{Manifest, ScheduledEvent, Snowflake};
use crate::snapshot::Snapshot;
use crate::snapshot::events::{ScheduledEvent as LiveEvent, recurrence_as_written};

pub(super) struct Events;

/// Whether `export` writes an event: scheduled and active ones (a past one is not managed).
pub fn exports_event(e: &LiveEvent) -> bool {
    matches!(e.status, 1 | 2)
}

impl Section for Events {
    fn id(&self) -> SectionId {
        SectionId::Events
    }

    fn key(&self) -> &'static str {
        "events"
    }

    fn plan_turn(&self) -> PlanTurn {
        PlanTurn::AfterDoors
    }

    fn export(&self, snap: &Snapshot, images: &ExportedFiles, names: &Names, out: &mut Manifest) {
        out.events = snap.events.as_ref().map(|live| {
            live.iter()
                .filter(|e| exports_event(e))
                .map(|e| export_event(e, names, images))
                .collect()
        });
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        write_declared(
            out,
            "Scheduled events not over yet, pinned by id, their cover images written beside the manifest.",
            self.key(),
            &m.events,
        )
    }

    fn copy_key(&self) -> &'static str {
        "scheduled_events"
    }

    /// As Discord lists them.
    fn copy(&self, snap: &Snapshot, _: &mut dyn FnMut(&User)) -> Vec<Value> {
        snap.events
            .iter()
            .flatten()
            .filter_map(|e| serde_json::to_value(e).ok())
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        snap.events
            .iter()
            .flatten()
            .map(|e| e.id.as_str())
            .collect()
    }

    /// Their cover images.
    fn files(&self, snap: &Snapshot) -> Vec<String> {
        snap.events
            .iter()
            .flatten()
            .filter_map(|e| e.live_image().map(|i| i.path()))
            .collect()
    }
}

/// A scheduled or active event as the manifest writes it, pinned by id; a recurring event
/// starts at its rule's start. A cover image is the file written for it (`images`, by CDN
/// path); without one, the cover is left out (left as it is).
fn export_event(e: &LiveEvent, names: &Names, images: &ExportedFiles) -> ScheduledEvent {
    let rule = e.recurrence_rule.as_ref();
    let start = rule.map_or(e.scheduled_start_time.as_str(), |r| r.start.as_str());
    let shift = |t: &str| {
        // An occurrence's end, moved back to the first occurrence's.
        let ms = parse_rfc3339;
        match (ms(t), ms(&e.scheduled_start_time), ms(start)) {
            (Some(end), Some(now), Some(first)) => rfc3339(end - now + first),
            _ => t.to_owned(),
        }
    };
    ScheduledEvent {
        id: Some(Snowflake(e.id.clone())),
        name: e.name.clone(),
        previous_names: Vec::new(),
        channel: e.channel_id.as_deref().map(|c| names.channel(c)),
        location: e.entity_metadata.as_ref().and_then(|m| m.location.clone()),
        start: tidy_time(start),
        end: e
            .scheduled_end_time
            .as_deref()
            .map(|t| tidy_time(&shift(t))),
        description: e.description.clone().filter(|d| !d.is_empty()),
        image: e.live_image().and_then(|i| images.get(&i.path())).cloned(),
        recurrence: rule.map(recurrence_as_written),
    }
}

/// Discord's `2027-01-06T18:00:00.000000+00:00` as `2027-01-06T18:00:00Z`.
fn tidy_time(t: &str) -> String {
    parse_rfc3339(t)
        .filter(|ms| ms % 1000 == 0)
        .map_or_else(|| t.to_owned(), rfc3339)
}
