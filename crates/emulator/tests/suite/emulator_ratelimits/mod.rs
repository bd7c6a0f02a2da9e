//! The emulator's rate limits (docs/discord.md §1) and fault injection,
//! observed over real HTTP on loopback. Emulated time runs fast or is advanced
//! by hand, so windows of minutes or days take no real time.
//!
//! Headers, buckets, invalid requests and the control endpoints are here; fault
//! injection is in `faults`.

mod faults;

use crate::emulator_support;

use std::time::{Duration, Instant};

use discord_emulator::config::role_create_bucket;
use discord_emulator::{
    EmulatorConfig, FaultKind, FaultRule, FaultSet, RouteBucket, Scope, Storm, default_state,
};
use emulator_support::T;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

/// One response with its headers.
struct Resp {
    status: u16,
    headers: HeaderMap,
    body: Value,
}

impl Resp {
    fn h(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    fn f(&self, name: &str) -> f64 {
        self.h(name)
            .unwrap_or_else(|| panic!("header {name}"))
            .parse()
            .unwrap_or_else(|_| panic!("{name} is a number"))
    }
    fn has_bucket_headers(&self) -> bool {
        self.headers
            .keys()
            .any(|k| k.as_str().starts_with("x-ratelimit-"))
    }
}

/// An emulator whose config is exactly `cfg` (the harness would speed up a
/// default time scale).
async fn start(cfg: EmulatorConfig) -> T {
    let t = T::with(default_state()).await;
    t.emu.set_config(cfg).expect("a valid config");
    t
}

/// The default config at a chosen time scale.
fn scaled(time_scale: f64) -> EmulatorConfig {
    EmulatorConfig {
        time_scale,
        ..EmulatorConfig::default()
    }
}

async fn raw(t: &T, method: Method, path: &str, body: Option<Value>) -> Resp {
    try_raw(t, method, path, body, None)
        .await
        .expect("a response")
}

/// `Err` when the connection failed (dropped, timed out).
async fn try_raw(
    t: &T,
    method: Method,
    path: &str,
    body: Option<Value>,
    timeout: Option<Duration>,
) -> Result<Resp, reqwest::Error> {
    let mut rb = t
        .http
        .request(method, format!("{}{}", t.emu.api_base, path))
        .header("Authorization", format!("Bot {}", t.emu.token));
    if let Some(b) = body {
        rb = rb.json(&b);
    }
    if let Some(d) = timeout {
        rb = rb.timeout(d);
    }
    let resp = rb.send().await?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await?;
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).expect("json body")
    };
    Ok(Resp {
        status,
        headers,
        body,
    })
}

