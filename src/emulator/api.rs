//! The `/api/v10` handlers. Each locks the state, checks permissions and the
//! body, applies the change, writes audit-log entries and renders Discord's
//! response. Section numbers refer to discord-behaviour.md.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, RawQuery, State as AxState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::error::{ApiError, FieldErrors};
use super::form::{self, Field, Reader};
use super::perms::{
    can_manage_role, channel_permissions, guild_permissions, highest_rank, is_admin, is_owner,
    rank, same_overwrites,
};
use super::render;
use super::server::{App, Ctx, JsonBody, lock};
use super::state::{AuditChange, AuditEntry, Channel, Guild, Overwrite, Role, SnowflakeGen, State};
use crate::discord::names::normalise_channel_name;
use crate::permissions::Permissions;

pub(super) type R = Result<Response, ApiError>;

const MAX_ROLES: usize = 250;
const MAX_CHANNELS: usize = 500;
const MAX_CATEGORY_CHILDREN: usize = 50;

// ---------------------------------------------------------------- helpers

/// Path ids must be numeric: Discord's router does not match anything else.
pub(super) fn digits(s: &str) -> Result<(), ApiError> {
    if !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}

/// The guild's index, if the caller is in it.
/// The guild a write goes to, after the checks every guild write starts with:
/// the guild exists, the caller is in it, and holds `perm`.
pub(super) fn guild_for_write<'a>(
    st: &'a mut State,
    gid: &str,
    actor: &str,
    perm: Permissions,
) -> Result<(&'a mut Guild, &'a mut SnowflakeGen), ApiError> {
    let gi = guild_idx(st, gid, actor)?;
    let State {
        guilds, snowflake, ..
    } = st;
    let g = &mut guilds[gi];
    need(guild_permissions(g, actor), perm)?;
    Ok((g, snowflake))
}

pub(super) fn guild_idx(st: &State, gid: &str, actor: &str) -> Result<usize, ApiError> {
    digits(gid)?;
    let i = st
        .guilds
        .iter()
        .position(|g| g.id == gid)
        .ok_or_else(ApiError::unknown_guild)?;
    let g = &st.guilds[i];
    if !is_owner(g, actor) && g.member(actor).is_none() {
        return Err(ApiError::missing_access());
    }
    Ok(i)
}

/// (guild index, channel index) of a channel the caller's guild holds.
pub(super) fn channel_loc(st: &State, cid: &str, actor: &str) -> Result<(usize, usize), ApiError> {
    digits(cid)?;
    for (gi, g) in st.guilds.iter().enumerate() {
        if let Some(ci) = g.channels.iter().position(|c| c.id == cid) {
            if !is_owner(g, actor) && g.member(actor).is_none() {
                return Err(ApiError::missing_access());
            }
            return Ok((gi, ci));
        }
    }
    Err(ApiError::unknown_channel())
}

pub(super) fn need(p: Permissions, bit: Permissions) -> Result<(), ApiError> {
    if p.contains(bit) {
        Ok(())
    } else {
        Err(ApiError::missing_permissions())
    }
}

/// View the channel (else 50001), then hold `bit` in it (else 50013).
pub(super) fn need_in_channel(
    g: &Guild,
    ch: &Channel,
    actor: &str,
    bit: Permissions,
) -> Result<(), ApiError> {
    let p = channel_permissions(g, ch, actor);
    if !p.contains(Permissions::VIEW_CHANNEL) {
        return Err(ApiError::missing_access());
    }
    need(p, bit)
}

pub(super) fn change(key: &str, old: Value, new: Value) -> AuditChange {
    AuditChange {
        key: key.into(),
        // A missing old_value means "was null", a missing new_value "reset" (§7.3).
        old_value: (!old.is_null()).then_some(old),
        new_value: (!new.is_null()).then_some(new),
    }
}

pub(super) fn diff(out: &mut Vec<AuditChange>, key: &str, old: Value, new: Value) {
    if old != new {
        out.push(change(key, old, new));
    }
}

/// The changes of an object created (`true`: null → value) or deleted
/// (value → null), from its audit snapshot; null fields are left out.
pub(super) fn snapshot_changes(snap: Vec<(&str, Value)>, created: bool) -> Vec<AuditChange> {
    snap.into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            if created {
                change(k, Value::Null, v)
            } else {
                change(k, v, Value::Null)
            }
        })
        .collect()
}

/// The keys that differ between two snapshots of one object.
pub(super) fn diff_snapshots(
    before: Vec<(&str, Value)>,
    after: Vec<(&str, Value)>,
) -> Vec<AuditChange> {
    let mut out = Vec::new();
    for ((k, old), (_, new)) in before.into_iter().zip(after) {
        diff(&mut out, k, old, new);
    }
    out
}

#[allow(clippy::too_many_arguments)]
pub(super) fn audit(
    g: &mut Guild,
    snow: &mut SnowflakeGen,
    actor: &str,
    reason: Option<&str>,
    action: u32,
    target: &str,
    changes: Vec<AuditChange>,
    options: Option<Map<String, Value>>,
) {
    g.audit_log.push(AuditEntry {
        id: snow.next_id(),
        action_type: action,
        user_id: Some(actor.into()),
        target_id: Some(target.into()),
        changes,
        options,
        reason: reason.map(str::to_owned),
    });
}

