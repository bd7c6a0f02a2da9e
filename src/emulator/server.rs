//! HTTP plumbing: the router, the request-recording layer, authentication and
//! body extraction, and the `/_emulator/*` control endpoints.
//!
//! Every API request passes one middleware (`record`) before its handler; later
//! layers (fault injection, rate-limit buckets) slot in beside it in `router()`
//! without touching handlers.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request, State as AxState};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use serde_json::Value;

use super::RequestRecord;
use super::api;
use super::error::ApiError;
use super::onboarding;
use super::state::State;
use super::webhooks;
use super::welcome;
use super::widget;

/// Largest request body the emulator reads (Discord's own limit is similar).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// Shared between the server task and the `RunningEmulator` handle.
#[derive(Default)]
pub struct Shared {
    pub state: Mutex<State>,
    pub requests: Mutex<Vec<RequestRecord>>,
}

pub type App = Arc<Shared>;

/// Locks ignoring poisoning: a panicked handler must not wedge the emulator.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn router(app: App) -> Router {
    let api = Router::new()
        .route("/users/@me", get(api::get_me))
        .route("/guilds/{g}", get(api::get_guild).patch(api::patch_guild))
        .route("/guilds/{g}/members/{u}", get(api::get_member))
        .route(
            "/guilds/{g}/roles",
            get(api::get_roles)
                .post(api::post_role)
                .patch(api::patch_roles),
        )
        .route(
            "/guilds/{g}/roles/{r}",
            get(api::get_role)
                .patch(api::patch_role)
                .delete(api::delete_role),
        )
        .route(
            "/guilds/{g}/channels",
            get(api::get_channels)
                .post(api::post_channel)
                .patch(api::patch_channel_positions),
        )
        .route(
            "/channels/{c}",
            get(api::get_channel)
                .patch(api::patch_channel)
                .delete(api::delete_channel),
        )
        .route(
            "/channels/{c}/permissions/{o}",
            put(api::put_overwrite).delete(api::delete_overwrite),
        )
        .route("/guilds/{g}/audit-logs", get(api::get_audit_logs))
        .route(
            "/channels/{c}/webhooks",
            get(webhooks::get_channel_webhooks).post(webhooks::post_webhook),
        )
        .route("/guilds/{g}/webhooks", get(webhooks::get_guild_webhooks))
        .route(
            "/guilds/{g}/welcome-screen",
            get(welcome::get_welcome_screen).patch(welcome::patch_welcome_screen),
        )
        .route(
            "/guilds/{g}/widget",
            get(widget::get_widget_settings).patch(widget::patch_widget),
        )
        // Public: no Authorization needed.
        .route("/guilds/{g}/widget.json", get(widget::get_widget_json))
        .route(
            "/guilds/{g}/onboarding",
            get(onboarding::get_onboarding).put(onboarding::put_onboarding),
        )
        .route(
            "/webhooks/{w}",
            get(webhooks::get_webhook)
                .patch(webhooks::patch_webhook)
                .delete(webhooks::delete_webhook),
        )
        // The token routes take no Authorization: the token is the credential.
        .route(
            "/webhooks/{w}/{t}",
            get(webhooks::get_webhook_with_token)
                .patch(webhooks::patch_webhook_with_token)
                .delete(webhooks::delete_webhook_with_token),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), record));

    let control = Router::new()
        .route("/requests", get(get_requests).delete(clear_requests))
        .route("/state", get(get_state).put(put_state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);

    Router::new()
        .nest("/api/v10", api)
        .nest("/_emulator", control)
        .fallback(not_found)
        .with_state(app)
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

/// Percent-decodes an `X-Audit-Log-Reason` value. `+` stays `+` (§7.1).
pub fn decode_reason(raw: &[u8]) -> String {
    percent_encoding::percent_decode(raw)
        .decode_utf8_lossy()
        .into_owned()
}

/// The request log must not hold webhook tokens (credentials, §6): the
/// segment after `/webhooks/{id}/` becomes `{webhook_token}`.
pub fn redact_webhook_token(path: &str) -> String {
    let (route, query) = match path.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (path, None),
    };
    let mut parts: Vec<&str> = route.split('/').collect();
    if let Some(i) = parts.iter().position(|p| *p == "webhooks")
        && i > 0
        && parts.get(i + 2).is_some()
        && parts[i - 1] == "v10"
    {
        parts[i + 2] = "{webhook_token}";
    }
    let mut out = parts.join("/");
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// Records every API request (method, path with query, status, decoded
/// reason, JSON body) after its handler ran.
async fn record(AxState(app): AxState<App>, req: Request, next: Next) -> Response {
    let method = req.method().to_string();
    let path = req
        .extensions()
        .get::<axum::extract::OriginalUri>()
        .map(|u| u.0.clone())
        .unwrap_or_else(|| req.uri().clone());
    let path = path
        .path_and_query()
        .map(|p| redact_webhook_token(p.as_str()))
        .unwrap_or_default();
    let reason = req
        .headers()
        .get("x-audit-log-reason")
        .map(|v| decode_reason(v.as_bytes()));
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                Json(serde_json::json!({"message": "Request entity too large", "code": 40005})),
            )
                .into_response();
        }
    };
    let body_json = serde_json::from_slice::<Value>(&bytes).ok();
    let req = Request::from_parts(parts, Body::from(bytes));
    let resp = next.run(req).await;
    lock(&app.requests).push(RequestRecord {
        method,
        path,
        status: resp.status().as_u16(),
        reason,
        body: body_json,
    });
    resp
}