async fn unauthenticated(t: &T, path: &str) -> u16 {
    t.http
        .get(format!("{}{path}", t.emu.api_base))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn bucket(method: &str, route: &str, limit: u32, window_seconds: f64, name: &str) -> RouteBucket {
    RouteBucket {
        method: method.into(),
        route: route.into(),
        limit,
        window_seconds,
        bucket: format!("{name:0>32}"),
    }
}

fn rule(method: &str, path: &str, probability: f64, kind: FaultKind) -> FaultRule {
    FaultRule {
        method: method.into(),
        path: path.into(),
        probability,
        kind,
    }
}

fn now_epoch() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn assert_3_decimals(v: &str) {
    let (_, frac) = v
        .split_once('.')
        .unwrap_or_else(|| panic!("{v} has decimals"));
    assert_eq!(frac.len(), 3, "{v}");
}

// ---------------------------------------------------------------- headers

#[tokio::test]
async fn limited_routes_send_the_five_bucket_headers_and_unlimited_ones_none() {
    let t = start(scaled(1.0)).await;
    let general = t.chan("general");
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{general}"),
        Some(json!({"nsfw": true})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // PATCH /channels/{id}: 10 per 15 s by default (§1.5).
    assert_eq!(r.h("x-ratelimit-limit"), Some("10"));
    assert_eq!(r.h("x-ratelimit-remaining"), Some("9"));
    let after = r.f("x-ratelimit-reset-after");
    assert!(after > 14.0 && after <= 15.0, "{after}");
    assert_3_decimals(r.h("x-ratelimit-reset-after").unwrap());
    let reset = r.f("x-ratelimit-reset");
    assert!((reset - (now_epoch() + after)).abs() < 2.0, "{reset}");
    assert_3_decimals(r.h("x-ratelimit-reset").unwrap());
    let b = r.h("x-ratelimit-bucket").unwrap();
    assert!(
        b.len() == 32 && b.bytes().all(|c| c.is_ascii_hexdigit()),
        "{b}"
    );
    // Documented behaviour: no scope and no global flag on a 2xx.
    assert_eq!(r.h("x-ratelimit-scope"), None);
    assert_eq!(r.h("x-ratelimit-global"), None);
    assert_eq!(r.h("retry-after"), None);

    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{general}"),
        Some(json!({"name": ""})),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.h("x-ratelimit-remaining"), Some("8"), "errors count too");

    // Reads other than members have no per-route limit.
    for path in [
        format!("/guilds/{}", t.g()),
        format!("/guilds/{}/channels", t.g()),
        "/users/@me".to_owned(),
    ] {
        let r = raw(&t, Method::GET, &path, None).await;
        assert_eq!(r.status, 200);
        assert!(!r.has_bucket_headers(), "{path}: {:?}", r.headers);
    }
}

#[tokio::test]
async fn header_times_are_real_seconds_at_any_scale() {
    // 100× faster: the 15 s window of PATCH /channels/{id} lasts 0.15 s.
    let t = start(scaled(100.0)).await;
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{}", t.chan("general")),
        Some(json!({"nsfw": true})),
    )
    .await;
    let after = r.f("x-ratelimit-reset-after");
    assert!(after > 0.1 && after <= 0.15, "{after}");
}

#[tokio::test]
async fn the_scope_header_on_success_is_an_option() {
    let t = start(EmulatorConfig {
        scope_header_on_success: true,
        ..scaled(1.0)
    })
    .await;
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{}", t.chan("general")),
        Some(json!({"nsfw": true})),
    )
    .await;
    assert_eq!(r.h("x-ratelimit-scope"), Some("user"));
}

/// discord.py takes a 429 without `Via` for a Cloudflare ban (§9.3).
fn assert_via(r: &Resp, what: &str) {
    assert_eq!(r.h("via"), Some("1.1 google"), "{what}: {:?}", r.headers);
}

#[tokio::test]
async fn every_api_response_carries_via_429s_included() {
    // Emulated time all but stands still: only advance_clock opens windows.
    let mut cfg = scaled(1e-3);
    cfg.global_per_second = 10;
    cfg.invalid_requests_limit = 5;
    cfg.route_buckets = vec![bucket("PATCH", "/guilds/{guild_id}", 1, 60.0, "guild")];
    let t = start(cfg).await;
    let guild = format!("/guilds/{}", t.g());
    let general = format!("/channels/{}", t.chan("general"));

    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 200);
    assert_via(&r, "a 200");
    let r = raw(&t, Method::GET, "/no/such/route", None).await;
    assert_eq!(r.status, 404);
    assert_via(&r, "the framework 404");
    let r = t
        .http
        .get(format!("{}/api/v9/users/@me", t.emu.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.headers().get("via").unwrap(), "1.1 google", "outside v10");
    let r = raw(&t, Method::PATCH, &guild, Some(json!({"name": "Via"}))).await;
    assert_eq!(r.status, 200);
    let r = raw(&t, Method::PATCH, &guild, Some(json!({"name": "Via 2"}))).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.h("x-ratelimit-remaining"), Some("0"));
    assert_via(&r, "a route-bucket 429");
    for name in ["a", "b"] {
        let r = raw(&t, Method::PATCH, &general, Some(json!({"name": name}))).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = raw(&t, Method::PATCH, &general, Some(json!({"name": "c"}))).await;
    assert_eq!(r.status, 429);
    assert_eq!(
        r.h("x-ratelimit-global"),
        None,
        "the sublimit, not the global limit"
    );
    assert_via(&r, "a sublimit 429");
    // Seven requests so far: the eleventh in this emulated second is refused.
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let r = raw(&t, Method::GET, "/users/@me", None).await;
        statuses.push(r.status);
        if r.status == 429 {
            assert_eq!(r.h("x-ratelimit-global"), Some("true"));
            assert_via(&r, "a global 429");
        }
    }
    assert_eq!(statuses, [200, 200, 200, 429]);

    t.emu.advance_clock(1.0);
    for (kind, status) in [
        (
            FaultKind::Storm429(Storm {
                count: 1,
                retry_after: 0.1,
                scope: Scope::Shared,
            }),
            429,
        ),
        (FaultKind::Status(503), 503),
    ] {
        t.emu
            .set_faults(FaultSet {
                seed: Some(1),
                rules: vec![rule("GET", "/users/@me", 1.0, kind)],
            })
            .unwrap();
        let r = raw(&t, Method::GET, "/users/@me", None).await;
        assert_eq!(r.status, status);
        assert_via(&r, "an injected fault");
    }
    t.emu.clear_faults();

    // Three 429s counted so far; two 401s reach the limit of five.
    for _ in 0..2 {
        assert_eq!(unauthenticated(&t, "/users/@me").await, 401);
    }
    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 429);
    assert!(r.h("retry-after").is_none(), "the refusal: {}", r.body);
    assert_via(&r, "the invalid-request refusal");
}

