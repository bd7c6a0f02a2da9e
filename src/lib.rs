//! guildctl: Discord guild configuration kept in Git.
//!
//! The modules follow the data path: `manifest` (YAML → desired state),
//! `snapshot` (live state read through `discord`), `plan` (the difference and
//! its safety gates), `apply` (ordered calls), `report` (text, markdown, JSON).
//! `github` talks to GitHub's REST API for the Action (plan comments, drift issues),
//! `gitlab` to GitLab's for the CI/CD component (plan notes, drift issues), and `forge`
//! holds what they share;
//! `progress` is what a person sees on stderr while `apply` runs; `inert` is how text
//! from outside (names, reasons, error bodies, file names) is shown anywhere; `import`
//! makes a manifest from a Discord server template; `ops` holds the sequences of steps
//! commands share (the plan `apply` runs); `file_lock` keeps two processes from writing one
//! guild or sandbox state at once; `stdout` is every write to standard output (`out!`,
//! `outln!`), where a reader that left ends the output, not the command.
//! The local Discord API for tests and `--sandbox` is the `discord-emulator`
//! crate, which shares nothing with this one but the permission table.

#![forbid(unsafe_code)]

pub mod access;
pub mod apply;
pub mod discord;
pub mod drift;
pub mod export;
pub mod file_lock;
pub mod forge;
pub mod github;
pub mod gitlab;
pub mod import;
pub mod inert;
pub mod judge;
pub mod lockdown;
pub mod manifest;
pub mod mcp;
pub mod ops;
/// `print!` that never panics: through [`stdout`], where a reader that left early
/// (`guildctl plan | head`) ends the output, not the command, which finishes its work
/// with its exit code. (`print!` panics there, and an `apply` must not stop halfway
/// because a pipe did.)
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::print(::std::format_args!($($arg)*))
    };
}

/// `println!` that never panics: see [`out!`].
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::print(::std::format_args!("{}\n", ::std::format_args!($($arg)*)))
    };
}

/// Discord's permission bits and names, shared with the emulator.
pub use discord_permissions as permissions;
pub mod plan;
pub mod planner;
pub mod private_file;
pub mod progress;
pub mod rehearse;
pub mod report;
pub mod sections;
pub mod snapshot;
pub mod stdout;
