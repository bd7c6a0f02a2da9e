//! Which live object a declared entry is, for the kinds matched by a pinned id, their name
//! and their previous names: custom emoji, sounds, stickers ([`super::expressions`]),
//! scheduled events and AutoMod rules.

use hashbrown::{HashMap, HashSet};

use super::context::Ctx;
use crate::manifest::{AutoModRule, GuildEmoji, GuildSticker, ScheduledEvent, SoundboardSound};

/// A declared entry as matching sees it: its pinned id, its name, its previous names.
pub(super) trait Declared {
    fn id(&self) -> Option<&str>;
    fn name(&self) -> &str;
    fn previous_names(&self) -> &[String];
}

macro_rules! declared {
    ($($kind:ty),*) => {$(
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
        }
    )*};
}

declared!(
    GuildEmoji,
    SoundboardSound,
    GuildSticker,
    ScheduledEvent,
    AutoModRule
);

/// Matches the declared entries of `section` to `live`, each seen through `key` as
/// `(id, name)`: the pinned id, then the name, then the previous names (in their order),
/// each time the first live object not matched yet. A pinned id that names no live object,
/// or one an entry before it is pinned to, is a problem at the entry's `id`; `what` names
/// the kind there.
pub(super) fn match_live<'l, T: ?Sized>(
    cx: &mut Ctx,
    section: &str,
    what: &str,
    wanted: &[impl Declared],
    live: &[&'l T],
    key: impl Fn(&T) -> (&str, &str),
) -> Vec<Option<&'l T>> {
    let mut out: Vec<Option<usize>> = vec![None; wanted.len()];
    let mut used: HashSet<usize> = HashSet::new();
    let keys: Vec<(&str, &str)> = live.iter().map(|l| key(l)).collect();
    let by_id: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(k, (id, _))| (*id, k))
        .collect();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, name)) in keys.iter().enumerate() {
        by_name.entry(name).or_default().push(k);
    }
    for (i, d) in wanted.iter().enumerate() {
        let Some(id) = d.id() else { continue };
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
            if out[i].is_some() || d.id().is_some() {
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
                .flat_map(|v| v.iter().copied())
                .find(|k| !used.contains(k));
            if let Some(k) = found {
                used.insert(k);
                out[i] = Some(k);
            }
        }
    }
    out.into_iter().map(|k| k.map(|k| live[k])).collect()
}
