//! Scheduled events: create, update, rename in place, prune. Only future and recurring
//! events are managed: a one-off event whose time has passed is not created again (it
//! happened, or it was missed). Exceptions to recurring events (one occurrence moved or
//! cancelled) are left alone: Discord's API for them is undocumented and changing.

use std::borrow::Cow;

use hashbrown::HashSet;
use serde_json::{Value, json};

use super::{ExportedFiles, LiveFile, Names, Section, SectionId, as_listed, ids_of};
use crate::discord::Route;
use crate::discord::cdn::LiveImage;
use crate::discord::models::User;
use crate::discord::models::channel_type;
use crate::discord::time::{parse_rfc3339, rfc3339};
use crate::manifest::{Manifest, Recurrence, ScheduledEvent, Snowflake};
use crate::plan::field::ScheduledEvent as F;
use crate::plan::{IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::calls::{self, Calls};
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::images::{Slot, image_change};
use crate::plan_kit::matching::match_live;
use crate::snapshot::Snapshot;
use crate::snapshot::events::{RecurrenceRule, ScheduledEvent as Live, recurrence_as_written};

pub(super) struct Events;

/// Whether `export` writes an event: scheduled and active ones (a past one is not managed).
pub fn exports_event(e: &Live) -> bool {
    matches!(e.status, 1 | 2)
}

crate::snapshot::matching::declared!(ScheduledEvent);

impl Section for Events {
    fn id(&self) -> SectionId {
        SectionId::Events
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
        self.about().write(out, &m.events)
    }

    /// As Discord lists them.
    fn copy(&self, snap: &Snapshot, _: &mut dyn FnMut(&User)) -> Vec<Value> {
        as_listed(&snap.events)
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        ids_of(&snap.events, |e| &e.id)
    }

    /// Their cover images.
    fn plan(&self, cx: &mut Ctx) {
        plan_events(cx);
    }

    fn export_files<'s>(&self, snap: &'s Snapshot) -> Vec<LiveFile<'s>> {
        let live = snap.events.iter().flatten().filter(|e| exports_event(e));
        live.filter_map(|e| {
            Some(LiveFile {
                at: e.live_image()?.path(),
                name: &e.name,
                id: &e.id,
            })
        })
        .collect()
    }

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
fn export_event(e: &Live, names: &Names, images: &ExportedFiles) -> ScheduledEvent {
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

const EVENT_CHANNELS: &[u8] = &[channel_type::VOICE, channel_type::STAGE];
const STAGE: u8 = 1;
const VOICE: u8 = 2;
const EXTERNAL: u8 = 3;
/// Discord's status of an event not started yet.
const SCHEDULED: u8 = 1;
/// The one privacy level Discord offers.
const GUILD_ONLY: u8 = 2;

fn event_ref(e: &Live) -> ObjectRef {
    ObjectRef {
        kind: Kind::ScheduledEvent,
        name: e.name.clone(),
        id: Some(e.id.clone()),
    }
}

const EVENT: Calls = Calls {
    kind: Kind::ScheduledEvent,
    noun: "event",
    key: "event",
    write: Phase::EventWrite,
    delete: Phase::EventDelete,
};

fn plan_events(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.events.as_deref() else {
        for e in snap.events.iter().flatten() {
            cx.unmanaged.push(event_ref(e));
        }
        return;
    };
    let Some(live) = snap.events.as_deref() else {
        cx.problem(
            Some("events".into()),
            "Discord refused to list this guild's scheduled events".into(),
            Some("check the bot is a member of the guild, or leave `events` out"),
        );
        return;
    };
    let now = crate::discord::time::now_ms();
    let matches = match_events(cx, declared, live);
    for (i, d) in declared.iter().enumerate() {
        let source = format!("events[{i}]");
        let (Some(start), end) = (
            parse_rfc3339(&d.start),
            d.end.as_deref().and_then(parse_rfc3339),
        ) else {
            continue; // refused by validate
        };
        let over = end.unwrap_or(start) < now;
        if d.recurrence.is_none() && over {
            // A past one-off: it happened (or was missed); never created again.
            if matches[i].is_none() {
                cx.warn(
                    Some(source),
                    format!(
                        "event `{}` ended before now: a past one-off event is not created",
                        d.name
                    ),
                );
            }
            continue;
        }
        let Some(place) = place(cx, d, &source) else {
            continue;
        };
        match matches[i] {
            Some(l) => plan_update(cx, d, l, &place, (start, end), source),
            None => plan_create(cx, d, &place, source),
        }
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|e| e.id.as_str()).collect();
    for e in live {
        if matched.contains(e.id.as_str()) {
            continue;
        }
        // An event under way or over is history, not configuration.
        if manifest.prune.events && e.status == SCHEDULED {
            delete(cx, e);
        } else {
            cx.unmanaged.push(event_ref(e));
        }
    }
}

/// Each declared event's live match ([`match_live`]).
fn match_events<'s>(
    cx: &mut Ctx,
    declared: &[ScheduledEvent],
    live: &'s [Live],
) -> Vec<Option<&'s Live>> {
    let live: Vec<&Live> = live.iter().collect();
    match_live(
        cx,
        "events",
        Kind::ScheduledEvent,
        declared,
        &live,
        |e| (&e.id, Cow::Borrowed(&e.name)),
        |_, _| false,
    )
}

