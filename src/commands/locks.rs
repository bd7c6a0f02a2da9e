//! The locks a command that writes takes (docs/safety.md, "Two applies at once"): the
//! sandbox state file's, from before it is read until it is written back, and on a live
//! guild the guild's, from before the guild is read until its calls are over. A lock
//! that is held is waited for, with a notice, up to `--lock-timeout`; then the command
//! refuses, having sent nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

use guildctl::discord::time::{duration_secs, human_duration, rfc3339};
use guildctl::file_lock::{self, Busy, Held, Holder};
use guildctl::private_file::folder_of;

/// How long a command waits for a lock by default: an ordinary apply finishes well
/// within it, and a forgotten confirmation prompt in another terminal does not hang a
/// script for ever.
pub(crate) const DEFAULT_WAIT: &str = "5m";

/// A command that writes: its name in lock files and messages, and how long it waits
/// for a lock another process holds.
#[derive(Clone, Debug)]
pub(crate) struct Writer {
    pub(crate) command: &'static str,
    pub(crate) wait: Duration,
}

impl Writer {
    /// `command`, waiting as `GUILDCTL_LOCK_TIMEOUT` says (else [`DEFAULT_WAIT`]): for the
    /// commands without `--lock-timeout`.
    pub(crate) fn from_env(command: &'static str) -> Result<Writer> {
        let wait = match std::env::var("GUILDCTL_LOCK_TIMEOUT") {
            Ok(v) => lock_wait(&v).map_err(|e| anyhow!("GUILDCTL_LOCK_TIMEOUT: {e}"))?,
            Err(_) => lock_wait(DEFAULT_WAIT).map_err(|e| anyhow!(e))?,
        };
        Ok(Writer { command, wait })
    }
}

/// `--lock-timeout`'s value: `0s` (refuse at once), `90s`, `5m`, `1h`.
pub(crate) fn lock_wait(s: &str) -> Result<Duration, String> {
    duration_secs(s).map(Duration::from_secs).ok_or_else(|| {
        format!("`{s}` is not a duration: write a whole number with s, m or h (`0s` to refuse at once, `90s`, `5m`)")
    })
}

/// Locks the sandbox state `state` for `writer`: a lock file beside it
/// (`.NAME.lock`), so two commands never read the same state and each write their own.
pub(crate) async fn sandbox_state(state: &Path, writer: &Writer) -> Result<Held> {
    let name = state.file_name().unwrap_or_default().to_string_lossy();
    let path = folder_of(state).join(format!(".{name}.lock"));
    let what = format!("the sandbox state {}", state.display());
    take(&path, writer, &what, "nothing was changed").await
}

/// Locks guild `guild_id` of the API at `api_base` for `writer`, in the per-user lock
/// folder ([`lock_folder`]).
pub(crate) async fn guild(api_base: &str, guild_id: &str, writer: &Writer) -> Result<Held> {
    // The id names a file: only a Discord id (digits) may.
    if guild_id.is_empty() || guild_id.len() > 20 || !guild_id.bytes().all(|b| b.is_ascii_digit()) {
        bail!(
            "the guild id {:?} is not a Discord id (up to 20 digits); nothing was sent to Discord",
            guildctl::inert::terminal(guild_id)
        );
    }
    let folder = lock_folder()?;
    let path = folder.join(guild_lock_name(api_base, guild_id));
    let what = format!("guild {guild_id}");
    take(&path, writer, &what, "nothing was sent to Discord").await
}

/// `guild-ID-API.lock`: a guild is one id on one API (the emulators of tests share ids);
/// the API base is named by a digest, so nothing it holds shows in the file name.
fn guild_lock_name(api_base: &str, guild_id: &str) -> String {
    let api = guildctl::discord::cdn::digest(api_base.trim_end_matches('/').as_bytes());
    format!("guild-{guild_id}-{}.lock", &api[..12])
}

