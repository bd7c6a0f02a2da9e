//! Rules for guild settings: the channels they name, Discord's limits (and the count of roles
//! and channels a guild holds), the locale, and what `community: true` needs and what needs
//! it (docs/discord.md §4.6, §5.1).

use super::*;
use crate::discord::models::LOCALES;
use crate::manifest::types::{ExplicitContentFilter, VerificationLevel};

pub(super) fn settings_channel_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(s) = &ctx.manifest.settings else {
        return;
    };
    use ChannelType::{Text, Voice};
    let refs: [(&str, &Option<Option<String>>, ChannelType); 5] = [
        ("afk_channel", &s.afk_channel, Voice),
        ("system_channel", &s.system_channel, Text),
        ("rules_channel", &s.rules_channel, Text),
        ("public_updates_channel", &s.public_updates_channel, Text),
        ("safety_alerts_channel", &s.safety_alerts_channel, Text),
    ];
    for (field, value, want) in refs {
        let Some(Some(name)) = value else { continue };
        ctx.check_channel_ref(
            &format_args!("settings.{field}"),
            &format!("`{field}`"),
            name,
            &[want],
            out,
        );
    }
}

pub(super) fn guild_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let m = ctx.manifest;
    if let Some(s) = &m.settings {
        // The name as Discord stores it (`as_stored`: trimmed), which the limit applies to.
        if let Some(name) = &s.name {
            let n = len(name);
            if n < GUILD_NAME_LEN.0 || n > GUILD_NAME_LEN.1 {
                let (min, max) = GUILD_NAME_LEN;
                let counted = if n < min {
                    " as Discord stores it (without leading and trailing whitespace)"
                } else {
                    ""
                };
                out.push(
                    Diagnostic::error(
                        "settings.name",
                        format!(
                            "guild name is {n} character{}{counted}; Discord allows {min} to {max}",
                            if n == 1 { "" } else { "s" }
                        ),
                    )
                    .with_help(if n < min {
                        format!("write a name of at least {min} characters besides whitespace")
                    } else {
                        format!("shorten the name to {max} characters")
                    }),
                );
            }
        }
        if let Some(Some(d)) = &s.description
            && len(d) > GUILD_DESCRIPTION_MAX
        {
            out.push(
                Diagnostic::error(
                    "settings.description",
                    format!(
                        "description is {} characters; the limit is {GUILD_DESCRIPTION_MAX}",
                        len(d)
                    ),
                )
                .with_help("shorten the description"),
            );
        }
        if let Some(t) = s.afk_timeout
            && !AFK_TIMEOUTS.contains(&t)
        {
            out.push(
                Diagnostic::error(
                    "settings.afk_timeout",
                    format!("afk_timeout {t} is not allowed"),
                )
                .with_help("use 60, 300, 900, 1800 or 3600 (seconds)"),
            );
        }
    }
    // The guild's counts: (section, count, limit, what is counted, help).
    let counts = [
        ("roles", ctx.roles.len(), ROLES_MAX, "roles", "remove roles"),
        (
            "channels",
            ctx.channels.len(),
            CHANNELS_MAX,
            "channels and categories",
            "remove channels (threads do not count)",
        ),
    ];
    for (section, n, max, what, help) in counts {
        if n > max {
            out.push(
                Diagnostic::error(
                    section,
                    format!("{n} {what} declared; a guild holds at most {max}"),
                )
                .with_help(help),
            );
        }
    }
}

/// Discord refuses a `preferred_locale` outside its list; `en-us` for `en-US` would
/// otherwise fail at apply time, halfway through.
pub(super) fn settings_locale(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(locale) = ctx
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.preferred_locale.as_deref())
    else {
        return;
    };
    if LOCALES.contains(&locale) {
        return;
    }
    let help = match LOCALES.iter().find(|l| l.eq_ignore_ascii_case(locale)) {
        Some(exact) => format!("Discord spells it `{exact}`"),
        None => match closest(locale, LOCALES) {
            Some(near) => format!(
                "did you mean `{near}`? Discord's locales: {}",
                LOCALES.join(", ")
            ),
            None => format!("use one of Discord's locales: {}", LOCALES.join(", ")),
        },
    };
    out.push(
        Diagnostic::error(
            "settings.preferred_locale",
            format!("`{locale}` is not a locale Discord accepts"),
        )
        .with_help(help),
    );
}

pub(super) fn community_prerequisites(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let s = ctx.manifest.settings.as_ref();
    let community = s.and_then(|s| s.community);
    if let Some(s) = s
        && community == Some(true)
    {
        for (field, value) in [
            ("rules_channel", &s.rules_channel),
            ("public_updates_channel", &s.public_updates_channel),
        ] {
            if !matches!(value, Some(Some(_))) {
                out.push(
                    Diagnostic::error(
                        "settings.community",
                        format!("`community: true` needs `settings.{field}`"),
                    )
                    .with_help(format!(
                        "set `{field}` to a text channel; Discord enables COMMUNITY only with rules and updates channels"
                    )),
                );
            }
        }
        if let Some(v) = s.verification_level
            && v.value() < VerificationLevel::Low.value()
        {
            out.push(
                Diagnostic::error(
                    "settings.verification_level",
                    format!(
                        "`community: true` needs verification_level `low` or higher, not `{}`",
                        v.name()
                    ),
                )
                .with_help("set `verification_level: low` (or medium, high, very_high)"),
            );
        }
        if let Some(f) = s.explicit_content_filter
            && f != ExplicitContentFilter::AllMembers
        {
            out.push(
                Diagnostic::error(
                    "settings.explicit_content_filter",
                    format!(
                        "`community: true` needs explicit_content_filter `all_members`, not `{}`",
                        f.name()
                    ),
                )
                .with_help("set `explicit_content_filter: all_members`"),
            );
        }
    }
    if community != Some(true) {
        let m = ctx.manifest;
        for (section, present, what) in [
            (
                "welcome_screen",
                m.welcome_screen.is_some(),
                "a welcome screen",
            ),
            ("onboarding", m.onboarding.is_some(), "onboarding"),
        ] {
            if !present {
                continue;
            }
            let d = if community == Some(false) {
                Diagnostic::error(
                    section,
                    format!("`{section}` in a guild with `community: false`"),
                )
            } else {
                Diagnostic::warning(
                    section,
                    format!("{what} needs a community guild, and `settings.community` is not set"),
                )
            };
            out.push(d.with_help(format!(
                "set `settings.community: true`, or remove `{section}`; plan refuses it unless the guild already is a community"
            )));
        }
        for c in &ctx.channels {
            if c.channel.channel_type() == ChannelType::Announcement {
                let d = if community == Some(false) {
                    Diagnostic::error(
                        format!("{}.type", c.path),
                        format!(
                            "announcement channel \"{}\" in a guild with `community: false`",
                            c.channel.name
                        ),
                    )
                } else {
                    Diagnostic::warning(
                        format!("{}.type", c.path),
                        format!(
                            "announcement channel \"{}\" needs a community guild",
                            c.channel.name
                        ),
                    )
                };
                out.push(
                    d.with_help("set `settings.community: true`, or make it a `text` channel"),
                );
            }
        }
    }
}
