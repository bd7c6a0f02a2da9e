//! Rate limits as Discord applies them (docs/discord.md §1): per-route
//! buckets keyed by (bucket hash, major id), the global limit, the name/topic
//! sublimit of `PATCH /channels/{id}`, the role-creation bucket, and the
//! invalid-request counter with its temporary refusal.
//!
//! The rules behind two of the middleware layers (`layers::limit`, innermost,
//! beside the handlers, and `layers::invalid_requests`, outside the fault layer
//! so injected 401/403/429s count too). All limits come from `State.config`; time runs on a
//! scaled [`Clock`] and every header value is converted back to real seconds,
//! so a client that honours the headers needs no knowledge of the scale.

use std::collections::HashMap;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::config::{EmulatorConfig, role_create_bucket};
use super::state::State;
use crate::names::stored_channel_name;

/// The name/topic sublimit's window (§1.5: 2 per 10 minutes).
const NAME_TOPIC_WINDOW: f64 = 600.0;

/// Emulated time: real time since the last rebase times `scale`, plus any
/// manual advances. Seconds as `f64`.
#[derive(Debug)]
pub struct Clock {
    origin: Instant,
    base: f64,
    scale: f64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            origin: Instant::now(),
            base: 0.0,
            scale: 1.0,
        }
    }
}

impl Clock {
    /// Emulated seconds since the emulator started.
    pub fn now(&self) -> f64 {
        self.base + self.origin.elapsed().as_secs_f64() * self.scale
    }

    /// Changes the speed from now on (emulated time never jumps).
    pub fn set_scale(&mut self, scale: f64) {
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        if scale != self.scale {
            self.base = self.now();
            self.origin = Instant::now();
            self.scale = scale;
        }
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Jumps emulated time forward (a virtual clock for tests).
    pub fn advance(&mut self, seconds: f64) {
        if seconds.is_finite() && seconds > 0.0 {
            self.base += seconds;
        }
    }

    /// Emulated seconds → real seconds.
    pub fn to_real(&self, emulated: f64) -> f64 {
        emulated / self.scale
    }
}

/// A fixed window: it opens with the first request after the previous one
/// ended and lasts `window` seconds, as Discord's `Reset-After` counts down.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: f64,
    count: u32,
}

impl Window {
    fn new(now: f64) -> Window {
        Window {
            start: now,
            count: 0,
        }
    }

    fn roll(&mut self, now: f64, window: f64) {
        if now >= self.start + window {
            self.start = now;
            self.count = 0;
        }
    }

    /// (remaining, seconds until reset) without taking a slot.
    fn peek(&mut self, now: f64, limit: u32, window: f64) -> (u32, f64) {
        self.roll(now, window);
        (
            limit.saturating_sub(self.count),
            (self.start + window - now).max(0.0),
        )
    }

    /// Takes a slot: Ok(remaining after it, seconds until reset), or
    /// Err(seconds until a slot frees up).
    fn take(&mut self, now: f64, limit: u32, window: f64) -> Result<(u32, f64), f64> {
        let (remaining, reset_after) = self.peek(now, limit, window);
        if remaining == 0 {
            return Err(reset_after);
        }
        self.count += 1;
        Ok((remaining - 1, reset_after))
    }
}

/// Every counter the limits keep. Reset with [`Limiter::reset`].
#[derive(Debug, Default)]
pub struct Limiter {
    pub clock: Clock,
    /// Keyed by (bot, bucket hash, major id): Discord counts a route's limit per bot
    /// (§1.1), so two bots' calls to one guild do not share a bucket.
    buckets: HashMap<(String, String, String), Window>,
    /// Each bot's global window, by its user id: 50 a second per bot (§1.1).
    global: HashMap<String, Window>,
    name_topic: HashMap<String, Window>,
    invalid: Option<Window>,
    blocked_until: Option<f64>,
}

impl Limiter {
    /// Whether the invalid-request refusal (§1.4) is in force; ends it when its
    /// time is up.
    pub(crate) fn refusing_invalid(&mut self, cfg: &EmulatorConfig) -> bool {
        if !cfg.rate_limits_enabled {
            return false;
        }
        self.clock.set_scale(cfg.time_scale);
        let now = self.clock.now();
        match self.blocked_until {
            Some(until) if now < until => true,
            Some(_) => {
                self.blocked_until = None;
                false
            }
            None => false,
        }
    }

