//! What an audit-log entry says of guildctl: a change it made, or one that only claims to
//! be. The log's wire types are Discord's (`discord::audit`), re-exported here for the
//! rooms of drift. A leaf of `drift`: the reading (`audit`) and the questions
//! (`questions`) both import it, and it imports neither.

pub(super) use crate::discord::audit::{AuditEntry, AuditPage, AuditUser, Named};

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
