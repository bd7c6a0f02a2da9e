//! Rules for a channel's flags and follows (docs/discord.md §4.2, §6): what Discord
//! would refuse of `spoiler`, and the announcement channels a channel follows. Which
//! channel types take them is `channel-field-applicability`'s.

use hashbrown::HashSet;

use super::*;

/// A spoiler channel cannot be age-restricted: Discord refuses `spoiler` with `nsfw`
/// (400 50035 `CHANNEL_SPOILER_NSFW`).
pub(super) fn channel_flags(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let ch = c.channel;
        if ch.spoiler == Some(true) && ch.nsfw == Some(true) {
            out.push(
                Diagnostic::error(
                    format!("{}.spoiler", c.path),
                    format!(
                        "\"{}\" is both a spoiler channel and age-restricted (`nsfw`), which Discord refuses",
                        ch.name
                    ),
                )
                .with_help("remove `spoiler` or set `nsfw: false`"),
            );
        }
    }
}

/// A channel follows each announcement channel once, and holds at most 15 webhooks, a
/// follow being one.
pub(super) fn channel_follows(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let Some(follows) = &c.channel.follows else {
            continue;
        };
        let mut seen = HashSet::new();
        for (i, f) in follows.iter().enumerate() {
            if !seen.insert(f.channel.0.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{}.follows[{i}].channel", c.path),
                        format!("\"{}\" follows channel {} twice", c.channel.name, f.channel),
                    )
                    .with_help("list each followed channel once"),
                );
            }
        }
        if follows.len() > WEBHOOKS_PER_CHANNEL_MAX {
            out.push(
                Diagnostic::error(
                    format!("{}.follows", c.path),
                    format!(
                        "\"{}\" follows {} channels; each follow is a webhook of the channel, and Discord allows {WEBHOOKS_PER_CHANNEL_MAX}",
                        c.channel.name,
                        follows.len()
                    ),
                )
                .with_help("follow fewer channels here, or follow some into another channel"),
            );
        }
    }
}
