//! The one HTTP client every Discord call goes through: authentication, the
//! audit-log reason header, error decoding and retries after a 429.

use std::fmt;
use std::time::Duration;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use guildctl_inert::redact;
use tokio::time::Instant;

use crate::error::{describe, redirected};
use crate::limits::MAX_REASON_CHARS;
use crate::models::ErrorBody;
use crate::ratelimit::{InvalidLedger, Limiter, Route, Wait, WaitHook, secs};
use crate::{ApiError, ClientError, GaveUp, Token};

/// Discord requires a descriptive User-Agent (docs/discord.md §1.4).
const USER_AGENT: &str = concat!(
    "DiscordBot (https://github.com/guildctl/guildctl, ",
    env!("CARGO_PKG_VERSION"),
    ")"
);

/// A multipart/form-data body (Create Guild Sticker): its text fields and one file, kept
/// as bytes so that every attempt of a retried call sends the same body.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// The text fields, by name.
    pub fields: Vec<(String, String)>,
    /// The file.
    pub file: FormFile,
}

/// The file part of a [`Form`].
#[derive(Debug, Clone, PartialEq)]
pub struct FormFile {
    /// The part's name (`file`).
    pub part: String,
    /// The file's name as sent (its name beside the manifest, without folders).
    pub name: String,
    /// The file's MIME type (`image/png`, …).
    pub mime: &'static str,
    /// The file's bytes.
    pub bytes: bytes::Bytes,
}

impl Form {
    /// The form as reqwest sends it, built afresh for each attempt from the same bytes.
    fn multipart(&self) -> Result<reqwest::multipart::Form, reqwest::Error> {
        let mut form = reqwest::multipart::Form::new();
        for (name, value) in &self.fields {
            form = form.text(name.clone(), value.clone());
        }
        let file = reqwest::multipart::Part::bytes(self.file.bytes.to_vec())
            .file_name(self.file.name.clone())
            .mime_str(self.file.mime)?;
        Ok(form.part(self.file.part.clone(), file))
    }
}

/// A request's body.
#[derive(Debug, Clone, Copy)]
enum Body<'a> {
    Json(&'a Value),
    Form(&'a Form),
}

/// The HTTP client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    api_base: String,
    token: Token,
    limiter: Arc<Limiter>,
    jitter: Arc<AtomicU64>,
    options: ClientOptions,
    /// Set by [`Client::stop`], shared by every clone.
    stop: Arc<tokio::sync::watch::Sender<bool>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("api_base", &self.api_base)
            .finish_non_exhaustive()
    }
}

/// How the client paces and retries; the defaults suit Discord.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// How long one request may take before it counts as failed.
    pub timeout: Duration,
    /// Requests in all per `global_window` (Discord allows a bot 50 per second).
    pub global_limit: usize,
    /// The global limit's window: one second on Discord; shorter against an
    /// emulator whose clock runs faster.
    pub global_window: Duration,
    /// Invalid responses (401, 403, 429) after which the run stops, far below the
    /// 10,000 in ten minutes that get the IP address restricted. Counted for the whole
    /// process, every token and client of it that talks to the same API together
    /// ([`InvalidLedger`]), as Discord counts them.
    pub invalid_budget: usize,
    /// Retries of a call that is safe to repeat after a server error, a timeout or a
    /// dropped connection.
    pub max_retries: u32,
    /// The first backoff before a retry; it doubles each time, with jitter.
    pub backoff: Duration,
    /// Retries of one call after a 429 of any scope (its route, a sublimit, the global
    /// limit, or a `shared` resource), on top of `max_retries`. A `shared` 429 does not
    /// count toward the invalid-request budget, so without this bound it could repeat
    /// forever.
    pub max_rate_limited: u32,
    /// The longest one call may take, from asking for its bucket to its last answer,
    /// every wait and retry included. A 429 asking for a longer wait than is left ends
    /// the call at once.
    pub deadline: Duration,
    /// The largest response body read: one that announces more, or sends more, is
    /// refused as it arrives, never held whole.
    pub max_body_bytes: usize,
}