/// Where guild locks live, a folder of the user's own that nobody else may write to:
/// `$XDG_RUNTIME_DIR/guildctl` (the user's runtime folder), else
/// `$XDG_CACHE_HOME/guildctl/locks`, else `~/.cache/guildctl/locks`, else (a container
/// whose user has no home, HOME=/) `guildctl-UID` in the system's temporary folder. The
/// first that is, or can be made, private is used.
fn lock_folder() -> Result<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let mut candidates = Vec::new();
    if let Some(runtime) = absolute("XDG_RUNTIME_DIR").filter(|p| p.is_dir()) {
        candidates.push(runtime.join("guildctl"));
    }
    if let Some(cache) = absolute("XDG_CACHE_HOME") {
        candidates.push(cache.join("guildctl").join("locks"));
    }
    if let Some(home) = absolute("HOME") {
        candidates.push(home.join(".cache").join("guildctl").join("locks"));
    }
    let uid = rustix::process::geteuid().as_raw();
    candidates.push(std::env::temp_dir().join(format!("guildctl-{uid}")));
    let mut tried = Vec::new();
    for folder in candidates {
        match file_lock::private_folder(&folder) {
            Ok(()) => return Ok(folder),
            Err(e) => tried.push(format!("{}: {e}", folder.display())),
        }
    }
    bail!(
        "apply keeps its guild lock in a folder of your own, and none could be made ({}); set XDG_RUNTIME_DIR or HOME to a folder of yours. Nothing was sent to Discord",
        tried.join("; ")
    )
}

/// Takes the lock at `path` for `writer`, saying on stderr that it waits when another
/// process holds it, and refusing once the wait is over.
async fn take(path: &Path, writer: &Writer, what: &str, unchanged: &str) -> Result<Held> {
    let me = Holder::me(writer.command);
    let wait = writer.wait;
    let waiting = |holder: Option<&Holder>| {
        if !wait.is_zero() {
            eprintln!(
                "{} holds {what}; waiting up to {} for it to finish…",
                holder_words(holder),
                human_duration(wait)
            );
        }
    };
    match file_lock::acquire(path, &me, wait, waiting).await {
        Ok(held) => Ok(held),
        Err(Busy::Io(e)) => Err(anyhow!(e))
            .with_context(|| format!("cannot take the lock {} for {what}", path.display())),
        Err(Busy::Held(holder)) => {
            let (waited, then) = if wait.is_zero() {
                (
                    String::new(),
                    "or pass --lock-timeout 5m to wait for it".to_owned(),
                )
            } else {
                (
                    format!(" after {}", human_duration(wait)),
                    "or pass a longer --lock-timeout to wait longer".to_owned(),
                )
            };
            bail!(
                "{} still holds {what}{waited}; {unchanged}. Run {} again once it has finished, {then} (the lock ends with its process: a stopped or crashed one never holds it)",
                holder_words(holder.as_ref()),
                writer.command
            )
        }
    }
}

/// `another guildctl apply (pid 4242, since 2026-05-01T10:00:00Z)`.
fn holder_words(holder: Option<&Holder>) -> String {
    match holder {
        Some(h) => format!(
            "another {} (pid {}, since {})",
            guildctl::inert::terminal(&h.command),
            h.pid,
            rfc3339(h.since.saturating_mul(1000))
        ),
        None => "another guildctl process".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guild_is_locked_per_api_and_the_name_holds_nothing_of_the_base() {
        let discord = guild_lock_name("https://discord.com/api/v10", "81384788765712384");
        assert!(discord.starts_with("guild-81384788765712384-"), "{discord}");
        assert_eq!(
            discord,
            guild_lock_name("https://discord.com/api/v10/", "81384788765712384")
        );
        let other = guild_lock_name(
            "http://user:secret@127.0.0.1:9/api/v10",
            "81384788765712384",
        );
        assert_ne!(discord, other);
        assert!(
            !other.contains("secret") && !other.contains("127"),
            "{other}"
        );
    }

    #[test]
    fn waits_are_written_with_a_unit() {
        assert_eq!(lock_wait("0s"), Ok(Duration::ZERO));
        assert_eq!(lock_wait("5m"), Ok(Duration::from_secs(300)));
        assert!(lock_wait("5").is_err());
        assert!(lock_wait("soon").is_err());
    }
}
