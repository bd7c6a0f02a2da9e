//! Fault injection (`POST /_emulator/faults`, `RunningEmulator::set_faults`):
//! per method and path glob, with a probability drawn from a seeded PRNG, an
//! API request gets an error status, extra latency, a dropped connection
//! (before or after the write), a 429 storm, a hang, a 200 with a body of
//! the test's choosing (a malformed response), or a 200 with a body of any size,
//! streamed without being held in memory (an oversized response).
//!
//! The layer sits between the invalid-request counter and the rate limits, so
//! injected 401/403/429s count as invalid requests and `drop_after` writes go
//! through the rate limits like any request. Control endpoints never see it.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::config::is_method;
pub use super::ratelimit::Scope;
use super::ratelimit::api_path;

/// Put on a response by the fault layer: which fault shaped it, and whether
/// the client gets no response at all (the connection is dropped).
#[derive(Clone, Copy)]
pub struct FaultMark {
    pub kind: &'static str,
    pub no_response: bool,
}

/// How long a `timeout` fault hangs (real time) unless the emulator shuts
/// down first: longer than any sane client timeout.
pub const TIMEOUT_HANG: Duration = Duration::from_secs(30);

/// The faults in force. `seed` makes runs reproducible: the same seed and the
/// same sequence of requests give the same faults. Without one a random seed
/// is chosen; `GET /_emulator/faults` shows it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FaultSet {
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub rules: Vec<FaultRule>,
}

/// One rule: requests whose method and path match get `kind` with
/// `probability`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FaultRule {
    /// An HTTP method or `*` (the default).
    #[serde(default = "any_method")]
    pub method: String,
    /// A glob over the path under `/api/v10` (the query is ignored): `*`
    /// matches within one segment, a `**` segment matches any number of
    /// segments. `/channels/*`, `/guilds/*/roles`, `/**`.
    pub path: String,
    /// 0.0–1.0; default 1.0.
    #[serde(default = "always")]
    pub probability: f64,
    pub kind: FaultKind,
}

fn any_method() -> String {
    "*".into()
}

fn always() -> f64 {
    1.0
}

/// What happens to a request a rule hits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// `{"status": 500}`: answer with this status and a Discord-shaped body
    /// (`{"message": "500: Internal Server Error", "code": 0}`), no write.
    Status(u16),
    /// `{"latency_ms": 200}`: wait this long (real time) first. Latency rules
    /// add up and do not stop later rules.
    LatencyMs(u64),
    /// Close the connection without a response and without doing the write.
    DropBefore,
    /// Do the write (state change, audit entry), then close the connection
    /// without a response.
    DropAfter,
    /// `{"storm_429": {...}}`: this request and the next `count - 1` requests
    /// the rule matches get 429s.
    #[serde(rename = "storm_429")]
    Storm429(Storm),
    /// Hang for [`TIMEOUT_HANG`] (or until shutdown), then close the
    /// connection without a response and without doing the write.
    Timeout,
    /// `{"body": "..."}`: answer 200 with exactly this text as an
    /// `application/json` body, without running the handler (no write): a
    /// response Discord would never send (truncated, not JSON, a field
    /// missing), for testing what a client does with one.
    Body(String),
    /// `{"oversized_body": {"bytes": 200000000, "content_length": true}}`: answer
    /// 200 with a JSON-looking body of exactly `bytes` bytes (an array that never
    /// closes), streamed in chunks so the emulator never holds it, without running
    /// the handler (no write). With `content_length` the size is announced in
    /// `Content-Length`; without, the body is sent chunked and its size shows only
    /// as it arrives.
    OversizedBody(Oversized),
}

/// The size of an `oversized_body` answer and whether it is announced.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Oversized {
    pub bytes: u64,
    #[serde(default = "announced")]
    pub content_length: bool,
}

fn announced() -> bool {
    true
}

/// A run of 429s.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Storm {
    pub count: u32,
    /// Real seconds, sent as the body's `retry_after` and (rounded up) as
    /// `Retry-After`.
    pub retry_after: f64,
    #[serde(default)]
    pub scope: Scope,
}