    /// Counts one invalid request (401, 403, or a 429 not of scope `shared`);
    /// past the limit, every request is refused for a while.
    pub(crate) fn count_invalid(&mut self, cfg: &EmulatorConfig) {
        if !cfg.rate_limits_enabled {
            return;
        }
        self.clock.set_scale(cfg.time_scale);
        let now = self.clock.now();
        let limit = cfg.invalid_requests_limit;
        let w = self.invalid.get_or_insert_with(|| Window::new(now));
        let counted = w.take(now, limit, cfg.invalid_requests_window_seconds);
        if counted.is_err() || w.count >= limit {
            self.blocked_until = Some(now + cfg.invalid_requests_block_seconds);
            self.invalid = None;
        }
    }

    /// Gives back a name/topic sublimit slot taken at `start` for a change that
    /// did not happen.
    pub(crate) fn give_back_name_topic(&mut self, channel: &str, start: f64) {
        if let Some(w) = self.name_topic.get_mut(channel)
            && w.start == start
        {
            w.count = w.count.saturating_sub(1);
        }
    }

    /// Forgets every counter and an invalid-request refusal; the clock runs on.
    pub fn reset(&mut self) {
        let clock = std::mem::take(&mut self.clock);
        *self = Limiter {
            clock,
            ..Limiter::default()
        };
    }
}

/// The 429 scopes (§1.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    User,
    Global,
    Shared,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Global => "global",
            Scope::Shared => "shared",
        }
    }
}

/// A bucket's state as its headers show it, in real seconds.
#[derive(Debug, Clone)]
pub struct BucketInfo {
    pub limit: u32,
    pub remaining: u32,
    pub reset_after: f64,
    pub bucket: String,
}

/// The per-route bucket a request falls in.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteMatch {
    pub limit: u32,
    pub window: f64,
    pub bucket: String,
    pub major: String,
}

/// The path under `/api/v10` (without the query).
pub fn api_path(path: &str) -> &str {
    let p = path.strip_prefix("/api/v10").unwrap_or(path);
    if p.is_empty() { "/" } else { p }
}

/// The top-level resource of a path (§1.1): the guild, channel or webhook id
/// (webhook id and token for token routes); "" for other routes.
pub fn major_id(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["webhooks", id, token, ..] => format!("webhooks/{id}/{token}"),
        [kind @ ("guilds" | "channels" | "webhooks"), id, ..] => format!("{kind}/{id}"),
        _ => String::new(),
    }
}

/// `/webhooks/{id}/{token}…`: not bound by the global limit (§1.1).
pub(crate) fn is_webhook_token_route(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs.len() >= 3 && segs[0] == "webhooks"
}

/// Whether a route template (`/channels/{channel_id}`) matches a path.
pub fn template_matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').filter(|s| !s.is_empty()).collect();
    let p: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    t.len() == p.len()
        && t.iter().zip(&p).all(|(t, p)| {
            if t.starts_with('{') && t.ends_with('}') {
                !p.is_empty()
            } else {
                t == p
            }
        })
}

/// The bucket of `method path` under `cfg`, if the route has one.
pub fn route_bucket(cfg: &EmulatorConfig, method: &str, path: &str) -> Option<RouteMatch> {
    let major = major_id(path);
    if method.eq_ignore_ascii_case("POST") && template_matches("/guilds/{guild_id}/roles", path) {
        return Some(RouteMatch {
            limit: cfg.role_creates.limit,
            window: cfg.role_creates.window_seconds,
            bucket: role_create_bucket(),
            major,
        });
    }
    cfg.route_buckets
        .iter()
        .find(|b| {
            (b.method == "*" || b.method.eq_ignore_ascii_case(method))
                && template_matches(&b.route, path)
        })
        .map(|b| RouteMatch {
            limit: b.limit,
            window: b.window_seconds,
            bucket: b.bucket.clone(),
            major,
        })
}

/// Seconds with three decimals, rounded up so a client never retries early.
fn secs3(s: f64) -> f64 {
    (s.max(0.0) * 1000.0).ceil() / 1000.0
}

fn header(v: String) -> HeaderValue {
    HeaderValue::from_str(&v).unwrap_or_else(|_| HeaderValue::from_static("0"))
}

