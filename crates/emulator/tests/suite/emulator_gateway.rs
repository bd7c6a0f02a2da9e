//! The Gateway (v10, JSON): a real client nobody here wrote, twilight-gateway 0.18 (built
//! with zlib-stream, so its connections are compressed), and a raw WebSocket client for
//! what a library hides (close codes, heartbeats, RESUME by hand).

use std::time::Duration;

use discord_emulator::gateway::GatewayCommand;
use discord_emulator::{State, default_state};
use futures_util::{SinkExt, StreamExt as _};
use reqwest::Method;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use twilight_gateway::queue::Queue;
use twilight_gateway::{ConfigBuilder, Event, EventTypeFlags, Intents, Shard, ShardId, StreamExt};

use crate::emulator_support::T;

const WAIT: Duration = Duration::from_secs(10);

const GUILDS: u64 = 1;
const GUILD_MODERATION: u64 = 1 << 2;

/// Identifies at once: twilight's own queue waits 5 real seconds between two identifies of
/// a bucket, which the emulator's scaled clock does not need.
struct NoWait;

impl Queue for NoWait {
    fn enqueue(&self, _: u32) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let _ = tx.send(());
        rx
    }
}

fn shard(t: &T, id: ShardId, intents: Intents) -> Shard<NoWait> {
    let config = ConfigBuilder::new(t.emu.token.clone(), intents)
        .proxy_url(t.emu.gateway_url())
        .queue(NoWait)
        .build();
    Shard::with_config(id, config)
}

/// The next event twilight gives, within [`WAIT`].
async fn next(shard: &mut Shard<NoWait>) -> Event {
    tokio::time::timeout(WAIT, shard.next_event(EventTypeFlags::all()))
        .await
        .expect("an event in time")
        .expect("the stream goes on")
        .expect("the event parses")
}

/// Events until one `pick` takes, within [`WAIT`] in all.
async fn until<R>(shard: &mut Shard<NoWait>, mut pick: impl FnMut(&Event) -> Option<R>) -> R {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let e = tokio::time::timeout(left, next(shard))
            .await
            .expect("the awaited event in time");
        if let Some(r) = pick(&e) {
            return r;
        }
    }
}

#[tokio::test]
async fn twilight_identifies_and_is_told_the_guild_and_each_audit_entry_with_its_actor_and_reason()
{
    let t = T::new().await;
    let mut s = shard(
        &t,
        ShardId::ONE,
        Intents::GUILDS | Intents::GUILD_MODERATION,
    );
    let ready = until(&mut s, |e| match e {
        Event::Ready(r) => Some(r.clone()),
        _ => None,
    })
    .await;
    assert_eq!(ready.guilds.len(), 1);
    assert_eq!(ready.guilds[0].id.to_string(), t.g());
    assert_eq!(ready.shard, Some(ShardId::ONE));
    let created = until(&mut s, |e| match e {
        Event::GuildCreate(g) => Some(g.clone()),
        _ => None,
    })
    .await;
    assert_eq!(created.id().to_string(), t.g());

    let role = t.role("Moderator");
    let (status, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{}/roles/{role}", t.g()),
            Some(json!({"name": "Moderators"})),
            Some("renamed in review #12"),
        )
        .await;
    assert_eq!(status, 200);
    let entry = until(&mut s, |e| match e {
        Event::GuildAuditLogEntryCreate(a) => Some(a.clone()),
        _ => None,
    })
    .await;
    assert_eq!(entry.guild_id.map(|g| g.to_string()), Some(t.g()));
    assert_eq!(entry.target_id.map(|r| r.to_string()), Some(role));
    assert_eq!(entry.reason.as_deref(), Some("renamed in review #12"));
    let bot = t.emu.state().tokens[0].user_id.clone();
    assert_eq!(entry.user_id.map(|u| u.to_string()), Some(bot));
}

/// A raw WebSocket, for what twilight hides.
struct Raw {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

#[derive(Debug, PartialEq)]
enum Got {
    Payload(Value),
    Closed(Option<u16>),
}

impl Raw {
    async fn connect(url: &str) -> Raw {
        let (ws, _) = tokio_tungstenite::connect_async(format!("{url}/?v=10&encoding=json"))
            .await
            .expect("the Gateway accepts the connection");
        Raw { ws }
    }

