//! What a Discord call can come to besides its answer: every error the client returns,
//! shown inert (the server's words pass through `guildctl_inert::terminal`, and a
//! redirect's location through `redact` too: docs/architecture.md, "Text from outside").

use std::fmt;
use std::time::Duration;

use guildctl_inert as inert;
use guildctl_inert::redact;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::models::ErrorBody;
use crate::time::human_duration;

/// Why a call to Discord did not come to an answer. Its `Display` shows the server's words
/// inert and webhook tokens redacted, so it can be printed anywhere.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "the bot token is empty or malformed: set DISCORD_TOKEN or pass --token-file with the bot's token"
    )]
    /// The token given cannot be a bot token.
    BadToken,
    // Details and bodies are what a server said: shown inert (crate::inert).
    /// The request did not get an answer: connection, TLS, timeout.
    #[error("{method} {path}: {}", inert::terminal(.detail))]
    Transport {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// What went wrong, as the server or the transport said it.
        detail: String,
    },
    /// Discord answered with an error status.
    #[error("{0}")]
    Api(Box<ApiError>),
    /// A bulk call Discord carried out for only some of what it named.
    #[error("{method} {path}: {}", inert::terminal(.detail))]
    Partial {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// What went wrong, as the server or the transport said it.
        detail: String,
    },
    /// Discord refused the token (401, docs/discord.md §2).
    #[error(
        "{method} {path}: Discord rejected the bot token (401); check DISCORD_TOKEN or --token-file"
    )]
    Unauthorized {
        /// The call's method.
        method: Method,
        /// The call's path, tokens redacted.
        path: String,
    },
    /// The run's budget of invalid responses is spent: Discord restricts an address after
    /// 10,000 in ten minutes (docs/discord.md §1.4).
    #[error(
        "stopped after {spent} rate-limited or refused responses, far below the 10,000 in ten minutes that get this machine's IP address restricted by Discord; wait a few minutes and run again"
    )]
    InvalidBudget {
        /// The refused and rate-limited answers counted.
        spent: usize,
    },
    /// A write whose answer was lost: it may or may not have been made.
    #[error(
        "{method} {path}: the outcome is unknown ({}); the object may or may not exist",
        inert::terminal(.detail)
    )]
    Ambiguous {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// What went wrong, as the server or the transport said it.
        detail: String,
    },
    /// A success whose body is not what Discord sends.
    #[error(
        "{method} {path}: the response was not what Discord sends ({}); guildctl does not act on it: check that the API base (--api-base, GUILDCTL_API_BASE) is Discord's, and try again",
        inert::terminal(.detail)
    )]
    Decode {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// What went wrong, as the server or the transport said it.
        detail: String,
    },
    /// A response body over [`ClientOptions::max_body_bytes`](crate::ClientOptions::max_body_bytes), refused before it is
    /// read whole: announced in `Content-Length`, or counted as it arrived.
    #[error(
        "{method} {path}: the response is larger than the {} guildctl reads ({}); a guild at Discord's limits answers in far less, so check that the API base (--api-base, GUILDCTL_API_BASE) is Discord's (if it is, raise the cap with GUILDCTL_MAX_BODY_MB)",
        mib(*.cap),
        match .announced { Some(n) => format!("Content-Length: {n}"), None => "more than that arrived".to_owned() }
    )]
    BodyTooLarge {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// The cap, in bytes.
        cap: usize,
        /// The `Content-Length` announced, if any.
        announced: Option<u64>,
    },
    /// A redirect (3xx) from the API or the CDN: never followed, so no request goes to a
    /// host guildctl did not choose. `location` is where it pointed, as the server said it.
    #[error(
        "{method} {path}: answered {status}, a redirect to {}; guildctl follows no redirect, so nothing was asked of another host: check that the API base (--api-base, GUILDCTL_API_BASE) is Discord's",
        shown_location(.location)
    )]
    Redirected {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// The status answered.
        status: StatusCode,
        /// The `Location` answered, as sent.
        location: Option<String>,
    },
    /// A call not sent because the client was stopped ([`Client::stop`](crate::Client::stop): apply was
    /// interrupted). `maybe_made`: an earlier try was sent and its outcome is unknown.
    #[error("{method} {path}: {}", if *.maybe_made {
        "stopped by the interrupt before Discord confirmed it (an earlier try may have been made)"
    } else {
        "not sent: stopped by the interrupt"
    })]
    Stopped {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// Whether an earlier try was sent.
        maybe_made: bool,
    },
    /// A call still failing when one of its bounds ran out: its retries, or its deadline.
    #[error("{method} {path}: {why} (the last answer: {last}); {advice}")]
    GaveUp {
        /// The call's method.
        method: Method,
        /// The call's path, webhook tokens redacted.
        path: String,
        /// The bound reached.
        why: GaveUp,
        /// What the last try got.
        last: String,
        /// What to do.
        advice: &'static str,
    },
}

