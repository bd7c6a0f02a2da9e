//! `guildctl lockdown`: pausing joins (invites) and direct messages through Modify Guild
//! Incident Actions, for at most 24 hours as Discord allows, and lifting them.

use serde_json::{Value, json};

use crate::discord::{Client, ClientError};

/// Discord takes each end at most this far ahead.
pub const MAX_HOURS: u64 = 24;

#[derive(Debug, thiserror::Error)]
pub enum LockdownError {
    #[error(
        "`{0}` is not a duration: write a number with s, m, h or d (`6h`, `90m`), at most {MAX_HOURS}h"
    )]
    BadDuration(String),
    #[error(
        "`{0}` is more than Discord allows: incident actions end at most {MAX_HOURS} hours ahead"
    )]
    TooLong(String),
    #[error("say what to pause (--invites DURATION, --dms DURATION) or --lift")]
    Nothing,
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// What to do: pause each action for so many seconds, or lift both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Pause {
        invites_secs: Option<u64>,
        dms_secs: Option<u64>,
    },
    Lift,
}

/// `6h`, `90m`, `3600s`, `1d` as seconds; refused above 24 hours.
pub fn parse_duration(s: &str) -> Result<u64, LockdownError> {
    let bad = || LockdownError::BadDuration(s.to_owned());
    let secs = crate::discord::time::duration_secs(s).ok_or_else(bad)?;
    if secs == 0 {
        return Err(bad());
    }
    if secs > MAX_HOURS * 3600 {
        return Err(LockdownError::TooLong(s.to_owned()));
    }
    Ok(secs)
}

/// The body of the call: each paused action's end (RFC 3339, from `now_ms`), or `null`
/// for both to lift. An action not named keeps its current state.
pub fn body(action: &Action, now_ms: u64) -> Result<Value, LockdownError> {
    let at = |secs: u64| json!(crate::discord::time::rfc3339(now_ms + secs * 1000));
    match action {
        Action::Lift => Ok(json!({"invites_disabled_until": null, "dms_disabled_until": null})),
        Action::Pause {
            invites_secs: None,
            dms_secs: None,
        } => Err(LockdownError::Nothing),
        Action::Pause {
            invites_secs,
            dms_secs,
        } => {
            let mut m = serde_json::Map::new();
            if let Some(s) = invites_secs {
                m.insert("invites_disabled_until".into(), at(*s));
            }
            if let Some(s) = dms_secs {
                m.insert("dms_disabled_until".into(), at(*s));
            }
            Ok(Value::Object(m))
        }
    }
}

/// Sends the incident actions with `reason` as the audit-log reason, as apply does; returns
/// the incidents data Discord answers with.
pub async fn run(
    client: &Client,
    guild_id: &str,
    action: &Action,
    reason: &str,
    now_ms: u64,
) -> Result<Value, LockdownError> {
    let body = body(action, now_ms)?;
    let route = crate::discord::Route::UpdateIncidentActions {
        guild: guild_id.to_owned(),
    };
    let answer = client.call(&route, Some(&body), Some(reason)).await?;
    Ok(answer.unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_and_capped_at_24_hours() {
        assert_eq!(parse_duration("6h").unwrap(), 21_600);
        assert_eq!(parse_duration("90m").unwrap(), 5_400);
        assert_eq!(parse_duration("1d").unwrap(), 86_400);
        assert!(matches!(
            parse_duration("25h"),
            Err(LockdownError::TooLong(_))
        ));
        for bad in [
            "",
            "6",
            "h",
            "0h",
            "6 hours",
            "-1h",
            "99999999999999999999h",
        ] {
            assert!(
                matches!(parse_duration(bad), Err(LockdownError::BadDuration(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn lifting_sends_null_for_both_and_pausing_only_what_is_named() {
        assert_eq!(
            body(&Action::Lift, 0).unwrap(),
            json!({"invites_disabled_until": null, "dms_disabled_until": null})
        );
        let b = body(
            &Action::Pause {
                invites_secs: Some(3600),
                dms_secs: None,
            },
            0,
        )
        .unwrap();
        assert_eq!(b, json!({"invites_disabled_until": "1970-01-01T01:00:00Z"}));
        assert!(matches!(
            body(
                &Action::Pause {
                    invites_secs: None,
                    dms_secs: None
                },
                0
            ),
            Err(LockdownError::Nothing)
        ));
    }
}
