//! guildctl: Discord guild configuration kept in Git, as a command (`guildctl`) and as a
//! library a program embeds (a bot that applies a layout to a guild from its own process).
//!
//! # The library
//!
//! What a program embedding guildctl uses, and what guildctl promises to keep (docs/library.md
//! says the same, with its stability and a walk through `examples/embed.rs`):
//!
//! - [`ops`]: one operation per command — [`ops::validate`], [`ops::plan`],
//!   [`ops::apply::prepare`] then [`ops::apply::run`], [`ops::drift`], [`ops::export`],
//!   [`ops::access`] — each run for the guilds of an [`ops::Targets`], its outcome typed per
//!   guild ([`ops::Guild`]); the caller's side is an [`ops::Host`] ([`ops::Embedded`] is
//!   one ready for a program).
//! - [`manifest`]: the manifest's types ([`manifest::Manifest`]) and loading one from a
//!   file, a folder or a string ([`manifest::load()`], [`manifest::load_str`]), checked
//!   ([`manifest::check_report`], [`manifest::validate`]) into a [`manifest::Report`].
//! - [`plan`]: the plan value, [`plan::Plan`]: what differs, field by field, and the calls
//!   that would make the guild so.
//! - [`discord`]: the connection, [`discord::Client`] (one bot token, one rate-limit
//!   budget), to Discord or to an emulator of it (the `discord-emulator` crate).
//! - [`report`]: a plan shown as text, markdown or JSON ([`report::render`]).
//! - The values the operations' outcomes carry, each from its room: [`apply`] (what a
//!   guild's calls came to), [`drift`] (the drift report), [`access`] (who can do what,
//!   where), [`rehearse`] (a rehearsal that could not run), [`permissions`].
//!
//! Every other module is public only because the `guildctl` binary (a crate of its own
//! beside this one), the tests and the benches use it: it is `#[doc(hidden)]`, not API,
//! and may change in any release.
//!
//! # The rooms
//!
//! The modules follow the data path: `manifest` (YAML → desired state),
//! `snapshot` (live state read through `discord`), `planner` (the difference, as the plan
//! value `plan`), `judge` (its gates: preflight, deletion gate, risk, policies), `apply`
//! (ordered calls), `report` (text, markdown, JSON).
//! `github` talks to GitHub's REST API for the Action (plan comments, drift issues),
//! `gitlab` to GitLab's for the CI/CD component (plan notes, drift issues), and `forge`
//! holds what they share;
//! `progress` is what a person sees on stderr while `apply` runs; `inert` is how text
//! from outside (names, reasons, error bodies, file names) is shown anywhere; `import`
//! makes a manifest from a Discord server template; `ops` holds one operation per command;
//! `file_lock` keeps two processes from writing one
//! guild or sandbox state at once; `stdout` is every write to standard output (`out!`,
//! `outln!`), where a reader that left ends the output, not the command.
//! The local Discord API for tests and `--sandbox` is the `discord-emulator`
//! crate, which shares nothing with this one but the permission table.

#![forbid(unsafe_code)]
// Every public item of the library's face says what it is (docs/library.md, "Stability");
// the `#[doc(hidden)]` rooms are not API, and the lint skips them.
#![deny(missing_docs)]

// The library's face (docs/library.md).
pub mod manifest;
pub mod ops;
pub mod plan;
/// Discord's permission bits and names, shared with the emulator.
pub use discord_permissions as permissions;
/// Discord's API as guildctl speaks it: routes, models, audit-log types, limits, the
/// client, the CDN (the `guildctl-discord` crate, every item documented).
pub use guildctl_discord as discord;
// The rooms whose values the operations return (what a guild's calls came to, the drift
// report, the access view, a rehearsal that could not run, the rendered plan): API.
pub mod access;
pub mod apply;
pub mod drift;
pub mod rehearse;
pub mod report;

// Internal rooms the `guildctl` binary, the tests and the benches use: not API, no
// stability promise (docs/library.md).
#[doc(hidden)] // export's writer: the binary's `export` and the benches; ops::export is the API.
pub mod export;
#[doc(hidden)] // the locks the binary's writing commands take (ops::apply::Held is the API).
pub mod file_lock;
#[doc(hidden)] // what the GitHub and GitLab commands share; the binary's.
pub mod forge;
#[doc(hidden)] // the GitHub Action's side of the binary (`guildctl github`).
pub mod github;
#[doc(hidden)] // the GitLab component's side of the binary (`guildctl gitlab`).
pub mod gitlab;
#[doc(hidden)] // `guildctl import`'s conversion; the binary's.
pub mod import;
#[doc(hidden)] // text from outside shown inert (the `guildctl-inert` crate); internal.
pub use guildctl_inert as inert;
#[doc(hidden)] // the judges of a plan (preflight, deletion gate, risk, policies); ops runs them.
pub mod judge;
#[doc(hidden)] // `guildctl lockdown`; the binary's.
pub mod lockdown;
#[doc(hidden)] // what `guildctl mcp` serves; the binary's.
pub mod mcp;
#[doc(hidden)] // the planners' kit, below the sections that plan with it; internal.
pub mod plan_kit;
#[doc(hidden)] // the per-kind planners and the driver; ops::plan is the API.
pub mod planner;
#[doc(hidden)] // the binary's private files (webhook URLs, sandbox state).
pub mod private_file;
#[doc(hidden)] // apply's progress on the binary's stderr.
pub mod progress;
#[doc(hidden)] // the manifest's sections as units, below the planner; internal.
pub mod sections;
#[doc(hidden)] // the live guild as the planner reads it; ops reads it for an embedder.
pub mod snapshot;
#[doc(hidden)] // the binary's standard output (`out!`, `outln!`).
pub mod stdout;
#[doc(hidden)] // what `watch` tells, as the binary prints it.
pub mod watch;

/// `print!` that never panics: through [`stdout`], where a reader that left early
/// (`guildctl plan | head`) ends the output, not the command, which finishes its work
/// with its exit code. (`print!` panics there, and an `apply` must not stop halfway
/// because a pipe did.)
#[doc(hidden)] // the binary's standard output; not API.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::print(::std::format_args!($($arg)*))
    };
}

/// `println!` that never panics: see [`out!`].
#[doc(hidden)] // the binary's standard output; not API.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::print(::std::format_args!("{}\n", ::std::format_args!($($arg)*)))
    };
}
