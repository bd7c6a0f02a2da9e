//! Rules for channels and categories: names used once within their category and type group
//! (previous names included), Discord's limits for each type, what holds channels, the order
//! members see, the fields each type takes, `sync_permissions`, and names as Discord stores
//! them.

use super::*;

pub(super) fn unique_channel_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // (parent, group, comparable name) → first path
    fn key<'n>(c: &ChannelRef<'_>, name: &'n str) -> (Option<usize>, &'static str, Cow<'n, str>) {
        let t = c.channel.channel_type();
        let cmp = if t.is_text_like() {
            text_name(name)
        } else {
            Cow::Borrowed(name)
        };
        (c.parent, group(t), cmp)
    }
    let mut names: HashMap<(Option<usize>, &str, Cow<'_, str>), &str> = HashMap::new();
    for (k, idx) in groups(ctx.channels.iter().map(|c| key(c, &c.channel.name))) {
        let first = ctx.channels[idx[0]].path.as_str();
        names.insert(k, first);
        // Duplicates are fine when each is pinned to its live channel (an export of such a guild).
        if idx.iter().all(|&i| ctx.channels[i].channel.id.is_some()) {
            continue;
        }
        for &i in &idx[1..] {
            let c = &ctx.channels[i];
            let t = c.channel.channel_type();
            let what = match group(t) {
                "category" => "category name",
                "voice" => "voice/stage channel name",
                _ => "text channel name",
            };
            let scope = match c.parent {
                Some(p) => format!("in category \"{}\"", ctx.channels[p].channel.name),
                None => "at the top level".to_string(),
            };
            let same = if t.is_text_like() {
                " (Discord's names compare lowercased, with spaces as dashes)"
            } else {
                ""
            };
            out.push(
                Diagnostic::error(
                    format!("{}.name", c.path),
                    format!(
                        "duplicate {what} \"{}\" {scope}: {first} has the same name{same}",
                        c.channel.name
                    ),
                )
                .with_help(
                    "channels are matched by name within their category and type group; rename one \
                     (channels of the same name are allowed only when each pins its `id`)",
                ),
            );
        }
    }
    let mut previous: HashMap<(Option<usize>, &str, Cow<'_, str>), &str> = HashMap::new();
    for c in &ctx.channels {
        for (k, old) in c.channel.previous_names.iter().enumerate() {
            let here = format!("{}.previous_names[{k}]", c.path);
            let kk = key(c, old);
            if let Some(owner) = names.get(&kk) {
                let msg = if *owner == c.path.as_str() {
                    format!(
                        "channel \"{}\" lists its own name in previous_names",
                        c.channel.name
                    )
                } else {
                    format!(
                        "\"{old}\" is a previous name of \"{}\" but also the name of {owner}",
                        c.channel.name
                    )
                };
                out.push(Diagnostic::error(here, msg).with_help(
                    "a live channel called this would match two entries: drop the previous name",
                ));
            } else if let Some(other) = previous.get(&kk) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one channel only"),
                );
            } else {
                previous.insert(kk, &c.path);
            }
        }
    }
}