impl FaultSet {
    pub fn validate(&self) -> Result<(), String> {
        for (i, r) in self.rules.iter().enumerate() {
            if r.method != "*" && !is_method(&r.method) {
                return Err(format!(
                    "rules[{i}].method must be an HTTP method or '*': {}",
                    r.method
                ));
            }
            if !r.path.starts_with('/') {
                return Err(format!("rules[{i}].path must start with '/': {}", r.path));
            }
            if !(0.0..=1.0).contains(&r.probability) {
                return Err(format!(
                    "rules[{i}].probability must be between 0 and 1, not {}",
                    r.probability
                ));
            }
            match &r.kind {
                FaultKind::Status(s) if !(200..=599).contains(s) => {
                    return Err(format!("rules[{i}].kind.status must be 200–599, not {s}"));
                }
                FaultKind::Storm429(s) if s.count == 0 => {
                    return Err(format!(
                        "rules[{i}].kind.storm_429.count must be at least 1"
                    ));
                }
                FaultKind::OversizedBody(o) if o.bytes == 0 => {
                    return Err(format!(
                        "rules[{i}].kind.oversized_body.bytes must be at least 1"
                    ));
                }
                FaultKind::Storm429(s) if !(s.retry_after.is_finite() && s.retry_after >= 0.0) => {
                    return Err(format!(
                        "rules[{i}].kind.storm_429.retry_after must be 0 or more"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// SplitMix64: small, fast, and plenty for choosing faults reproducibly.
#[derive(Debug, Clone, Default)]
struct Prng(u64);

impl Prng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The installed faults with their PRNG and running storms.
#[derive(Debug, Default)]
pub struct Faults {
    set: FaultSet,
    rng: Prng,
    storms: Vec<u32>,
}

/// What the fault layer does to one request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    Status(u16),
    DropBefore,
    DropAfter,
    Storm(Storm),
    Timeout,
    Body(String),
    Oversized(Oversized),
}

#[derive(Debug, Default)]
pub(crate) struct Draw {
    pub(crate) latency_ms: u64,
    pub(crate) action: Option<Action>,
}

impl Faults {
    /// Installs a set (already validated) and returns the seed in use.
    pub fn install(&mut self, mut set: FaultSet) -> u64 {
        // 53 bits, so the seed survives a round trip through any JSON parser.
        let seed = set
            .seed
            .unwrap_or_else(|| random_seed() & ((1u64 << 53) - 1));
        set.seed = Some(seed);
        self.storms = vec![0; set.rules.len()];
        self.rng = Prng(seed);
        self.set = set;
        seed
    }

    pub fn set(&self) -> FaultSet {
        self.set.clone()
    }

    /// One PRNG draw per matching rule, in order, until a fault that ends the
    /// request fires (latency rules add up and go on).
    pub(crate) fn draw(&mut self, method: &str, path: &str) -> Draw {
        let mut d = Draw::default();
        for (i, r) in self.set.rules.iter().enumerate() {
            if !(r.method == "*" || r.method.eq_ignore_ascii_case(method)) || !glob(&r.path, path) {
                continue;
            }
            if let FaultKind::Storm429(s) = &r.kind
                && self.storms[i] > 0
            {
                self.storms[i] -= 1;
                d.action = Some(Action::Storm(*s));
                return d;
            }
            if self.rng.next_f64() >= r.probability {
                continue;
            }
            d.action = Some(match &r.kind {
                FaultKind::LatencyMs(ms) => {
                    d.latency_ms = d.latency_ms.saturating_add(*ms);
                    continue;
                }
                FaultKind::Status(s) => Action::Status(*s),
                FaultKind::DropBefore => Action::DropBefore,
                FaultKind::DropAfter => Action::DropAfter,
                FaultKind::Storm429(s) => {
                    self.storms[i] = s.count - 1;
                    Action::Storm(*s)
                }
                FaultKind::Timeout => Action::Timeout,
                FaultKind::Body(text) => Action::Body(text.clone()),
                FaultKind::OversizedBody(o) => Action::Oversized(*o),
            });
            return d;
        }
        d
    }
}

fn random_seed() -> u64 {
    let b = super::random_bytes();
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// `*` within a segment, `**` as a whole segment for any number of segments.
pub fn glob(pattern: &str, path: &str) -> bool {
    let pattern = api_path(pattern);
    let p: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let s: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    glob_segments(&p, &s)
}

fn glob_segments(p: &[&str], s: &[&str]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((&"**", rest)) => (0..=s.len()).any(|k| glob_segments(rest, &s[k..])),
        Some((first, rest)) => {
            !s.is_empty()
                && glob_segment(first.as_bytes(), s[0].as_bytes())
                && glob_segments(rest, &s[1..])
        }
    }
}

fn glob_segment(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|k| glob_segment(rest, &s[k..])),
        Some((c, rest)) => s.first() == Some(c) && glob_segment(rest, &s[1..]),
    }
}

/// A body that fails at once: hyper then closes the connection before the
/// buffered head is flushed, so the client gets no response at all.
struct Broken;

impl axum::body::HttpBody for Broken {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        Poll::Ready(Some(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "emulator fault: connection dropped",
        ))))
    }
}

pub(crate) fn dropped(kind: &'static str) -> Response {
    let mut resp = Response::new(Body::new(Broken));
    resp.extensions_mut().insert(FaultMark {
        kind,
        no_response: true,
    });
    resp
}

pub(crate) fn marked(mut resp: Response, kind: &'static str) -> Response {
    resp.extensions_mut().insert(FaultMark {
        kind,
        no_response: false,
    });
    resp
}

pub(crate) fn status_response(code: u16) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let reason = status.canonical_reason().unwrap_or("Error");
    let body = json!({"message": format!("{}: {reason}", status.as_u16()), "code": 0});
    (status, axum::Json(body)).into_response()
}

