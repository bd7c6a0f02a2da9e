//! Invites (the reference's Invite object and metadata, Get Guild Invites, Get and
//! Delete Invite, Get Guild Vanity URL).
//!
//! An invite whose `max_age` has run out is gone, as on Discord: it is neither
//! listed nor found. Delete Invite's path is not in the reference; Discord's is
//! `DELETE /invites/{code}` (discord-openapi.json `invite_revoke`).

use axum::extract::{Path, RawQuery, State as AxState};
use serde_json::{Map, Value, json};

use super::error::ApiError;
use super::render;
use super::state::{AuditChange, AuditEntry, Guild, Invite, State};
use crate::access::{guild_idx, need};
use crate::app::{App, Ctx, R, fired, lock, ok, query_params};
use crate::events;
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
pub async fn get_guild_invites(AxState(app): AxState<App>, ctx: Ctx, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    let p = guild_permissions(g, &ctx.user_id);
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
        action_type: 42,
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
    fired(ok(shown), [events::INVITE_DELETE])
}

/// `GET /guilds/{g}/vanity-url`: MANAGE_GUILD → `{code, uses}` (code null when unset).
pub async fn get_vanity_url(AxState(app): AxState<App>, ctx: Ctx, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    need(
        guild_permissions(g, &ctx.user_id),
        Permissions::MANAGE_GUILD,
    )?;
    ok(json!({"code": g.vanity_url_code, "uses": g.vanity_uses}))
}

pub fn unknown_invite() -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, 10006, "Unknown Invite")
}
