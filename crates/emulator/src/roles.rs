//! Roles: create, edit, delete and the bulk reorder (docs/discord.md §3).

use std::collections::HashMap;

use axum::extract::Path;
use discord_permissions::Permissions;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, digits};
use crate::app::{JsonBody, R, fired, no_content, ok};
use crate::audit_log::action::{ROLE_CREATE, ROLE_DELETE, ROLE_UPDATE};
use crate::audit_log::{Entry, change, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader};
use crate::images;
use crate::names::stored_object_name;
use crate::perms::{can_manage_role, guild_permissions, highest_rank, is_owner, rank};
use crate::render;
use crate::state::{Guild, Role};

const MAX_ROLES: usize = 250;

pub async fn get_roles(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    ok(render::roles(
        &st.guilds[gi],
        render::Dialect::of(&st.config),
    ))
}

pub async fn get_role(call: InGuild, Path((_, rid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    digits(&rid)?;
    let r = st.guilds[gi]
        .role(&rid)
        .ok_or_else(ApiError::unknown_role)?;
    ok(render::role(r, render::Dialect::of(&st.config)))
}

/// Role body fields shared by create and modify.
#[derive(Default)]
struct RoleFields {
    name: Option<String>,
    permissions: Option<Permissions>,
    /// Primary, secondary and tertiary colour: `color` sets a solid one.
    colors: Option<(u32, Option<u32>, Option<u32>)>,
    hoist: Option<bool>,
    mentionable: Option<bool>,
    unicode_emoji: Option<Option<String>>,
    /// A data URI, or `None` inside to remove the icon.
    icon: Option<Option<String>>,
}

/// The holographic style: sending any `tertiary_color` sets these three (§3.1).
const HOLOGRAPHIC: (u32, Option<u32>, Option<u32>) =
    (11_127_295, Some(16_759_788), Some(16_761_760));

fn read_role(obj: &Map<String, Value>, collapse_inner: bool) -> Result<RoleFields, ApiError> {
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(obj, &mut errs);
    // Stored trimmed, inner whitespace as configured (names.rs), at most 100 characters once
    // stored. The docs give only the maximum, the spec also minLength 1: an
    // empty (or all-whitespace) name is refused as a missing one.
    let name = match r.stored_name("name", 0, 100, |n| stored_object_name(n, collapse_inner)) {
        Field::Set(n) if n.is_empty() => {
            r.required("name");
            None
        }
        f => f.set(),
    };
    let mut f = RoleFields {
        name,
        permissions: r.permissions("permissions").set(),
        ..Default::default()
    };
    // The deprecated `color` sets a solid colour (what it does to a gradient is not
    // documented; a solid colour has no second one).
    match r.int_range("color", 0, 16_777_215) {
        Field::Set(c) => f.colors = Some((c as u32, None, None)),
        Field::Null => f.colors = Some((0, None, None)),
        Field::Absent => {}
    }
    // `colors` wins over `color` (§3.1); an absent part is no colour.
    match obj.get("colors") {
        Some(Value::Object(colors)) => {
            let mut sub = Reader {
                obj: colors,
                path: vec!["colors".into()],
                errs: &mut *r.errs,
            };
            let mut part = |key: &str| sub.int_range(key, 0, 16_777_215).set().map(|c| c as u32);
            let primary = part("primary_color").unwrap_or(0);
            let secondary = part("secondary_color");
            let tertiary = part("tertiary_color");
            f.colors = Some(if tertiary.is_some() {
                HOLOGRAPHIC
            } else {
                (primary, secondary, None)
            });
        }
        Some(Value::Null) => f.colors = Some((0, None, None)),
        Some(_) => r.err(
            "colors",
            "MODEL_TYPE_CONVERT",
            "Only dictionaries may be used in a ModelType",
        ),
        None => {}
    }
    f.hoist = r.boolean("hoist").set();
    f.mentionable = r.boolean("mentionable").set();
    f.unicode_emoji = r.string("unicode_emoji").into_option();
    f.icon = r.image("icon").into_option();
    errs.check()?;
    Ok(f)
}

/// Gradients and the holographic style need ENHANCED_ROLE_COLORS, an icon image or a
/// `unicode_emoji` ROLE_ICONS (§3.1, Create Guild Role's table). Clearing either (null) is
/// allowed without the feature, so a guild that lost it can still take them off.
fn check_features(g: &Guild, f: &RoleFields) -> Result<(), ApiError> {
    if matches!(f.colors, Some((_, Some(_), _) | (_, _, Some(_)))) {
        images::require_feature(g, "ENHANCED_ROLE_COLORS")?;
    }
    if matches!(f.icon, Some(Some(_))) || matches!(f.unicode_emoji, Some(Some(_))) {
        images::require_feature(g, "ROLE_ICONS")?;
    }
    Ok(())
}

/// Granting bits the caller lacks is refused, even when unchanged (§3.4).
fn check_grant(g: &Guild, actor: &str, p: Permissions) -> Result<(), ApiError> {
    let mine = guild_permissions(g, actor);
    if p.0 & !mine.0 != 0 {
        Err(ApiError::missing_permissions())
    } else {
        Ok(())
    }
}

fn role_snapshot(r: &Role) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(r.name)),
        ("permissions", json!(r.permissions)),
        ("color", json!(r.color)),
        (
            "colors",
            json!({"primary_color": r.color, "secondary_color": r.secondary_color, "tertiary_color": r.tertiary_color}),
        ),
        ("hoist", json!(r.hoist)),
        ("mentionable", json!(r.mentionable)),
        ("unicode_emoji", json!(r.unicode_emoji)),
        ("icon_hash", json!(r.icon)),
    ]
}

