//! The `/_emulator/*` control endpoints: request log, state, config, faults,
//! clock and rate-limit counters, behind [`guard`].

use std::net::IpAddr;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Request, State as AxState};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::app::{App, lock};
use crate::config::EmulatorConfig;
use crate::faults::{FaultSet, Faults};
use crate::gateway::{GatewayCommand, SessionInfo};
use crate::request_log::RequestRecord;
use crate::state::State;

/// In front of every control endpoint. They take no token, and the state they
/// serve holds the bot's token and webhook tokens, so only a caller on this
/// machine that means to call them gets through:
/// - the request must be addressed to a loopback host (`Host` of 127.0.0.0/8,
///   `[::1]` or `localhost`, with or without a port), reads included: a page
///   whose own name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own
///   name, and is refused;
/// - a request with a body (and every POST, PUT and PATCH) must declare it
///   `Content-Type: application/json`: a browser sends that cross-site only
///   after a preflight, which the emulator never grants, while a form or a
///   plain `fetch` can send `text/plain`.
///
/// API routes are not guarded: they want the bot token, as Discord's do.
pub(crate) async fn guard(req: Request, next: Next) -> Response {
    if let Err(e) = check_host(&req) {
        return refuse(StatusCode::FORBIDDEN, e);
    }
    if let Err(e) = check_json(req.method(), req.headers()) {
        return refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, e);
    }
    next.run(req).await
}

fn refuse(status: StatusCode, message: String) -> Response {
    (
        status,
        Json(serde_json::json!({"message": message, "code": 0})),
    )
        .into_response()
}

/// Every host the request names (its `Host` header, and the authority of an
/// absolute URI) must be a loopback one; a request naming none is refused too.
fn check_host(req: &Request) -> Result<(), String> {
    let header = req.headers().get(HOST);
    let named = header.is_some() || req.uri().authority().is_some();
    let refused = |host: &str| {
        let shown: String = host.chars().take(100).collect();
        format!(
            "the emulator's control endpoints answer only requests addressed to a loopback host (127.0.0.1, [::1] or localhost, with or without a port), not Host: {shown:?}"
        )
    };
    if let Some(h) = header {
        let host = h.to_str().map_err(|_| refused("(not text)"))?;
        if !loopback_host(host) {
            return Err(refused(host));
        }
    }
    if let Some(a) = req.uri().authority()
        && !loopback_host(a.as_str())
    {
        return Err(refused(a.as_str()));
    }
    if named {
        Ok(())
    } else {
        Err("the emulator's control endpoints answer only requests that name their host (a Host header of 127.0.0.1, [::1] or localhost)".into())
    }
}

/// `127.0.0.1`, `127.1.2.3:8080`, `[::1]:80`, `localhost`, `LocalHost:3000`; not
/// `localhost.` or `127.0.0.1.example`, nor a bare `::1` (not a valid Host).
pub(crate) fn loopback_host(host: &str) -> bool {
    let port_ok = |p: &str| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((ip, "")) => ip,
            Some((ip, tail)) if tail.strip_prefix(':').is_some_and(port_ok) => ip,
            _ => return false,
        }
    } else {
        match host.split_once(':') {
            None => host,
            Some((name, port)) if port_ok(port) => name,
            Some(_) => return false,
        }
    };
    if host.starts_with('[') {
        return name
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    }
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A request that writes, or carries a body, must say the body is JSON.
fn check_json(method: &Method, headers: &HeaderMap) -> Result<(), String> {
    let has_body = headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0");
    let writes = matches!(*method, Method::POST | Method::PUT | Method::PATCH);
    if !(writes || has_body) {
        return Ok(());
    }
    let declared = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let json = declared.is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if json {
        return Ok(());
    }
    let declared: String = declared.unwrap_or("none").chars().take(100).collect();
    Err(format!(
        "the emulator's control endpoints take a body only as JSON: send Content-Type: application/json (this request's Content-Type: {declared})"
    ))
}

pub(crate) async fn get_requests(AxState(app): AxState<App>) -> Json<Vec<RequestRecord>> {
    Json(lock(&app.requests).clone())
}

pub(crate) async fn clear_requests(AxState(app): AxState<App>) -> StatusCode {
    lock(&app.requests).clear();
    StatusCode::NO_CONTENT
}

