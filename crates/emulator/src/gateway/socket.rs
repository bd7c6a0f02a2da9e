//! One Gateway connection: HELLO, heartbeats and their ACKs, IDENTIFY or RESUME, then the
//! session's dispatches, each compressed into the connection's one zlib stream when the
//! URL asked for `compress=zlib-stream` (Discord's Gateway page, "Transport Compression").

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State as AxState};
use axum::http::HeaderMap;
use axum::response::Response;
use flate2::{Compress, Compression, FlushCompress};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

use super::{Out, Refusal, host, identify, resume};
use crate::app::{App, lock};

/// How a client asked to connect (the URL's query).
struct Wanted {
    version_ok: bool,
    json: bool,
    zlib: bool,
}

/// The WebSocket at the URL `/gateway` gives: `?v=10&encoding=json[&compress=zlib-stream]`.
pub async fn upgrade(
    ws: WebSocketUpgrade,
    AxState(app): AxState<App>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let wanted = Wanted {
        version_ok: q.get("v").is_none_or(|v| v == "10"),
        json: q.get("encoding").is_none_or(|e| e == "json"),
        zlib: q.get("compress").is_some_and(|c| c == "zlib-stream"),
    };
    let host = host(&headers);
    ws.on_upgrade(move |socket| run(app, socket, wanted, host))
}

/// The connection's writer: each payload as text, or into the zlib stream as binary.
struct Writer {
    ws: WebSocket,
    zlib: Option<Compress>,
}

impl Writer {
    async fn send(&mut self, text: &str) -> bool {
        let msg = match &mut self.zlib {
            None => Message::Text(text.into()),
            Some(z) => match deflate(z, text.as_bytes()) {
                Some(out) => Message::Binary(out.into()),
                None => return false,
            },
        };
        self.ws.send(msg).await.is_ok()
    }

    async fn close(&mut self, code: u16, reason: &str) {
        let _ = self
            .ws
            .send(Message::Close(Some(CloseFrame {
                code,
                reason: reason.into(),
            })))
            .await;
    }
}

async fn run(app: App, ws: WebSocket, wanted: Wanted, host: String) {
    let mut w = Writer {
        ws,
        zlib: wanted
            .zlib
            .then(|| Compress::new(Compression::fast(), true)),
    };
    if !wanted.version_ok {
        return w.close(4012, "Invalid API version.").await;
    }
    if !wanted.json {
        return w.close(4002, "Error while decoding payload.").await;
    }
    let (interval, sends_per_minute) = {
        let st = lock(&app.state);
        let c = &st.config.gateway;
        (
            Duration::from_millis(c.heartbeat_interval_ms),
            c.sends_per_minute,
        )
    };
    let minute = Duration::from_secs(60);
    let connection = lock(&app.gateway).next_connection();
    let (tx, mut rx) = mpsc::unbounded_channel::<Out>();
    let hello = json!({"op": 10, "d": {"heartbeat_interval": interval.as_millis() as u64}, "s": null, "t": null});
    if !w.send(&hello.to_string()).await {
        return;
    }
    // The first heartbeat comes within an interval (jittered); each next one an interval
    // after the last. Half an interval more is allowed for the network.
    let grace = interval + interval / 2;
    let mut deadline = Instant::now() + grace;
    let mut session: Option<String> = None;
    let mut sends: VecDeque<Instant> = VecDeque::new();
    let mut ended_by_server = false;
    loop {
        tokio::select! {
            incoming = w.ws.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                };
                let now = Instant::now();
                sends.push_back(now);
                while sends.front().is_some_and(|t| now.duration_since(*t) >= minute) {
                    sends.pop_front();
                }
                if sends.len() > sends_per_minute {
                    w.close(4008, "Rate limited.").await;
                    break;
                }
                let Ok(payload) = serde_json::from_str::<Value>(&text) else {
                    w.close(4002, "Error while decoding payload.").await;
                    break;
                };
                let op = payload.get("op").and_then(Value::as_u64);
                let d = payload.get("d").cloned().unwrap_or(Value::Null);
                match op {
                    Some(1) => {
                        deadline = Instant::now() + grace;
                        let ack = json!({"op": 11, "d": null, "s": null, "t": null});
                        if !w.send(&ack.to_string()).await {
                            break;
                        }
                    }
                    Some(2) | Some(6) if session.is_some() => {
                        w.close(4005, "Already authenticated.").await;
                        break;
                    }
                    Some(op @ (2 | 6)) => {
                        let taken = {
                            let st = lock(&app.state);
                            let mut gw = lock(&app.gateway);
                            let conn = (connection, tx.clone());
                            if op == 2 {
                                identify(&st, &mut gw, &d, conn, &host)
                            } else {
                                resume(&st, &mut gw, &d, conn)
                            }
                        };
                        match taken {
                            Ok(id) => session = Some(id),
                            Err(Refusal::Close(code, reason)) => {
                                w.close(code, reason).await;
                                break;
                            }
                            Err(Refusal::InvalidSession(resumable)) => {
                                let nine = json!({"op": 9, "d": resumable, "s": null, "t": null});
                                if !w.send(&nine.to_string()).await {
                                    break;
                                }
                            }
                        }
                    }
                    // Presence, voice state and member requests: taken, and not acted on
                    // (the emulator keeps no presences or voice).
                    Some(3 | 4 | 8) if session.is_some() => {}
                    Some(3 | 4 | 8) => {
                        w.close(4003, "Not authenticated.").await;
                        break;
                    }
                    _ => {
                        w.close(4001, "Unknown opcode.").await;
                        break;
                    }
                }
            }
            out = rx.recv() => match out {
                Some(Out::Payload(text)) => {
                    if !w.send(&text).await {
                        break;
                    }
                }
                Some(Out::Close(code, reason)) => {
                    w.close(code, reason).await;
                    break;
                }
                Some(Out::Drop) | None => break,
            },
            () = sleep_until(deadline) => {
                w.close(4009, "Session timed out.").await;
                ended_by_server = true;
                break;
            }
        }
    }
    if let Some(id) = session {
        let mut gw = lock(&app.gateway);
        if ended_by_server {
            gw.end_session(&id);
        } else {
            gw.detach(&id, connection);
        }
    }
}

/// `input` through the connection's zlib stream, ending with a sync flush (`00 00 ff ff`),
/// which is how a client knows it holds a whole message.
fn deflate(z: &mut Compress, input: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(input.len() / 2 + 64);
    let mut at = 0;
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(64));
        }
        let before = z.total_in();
        z.compress_vec(&input[at..], &mut out, FlushCompress::Sync)
            .ok()?;
        at += usize::try_from(z.total_in() - before).ok()?;
        // Done when all of it went in and the flush did not stop for want of room.
        if at >= input.len() && out.len() < out.capacity() {
            return Some(out);
        }
    }
}
