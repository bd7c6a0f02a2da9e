//! Channels and categories: matching, field and overwrite changes, moves
//! between categories, order within Discord's sorting groups, pruning.

use std::borrow::Cow;

use hashbrown::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::access::model::display_name;
use crate::discord::Route;
use crate::discord::models::{Channel as LiveChannel, OVERWRITE_ROLE, channel_type};
use crate::discord::names::{is_normalised_type, stored_channel_name, stored_display_name};
use crate::manifest::{Channel, ChannelType, VideoQualityMode};
use crate::permissions::Permissions;
use crate::plan::field;
use crate::plan::{Action, Field, FieldChange, Kind, ObjectRef};
use crate::plan::{IdRef, Phase};
use crate::planner::context::{ChangeBuilder, Ctx, Op, UNSEEN_HELP, change};
use crate::planner::matching::{Matched, note_duplicates};
use crate::snapshot::snowflake_cmp;

mod checks;
mod flags;
mod follows;
mod overwrites;
mod positions;

use checks::{
    check_announcement_thread_slowmode, check_bitrate, check_category_sizes, check_require_tag,
    check_spoiler_nsfw,
};
use overwrites::{
    Ow, carried_by_categories, desired_overwrites, listed, live_set, overwrites_display, same_set,
};
use positions::plan_order;

/// Discord sorts channels within these groups (docs/discord.md §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group {
    Category,
    TextLike,
    VoiceLike,
}

fn group_of(kind: u8) -> Group {
    match kind {
        channel_type::CATEGORY => Group::Category,
        channel_type::VOICE | channel_type::STAGE => Group::VoiceLike,
        _ => Group::TextLike,
    }
}

/// One declared channel, flattened out of the category tree.
struct Decl<'m> {
    ch: &'m Channel,
    kind: u8,
    /// Index (in the flattened list) of the category this channel is declared in.
    parent: Option<usize>,
    source: String,
    key: String,
}

impl Decl<'_> {
    /// The name as Discord will store it.
    fn stored_name(&self) -> Cow<'_, str> {
        stored_channel_name(self.kind, &self.ch.name)
    }

    fn display(&self, decls: &[Decl]) -> String {
        display_name(
            self.kind,
            &self.stored_name(),
            self.parent.map(|p| decls[p].ch.name.as_str()),
        )
    }
}

fn flatten(channels: &[Channel]) -> Vec<Decl<'_>> {
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

