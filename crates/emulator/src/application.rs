//! `GET /oauth2/applications/@me`: the caller's application, which client
//! libraries (discord.py, discord.js, twilight) fetch at start-up.

use axum::extract::State as AxState;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::app::{App, Ctx, R, lock, ok};
use crate::error::ApiError;
use crate::perms::is_owner;
use crate::render;
use crate::state::{Application, State, User};

pub async fn get_my_application(AxState(app): AxState<App>, ctx: Ctx) -> R {
    let st = lock(&app.state);
    let bot = st.user(&ctx.user_id).ok_or_else(ApiError::unauthorized)?;
    // Only the bot's application is configurable; other tokens get defaults.
    let fallback = Application::default();
    let a = if bot.id == st.bot_user_id {
        &st.application
    } else {
        &fallback
    };
    ok(application(&st, a, bot))
}

/// Every field the spec's `PrivateApplicationResponse` requires, plus `bot`
/// and the public-bot switches.
fn application(st: &State, a: &Application, bot: &User) -> Value {
    let id = st.application_id(&bot.id);
    let owner_id = a
        .owner_id
        .clone()
        .or_else(|| st.guilds.first().map(|g| g.owner_id.clone()))
        .unwrap_or_default();
    let owner = match st.user(&owner_id) {
        Some(u) => render::user(u),
        // An owner the state does not list still gets a user object.
        None => render::user(&User {
            id: owner_id.clone(),
            username: "unknown".into(),
            discriminator: "0".into(),
            ..User::default()
        }),
    };
    let guilds = st
        .guilds
        .iter()
        .filter(|g| is_owner(g, &bot.id) || g.member(&bot.id).is_some())
        .count();
    json!({
        "id": id,
        "name": a.name.clone().unwrap_or_else(|| bot.username.clone()),
        "icon": a.icon,
        "description": a.description,
        "type": null,
        "bot": render::user(bot),
        "bot_public": a.bot_public,
        "bot_require_code_grant": a.bot_require_code_grant,
        "verify_key": verify_key(&id),
        "flags": a.flags,
        "flags_new": a.flags.to_string(),
        "redirect_uris": [],
        "interactions_endpoint_url": null,
        "role_connections_verification_url": null,
        "event_webhooks_url": null,
        "event_webhooks_status": 1,
        "owner": owner,
        "approximate_guild_count": guilds,
        "approximate_user_install_count": 0,
        "approximate_user_authorization_count": 0,
        "explicit_content_filter": 0,
        "team": null,
        "eligible_oauth2_scopes": [],
    })
}

/// A stable stand-in for the application's Ed25519 public key: 64 hex digits.
fn verify_key(app_id: &str) -> String {
    Sha256::digest(format!("verify-key-{app_id}"))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