pub(super) fn ok(v: Value) -> R {
    Ok((StatusCode::OK, Json(v)).into_response())
}

pub(super) fn no_content() -> R {
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn parse_query(q: Option<String>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in q.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let dec = |s: &str| {
            percent_encoding::percent_decode_str(&s.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        };
        out.insert(dec(k), dec(v));
    }
    out
}

// ---------------------------------------------------------------- users, guild

pub async fn get_me(AxState(app): AxState<App>, ctx: Ctx) -> R {
    let st = lock(&app.state);
    let u = st.user(&ctx.user_id).ok_or_else(ApiError::unauthorized)?;
    ok(render::current_user(u))
}

pub async fn get_guild(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let with_counts = parse_query(q)
        .get("with_counts")
        .is_some_and(|v| v == "true" || v == "1" || v == "True");
    ok(render::guild(&st.guilds[gi], with_counts))
}

/// Features a PATCH may change (§5.1); the rest of the array is ignored.
const MUTABLE_FEATURES: [&str; 3] = ["COMMUNITY", "INVITES_DISABLED", "RAID_ALERTS_DISABLED"];

pub async fn patch_guild(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_GUILD)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);

    let name = r.string_len("name", 2, 100);
    if matches!(name, Field::Null) {
        r.required("name");
    }
    let description = r.string_len("description", 0, 300);
    let afk_timeout = r.int_choice(
        "afk_timeout",
        &[60, 300, 900, 1800, 3600],
        "(60, 300, 900, 1800, 3600)",
    );
    let verification = r.int_choice("verification_level", &[0, 1, 2, 3, 4], "(0, 1, 2, 3, 4)");
    let filter = r.int_choice("explicit_content_filter", &[0, 1, 2], "(0, 1, 2)");
    let notifications = r.int_choice("default_message_notifications", &[0, 1], "(0, 1)");
    let flags = r.int_range("system_channel_flags", 0, i64::from(i32::MAX));
    let locale = r.string("preferred_locale");
    let progress = r.boolean("premium_progress_bar_enabled");
    let icon = r.string("icon");
    let features = r.array("features");
    let chan_field = |r: &mut Reader, key: &str, kinds: &[u8], code: &str, msg: &str| {
        let f = r.snowflake(key);
        if let Field::Set(id) = &f {
            match g.channel(id) {
                Some(c) if kinds.contains(&c.kind) => {}
                Some(_) => r.err(key, code, msg),
                None => r.err(key, "CHANNEL_NOT_FOUND", "Unknown channel"),
            }
        }
        f
    };
    // Codes below are the documented guild-create variants (§2.1).
    let afk_channel = chan_field(
        &mut r,
        "afk_channel_id",
        &[2],
        "GUILD_CREATE_AFK_CHANNEL_NOT_GUILD_VOICE",
        "AFK channel must be a voice channel",
    );
    let system_channel = chan_field(
        &mut r,
        "system_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "System channel must be a text channel",
    );
    let rules_channel = chan_field(
        &mut r,
        "rules_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Rules channel must be a text channel",
    );
    let updates_channel = chan_field(
        &mut r,
        "public_updates_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Public updates channel must be a text channel",
    );
    let safety_channel = chan_field(
        &mut r,
        "safety_alerts_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Safety alerts channel must be a text channel",
    );
    let mut requested: Option<Vec<String>> = None;
    if let Field::Set(list) = &features {
        let mut out = Vec::new();
        for (i, v) in list.iter().enumerate() {
            match v.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => r.errs.add(
                    &["features", &i.to_string()],
                    "BASE_TYPE_STRING",
                    &format!("Could not interpret \"{}\" as string.", form::show(v)),
                ),
            }
        }
        requested = Some(out);
    }
    for key in [
        "afk_timeout",
        "verification_level",
        "explicit_content_filter",
    ] {
        if obj.get(key).is_some_and(Value::is_null) {
            r.required(key);
        }
    }
    errs.check()?;

    // Features: keep the immutable ones, take the mutable ones from the body.
    let mut new_features = g.features.clone();
    if let Some(req) = &requested {
        new_features.retain(|f| !MUTABLE_FEATURES.contains(&f.as_str()));
        for f in MUTABLE_FEATURES {
            if req.iter().any(|x| x == f) {
                new_features.push(f.to_owned());
            }
        }
        let had = g.has_feature("COMMUNITY");
        let wants = new_features.iter().any(|f| f == "COMMUNITY");
        if had != wants {
            // Adding or removing COMMUNITY needs ADMINISTRATOR (§5.1).
            if !is_admin(g, actor) {
                return Err(ApiError::missing_permissions());
            }
        }
        if wants && !had {
            // §5.2: rules and public-updates channels in the same PATCH (or set).
            let rules_ok = match &rules_channel {
                Field::Set(_) => true,
                Field::Null => false,
                Field::Absent => g.rules_channel_id.is_some(),
            };
            let updates_ok = match &updates_channel {
                Field::Set(_) => true,
                Field::Null => false,
                Field::Absent => g.public_updates_channel_id.is_some(),
            };
            if !(rules_ok && updates_ok) {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    40006,
                    "This feature has been temporarily disabled",
                ));
            }
            // A community guild can have announcement channels.
            if !new_features.iter().any(|f| f == "NEWS") {
                new_features.push("NEWS".into());
            }
        }
        if had && !wants {
            // Undocumented: what COMMUNITY gave goes with it (announcement
            // channels, the welcome screen; onboarding is disabled below).
            new_features.retain(|f| f != "NEWS" && f != "WELCOME_SCREEN_ENABLED");
        }
    }

    let mut ch = Vec::new();
    macro_rules! apply {
        ($field:expr, $key:literal, $target:expr, $conv:expr) => {
            if let Some(v) = $field.into_option() {
                let newv = $conv(v);
                diff(&mut ch, $key, json!($target), json!(newv));
                $target = newv;
            }
        };
    }
    // A field present with a value (not null) replaces the guild's.
    macro_rules! set {
        ($field:expr, $key:literal, $target:expr, $conv:expr) => {
            if let Field::Set(v) = $field {
                let newv = $conv(v);
                diff(&mut ch, $key, json!($target), json!(newv));
                $target = newv;
            }
        };
    }
    set!(name, "name", g.name, |v| v);
    apply!(description, "description", g.description, |v| v);
    set!(afk_timeout, "afk_timeout", g.afk_timeout, |v| v as u32);
    set!(
        verification,
        "verification_level",
        g.verification_level,
        |v| v as u8
    );
    set!(
        filter,
        "explicit_content_filter",
        g.explicit_content_filter,
        |v| v as u8
    );
    set!(
        notifications,
        "default_message_notifications",
        g.default_message_notifications,
        |v| v as u8
    );
    set!(flags, "system_channel_flags", g.system_channel_flags, |v| v
        as u32);
    set!(locale, "preferred_locale", g.preferred_locale, |v| v);
    set!(
        progress,
        "premium_progress_bar_enabled",
        g.premium_progress_bar_enabled,
        |v| v
    );
    if let Some(v) = icon.into_option() {
        // Discord stores a hash of the uploaded image; the audit key is icon_hash.
        let hash = v.map(|data| image_hash(&data));
        diff(&mut ch, "icon_hash", json!(g.icon), json!(hash));
        g.icon = hash;
    }
    apply!(afk_channel, "afk_channel_id", g.afk_channel_id, |v| v);
    apply!(
        system_channel,
        "system_channel_id",
        g.system_channel_id,
        |v| v
    );
    apply!(rules_channel, "rules_channel_id", g.rules_channel_id, |v| v);
    apply!(
        updates_channel,
        "public_updates_channel_id",
        g.public_updates_channel_id,
        |v| v
    );
    apply!(
        safety_channel,
        "safety_alerts_channel_id",
        g.safety_alerts_channel_id,
        |v| v
    );
    if requested.is_some() {
        diff(&mut ch, "features", json!(g.features), json!(new_features));
        g.features = new_features;
        if !g.has_feature("COMMUNITY") {
            g.onboarding.enabled = false;
        }
    }
    if !ch.is_empty() {
        let gid = g.id.clone();
        audit(
            g,
            snowflake,
            actor,
            ctx.reason.as_deref(),
            1,
            &gid,
            ch,
            None,
        );
    }
    ok(render::guild(g, false))
}

