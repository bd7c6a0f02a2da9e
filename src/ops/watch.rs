//! `watch`: each guild read once, then Discord's Gateway (docs/watch.md). Every change the
//! audit log records is told as it is written, with who, when and why from the
//! `GUILD_AUDIT_LOG_ENTRY_CREATE` dispatch itself; a guild is read and planned again only
//! once its changes settle, and after a new session (events may have been missed). While
//! nothing changes, nothing is read.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::{Instant, sleep_until};

use super::targets::{fan_out, loaded};
use super::{Failure, Host, Targets};
use crate::discord::Client;
use crate::discord::audit::{AuditEntry, AuditPage};
use crate::discord::gateway::{Gateway, GatewayEvent, ShardSet};
use crate::discord::models::User;
use crate::discord::time::{now_ms, snowflake_at};
use crate::manifest::LoadedManifest;
use crate::snapshot::{self, Reading, Snapshot};
use crate::watch::{self, Actor, Named, Watched};

/// How `watch` runs.
#[derive(Debug, Clone)]
pub struct WatchRun {
    /// Which shards run in this process (`--shard I/N`; all by default).
    pub shards: ShardSet,
    /// The user ids whose entries are guildctl's (`--applier`); by default the bot's.
    pub appliers: Vec<String>,
    /// How long a guild stays quiet after a change before it is read and planned again.
    pub settle: Duration,
}

