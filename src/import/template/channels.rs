//! The template's channels as the manifest's `channels:`: categories with their channels in
//! Discord's display order, names distinct where the checks need it, Discord's limits for
//! each type, forum settings and tags, and overwrites by role name (a channel whose
//! overwrites are its category's is synced).

use std::collections::BTreeMap;

use hashbrown::hash_map::Entry;
use hashbrown::{HashMap, HashSet};

use super::json::{Id, TemplateChannel};
use super::names::{Style, distinct, truncate};
use super::{Convert, GUILD, NoteKind, Place, UNNAMED, is_emoji_text};
use crate::discord::limits::{
    AUTO_ARCHIVE_DURATIONS, BITRATE_MIN, CHANNEL_NAME_MAX, FORUM_TOPIC_MAX, SLOWMODE_MAX,
    STAGE_BITRATE_MAX, STAGE_USER_LIMIT_MAX, TAG_NAME_LEN, TAGS_MAX, TOPIC_MAX, VOICE_BITRATE_MAX,
    VOICE_USER_LIMIT_MAX,
};
use crate::discord::names::{stored_channel_name, stored_display_name};
use crate::export::permission_names;
use crate::manifest::{Channel, ChannelType, Emoji, ForumLayout, ForumTag, Overwrite, SortOrder};
use crate::permissions::Permissions;

/// A channel of the template placed in the manifest: where it is in the template, its
/// type, and its overwrites by role name (for telling synced channels).
struct Placed<'t> {
    at: usize,
    source: &'t TemplateChannel,
    kind: ChannelType,
    overwrites: Vec<(String, Permissions, Permissions)>,
}

impl Convert {
    /// The manifest's channels (top-level ones, then categories with theirs, each list in
    /// Discord's display order) and where each template channel id went: (index in the
    /// top-level list, index among its category's channels).
    pub(super) fn channels(
        &mut self,
        channels: &[TemplateChannel],
    ) -> (Vec<Channel>, HashMap<u64, Place>) {
        // Which template entry each id means: the first that has it.
        let mut by_id: HashMap<u64, usize> = HashMap::new();
        let mut placed: Vec<Placed> = Vec::new();
        for (i, c) in channels.iter().enumerate() {
            let path = format!("{GUILD}.channels[{i}]");
            let kind = c
                .kind
                .and_then(|k| u64::try_from(k).ok())
                .and_then(ChannelType::from_value);
            let Some(kind) = kind else {
                let name = c.name.as_deref().unwrap_or_default();
                let kind = c.kind.map_or("none".to_owned(), |k| k.to_string());
                self.left_out(
                    path,
                    format!("channel \"{name}\" of type {kind}, which a manifest does not declare"),
                );
                continue;
            };
            if let Some(Id(id)) = c.id {
                match by_id.entry(id) {
                    Entry::Occupied(_) => self.note(
                        NoteKind::Changed,
                        format!("{path}.id"),
                        format!("channel id {id} is used twice: references to it are to the first"),
                    ),
                    Entry::Vacant(v) => {
                        v.insert(placed.len());
                    }
                }
            }
            let overwrites = self.overwrites(c, &path);
            placed.push(Placed {
                at: i,
                source: c,
                kind,
                overwrites,
            });
        }
        // Parents: a category's index in `placed`.
        let mut parent: Vec<Option<usize>> = vec![None; placed.len()];
        for (k, p) in placed.iter().enumerate() {
            let Some(Id(pid)) = p.source.parent_id else {
                continue;
            };
            let path = format!("{GUILD}.channels[{}].parent_id", p.at);
            if p.kind == ChannelType::Category {
                self.note(
                    NoteKind::Changed,
                    path,
                    "a category inside another: it is put at the top level",
                );
                continue;
            }
            match by_id.get(&pid) {
                Some(&c) if placed[c].kind == ChannelType::Category => parent[k] = Some(c),
                _ => self.note(
                    NoteKind::Changed,
                    path,
                    format!("parent {pid} is not a category of the template: the channel is put at the top level"),
                ),
            }
        }
        // Display order: by position (none: last), text-like above voice-like in a parent.
        let order = |list: &mut Vec<usize>| {
            list.sort_by_key(|&k| {
                let p = &placed[k];
                (
                    p.kind.is_voice_like(),
                    p.source.position.unwrap_or(i64::MAX),
                    p.at,
                )
            })
        };
        let mut top: Vec<usize> = (0..placed.len())
            .filter(|&k| parent[k].is_none() && placed[k].kind != ChannelType::Category)
            .collect();
        order(&mut top);
        let mut categories: Vec<usize> = (0..placed.len())
            .filter(|&k| placed[k].kind == ChannelType::Category)
            .collect();
        order(&mut categories);

        let mut out: Vec<Channel> = Vec::new();
        let mut where_: HashMap<usize, Place> = HashMap::new();
        // Names are distinct per parent and type group (the checks' rule); the top level
        // has its channels and the categories.
        let mut top_names: HashMap<&'static str, HashSet<String>> = HashMap::new();
        for &k in &top {
            let entry = self.channel(&placed[k], None, &mut top_names);
            where_.insert(k, (out.len(), None));
            out.push(entry);
        }
        for &cat in &categories {
            let mut entry = self.channel(&placed[cat], None, &mut top_names);
            let mut children: Vec<usize> = (0..placed.len())
                .filter(|&k| parent[k] == Some(cat))
                .collect();
            order(&mut children);
            let mut names: HashMap<&'static str, HashSet<String>> = HashMap::new();
            let mut inside = Vec::new();
            for &k in &children {
                let child = self.channel(&placed[k], Some(&placed[cat]), &mut names);
                where_.insert(k, (out.len(), Some(inside.len())));
                inside.push(child);
            }
            where_.insert(cat, (out.len(), None));
            entry.channels = Some(inside);
            out.push(entry);
        }
        let ids = by_id
            .into_iter()
            .filter_map(|(id, k)| where_.get(&k).map(|w| (id, *w)))
            .collect();
        (out, ids)
    }

