//! The channel planner's run: the declared channels flattened out of the category tree,
//! matched, each updated or created, the undeclared pruned, the order planned.

use std::borrow::Cow;

use hashbrown::HashSet;

use crate::discord::models::channel_type;
use crate::discord::names::{stored_channel_name, stored_display_name};
use crate::manifest::Channel;
use crate::plan::{IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::context::{Ctx, UNSEEN_HELP};

use super::access::record_access;
use super::changes::{Wanted, plan_create, plan_unmatched, plan_update};
use super::checks::{
    check_announcement_thread_slowmode, check_bitrate, check_category_sizes, check_require_tag,
    check_spoiler_nsfw,
};
use super::matching::{add_live_ref, live_ref, match_channels, suggest_previous_names};
use super::overwrites::{Ow, carried_by_categories, desired_overwrites, live_set};
use super::positions::plan_order;
use super::{Decl, Declared, follows};

pub(super) fn flatten(channels: &[Channel]) -> Vec<Decl<'_>> {
    let mut out = Vec::new();
    for (i, ch) in channels.iter().enumerate() {
        let kind = ch.channel_type().value() as u8;
        let idx = out.len();
        out.push(Decl {
            ch,
            kind,
            parent: None,
            source: format!("channels[{i}]"),
            key: format!("channel:{}", ch.name),
        });
        for (j, child) in ch.channels.iter().flatten().enumerate() {
            out.push(Decl {
                ch: child,
                kind: child.channel_type().value() as u8,
                parent: Some(idx),
                source: format!("channels[{i}].channels[{j}]"),
                key: format!("channel:{}/{}", ch.name, child.name),
            });
        }
    }
    out
}

