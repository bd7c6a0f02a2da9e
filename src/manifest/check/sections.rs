//! Rules for the welcome screen, onboarding, the widget and webhooks
//! (discord-behaviour.md §5.3-§5.5, §6).

use std::path::Path;

use hashbrown::{HashMap, HashSet};

use super::image::{load_image, normalise_rel};
use super::*;
use crate::manifest::types::{Emoji, Manifest, OnboardingMode};

/// Any channel but a category: welcome screen, onboarding and widget channels.
const ANY: &[ChannelType] = &[];
/// Webhooks post in text-like channels.
const WEBHOOK_CHANNELS: &[ChannelType] = &[
    ChannelType::Text,
    ChannelType::Announcement,
    ChannelType::Forum,
    ChannelType::Media,
];

/// What to do about an entry that repeats an earlier one.
const LIST_ONCE: &str = "remove this entry: it names the same channel as the first one, and a \
                         channel is listed once however it is written (name, `Category/name`, \
                         the name as Discord stores it, or its id)";

/// Reports the entries of `list` (paths `{path}[k]`) that name a channel an earlier entry
/// already named, in any spelling.
fn no_repeated_channels(
    ctx: &Ctx<'_>,
    path: &str,
    list: &[String],
    where_: &str,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen = FirstSeen::default();
    for (k, r) in list.iter().enumerate() {
        let here = format!("{path}[{k}]");
        if let Some(first) = seen.repeat(ctx.channel_identity(r, ANY), &here, r) {
            out.push(
                Diagnostic::error(
                    here,
                    format!("channel \"{r}\" is listed twice {where_} ({first})"),
                )
                .with_help(LIST_ONCE),
            );
        }
    }
}

pub(super) fn length_error(
    out: &mut Vec<Diagnostic>,
    path: String,
    what: &str,
    text: &str,
    (min, max): (usize, usize),
) {
    let n = len(text);
    if n < min || n > max {
        let allowed = if min == 0 {
            format!("at most {max}")
        } else {
            format!("{min} to {max}")
        };
        out.push(
            Diagnostic::error(
                path,
                format!(
                    "{what} is {n} characters; Discord allows {allowed}{}",
                    super::trimmed_note(n)
                ),
            )
            .with_help(if n < min {
                format!("write a {what} of {allowed} characters")
            } else {
                format!("shorten the {what} to {max} characters")
            }),
        );
    }
}

/// `<:name:id>` or `<a:name:id>`, as Discord writes custom emoji in messages.
fn parse_custom_emoji_text(s: &str) -> Option<(&str, &str, bool)> {
    let inner = s.strip_prefix('<')?.strip_suffix('>')?;
    let (animated, rest) = match inner.strip_prefix("a:") {
        Some(rest) => (true, rest),
        None => (false, inner.strip_prefix(':')?),
    };
    let (name, id) = rest.split_once(':')?;
    Some((name, id, animated))
}