pub(super) fn channel_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let ch = c.channel;
        let t = ch.channel_type();
        let p = &c.path;
        let n = len(&ch.name);
        if n == 0 || n > CHANNEL_NAME_MAX {
            out.push(
                Diagnostic::error(
                    format!("{p}.name"),
                    format!(
                        "channel name is {n} characters; Discord allows 1 to {CHANNEL_NAME_MAX}{}",
                        trimmed_note(n)
                    ),
                )
                .with_help("give the channel a name of 1 to 100 characters"),
            );
        }
        if let Some(Some(topic)) = &ch.topic {
            let max = if matches!(t, ChannelType::Forum | ChannelType::Media) {
                FORUM_TOPIC_MAX
            } else {
                TOPIC_MAX
            };
            if len(topic) > max {
                out.push(
                    Diagnostic::error(
                        format!("{p}.topic"),
                        format!(
                            "topic is {} characters; a {} channel allows {max}",
                            len(topic),
                            type_name(t)
                        ),
                    )
                    .with_help("shorten the topic"),
                );
            }
        }
        for (field, v) in [
            ("slowmode", ch.slowmode),
            ("default_thread_slowmode", ch.default_thread_slowmode),
        ] {
            if let Some(v) = v
                && v > SLOWMODE_MAX
            {
                out.push(
                    Diagnostic::error(
                        format!("{p}.{field}"),
                        format!("{field} {v} is above {SLOWMODE_MAX} seconds (6 hours)"),
                    )
                    .with_help("use 0 to 21600 seconds"),
                );
            }
        }
        if let Some(b) = ch.bitrate {
            let max = if t == ChannelType::Stage {
                STAGE_BITRATE_MAX
            } else {
                VOICE_BITRATE_MAX
            };
            if t.is_voice_like() && !(BITRATE_MIN..=max).contains(&b) {
                out.push(
                    Diagnostic::error(
                        format!("{p}.bitrate"),
                        format!(
                            "bitrate {b} is outside {BITRATE_MIN}-{max} for a {} channel",
                            type_name(t)
                        ),
                    )
                    .with_help(
                        "voice: 8000 to 96000 (up to 384000 with boosts); stage: 8000 to 64000",
                    ),
                );
            }
        }
        if let Some(u) = ch.user_limit {
            let max = if t == ChannelType::Stage {
                STAGE_USER_LIMIT_MAX
            } else {
                VOICE_USER_LIMIT_MAX
            };
            if t.is_voice_like() && u > max {
                out.push(
                    Diagnostic::error(
                        format!("{p}.user_limit"),
                        format!(
                            "user_limit {u} is above {max} for a {} channel",
                            type_name(t)
                        ),
                    )
                    .with_help(format!("use 0 (no limit) to {max}")),
                );
            }
        }
        if let Some(d) = ch.default_auto_archive_duration
            && !AUTO_ARCHIVE_DURATIONS.contains(&d)
        {
            out.push(
                Diagnostic::error(
                    format!("{p}.default_auto_archive_duration"),
                    format!("default_auto_archive_duration {d} is not allowed"),
                )
                .with_help("use 60, 1440, 4320 or 10080 (minutes)"),
            );
        }
        if t == ChannelType::Category {
            let children = ch.channels.as_ref().map_or(0, Vec::len);
            if children > CATEGORY_CHILDREN_MAX {
                out.push(
                    Diagnostic::error(
                        format!("{p}.channels"),
                        format!("category \"{}\" has {children} channels; the limit is {CATEGORY_CHILDREN_MAX}", ch.name),
                    )
                    .with_help("move channels to another category"),
                );
            }
        }
    }
}

pub(super) fn channel_structure(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let t = c.channel.channel_type();
        if c.channel.channels.is_some() && t != ChannelType::Category {
            out.push(
                Diagnostic::error(
                    format!("{}.channels", c.path),
                    format!(
                        "only a category holds channels, but \"{}\" is {} channel",
                        c.channel.name,
                        a_type(t)
                    ),
                )
                .with_help("add `type: category`, or move these channels out"),
            );
        }
        if t == ChannelType::Category && c.depth > 0 {
            out.push(
                Diagnostic::error(
                    c.path.clone(),
                    format!("category \"{}\" is inside another category", c.channel.name),
                )
                .with_help("categories cannot be nested: move it to the top-level `channels` list"),
            );
        }
    }
}

/// Discord shows a category's (and the top level's) text-like channels above its voice
/// channels, whatever their positions: a list that puts voice first plans to "no changes"
/// while members see another order, so it is said where it starts.
pub(super) fn channel_display_order(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let siblings = groups(ctx.channels.iter().map(|c| c.parent).collect::<Vec<_>>());
    for (parent, members) in siblings {
        let listed: Vec<&ChannelRef> = members
            .iter()
            .map(|&i| &ctx.channels[i])
            .filter(|c| c.channel.channel_type() != ChannelType::Category)
            .collect();
        let Some(first_voice) = listed
            .iter()
            .position(|c| c.channel.channel_type().is_voice_like())
        else {
            continue;
        };
        if !listed[first_voice..]
            .iter()
            .any(|c| !c.channel.channel_type().is_voice_like())
        {
            continue;
        }
        let (text, voice): (Vec<&&ChannelRef>, Vec<&&ChannelRef>) = listed
            .iter()
            .partition(|c| !c.channel.channel_type().is_voice_like());
        let shown: Vec<&str> = text
            .iter()
            .chain(voice.iter())
            .map(|c| c.channel.name.as_str())
            .collect();
        let place = match parent {
            Some(p) => format!("category \"{}\"", ctx.channels[p].channel.name),
            None => "the channels outside categories".to_owned(),
        };
        let v = listed[first_voice];
        out.push(
            Diagnostic::warning(
                v.path.clone(),
                format!(
                    "\"{}\" ({}) is listed above text channels in {place}, but Discord shows text channels above voice channels; members will see: {}",
                    v.channel.name,
                    type_name(v.channel.channel_type()),
                    shown.join(", ")
                ),
            )
            .with_help("list the text channels first: the manifest then reads as members see it"),
        );
    }
}

