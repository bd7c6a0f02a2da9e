//! Semantic checks on a parsed manifest: what the schema cannot say (uniqueness, references,
//! limits that depend on the channel type, Discord's prerequisites). No network: references
//! to objects that may exist only in the live guild are warnings, and the planner checks them
//! against the snapshot.
//!
//! Every rule is one function in [`RULES`]; adding a check means adding one function and one
//! row there.

use std::collections::HashMap;

use super::diagnostic::Diagnostic;
use super::types::{
    Channel, ChannelType, ExplicitContentFilter, Manifest, Overwrite, PermissionName, Role,
    VerificationLevel,
};
use crate::permissions::{NAMED, Permissions};

/// The name of the default role.
pub const EVERYONE: &str = "@everyone";

// Discord's limits (discord-behaviour.md §4.2, §4.6, §5.1; Discord's docs for roles).
pub const GUILD_NAME_LEN: (usize, usize) = (2, 100);
pub const GUILD_DESCRIPTION_MAX: usize = 300;
pub const ROLE_NAME_MAX: usize = 100;
pub const CHANNEL_NAME_MAX: usize = 100;
pub const TOPIC_MAX: usize = 1024;
pub const FORUM_TOPIC_MAX: usize = 4096;
pub const SLOWMODE_MAX: u32 = 21600;
pub const BITRATE_MIN: u32 = 8000;
pub const VOICE_BITRATE_MAX: u32 = 384_000;
pub const STAGE_BITRATE_MAX: u32 = 64_000;
pub const VOICE_USER_LIMIT_MAX: u32 = 99;
pub const STAGE_USER_LIMIT_MAX: u32 = 10_000;
pub const AFK_TIMEOUTS: [u32; 5] = [60, 300, 900, 1800, 3600];
pub const AUTO_ARCHIVE_DURATIONS: [u32; 4] = [60, 1440, 4320, 10080];
pub const CATEGORY_CHILDREN_MAX: usize = 50;
pub const CHANNELS_MAX: usize = 500;
pub const ROLES_MAX: usize = 250;
pub const COLOR_MAX: u32 = 0xFF_FFFF;

/// A rule: a name (used in docs and tests) and the function that appends its findings.
pub type Rule = fn(&Ctx<'_>, &mut Vec<Diagnostic>);

/// All semantic rules, in the order they run.
pub const RULES: &[(&str, Rule)] = &[
    ("unique-role-names", unique_role_names),
    ("unique-channel-names", unique_channel_names),
    ("everyone-role", everyone_role),
    ("permission-names", permission_names),
    ("overwrite-shape", overwrite_shape),
    ("overwrite-role-references", overwrite_role_references),
    ("settings-channel-references", settings_channel_references),
    ("guild-limits", guild_limits),
    ("role-limits", role_limits),
    ("channel-limits", channel_limits),
    ("channel-structure", channel_structure),
    ("channel-field-applicability", channel_field_applicability),
    ("sync-permissions", sync_permissions),
    ("channel-name-normalisation", channel_name_normalisation),
    ("community-prerequisites", community_prerequisites),
];

/// Runs every rule in [`RULES`] on the manifest.
pub fn check(m: &Manifest) -> Vec<Diagnostic> {
    let ctx = Ctx::new(m);
    let mut out = Vec::new();
    for (_, rule) in RULES {
        rule(&ctx, &mut out);
    }
    out
}

/// The manifest with its roles and channels flattened, each with its path.
pub struct Ctx<'a> {
    pub manifest: &'a Manifest,
    pub roles: Vec<(String, &'a Role)>,
    pub channels: Vec<ChannelRef<'a>>,
}

/// One channel or category wherever it is nested.
pub struct ChannelRef<'a> {
    /// `channels[1]` or `channels[1].channels[0]`.
    pub path: String,
    pub channel: &'a Channel,
    /// Index in [`Ctx::channels`] of the entry whose `channels` list holds this one.
    pub parent: Option<usize>,
    /// 0 at top level.
    pub depth: usize,
}