/// What an `oversized_body` answer is made of: `[` and then this element again and
/// again, one shared buffer handed out as many times as needed.
const FILLER_ELEMENT: &[u8] = br#"{"id": "0", "name": "filler"}, "#;
const FILLER_CHUNK: usize = 64 * 1024;

/// A body of `left` bytes made of one 64 KiB chunk sent again and again: sending
/// 200 MB costs the emulator 64 KiB. Its size hint is exact when announced, so
/// hyper sends `Content-Length`; otherwise unknown, so hyper sends it chunked.
struct Filler {
    first: bool,
    left: u64,
    chunk: Bytes,
    announced: bool,
}

impl Filler {
    fn new(o: Oversized) -> Filler {
        let mut chunk = Vec::with_capacity(FILLER_CHUNK);
        while chunk.len() < FILLER_CHUNK {
            chunk.extend_from_slice(FILLER_ELEMENT);
        }
        chunk.truncate(FILLER_CHUNK);
        Filler {
            first: true,
            left: o.bytes,
            chunk: Bytes::from(chunk),
            announced: o.content_length,
        }
    }
}

impl axum::body::HttpBody for Filler {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let data = if self.first {
            self.first = false;
            Bytes::from_static(b"[")
        } else {
            let n = usize::try_from(self.left).map_or(FILLER_CHUNK, |l| l.min(FILLER_CHUNK));
            self.chunk.slice(..n)
        };
        self.left -= data.len() as u64;
        Poll::Ready(Some(Ok(http_body::Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        if self.announced {
            http_body::SizeHint::with_exact(self.left)
        } else {
            http_body::SizeHint::default()
        }
    }
}

/// A 200 with an `oversized_body` of `o.bytes` bytes, streamed.
pub(crate) fn oversized_response(o: Oversized) -> Response {
    let mut resp = Response::new(Body::new(Filler::new(o)));
    resp.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    resp
}

/// A 200 whose body is `text`, as it is: it need not be JSON.
pub(crate) fn body_response(text: String) -> Response {
    (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_segments() {
        assert!(glob("/channels/*", "/channels/1"));
        assert!(!glob("/channels/*", "/channels/1/webhooks"));
        assert!(glob("/guilds/*/roles", "/guilds/1/roles"));
        assert!(glob("/guilds/**", "/guilds/1/roles/2"));
        assert!(glob("/**", "/users/@me"));
        assert!(glob("/api/v10/channels/*", "/channels/1"));
        assert!(glob("/guilds/*/role*", "/guilds/1/roles"));
        assert!(!glob("/guilds/*/roles", "/guilds/1/channels"));
    }

    #[test]
    fn kinds_parse_from_the_documented_json() {
        let set: FaultSet = serde_json::from_value(json!({
            "seed": 7,
            "rules": [
                {"method": "PATCH", "path": "/channels/*", "probability": 0.1, "kind": {"status": 500}},
                {"path": "/**", "kind": {"latency_ms": 200}},
                {"method": "*", "path": "/guilds/*/roles", "probability": 1.0, "kind": "drop_before"},
                {"path": "/**", "kind": "drop_after"},
                {"path": "/**", "kind": {"storm_429": {"count": 50, "retry_after": 0.05, "scope": "shared"}}},
                {"path": "/**", "kind": "timeout"},
                {"method": "GET", "path": "/guilds/*/channels", "kind": {"body": "[{\"id\": 1}"}},
                {"path": "/**", "kind": {"oversized_body": {"bytes": 200000000, "content_length": false}}},
                {"path": "/**", "kind": {"oversized_body": {"bytes": 5}}}
            ]
        }))
        .unwrap();
        set.validate().unwrap();
        assert_eq!(set.rules[0].kind, FaultKind::Status(500));
        assert_eq!(set.rules[1].method, "*");
        assert_eq!(set.rules[1].probability, 1.0);
        assert_eq!(set.rules[2].kind, FaultKind::DropBefore);
        assert!(matches!(
            set.rules[4].kind,
            FaultKind::Storm429(Storm {
                count: 50,
                scope: Scope::Shared,
                ..
            })
        ));
        assert_eq!(set.rules[5].kind, FaultKind::Timeout);
        assert_eq!(set.rules[6].kind, FaultKind::Body("[{\"id\": 1}".into()));
        assert_eq!(
            set.rules[7].kind,
            FaultKind::OversizedBody(Oversized {
                bytes: 200_000_000,
                content_length: false
            })
        );
        assert_eq!(
            set.rules[8].kind,
            FaultKind::OversizedBody(Oversized {
                bytes: 5,
                content_length: true
            }),
            "the size is announced unless said otherwise"
        );
        let back: FaultSet = serde_json::from_value(serde_json::to_value(&set).unwrap()).unwrap();
        assert_eq!(back, set);
    }

    #[test]
    fn the_same_seed_draws_the_same_faults() {
        let set = FaultSet {
            seed: Some(42),
            rules: vec![FaultRule {
                method: "*".into(),
                path: "/**".into(),
                probability: 0.3,
                kind: FaultKind::Status(503),
            }],
        };
        let run = || {
            let mut f = Faults::default();
            f.install(set.clone());
            (0..200)
                .map(|_| f.draw("GET", "/users/@me").action.is_some())
                .collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run());
        let hits = a.iter().filter(|h| **h).count();
        assert!((30..90).contains(&hits), "{hits} of 200 at p=0.3");
    }

    #[test]
    fn storms_run_for_their_count_and_latency_adds_up() {
        let mut f = Faults::default();
        f.install(FaultSet {
            seed: Some(1),
            rules: vec![
                FaultRule {
                    method: "*".into(),
                    path: "/**".into(),
                    probability: 1.0,
                    kind: FaultKind::LatencyMs(5),
                },
                FaultRule {
                    method: "*".into(),
                    path: "/**".into(),
                    probability: 1.0,
                    kind: FaultKind::LatencyMs(7),
                },
                FaultRule {
                    method: "POST".into(),
                    path: "/guilds/*/roles".into(),
                    probability: 1.0,
                    kind: FaultKind::Storm429(Storm {
                        count: 3,
                        retry_after: 0.1,
                        scope: Scope::User,
                    }),
                },
            ],
        });
        let d = f.draw("GET", "/users/@me");
        assert_eq!((d.latency_ms, d.action), (12, None));
        let storms = (0..4)
            .filter(|_| {
                matches!(
                    f.draw("POST", "/guilds/1/roles").action,
                    Some(Action::Storm(_))
                )
            })
            .count();
        assert_eq!(storms, 4, "p=1.0 starts a new storm after one ends");
        let rejected = FaultSet {
            seed: None,
            rules: vec![FaultRule {
                method: "*".into(),
                path: "/**".into(),
                probability: 1.5,
                kind: FaultKind::Timeout,
            }],
        };
        assert!(rejected.validate().is_err());
    }
}
