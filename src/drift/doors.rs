//! Drift's view of the ways in: unlisted integrations (high risk when their bot's role
//! holds a dangerous permission), invites the rules reject (medium risk when made by
//! hand and never expiring), an active lockdown, and the prune count.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::{Blame, Matcher, Question, Unmanaged, rfc3339};
use crate::discord::audit::action;
use crate::snapshot::Snapshot;
use crate::snapshot::doors::parse_timestamp;

/// Incident actions in force: joins (invites) and DMs paused until a time.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Lockdown {
    /// UTC, RFC 3339; set only while in force.
    pub invites_until: Option<String>,
    /// UTC, RFC 3339; set only while in force.
    pub dms_until: Option<String>,
}

/// `drift --prune-days N`: members a prune of N days would remove (Get Guild Prune Count).
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PruneCount {
    /// The days of inactivity asked about.
    pub days: u8,
    /// `None` when the bot may not ask (it needs manage_guild and kick_members).
    pub members: Option<u64>,
    /// Why the count could not be read, when it could not.
    pub unreadable: Option<String>,
}

/// Asks Discord how many members a prune of `days` would remove (Get Guild Prune
/// Count): a read, nothing is pruned.
pub async fn prune_count(
    client: &crate::discord::Client,
    guild_id: &str,
    days: u8,
) -> Result<PruneCount, crate::discord::ClientError> {
    #[derive(Deserialize)]
    struct Answer {
        pruned: Option<u64>,
    }
    let path = format!("/guilds/{guild_id}/prune?days={days}");
    match client.get::<Answer>(&path).await {
        Ok(a) => Ok(PruneCount {
            days,
            members: a.pruned,
            unreadable: None,
        }),
        Err(crate::discord::ClientError::Api(e)) if e.status.as_u16() == 403 => Ok(PruneCount {
            days,
            members: None,
            unreadable: Some("needs manage_guild and kick_members (Discord answered 403)".into()),
        }),
        Err(e) => Err(e),
    }
}

/// The lockdown in force at `now_ms`, from the guild's `incidents_data`; `None` when
/// neither action is (an end in the past is over).
pub fn lockdown(snap: &Snapshot, now_ms: u64) -> Option<Lockdown> {
    let data = snap.guild.incidents_data.as_ref()?;
    let until = |key: &str| {
        let ms = data
            .get(key)
            .and_then(Value::as_str)
            .and_then(parse_timestamp)?;
        (ms > now_ms).then(|| rfc3339(ms))
    };
    let l = Lockdown {
        invites_until: until("invites_disabled_until"),
        dms_until: until("dms_disabled_until"),
    };
    (l.invites_until.is_some() || l.dms_until.is_some()).then_some(l)
}

/// An integration the manifest does not list, with the question that finds who added it.
pub(super) fn integration(snap: &Snapshot, id: &str, name: &str) -> Option<(Unmanaged, Question)> {
    let i = snap.doors.integration(id)?;
    let bot = i.application.as_ref().and_then(|a| a.bot.as_ref());
    let added = i
        .user
        .as_ref()
        .map(|u| format!("; added by {}", u.username))
        .unwrap_or_default();
    let (high, risk) = match bot {
        None => (false, format!("an app without a bot user{added}")),
        Some(b) => {
            let role = snap.guild.roles.iter().find(|r| {
                r.managed
                    && r.tags
                        .as_ref()
                        .and_then(|t| t.get("bot_id"))
                        .and_then(Value::as_str)
                        == Some(b.id.as_str())
            });
            let bad = role
                .map(|r| r.permissions.dangerous_names())
                .unwrap_or_default();
            match role {
                Some(r) if !bad.is_empty() => (
                    true,
                    format!(
                        "its bot {} holds {} through role {}{added}",
                        b.username,
                        bad.join(", "),
                        r.name
                    ),
                ),
                _ => (
                    false,
                    format!(
                        "its bot {} holds no dangerous permission{added}",
                        b.username
                    ),
                ),
            }
        }
    };
    Some((
        Unmanaged {
            kind: "integration".into(),
            name: name.to_owned(),
            id: id.to_owned(),
            high_risk: high,
            medium_risk: false,
            risk,
            blame: Blame::none(""),
        },
        // INTEGRATION_CREATE names the integration; BOT_ADD names the bot user.
        Question::new(
            &[action::INTEGRATION_CREATE],
            Some(id.to_owned()),
            Matcher::Any,
        ),
    ))
}

/// An invite the rules reject (or cannot judge), with its inviter and uses.
pub(super) fn invite(snap: &Snapshot, code: &str) -> Option<(Unmanaged, Question)> {
    let inv = snap.doors.invite(code)?;
    let by_hand = inv.inviter.as_ref().is_some_and(|u| !u.bot);
    let mut facts = Vec::new();
    facts.push(match &inv.expires_at {
        None => "never expires".to_owned(),
        Some(t) => format!("expires {t}"),
    });
    if let Some(u) = &inv.inviter {
        facts.push(format!("made by {}", u.username));
    }
    match (inv.uses, inv.max_uses) {
        (Some(u), Some(0)) => facts.push(format!("{u} uses, no limit")),
        (Some(u), Some(m)) => facts.push(format!("{u} of {m} uses")),
        _ => facts.push("uses unknown (needs manage_guild)".to_owned()),
    }
    let medium = by_hand && inv.permanent();
    let channel = inv
        .channel_id()
        .and_then(|c| snap.channel(c))
        .map(|c| format!(" into #{}", c.name))
        .unwrap_or_default();
    Some((
        Unmanaged {
            kind: "invite".into(),
            name: format!("{code}{channel}"),
            id: code.to_owned(),
            high_risk: false,
            medium_risk: medium,
            risk: format!(
                "{}not allowed by `invites`: {}",
                if medium { "medium risk, " } else { "" },
                facts.join(", ")
            ),
            blame: Blame::none(""),
        },
        invite_question(code),
    ))
}

/// Who created the invite: INVITE_CREATE entries carry its code among the changes.
pub(super) fn invite_question(code: &str) -> Question {
    Question::new(
        &[action::INVITE_CREATE],
        None,
        Matcher::Key {
            key: "code".into(),
            value: Some(Value::String(code.to_owned())),
        },
    )
}
