//! The settings of forum and media channels (docs/discord.md §9.5): tags, the
//! default reaction, sort order and layout, as field changes and
//! the request body of one channel. `channels` calls it for each declared channel.
//!
//! Tags are matched to live ones by name, then by `previous_names`, and a matched tag is
//! sent with its live id: Discord replaces the whole list on every update and keeps a tag
//! (and every post's use of it) only when its id comes back.

use hashbrown::HashSet;

use serde_json::{Value, json};

use crate::discord::models::{self, Channel as LiveChannel, channel_type};
use crate::manifest::{Channel, Emoji, ForumLayout, ForumTag, SortOrder};
use crate::plan::field;
use crate::plan_kit::context::ChangeBuilder;

/// An emoji as Discord stores it on a tag or a reaction: a custom emoji by its id alone, a
/// standard one by its character. Discord sets at most one of the two, and keeps no name
/// for a custom one, so the manifest's `name` is for readers only.
type StoredEmoji = (Option<String>, Option<String>);

fn stored_emoji(e: Option<&Emoji>) -> StoredEmoji {
    match e {
        None => (None, None),
        Some(Emoji::Unicode(c)) => (None, Some(c.clone())),
        Some(Emoji::Custom(c)) => (Some(c.id.0.clone()), None),
    }
}

fn live_emoji(id: Option<&String>, name: Option<&String>) -> StoredEmoji {
    match id {
        Some(id) => (Some(id.clone()), None),
        None => (None, name.cloned()),
    }
}

fn emoji_label(e: &StoredEmoji) -> Option<String> {
    match e {
        (Some(id), _) => Some(format!("emoji {id}")),
        (None, Some(c)) => Some(c.clone()),
        (None, None) => None,
    }
}

/// A tag as Discord stores it; `id` is `None` for a tag Discord has yet to create.
#[derive(PartialEq)]
struct StoredTag {
    id: Option<String>,
    name: String,
    moderated: bool,
    emoji: StoredEmoji,
}

impl StoredTag {
    fn from_live(t: &models::ForumTag) -> StoredTag {
        StoredTag {
            id: Some(t.id.clone()),
            name: t.name.clone(),
            moderated: t.moderated,
            emoji: live_emoji(t.emoji_id.as_ref(), t.emoji_name.as_ref()),
        }
    }

    /// One line of the plan: `bug 🐛 (moderated)`.
    fn label(&self) -> String {
        let mut s = self.name.clone();
        if let Some(e) = emoji_label(&self.emoji) {
            s = format!("{s} {e}");
        }
        if self.moderated {
            s.push_str(" (moderated)");
        }
        s
    }

    fn api(&self) -> Value {
        let mut o = serde_json::Map::new();
        if let Some(id) = &self.id {
            o.insert("id".into(), json!(id));
        }
        o.insert("name".into(), json!(self.name));
        o.insert("moderated".into(), json!(self.moderated));
        o.insert("emoji_id".into(), json!(self.emoji.0));
        o.insert("emoji_name".into(), json!(self.emoji.1));
        Value::Object(o)
    }
}

type SameTag = dyn Fn(&ForumTag, &models::ForumTag) -> bool;

/// The declared tags with the ids of the live tags they match: by pinned id, then by name,
/// then by a previous name, each live tag matched once. A pinned id the channel does not
/// have is reported in `stale`, and that tag matched by name.
fn match_tags(
    declared: &[ForumTag],
    live: &[models::ForumTag],
    stale: &mut Vec<String>,
) -> Vec<StoredTag> {
    let mut ids: Vec<Option<String>> = vec![None; declared.len()];
    let mut used: HashSet<&str> = HashSet::new();
    for (i, d) in declared.iter().enumerate() {
        let Some(id) = &d.id else { continue };
        match live
            .iter()
            .find(|l| l.id == id.0 && !used.contains(l.id.as_str()))
        {
            Some(l) => {
                used.insert(&l.id);
                ids[i] = Some(l.id.clone());
            }
            None => stale.push(format!(
                "tag `{}` is pinned to id {id}, which the channel no longer has: it is matched by name",
                d.name
            )),
        }
    }
    let by_name = |d: &ForumTag, l: &models::ForumTag| d.name == l.name;
    let by_previous = |d: &ForumTag, l: &models::ForumTag| d.previous_names.contains(&l.name);
    let passes: [&SameTag; 2] = [&by_name, &by_previous];
    for same in passes {
        for (i, d) in declared.iter().enumerate() {
            if ids[i].is_some() {
                continue;
            }
            if let Some(l) = live
                .iter()
                .find(|l| !used.contains(l.id.as_str()) && same(d, l))
            {
                used.insert(&l.id);
                ids[i] = Some(l.id.clone());
            }
        }
    }
    declared
        .iter()
        .zip(ids)
        .map(|(d, id)| StoredTag {
            id,
            name: d.name.clone(),
            moderated: d.moderated,
            emoji: stored_emoji(d.emoji.as_ref()),
        })
        .collect()
}

