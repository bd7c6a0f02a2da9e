//! Rehearsal: a plan applied first to an in-process copy of the live guild.
//!
//! The copy is the snapshot guildctl already read (no request to Discord), loaded into
//! the emulator as its state: roles and their order, channels and overwrites, the bot's
//! own user, member, roles and permissions, the guild's features and boost tier, the
//! welcome screen, onboarding and webhooks. The plan's own operations then run there
//! through apply's engine ([`crate::apply::apply`]), over loopback HTTP with guildctl's
//! client, so the copy sees exactly the calls apply will send, in apply's order. A second
//! plan against the copy says whether the first one converges.
//!
//! What the snapshot cannot hold (members no read named, channels hidden from the
//! bot, rules the emulator does not model) is named in the verdict's `not_rehearsed`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{Value, json};

use discord_emulator::{EmulatorConfig, EmulatorOptions, RunningEmulator, State};

use crate::apply::{self, ApplyOptions, Status};
use crate::discord::{Client, ClientError, ClientOptions, Token};
use crate::manifest::LoadedManifest;
use crate::plan::{self, Plan, PlanOptions, Rehearsal, RehearsalRefusal};
use crate::sections;
use crate::snapshot::doors::parse_timestamp;
use crate::snapshot::{self, Reading, Snapshot};

