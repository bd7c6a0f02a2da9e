//! What Discord would refuse of a channel, said at plan: forum tags a required tag
//! needs, slowmode, bitrate, category sizes.

use hashbrown::{HashMap, HashSet};

use super::Decl;
use crate::discord::models::{Channel as LiveChannel, channel_type};
use crate::plan_kit::context::Ctx;

/// `require_tag: true` on a channel left without tags would make every post impossible.
/// The checks refuse `tags: []`; with `tags` unmanaged, the live tags count.
pub(super) fn check_require_tag(cx: &mut Ctx, d: &Decl, live: Option<&LiveChannel>) {
    let forum_like = matches!(d.kind, channel_type::FORUM | channel_type::MEDIA);
    if !forum_like
        || d.ch.require_tag != Some(true)
        || crate::planner::forum::tags_after(d.ch, live) > 0
    {
        return;
    }
    let has = match (&d.ch.tags, live) {
        (Some(_), _) => "its `tags` list is empty",
        (None, Some(_)) => "it has no tags live and `tags` is not declared",
        (None, None) => "it is new and `tags` is not declared",
    };
    cx.problem(
        Some(format!("{}.require_tag", d.source)),
        format!("`{}` requires a tag on every post, but {has}", d.ch.name),
        Some("declare its `tags`, or remove `require_tag`"),
    );
}

/// A spoiler channel cannot be age-restricted (400 50035 `CHANNEL_SPOILER_NSFW`): the
/// checks refuse both in one entry; this finds one of them live.
pub(super) fn check_spoiler_nsfw(cx: &mut Ctx, d: &Decl, live: Option<&LiveChannel>) {
    let nsfw =
        d.ch.nsfw
            .unwrap_or_else(|| live.is_some_and(|l| l.nsfw == Some(true)));
    if !nsfw || !super::flags::spoiler_after(d.ch, live) {
        return;
    }
    let (field, help) = if d.ch.spoiler == Some(true) {
        ("spoiler", "set `nsfw: false` too, or remove `spoiler`")
    } else {
        ("nsfw", "set `spoiler: false` too, or remove `nsfw`")
    };
    cx.problem(
        Some(format!("{}.{field}", d.source)),
        format!(
            "`{}` would be both a spoiler channel and age-restricted (`nsfw`), which Discord refuses",
            d.ch.name
        ),
        Some(help),
    );
}

/// Discord sets `default_thread_rate_limit_per_user` of an announcement channel only when
/// creating it: Modify Channel ignores it there (docs/discord.md §4.2), so a change
/// would be sent on every apply and never made.
pub(super) fn check_announcement_thread_slowmode(
    cx: &mut Ctx,
    d: &Decl,
    live: Option<&LiveChannel>,
) {
    let (Some(want), Some(live)) = (d.ch.default_thread_slowmode, live) else {
        return;
    };
    let have = live.default_thread_rate_limit_per_user.unwrap_or(0);
    if d.kind != channel_type::ANNOUNCEMENT || have == want {
        return;
    }
    cx.problem(
        Some(format!("{}.default_thread_slowmode", d.source)),
        format!(
            "`{}` would be an existing announcement channel, whose default_thread_slowmode              ({have}) Discord sets only when the channel is created",
            d.ch.name
        ),
        Some(&format!(
            "write `default_thread_slowmode: {have}` (the live value), or leave it out"
        )),
    );
}

/// Bitrate ceilings depend on the guild's boost tier (docs/discord.md §4.2).
pub(super) fn check_bitrate(cx: &mut Ctx, d: &Decl) {
    let Some(bitrate) = d.ch.bitrate else { return };
    let g = &cx.snap.guild;
    let max = match d.kind {
        channel_type::STAGE => 64_000,
        _ if g.has_feature("VIP_REGIONS") => 384_000,
        _ => match g.premium_tier {
            0 => 96_000,
            1 => 128_000,
            2 => 256_000,
            _ => 384_000,
        },
    };
    if !(8_000..=max).contains(&bitrate) {
        cx.problem(
            Some(format!("{}.bitrate", d.source)),
            format!(
                "bitrate {bitrate} of `{}` is outside 8000..={max}, the range this guild's boost tier ({}) allows",
                d.ch.name, g.premium_tier
            ),
            Some("lower the bitrate"),
        );
    }
}

/// At most 50 channels per category, counting undeclared live ones that stay.
pub(super) fn check_category_sizes(
    cx: &mut Ctx,
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
    matched: &HashSet<&str>,
) {
    // Counted in one pass each, not once per category.
    let mut declared_in: HashMap<usize, usize> = HashMap::new();
    for d in decls {
        if let Some(p) = d.parent {
            *declared_in.entry(p).or_default() += 1;
        }
    }
    let mut kept_in: HashMap<&str, usize> = HashMap::new();
    for c in &cx.snap.channels {
        if let Some(p) = c.parent_id.as_deref()
            && !matched.contains(c.id.as_str())
        {
            *kept_in.entry(p).or_default() += 1;
        }
    }
    for (i, d) in decls.iter().enumerate() {
        if d.kind != channel_type::CATEGORY {
            continue;
        }
        let declared = declared_in.get(&i).copied().unwrap_or(0);
        let kept = match (matches[i], cx.manifest.prune.channels) {
            (Some(cat), false) => kept_in.get(cat.id.as_str()).copied().unwrap_or(0),
            _ => 0,
        };
        if declared + kept > 50 {
            cx.problem(
                Some(d.source.clone()),
                format!(
                    "category `{}` would hold {} channels ({declared} declared, {kept} undeclared kept); Discord allows 50",
                    d.ch.name,
                    declared + kept
                ),
                Some("split the category"),
            );
        }
    }
}
