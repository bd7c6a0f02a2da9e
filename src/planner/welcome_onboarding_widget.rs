//! The welcome screen, onboarding and the widget: each one call when it differs.

use hashbrown::HashMap;

use serde_json::{Value, json};

use crate::discord::Route;
use crate::discord::models::{self, channel_type};
use crate::manifest::{Emoji, Manifest, OnboardingMode, PromptType};
use crate::plan::{Action, IdRef, Kind, Phase, PlanOptions, field};
use crate::plan_kit::context::{ANY_CHANNEL, ChangeBuilder, Ctx, Op, change};
use crate::snapshot::Snapshot;

use super::settings::compare_description;

/// Channel types a welcome screen, onboarding or a webhook may point at.
const TEXT_LIKE: &[u8] = &[
    channel_type::TEXT,
    channel_type::ANNOUNCEMENT,
    channel_type::FORUM,
    channel_type::MEDIA,
];

use crate::access::onboarding::{MIN_DEFAULT_CHANNELS, MIN_WRITABLE, requirements};

/// An emoji as Discord's flat fields: (id, name, animated).
type FlatEmoji = (Option<String>, Option<String>, bool);

fn flat_emoji(e: Option<&Emoji>) -> FlatEmoji {
    match e {
        None => (None, None, false),
        Some(Emoji::Unicode(c)) => (None, Some(c.clone()), false),
        Some(Emoji::Custom(c)) => (Some(c.id.0.clone()), c.name.clone(), c.animated),
    }
}

fn live_emoji(e: Option<&models::Emoji>) -> FlatEmoji {
    match e {
        None => (None, None, false),
        Some(e) => (e.id.clone(), e.name.clone(), e.animated.unwrap_or(false)),
    }
}

fn emoji_display(e: &FlatEmoji) -> String {
    match e {
        (None, None, _) => String::new(),
        (None, Some(n), _) => format!(" {n}"),
        (Some(id), n, _) => format!(" :{}:{id}", n.clone().unwrap_or_default()),
    }
}

fn push_single(cx: &mut Ctx, kind: Kind, route: Route<IdRef>, b: ChangeBuilder, source: &str) {
    if b.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        kind,
        String::new(),
        None,
        b.fields,
        Some(source.to_owned()),
    ));
    let summary = format!("update {}", kind.label());
    cx.push_op(Op::new(Phase::Features, idx, route, summary).body(Value::Object(b.body)));
}