pub(crate) async fn get_state(AxState(app): AxState<App>) -> Json<State> {
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

pub(crate) async fn put_state(AxState(app): AxState<App>, body: Bytes) -> Response {
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
    // The clock never goes back, whatever the new state says.
    new.snowflake.clock_offset_ms = new
        .snowflake
        .clock_offset_ms
        .max(st.snowflake.clock_offset_ms);
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

pub(crate) async fn get_config(AxState(app): AxState<App>) -> Json<EmulatorConfig> {
    Json(lock(&app.state).config.clone())
}

pub(crate) async fn put_config(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<EmulatorConfig>(&body) {
        Ok(cfg) => match install_config(&app, cfg) {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => bad_control("config", e),
        },
        Err(e) => bad_control("config", e),
    }
}

pub(crate) async fn get_faults(AxState(app): AxState<App>) -> Json<FaultSet> {
    Json(lock(&app.faults).set())
}

pub(crate) async fn post_faults(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<FaultSet>(&body) {
        Ok(set) => match install_faults(&app, set) {
            Ok(_) => Json(lock(&app.faults).set()).into_response(),
            Err(e) => bad_control("faults", e),
        },
        Err(e) => bad_control("faults", e),
    }
}

/// `POST /_emulator/tokens {"user"?: NAME_OR_ID}`: a new token that acts as that user (by
/// default the first guild's owner), for hand changes made as a person through the API
/// (`guildctl emulator call --emulator URL`). Answers `{"token", "user_id"}`.
pub(crate) async fn post_token(AxState(app): AxState<App>, body: Bytes) -> Response {
    #[derive(serde::Deserialize)]
    struct Ask {
        #[serde(default)]
        user: Option<String>,
    }
    let ask: Ask = if body.is_empty() {
        Ask { user: None }
    } else {
        match serde_json::from_slice(&body) {
            Ok(a) => a,
            Err(e) => return bad_control("token request", e),
        }
    };
    let mut st = lock(&app.state);
    let user_id = match &ask.user {
        None => st.guilds.first().map(|g| g.owner_id.clone()),
        Some(who) => st
            .users
            .iter()
            .find(|u| u.username == *who || u.id == *who)
            .map(|u| u.id.clone()),
    };
    let Some(user_id) = user_id else {
        return bad_control("token request", "no such user in the state");
    };
    let token = crate::random_token(&user_id);
    st.tokens.push(crate::state::BotToken {
        token: token.clone(),
        user_id: user_id.clone(),
    });
    Json(serde_json::json!({ "token": token, "user_id": user_id })).into_response()
}

/// `GET /_emulator/gateway`: the Gateway's sessions.
pub(crate) async fn get_gateway(AxState(app): AxState<App>) -> Json<Vec<SessionInfo>> {
    Json(lock(&app.gateway).sessions())
}

/// `POST /_emulator/gateway`: op 7, op 9, a close or a dropped connection for one session
/// or all ([`GatewayCommand`]); answers how many connections it reached.
pub(crate) async fn post_gateway(AxState(app): AxState<App>, body: Bytes) -> Response {
    match serde_json::from_slice::<GatewayCommand>(&body) {
        Ok(c) => match lock(&app.gateway).command(&c) {
            Ok(n) => Json(serde_json::json!({ "connections": n })).into_response(),
            Err(e) => bad_control("gateway command", e),
        },
        Err(e) => bad_control("gateway command", e),
    }
}

pub(crate) async fn clear_faults(AxState(app): AxState<App>) -> StatusCode {
    *lock(&app.faults) = Faults::default();
    StatusCode::NO_CONTENT
}

/// Moves both clocks forward by `seconds` (emulated): the rate limits' windows and the
/// wall time ids, timestamps and expiries read (`SnowflakeGen::clock_offset_ms`).
pub fn advance_clock(app: &App, seconds: f64) {
    if !(seconds.is_finite() && seconds > 0.0) {
        return;
    }
    let mut st = lock(&app.state);
    let ms = (seconds * 1000.0).round() as u64;
    st.snowflake.clock_offset_ms = st.snowflake.clock_offset_ms.saturating_add(ms);
    lock(&app.limiter).clock.advance(seconds);
}

/// The emulated clock: seconds since start and the scale in force (rate limits), and
/// the emulator's wall time (ids, timestamps, expiries).
fn clock_json(app: &App) -> Value {
    let st = lock(&app.state);
    let scale = st.config.time_scale;
    let wall = crate::time::timestamp(st.now_ms());
    let mut lim = lock(&app.limiter);
    lim.clock.set_scale(scale);
    serde_json::json!({"now": lim.clock.now(), "time_scale": lim.clock.scale(), "wall": wall})
}

pub(crate) async fn get_clock(AxState(app): AxState<App>) -> Json<Value> {
    Json(clock_json(&app))
}

/// `{"advance_seconds": 600}` jumps emulated time forward.
pub(crate) async fn post_clock(AxState(app): AxState<App>, body: Bytes) -> Response {
    #[derive(serde::Deserialize)]
    struct Advance {
        advance_seconds: f64,
    }
    match serde_json::from_slice::<Advance>(&body) {
        Ok(a) if a.advance_seconds.is_finite() && a.advance_seconds >= 0.0 => {
            advance_clock(&app, a.advance_seconds);
            Json(clock_json(&app)).into_response()
        }
        Ok(a) => bad_control("clock", format!("cannot advance by {}", a.advance_seconds)),
        Err(e) => bad_control("clock", e),
    }
}

pub(crate) async fn reset_ratelimits(AxState(app): AxState<App>) -> StatusCode {
    lock(&app.limiter).reset();
    StatusCode::NO_CONTENT
}

#[cfg(test)]
mod tests {
    use super::loopback_host;

    #[test]
    fn loopback_hosts_with_or_without_a_port() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3:1",
            "localhost",
            "LocalHost:3000",
            "[::1]",
            "[::1]:443",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for no in [
            "evil.example",
            "evil.example:80",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "localhost.",
            "10.0.0.1",
            "0.0.0.0",
            "[::]:80",
            "[::2]",
            "::1",
            "127.0.0.1:",
            "127.0.0.1:80:80",
            "127.0.0.1:http",
            "[::1]x",
            "[127.0.0.1]",
            "",
        ] {
            assert!(!loopback_host(no), "{no}");
        }
    }
}
