//! Gates of what Discord checks in one channel rather than guild-wide: following an
//! announcement channel needs `manage_webhooks` in the channel that receives it (§6), and
//! a scheduled event in a voice channel needs `view_channel` and `connect` there, in a
//! stage channel `manage_channels`, `mute_members` and `move_members`
//! (resources/guild-scheduled-event, "Permissions for events with entity type ...").
//! The bot's permissions in a channel are computed as Discord computes them
//! ([`crate::access`]) on the guild the plan leaves: these calls come after every role and
//! channel write (their phases come later), so a channel the plan creates, or whose
//! overwrites it changes, is judged as the call will find it.

use serde_json::Value;

use crate::access::{Guild, Holder};
use crate::discord::Route;
use crate::discord::models::channel_type;
use crate::permissions::Permissions;
use crate::plan::{Plan, Problem, created_key};
use crate::snapshot::Snapshot;

const VIEW: (&str, Permissions) = ("view_channel", Permissions::VIEW_CHANNEL);
const FOLLOW: &[(&str, Permissions)] = &[VIEW, ("manage_webhooks", Permissions::MANAGE_WEBHOOKS)];
const VOICE_EVENT: &[(&str, Permissions)] = &[VIEW, ("connect", Permissions::CONNECT)];
const STAGE_EVENT: &[(&str, Permissions)] = &[
    VIEW,
    ("manage_channels", Permissions::MANAGE_CHANNELS),
    ("mute_members", Permissions(1 << 22)),
    ("move_members", Permissions(1 << 24)),
];

/// The channel a call acts in, as the guild after the plan knows it (a live id, or the
/// creation key of one the plan creates), and what the call needs there.
fn needs<'p>(
    op: &'p crate::plan::Operation,
    snap: &'p Snapshot,
    after: &Guild,
) -> Option<(&'p str, &'static [(&'static str, Permissions)])> {
    let body = op.body.as_ref();
    let channel_key = |v: Option<&'p Value>| v.and_then(|v| v.as_str().or_else(|| created_key(v)));
    match &op.route {
        Route::FollowChannel { .. } => {
            channel_key(body.and_then(|b| b.get("webhook_channel_id"))).map(|c| (c, FOLLOW))
        }
        Route::CreateScheduledEvent { .. } | Route::UpdateScheduledEvent { .. } => {
            // The channel the call names; else, for an update, the event's own.
            let live_event = match &op.route {
                Route::UpdateScheduledEvent { event, .. } => event
                    .live()
                    .and_then(|id| snap.events.iter().flatten().find(|e| e.id == id)),
                _ => None,
            };
            let named = body.and_then(|b| b.get("channel_id"));
            let channel = match named {
                Some(v) => channel_key(Some(v))?,
                None => live_event?.channel_id.as_deref()?,
            };
            let kind = after.channel(channel)?.kind;
            match kind {
                channel_type::VOICE => Some((channel, VOICE_EVENT)),
                channel_type::STAGE => Some((channel, STAGE_EVENT)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The calls of `plan` the bot lacks a permission for in their channel, on `g`, the guild
/// the plan leaves.
pub(super) fn check(plan: &Plan, snap: &Snapshot, g: &Guild) -> Vec<Problem> {
    let mut problems = Vec::new();
    let bot = &Holder {
        roles: snap.bot_member.roles.clone(),
        user: Some(snap.bot.id.clone()),
    };
    let mut said: Vec<(String, &str)> = Vec::new();
    for op in &plan.operations {
        let Some((channel, wanted)) = needs(op, snap, g) else {
            continue;
        };
        let Some(c) = g.channel(channel) else {
            continue;
        };
        let have = g.overwritten(c, bot, g.base(bot));
        let shown = crate::access::model::display_name(
            c.kind,
            &c.name,
            c.parent
                .as_deref()
                .and_then(|p| g.channel(p))
                .map(|p| p.name.as_str()),
        );
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|(_, p)| !have.contains(*p))
            .map(|(n, _)| *n)
            .filter(|n| !said.contains(&(channel.to_owned(), *n)))
            .collect();
        if missing.is_empty() {
            continue;
        }
        for n in &missing {
            said.push((channel.to_owned(), n));
        }
        let change = &plan.changes[op.change];
        problems.push(Problem {
            policy: None,
            message: format!(
                "the bot lacks `{}` in channel `{shown}`, which {} needs",
                missing.join("`, `"),
                op.summary
            ),
            source: change.source.clone(),
            help: Some(format!(
                "grant the bot's role {} in `{shown}` (or in its category or the guild), or choose another channel",
                missing
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )),
        });
    }
    problems
}

/// The declared channels the bot could no longer view once the plan is applied. Discord then
/// omits them from every read (docs/discord.md §9.1), so guildctl could never manage
/// them again: the next plan would find them missing and refuse to create them a second
/// time. An administrator sees every channel.
pub(super) fn sight(snap: &Snapshot, g: &Guild) -> Vec<Problem> {
    let bot = Holder {
        roles: snap.bot_member.roles.clone(),
        user: Some(snap.bot.id.clone()),
    };
    if g.is_owner(&bot) || g.base(&bot).contains(Permissions::ADMINISTRATOR) {
        return Vec::new();
    }
    let access = g.access(&bot);
    let role = g
        .roles
        .iter()
        .find(|r| r.bot_id.as_deref() == Some(snap.bot.id.as_str()))
        .map_or_else(|| "the bot's role".to_owned(), |r| format!("`{}`", r.name));
    (0..g.channels.len())
        .filter(|&i| !access.sees(i))
        .filter_map(|i| {
            let c = &g.channels[i];
            let shown = g.path(i);
            Some(Problem {
                policy: None,
                message: format!(
                    "once applied, the bot could no longer view channel `{shown}`: Discord would then hide it from the bot, and guildctl could not manage it again"
                ),
                source: Some(c.source.clone()?),
                help: Some(format!(
                    "allow `view_channel` to {role} in the overwrites of `{shown}` (or of its category, when it follows it), or make the bot's role an administrator"
                )),
            })
        })
        .collect()
}
