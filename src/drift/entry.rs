//! The audit log's wire types (a page, its entries, their changes, users and named
//! objects) and what an entry says of itself: a permission migration of Discord's, or a
//! change guildctl made. A leaf of `drift`: the reading (`audit`) and the questions
//! (`questions`) both import it, and it imports neither.

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct AuditPage {
    pub(super) audit_log_entries: Vec<AuditEntry>,
    pub(super) users: Vec<AuditUser>,
    pub(super) webhooks: Vec<Named>,
    pub(super) integrations: Vec<Named>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct AuditEntry {
    pub(super) id: String,
    pub(super) action_type: u32,
    pub(super) user_id: Option<String>,
    pub(super) target_id: Option<String>,
    pub(super) changes: Vec<AuditChange>,
    pub(super) options: Option<serde_json::Map<String, Value>>,
    pub(super) reason: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct AuditChange {
    pub(super) key: String,
    pub(super) new_value: Option<Value>,
    pub(super) old_value: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct AuditUser {
    pub(super) id: String,
    pub(super) username: String,
    pub(super) global_name: Option<String>,
    pub(super) bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(super) struct Named {
    pub(super) id: String,
    pub(super) name: Option<String>,
    pub(super) account: Option<Value>,
}

/// The action types under which Discord rewrote roles and overwrites itself when it split
/// permissions off others: 212 the pin-messages migration (`pin_messages` from
/// `manage_messages`), 213 the bypass-slowmode one (`bypass_slowmode` from
/// `manage_channels`/`manage_threads`). Neither is in the OpenAPI enum; an entry is read as
/// the role update (31) or overwrite update (14) it stands for: the role or channel as
/// target, the overwrite's id in `options`, `permissions` or `allow`/`deny` as keys.
pub(super) const PERMISSION_MIGRATIONS: [u32; 2] = [212, 213];

/// Whether Discord made the change, in a permission migration: no person did.
pub(super) fn is_permission_migration(e: &AuditEntry) -> bool {
    PERMISSION_MIGRATIONS.contains(&e.action_type)
}

/// Whether the reason says the change was guildctl's; anyone can write it.
pub(super) fn claims_guildctl(e: &AuditEntry) -> bool {
    e.reason
        .as_deref()
        .is_some_and(|r| r.starts_with("guildctl apply"))
}

/// An entry is guildctl's only when the bot that applies made it, with guildctl's reason.
pub(super) fn is_guildctl(e: &AuditEntry, appliers: &[String]) -> bool {
    claims_guildctl(e) && e.user_id.as_ref().is_some_and(|u| appliers.contains(u))
}
