//! Rules for scheduled events (Discord's resources/guild-scheduled-event): names, a place
//! (a voice or stage channel that resolves, or a location with an end), RFC 3339 times with the end after the start, and
//! recurrence rules as Discord's "system limitations" allow them.

use super::*;
use crate::discord::time::parse_rfc3339;
use crate::manifest::types::{Frequency, Recurrence, ScheduledEvent, Weekday};

fn events(m: &Manifest) -> impl Iterator<Item = (String, &ScheduledEvent)> {
    entries("events", &m.events)
}

/// An event's channel, through the one resolver every reference takes: a voice or stage
/// channel, and a previous name is an error naming the new one.
pub(super) fn event_channels(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    const PLACES: &[ChannelType] = &[ChannelType::Voice, ChannelType::Stage];
    for (path, e) in events(ctx.manifest) {
        if let Some(channel) = &e.channel {
            let at = format_args!("{path}.channel");
            ctx.check_channel_ref(&at, "an event's channel", channel, PLACES, out);
        }
    }
}

/// Names of 1-100 characters used once (unless pinned by id); a description and location
/// within Discord's lengths.
pub(super) fn event_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let list: Vec<_> = events(ctx.manifest).collect();
    for (path, e) in &list {
        Text("event name", EVENT_NAME_LEN).check(out, format_args!("{path}.name"), &e.name);
        if let Some(d) = &e.description {
            Text("event description", (0, EVENT_DESCRIPTION_MAX)).check(
                out,
                format_args!("{path}.description"),
                d,
            );
        }
        if let Some(l) = &e.location {
            Text("location", EVENT_LOCATION_LEN).check(out, format_args!("{path}.location"), l);
        }
    }
    let names = list.iter().map(|(_, e)| (e.name.as_str(), e.id.is_some()));
    let rule = (
        "event",
        "events are matched by name: rename one, or pin each to its `id`",
    );
    duplicate_names(names, |i| list[i].0.clone(), rule, out);
}

/// One place: `channel` or `location`, and a location needs `end`; times in RFC 3339, the
/// end after the start.
pub(super) fn event_place_and_times(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, e) in events(ctx.manifest) {
        match (&e.channel, &e.location) {
            (Some(_), Some(_)) => out.push(
                Diagnostic::error(
                    format!("{path}.location"),
                    format!("event \"{}\" has both a channel and a location", e.name),
                )
                .with_help(
                    "an event takes place in a voice or stage channel, or at a location: keep one",
                ),
            ),
            (None, None) => out.push(
                Diagnostic::error(
                    path.clone(),
                    format!("event \"{}\" says neither `channel` nor `location`", e.name),
                )
                .with_help("name a voice or stage channel, or a location with an `end`"),
            ),
            (None, Some(_)) if e.end.is_none() => out.push(
                Diagnostic::error(
                    format!("{path}.location"),
                    format!("event \"{}\" at a location needs an `end`", e.name),
                )
                .with_help("Discord requires an end time for events outside the guild's channels"),
            ),
            _ => {}
        }
        let time = |out: &mut Vec<Diagnostic>, field: &str, s: &str| {
            let t = parse_rfc3339(s);
            if t.is_none() {
                out.push(
                    Diagnostic::error(
                        format!("{path}.{field}"),
                        format!("`{s}` is not an RFC 3339 time"),
                    )
                    .with_help("write a date, a time and an offset: \"2027-01-06T18:00:00Z\""),
                );
            }
            t
        };
        let start = time(out, "start", &e.start);
        let end = e.end.as_deref().and_then(|s| time(out, "end", s));
        if let (Some(start), Some(end)) = (start, end)
            && end <= start
        {
            out.push(Diagnostic::error(
                format!("{path}.end"),
                format!("event \"{}\" ends before it starts", e.name),
            ));
        }
    }
}