impl<'a> Ctx<'a> {
    pub fn new(m: &'a Manifest) -> Self {
        let roles = m
            .roles
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, r)| (format!("roles[{i}]"), r))
            .collect();
        let mut channels = Vec::new();
        fn walk<'a>(
            list: &'a [Channel],
            prefix: &str,
            parent: Option<usize>,
            depth: usize,
            out: &mut Vec<ChannelRef<'a>>,
        ) {
            for (i, c) in list.iter().enumerate() {
                let path = format!("{prefix}channels[{i}]");
                let idx = out.len();
                out.push(ChannelRef {
                    path: path.clone(),
                    channel: c,
                    parent,
                    depth,
                });
                if let Some(children) = &c.channels {
                    walk(children, &format!("{path}."), Some(idx), depth + 1, out);
                }
            }
        }
        walk(
            m.channels.as_deref().unwrap_or(&[]),
            "",
            None,
            0,
            &mut channels,
        );
        Ctx {
            manifest: m,
            roles,
            channels,
        }
    }

    fn is_declared_role(&self, name: &str) -> bool {
        name == EVERYONE || self.roles.iter().any(|(_, r)| r.name == name)
    }

    /// Channels (not categories) a settings reference by `name` could mean: exact name first,
    /// then Discord's normalised form for text-like channels.
    fn channels_named(&self, name: &str) -> Vec<&ChannelRef<'a>> {
        let exact: Vec<_> = self
            .channels
            .iter()
            .filter(|c| c.channel.name == name)
            .collect();
        if !exact.is_empty() {
            return exact;
        }
        let norm = text_name(name);
        self.channels
            .iter()
            .filter(|c| {
                c.channel.channel_type().is_text_like() && text_name(&c.channel.name) == norm
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers shared with the planner

/// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word_l = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (levenshtein(&word_l, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn len(s: &str) -> usize {
    s.chars().count()
}

fn type_name(t: ChannelType) -> &'static str {
    t.name()
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

// ---------------------------------------------------------------------------------------------
// Rules

fn unique_role_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    for (path, r) in &ctx.roles {
        if let Some(first) = by_name.get(r.name.as_str()) {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!(
                        "duplicate role name \"{}\" (first declared at {first})",
                        r.name
                    ),
                )
                .with_help("role names must be unique in a manifest: rename or merge one of them"),
            );
        } else {
            by_name.insert(&r.name, path);
        }
    }
    let mut previous: HashMap<&str, &str> = HashMap::new();
    for (path, r) in &ctx.roles {
        for (k, old) in r.previous_names.iter().enumerate() {
            let here = format!("{path}.previous_names[{k}]");
            if let Some(owner) = by_name.get(old.as_str()) {
                if *owner != path.as_str() {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!(
                                "\"{old}\" is a previous name of role \"{}\" but also the name of {owner}",
                                r.name
                            ),
                        )
                        .with_help(
                            "a live role called this would match both entries: drop the previous name, \
                             or rename the other role",
                        ),
                    );
                } else {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!("role \"{}\" lists its own name in previous_names", r.name),
                        )
                        .with_help("remove it from previous_names"),
                    );
                }
            } else if let Some(other) = previous.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one role only"),
                );
            } else {
                previous.insert(old, path);
            }
        }
    }
}

fn unique_channel_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // (parent, group, comparable name) → first path
    let key = |c: &ChannelRef<'_>, name: &str| {
        let t = c.channel.channel_type();
        let cmp = if t.is_text_like() {
            text_name(name)
        } else {
            name.to_string()
        };
        (c.parent, group(t), cmp)
    };
    let mut names: HashMap<(Option<usize>, &str, String), &str> = HashMap::new();
    for c in &ctx.channels {
        let t = c.channel.channel_type();
        let k = key(c, &c.channel.name);
        if let Some(first) = names.get(&k) {
            let what = match group(t) {
                "category" => "category name".to_string(),
                "voice" => "voice/stage channel name".to_string(),
                _ => "text channel name".to_string(),
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
                    "channels are matched by name within their category and type group; rename one",
                ),
            );
        } else {
            names.insert(k, &c.path);
        }
    }
    let mut previous: HashMap<(Option<usize>, &str, String), &str> = HashMap::new();
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

fn everyone_role(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let last = ctx.roles.len().saturating_sub(1);
    for (i, (path, r)) in ctx.roles.iter().enumerate() {
        if r.name != EVERYONE {
            if r.name.eq_ignore_ascii_case(EVERYONE) || r.name == "everyone" {
                out.push(
                    Diagnostic::warning(
                        format!("{path}.name"),
                        format!("role \"{}\" looks like the default role but is not spelled `@everyone`", r.name),
                    )
                    .with_help("write `@everyone` to manage the default role"),
                );
            }
            continue;
        }
        let help = "of @everyone only `permissions` can be managed; remove the field";
        let fields: [(&str, bool); 5] = [
            ("previous_names", !r.previous_names.is_empty()),
            ("color", r.color.is_some()),
            ("hoist", r.hoist.is_some()),
            ("mentionable", r.mentionable.is_some()),
            ("unicode_emoji", r.unicode_emoji.is_some()),
        ];
        for (field, set) in fields {
            if set {
                out.push(
                    Diagnostic::error(
                        format!("{path}.{field}"),
                        format!("`{field}` cannot be set on @everyone"),
                    )
                    .with_help(help),
                );
            }
        }
        if i != last {
            out.push(
                Diagnostic::warning(
                    path.clone(),
                    "@everyone is always the lowest role, but it is not listed last",
                )
                .with_help("move @everyone to the end of `roles` (its position cannot change)"),
            );
        }
    }
}

