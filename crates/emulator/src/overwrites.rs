//! Permission overwrites: reading them from a body, the grant rule, their
//! audit entries, and `PUT`/`DELETE /channels/{c}/permissions/{o}` (§4.4).

use axum::extract::{Path, State as AxState};
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{channel_loc, digits, need_in_channel};
use crate::app::{App, Ctx, JsonBody, R, fired, lock, no_content};
use crate::audit_log::action::{
    CHANNEL_OVERWRITE_CREATE, CHANNEL_OVERWRITE_DELETE, CHANNEL_OVERWRITE_UPDATE,
};
use crate::audit_log::{Entry, change, diff};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader};
use crate::perms::{guild_permissions, is_admin, same_overwrites};
use crate::state::{Guild, Overwrite, SnowflakeGen, State};

pub(crate) fn read_overwrites(r: &mut Reader, key: &str) -> Option<Vec<Overwrite>> {
    let list = r.array(key);
    let list = match list {
        Field::Set(l) => l,
        Field::Null => return Some(Vec::new()),
        Field::Absent => return None,
    };
    let mut out: Vec<Overwrite> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let path = vec![key.to_owned(), i.to_string()];
        let Some(mut sub) = form::item(&mut *r.errs, path, item) else {
            continue;
        };
        let id = sub.snowflake("id");
        let kind = sub.int_choice("type", &[0, 1], "(0, 1)");
        let allow = sub.permissions("allow").set().unwrap_or_default();
        let deny = sub.permissions("deny").set().unwrap_or_default();
        let (Field::Set(id), Field::Set(kind)) = (&id, &kind) else {
            if !matches!(id, Field::Set(_)) && !sub.obj.contains_key("id") {
                sub.required("id");
            }
            if !matches!(kind, Field::Set(_)) && !sub.obj.contains_key("type") {
                sub.required("type");
            }
            continue;
        };
        // A repeated id: the later entry wins, as for a map.
        out.retain(|o| o.id != *id);
        out.push(Overwrite {
            id: id.clone(),
            kind: *kind as u8,
            allow,
            deny,
        });
    }
    Some(out)
}

/// Overwrites may only carry bits the caller has in the guild, and
/// MANAGE_ROLES only for administrators (§4.4). Only new or changed entries
/// are checked.
pub(crate) fn check_overwrite_grants(
    g: &Guild,
    actor: &str,
    old: &[Overwrite],
    new: &[Overwrite],
) -> Result<(), ApiError> {
    if is_admin(g, actor) {
        return Ok(());
    }
    let mine = guild_permissions(g, actor);
    for o in new {
        if old.contains(o) {
            continue;
        }
        let bits = o.allow.0 | o.deny.0;
        if bits & Permissions::MANAGE_ROLES.0 != 0 || bits & !mine.0 != 0 {
            return Err(ApiError::missing_permissions());
        }
    }
    Ok(())
}

pub(crate) fn overwrite_options(g: &Guild, o: &Overwrite) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("id".into(), json!(o.id));
    // Audit-log options carry the type as a string (§4.4).
    m.insert("type".into(), json!(o.kind.to_string()));
    if o.kind == 0
        && let Some(r) = g.role(&o.id)
    {
        m.insert("role_name".into(), json!(r.name));
    }
    m
}

/// Audit entries 13/14/15 for the difference between two overwrite sets.
pub(crate) fn log_overwrite_diff(
    g: &mut Guild,
    snow: &mut SnowflakeGen,
    actor: &str,
    reason: Option<&str>,
    cid: &str,
    old: &[Overwrite],
    new: &[Overwrite],
) {
    let mut entries = Vec::new();
    for n in new {
        match old.iter().find(|o| o.id == n.id) {
            None => entries.push((
                CHANNEL_OVERWRITE_CREATE,
                vec![
                    change("id", Value::Null, json!(n.id)),
                    change("type", Value::Null, json!(n.kind)),
                    change("allow", Value::Null, json!(n.allow)),
                    change("deny", Value::Null, json!(n.deny)),
                ],
                overwrite_options(g, n),
            )),
            Some(o) if o != n => {
                let mut ch = Vec::new();
                diff(&mut ch, "allow", json!(o.allow), json!(n.allow));
                diff(&mut ch, "deny", json!(o.deny), json!(n.deny));
                entries.push((CHANNEL_OVERWRITE_UPDATE, ch, overwrite_options(g, n)));
            }
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|n| n.id == o.id) {
            entries.push((
                CHANNEL_OVERWRITE_DELETE,
                vec![
                    change("id", json!(o.id), Value::Null),
                    change("type", json!(o.kind), Value::Null),
                    change("allow", json!(o.allow), Value::Null),
                    change("deny", json!(o.deny), Value::Null),
                ],
                overwrite_options(g, o),
            ));
        }
    }
    for (action, ch, opts) in entries {
        Entry::on(action, cid)
            .changes(ch)
            .options(opts)
            .by(actor, reason)
            .record(g, snow);
    }
}

