//! The audit log: the entries every write records (docs/discord.md §7.2)
//! and `GET /guilds/{g}/audit-logs` (§7.3), kept 45 days on the emulator's clock.

use axum::extract::RawQuery;
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, need};
use crate::app::{R, ok, query_params};
use crate::error::FieldErrors;
use crate::form::Reader;
use crate::perms::guild_permissions;
use crate::render;
use crate::state::{AuditChange, AuditEntry, Guild, SnowflakeGen, State, snowflake_ms};

pub(crate) fn change(key: &str, old: Value, new: Value) -> AuditChange {
    AuditChange {
        key: key.into(),
        // A missing old_value means "was null", a missing new_value "reset" (§7.3).
        old_value: (!old.is_null()).then_some(old),
        new_value: (!new.is_null()).then_some(new),
    }
}

pub(crate) fn diff(out: &mut Vec<AuditChange>, key: &str, old: Value, new: Value) {
    if old != new {
        out.push(change(key, old, new));
    }
}

/// The changes of an object created (`true`: null → value) or deleted
/// (value → null), from its audit snapshot; null fields are left out.
pub(crate) fn snapshot_changes(snap: Vec<(&str, Value)>, created: bool) -> Vec<AuditChange> {
    snap.into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            if created {
                change(k, Value::Null, v)
            } else {
                change(k, v, Value::Null)
            }
        })
        .collect()
}

/// The keys that differ between two snapshots of one object.
pub(crate) fn diff_snapshots(
    before: Vec<(&str, Value)>,
    after: Vec<(&str, Value)>,
) -> Vec<AuditChange> {
    let mut out = Vec::new();
    for ((k, old), (_, new)) in before.into_iter().zip(after) {
        diff(&mut out, k, old, new);
    }
    out
}

/// How long entries are kept (the reference: "Entries are kept for 45 days").
pub(crate) const RETENTION_MS: u64 = 45 * 86_400_000;

/// Whether an entry is still kept at `now` (Unix ms): its id says when it was made.
fn kept(e: &AuditEntry, now: u64) -> bool {
    snowflake_ms(&e.id).is_none_or(|made| made.saturating_add(RETENTION_MS) >= now)
}

/// Audit-log action types by name (reference, "Audit log events"): the ones the
/// emulator records.
pub(crate) mod action {
    pub(crate) const GUILD_UPDATE: u32 = 1;
    pub(crate) const CHANNEL_CREATE: u32 = 10;
    pub(crate) const CHANNEL_UPDATE: u32 = 11;
    pub(crate) const CHANNEL_DELETE: u32 = 12;
    pub(crate) const CHANNEL_OVERWRITE_CREATE: u32 = 13;
    pub(crate) const CHANNEL_OVERWRITE_UPDATE: u32 = 14;
    pub(crate) const CHANNEL_OVERWRITE_DELETE: u32 = 15;
    pub(crate) const MEMBER_KICK: u32 = 20;
    pub(crate) const MEMBER_PRUNE: u32 = 21;
    pub(crate) const MEMBER_BAN_ADD: u32 = 22;
    pub(crate) const MEMBER_BAN_REMOVE: u32 = 23;
    pub(crate) const MEMBER_UPDATE: u32 = 24;
    pub(crate) const MEMBER_ROLE_UPDATE: u32 = 25;
    pub(crate) const MEMBER_MOVE: u32 = 26;
    pub(crate) const MEMBER_DISCONNECT: u32 = 27;
    pub(crate) const ROLE_CREATE: u32 = 30;
    pub(crate) const ROLE_UPDATE: u32 = 31;
    pub(crate) const ROLE_DELETE: u32 = 32;
    pub(crate) const INVITE_DELETE: u32 = 42;
    pub(crate) const WEBHOOK_CREATE: u32 = 50;
    pub(crate) const WEBHOOK_UPDATE: u32 = 51;
    pub(crate) const WEBHOOK_DELETE: u32 = 52;
    pub(crate) const EMOJI_CREATE: u32 = 60;
    pub(crate) const EMOJI_UPDATE: u32 = 61;
    pub(crate) const EMOJI_DELETE: u32 = 62;
    pub(crate) const INTEGRATION_DELETE: u32 = 82;
    pub(crate) const STICKER_CREATE: u32 = 90;
    pub(crate) const STICKER_UPDATE: u32 = 91;
    pub(crate) const STICKER_DELETE: u32 = 92;
    pub(crate) const GUILD_SCHEDULED_EVENT_CREATE: u32 = 100;
    pub(crate) const GUILD_SCHEDULED_EVENT_UPDATE: u32 = 101;
    pub(crate) const GUILD_SCHEDULED_EVENT_DELETE: u32 = 102;
    pub(crate) const SOUNDBOARD_SOUND_CREATE: u32 = 130;
    pub(crate) const SOUNDBOARD_SOUND_UPDATE: u32 = 131;
    pub(crate) const SOUNDBOARD_SOUND_DELETE: u32 = 132;
    pub(crate) const AUTO_MODERATION_RULE_CREATE: u32 = 140;
    pub(crate) const AUTO_MODERATION_RULE_UPDATE: u32 = 141;
    pub(crate) const AUTO_MODERATION_RULE_DELETE: u32 = 142;
    pub(crate) const ONBOARDING_PROMPT_CREATE: u32 = 163;
    pub(crate) const ONBOARDING_PROMPT_UPDATE: u32 = 164;
    pub(crate) const ONBOARDING_PROMPT_DELETE: u32 = 165;
    pub(crate) const ONBOARDING_CREATE: u32 = 166;
    pub(crate) const ONBOARDING_UPDATE: u32 = 167;
}