/// `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Reset-After`, `-Bucket`.
pub fn put_bucket_headers(h: &mut HeaderMap, b: &BucketInfo) {
    let after = secs3(b.reset_after);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    h.insert("x-ratelimit-limit", header(b.limit.to_string()));
    h.insert("x-ratelimit-remaining", header(b.remaining.to_string()));
    h.insert("x-ratelimit-reset", header(format!("{:.3}", now + after)));
    h.insert("x-ratelimit-reset-after", header(format!("{after:.3}")));
    h.insert("x-ratelimit-bucket", header(b.bucket.clone()));
}

/// A 429 as Discord sends it (§1.2, §1.3): `Retry-After` in whole seconds
/// (rounded up), `X-RateLimit-Scope`, `X-RateLimit-Global` for the global
/// limit, the bucket headers when there is a bucket, and a body with a float
/// `retry_after`. `retry_after` is in real seconds.
pub fn too_many(scope: Scope, retry_after: f64, bucket: Option<&BucketInfo>) -> Response {
    let retry = secs3(retry_after);
    let message = match scope {
        Scope::Shared => "The resource is being rate limited.",
        _ => "You are being rate limited.",
    };
    let global = scope == Scope::Global;
    let mut resp = (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(json!({
            "message": message,
            "retry_after": retry,
            "global": global,
            "code": 0,
        })),
    )
        .into_response();
    let h = resp.headers_mut();
    if let Some(b) = bucket {
        put_bucket_headers(h, b);
    }
    h.insert("retry-after", header(format!("{}", retry.ceil() as u64)));
    if global {
        h.insert("x-ratelimit-global", HeaderValue::from_static("true"));
    }
    h.insert(
        "x-ratelimit-scope",
        HeaderValue::from_static(scope.as_str()),
    );
    resp
}

/// The body Discord sends while an IP is refused for too many invalid
/// requests (§1.4, discord-api-docs#5810): no Retry-After, no bucket headers.
pub const REFUSAL_MESSAGE: &str = "You are being blocked from accessing our API temporarily due to exceeding our rate limits frequently. Please read our docs at https://discord.com/developers/docs/topics/rate-limits to prevent this moving forward.";

pub(crate) fn refusal() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        axum::Json(json!({"code": 0, "message": REFUSAL_MESSAGE})),
    )
        .into_response()
}

/// The channel a `PATCH /channels/{id}` changes the name or topic of, if it
/// does: a value that differs from the stored one (names of text-like
/// channels compared after normalisation).
fn name_topic_change(st: &State, method: &str, path: &str, body: Option<&Value>) -> Option<String> {
    if !method.eq_ignore_ascii_case("PATCH") || !template_matches("/channels/{c}", path) {
        return None;
    }
    let id = path.split('/').rfind(|s| !s.is_empty())?;
    let body = body?.as_object()?;
    let ch = st
        .guilds
        .iter()
        .find_map(|g| g.channels.iter().find(|c| c.id == id))?;
    let name_changes = body
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| stored_channel_name(ch.kind, n) != ch.name);
    let topic_changes = match body.get("topic") {
        None => false,
        Some(Value::Null) => ch.topic.as_deref().is_some_and(|t| !t.is_empty()),
        Some(Value::String(t)) => t.as_str() != ch.topic.as_deref().unwrap_or(""),
        Some(_) => false,
    };
    (name_changes || topic_changes).then(|| id.to_owned())
}

/// What `limit` let through: the bucket headers to send and the name/topic
/// slot taken (channel, window start) to give back if the change failed.
pub(crate) struct Passed {
    pub info: Option<BucketInfo>,
    pub reserved: Option<(String, f64)>,
    pub scope_on_success: bool,
}

pub(crate) enum Decision {
    /// Rate limits are off.
    Off,
    Pass(Passed),
    /// The 429 to send.
    Refuse(Response),
}

/// A request the limits count: what it asks, and the bot that sends it (its user id;
/// empty for a webhook token route, whose credential is in its path).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limited<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub body: Option<&'a Value>,
    pub bot: &'a str,
}