pub(super) fn plan_welcome_screen(cx: &mut Ctx) {
    let Some(w) = cx.manifest.welcome_screen.clone() else {
        return;
    };
    let live = cx.snap.welcome_screen.clone().unwrap_or_default();
    let mut b = ChangeBuilder::new();
    b.compare(
        field::WelcomeScreen::Enabled,
        cx.snap.guild.has_feature("WELCOME_SCREEN_ENABLED"),
        w.enabled,
    );
    compare_description(
        &mut b,
        field::WelcomeScreen::Description,
        &w.description,
        &live.description,
    );
    // The screen as the plan leaves it, for a new member's view.
    let mut after = crate::access::onboarding::Joining::live(cx.snap)
        .welcome_screen
        .unwrap_or_default();
    after.enabled = w
        .enabled
        .unwrap_or_else(|| cx.snap.guild.has_feature("WELCOME_SCREEN_ENABLED"));
    if let Some(d) = &w.description {
        after.description = d.clone().filter(|d| !d.is_empty());
    }
    if let Some(channels) = &w.channels {
        let mut want: Vec<(IdRef, String, FlatEmoji)> = Vec::new();
        let mut seen = Vec::new();
        for (i, c) in channels.iter().enumerate() {
            let source = format!("welcome_screen.channels[{i}].channel");
            if let Some(id) = cx.resolve_channel(&c.channel, &source, TEXT_LIKE)
                && cx.first_in_list(&mut seen, &id, &source, &c.channel, "channel")
            {
                want.push((id, c.description.clone(), flat_emoji(c.emoji.as_ref())));
            }
        }
        after.channels = want
            .iter()
            .map(|(id, d, e)| crate::access::onboarding::WelcomeChannel {
                channel: id.key().to_owned(),
                description: d.clone(),
                emoji: crate::access::onboarding::emoji_shown(e.0.as_deref(), e.1.as_deref()),
            })
            .collect();
        let have: Vec<(IdRef, String, FlatEmoji)> = live
            .welcome_channels
            .iter()
            .map(|c| {
                (
                    IdRef::Live(c.channel_id.clone()),
                    c.description.clone(),
                    (c.emoji_id.clone(), c.emoji_name.clone(), false),
                )
            })
            .collect();
        // Discord keeps no `animated` for welcome emoji, so it is not compared.
        let comparable = |v: &[(IdRef, String, FlatEmoji)]| -> Vec<(IdRef, String, Option<String>, Option<String>)> {
            v.iter().map(|(i, d, e)| (i.clone(), d.clone(), e.0.clone(), e.1.clone())).collect()
        };
        if comparable(&want) != comparable(&have) {
            let show = |v: &[(IdRef, String, FlatEmoji)]| -> Value {
                json!(
                    v.iter()
                        .map(|(i, d, e)| format!(
                            "#{}: {d}{}",
                            cx.channel_label(i),
                            emoji_display(e)
                        ))
                        .collect::<Vec<_>>()
                )
            };
            let api: Vec<Value> = want
                .iter()
                .map(|(i, d, e)| json!({"channel_id": i.to_value(), "description": d, "emoji_id": e.0, "emoji_name": e.1}))
                .collect();
            b.set(
                field::WelcomeScreen::Channels,
                show(&have),
                show(&want),
                json!(api),
            );
        }
    }
    cx.joining_after.welcome_screen = Some(after);
    if !b.is_empty() && !community_after(cx) {
        // Discord has a welcome screen for community guilds only (10069 Unknown Guild
        // Welcome Screen otherwise). The call stays in the refused plan, as Discord's
        // refusals do, so a rehearsal of it shows the same.
        let guild = cx.snap.guild.name.clone();
        cx.problem(
            Some("welcome_screen".into()),
            format!(
                "a welcome screen needs a community guild, and `{guild}` is not one (nor does the manifest make it one)"
            ),
            Some(NOT_COMMUNITY_HELP),
        );
    }
    let route = Route::UpdateWelcomeScreen { guild: cx.guild() };
    push_single(cx, Kind::WelcomeScreen, route, b, "welcome_screen");
}

const NOT_COMMUNITY_HELP: &str = "set `settings.community: true` (with `rules_channel` and `public_updates_channel`), or remove it from the manifest";

/// Whether the guild is a community once the plan is applied: as `settings.community`
/// says, else as it is live.
fn community_after(cx: &Ctx) -> bool {
    let declared = cx.manifest.settings.as_ref().and_then(|s| s.community);
    declared.unwrap_or_else(|| cx.snap.guild.has_feature("COMMUNITY"))
}

