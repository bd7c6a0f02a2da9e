//! Which live object a declared entry is, and where a declared entry matches more than one.
//!
//! Roles, webhooks, custom emoji, sounds, stickers ([`super::expressions`]), scheduled events
//! and AutoMod rules are matched here ([`match_live`]): by a pinned id, then their name, then
//! their previous names. Channels are matched by their own planner, which adds places (a
//! category, a sorting group) and moves between them; it reports its duplicates through the
//! same check ([`note_duplicates`]).
//!
//! One rule picks among live objects of one name (docs/decisions.md, "Duplicates"): the
//! pinned id; otherwise the name before the previous names, and of several bearing them, the
//! oldest (the lowest id, which is the earliest created). Ids do not change, so the choice
//! is the same on every run, whatever a plan renames or reorders.

use std::borrow::Cow;

use hashbrown::{HashMap, HashSet};

use super::Kind;
use super::context::{Ctx, Duplicate};
use crate::manifest::{
    AutoModRule, GuildEmoji, GuildSticker, Role, ScheduledEvent, SoundboardSound, Webhook,
};
use crate::snapshot::snowflake_cmp;

/// A declared entry as matching sees it: its pinned id, its name, its previous names.
pub(super) trait Declared {
    fn id(&self) -> Option<&str>;
    fn name(&self) -> &str;
    fn previous_names(&self) -> &[String];
    /// Matched by its planner, not by name (`@everyone` is the guild's default role).
    fn matched_apart(&self) -> bool {
        false
    }
}

/// Implements [`Declared`] for manifest kinds with `id`, `name` and `previous_names`; a
/// kind some of whose entries are matched apart says which after `=>`.
macro_rules! declared {
    ($($kind:ty $(=> $apart:expr)?),* $(,)?) => {$(
        impl Declared for $kind {
            fn id(&self) -> Option<&str> {
                self.id.as_ref().map(|i| i.0.as_str())
            }
            fn name(&self) -> &str {
                &self.name
            }
            fn previous_names(&self) -> &[String] {
                &self.previous_names
            }
            $(
                fn matched_apart(&self) -> bool {
                    let apart: fn(&Self) -> bool = $apart;
                    apart(self)
                }
            )?
        }
    )*};
}

declared!(
    GuildEmoji,
    SoundboardSound,
    GuildSticker,
    ScheduledEvent,
    AutoModRule,
    Webhook,
    Role => |r| r.name == crate::discord::names::EVERYONE,
);

/// A declared entry and the live object it manages, as the duplicate check sees them.
pub(super) struct Matched<'a> {
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
pub(super) fn note_duplicates<'a>(
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
pub(super) fn match_live<'l, D: Declared, T: ?Sized>(
    cx: &mut Ctx,
    section: &str,
    kind: Kind,
    wanted: &[D],
    live: &[&'l T],
    key: impl for<'t> Fn(&'t T) -> (&'t str, Cow<'t, str>),
    last: impl Fn(&D, &T) -> bool,
) -> Vec<Option<&'l T>> {
    let what = kind.label();
    let mut out: Vec<Option<usize>> = vec![None; wanted.len()];
    let mut used: HashSet<usize> = HashSet::new();
    let keys: Vec<(&'l str, Cow<'l, str>)> = live.iter().map(|l| key(*l)).collect();
    let by_id: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(k, (id, _))| (*id, k))
        .collect();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, name)) in keys.iter().enumerate() {
        by_name.entry(name.as_ref()).or_default().push(k);
    }
    for same in by_name.values_mut() {
        same.sort_by(|&a, &b| snowflake_cmp(keys[a].0, keys[b].0));
    }
    for (i, d) in wanted.iter().enumerate() {
        let Some(id) = d.id().filter(|_| !d.matched_apart()) else {
            continue;
        };
        let message = match by_id.get(id) {
            Some(&k) => match out.iter().position(|o| *o == Some(k)) {
                None => {
                    used.insert(k);
                    out[i] = Some(k);
                    continue;
                }
                Some(first) => format!(
                    "{what} `{}` is pinned to id {id}, which `{}` is pinned to already",
                    d.name(),
                    wanted[first].name()
                ),
            },
            None => format!(
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
    for previous in [false, true] {
        for (i, d) in wanted.iter().enumerate() {
            if out[i].is_some() || d.id().is_some() || d.matched_apart() {
                continue;
            }
            let names: Vec<&str> = if previous {
                d.previous_names().iter().map(String::as_str).collect()
            } else {
                vec![d.name()]
            };
            let found = names
                .iter()
                .filter_map(|n| by_name.get(n))
                .filter_map(|v| v.iter().copied().find(|k| !used.contains(k)))
                .min_by(|&a, &b| snowflake_cmp(keys[a].0, keys[b].0));
            if let Some(k) = found {
                used.insert(k);
                out[i] = Some(k);
            }
        }
    }
    let mut oldest_first: Vec<usize> = (0..live.len()).collect();
    oldest_first.sort_by(|&a, &b| snowflake_cmp(keys[a].0, keys[b].0));
    for (i, d) in wanted.iter().enumerate() {
        if out[i].is_some() || d.id().is_some() || d.matched_apart() {
            continue;
        }
        let found = oldest_first
            .iter()
            .copied()
            .find(|&k| !used.contains(&k) && last(d, live[k]));
        if let Some(k) = found {
            used.insert(k);
            out[i] = Some(k);
        }
    }
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
