//! Which live object a declared entry is, and where a declared entry matches more than one.
//!
//! Roles, webhooks and the sections' kinds (the expressions through
//! [`crate::plan_kit::expressions`]) are matched here ([`match_live`]): by a pinned id, then their name, then
//! their previous names. Channels are matched by their own planner, which adds places (a
//! category, a sorting group) and moves between them; it reports its duplicates through the
//! same check ([`note_duplicates`]).
//!
//! One rule picks among live objects of one name (docs/decisions.md, "Duplicates"): the
//! pinned id; otherwise the name before the previous names, and of several bearing them, the
//! oldest (the lowest id, which is the earliest created). Ids do not change, so the choice
//! is the same on every run, whatever a plan renames or reorders.

use std::borrow::Cow;

use hashbrown::HashSet;

use crate::plan::{Duplicate, Kind};
use crate::plan_kit::context::Ctx;
pub(crate) use crate::snapshot::matching::Declared;
use crate::snapshot::matching::{PinFault, match_entries};
use crate::snapshot::snowflake_cmp;

/// A declared entry and the live object it manages, as the duplicate check sees them.
pub(crate) struct Matched<'a> {
    pub kind: Kind,
    /// As declared, for the message.
    pub name: String,
    /// The entry's place in the manifest.
    pub source: String,
    pub pinned: bool,
    /// The id and the live name of what it manages.
    pub id: &'a str,
    pub live_name: &'a str,
}

/// Reports entry `m` when it matches more live objects than the one it manages:
/// `candidates` are the ids of the live objects in its place that bear its name or one of
/// its previous names; those that `used` (every live object some entry manages) lacks are its
/// duplicates. Recorded on the plan ([`Duplicate`]) with a warning at the entry.
pub(crate) fn note_duplicates<'a>(
    cx: &mut Ctx,
    m: Matched<'a>,
    candidates: impl IntoIterator<Item = &'a str>,
    used: &HashSet<&str>,
) {
    let mut others: Vec<&str> = candidates
        .into_iter()
        .filter(|id| *id != m.id && !used.contains(id))
        .collect();
    if others.is_empty() {
        return;
    }
    others.sort_by(|a, b| snowflake_cmp(a, b));
    others.dedup();
    let why = if m.pinned {
        "pinned by its `id`".to_owned()
    } else {
        format!("the oldest named `{}`", m.live_name)
    };
    let found = Duplicate {
        kind: m.kind,
        name: m.name,
        source: m.source,
        managed: m.id.to_owned(),
        why,
        others: others.into_iter().map(str::to_owned).collect(),
    };
    cx.warn(Some(found.source.clone()), found.describe());
    cx.duplicates.push(found);
}

/// Matches the declared entries of `section` (of `kind`) to `live`, each seen through `key`
/// as `(id, name)` (the name in the form the declared names have): the pinned id, then the
/// name, then any of the previous names, then what `last` accepts for the entry (AutoMod's
/// one rule of a kind), each time the oldest live object not matched yet. A
/// pinned id that names no live object, or one an entry before it is pinned to, is a problem
/// at the entry's `id`. An entry matching more live objects by name than the one it takes is
/// reported ([`note_duplicates`]).
pub(crate) fn match_live<'l, D: Declared, T: ?Sized>(
    cx: &mut Ctx,
    section: &str,
    kind: Kind,
    wanted: &[D],
    live: &[&'l T],
    key: impl for<'t> Fn(&'t T) -> (&'t str, Cow<'t, str>),
    last: impl Fn(&D, &T) -> bool,
) -> Vec<Option<&'l T>> {
    let what = kind.label();
    let keys: Vec<(&'l str, Cow<'l, str>)> = live.iter().map(|l| key(*l)).collect();
    let found = match_entries(wanted, &keys, |d, k| last(d, live[k]));
    for &(i, fault) in &found.pin_faults {
        let d = &wanted[i];
        let id = d.id().unwrap_or_default();
        let message = match fault {
            PinFault::Taken { by } => format!(
                "{what} `{}` is pinned to id {id}, which `{}` is pinned to already",
                d.name(),
                wanted[by].name()
            ),
            PinFault::Unknown => format!(
                "{what} `{}` is pinned to id {id}, which names no {what} of this guild that guildctl may change",
                d.name()
            ),
        };
        cx.problem(
            Some(format!("{section}[{i}].id")),
            message,
            Some("remove the `id` to match it by name, or correct it"),
        );
    }
    let (out, used, by_name) = (found.found, found.used, found.by_name);
    let used_ids: HashSet<&str> = used.iter().map(|&k| keys[k].0).collect();
    for (i, d) in wanted.iter().enumerate() {
        let Some(k) = out[i] else { continue };
        let candidates: Vec<&str> = std::iter::once(d.name())
            .chain(d.previous_names().iter().map(String::as_str))
            .filter_map(|n| by_name.get(n))
            .flatten()
            .map(|&c| keys[c].0)
            .collect();
        let m = Matched {
            kind,
            name: d.name().to_owned(),
            source: format!("{section}[{i}]"),
            pinned: d.id().is_some(),
            id: keys[k].0,
            live_name: &keys[k].1,
        };
        note_duplicates(cx, m, candidates, &used_ids);
    }
    out.into_iter().map(|k| k.map(|k| live[k])).collect()
}
