//! The control endpoints (`/_emulator/*`) answer only requests addressed to a
//! loopback host, and take bodies only as JSON: a web page on the same machine can
//! neither write to them cross-site (a form or a plain `fetch` sends `text/plain`) nor
//! read or write them through DNS rebinding (its requests carry its own host name).
//! Requests are written by hand over TCP, so the test says exactly what is sent.

use crate::emulator_support;

use discord_emulator::{FaultKind, FaultRule, FaultSet};
use emulator_support::T;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One HTTP/1.1 request as written (`head` without the blank line, then `body`); the
/// status and the JSON body of the answer.
async fn raw(t: &T, head: &str, body: &str) -> (u16, Value) {
    let addr = t.emu.base_url.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let len = if body.is_empty() {
        String::new()
    } else {
        format!("Content-Length: {}\r\n", body.len())
    };
    let req = format!("{head}\r\n{len}Connection: close\r\n\r\n{body}");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text}"));
    let (_, body) = text.split_once("\r\n\r\n").unwrap_or(("", ""));
    // Small answers come whole; a chunked one is not JSON as it stands.
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn port(t: &T) -> String {
    t.emu.base_url.rsplit(':').next().unwrap().to_owned()
}

/// A valid fault set: what a hostile page would like to install.
const FAULTS: &str = r#"{"rules": [{"path": "/**", "kind": {"status": 500}}]}"#;

#[tokio::test]
async fn a_control_request_for_another_host_is_refused_reads_included() {
    let t = T::new().await;
    let state = serde_json::to_string(&t.emu.state()).unwrap();
    let p = port(&t);
    let hosts = [
        "evil.example".to_owned(),
        format!("evil.example:{p}"),
        format!("127.0.0.1.evil.example:{p}"),
        format!("localhost.evil.example:{p}"),
        format!("192.168.1.10:{p}"),
    ];
    for host in &hosts {
        for (head, body) in [
            ("GET /_emulator/state HTTP/1.1", ""),
            ("GET /_emulator/requests HTTP/1.1", ""),
            ("POST /_emulator/faults HTTP/1.1", FAULTS),
            ("PUT /_emulator/state HTTP/1.1", state.as_str()),
            ("DELETE /_emulator/faults HTTP/1.1", ""),
            ("GET /_emulator/nowhere HTTP/1.1", ""),
        ] {
            let head = format!("{head}\r\nHost: {host}\r\nContent-Type: application/json");
            let (status, answer) = raw(&t, &head, body).await;
            assert_eq!(status, 403, "{head}");
            let message = answer["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with(
                    "the emulator's control endpoints answer only requests addressed to a loopback host"
                ),
                "{head}: {answer}"
            );
            assert!(
                message.contains(&format!("not Host: {host:?}")),
                "{message}"
            );
            // Nothing of the state leaks: no token in the refusal.
            assert!(!answer.to_string().contains(&t.emu.token));
        }
    }
    assert_eq!(
        t.emu.faults(),
        FaultSet::default(),
        "no fault was installed"
    );

    // A request that names no host at all (HTTP/1.0 without Host) is refused too.
    let (status, answer) = raw(&t, "GET /_emulator/state HTTP/1.0", "").await;
    assert_eq!(status, 403);
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("only requests that name their host"),
        "{answer}"
    );
}

#[tokio::test]
async fn loopback_hosts_are_answered_with_or_without_a_port() {
    let t = T::new().await;
    let p = port(&t);
    for host in [
        format!("127.0.0.1:{p}"),
        "127.0.0.1".to_owned(),
        format!("127.3.2.1:{p}"),
        format!("localhost:{p}"),
        "LOCALHOST".to_owned(),
        format!("[::1]:{p}"),
        "[::1]".to_owned(),
    ] {
        let (status, config) = raw(
            &t,
            &format!("GET /_emulator/config HTTP/1.1\r\nHost: {host}"),
            "",
        )
        .await;
        assert_eq!(status, 200, "{host}");
        assert_eq!(config["global_per_second"], 50, "{host}");
    }
}

#[tokio::test]
async fn a_control_body_that_is_not_declared_json_is_refused() {
    let t = T::new().await;
    let host = format!("Host: 127.0.0.1:{}", port(&t));
    // The three types a browser sends cross-site without asking first, and none.
    for content_type in [
        "Content-Type: text/plain",
        "Content-Type: text/plain;charset=UTF-8",
        "Content-Type: application/x-www-form-urlencoded",
        "Content-Type: multipart/form-data; boundary=x",
        "Content-Type: application/jsonp",
        "X-No-Content-Type: 1",
    ] {
        for (head, body) in [
            ("POST /_emulator/faults HTTP/1.1", FAULTS),
            ("PUT /_emulator/config HTTP/1.1", r#"{"time_scale": 2}"#),
            (
                "POST /_emulator/clock HTTP/1.1",
                r#"{"advance_seconds": 600}"#,
            ),
            ("DELETE /_emulator/requests HTTP/1.1", "{}"),
        ] {
            let head = format!("{head}\r\n{host}\r\n{content_type}");
            let (status, answer) = raw(&t, &head, body).await;
            assert_eq!(status, 415, "{head}");
            let message = answer["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with(
                    "the emulator's control endpoints take a body only as JSON: send Content-Type: application/json"
                ),
                "{head}: {answer}"
            );
        }
    }
    // A POST without a body still writes: it must say JSON too.
    let (status, _) = raw(&t, &format!("POST /_emulator/clock HTTP/1.1\r\n{host}"), "").await;
    assert_eq!(status, 415);
    assert_eq!(
        t.emu.faults(),
        FaultSet::default(),
        "no fault was installed"
    );
    assert_eq!(t.emu.config().time_scale, emulator_support::TEST_TIME_SCALE);
}

