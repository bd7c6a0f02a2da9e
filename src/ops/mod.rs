//! One library operation per command, as cargo's `ops`: `validate`, `plan`, `apply`,
//! `drift`, `export` and `access` take the client (one bot, one rate-limit budget), the
//! [`Targets`] resolved once from the command line (one guild is a workspace of one) and
//! their options, fan out over the guilds themselves (at most [`CONCURRENCY`] at a time) and
//! return a typed outcome per guild. A command parses its arguments, calls one operation
//! and renders what comes back; a guild's outcome is rendered the same way whether it was
//! run alone or with `--all`.
//!
//! What the library cannot decide is the caller's [`Host`]: where a manifest's findings are
//! shown, the policies of a base revision, the commit a manifest is at. [`Embedded`] is a
//! host for a program that embeds guildctl (a bot applying a layout from its own process):
//! it keeps the findings for the program to read.
//!
//! This module is the library's face for embedders (docs/library.md): every public item
//! here is documented, and `missing_docs` keeps it so. An apply from Rust code, as
//! `examples/embed.rs` runs it against the emulator:
//!
//! ```no_run
//! # async fn apply(yaml: &str, api_base: &str, token: &str, guild_id: &str)
//! #     -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! use std::path::Path;
//! use std::sync::Arc;
//! use guildctl::discord::{Client, Token};
//! use guildctl::manifest::{self, Within};
//! use guildctl::ops::{self, Embedded, GuildTarget, Targets, apply::{ApplyRun, CallRun}};
//!
//! let client = Client::new(api_base, Token::new(token)?)?;
//! let path = Path::new("layout.yaml"); // where the layout's relative files would be
//! let loaded = manifest::load_str(path, yaml.to_owned())?;
//! if manifest::check_report(&loaded).has_errors() {
//!     return Err("the layout has errors".into());
//! }
//! let guild = GuildTarget::file(path.into(), Within::given(path), guild_id.to_owned());
//! let targets = Targets::one(guild, Arc::new(loaded));
//! let host = Embedded::new("my bot: the server layout");
//! let run = ApplyRun { rehearse: true, ..ApplyRun::default() };
//! let ready = ops::apply::prepare(&client, targets, &host, &run, ops::apply::no_lock).await;
//! let applied = ops::apply::run(&client, ready, &host, &CallRun::default(), &|_, _| {}).await;
//! for guild in applied {
//!     let applied = guild.result?;
//!     println!("{} changes", applied.plan.changes.len());
//! }
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod access;
pub mod apply;
mod drift;
mod embedded;
mod export;
mod plan;
mod targets;
mod validate;
mod watch;

use std::path::Path;

use crate::manifest::{self, Diagnostic, LoadedManifest, Report, Severity};
use crate::plan::{PlanError, PlanOptions, PolicyBaseline};

/// A guild that could not be read: which step, and Discord's answer (its source).
pub use crate::snapshot::ReadError;
pub use access::{AccessGuild, access, access_guild};
pub use apply::ApplyRefused;
#[doc(hidden)] // a step of apply::prepare on a snapshot read already: the tests'.
pub use apply::{ApplyRequest, plan_for_apply};
pub use drift::{DriftRun, Drifted, drift};
pub use embedded::Embedded;
pub use export::{ExportRun, ExportTo, Exported, FileError, export, ids};
pub use plan::{
    CannotRehearse, PlanRun, Planned, PlannedWithAccess, plan, plan_page, plan_with_access,
};
pub use targets::{CONCURRENCY, Guild, GuildTarget, Targets, WrongGuild};
pub use validate::{validate, validate_guild};
pub use watch::{GuardRun, WatchRun, watch};

/// A guild's failure, which is that guild's alone: the others go on. Its message says what
/// happened and what to do; a program that must tell failures apart downcasts it
/// ([`Invalid`], [`WrongGuild`], [`ApplyRefused`], [`CannotRehearse`],
/// [`apply::ReviewedPlanError`], [`FileError`], or [`ReadError`] when the guild could not
/// be read, its source the [`crate::discord::ClientError`] of the call that failed).
pub type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The caller's side of an operation: what the library does not decide. The command line
/// implements it from its arguments; [`Embedded`] is the one for a program.
pub trait Host: Clone + Send + Sync + 'static {
    /// Shows a report on a guild's manifest: its checks' findings as it loads, a refused
    /// plan's problems on its lines.
    fn show(&self, report: &Report) -> Result<(), Failure>;
    /// Writes a report where the plan's own text does not say it already (a workflow's
    /// annotations): the call a rehearsal's copy refused.
    fn annotate(&self, report: &Report) -> Result<(), Failure>;
    /// The plan's options the command line gives (`--create-unseen`).
    fn plan_options(&self) -> PlanOptions;
    /// The policies of the base revision a guild's manifest is compared with
    /// (`--policies-base`).
    fn policy_baseline(&self, guild: &GuildTarget, loaded: &LoadedManifest) -> PolicyBaseline;
    /// The commit a manifest is at, for drift's report; `None` outside Git.
    fn commit(&self, manifest: &Path) -> Option<String>;
    /// The audit-log reason of apply's calls for a manifest, when none is given.
    fn reason(&self, manifest: &Path) -> String;
}