pub(super) fn image_hash(data: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(data.as_bytes());
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

pub async fn get_member(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, uid)): Path<(String, String)>,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    digits(&uid)?;
    let u = st.user(&uid).ok_or_else(ApiError::unknown_user)?;
    let m = st.guilds[gi]
        .member(&uid)
        .ok_or_else(ApiError::unknown_member)?;
    ok(render::member(m, u))
}

// ---------------------------------------------------------------- roles

pub async fn get_roles(AxState(app): AxState<App>, ctx: Ctx, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    ok(render::roles(&st.guilds[gi]))
}

pub async fn get_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, rid)): Path<(String, String)>,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    digits(&rid)?;
    let r = st.guilds[gi]
        .role(&rid)
        .ok_or_else(ApiError::unknown_role)?;
    ok(render::role(r))
}

/// Role body fields shared by create and modify.
#[derive(Default)]
struct RoleFields {
    name: Option<String>,
    permissions: Option<Permissions>,
    color: Option<u32>,
    hoist: Option<bool>,
    mentionable: Option<bool>,
    unicode_emoji: Option<Option<String>>,
}

fn read_role(obj: &Map<String, Value>) -> Result<RoleFields, ApiError> {
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(obj, &mut errs);
    let mut f = RoleFields {
        name: r.string_len("name", 0, 100).set(),
        permissions: r.permissions("permissions").set(),
        ..Default::default()
    };
    match r.int_range("color", 0, 16_777_215) {
        Field::Set(c) => f.color = Some(c as u32),
        Field::Null => f.color = Some(0),
        Field::Absent => {}
    }
    // `colors.primary_color` is the newer spelling of `color` (§3.1).
    if let Some(Value::Object(colors)) = obj.get("colors") {
        let mut sub = Reader {
            obj: colors,
            path: vec!["colors".into()],
            errs: &mut *r.errs,
        };
        if let Field::Set(c) = sub.int_range("primary_color", 0, 16_777_215) {
            f.color = Some(c as u32);
        }
    }
    f.hoist = r.boolean("hoist").set();
    f.mentionable = r.boolean("mentionable").set();
    f.unicode_emoji = r.string("unicode_emoji").into_option();
    errs.check()?;
    Ok(f)
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
        ("hoist", json!(r.hoist)),
        ("mentionable", json!(r.mentionable)),
        ("unicode_emoji", json!(r.unicode_emoji)),
        ("icon_hash", json!(r.icon)),
    ]
}

