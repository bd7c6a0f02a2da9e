//! The audit log as read: the pages read newest first only as far back as the questions
//! need ([`ask`]). The entries' wire types and what an entry says of itself are in
//! `entry`, below both this and the questions.

use super::entry::{AuditEntry, AuditPage, AuditUser, Named, is_guildctl};
use super::questions::Question;
use super::{AuditSummary, DriftOptions, PAGE_SIZE, RETENTION_DAYS};
use crate::discord::time::{DAY_MS, snowflake_ms};
use crate::discord::{Client, ClientError};

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