/// Which bound a call reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GaveUp {
    /// Answered 429 more than [`ClientOptions::max_rate_limited`](crate::ClientOptions::max_rate_limited) times.
    RateLimited {
        /// The tries made.
        tries: u32,
    },
    /// Failed (5xx, timeout, dropped connection) more than [`ClientOptions::max_retries`](crate::ClientOptions::max_retries) times.
    Failing {
        /// The tries made.
        tries: u32,
    },
    /// [`ClientOptions::deadline`](crate::ClientOptions::deadline) passed, or the next wait would pass it (`wait`).
    Deadline {
        /// The call's deadline.
        deadline: Duration,
        /// The wait Discord asked for, past it.
        wait: Option<Duration>,
    },
}

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GaveUp::RateLimited { tries } => {
                write!(f, "gave up after {tries} tries, each answered 429")
            }
            GaveUp::Failing { tries } => write!(f, "gave up after {tries} tries, each failing"),
            GaveUp::Deadline {
                deadline,
                wait: Some(wait),
            } => write!(
                f,
                "gave up: Discord asked to wait {}, past the call's deadline of {}",
                human_duration(*wait),
                human_duration(*deadline)
            ),
            GaveUp::Deadline { deadline, .. } => write!(
                f,
                "gave up at the call's deadline of {}",
                human_duration(*deadline)
            ),
        }
    }
}

/// A redirect's `Location` as an error shows it: the server's text, tokens redacted, inert,
/// at most 200 characters.
fn shown_location(location: &Option<String>) -> String {
    match location {
        Some(l) => {
            let short: String = l.chars().take(200).collect();
            format!("\"{}\"", inert::terminal(&redact(&short)))
        }
        None => "nowhere (no Location)".to_owned(),
    }
}

/// The error for a redirect answering `method path` (the API's or the CDN's).
pub(crate) fn redirected(method: &Method, path: &str, resp: &reqwest::Response) -> ClientError {
    ClientError::Redirected {
        method: method.clone(),
        path: path.to_owned(),
        status: resp.status(),
        location: resp
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
    }
}

/// `32 MiB`, or bytes when it is not a whole number of MiB.
fn mib(bytes: usize) -> String {
    if bytes > 0 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// A call that Discord answered with an error status.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{method} {path} failed: {status}{}", describe(.body))]
pub struct ApiError {
    /// The call's method.
    pub method: Method,
    /// The call's path, webhook tokens redacted.
    pub path: String,
    /// The status.
    pub status: StatusCode,
    /// Discord's error body, when it sent one (docs/discord.md §2.1).
    pub body: Option<ErrorBody>,
    /// A 429's `X-RateLimit-Scope` (`user`, `global`, `shared`).
    pub scope: Option<String>,
}

impl ApiError {
    /// Discord's error code (docs/discord.md §2.3), when the body had one.
    pub fn code(&self) -> Option<i64> {
        self.body.as_ref().map(|b| b.code)
    }
}

pub(crate) fn describe(body: &Option<ErrorBody>) -> String {
    let Some(b) = body else {
        return String::new();
    };
    let mut s = format!(", Discord error {}: {}", b.code, b.message);
    if let Some(errors) = &b.errors {
        let mut leaves = Vec::new();
        collect_field_errors(errors, String::new(), &mut leaves);
        if !leaves.is_empty() {
            s.push_str(&format!(" ({})", leaves.join("; ")));
        }
    }
    // The body is the server's words, field names included: shown inert.
    inert::terminal(&s).into_owned()
}

/// Flattens Discord's nested `errors` tree into `field.path: message` lines.
fn collect_field_errors(v: &Value, path: String, out: &mut Vec<String>) {
    let Value::Object(map) = v else { return };
    for (k, child) in map {
        if k == "_errors" {
            for e in child.as_array().into_iter().flatten() {
                let msg = e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("invalid");
                let at = if path.is_empty() { "body" } else { &path };
                out.push(format!("{at}: {msg}"));
            }
        } else {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            collect_field_errors(child, p, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_flatten_field_errors() {
        let body: ErrorBody = serde_json::from_value(serde_json::json!({
            "code": 50035, "message": "Invalid Form Body",
            "errors": {"name": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}]}}
        }))
        .unwrap();
        let e = ApiError {
            method: Method::PATCH,
            path: "/channels/1".into(),
            status: StatusCode::BAD_REQUEST,
            body: Some(body),
            scope: None,
        };
        assert_eq!(
            e.to_string(),
            "PATCH /channels/1 failed: 400 Bad Request, Discord error 50035: Invalid Form Body (name: Must be 100 or fewer in length.)"
        );
    }

    #[test]
    fn error_bodies_are_shown_inert() {
        // What a hostile or broken server may answer: terminal escapes and a line that
        // would be a workflow command, in the message and in a field's name.
        let body: ErrorBody = serde_json::from_value(serde_json::json!({
            "code": 0, "message": "no\u{1b}]52;c;aGk=\u{7}\n::warning::owned",
            "errors": {"x\n::error::y": {"_errors": [{"code": "X", "message": "\u{202e}##[error]z"}]}}
        }))
        .unwrap();
        let e = ClientError::Api(Box::new(ApiError {
            method: Method::GET,
            path: "/guilds/1".into(),
            status: StatusCode::BAD_REQUEST,
            body: Some(body),
            scope: None,
        }));
        assert_eq!(
            e.to_string(),
            "GET /guilds/1 failed: 400 Bad Request, Discord error 0: no\\u{1b}]52;c;aGk=\\u{7}\\n::warning::owned (x\\n::error::y: \\u{202e}\\u{23}#[error]z)"
        );
        let e = ClientError::Decode {
            method: Method::GET,
            path: "/guilds/1".into(),
            detail: "\u{1b}[2K".into(),
        };
        assert!(e.to_string().contains("(\\u{1b}[2K)"), "{e}");
    }
}