pub async fn post_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_ROLES)?;
    let f = read_role(&form::object(&body)?)?;
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
    for r in g.roles.iter_mut().filter(|r| r.id != gid) {
        r.position += 1;
    }
    let role = Role {
        id: snowflake.next_id(),
        name: f.name.unwrap_or_else(|| "new role".into()),
        permissions: perms,
        position: 1,
        color: f.color.unwrap_or(0),
        hoist: f.hoist.unwrap_or(false),
        managed: false,
        mentionable: f.mentionable.unwrap_or(false),
        icon: None,
        unicode_emoji: f.unicode_emoji.flatten(),
        flags: 0,
        tags: None,
    };
    let changes = snapshot_changes(role_snapshot(&role), true);
    let out = render::role(&role);
    let rid = role.id.clone();
    g.roles.push(role);
    audit(
        g,
        snowflake,
        actor,
        ctx.reason.as_deref(),
        30,
        &rid,
        changes,
        None,
    );
    ok(out)
}

pub async fn patch_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, rid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_ROLES)?;
    digits(&rid)?;
    let idx = g
        .roles
        .iter()
        .position(|r| r.id == rid)
        .ok_or_else(ApiError::unknown_role)?;
    if !can_manage_role(g, actor, &g.roles[idx]) {
        return Err(ApiError::missing_permissions());
    }
    let f = read_role(&form::object(&body)?)?;
    if let Some(p) = f.permissions {
        check_grant(g, actor, p)?;
    }
    let is_everyone = rid == g.id;
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
        if let Some(c) = f.color {
            role.color = c;
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
    let out = render::role(role);
    if !changes.is_empty() {
        audit(
            g,
            snowflake,
            actor,
            ctx.reason.as_deref(),
            31,
            &rid,
            changes,
            None,
        );
    }
    ok(out)
}

pub async fn delete_role(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path((gid, rid)): Path<(String, String)>,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_ROLES)?;
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
        if r.id != gid && r.position > role.position {
            r.position -= 1;
        }
    }
    g.forget_role(&rid);
    let changes = snapshot_changes(role_snapshot(&role), false);
    audit(
        g,
        snowflake,
        actor,
        ctx.reason.as_deref(),
        32,
        &rid,
        changes,
        None,
    );
    no_content()
}