/// A guild watched: its manifest, and its last read (for the names of what changes).
struct Watching {
    loaded: Arc<LoadedManifest>,
    snap: Snapshot,
    /// When it is read again, and why; none while nothing changed.
    due: Option<(Instant, &'static str)>,
    /// Every audit-log entry up to this id has been told (the start's moment at first): a
    /// new session catches up from here, and an entry at or below it is not told again.
    told_to: u64,
    /// A read of it is in flight (one at a time; a change meanwhile makes it due again).
    reading: bool,
}

/// A guild's read, done off the loop: its id, and the read with its drift line or why not.
type ReadDone = (String, Result<(Snapshot, Watched), String>);

/// Reads every guild of `targets`, then tells what happens to them until every shard has
/// stopped (a close code Discord says not to reconnect after), which is an error; a guild
/// that cannot be read is told ([`Watched::Failed`]) and the others go on.
pub async fn watch(
    client: &Client,
    targets: Targets,
    host: &impl Host,
    run: &WatchRun,
    tell: &mut (dyn FnMut(&Watched) + Send),
) -> Result<(), Failure> {
    let since = snowflake_at(now_ms());
    let read = fan_out(targets, |g, pre| async move {
        let loaded = loaded(host, &g, pre).await?;
        let (snap, drift) = plan(client, host, &loaded, &g.id, "start").await?;
        Ok((loaded, snap, drift))
    })
    .await;
    let mut guilds: HashMap<String, Watching> = HashMap::new();
    for g in read {
        match g.result {
            Ok((loaded, snap, drift)) => {
                tell(&drift);
                guilds.insert(
                    g.target.id.clone(),
                    Watching {
                        loaded,
                        snap,
                        due: None,
                        told_to: since,
                        reading: false,
                    },
                );
            }
            Err(e) => tell(&Watched::Failed {
                guild_id: g.target.id.clone(),
                error: e.to_string(),
            }),
        }
    }
    if guilds.is_empty() {
        return Err("no guild could be read: nothing to watch".into());
    }
    let intents = guilds
        .values()
        .fold(0, |bits, w| bits | watch::intents_for(&w.loaded.manifest));
    let (mut gateway, _) = Gateway::connect(client, intents, run.shards).await?;
    tell(&Watched::Connected {
        shards: gateway.shards.clone(),
        intents: watch::intent_names(intents),
        guilds: guilds.len(),
    });
    let appliers: Vec<String> = if run.appliers.is_empty() {
        guilds.values().map(|w| w.snap.bot.id.clone()).collect()
    } else {
        run.appliers.clone()
    };
    let mut ready: HashSet<u32> = HashSet::new();
    let mut people: HashMap<String, Actor> = HashMap::new();
    // Reads run beside the loop, so a change is told while others' guilds are being read.
    let (read_tx, mut read_rx) = tokio::sync::mpsc::unbounded_channel::<ReadDone>();
    loop {
        let due = guilds
            .values()
            .filter(|w| !w.reading)
            .filter_map(|w| w.due.map(|(at, _)| at))
            .min();
        let far = Instant::now() + Duration::from_secs(3600);
        let event = tokio::select! {
            e = gateway.next() => e,
            () = sleep_until(due.unwrap_or(far)), if due.is_some() => {
                settle(client, host, &mut guilds, &read_tx);
                continue;
            }
            Some((id, done)) = read_rx.recv() => {
                if let Some(w) = guilds.get_mut(&id) {
                    w.reading = false;
                    match done {
                        Ok((snap, drift)) => {
                            w.snap = snap;
                            tell(&drift);
                        }
                        Err(error) => tell(&Watched::Failed { guild_id: id, error }),
                    }
                }
                continue;
            }
        };
        let Some(event) = event else {
            return Err("every shard of the Gateway stopped".into());
        };
        match event {
            GatewayEvent::Dispatch { shard, name, data } => match name.as_str() {
                // A session begins: the entries written since the last one told (since the
                // start, for the first session: between the first reads and the
                // connection) are read and told. After a second READY on a shard, a new
                // session, what else changed unseen is found by reading its guilds again.
                "READY" => {
                    let first = ready.insert(shard);
                    for (id, w) in guilds.iter_mut() {
                        if !gateway.holds(shard, id) {
                            continue;
                        }
                        let told = catch_up(client, id, w, &appliers, &mut people, tell).await;
                        if !first {
                            w.due = Some((Instant::now(), "resync"));
                        } else if told && w.due.is_none() {
                            w.due = Some((Instant::now() + run.settle, "changed"));
                        }
                    }
                }
                "GUILD_AUDIT_LOG_ENTRY_CREATE" => {
                    let gid = data["guild_id"].as_str().unwrap_or_default().to_owned();
                    let Some(w) = guilds.get_mut(&gid) else {
                        continue;
                    };
                    let Ok(entry) = serde_json::from_value::<AuditEntry>(data) else {
                        continue;
                    };
                    if tell_entry(client, &gid, w, &entry, &appliers, &mut people, tell).await {
                        w.due = Some((Instant::now() + run.settle, "changed"));
                    }
                }
                "RESUMED" | "GUILD_CREATE" => {}
                // Any other dispatch of a watched guild (a reorder the audit log does not
                // record, an object's own event) is a change to read once it settles.
                _ => {
                    let gid = data["guild_id"].as_str().or_else(|| {
                        (name == "GUILD_UPDATE")
                            .then(|| data["id"].as_str())
                            .flatten()
                    });
                    if let Some(w) = gid.and_then(|g| guilds.get_mut(g))
                        && w.due.is_none()
                    {
                        w.due = Some((Instant::now() + run.settle, "changed"));
                    }
                }
            },
            GatewayEvent::Closed { shard, code, fatal } => tell(&Watched::Connection {
                shard,
                what: match code {
                    Some(c) => format!("the connection closed ({c})"),
                    None => "the connection closed".to_owned(),
                },
                fatal,
            }),
            GatewayEvent::Trouble { shard, error } => tell(&Watched::Connection {
                shard,
                what: error,
                fatal: false,
            }),
        }
    }
}

/// Tells one entry of guild `gid`, unless it was told already (a new session's live entry
/// that its catch-up told); whether it was.
async fn tell_entry(
    client: &Client,
    gid: &str,
    w: &mut Watching,
    entry: &AuditEntry,
    appliers: &[String],
    people: &mut HashMap<String, Actor>,
    tell: &mut (dyn FnMut(&Watched) + Send),
) -> bool {
    let id: u64 = entry.id.parse().unwrap_or(0);
    if id <= w.told_to {
        return false;
    }
    w.told_to = id;
    let by = actor(client, entry, people).await;
    let guildctl = entry
        .reason
        .as_deref()
        .is_some_and(|r| r.starts_with("guildctl apply"))
        && entry.user_id.as_ref().is_some_and(|u| appliers.contains(u));
    let target = entry.target_id.as_deref().and_then(|t| name_of(&w.snap, t));
    let guild = Named {
        id: gid.to_owned(),
        name: Some(w.snap.guild.name.clone()),
    };
    tell(&Watched::Change(watch::change(
        guild, entry, target, by, guildctl,
    )));
    true
}

/// At a session's start, the entries written while no session listened: read from the
/// audit log after the last one told, oldest first, and told; whether any was.
async fn catch_up(
    client: &Client,
    gid: &str,
    w: &mut Watching,
    appliers: &[String],
    people: &mut HashMap<String, Actor>,
    tell: &mut (dyn FnMut(&Watched) + Send),
) -> bool {
    let mut told = false;
    loop {
        let path = format!(
            "/guilds/{gid}/audit-logs?after={}&limit={AUDIT_PAGE}",
            w.told_to
        );
        let page: AuditPage = match client.get(&path).await {
            Ok(p) => p,
            Err(e) => {
                tell(&Watched::Failed {
                    guild_id: gid.to_owned(),
                    error: format!("the audit log could not be read after a new session: {e}"),
                });
                return told;
            }
        };
        let mut entries = page.audit_log_entries;
        entries.sort_by_key(|e| e.id.parse::<u64>().unwrap_or(0));
        let full = entries.len() >= AUDIT_PAGE;
        let mut any = false;
        for e in &entries {
            any |= tell_entry(client, gid, w, e, appliers, people, tell).await;
        }
        told |= any;
        if !full || !any {
            return told;
        }
    }
}

/// Entries per audit-log page, the API's most.
const AUDIT_PAGE: usize = 100;

/// Reads a guild and plans it against its manifest: the read, and how far it is.
async fn plan(
    client: &Client,
    host: &impl Host,
    loaded: &LoadedManifest,
    id: &str,
    why: &'static str,
) -> Result<(Snapshot, Watched), Failure> {
    let snap = snapshot::read(client, id, Reading::of(&loaded.manifest)).await?;
    let (differences, _) = crate::planner::differences(loaded, &snap, &host.plan_options());
    let drift = Watched::Drift {
        guild_id: snap.guild.id.clone(),
        guild: snap.guild.name.clone(),
        changes: differences.changes.len(),
        summary: crate::report::summary_line(&differences),
        why,
    };
    Ok((snap, drift))
}

/// Starts the read and plan of each guild whose time has come, beside the loop; each
/// comes back on `done`.
fn settle(
    client: &Client,
    host: &impl Host,
    guilds: &mut HashMap<String, Watching>,
    done: &tokio::sync::mpsc::UnboundedSender<ReadDone>,
) {
    let now = Instant::now();
    for (id, w) in guilds.iter_mut() {
        let Some((at, why)) = w.due else { continue };
        if at > now || w.reading {
            continue;
        }
        w.due = None;
        w.reading = true;
        let (client, host, loaded, id, done) = (
            client.clone(),
            host.clone(),
            Arc::clone(&w.loaded),
            id.clone(),
            done.clone(),
        );
        tokio::spawn(async move {
            let read = plan(&client, &host, &loaded, &id, why)
                .await
                .map_err(|e| e.to_string());
            let _ = done.send((id, read));
        });
    }
}

/// Who made an entry: Discord itself, or a user read once (`GET /users/{id}`) and kept.
async fn actor(client: &Client, e: &AuditEntry, people: &mut HashMap<String, Actor>) -> Actor {
    if watch::is_discords(e) {
        return Actor {
            discord: true,
            ..Actor::default()
        };
    }
    let Some(id) = &e.user_id else {
        return Actor::default();
    };
    if let Some(known) = people.get(id) {
        return known.clone();
    }
    let found = match client.get::<User>(&format!("/users/{id}")).await {
        Ok(u) => Actor {
            id: Some(u.id),
            name: Some(u.username),
            bot: u.bot,
            discord: false,
        },
        Err(_) => Actor {
            id: Some(id.clone()),
            ..Actor::default()
        },
    };
    people.insert(id.clone(), found.clone());
    found
}

/// A role's or a channel's name in the last read, for an entry's target.
fn name_of(snap: &Snapshot, id: &str) -> Option<String> {
    if id == snap.guild.id {
        return Some(snap.guild.name.clone());
    }
    snap.guild
        .roles
        .iter()
        .find(|r| r.id == id)
        .map(|r| format!("@{}", r.name))
        .or_else(|| {
            snap.channels
                .iter()
                .find(|c| c.id == id)
                .map(|c| format!("#{}", c.name))
        })
}
