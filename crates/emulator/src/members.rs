//! Guild members beyond the one read (`users::get_member`) and the modifications
//! (`member_edit`): the paged listing behind the GUILD_MEMBERS intent, the search, role
//! member counts, giving or taking one role, adding a user with its OAuth2 token, and the
//! kick (reference: "List/Search Guild Members", "Get Guild Role Member Counts",
//! "Add/Remove Guild Member Role", "Add Guild Member", "Remove Guild Member";
//! docs/discord.md §3.4 for the hierarchy, §7.2 for the audit entry).

use std::collections::HashMap;

use axum::extract::{Path, RawQuery, State as AxState};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, digits, guild_for_write, need};
use crate::app::{App, Ctx, JsonBody, R, fired, lock, no_content, ok, query_params};
use crate::audit_log::action::{MEMBER_KICK, MEMBER_ROLE_UPDATE};
use crate::audit_log::{Entry, change};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Reader};
use crate::perms::{bits, can_manage_role, guild_permissions, outranks};
use crate::render;
use crate::state::{Member, MemberDetails};
use crate::time::timestamp;

/// `GET /guilds/{g}/members?limit&after`: members by ascending user id, `limit` 1–1000
/// (default 1), after the user id `after` (default 0). Needs the GUILD_MEMBERS intent
/// (reference, "Authentication" 3): without it, 403 50001 as Discord answers.
pub async fn list_members(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    if !st.config.guild_members_intent {
        return Err(ApiError::missing_access());
    }
    let obj: Map<String, Value> = query_params(q)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let limit = r.int_range("limit", 1, 1000).set().unwrap_or(1) as usize;
    let after = r
        .snowflake("after")
        .set()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    errs.check()?;
    let g = &st.guilds[gi];
    let mut page: Vec<(u64, usize)> = g
        .members
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.user_id.parse::<u64>().ok().map(|id| (id, i)))
        .filter(|(id, _)| *id > after)
        .collect();
    page.sort_unstable();
    page.truncate(limit);
    let out: Vec<Value> = page
        .into_iter()
        .filter_map(|(_, i)| {
            let m = &g.members[i];
            st.user(&m.user_id)
                .map(|u| render::member(m, u, g.member_details.get(&m.user_id)))
        })
        .collect();
    ok(Value::Array(out))
}

/// `GET /guilds/{g}/roles/member-counts`: role id → members holding it, @everyone left
/// out (reference). Every other role is listed, with 0 when nobody holds it.
pub async fn role_member_counts(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let mut counts: HashMap<&str, u64> = g
        .roles
        .iter()
        .filter(|r| r.id != g.id)
        .map(|r| (r.id.as_str(), 0))
        .collect();
    for m in &g.members {
        for rid in &m.roles {
            if let Some(n) = counts.get_mut(rid.as_str()) {
                *n += 1;
            }
        }
    }
    let out: Map<String, Value> = counts
        .into_iter()
        .map(|(id, n)| (id.to_owned(), json!(n)))
        .collect();
    ok(Value::Object(out))
}

pub async fn add_member_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, uid, rid)): Path<(String, String, String)>,
) -> R {
    member_role(app, ctx, gid, uid, rid, true)
}

pub async fn remove_member_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, uid, rid)): Path<(String, String, String)>,
) -> R {
    member_role(app, ctx, gid, uid, rid, false)
}

/// Gives (`add`) or takes one role. MANAGE_ROLES, then the member (10007), the role
/// (10011); @everyone and managed roles cannot be given or taken (400 50028); the role must
/// sit strictly below the caller's highest role unless the caller owns the guild (403 50013,
/// §3.4). Giving a role held, or taking one not held, changes nothing and logs nothing.
fn member_role(app: App, ctx: Ctx, gid: String, uid: String, rid: String, add: bool) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_ROLES)?;
    digits(&uid)?;
    digits(&rid)?;
    let mi = g
        .members
        .iter()
        .position(|m| m.user_id == uid)
        .ok_or_else(ApiError::unknown_member)?;
    let role = g.role(&rid).ok_or_else(ApiError::unknown_role)?;
    if role.id == g.id || role.managed {
        return Err(ApiError::invalid_role());
    }
    if !can_manage_role(g, actor, role) {
        return Err(ApiError::missing_permissions());
    }
    let entry = json!([{ "id": role.id, "name": role.name }]);
    let held = g.members[mi].roles.contains(&rid);
    if held == add {
        return no_content();
    }
    let roles = &mut g.members[mi].roles;
    let key = if add {
        roles.push(rid.clone());
        "$add"
    } else {
        roles.retain(|r| *r != rid);
        "$remove"
    };
    Entry::on(MEMBER_ROLE_UPDATE, &uid)
        .changes(vec![change(key, Value::Null, entry)])
        .by(actor, ctx.reason.as_deref())
        .record(g, snowflake);
    let updated = events::member(events::GUILD_MEMBER_UPDATE, &st, &gid, &uid);
    fired(no_content(), [updated])
}

/// `GET /guilds/{g}/members/search?query&limit`: members whose username or nickname
/// starts with `query` (1–100 characters, case ignored), by ascending user id, `limit`
/// 1–1000 (default 1).
pub async fn search_members(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let obj: Map<String, Value> = query_params(q)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let query = r.string_len("query", 1, 100);
    let query = r.require("query", query);
    let limit = r.int_range("limit", 1, 1000).set().unwrap_or(1) as usize;
    errs.check()?;
    let query = query.unwrap_or_default().to_lowercase();
    let g = &st.guilds[gi];
    let mut found: Vec<(u64, Value)> = g
        .members
        .iter()
        .filter_map(|m| {
            let u = st.user(&m.user_id)?;
            let names = [Some(u.username.as_str()), m.nick.as_deref()];
            names
                .into_iter()
                .flatten()
                .any(|n| n.to_lowercase().starts_with(&query))
                .then(|| {
                    let id = m.user_id.parse::<u64>().unwrap_or(u64::MAX);
                    (id, render::member(m, u, g.member_details.get(&m.user_id)))
                })
        })
        .collect();
    found.sort_by_key(|(id, _)| *id);
    found.truncate(limit);
    ok(Value::Array(found.into_iter().map(|(_, v)| v).collect()))
}