    async fn send(&mut self, v: Value) {
        self.ws
            .send(WsMessage::Text(v.to_string().into()))
            .await
            .expect("sent");
    }

    async fn got(&mut self) -> Got {
        loop {
            let m = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("something in time");
            return match m {
                Some(Ok(WsMessage::Text(t))) => Got::Payload(serde_json::from_str(&t).unwrap()),
                Some(Ok(WsMessage::Close(f))) => Got::Closed(f.map(|f| u16::from(f.code))),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => Got::Closed(None),
            };
        }
    }

    /// The next payload of op `op` (dispatches and ACKs before it passed over).
    async fn op(&mut self, op: u64) -> Value {
        loop {
            match self.got().await {
                Got::Payload(p) if p["op"] == op => return p,
                Got::Payload(_) => {}
                Got::Closed(c) => panic!("closed ({c:?}) before op {op}"),
            }
        }
    }

    /// The next dispatch named `t`.
    async fn dispatch(&mut self, t: &str) -> Value {
        loop {
            let p = self.op(0).await;
            if p["t"] == t {
                return p;
            }
        }
    }

    /// HELLO, then IDENTIFY with `token`, `intents` and `shard`.
    async fn identify(url: &str, token: &str, intents: u64, shard: [u64; 2]) -> Raw {
        let mut raw = Raw::connect(url).await;
        raw.op(10).await;
        raw.send(json!({"op": 2, "d": {
            "token": token, "intents": intents, "shard": shard,
            "properties": {"os": "linux", "browser": "test", "device": "test"}
        }}))
        .await;
        raw
    }
}

fn identify_body(token: &str, intents: u64) -> Value {
    json!({"op": 2, "d": {"token": token, "intents": intents,
        "properties": {"os": "linux", "browser": "test", "device": "test"}}})
}

#[tokio::test]
async fn hello_then_heartbeats_are_acknowledged_and_a_silent_connection_is_closed() {
    let mut st = default_state();
    st.config.gateway.heartbeat_interval_ms = 200;
    let t = T::with(st).await;
    let mut raw = Raw::connect(&t.emu.gateway_url()).await;
    let hello = raw.op(10).await;
    assert_eq!(hello["d"]["heartbeat_interval"], 200);
    raw.send(json!({"op": 1, "d": null})).await;
    assert_eq!(raw.op(11).await["d"], Value::Null);
    // Nothing more is sent: past an interval and a half, Discord's 4009.
    assert_eq!(raw.got().await, Got::Closed(Some(4009)));
}

#[tokio::test]
async fn identify_is_refused_with_discords_close_codes() {
    let mut st = discord_emulator::with_guild_copies(default_state(), 2);
    st.config.gateway.guilds_per_shard = 1;
    let t = T::with(st).await;
    let url = t.emu.gateway_url();
    let token = t.emu.token.clone();
    let cases: [(Value, u16); 7] = [
        (identify_body("not-a-token", GUILDS), 4004),
        (identify_body(&token, 1 << 40), 4013),
        // GUILD_PRESENCES is privileged and not enabled for the application.
        (identify_body(&token, 1 << 8), 4014),
        (
            json!({"op": 2, "d": {"token": token, "intents": GUILDS, "shard": [2, 2],
                "properties": {"os": "l", "browser": "b", "device": "d"}}}),
            4010,
        ),
        // Two guilds on one shard, one allowed.
        (identify_body(&token, GUILDS), 4011),
        (json!({"op": 3, "d": {}}), 4003),
        (json!({"op": 42, "d": null}), 4001),
    ];
    for (payload, code) in cases {
        let mut raw = Raw::connect(&url).await;
        raw.op(10).await;
        raw.send(payload.clone()).await;
        assert_eq!(raw.got().await, Got::Closed(Some(code)), "{payload}");
    }
    let mut raw = Raw::connect(&url).await;
    raw.op(10).await;
    raw.ws
        .send(WsMessage::Text("{not json".into()))
        .await
        .unwrap();
    assert_eq!(raw.got().await, Got::Closed(Some(4002)));
}

#[tokio::test]
async fn too_many_sends_in_a_minute_close_the_connection_with_4008() {
    let t = T::new().await;
    let mut raw = Raw::connect(&t.emu.gateway_url()).await;
    raw.op(10).await;
    for _ in 0..121 {
        raw.send(json!({"op": 1, "d": null})).await;
    }
    let closed = loop {
        match raw.got().await {
            Got::Payload(p) => assert_eq!(p["op"], 11),
            Got::Closed(c) => break c,
        }
    };
    assert_eq!(closed, Some(4008));
}

#[tokio::test]
async fn gateway_bot_gives_the_url_the_shards_and_the_identify_budget() {
    let t = T::new().await;
    let (status, open) = t.anonymous(Method::GET, "/gateway", None).await;
    assert_eq!(status, 200);
    assert_eq!(open["url"], t.emu.gateway_url());
    let (status, bot) = t.get("/gateway/bot").await;
    assert_eq!(status, 200);
    assert_eq!(bot["url"], t.emu.gateway_url());
    assert_eq!(bot["shards"], 1);
    let limit = &bot["session_start_limit"];
    assert_eq!(limit["total"], 1000);
    assert_eq!(limit["remaining"], 1000);
    assert_eq!(limit["max_concurrency"], 1);
    assert!(limit["reset_after"].as_u64().unwrap() > 0);

    let mut raw = Raw::identify(&t.emu.gateway_url(), &t.emu.token, GUILDS, [0, 1]).await;
    raw.dispatch("READY").await;
    let (_, bot) = t.get("/gateway/bot").await;
    assert_eq!(bot["session_start_limit"]["remaining"], 999);
    // A second identify in the same bucket within 5 s is an invalid session.
    let mut again = Raw::identify(&t.emu.gateway_url(), &t.emu.token, GUILDS, [0, 1]).await;
    assert_eq!(again.op(9).await["d"], false);
}

#[tokio::test]
async fn resume_replays_what_a_dropped_connection_missed_then_says_resumed() {
    let t = T::new().await;
    let url = t.emu.gateway_url();
    let mut raw = Raw::identify(&url, &t.emu.token, GUILDS | GUILD_MODERATION, [0, 1]).await;
    let ready = raw.dispatch("READY").await;
    let session_id = ready["d"]["session_id"].as_str().unwrap().to_owned();
    let resume_url = ready["d"]["resume_gateway_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = raw.dispatch("GUILD_CREATE").await;
    let seq = created["s"].as_u64().unwrap();

    let reached = t
        .emu
        .gateway_command(&GatewayCommand {
            send: "drop".into(),
            resumable: true,
            code: None,
            session_id: None,
        })
        .unwrap();
    assert_eq!(reached, 1);
    assert_eq!(raw.got().await, Got::Closed(None));
    // Written while no connection was there to hear it.
    let role = t.role("Moderator");
    for name in ["one", "two"] {
        let (status, _) = t
            .call(
                Method::PATCH,
                &format!("/guilds/{}/roles/{role}", t.g()),
                Some(json!({ "name": name })),
                Some(name),
            )
            .await;
        assert_eq!(status, 200);
    }

    let mut back = Raw::connect(&resume_url).await;
    back.op(10).await;
    back.send(json!({"op": 6, "d": {"token": t.emu.token, "session_id": session_id, "seq": seq}}))
        .await;
    let mut replayed = Vec::new();
    loop {
        let p = back.op(0).await;
        if p["t"] == "RESUMED" {
            break;
        }
        replayed.push(p);
    }
    let reasons: Vec<&str> = replayed
        .iter()
        .filter(|p| p["t"] == "GUILD_AUDIT_LOG_ENTRY_CREATE")
        .map(|p| p["d"]["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["one", "two"]);
    let seqs: Vec<u64> = replayed.iter().map(|p| p["s"].as_u64().unwrap()).collect();
    let expected: Vec<u64> = (seq + 1..=seq + seqs.len() as u64).collect();
    assert_eq!(seqs, expected, "replayed in order, none skipped");

    // A session that was invalidated cannot be resumed.
    t.emu
        .gateway_command(&GatewayCommand {
            send: "invalid_session".into(),
            resumable: false,
            code: None,
            session_id: Some(session_id.clone()),
        })
        .unwrap();
    assert_eq!(back.op(9).await["d"], false);
    let mut late = Raw::connect(&resume_url).await;
    late.op(10).await;
    late.send(json!({"op": 6, "d": {"token": t.emu.token, "session_id": session_id, "seq": 0}}))
        .await;
    assert_eq!(late.op(9).await["d"], false);
}

#[tokio::test]
async fn twilight_resumes_after_a_reconnect_request_and_misses_nothing() {
    let t = T::new().await;
    let mut s = shard(
        &t,
        ShardId::ONE,
        Intents::GUILDS | Intents::GUILD_MODERATION,
    );
    until(&mut s, |e| matches!(e, Event::GuildCreate(_)).then_some(())).await;
    t.emu
        .gateway_command(&GatewayCommand {
            send: "reconnect".into(),
            resumable: true,
            code: None,
            session_id: None,
        })
        .unwrap();
    let (status, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{}/roles/{}", t.g(), t.role("Moderator")),
            Some(json!({ "name": "after the reconnect" })),
            Some("while reconnecting"),
        )
        .await;
    assert_eq!(status, 200);
    // The write's entry comes on the old connection or replayed on the new one, and
    // twilight says it resumed: both, in either order.
    let (mut resumed, mut reason) = (false, None);
    until(&mut s, |e| {
        match e {
            Event::Resumed => resumed = true,
            Event::GuildAuditLogEntryCreate(a) => reason = a.reason.clone(),
            Event::Ready(_) => panic!("identified again instead of resuming"),
            _ => {}
        }
        (resumed && reason.is_some()).then_some(())
    })
    .await;
    assert_eq!(reason.as_deref(), Some("while reconnecting"));
    let sessions = t.emu.gateway_sessions();
    assert_eq!(sessions.len(), 1, "one session, resumed: {sessions:?}");
    assert!(sessions[0].connected);
}

#[tokio::test]
async fn zlib_stream_sends_each_payload_as_one_flushed_chunk_of_one_stream() {
    let t = T::new().await;
    let url = format!(
        "{}/?v=10&encoding=json&compress=zlib-stream",
        t.emu.gateway_url()
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut z = flate2::Decompress::new(true);
    let mut inflate = |chunk: &[u8]| -> Value {
        assert!(
            chunk.ends_with(&[0, 0, 0xff, 0xff]),
            "a whole message ends with the flush"
        );
        let mut out = Vec::with_capacity(64 * 1024);
        z.decompress_vec(chunk, &mut out, flate2::FlushDecompress::Sync)
            .unwrap();
        serde_json::from_slice(&out).unwrap()
    };
    let hello = inflate(&binary(&mut ws).await);
    assert_eq!(hello["op"], 10);
    ws.send(WsMessage::Text(
        identify_body(&t.emu.token, GUILDS).to_string().into(),
    ))
    .await
    .unwrap();
    // The second message needs the first's context: one stream for the connection.
    let ready = inflate(&binary(&mut ws).await);
    assert_eq!(ready["t"], "READY");
    let created = inflate(&binary(&mut ws).await);
    assert_eq!(created["t"], "GUILD_CREATE");
    assert_eq!(created["d"]["id"], t.g());
}

/// `n` guilds, the default one and its copies (each on its shard by Discord's formula),
/// identifies not held apart.
fn guilds(n: usize) -> State {
    let mut st = discord_emulator::with_guild_copies(default_state(), n);
    st.config.gateway.identify_interval_ms = 0;
    st
}

#[tokio::test]
async fn each_shard_is_told_only_its_own_guilds_and_their_events() {
    let t = T::with(guilds(6)).await;
    let all: Vec<String> = t.emu.state().guilds.iter().map(|g| g.id.clone()).collect();
    let url = t.emu.gateway_url();
    let mut seen = Vec::new();
    let mut shards = Vec::new();
    for id in 0..2u64 {
        let mut raw = Raw::identify(&url, &t.emu.token, GUILDS | GUILD_MODERATION, [id, 2]).await;
        let ready = raw.dispatch("READY").await;
        let ids: Vec<String> = ready["d"]["guilds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_owned())
            .collect();
        for g in &ids {
            let n: u64 = g.parse().unwrap();
            assert_eq!((n >> 22) % 2, id, "guild {g} on shard {id}");
        }
        seen.extend(ids);
        shards.push(raw);
    }
    seen.sort();
    let mut expected = all.clone();
    expected.sort();
    assert_eq!(seen, expected, "every guild on exactly one shard");

    // A write in each guild reaches its own shard only.
    for g in &all {
        let (status, _) = t
            .call(
                Method::PATCH,
                &format!("/guilds/{g}"),
                Some(json!({"description": "x"})),
                Some(g),
            )
            .await;
        assert_eq!(status, 200);
    }
    for (id, raw) in shards.iter_mut().enumerate() {
        let mine: Vec<&String> = all
            .iter()
            .filter(|g| (g.parse::<u64>().unwrap() >> 22) % 2 == id as u64)
            .collect();
        for g in mine {
            let p = raw.dispatch("GUILD_AUDIT_LOG_ENTRY_CREATE").await;
            assert_eq!(&p["d"]["guild_id"], g.as_str());
            assert_eq!(&p["d"]["reason"], g.as_str());
        }
    }
}

#[tokio::test]
async fn audit_entries_go_only_to_sessions_with_guild_moderation() {
    let t2 = T::with(guilds(1)).await;
    let url = t2.emu.gateway_url();
    let mut without = Raw::identify(&url, &t2.emu.token, GUILDS, [0, 1]).await;
    without.dispatch("GUILD_CREATE").await;
    let mut with = Raw::identify(&url, &t2.emu.token, GUILDS | GUILD_MODERATION, [0, 1]).await;
    with.dispatch("GUILD_CREATE").await;
    let (status, _) = t2
        .call(
            Method::PATCH,
            &format!("/guilds/{}", t2.g()),
            Some(json!({"description": "seen by one"})),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let p = with.dispatch("GUILD_AUDIT_LOG_ENTRY_CREATE").await;
    assert_eq!(p["d"]["action_type"], 1);
    // The other session hears nothing of it: a heartbeat's ACK comes first and alone.
    without.send(json!({"op": 1, "d": null})).await;
    loop {
        match without.got().await {
            Got::Payload(p) if p["op"] == 11 => break,
            Got::Payload(p) => assert_ne!(p["t"], "GUILD_AUDIT_LOG_ENTRY_CREATE", "{p}"),
            Got::Closed(c) => panic!("closed {c:?}"),
        }
    }
}

/// The next frame, which must be binary (a compressed connection sends no text).
async fn binary(ws: &mut WebSocketStream<MaybeTlsStream<TcpStream>>) -> Vec<u8> {
    match tokio::time::timeout(WAIT, ws.next()).await.unwrap() {
        Some(Ok(WsMessage::Binary(b))) => b.to_vec(),
        other => panic!("a binary frame, not {other:?}"),
    }
}

#[tokio::test]
async fn a_write_is_dispatched_before_its_audit_entry_and_only_to_the_intents_that_ask() {
    let t = T::with(guilds(1)).await;
    let url = t.emu.gateway_url();
    let mut guilds_only = Raw::identify(&url, &t.emu.token, GUILDS, [0, 1]).await;
    guilds_only.dispatch("GUILD_CREATE").await;
    let mut moderation_only = Raw::identify(&url, &t.emu.token, GUILD_MODERATION, [0, 1]).await;
    moderation_only.dispatch("READY").await;
    let role = t.role("Moderator");
    let (status, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{}/roles/{role}", t.g()),
            Some(json!({"mentionable": true})),
            Some("mentionable"),
        )
        .await;
    assert_eq!(status, 200);
    let update = guilds_only.dispatch("GUILD_ROLE_UPDATE").await;
    assert_eq!(update["d"]["guild_id"], t.g());
    assert_eq!(update["d"]["role"]["id"], role);
    assert_eq!(update["d"]["role"]["mentionable"], true);
    // GUILD_MODERATION gets the entry, and not the role's own dispatch (GUILDS).
    let first = moderation_only.op(0).await;
    assert_eq!(first["t"], "GUILD_AUDIT_LOG_ENTRY_CREATE", "{first}");
    assert_eq!(first["d"]["reason"], "mentionable");
    // A session with both: the write's dispatch, then its entry.
    let mut both = Raw::identify(&url, &t.emu.token, GUILDS | GUILD_MODERATION, [0, 1]).await;
    both.dispatch("GUILD_CREATE").await;
    let (status, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{}/roles/{role}", t.g()),
            Some(json!({"mentionable": false})),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let a = both.op(0).await;
    let b = both.op(0).await;
    assert_eq!(
        (a["t"].as_str(), b["t"].as_str()),
        (
            Some("GUILD_ROLE_UPDATE"),
            Some("GUILD_AUDIT_LOG_ENTRY_CREATE")
        )
    );
    assert_eq!(b["s"].as_u64(), a["s"].as_u64().map(|s| s + 1));
}
