//! A faithful local stand-in for the Discord HTTP API v10, for tests and for
//! trying guildctl without a real guild (`guildctl emulator`, `--sandbox`).
//!
//! It is held to the real API (docs/discord.md), not to guildctl. The
//! state format is documented in the crate README.

#![forbid(unsafe_code)]

mod access;
mod app;
mod application;
mod audit_log;
mod automod;
mod bans;
mod channels;
pub mod config;
mod control;
mod default_state;
mod emojis;
pub mod error;
mod events;
mod expressions;
pub mod faults;
mod followers;
mod form;
pub mod gateway;
mod guild;
mod images;
mod incidents;
mod integrations;
mod invites;
mod large_state;
mod layers;
mod many_guilds;
mod media;
mod member_edit;
mod members;
mod messages;
mod names;
mod onboarding;
mod overwrites;
pub mod perms;
mod probe;
mod prune;
pub mod ratelimit;
mod regions;
mod render;
mod request_log;
mod roles;
mod routes;
mod scheduled_events;
mod soundboard;
pub mod state;
mod stickers;
mod threads;
mod time;
mod users;
mod webhook_messages;
mod webhooks;
mod welcome;
mod widget;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

pub use automod::{DISCORD_SYSTEM_USER_ID, discord_mention_spam_rule};
pub use config::{EmulatorConfig, Limit, RouteBucket};
pub use default_state::default_state;
pub use faults::{FaultKind, FaultRule, FaultSet, Oversized, Storm};
pub use large_state::{LargeStateOptions, large_state};
pub use many_guilds::{with_guild_copies, with_second_bot};
pub use names::stored_channel_name;
#[doc(hidden)]
pub use probe::{DispatchSeen, run_for_dispatches};
pub use ratelimit::Scope;
pub use request_log::RequestRecord;
pub use state::State;

use app::{App, Shared, lock};

#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("only loopback addresses are allowed, not {0}")]
    NotLoopback(SocketAddr),
    #[error("cannot read emulator state file {path}: {source}")]
    ReadState {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid emulator state file {path}: {source}")]
    ParseState {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("emulator state has no guild")]
    NoGuild,
    #[error("invalid emulator config: {0}")]
    Config(String),
    #[error("invalid fault set: {0}")]
    Faults(String),
    #[error("emulator server failed: {0}")]
    Serve(std::io::Error),
}

#[derive(Debug, Clone, Default)]
pub struct EmulatorOptions {
    /// `None` = `default_state()`.
    pub state: Option<State>,
}

pub struct RunningEmulator {
    pub base_url: String,
    pub api_base: String,
    pub token: String,
    pub guild_id: String,
    app: App,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for RunningEmulator {
    // The token is a credential: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningEmulator")
            .field("api_base", &self.api_base)
            .field("guild_id", &self.guild_id)
            .finish_non_exhaustive()
    }
}