    /// A channel's overwrites by role name, merged per role.
    fn overwrites(
        &mut self,
        c: &TemplateChannel,
        path: &str,
    ) -> Vec<(String, Permissions, Permissions)> {
        let mut out: Vec<(String, Permissions, Permissions)> = Vec::new();
        for (j, o) in c.permission_overwrites.iter().flatten().enumerate() {
            let here = format!("{path}.permission_overwrites[{j}]");
            let Id(id) = o.id;
            match o.kind {
                Some(0) | None => {}
                Some(1) => {
                    self.left_out(
                        here,
                        format!(
                            "an overwrite for member {id}: a template's member ids name no one"
                        ),
                    );
                    continue;
                }
                Some(k) => {
                    self.left_out(
                        here,
                        format!("an overwrite of type {k} (0 is a role, 1 a member)"),
                    );
                    continue;
                }
            }
            let Some(role) = self.role_names.get(&id).cloned() else {
                self.left_out(
                    here,
                    format!("an overwrite for role {id}, which the template does not have"),
                );
                continue;
            };
            let allow = o.allow.map_or(Permissions::NONE, |b| b.0);
            let mut deny = o.deny.map_or(Permissions::NONE, |b| b.0);
            if !(allow & deny).is_empty() {
                // Discord applies deny, then allow: allow wins.
                self.note(
                    NoteKind::Changed,
                    format!("{here}.deny"),
                    format!(
                        "{} both allowed and denied for \"{role}\": allowed, as Discord applies it",
                        permission_names(allow & deny)
                            .iter()
                            .map(|p| p.0.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                deny = deny & !allow;
            }
            if let Some(same) = out.iter_mut().find(|(r, ..)| *r == role) {
                self.note(
                    NoteKind::Changed,
                    here,
                    format!("a second overwrite for \"{role}\": merged into the first"),
                );
                same.1 |= allow;
                same.2 = (same.2 | deny) & !same.1;
            } else {
                out.push((role, allow, deny));
            }
        }
        out
    }

    fn channel(
        &mut self,
        p: &Placed,
        category: Option<&Placed>,
        names: &mut HashMap<&'static str, HashSet<String>>,
    ) -> Channel {
        use ChannelType::*;
        let c = p.source;
        let t = p.kind;
        let path = format!("{GUILD}.channels[{}]", p.at);
        let name = self.channel_name(c.name.as_deref(), t, &path, names);
        let textish = t.is_text_like();
        let voiceish = t.is_voice_like();
        let mut out = Channel {
            name: name.clone(),
            kind: (t != Text).then_some(t),
            ..Channel::default()
        };
        if textish {
            let max = if t.is_forum_like() {
                FORUM_TOPIC_MAX
            } else {
                TOPIC_MAX
            };
            out.topic = match c.topic.as_deref() {
                Some(topic) if topic.chars().count() > max => {
                    self.left_out(
                        format!("{path}.topic"),
                        format!("the topic of \"{name}\" is longer than {max} characters"),
                    );
                    None
                }
                Some(topic) if !topic.is_empty() => Some(Some(topic.to_owned())),
                _ => Some(None),
            };
        }
        if t != Category {
            out.nsfw = Some(c.nsfw.unwrap_or(false));
        } else if c.nsfw == Some(true) {
            self.left_out(
                format!("{path}.nsfw"),
                format!("category \"{name}\" marked age-restricted (only channels can be)"),
            );
        }
        let mut range = |field: &str, value: Option<i64>, max: u32, min: u32| -> Option<u32> {
            let v = value?;
            match u32::try_from(v).ok().filter(|v| (min..=max).contains(v)) {
                Some(v) => Some(v),
                None => {
                    self.left_out(
                        format!("{path}.{field}"),
                        format!("{field} {v} of \"{name}\" is outside {min}-{max}"),
                    );
                    None
                }
            }
        };
        if matches!(t, Text | Voice | Stage | Forum | Media) {
            out.slowmode = range(
                "rate_limit_per_user",
                c.rate_limit_per_user,
                SLOWMODE_MAX,
                0,
            );
        }
        if voiceish {
            let (bitrate_max, users_max) = if t == Stage {
                (STAGE_BITRATE_MAX, STAGE_USER_LIMIT_MAX)
            } else {
                (VOICE_BITRATE_MAX, VOICE_USER_LIMIT_MAX)
            };
            out.bitrate = range("bitrate", c.bitrate, bitrate_max, BITRATE_MIN);
            out.user_limit = range("user_limit", c.user_limit, users_max, 0);
        }
        if textish {
            out.default_thread_slowmode = range(
                "default_thread_rate_limit_per_user",
                c.default_thread_rate_limit_per_user,
                SLOWMODE_MAX,
                0,
            );
            if let Some(d) = c.default_auto_archive_duration {
                match u32::try_from(d)
                    .ok()
                    .filter(|d| AUTO_ARCHIVE_DURATIONS.contains(d))
                {
                    Some(d) => out.default_auto_archive_duration = Some(d),
                    None => self.left_out(format!("{path}.default_auto_archive_duration"),
                        format!(
                            "default_auto_archive_duration {d} of \"{name}\" is not 60, 1440, 4320 or 10080"
                        ),
                    ),
                }
            }
        }
        if t.is_forum_like() {
            self.forum(c, t, &name, &path, &mut out);
        } else if c.available_tags.as_ref().is_some_and(|t| !t.is_empty()) {
            self.left_out(
                format!("{path}.available_tags"),
                format!("tags on \"{name}\", which is not a forum or media channel"),
            );
        }
        for (field, set) in [
            (
                "template",
                c.template.as_deref().is_some_and(|t| !t.is_empty()),
            ),
            ("default_tag_setting", c.default_tag_setting.is_some()),
            ("theme_color", c.theme_color.is_some()),
        ] {
            if set {
                self.left_out(
                    format!("{path}.{field}"),
                    format!("`{field}` of \"{name}\": the manifest has no such field"),
                );
            }
        }
        let synced = category.is_some_and(|cat| same_overwrites(&cat.overwrites, &p.overwrites));
        if synced {
            out.sync_permissions = Some(true);
        } else {
            out.overwrites = Some(
                p.overwrites
                    .iter()
                    .map(|(role, allow, deny)| Overwrite {
                        role: Some(role.clone()),
                        member: None,
                        allow: permission_names(*allow),
                        deny: permission_names(*deny),
                    })
                    .collect(),
            );
        }
        out
    }

    fn channel_name(
        &mut self,
        name: Option<&str>,
        t: ChannelType,
        path: &str,
        names: &mut HashMap<&'static str, HashSet<String>>,
    ) -> String {
        let written = name.unwrap_or_default();
        let style = if t.is_text_like() {
            Style::Text
        } else {
            Style::Display
        };
        let mut base = match style {
            Style::Text => stored_channel_name(t.value() as u8, written).into_owned(),
            Style::Display => written.to_owned(),
        };
        if style.key(&base).is_empty() {
            base = UNNAMED.to_owned();
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!(
                    "{} channel named \"{written}\", which has nothing Discord keeps, is called \"{base}\"",
                    t.name()
                ),
            );
        } else if base.chars().count() > CHANNEL_NAME_MAX {
            base = truncate(&base, CHANNEL_NAME_MAX, style);
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("channel name \"{written}\" is cut to {CHANNEL_NAME_MAX} characters"),
            );
        } else if base != written {
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!(
                    "{} channel \"{written}\" is written \"{base}\", as Discord stores it",
                    t.name()
                ),
            );
        }
        let group = if t == ChannelType::Category {
            "category"
        } else if t.is_voice_like() {
            "voice"
        } else {
            "text"
        };
        let name = distinct(
            &base,
            CHANNEL_NAME_MAX,
            style,
            names.entry(group).or_default(),
        );
        if name != base {
            let what = if t == ChannelType::Category {
                "category".to_owned()
            } else {
                format!("{} channel", t.name())
            };
            self.note(
                NoteKind::Renamed,
                format!("{path}.name"),
                format!("{what} \"{base}\" is \"{name}\": another in the same place has that name"),
            );
        }
        name
    }