/// Get Guild Widget Image (`/guilds/{id}/widget.png`) on the API base in use, when the
/// widget is enabled once the plan is applied: as declared, else as it is live.
pub(super) fn widget_image_url(
    manifest: &Manifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> Option<String> {
    let base = options.api_base.as_deref()?;
    let enabled = manifest
        .widget
        .as_ref()
        .and_then(|w| w.enabled)
        .unwrap_or(snap.guild.widget_enabled);
    enabled.then(|| format!("{base}/guilds/{}/widget.png", snap.guild.id))
}

pub(super) fn plan_widget(cx: &mut Ctx) {
    let Some(w) = cx.manifest.widget.clone() else {
        return;
    };
    let g = &cx.snap.guild;
    let (live_enabled, live_channel) = (g.widget_enabled, g.widget_channel_id.clone());
    let mut b = ChangeBuilder::new();
    b.compare(field::Widget::Enabled, live_enabled, w.enabled);
    if let Some(channel) = &w.channel {
        let want = match channel {
            None => None,
            Some(name) => match cx.resolve_channel(name, "widget.channel", ANY_CHANNEL) {
                Some(id) => Some(id),
                None => return,
            },
        };
        let have = live_channel.map(IdRef::Live);
        if want != have {
            let name = |v: &Option<IdRef>| json!(v.as_ref().map(|i| cx.channel_label(i)));
            b.set(
                field::Widget::Channel,
                name(&have),
                name(&want),
                want.as_ref().map(IdRef::to_value).unwrap_or(Value::Null),
            );
        }
    }
    let route = Route::UpdateWidget { guild: cx.guild() };
    push_single(cx, Kind::Widget, route, b, "widget");
}

/// A prompt option in comparable form.
#[derive(Debug, Clone, PartialEq)]
struct Opt {
    id: Option<String>,
    title: String,
    description: Option<String>,
    emoji: FlatEmoji,
    roles: Vec<IdRef>,
    channels: Vec<IdRef>,
}

#[derive(Debug, Clone, PartialEq)]
struct Pr {
    id: Option<String>,
    kind: u64,
    title: String,
    single_select: bool,
    required: bool,
    in_onboarding: bool,
    options: Vec<Opt>,
}

/// References in a stable order, to compare lists whose order Discord does not keep.
fn sorted_refs(v: &[IdRef]) -> Vec<&IdRef> {
    let mut s: Vec<&IdRef> = v.iter().collect();
    s.sort();
    s
}

impl Opt {
    /// An empty description is none.
    fn description(&self) -> Option<&str> {
        self.description.as_deref().filter(|d| !d.is_empty())
    }

    /// The same option but for its id, its reference lists in any order.
    fn same_as(&self, other: &Opt) -> bool {
        self.title == other.title
            && self.description() == other.description()
            && self.emoji == other.emoji
            && same_refs(&self.roles, &other.roles)
            && same_refs(&self.channels, &other.channels)
    }
}

/// Whether two lists hold the same references in any order; sorted only when their
/// orders differ (they seldom do).
fn same_refs(a: &[IdRef], b: &[IdRef]) -> bool {
    a == b || (a.len() == b.len() && sorted_refs(a) == sorted_refs(b))
}

impl Pr {
    fn same_as(&self, other: &Pr) -> bool {
        self.kind == other.kind
            && self.title == other.title
            && self.single_select == other.single_select
            && self.required == other.required
            && self.in_onboarding == other.in_onboarding
            && self.options.len() == other.options.len()
            && self
                .options
                .iter()
                .zip(&other.options)
                .all(|(a, b)| a.same_as(b))
    }
}

fn prompts_display(cx: &Ctx, prompts: &[Pr]) -> Value {
    let mut lines = Vec::new();
    for p in prompts {
        let kind = PromptType::from_value(p.kind)
            .map(PromptType::name)
            .unwrap_or("?");
        let mut flags = vec![kind];
        if p.single_select {
            flags.push("single select");
        }
        if p.required {
            flags.push("required");
        }
        if !p.in_onboarding {
            flags.push("not in onboarding");
        }
        lines.push(format!("{} ({})", p.title, flags.join(", ")));
        for o in &p.options {
            let roles: Vec<String> = o.roles.iter().map(|r| cx.role_label(r)).collect();
            let channels: Vec<String> = o
                .channels
                .iter()
                .map(|c| format!("#{}", cx.channel_label(c)))
                .collect();
            let gives: Vec<String> = roles.into_iter().chain(channels).collect();
            lines.push(format!(
                "  - {}{}{}",
                o.title,
                emoji_display(&o.emoji),
                if gives.is_empty() {
                    String::new()
                } else {
                    format!(" → {}", gives.join(", "))
                }
            ));
        }
    }
    json!(lines)
}

pub(super) fn plan_onboarding(cx: &mut Ctx) {
    // Borrowed for the plan's lifetime rather than cloned (750 options at Discord's limits).
    let (manifest, snap) = (cx.manifest, cx.snap);
    let none = models::Onboarding::default();
    let live = snap.onboarding.as_ref().unwrap_or(&none);
    let Some(o) = manifest.onboarding.as_ref() else {
        // Kept as it is live; the plan's channel changes may still break it.
        check_kept(cx, None, live);
        return;
    };
    let mut b = ChangeBuilder::new();
    b.compare(field::Onboarding::Enabled, live.enabled, o.enabled);
    if let Some(mode) = o.mode
        && mode.value() != live.mode
    {
        let name = |v: u64| json!(OnboardingMode::from_value(v).map(OnboardingMode::name));
        b.set(
            field::Onboarding::Mode,
            name(live.mode),
            name(mode.value()),
            json!(mode.value()),
        );
    }

    let mut default_after: Vec<IdRef> = live
        .default_channel_ids
        .iter()
        .cloned()
        .map(IdRef::Live)
        .collect();
    // Which entry of `default_channels` names each default channel, when declared.
    let mut entries: Vec<(String, usize)> = Vec::new();
    if let Some(names) = &o.default_channels {
        let mut want: Vec<IdRef> = Vec::new();
        let mut seen = Vec::new();
        for (i, n) in names.iter().enumerate() {
            let source = format!("onboarding.default_channels[{i}]");
            if let Some(id) = cx.resolve_channel(n, &source, ANY_CHANNEL)
                && cx.first_in_list(&mut seen, &id, &source, n, "channel")
            {
                entries.push((id.key().to_owned(), i));
                want.push(id);
            }
        }
        if sorted_refs(&want) != sorted_refs(&default_after) {
            let show =
                |v: &[IdRef]| json!(v.iter().map(|i| cx.channel_label(i)).collect::<Vec<_>>());
            b.set(
                field::Onboarding::DefaultChannels,
                show(&default_after),
                show(&want),
                json!(want.iter().map(IdRef::to_value).collect::<Vec<_>>()),
            );
        }
        default_after = want;
    }

    let live_prompts: Vec<Pr> = live.prompts.iter().map(live_prompt).collect();
    let want = o.prompts.as_ref().map(|p| desired_prompts(cx, p, live));
    if let Some(want) = &want {
        let same = want.len() == live_prompts.len()
            && want.iter().zip(&live_prompts).all(|(a, b)| a.same_as(b));
        if !same {
            let api: Vec<Value> = want
                .iter()
                .enumerate()
                .map(|(i, p)| prompt_api(p, i))
                .collect();
            b.set(
                field::Onboarding::Prompts,
                prompts_display(cx, &live_prompts),
                prompts_display(cx, want),
                json!(api),
            );
        }
    }
    let prompts_after = want.as_deref().unwrap_or(&live_prompts);
    let enabled_after = o.enabled.unwrap_or(live.enabled);
    let after = onboarding_after(
        enabled_after,
        o.mode.map(OnboardingMode::value).unwrap_or(live.mode) == OnboardingMode::Advanced.value(),
        &default_after,
        prompts_after,
    );
    cx.joining_after.onboarding = Some(after.clone());

    if b.is_empty() {
        check_kept(cx, Some(o), live);
        return;
    }
    if enabled_after && !community_after(cx) {
        // Onboarding is a community feature: Discord keeps a disabled draft, but enables
        // it only in a community guild. Said at the change's place, as Discord's refusal
        // of the call is; the channel counts below are said too.
        let guild = cx.snap.guild.name.clone();
        cx.problem(
            Some("onboarding".into()),
            format!(
                "onboarding can be enabled only in a community guild, and `{guild}` is not one (nor does the manifest make it one)"
            ),
            Some("set `settings.community: true` (with `rules_channel` and `public_updates_channel`), or `enabled: false`"),
        );
    }
    if enabled_after {
        check_requirements(cx, o, &after, &entries);
    }
    let route = Route::UpdateOnboarding { guild: cx.guild() };
    push_single(cx, Kind::Onboarding, route, b, "onboarding");
}

fn live_prompt(p: &models::Prompt) -> Pr {
    Pr {
        id: Some(p.id.clone()),
        kind: p.kind,
        title: p.title.clone(),
        single_select: p.single_select,
        required: p.required,
        in_onboarding: p.in_onboarding,
        options: p
            .options
            .iter()
            .map(|o| Opt {
                id: Some(o.id.clone()),
                title: o.title.clone(),
                description: o.description.clone(),
                emoji: live_emoji(o.emoji.as_ref()),
                roles: o.role_ids.iter().cloned().map(IdRef::Live).collect(),
                channels: o.channel_ids.iter().cloned().map(IdRef::Live).collect(),
            })
            .collect(),
    }
}

/// The declared prompts, with live ids where a prompt or option of the same title exists.
fn desired_prompts(
    cx: &mut Ctx,
    prompts: &[crate::manifest::Prompt],
    live: &models::Onboarding,
) -> Vec<Pr> {
    let mut out = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        let live_p = live.prompts.iter().find(|l| l.title == p.title);
        let live_opts: HashMap<&str, &str> = live_p
            .map(|l| {
                l.options
                    .iter()
                    .map(|o| (o.title.as_str(), o.id.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        let mut options = Vec::new();
        for (j, o) in p.options.iter().enumerate() {
            let source = format!("onboarding.prompts[{i}].options[{j}]");
            let mut roles = Vec::new();
            let mut seen = Vec::new();
            for (k, r) in o.roles.iter().enumerate() {
                let at = format!("{source}.roles[{k}]");
                if let Some(id) = cx.resolve_role(r, &at)
                    && cx.first_in_list(&mut seen, &id, &at, r, "role")
                {
                    roles.push(id);
                }
            }
            let mut channels = Vec::new();
            let mut seen = Vec::new();
            for (k, c) in o.channels.iter().enumerate() {
                let at = format!("{source}.channels[{k}]");
                if let Some(id) = cx.resolve_channel(c, &at, ANY_CHANNEL)
                    && cx.first_in_list(&mut seen, &id, &at, c, "channel")
                {
                    channels.push(id);
                }
            }
            options.push(Opt {
                id: live_opts.get(o.title.as_str()).map(|s| (*s).to_owned()),
                title: o.title.clone(),
                description: o.description.clone(),
                emoji: flat_emoji(o.emoji.as_ref()),
                roles,
                channels,
            });
        }
        out.push(Pr {
            id: live_p.map(|l| l.id.clone()),
            kind: p.kind.unwrap_or(PromptType::MultipleChoice).value(),
            title: p.title.clone(),
            single_select: p.single_select,
            required: p.required,
            in_onboarding: p.in_onboarding,
            options,
        });
    }
    out
}

/// A prompt as the PUT body wants it: an id even for a new prompt (a placeholder the
/// server replaces), emoji as flat fields (docs/discord.md §5.4).
fn prompt_api(p: &Pr, index: usize) -> Value {
    let placeholder = || (100_000_000_000_000_000u64 + index as u64).to_string();
    let options: Vec<Value> = p
        .options
        .iter()
        .map(|o| {
            let mut v = json!({
                "title": o.title,
                "description": o.description,
                "emoji_id": o.emoji.0,
                "emoji_name": o.emoji.1,
                "emoji_animated": o.emoji.2,
                "role_ids": o.roles.iter().map(IdRef::to_value).collect::<Vec<_>>(),
                "channel_ids": o.channels.iter().map(IdRef::to_value).collect::<Vec<_>>(),
            });
            if let Some(id) = &o.id {
                v["id"] = json!(id);
            }
            v
        })
        .collect();
    json!({
        "id": p.id.clone().unwrap_or_else(placeholder),
        "type": p.kind,
        "title": p.title,
        "single_select": p.single_select,
        "required": p.required,
        "in_onboarding": p.in_onboarding,
        "options": options,
    })
}

/// Onboarding as the plan leaves it, ids resolved, for the access model.
fn onboarding_after(
    enabled: bool,
    advanced: bool,
    default_channels: &[IdRef],
    prompts: &[Pr],
) -> crate::access::onboarding::Onboarding {
    use crate::access::onboarding::{Prompt, PromptOption, emoji_shown};
    let keys = |v: &[IdRef]| v.iter().map(|i| i.key().to_owned()).collect::<Vec<_>>();
    crate::access::onboarding::Onboarding {
        enabled,
        advanced,
        default_channels: keys(default_channels),
        prompts: prompts
            .iter()
            .map(|p| Prompt {
                title: p.title.clone(),
                dropdown: p.kind == PromptType::Dropdown.value(),
                single_select: p.single_select,
                required: p.required,
                in_onboarding: p.in_onboarding,
                options: p
                    .options
                    .iter()
                    .map(|o| PromptOption {
                        title: o.title.clone(),
                        description: o.description().map(str::to_owned),
                        emoji: emoji_shown(o.emoji.0.as_deref(), o.emoji.1.as_deref()),
                        roles: keys(&o.roles),
                        channels: keys(&o.channels),
                    })
                    .collect(),
            })
            .collect(),
    }
}

const REQUIREMENTS_HELP: &str =
    "add default channels where @everyone may view and send messages, or set `enabled: false`";

/// A channel's path in the guild the plan leaves, for messages.
fn path_after(cx: &Ctx, id: &str) -> String {
    cx.access_after
        .channel_index(id)
        .map(|i| cx.access_after.path(i))
        .unwrap_or_else(|| id.to_owned())
}

/// Discord enables (and updates) onboarding only with enough default channels that
/// @everyone can write in, and every default channel readable by @everyone; checked
/// against the channels and overwrites the plan leaves, where the manifest says them.
fn check_requirements(
    cx: &mut Ctx,
    o: &crate::manifest::Onboarding,
    after: &crate::access::onboarding::Onboarding,
    entries: &[(String, usize)],
) {
    let r = requirements(&cx.access_after, after);
    for id in &r.unviewable {
        let at = entries
            .iter()
            .find(|(e, _)| e == id)
            .map(|(_, i)| format!("onboarding.default_channels[{i}]"))
            .unwrap_or_else(|| "onboarding".to_owned());
        let path = path_after(cx, id);
        cx.problem(
            Some(at),
            format!(
                "onboarding's default channel `{path}` must be readable by @everyone, and @everyone cannot view it once the plan is applied"
            ),
            Some("let @everyone view the channel (no overwrite denying it view_channel), or take it out of `default_channels`"),
        );
    }
    if !r.counted_ok() {
        let what = if after.advanced {
            "default and question channels"
        } else {
            "default channels"
        };
        let at = if o.default_channels.is_some() {
            "onboarding.default_channels"
        } else {
            "onboarding"
        };
        cx.problem(
            Some(at.into()),
            format!(
                "onboarding needs at least {MIN_DEFAULT_CHANNELS} {what}, at least {MIN_WRITABLE} of them where @everyone can send messages; the plan leaves {} channels, {} of them writable by @everyone",
                r.counted, r.writable
            ),
            Some(REQUIREMENTS_HELP),
        );
    }
}

/// The plan sends no onboarding, but its channel and role changes may take an enabled
/// onboarding below Discord's requirements: Discord would then refuse every later
/// onboarding update (350001) and show new members a default channel they cannot read.
/// Refused when the live guild meets them and the plan's changes break them, at the
/// change that does it; a guild already below them is a warning, not a refusal.
fn check_kept(cx: &mut Ctx, o: Option<&crate::manifest::Onboarding>, live: &models::Onboarding) {
    let Some(after) = cx.joining_after.onboarding.clone().filter(|a| a.enabled) else {
        return;
    };
    let before = requirements(
        &cx.access_live,
        &crate::access::onboarding::Onboarding::live(live),
    );
    let now = requirements(&cx.access_after, &after);
    if now.met() {
        return;
    }
    let declared = o.map(|o| {
        if o.default_channels.is_some() {
            "onboarding.default_channels"
        } else {
            "onboarding"
        }
    });
    if !before.met() {
        cx.warn(
            declared.map(str::to_owned),
            format!(
                "onboarding is below Discord's requirements today and the plan leaves it so ({} default channels, {} writable by @everyone{}): Discord refuses any onboarding update until they are met",
                now.counted,
                now.writable,
                if now.unviewable.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; @everyone cannot view {}",
                        now.unviewable
                            .iter()
                            .map(|id| path_after(cx, id))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ),
        );
        return;
    }
    // The counted channels whose @everyone permissions the plan changes: their changes
    // (and their categories', and @everyone's own) are the cause.
    let counted: Vec<&String> = after
        .default_channels
        .iter()
        .chain(
            after
                .prompts
                .iter()
                .flat_map(|p| &p.options)
                .flat_map(|x| &x.channels)
                .filter(|_| after.advanced),
        )
        .collect();
    let g = &cx.access_after;
    let mut causes: Vec<usize> = g
        .everyone()
        .map(|r| r.changed_by.clone())
        .unwrap_or_default();
    for c in counted.iter().filter_map(|id| g.channel(id)) {
        causes.extend(&c.changed_by);
        if let Some(p) = c.parent.as_deref().and_then(|p| g.channel(p)) {
            causes.extend(&p.changed_by);
        }
    }
    let place = causes
        .iter()
        .max()
        .and_then(|&i| cx.changes.get(i))
        .and_then(crate::judge::policies::change_place)
        .or_else(|| declared.map(str::to_owned));
    let mut broken: Vec<String> = now
        .unviewable
        .iter()
        .filter(|id| !before.unviewable.contains(id))
        .map(|id| {
            format!(
                "@everyone cannot view its default channel `{}`",
                path_after(cx, id)
            )
        })
        .collect();
    if !now.counted_ok() {
        broken.push(format!(
            "it has {} default channels, {} of them writable by @everyone (Discord needs {MIN_DEFAULT_CHANNELS}, {MIN_WRITABLE} writable)",
            now.counted, now.writable
        ));
    }
    cx.problem(
        place,
        format!(
            "the plan takes the guild's onboarding below Discord's requirements: once applied, {}; Discord would refuse every later onboarding update",
            broken.join("; ")
        ),
        Some("keep @everyone's view (and send, for 5 of them) in onboarding's default channels, change `onboarding.default_channels` in the same plan, or set `onboarding.enabled: false`"),
    );
}
