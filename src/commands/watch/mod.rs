//! `guildctl watch`: drift told within seconds from Discord's Gateway (docs/watch.md). Each
//! guild is read once, then again only after it changed. Nothing is written to Discord but
//! guard's reverts (`--guard`, in the guilds whose manifest opts in).

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};

use guildctl::discord::gateway::ShardSet;
use guildctl::drift;
use guildctl::ops::{self, GuardRun, Targets, WatchRun};
use guildctl::watch::{self, Watched};

use super::{Target, connect_loaded, load_checked, open_for};

mod issue;
mod webhook;

use issue::Issues;
use webhook::Webhook;

#[derive(Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub target: Target,
    /// text: one line a change for a terminal or a log; json: one JSON object a line.
    #[arg(long, value_enum, default_value = "text")]
    format: Lines,
    /// Run shard I of N here (`--shard 0/2` on one machine, `--shard 1/2` on another):
    /// Discord puts each guild on shard (guild_id >> 22) % N. Default: every shard
    /// `GET /gateway/bot` recommends.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(u32, u32)>,
    /// Seconds a guild stays quiet after a change before it is read and planned again.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, value_parser = parse_seconds)]
    settle: f64,
    /// The user id of the bot that applies, when watch runs as another (repeatable): its
    /// entries with guildctl's reason are marked guildctl's and never reverted, like those
    /// of the bot watch runs as.
    #[arg(long, value_name = "USER_ID", value_parser = drift::parse_user_id)]
    applier: Vec<String>,
    /// Revert, within seconds, a hand change that breaks a policy or touches a
    /// `protect: true` object, in each guild whose manifest sets `safety.guard: true`
    /// (docs/watch.md, "Guard"). Everything else is told, not reverted.
    #[arg(long)]
    guard: bool,
    /// With --guard: say what would be reverted, and send nothing.
    #[arg(long, requires = "guard")]
    dry_run: bool,
    /// With --guard: at most N reverts of one guild in --guard-window; past it, guard
    /// stops reverting there and says so (a person must look).
    #[arg(long, value_name = "N", default_value_t = 5, requires = "guard")]
    max_reverts: usize,
    /// The window --max-reverts counts in, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0, value_parser = parse_seconds, requires = "guard")]
    guard_window: f64,
    /// Keep each guild's drift issue on GitHub or GitLab as its changes settle: the issue
    /// the scheduled `drift` job keeps (same marker, label and title), from the CI's
    /// variables (docs/watch.md, "Where it reports").
    #[arg(long, value_enum, value_name = "FORGE")]
    issue: Option<issue::Forge>,
    /// With --issue: the drift issue's label.
    #[arg(long, default_value = "guildctl-drift", requires = "issue")]
    issue_label: String,
    /// With --issue: at most one drift report per guild in this many seconds (the last
    /// state of each window is written).
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = parse_seconds, requires = "issue")]
    issue_every: f64,
    /// Also post each change and guard action to the Discord webhook whose URL this
    /// environment variable holds (a mod-log channel). The URL is never shown.
    #[arg(long, value_name = "NAME")]
    webhook_env: Option<String>,
}

/// How each thing watch tells is written.
#[derive(Clone, Copy, ValueEnum)]
enum Lines {
    Text,
    Json,
}

fn parse_shard(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not I/N with I below N, like 0/2");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds from 0 to 3600")),
    }
}

pub async fn run(args: WatchArgs) -> Result<u8> {
    let WatchArgs {
        target,
        format,
        shard,
        settle,
        applier,
        guard,
        dry_run,
        max_reverts,
        guard_window,
        issue,
        issue_label,
        issue_every,
        webhook_env,
    } = args;
    let webhook = webhook_env.as_deref().map(Webhook::from_env).transpose()?;
    let run = WatchRun {
        shards: ShardSet {
            count: shard.map(|(_, n)| n),
            only: shard.map(|(i, _)| i),
        },
        appliers: applier,
        settle: Duration::from_secs_f64(settle),
        guard: guard.then(|| GuardRun {
            dry_run,
            max_reverts,
            window: Duration::from_secs_f64(guard_window),
        }),
    };
    let (session, targets) = if target.selection.active() {
        let chosen = target.selection.resolve()?;
        (
            open_for(&target.conn, &chosen).await?,
            Targets::workspace(chosen),
        )
    } else {
        let loaded = Arc::new(load_checked(&target)?);
        let session = connect_loaded(&target, &loaded).await?;
        let targets = target.one(&session, &loaded);
        (session, targets)
    };
    let issues = match issue {
        Some(forge) => Some(
            Issues::connect(
                forge,
                issue_label,
                Duration::from_secs_f64(issue_every),
                session.client.clone(),
                target.clone(),
                targets.guilds().cloned().collect(),
            )
            .await?,
        ),
        None => None,
    };
    let mut tell = |w: &Watched| {
        match format {
            Lines::Text => guildctl::outln!("{}", watch::text(w)),
            Lines::Json => match serde_json::to_string(w) {
                Ok(line) => guildctl::outln!("{line}"),
                Err(e) => eprintln!("error: a line could not be written as JSON: {e}"),
            },
        }
        if let (Some(issues), Watched::Drift { guild_id, .. }) = (&issues, w) {
            issues.read(guild_id);
        }
        if let (Some(webhook), Watched::Change(_) | Watched::Guarded(_)) = (&webhook, w) {
            webhook.say(&watch::text(w));
        }
    };
    ops::watch(&session.client, targets, &target, &run, &mut tell)
        .await
        .map_err(|e| anyhow!(e))?;
    Ok(0)
}