pub(crate) fn plan_channels(cx: &mut Ctx) {
    let snap = cx.snap;
    let Some(declared) = cx.manifest.channels.as_ref() else {
        for c in &snap.channels {
            add_live_ref(cx, c);
            cx.unmanaged.push(live_ref(snap, c));
        }
        return;
    };
    let decls = flatten(declared);
    let matches = match_channels(cx, &decls);
    let ids: Vec<IdRef> = decls
        .iter()
        .zip(&matches)
        .map(|(d, m)| match m {
            Some(l) => IdRef::Live(l.id.clone()),
            None => IdRef::New(d.key.clone()),
        })
        .collect();
    for (d, id) in decls.iter().zip(&ids) {
        let parent = d.parent.map(|p| decls[p].ch.name.as_str());
        cx.add_channel_ref(id, d.kind, &d.ch.name, parent);
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|m| m.id.as_str()).collect();
    // A name in a reference means the declared channel, not a duplicate of it.
    let duplicates: HashSet<String> = cx
        .duplicates
        .iter()
        .filter(|d| matches!(d.kind, Kind::Channel | Kind::Category))
        .flat_map(|d| d.others.iter().cloned())
        .collect();
    for c in &snap.channels {
        if !matched.contains(c.id.as_str()) && !duplicates.contains(&c.id) {
            add_live_ref(cx, c);
        }
    }

    let desired_ows: Vec<Option<Vec<Ow>>> = desired_overwrites(cx, &decls, &matches);
    let carried = carried_by_categories(&snap.channels, &decls, &matches, &desired_ows);
    let declared = Declared {
        decls: &decls,
        matches: &matches,
        ids: &ids,
        overwrites: &desired_ows,
    };
    suggest_previous_names(cx, declared);
    let enabling_community = cx.manifest.settings.as_ref().and_then(|s| s.community) == Some(true);
    let has_news = snap.guild.has_feature("NEWS");

    // Channels created after COMMUNITY is on land at the bottom after all others.
    let mut created_late: HashSet<usize> = HashSet::new();
    for (i, d) in decls.iter().enumerate() {
        let parent_ref = d.parent.map(|p| ids[p].clone());
        let needs_news = d.kind == channel_type::ANNOUNCEMENT
            && matches[i].is_none_or(|l| l.kind != channel_type::ANNOUNCEMENT);
        let phase = if needs_news && !has_news {
            if !enabling_community {
                cx.problem(
                    Some(d.source.clone()),
                    format!(
                        "announcement channel `{}` needs a community guild (the NEWS feature)",
                        d.ch.name
                    ),
                    Some("set `settings.community: true`, or make it a text channel"),
                );
                continue;
            }
            created_late.insert(i);
            Phase::AfterCommunity
        } else if d.kind == channel_type::CATEGORY {
            Phase::CategoryWrite
        } else {
            Phase::ChannelWrite
        };
        check_bitrate(cx, d);
        check_require_tag(cx, d, matches[i]);
        check_spoiler_nsfw(cx, d, matches[i]);
        check_announcement_thread_slowmode(cx, d, matches[i]);
        if let Some(live) = matches[i]
            && desired_ows[i].is_none()
            && !live.permission_overwrites.is_empty()
        {
            // Left alone, so reported: drift ranks those that grant power.
            cx.unmanaged.push(ObjectRef {
                kind: Kind::Overwrites,
                ..live_ref(snap, live)
            });
        }
        let (changes, problems) = (cx.changes.len(), cx.problems.len());
        // What its overwrites are when its own calls start: the live set, or its
        // category's new one where the category's write carries over to it.
        let inherited: Option<Cow<'_, [Ow]>> = matches[i].map(|l| match carried.get(&l.id) {
            Some(set) => Cow::Borrowed(set.as_slice()),
            None => Cow::Owned(live_set(l)),
        });
        match matches[i] {
            Some(live) => plan_update(
                cx,
                &decls,
                i,
                live,
                inherited.as_deref().unwrap_or_default(),
                Wanted {
                    ows: desired_ows[i].as_deref(),
                    parent: parent_ref,
                    phase,
                },
            ),
            None if !snap.sees_every_channel() && !may_create_unseen(cx, &decls, i) => {
                cx.problem(
                    Some(d.source.clone()),
                    format!(
                        "channel `{}` is not among the channels the bot can see; it may exist hidden \
                         from the bot, which is not an administrator, so guildctl will not create it",
                        d.display(&decls)
                    ),
                    Some(UNSEEN_HELP),
                );
            }
            None => plan_create(cx, &decls, i, desired_ows[i].as_deref(), parent_ref, phase),
        }
        if cx.problems.len() == problems {
            let change = (cx.changes.len() > changes).then(|| cx.changes.len() - 1);
            // A set the manifest leaves alone still follows its category where Discord
            // copies the category's new one; a new channel without one copies its category's.
            let set = desired_ows[i].as_deref().or_else(|| {
                matches[i]
                    .and_then(|l| carried.get(&l.id))
                    .map(Vec::as_slice)
            });
            record_access(cx, &decls, &ids, i, set, change);
            if d.ch.follows.is_some() {
                follows::plan_follows(cx, d.ch, &d.source, &ids[i], &d.display(&decls));
            }
        }
    }

    let declared_order: Vec<String> = ids.iter().map(|id| id.key().to_owned()).collect();
    cx.access_after.order_channels(&declared_order);
    let matched: HashSet<&str> = matches.iter().flatten().map(|c| c.id.as_str()).collect();
    plan_unmatched(cx, &matched);
    plan_order(cx, &decls, &matches, &ids, &created_late);
    check_category_sizes(cx, &decls, &matches, &matched);
}

/// Whether the user named declared channel `i` in `--create-unseen` (by name or
/// `Category/name`, as written or as Discord stores it).
pub(super) fn may_create_unseen(cx: &Ctx, decls: &[Decl], i: usize) -> bool {
    let d = &decls[i];
    let parent = d.parent.map(|p| decls[p].ch.name.as_str());
    let stored = d.stored_name();
    cx.options.create_unseen.iter().any(|wanted| {
        let (wanted_parent, wanted_name) = match wanted.rsplit_once('/') {
            Some((p, n)) => (Some(p.trim()), n.trim()),
            None => (None, wanted.trim()),
        };
        (wanted_name == d.ch.name || stored_channel_name(d.kind, wanted_name) == stored)
            && wanted_parent.is_none_or(|p| Some(&*stored_display_name(p)) == parent)
    })
}
