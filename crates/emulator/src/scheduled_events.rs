//! Scheduled events (docs/discord.md §10.3, resources/guild-scheduled-event): list,
//! get, create, modify (status transitions included), delete.
//!
//! Stage (1) and voice (2) events name a channel of that type; external ones (3) a
//! `location` and an end. Permissions are computed in the event's channel for stage and
//! voice events and at guild level for external ones: CREATE_EVENTS to create, and to
//! change one's own; MANAGE_EVENTS for anyone's. Recurrence rules are held to the docs'
//! "system limitations". Exceptions to recurring events (undocumented) are not emulated.

use std::collections::HashMap;

use axum::extract::{Path, RawQuery};
use serde_json::{Value, json};

use crate::access::{InGuild, digits, guild_at, need, need_in_channel};
use crate::app::{JsonBody, R, fired, no_content, ok, query_bool, query_params};
use crate::audit_log::action::{
    GUILD_SCHEDULED_EVENT_CREATE, GUILD_SCHEDULED_EVENT_DELETE, GUILD_SCHEDULED_EVENT_UPDATE,
};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::config::EmulatorConfig;
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader};
use crate::images;
use crate::perms::{bits, can_view_channel, guild_permissions};
use crate::render;
use crate::state::{EntityMetadata, Guild, NWeekday, RecurrenceRule, ScheduledEvent, State};
use crate::time::{parse_timestamp, timestamp};
use discord_permissions::Permissions;

const STAGE: u8 = 1;
const VOICE: u8 = 2;
const EXTERNAL: u8 = 3;

const SCHEDULED: u8 = 1;
const ACTIVE: u8 = 2;
const COMPLETED: u8 = 3;
const CANCELED: u8 = 4;

/// Events scheduled or active at once in a guild.
const MAX_UNFINISHED: usize = 100;

/// Our code for the rules Discord states without a code of its own.
const INVALID: &str = "GUILD_SCHEDULED_EVENT_INVALID";

/// The sets of weekdays a daily rule may name (0 Monday … 6 Sunday): Monday–Friday,
/// Tuesday–Saturday, Sunday–Thursday, Friday and Saturday, Saturday and Sunday, Sunday
/// and Monday.
const DAILY_SETS: [&[u8]; 6] = [
    &[0, 1, 2, 3, 4],
    &[1, 2, 3, 4, 5],
    &[0, 1, 2, 3, 6],
    &[4, 5],
    &[5, 6],
    &[0, 6],
];

/// A timestamp field, in Discord's form; a value that is not ISO 8601 is a field error.
fn read_time(r: &mut Reader, key: &str) -> Field<(String, u64)> {
    match r.string(key) {
        Field::Set(s) => match parse_timestamp(&s) {
            Some(ms) => Field::Set((timestamp(ms), ms)),
            None => {
                r.err(
                    key,
                    "DATE_TIME_TYPE_PARSE",
                    &format!("Could not parse {s}. Should be ISO8601."),
                );
                Field::Absent
            }
        },
        Field::Null => Field::Null,
        Field::Absent => Field::Absent,
    }
}

