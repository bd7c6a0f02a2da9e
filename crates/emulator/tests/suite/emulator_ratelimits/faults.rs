//! Fault injection (status, latency, dropped connections, 429 storms, timeouts, seeds),
//! observed over real HTTP on loopback.

use super::*;

// ----------------------------------------------------------------- faults

#[tokio::test]
async fn a_status_fault_answers_without_doing_the_write() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: Some(5),
            rules: vec![rule("PATCH", "/guilds/*", 1.0, FaultKind::Status(502))],
        })
        .unwrap();
    let r = raw(
        &t,
        Method::PATCH,
        &format!("/guilds/{}", t.g()),
        Some(json!({"name": "Broken"})),
    )
    .await;
    assert_eq!(r.status, 502);
    assert_eq!(r.body, json!({"message": "502: Bad Gateway", "code": 0}));
    assert_eq!(t.emu.state().guilds[0].name, "Ferris Fans");
    // Only matching methods: GET is untouched.
    assert_eq!(
        raw(&t, Method::GET, &format!("/guilds/{}", t.g()), None)
            .await
            .status,
        200
    );
    let log = t.emu.requests();
    assert_eq!(log[0].status, 502);
    assert_eq!(log[0].fault.as_deref(), Some("status"));
    assert_eq!(log[1].fault, None);
}

#[tokio::test]
async fn latency_delays_the_response() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("*", "/users/@me", 1.0, FaultKind::LatencyMs(150))],
        })
        .unwrap();
    let start = Instant::now();
    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 200);
    assert!(start.elapsed() >= Duration::from_millis(150));
    assert_eq!(t.emu.requests()[0].fault.as_deref(), Some("latency"));
}

/// `PATCH /guilds/{g}` `{}` over a bare socket: everything the server sends
/// before it closes the connection.
async fn wire_patch_guild(t: &T) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = t.emu.base_url.trim_start_matches("http://").to_owned();
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "PATCH /api/v10/guilds/{} HTTP/1.1\r\nHost: x\r\nAuthorization: Bot {}\r\n\
         Connection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}",
        t.g(),
        t.emu.token
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), sock.read_to_end(&mut got))
        .await
        .expect("closed, not hung");
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test]
async fn drop_before_closes_the_connection_and_changes_nothing() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("PATCH", "/guilds/*", 1.0, FaultKind::DropBefore)],
        })
        .unwrap();
    let audit_before = t.emu.state().guilds[0].audit_log.len();
    let r = try_raw(
        &t,
        Method::PATCH,
        &format!("/guilds/{}", t.g()),
        Some(json!({"name": "Never"})),
        Some(Duration::from_secs(5)),
    )
    .await;
    let e = r.err().expect("no response");
    assert!(!e.is_timeout(), "closed, not hung: {e}");
    let st = t.emu.state();
    assert_eq!(st.guilds[0].name, "Ferris Fans");
    assert_eq!(st.guilds[0].audit_log.len(), audit_before);
    let log = t.emu.requests();
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].status, log[0].fault.as_deref()),
        (0, Some("drop_before"))
    );

    // On the wire: not one byte comes back before the connection closes
    // (and without the fault the same bytes get a response).
    assert_eq!(wire_patch_guild(&t).await, "");
    t.emu.clear_faults();
    assert!(wire_patch_guild(&t).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn drop_after_does_the_write_then_closes_the_connection() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("PATCH", "/guilds/*", 1.0, FaultKind::DropAfter)],
        })
        .unwrap();
    let audit_before = t.emu.state().guilds[0].audit_log.len();
    let r = try_raw(
        &t,
        Method::PATCH,
        &format!("/guilds/{}", t.g()),
        Some(json!({"name": "Written"})),
        Some(Duration::from_secs(5)),
    )
    .await;
    assert!(r.is_err(), "no response");
    let st = t.emu.state();
    assert_eq!(st.guilds[0].name, "Written");
    assert_eq!(st.guilds[0].audit_log.len(), audit_before + 1);
    let log = t.emu.requests();
    assert_eq!(log.len(), 1, "the client did not resend");
    assert_eq!(
        (log[0].status, log[0].fault.as_deref()),
        (0, Some("drop_after"))
    );
}