/// The default body cap: 64 MiB. The largest answer of a guild at Discord's limits with
/// every name and topic at its longest and an overwrite for each of 250 roles on every
/// channel is 12.3 MB; 1,000 overwrites (Discord's most) on each of 500 channels, 46 MB
/// (`tests/bounded_reads.rs`; docs/rate-limits.md, "Bounds").
pub const MAX_BODY_BYTES: usize = 64 << 20;

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(30),
            global_limit: 50,
            global_window: Duration::from_secs(1),
            invalid_budget: 100,
            max_retries: 4,
            backoff: Duration::from_millis(250),
            max_rate_limited: 10,
            // Room for the longest wait Discord asks of a well-behaved client (the channel
            // name and topic sublimit: ten minutes) and then a few retries.
            deadline: Duration::from_secs(15 * 60),
            max_body_bytes: MAX_BODY_BYTES,
        }
    }
}

/// What one attempt came to.
enum Attempt {
    /// The body, when there is one (not 204, not empty).
    Done(Option<bytes::Bytes>),
    /// Worth another try, no sooner than `after` from now. After a 429 the limiter
    /// holds the next attempt (`rate_limited`); otherwise the caller sleeps.
    Retry {
        after: Duration,
        rate_limited: bool,
        error: ClientError,
    },
    Fail(ClientError),
}

impl Client {
    /// A client of the API at `api_base` (`https://discord.com/api/v10`, or the
    /// emulator's) with the bot's token, and the default bounds.
    pub fn new(api_base: &str, token: Token) -> Result<Client, ClientError> {
        Client::with_options(api_base, token, ClientOptions::default())
    }

