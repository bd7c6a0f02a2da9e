//! The snapshot's lists of live objects held by id — the kinds planned one object at a time —
//! looked up by a key, so the rooms that count or find a kind's live objects (the deletion
//! gate, drift's questions, preflight) ask the snapshot through the kind table's key instead
//! of naming each kind's list (docs/architecture.md, "Sections").
#![deny(clippy::wildcard_enum_match_arm)]

use serde_json::Value;

use super::Snapshot;
use super::automod::AutoModRule;
use super::doors::{Integration, Invite};
use super::events::ScheduledEvent;
use super::expressions::List;
use super::held::{Held, Objects, by_id, objects};
use crate::discord::models::{User, Webhook};

/// One list of live objects a snapshot holds by id, read when the manifest asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// The guild's webhooks.
    Webhooks,
    /// The applications added to the guild.
    Integrations,
    /// The guild's invites, by code.
    Invites,
    /// AutoMod rules.
    AutoModRules,
    /// Scheduled events.
    ScheduledEvents,
    /// One list of expressions (custom emoji, soundboard sounds, stickers).
    Expressions(List),
}

impl Snapshot {
    /// How many live objects `list` holds (0 where it was not read).
    pub fn listed_len(&self, list: Listed) -> usize {
        self.listed(list).count()
    }

    /// The live object of `list` with `id`, as the API shapes it.
    pub fn listed_object(&self, list: Listed, id: &str) -> Option<Value> {
        self.listed_find(list, id)?.value()
    }

    /// Who uploaded the live object of `list` with `id`: `None` when there is no such
    /// object or no person uploads the list's objects; `Some(None)` when Discord did not show
    /// its uploader.
    pub fn uploader(&self, list: Listed, id: &str) -> Option<Option<&User>> {
        self.listed_find(list, id)?.uploader()
    }

    fn listed_find(&self, list: Listed, id: &str) -> Option<&dyn Held> {
        self.listed(list).find(|o| o.id() == id)
    }

    fn listed(&self, list: Listed) -> Objects<'_> {
        match list {
            Listed::Webhooks => objects(&self.webhooks),
            Listed::Integrations => objects(&self.doors.integrations),
            Listed::Invites => objects(&self.doors.invites),
            Listed::AutoModRules => objects(&self.automod),
            Listed::ScheduledEvents => objects(&self.events),
            Listed::Expressions(l) => l.objects(&self.expressions),
        }
    }
}

by_id! {
    Webhook => id;
    Integration => id;
    Invite => code;
    AutoModRule => id;
    ScheduledEvent => id;
}