/// The checks of `limit`, under the locks (state, then limiter).
pub(crate) fn decide(st: &State, lim: &mut Limiter, request: &Limited<'_>) -> Decision {
    let Limited {
        method,
        path,
        body,
        bot,
    } = *request;
    let cfg = &st.config;
    if !cfg.rate_limits_enabled {
        return Decision::Off;
    }
    let route = route_bucket(cfg, method, path);
    let sub_channel = name_topic_change(st, method, path, body);
    lim.clock.set_scale(cfg.time_scale);
    let now = lim.clock.now();
    let clock = &lim.clock;

    if !is_webhook_token_route(path) {
        let g = lim
            .global
            .entry(bot.to_owned())
            .or_insert_with(|| Window::new(now));
        if let Err(retry) = g.take(now, cfg.global_per_second, 1.0) {
            return Decision::Refuse(too_many(Scope::Global, clock.to_real(retry), None));
        }
    }

    let mut info = None;
    if let Some(r) = &route {
        let w = lim
            .buckets
            .entry((bot.to_owned(), r.bucket.clone(), r.major.clone()))
            .or_insert_with(|| Window::new(now));
        let (remaining, reset_after) = w.peek(now, r.limit, r.window);
        let bi = BucketInfo {
            limit: r.limit,
            remaining,
            reset_after: clock.to_real(reset_after),
            bucket: r.bucket.clone(),
        };
        if remaining == 0 {
            return Decision::Refuse(too_many(Scope::User, bi.reset_after, Some(&bi)));
        }
        info = Some(bi);
    }

    // The sublimit answers 429 while the route bucket still has room
    // (Remaining > 0); its scope is unverified, `user` here (§1.5).
    let mut reserved = None;
    if let Some(ch) = sub_channel {
        let w = lim
            .name_topic
            .entry(ch.clone())
            .or_insert_with(|| Window::new(now));
        match w.take(now, cfg.channel_name_topic_per_10min, NAME_TOPIC_WINDOW) {
            Err(retry) => {
                return Decision::Refuse(too_many(
                    Scope::User,
                    clock.to_real(retry),
                    info.as_ref(),
                ));
            }
            Ok(_) => reserved = Some((ch, w.start)),
        }
    }

    if let (Some(r), Some(bi)) = (&route, info.as_mut()) {
        let w = lim
            .buckets
            .entry((bot.to_owned(), r.bucket.clone(), r.major.clone()))
            .or_insert_with(|| Window::new(now));
        if let Ok((remaining, reset_after)) = w.take(now, r.limit, r.window) {
            bi.remaining = remaining;
            bi.reset_after = clock.to_real(reset_after);
        }
    }
    Decision::Pass(Passed {
        info,
        reserved,
        scope_on_success: cfg.scope_header_on_success,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments() {
        assert!(template_matches("/channels/{channel_id}", "/channels/123"));
        assert!(!template_matches(
            "/channels/{channel_id}",
            "/channels/123/webhooks"
        ));
        assert!(template_matches(
            "/guilds/{g}/roles/{r}",
            "/guilds/1/roles/2"
        ));
        assert!(!template_matches(
            "/guilds/{g}/widget",
            "/guilds/1/widget.json"
        ));
    }

    #[test]
    fn major_ids_are_the_top_level_resource() {
        assert_eq!(major_id("/guilds/1/roles/2"), "guilds/1");
        assert_eq!(major_id("/channels/9/permissions/3"), "channels/9");
        assert_eq!(major_id("/webhooks/5"), "webhooks/5");
        assert_eq!(major_id("/webhooks/5/tok"), "webhooks/5/tok");
        assert_eq!(major_id("/users/@me"), "");
    }

    #[test]
    fn the_role_create_bucket_wins_and_unlisted_routes_have_none() {
        let cfg = EmulatorConfig::default();
        let m = route_bucket(&cfg, "POST", "/guilds/1/roles").unwrap();
        assert_eq!((m.limit, m.window), (250, 172_800.0));
        assert_eq!(m.bucket, role_create_bucket());
        assert!(route_bucket(&cfg, "GET", "/guilds/1/roles").is_none());
        let e = route_bucket(&cfg, "patch", "/channels/7").unwrap();
        assert_eq!((e.limit, e.major.as_str()), (10, "channels/7"));
    }

    #[test]
    fn windows_are_fixed_and_reset() {
        let mut w = Window::new(0.0);
        assert_eq!(w.take(0.0, 2, 10.0), Ok((1, 10.0)));
        assert_eq!(w.take(4.0, 2, 10.0), Ok((0, 6.0)));
        assert_eq!(w.take(5.0, 2, 10.0), Err(5.0));
        assert_eq!(w.take(10.0, 2, 10.0), Ok((1, 10.0)));
    }

    #[test]
    fn the_clock_scales_and_advances() {
        let mut c = Clock::default();
        c.set_scale(1000.0);
        c.advance(600.0);
        assert!(c.now() >= 600.0);
        assert_eq!(c.to_real(600.0), 0.6);
        c.set_scale(f64::NAN);
        assert_eq!(c.scale(), 1.0);
    }
}
