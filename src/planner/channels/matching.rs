//! Declared channels matched to live ones (pinned id, name, previous names), the live
//! references kept for what names a channel, and previous names suggested.

use std::borrow::Cow;

use hashbrown::{HashMap, HashSet};

use crate::access::model::display_name;
use crate::discord::models::{Channel as LiveChannel, channel_type};
use crate::discord::names::{is_normalised_type, stored_channel_name, stored_display_name};
use crate::plan::{IdRef, ObjectRef};
use crate::plan_kit::context::{Ctx, UNSEEN_HELP};
use crate::plan_kit::matching::{Matched, note_duplicates};
use crate::snapshot::snowflake_cmp;

use super::overwrites::{Ow, listed};
use super::{Decl, Declared, Group, group_of, object_kind};

/// A channel created beside a live one the manifest does not declare, of the same type,
/// in the same category and with the same overwrites, is most likely that channel renamed
/// without `previous_names`: said at the new name, since apply would create a second one.
pub(super) fn suggest_previous_names(cx: &mut Ctx, declared: Declared) {
    let Declared {
        decls,
        matches,
        ids,
        overwrites: desired_ows,
    } = declared;
    let matched: HashSet<&str> = matches.iter().flatten().map(|m| m.id.as_str()).collect();
    let kept: Vec<&LiveChannel> = cx
        .snap
        .channels
        .iter()
        .filter(|c| !matched.contains(c.id.as_str()))
        .collect();
    for (i, d) in decls.iter().enumerate() {
        if matches[i].is_some() {
            continue;
        }
        let parent = d.parent.map(|p| &ids[p]);
        let alike: Vec<&&LiveChannel> = kept
            .iter()
            .filter(|c| {
                c.kind == d.kind
                    && parent.map(IdRef::key) == c.parent_id.as_deref()
                    && desired_ows[i].as_ref().is_none_or(|want| {
                        let have: Vec<Ow> =
                            c.permission_overwrites.iter().map(Ow::from_live).collect();
                        listed(want) == listed(&have)
                    })
            })
            .collect();
        if let [live] = alike.as_slice() {
            let what = if d.kind == channel_type::CATEGORY {
                "category"
            } else {
                "channel"
            };
            let message = format!(
                "{what} `{}` is created beside live {what} `{}` (id {}), which the manifest does not declare and which has the same type, place and overwrites: if it is that {what} renamed, add `previous_names: [{}]` to keep its id and messages",
                d.ch.name, live.name, live.id, live.name
            );
            cx.warn(Some(format!("{}.name", d.source)), message);
        }
    }
}

/// Makes an undeclared live channel referable by name.
pub(super) fn add_live_ref(cx: &mut Ctx, c: &LiveChannel) {
    let parent = c
        .parent_id
        .as_deref()
        .and_then(|p| cx.snap.channel(p))
        .map(|p| p.name.clone());
    cx.add_channel_ref(
        &IdRef::Live(c.id.clone()),
        c.kind,
        &c.name,
        parent.as_deref(),
    );
}

pub(super) fn live_ref(snap: &crate::snapshot::Snapshot, c: &LiveChannel) -> ObjectRef {
    let parent = c
        .parent_id
        .as_deref()
        .and_then(|p| snap.channel(p))
        .map(|p| p.name.as_str());
    ObjectRef {
        kind: object_kind(c.kind),
        name: display_name(c.kind, &c.name, parent),
        id: Some(c.id.clone()),
    }
}