/// How many tags the channel has once the plan is applied.
pub(super) fn tags_after(ch: &Channel, live: Option<&LiveChannel>) -> usize {
    match &ch.tags {
        Some(tags) => tags.len(),
        None => live
            .and_then(|l| l.available_tags.as_ref())
            .map_or(0, Vec::len),
    }
}

/// Adds the forum fields of declared channel `ch` (of type `kind`) that differ from `live`
/// (`None`: the channel is created) to `b`, and returns warnings for the plan. Fields of
/// another channel type are ignored, as Discord ignores them (the checks refuse them first).
pub(super) fn forum_fields(
    b: &mut ChangeBuilder,
    ch: &Channel,
    kind: u8,
    live: Option<&LiveChannel>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if !matches!(kind, channel_type::FORUM | channel_type::MEDIA) {
        return warnings;
    }
    // A new channel is shown with its values alone, not against Discord's defaults.
    let before = |v: Value| if live.is_some() { v } else { Value::Null };
    if let Some(tags) = &ch.tags {
        let have: Vec<StoredTag> = live
            .and_then(|l| l.available_tags.as_ref())
            .into_iter()
            .flatten()
            .map(StoredTag::from_live)
            .collect();
        let live_tags = live
            .and_then(|l| l.available_tags.as_deref())
            .unwrap_or(&[]);
        let want = match_tags(tags, live_tags, &mut warnings);
        // A new channel has no tags: an empty list needs nothing sent.
        if want != have && !(live.is_none() && want.is_empty()) {
            for gone in live_tags
                .iter()
                .filter(|l| !want.iter().any(|w| w.id.as_deref() == Some(l.id.as_str())))
            {
                warnings.push(format!(
                    "tag `{}` of `{}` is deleted: the posts that carry it lose it (a renamed tag \
                     keeps them when its old name is in `previous_names`)",
                    gone.name, ch.name
                ));
            }
            let labels =
                |list: &[StoredTag]| json!(list.iter().map(StoredTag::label).collect::<Vec<_>>());
            // A tag that keeps its id under a new name is a rename, not a delete and a
            // create: its posts keep it, and the plan says so on its line.
            let renamed = |t: &StoredTag| {
                let was = live_tags
                    .iter()
                    .find(|l| t.id.as_deref() == Some(l.id.as_str()) && l.name != t.name);
                match was {
                    Some(l) => {
                        format!("{} (renamed from {}; its posts keep it)", t.label(), l.name)
                    }
                    None => t.label(),
                }
            };
            b.set(
                field::Channel::Tags,
                before(labels(&have)),
                json!(want.iter().map(renamed).collect::<Vec<_>>()),
                Value::Array(want.iter().map(StoredTag::api).collect()),
            );
        }
    }
    if let Some(reaction) = &ch.default_reaction {
        let want = stored_emoji(reaction.as_ref());
        let have = live
            .and_then(|l| l.default_reaction_emoji.as_ref())
            .map(|r| live_emoji(r.emoji_id.as_ref(), r.emoji_name.as_ref()))
            .unwrap_or((None, None));
        if want != have {
            let api = match &want {
                (None, None) => Value::Null,
                (id, name) => json!({ "emoji_id": id, "emoji_name": name }),
            };
            b.set(
                field::Channel::DefaultReaction,
                before(json!(emoji_label(&have))),
                json!(emoji_label(&want)),
                api,
            );
        }
    }
    if let Some(order) = ch.sort_order {
        let have = live.and_then(|l| l.default_sort_order);
        if have != Some(order.value() as u8) {
            let name = have
                .and_then(|v| SortOrder::from_value(v.into()))
                .map(|o| o.name());
            b.set(
                field::Channel::SortOrder,
                before(json!(name)),
                json!(order.name()),
                json!(order.value()),
            );
        }
    }
    if let Some(layout) = ch.layout.filter(|_| kind == channel_type::FORUM) {
        let have = live.map_or(0, |l| l.default_forum_layout.unwrap_or(0));
        if u64::from(have) != layout.value() {
            let name = ForumLayout::from_value(have.into()).map_or("not_set", |l| l.name());
            b.set(
                field::Channel::Layout,
                before(json!(name)),
                json!(layout.name()),
                json!(layout.value()),
            );
        }
    }
    warnings
}