/// `PATCH /guilds/{g}/roles`: apply the given positions, then renumber 1..n by
/// (position desc, lower id first); @everyone stays 0 (§3.3).
pub async fn patch_roles(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_ROLES)?;
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
        if *id == gid || owner {
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
        if *id == gid {
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
    // Unverified whether Discord logs reorders (§7.2); we log one ROLE_UPDATE
    // per moved role so every write leaves a trace.
    for (id, old, new) in changed {
        let ch = vec![change("position", json!(old), json!(new))];
        audit(
            g,
            snowflake,
            actor,
            ctx.reason.as_deref(),
            31,
            &id,
            ch,
            None,
        );
    }
    ok(render::roles(g))
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

// ---------------------------------------------------------------- channels

fn is_text_like(kind: u8) -> bool {
    matches!(kind, 0 | 5 | 15 | 16)
}
fn is_voice_like(kind: u8) -> bool {
    matches!(kind, 2 | 13)
}

/// The sorting group of a channel (§4.3): categories; text-like per parent;
/// voice-like per parent.
fn group(kind: u8, parent: &Option<String>) -> (u8, Option<String>) {
    if kind == 4 {
        (0, None)
    } else if is_voice_like(kind) {
        (2, parent.clone())
    } else {
        (1, parent.clone())
    }
}

fn bottom_position(g: &Guild, kind: u8, parent: &Option<String>) -> i64 {
    let grp = group(kind, parent);
    g.channels
        .iter()
        .filter(|c| group(c.kind, &c.parent_id) == grp)
        .map(|c| c.position + 1)
        .max()
        .unwrap_or(0)
}

#[derive(Default)]
struct ChanFields {
    name: Option<String>,
    topic: Option<Option<String>>,
    position: Option<i64>,
    parent_id: Option<Option<String>>,
    overwrites: Option<Vec<Overwrite>>,
    nsfw: Option<bool>,
    rate_limit: Option<u32>,
    bitrate: Option<u32>,
    user_limit: Option<u32>,
    rtc_region: Option<Option<String>>,
    video_quality_mode: Option<u8>,
    auto_archive: Option<u32>,
    thread_rate_limit: Option<u32>,
    flags: Option<u64>,
}

fn read_overwrites(r: &mut Reader, key: &str) -> Option<Vec<Overwrite>> {
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

/// Type choices for create; the odd set is what Discord prints (§2.1).
fn type_choices(g: &Guild) -> (&'static [i64], &'static str) {
    if g.has_feature("NEWS") {
        (&[0, 2, 4, 5, 13, 15, 16], "{0, 2, 4, 5, 6, 13, 14, 15, 16}")
    } else {
        (&[0, 2, 4, 13, 15, 16], "{0, 2, 4, 6, 13, 14, 15, 16}")
    }
}

fn bitrate_max(g: &Guild, kind: u8) -> i64 {
    if kind == 13 {
        return 64_000;
    }
    if g.has_feature("VIP_REGIONS") {
        return 384_000;
    }
    match g.premium_tier {
        0 => 96_000,
        1 => 128_000,
        2 => 256_000,
        _ => 384_000,
    }
}

/// Reads channel fields valid for `kind`; fields that do not apply to the type
/// are ignored, as Discord does (§4.2).
fn read_channel(
    r: &mut Reader,
    g: &Guild,
    kind: u8,
    create: bool,
    moving: Option<&str>,
) -> ChanFields {
    let mut f = ChanFields::default();
    match r.string_len("name", 1, 100) {
        Field::Set(n) => {
            let norm = normalise_channel_name(kind, &n);
            if norm.is_empty() {
                r.err(
                    "name",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                );
            } else {
                f.name = Some(norm);
            }
        }
        Field::Null => r.required("name"),
        Field::Absent if create && !r.has("name") => r.required("name"),
        Field::Absent => {}
    }
    f.position = r.int("position").set();
    f.nsfw = r.boolean("nsfw").set();
    if let Field::Set(fl) = r.int_range("flags", 0, i64::from(i32::MAX)) {
        f.flags = Some(fl as u64);
    }
    f.overwrites = read_overwrites(r, "permission_overwrites");
    if kind != 4 {
        let p = r.snowflake("parent_id");
        if let Field::Set(pid) = &p {
            match g.channel(pid) {
                Some(c) if c.kind == 4 => {
                    let children = g
                        .channels
                        .iter()
                        .filter(|c| {
                            c.parent_id.as_deref() == Some(pid) && Some(c.id.as_str()) != moving
                        })
                        .count();
                    if children >= MAX_CATEGORY_CHILDREN {
                        r.err(
                            "parent_id",
                            "CHANNEL_PARENT_MAX_CHANNELS",
                            "Maximum number of channels in category reached (50)",
                        );
                    }
                }
                _ => r.err("parent_id", "CHANNEL_PARENT_INVALID_TYPE", "Not a category"),
            }
        }
        f.parent_id = p.into_option();
    }
    if is_text_like(kind) {
        let max = if matches!(kind, 15 | 16) { 4096 } else { 1024 };
        f.topic = r.string_len("topic", 0, max).into_option();
        if let Field::Set(d) = r.int_choice(
            "default_auto_archive_duration",
            &[60, 1440, 4320, 10080],
            "(60, 1440, 4320, 10080)",
        ) {
            f.auto_archive = Some(d as u32);
        }
        if let Field::Set(d) = r.int_range("default_thread_rate_limit_per_user", 0, 21600) {
            f.thread_rate_limit = Some(d as u32);
        }
    }
    if kind != 4
        && kind != 5
        && let Field::Set(v) = r.int_range("rate_limit_per_user", 0, 21600)
    {
        f.rate_limit = Some(v as u32);
    }
    if is_voice_like(kind) {
        if let Field::Set(v) = r.int_range("bitrate", 8000, bitrate_max(g, kind)) {
            f.bitrate = Some(v as u32);
        }
        let umax = if kind == 13 { 10_000 } else { 99 };
        if let Field::Set(v) = r.int_range("user_limit", 0, umax) {
            f.user_limit = Some(v as u32);
        }
        f.rtc_region = r.string("rtc_region").into_option();
        if let Field::Set(v) = r.int_choice("video_quality_mode", &[1, 2], "(1, 2)") {
            f.video_quality_mode = Some(v as u8);
        }
    }
    f
}

/// Overwrites may only carry bits the caller has in the guild, and
/// MANAGE_ROLES only for administrators (§4.4). Only new or changed entries
/// are checked.
fn check_overwrite_grants(
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

fn overwrite_options(g: &Guild, o: &Overwrite) -> Map<String, Value> {
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
fn log_overwrite_diff(
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
                13,
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
                entries.push((14, ch, overwrite_options(g, n)));
            }
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|n| n.id == o.id) {
            entries.push((
                15,
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
        audit(g, snow, actor, reason, action, cid, ch, Some(opts));
    }
}

/// Sets a channel's overwrites; for a category, children that were synced
/// with it follow (§4.5).
fn set_overwrites(g: &mut Guild, ci: usize, new: Vec<Overwrite>) {
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
fn check_overwrite_targets(g: &Guild, ows: &[Overwrite]) -> Result<(), ApiError> {
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

fn channel_snapshot(c: &Channel) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(c.name)),
        ("type", json!(c.kind)),
        ("position", json!(c.position)),
        ("parent_id", json!(c.parent_id)),
        ("topic", json!(c.topic)),
        ("nsfw", json!(c.nsfw)),
        ("rate_limit_per_user", json!(c.rate_limit_per_user)),
        ("bitrate", json!(c.bitrate)),
        ("user_limit", json!(c.user_limit)),
        ("rtc_region", json!(c.rtc_region)),
        ("video_quality_mode", json!(c.video_quality_mode)),
        (
            "default_auto_archive_duration",
            json!(c.default_auto_archive_duration),
        ),
        (
            "default_thread_rate_limit_per_user",
            json!(c.default_thread_rate_limit_per_user),
        ),
        ("flags", json!(c.flags)),
    ]
}

pub async fn get_channels(AxState(app): AxState<App>, ctx: Ctx, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    ok(Value::Array(
        g.channels
            .iter()
            .map(|c| render::channel(&g.id, c))
            .collect(),
    ))
}

pub async fn post_channel(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_CHANNELS)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let (choices, shown) = type_choices(g);
    let kind = match r.int_choice("type", choices, shown) {
        Field::Set(k) => k as u8,
        _ => 0,
    };
    let f = read_channel(&mut r, g, kind, true, None);
    errs.check()?;
    if g.channels.len() >= MAX_CHANNELS {
        return Err(ApiError::bad_request(
            30013,
            "Maximum number of guild channels reached (500)",
        ));
    }
    let parent = f.parent_id.clone().flatten();
    if let Some(pid) = &parent
        && let Some(p) = g.channel(pid)
    {
        need_in_channel(g, p, actor, Permissions::MANAGE_CHANNELS)?;
    }
    // Without overwrites the category's are copied; with them, exactly those (§4.5).
    let overwrites = match f.overwrites {
        Some(o) => {
            if !o.is_empty() {
                need(guild_permissions(g, actor), Permissions::MANAGE_ROLES)?;
            }
            check_overwrite_targets(g, &o)?;
            check_overwrite_grants(g, actor, &[], &o)?;
            o
        }
        None => parent
            .as_ref()
            .and_then(|p| g.channel(p))
            .map(|p| p.permission_overwrites.clone())
            .unwrap_or_default(),
    };
    let voice = is_voice_like(kind);
    let position = f
        .position
        .unwrap_or_else(|| bottom_position(g, kind, &parent));
    let ch = Channel {
        id: snowflake.next_id(),
        kind,
        name: f.name.unwrap_or_default(),
        position,
        parent_id: parent,
        permission_overwrites: overwrites,
        topic: f.topic.flatten(),
        nsfw: f.nsfw.unwrap_or(false),
        flags: f.flags.unwrap_or(0),
        rate_limit_per_user: (kind != 4).then_some(f.rate_limit.unwrap_or(0)),
        bitrate: voice.then_some(f.bitrate.unwrap_or(64000)),
        user_limit: voice.then_some(f.user_limit.unwrap_or(0)),
        rtc_region: f.rtc_region.flatten(),
        video_quality_mode: f.video_quality_mode,
        default_auto_archive_duration: f.auto_archive,
        default_thread_rate_limit_per_user: f.thread_rate_limit,
    };
    let mut changes = snapshot_changes(channel_snapshot(&ch), true);
    changes.push(change(
        "permission_overwrites",
        Value::Null,
        json!(ch.permission_overwrites),
    ));
    let out = render::channel(&g.id, &ch);
    let cid = ch.id.clone();
    g.channels.push(ch);
    audit(
        g,
        snowflake,
        actor,
        ctx.reason.as_deref(),
        10,
        &cid,
        changes,
        None,
    );
    Ok((StatusCode::CREATED, Json(out)).into_response())
}

pub async fn get_channel(AxState(app): AxState<App>, ctx: Ctx, Path(cid): Path<String>) -> R {
    let st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    let c = &g.channels[ci];
    if !channel_permissions(g, c, &ctx.user_id).contains(Permissions::VIEW_CHANNEL) {
        return Err(ApiError::missing_access());
    }
    ok(render::channel(&g.id, c))
}

fn is_community_channel(g: &Guild, cid: &str) -> bool {
    g.has_feature("COMMUNITY")
        && (g.rules_channel_id.as_deref() == Some(cid)
            || g.public_updates_channel_id.as_deref() == Some(cid))
}

pub async fn patch_channel(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(cid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_CHANNELS)?;
    let obj = form::object(&body)?;
    let cur_kind = g.channels[ci].kind;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    // Type changes: only text ↔ announcement, announcement needs NEWS (§4.6).
    let mut new_kind = cur_kind;
    if let Field::Set(k) = r.int("type") {
        // Out-of-range numbers must not wrap into a valid type.
        let k = u8::try_from(k).unwrap_or(u8::MAX);
        if k != cur_kind {
            let allowed: &[u8] = if g.has_feature("NEWS") { &[0, 5] } else { &[0] };
            if !matches!(cur_kind, 0 | 5) || !allowed.contains(&k) {
                let shown = if g.has_feature("NEWS") {
                    "{0, 5}"
                } else {
                    "{0}"
                };
                r.err(
                    "type",
                    "BASE_TYPE_CHOICES",
                    &format!("Value must be one of {shown}."),
                );
            } else {
                new_kind = k;
            }
        }
    }
    let f = read_channel(&mut r, g, new_kind, false, Some(&cid));
    errs.check()?;
    if new_kind == 5 && is_community_channel(g, &cid) {
        return Err(ApiError::bad_request(
            50086,
            "Community server channels must be text channels",
        ));
    }
    if let Some(ows) = &f.overwrites {
        need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_ROLES)?;
        check_overwrite_targets(g, ows)?;
        check_overwrite_grants(g, actor, &g.channels[ci].permission_overwrites, ows)?;
    }
    if let Some(Some(pid)) = &f.parent_id
        && let Some(p) = g.channel(pid)
    {
        need_in_channel(g, p, actor, Permissions::MANAGE_CHANNELS)?;
    }
    let c = &mut g.channels[ci];
    let before = channel_snapshot(c);
    c.kind = new_kind;
    if let Some(n) = f.name {
        c.name = n;
    }
    if let Some(t) = f.topic {
        c.topic = t;
    }
    if let Some(p) = f.position {
        c.position = p;
    }
    if let Some(p) = f.parent_id {
        c.parent_id = p;
    }
    if let Some(n) = f.nsfw {
        c.nsfw = n;
    }
    if let Some(v) = f.rate_limit {
        c.rate_limit_per_user = Some(v);
    }
    if let Some(v) = f.bitrate {
        c.bitrate = Some(v);
    }
    if let Some(v) = f.user_limit {
        c.user_limit = Some(v);
    }
    if let Some(v) = f.rtc_region {
        c.rtc_region = v;
    }
    if let Some(v) = f.video_quality_mode {
        c.video_quality_mode = Some(v);
    }
    if let Some(v) = f.auto_archive {
        c.default_auto_archive_duration = Some(v);
    }
    if let Some(v) = f.thread_rate_limit {
        c.default_thread_rate_limit_per_user = Some(v);
    }
    if let Some(v) = f.flags {
        c.flags = v;
    }
    let changes = diff_snapshots(before, channel_snapshot(c));
    if !changes.is_empty() {
        audit(
            g,
            snowflake,
            actor,
            ctx.reason.as_deref(),
            11,
            &cid,
            changes,
            None,
        );
    }
    // permission_overwrites replaces the whole set (§4.2) and logs 13/14/15.
    if let Some(ows) = f.overwrites {
        let old = g.channels[ci].permission_overwrites.clone();
        set_overwrites(g, ci, ows.clone());
        log_overwrite_diff(g, snowflake, actor, ctx.reason.as_deref(), &cid, &old, &ows);
    }
    ok(render::channel(&g.id, &g.channels[ci]))
}

pub async fn delete_channel(AxState(app): AxState<App>, ctx: Ctx, Path(cid): Path<String>) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_CHANNELS)?;
    if is_community_channel(g, &cid) {
        return Err(ApiError::bad_request(
            50074,
            "Cannot delete a channel required for Community guilds",
        ));
    }
    let c = g.channels.remove(ci);
    let mut changes = snapshot_changes(channel_snapshot(&c), false);
    changes.push(change(
        "permission_overwrites",
        json!(c.permission_overwrites),
        Value::Null,
    ));
    audit(
        g,
        snowflake,
        actor,
        ctx.reason.as_deref(),
        12,
        &cid,
        changes,
        None,
    );
    // A deleted category orphans its children, each a CHANNEL_UPDATE (§4.6).
    if c.kind == 4 {
        let orphans: Vec<String> = g
            .channels
            .iter_mut()
            .filter(|x| x.parent_id.as_deref() == Some(&cid))
            .map(|x| {
                x.parent_id = None;
                x.id.clone()
            })
            .collect();
        for id in orphans {
            let ch = vec![change("parent_id", json!(cid), Value::Null)];
            audit(g, snowflake, actor, None, 11, &id, ch, None);
        }
    }
    g.forget_channel(&cid);
    ok(render::channel(&g.id, &c))
}