/// One audit-log entry as a write records it, named part by part:
/// `Entry::on(ROLE_UPDATE, &rid).changes(changes).by(actor, reason).record(g, snowflake)`.
#[must_use = "an entry is written by `.by(..).record(..)`"]
pub(crate) struct Entry<'a> {
    action: u32,
    target: Option<&'a str>,
    changes: Vec<AuditChange>,
    options: Option<Map<String, Value>>,
}

impl<'a> Entry<'a> {
    /// An entry of `action` on the object `target`.
    pub(crate) fn on(action: u32, target: &'a str) -> Self {
        Entry {
            action,
            target: Some(target),
            changes: Vec::new(),
            options: None,
        }
    }

    /// An entry of `action` that names no object (a prune, member moves and disconnects).
    pub(crate) fn untargeted(action: u32) -> Self {
        Entry {
            action,
            target: None,
            changes: Vec::new(),
            options: None,
        }
    }

    /// What changed (none: the entry has no `changes`).
    pub(crate) fn changes(self, changes: Vec<AuditChange>) -> Self {
        Entry { changes, ..self }
    }

    /// Optional entry info (`options`).
    pub(crate) fn options(self, options: Map<String, Value>) -> Self {
        Entry {
            options: Some(options),
            ..self
        }
    }

    /// Who made the change, and the reason their request gave.
    pub(crate) fn by<'b>(self, actor: &'b str, reason: Option<&'b str>) -> Authored<'a, 'b> {
        Authored {
            entry: self,
            actor,
            reason,
        }
    }
}

/// An [`Entry`] with its author, ready to be recorded.
#[must_use = "an entry is written by `.record(..)`"]
pub(crate) struct Authored<'a, 'b> {
    entry: Entry<'a>,
    actor: &'b str,
    reason: Option<&'b str>,
}

impl Authored<'_, '_> {
    /// Appends the entry to the guild's log, with a new id from `snow`.
    pub(crate) fn record(self, g: &mut Guild, snow: &mut SnowflakeGen) {
        // Entries past retention go as new ones come, so the log does not grow for ever.
        let now = snow.now_ms();
        g.audit_log.retain(|e| kept(e, now));
        let Entry {
            action,
            target,
            changes,
            options,
        } = self.entry;
        g.audit_log.push(AuditEntry {
            id: snow.next_id(),
            action_type: action,
            user_id: Some(self.actor.into()),
            target_id: target.map(str::to_owned),
            changes,
            options,
            reason: self.reason.map(str::to_owned),
        });
    }
}