pub(super) fn check_emoji(path: String, e: &Emoji, out: &mut Vec<Diagnostic>) {
    match e {
        Emoji::Unicode(s) => {
            if let Some((name, id, animated)) = parse_custom_emoji_text(s) {
                let anim = if animated { ", animated: true" } else { "" };
                out.push(
                    Diagnostic::error(
                        path,
                        format!("\"{s}\" is a custom emoji written as message text"),
                    )
                    .with_help(format!(
                        "write it as `emoji: {{id: \"{id}\", name: {name}{anim}}}`"
                    )),
                );
            } else if s.is_empty() || s.is_ascii() {
                out.push(
                    Diagnostic::error(path, format!("\"{s}\" is not an emoji"))
                        .with_help(
                            "write a standard emoji as the character itself (`emoji: \"📜\"`, not `:scroll:`), \
                             or a custom emoji as `{id: \"…\", name: …}`",
                        ),
                );
            }
        }
        Emoji::Custom(c) => {
            if !is_snowflake(&c.id.0) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.id"),
                        format!("custom emoji id \"{}\" is not a Discord id", c.id),
                    )
                    .with_help(
                        "an id is a snowflake of 15 to 20 digits: copy it with Developer Mode \
                         (right-click the emoji, Copy ID)",
                    ),
                );
            }
            if let Some(name) = &c.name {
                let n = len(name);
                if !(2..=32).contains(&n)
                    || !name
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                {
                    out.push(
                        Diagnostic::error(
                            format!("{path}.name"),
                            format!("\"{name}\" is not a custom emoji name"),
                        )
                        .with_help("emoji names are 2 to 32 letters, digits or underscores, without colons"),
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Welcome screen

pub(super) fn welcome_screen(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ws) = &ctx.manifest.welcome_screen else {
        return;
    };
    if let Some(Some(d)) = &ws.description {
        length_error(
            out,
            "welcome_screen.description".into(),
            "welcome screen description",
            d,
            (0, WELCOME_DESCRIPTION_MAX),
        );
    }
    let Some(channels) = &ws.channels else {
        return;
    };
    if channels.len() > WELCOME_CHANNELS_MAX {
        out.push(
            Diagnostic::error(
                "welcome_screen.channels",
                format!(
                    "the welcome screen lists {} channels; Discord allows {WELCOME_CHANNELS_MAX}",
                    channels.len()
                ),
            )
            .with_help("recommend at most 5 channels; onboarding can show more"),
        );
    }
    let mut seen = FirstSeen::default();
    for (i, wc) in channels.iter().enumerate() {
        let path = format!("welcome_screen.channels[{i}]");
        length_error(
            out,
            format!("{path}.description"),
            "welcome channel description",
            &wc.description,
            WELCOME_CHANNEL_DESCRIPTION_LEN,
        );
        ctx.check_channel_ref(
            &format!("{path}.channel"),
            "a welcome screen channel",
            &wc.channel,
            ANY,
            out,
        );
        let here = format!("{path}.channel");
        if let Some(first) = seen.repeat(ctx.channel_identity(&wc.channel, ANY), &here, &wc.channel)
        {
            out.push(
                Diagnostic::error(
                    here,
                    format!(
                        "channel \"{}\" is on the welcome screen twice ({first})",
                        wc.channel
                    ),
                )
                .with_help(LIST_ONCE),
            );
        }
        if let Some(e) = &wc.emoji {
            check_emoji(format!("{path}.emoji"), e, out);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Onboarding

pub(super) fn onboarding_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ob) = &ctx.manifest.onboarding else {
        return;
    };
    if let Some(dc) = &ob.default_channels
        && dc.len() > DEFAULT_CHANNELS_MAX
    {
        out.push(
            Diagnostic::error(
                "onboarding.default_channels",
                format!(
                    "{} default channels; Discord allows {DEFAULT_CHANNELS_MAX}",
                    dc.len()
                ),
            )
            .with_help("list fewer default channels"),
        );
    }
    let Some(prompts) = &ob.prompts else {
        return;
    };
    if prompts.len() > PROMPTS_MAX {
        out.push(
            Diagnostic::error(
                "onboarding.prompts",
                format!(
                    "{} onboarding prompts; Discord allows {PROMPTS_MAX}",
                    prompts.len()
                ),
            )
            .with_help("ask at most 15 questions"),
        );
    }
    let mut titles: HashMap<&str, usize> = HashMap::new();
    for (i, p) in prompts.iter().enumerate() {
        let path = format!("onboarding.prompts[{i}]");
        length_error(
            out,
            format!("{path}.title"),
            "prompt title",
            &p.title,
            PROMPT_TITLE_LEN,
        );
        if let Some(first) = titles.get(p.title.as_str()) {
            out.push(
                Diagnostic::error(
                    format!("{path}.title"),
                    format!(
                        "duplicate prompt title \"{}\" (first at onboarding.prompts[{first}])",
                        p.title
                    ),
                )
                .with_help(
                    "prompts are matched to the live ones by title: give each a different title",
                ),
            );
        } else {
            titles.insert(&p.title, i);
        }
        let n = p.options.len();
        if !(PROMPT_OPTIONS_LEN.0..=PROMPT_OPTIONS_LEN.1).contains(&n) {
            out.push(
                Diagnostic::error(
                    format!("{path}.options"),
                    format!(
                        "prompt \"{}\" has {n} options; Discord needs 1 to {}",
                        p.title, PROMPT_OPTIONS_LEN.1
                    ),
                )
                .with_help(if n == 0 {
                    "give the prompt at least one option"
                } else {
                    "offer at most 50 options"
                }),
            );
        }
        let mut option_titles: HashMap<&str, usize> = HashMap::new();
        for (j, o) in p.options.iter().enumerate() {
            let op = format!("{path}.options[{j}]");
            length_error(
                out,
                format!("{op}.title"),
                "option title",
                &o.title,
                OPTION_TITLE_LEN,
            );
            if let Some(first) = option_titles.get(o.title.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{op}.title"),
                        format!(
                            "duplicate option title \"{}\" in prompt \"{}\" (first at {path}.options[{first}])",
                            o.title, p.title
                        ),
                    )
                    .with_help("options are matched to the live ones by title: give each a different title"),
                );
            } else {
                option_titles.insert(&o.title, j);
            }
            if let Some(d) = &o.description {
                length_error(
                    out,
                    format!("{op}.description"),
                    "option description",
                    d,
                    (0, OPTION_DESCRIPTION_MAX),
                );
            }
            for (field, count, max) in [
                ("roles", o.roles.len(), OPTION_ROLES_MAX),
                ("channels", o.channels.len(), OPTION_CHANNELS_MAX),
            ] {
                if count > max {
                    out.push(
                        Diagnostic::error(
                            format!("{op}.{field}"),
                            format!(
                                "option \"{}\" lists {count} {field}; Discord allows {max}",
                                o.title
                            ),
                        )
                        .with_help(format!("list at most {max} {field}")),
                    );
                }
            }
            if let Some(e) = &o.emoji {
                check_emoji(format!("{op}.emoji"), e, out);
            }
        }
    }
}

pub(super) fn onboarding_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ob) = &ctx.manifest.onboarding else {
        return;
    };
    if let Some(dc) = &ob.default_channels {
        for (k, r) in dc.iter().enumerate() {
            ctx.check_channel_ref(
                &format!("onboarding.default_channels[{k}]"),
                "a default channel",
                r,
                ANY,
                out,
            );
        }
        no_repeated_channels(
            ctx,
            "onboarding.default_channels",
            dc,
            "in default_channels",
            out,
        );
    }
    for (i, p) in ob.prompts.iter().flatten().enumerate() {
        for (j, o) in p.options.iter().enumerate() {
            let op = format!("onboarding.prompts[{i}].options[{j}]");
            let mut roles = FirstSeen::default();
            for (k, r) in o.roles.iter().enumerate() {
                let path = format!("{op}.roles[{k}]");
                if let RoleLookup::Everyone = ctx.check_role_ref(&path, r, out) {
                    out.push(
                        Diagnostic::warning(
                            path.clone(),
                            "every member has @everyone: giving it does nothing",
                        )
                        .with_help("remove @everyone from the option's roles"),
                    );
                }
                if let Some(first) = roles.repeat(ctx.role_identity(r), &path, r) {
                    out.push(
                        Diagnostic::error(
                            path,
                            format!("role \"{r}\" is listed twice in option \"{}\" ({first})", o.title),
                        )
                        .with_help(
                            "remove this entry: it names the same role as the first one, and a role \
                             is listed once however it is written (name or id)",
                        ),
                    );
                }
            }
            for (k, r) in o.channels.iter().enumerate() {
                ctx.check_channel_ref(
                    &format!("{op}.channels[{k}]"),
                    "a channel of an onboarding option",
                    r,
                    ANY,
                    out,
                );
            }
            no_repeated_channels(
                ctx,
                &format!("{op}.channels"),
                &o.channels,
                &format!("in option \"{}\"", o.title),
                out,
            );
        }
    }
}

