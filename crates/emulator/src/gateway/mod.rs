//! Discord's Gateway, v10 with JSON payloads and optional `zlib-stream` compression, from
//! Discord's Gateway, Gateway Events and Opcodes pages (`docs/discord.md` §11 has the
//! facts): `GET /gateway` and `GET /gateway/bot`, the WebSocket (`socket.rs`), sessions kept
//! with the dispatches they were sent so that a RESUME replays what a client missed
//! (`sessions.rs`), and the dispatches every REST write fires (`events.rs`) plus one
//! `GUILD_AUDIT_LOG_ENTRY_CREATE` for every audit-log entry, each sent to the sessions whose
//! shard holds the guild and whose intents ask for it.
//!
//! Lock order: `state`, then `gateway`; never across an await.

mod intents;
mod sessions;
pub(crate) mod socket;

use axum::extract::State as AxState;
use axum::http::HeaderMap;
use axum::http::header::HOST;
use serde_json::json;

use crate::app::{App, Ctx, R, lock, ok};
use crate::events::Dispatch;

pub use sessions::{Gateway, GatewayCommand, SessionInfo, shard_of, url};
pub(crate) use sessions::{Out, Refusal, identify, resume};

/// Sends `dispatches` (a write's, in order) and then every audit-log entry written since the
/// last call, each as `GUILD_AUDIT_LOG_ENTRY_CREATE`, to the sessions that see them.
pub(crate) fn publish(app: &App, dispatches: &[Dispatch]) {
    let st = lock(&app.state);
    let mut gw = lock(&app.gateway);
    sessions::publish_to(&st, &mut gw, dispatches);
}

fn host(headers: &HeaderMap) -> String {
    headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1")
        .to_owned()
}

/// `GET /gateway`: where to connect.
pub async fn get_gateway(headers: HeaderMap) -> R {
    ok(json!({ "url": url(&host(&headers)) }))
}

/// `GET /gateway/bot`: where to connect, how many shards, and the identify budget.
pub async fn get_gateway_bot(AxState(app): AxState<App>, ctx: Ctx, headers: HeaderMap) -> R {
    let st = lock(&app.state);
    let gw = lock(&app.gateway);
    ok(sessions::gateway_bot(
        &st,
        &gw,
        &ctx.user_id,
        url(&host(&headers)),
    ))
}