pub(super) fn channel_field_applicability(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    use ChannelType::*;
    // docs/discord.md §4.2
    const TEXTISH: &[ChannelType] = &[Text, Announcement, Forum, Media];
    const VOICEISH: &[ChannelType] = &[Voice, Stage];
    const FORUMISH: &[ChannelType] = &[Forum, Media];
    for c in &ctx.channels {
        let ch = c.channel;
        let t = ch.channel_type();
        // One row a field: its name, whether the manifest sets it, the types it applies to.
        #[rustfmt::skip]
        let fields: [(&str, bool, &[ChannelType]); 17] = [
            ("topic",                         ch.topic.is_some(),                         TEXTISH),
            ("nsfw",                          ch.nsfw.is_some(),                          &[Text, Voice, Announcement, Stage, Forum, Media]),
            ("slowmode",                      ch.slowmode.is_some(),                      &[Text, Voice, Stage, Forum, Media]),
            ("bitrate",                       ch.bitrate.is_some(),                       VOICEISH),
            ("user_limit",                    ch.user_limit.is_some(),                    VOICEISH),
            ("rtc_region",                    ch.rtc_region.is_some(),                    VOICEISH),
            ("video_quality_mode",            ch.video_quality_mode.is_some(),            VOICEISH),
            ("default_auto_archive_duration", ch.default_auto_archive_duration.is_some(), TEXTISH),
            ("default_thread_slowmode",       ch.default_thread_slowmode.is_some(),       TEXTISH),
            ("tags",                          ch.tags.is_some(),                          FORUMISH),
            ("default_reaction",              ch.default_reaction.is_some(),              FORUMISH),
            ("sort_order",                    ch.sort_order.is_some(),                    FORUMISH),
            // §9.5: forum channels only.
            ("layout",                        ch.layout.is_some(),                        &[Forum]),
            ("require_tag",                   ch.require_tag.is_some(),                   FORUMISH),
            // §4.2: the flags Discord reads for each type.
            ("spoiler",                       ch.spoiler.is_some(),                       &[Text, Voice, Announcement, Forum, Media]),
            ("hide_media_download_options",   ch.hide_media_download_options.is_some(),   &[Media]),
            // Discord follows announcement channels into text and announcement channels.
            ("follows",                       ch.follows.is_some(),                       &[Text, Announcement]),
        ];
        for (field, set, types) in fields {
            if set && !types.contains(&t) {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                out.push(
                    Diagnostic::error(
                        format!("{}.{field}", c.path),
                        format!("`{field}` does not apply to {} channel", a_type(t)),
                    )
                    .with_help(format!(
                        "`{field}` applies to: {}; remove it",
                        names.join(", ")
                    )),
                );
            }
        }
    }
}

pub(super) fn sync_permissions(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let Some(sync) = c.channel.sync_permissions else {
            continue;
        };
        let path = format!("{}.sync_permissions", c.path);
        let in_category = c
            .parent
            .is_some_and(|p| ctx.channels[p].channel.channel_type() == ChannelType::Category);
        if !in_category {
            out.push(
                Diagnostic::error(
                    path,
                    format!(
                        "`sync_permissions` on \"{}\", which is not inside a category",
                        c.channel.name
                    ),
                )
                .with_help("only a channel in a category can be synced with it; remove the field"),
            );
        } else if sync && c.channel.overwrites.is_some() {
            out.push(
                Diagnostic::error(
                    path,
                    "`sync_permissions: true` together with `overwrites`",
                )
                .with_help("a synced channel has exactly its category's overwrites: remove `overwrites`, or set `sync_permissions: false`"),
            );
        }
    }
}

pub(super) fn channel_name_normalisation(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let t = c.channel.channel_type();
        if !t.is_text_like() {
            continue;
        }
        let norm = text_name(&c.channel.name);
        if norm != c.channel.name && !norm.is_empty() {
            out.push(
                Diagnostic::warning(
                    format!("{}.name", c.path),
                    format!(
                        "Discord will rename {} channel \"{}\" to \"{norm}\"",
                        type_name(t),
                        c.channel.name
                    ),
                )
                .with_help(format!(
                    "write `name: {norm}` so plans stay at zero changes"
                )),
            );
        } else if norm.is_empty() && !c.channel.name.is_empty() {
            out.push(
                Diagnostic::error(
                    format!("{}.name", c.path),
                    format!(
                        "channel name \"{}\" has nothing Discord keeps (letters, digits, `-`, `_`)",
                        c.channel.name
                    ),
                )
                .with_help("use letters or digits in the name"),
            );
        }
    }
}

/// "a text", "an announcement".
fn a_type(t: ChannelType) -> String {
    let n = t.name();
    if n.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {n}")
    } else {
        format!("a {n}")
    }
}

/// Sorting group of a channel type: names must be unique within a parent and group.
fn group(t: ChannelType) -> &'static str {
    if t == ChannelType::Category {
        "category"
    } else if t.is_voice_like() {
        "voice"
    } else {
        "text"
    }
}
