//! A write run in process, for the crate's own tests of what it dispatches
//! (tests/suite/emulator_dispatches.rs): above the routes, so nothing of the emulator
//! imports it. Not part of the emulator's API.

use serde_json::Value;

use crate::state::State;

/// One dispatch as a test outside the crate reads it: (name, guild_id, `d`).
#[doc(hidden)]
pub type DispatchSeen = (&'static str, Option<String>, Option<Value>);

/// For tests/suite/emulator_dispatches.rs, which has no Gateway to listen on: runs `req`
/// (a path under `/api/v10`) through the whole API service, middleware included, on
/// `state`, in this process, and returns the state after it, the response, and the
/// dispatches the response carries. Not part of the emulator's API.
#[doc(hidden)]
pub async fn run_for_dispatches(
    state: State,
    req: axum::extract::Request,
) -> (State, axum::response::Response, Vec<DispatchSeen>) {
    use tower::ServiceExt;
    let app: crate::app::App = std::sync::Arc::default();
    *crate::app::lock(&app.state) = state;
    let Ok(resp) = crate::routes::service(app.clone()).oneshot(req).await;
    let seen = resp
        .extensions()
        .get::<crate::app::Fired>()
        .map(|f| {
            f.0.iter()
                .map(|d| (d.name, d.guild_id.clone(), d.data.clone()))
                .collect()
        })
        .unwrap_or_default();
    let after = crate::app::lock(&app.state).clone();
    (after, resp, seen)
}