    fn forum(
        &mut self,
        c: &TemplateChannel,
        t: ChannelType,
        name: &str,
        path: &str,
        out: &mut Channel,
    ) {
        let mut tags = Vec::new();
        let mut taken = HashSet::new();
        for (k, tag) in c.available_tags.iter().flatten().enumerate() {
            let here = format!("{path}.available_tags[{k}]");
            if tags.len() == TAGS_MAX {
                self.left_out(
                    here,
                    format!("tags of \"{name}\" past the {TAGS_MAX} Discord allows"),
                );
                break;
            }
            let written = tag.name.as_deref().unwrap_or_default();
            let mut base = written.to_owned();
            if stored_display_name(&base).is_empty() {
                base = "tag".to_owned();
            } else if base.chars().count() > TAG_NAME_LEN.1 {
                base = truncate(&base, TAG_NAME_LEN.1, Style::Display);
            }
            let tag_name = distinct(&base, TAG_NAME_LEN.1, Style::Display, &mut taken);
            if tag_name != written {
                self.note(
                    NoteKind::Renamed,
                    format!("{here}.name"),
                    format!(
                        "tag \"{written}\" of \"{name}\" is \"{tag_name}\" (1 to 20 characters, each name once)"
                    ),
                );
            }
            let emoji = self.emoji(tag.emoji_id, tag.emoji_name.as_deref(), &here);
            tags.push(ForumTag {
                name: tag_name,
                emoji,
                moderated: tag.moderated.unwrap_or(false),
                ..ForumTag::default()
            });
        }
        out.tags = Some(tags);
        out.default_reaction = Some(c.default_reaction_emoji.as_ref().and_then(|e| {
            self.emoji(
                e.emoji_id,
                e.emoji_name.as_deref(),
                &format!("{path}.default_reaction_emoji"),
            )
        }));
        if let Some(v) = c.default_sort_order {
            out.sort_order = u64::try_from(v).ok().and_then(SortOrder::from_value);
            if out.sort_order.is_none() {
                self.left_out(
                    format!("{path}.default_sort_order"),
                    format!("sort order {v} of \"{name}\" is not 0 or 1"),
                );
            }
        }
        // 0 is "not set", which a manifest cannot ask for.
        match c.default_forum_layout {
            Some(0) | None => {}
            Some(v) if t == ChannelType::Forum => {
                out.layout = u64::try_from(v).ok().and_then(ForumLayout::from_value);
                if out.layout.is_none() {
                    self.left_out(
                        format!("{path}.default_forum_layout"),
                        format!("layout {v} of \"{name}\" is not 1 (list) or 2 (gallery)"),
                    );
                }
            }
            Some(_) => {}
        }
    }

    /// A tag's or a forum's emoji: a standard one kept, a custom one left out (it belongs
    /// to the template's source guild).
    fn emoji(&mut self, id: Option<Id>, name: Option<&str>, path: &str) -> Option<Emoji> {
        if let Some(Id(id)) = id {
            self.left_out(
                path,
                format!("custom emoji {id}, of the template's own guild"),
            );
            return None;
        }
        let name = name.filter(|n| !n.is_empty())?;
        if is_emoji_text(name) {
            Some(Emoji::Unicode(name.to_owned()))
        } else {
            self.left_out(path, format!("\"{name}\" is not a standard emoji"));
            None
        }
    }
}

/// Whether two overwrite lists grant the same, whatever their order.
fn same_overwrites(
    a: &[(String, Permissions, Permissions)],
    b: &[(String, Permissions, Permissions)],
) -> bool {
    let set = |l: &[(String, Permissions, Permissions)]| -> BTreeMap<String, (u64, u64)> {
        l.iter()
            .map(|(r, a, d)| (r.clone(), (a.bits(), d.bits())))
            .collect()
    };
    set(a) == set(b)
}