/// The authenticated caller and the request's audit-log reason.
pub struct Ctx {
    pub user_id: String,
    pub reason: Option<String>,
}

impl FromRequestParts<App> for Ctx {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, Self::Rejection> {
        let token = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bot "))
            .map(str::trim)
            .ok_or_else(ApiError::unauthorized)?;
        let user_id = {
            let st = lock(&app.state);
            st.tokens
                .iter()
                .find(|t| t.token == token)
                .map(|t| t.user_id.clone())
                .ok_or_else(ApiError::unauthorized)?
        };
        let reason = match parts.headers.get("x-audit-log-reason") {
            None => None,
            Some(v) => {
                let r = decode_reason(v.as_bytes());
                // The limit counts decoded characters; above it Discord's
                // behaviour is unverified, we reject like a too-long field.
                if r.chars().count() > 512 {
                    return Err(ApiError::field(
                        &["reason"],
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 512 or fewer in length.",
                    ));
                }
                if r.is_empty() { None } else { Some(r) }
            }
        };
        Ok(Ctx { user_id, reason })
    }
}

/// A JSON request body: empty = `null`, unparsable = 400 50109.
pub struct JsonBody(pub Value);

impl FromRequest<App> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _app: &App) -> Result<Self, Self::Rejection> {
        let bytes: Bytes = axum::body::to_bytes(req.into_body(), MAX_BODY)
            .await
            .map_err(|_| ApiError::invalid_json())?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonBody(Value::Null));
        }
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|_| ApiError::invalid_json())
    }
}

async fn get_requests(AxState(app): AxState<App>) -> Json<Vec<RequestRecord>> {
    Json(lock(&app.requests).clone())
}

async fn clear_requests(AxState(app): AxState<App>) -> StatusCode {
    lock(&app.requests).clear();
    StatusCode::NO_CONTENT
}

async fn get_state(AxState(app): AxState<App>) -> Json<State> {
    Json(lock(&app.state).clone())
}

async fn put_state(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<State>(&body) {
        Ok(new) => {
            install_state(&app, new);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"message": format!("invalid state: {e}"), "code": 50035})),
        )
            .into_response(),
    }
}

/// Replaces the state. A state without tokens keeps the current ones so the
/// running client stays authenticated.
pub fn install_state(app: &App, mut new: State) {
    let mut st = lock(&app.state);
    if new.tokens.is_empty() {
        new.tokens = st.tokens.clone();
    }
    if new.bot_user_id.is_empty() {
        new.bot_user_id = st.bot_user_id.clone();
    }
    new.snowflake.last = new.snowflake.last.max(st.snowflake.last);
    *st = new;
}
