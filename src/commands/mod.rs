//! One module per command, as cargo's `commands/`: each holds its arguments and runs
//! them. `session` is what the commands that read a manifest or the guild share; `git`
//! the commit facts an apply records; `locks` the locks a command that writes takes;
//! `interrupt` what SIGINT and SIGTERM do while apply makes its calls.

pub mod access;
pub mod apply;
pub mod drift;
pub mod emulator;
pub mod export;
mod git;
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
mod workspace;

pub(crate) use rehearse::{
    annotate_refusal as annotate_rehearsal_refusal, failed as rehearsal_failed,
    options as rehearsal_options, rehearse_plan,
};
pub(crate) use session::*;

/// Exit codes (README.md): 0 nothing to change, 1 error, 2 changes pending.
pub(crate) const EXIT_CHANGES: u8 = 2;
/// An apply stopped by SIGINT or SIGTERM: 128 + SIGINT, as shells report Ctrl-C.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;