/// `PATCH /guilds/{g}/channels`: positions, parents and lock_permissions.
/// 204; takes no audit reason (§7.1) but logs CHANNEL_UPDATE entries.
pub async fn patch_channel_positions(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &gid, actor, Permissions::MANAGE_CHANNELS)?;
    let items = form::list(&body)?;
    struct Move {
        ci: usize,
        position: Option<i64>,
        parent: Option<Option<String>>,
        lock: bool,
    }
    let mut errs = FieldErrors::default();
    let mut moves = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(mut r) = form::item(&mut errs, vec![i.to_string()], item) else {
            continue;
        };
        let id = r.snowflake("id");
        let position = r.int("position").set();
        let parent = r.snowflake("parent_id").into_option();
        let lock = r.boolean("lock_permissions").set().unwrap_or(false);
        let Field::Set(id) = id else {
            if !r.has("id") {
                r.required("id");
            }
            continue;
        };
        let Some(ci) = g.channels.iter().position(|c| c.id == id) else {
            return Err(ApiError::unknown_channel());
        };
        if let Some(Some(pid)) = &parent {
            match g.channel(pid) {
                Some(p) if p.kind == 4 && g.channels[ci].kind != 4 => {
                    let n = g
                        .channels
                        .iter()
                        .filter(|c| c.parent_id.as_deref() == Some(pid) && c.id != id)
                        .count();
                    if n >= MAX_CATEGORY_CHILDREN {
                        r.err(
                            "parent_id",
                            "CHANNEL_PARENT_MAX_CHANNELS",
                            "Maximum number of channels in category reached (50)",
                        );
                    }
                }
                _ => r.err("parent_id", "CHANNEL_PARENT_INVALID_TYPE", "Not a category"),
            }
        }
        moves.push(Move {
            ci,
            position,
            parent,
            lock,
        });
    }
    errs.check()?;
    let parent_changes = moves
        .iter()
        .filter(|m| {
            m.parent
                .as_ref()
                .is_some_and(|p| *p != g.channels[m.ci].parent_id)
        })
        .count();
    if parent_changes > 1 {
        return Err(ApiError::bad_request(
            40009,
            "Only one channel can have parent_id modified at a time",
        ));
    }
    for m in &moves {
        let c = &g.channels[m.ci];
        let moving = m.parent.as_ref().is_some_and(|p| *p != c.parent_id);
        if moving || m.lock {
            // Changing parent needs to see the channel (50001) and manage it.
            need_in_channel(g, c, actor, Permissions::MANAGE_CHANNELS)?;
        }
        if m.lock {
            need(guild_permissions(g, actor), Permissions::MANAGE_ROLES)?;
        }
    }
    for m in moves {
        let cid = g.channels[m.ci].id.clone();
        let mut changes = Vec::new();
        if let Some(p) = m.position {
            diff(
                &mut changes,
                "position",
                json!(g.channels[m.ci].position),
                json!(p),
            );
            g.channels[m.ci].position = p;
        }
        if let Some(p) = m.parent {
            diff(
                &mut changes,
                "parent_id",
                json!(g.channels[m.ci].parent_id),
                json!(p),
            );
            g.channels[m.ci].parent_id = p;
        }
        if !changes.is_empty() {
            audit(g, snowflake, actor, None, 11, &cid, changes, None);
        }
        if m.lock
            && let Some(pid) = g.channels[m.ci].parent_id.clone()
            && let Some(p) = g.channel(&pid)
        {
            // lock_permissions copies the (new) parent's overwrites.
            let new = p.permission_overwrites.clone();
            let old = g.channels[m.ci].permission_overwrites.clone();
            set_overwrites(g, m.ci, new.clone());
            log_overwrite_diff(g, snowflake, actor, None, &cid, &old, &new);
        }
    }
    no_content()
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
    set_overwrites(g, ci, new.clone());
    log_overwrite_diff(g, snowflake, actor, ctx.reason.as_deref(), &cid, &old, &new);
    no_content()
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
    set_overwrites(g, ci, new.clone());
    log_overwrite_diff(g, snowflake, actor, ctx.reason.as_deref(), &cid, &old, &new);
    no_content()
}