/// Error of an `access_token` that does not let the bot's application add this user
/// (unknown, another user's, another application's, or without `guilds.join`).
fn invalid_oauth2_token() -> ApiError {
    ApiError::bad_request(50025, "Invalid OAuth2 access token")
}

/// `PUT /guilds/{g}/members/{u}` (Add Guild Member): the bot in the guild with
/// CREATE_INSTANT_INVITE and `access_token`, the user's OAuth2 token with `guilds.join`
/// granted to the bot's application (reference, Authentication 2). 201 with the new
/// member; 204 when the user is already one (the body is then ignored). `nick`, `roles`,
/// `mute` and `deaf` need MANAGE_NICKNAMES, MANAGE_ROLES, MUTE_MEMBERS and
/// DEAFEN_MEMBERS. A banned user is refused (403 40007). Pending in a guild with
/// membership screening.
pub async fn add_member(
    call: InGuild,
    Path((_, uid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    digits(&uid)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let token = r.string_len("access_token", 1, 10_240);
    let token = r.require("access_token", token);
    let nick = crate::member_edit::read_nick(&mut r);
    let roles = r.snowflakes("roles", 250).set();
    let mute = r.boolean("mute").set();
    let deaf = r.boolean("deaf").set();
    errs.check()?;
    let caller_app = st.application_id(actor);
    let bot_app = st.application_id(&st.bot_user_id);
    let granted = st.user_tokens.iter().any(|t| {
        let to = if t.application_id.is_empty() {
            bot_app.as_str()
        } else {
            t.application_id.as_str()
        };
        token.as_deref() == Some(t.token.as_str())
            && t.user_id == uid
            && to == caller_app
            && t.scopes.iter().any(|s| s == "guilds.join")
    });
    let known = st.user(&uid).is_some();
    let now = st.now_ms();
    let (g, _) = guild_for_write(&mut st, &call.gid, actor, bits::CREATE_INSTANT_INVITE)?;
    if !known {
        return Err(ApiError::unknown_user());
    }
    if g.member(&uid).is_some() {
        return no_content();
    }
    if !granted {
        return Err(invalid_oauth2_token());
    }
    if g.bans.iter().any(|b| b.user_id == uid) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            40007,
            "The user is banned from this guild.",
        ));
    }
    let p = guild_permissions(g, actor);
    if matches!(nick, Some(Some(_))) {
        need(p, bits::MANAGE_NICKNAMES)?;
    }
    if mute == Some(true) {
        need(p, bits::MUTE_MEMBERS)?;
    }
    if deaf == Some(true) {
        need(p, bits::DEAFEN_MEMBERS)?;
    }
    let roles = roles.unwrap_or_default();
    if !roles.is_empty() {
        need(p, Permissions::MANAGE_ROLES)?;
        for rid in &roles {
            let role = g.role(rid).ok_or_else(ApiError::unknown_role)?;
            if role.id == g.id || role.managed {
                return Err(ApiError::invalid_role());
            }
            if !can_manage_role(g, actor, role) {
                return Err(ApiError::missing_permissions());
            }
        }
    }
    let member = Member {
        user_id: uid.clone(),
        roles,
        nick: nick.flatten(),
        joined_at: timestamp(now),
    };
    let details = MemberDetails {
        mute: mute.unwrap_or(false),
        deaf: deaf.unwrap_or(false),
        // Membership screening holds a new member back until it passes (reference, States).
        pending: g.has_feature("MEMBER_VERIFICATION_GATE_ENABLED"),
        ..MemberDetails::default()
    };
    g.members.push(member);
    if details != MemberDetails::default() {
        g.member_details.insert(uid.clone(), details);
    }
    let g = st.guild(&call.gid).ok_or_else(ApiError::unknown_guild)?;
    let shown = match (g.member(&uid), st.user(&uid)) {
        (Some(m), Some(u)) => render::member(m, u, g.member_details.get(&uid)),
        _ => return Err(ApiError::unknown_member()),
    };
    let added = events::member(events::GUILD_MEMBER_ADD, &st, &call.gid, &uid);
    fired(
        Ok((StatusCode::CREATED, axum::Json(shown)).into_response()),
        [added],
    )
}

/// `DELETE /guilds/{g}/members/{u}` (Remove Guild Member, a kick): KICK_MEMBERS; the
/// member must rank below the caller (never the owner, nor the caller itself: 403
/// 50013); 404 10007 when not a member. 204; MEMBER_KICK (20) with the reason; the
/// member's voice state and details go with it.
pub async fn remove_member(call: InGuild, Path((_, uid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::KICK_MEMBERS)?;
    digits(&uid)?;
    if g.member(&uid).is_none() {
        return Err(ApiError::unknown_member());
    }
    if uid == actor || !outranks(g, actor, &uid) {
        return Err(ApiError::missing_permissions());
    }
    g.remove_member(&uid);
    Entry::on(MEMBER_KICK, &uid)
        .by(actor, call.reason())
        .record(g, snowflake);
    let removed = events::user(events::GUILD_MEMBER_REMOVE, &st, &call.gid, &uid);
    fired(no_content(), [removed])
}
