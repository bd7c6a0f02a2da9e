//! One module per command, as cargo's `commands/`: each holds its arguments, calls one
//! operation of `guildctl::ops` and renders what comes back. `session` is what the commands
//! that read a manifest or the guild share (the targets, the session, `ops`'s host);
//! `guilds` how a run over a workspace's guilds is rendered; `git`
//! the commit facts an apply records; `locks` the locks a command that writes takes;
//! `interrupt` what SIGINT and SIGTERM do while apply makes its calls.

pub mod access;
pub mod apply;
pub mod codeowners;
pub mod drift;
pub mod emulator;
pub mod export;
mod git;
mod guilds;
mod ids_out;
pub mod import;
mod interrupt;
pub mod lockdown;
mod locks;
pub mod man;
pub mod mcp;
pub mod plan;
mod policy_base;
mod rehearse;
mod session;
pub mod validate;
pub mod watch;

pub(crate) use rehearse::failed as rehearsal_failed;
pub(crate) use session::*;

/// Exit codes (README.md): 0 nothing to change, 1 error, 2 changes pending.
pub(crate) const EXIT_CHANGES: u8 = 2;
/// An apply stopped by SIGINT or SIGTERM: 128 + SIGINT, as shells report Ctrl-C.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;
