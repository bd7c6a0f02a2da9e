//! Invites (the reference's Invite object and metadata, Get Guild Invites, Get and
//! Delete Invite, Get Guild Vanity URL, Get and Update Target Users and the Target
//! Users Job Status).
//!
//! An invite whose `max_age` has run out is gone, as on Discord: it is neither
//! listed nor found. Delete Invite's path is not in the reference; Discord's is
//! `DELETE /invites/{code}` (discord-openapi.json `invite_revoke`).

use axum::extract::{Multipart, Path, RawQuery, State as AxState};
use axum::response::IntoResponse;
use serde_json::{Map, Value, json};

use super::error::ApiError;
use super::render;
use super::state::{AuditChange, AuditEntry, Guild, Invite, State, TargetUsersJob};
use crate::access::{InGuild, need};
use crate::app::{App, Ctx, R, fired, lock, ok, query_params};
use crate::audit_log::action::INVITE_DELETE;
use crate::events;
use crate::form;
use crate::perms::{channel_permissions, guild_permissions, is_owner};
use crate::time::{parse_timestamp, timestamp};
use discord_permissions::Permissions;

impl Invite {
    /// When it expires (Unix ms), if it does.
    fn expires_ms(&self) -> Option<u64> {
        (self.max_age > 0)
            .then(|| parse_timestamp(&self.created_at))
            .flatten()
            .map(|c| c + u64::from(self.max_age) * 1000)
    }

    fn alive(&self, now: u64) -> bool {
        self.expires_ms().is_none_or(|e| e > now)
    }
}

/// The invite; its metadata (uses, limits, creation) only when `metadata`.
fn show(st: &State, g: &Guild, i: &Invite, metadata: bool, counts: bool) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), json!(0));
    o.insert("code".into(), json!(i.code));
    o.insert(
        "guild".into(),
        json!({
            "id": g.id, "name": g.name, "splash": g.splash, "banner": g.banner,
            "description": g.description, "icon": g.icon, "features": g.features,
            "verification_level": g.verification_level, "vanity_url_code": g.vanity_url_code,
            "nsfw_level": g.nsfw_level, "nsfw": g.nsfw,
            "premium_subscription_count": g.premium_subscription_count,
        }),
    );
    o.insert("guild_id".into(), json!(g.id));
    let channel = g.channel(&i.channel_id);
    o.insert(
        "channel".into(),
        json!({"id": i.channel_id, "type": channel.map_or(0, |c| c.kind), "name": channel.map(|c| c.name.clone())}),
    );
    if let Some(u) = i.inviter_id.as_deref().and_then(|u| st.user(u)) {
        o.insert("inviter".into(), render::user(u));
    }
    o.insert("expires_at".into(), json!(i.expires_ms().map(timestamp)));
    o.insert("flags".into(), json!(i.flags));
    if metadata {
        o.insert("uses".into(), json!(i.uses));
        o.insert("max_uses".into(), json!(i.max_uses));
        o.insert("max_age".into(), json!(i.max_age));
        o.insert("temporary".into(), json!(i.temporary));
        o.insert("created_at".into(), json!(i.created_at));
    }
    if counts {
        o.insert("approximate_member_count".into(), json!(g.members.len()));
        o.insert("approximate_presence_count".into(), json!(0));
    }
    Value::Object(o)
}

/// `GET /guilds/{g}/invites`: MANAGE_GUILD or VIEW_AUDIT_LOG; the metadata only
/// with MANAGE_GUILD.
pub async fn get_guild_invites(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let p = guild_permissions(g, &call.actor);
    let metadata = p.contains(Permissions::MANAGE_GUILD);
    if !metadata {
        need(p, Permissions::VIEW_AUDIT_LOG)?;
    }
    let now = st.now_ms();
    ok(Value::Array(
        g.invites
            .iter()
            .filter(|i| i.alive(now))
            .map(|i| show(&st, g, i, metadata, false))
            .collect(),
    ))
}

/// (guild index, invite index) of a live invite.
fn find(st: &State, code: &str) -> Result<(usize, usize), ApiError> {
    let now = st.now_ms();
    st.guilds
        .iter()
        .enumerate()
        .find_map(|(gi, g)| {
            g.invites
                .iter()
                .position(|i| i.code == code && i.alive(now))
                .map(|ii| (gi, ii))
        })
        .ok_or_else(unknown_invite)
}