#[tokio::test]
async fn a_storm_answers_429s_for_its_count_then_lets_requests_through() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule(
                "PATCH",
                "/channels/*",
                1.0,
                FaultKind::Storm429(Storm {
                    count: 3,
                    retry_after: 0.05,
                    scope: Scope::User,
                }),
            )],
        })
        .unwrap();
    let path = format!("/channels/{}", t.chan("general"));
    for _ in 0..3 {
        let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
        assert_eq!(r.status, 429);
        assert_eq!(r.h("retry-after"), Some("1"));
        assert_eq!(r.body["retry_after"], 0.05);
        assert_eq!(r.h("x-ratelimit-scope"), Some("user"));
        assert_eq!(r.h("x-ratelimit-remaining"), Some("0"));
        assert_eq!(r.h("x-ratelimit-reset-after"), Some("0.050"));
    }
    assert!(
        !t.channel(&t.chan("general")).await["nsfw"]
            .as_bool()
            .unwrap()
    );
    // p = 1.0 starts the next storm at once: clear the faults to get through.
    t.emu.clear_faults();
    let r = raw(&t, Method::PATCH, &path, Some(json!({"nsfw": true}))).await;
    assert_eq!(r.status, 200);

    // A global storm.
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule(
                "*",
                "/**",
                1.0,
                FaultKind::Storm429(Storm {
                    count: 1,
                    retry_after: 2.5,
                    scope: Scope::Global,
                }),
            )],
        })
        .unwrap();
    let r = raw(&t, Method::GET, "/users/@me", None).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.h("x-ratelimit-global"), Some("true"));
    assert_eq!(r.h("x-ratelimit-scope"), Some("global"));
    assert_eq!(r.h("retry-after"), Some("3"));
    assert_eq!(r.body["global"], true);
    assert_eq!(r.h("x-ratelimit-limit"), None);
}

#[tokio::test]
async fn a_timeout_hangs_past_the_client_and_ends_at_shutdown() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("GET", "/users/@me", 1.0, FaultKind::Timeout)],
        })
        .unwrap();
    let r = try_raw(
        &t,
        Method::GET,
        "/users/@me",
        None,
        Some(Duration::from_millis(200)),
    )
    .await;
    assert!(r.err().expect("no response").is_timeout());
    // Another request hangs too; shutdown does not wait 30 s for it.
    let http = t.http.clone();
    let url = format!("{}/users/@me", t.emu.api_base);
    let pending = tokio::spawn(async move { http.get(url).send().await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let start = Instant::now();
    t.emu.shutdown().await;
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(pending.await.unwrap().is_err());
}

#[tokio::test]
async fn faults_never_touch_the_control_endpoints() {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![rule("*", "/**", 1.0, FaultKind::Status(500))],
        })
        .unwrap();
    assert_eq!(raw(&t, Method::GET, "/users/@me", None).await.status, 500);
    let r = t
        .http
        .get(format!("{}/_emulator/state", t.emu.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn the_faults_endpoint_sets_lists_and_clears() {
    let t = T::new().await;
    let base = &t.emu.base_url;
    let body = json!({"rules": [
        {"method": "PATCH", "path": "/channels/*", "probability": 0.5, "kind": {"status": 500}},
        {"method": "*", "path": "/guilds/*/roles", "probability": 0.1, "kind": "drop_after"},
        {"path": "/**", "kind": {"latency_ms": 1}},
        {"path": "/guilds/*", "kind": {"storm_429": {"count": 50, "retry_after": 0.05, "scope": "shared"}}},
        {"path": "/webhooks/*", "probability": 0, "kind": "timeout"},
        {"path": "/users/*", "probability": 0, "kind": "drop_before"}
    ]});
    let r = t
        .http
        .post(format!("{base}/_emulator/faults"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let set: Value = r.json().await.unwrap();
    let seed = set["seed"].as_u64().expect("a seed was chosen");
    assert_eq!(set["rules"].as_array().unwrap().len(), 6);
    let listed: Value = t
        .http
        .get(format!("{base}/_emulator/faults"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed, set);
    assert_eq!(t.emu.faults().seed, Some(seed));
    assert_eq!(t.emu.faults().rules[1].kind, FaultKind::DropAfter);

    let bad = t
        .http
        .post(format!("{base}/_emulator/faults"))
        .json(&json!({"rules": [{"path": "/**", "probability": 2, "kind": "timeout"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert_eq!(t.emu.faults().rules.len(), 6, "a bad set changes nothing");

    let r = t
        .http
        .delete(format!("{base}/_emulator/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(t.emu.faults(), FaultSet::default());
}

/// The statuses 40 calls get under a 50 % fault.
async fn statuses_with_seed(seed: u64) -> Vec<u16> {
    let t = T::new().await;
    t.emu
        .set_faults(FaultSet {
            seed: Some(seed),
            rules: vec![
                rule("GET", "/users/@me", 0.5, FaultKind::Status(503)),
                rule("GET", "/users/@me", 0.3, FaultKind::Status(500)),
            ],
        })
        .unwrap();
    let mut out = Vec::new();
    for _ in 0..40 {
        out.push(raw(&t, Method::GET, "/users/@me", None).await.status);
    }
    out
}

#[tokio::test]
async fn the_same_seed_gives_the_same_faults() {
    let a = statuses_with_seed(1234).await;
    assert_eq!(a, statuses_with_seed(1234).await);
    assert_ne!(a, statuses_with_seed(4321).await);
    for s in [200, 500, 503] {
        assert!(a.contains(&s), "{s} in {a:?}");
    }
}