fn unknown_permission(path: String, p: &PermissionName) -> Option<Diagnostic> {
    if Permissions::parse_name(&p.0).is_some() {
        return None;
    }
    let lower = p.0.to_lowercase().replace([' ', '-'], "_");
    let help = if Permissions::parse_name(&lower).is_some() {
        format!("permission names are snake_case: write `{lower}`")
    } else if let Some(best) = closest(&p.0, NAMED.iter().map(|(n, _)| *n)) {
        format!("did you mean `{best}`?")
    } else {
        "use Discord's permission names in snake_case (`view_channel`, `send_messages`), \
         or `bit_N` for a bit guildctl has no name for"
            .to_string()
    };
    Some(Diagnostic::error(path, format!("unknown permission `{}`", p.0)).with_help(help))
}

fn permission_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        for (k, p) in r.permissions.iter().flatten().enumerate() {
            out.extend(unknown_permission(format!("{path}.permissions[{k}]"), p));
        }
    }
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            for (list, perms) in [("allow", &o.allow), ("deny", &o.deny)] {
                for (k, p) in perms.iter().enumerate() {
                    out.extend(unknown_permission(
                        format!("{}.overwrites[{i}].{list}[{k}]", c.path),
                        p,
                    ));
                }
            }
        }
    }
}

fn overwrite_target(o: &Overwrite) -> Option<String> {
    match (&o.role, &o.member) {
        (Some(r), None) => Some(format!("role \"{r}\"")),
        (None, Some(m)) => Some(format!("member {m}")),
        _ => None,
    }
}

fn overwrite_shape(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            let path = format!("{}.overwrites[{i}]", c.path);
            match (&o.role, &o.member) {
                (Some(_), Some(_)) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has both `role` and `member`")
                        .with_help("an overwrite is for one role or one member: split it into two"),
                ),
                (None, None) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has neither `role` nor `member`")
                        .with_help("add `role: <name>` or `member: <user id>`"),
                ),
                _ => {}
            }
            if let Some(target) = overwrite_target(o) {
                if let Some(first) = seen.get(&target) {
                    out.push(
                        Diagnostic::error(
                            path.clone(),
                            format!(
                                "a second overwrite for {target} in \"{}\" (the first is overwrites[{first}])",
                                c.channel.name
                            ),
                        )
                        .with_help("merge the two overwrites into one"),
                    );
                } else {
                    seen.insert(target, i);
                }
            }
            let allowed: Vec<Permissions> = o
                .allow
                .iter()
                .filter_map(|p| Permissions::parse_name(&p.0))
                .collect();
            for (k, p) in o.deny.iter().enumerate() {
                if let Some(bit) = Permissions::parse_name(&p.0)
                    && allowed.contains(&bit)
                {
                    out.push(
                        Diagnostic::error(
                            format!("{path}.deny[{k}]"),
                            format!("`{}` is both allowed and denied in the same overwrite", p.0),
                        )
                        .with_help("keep it in `allow` or in `deny`, not both"),
                    );
                }
            }
        }
    }
}

fn overwrite_role_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            if let Some(role) = &o.role
                && !ctx.is_declared_role(role)
            {
                let mut d = Diagnostic::warning(
                    format!("{}.overwrites[{i}].role", c.path),
                    format!("role \"{role}\" is not declared in this manifest"),
                );
                d = match closest(role, ctx.roles.iter().map(|(_, r)| r.name.as_str())) {
                    Some(best) => d.with_help(format!("did you mean \"{best}\"?")),
                    None => d.with_help(
                        "fine if the role exists in the guild (plan checks); otherwise declare it under `roles`",
                    ),
                };
                out.push(d);
            }
        }
    }
}

