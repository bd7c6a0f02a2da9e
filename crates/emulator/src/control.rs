//! The `/_emulator/*` control endpoints: request log, state, config, faults,
//! clock and rate-limit counters.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::app::{App, lock};
use crate::config::EmulatorConfig;
use crate::faults::{FaultSet, Faults};
use crate::request_log::RequestRecord;
use crate::state::State;

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

pub(crate) async fn clear_faults(AxState(app): AxState<App>) -> StatusCode {
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
            lock(&app.limiter).clock.advance(a.advance_seconds);
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