impl RunningEmulator {
    /// Starts on 127.0.0.1 with an ephemeral port.
    pub async fn start(opts: EmulatorOptions) -> Result<RunningEmulator, EmulatorError> {
        Self::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), opts).await
    }

    pub async fn start_on(
        addr: SocketAddr,
        opts: EmulatorOptions,
    ) -> Result<RunningEmulator, EmulatorError> {
        Self::serve(addr, opts, true).await
    }

    /// Starts on 127.0.0.1 with an ephemeral port, without the `/_emulator/*` control
    /// endpoints (they answer 404): only the API is served, to callers holding the token.
    /// For a server no other process on the machine should read or change (guildctl's
    /// rehearsal copy); keep the state's `tokens` empty for a fresh random token. The
    /// methods of [`RunningEmulator`] still control it from this process.
    pub async fn start_without_control(
        opts: EmulatorOptions,
    ) -> Result<RunningEmulator, EmulatorError> {
        Self::serve(SocketAddr::from(([127, 0, 0, 1], 0)), opts, false).await
    }

    async fn serve(
        addr: SocketAddr,
        opts: EmulatorOptions,
        control: bool,
    ) -> Result<RunningEmulator, EmulatorError> {
        if !addr.ip().is_loopback() {
            return Err(EmulatorError::NotLoopback(addr));
        }
        let mut st = opts.state.unwrap_or_else(default_state);
        st.config.validate().map_err(EmulatorError::Config)?;
        let guild_id = st.guilds.first().ok_or(EmulatorError::NoGuild)?.id.clone();
        let token = ensure_token(&mut st);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| EmulatorError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| EmulatorError::Bind { addr, source })?;
        let app: App = Arc::new(Shared::default());
        *lock(&app.state) = st;
        let service = if control {
            routes::service(app.clone())
        } else {
            routes::service_without_control(app.clone())
        };
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let make = axum::ServiceExt::<axum::extract::Request>::into_make_service(service);
            let _ = axum::serve(listener, make)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        let base_url = format!("http://{local}");
        Ok(RunningEmulator {
            api_base: format!("{base_url}/api/v10"),
            base_url,
            token,
            guild_id,
            app,
            shutdown: Some(tx),
            task: Some(task),
        })
    }

    pub fn state(&self) -> State {
        lock(&self.app.state).clone()
    }

    /// Replaces the state (see `PUT /_emulator/state`) and resets the
    /// rate-limit counters.
    ///
    /// # Panics
    /// If `s.config` is invalid ([`EmulatorConfig::validate`]).
    pub fn set_state(&self, s: State) {
        if let Err(e) = control::install_state(&self.app, s) {
            panic!("set_state: invalid emulator config: {e}");
        }
    }

    pub fn config(&self) -> EmulatorConfig {
        lock(&self.app.state).config.clone()
    }

    /// Replaces `state.config` (rate limits, time scale, onboarding
    /// thresholds) and resets the rate-limit counters.
    pub fn set_config(&self, c: EmulatorConfig) -> Result<(), EmulatorError> {
        control::install_config(&self.app, c).map_err(EmulatorError::Config)
    }

    /// Installs a fault set (replacing the current one); returns the seed in
    /// use, chosen at random when the set has none.
    pub fn set_faults(&self, f: FaultSet) -> Result<u64, EmulatorError> {
        control::install_faults(&self.app, f).map_err(EmulatorError::Faults)
    }

    /// The faults in force, with the seed in use.
    pub fn faults(&self) -> FaultSet {
        lock(&self.app.faults).set()
    }

    pub fn clear_faults(&self) {
        *lock(&self.app.faults) = faults::Faults::default();
    }

    /// Jumps the emulated clock forward: windows of the rate limits elapse
    /// without waiting, and so does time for ids, timestamps and expiries (audit-log
    /// retention, invites, timeouts).
    pub fn advance_clock(&self, seconds: f64) {
        control::advance_clock(&self.app, seconds);
    }

    /// Forgets every rate-limit counter and an invalid-request refusal.
    pub fn reset_rate_limits(&self) {
        lock(&self.app.limiter).reset();
    }

    /// The Gateway's sessions (`GET /_emulator/gateway`).
    pub fn gateway_sessions(&self) -> Vec<gateway::SessionInfo> {
        lock(&self.app.gateway).sessions()
    }

    /// Sends op 7, op 9, a close or a dropped connection to one Gateway session or all
    /// (`POST /_emulator/gateway`); returns how many connections it reached.
    pub fn gateway_command(&self, c: &gateway::GatewayCommand) -> Result<usize, String> {
        lock(&self.app.gateway).command(c)
    }

    /// The Gateway's URL, as `GET /gateway` gives it.
    pub fn gateway_url(&self) -> String {
        gateway::url(self.base_url.trim_start_matches("http://"))
    }

    pub fn requests(&self) -> Vec<RequestRecord> {
        lock(&self.app.requests).clone()
    }

    pub fn clear_requests(&self) {
        lock(&self.app.requests).clear();
    }

    pub async fn shutdown(mut self) {
        // Hanging faults (timeout, latency) give up so the server can stop.
        self.app.shutdown.send_replace(true);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

/// The bot's token: the pinned one if the state has it, else a fresh random one.
fn ensure_token(st: &mut State) -> String {
    if st.bot_user_id.is_empty()
        && let Some(t) = st.tokens.first()
    {
        st.bot_user_id = t.user_id.clone();
    }
    if let Some(t) = st.tokens.iter().find(|t| t.user_id == st.bot_user_id) {
        return t.token.clone();
    }
    let token = random_token(&st.bot_user_id);
    st.tokens.push(state::BotToken {
        token: token.clone(),
        user_id: st.bot_user_id.clone(),
    });
    token
}

/// A token shaped like Discord's: base64(user id) "." 6 chars "." 38 chars.
pub(crate) fn random_token(user_id: &str) -> String {
    let digest = random_bytes();
    let a = b64url(user_id.as_bytes());
    let b = b64url(&digest[..4]);
    let c = b64url(&digest[4..32]);
    format!("{a}.{b}.{c}")
}

/// A webhook token: 68 URL-safe characters, as Discord's are.
pub(crate) fn random_webhook_token() -> String {
    let mut out = b64url(&random_bytes());
    out.push_str(&b64url(&random_bytes()));
    out.truncate(68);
    out
}

/// 32 unpredictable bytes. Randomness comes from the std hasher's per-process
/// (and per-call) keys plus the clock, which is plenty for local test secrets.
fn random_bytes() -> [u8; 32] {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    let seed = h.finish();
    let mut hasher = Sha256::new();
    hasher.update(seed.to_le_bytes());
    hasher.update(nanos.to_le_bytes());
    hasher.finalize().into()
}

fn b64url(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Reads a state file (JSON). Errors name the file.
pub fn load_state_file(path: &Path) -> Result<State, EmulatorError> {
    let text = std::fs::read_to_string(path).map_err(|source| EmulatorError::ReadState {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| EmulatorError::ParseState {
        path: path.to_owned(),
        source,
    })
}

/// `guildctl emulator [--listen ADDR] [--state FILE]`: hands `announce` one JSON line
/// `{"api_base","token","guild_id"}` (for stdout: the caller writes it, and decides what a
/// closed stdout means), then serves until ctrl-c.
pub async fn run_cli(
    listen: SocketAddr,
    state_file: Option<PathBuf>,
    announce: impl FnOnce(&str),
) -> Result<(), EmulatorError> {
    let state = match state_file {
        Some(p) => Some(load_state_file(&p)?),
        None => None,
    };
    let emu = RunningEmulator::start_on(listen, EmulatorOptions { state }).await?;
    // The one place the token is printed: the user asked for it to connect.
    let line = serde_json::json!({
        "api_base": emu.api_base,
        "token": emu.token,
        "guild_id": emu.guild_id,
    });
    announce(&line.to_string());
    let _ = tokio::signal::ctrl_c().await;
    emu.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b64url_matches_known_values() {
        assert_eq!(b64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(b64url(b"fo"), "Zm8");
        assert_eq!(b64url(b"f"), "Zg");
    }

    #[test]
    fn random_tokens_differ_and_start_with_the_user() {
        let a = random_token("123");
        let b = random_token("123");
        assert_ne!(a, b);
        assert!(a.starts_with("MTIz."));
    }

    #[test]
    fn webhook_tokens_are_68_url_safe_chars_and_differ() {
        let a = random_webhook_token();
        assert_eq!(a.len(), 68);
        assert!(
            a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_ne!(a, random_webhook_token());
    }
}
