//! The `body` fault: a 200 with a body of the test's choosing, for testing
//! clients against responses Discord would never send.
//!
//! A test binary of its own, beside `tests/suite`: it measures the process's peak memory
//! (`VmHWM`), which the other tests would raise if they shared its process.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "suite/emulator_support.rs"]
#[allow(dead_code)] // This file uses a part of it.
mod emulator_support;

use discord_emulator::{FaultKind, FaultRule, FaultSet};
use emulator_support::T;

#[tokio::test]
async fn a_body_fault_answers_200_with_the_text_and_does_no_write() {
    let t = T::new().await;
    let g = t.emu.guild_id.clone();
    let broken = "[{\"id\": \"1\", \"type\": 0, \"name\": \"trunc";
    t.emu
        .set_faults(FaultSet {
            seed: Some(3),
            rules: vec![
                FaultRule {
                    method: "GET".into(),
                    path: "/guilds/*/channels".into(),
                    probability: 1.0,
                    kind: FaultKind::Body(broken.into()),
                },
                FaultRule {
                    method: "PATCH".into(),
                    path: "/guilds/*".into(),
                    probability: 1.0,
                    kind: FaultKind::Body("not json".into()),
                },
            ],
        })
        .unwrap();
    let get = |path: String| {
        t.http
            .get(format!("{}{path}", t.emu.api_base))
            .header("Authorization", format!("Bot {}", t.emu.token))
            .send()
    };
    let resp = get(format!("/guilds/{g}/channels")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    assert_eq!(resp.text().await.unwrap(), broken);

    // A matching write is answered the same way, and not done.
    let patch = t
        .http
        .patch(format!("{}/guilds/{g}", t.emu.api_base))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .json(&serde_json::json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status().as_u16(), 200);
    assert_eq!(patch.text().await.unwrap(), "not json");
    assert_eq!(t.emu.state().guilds[0].name, "Ferris Fans");

    // Other routes are untouched.
    let guild: serde_json::Value = get(format!("/guilds/{g}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(guild["id"], g.as_str());

    let log = t.emu.requests();
    assert_eq!(log[0].fault.as_deref(), Some("body"));
    assert_eq!(log[0].status, 200);
    assert_eq!(log[1].fault.as_deref(), Some("body"));
    assert_eq!(log[2].fault, None);
}

#[tokio::test]
async fn the_body_kind_is_posted_as_json() {
    let t = T::new().await;
    let resp = t
        .http
        .post(format!("{}/_emulator/faults", t.emu.base_url))
        .json(&serde_json::json!({"rules": [
            {"method": "GET", "path": "/guilds/*/roles", "kind": {"body": "{}"}}
        ]}))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    assert_eq!(t.emu.faults().rules[0].kind, FaultKind::Body("{}".into()));
}

/// The process's peak resident memory so far (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Installs an `oversized_body` fault of `bytes` on `GET /guilds/*/channels` over HTTP.
async fn oversize(t: &T, bytes: u64, content_length: bool) {
    let resp = t
        .http
        .post(format!("{}/_emulator/faults", t.emu.base_url))
        .json(&serde_json::json!({"seed": 1, "rules": [
            {"method": "GET", "path": "/guilds/*/channels",
             "kind": {"oversized_body": {"bytes": bytes, "content_length": content_length}}}
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
}

const MB200: u64 = 200_000_000;

#[tokio::test]
async fn an_oversized_body_is_announced_in_content_length_and_starts_like_json() {
    let t = T::new().await;
    oversize(&t, MB200, true).await;
    let mut resp = t
        .http
        .get(format!(
            "{}/guilds/{}/channels",
            t.emu.api_base, t.emu.guild_id
        ))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.content_length(), Some(MB200));
    assert_eq!(resp.headers()["content-type"], "application/json");
    let first = resp.chunk().await.unwrap().unwrap();
    assert!(first.starts_with(b"["), "{first:?}");
    // Hanging up early is fine: the emulator stops sending.
    drop(resp);
    let log = t.emu.requests();
    assert_eq!(log[0].fault.as_deref(), Some("oversized_body"));
    assert_eq!(log[0].status, 200);
    assert_eq!(
        t.emu.state().guilds[0].channels,
        discord_emulator::default_state().guilds[0].channels,
        "no write"
    );

    // A small one arrives whole, to the byte.
    oversize(&t, 100_000, true).await;
    let body = t
        .http
        .get(format!(
            "{}/guilds/{}/channels",
            t.emu.api_base, t.emu.guild_id
        ))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(body.len(), 100_000);
    assert!(body.starts_with(b"[{\"id\": \"0\", \"name\": \"filler\"}, "));
}

#[tokio::test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "reads the process's peak memory from Linux's /proc/self/status"
)]
async fn an_unannounced_oversized_body_streams_200_mb_chunked_without_holding_it() {
    let t = T::new().await;
    oversize(&t, MB200, false).await;
    let before = peak_rss().expect("Linux's /proc/self/status has VmHWM");
    let mut resp = t
        .http
        .get(format!(
            "{}/guilds/{}/channels",
            t.emu.api_base, t.emu.guild_id
        ))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.content_length(), None, "no Content-Length");
    assert_eq!(resp.headers()["transfer-encoding"], "chunked");
    let mut total = 0u64;
    while let Some(chunk) = resp.chunk().await.unwrap() {
        total += chunk.len() as u64;
    }
    assert_eq!(total, MB200, "every byte arrives");
    // Sender and reader share this process: 200 MB went through it, and its peak
    // memory grew by far less.
    let after = peak_rss().expect("Linux's /proc/self/status has VmHWM");
    let grown = after.saturating_sub(before);
    assert!(grown < 50_000_000, "peak memory grew by {grown} bytes");
}

#[test]
fn an_oversized_body_needs_a_size() {
    let set: FaultSet = serde_json::from_value(serde_json::json!({"rules": [
        {"path": "/**", "kind": {"oversized_body": {"bytes": 0}}}
    ]}))
    .unwrap();
    assert!(set.validate().is_err());
}
