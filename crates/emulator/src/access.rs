//! The checks every handler opens with: the path ids, the caller's
//! membership, and the permissions a write needs (docs/discord.md §3.4).

use std::sync::MutexGuard;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use discord_permissions::Permissions;

use crate::app::{App, Ctx, lock};
use crate::error::ApiError;
use crate::perms::{channel_permissions, guild_permissions, is_owner};
use crate::state::{Channel, Guild, SnowflakeGen, State};

/// A request to a guild's route (`/guilds/{g}/…`), as its caller: the guild's id from the
/// path, the authenticated caller, the request's audit-log reason, and the state to lock.
/// Extracting it reads the request only (the caller's token first, as [`Ctx`]); the guild
/// is checked when the handler asks, [`InGuild::index`] or [`InGuild::write`], after its
/// body is read as before, so the order of the refusals does not change.
pub(crate) struct InGuild {
    app: App,
    pub gid: String,
    pub actor: String,
    pub reason: Option<String>,
}

impl FromRequestParts<App> for InGuild {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, Self::Rejection> {
        let Ctx { user_id, reason } = Ctx::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        let params = RawPathParams::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        let gid = params
            .iter()
            .find_map(|(name, value)| (name == "g").then(|| value.to_owned()))
            .ok_or_else(|| ApiError::not_found().into_response())?;
        Ok(InGuild {
            app: app.clone(),
            gid,
            actor: user_id,
            reason,
        })
    }
}

impl InGuild {
    /// The emulator's state, locked for this request.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.app.state)
    }

    /// The guild's index, once the id is a snowflake, the guild exists and the caller is in it.
    pub(crate) fn index(&self, st: &State) -> Result<usize, ApiError> {
        guild_idx(st, &self.gid, &self.actor)
    }

    /// The guild a write goes to, once the caller holds `perm` in it, with the id generator.
    pub(crate) fn write<'s>(
        &self,
        st: &'s mut State,
        perm: Permissions,
    ) -> Result<(&'s mut Guild, &'s mut SnowflakeGen), ApiError> {
        guild_for_write(st, &self.gid, &self.actor, perm)
    }

    /// The request's audit-log reason.
    pub(crate) fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

/// Path ids must be numeric: Discord's router does not match anything else.
pub(crate) fn digits(s: &str) -> Result<(), ApiError> {
    if !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}

/// The guild's index, if the caller is in it.
/// The guild a write goes to, after the checks every guild write starts with:
/// the guild exists, the caller is in it, and holds `perm`.
pub(crate) fn guild_for_write<'a>(
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

/// The guild at index `gi` with the id generator, borrowed together for a write.
pub(crate) fn guild_at(st: &mut State, gi: usize) -> (&mut Guild, &mut SnowflakeGen) {
    let State {
        guilds, snowflake, ..
    } = st;
    (&mut guilds[gi], snowflake)
}

pub(crate) fn guild_idx(st: &State, gid: &str, actor: &str) -> Result<usize, ApiError> {
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
pub(crate) fn channel_loc(st: &State, cid: &str, actor: &str) -> Result<(usize, usize), ApiError> {
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

pub(crate) fn need(p: Permissions, bit: Permissions) -> Result<(), ApiError> {
    if p.contains(bit) {
        Ok(())
    } else {
        Err(ApiError::missing_permissions())
    }
}

/// View the channel (else 50001), then hold `bit` in it (else 50013).
pub(crate) fn need_in_channel(
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