/// Why a rehearsal could not be run at all (as opposed to a plan it refused).
#[derive(Debug, thiserror::Error)]
pub enum RehearseError {
    /// The snapshot could not be made into the emulator's state.
    #[error("the guild's copy could not be built: {0}")]
    Copy(String),
    /// The emulator holding the copy did not start.
    #[error("the copy could not start: {0}")]
    Start(#[from] discord_emulator::EmulatorError),
    /// Reading the copy after the plan's calls failed.
    #[error("the copy could not be read back after the calls: {0}")]
    ReadBack(ClientError),
    /// The client that talks to the copy could not be made.
    #[error("the rehearsal's client: {0}")]
    Client(ClientError),
    /// The rules file for the copy (`GUILDCTL_REHEARSAL_RULES`) cannot be read or parsed.
    #[error("cannot read the rehearsal rules {path}: {detail}")]
    Rules {
        /// The rules file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
}

/// How a rehearsal runs.
#[derive(Debug, Clone, Default)]
pub struct RehearseOptions {
    /// The plan's own options, for the second plan.
    pub plan: PlanOptions,
    /// Rules for the copy beyond the emulator's defaults (its `EmulatorConfig`), e.g. a
    /// server-side limit Discord set for this guild. Rate limits are always off in the
    /// copy: waits are not what a rehearsal tests.
    pub rules: Option<EmulatorConfig>,
}

impl RehearseOptions {
    /// Reads the copy's rules from the JSON file named by `GUILDCTL_REHEARSAL_RULES`
    /// (an emulator config: only the fields given change), when it is set.
    pub fn rules_from_env() -> Result<Option<EmulatorConfig>, RehearseError> {
        let Some(path) = std::env::var_os("GUILDCTL_REHEARSAL_RULES").map(PathBuf::from) else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(&path).map_err(|e| RehearseError::Rules {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| RehearseError::Rules {
                path,
                detail: e.to_string(),
            })
    }
}

/// The audit-log reason the copy records; it never leaves the process.
const REASON: &str = "guildctl rehearsal";

/// Applies `plan` to a copy of `snap` and plans `loaded` again against the copy.
pub async fn rehearse(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    plan: &Plan,
    options: &RehearseOptions,
) -> Result<Rehearsal, RehearseError> {
    let not_rehearsed = not_rehearsed(snap, options);
    if plan.operations.is_empty() {
        // Nothing to send: the copy would be the snapshot itself, and so its plan.
        return Ok(Rehearsal {
            ok: plan.changes.is_empty(),
            calls: 0,
            converges: plan.changes.is_empty(),
            refusal: None,
            total: 0,
            left_undone: Vec::new(),
            still_changes: plan.changes.iter().map(plan::Change::describe).collect(),
            not_rehearsed,
        });
    }
    let state = copy_of(snap, options.rules.clone())?;
    let emu = serve_copy(state).await?;
    let outcome = run(&emu, loaded, snap, plan, options).await;
    emu.shutdown().await;
    let mut verdict = outcome?;
    verdict.not_rehearsed = not_rehearsed;
    Ok(verdict)
}

/// Serves a copy of a guild for this process alone: on a loopback port, without the
/// emulator's `/_emulator/*` control endpoints (another process on a shared runner could
/// otherwise read or replace the copy's state mid-rehearsal and change the verdict), and
/// behind a random bot token that only this process holds (the copy's state pins none).
pub async fn serve_copy(mut state: State) -> Result<RunningEmulator, RehearseError> {
    state.tokens.clear();
    Ok(RunningEmulator::start_without_control(EmulatorOptions { state: Some(state) }).await?)
}

async fn run(
    emu: &RunningEmulator,
    loaded: &LoadedManifest,
    snap: &Snapshot,
    plan: &Plan,
    options: &RehearseOptions,
) -> Result<Rehearsal, RehearseError> {
    let token = Token::new(emu.token.clone()).map_err(RehearseError::Client)?;
    // No global limit of 50 calls a second: the copy is not Discord, and pacing it made a
    // rehearsal of 650 calls wait 13 s (docs/rehearsal.md, Costs).
    let client_options = ClientOptions {
        global_limit: usize::MAX,
        global_window: std::time::Duration::ZERO,
        ..ClientOptions::default()
    };
    let client = Client::with_options(&emu.api_base, token, client_options)
        .map_err(RehearseError::Client)?;
    // One call at a time: the same calls in the same order as apply, and a verdict
    // that is the same on every run of the same plan.
    let apply_options = ApplyOptions {
        concurrency: 1,
        ..ApplyOptions::new(REASON, loaded.dir())
    };
    let outcome = apply::apply(&client, plan, &apply_options, |_| {}).await;
    let calls = outcome.count(Status::Done);
    let total = plan.operations.len();
    if let Some((i, error)) = outcome.failures.first() {
        let op = &plan.operations[*i];
        let source = plan.changes.get(op.change).and_then(|c| c.source.clone());
        let line = source.as_deref().and_then(|s| line_of(loaded, s));
        let (status, code, message, path) = match error {
            ClientError::Api(e) => (
                e.status.as_u16(),
                e.code(),
                e.body
                    .as_ref()
                    .map(|b| b.message.clone())
                    .unwrap_or_default(),
                e.path.clone(),
            ),
            other => (0, None, other.to_string(), op.route.path()),
        };
        let left_undone = outcome
            .statuses
            .iter()
            .enumerate()
            .filter(|(_, s)| !matches!(s, Status::Done | Status::Failed))
            .map(|(j, _)| plan.operations[j].summary.clone())
            .collect();
        return Ok(Rehearsal {
            ok: false,
            calls,
            converges: false,
            refusal: Some(RehearsalRefusal {
                call: op.summary.clone(),
                method: op.route.method().to_string(),
                path,
                status,
                code,
                message,
                source,
                line,
            }),
            total,
            left_undone,
            still_changes: Vec::new(),
            not_rehearsed: Vec::new(),
        });
    }
    let after = read_back(&client, loaded, snap)
        .await
        .map_err(RehearseError::ReadBack)?;
    // The second plan's changes, refused or not: convergence is about what differs. A
    // refusal the first plan did not have is itself a difference (the copy is not what the
    // manifest asks for); one it had already is the first plan's, and rehearsal judges
    // that plan by its calls.
    let (again, refused_again) = match crate::planner::diff_loaded(loaded, &after, &options.plan) {
        Ok(p) => (p, Vec::new()),
        Err(e) => {
            let first_passed = crate::planner::diff_loaded(loaded, snap, &options.plan).is_ok();
            let problems = if first_passed {
                e.problems
                    .iter()
                    .map(|p| format!("the second plan is refused: {}", p.message))
                    .collect()
            } else {
                Vec::new()
            };
            (*e.partial, problems)
        }
    };
    let mut still_changes: Vec<String> = again.changes.iter().map(plan::Change::describe).collect();
    still_changes.extend(refused_again);
    Ok(Rehearsal {
        ok: still_changes.is_empty(),
        calls,
        converges: still_changes.is_empty(),
        refusal: None,
        total,
        left_undone: Vec::new(),
        still_changes,
        not_rehearsed: Vec::new(),
    })
}

/// The copy read as `plan` reads the live guild: the seven reads, then the integrations,
/// invites, members and bans the manifest asks about. Three things come from the snapshot
/// instead, as apply cannot change them: Discord's voice regions (the copy's are the
/// emulator's own list), the digests of images the copy kept by hash alone (a CDN path
/// names its content, so an unchanged hash is an unchanged image), and how many members
/// hold each role without a roster.
async fn read_back(
    client: &Client,
    loaded: &LoadedManifest,
    snap: &Snapshot,
) -> Result<Snapshot, ClientError> {
    let reading = Reading::of(&loaded.manifest).without_regions();
    let mut after = snapshot::read(client, &snap.guild.id, reading)
        .await
        .map_err(|e| e.source)?;
    after.doors.regions.clone_from(&snap.doors.regions);
    // The copy holds only the members the rosters read, so it counts no other holder: a
    // role without a roster keeps the guild's count, which apply does not change (a
    // `holders` policy counts it so; docs/access.md).
    if let (Some(copy), Some(live)) = (after.people.as_mut(), snap.people.as_ref())
        && let (Some(counts), Some(live_counts)) = (copy.role_counts.as_mut(), &live.role_counts)
    {
        for (role, n) in live_counts {
            if !copy.rosters.contains(role) {
                counts.insert(role.clone(), *n);
            }
        }
    }
    let mut paths: Vec<String> = after.live_images().iter().map(|i| i.path()).collect();
    // An emoji's path is its id, and its image cannot change: one the copy kept is the image
    // the snapshot read; so for every section's files.
    for section in crate::sections::ALL {
        paths.extend(section.files(&after));
    }
    for path in paths {
        if let (None, Some(digest)) = (after.images.get(&path), snap.images.get(&path)) {
            after.images.insert(path, digest.clone());
        }
    }
    Ok(after)
}

/// `guild.yaml:23:5` for a manifest path: the file, line and column a diagnostic about it
/// is shown at (a list item by its `name`).
fn line_of(loaded: &LoadedManifest, source: &str) -> Option<String> {
    let span = loaded.locations.display_span(source)?;
    let file = loaded.files.get(span.file)?;
    Some(format!(
        "{}:{}:{}",
        file.path.display(),
        span.line,
        span.column
    ))
}

/// What the copy does not hold, so the rehearsal cannot vouch for it.
fn not_rehearsed(snap: &Snapshot, options: &RehearseOptions) -> Vec<String> {
    let mut out = Vec::new();
    if !snap.sees_every_channel() {
        out.push(
            "channels the bot cannot view: Discord hides them, so the copy has none of them"
                .to_owned(),
        );
    }
    if snap.webhooks.is_none() {
        out.push("webhooks: the bot cannot read them, so the copy has none".to_owned());
    }
    if snap.welcome_screen.is_none() {
        out.push(
            "the welcome screen: the guild read got none (none is set, or the bot cannot read it), so the copy starts without one"
                .to_owned(),
        );
    }
    if snap.onboarding.is_none() {
        out.push(
            "onboarding: the guild read got none (the bot cannot read it), so the copy starts with it off"
                .to_owned(),
        );
    }
    if !snap.guild.unknown.is_empty() {
        let names: Vec<&str> = snap.guild.unknown.iter().map(|f| f.api).collect();
        out.push(format!(
            "settings the guild read left out ({}): the copy has stand-ins",
            names.join(", ")
        ));
    }
    out.extend(people_not_rehearsed(snap));
    if !snap.follow_sources.is_empty() {
        out.push(
            "the guilds of the channels `follows` names: the copy has each such channel alone, in a guild of its own the bot owns, so only this guild's side of a follow is checked"
                .to_owned(),
        );
    }
    for (part, why) in &snap.doors.unreadable {
        out.push(format!("{part}: not read ({why}), so the copy has none"));
    }
    if snap.doors.integrations_capped() {
        out.push(format!(
            "integrations beyond the {} Discord lists: the copy has none of them",
            crate::snapshot::doors::MAX_INTEGRATIONS
        ));
    }
    for image in snap.live_images() {
        if snap.image_digest(&image).is_none() {
            out.push(format!(
                "the image {}: the CDN did not give it, so neither the plan nor the copy knows what it shows",
                image.path()
            ));
        }
    }
    out.push(
        "rate limits: the copy has none, so the calls' waits (and Discord's slower limits such as role creations per day) are not rehearsed"
            .to_owned(),
    );
    if options.rules.is_none() {
        out.push(
            "limits Discord sets per guild beyond its documented ones (GUILDCTL_REHEARSAL_RULES can name them)"
                .to_owned(),
        );
    }
    out
}

/// The emulator state of a snapshot: the guild as the bot saw it, the bot's user and
/// membership, and a token for it. Written as the emulator's own state format (every
/// field it does not get keeps the emulator's default).
pub fn copy_of(snap: &Snapshot, rules: Option<EmulatorConfig>) -> Result<State, RehearseError> {
    let g = &snap.guild;
    let roles: Vec<Value> = g
        .roles
        .iter()
        .map(|r| {
            // The colours the planner compares (`Role::color_triple`), no other reading.
            let (color, secondary, tertiary) = r.color_triple();
            json!({
                "id": r.id, "name": r.name, "permissions": r.permissions,
                "position": r.position, "color": color, "hoist": r.hoist,
                "secondary_color": secondary,
                "tertiary_color": tertiary,
                "managed": r.managed, "mentionable": r.mentionable,
                "icon": r.icon, "unicode_emoji": r.unicode_emoji, "tags": r.tags,
            })
        })
        .collect();
    let channels: Vec<Value> = snap.channels.iter().map(channel).collect();
    let welcome = snap.welcome_screen.as_ref().map(|w| {
        json!({
            "description": w.description,
            "welcome_channels": w.welcome_channels.iter().map(|c| json!({
                "channel_id": c.channel_id, "description": c.description,
                "emoji_id": c.emoji_id, "emoji_name": c.emoji_name,
            })).collect::<Vec<_>>(),
        })
    });
    let onboarding = snap.onboarding.as_ref().map(|o| {
        json!({
            "enabled": o.enabled, "mode": o.mode,
            "default_channel_ids": o.default_channel_ids,
            "prompts": o.prompts.iter().map(|p| json!({
                "id": p.id, "type": p.kind, "title": p.title,
                "single_select": p.single_select, "required": p.required,
                "in_onboarding": p.in_onboarding,
                "options": p.options.iter().map(|x| {
                    let emoji = x.emoji.clone().unwrap_or_default();
                    json!({
                        "id": x.id, "title": x.title, "description": x.description,
                        "channel_ids": x.channel_ids, "role_ids": x.role_ids,
                        "emoji_id": emoji.id, "emoji_name": emoji.name,
                        "emoji_animated": emoji.animated.unwrap_or(false),
                    })
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    });
    let people = people_of(snap);
    let (members, bans) = (people.members, people.bans);
    let mut users = people.users;
    let (integrations, invites) = doors_of(snap, &mut users);
    let webhooks: Vec<Value> = snap
        .webhooks
        .iter()
        .flatten()
        .map(|w| {
            json!({
                "id": w.id, "type": w.kind, "channel_id": w.channel_id,
                "name": w.name.clone().unwrap_or_default(), "avatar": w.avatar,
                "application_id": w.application_id,
                "source_guild": w.source_guild, "source_channel": w.source_channel,
            })
        })
        .collect();
    // The tier is what Discord checks; the count only has to reach it.
    let boosts = [0, 2, 7, 14][usize::try_from(g.premium_tier.min(3)).unwrap_or(0)];
    let mut guild = json!({
        "id": g.id, "name": g.name, "owner_id": g.owner_id, "description": g.description,
        "features": g.features,
        // Hashes only: the copy's CDN does not hold these images, and the read-back takes
        // their digests from the snapshot ([`same_images_as_read`]).
        "icon": g.icon, "banner": g.banner, "splash": g.splash,
        "discovery_splash": g.discovery_splash,
        "vanity_url_code": g.vanity_url_code, "incidents_data": g.incidents_data,
        "afk_channel_id": g.afk_channel_id, "afk_timeout": g.afk_timeout,
        "system_channel_id": g.system_channel_id,
        "system_channel_flags": g.system_channel_flags,
        "widget_enabled": g.widget_enabled, "widget_channel_id": g.widget_channel_id,
        "verification_level": g.verification_level,
        "default_message_notifications": g.default_message_notifications,
        "explicit_content_filter": g.explicit_content_filter,
        "premium_tier": g.premium_tier,
        "premium_subscription_count": boosts,
        "preferred_locale": g.preferred_locale,
        "rules_channel_id": g.rules_channel_id,
        "public_updates_channel_id": g.public_updates_channel_id,
        "safety_alerts_channel_id": g.safety_alerts_channel_id,
        "premium_progress_bar_enabled": g.premium_progress_bar_enabled,
        "roles": roles,
        "channels": channels,
        "members": members,
        "bans": bans,
        "webhooks": webhooks,
        "integrations": integrations,
        "invites": invites,
    });
    // The sections that are units copy their own objects ([`crate::sections`]).
    for section in sections::ALL {
        let list = section.copy(snap, &mut |u| {
            users
                .entry(u.id.clone())
                .or_insert_with(|| user(&u.id, Some(&u.username), u.bot));
        });
        guild[section.about().copy_key] = Value::Array(list);
    }
    if let Some(w) = welcome {
        guild["welcome_screen"] = w;
    }
    if let Some(o) = onboarding {
        guild["onboarding"] = o;
    }
    let mut config = serde_json::to_value(rules.unwrap_or_default())
        .map_err(|e| RehearseError::Copy(e.to_string()))?;
    config["rate_limits_enabled"] = json!(false);
    if snap.people.as_ref().is_some_and(|p| p.listing_refused) {
        // The live guild refused the member listing: so does the copy.
        config["guild_members_intent"] = json!(false);
    }
    // New ids come after every id of the guild.
    let last = std::iter::once(g.id.as_str())
        .chain(g.roles.iter().map(|r| r.id.as_str()))
        .chain(snap.channels.iter().map(|c| c.id.as_str()))
        .chain(snap.webhooks.iter().flatten().map(|w| w.id.as_str()))
        .chain(sections::ALL.iter().flat_map(|s| s.ids(snap)))
        .chain(snap.follow_sources.keys().map(String::as_str))
        .chain(snap.follow_sources.values().filter_map(|s| match s {
            crate::snapshot::follows::FollowSource::Channel { guild_id, .. } => guild_id.as_deref(),
            crate::snapshot::follows::FollowSource::Refused { .. } => None,
        }))
        .chain(users.keys().map(String::as_str))
        .chain(
            snap.doors
                .integrations
                .iter()
                .flatten()
                .map(|i| i.id.as_str()),
        )
        .filter_map(|id| id.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    let mut guilds = vec![guild];
    guilds.extend(followed_guilds(snap));
    let state = json!({
        "guilds": guilds,
        "users": users.into_values().collect::<Vec<_>>(),
        "bot_user_id": snap.bot.id,
        "snowflake": { "last": last },
        "config": config,
    });
    serde_json::from_value(state).map_err(|e| RehearseError::Copy(e.to_string()))
}

/// The guilds of the announcement channels the plan follows (`follows`), each with those
/// channels alone, the bot a member who views them: the copy's follow calls then find
/// what Discord would, and the plan has already refused those Discord would not allow.
fn followed_guilds(snap: &Snapshot) -> Vec<Value> {
    use crate::snapshot::follows::FollowSource;
    let mut by_guild: std::collections::BTreeMap<&str, (Option<&str>, Vec<Value>)> =
        std::collections::BTreeMap::new();
    for (id, source) in &snap.follow_sources {
        let FollowSource::Channel {
            kind,
            name,
            guild_id: Some(guild),
            guild_name,
        } = source
        else {
            continue;
        };
        if *guild == snap.guild.id {
            continue;
        }
        let entry = by_guild
            .entry(guild.as_str())
            .or_insert_with(|| (guild_name.as_deref(), Vec::new()));
        entry
            .1
            .push(json!({ "id": id, "type": kind, "name": name }));
    }
    by_guild
        .into_iter()
        .map(|(id, (name, channels))| {
            json!({
                "id": id,
                "name": name.unwrap_or("followed guild"),
                "owner_id": snap.bot.id,
                "roles": [{ "id": id, "name": "@everyone", "permissions": crate::permissions::Permissions::VIEW_CHANNEL }],
                "channels": channels,
                "members": [{ "user_id": snap.bot.id }],
            })
        })
        .collect()
}

fn channel(c: &crate::discord::models::Channel) -> Value {
    let mut v = json!({
        "id": c.id, "type": c.kind, "name": c.name, "position": c.position,
        "parent_id": c.parent_id, "permission_overwrites": c.permission_overwrites,
        "topic": c.topic, "nsfw": c.nsfw.unwrap_or(false), "flags": c.flags,
        "available_tags": c.available_tags.clone().unwrap_or_default(),
        "default_reaction_emoji": c.default_reaction_emoji,
        "default_sort_order": c.default_sort_order,
        "default_forum_layout": c.default_forum_layout.unwrap_or(0),
    });
    // Fields a kind of channel does not have stay absent, as the emulator keeps them.
    let optional = [
        (
            "rate_limit_per_user",
            c.rate_limit_per_user.map(Value::from),
        ),
        ("bitrate", c.bitrate.map(Value::from)),
        ("user_limit", c.user_limit.map(Value::from)),
        ("rtc_region", c.rtc_region.clone().map(Value::from)),
        ("video_quality_mode", c.video_quality_mode.map(Value::from)),
        (
            "default_auto_archive_duration",
            c.default_auto_archive_duration.map(Value::from),
        ),
        (
            "default_thread_rate_limit_per_user",
            c.default_thread_rate_limit_per_user.map(Value::from),
        ),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            v[key] = value;
        }
    }
    v
}

/// What the copy does not know of the guild's members: those no read named, the roles of
/// members the listing named beyond the rosters', and holders the bot could not list.
fn people_not_rehearsed(snap: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    let Some(p) = &snap.people else {
        out.push(
            "members other than the bot: the copy has the bot alone, so who holds a role is not checked"
                .to_owned(),
        );
        return out;
    };
    let read = p.declared.values().filter(|r| r.is_some()).count();
    out.push(format!(
        "members the plan did not read: the copy has the bot and the {read} member(s) the manifest names or a member overwrite names{}, so no other member is checked",
        if p.holders.is_some() { " and the roster roles' holders" } else { "" }
    ));
    for role in &p.rosters {
        let unnamed = p.unnamed_holders(role);
        if unnamed > 0 {
            let name = snap.role(role).map_or(role.as_str(), |r| r.name.as_str());
            out.push(format!(
                "{unnamed} member(s) holding `{name}` the bot cannot list (no GUILD_MEMBERS intent): the copy has none of them"
            ));
        }
    }
    out
}

/// The members, bans and users of the copy: the bot, and what the rosters and ban list read.
struct PeopleCopy {
    members: Vec<Value>,
    bans: Vec<Value>,
    /// By id: every user a member, ban, integration or invite of the copy names.
    users: BTreeMap<String, Value>,
}

fn user(id: &str, username: Option<&str>, bot: bool) -> Value {
    json!({ "id": id, "username": username.unwrap_or(id), "bot": bot })
}

/// Members as the reads know them: the bot with its roles; each user the plan names who is a
/// member (on a roster, to be banned, or named by a member overwrite), with every role they
/// hold; each holder the member listing named, with every role it holds. Bans as read, with their reasons. Every user a read found
/// exists in the copy (one who is not a member as a user alone, so an overwrite for them is
/// refused there as on Discord), and no other: an id Discord knows no user by is not one, so a
/// ban of a member is rehearsed as one (they leave the copy, or the copy refuses as Discord
/// would when they outrank the bot).
fn people_of(snap: &Snapshot) -> PeopleCopy {
    let mut roles: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    roles
        .entry(snap.bot.id.as_str())
        .or_default()
        .extend(snap.bot_member.roles.iter().map(String::as_str));
    let mut users = BTreeMap::new();
    users.insert(
        snap.bot.id.clone(),
        user(&snap.bot.id, Some(&snap.bot.username), snap.bot.bot),
    );
    let mut bans = Vec::new();
    if let Some(p) = &snap.people {
        for (id, held) in &p.declared {
            if let Some(held) = held {
                roles
                    .entry(id.as_str())
                    .or_default()
                    .extend(held.iter().map(String::as_str));
            }
        }
        for (id, held) in &p.listed {
            roles
                .entry(id.as_str())
                .or_default()
                .extend(held.iter().map(String::as_str));
        }
        for (id, reason) in p.bans.iter().flatten() {
            bans.push(json!({ "user_id": id, "reason": reason }));
        }
        // A user is known by their username (members' come with their roles below).
        for (id, username) in &p.usernames {
            users
                .entry(id.clone())
                .or_insert_with(|| user(id, Some(username), false));
        }
    }
    let members = roles
        .into_iter()
        .map(|(id, held)| {
            users
                .entry(id.to_owned())
                .or_insert_with(|| user(id, None, false));
            json!({ "user_id": id, "roles": held })
        })
        .collect();
    PeopleCopy {
        members,
        bans,
        users,
    }
}

/// The integrations and invites as read (none when the manifest did not ask for them), with
/// the users they name added to `users`.
fn doors_of(snap: &Snapshot, users: &mut BTreeMap<String, Value>) -> (Vec<Value>, Vec<Value>) {
    let mut add = |u: &crate::discord::models::User| {
        users
            .entry(u.id.clone())
            .or_insert_with(|| user(&u.id, Some(&u.username), u.bot));
    };
    let integrations = snap
        .doors
        .integrations
        .iter()
        .flatten()
        .map(|i| {
            if let Some(u) = &i.user {
                add(u);
            }
            let application = i.application.as_ref().map(|a| {
                if let Some(b) = &a.bot {
                    add(b);
                }
                json!({
                    "id": a.id, "name": a.name,
                    "bot_id": a.bot.as_ref().map(|b| b.id.clone()),
                })
            });
            json!({
                "id": i.id, "name": i.display_name(), "type": i.kind,
                "application": application,
                "user_id": i.user.as_ref().map(|u| u.id.clone()),
                "scopes": i.scopes,
            })
        })
        .collect();
    let now = crate::discord::time::now_ms();
    let invites = snap
        .doors
        .invites
        .iter()
        .flatten()
        .filter_map(|i| {
            let channel_id = i.channel_id()?;
            if let Some(u) = &i.inviter {
                add(u);
            }
            // Without the metadata (no manage_guild) the expiry is all there is: the copy's
            // invite is made now and lasts until then, and lists without metadata as well.
            let expires = i.expires_at.as_deref().and_then(parse_timestamp);
            let (created_at, max_age) = match (&i.created_at, i.max_age) {
                (Some(c), Some(age)) => (c.clone(), age),
                _ => (
                    crate::discord::time::rfc3339(now),
                    expires.map_or(0, |e| e.saturating_sub(now).div_ceil(1000)),
                ),
            };
            Some(json!({
                "code": i.code, "channel_id": channel_id,
                "inviter_id": i.inviter.as_ref().map(|u| u.id.clone()),
                "uses": i.uses.unwrap_or(0), "max_uses": i.max_uses.unwrap_or(0),
                "max_age": max_age, "temporary": i.temporary.unwrap_or(false),
                "created_at": created_at,
            }))
        })
        .collect();
    (integrations, invites)
}
