//! Rules for AutoMod rules (Discord's resources/auto-moderation): names, one trigger kind
//! per rule with its lists within Discord's limits, how many rules of each kind a guild
//! holds, actions that fit the trigger, and the roles and channels they name.

use super::*;
use crate::manifest::types::{AutoModAction, AutoModRule, AutoModTriggerType};

fn rules(m: &Manifest) -> impl Iterator<Item = (String, &AutoModRule)> {
    entries("automod", &m.automod)
}

/// Names of 1-100 characters, each used once (unless every holder pins its `id`), and
/// previous names that are no other rule's name.
pub(super) fn automod_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let list: Vec<_> = rules(ctx.manifest).collect();
    for (path, r) in &list {
        Text("AutoMod rule name", AUTOMOD_NAME_LEN).check(
            out,
            format_args!("{path}.name"),
            &r.name,
        );
    }
    let mut owner: HashMap<&str, &str> = HashMap::new();
    let names = list.iter().map(|(_, r)| (r.name.as_str(), r.id.is_some()));
    let at = |i: usize| list[i].0.clone();
    let rule = (
        "AutoMod rule",
        "rules are matched by name: rename one, or pin each to its `id`",
    );
    for (name, first) in duplicate_names(names, at, rule, out) {
        owner.insert(name, list[first].0.as_str());
    }
    for (path, r) in &list {
        for (k, old) in r.previous_names.iter().enumerate() {
            if let Some(other) = owner.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.previous_names[{k}]"),
                        format!("\"{old}\" is a previous name here but the name of {other}"),
                    )
                    .with_help("remove it from previous_names"),
                );
            }
        }
    }
}

/// A list within Discord's count and per-item length limits.
fn list_limits(
    out: &mut Vec<Diagnostic>,
    path: String,
    what: &'static str,
    list: Option<&Vec<String>>,
    max: usize,
    item_len: (usize, usize),
) {
    let Some(list) = list else { return };
    if list.len() > max {
        out.push(
            Diagnostic::error(
                path.clone(),
                format!(
                    "{} {what} entries; Discord allows at most {max} in a rule",
                    list.len()
                ),
            )
            .with_help(format!("keep at most {max}, or split them across rules")),
        );
    }
    for (k, item) in list.iter().enumerate() {
        Text(what, item_len).check(out, format_args!("{path}[{k}]"), item);
    }
}

/// One trigger kind per rule; its lists within Discord's limits; regular expressions that
/// parse in Rust's flavour (Discord's); the event the kind runs on.
pub(super) fn automod_triggers(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in rules(ctx.manifest) {
        let t = &r.trigger;
        let at = format!("{path}.trigger");
        let kind = match t.kind() {
            Ok(k) => k,
            Err(why) => {
                out.push(
                    Diagnostic::error(at, format!("AutoMod rule \"{}\": {why}", r.name))
                        .with_help("docs/manifest.md, \"AutoMod\", lists the trigger kinds"),
                );
                continue;
            }
        };
        use AutoModTriggerType as T;
        let words = matches!(kind, T::Keyword | T::MemberProfile);
        for (field, written) in [
            ("keywords", t.keywords.is_some() && !words),
            ("regex", t.regex.is_some() && !words),
            ("allow", t.allow.is_some() && !words && kind != T::Preset),
        ] {
            if written {
                out.push(Diagnostic::error(
                    format!("{at}.{field}"),
                    format!("`{field}` does not apply to a `{}` rule", kind.name()),
                ));
            }
        }
        list_limits(
            out,
            format!("{at}.keywords"),
            "keyword",
            t.keywords.as_ref(),
            AUTOMOD_KEYWORDS_MAX,
            AUTOMOD_KEYWORD_LEN,
        );
        list_limits(
            out,
            format!("{at}.regex"),
            "regex",
            t.regex.as_ref(),
            AUTOMOD_REGEX_MAX,
            AUTOMOD_REGEX_LEN,
        );
        let allow_max = if kind == T::Preset {
            AUTOMOD_PRESET_ALLOW_MAX
        } else {
            AUTOMOD_ALLOW_MAX
        };
        list_limits(
            out,
            format!("{at}.allow"),
            "allow",
            t.allow.as_ref(),
            allow_max,
            AUTOMOD_KEYWORD_LEN,
        );
        for (k, pattern) in t.regex.iter().flatten().enumerate() {
            if let Err(e) = regex_syntax::parse(pattern) {
                out.push(
                    Diagnostic::error(
                        format!("{at}.regex[{k}]"),
                        format!("`{pattern}` is not a regular expression Discord accepts: {e}"),
                    )
                    .with_help("Discord reads patterns in Rust's regex flavour"),
                );
            }
        }
        if let Some(n) = t.mention_limit
            && n > AUTOMOD_MENTION_LIMIT_MAX
        {
            out.push(Diagnostic::error(
                format!("{at}.mention_limit"),
                format!("mention_limit is {n}; Discord allows 0 to {AUTOMOD_MENTION_LIMIT_MAX}"),
            ));
        }
        if t.preset.as_ref().is_some_and(Vec::is_empty) {
            out.push(
                Diagnostic::error(format!("{at}.preset"), "`preset` names no list")
                    .with_help("name one or more of profanity, sexual_content, slurs"),
            );
        }
        if let Some(e) = r.event
            && e != kind.event()
        {
            out.push(Diagnostic::error(
                format!("{path}.event"),
                format!(
                    "a `{}` rule runs on `{}`, not `{}`",
                    kind.name(),
                    kind.event().name(),
                    e.name()
                ),
            ));
        }
    }
}