pub(super) fn onboarding_enable_requirements(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ob) = &ctx.manifest.onboarding else {
        return;
    };
    let (Some(true), Some(defaults)) = (ob.enabled, &ob.default_channels) else {
        return;
    };
    // Distinct channels: two spellings of one channel count once, as on Discord.
    let mut ids: Vec<Identity> = defaults
        .iter()
        .map(|r| ctx.channel_identity(r, ANY))
        .collect();
    let advanced = ob.mode == Some(OnboardingMode::Advanced);
    if advanced {
        // Channels offered by questions count too; unmanaged prompts are live: the planner checks.
        let Some(prompts) = &ob.prompts else { return };
        ids.extend(
            prompts
                .iter()
                .flat_map(|p| &p.options)
                .flat_map(|o| &o.channels)
                .map(|r| ctx.channel_identity(r, ANY)),
        );
    }
    let n = ids.into_iter().collect::<HashSet<_>>().len();
    if n < ONBOARDING_DEFAULT_CHANNELS_MIN {
        let s = if n == 1 { "" } else { "s" };
        let what = if advanced {
            format!("channel{s} (default channels and channels of the questions, in advanced mode)")
        } else {
            format!("default channel{s}")
        };
        out.push(
            Diagnostic::error(
                "onboarding.default_channels",
                format!(
                    "{n} {what}; Discord needs at least {ONBOARDING_DEFAULT_CHANNELS_MIN} to enable onboarding"
                ),
            )
            .with_help(format!(
                "add default channels (at least {ONBOARDING_DEFAULT_CHANNELS_MIN}, {ONBOARDING_WRITABLE_CHANNELS_MIN} of them \
                 where @everyone can send messages), or set `enabled: false`"
            )),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Widget

pub(super) fn widget(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    if let Some(w) = &ctx.manifest.widget
        && let Some(Some(r)) = &w.channel
    {
        ctx.check_channel_ref("widget.channel", "`widget.channel`", r, ANY, out);
    }
}

// ---------------------------------------------------------------------------------------------
// Webhooks

fn webhook_list(m: &Manifest) -> impl Iterator<Item = (String, &crate::manifest::types::Webhook)> {
    m.webhooks
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, w)| (format!("webhooks[{i}]"), w))
}

