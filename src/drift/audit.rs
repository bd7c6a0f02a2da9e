//! The audit log as read: its wire types, the pages read newest first only as far back
//! as the questions need ([`ask`]), and which entries are guildctl's.

use serde::Deserialize;
use serde_json::Value;

use super::questions::Question;
use super::{AuditSummary, DriftOptions, PAGE_SIZE, RETENTION_DAYS};
use crate::discord::time::{DAY_MS, snowflake_ms};
use crate::discord::{Client, ClientError};

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

/// What one run learnt from the audit log.
pub(super) struct Answers {
    pub(super) found: Vec<Option<AuditEntry>>,
    pub(super) guildctl: Vec<Option<AuditEntry>>,
    pub(super) users: Vec<AuditUser>,
    pub(super) webhooks: Vec<Named>,
    pub(super) integrations: Vec<Named>,
    pub(super) summary: AuditSummary,
    pub(super) error: Option<String>,
}

pub(super) async fn ask(
    client: &Client,
    guild_id: &str,
    questions: &[Question],
    options: &DriftOptions,
    appliers: &[String],
) -> Answers {
    let mut a = Answers {
        found: vec![None; questions.len()],
        guildctl: vec![None; questions.len()],
        users: Vec::new(),
        webhooks: Vec::new(),
        integrations: Vec::new(),
        summary: AuditSummary {
            max_pages: options.max_pages,
            ..AuditSummary::default()
        },
        error: None,
    };
    let open = |a: &Answers| {
        questions
            .iter()
            .zip(&a.found)
            .any(|(q, f)| q.unaudited.is_none() && f.is_none())
    };
    if !open(&a) {
        a.summary.stopped = "not_needed".into();
        return a;
    }
    let oldest_ms = options.now_ms.saturating_sub(RETENTION_DAYS * DAY_MS);
    let mut before: Option<String> = None;
    // One newest-first stream serves every question: a request per drifted object
    // (the `target_id` filter) would make the count grow with the drift.
    loop {
        if a.summary.pages_read >= options.max_pages {
            a.summary.stopped = "page_cap".into();
            break;
        }
        let mut path = format!("/guilds/{guild_id}/audit-logs?limit={PAGE_SIZE}");
        if let Some(b) = &before {
            path.push_str(&format!("&before={b}"));
        }
        a.summary.pages_read += 1;
        let page: AuditPage = match client.get(&path).await {
            Ok(p) => p,
            Err(ClientError::Api(e)) if e.status.as_u16() == 403 => {
                a.summary.stopped = "forbidden".into();
                break;
            }
            Err(e) => {
                a.summary.stopped = "error".into();
                a.error = Some(e.to_string());
                break;
            }
        };
        let count = page.audit_log_entries.len();
        a.users.extend(page.users);
        a.webhooks.extend(page.webhooks);
        a.integrations.extend(page.integrations);
        let mut past_retention = false;
        for e in page.audit_log_entries {
            if snowflake_ms(&e.id).is_some_and(|ms| ms < oldest_ms) {
                past_retention = true;
                break;
            }
            a.summary.entries_read += 1;
            for (i, q) in questions.iter().enumerate() {
                if a.found[i].is_none() && q.matches(&e) {
                    a.found[i] = Some(e.clone());
                } else if a.guildctl[i].is_none() && is_guildctl(&e, appliers) && q.same_field(&e) {
                    a.guildctl[i] = Some(e.clone());
                }
            }
            before = Some(e.id);
        }
        if past_retention {
            a.summary.stopped = "retention".into();
            break;
        }
        if !open(&a) {
            a.summary.stopped = "all_attributed".into();
            break;
        }
        if count < PAGE_SIZE {
            a.summary.stopped = "end_of_log".into();
            break;
        }
    }
    a
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
