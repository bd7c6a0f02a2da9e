//! Bans: list (paged by user id), get, create, remove, and the bulk ban (reference: "Get
//! Guild Bans", "Get/Create/Remove Guild Ban", "Bulk Guild Ban", and its Errors and Limits
//! tables). Every ban and unban is audited (MEMBER_BAN_ADD 22, MEMBER_BAN_REMOVE 23) with the
//! request's reason, which is also the ban's `reason`.

use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, digits, guild_for_write, need};
use crate::app::{JsonBody, R, fired, no_content, ok, query_params};
use crate::audit_log::Entry;
use crate::audit_log::action::{MEMBER_BAN_ADD, MEMBER_BAN_REMOVE};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Reader};
use crate::perms::{guild_permissions, highest_rank, is_owner};
use crate::render;
use crate::state::{Ban, Guild, SnowflakeGen, State, User};

/// Users one bulk ban may name (reference, Limits).
const BULK_MAX: usize = 200;

fn unknown_ban() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, 10026, "Unknown Ban")
}

/// The reference gives the code (500000) without a status; 400, as for other refusals of
/// a body Discord cannot act on.
fn failed_to_ban() -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, 500_000, "Failed to ban users")
}

fn render_ban(st: &State, b: &Ban) -> Value {
    let user = match st.user(&b.user_id) {
        Some(u) => render::user(u),
        // A state file may ban an id it has no user for: shown with the id alone.
        None => render::user(&User {
            id: b.user_id.clone(),
            ..User::default()
        }),
    };
    json!({ "user": user, "reason": b.reason })
}

fn query(q: Option<String>) -> Map<String, Value> {
    query_params(q)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect()
}

/// `GET /guilds/{g}/bans?limit&before&after`: BAN_MEMBERS; ascending user id, `limit` up to
/// 1000 (default 1000); with both `before` and `after`, only `before` counts: then the
/// `limit` bans just below it.
pub async fn list_bans(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::BAN_MEMBERS)?;
    let obj = query(q);
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let limit = r.int_range("limit", 1, 1000).set().unwrap_or(1000) as usize;
    let id = |s: String| s.parse::<u64>().ok();
    let before = r.snowflake("before").set().and_then(id);
    let after = r.snowflake("after").set().and_then(id);
    errs.check()?;
    let mut ids: Vec<(u64, usize)> = g
        .bans
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.user_id.parse::<u64>().ok().map(|u| (u, i)))
        .collect();
    ids.sort_unstable();
    let page: Vec<(u64, usize)> = match (before, after) {
        (Some(before), _) => {
            let below: Vec<_> = ids.into_iter().filter(|(u, _)| *u < before).collect();
            let skip = below.len().saturating_sub(limit);
            below.into_iter().skip(skip).collect()
        }
        (None, after) => ids
            .into_iter()
            .filter(|(u, _)| *u > after.unwrap_or(0))
            .take(limit)
            .collect(),
    };
    let out: Vec<Value> = page
        .into_iter()
        .map(|(_, i)| render_ban(&st, &g.bans[i]))
        .collect();
    ok(Value::Array(out))
}