pub(super) fn webhook_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let hooks: Vec<_> = webhook_list(ctx.manifest).collect();
    for (path, w) in &hooks {
        length_error(
            out,
            format!("{path}.name"),
            "webhook name",
            &w.name,
            WEBHOOK_NAME_LEN,
        );
        let lower = w.name.to_lowercase();
        if let Some(word) = WEBHOOK_NAME_FORBIDDEN.iter().find(|f| lower.contains(*f)) {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!(
                        "webhook name \"{}\" contains \"{word}\": Discord refuses webhook names \
                         containing \"clyde\" or \"discord\", in any case",
                        w.name
                    ),
                )
                .with_help("choose a name without \"clyde\" or \"discord\""),
            );
        }
    }
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    for (name, idx) in groups(hooks.iter().map(|(_, w)| w.name.as_str())) {
        let first = hooks[idx[0]].0.as_str();
        by_name.insert(name, first);
        if idx.iter().all(|&i| hooks[i].1.id.is_some()) {
            continue;
        }
        for &i in &idx[1..] {
            out.push(
                Diagnostic::error(
                    format!("{}.name", hooks[i].0),
                    format!("duplicate webhook name \"{name}\" (first declared at {first})"),
                )
                .with_help(
                    "webhooks are matched by name: rename one \
                     (webhooks of the same name are allowed only when each pins its `id`)",
                ),
            );
        }
    }
    let mut previous: HashMap<&str, &str> = HashMap::new();
    for (path, w) in &hooks {
        for (k, old) in w.previous_names.iter().enumerate() {
            let here = format!("{path}.previous_names[{k}]");
            if let Some(owner) = by_name.get(old.as_str()) {
                let msg = if *owner == path.as_str() {
                    format!(
                        "webhook \"{}\" lists its own name in previous_names",
                        w.name
                    )
                } else {
                    format!(
                        "\"{old}\" is a previous name of webhook \"{}\" but also the name of {owner}",
                        w.name
                    )
                };
                out.push(Diagnostic::error(here, msg).with_help(
                    "a live webhook called this would match two entries: drop the previous name",
                ));
            } else if let Some(other) = previous.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one webhook only"),
                );
            } else {
                previous.insert(old, path);
            }
        }
    }
}