// ---------------------------------------------------------------- buckets

#[tokio::test]
async fn an_exhausted_bucket_answers_429_with_every_header_until_it_resets() {
    let mut cfg = scaled(1.0);
    cfg.route_buckets = vec![bucket("PATCH", "/channels/{channel_id}", 2, 10.0, "edit")];
    let t = start(cfg).await;
    let path = format!("/channels/{}", t.chan("general"));
    for remaining in ["1", "0"] {
        let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.h("x-ratelimit-remaining"), Some(remaining));
    }
    let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": false}))).await;
    assert_eq!(r.status, 429, "{}", r.body);
    assert_eq!(r.h("x-ratelimit-limit"), Some("2"));
    assert_eq!(r.h("x-ratelimit-remaining"), Some("0"));
    assert_eq!(
        r.h("x-ratelimit-bucket"),
        Some(format!("{:0>32}", "edit").as_str())
    );
    assert_eq!(r.h("x-ratelimit-scope"), Some("user"));
    assert_eq!(r.h("x-ratelimit-global"), None);
    let after = r.f("x-ratelimit-reset-after");
    assert!(after > 9.0 && after <= 10.0, "{after}");
    assert!(r.f("x-ratelimit-reset") > now_epoch());
    // Retry-After is an integer (rounded up), the body's retry_after a float.
    assert_eq!(r.h("retry-after"), Some("10"));
    assert_eq!(r.body["message"], "You are being rate limited.");
    assert_eq!(r.body["global"], false);
    let retry = r.body["retry_after"].as_f64().unwrap();
    assert!(retry > 9.0 && retry <= 10.0, "{retry}");
    assert_eq!(
        t.channel(&t.chan("general")).await["nsfw"],
        true,
        "the limited call did nothing"
    );
    // The 429 is in the request log.
    let log = t.emu.requests();
    assert_eq!(
        log.iter().map(|r| r.status).collect::<Vec<_>>(),
        [200, 200, 429, 200]
    );

    // A virtual clock: ten seconds pass in no time.
    t.emu.advance_clock(10.0);
    let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.h("x-ratelimit-remaining"), Some("1"));
}

