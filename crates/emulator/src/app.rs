//! What every handler shares: the emulator's state behind its locks, the
//! authenticated caller, the JSON body, and the response helpers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::ApiError;
use crate::events::Dispatch;
use crate::faults::Faults;
use crate::gateway::Gateway;
use crate::ratelimit::Limiter;
use crate::request_log::RequestRecord;
use crate::state::State;

/// Largest request body the emulator reads (Discord's own limit is similar).
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;

/// Shared between the server task and the `RunningEmulator` handle. Lock
/// order: `state` before `limiter`; never hold a lock across an await.
pub struct Shared {
    pub state: Mutex<State>,
    pub requests: Mutex<Vec<RequestRecord>>,
    pub limiter: Mutex<Limiter>,
    pub faults: Mutex<Faults>,
    /// The Gateway's sessions (lock after `state`).
    pub gateway: Mutex<Gateway>,
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
            gateway: Mutex::default(),
            shutdown: tokio::sync::watch::Sender::new(false),
        }
    }
}

pub type App = Arc<Shared>;

/// Locks ignoring poisoning: a panicked handler must not wedge the emulator.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Percent-decodes an `X-Audit-Log-Reason` value. `+` stays `+` (§7.1).
pub fn decode_reason(raw: &[u8]) -> String {
    percent_encoding::percent_decode(raw)
        .decode_utf8_lossy()
        .into_owned()
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

pub type R = Result<Response, ApiError>;

pub(crate) fn ok(v: Value) -> R {
    Ok((StatusCode::OK, Json(v)).into_response())
}

/// 201 with the object made.
pub(crate) fn created(v: Value) -> R {
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

pub(crate) fn no_content() -> R {
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The Gateway dispatches a response's operation fired (`events.rs`), for the request log
/// and the Gateway.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fired(pub Vec<Dispatch>);

/// `r` with `events` attached when it succeeded (a refused request fires nothing).
pub(crate) fn fired(r: R, events: impl IntoIterator<Item = impl Into<Dispatch>>) -> R {
    let mut resp = r?;
    let events: Vec<Dispatch> = events.into_iter().map(Into::into).collect();
    if !events.is_empty() {
        resp.extensions_mut().insert(Fired(events));
    }
    Ok(resp)
}

/// A query parameter read as a boolean the way Discord reads one: `true`/`false` in any
/// case, and `1`/`0` (discord.py sends `wait=1`, `with_components=0`); `None` when
/// absent, `Err` when it is something else.
pub(crate) fn query_bool(q: &HashMap<String, String>, key: &str) -> Result<Option<bool>, ApiError> {
    let Some(v) = q.get(key) else {
        return Ok(None);
    };
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(Some(true)),
        "false" | "0" => Ok(Some(false)),
        _ => Err(ApiError::field(
            &[key],
            "BASE_TYPE_BOOLEAN",
            "Must be either true or false.",
        )),
    }
}

pub(crate) fn query_params(q: Option<String>) -> HashMap<String, String> {
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
