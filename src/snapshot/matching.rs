//! Which live object a declared entry is: by a pinned id, then its name, then its previous
//! names, the oldest of a name first (docs/decisions.md, "Duplicates"). The reading room
//! uses it to learn what to read (a roster role's live id) without planning; the planner
//! (`plan_kit::matching`) runs it and turns what it finds into problems, warnings
//! and duplicates.

use std::borrow::Cow;

use hashbrown::{HashMap, HashSet};

use super::snowflake_cmp;
use crate::manifest::{Role, Webhook};

/// A declared entry as matching sees it: its pinned id, its name, its previous names.
pub trait Declared {
    fn id(&self) -> Option<&str>;
    fn name(&self) -> &str;
    fn previous_names(&self) -> &[String];
    /// Matched by its planner, not by name (`@everyone` is the guild's default role).
    fn matched_apart(&self) -> bool {
        false
    }
}

/// Implements [`Declared`] for manifest kinds with `id`, `name` and `previous_names`; a
/// kind some of whose entries are matched apart says which after `=>`. A section that is a
/// unit says it of its own kind (`crate::sections`).
macro_rules! declared {
    ($($kind:ty $(=> $apart:expr)?),* $(,)?) => {$(
        impl $crate::snapshot::matching::Declared for $kind {
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
pub(crate) use declared;

declared!(
    Webhook,
    Role => |r| r.name == crate::discord::names::EVERYONE,
);

/// Why a pinned id matched nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinFault {
    /// The entry at this index is pinned to the same live object, and came first.
    Taken { by: usize },
    /// No live object has the id.
    Unknown,
}

/// What [`match_entries`] found: for each declared entry the index of its live object, the
/// pins that matched nothing (in the entries' order), and every live object taken.
#[derive(Debug, Clone, Default)]
pub struct Matches<'k> {
    pub found: Vec<Option<usize>>,
    pub pin_faults: Vec<(usize, PinFault)>,
    pub used: HashSet<usize>,
    /// The live objects of each name, oldest first.
    pub by_name: HashMap<&'k str, Vec<usize>>,
}

/// Matches `wanted` to the live objects `keys` describes as `(id, name)` (the name in the
/// form the declared names have): the pinned id, then the name, then any of the previous
/// names, then what `last` accepts for the entry and the live object at that index
/// (AutoMod's one rule of a kind), each time the oldest live object not matched yet.
pub fn match_entries<'k, D: Declared>(
    wanted: &[D],
    keys: &'k [(&str, Cow<'_, str>)],
    last: impl Fn(&D, usize) -> bool,
) -> Matches<'k> {
    let mut out: Vec<Option<usize>> = vec![None; wanted.len()];
    let mut used: HashSet<usize> = HashSet::new();
    let mut pin_faults = Vec::new();
    let by_id: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(k, (id, _))| (*id, k))
        .collect();
    let by_name = by_name(keys);
    for (i, d) in wanted.iter().enumerate() {
        let Some(id) = d.id().filter(|_| !d.matched_apart()) else {
            continue;
        };
        match by_id.get(id) {
            Some(&k) => match out.iter().position(|o| *o == Some(k)) {
                None => {
                    used.insert(k);
                    out[i] = Some(k);
                }
                Some(first) => pin_faults.push((i, PinFault::Taken { by: first })),
            },
            None => pin_faults.push((i, PinFault::Unknown)),
        }
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
    let mut oldest_first: Vec<usize> = (0..keys.len()).collect();
    oldest_first.sort_by(|&a, &b| snowflake_cmp(keys[a].0, keys[b].0));
    for (i, d) in wanted.iter().enumerate() {
        if out[i].is_some() || d.id().is_some() || d.matched_apart() {
            continue;
        }
        let found = oldest_first
            .iter()
            .copied()
            .find(|&k| !used.contains(&k) && last(d, k));
        if let Some(k) = found {
            used.insert(k);
            out[i] = Some(k);
        }
    }
    Matches {
        found: out,
        pin_faults,
        used,
        by_name,
    }
}

/// The live objects of each name, oldest first.
fn by_name<'k>(keys: &'k [(&str, Cow<'_, str>)]) -> HashMap<&'k str, Vec<usize>> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, name)) in keys.iter().enumerate() {
        by_name.entry(name.as_ref()).or_default().push(k);
    }
    for same in by_name.values_mut() {
        same.sort_by(|&a, &b| snowflake_cmp(keys[a].0, keys[b].0));
    }
    by_name
}
