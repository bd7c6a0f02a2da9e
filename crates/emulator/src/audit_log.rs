//! The audit log: the entries every write records (docs/discord.md §7.2)
//! and `GET /guilds/{g}/audit-logs` (§7.3), kept 45 days on the emulator's clock.

use axum::extract::{Path, RawQuery, State as AxState};
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{guild_idx, need};
use crate::app::{App, Ctx, R, lock, ok, query_params};
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

#[allow(clippy::too_many_arguments)]
pub(crate) fn audit(
    g: &mut Guild,
    snow: &mut SnowflakeGen,
    actor: &str,
    reason: Option<&str>,
    action: u32,
    target: &str,
    changes: Vec<AuditChange>,
    options: Option<Map<String, Value>>,
) {
    audit_entry(
        g,
        snow,
        actor,
        reason,
        action,
        Some(target),
        changes,
        options,
    );
}

/// [`audit`] for entries that may name no target (member moves and disconnects).
#[allow(clippy::too_many_arguments)]
pub(crate) fn audit_entry(
    g: &mut Guild,
    snow: &mut SnowflakeGen,
    actor: &str,
    reason: Option<&str>,
    action: u32,
    target: Option<&str>,
    changes: Vec<AuditChange>,
    options: Option<Map<String, Value>>,
) {
    // Entries past retention go as new ones come, so the log does not grow for ever.
    let now = snow.now_ms();
    g.audit_log.retain(|e| kept(e, now));
    g.audit_log.push(AuditEntry {
        id: snow.next_id(),
        action_type: action,
        user_id: Some(actor.into()),
        target_id: target.map(str::to_owned),
        changes,
        options,
        reason: reason.map(str::to_owned),
    });
}

/// Optional entry info (`options`): every value a string (reference, Audit Log Entry).
pub(crate) fn options(pairs: &[(&str, String)]) -> Option<Map<String, Value>> {
    Some(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
            .collect(),
    )
}

pub async fn get_audit_logs(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    need(
        guild_permissions(g, &ctx.user_id),
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
