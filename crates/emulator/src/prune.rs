//! Pruning: Get Guild Prune Count and Begin Guild Prune (reference, "Get Guild Prune
//! Count", "Begin Guild Prune"). Both need MANAGE_GUILD and KICK_MEMBERS and count the
//! same members: inactive for `days` (1–30, default 7), and without roles unless every
//! role they hold is in `include_roles`. The emulator knows no activity: a member counts
//! as inactive since it joined. The owner and bots are never pruned.

use axum::extract::RawQuery;
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, guild_for_write, need};
use crate::app::{JsonBody, R, fired, ok, query_params};
use crate::audit_log::action::MEMBER_PRUNE;
use crate::audit_log::{Entry, string_options};
use crate::error::FieldErrors;
use crate::events;
use crate::form::{self, Field, Reader};
use crate::perms::{guild_permissions, is_owner};
use crate::state::{Guild, State};
use crate::time::parse_timestamp;

const DAY_MS: u64 = 86_400_000;

/// The user ids a prune of `days` with `include` would remove.
fn prunable(st: &State, g: &Guild, days: u64, include: &[String]) -> Vec<String> {
    let cutoff = st.now_ms().saturating_sub(days * DAY_MS);
    g.members
        .iter()
        .filter(|m| !is_owner(g, &m.user_id))
        .filter(|m| !st.user(&m.user_id).is_some_and(|u| u.bot))
        .filter(|m| m.roles.iter().all(|r| include.contains(r)))
        .filter(|m| parse_timestamp(&m.joined_at).is_some_and(|j| j < cutoff))
        .map(|m| m.user_id.clone())
        .collect()
}

/// `include_roles` as a list of snowflakes, or one string of ids separated by commas
/// (discord.py sends `"id1, id2"`; the OpenAPI allows either), at most 100.
fn read_include_roles(r: &mut Reader) -> Vec<String> {
    let items: Vec<Value> = match r.obj.get("include_roles") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| Value::String(p.to_owned()))
            .collect(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => {
            r.err(
                "include_roles",
                "LIST_TYPE_CONVERT",
                "Only iterables may be used in a ListType",
            );
            return Vec::new();
        }
    };
    let list = Map::from_iter([("include_roles".to_owned(), Value::Array(items))]);
    let mut errs = FieldErrors::default();
    let ids = Reader::new(&list, &mut errs)
        .snowflakes("include_roles", 100)
        .set()
        .unwrap_or_default();
    if !errs.is_empty() {
        r.err(
            "include_roles",
            "NUMBER_TYPE_COERCE",
            "Value is not a list of snowflakes.",
        );
    }
    ids
}

/// `days`: 1–30, default 7.
fn read_days(r: &mut Reader) -> u64 {
    r.int_range("days", 1, 30).set().unwrap_or(7) as u64
}

/// `GET /guilds/{g}/prune?days&include_roles=a,b` → `{pruned}`.
pub async fn get_prune_count(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let p = guild_permissions(g, &call.actor);
    need(p, Permissions::MANAGE_GUILD)?;
    need(p, Permissions::KICK_MEMBERS)?;
    let obj: Map<String, Value> = query_params(q)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let days = read_days(&mut r);
    let include = read_include_roles(&mut r);
    errs.check()?;
    ok(json!({ "pruned": prunable(&st, g, days, &include).len() }))
}

/// `compute_prune_count`: a boolean, or the strings `"true"`/`"false"` discord.py sends;
/// default true.
fn read_compute(r: &mut Reader) -> bool {
    match r.obj.get("compute_prune_count") {
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                r.err(
                    "compute_prune_count",
                    "BASE_TYPE_BOOLEAN",
                    "Must be either true or false.",
                );
                true
            }
        },
        _ => r.boolean("compute_prune_count").set().unwrap_or(true),
    }
}

/// `POST /guilds/{g}/prune` (Begin Guild Prune), parameters in the body or the query:
/// removes the members the count names;
/// 200 `{pruned}`, null when `compute_prune_count` is false. MEMBER_PRUNE (21) with
/// `delete_member_days` and `members_removed`, the reason from the header (or the
/// deprecated body `reason`); one Guild Member Remove per member.
pub async fn begin_prune(call: InGuild, RawQuery(q): RawQuery, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let mut obj = form::object(&body)?;
    // twilight sends the parameters in the query string, as the count takes them;
    // Discord reads them there too. A body field wins over the query's.
    for (k, v) in query_params(q) {
        obj.entry(k).or_insert(Value::String(v));
    }
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let days = read_days(&mut r);
    let compute = read_compute(&mut r);
    let include = read_include_roles(&mut r);
    let body_reason = match r.string_len("reason", 1, 512) {
        Field::Set(s) => Some(s),
        _ => None,
    };
    errs.check()?;
    let gi = call.index(&st)?;
    let gone = prunable(&st, &st.guilds[gi], days, &include);
    let (g, snowflake) = guild_for_write(
        &mut st,
        &call.gid,
        actor,
        Permissions::MANAGE_GUILD | Permissions::KICK_MEMBERS,
    )?;
    for uid in &gone {
        g.remove_member(uid);
    }
    let reason = call.reason.clone().or(body_reason);
    Entry::untargeted(MEMBER_PRUNE)
        .options(string_options(&[
            ("delete_member_days", days.to_string()),
            ("members_removed", gone.len().to_string()),
        ]))
        .by(actor, reason.as_deref())
        .record(g, snowflake);
    let pruned = if compute {
        json!(gone.len())
    } else {
        Value::Null
    };
    let removed: Vec<_> = gone
        .iter()
        .map(|uid| events::user(events::GUILD_MEMBER_REMOVE, &st, &call.gid, uid))
        .collect();
    fired(ok(json!({ "pruned": pruned })), removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_roles_is_a_list_or_one_comma_separated_string() {
        let obj = json!({"include_roles": "123, 456,789"});
        let obj = obj.as_object().unwrap();
        let mut errs = FieldErrors::default();
        let mut r = Reader::new(obj, &mut errs);
        assert_eq!(read_include_roles(&mut r), ["123", "456", "789"]);
        let obj = json!({"include_roles": ["1", 2]});
        let obj = obj.as_object().unwrap();
        let mut r = Reader::new(obj, &mut errs);
        assert_eq!(read_include_roles(&mut r), ["1", "2"]);
        assert!(errs.is_empty());
        let obj = json!({"include_roles": "1, x"});
        let obj = obj.as_object().unwrap();
        let mut r = Reader::new(obj, &mut errs);
        read_include_roles(&mut r);
        assert!(!errs.is_empty());
    }
}