/// Where an event takes place, as the API says it.
struct Place {
    entity_type: u8,
    channel: Option<IdRef>,
    location: Option<String>,
}

fn place(cx: &mut Ctx, d: &ScheduledEvent, source: &str) -> Option<Place> {
    match (&d.channel, &d.location) {
        (Some(c), _) => {
            let id = cx.resolve_channel(c, &format!("{source}.channel"), EVENT_CHANNELS)?;
            let entity_type = if cx.channel_refs.kind_of(&id) == Some(channel_type::STAGE) {
                STAGE
            } else {
                VOICE
            };
            Some(Place {
                entity_type,
                channel: Some(id),
                location: None,
            })
        }
        (None, Some(l)) => Some(Place {
            entity_type: EXTERNAL,
            channel: None,
            location: Some(l.clone()),
        }),
        (None, None) => None,
    }
}

fn place_shown(cx: &Ctx, p: &Place) -> Value {
    match (&p.channel, &p.location) {
        (Some(c), _) => json!({"channel": cx.channel_label(c)}),
        (None, l) => json!({"location": l}),
    }
}

fn live_place(e: &Live) -> Place {
    Place {
        entity_type: e.entity_type,
        channel: e.channel_id.clone().map(IdRef::Live),
        location: e.entity_metadata.as_ref().and_then(|m| m.location.clone()),
    }
}

/// The recurrence rule as Discord takes it, starting at the event's start.
fn rule_of(r: &Recurrence, start: &str) -> RecurrenceRule {
    let some = |v: Vec<u8>| (!v.is_empty()).then_some(v);
    RecurrenceRule {
        start: start.to_owned(),
        end: None,
        frequency: r.frequency.value() as u8,
        interval: r.interval.unwrap_or(1),
        by_weekday: some(r.weekdays.iter().map(|d| d.value() as u8).collect()),
        by_n_weekday: r.nth_weekday.map(|n| {
            vec![crate::snapshot::events::NWeekday {
                n: n.n,
                day: n.day.value() as u8,
            }]
        }),
        by_month: r.month.map(|m| vec![m]),
        by_month_day: r.month_day.map(|d| vec![d]),
        by_year_day: None,
        count: None,
    }
}

/// A rule compared by meaning: its start as a time, its day lists as sets.
fn same_rule(a: &RecurrenceRule, b: &RecurrenceRule) -> bool {
    let sorted = |v: &Option<Vec<u8>>| {
        let mut v = v.clone().unwrap_or_default();
        v.sort_unstable();
        v
    };
    parse_rfc3339(&a.start) == parse_rfc3339(&b.start)
        && a.frequency == b.frequency
        && a.interval == b.interval
        && sorted(&a.by_weekday) == sorted(&b.by_weekday)
        && a.by_n_weekday.clone().unwrap_or_default() == b.by_n_weekday.clone().unwrap_or_default()
        && sorted(&a.by_month) == sorted(&b.by_month)
        && sorted(&a.by_month_day) == sorted(&b.by_month_day)
}

/// The cover image, compared by content with the live one as the guild's images are: an
/// unchanged file is not sent again. Left out of the manifest: not managed.
fn image(
    cx: &mut Ctx,
    b: &mut ChangeBuilder,
    d: &ScheduledEvent,
    live: Option<LiveImage<'_>>,
    source: &str,
) {
    let declared = d.image.clone().map(Some);
    let slot = Slot {
        field: F::Image.into(),
        source: format!("{source}.image"),
        declared: &declared,
        live,
    };
    let features = cx.snap.guild.features.clone();
    image_change(cx, b, slot, |_| None, &features);
}

