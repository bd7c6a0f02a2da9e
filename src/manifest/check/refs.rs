//! The channel reference rule, one for the checks and the planner alike: `Category/name`
//! or a plain name, names compared as Discord stores them, and the exact name winning a tie
//! ([`match_channel_ref`]). Channel references (`settings.*_channel`, `widget.channel`,
//! welcome screen and onboarding channels, `webhooks[].channel`) all follow it.

use std::borrow::Cow;

use crate::discord::names::{channel_answers_to, stored_channel_name};
use crate::manifest::types::ChannelType;

/// Splits a channel reference into its category and its name: `Help/help` is channel `help`
/// in category `Help`, `help` is a plain name (`None`). The split is at the last `/`
/// (Discord drops `/` from text-like channel names, category names may contain it); a
/// reference that starts or ends with `/` is a plain name.
///
/// A plain name picks any channel of that name; when two or more match, the reference is
/// ambiguous and must be qualified. See [`match_channel_ref`].
pub fn split_channel_ref(r: &str) -> (Option<&str>, &str) {
    match r.rfind('/') {
        Some(i) if i > 0 && i + 1 < r.len() => (Some(&r[..i]), &r[i + 1..]),
        _ => (None, r),
    }
}

/// One channel a reference may name: its type, its name (as declared in a manifest or as
/// Discord stores it) and the name of its category (`None` at the top level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelKey<'a> {
    pub kind: ChannelType,
    pub name: &'a str,
    pub category: Option<&'a str>,
}

/// Whether a channel of type `kind` called `name` answers to the (unqualified) name `wanted`:
/// text-like channels compare in the form Discord stores (`General Chat` = `general-chat`),
/// other channels and categories exactly.
pub fn channel_name_matches(kind: ChannelType, name: &str, wanted: &str) -> bool {
    channel_answers_to(kind.value() as u8, name, wanted)
}

/// The channel reference rule, for the checks and the planner alike. Returns the indices of
/// the `candidates` that `r` names:
///
/// - `Category/name` names the channels called `name` in the category called `Category`
///   (exactly); a plain name names channels of that name anywhere. Names compare with
///   [`channel_name_matches`]. If a qualified reference matches nothing, the whole text is
///   tried as a plain name (a voice channel may be called `AC/DC`).
/// - When several match, a candidate whose name is exactly the written name (as Discord stores
///   it) wins if it is the only one: `General` picks voice channel `General` over text channel
///   `general`.
///
/// One index: resolved. None: not there. Several: ambiguous (an error in a manifest; qualify
/// it). Pass only the channel types the reference may name, and ask again with every type to
/// tell "wrong type" from "missing".
pub fn match_channel_ref<'a>(
    r: &str,
    candidates: impl IntoIterator<Item = ChannelKey<'a>>,
) -> Vec<usize> {
    let cands: Vec<ChannelKey<'a>> = candidates.into_iter().collect();
    let find = |cat: Option<&str>, name: &str| -> Vec<usize> {
        (0..cands.len())
            .filter(|&i| {
                let c = &cands[i];
                channel_name_matches(c.kind, c.name, name) && (cat.is_none() || c.category == cat)
            })
            .collect()
    };
    resolve_channel_ref(r, find, |i| stored_name(cands[i].kind, cands[i].name))
}

/// The rule of [`match_channel_ref`] over any way of finding candidates: `find(category,
/// name)` lists those a (possibly qualified) name matches, `stored(i)` is candidate `i`'s
/// name as Discord stores it. A qualified reference that matches nothing is tried whole
/// as a plain name; of several matches, the only one named exactly as written wins.
pub(crate) fn resolve_channel_ref<S: AsRef<str>>(
    r: &str,
    find: impl Fn(Option<&str>, &str) -> Vec<usize>,
    stored: impl Fn(usize) -> S,
) -> Vec<usize> {
    let (cat, mut name) = split_channel_ref(r);
    let mut found = find(cat, name);
    if found.is_empty() && cat.is_some() {
        name = r;
        found = find(None, r);
    }
    if found.len() > 1 {
        let exact: Vec<usize> = found
            .iter()
            .copied()
            .filter(|&i| stored(i).as_ref() == name)
            .collect();
        if exact.len() == 1 {
            return exact;
        }
    }
    found
}

/// A channel's name in the form a reference's exact-name tie-break compares.
pub(super) fn stored_name(kind: ChannelType, name: &str) -> Cow<'_, str> {
    stored_channel_name(kind.value() as u8, name)
}