/// `GET /invites/{code}`: anyone authenticated; `with_counts` adds the counts.
pub async fn get_invite(
    AxState(app): AxState<App>,
    _ctx: Ctx,
    Path(code): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let (gi, ii) = find(&st, &code)?;
    let counts = query_params(q)
        .get("with_counts")
        .is_some_and(|v| v == "true" || v == "1" || v == "True");
    let g = &st.guilds[gi];
    ok(show(&st, g, &g.invites[ii], false, counts))
}

/// `DELETE /invites/{code}`: MANAGE_CHANNELS on its channel or MANAGE_GUILD → 200
/// with the invite; INVITE_DELETE (42) with the invite's fields as old values
/// (`channel_id` for the channel, as the reference's exceptions say).
pub async fn delete_invite(AxState(app): AxState<App>, ctx: Ctx, Path(code): Path<String>) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.as_str();
    let (gi, ii) = find(&st, &code)?;
    {
        let g = &st.guilds[gi];
        if !is_owner(g, actor) && g.member(actor).is_none() {
            return Err(ApiError::missing_access());
        }
        let in_channel = g
            .channel(&g.invites[ii].channel_id)
            .map(|c| channel_permissions(g, c, actor))
            .unwrap_or_default();
        if !guild_permissions(g, actor).contains(Permissions::MANAGE_GUILD)
            && !in_channel.contains(Permissions::MANAGE_CHANNELS)
        {
            return Err(ApiError::missing_permissions());
        }
    }
    let shown = {
        let g = &st.guilds[gi];
        show(&st, g, &g.invites[ii], true, false)
    };
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let gone = g.invites.remove(ii);
    let old = |key: &str, v: Value| AuditChange {
        key: key.into(),
        old_value: Some(v),
        new_value: None,
    };
    g.audit_log.push(AuditEntry {
        id: snowflake.next_id(),
        action_type: INVITE_DELETE,
        user_id: Some(actor.to_owned()),
        // An invite has no id; its entries name it by `code` among the changes.
        target_id: None,
        changes: vec![
            old("code", json!(gone.code)),
            old("channel_id", json!(gone.channel_id)),
            old("inviter_id", json!(gone.inviter_id)),
            old("uses", json!(gone.uses)),
            old("max_uses", json!(gone.max_uses)),
            old("max_age", json!(gone.max_age)),
            old("temporary", json!(gone.temporary)),
        ],
        options: None,
        reason: ctx.reason.clone(),
    });
    let deleted = events::invite_delete(&g.id, &gone.channel_id, &gone.code);
    fired(ok(shown), [deleted])
}

/// `GET /guilds/{g}/vanity-url`: MANAGE_GUILD → `{code, uses}` (code null when unset).
pub async fn get_vanity_url(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    ok(json!({"code": g.vanity_url_code, "uses": g.vanity_uses}))
}

pub fn unknown_invite() -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, 10006, "Unknown Invite")
}

/// Who may read an invite's target users or their job: its inviter, or a member with
/// MANAGE_GUILD or (`or_audit`) VIEW_AUDIT_LOG.
fn may_see_targets(
    st: &State,
    gi: usize,
    ii: usize,
    actor: &str,
    or_audit: bool,
) -> Result<(), ApiError> {
    let g = &st.guilds[gi];
    if g.invites[ii].inviter_id.as_deref() == Some(actor) {
        return Ok(());
    }
    if !is_owner(g, actor) && g.member(actor).is_none() {
        return Err(ApiError::missing_access());
    }
    let p = guild_permissions(g, actor);
    if p.contains(Permissions::MANAGE_GUILD)
        || (or_audit && p.contains(Permissions::VIEW_AUDIT_LOG))
    {
        Ok(())
    } else {
        Err(ApiError::missing_permissions())
    }
}

/// `GET /invites/{code}/target-users`: a CSV file, header `user_id` and one id a line,
/// the ids last supplied (just the header when none were).
pub async fn get_target_users(AxState(app): AxState<App>, ctx: Ctx, Path(code): Path<String>) -> R {
    let st = lock(&app.state);
    let (gi, ii) = find(&st, &code)?;
    may_see_targets(&st, gi, ii, &ctx.user_id, true)?;
    let mut csv = String::from("user_id\n");
    for id in &st.guilds[gi].invites[ii].target_user_ids {
        csv.push_str(id);
        csv.push('\n');
    }
    Ok(([(axum::http::header::CONTENT_TYPE, "text/csv")], csv).into_response())
}