pub(super) fn webhook_channels(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut per_channel: HashMap<Identity, usize> = HashMap::new();
    for (path, w) in webhook_list(ctx.manifest) {
        let found = ctx.check_channel_ref(
            &format!("{path}.channel"),
            "a webhook's channel",
            &w.channel,
            WEBHOOK_CHANNELS,
            out,
        );
        // The reference's identity ([`Ctx::channel_identity`]) from the lookup just made.
        let identity = match found {
            Some(i) => Identity::Channel(i),
            None => Identity::Written(w.channel.clone()),
        };
        let n = per_channel.entry(identity).or_default();
        *n += 1;
        if *n == WEBHOOKS_PER_CHANNEL_MAX + 1 {
            out.push(
                Diagnostic::error(
                    format!("{path}.channel"),
                    format!(
                        "{} webhooks declared in channel \"{}\"; Discord allows {WEBHOOKS_PER_CHANNEL_MAX} per channel",
                        *n, w.channel
                    ),
                )
                .with_help("spread the webhooks over several channels"),
            );
        }
    }
}

/// Every image file the manifest names, with the node path of its field: webhook avatars,
/// the guild's icon, banner and splashes, role icons. One list, so every image gets the same
/// checks here and at apply.
pub fn image_fields(m: &Manifest) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    if let Some(s) = &m.settings {
        for (field, v) in [
            ("icon", &s.icon),
            ("banner", &s.banner),
            ("splash", &s.splash),
            ("discovery_splash", &s.discovery_splash),
        ] {
            if let Some(Some(rel)) = v {
                out.push((format!("settings.{field}"), rel.as_str()));
            }
        }
    }
    for (i, r) in m.roles.iter().flatten().enumerate() {
        if let Some(Some(rel)) = &r.icon {
            out.push((format!("roles[{i}].icon"), rel.as_str()));
        }
    }
    for (path, w) in webhook_list(m) {
        if let Some(Some(rel)) = &w.avatar {
            out.push((format!("{path}.avatar"), rel.as_str()));
        }
    }
    out
}

pub(super) fn webhook_avatar_paths(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, rel) in image_fields(ctx.manifest) {
        if let Err(e) = normalise_rel(rel) {
            out.push(Diagnostic::error(path, e.message).with_help(e.help));
        }
    }
}

/// The file half of the image checks (see [`super::check_loaded`]): paths the pure rule
/// accepted must name a readable image inside `dir`.
pub(super) fn webhook_avatar_files(m: &Manifest, dir: &Path, out: &mut Vec<Diagnostic>) {
    for (path, rel) in image_fields(m) {
        if normalise_rel(rel).is_ok()
            && let Err(e) = load_image(dir, rel)
        {
            out.push(Diagnostic::error(path, e.message).with_help(e.help));
        }
    }
}