/// Sets a channel's overwrites; for a category, children that were synced
/// with it follow (§4.5).
pub(crate) fn set_overwrites(g: &mut Guild, ci: usize, new: Vec<Overwrite>) {
    let (cid, kind) = (g.channels[ci].id.clone(), g.channels[ci].kind);
    if kind == 4 {
        let old = g.channels[ci].permission_overwrites.clone();
        for c in g.channels.iter_mut() {
            if c.parent_id.as_deref() == Some(&cid)
                && same_overwrites(&c.permission_overwrites, &old)
            {
                c.permission_overwrites = new.clone();
            }
        }
    }
    g.channels[ci].permission_overwrites = new;
}

/// Overwrite targets must exist: roles (10011) or members (10013).
pub(crate) fn check_overwrite_targets(g: &Guild, ows: &[Overwrite]) -> Result<(), ApiError> {
    for o in ows {
        if o.kind == 0 && g.role(&o.id).is_none() {
            return Err(ApiError::unknown_role());
        }
        if o.kind == 1 && g.member(&o.id).is_none() {
            return Err(ApiError::unknown_user());
        }
    }
    Ok(())
}

pub async fn put_overwrite(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((cid, oid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    digits(&oid)?;
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_ROLES)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let kind = r.int_choice("type", &[0, 1], "(0, 1)");
    if !matches!(kind, Field::Set(_)) && obj.get("type").is_none_or(Value::is_null) {
        r.required("type");
    }
    let allow = r.permissions("allow").set().unwrap_or_default();
    let deny = r.permissions("deny").set().unwrap_or_default();
    errs.check()?;
    let Field::Set(kind) = kind else {
        return Err(ApiError::field(
            &["type"],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let ow = Overwrite {
        id: oid.clone(),
        kind: kind as u8,
        allow,
        deny,
    };
    check_overwrite_targets(g, std::slice::from_ref(&ow))?;
    let old = g.channels[ci].permission_overwrites.clone();
    check_overwrite_grants(g, actor, &old, std::slice::from_ref(&ow))?;
    let mut new = old.clone();
    match new.iter_mut().find(|o| o.id == oid) {
        Some(o) => *o = ow,
        None => new.push(ow),
    }
    write_overwrites(g, snowflake, &ctx, ci, &old, new)
}

/// An overwrite edit's end: channel `ci`'s overwrites set from `old` to `new` (a
/// category's carried to its synced channels), the audit entries written, and the
/// channel as it is after sent in CHANNEL_UPDATE.
fn write_overwrites(
    g: &mut Guild,
    snowflake: &mut SnowflakeGen,
    ctx: &Ctx,
    ci: usize,
    old: &[Overwrite],
    new: Vec<Overwrite>,
) -> R {
    let cid = g.channels[ci].id.clone();
    set_overwrites(g, ci, new.clone());
    log_overwrite_diff(
        g,
        snowflake,
        &ctx.user_id,
        ctx.reason.as_deref(),
        &cid,
        old,
        &new,
    );
    let updated = events::channel(events::CHANNEL_UPDATE, &g.id, &g.channels[ci]);
    fired(no_content(), [updated])
}

pub async fn delete_overwrite(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((cid, oid)): Path<(String, String)>,
) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    digits(&oid)?;
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_ROLES)?;
    let old = g.channels[ci].permission_overwrites.clone();
    if !old.iter().any(|o| o.id == oid) {
        return Err(ApiError::unknown_overwrite());
    }
    let new: Vec<Overwrite> = old.iter().filter(|o| o.id != oid).cloned().collect();
    write_overwrites(g, snowflake, &ctx, ci, &old, new)
}