/// The ids of a target-users CSV: one column, an optional `user_id` header, blank lines
/// skipped; `Err` with the values that are not user ids.
fn parse_target_csv(text: &str) -> Result<Vec<String>, Vec<String>> {
    let (mut ids, mut bad) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let cell = line.trim().trim_matches('"').trim();
        if cell.is_empty() || (i == 0 && cell.eq_ignore_ascii_case("user_id")) {
            continue;
        }
        match form::as_snowflake(&Value::String(cell.to_owned())) {
            Some(id) if !ids.contains(&id) => ids.push(id),
            Some(_) => {}
            None => bad.push(cell.chars().take(40).collect()),
        }
    }
    if bad.is_empty() { Ok(ids) } else { Err(bad) }
}

/// `PUT /invites/{code}/target-users` (multipart, field `target_users_file`): the inviter
/// or MANAGE_GUILD. A file with values that are not user ids is refused with 400 naming
/// them; otherwise the list is replaced and a job runs (reference: asynchronously; here
/// it is done at once): COMPLETED, or FAILED with `error_message` naming ids of users
/// that do not exist. 204.
pub async fn put_target_users(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(code): Path<String>,
    mut parts: Multipart,
) -> R {
    let mut file = None;
    while let Some(field) = parts.next_field().await.map_err(|_| multipart_refused())? {
        if field.name() == Some("target_users_file") {
            let bytes = field.bytes().await.map_err(|_| multipart_refused())?;
            file = Some(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    let Some(file) = file else {
        return Err(ApiError::field(
            &["target_users_file"],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let mut st = lock(&app.state);
    let (gi, ii) = find(&st, &code)?;
    may_see_targets(&st, gi, ii, &ctx.user_id, false)?;
    let ids = parse_target_csv(&file).map_err(|bad| {
        ApiError::field(
            &["target_users_file"],
            "TARGET_USERS_INVALID_IDS",
            &format!("Invalid user ids: {}", bad.join(", ")),
        )
    })?;
    let unknown: Vec<&str> = ids
        .iter()
        .filter(|id| st.user(id).is_none())
        .map(String::as_str)
        .collect();
    let now = timestamp(st.now_ms());
    let total = ids.len() as u32;
    let job = if unknown.is_empty() {
        TargetUsersJob {
            status: 2,
            total_users: total,
            processed_users: total,
            created_at: now.clone(),
            completed_at: Some(now),
            error_message: None,
        }
    } else {
        TargetUsersJob {
            status: 3,
            total_users: total,
            processed_users: total - unknown.len() as u32,
            created_at: now,
            completed_at: None,
            error_message: Some(format!("Unknown users: {}", unknown.join(", "))),
        }
    };
    let invite = &mut st.guilds[gi].invites[ii];
    invite.target_user_ids = ids;
    invite.target_users_job = Some(job);
    Ok(axum::http::StatusCode::NO_CONTENT.into_response())
}

fn multipart_refused() -> ApiError {
    ApiError::field(
        &[],
        "MULTIPART_INVALID",
        "Send target_users_file as multipart/form-data.",
    )
}

/// `GET /invites/{code}/target-users/job-status`: the last job, or UNSPECIFIED (0) when
/// there was none.
pub async fn get_target_users_job(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(code): Path<String>,
) -> R {
    let st = lock(&app.state);
    let (gi, ii) = find(&st, &code)?;
    may_see_targets(&st, gi, ii, &ctx.user_id, true)?;
    let job = st.guilds[gi].invites[ii].target_users_job.clone();
    ok(match job {
        Some(j) => json!({
            "status": j.status, "total_users": j.total_users,
            "processed_users": j.processed_users, "created_at": j.created_at,
            "completed_at": j.completed_at, "error_message": j.error_message,
        }),
        None => json!({
            "status": 0, "total_users": 0, "processed_users": 0,
            "created_at": null, "completed_at": null, "error_message": null,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::parse_target_csv;

    #[test]
    fn target_csvs_have_one_column_and_an_optional_header() {
        assert_eq!(
            parse_target_csv("user_id\n123\n\n456\r\n123\n").unwrap(),
            ["123", "456"]
        );
        assert_eq!(parse_target_csv("789").unwrap(), ["789"]);
        assert_eq!(
            parse_target_csv("user_id\n12\nbob\n3.5\n").unwrap_err(),
            ["bob", "3.5"]
        );
    }
}
