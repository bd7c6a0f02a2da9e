//! Incident actions (the reference's Incidents Data and Modify Guild Incident
//! Actions): pausing invites (joins) and direct messages for a while.
//!
//! The reference does not mark the route as taking `X-Audit-Log-Reason` and names no
//! audit action for it, so the emulator records none; the request log keeps the
//! reason a client sends. A body key left out keeps its current value; `null` lifts
//! the action. Times are wall-clock, like Discord's.

use serde_json::{Value, json};

use super::error::FieldErrors;
use super::form::{self, Field, Reader};
use crate::access::{InGuild, guild_for_write};
use crate::app::{JsonBody, R, ok};
use crate::time::{parse_timestamp, timestamp};
use discord_permissions::Permissions;

/// Each action may end at most this far ahead (reference, Limits).
pub const MAX_AHEAD_MS: u64 = 24 * 3_600_000;

const KEYS: [&str; 2] = ["invites_disabled_until", "dms_disabled_until"];

/// The incidents data as returned: both actions always present.
pub fn incidents_json(data: Option<&Value>) -> Value {
    let get = |k: &str| data.and_then(|d| d.get(k)).cloned().unwrap_or(Value::Null);
    json!({
        "invites_disabled_until": get("invites_disabled_until"),
        "dms_disabled_until": get("dms_disabled_until"),
        "dm_spam_detected_at": get("dm_spam_detected_at"),
        "raid_detected_at": get("raid_detected_at"),
    })
}

/// `PUT /guilds/{g}/incident-actions`: MANAGE_GUILD → 200 with the incidents data.
pub async fn put_incident_actions(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let now = st.now_ms();
    let (g, _) = guild_for_write(&mut st, &call.gid, &call.actor, Permissions::MANAGE_GUILD)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let mut data = incidents_json(g.incidents_data.as_ref());
    for key in KEYS {
        match r.string(key) {
            Field::Absent => {}
            Field::Null => data[key] = Value::Null,
            Field::Set(s) => match parse_timestamp(&s) {
                None => r.err(
                    key,
                    "DATE_TIME_TYPE_PARSE",
                    &format!("Could not parse {s}. Should be ISO8601."),
                ),
                // Unverified wording: the reference states the limit, not the error.
                Some(ms) if ms > now + MAX_AHEAD_MS => r.err(
                    key,
                    "BASE_TYPE_BAD_TIMESTAMP",
                    "Must be at most 24 hours in the future.",
                ),
                Some(ms) => data[key] = json!(timestamp(ms)),
            },
        }
    }
    errs.check()?;
    g.incidents_data = Some(data.clone());
    ok(json!({
        "invites_disabled_until": data["invites_disabled_until"],
        "dms_disabled_until": data["dms_disabled_until"],
    }))
}