#[tokio::test]
async fn the_normal_json_request_is_accepted() {
    let t = T::new().await;
    let host = format!("Host: 127.0.0.1:{}", port(&t));
    for content_type in [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
    ] {
        let head =
            format!("POST /_emulator/faults HTTP/1.1\r\n{host}\r\nContent-Type: {content_type}");
        let (status, set) = raw(&t, &head, FAULTS).await;
        assert_eq!(status, 200, "{content_type}");
        assert_eq!(set["rules"][0]["kind"], json!({"status": 500}));
        assert_eq!(t.emu.faults().rules[0].kind, FaultKind::Status(500));
        t.emu.clear_faults();
    }
    // A DELETE without a body needs no Content-Type.
    t.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "*".into(),
                path: "/**".into(),
                probability: 1.0,
                kind: FaultKind::Status(500),
            }],
        })
        .unwrap();
    let (status, _) = raw(
        &t,
        &format!("DELETE /_emulator/faults HTTP/1.1\r\n{host}"),
        "",
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(t.emu.faults(), FaultSet::default());
    // And reqwest's `.json()`, as the tests and README examples send it.
    let r = t
        .http
        .post(format!("{}/_emulator/faults", t.emu.base_url))
        .json(&serde_json::from_str::<Value>(FAULTS).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn api_routes_do_not_check_the_host_the_token_guards_them() {
    // Decided in crates/emulator/README.md ("Control endpoints"): Discord's API answers
    // whatever the Host, and every route that is not public wants a token.
    let t = T::new().await;
    let (status, me) = raw(
        &t,
        &format!(
            "GET /api/v10/users/@me HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bot {}",
            t.emu.token
        ),
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(me["bot"], true);
    let (status, _) = raw(
        &t,
        "GET /api/v10/users/@me HTTP/1.1\r\nHost: evil.example",
        "",
    )
    .await;
    assert_eq!(status, 401);
}

/// Started without its control endpoints, a server answers every `/_emulator/*` path, in
/// any spelling its path decoding accepts, with Discord's 404, and still serves the API to
/// its token; its owner controls it through its methods.
#[tokio::test]
async fn a_server_started_without_control_serves_only_the_api() {
    let emu = discord_emulator::RunningEmulator::start_without_control(
        discord_emulator::EmulatorOptions::default(),
    )
    .await
    .unwrap();
    let t = T {
        emu,
        http: reqwest::Client::new(),
    };
    let p = port(&t);
    let state = serde_json::to_string(&t.emu.state()).unwrap();
    for (head, body) in [
        (
            format!("GET /_emulator/state HTTP/1.1\r\nHost: 127.0.0.1:{p}"),
            "",
        ),
        (
            format!(
                "PUT /_emulator/state HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nContent-Type: application/json"
            ),
            state.as_str(),
        ),
        (
            format!(
                "POST /_emulator/faults HTTP/1.1\r\nHost: localhost:{p}\r\nContent-Type: application/json"
            ),
            FAULTS,
        ),
        (
            format!("GET /_emulator/requests HTTP/1.1\r\nHost: 127.0.0.1:{p}"),
            "",
        ),
        (
            format!("GET /%5Femulator/state HTTP/1.1\r\nHost: 127.0.0.1:{p}"),
            "",
        ),
        (
            format!("GET /%5femulator/config HTTP/1.1\r\nHost: [::1]:{p}"),
            "",
        ),
    ] {
        let (status, answer) = raw(&t, &head, body).await;
        assert_eq!(status, 404, "{head}: {answer}");
        assert_eq!(answer["code"], 0, "{head}: Discord's 404: {answer}");
    }
    assert!(t.emu.faults().rules.is_empty(), "no fault was installed");
    let (status, me) = t.call(reqwest::Method::GET, "/users/@me", None, None).await;
    assert_eq!(status, 200, "{me}");
    let (status, _) = raw(
        &t,
        &format!("GET /api/v10/users/@me HTTP/1.1\r\nHost: 127.0.0.1:{p}"),
        "",
    )
    .await;
    assert_eq!(status, 401, "the API still wants the token");
    t.emu.shutdown().await;
}