pub async fn post_role(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let collapse = st.config.collapse_inner_whitespace;
    let dialect = render::Dialect::of(&st.config);
    let (g, snowflake) = call.write(&mut st, Permissions::MANAGE_ROLES)?;
    let f = read_role(&form::object(&body)?, collapse)?;
    check_features(g, &f)?;
    if g.roles.len() >= MAX_ROLES {
        return Err(ApiError::bad_request(
            30005,
            "Maximum number of server roles reached (250)",
        ));
    }
    // Default permissions are @everyone's (§3.2).
    let perms = f
        .permissions
        .unwrap_or_else(|| g.everyone().map(|r| r.permissions).unwrap_or_default());
    check_grant(g, actor, perms)?;
    // New roles go to position 1; every other role moves up one (§3.3).
    for r in g.roles.iter_mut().filter(|r| r.id != call.gid) {
        r.position += 1;
    }
    let (color, secondary_color, tertiary_color) = f.colors.unwrap_or((0, None, None));
    let icon = f.icon.flatten().map(|data| images::store(g, &data));
    let role = Role {
        id: snowflake.next_id(),
        name: f.name.unwrap_or_else(|| "new role".into()),
        permissions: perms,
        position: 1,
        color,
        secondary_color,
        tertiary_color,
        hoist: f.hoist.unwrap_or(false),
        managed: false,
        mentionable: f.mentionable.unwrap_or(false),
        icon,
        unicode_emoji: f.unicode_emoji.flatten(),
        flags: 0,
        tags: None,
    };
    let changes = snapshot_changes(role_snapshot(&role), true);
    let out = render::role(&role, dialect);
    let created = events::role(events::GUILD_ROLE_CREATE, &g.id, &role, dialect);
    let rid = role.id.clone();
    g.roles.push(role);
    Entry::on(ROLE_CREATE, &rid)
        .changes(changes)
        .by(actor, call.reason())
        .record(g, snowflake);
    fired(ok(out), [created])
}

