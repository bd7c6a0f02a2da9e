//! What `watch` tells (docs/watch.md): a guild's distance from its manifest when it is read
//! (at start, and again once its changes settle), each change Discord's audit log records as
//! it is written (who, what, when and why, from `GUILD_AUDIT_LOG_ENTRY_CREATE` itself), and
//! the connection's ups and downs; as text lines or JSON lines. The loop that reads the
//! Gateway is `ops::watch`.

pub mod guard;

use serde::Serialize;

use crate::discord::audit::{ActionType, AuditEntry, action};
use crate::discord::gateway::intent;
use crate::discord::time::{rfc3339, snowflake_ms};
use crate::inert;
use crate::manifest::Manifest;

/// One thing `watch` tells, as a line.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Watched {
    /// The Gateway is open: the shards run here and the intents asked for.
    Connected {
        /// `[shard_id, shard_count]` each.
        shards: Vec<[u32; 2]>,
        /// The intents, by name.
        intents: Vec<&'static str>,
        /// The guilds watched.
        guilds: usize,
        /// Of them, the guilds guarded (`--guard`, and `safety.guard: true` in the manifest).
        guarded: usize,
    },
    /// A guild read and planned against its manifest (at start, after its changes settled,
    /// or after events may have been missed).
    Drift {
        /// The guild's id.
        guild_id: String,
        /// Its name, as Discord has it.
        guild: String,
        /// The changes apply would make (0: it matches its manifest).
        changes: usize,
        /// The plan's summary line.
        summary: String,
        /// Why it was read: `start`, `changed`, `resync`.
        why: &'static str,
    },
    /// A change the audit log recorded.
    Change(Change),
    /// What `--guard` did about a guild's hand changes.
    Guarded(Guarded),
    /// A shard's connection closed, or could not receive (twilight reconnects unless
    /// `fatal`).
    Connection {
        /// The shard.
        shard: u32,
        /// What happened.
        what: String,
        /// The shard stopped for good (a close code Discord says not to reconnect after).
        fatal: bool,
    },
    /// A guild could not be read or planned; the others go on.
    Failed {
        /// The guild's id.
        guild_id: String,
        /// Why.
        error: String,
    },
}

/// One audit-log entry, told.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    /// The guild.
    pub guild: Named,
    /// When (RFC 3339, from the entry's id).
    pub at: String,
    /// The entry's action type.
    pub action_type: ActionType,
    /// The action in words (`updated a role`).
    pub action: String,
    /// The object changed: its id, and its name where the last read knows it (`@Moderator`,
    /// `#general`).
    pub target: Option<Named>,
    /// Who made it.
    pub by: Actor,
    /// The reason the write carried.
    pub reason: Option<String>,
    /// guildctl's own apply made it (the bot that applies, with guildctl's reason).
    pub guildctl: bool,
}

/// What guard did: the changes it undid (or would, or could not), why, and what it left.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Guarded {
    /// The guild.
    pub guild: Named,
    /// What came of it (`"outcome"` in JSON, with `"error"` when it failed).
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The changes undone (or, with `--dry-run`, that would be).
    pub reverted: Vec<Undone>,
    /// Hand changes that break a policy or touch a protected object, left as they are, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<String>,
}

/// What came of guard's verdict on a guild.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Reverted.
    Reverted,
    /// `--dry-run`: said, not done.
    DryRun,
    /// A call failed.
    Failed {
        /// Why.
        error: String,
    },
    /// Past the limit of reverts in the window: nothing sent, a person must look.
    Stopped,
    /// Nothing to revert: only `left`.
    Left,
}

/// A change guard undoes: as a plan names it ("update role @everyone (permissions)"), why
/// ("breaks policy …", "touches @Admin, which roles\[0\] protects"), and who made the hand
/// change it undoes ("alice (123)").
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Undone {
    pub change: String,
    pub because: String,
    pub by: String,
}

/// An object by id, and by name when it is known.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Named {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: Option<String>,
}

/// Who made a change.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Actor {
    /// The user's id (none: Discord itself).
    pub id: Option<String>,
    /// Their username, when it could be read.
    pub name: Option<String>,
    /// A bot's account.
    pub bot: bool,
    /// Discord made the change itself (a permission migration).
    pub discord: bool,
}