/// A manifest its checks refused, with the report that says why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}; nothing was sent to Discord", .path.display(), .report.summary())]
pub struct Invalid {
    /// The manifest (a file or a folder).
    pub path: std::path::PathBuf,
    /// Every finding of its checks, placed on the manifest's lines.
    pub report: manifest::Report,
}

/// Loads a guild's manifest and runs every check; the findings are shown
/// ([`Host::show`]), errors refuse it ([`Invalid`]) before anything is sent to Discord, and
/// a workspace's guild whose manifest names another guild is refused ([`WrongGuild`]).
pub fn load(host: &impl Host, guild: &GuildTarget) -> Result<LoadedManifest, Failure> {
    let (loaded, report) = manifest::validate_in(&guild.manifest, &guild.within);
    host.show(&report)?;
    let loaded = match loaded {
        Some(loaded) if !report.has_errors() => loaded,
        _ => {
            return Err(Box::new(Invalid {
                path: guild.manifest.clone(),
                report,
            }));
        }
    };
    guild.check_declared(&loaded)?;
    let (loaded, warnings) = with_people(guild, loaded, true)?;
    if !warnings.is_empty() {
        let mut report = loaded.report();
        report.items = warnings;
        host.show(&report)?;
    }
    Ok(loaded)
}

/// `loaded` with its guild's rosters from the workspace's people file, when the workspace
/// above the manifest names one and has this guild: by its name in the workspace, else by
/// its id (`--guild`, `guild:`), else as the one guild whose manifest this is
/// (docs/workspace.md, "People kept once"). A group that takes its members from a forge's
/// team needs the team read (`GUILDCTL_TEAMS`) when `teams_required`; the warnings say who
/// is in a team the people file does not have.
pub fn with_people(
    guild: &GuildTarget,
    loaded: LoadedManifest,
    teams_required: bool,
) -> Result<(LoadedManifest, Vec<manifest::Located>), Failure> {
    let folder = loaded.dir();
    let Ok(ws) = manifest::Workspace::find_kept(&folder) else {
        return Ok((loaded, Vec::new()));
    };
    let Some(file) = &ws.people else {
        return Ok((loaded, Vec::new()));
    };
    let id = Some(guild.id.as_str())
        .filter(|id| !id.is_empty())
        .or(loaded.manifest.guild.as_ref().map(|g| g.0.as_str()));
    let same_file = |g: &manifest::WorkspaceGuild| {
        std::fs::canonicalize(&g.manifest).ok() == std::fs::canonicalize(&guild.manifest).ok()
    };
    let name = match (&guild.name, id) {
        (Some(name), _) => Some(name.clone()),
        (None, Some(id)) => ws
            .guilds
            .iter()
            .find(|g| g.id == id)
            .map(|g| g.name.clone()),
        (None, None) => match ws
            .guilds
            .iter()
            .filter(|g| same_file(g))
            .collect::<Vec<_>>()[..]
        {
            [one] => Some(one.name.clone()),
            _ => None,
        },
    };
    let Some(name) = name else {
        return Ok((loaded, Vec::new()));
    };
    let people = manifest::people::cached(file, &manifest::Within::workspace(&ws.root))?;
    let names: Vec<&str> = ws.guilds.iter().map(|g| g.name.as_str()).collect();
    people.check_guilds(&names)?;
    let teams = manifest::people::Teams::from_env()?;
    let taking = manifest::people::Taking {
        teams: teams.as_deref(),
        teams_required,
    };
    let (loaded, warnings) = people.apply(&name, &loaded, taking)?;
    let warnings = warnings
        .into_iter()
        .map(|message| manifest::Located {
            severity: Severity::Warning,
            rule: "workspace".into(),
            message,
            help: None,
            path: String::new(),
            span: None,
            related: Vec::new(),
        })
        .collect();
    Ok((loaded, warnings))
}

/// A refused plan's problems as errors placed on the manifest's lines.
pub fn refusal_report(loaded: &LoadedManifest, e: &PlanError) -> Report {
    let diags: Vec<Diagnostic> = e
        .problems
        .iter()
        .map(|p| Diagnostic {
            severity: Severity::Error,
            path: p.source.clone().unwrap_or_default(),
            message: p.message.clone(),
            help: p.help.clone(),
        })
        .collect();
    manifest::report_on(loaded, &diags)
}

/// The plan's options for a guild: the command line's, the policies of the base revision,
/// and the API the plan is made against.
fn plan_options(
    host: &impl Host,
    guild: &GuildTarget,
    loaded: &LoadedManifest,
    api_base: &str,
) -> PlanOptions {
    PlanOptions {
        policy_baseline: host.policy_baseline(guild, loaded),
        ..host.plan_options()
    }
    .with_api_base(api_base)
}