    /// A client with its bounds (retries, deadline, body cap, global limit) given.
    pub fn with_options(
        api_base: &str,
        token: Token,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(options.timeout)
            // A redirect is refused as an answer ([`ClientError::Redirected`]), never
            // followed: the API and the CDN answer from where guildctl asked.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ClientError::Transport {
                method: Method::GET,
                path: String::new(),
                detail: e.to_string(),
            })?;
        Ok(Client {
            http,
            api_base: api_base.trim_end_matches('/').to_owned(),
            token,
            limiter: Arc::new(Limiter::with_ledger(
                options.global_limit,
                options.global_window,
                options.invalid_budget,
                InvalidLedger::for_api(api_base),
            )),
            jitter: Arc::new(AtomicU64::new(seed())),
            options,
            stop: Arc::new(tokio::sync::watch::Sender::new(false)),
        })
    }

    /// The bot token, for the Gateway's IDENTIFY ([`crate::gateway`]).
    pub(crate) fn token(&self) -> &Token {
        &self.token
    }

    /// The API base, without a trailing slash.
    pub fn api_base(&self) -> &str {
        &self.api_base
    }

    /// The HTTP client without the token, for the CDN ([`super::cdn`]).
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Calls `hook` before each rate-limit wait (every clone of this client shares it);
    /// only the first hook set takes effect.
    pub fn on_rate_limit_wait(&self, hook: impl Fn(Wait<'_>) + Send + Sync + 'static) {
        self.limiter.on_wait(WaitHook(Arc::new(hook)));
    }

    /// From now on no request starts, through this client or any clone: a call waiting
    /// for its turn (its rate limit, a retry's backoff) ends at once with
    /// [`ClientError::Stopped`], and so does every later call. Requests already sent
    /// finish, each within its timeout. For an interrupted apply.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Whether [`Client::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Resolves once [`Client::stop`] is called.
    async fn stopped(&self) {
        let mut rx = self.stop.subscribe();
        // The sender lives as long as `self`: `wait_for` ends only when it is set.
        let _ = rx.wait_for(|stopped| *stopped).await;
    }

    /// Invalid responses (401, 403, 429) counted in the last ten minutes, by every client
    /// of this process that talks to the same API.
    pub fn invalid_responses(&self) -> usize {
        self.limiter.invalid_spent()
    }

    /// Reads `path` as a `T`. A body that is empty, or not a `T` (a required field missing,
    /// a value of the wrong type) is [`ClientError::Decode`], naming where in the body.
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        self.get_or(path, crate::models::decode_at).await
    }

    /// [`Client::get`], with `fallback` reading a body that is not a `T` as it stands (a
    /// guild without a field a Discord-compatible server leaves out, [`Guild::decode`]):
    /// the common body is still read straight from its bytes.
    ///
    /// [`Guild::decode`]: super::models::Guild::decode
    pub async fn get_or<T: DeserializeOwned>(
        &self,
        path: &str,
        fallback: fn(Value) -> Result<T, String>,
    ) -> Result<T, ClientError> {
        let decode = |detail: String| ClientError::Decode {
            method: Method::GET,
            path: path.to_owned(),
            detail,
        };
        let bucket = Route::of(&Method::GET, path);
        let Some(body) = self.send_raw(Method::GET, path, bucket, None, None).await? else {
            return Err(decode("the body is empty".into()));
        };
        // Straight from the bytes, not through a `Value` as large again as the body; a body
        // that does not fit is read again as a `Value` to say where and why.
        if let Ok(v) = serde_json::from_slice::<T>(&body) {
            return Ok(v);
        }
        let value = json_body(&Method::GET, path, &body)?;
        fallback(value).map_err(decode)
    }

    /// Sends one request, waiting for its rate-limit bucket and the global limit,
    /// honouring 429s, and retrying what is safe to repeat. Returns the JSON body,
    /// or `None` for 204.
    ///
    /// A create (POST) whose outcome is unknown (a server error, timeout or dropped
    /// connection) is not repeated: it fails with [`ClientError::Ambiguous`] so the
    /// caller can look for the object before trying again.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        reason: Option<&str>,
    ) -> Result<Option<Value>, ClientError> {
        let bucket = Route::of(&method, path);
        match self
            .send_raw(method.clone(), path, bucket, body.map(Body::Json), reason)
            .await?
        {
            Some(bytes) => json_body(&method, path, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Makes the write `route` names, as [`Client::send`] does: its method, path and
    /// rate-limit bucket are the route's, and `reason` goes with it only where Discord
    /// records one ([`super::Route::takes_reason`]).
    pub async fn call(
        &self,
        route: &crate::Route,
        body: Option<&Value>,
        reason: Option<&str>,
    ) -> Result<Option<Value>, ClientError> {
        self.call_with(route, body.map(Body::Json), reason).await
    }

    /// [`Client::call`] for a route that takes its body as multipart/form-data
    /// ([`super::Route::takes_form`]): the same bucket, reason, retries and deadline.
    pub async fn call_form(
        &self,
        route: &crate::Route,
        form: &Form,
        reason: Option<&str>,
    ) -> Result<Option<Value>, ClientError> {
        self.call_with(route, Some(Body::Form(form)), reason).await
    }

    async fn call_with(
        &self,
        route: &crate::Route,
        body: Option<Body<'_>>,
        reason: Option<&str>,
    ) -> Result<Option<Value>, ClientError> {
        let (method, path) = (route.method(), route.path());
        let reason = reason.filter(|_| route.takes_reason());
        match self
            .send_raw(method.clone(), &path, route.bucket(), body, reason)
            .await?
        {
            Some(bytes) => json_body(&method, &path, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// [`Client::send`], returning the body's bytes.
    async fn send_raw(
        &self,
        method: Method,
        path: &str,
        route: Route,
        body: Option<Body<'_>>,
        reason: Option<&str>,
    ) -> Result<Option<bytes::Bytes>, ClientError> {
        let deadline = Instant::now() + self.options.deadline;
        let (mut failures, mut limited) = (0, 0);
        loop {
            let call = Call {
                method: &method,
                path,
                route: &route,
                deadline,
            };
            // A failed try may have reached Discord; a 429 was not carried out.
            let maybe_made = failures > 0;
            if self.is_stopped() {
                return Err(call.stopped(maybe_made));
            }
            match self.attempt(&call, body, reason, maybe_made).await {
                Attempt::Done(v) => return Ok(v),
                Attempt::Fail(ClientError::Stopped { .. }) => return Err(call.stopped(maybe_made)),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry {
                    after,
                    rate_limited,
                    error,
                } => {
                    let why = if rate_limited {
                        limited += 1;
                        (limited > self.options.max_rate_limited).then_some(GaveUp::RateLimited {
                            tries: failures + limited,
                        })
                    } else {
                        failures += 1;
                        (failures > self.options.max_retries).then_some(GaveUp::Failing {
                            tries: failures + limited,
                        })
                    };
                    if let Some(why) = why {
                        return Err(call.gave_up(why, &error));
                    }
                    if Instant::now() + after > deadline {
                        let wait = rate_limited.then_some(after);
                        return Err(call.gave_up(self.deadline_passed(wait), &error));
                    }
                    if !rate_limited {
                        tokio::select! {
                            () = tokio::time::sleep(after) => {}
                            () = self.stopped() => return Err(call.stopped(true)),
                        }
                    }
                }
            }
        }
    }

    fn deadline_passed(&self, wait: Option<Duration>) -> GaveUp {
        GaveUp::Deadline {
            deadline: self.options.deadline,
            wait,
        }
    }

    async fn attempt(
        &self,
        call: &Call<'_>,
        body: Option<Body<'_>>,
        reason: Option<&str>,
        retrying: bool,
    ) -> Attempt {
        let Call {
            method,
            path,
            route,
            deadline,
        } = *call;
        let idempotent = method != Method::POST;
        // Waiting for the bucket or the global limit counts toward the deadline too;
        // nothing has been sent yet, so giving up here (or stopping) is safe for any call.
        let acquired = tokio::select! {
            biased;
            () = self.stopped() => return Attempt::Fail(call.stopped(false)),
            acquired = tokio::time::timeout_at(deadline, self.limiter.acquire(route)) => acquired,
        };
        let Ok(mut permit) = acquired else {
            let last = "none yet: the call was still waiting for its rate limit".to_owned();
            return Attempt::Fail(call.gave_up_with(self.deadline_passed(None), last));
        };
        if self.is_stopped() {
            return Attempt::Fail(call.stopped(false));
        }
        // Once the budget is spent no request starts; only those already in flight finish.
        if self.limiter.budget_spent() {
            return Attempt::Fail(ClientError::InvalidBudget {
                spent: self.limiter.invalid_spent(),
            });
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let last = "no time left to send it".to_owned();
            return Attempt::Fail(call.gave_up_with(self.deadline_passed(None), last));
        }
        let mut req = self
            .http
            .request(method.clone(), format!("{}{}", self.api_base, path))
            // The request may take its timeout, or what is left of the call's deadline.
            .timeout(left.min(self.options.timeout))
            .header("Authorization", format!("Bot {}", self.token.expose()));
        if let Some(r) = reason.filter(|r| !r.is_empty()) {
            req = req.header("X-Audit-Log-Reason", encode_reason(r));
        }
        let transport = |detail: String| ClientError::Transport {
            method: method.clone(),
            path: path.to_owned(),
            detail,
        };
        match body {
            Some(Body::Json(b)) => req = req.json(b),
            Some(Body::Form(f)) => match f.multipart() {
                Ok(form) => req = req.multipart(form),
                Err(e) => return Attempt::Fail(transport(e.without_url().to_string())),
            },
            None => {}
        }
        let unknown_outcome = |detail: String| {
            if idempotent {
                Attempt::Retry {
                    after: self.backoff(retrying),
                    rate_limited: false,
                    error: transport(detail),
                }
            } else {
                Attempt::Fail(ClientError::Ambiguous {
                    method: method.clone(),
                    path: path.to_owned(),
                    detail,
                })
            }
        };
        // reqwest's messages name the URL, never headers, so no token leaks here.
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) if e.is_connect() && !e.is_timeout() => {
                // Refused before anything was sent: safe to repeat, even a create.
                return Attempt::Retry {
                    after: self.backoff(retrying),
                    rate_limited: false,
                    error: transport(e.without_url().to_string()),
                };
            }
            Err(e) => return unknown_outcome(e.without_url().to_string()),
        };
        let status = resp.status();
        let headers = resp.headers().clone();
        self.limiter.update(route, &mut permit, &headers);
        if status.is_redirection() {
            return Attempt::Fail(redirected(method, &call.shown_path(), &resp));
        }
        let bytes = match self.read_body(call, resp).await {
            Ok(b) => b,
            Err(Unread::TooLarge(e)) => return Attempt::Fail(e),
            Err(Unread::Transport(e)) => return unknown_outcome(e.without_url().to_string()),
        };
        if status.is_success() {
            if bytes.is_empty() || status == StatusCode::NO_CONTENT {
                return Attempt::Done(None);
            }
            return Attempt::Done(Some(bytes));
        }
        let error_body: Option<ErrorBody> = serde_json::from_slice(&bytes).ok();
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let scope = header("x-ratelimit-scope");
        let api_error = || {
            ClientError::Api(Box::new(ApiError {
                method: method.clone(),
                path: path.to_owned(),
                status,
                body: error_body.clone(),
                scope: scope.map(str::to_owned),
            }))
        };
        let shared = scope == Some("shared");
        let invalid = matches!(status.as_u16(), 401 | 403) || (status == 429 && !shared);
        if invalid && !self.limiter.spend_invalid() {
            return Attempt::Fail(ClientError::InvalidBudget {
                spent: self.limiter.invalid_spent(),
            });
        }
        match status.as_u16() {
            401 => Attempt::Fail(ClientError::Unauthorized {
                method: method.clone(),
                path: path.to_owned(),
            }),
            429 => {
                let wait = error_body
                    .as_ref()
                    .and_then(|b| b.retry_after)
                    .or_else(|| header("retry-after").and_then(|v| v.parse().ok()))
                    .or_else(|| header("x-ratelimit-reset-after").and_then(|v| v.parse().ok()))
                    .map(secs)
                    .unwrap_or(Duration::from_secs(1));
                let global = header("x-ratelimit-global") == Some("true")
                    || error_body.as_ref().and_then(|b| b.global) == Some(true);
                if global {
                    self.limiter.block_global(wait);
                } else {
                    // A route 429, a sublimit (429 while the bucket had room) or a shared
                    // resource: wait it out.
                    self.limiter.block_bucket(&mut permit, wait);
                }
                // Not processed: safe to send again, creates included.
                Attempt::Retry {
                    after: wait,
                    rate_limited: true,
                    error: api_error(),
                }
            }
            404 if retrying && method == Method::DELETE => Attempt::Done(None),
            500..=599 => unknown_outcome(format!("{status}")),
            _ => Attempt::Fail(api_error()),
        }
    }

    /// The body, read chunk by chunk up to [`ClientOptions::max_body_bytes`]: a body
    /// announced or found larger is dropped (and its connection with it) unread.
    async fn read_body(
        &self,
        call: &Call<'_>,
        mut resp: reqwest::Response,
    ) -> Result<bytes::Bytes, Unread> {
        let cap = self.options.max_body_bytes;
        let too_large = |announced| Unread::TooLarge(call.too_large(cap, announced));
        let announced = resp.content_length();
        if let Some(n) = announced
            && n > cap as u64
        {
            return Err(too_large(Some(n)));
        }
        // An announced length is only a promise: the bytes are counted either way.
        let mut body = bytes::BytesMut::with_capacity(announced.unwrap_or(0) as usize);
        while let Some(chunk) = resp.chunk().await.map_err(Unread::Transport)? {
            if body.len() + chunk.len() > cap {
                return Err(too_large(None));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.freeze())
    }

    /// Exponential backoff with jitter, so retries from many calls do not align.
    fn backoff(&self, retrying: bool) -> Duration {
        let base = self.options.backoff.as_secs_f64();
        let step = if retrying { 2.0 } else { 1.0 };
        // xorshift: cheap, and plenty for spreading retries.
        let mut x = self.jitter.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.jitter.store(x, Ordering::Relaxed);
        let unit = (x % 1000) as f64 / 1000.0;
        Duration::from_secs_f64(base * step * (0.5 + unit))
    }
}

/// One call as its attempts see it: what it is and when it must be over.
#[derive(Clone, Copy)]
struct Call<'a> {
    method: &'a Method,
    path: &'a str,
    route: &'a Route,
    deadline: Instant,
}

impl Call<'_> {
    /// The path as errors show it: a webhook token route's token replaced.
    fn shown_path(&self) -> String {
        redact(self.path)
    }

    fn gave_up(&self, why: GaveUp, last: &ClientError) -> ClientError {
        self.gave_up_with(why, last_answer(last))
    }

    fn gave_up_with(&self, why: GaveUp, last: String) -> ClientError {
        let advice = match &why {
            GaveUp::RateLimited { .. } => {
                "Discord kept rate-limiting this call: wait a few minutes and run again"
            }
            GaveUp::Failing { .. } => {
                "Discord or the network kept failing: check the API base (--api-base, GUILDCTL_API_BASE) and run again later"
            }
            GaveUp::Deadline { .. } => {
                "nothing more is sent for it: wait a few minutes and run again"
            }
        };
        ClientError::GaveUp {
            method: self.method.clone(),
            path: self.shown_path(),
            why,
            last,
            advice,
        }
    }

    fn stopped(&self, maybe_made: bool) -> ClientError {
        ClientError::Stopped {
            method: self.method.clone(),
            path: self.shown_path(),
            maybe_made,
        }
    }

    fn too_large(&self, cap: usize, announced: Option<u64>) -> ClientError {
        ClientError::BodyTooLarge {
            method: self.method.clone(),
            path: self.shown_path(),
            cap,
            announced,
        }
    }
}

/// Why a body was not read.
enum Unread {
    TooLarge(ClientError),
    Transport(reqwest::Error),
}

/// What a retried call last got, without the call's name (the error names it).
fn last_answer(e: &ClientError) -> String {
    match e {
        ClientError::Api(a) if a.status == StatusCode::TOO_MANY_REQUESTS => {
            let scope = a
                .scope
                .as_deref()
                .map(|s| format!(", scope {s}"))
                .unwrap_or_default();
            format!("{}{scope}{}", a.status, describe(&a.body))
        }
        ClientError::Api(a) => format!("{}{}", a.status, describe(&a.body)),
        ClientError::Transport { detail, .. } | ClientError::Ambiguous { detail, .. } => {
            detail.clone()
        }
        other => other.to_string(),
    }
}

/// A successful response's body as JSON.
fn json_body(method: &Method, path: &str, bytes: &[u8]) -> Result<Value, ClientError> {
    serde_json::from_slice(bytes).map_err(|e| ClientError::Decode {
        method: method.clone(),
        path: path.to_owned(),
        detail: if e.is_eof() {
            format!("the body ends early, cut off ({e})")
        } else {
            format!("the body is not JSON ({e})")
        },
    })
}

fn seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    nanos | 1
}

/// Percent-encodes a reason as UTF-8 after cutting it to Discord's 512 characters.
pub fn encode_reason(reason: &str) -> String {
    let cut: String = reason.chars().take(MAX_REASON_CHARS).collect();
    utf8_percent_encode(&cut, NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_cut_to_512_characters_then_encoded() {
        let long = "é".repeat(600);
        let enc = encode_reason(&long);
        let decoded = percent_encoding::percent_decode_str(&enc)
            .decode_utf8()
            .unwrap();
        assert_eq!(decoded.chars().count(), 512);
        assert_eq!(encode_reason("a b+c"), "a%20b%2Bc");
    }
}