pub async fn patch_role(
    call: InGuild,
    Path((_, rid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let collapse = st.config.collapse_inner_whitespace;
    let dialect = render::Dialect::of(&st.config);
    let (g, snowflake) = call.write(&mut st, Permissions::MANAGE_ROLES)?;
    digits(&rid)?;
    let idx = g
        .roles
        .iter()
        .position(|r| r.id == rid)
        .ok_or_else(ApiError::unknown_role)?;
    if !can_manage_role(g, actor, &g.roles[idx]) {
        return Err(ApiError::missing_permissions());
    }
    let f = read_role(&form::object(&body)?, collapse)?;
    if let Some(p) = f.permissions {
        check_grant(g, actor, p)?;
    }
    let is_everyone = rid == g.id;
    if !is_everyone {
        check_features(g, &f)?;
    }
    let icon = f
        .icon
        .clone()
        .filter(|_| !is_everyone)
        .map(|i| i.map(|data| images::store(g, &data)));
    let role = &mut g.roles[idx];
    let before = role_snapshot(role);
    if let Some(p) = f.permissions {
        role.permissions = p;
    }
    // Only @everyone's permissions matter; its other fields stay fixed (§3.3).
    if !is_everyone {
        if let Some(n) = f.name {
            role.name = n;
        }
        if let Some((primary, secondary, tertiary)) = f.colors {
            role.color = primary;
            role.secondary_color = secondary;
            role.tertiary_color = tertiary;
        }
        if let Some(i) = icon {
            role.icon = i;
        }
        if let Some(h) = f.hoist {
            role.hoist = h;
        }
        if let Some(m) = f.mentionable {
            role.mentionable = m;
        }
        if let Some(e) = f.unicode_emoji {
            role.unicode_emoji = e;
        }
    }
    let changes = diff_snapshots(before, role_snapshot(role));
    let out = render::role(role, dialect);
    let updated = events::role(events::GUILD_ROLE_UPDATE, &call.gid, role, dialect);
    if !changes.is_empty() {
        Entry::on(ROLE_UPDATE, &rid)
            .changes(changes)
            .by(actor, call.reason())
            .record(g, snowflake);
    }
    fired(ok(out), [updated])
}

pub async fn delete_role(call: InGuild, Path((_, rid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let (g, snowflake) = call.write(&mut st, Permissions::MANAGE_ROLES)?;
    digits(&rid)?;
    let idx = g
        .roles
        .iter()
        .position(|r| r.id == rid)
        .ok_or_else(ApiError::unknown_role)?;
    // @everyone and managed roles cannot be deleted (§3.4).
    if rid == g.id || g.roles[idx].managed {
        return Err(ApiError::invalid_role());
    }
    if !can_manage_role(g, actor, &g.roles[idx]) {
        return Err(ApiError::missing_permissions());
    }
    let role = g.roles.remove(idx);
    for r in g.roles.iter_mut() {
        if r.id != call.gid && r.position > role.position {
            r.position -= 1;
        }
    }
    g.forget_role(&rid);
    let changes = snapshot_changes(role_snapshot(&role), false);
    Entry::on(ROLE_DELETE, &rid)
        .changes(changes)
        .by(actor, call.reason())
        .record(g, snowflake);
    fired(no_content(), [events::role_delete(&g.id, &rid)])
}

/// `PATCH /guilds/{g}/roles`: apply the given positions, then renumber 1..n by
/// (position desc, lower id first); @everyone stays 0 (§3.3).
pub async fn patch_roles(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let dialect = render::Dialect::of(&st.config);
    let (g, snowflake) = call.write(&mut st, Permissions::MANAGE_ROLES)?;
    let items = form::list(&body)?;
    let mut errs = FieldErrors::default();
    let mut moves: Vec<(String, Option<i64>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(mut r) = form::item(&mut errs, vec![i.to_string()], item) else {
            continue;
        };
        let id = r.snowflake("id");
        let pos = r.int("position");
        match id {
            Field::Set(id) => moves.push((id, pos.set())),
            Field::Null | Field::Absent if r.obj.get("id").is_none_or(Value::is_null) => {
                r.required("id")
            }
            _ => {}
        }
    }
    errs.check()?;
    let owner = is_owner(g, actor);
    let top = highest_rank(g, actor);
    let top_pos = top.1;
    for (id, pos) in &moves {
        let role = g.role(id).ok_or_else(ApiError::unknown_role)?;
        let Some(pos) = pos else { continue };
        if *id == call.gid || owner {
            continue;
        }
        // Roles at or above the caller's top may only be "moved" to where they
        // are; others must stay strictly below it (§3.4).
        if rank(g, role) >= top {
            if role.position != *pos {
                return Err(ApiError::missing_permissions());
            }
        } else if *pos >= top_pos {
            return Err(ApiError::missing_permissions());
        }
    }
    let before: HashMap<String, i64> = g.roles.iter().map(|r| (r.id.clone(), r.position)).collect();
    for (id, pos) in &moves {
        if *id == call.gid {
            continue; // @everyone cannot move.
        }
        if let (Some(p), Some(r)) = (pos, g.roles.iter_mut().find(|r| r.id == *id)) {
            r.position = *p;
        }
    }
    renumber_roles(g);
    let changed: Vec<(String, i64, i64)> = g
        .roles
        .iter()
        .filter_map(|r| {
            let old = before.get(&r.id).copied().unwrap_or(r.position);
            (old != r.position).then(|| (r.id.clone(), old, r.position))
        })
        .collect();
    // Several Guild Role Update: one per role that moved (the reference's Events), each
    // with the role at its new position.
    let events: Vec<_> = changed
        .iter()
        .filter_map(|(id, _, _)| g.role(id))
        .map(|r| events::role(events::GUILD_ROLE_UPDATE, &g.id, r, dialect))
        .collect();
    // Unverified whether Discord logs reorders (§7.2); we log one ROLE_UPDATE
    // per moved role so every write leaves a trace.
    for (id, old, new) in changed {
        let ch = vec![change("position", json!(old), json!(new))];
        Entry::on(ROLE_UPDATE, &id)
            .changes(ch)
            .by(actor, call.reason())
            .record(g, snowflake);
    }
    fired(ok(render::roles(g, dialect)), events)
}

fn renumber_roles(g: &mut Guild) {
    let gid = g.id.clone();
    let mut order: Vec<(i64, u64, usize)> = g
        .roles
        .iter()
        .enumerate()
        .filter(|(_, r)| r.id != gid)
        .map(|(i, r)| (r.position, r.id.parse::<u64>().unwrap_or(u64::MAX), i))
        .collect();
    // Highest first: position desc, then lower id first.
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let n = order.len() as i64;
    for (k, (_, _, i)) in order.into_iter().enumerate() {
        g.roles[i].position = n - k as i64;
    }
    if let Some(e) = g.roles.iter_mut().find(|r| r.id == gid) {
        e.position = 0;
    }
}
