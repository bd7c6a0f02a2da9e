//! Rules for the welcome screen, onboarding and the widget (docs/discord.md §5.3-§5.5):
//! Discord's limits, the channels, roles and emoji they name, each listed once, and what
//! enabling onboarding needs.

use hashbrown::HashSet;

use super::*;
use crate::manifest::types::OnboardingMode;

/// Any channel but a category: welcome screen, onboarding and widget channels.
const ANY: &[ChannelType] = &[];

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

/// A list of `n` entries where Discord allows `max`: an error at `path`, `said` counting
/// them in words.
fn over_count(
    out: &mut Vec<Diagnostic>,
    path: &str,
    (n, max): (usize, usize),
    said: std::fmt::Arguments<'_>,
    help: &str,
) {
    if n > max {
        out.push(Diagnostic::error(path, format!("{said}; Discord allows {max}")).with_help(help));
    }
}

pub(super) fn welcome_screen(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ws) = &ctx.manifest.welcome_screen else {
        return;
    };
    if let Some(Some(d)) = &ws.description {
        Text("welcome screen description", (0, WELCOME_DESCRIPTION_MAX)).check(
            out,
            "welcome_screen.description",
            d,
        );
    }
    let Some(channels) = &ws.channels else {
        return;
    };
    over_count(
        out,
        "welcome_screen.channels",
        (channels.len(), WELCOME_CHANNELS_MAX),
        format_args!("the welcome screen lists {} channels", channels.len()),
        "recommend at most 5 channels; onboarding can show more",
    );
    let mut seen = FirstSeen::default();
    for (i, wc) in channels.iter().enumerate() {
        let path = format!("welcome_screen.channels[{i}]");
        Text(
            "welcome channel description",
            WELCOME_CHANNEL_DESCRIPTION_LEN,
        )
        .check(out, format_args!("{path}.description"), &wc.description);
        ctx.check_channel_ref(
            &format_args!("{path}.channel"),
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

pub(super) fn onboarding_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(ob) = &ctx.manifest.onboarding else {
        return;
    };
    if let Some(dc) = &ob.default_channels {
        over_count(
            out,
            "onboarding.default_channels",
            (dc.len(), DEFAULT_CHANNELS_MAX),
            format_args!("{} default channels", dc.len()),
            "list fewer default channels",
        );
    }
    let Some(prompts) = &ob.prompts else {
        return;
    };
    over_count(
        out,
        "onboarding.prompts",
        (prompts.len(), PROMPTS_MAX),
        format_args!("{} onboarding prompts", prompts.len()),
        "ask at most 15 questions",
    );
    let mut titles: HashMap<&str, usize> = HashMap::new();
    for (i, p) in prompts.iter().enumerate() {
        let path = format!("onboarding.prompts[{i}]");
        Text("prompt title", PROMPT_TITLE_LEN).check(out, format_args!("{path}.title"), &p.title);
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
            Text("option title", OPTION_TITLE_LEN).check(out, format_args!("{op}.title"), &o.title);
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
                Text("option description", (0, OPTION_DESCRIPTION_MAX)).check(
                    out,
                    format_args!("{op}.description"),
                    d,
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
                &format_args!("onboarding.default_channels[{k}]"),
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
                if let RoleLookup::Everyone = ctx.check_role_ref(&path, r, Undeclared::Warn, out) {
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
                    &format_args!("{op}.channels[{k}]"),
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

pub(super) fn widget(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    if let Some(w) = &ctx.manifest.widget
        && let Some(Some(r)) = &w.channel
    {
        ctx.check_channel_ref(&"widget.channel", "`widget.channel`", r, ANY, out);
    }
}