/// Optional entry info from pairs: every value a string (reference, Audit Log Entry).
pub(crate) fn string_options(pairs: &[(&str, String)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
        .collect()
}

pub async fn get_audit_logs(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(
        guild_permissions(g, &call.actor),
        Permissions::VIEW_AUDIT_LOG,
    )?;
    let query = query_params(q);
    let obj: Map<String, Value> = query
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let user_id = r.snowflake("user_id").set();
    let target_id = r.snowflake("target_id").set();
    let action = r.int("action_type").set();
    let before = r
        .snowflake("before")
        .set()
        .and_then(|s| s.parse::<u64>().ok());
    let after = r
        .snowflake("after")
        .set()
        .and_then(|s| s.parse::<u64>().ok());
    let limit = r.int_range("limit", 1, 100).set().unwrap_or(50) as usize;
    errs.check()?;
    let id_of = |e: &AuditEntry| e.id.parse::<u64>().unwrap_or(0);
    let now = st.now_ms();
    let mut entries: Vec<&AuditEntry> = g
        .audit_log
        .iter()
        .filter(|e| kept(e, now))
        .filter(|e| {
            user_id
                .as_ref()
                .is_none_or(|u| e.user_id.as_ref() == Some(u))
        })
        .filter(|e| {
            target_id
                .as_ref()
                .is_none_or(|t| e.target_id.as_ref() == Some(t))
        })
        .filter(|e| action.is_none_or(|a| i64::from(e.action_type) == a))
        .filter(|e| before.is_none_or(|b| id_of(e) < b))
        .filter(|e| after.is_none_or(|a| id_of(e) > a))
        .collect();
    // With `after` (and no `before`) oldest→newest, else newest→oldest (§7.3).
    let ascending = after.is_some() && before.is_none();
    entries.sort_by_key(|e| id_of(e));
    if !ascending {
        entries.reverse();
    }
    entries.truncate(limit);
    let mut users: Vec<Value> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for e in &entries {
        if let Some(u) = e.user_id.as_deref()
            && !seen.contains(&u)
        {
            seen.push(u);
            if let Some(user) = st.user(u) {
                users.push(render::user(user));
            }
        }
    }
    let webhooks = referenced_webhooks(&st, g, &entries);
    let rules: Vec<Value> = g
        .auto_moderation_rules
        .iter()
        .filter(|r| referenced(&entries, 140..=142, &r.id))
        .map(|r| render::automod_rule(&g.id, r))
        .collect();
    let scheduled_events: Vec<Value> = g
        .scheduled_events
        .iter()
        .filter(|e| referenced(&entries, 100..=102, &e.id))
        .map(|e| render::scheduled_event(&g.id, e, None, false))
        .collect();
    ok(json!({
        "audit_log_entries": entries.iter().map(|e| render::audit_entry(e)).collect::<Vec<_>>(),
        "users": users,
        "integrations": [],
        "webhooks": webhooks,
        "guild_scheduled_events": scheduled_events,
        "threads": [],
        "application_commands": [],
        "auto_moderation_rules": rules,
    }))
}

/// Whether an entry of the page with an action in `actions` targets `id`.
fn referenced(entries: &[&AuditEntry], actions: std::ops::RangeInclusive<u32>, id: &str) -> bool {
    entries
        .iter()
        .any(|e| actions.contains(&e.action_type) && e.target_id.as_deref() == Some(id))
}

/// The webhooks an audit-log page refers to (entries 50–52 whose webhook
/// still exists), without tokens: Discord never puts them in the log (§6).
fn referenced_webhooks(st: &State, g: &Guild, entries: &[&AuditEntry]) -> Vec<Value> {
    let mut ids: Vec<&str> = entries
        .iter()
        .filter(|e| (50..=52).contains(&e.action_type))
        .filter_map(|e| e.target_id.as_deref())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    g.webhooks
        .iter()
        .filter(|w| ids.binary_search(&w.id.as_str()).is_ok())
        .map(|w| {
            let creator = w.user_id.as_deref().and_then(|u| st.user(u));
            render::webhook(&g.id, w, creator, false)
        })
        .collect()
}