/// At most 6 keyword rules and one of each other kind (Discord's "Max per Guild").
pub(super) fn automod_rule_counts(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let kinds = rules(ctx.manifest).filter_map(|(path, r)| Some((r.trigger.kind().ok()?, path)));
    let mut seen: HashMap<u64, Vec<String>> = HashMap::new();
    for (kind, path) in kinds {
        let held = seen.entry(kind.value()).or_default();
        held.push(path.clone());
        if held.len() > kind.max_per_guild() {
            out.push(
                Diagnostic::error(
                    format!("{path}.trigger"),
                    format!(
                        "rule {} of kind `{}`: a guild holds at most {} (first at {})",
                        held.len(),
                        kind.name(),
                        kind.max_per_guild(),
                        held[0]
                    ),
                )
                .with_help("merge the rules, or remove this one"),
            );
        }
    }
}

/// 1 to 5 actions, each fitting the trigger (a timeout for keyword and mention rules, a
/// block of interaction for profile rules only, a message block for message rules), within
/// Discord's limits; exemptions within theirs.
pub(super) fn automod_actions(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    use AutoModTriggerType as T;
    for (path, r) in rules(ctx.manifest) {
        let (min, max) = AUTOMOD_ACTIONS_LEN;
        if !(min..=max).contains(&r.actions.len()) {
            out.push(
                Diagnostic::error(
                    format!("{path}.actions"),
                    format!(
                        "AutoMod rule \"{}\" has {} actions; Discord wants {min} to {max}",
                        r.name,
                        r.actions.len()
                    ),
                )
                .with_help("for example `actions: [block: {}]`"),
            );
        }
        let kind = r.trigger.kind().ok();
        for (k, a) in r.actions.iter().enumerate() {
            let at = format!("{path}.actions[{k}]");
            let (fits, name) = match a {
                AutoModAction::Block(b) => {
                    if let Some(m) = &b.message {
                        Text("block message", (0, AUTOMOD_BLOCK_MESSAGE_MAX)).check(
                            out,
                            format_args!("{at}.block.message"),
                            m,
                        );
                    }
                    (kind != Some(T::MemberProfile), "block")
                }
                AutoModAction::Alert(_) => (true, "alert"),
                AutoModAction::Timeout(secs) => {
                    if *secs > AUTOMOD_TIMEOUT_MAX {
                        out.push(
                            Diagnostic::error(
                                format!("{at}.timeout"),
                                format!(
                                    "a timeout of {secs} seconds; Discord allows at most {AUTOMOD_TIMEOUT_MAX} (4 weeks)"
                                ),
                            )
                            .with_help("write at most 2419200"),
                        );
                    }
                    (
                        matches!(kind, Some(T::Keyword | T::MentionSpam) | None),
                        "timeout",
                    )
                }
                AutoModAction::BlockMemberInteraction => (
                    matches!(kind, Some(T::MemberProfile) | None),
                    "block_member_interaction",
                ),
            };
            if !fits && let Some(kind) = kind {
                out.push(Diagnostic::error(
                    at,
                    format!(
                        "`{name}` cannot be an action of a `{}` rule (Discord refuses it)",
                        kind.name()
                    ),
                ));
            }
        }
        #[rustfmt::skip]
        let exempt = [
            ("exempt_roles",    r.exempt_roles.len(),    AUTOMOD_EXEMPT_ROLES_MAX),
            ("exempt_channels", r.exempt_channels.len(), AUTOMOD_EXEMPT_CHANNELS_MAX),
        ];
        for (field, n, max) in exempt {
            if n > max {
                out.push(Diagnostic::error(
                    format!("{path}.{field}"),
                    format!("{n} {field}; Discord allows at most {max}"),
                ));
            }
        }
    }
}