// ---------------------------------------------------------------- audit log

pub async fn get_audit_logs(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    need(
        guild_permissions(g, &ctx.user_id),
        Permissions::VIEW_AUDIT_LOG,
    )?;
    let query = parse_query(q);
    let obj: Map<String, Value> = query
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let user_id = r.snowflake("user_id").set();
    let target_id = r.snowflake("target_id").set();
    let action = r.int("action_type").set();
    let before = r
        .snowflake("before")
        .set()
        .and_then(|s| s.parse::<u64>().ok());
    let after = r
        .snowflake("after")
        .set()
        .and_then(|s| s.parse::<u64>().ok());
    let limit = r.int_range("limit", 1, 100).set().unwrap_or(50) as usize;
    errs.check()?;
    let id_of = |e: &AuditEntry| e.id.parse::<u64>().unwrap_or(0);
    let mut entries: Vec<&AuditEntry> = g
        .audit_log
        .iter()
        .filter(|e| {
            user_id
                .as_ref()
                .is_none_or(|u| e.user_id.as_ref() == Some(u))
        })
        .filter(|e| {
            target_id
                .as_ref()
                .is_none_or(|t| e.target_id.as_ref() == Some(t))
        })
        .filter(|e| action.is_none_or(|a| i64::from(e.action_type) == a))
        .filter(|e| before.is_none_or(|b| id_of(e) < b))
        .filter(|e| after.is_none_or(|a| id_of(e) > a))
        .collect();
    // With `after` (and no `before`) oldest→newest, else newest→oldest (§7.3).
    let ascending = after.is_some() && before.is_none();
    entries.sort_by_key(|e| id_of(e));
    if !ascending {
        entries.reverse();
    }
    entries.truncate(limit);
    let mut users: Vec<Value> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for e in &entries {
        if let Some(u) = e.user_id.as_deref()
            && !seen.contains(&u)
        {
            seen.push(u);
            if let Some(user) = st.user(u) {
                users.push(render::user(user));
            }
        }
    }
    let webhooks = super::webhooks::referenced(&st, g, &entries);
    ok(json!({
        "audit_log_entries": entries.iter().map(|e| render::audit_entry(e)).collect::<Vec<_>>(),
        "users": users,
        "integrations": [],
        "webhooks": webhooks,
        "guild_scheduled_events": [],
        "threads": [],
        "application_commands": [],
        "auto_moderation_rules": [],
    }))
}