/// A list of small integers in `lo..=hi` at `key` (a set: repeats dropped); an empty list
/// or null is none.
fn small_ints(r: &mut Reader, key: &str, lo: i64, hi: i64) -> Option<Vec<u8>> {
    let list = r.array(key).set()?;
    let mut out: Vec<u8> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match form::as_i64(v) {
            Some(n) if (lo..=hi).contains(&n) => {
                if !out.contains(&(n as u8)) {
                    out.push(n as u8);
                }
            }
            _ => r.err_at(
                &[key, &i.to_string()],
                "NUMBER_TYPE_MAX",
                &format!("int value should be <= {hi} and >= {lo}."),
            ),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Days in `month` (1–12) of a leap year: an annual date must exist in some year.
fn month_days(month: u8) -> u8 {
    match month {
        2 => 29,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `recurrence_rule`, held to the docs' system limitations: `end`, `count` and
/// `by_year_day` cannot be set; `by_weekday`, `by_n_weekday` and `by_month` with
/// `by_month_day` exclude each other; `by_weekday` for daily rules (one of the known sets)
/// and weekly ones (one day); `by_n_weekday` for monthly rules (one); `by_month` and
/// `by_month_day` for yearly rules (one each, both); an `interval` other than 1 only for
/// weekly rules, and then 2.
fn read_recurrence(r: &mut Reader) -> Option<Option<RecurrenceRule>> {
    let v = match r.obj.get("recurrence_rule")? {
        Value::Null => return Some(None),
        v => v.clone(),
    };
    let path = vec!["recurrence_rule".to_owned()];
    let mut m = form::item(&mut *r.errs, path, &v)?;
    let start = read_time(&mut m, "start");
    let start = m.present("start", start, true);
    for key in ["end", "count", "by_year_day"] {
        if m.obj.get(key).is_some_and(|v| !v.is_null()) {
            m.err(key, INVALID, "This field cannot be set by applications.");
        }
    }
    let frequency = m.int_choice("frequency", &[0, 1, 2, 3], "(0, 1, 2, 3)");
    let frequency = m.present("frequency", frequency, true).map(|f| f as u8);
    let interval = match m.int_range("interval", 1, 2) {
        Field::Set(n) => n as u32,
        _ => 1,
    };
    let by_weekday = small_ints(&mut m, "by_weekday", 0, 6);
    let mut by_n_weekday = Vec::new();
    if let Field::Set(list) = m.array("by_n_weekday") {
        for (i, item) in list.iter().enumerate() {
            let mut p = m.path.clone();
            p.extend(["by_n_weekday".to_owned(), i.to_string()]);
            if let Some(mut x) = form::item(&mut *m.errs, p, item) {
                let n = x.int_range("n", 1, 5);
                let n = x.present("n", n, true);
                let day = x.int_range("day", 0, 6);
                let day = x.present("day", day, true);
                if let (Some(n), Some(day)) = (n, day) {
                    by_n_weekday.push(NWeekday {
                        n: n as u8,
                        day: day as u8,
                    });
                }
            }
        }
    }
    let by_month = small_ints(&mut m, "by_month", 1, 12);
    let by_month_day = small_ints(&mut m, "by_month_day", 1, 31);
    let frequency = frequency?;
    let (yearly, monthly, weekly, daily) = (0, 1, 2, 3);
    let sets = [
        by_weekday.is_some(),
        !by_n_weekday.is_empty(),
        by_month.is_some() || by_month_day.is_some(),
    ];
    if sets.iter().filter(|s| **s).count() > 1 {
        m.err(
            "",
            INVALID,
            "by_weekday, by_n_weekday and by_month with by_month_day exclude each other.",
        );
    }
    if let Some(days) = &by_weekday {
        let mut sorted = days.clone();
        sorted.sort_unstable();
        if frequency == daily {
            if !DAILY_SETS.contains(&sorted.as_slice()) {
                m.err(
                    "by_weekday",
                    INVALID,
                    "A daily rule's weekdays must be one of the known sets.",
                );
            }
        } else if frequency == weekly {
            if days.len() != 1 {
                m.err("by_weekday", INVALID, "A weekly rule names one weekday.");
            }
        } else {
            m.err(
                "by_weekday",
                INVALID,
                "by_weekday is only for daily and weekly rules.",
            );
        }
    }
    if !by_n_weekday.is_empty() && (frequency != monthly || by_n_weekday.len() != 1) {
        m.err(
            "by_n_weekday",
            INVALID,
            "by_n_weekday is only for monthly rules, and names one day.",
        );
    }
    if by_month.is_some() || by_month_day.is_some() {
        match (&by_month, &by_month_day) {
            (Some(month), Some(day))
                if frequency == yearly && month.len() == 1 && day.len() == 1 =>
            {
                if day[0] > month_days(month[0]) {
                    m.err("by_month_day", INVALID, "That day is not in that month.");
                }
            }
            _ => m.err(
                "by_month",
                INVALID,
                "by_month and by_month_day are only for yearly rules, one of each, both given.",
            ),
        }
    }
    if interval != 1 && frequency != weekly {
        m.err(
            "interval",
            INVALID,
            "An interval other than 1 is only for weekly rules (every other week).",
        );
    }
    let (start, _) = start?;
    Some(Some(RecurrenceRule {
        start,
        end: None,
        frequency,
        interval,
        by_weekday,
        by_n_weekday: (!by_n_weekday.is_empty()).then_some(by_n_weekday),
        by_month,
        by_month_day,
        by_year_day: None,
        count: None,
    }))
}

/// `entity_metadata.location` (1–100 characters), when the body has an object there.
fn read_location(r: &mut Reader) -> Option<Option<String>> {
    let v = match r.obj.get("entity_metadata")? {
        Value::Null => return Some(None),
        v => v.clone(),
    };
    let path = vec!["entity_metadata".to_owned()];
    let mut m = form::item(&mut *r.errs, path, &v)?;
    let loc = m.string_len("location", 1, 100);
    Some(m.present("location", loc, false))
}

/// The body fields of create and modify, as sent (`None`: absent).
struct EventFields {
    name: Option<String>,
    description: Option<Option<String>>,
    privacy_level: Option<i64>,
    start: Option<(String, u64)>,
    end: Option<Option<(String, u64)>>,
    entity_type: Option<u8>,
    channel_id: Option<Option<String>>,
    location: Option<Option<String>>,
    image: Option<Option<String>>,
    recurrence: Option<Option<RecurrenceRule>>,
    status: Option<u8>,
}

fn read_fields(r: &mut Reader, create: bool) -> EventFields {
    let name = r.string_len("name", 1, 100);
    let name = r.present("name", name, create);
    let description = r
        .string_len("description", 0, 1000)
        .into_option()
        .map(|d| d.filter(|d| !d.is_empty()));
    let privacy = r.int_choice("privacy_level", &[2], "(2)");
    let privacy_level = r.present("privacy_level", privacy, create);
    let start = read_time(r, "scheduled_start_time");
    let start = r.present("scheduled_start_time", start, create);
    let end = read_time(r, "scheduled_end_time").into_option();
    let kind = r.int_choice("entity_type", &[1, 2, 3], "(1, 2, 3)");
    let entity_type = if create {
        r.present("entity_type", kind, true)
    } else {
        kind.set()
    }
    .map(|k| k as u8);
    let channel_id = r.snowflake("channel_id").into_option();
    let location = read_location(r);
    let image = r.image("image").into_option();
    let recurrence = read_recurrence(r);
    let status = if create {
        None
    } else {
        r.int_choice("status", &[1, 2, 3, 4], "(1, 2, 3, 4)")
            .set()
            .map(|s| s as u8)
    };
    EventFields {
        name,
        description,
        privacy_level,
        start,
        end,
        entity_type,
        channel_id,
        location,
        image,
        recurrence,
        status,
    }
}

/// Checks an event as it would be after a write: the entity's fields (§10.3, "Field
/// Requirements By Entity Type"), the end after the start, and a future start when
/// `cfg` refuses past ones and the start was sent. Field errors go to `errs`.
fn check_entity(
    errs: &mut FieldErrors,
    g: &Guild,
    e: &ScheduledEvent,
    start_sent: bool,
    now_ms: u64,
    cfg: &EmulatorConfig,
) {
    match e.entity_type {
        EXTERNAL => {
            if e.channel_id.is_some() {
                errs.add(&["channel_id"], INVALID, "External events have no channel.");
            }
            if e.entity_metadata.is_none() {
                errs.add(
                    &["entity_metadata", "location"],
                    "BASE_TYPE_REQUIRED",
                    "This field is required",
                );
            }
            if e.scheduled_end_time.is_none() {
                errs.add(
                    &["scheduled_end_time"],
                    "BASE_TYPE_REQUIRED",
                    "This field is required",
                );
            }
        }
        kind => match e.channel_id.as_deref().map(|c| g.channel(c)) {
            None => errs.add(
                &["channel_id"],
                "BASE_TYPE_REQUIRED",
                "This field is required",
            ),
            Some(None) => errs.add(&["channel_id"], "CHANNEL_NOT_FOUND", "Unknown channel"),
            Some(Some(c))
                if (kind == STAGE) != (c.kind == 13) || (kind == VOICE) != (c.kind == 2) =>
            {
                let want = if kind == STAGE { "a stage" } else { "a voice" };
                errs.add(
                    &["channel_id"],
                    "CHANNEL_TYPE_INVALID",
                    &format!("This event needs {want} channel."),
                );
            }
            Some(Some(_)) => {}
        },
    }
    let start = parse_timestamp(&e.scheduled_start_time).unwrap_or(0);
    if let Some(end) = e.scheduled_end_time.as_deref().and_then(parse_timestamp)
        && end <= start
    {
        errs.add(
            &["scheduled_end_time"],
            INVALID,
            "The end must come after the start.",
        );
    }
    if start_sent && cfg.refuse_past_event_start && start < now_ms {
        errs.add(
            &["scheduled_start_time"],
            "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
            "Cannot schedule event in the past.",
        );
    }
}

/// What a write to an event needs: at guild level for external events; in the channel for
/// stage events (MANAGE_CHANNELS, MUTE_MEMBERS, MOVE_MEMBERS) and voice events
/// (VIEW_CHANNEL, CONNECT); plus `events_perm` (CREATE_EVENTS, or what `may_change` says).
fn need_for(
    g: &Guild,
    e: &ScheduledEvent,
    actor: &str,
    events_perm: Permissions,
) -> Result<(), ApiError> {
    let channel = e.channel_id.as_deref().and_then(|c| g.channel(c));
    match (e.entity_type, channel) {
        (STAGE, Some(c)) => need_in_channel(
            g,
            c,
            actor,
            events_perm | Permissions::MANAGE_CHANNELS | bits::MUTE_MEMBERS | bits::MOVE_MEMBERS,
        ),
        (VOICE, Some(c)) => need_in_channel(g, c, actor, events_perm | bits::CONNECT),
        _ => need(guild_permissions(g, actor), events_perm),
    }
}

/// The events permission a change of `e` needs: CREATE_EVENTS (or MANAGE_EVENTS) for
/// one's own, MANAGE_EVENTS for anyone's.
fn change_permission(g: &Guild, e: &ScheduledEvent, actor: &str) -> Permissions {
    let own = e.creator_id.as_deref() == Some(actor);
    let p = guild_permissions(g, actor);
    if own && !p.contains(Permissions::MANAGE_EVENTS) {
        Permissions::CREATE_EVENTS
    } else {
        Permissions::MANAGE_EVENTS
    }
}

fn snapshot(e: &ScheduledEvent) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(e.name)),
        ("description", json!(e.description)),
        ("channel_id", json!(e.channel_id)),
        (
            "location",
            json!(e.entity_metadata.as_ref().map(|m| &m.location)),
        ),
        ("entity_type", json!(e.entity_type)),
        ("status", json!(e.status)),
        ("privacy_level", json!(e.privacy_level)),
        ("scheduled_start_time", json!(e.scheduled_start_time)),
        ("scheduled_end_time", json!(e.scheduled_end_time)),
        // Images are named by their hash in audit logs, as elsewhere (§7.2).
        ("image_hash", json!(e.image)),
        (
            "recurrence_rule",
            json!(e.recurrence_rule.as_ref().map(render::recurrence_rule)),
        ),
    ]
}

fn find(g: &Guild, eid: &str) -> Result<usize, ApiError> {
    digits(eid)?;
    g.scheduled_events
        .iter()
        .position(|e| e.id == eid)
        .ok_or_else(ApiError::unknown_scheduled_event)
}

/// Whether the caller may see `e`: every member sees external events; stage and voice
/// events need VIEW_CHANNEL in their channel.
fn visible(g: &Guild, e: &ScheduledEvent, actor: &str) -> bool {
    match e.channel_id.as_deref() {
        Some(cid) => g
            .channels
            .iter()
            .position(|c| c.id == cid)
            .is_none_or(|ci| can_view_channel(g, ci, actor)),
        None => true,
    }
}

fn show(st: &State, g: &Guild, e: &ScheduledEvent, with_user_count: bool) -> Value {
    let creator = e
        .creator_id
        .as_deref()
        .and_then(|u| st.user(u))
        .map(render::user);
    render::scheduled_event(&g.id, e, creator, with_user_count)
}

fn with_user_count(q: Option<String>) -> Result<bool, ApiError> {
    let q: HashMap<String, String> = query_params(q);
    Ok(query_bool(&q, "with_user_count")?.unwrap_or(false))
}

/// `GET /guilds/{g}/scheduled-events` (`with_user_count`): the events the caller may see.
pub async fn list_events(call: InGuild, RawQuery(q): RawQuery) -> R {
    let counts = with_user_count(q)?;
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    ok(Value::Array(
        g.scheduled_events
            .iter()
            .filter(|e| visible(g, e, &call.actor))
            .map(|e| show(&st, g, e, counts))
            .collect(),
    ))
}

/// `GET /guilds/{g}/scheduled-events/{e}`: 403 50001 for an event in a channel the caller
/// cannot view, as for the channel itself.
pub async fn get_event(
    call: InGuild,
    Path((_, eid)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> R {
    let counts = with_user_count(q)?;
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let e = &g.scheduled_events[find(g, &eid)?];
    if !visible(g, e, &call.actor) {
        return Err(ApiError::missing_access());
    }
    ok(show(&st, g, e, counts))
}

/// `POST /guilds/{g}/scheduled-events` → 200 (the OpenAPI's status), status SCHEDULED.
pub async fn create_event(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let cfg = st.config.clone();
    let now = st.now_ms();
    let (g, snowflake) = guild_at(&mut st, gi);
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let f = read_fields(&mut r, true);
    errs.check()?;
    let mut errs = FieldErrors::default();
    let (Some(name), Some((start, _)), Some(kind)) = (f.name, f.start, f.entity_type) else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let external = kind == EXTERNAL;
    let mut e = ScheduledEvent {
        id: String::new(),
        channel_id: f.channel_id.flatten(),
        creator_id: Some(actor.clone()),
        name,
        description: f.description.flatten(),
        scheduled_start_time: start,
        scheduled_end_time: f.end.flatten().map(|(s, _)| s),
        privacy_level: f.privacy_level.map_or(2, |p| p as u8),
        status: SCHEDULED,
        entity_type: kind,
        entity_id: None,
        // Discarded for stage and voice events, as Discord does.
        entity_metadata: f
            .location
            .flatten()
            .filter(|_| external)
            .map(|location| EntityMetadata { location }),
        image: None,
        recurrence_rule: f.recurrence.flatten(),
        user_count: 0,
    };
    check_entity(&mut errs, g, &e, true, now, &cfg);
    errs.check()?;
    need_for(g, &e, &actor, Permissions::CREATE_EVENTS)?;
    let unfinished = g
        .scheduled_events
        .iter()
        .filter(|e| matches!(e.status, SCHEDULED | ACTIVE))
        .count();
    if unfinished >= MAX_UNFINISHED {
        return Err(ApiError::bad_request(
            30038,
            "Maximum number of uncompleted guild scheduled events reached (100)",
        ));
    }
    e.id = snowflake.next_id();
    if let Some(Some(data)) = f.image {
        e.image = Some(images::store(g, &data));
    }
    let changes = snapshot_changes(snapshot(&e), true);
    let eid = e.id.clone();
    g.scheduled_events.push(e);
    Entry::on(GUILD_SCHEDULED_EVENT_CREATE, &eid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    let g = &st.guilds[gi];
    let e = g
        .scheduled_events
        .last()
        .ok_or_else(ApiError::unknown_scheduled_event)?;
    let out = show(&st, g, e, false);
    let made = events::Dispatch::new(events::GUILD_SCHEDULED_EVENT_CREATE, &g.id, out.clone());
    fired(ok(out), [made])
}

/// Whether `to` may follow `from`: SCHEDULED → ACTIVE → COMPLETED, SCHEDULED → CANCELED.
fn transition_allowed(from: u8, to: u8) -> bool {
    from == to
        || matches!(
            (from, to),
            (SCHEDULED, ACTIVE) | (ACTIVE, COMPLETED) | (SCHEDULED, CANCELED)
        )
}

/// `PATCH /guilds/{g}/scheduled-events/{e}`: every field optional. A finished event
/// (completed or canceled) cannot change (400 180000). Changing to an external event needs
/// `channel_id: null`, a location and an end; `entity_metadata` is discarded for stage
/// and voice events.
pub async fn modify_event(
    call: InGuild,
    Path((_, eid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let cfg = st.config.clone();
    let now = st.now_ms();
    let (g, snowflake) = guild_at(&mut st, gi);
    let ei = find(g, &eid)?;
    let current = g.scheduled_events[ei].clone();
    need_for(g, &current, &actor, change_permission(g, &current, &actor))?;
    if matches!(current.status, COMPLETED | CANCELED) {
        return Err(ApiError::bad_request(
            180000,
            "Cannot update a finished event",
        ));
    }
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let f = read_fields(&mut r, false);
    errs.check()?;
    let mut errs = FieldErrors::default();
    let mut e = current.clone();
    if let Some(n) = f.name {
        e.name = n;
    }
    if let Some(p) = f.privacy_level {
        e.privacy_level = p as u8;
    }
    if let Some(d) = f.description {
        e.description = d;
    }
    if let Some((s, _)) = f.start.clone() {
        if current.status == ACTIVE {
            errs.add(
                &["scheduled_start_time"],
                "GUILD_SCHEDULED_EVENT_SCHEDULE_INVALID_START_BY_STATUS",
                "An active event's start cannot change.",
            );
        }
        e.scheduled_start_time = s;
    }
    if let Some(end) = f.end {
        e.scheduled_end_time = end.map(|(s, _)| s);
    }
    if let Some(k) = f.entity_type {
        if k == EXTERNAL && current.entity_type != EXTERNAL && f.channel_id != Some(None) {
            errs.add(
                &["channel_id"],
                INVALID,
                "Changing to an external event needs channel_id set to null.",
            );
        }
        e.entity_type = k;
    }
    if let Some(c) = f.channel_id {
        e.channel_id = c;
    }
    if e.entity_type == EXTERNAL {
        if let Some(loc) = f.location {
            e.entity_metadata = loc.map(|location| EntityMetadata { location });
        }
    } else {
        e.entity_metadata = None;
    }
    if let Some(rule) = f.recurrence {
        e.recurrence_rule = rule;
    }
    if let Some(s) = f.status {
        if !transition_allowed(current.status, s) {
            errs.add(
                &["status"],
                INVALID,
                &format!("The status cannot go from {} to {s}.", current.status),
            );
        }
        e.status = s;
    }
    let moved = f.start.is_some() && e.status == SCHEDULED;
    check_entity(&mut errs, g, &e, moved, now, &cfg);
    errs.check()?;
    // The channel the event moves to needs the same permissions as the one it leaves.
    if e.channel_id != current.channel_id || e.entity_type != current.entity_type {
        need_for(g, &e, &actor, change_permission(g, &current, &actor))?;
    }
    if let Some(image) = f.image {
        e.image = image.map(|data| images::store(g, &data));
    }
    let changes = diff_snapshots(snapshot(&current), snapshot(&e));
    g.scheduled_events[ei] = e;
    if !changes.is_empty() {
        Entry::on(GUILD_SCHEDULED_EVENT_UPDATE, &eid)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let g = &st.guilds[gi];
    let out = show(&st, g, &g.scheduled_events[ei], false);
    let updated = events::Dispatch::new(events::GUILD_SCHEDULED_EVENT_UPDATE, &g.id, out.clone());
    fired(ok(out), [updated])
}

/// `DELETE /guilds/{g}/scheduled-events/{e}` → 204, with the permissions of modify.
pub async fn delete_event(call: InGuild, Path((_, eid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let ei = find(g, &eid)?;
    let current = &g.scheduled_events[ei];
    need_for(g, current, &actor, change_permission(g, current, &actor))?;
    let e = g.scheduled_events.remove(ei);
    let changes = snapshot_changes(snapshot(&e), false);
    Entry::on(GUILD_SCHEDULED_EVENT_DELETE, &eid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    // The event as it was.
    let g = &st.guilds[gi];
    let deleted = events::Dispatch::new(
        events::GUILD_SCHEDULED_EVENT_DELETE,
        &g.id,
        show(&st, g, &e, false),
    );
    fired(no_content(), [deleted])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_moves_forward_only() {
        assert!(transition_allowed(SCHEDULED, ACTIVE));
        assert!(transition_allowed(ACTIVE, COMPLETED));
        assert!(transition_allowed(SCHEDULED, CANCELED));
        assert!(transition_allowed(SCHEDULED, SCHEDULED));
        assert!(!transition_allowed(SCHEDULED, COMPLETED));
        assert!(!transition_allowed(ACTIVE, CANCELED));
        assert!(!transition_allowed(ACTIVE, SCHEDULED));
    }

    #[test]
    fn annual_dates_exist_in_a_leap_year() {
        assert_eq!(month_days(2), 29);
        assert_eq!(month_days(4), 30);
        assert_eq!(month_days(12), 31);
    }
}