pub async fn get_ban(call: InGuild, Path((_, uid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::BAN_MEMBERS)?;
    digits(&uid)?;
    let b = g
        .bans
        .iter()
        .find(|b| b.user_id == uid)
        .ok_or_else(unknown_ban)?;
    ok(render_ban(&st, b))
}

/// Why `actor` may not ban `uid` now, if it may not: the user does not exist (10013), owns
/// the guild, or is a member whose highest role is not below the caller's (403 50013,
/// §3.4); already banned is `Ok(false)`.
fn may_ban(g: &Guild, known: bool, banned: bool, actor: &str, uid: &str) -> Result<bool, ApiError> {
    if !known {
        return Err(ApiError::unknown_user());
    }
    if banned {
        return Ok(false);
    }
    let outranked = g.member(uid).is_some()
        && !is_owner(g, actor)
        && highest_rank(g, uid) >= highest_rank(g, actor);
    if is_owner(g, uid) || uid == actor || outranked {
        return Err(ApiError::missing_permissions());
    }
    Ok(true)
}

/// Bans `uid`: a member leaves the guild; audited with the reason, which the ban keeps.
fn ban(g: &mut Guild, snow: &mut SnowflakeGen, actor: &str, reason: Option<&str>, uid: &str) {
    g.remove_member(uid);
    g.bans.push(Ban {
        user_id: uid.to_owned(),
        reason: reason.map(str::to_owned),
    });
    Entry::on(MEMBER_BAN_ADD, uid)
        .by(actor, reason)
        .record(g, snow);
}

/// `delete_message_seconds` 0–604800 and the deprecated `delete_message_days` 0–7: read and
/// checked; the emulator keeps no messages to delete.
fn read_delete_window(obj: &Map<String, Value>, r: &mut Reader<'_>, days: bool) {
    r.int_range("delete_message_seconds", 0, 604_800);
    if days && obj.contains_key("delete_message_days") {
        r.int_range("delete_message_days", 0, 7);
    }
}

/// `PUT /guilds/{g}/bans/{u}`: BAN_MEMBERS; 204. Banning a banned user changes nothing.
pub async fn put_ban(
    call: InGuild,
    Path((_, uid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    digits(&uid)?;
    let known = st.user(&uid).is_some();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::BAN_MEMBERS)?;
    let obj = if body.is_null() {
        Map::new()
    } else {
        form::object(&body)?
    };
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    read_delete_window(&obj, &mut r, true);
    errs.check()?;
    let banned = g.bans.iter().any(|b| b.user_id == uid);
    if may_ban(g, known, banned, actor, &uid)? {
        ban(g, snowflake, actor, call.reason(), &uid);
        let banned = events::user(events::GUILD_BAN_ADD, &st, &call.gid, &uid);
        return fired(no_content(), [banned]);
    }
    no_content()
}

/// `DELETE /guilds/{g}/bans/{u}`: BAN_MEMBERS; 404 10026 when not banned.
pub async fn delete_ban(call: InGuild, Path((_, uid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::BAN_MEMBERS)?;
    digits(&uid)?;
    let i = g
        .bans
        .iter()
        .position(|b| b.user_id == uid)
        .ok_or_else(unknown_ban)?;
    g.bans.remove(i);
    Entry::on(MEMBER_BAN_REMOVE, &uid)
        .by(actor, call.reason())
        .record(g, snowflake);
    let unbanned = events::user(events::GUILD_BAN_REMOVE, &st, &call.gid, &uid);
    fired(no_content(), [unbanned])
}

/// `POST /guilds/{g}/bulk-ban`: BAN_MEMBERS and MANAGE_GUILD; `user_ids` (≤200, required).
/// 200 `{banned_users, failed_users}`, failed including the users already banned and those
/// that could not be banned; 500000 when nobody could be banned.
pub async fn bulk_ban(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let ids = r.snowflakes("user_ids", BULK_MAX);
    let ids = r.require("user_ids", ids);
    read_delete_window(&obj, &mut r, false);
    errs.check()?;
    let ids = ids.unwrap_or_default();
    let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    let users: std::collections::HashSet<&str> = st
        .users
        .iter()
        .map(|u| u.id.as_str())
        .filter(|id| wanted.contains(id))
        .collect();
    let known: Vec<bool> = ids.iter().map(|u| users.contains(u.as_str())).collect();
    let (g, snowflake) = guild_for_write(
        &mut st,
        &call.gid,
        actor,
        Permissions::BAN_MEMBERS | Permissions::MANAGE_GUILD,
    )?;
    // A set, not a scan per user: a guild may hold hundreds of thousands of bans.
    let mut already: std::collections::HashSet<String> =
        g.bans.iter().map(|b| b.user_id.clone()).collect();
    let (mut banned, mut failed) = (Vec::new(), Vec::new());
    for (uid, known) in ids.iter().zip(known) {
        if matches!(
            may_ban(g, known, already.contains(uid), actor, uid),
            Ok(true)
        ) {
            already.insert(uid.clone());
            ban(g, snowflake, actor, call.reason(), uid);
            banned.push(uid.clone());
        } else {
            failed.push(uid.clone());
        }
    }
    if banned.is_empty() {
        return Err(failed_to_ban());
    }
    let fires: Vec<_> = banned
        .iter()
        .map(|uid| events::user(events::GUILD_BAN_ADD, &st, &call.gid, uid))
        .collect();
    fired(
        ok(json!({ "banned_users": banned, "failed_users": failed })),
        fires,
    )
}