fn settings_channel_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(s) = &ctx.manifest.settings else {
        return;
    };
    let refs: [(&str, &Option<Option<String>>, ChannelType); 5] = [
        ("afk_channel", &s.afk_channel, ChannelType::Voice),
        ("system_channel", &s.system_channel, ChannelType::Text),
        ("rules_channel", &s.rules_channel, ChannelType::Text),
        (
            "public_updates_channel",
            &s.public_updates_channel,
            ChannelType::Text,
        ),
        (
            "safety_alerts_channel",
            &s.safety_alerts_channel,
            ChannelType::Text,
        ),
    ];
    for (field, value, want) in refs {
        let Some(Some(name)) = value else { continue };
        let path = format!("settings.{field}");
        let found = ctx.channels_named(name);
        if found.is_empty() {
            out.push(
                Diagnostic::warning(path, format!("channel \"{name}\" is not declared in this manifest"))
                    .with_help(format!(
                        "fine if a {} channel of that name exists in the guild (plan checks); otherwise declare it under `channels`",
                        type_name(want)
                    )),
            );
            continue;
        }
        if found.len() > 1 && found.iter().any(|c| c.channel.channel_type() == want) {
            let wanted: Vec<_> = found
                .iter()
                .filter(|c| c.channel.channel_type() == want)
                .collect();
            if wanted.len() > 1 {
                out.push(
                    Diagnostic::error(
                        path,
                        format!(
                            "\"{name}\" names {} {} channels ({} and {})",
                            wanted.len(),
                            type_name(want),
                            wanted[0].path,
                            wanted[1].path
                        ),
                    )
                    .with_help("rename one so the setting is unambiguous"),
                );
            }
            continue;
        }
        let got = found[0].channel.channel_type();
        if got != want {
            out.push(
                Diagnostic::error(
                    path,
                    format!(
                        "`{field}` must be a {} channel, but \"{name}\" is declared as {} at {}",
                        type_name(want),
                        type_name(got),
                        found[0].path
                    ),
                )
                .with_help(format!("point `{field}` at a {} channel", type_name(want))),
            );
        }
    }
}

fn guild_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let m = ctx.manifest;
    if let Some(s) = &m.settings {
        if let Some(name) = &s.name {
            let n = len(name);
            if n < GUILD_NAME_LEN.0 || n > GUILD_NAME_LEN.1 {
                out.push(
                    Diagnostic::error(
                        "settings.name",
                        format!("guild name is {n} characters; Discord allows 2 to 100"),
                    )
                    .with_help("shorten or lengthen the name"),
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
    let roles = ctx.roles.len();
    if roles > ROLES_MAX {
        out.push(
            Diagnostic::error(
                "roles",
                format!("{roles} roles declared; a guild holds at most {ROLES_MAX}"),
            )
            .with_help("remove roles"),
        );
    }
    let channels = ctx.channels.len();
    if channels > CHANNELS_MAX {
        out.push(
            Diagnostic::error(
                "channels",
                format!("{channels} channels and categories declared; a guild holds at most {CHANNELS_MAX}"),
            )
            .with_help("remove channels (threads do not count)"),
        );
    }
}

fn role_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        let n = len(&r.name);
        if n == 0 || n > ROLE_NAME_MAX {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!("role name is {n} characters; Discord allows 1 to {ROLE_NAME_MAX}"),
                )
                .with_help("give the role a name of 1 to 100 characters"),
            );
        }
        if let Some(c) = r.color
            && c.0 > COLOR_MAX
        {
            out.push(
                Diagnostic::error(format!("{path}.color"), "colour is larger than #ffffff")
                    .with_help("write colours as \"#rrggbb\""),
            );
        }
    }
}

fn channel_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
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
                        "channel name is {n} characters; Discord allows 1 to {CHANNEL_NAME_MAX}"
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

fn channel_structure(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
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

fn channel_field_applicability(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    use ChannelType::*;
    // discord-behaviour.md §4.2
    const TEXTISH: &[ChannelType] = &[Text, Announcement, Forum, Media];
    const VOICEISH: &[ChannelType] = &[Voice, Stage];
    for c in &ctx.channels {
        let ch = c.channel;
        let t = ch.channel_type();
        let fields: [(&str, bool, &[ChannelType]); 9] = [
            ("topic", ch.topic.is_some(), TEXTISH),
            (
                "nsfw",
                ch.nsfw.is_some(),
                &[Text, Voice, Announcement, Stage, Forum, Media],
            ),
            (
                "slowmode",
                ch.slowmode.is_some(),
                &[Text, Voice, Stage, Forum, Media],
            ),
            ("bitrate", ch.bitrate.is_some(), VOICEISH),
            ("user_limit", ch.user_limit.is_some(), VOICEISH),
            ("rtc_region", ch.rtc_region.is_some(), VOICEISH),
            (
                "video_quality_mode",
                ch.video_quality_mode.is_some(),
                VOICEISH,
            ),
            (
                "default_auto_archive_duration",
                ch.default_auto_archive_duration.is_some(),
                TEXTISH,
            ),
            (
                "default_thread_slowmode",
                ch.default_thread_slowmode.is_some(),
                TEXTISH,
            ),
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

fn sync_permissions(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
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

fn channel_name_normalisation(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
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

fn community_prerequisites(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
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

/// A text channel's name as Discord stores it.
fn text_name(name: &str) -> String {
    crate::discord::names::normalise_channel_name(crate::discord::models::channel_type::TEXT, name)
}