fn plan_update(
    cx: &mut Ctx,
    d: &ScheduledEvent,
    l: &Live,
    p: &Place,
    (start, end): (u64, Option<u64>),
    source: String,
) {
    let mut b = ChangeBuilder::new();
    if l.name != d.name {
        b.changed(F::Name, json!(l.name), json!(d.name));
    }
    if l.description.as_deref().unwrap_or_default() != d.description.as_deref().unwrap_or_default()
    {
        b.set(
            F::Description,
            json!(l.description),
            json!(d.description),
            json!(d.description.clone().unwrap_or_default()),
        );
    }
    let lp = live_place(l);
    if lp.entity_type != p.entity_type || lp.channel != p.channel || lp.location != p.location {
        b.set(
            F::Place,
            place_shown(cx, &lp),
            place_shown(cx, p),
            p.channel.as_ref().map_or(Value::Null, IdRef::to_value),
        );
        b.body.insert("entity_type".into(), json!(p.entity_type));
        b.body.insert(
            "entity_metadata".into(),
            p.location
                .as_ref()
                .map_or(Value::Null, |l| json!({"location": l})),
        );
    }
    let wanted_rule = d.recurrence.as_ref().map(|r| rule_of(r, &d.start));
    let rule_same = match (&l.recurrence_rule, &wanted_rule) {
        (Some(a), Some(b)) => same_rule(a, b),
        (None, None) => true,
        _ => false,
    };
    // A rule that differs only in its start moves with the event's start (shown there).
    let only_start = match (&l.recurrence_rule, &wanted_rule) {
        (Some(a), Some(b)) => same_rule(
            a,
            &RecurrenceRule {
                start: a.start.clone(),
                ..b.clone()
            },
        ),
        _ => false,
    };
    if only_start {
        b.body.insert("recurrence_rule".into(), json!(wanted_rule));
    } else if !rule_same {
        b.set(
            F::Recurrence,
            json!(l.recurrence_rule.as_ref().map(recurrence_as_written)),
            json!(d.recurrence),
            json!(wanted_rule),
        );
    }
    // A recurring event's live start moves to its next occurrence as each one passes: the
    // series' start is its rule's, and the length of an occurrence is what stays.
    let live_start = parse_rfc3339(&l.scheduled_start_time).unwrap_or(0);
    let live_end = l.scheduled_end_time.as_deref().and_then(parse_rfc3339);
    let advanced = rule_same && wanted_rule.is_some();
    let start_same = advanced || live_start == start;
    if !start_same {
        b.changed(F::Start, json!(l.scheduled_start_time), json!(d.start));
    }
    let end_same = if advanced {
        live_end.map(|e| e.saturating_sub(live_start)) == end.map(|e| e.saturating_sub(start))
    } else {
        live_end == end
    };
    if !end_same {
        // With the start kept, the end of the occurrence now under way.
        let at = match (advanced, end) {
            (true, Some(e)) => json!(crate::discord::time::rfc3339(live_start + (e - start))),
            _ => json!(d.end),
        };
        b.set(F::End, json!(l.scheduled_end_time), json!(d.end), at);
    }
    image(cx, &mut b, d, l.live_image(), &source);
    let route = Route::UpdateScheduledEvent {
        guild: cx.guild(),
        event: IdRef::Live(l.id.clone()),
    };
    EVENT.update(cx, &d.name, &l.id, b, source, route);
}

fn plan_create(cx: &mut Ctx, d: &ScheduledEvent, p: &Place, source: String) {
    let mut b = ChangeBuilder::new();
    b.created(F::Name, json!(d.name));
    b.set(
        F::Place,
        Value::Null,
        place_shown(cx, p),
        p.channel.as_ref().map_or(Value::Null, IdRef::to_value),
    );
    b.body.insert("entity_type".into(), json!(p.entity_type));
    if let Some(l) = &p.location {
        b.body
            .insert("entity_metadata".into(), json!({"location": l}));
    }
    b.body.insert("privacy_level".into(), json!(GUILD_ONLY));
    b.created(F::Start, json!(d.start));
    if let Some(end) = &d.end {
        b.created(F::End, json!(end));
    }
    if let Some(text) = &d.description {
        b.created(F::Description, json!(text));
    }
    if let Some(r) = &d.recurrence {
        b.set(
            F::Recurrence,
            Value::Null,
            json!(r),
            json!(rule_of(r, &d.start)),
        );
    }
    image(cx, &mut b, d, None, &source);
    let route = Route::CreateScheduledEvent { guild: cx.guild() };
    EVENT.create(cx, &d.name, b, source, route);
}

fn delete(cx: &mut Ctx, e: &Live) {
    let mut b = ChangeBuilder::new();
    b.show(F::Start, json!(e.scheduled_start_time), Value::Null);
    let route = Route::DeleteScheduledEvent {
        guild: cx.guild(),
        event: IdRef::Live(e.id.clone()),
    };
    let live = calls::Live {
        name: &e.name,
        id: &e.id,
    };
    EVENT.delete(cx, live, b.fields, EVENT.kind.pruned_by().into(), route, "");
}