pub(super) fn plan_channels(cx: &mut Ctx) {
    let snap = cx.snap;
    let Some(declared) = cx.manifest.channels.as_ref() else {
        for c in &snap.channels {
            add_live_ref(cx, c);
            cx.unmanaged.push(live_ref(snap, c));
        }
        record_everyone_can_send(cx, &[], &[], &[], &[], &HashMap::new());
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
    record_everyone_can_send(cx, &decls, &matches, &ids, &desired_ows, &carried);
    suggest_previous_names(cx, &decls, &matches, &ids, &desired_ows);
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
        let inherited =
            matches[i].map(|l| carried.get(&l.id).cloned().unwrap_or_else(|| live_set(l)));
        match matches[i] {
            Some(live) => plan_update(
                cx,
                &decls,
                i,
                live,
                desired_ows[i].as_deref(),
                inherited.as_deref().unwrap_or_default(),
                parent_ref,
                phase,
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
            let set = desired_ows[i]
                .clone()
                .or_else(|| matches[i].and_then(|l| carried.get(&l.id).cloned()));
            record_access(cx, &decls, &ids, i, set.as_deref(), change);
            follows::plan_follows(cx, d.ch, &d.source, &ids[i], &d.display(&decls));
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
fn may_create_unseen(cx: &Ctx, decls: &[Decl], i: usize) -> bool {
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

/// Records, for every channel, whether @everyone can view it and send messages in
/// it once the plan is applied (onboarding's requirements count these).
fn record_everyone_can_send(
    cx: &mut Ctx,
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
    ids: &[IdRef],
    desired: &[Option<Vec<Ow>>],
    carried: &HashMap<String, Vec<Ow>>,
) {
    let everyone = IdRef::Live(cx.guild_id.clone());
    let base = cx.everyone_after;
    let can_send = |ows: &[Ow]| -> bool {
        if base.contains(Permissions::ADMINISTRATOR) {
            return true;
        }
        let p = ows
            .iter()
            .find(|o| o.target == everyone && o.kind == OVERWRITE_ROLE)
            .map(|o| (base & !o.deny) | o.allow)
            .unwrap_or(base);
        p.contains(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES)
    };
    let mut finals: Vec<Vec<Ow>> = Vec::with_capacity(decls.len());
    for (i, d) in decls.iter().enumerate() {
        let set = match (&desired[i], matches[i]) {
            (Some(want), _) => want.clone(),
            (None, Some(live)) => carried
                .get(&live.id)
                .cloned()
                .unwrap_or_else(|| live_set(live)),
            // Created in a category without overwrites: Discord copies the category's.
            (None, None) => d.parent.map(|p| finals[p].clone()).unwrap_or_default(),
        };
        finals.push(set);
    }
    for (i, id) in ids.iter().enumerate() {
        let writable = can_send(&finals[i]);
        cx.everyone_can_send.insert(id.clone(), writable);
    }
    for c in &cx.snap.channels {
        let id = IdRef::Live(c.id.clone());
        cx.everyone_can_send.entry(id).or_insert_with(|| {
            let ows = carried.get(&c.id).cloned().unwrap_or_else(|| live_set(c));
            can_send(&ows)
        });
    }
}

/// Records declared channel `i` as the plan leaves it in the guild access is computed on;
/// `change` is the index of its change, a cause when it touches who may do what there.
fn record_access(
    cx: &mut Ctx,
    decls: &[Decl],
    ids: &[IdRef],
    i: usize,
    ows: Option<&[Ow]>,
    change: Option<usize>,
) {
    let d = &decls[i];
    let touches_access = |c: &crate::plan::Change| {
        c.action == Action::Create
            || c.fields.iter().any(|f| {
                f.field.is_overwrites()
                    || matches!(
                        f.field,
                        Field::Channel(field::Channel::Category | field::Channel::Type)
                    )
            })
    };
    let change = change.filter(|&c| touches_access(&cx.changes[c]));
    let set = ows.map(|set| {
        set.iter()
            .map(|o| crate::access::model::Overwrite {
                target: o.target.key().to_owned(),
                kind: o.kind,
                allow: o.allow,
                deny: o.deny,
            })
            .collect()
    });
    let parent = d.parent.map(|p| ids[p].key().to_owned());
    cx.access_after.set_channel(
        ids[i].key(),
        &d.stored_name(),
        d.kind,
        parent.as_deref(),
        set,
        Some(&d.source),
        change,
    );
}

/// A channel created beside a live one the manifest does not declare, of the same type,
/// in the same category and with the same overwrites, is most likely that channel renamed
/// without `previous_names`: said at the new name, since apply would create a second one.
fn suggest_previous_names(
    cx: &mut Ctx,
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
    ids: &[IdRef],
    desired_ows: &[Option<Vec<Ow>>],
) {
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
fn add_live_ref(cx: &mut Ctx, c: &LiveChannel) {
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

fn live_ref(snap: &crate::snapshot::Snapshot, c: &LiveChannel) -> ObjectRef {
    let parent = c
        .parent_id
        .as_deref()
        .and_then(|p| snap.channel(p))
        .map(|p| p.name.as_str());
    ObjectRef {
        kind: if c.kind == channel_type::CATEGORY {
            Kind::Category
        } else {
            Kind::Channel
        },
        name: display_name(c.kind, &c.name, parent),
        id: Some(c.id.clone()),
    }
}

/// Matches declared channels to live ones: pinned id; then categories by name and
/// previous names; then channels by name and previous names within the same parent
/// and sorting group; then by a unique name anywhere (a move between categories).
fn match_channels<'s>(cx: &mut Ctx<'s>, decls: &[Decl]) -> Vec<Option<&'s LiveChannel>> {
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
            kind: if d.kind == channel_type::CATEGORY {
                Kind::Category
            } else {
                Kind::Channel
            },
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

fn vqm_name(v: u64) -> Value {
    VideoQualityMode::from_value(v)
        .map(|m| json!(m.name()))
        .unwrap_or(json!(v))
}

/// Field changes of a channel against its live state (`None` for a new one), and warnings
/// about them for the plan, each with the field it is about (`name`, `tags`).
fn channel_fields(
    d: &Decl,
    live: Option<&LiveChannel>,
) -> (ChangeBuilder, Vec<(&'static str, String)>) {
    let mut b = ChangeBuilder::new();
    let ch = d.ch;
    let stored = d.stored_name();
    let mut notes = Vec::new();
    if live
        .map(|l| stored_channel_name(d.kind, &l.name))
        .as_deref()
        != Some(&*stored)
    {
        b.set(
            field::Channel::Name,
            json!(live.map(|l| &l.name)),
            json!(stored),
            json!(ch.name),
        );
    } else if let Some(l) = live.filter(|l| l.name != stored) {
        notes.push((
            "name",
            crate::planner::roles::whitespace_note("channel", &l.name, &stored),
        ));
    }
    if let Some(l) = live
        && l.kind != d.kind
    {
        let name = |k: u8| {
            ChannelType::from_value(k.into())
                .map(|t| json!(t.name()))
                .unwrap_or(json!(k))
        };
        b.set(
            field::Channel::Type,
            name(l.kind),
            name(d.kind),
            json!(d.kind),
        );
    }
    if let Some(topic) = &ch.topic {
        let want = topic.clone().filter(|t| !t.is_empty());
        let have = live.and_then(|l| l.topic.clone()).filter(|t| !t.is_empty());
        if want != have && !(live.is_none() && want.is_none()) {
            b.set(field::Channel::Topic, json!(have), json!(want), json!(want));
        }
    }
    let nsfw = live.map(|l| l.nsfw.unwrap_or(false));
    b.compare(field::Channel::Nsfw, nsfw, ch.nsfw.map(Some));
    let numbers: [(field::Channel, Option<u32>, Option<u32>); 5] = [
        (
            field::Channel::Slowmode,
            ch.slowmode,
            live.map(|l| l.rate_limit_per_user.unwrap_or(0)),
        ),
        (
            field::Channel::Bitrate,
            ch.bitrate,
            live.and_then(|l| l.bitrate),
        ),
        (
            field::Channel::UserLimit,
            ch.user_limit,
            live.map(|l| l.user_limit.unwrap_or(0)),
        ),
        (
            field::Channel::DefaultAutoArchiveDuration,
            ch.default_auto_archive_duration,
            live.and_then(|l| l.default_auto_archive_duration),
        ),
        (
            field::Channel::DefaultThreadSlowmode,
            ch.default_thread_slowmode,
            live.map(|l| l.default_thread_rate_limit_per_user.unwrap_or(0)),
        ),
    ];
    for (field, want, have) in numbers {
        if let Some(w) = want
            && have != Some(w)
        {
            b.set(field, json!(have), json!(w), json!(w));
        }
    }
    if let Some(region) = &ch.rtc_region {
        let have = live.and_then(|l| l.rtc_region.clone());
        if *region != have && !(live.is_none() && region.is_none()) {
            b.set(
                field::Channel::RtcRegion,
                json!(have),
                json!(region),
                json!(region),
            );
        }
    }
    if let Some(mode) = ch.video_quality_mode {
        let have = live.map(|l| l.video_quality_mode.unwrap_or(1));
        if have != Some(mode.value()) {
            b.set(
                field::Channel::VideoQualityMode,
                have.map(vqm_name).unwrap_or(Value::Null),
                json!(mode.name()),
                json!(mode.value()),
            );
        }
    }
    flags::flag_fields(&mut b, ch, d.kind, live);
    notes.extend(
        crate::planner::forum::forum_fields(&mut b, ch, d.kind, live)
            .into_iter()
            .map(|note| ("tags", note)),
    );
    (b, notes)
}

#[allow(clippy::too_many_arguments)]
fn plan_update(
    cx: &mut Ctx,
    decls: &[Decl],
    i: usize,
    live: &LiveChannel,
    ows: Option<&[Ow]>,
    inherited: &[Ow],
    parent: Option<IdRef>,
    phase: Phase,
) {
    let d = &decls[i];
    if live.kind != d.kind {
        let swappable = [channel_type::TEXT, channel_type::ANNOUNCEMENT];
        if !(swappable.contains(&live.kind) && swappable.contains(&d.kind)) {
            cx.problem(
                Some(d.source.clone()),
                format!(
                    "`{}` is a {} channel live and cannot become a {} channel: Discord only converts between text and announcement",
                    d.ch.name,
                    type_label(live.kind),
                    type_label(d.kind)
                ),
                Some("give the new channel another name (and prune or keep the old one), or keep its type"),
            );
            return;
        }
    }
    let (mut b, warnings) = channel_fields(d, Some(live));
    for (field, w) in warnings {
        cx.warn(Some(format!("{}.{field}", d.source)), w);
    }
    let live_parent = live.parent_id.clone().map(IdRef::Live);
    let moves = d.kind != channel_type::CATEGORY && parent != live_parent;
    // The order of overwrite writes (docs/decisions.md): categories first, then each
    // channel's own write, then moves. A channel that already has its set once its
    // category's write is copied to it needs no call of its own.
    let mut sync_on_move = false;
    let mut writes_overwrites = false;
    if let Some(want) = ows {
        let have = live_set(live);
        let shown = (overwrites_display(cx, &have), overwrites_display(cx, want));
        let synced = d.ch.sync_permissions == Some(true);
        if same_set(d, want, inherited) {
            if !same_set(d, want, &have) {
                // Shown, but no call: the category's update carries it over.
                b.show(field::Channel::SyncedOverwrites, shown.0, shown.1);
            }
        } else if moves && synced {
            // Moved into the category it follows: the move syncs it (`lock_permissions`)
            // with the category as the plan leaves it, in the call the move makes anyway.
            sync_on_move = true;
            b.show(field::Channel::SyncedOverwrites, shown.0, shown.1);
        } else {
            // The whole set in one PATCH: there is never a moment with a deny missing.
            let field = if same_set(d, want, &have) {
                field::Channel::KeptOverwrites
            } else {
                field::Channel::Overwrites
            };
            writes_overwrites = true;
            b.set(
                field,
                shown.0,
                shown.1,
                Value::Array(want.iter().map(Ow::api).collect()),
            );
        }
    }
    let mut fields = b.fields;
    if moves {
        let name = |p: &Option<IdRef>| json!(p.as_ref().map(|p| cx.channel_label(p)));
        fields.push(FieldChange::new(
            field::Channel::Category,
            name(&live_parent),
            name(&parent),
        ));
    }
    if fields.is_empty() {
        return;
    }
    let kind = if d.kind == channel_type::CATEGORY {
        Kind::Category
    } else {
        Kind::Channel
    };
    let display = d.display(decls);
    let idx = cx.push_change(change(
        Action::Update,
        kind,
        display.clone(),
        Some(live.id.clone()),
        fields,
        Some(d.source.clone()),
    ));
    if !b.body.is_empty() {
        let route = Route::UpdateChannel {
            channel: IdRef::Live(live.id.clone()),
        };
        let summary = format!("update {} {display}", kind.label());
        let mut op = Op::new(phase, idx, route, summary).body(Value::Object(b.body));
        if let Some(category) = live_parent.clone().filter(|_| writes_overwrites) {
            // After its category's write, which would otherwise copy over this set.
            op = op.after_writes_of(category);
        }
        cx.push_op(op);
    }
    if moves {
        // One parent change per positions call, as Discord requires (40009).
        let parent_value = parent.as_ref().map(IdRef::to_value).unwrap_or(Value::Null);
        let mut entry = json!({ "id": live.id, "parent_id": parent_value });
        if sync_on_move {
            entry["lock_permissions"] = Value::Bool(true);
        }
        let route = Route::UpdateChannelPositions { guild: cx.guild() };
        let summary = format!("move channel {display}");
        cx.push_op(Op::new(Phase::ChannelMove, idx, route, summary).body(json!([entry])));
    }
}

fn plan_create(
    cx: &mut Ctx,
    decls: &[Decl],
    i: usize,
    ows: Option<&[Ow]>,
    parent: Option<IdRef>,
    phase: Phase,
) {
    let d = &decls[i];
    let (mut b, _) = channel_fields(d, None);
    // Discord's create route takes no `flags` (OpenAPI `CreateGuildChannelRequest`): they
    // are set by an update of the new channel.
    let flags = b.body.remove("flags");
    b.body.insert("type".into(), json!(d.kind));
    if let Some(p) = &parent {
        b.body.insert("parent_id".into(), p.to_value());
    }
    if let Some(want) = ows {
        b.set(
            field::Channel::Overwrites,
            Value::Null,
            overwrites_display(cx, want),
            Value::Array(want.iter().map(Ow::api).collect()),
        );
    }
    if d.kind != channel_type::TEXT {
        b.fields.insert(
            1.min(b.fields.len()),
            FieldChange::new(field::Channel::Type, Value::Null, json!(type_label(d.kind))),
        );
    }
    let kind = if d.kind == channel_type::CATEGORY {
        Kind::Category
    } else {
        Kind::Channel
    };
    let display = d.display(decls);
    let idx = cx.push_change(change(
        Action::Create,
        kind,
        display.clone(),
        None,
        b.fields,
        Some(d.source.clone()),
    ));
    let route = Route::CreateChannel { guild: cx.guild() };
    let summary = format!("create {} {display}", kind.label());
    let mut op = Op::new(phase, idx, route, summary)
        .body(Value::Object(b.body))
        .creates(d.key.clone());
    if let Some(category) = parent {
        // Created in its category as the plan leaves it: it copies that set, or is not
        // synced with the old one when the category's write comes.
        op = op.after_writes_of(category);
    }
    cx.push_op(op);
    if let Some(flags) = flags {
        let route = Route::UpdateChannel {
            channel: IdRef::New(d.key.clone()),
        };
        let summary = format!("set the flags of new {} {display}", kind.label());
        cx.push_op(Op::new(phase, idx, route, summary).body(json!({ "flags": flags })));
    }
}

fn type_label(kind: u8) -> &'static str {
    ChannelType::from_value(kind.into())
        .map(|t| t.name())
        .unwrap_or("unknown")
}

/// Live channels the manifest does not declare: deleted under `prune.channels`,
/// otherwise reported as unmanaged and kept.
fn plan_unmatched(cx: &mut Ctx, matched: &HashSet<&str>) {
    let snap = cx.snap;
    let guild = &snap.guild;
    let protected: Vec<&str> = if guild.has_feature("COMMUNITY") {
        [&guild.rules_channel_id, &guild.public_updates_channel_id]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    } else {
        Vec::new()
    };
    for c in &snap.channels {
        if matched.contains(c.id.as_str()) {
            continue;
        }
        let object = live_ref(snap, c);
        if !cx.manifest.prune.channels {
            cx.unmanaged.push(object);
            continue;
        }
        if let Some(by) =
            crate::judge::deletion_gate::protector(cx.manifest, object.kind, &c.id, &c.name, c.kind)
        {
            cx.warn(
                None,
                format!(
                    "{} `{}` (id {}) is kept although `prune.channels` is on: {by} protects it",
                    object.kind.label(),
                    object.name,
                    c.id
                ),
            );
            cx.unmanaged.push(object);
            continue;
        }
        if protected.contains(&c.id.as_str()) {
            // Discord refuses with 50074; keep it and say why.
            cx.warn(
                None,
                format!(
                    "{} is the rules or community updates channel, which Discord does not let a community guild delete; it is kept",
                    object.name
                ),
            );
            cx.unmanaged.push(object);
            continue;
        }
        let category = c.kind == channel_type::CATEGORY;
        let name = object.name.clone();
        let idx = cx.push_change(change(
            Action::Delete,
            object.kind,
            name.clone(),
            Some(c.id.clone()),
            vec![],
            // Pointed at the `prune:` line that asks for it.
            Some(Kind::Channel.pruned_by().into()),
        ));
        let phase = if category {
            Phase::CategoryDelete
        } else {
            Phase::ChannelDelete
        };
        let route = Route::DeleteChannel {
            channel: IdRef::Live(c.id.clone()),
        };
        let summary = format!("delete {} {name}", object.kind.label());
        cx.push_op(Op::new(phase, idx, route, summary));
        cx.access_after.remove_channel(&c.id);
    }
}
