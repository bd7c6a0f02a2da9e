//! `watch --issue github|gitlab`: the drift issue the scheduled `drift` job keeps (the same
//! marker, label and title as the Action and the GitLab component), kept by watch as soon as
//! a guild's changes settle: opened or edited while it drifts, closed when it matches again.
//! At most one drift report per guild per `--issue-every`: the last state of a window is
//! the one written.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Result, anyhow};
use clap::ValueEnum;
use tokio::time::Instant;

use guildctl::discord::Client;
use guildctl::forge::{DriftReport, Tracker, sync_drift_issue};
use guildctl::github::GitHub;
use guildctl::gitlab::GitLab;
use guildctl::ops::{self, DriftRun, GuildTarget, Targets};
use guildctl::report::Format;

use super::super::Target;

/// Where the drift issue is kept.
#[derive(Clone, Copy, ValueEnum)]
pub enum Forge {
    /// GitHub, from the runner's GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_API_URL.
    Github,
    /// GitLab, from GUILDCTL_GITLAB_TOKEN, CI_PROJECT_ID and CI_API_V4_URL.
    Gitlab,
}

/// A forge connected, with the login its token writes as.
enum Tracked {
    GitHub(GitHub, String),
    GitLab(GitLab, String),
}

/// The drift issues of the guilds watched.
#[derive(Clone)]
pub struct Issues {
    forge: Arc<Tracked>,
    label: String,
    every: Duration,
    client: Client,
    host: Target,
    /// Each guild's target, by id (its marker and title come from it).
    guilds: Arc<HashMap<String, GuildTarget>>,
    slots: Arc<Mutex<HashMap<String, Slot>>>,
    /// Reports made at once, at most: at start every guild's is due together, and each
    /// costs the guild's reads and a listing of the forge's issues.
    at_once: Arc<tokio::sync::Semaphore>,
}

/// Drift reports made at once, at most.
const AT_ONCE: usize = 2;

/// One guild's issue: when its report was last made, and whether one is waiting.
#[derive(Default)]
struct Slot {
    last: Option<Instant>,
    waiting: bool,
}

impl Issues {
    /// Connects to `forge` from the CI variables, and learns who its token writes as.
    pub async fn connect(
        forge: Forge,
        label: String,
        every: Duration,
        client: Client,
        host: Target,
        guilds: Vec<GuildTarget>,
    ) -> Result<Issues> {
        let forge = match forge {
            Forge::Github => {
                let gh = GitHub::from_env()?;
                let me = guildctl::github::identity(&gh, None).await?;
                eprintln!("guildctl writes on GitHub as {}.", me.describe());
                Tracked::GitHub(gh, me.login)
            }
            Forge::Gitlab => {
                let gl = GitLab::from_env()?;
                let me = guildctl::gitlab::identity(&gl, None).await?;
                eprintln!("guildctl writes on GitLab as {}.", me.describe());
                Tracked::GitLab(gl, me.username)
            }
        };
        Ok(Issues {
            forge: Arc::new(forge),
            label,
            every,
            client,
            host,
            guilds: Arc::new(guilds.into_iter().map(|g| (g.id.clone(), g)).collect()),
            slots: Arc::default(),
            at_once: Arc::new(tokio::sync::Semaphore::new(AT_ONCE)),
        })
    }

    /// Guild `id` was read: its drift report is made and its issue kept, now or once its
    /// window since the last allows; a report already waiting covers this one.
    pub fn read(&self, id: &str) {
        let Some(guild) = self.guilds.get(id).cloned() else {
            return;
        };
        let wait = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            let slot = slots.entry(id.to_owned()).or_default();
            if slot.waiting {
                return;
            }
            slot.waiting = true;
            slot.last
                .map(|l| (l + self.every).saturating_duration_since(Instant::now()))
                .unwrap_or_default()
        };
        let me = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Ok(_turn) = me.at_once.acquire().await else {
                return;
            };
            {
                let mut slots = me.slots.lock().unwrap_or_else(|p| p.into_inner());
                let slot = slots.entry(guild.id.clone()).or_default();
                slot.waiting = false;
                slot.last = Some(Instant::now());
            }
            match me.keep(&guild).await {
                Ok(said) => eprintln!("{said}"),
                Err(e) => eprintln!(
                    "error: the drift issue of guild {} could not be kept: {e:#}",
                    guild.id
                ),
            }
        });
    }

    /// Makes guild `g`'s drift report as `drift` does, and opens, edits or closes its issue.
    async fn keep(&self, g: &GuildTarget) -> Result<String> {
        let run = DriftRun {
            audit_pages: guildctl::drift::DEFAULT_MAX_PAGES,
            appliers: Vec::new(),
            prune_days: None,
            now_ms: guildctl::discord::time::now_ms(),
        };
        let targets = Targets::ids([g.clone()]);
        let found = ops::drift(&self.client, targets, &self.host, &run)
            .await
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("no report was made"))?
            .result
            .map_err(|e| anyhow!("{e}"))?;
        let body = guildctl::drift::render(&found.report, Format::Markdown);
        let (marker, title) = match &g.name {
            Some(name) => (
                format!("drift:guild/{name}"),
                format!("guildctl: guild {name} drifted from its manifest"),
            ),
            None => {
                let path = g.manifest.display();
                (
                    format!("drift:{path}"),
                    format!("guildctl: the guild drifted from {path}"),
                )
            }
        };
        let report = DriftReport {
            marker: &marker,
            label: &self.label,
            title: &title,
            body: &body,
            drifted: found.report.exit_code(false) == 2,
            closing_comment: "The guild matches its manifest again (seen by `guildctl watch`); closing this issue.",
        };
        let sync = match &*self.forge {
            Tracked::GitHub(gh, me) => sync(gh, me, &report).await,
            Tracked::GitLab(gl, me) => sync(gl, me, &report).await,
        }?;
        Ok(sync.issue.describe())
    }
}

async fn sync<T: Tracker>(
    forge: &T,
    me: &str,
    report: &DriftReport<'_>,
) -> Result<guildctl::forge::DriftSync>
where
    T::Error: std::error::Error + Send + Sync + 'static,
{
    Ok(sync_drift_issue(forge, me, report).await?)
}