/// The daily sets of weekdays Discord allows (0 Monday … 6 Sunday).
const DAILY_SETS: [&[u64]; 6] = [
    &[0, 1, 2, 3, 4],
    &[1, 2, 3, 4, 5],
    &[0, 1, 2, 3, 6],
    &[4, 5],
    &[5, 6],
    &[0, 6],
];

/// What is wrong with a recurrence rule for Discord, each with the field it is at.
pub(crate) fn recurrence_problems(r: &Recurrence) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let sets = [
        !r.weekdays.is_empty(),
        r.nth_weekday.is_some(),
        r.month.is_some() || r.month_day.is_some(),
    ];
    if sets.iter().filter(|s| **s).count() > 1 {
        out.push((
            "",
            "`weekdays`, `nth_weekday` and `month`/`month_day` exclude each other".to_owned(),
        ));
    }
    let name = r.frequency.name();
    if !r.weekdays.is_empty() {
        let mut days: Vec<u64> = r.weekdays.iter().map(|d| d.value()).collect();
        days.sort_unstable();
        days.dedup();
        match r.frequency {
            Frequency::Daily if !DAILY_SETS.contains(&days.as_slice()) => out.push((
                "weekdays",
                "a daily event's weekdays are one of Monday-Friday, Tuesday-Saturday, Sunday-Thursday, Friday-Saturday, Saturday-Sunday or Sunday-Monday".to_owned(),
            )),
            Frequency::Weekly if days.len() != 1 => {
                out.push(("weekdays", "a weekly event names one weekday".to_owned()));
            }
            Frequency::Daily | Frequency::Weekly => {}
            _ => out.push((
                "weekdays",
                format!("`weekdays` is for daily and weekly events, not {name} ones"),
            )),
        }
    }
    if let Some(nth) = r.nth_weekday {
        if r.frequency != Frequency::Monthly {
            out.push((
                "nth_weekday",
                format!("`nth_weekday` is for monthly events, not {name} ones"),
            ));
        }
        if !(1..=5).contains(&nth.n) {
            out.push((
                "nth_weekday",
                format!("`n` is {}; Discord allows 1 to 5", nth.n),
            ));
        }
    }
    if r.month.is_some() || r.month_day.is_some() {
        match (r.month, r.month_day) {
            (Some(m), Some(d)) if r.frequency == Frequency::Yearly => {
                let days = match m {
                    2 => 29,
                    4 | 6 | 9 | 11 => 30,
                    1..=12 => 31,
                    _ => 0,
                };
                if days == 0 {
                    out.push(("month", format!("month {m} is not 1 to 12")));
                } else if !(1..=days).contains(&d) {
                    out.push(("month_day", format!("month {m} has no day {d}")));
                }
            }
            (Some(_), Some(_)) => out.push((
                "month",
                format!("`month` and `month_day` are for yearly events, not {name} ones"),
            )),
            _ => out.push((
                "month",
                "a yearly date needs both `month` and `month_day`".to_owned(),
            )),
        }
    }
    match r.interval {
        None | Some(1) => {}
        Some(2) if r.frequency == Frequency::Weekly => {}
        Some(n) => out.push((
            "interval",
            format!(
                "an interval of {n}: Discord allows 2 (every other week) for weekly events only"
            ),
        )),
    }
    out
}

/// Recurrence rules as Discord validates them, and their start day's weekday, which must
/// be one the rule names.
pub(super) fn event_recurrence(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, e) in events(ctx.manifest) {
        let Some(r) = &e.recurrence else { continue };
        for (field, message) in recurrence_problems(r) {
            let at = if field.is_empty() {
                format!("{path}.recurrence")
            } else {
                format!("{path}.recurrence.{field}")
            };
            out.push(
                Diagnostic::error(at, format!("event \"{}\": {message}", e.name))
                    .with_help("docs/manifest.md, \"Scheduled events\", lists what Discord allows"),
            );
        }
        // A weekly event on Wednesdays starts on a Wednesday.
        if r.frequency == Frequency::Weekly
            && let [day] = r.weekdays.as_slice()
            && let Some(ms) = parse_rfc3339(&e.start)
            && weekday_of(ms) != *day
        {
            out.push(Diagnostic::error(
                format!("{path}.start"),
                format!(
                    "event \"{}\" repeats on {}s but starts on a {}",
                    e.name,
                    day.name(),
                    weekday_of(ms).name()
                ),
            ));
        }
    }
}