/// Matches declared channels to live ones: pinned id; then categories by name and
/// previous names; then channels by name and previous names within the same parent
/// and sorting group; then by a unique name anywhere (a move between categories).
pub(super) fn match_channels<'s>(cx: &mut Ctx<'s>, decls: &[Decl]) -> Vec<Option<&'s LiveChannel>> {
    let live: &'s [LiveChannel] = &cx.snap.channels;
    let mut out: Vec<Option<&'s LiveChannel>> = vec![None; decls.len()];
    let mut used: HashSet<&str> = HashSet::new();
    for (i, d) in decls.iter().enumerate() {
        if let Some(id) = &d.ch.id {
            match cx.snap.channel(&id.0) {
                Some(c) => {
                    out[i] = Some(c);
                    used.insert(&c.id);
                }
                // Never created anew: a pinned channel that is missing may only be hidden.
                None if !cx.snap.sees_every_channel() => cx.problem(
                    Some(format!("{}.id", d.source)),
                    format!(
                        "channel `{}` is pinned to id {id}, which is not among the channels the bot \
                         can see: it may be hidden from the bot, or deleted",
                        d.ch.name
                    ),
                    Some(UNSEEN_HELP),
                ),
                None => cx.problem(
                    Some(format!("{}.id", d.source)),
                    format!(
                        "channel `{}` is pinned to id {id}, which is not a channel of this guild",
                        d.ch.name
                    ),
                    Some("remove the `id` to match the channel by name, or correct it"),
                ),
            }
        }
    }
    // Live channels by group and name key, in live order, so each declared channel looks
    // up its candidates instead of comparing with every live channel (500 declared against
    // 500 live are 250,000 comparisons a pass). Keys are the reduction the declared side
    // gets: text-like types compare by the text-channel name, the others by the display
    // name (a live category `Mod  Team` is the declared `Mod Team`).
    type ByName = HashMap<Group, HashMap<String, Vec<usize>>>;
    let (mut by_text, mut by_display) = (ByName::new(), ByName::new());
    for (at, c) in live.iter().enumerate() {
        let group = group_of(c.kind);
        let text = stored_channel_name(channel_type::TEXT, &c.name);
        let display = stored_display_name(&c.name);
        by_text
            .entry(group)
            .or_default()
            .entry(text.into_owned())
            .or_default()
            .push(at);
        by_display
            .entry(group)
            .or_default()
            .entry(display.into_owned())
            .or_default()
            .push(at);
    }
    // Of several channels of one name, the oldest is matched first (plan::matching).
    for names in by_text.values_mut().chain(by_display.values_mut()) {
        for same in names.values_mut() {
            same.sort_by(|&a, &b| snowflake_cmp(&live[a].id, &live[b].id));
        }
    }
    // The live channels (indexes into `live`, oldest first) a declared channel of `kind`
    // whose stored name is `key` would be.
    let named = |kind: u8, key: &str| -> &[usize] {
        let index = if is_normalised_type(kind) {
            &by_text
        } else {
            &by_display
        };
        index
            .get(&group_of(kind))
            .and_then(|names| names.get(key))
            .map_or(&[][..], Vec::as_slice)
    };
    let decl_keys: Vec<Cow<'_, str>> = decls.iter().map(Decl::stored_name).collect();
    let same_name = |i: usize| named(decls[i].kind, &decl_keys[i]).to_vec();
    let was_named = |i: usize| {
        let d = &decls[i];
        let mut found: Vec<usize> =
            d.ch.previous_names
                .iter()
                .flat_map(|p| {
                    named(d.kind, &stored_channel_name(d.kind, p))
                        .iter()
                        .copied()
                })
                .collect();
        found.sort_by(|&a, &b| snowflake_cmp(&live[a].id, &live[b].id));
        found.dedup();
        found
    };
    // Categories first, so children can be matched within their category.
    for candidates_of in [&same_name as &dyn Fn(usize) -> Vec<usize>, &was_named] {
        for (i, d) in decls.iter().enumerate() {
            if out[i].is_some() || d.kind != channel_type::CATEGORY {
                continue;
            }
            if let Some(c) = candidates_of(i)
                .into_iter()
                .map(|at| &live[at])
                .find(|c| !used.contains(c.id.as_str()))
            {
                out[i] = Some(c);
                used.insert(&c.id);
            }
        }
    }
    for candidates_of in [&same_name as &dyn Fn(usize) -> Vec<usize>, &was_named] {
        for within_parent in [true, false] {
            for (i, d) in decls.iter().enumerate() {
                if out[i].is_some() || d.kind == channel_type::CATEGORY {
                    continue;
                }
                let parent_id: Option<Option<&str>> = match d.parent {
                    None => Some(None),
                    Some(p) => out[p].map(|c| Some(c.id.as_str())),
                };
                let candidates: Vec<&'s LiveChannel> = candidates_of(i)
                    .into_iter()
                    .map(|at| &live[at])
                    .filter(|c| {
                        !used.contains(c.id.as_str())
                            && (!within_parent || Some(c.parent_id.as_deref()) == parent_id)
                    })
                    .collect();
                // Outside the parent, only an unambiguous name counts as the same channel.
                if candidates.len() == 1 || (within_parent && !candidates.is_empty()) {
                    out[i] = Some(candidates[0]);
                    used.insert(&candidates[0].id);
                }
            }
        }
    }
    // A declared channel that more than one live channel in its place answers to.
    for (i, d) in decls.iter().enumerate() {
        let Some(managed) = out[i] else { continue };
        let place: Option<Option<&str>> = match d.parent {
            None => Some(None),
            Some(p) => out[p].map(|c| Some(c.id.as_str())),
        };
        let mut candidates = same_name(i);
        candidates.extend(was_named(i));
        let in_place = candidates
            .into_iter()
            .map(|at| &live[at])
            .filter(|c| d.kind == channel_type::CATEGORY || Some(c.parent_id.as_deref()) == place)
            .map(|c| c.id.as_str());
        let m = Matched {
            kind: object_kind(d.kind),
            name: d.display(decls),
            source: d.source.clone(),
            pinned: d.ch.id.is_some(),
            id: &managed.id,
            live_name: &managed.name,
        };
        note_duplicates(cx, m, in_place, &used);
    }
    out
}