/// The intents `watch` asks for a manifest: GUILDS and GUILD_MODERATION always (the
/// guild, roles, channels and overwrites, and every audit entry), and the intent of each
/// other section it declares, so its objects' own dispatches come too.
pub fn intents_for(m: &Manifest) -> u64 {
    let mut bits = intent::GUILDS | intent::GUILD_MODERATION;
    let wanted = [
        (
            m.emojis.is_some() || m.stickers.is_some() || m.soundboard.is_some(),
            intent::GUILD_EXPRESSIONS,
        ),
        (m.webhooks.is_some(), intent::GUILD_WEBHOOKS),
        (m.integrations.is_some(), intent::GUILD_INTEGRATIONS),
        (m.invites.is_some(), intent::GUILD_INVITES),
        (m.events.is_some(), intent::GUILD_SCHEDULED_EVENTS),
        (m.automod.is_some(), intent::AUTO_MODERATION_CONFIGURATION),
    ];
    for (declared, bit) in wanted {
        if declared {
            bits |= bit;
        }
    }
    bits
}

/// The names of `bits`, in bit order.
pub fn intent_names(bits: u64) -> Vec<&'static str> {
    [
        (intent::GUILDS, "GUILDS"),
        (intent::GUILD_MODERATION, "GUILD_MODERATION"),
        (intent::GUILD_EXPRESSIONS, "GUILD_EXPRESSIONS"),
        (intent::GUILD_INTEGRATIONS, "GUILD_INTEGRATIONS"),
        (intent::GUILD_WEBHOOKS, "GUILD_WEBHOOKS"),
        (intent::GUILD_INVITES, "GUILD_INVITES"),
        (intent::GUILD_SCHEDULED_EVENTS, "GUILD_SCHEDULED_EVENTS"),
        (
            intent::AUTO_MODERATION_CONFIGURATION,
            "AUTO_MODERATION_CONFIGURATION",
        ),
    ]
    .into_iter()
    .filter(|(bit, _)| bits & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

/// An action type in words (`updated a role`); one without words here by its number.
pub fn action_words(t: ActionType) -> String {
    #[rustfmt::skip]
    const WORDS: &[(ActionType, &str)] = &[
        (action::GUILD_UPDATE, "updated the guild"),
        (action::CHANNEL_CREATE, "created a channel"),
        (action::CHANNEL_UPDATE, "updated a channel"),
        (action::CHANNEL_DELETE, "deleted a channel"),
        (action::CHANNEL_OVERWRITE_CREATE, "added an overwrite to a channel"),
        (action::CHANNEL_OVERWRITE_UPDATE, "changed an overwrite of a channel"),
        (action::CHANNEL_OVERWRITE_DELETE, "removed an overwrite from a channel"),
        (action::MEMBER_BAN_ADD, "banned a user"),
        (action::MEMBER_BAN_REMOVE, "lifted a ban"),
        (action::MEMBER_ROLE_UPDATE, "changed a member's roles"),
        (action::ROLE_CREATE, "created a role"),
        (action::ROLE_UPDATE, "updated a role"),
        (action::ROLE_DELETE, "deleted a role"),
        (action::INVITE_CREATE, "created an invite"),
        (action::INVITE_UPDATE, "updated an invite"),
        (action::INVITE_DELETE, "deleted an invite"),
        (action::WEBHOOK_CREATE, "created a webhook"),
        (action::WEBHOOK_UPDATE, "updated a webhook"),
        (action::WEBHOOK_DELETE, "deleted a webhook"),
        (action::EMOJI_CREATE, "added an emoji"),
        (action::EMOJI_UPDATE, "updated an emoji"),
        (action::EMOJI_DELETE, "deleted an emoji"),
        (action::INTEGRATION_CREATE, "added an integration"),
        (action::INTEGRATION_UPDATE, "updated an integration"),
        (action::INTEGRATION_DELETE, "removed an integration"),
        (action::STICKER_CREATE, "added a sticker"),
        (action::STICKER_UPDATE, "updated a sticker"),
        (action::STICKER_DELETE, "deleted a sticker"),
        (action::SCHEDULED_EVENT_CREATE, "created an event"),
        (action::SCHEDULED_EVENT_UPDATE, "updated an event"),
        (action::SCHEDULED_EVENT_DELETE, "deleted an event"),
    ];
    WORDS.iter().find(|(n, _)| *n == t).map_or_else(
        || format!("made a change of audit-log type {t}"),
        |(_, w)| (*w).to_owned(),
    )
}

/// An entry told: its words, its time from its id, and its author.
pub fn change(
    guild: Named,
    e: &AuditEntry,
    target_name: Option<String>,
    by: Actor,
    guildctl: bool,
) -> Change {
    Change {
        guild,
        at: snowflake_ms(&e.id).map(rfc3339).unwrap_or_default(),
        action_type: e.action_type,
        action: action_words(e.action_type),
        target: e.target_id.clone().map(|id| Named {
            id,
            name: target_name,
        }),
        by,
        reason: e.reason.clone(),
        guildctl,
    }
}

/// One line for a terminal (names from Discord made inert).
pub fn text(w: &Watched) -> String {
    let t = inert::terminal;
    match w {
        Watched::Connected {
            shards,
            intents,
            guilds,
            guarded,
        } => {
            let shards: Vec<String> = shards.iter().map(|[i, n]| format!("{i}/{n}")).collect();
            let guarded = if *guarded > 0 {
                format!(", guarding {guarded}")
            } else {
                String::new()
            };
            format!(
                "Watching {guilds} guild(s){guarded} on shard(s) {} with {}.",
                shards.join(", "),
                intents.join(", ")
            )
        }
        Watched::Guarded(g) => guarded_text(g),
        Watched::Drift {
            guild_id,
            guild,
            changes,
            summary,
            why,
        } => {
            let when = match *why {
                "start" => "at start",
                "resync" => "read again after a new session",
                _ => "after the changes settled",
            };
            if *changes == 0 {
                format!("{} ({guild_id}) {when}: matches its manifest.", t(guild))
            } else {
                format!("{} ({guild_id}) {when}: drifted: {summary}", t(guild))
            }
        }
        Watched::Change(c) => {
            let who = match (&c.by.name, &c.by.id) {
                _ if c.by.discord => "Discord".to_owned(),
                (Some(n), Some(id)) => format!("{} ({id})", t(n)),
                (None, Some(id)) => format!("user {id}"),
                _ => "someone".to_owned(),
            };
            let bot = if c.by.bot && !c.by.discord {
                " [bot]"
            } else {
                ""
            };
            let target = match &c.target {
                Some(Named { name: Some(n), .. }) => format!(" {}", t(n)),
                Some(Named { id, name: None }) => format!(" {id}"),
                None => String::new(),
            };
            let reason = c
                .reason
                .as_deref()
                .map(|r| format!(": \"{}\"", t(r)))
                .unwrap_or_else(|| ", no reason given".to_owned());
            let mark = if c.guildctl { " (guildctl apply)" } else { "" };
            format!(
                "{} {}: {who}{bot} {}{target}{reason}{mark}",
                c.at,
                t(c.guild.name.as_deref().unwrap_or(&c.guild.id)),
                c.action
            )
        }
        Watched::Connection { shard, what, fatal } => {
            let then = if *fatal { "stopped" } else { "reconnecting" };
            format!("shard {shard}: {}; {then}", t(what))
        }
        Watched::Failed { guild_id, error } => {
            format!("guild {guild_id}: {}", t(error))
        }
    }
}

/// A guard line: what was reverted and why, then what was left.
fn guarded_text(g: &Guarded) -> String {
    let t = inert::terminal;
    let guild = t(g.guild.name.as_deref().unwrap_or(&g.guild.id));
    let undone: Vec<String> = g
        .reverted
        .iter()
        .map(|u| format!("{} by {} ({})", t(&u.change), t(&u.by), t(&u.because)))
        .collect();
    let mut line = match &g.outcome {
        Outcome::Reverted => format!("{guild}: guard reverted {}", undone.join("; ")),
        Outcome::DryRun => format!("{guild}: guard would revert {}", undone.join("; ")),
        Outcome::Stopped => format!(
            "{guild}: guard stopped reverting (too many reverts in its window): not reverted: {}; a person must look",
            undone.join("; ")
        ),
        Outcome::Failed { error } => format!(
            "{guild}: guard could not revert {}: {}",
            undone.join("; "),
            t(error)
        ),
        Outcome::Left => format!("{guild}: guard"),
    };
    for l in &g.left {
        line.push_str(&format!("; {}", t(l)));
    }
    line
}

/// Whether an entry is guildctl's own: made by a bot that applies or guards (`appliers`)
/// with guildctl's reason (apply's, or guard's), so guard never undoes guildctl's work.
/// The reason alone is not enough: anyone can write it.
pub fn is_guildctls(e: &AuditEntry, appliers: &[String]) -> bool {
    let ours = e
        .reason
        .as_deref()
        .is_some_and(|r| r.starts_with("guildctl apply") || r.starts_with(guard::REASON_PREFIX));
    ours && e.user_id.as_ref().is_some_and(|u| appliers.contains(u))
}

/// The keys an entry changed, as the API names a field: an overwrite's entry changes the
/// channel's `permission_overwrites`.
pub fn changed_keys(e: &AuditEntry) -> Vec<String> {
    if [
        action::CHANNEL_OVERWRITE_CREATE,
        action::CHANNEL_OVERWRITE_UPDATE,
        action::CHANNEL_OVERWRITE_DELETE,
    ]
    .contains(&e.action_type)
    {
        return vec!["permission_overwrites".to_owned()];
    }
    e.changes.iter().map(|c| c.key.clone()).collect()
}

/// Whether an entry is Discord's own (a permission migration), whoever it names.
pub fn is_discords(e: &AuditEntry) -> bool {
    e.is_permission_migration()
}