/// The weekday (UTC) of a Unix time in milliseconds: 1970-01-01 was a Thursday.
fn weekday_of(ms: u64) -> Weekday {
    let days = ms / 86_400_000;
    Weekday::from_value((days + 3) % 7).unwrap_or(Weekday::Monday)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::types::NthWeekday;

    fn office_hours() -> ScheduledEvent {
        ScheduledEvent {
            name: "Office hours".into(),
            channel: Some("Lounge".into()),
            start: "2027-01-06T18:00:00Z".into(),
            end: Some("2027-01-06T19:00:00Z".into()),
            recurrence: Some(Recurrence {
                frequency: Frequency::Weekly,
                weekdays: vec![Weekday::Wednesday],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn run(rule: Rule, list: Vec<ScheduledEvent>) -> Vec<String> {
        let found = run_rule(rule, |m| m.events = Some(list));
        found.into_iter().map(|d| d.path).collect()
    }

    #[test]
    fn the_issues_event_is_valid() {
        for rule in [event_names, event_place_and_times, event_recurrence] {
            assert!(run(rule, vec![office_hours()]).is_empty());
        }
    }

    #[test]
    fn names_are_used_once() {
        assert_eq!(
            run(event_names, vec![office_hours(), office_hours()]),
            ["events[1].name"]
        );
    }

    #[test]
    fn a_location_needs_an_end_and_times_are_rfc_3339() {
        let mut outside = office_hours();
        outside.channel = None;
        outside.location = Some("The pub".into());
        outside.end = None;
        let mut bad_time = office_hours();
        bad_time.start = "next wednesday".into();
        let mut backwards = office_hours();
        backwards.end = Some("2027-01-06T17:00:00Z".into());
        assert_eq!(
            run(event_place_and_times, vec![outside, bad_time, backwards]),
            ["events[0].location", "events[1].start", "events[2].end"]
        );
    }

    #[test]
    fn recurrence_is_held_to_discords_limits() {
        let with = |r: Recurrence| ScheduledEvent {
            recurrence: Some(r),
            ..office_hours()
        };
        let two_days = with(Recurrence {
            frequency: Frequency::Weekly,
            weekdays: vec![Weekday::Monday, Weekday::Wednesday],
            ..Default::default()
        });
        let every_third_week = with(Recurrence {
            frequency: Frequency::Weekly,
            interval: Some(3),
            weekdays: vec![Weekday::Wednesday],
            ..Default::default()
        });
        let nth_weekly = with(Recurrence {
            frequency: Frequency::Weekly,
            nth_weekday: Some(NthWeekday {
                n: 1,
                day: Weekday::Wednesday,
            }),
            ..Default::default()
        });
        let feb_30 = with(Recurrence {
            frequency: Frequency::Yearly,
            month: Some(2),
            month_day: Some(30),
            ..Default::default()
        });
        let on_tuesdays = with(Recurrence {
            frequency: Frequency::Weekly,
            weekdays: vec![Weekday::Tuesday],
            ..Default::default()
        });
        assert_eq!(
            run(
                event_recurrence,
                vec![two_days, every_third_week, nth_weekly, feb_30, on_tuesdays]
            ),
            [
                "events[0].recurrence.weekdays",
                "events[1].recurrence.interval",
                "events[2].recurrence.nth_weekday",
                "events[3].recurrence.month_day",
                "events[4].start"
            ]
        );
    }
}
