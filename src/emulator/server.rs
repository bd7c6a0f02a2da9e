//! HTTP plumbing: the router, the middleware stack, authentication and body
//! extraction, and the `/_emulator/*` control endpoints.
//!
//! Every API request passes four middleware layers before its handler, outermost
//! first: `record` (the request log), `ratelimit::invalid_requests` (the
//! invalid-request counter and its refusal), `faults::inject` (fault injection)
//! and `ratelimit::limit` (global limit, route buckets, sublimits). Handlers know
//! nothing of them.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request, State as AxState};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, put};
use axum::{Json, Router};
use serde_json::Value;

use super::RequestRecord;
use super::api;
use super::config::EmulatorConfig;
use super::error::ApiError;
use super::faults::{self, FaultSet, Faults};
use super::onboarding;
use super::ratelimit::{self, Limiter};
use super::state::State;
use super::webhooks;
use super::welcome;
use super::widget;

/// Largest request body the emulator reads (Discord's own limit is similar).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// Shared between the server task and the `RunningEmulator` handle. Lock
/// order: `state` before `limiter`; never hold a lock across an await.
pub struct Shared {
    pub state: Mutex<State>,
    pub requests: Mutex<Vec<RequestRecord>>,
    pub limiter: Mutex<Limiter>,
    pub faults: Mutex<Faults>,
    /// Set to true at shutdown: hanging faults give up.
    pub shutdown: tokio::sync::watch::Sender<bool>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            state: Mutex::default(),
            requests: Mutex::default(),
            limiter: Mutex::default(),
            faults: Mutex::default(),
            shutdown: tokio::sync::watch::Sender::new(false),
        }
    }
}

/// The request's JSON body (if it parsed), for the layers inside `record`.
#[derive(Clone)]
pub struct RequestJson(pub Option<Value>);

/// Put on a response by the fault layer: which fault shaped it, and whether
/// the client gets no response at all (the connection is dropped).
#[derive(Clone, Copy)]
pub struct FaultMark {
    pub kind: &'static str,
    pub no_response: bool,
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
        // Innermost first.
        .layer(middleware::from_fn_with_state(
            app.clone(),
            ratelimit::limit,
        ))
        .layer(middleware::from_fn_with_state(app.clone(), faults::inject))
        .layer(middleware::from_fn_with_state(
            app.clone(),
            ratelimit::invalid_requests,
        ))
        .layer(middleware::from_fn_with_state(app.clone(), record));

    let control = Router::new()
        .route("/requests", get(get_requests).delete(clear_requests))
        .route("/state", get(get_state).put(put_state))
        .route("/config", get(get_config).put(put_config))
        .route(
            "/faults",
            get(get_faults).post(post_faults).delete(clear_faults),
        )
        .route("/clock", get(get_clock).post(post_clock))
        .route("/ratelimits", delete(reset_ratelimits))
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

/// Records every API request (method, path with query, the status actually
/// returned — 429s included, 0 when the connection was dropped — the fault
/// that shaped it, decoded reason, JSON body) after the inner layers ran.
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
    let mut req = Request::from_parts(parts, Body::from(bytes));
    req.extensions_mut().insert(RequestJson(body_json.clone()));
    let resp = next.run(req).await;
    let mark = resp.extensions().get::<FaultMark>().copied();
    lock(&app.requests).push(RequestRecord {
        method,
        path,
        status: match mark {
            Some(m) if m.no_response => 0,
            _ => resp.status().as_u16(),
        },
        reason,
        body: body_json,
        fault: mark.map(|m| m.kind.to_owned()),
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

/// A 400 for a control request that does not parse or validate.
fn bad_control(what: &str, e: impl std::fmt::Display) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(serde_json::json!({"message": format!("invalid {what}: {e}"), "code": 50035})),
    )
        .into_response()
}

async fn put_state(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<State>(&body) {
        Ok(new) => match install_state(&app, new) {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => bad_control("state", e),
        },
        Err(e) => bad_control("state", e),
    }
}

/// Replaces the state. A state without tokens keeps the current ones so the
/// running client stays authenticated. Resets the rate-limit counters. Fails
/// (leaving everything as it was) when `config` is invalid.
pub fn install_state(app: &App, mut new: State) -> Result<(), String> {
    new.config.validate()?;
    let mut st = lock(&app.state);
    if new.tokens.is_empty() {
        new.tokens = st.tokens.clone();
    }
    if new.bot_user_id.is_empty() {
        new.bot_user_id = st.bot_user_id.clone();
    }
    new.snowflake.last = new.snowflake.last.max(st.snowflake.last);
    *st = new;
    lock(&app.limiter).reset();
    Ok(())
}

/// Replaces `state.config` and resets the rate-limit counters.
pub fn install_config(app: &App, cfg: EmulatorConfig) -> Result<(), String> {
    cfg.validate()?;
    let mut st = lock(&app.state);
    st.config = cfg;
    lock(&app.limiter).reset();
    Ok(())
}

/// Validates and installs a fault set; returns the seed in use.
pub fn install_faults(app: &App, set: FaultSet) -> Result<u64, String> {
    set.validate()?;
    Ok(lock(&app.faults).install(set))
}

async fn get_config(AxState(app): AxState<App>) -> Json<EmulatorConfig> {
    Json(lock(&app.state).config.clone())
}

async fn put_config(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<EmulatorConfig>(&body) {
        Ok(cfg) => match install_config(&app, cfg) {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => bad_control("config", e),
        },
        Err(e) => bad_control("config", e),
    }
}

async fn get_faults(AxState(app): AxState<App>) -> Json<FaultSet> {
    Json(lock(&app.faults).set())
}

async fn post_faults(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<FaultSet>(&body) {
        Ok(set) => match install_faults(&app, set) {
            Ok(_) => Json(lock(&app.faults).set()).into_response(),
            Err(e) => bad_control("faults", e),
        },
        Err(e) => bad_control("faults", e),
    }
}

async fn clear_faults(AxState(app): AxState<App>) -> StatusCode {
    *lock(&app.faults) = Faults::default();
    StatusCode::NO_CONTENT
}

/// The emulated clock: seconds since start and the scale in force.
fn clock_json(app: &App) -> Value {
    let scale = lock(&app.state).config.time_scale;
    let mut lim = lock(&app.limiter);
    lim.clock.set_scale(scale);
    serde_json::json!({"now": lim.clock.now(), "time_scale": lim.clock.scale()})
}

async fn get_clock(AxState(app): AxState<App>) -> Json<Value> {
    Json(clock_json(&app))
}

/// `{"advance_seconds": 600}` jumps emulated time forward.
async fn post_clock(AxState(app): AxState<App>, body: Bytes) -> Response {
    #[derive(serde::Deserialize)]
    struct Advance {
        advance_seconds: f64,
    }
    match serde_json::from_slice::<Advance>(&body) {
        Ok(a) if a.advance_seconds.is_finite() && a.advance_seconds >= 0.0 => {
            lock(&app.limiter).clock.advance(a.advance_seconds);
            Json(clock_json(&app)).into_response()
        }
        Ok(a) => bad_control("clock", format!("cannot advance by {}", a.advance_seconds)),
        Err(e) => bad_control("clock", e),
    }
}

async fn reset_ratelimits(AxState(app): AxState<App>) -> StatusCode {
    lock(&app.limiter).reset();
    StatusCode::NO_CONTENT
}
