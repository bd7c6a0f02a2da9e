//! Guild members beyond the one read (`users::get_member`): the paged listing behind the
//! GUILD_MEMBERS intent, role member counts, and giving or taking one role
//! (reference: "List Guild Members", "Get Guild Role Member Counts", "Add/Remove Guild
//! Member Role"; discord-behaviour.md §3.4 for the hierarchy, §7.2 for the audit entry).

use std::collections::HashMap;

use axum::extract::{Path, RawQuery, State as AxState};
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{digits, guild_for_write, guild_idx};
use crate::app::{App, Ctx, R, fired, lock, no_content, ok, query_params};
use crate::events;
use crate::audit_log::{audit, change};
use crate::error::{ApiError, FieldErrors};
use crate::form::Reader;
use crate::perms::can_manage_role;
use crate::render;

/// MEMBER_ROLE_UPDATE (§7.2).
const MEMBER_ROLE_UPDATE: u32 = 25;

/// `GET /guilds/{g}/members?limit&after`: members by ascending user id, `limit` 1–1000
/// (default 1), after the user id `after` (default 0). Needs the GUILD_MEMBERS intent
/// (reference, "Authentication" 3): without it, 403 50001 as Discord answers.
pub async fn list_members(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
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
            st.user(&m.user_id).map(|u| render::member(m, u))
        })
        .collect();
    ok(Value::Array(out))
}

/// `GET /guilds/{g}/roles/member-counts`: role id → members holding it, @everyone left
/// out (reference). Every other role is listed, with 0 when nobody holds it.
pub async fn role_member_counts(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
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
    audit(
        g,
        snowflake,
        actor,
        ctx.reason.as_deref(),
        MEMBER_ROLE_UPDATE,
        &uid,
        vec![change(key, Value::Null, entry)],
        None,
    );
    fired(no_content(), [events::GUILD_MEMBER_UPDATE])
}
