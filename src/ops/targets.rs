//! The guilds a command runs for, resolved once from its arguments, and running an
//! operation for each of them.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::StreamExt;

use super::{Failure, Host};
use crate::manifest::{LoadedManifest, Within, WorkspaceGuild};

/// Guilds worked on at once. Each reads its guild with 6 requests side by side, so 8
/// guilds keep up to ~48 requests in flight: the global limit of 50 a second is reached
/// with responses slower than a second, and no more than 8 guilds' snapshots are held.
pub const CONCURRENCY: usize = 8;

/// One guild to run for: a workspace's guild, or the manifest given alone.
#[derive(Debug, Clone)]
pub struct GuildTarget {
    /// Its name in the workspace file; `None` for a manifest given alone (`-f`).
    pub name: Option<String>,
    /// The guild's id (empty where no guild is read: `validate -f`).
    pub id: String,
    /// The manifest (a file or a folder).
    pub manifest: PathBuf,
    /// Where the manifest must stay.
    pub within: Within,
}

impl GuildTarget {
    /// A manifest given alone, for guild `id`.
    pub fn file(manifest: PathBuf, within: Within, id: String) -> GuildTarget {
        GuildTarget {
            name: None,
            id,
            manifest,
            within,
        }
    }

    /// Refuses a workspace's guild whose manifest's `guild:` names another guild than the
    /// workspace gives it (a manifest given alone is held to `--guild` when the session
    /// opens).
    pub(crate) fn check_declared(&self, loaded: &LoadedManifest) -> Result<(), WrongGuild> {
        match (&self.name, &loaded.manifest.guild) {
            (Some(name), Some(declared)) if declared.0 != self.id => Err(WrongGuild {
                manifest: self.manifest.clone(),
                declared: declared.0.clone(),
                name: name.clone(),
                id: self.id.clone(),
            }),
            _ => Ok(()),
        }
    }
}

impl From<WorkspaceGuild> for GuildTarget {
    fn from(g: WorkspaceGuild) -> GuildTarget {
        GuildTarget {
            within: g.within(),
            name: Some(g.name),
            id: g.id,
            manifest: g.manifest,
        }
    }
}

/// A workspace's guild whose manifest names another guild.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is for guild {declared} (its `guild:`), but the workspace gives `{name}` the id {id}; nothing was sent to Discord",
    .manifest.display()
)]
pub struct WrongGuild {
    /// The manifest.
    pub manifest: PathBuf,
    /// The guild its `guild:` names.
    pub declared: String,
    /// The guild's name in the workspace.
    pub name: String,
    /// The id the workspace gives it.
    pub id: String,
}

/// The guilds a command runs for: a workspace's (`--all`, `--guilds`), or one manifest,
/// loaded already (its `guild:` decides which guild the session opens).
#[derive(Debug, Clone)]
pub struct Targets {
    guilds: Vec<(GuildTarget, Option<Arc<LoadedManifest>>)>,
}

impl Targets {
    /// One manifest, loaded and checked, for one guild.
    pub fn one(guild: GuildTarget, loaded: Arc<LoadedManifest>) -> Targets {
        Targets {
            guilds: vec![(guild, Some(loaded))],
        }
    }

    /// A workspace's guilds, in its order; each manifest is loaded as its guild's turn comes.
    pub fn workspace(guilds: Vec<WorkspaceGuild>) -> Targets {
        Targets {
            guilds: guilds.into_iter().map(|g| (g.into(), None)).collect(),
        }
    }

    /// Guilds whose manifests are not loaded yet: an operation that needs one loads and
    /// checks it ([`super::load`]) as the guild's turn comes, and `export` reads none
    /// (guilds given by id alone).
    pub fn ids(guilds: impl IntoIterator<Item = GuildTarget>) -> Targets {
        Targets {
            guilds: guilds.into_iter().map(|g| (g, None)).collect(),
        }
    }

    /// The guilds, in their order.
    pub fn guilds(&self) -> impl Iterator<Item = &GuildTarget> {
        self.guilds.iter().map(|(g, _)| g)
    }

    /// How many guilds.
    pub fn len(&self) -> usize {
        self.guilds.len()
    }

    /// No guild at all.
    pub fn is_empty(&self) -> bool {
        self.guilds.is_empty()
    }
}

/// One guild's outcome: the guild, and what its run came to (a failure is that guild's).
#[derive(Debug)]
pub struct Guild<T> {
    /// The guild.
    pub target: GuildTarget,
    /// Its outcome, or what stopped it.
    pub result: Result<T, Failure>,
}

/// Runs `job` for each guild, at most [`CONCURRENCY`] at a time, and returns the outcomes
/// in the guilds' order.
pub(super) async fn fan_out<T, F, Fut>(targets: Targets, job: F) -> Vec<Guild<T>>
where
    F: Fn(GuildTarget, Option<Arc<LoadedManifest>>) -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let mut out: Vec<(usize, Guild<T>)> =
        futures_util::stream::iter(targets.guilds.into_iter().enumerate())
            .map(|(i, (g, loaded))| {
                let run = job(g.clone(), loaded);
                async move {
                    let result = run.await;
                    (i, Guild { target: g, result })
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, o)| o).collect()
}

/// A guild's manifest: the one loaded already, or loaded now on a blocking thread.
pub(super) async fn loaded(
    host: &impl Host,
    guild: &GuildTarget,
    loaded: Option<Arc<LoadedManifest>>,
) -> Result<Arc<LoadedManifest>, Failure> {
    if let Some(loaded) = loaded {
        return Ok(loaded);
    }
    let (host, guild) = (host.clone(), guild.clone());
    off_thread(move || super::load(&host, &guild).map(Arc::new)).await?
}

/// Runs a guild's CPU-bound work (loading its manifest, planning, rehearsing) on tokio's
/// blocking threads: the CLI's runtime has one thread, which then only sends requests and
/// reads responses, while the guilds in flight are loaded and planned on the other cores
/// as their requests wait on the rate limit.
pub(super) async fn off_thread<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| format!("a worker thread failed: {e}").into())
}

/// A runtime for a rehearsal on a blocking thread: its in-process copy of the guild is
/// served there, not on the thread that talks to Discord.
pub(super) fn local_runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime for the rehearsal: {e}").into())
}