#[tokio::test]
async fn buckets_count_per_major_id_and_routes_share_a_hash() {
    let mut cfg = scaled(1.0);
    cfg.route_buckets = vec![
        bucket("PATCH", "/channels/{channel_id}", 1, 60.0, "edit"),
        bucket(
            "PUT",
            "/channels/{channel_id}/permissions/{overwrite_id}",
            2,
            60.0,
            "ow",
        ),
        bucket(
            "DELETE",
            "/channels/{channel_id}/permissions/{overwrite_id}",
            2,
            60.0,
            "ow",
        ),
    ];
    let t = start(cfg).await;
    let (a, b) = (t.chan("general"), t.chan("off-topic"));
    for ch in [&a, &b] {
        let r = raw(
            &t,
            Method::PATCH,
            &format!("/channels/{ch}"),
            Some(json!({"nsfw": true})),
        )
        .await;
        assert_eq!(r.status, 200, "each channel has its own counter");
    }
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{a}"),
        Some(json!({"nsfw": false})),
    )
    .await;
    assert_eq!(r.status, 429);

    // PUT and DELETE of overwrites share one bucket per channel.
    let helper = t.role("Helper");
    let ow = format!("/channels/{a}/permissions/{helper}");
    let put = json!({"type": 0, "allow": "1024", "deny": "0"});
    let r = raw(&t, Method::PUT, &ow, Some(put.clone())).await;
    assert_eq!((r.status, r.h("x-ratelimit-remaining")), (204, Some("1")));
    let r = raw(&t, Method::DELETE, &ow, None).await;
    assert_eq!((r.status, r.h("x-ratelimit-remaining")), (204, Some("0")));
    let r = raw(&t, Method::PUT, &ow, Some(put.clone())).await;
    assert_eq!(r.status, 429);
    assert_eq!(
        r.h("x-ratelimit-bucket"),
        Some(format!("{:0>32}", "ow").as_str())
    );
    let r = raw(
        &t,
        Method::PUT,
        &format!("/channels/{b}/permissions/{helper}"),
        Some(put),
    )
    .await;
    assert_eq!(r.status, 204, "another channel, another counter");
}

#[tokio::test]
async fn the_global_limit_spares_webhook_token_routes() {
    let t = start(EmulatorConfig {
        global_per_second: 3,
        ..scaled(1.0)
    })
    .await;
    for _ in 0..3 {
        assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
    }
    let r = raw(&t, Method::GET, &format!("/guilds/{}", t.g()), None).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.h("x-ratelimit-global"), Some("true"));
    assert_eq!(r.h("x-ratelimit-scope"), Some("global"));
    assert_eq!(r.body["global"], true);
    let retry = r.body["retry_after"].as_f64().unwrap();
    assert!(retry > 0.0 && retry <= 1.0, "{retry}");
    assert_eq!(r.h("retry-after"), Some("1"));
    assert_eq!(r.h("x-ratelimit-limit"), None, "no bucket headers");
    assert_eq!(r.h("x-ratelimit-bucket"), None);

    let st = t.emu.state();
    let ci = st.guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == "CI")
        .unwrap();
    let token = ci.token.clone().unwrap();
    let (s, _) = t
        .anonymous(Method::GET, &format!("/webhooks/{}/{token}", ci.id), None)
        .await;
    assert_eq!(s, 200, "token routes are not bound by the global limit");

    t.emu.advance_clock(1.0);
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
}

