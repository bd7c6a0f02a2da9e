//! The middleware every API request passes before its handler, outermost first:
//! `record` (the request log), `invalid_requests` (the invalid-request counter and
//! its refusal), `inject` (fault injection) and `limit` (global limit, route
//! buckets, sublimits). Each takes the emulator's shared state and calls the rules
//! of its own model (`request_log`, `ratelimit`, `faults`), which know nothing of
//! the server.

use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State as AxState};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::app::{App, Fired, MAX_BODY, decode_reason, lock};
use crate::faults::{
    Action, FaultMark, TIMEOUT_HANG, body_response, dropped, marked, oversized_response,
    status_response,
};
use crate::ratelimit::{
    BucketInfo, Decision, Limited, Passed, Scope, api_path, decide, is_webhook_token_route,
    put_bucket_headers, refusal, route_bucket, too_many,
};
use crate::request_log::{RequestJson, RequestRecord, redact_webhook_token};

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
    let fired = resp.extensions().get::<Fired>();
    let events = fired
        .map(|f| f.0.iter().map(|e| e.name.to_owned()).collect())
        .unwrap_or_default();
    // What the write fired, then the audit-log entries it wrote, to the Gateway's sessions.
    crate::gateway::publish(&app, fired.map(|f| f.0.as_slice()).unwrap_or_default());
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
        events,
    });
    resp
}

/// The invalid-request counter (§1.4): 401, 403 and 429 responses (not 429s
/// of scope `shared`) count; past the limit every API request is refused
/// for a while with Discord's static 429 body.
pub(crate) async fn invalid_requests(
    AxState(app): AxState<App>,
    req: Request,
    next: Next,
) -> Response {
    {
        let st = lock(&app.state);
        if lock(&app.limiter).refusing_invalid(&st.config) {
            return refusal();
        }
    }
    let resp = next.run(req).await;
    if resp
        .extensions()
        .get::<FaultMark>()
        .is_some_and(|m| m.no_response)
    {
        return resp;
    }
    let status = resp.status().as_u16();
    let shared = resp
        .headers()
        .get("x-ratelimit-scope")
        .is_some_and(|v| v.as_bytes() == b"shared");
    if status == 401 || status == 403 || (status == 429 && !shared) {
        let st = lock(&app.state);
        lock(&app.limiter).count_invalid(&st.config);
    }
    resp
}

/// Sleeps unless the emulator shuts down first (then false).
async fn sleep_or_shutdown(app: &App, d: Duration) -> bool {
    let mut rx = app.shutdown.subscribe();
    if *rx.borrow() {
        return false;
    }
    tokio::select! {
        _ = tokio::time::sleep(d) => true,
        _ = rx.wait_for(|down| *down) => false,
    }
}

/// The fault layer.
pub(crate) async fn inject(AxState(app): AxState<App>, req: Request, next: Next) -> Response {
    let method = req.method().as_str().to_owned();
    let path = api_path(req.uri().path()).to_owned();
    let draw = lock(&app.faults).draw(&method, &path);
    if draw.latency_ms > 0 && !sleep_or_shutdown(&app, Duration::from_millis(draw.latency_ms)).await
    {
        return dropped("latency");
    }
    match draw.action {
        None if draw.latency_ms > 0 => marked(next.run(req).await, "latency"),
        None => next.run(req).await,
        Some(Action::Status(code)) => marked(status_response(code), "status"),
        Some(Action::Body(text)) => marked(body_response(text), "body"),
        Some(Action::Oversized(o)) => marked(oversized_response(o), "oversized_body"),
        Some(Action::DropBefore) => dropped("drop_before"),
        Some(Action::DropAfter) => {
            drop(next.run(req).await);
            dropped("drop_after")
        }
        Some(Action::Timeout) => {
            sleep_or_shutdown(&app, TIMEOUT_HANG).await;
            dropped("timeout")
        }
        Some(Action::Storm(s)) => {
            let bucket = if s.scope == Scope::Global {
                None
            } else {
                let st = lock(&app.state);
                route_bucket(&st.config, &method, &path).map(|r| BucketInfo {
                    limit: r.limit,
                    remaining: 0,
                    reset_after: s.retry_after,
                    bucket: r.bucket,
                })
            };
            marked(
                too_many(s.scope, s.retry_after, bucket.as_ref()),
                "storm_429",
            )
        }
    }
}

/// The per-route layer: global limit, route bucket, name/topic sublimit and
/// role-creation bucket; bucket headers on every response of a limited route.
pub(crate) async fn limit(AxState(app): AxState<App>, req: Request, next: Next) -> Response {
    let method = req.method().as_str().to_owned();
    let path = api_path(req.uri().path()).to_owned();
    let body = req
        .extensions()
        .get::<RequestJson>()
        .and_then(|b| b.0.clone());
    let token = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bot "))
        .map(|t| t.trim().to_owned());

    let Passed {
        info,
        reserved,
        scope_on_success,
    } = match decide_locked(&app, &method, &path, body.as_ref(), token.as_deref()) {
        Decision::Refuse(resp) => return resp,
        Decision::Off => return next.run(req).await,
        Decision::Pass(p) => p,
    };

    let mut resp = next.run(req).await;

    // Only a name or topic change that happened uses the sublimit.
    if let Some((ch, start)) = reserved
        && !resp.status().is_success()
    {
        lock(&app.limiter).give_back_name_topic(&ch, start);
    }
    if let Some(bi) = &info {
        let h = resp.headers_mut();
        put_bucket_headers(h, bi);
        if scope_on_success && !h.contains_key("x-ratelimit-scope") {
            h.insert("x-ratelimit-scope", HeaderValue::from_static("user"));
        }
    }
    resp
}

/// [`decide`] under the locks, in their order (state, then limiter).
///
/// Authentication comes before the bot's limits: a request without one of the state's
/// bot tokens (none, or a bogus one) uses none of the bot's counters and is never given
/// the bot's 429; its handler answers it (401 where the token is needed). Webhook token
/// routes carry their credential in the path and keep their own buckets.
fn decide_locked(
    app: &App,
    method: &str,
    path: &str,
    body: Option<&Value>,
    token: Option<&str>,
) -> Decision {
    let st = lock(&app.state);
    let webhook = is_webhook_token_route(path);
    let bot = match token.and_then(|t| st.tokens.iter().find(|k| k.token == t)) {
        _ if webhook => "",
        Some(k) => k.user_id.as_str(),
        None => return Decision::Off,
    };
    let mut lim = lock(&app.limiter);
    let request = Limited {
        method,
        path,
        body,
        bot,
    };
    decide(&st, &mut lim, &request)
}