/// Alerts go to text and announcement channels.
const ALERT_CHANNELS: &[ChannelType] = &[ChannelType::Text, ChannelType::Announcement];
/// A rule may exempt any channel, categories included.
const EXEMPT_CHANNELS: &[ChannelType] = &[
    ChannelType::Text,
    ChannelType::Voice,
    ChannelType::Category,
    ChannelType::Announcement,
    ChannelType::Stage,
    ChannelType::Forum,
    ChannelType::Media,
];

/// The roles and channels a rule names (its exemptions and alert channels), through the
/// one resolver every reference takes: a previous name is an error naming the new one.
pub(super) fn automod_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in rules(ctx.manifest) {
        for (k, role) in r.exempt_roles.iter().enumerate() {
            let at = format_args!("{path}.exempt_roles[{k}]");
            ctx.check_role_ref(&at, role, Undeclared::Warn, out);
        }
        for (k, channel) in r.exempt_channels.iter().enumerate() {
            let at = format_args!("{path}.exempt_channels[{k}]");
            ctx.check_channel_ref(&at, "an exempt channel", channel, EXEMPT_CHANNELS, out);
        }
        for (k, action) in r.actions.iter().enumerate() {
            if let AutoModAction::Alert(channel) = action {
                let at = format_args!("{path}.actions[{k}].alert");
                ctx.check_channel_ref(&at, "an alert channel", channel, ALERT_CHANNELS, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::types::{AutoModBlock, AutoModTrigger};

    fn keywords(name: &str) -> AutoModRule {
        AutoModRule {
            name: name.into(),
            trigger: AutoModTrigger {
                keywords: Some(vec!["discord.gg/*".into()]),
                ..Default::default()
            },
            actions: vec![AutoModAction::Block(AutoModBlock::default())],
            enabled: true,
            ..Default::default()
        }
    }

    fn run(rule: Rule, list: Vec<AutoModRule>) -> Vec<Diagnostic> {
        run_rule(rule, |m| m.automod = Some(list))
    }

    fn paths(d: &[Diagnostic]) -> Vec<&str> {
        d.iter().map(|d| d.path.as_str()).collect()
    }

    #[test]
    fn names_are_used_once() {
        let d = run(automod_names, vec![keywords("a"), keywords("a")]);
        assert_eq!(paths(&d), ["automod[1].name"]);
        let long = "x".repeat(101);
        assert_eq!(
            paths(&run(automod_names, vec![keywords(&long)])),
            ["automod[0].name"]
        );
    }

    #[test]
    fn a_trigger_has_one_kind_within_limits() {
        let mut mixed = keywords("a");
        mixed.trigger.spam = true;
        let mut long = keywords("b");
        long.trigger.keywords = Some(vec!["k".repeat(61)]);
        let mut bad_regex = keywords("c");
        bad_regex.trigger.regex = Some(vec!["(".into()]);
        let d = run(automod_triggers, vec![mixed, long, bad_regex]);
        assert_eq!(
            paths(&d),
            [
                "automod[0].trigger",
                "automod[1].trigger.keywords[0]",
                "automod[2].trigger.regex[0]"
            ]
        );
    }

    #[test]
    fn at_most_six_keyword_rules() {
        let list: Vec<_> = (0..7).map(|i| keywords(&format!("r{i}"))).collect();
        assert_eq!(
            paths(&run(automod_rule_counts, list)),
            ["automod[6].trigger"]
        );
    }

    #[test]
    fn actions_fit_and_timeouts_stop_at_four_weeks() {
        let mut long = keywords("a");
        long.actions = vec![AutoModAction::Timeout(AUTOMOD_TIMEOUT_MAX + 1)];
        let mut spam = keywords("b");
        spam.trigger = AutoModTrigger {
            spam: true,
            ..Default::default()
        };
        spam.actions = vec![AutoModAction::Timeout(60)];
        let mut none = keywords("c");
        none.actions.clear();
        let d = run(automod_actions, vec![long, spam, none]);
        assert_eq!(
            paths(&d),
            [
                "automod[0].actions[0].timeout",
                "automod[1].actions[0]",
                "automod[2].actions"
            ]
        );
    }
}