#[tokio::test]
async fn name_and_topic_changes_hit_a_sublimit_while_the_bucket_has_room() {
    let t = start(scaled(1.0)).await;
    let (general, memes) = (t.chan("general"), t.chan("memes"));
    let path = format!("/channels/{general}");
    for body in [json!({"name": "chat"}), json!({"topic": "Talk here"})] {
        let r = raw(&t, Method::PATCH, &path, Some(body)).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // Sending the current values changes nothing and is not limited.
    let r = raw(
        &t,
        Method::PATCH,
        &path,
        Some(json!({"name": "Chat", "topic": "Talk here"})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);

    let r = raw(&t, Method::PATCH, &path, Some(json!({"name": "lobby"}))).await;
    assert_eq!(r.status, 429);
    let remaining: u32 = r.h("x-ratelimit-remaining").unwrap().parse().unwrap();
    assert!(remaining > 0, "a sublimit: the route bucket still has room");
    assert_eq!(r.h("x-ratelimit-limit"), Some("10"));
    assert_eq!(r.h("x-ratelimit-scope"), Some("user"));
    let retry = r.body["retry_after"].as_f64().unwrap();
    assert!(retry > 590.0 && retry <= 600.0, "{retry}");
    assert_eq!(r.h("retry-after"), Some("600"));
    assert_eq!(t.channel(&general).await["name"], "chat");

    // Other fields of the same channel and other channels go on.
    let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
    assert_eq!(r.status, 200);
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{memes}"),
        Some(json!({"name": "memes-2"})),
    )
    .await;
    assert_eq!(r.status, 200);
    // A change that fails (400) gives its slot back.
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{memes}"),
        Some(json!({"name": ""})),
    )
    .await;
    assert_eq!(r.status, 400);
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/channels/{memes}"),
        Some(json!({"topic": "lol"})),
    )
    .await;
    assert_eq!(r.status, 200);

    t.emu.advance_clock(600.0);
    let r = raw(&t, Method::PATCH, &path, Some(json!({"name": "lobby"}))).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn role_creations_have_a_per_guild_bucket_of_two_days() {
    let mut cfg = scaled(1000.0);
    cfg.role_creates.limit = 3;
    let t = start(cfg).await;
    let path = format!("/guilds/{}/roles", t.g());
    for i in 0..3 {
        let r = raw(
            &t,
            Method::POST,
            &path,
            Some(json!({"name": format!("r{i}")})),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.h("x-ratelimit-limit"), Some("3"));
        assert_eq!(
            r.h("x-ratelimit-bucket"),
            Some(role_create_bucket().as_str())
        );
    }
    let r = raw(&t, Method::POST, &path, Some(json!({"name": "r3"}))).await;
    assert_eq!(r.status, 429);
    // 48 h at 1000×: 172.8 real seconds.
    let after = r.f("x-ratelimit-reset-after");
    assert!(after > 170.0 && after <= 172.8, "{after}");
    assert_eq!(r.h("retry-after"), Some("173"));
    assert_eq!(t.emu.state().guilds[0].roles.len(), 9 + 3);
    t.emu.advance_clock(48.0 * 3600.0);
    let r = raw(&t, Method::POST, &path, Some(json!({"name": "r3"}))).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn turning_rate_limits_off_removes_headers_and_429s() {
    let mut cfg = scaled(1.0);
    cfg.rate_limits_enabled = false;
    cfg.global_per_second = 1;
    cfg.role_creates.limit = 0;
    let t = start(cfg).await;
    for i in 0..3 {
        let r = raw(
            &t,
            Method::POST,
            &format!("/guilds/{}/roles", t.g()),
            Some(json!({"name": format!("r{i}")})),
        )
        .await;
        assert_eq!(r.status, 200);
        assert!(!r.has_bucket_headers());
    }
}

// ------------------------------------------------------- invalid requests

#[tokio::test]
async fn too_many_invalid_requests_get_the_api_refused_for_a_while() {
    let t = start(EmulatorConfig {
        invalid_requests_limit: 4,
        invalid_requests_block_seconds: 3600.0,
        ..scaled(1.0)
    })
    .await;
    // Shared-scope 429s do not count (§1.3).
    t.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![rule(
                "GET",
                "/guilds/*/channels",
                1.0,
                FaultKind::Storm429(Storm {
                    count: 10,
                    retry_after: 0.01,
                    scope: Scope::Shared,
                }),
            )],
        })
        .unwrap();
    for _ in 0..10 {
        let r = raw(
            &t,
            Method::GET,
            &format!("/guilds/{}/channels", t.g()),
            None,
        )
        .await;
        assert_eq!(r.status, 429);
        assert_eq!(r.h("x-ratelimit-scope"), Some("shared"));
        assert_eq!(r.body["message"], "The resource is being rate limited.");
    }
    t.emu.clear_faults();
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);

    // 401 (and 403, and other 429s) count: the fourth trips the refusal.
    for _ in 0..4 {
        assert_eq!(unauthenticated(&t, "/users/@me").await, 401);
    }
    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.body["code"], 0);
    assert!(
        r.body["message"]
            .as_str()
            .unwrap()
            .starts_with("You are being blocked from accessing our API temporarily")
    );
    assert_eq!(r.h("retry-after"), None);
    assert!(!r.has_bucket_headers());
    assert!(r.h("x-ratelimit-scope").is_none());

    t.emu.advance_clock(3600.0);
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
}

