//! Users: the caller (`GET /users/@me`), any user by id (`GET /users/{u}`, Discord's Get User,
//! which a bot token may call for any user, member or not), and a guild member.

use axum::extract::{Path, State as AxState};

use crate::access::{InGuild, digits};
use crate::app::{App, Ctx, R, lock, ok};
use crate::error::ApiError;
use crate::render;

pub async fn get_me(AxState(app): AxState<App>, ctx: Ctx) -> R {
    let st = lock(&app.state);
    let u = st.user(&ctx.user_id).ok_or_else(ApiError::unauthorized)?;
    ok(render::current_user(u))
}

/// `GET /users/{u}`: the public user object of any user Discord knows, whether or not they
/// share a guild with the caller; 404 10013 for an id that is no user.
pub async fn get_user(AxState(app): AxState<App>, _ctx: Ctx, Path(uid): Path<String>) -> R {
    let st = lock(&app.state);
    digits(&uid)?;
    let u = st.user(&uid).ok_or_else(ApiError::unknown_user)?;
    ok(render::user(u))
}

pub async fn get_member(call: InGuild, Path((_, uid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    digits(&uid)?;
    let u = st.user(&uid).ok_or_else(ApiError::unknown_user)?;
    let m = st.guilds[gi]
        .member(&uid)
        .ok_or_else(ApiError::unknown_member)?;
    ok(render::member(m, u, st.guilds[gi].member_details.get(&uid)))
}
