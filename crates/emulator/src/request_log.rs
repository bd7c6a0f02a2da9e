//! The request log behind `GET /_emulator/requests`.

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State as AxState};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::{App, FaultMark, MAX_BODY, RequestJson, decode_reason, lock};

/// One API request the emulator served.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RequestRecord {
    pub method: String,
    /// Path including the query string.
    pub path: String,
    pub status: u16,
    /// The percent-decoded `X-Audit-Log-Reason`.
    pub reason: Option<String>,
    /// The request's JSON body, if it had one.
    pub body: Option<serde_json::Value>,
    /// The injected fault that shaped the response (`status`, `latency`,
    /// `drop_before`, `drop_after`, `storm_429`, `timeout`, `body`), if any. Dropped
    /// connections and timeouts are recorded with status 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
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
pub(crate) async fn record(AxState(app): AxState<App>, req: Request, next: Next) -> Response {
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
