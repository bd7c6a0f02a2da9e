//! Who made a live value what it is: the entry that explains it, its author (a person, a
//! bot, guildctl's own apply, an integration or a webhook), when and why.

use serde_json::Value;

use super::audit::Answers;
use super::entry::{AuditEntry, claims_guildctl, is_guildctl};
use super::questions::Question;
use super::{Actor, Attribution, Blame, DriftOptions, GuildctlChange, RETENTION_DAYS};
use crate::discord::time::{ago, rfc3339, snowflake_ms};
use crate::snapshot::Snapshot;

impl Blame {
    pub(super) fn none(why: &str) -> Blame {
        Blame {
            entry: None,
            not_found: Some(why.to_owned()),
            previous_guildctl: None,
        }
    }
}

/// What attributing an entry needs: the log as read, the guild, the options, and the
/// bots whose entries are guildctl's.
pub(super) struct Who<'a> {
    pub(super) answers: &'a Answers,
    pub(super) snap: &'a Snapshot,
    pub(super) options: &'a DriftOptions,
    pub(super) appliers: &'a [String],
}

pub(super) fn make_blame(q: &Question, i: usize, who: &Who) -> Blame {
    if let Some(why) = q.unaudited {
        return Blame::none(why);
    }
    let a = who.answers;
    let attribution = |e: &AuditEntry| attribute(e, who);
    match &a.found[i] {
        Some(e) => Blame {
            entry: Some(attribution(e)),
            not_found: None,
            previous_guildctl: if is_guildctl(e, who.appliers) {
                None
            } else {
                a.guildctl[i].as_ref().map(attribution)
            },
        },
        None => {
            let why = match a.summary.stopped.as_str() {
                "forbidden" => "the bot lacks view_audit_log (403 on the audit-log read)".to_owned(),
                "error" => "the audit log could not be read".to_owned(),
                "retention" => format!(
                    "no entry in the last {RETENTION_DAYS} days (Discord's audit-log retention): the change is older, or Discord did not audit it"
                ),
                "page_cap" => format!(
                    "not in the newest {} audit-log entries read ({} pages, the cap): the change is older (raise --audit-pages)",
                    a.summary.entries_read, a.summary.pages_read
                ),
                _ => "no matching entry in the whole audit log: older than its 45 days, or a change Discord does not audit".to_owned(),
            };
            Blame {
                entry: None,
                not_found: Some(why),
                previous_guildctl: a.guildctl[i].as_ref().map(attribution),
            }
        }
    }
}

/// Who made a change Discord made itself, in a permission migration (212, 213).
pub(super) const PERMISSION_MIGRATION: &str = "Discord's permission migration";

pub(super) fn attribute(e: &AuditEntry, who: &Who) -> Attribution {
    let (a, snap, options) = (who.answers, who.snap, who.options);
    let ms = snowflake_ms(&e.id).unwrap_or(0);
    let user = match &e.user_id {
        // Discord's own change, whoever the entry names (if anyone).
        _ if e.is_permission_migration() => Actor {
            id: None,
            display_name: None,
            name: PERMISSION_MIGRATION.into(),
            kind: "discord".into(),
        },
        None => Actor {
            id: None,
            display_name: None,
            name: "unknown (system)".into(),
            kind: "unknown".into(),
        },
        Some(id) => {
            let u = a.users.iter().find(|u| &u.id == id);
            let name = u
                .map(|u| u.username.clone())
                .or_else(|| {
                    a.webhooks
                        .iter()
                        .find(|w| &w.id == id)
                        .and_then(|w| w.name.clone())
                })
                .unwrap_or_else(|| "unknown user".into());
            let integration = a.integrations.iter().any(|i| {
                i.account
                    .as_ref()
                    .and_then(|acc| acc.get("id"))
                    .and_then(Value::as_str)
                    == Some(id.as_str())
            });
            let kind = if *id == snap.bot.id {
                "this_bot"
            } else if a.webhooks.iter().any(|w| &w.id == id) {
                "webhook"
            } else if integration {
                "integration"
            } else if u.is_some_and(|u| u.bot) {
                "bot"
            } else if u.is_some() {
                "human"
            } else {
                "unknown"
            };
            Actor {
                id: Some(id.clone()),
                name,
                display_name: u.and_then(|u| u.global_name.clone()),
                kind: kind.into(),
            }
        }
    };
    let guildctl = is_guildctl(e, who.appliers).then(|| {
        let commit = e.reason.as_deref().and_then(commit_in_reason);
        let current = match (&commit, &options.current_commit) {
            (Some(c), Some(head)) => {
                Some(head.starts_with(c.as_str()) || c.starts_with(head.as_str()))
            }
            _ => None,
        };
        GuildctlChange { commit, current }
    });
    Attribution {
        entry_id: e.id.clone(),
        action_type: e.action_type,
        user,
        at: rfc3339(ms),
        ago: ago(options.now_ms.saturating_sub(ms)),
        reason: e.reason.clone(),
        claims_guildctl: guildctl.is_none() && claims_guildctl(e),
        guildctl,
    }
}

/// The commit in "guildctl apply: commit abc123 by someone".
pub(super) fn commit_in_reason(reason: &str) -> Option<String> {
    let rest = reason.split_once("commit ")?.1;
    let sha: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    (sha.len() >= 4).then_some(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_in_reasons() {
        assert_eq!(
            commit_in_reason("guildctl apply: commit abc1234 by Ann").as_deref(),
            Some("abc1234")
        );
        assert_eq!(commit_in_reason("guildctl apply"), None);
    }
}