#[tokio::test]
async fn forbidden_and_limited_responses_count_as_invalid_too() {
    let mut cfg = scaled(1.0);
    cfg.invalid_requests_limit = 3;
    cfg.route_buckets = vec![bucket("PATCH", "/channels/{c}", 1, 60.0, "edit")];
    let t = start(cfg).await;
    let path = format!("/channels/{}", t.chan("general"));
    assert_eq!(
        raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true})))
            .await
            .status,
        200
    );
    for _ in 0..2 {
        let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
        assert_eq!(r.status, 429);
    }
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("GET", "/users/@me", 1.0, FaultKind::Status(403))],
        })
        .unwrap();
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 403);
    t.emu.clear_faults();
    let r = raw(&t, Method::GET, &format!("/guilds/{}", t.g()), None).await;
    assert_eq!(r.status, 429);
    assert!(r.body["message"].as_str().unwrap().contains("blocked"));
    t.emu.reset_rate_limits();
    assert_eq!(
        raw(&t, Method::GET, &format!("/guilds/{}", t.g()), None)
            .await
            .status,
        200
    );
}

// ---------------------------------------------------- control endpoints

#[tokio::test]
async fn config_and_clock_endpoints() {
    let t = T::new().await;
    let base = &t.emu.base_url;
    let mut cfg: Value = t
        .http
        .get(format!("{base}/_emulator/config"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(cfg["global_per_second"], 50);
    assert_eq!(cfg["channel_name_topic_per_10min"], 2);
    cfg["time_scale"] = json!(1.0);
    cfg["route_buckets"] = json!([
        {"method": "GET", "route": "/users/@me", "limit": 1, "window_seconds": 60, "bucket": "me"}
    ]);
    let r = t
        .http
        .put(format!("{base}/_emulator/config"))
        .json(&cfg)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(t.emu.config().route_buckets[0].bucket, "me");
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 429);

    let clock: Value = t
        .http
        .post(format!("{base}/_emulator/clock"))
        .json(&json!({"advance_seconds": 60}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(clock["now"].as_f64().unwrap() >= 60.0);
    assert_eq!(clock["time_scale"], 1.0);
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);

    cfg["time_scale"] = json!(0);
    let r = t
        .http
        .put(format!("{base}/_emulator/config"))
        .json(&cfg)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(
        t.emu
            .set_config(EmulatorConfig {
                time_scale: -1.0,
                ..EmulatorConfig::default()
            })
            .is_err()
    );
    let r = t
        .http
        .delete(format!("{base}/_emulator/ratelimits"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
}

/// Emoji routes are limited per guild, more strictly than the rest (§1.5): 50 creations
/// an hour by default, one edit and one deletion per 2 s, each guild on its own.
#[tokio::test]
async fn emoji_routes_have_strict_per_guild_buckets() {
    use discord_emulator::config::bucket_hash;
    use emulator_support::files::{data_uri, png};
    // An hour is 36 real seconds: far more than the test takes, so the window stays open.
    let t = T::with(discord_emulator::with_guild_copies(default_state(), 2)).await;
    t.emu.set_config(scaled(100.0)).unwrap();
    let other = t.emu.state().guilds[1].id.clone();
    let before = t.emu.state().guilds[0].emojis.len();
    let image = data_uri("image/png", &png(32, 32));
    let create = |guild: String, i: usize| {
        let body = json!({"name": format!("e{i}"), "image": image});
        let t = &t;
        async move {
            raw(
                t,
                Method::POST,
                &format!("/guilds/{guild}/emojis"),
                Some(body),
            )
            .await
        }
    };
    let mut last = None;
    for i in 0..50 {
        let r = create(t.g(), i).await;
        assert_eq!(r.status, 201, "{}", r.body);
        assert_eq!(r.h("x-ratelimit-limit"), Some("50"));
        assert_eq!(
            r.h("x-ratelimit-bucket"),
            Some(bucket_hash("emoji-create").as_str())
        );
        assert_eq!(r.f("x-ratelimit-remaining") as usize, 49 - i);
        last = Some(r);
    }
    let after = last.unwrap().f("x-ratelimit-reset-after");
    assert!(after > 30.0 && after <= 36.0, "an hour at 100×: {after}");
    let r = create(t.g(), 50).await;
    assert_eq!(r.status, 429);
    assert_eq!(
        (r.h("x-ratelimit-scope"), r.h("x-ratelimit-remaining")),
        (Some("user"), Some("0"))
    );
    let retry: u64 = r.h("retry-after").unwrap().parse().unwrap();
    assert!(
        (31..=36).contains(&retry),
        "whole real seconds, rounded up: {retry}"
    );
    assert_eq!(r.body["global"], false);
    assert_eq!(
        t.emu.state().guilds[0].emojis.len(),
        before + 50,
        "the 429 made nothing"
    );
    // Another guild has its own bucket.
    let r = create(other.clone(), 0).await;
    assert_eq!((r.status, r.h("x-ratelimit-remaining")), (201, Some("49")));
    // The hour passes.
    t.emu.advance_clock(3600.0);
    let r = create(t.g(), 51).await;
    assert_eq!(r.status, 201);
    // Edits and deletions: one per 2 s each.
    let id = r.body["id"].as_str().unwrap().to_owned();
    let one = format!("/guilds/{}/emojis/{id}", t.g());
    let r = raw(&t, Method::PATCH, &one, Some(json!({"name": "renamed"}))).await;
    assert_eq!((r.status, r.h("x-ratelimit-limit")), (200, Some("1")));
    let r = raw(&t, Method::PATCH, &one, Some(json!({"name": "again"}))).await;
    assert_eq!(r.status, 429);
    let r = raw(&t, Method::DELETE, &one, None).await;
    assert_eq!(
        (r.status, r.h("x-ratelimit-bucket")),
        (204, Some(bucket_hash("emoji-delete").as_str()))
    );
}

/// Discord counts each bot's requests apart (§1.1): a second bot's calls meet a global
/// window of their own, and a guild handed to it is its alone.
#[tokio::test]
async fn each_bot_has_its_own_global_limit() {
    let mut st = discord_emulator::with_guild_copies(default_state(), 2);
    let events = st.guilds[1].id.clone();
    let token_b =
        discord_emulator::with_second_bot(&mut st, "events-bot", std::slice::from_ref(&events));
    let t = T::with(st).await;
    t.emu
        .set_config(EmulatorConfig {
            global_per_second: 3,
            ..scaled(1.0)
        })
        .expect("a valid config");
    let as_b = |path: String| {
        t.http
            .get(format!("{}{path}", t.emu.api_base))
            .header("Authorization", format!("Bot {token_b}"))
            .send()
    };
    for _ in 0..3 {
        assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 200);
    }
    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 429, "the first bot's window is full");
    assert_eq!(r.h("x-ratelimit-scope"), Some("global"));

    let me = as_b("/users/@me".into()).await.unwrap();
    assert_eq!(me.status(), 200, "the second bot's window is its own");
    let me: Value = me.json().await.unwrap();
    assert_eq!(me["username"], "events-bot");
    assert_eq!(me["bot"], true);
    let guild = as_b(format!("/guilds/{events}")).await.unwrap();
    assert_eq!(
        guild.status(),
        200,
        "the guild handed over is the second bot's"
    );
    let other = as_b(format!("/guilds/{}", t.g())).await.unwrap();
    assert_ne!(
        other.status(),
        200,
        "the first bot's guild is not the second's"
    );

    t.emu.advance_clock(1.0);
    let r = raw(&t, Method::GET, &format!("/guilds/{events}"), None).await;
    assert_ne!(
        r.status, 200,
        "the first bot is no longer in the guild handed over"
    );
}
