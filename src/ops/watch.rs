//! `watch`: Discord's Gateway, then each guild read once (docs/watch.md). Every change the
//! audit log records is told as it is written, with who, when and why from the
//! `GUILD_AUDIT_LOG_ENTRY_CREATE` dispatch itself; a guild is planned again only once its
//! changes settle, reading only what no event carried (a channel's or a role's update is
//! put in its last read), and read whole after a new session (events may have been
//! missed). While nothing changes, nothing is read. With `--guard`, a hand change that breaks a policy or
//! touches a protected object is reverted (`watch::guard`).
//!
//! The loop never waits on Discord: reads, catch-ups and reverts run beside it and come
//! back on one channel, so a change is told while a thousand guilds are being read.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};
use tokio::time::{Instant, sleep_until};

use super::targets::{CONCURRENCY, fan_out, loaded, off_thread};
use super::{Failure, Host, Targets};
use crate::apply::ApplyOptions;
use crate::discord::Client;
use crate::discord::audit::{AuditEntry, AuditPage};
use crate::discord::gateway::{Gateway, GatewayEvent, ShardSet};
use crate::discord::models::User;
use crate::discord::time::{now_ms, snowflake_at};
use crate::manifest::LoadedManifest;
use crate::snapshot::{self, Reading, Snapshot};
use crate::watch::guard::{self, Suspect, Verdict};
use crate::watch::{self, Actor, Guarded, Named, Outcome, Watched};

/// How `watch` runs.
#[derive(Debug, Clone)]
pub struct WatchRun {
    /// Which shards run in this process (`--shard I/N`; all by default).
    pub shards: ShardSet,
    /// The user ids of the bots that apply (`--applier`): their entries with guildctl's
    /// reason are guildctl's, like those of the bot watch runs as.
    pub appliers: Vec<String>,
    /// How long a guild stays quiet after a change before it is read and planned again.
    pub settle: Duration,
    /// `--guard`: revert what breaks a policy or touches a protected object, in the guilds
    /// whose manifest opts in (`safety.guard: true`).
    pub guard: Option<GuardRun>,
}

/// How guard reverts.
#[derive(Debug, Clone)]
pub struct GuardRun {
    /// Say what would be reverted; send nothing.
    pub dry_run: bool,
    /// At most this many reverts of one guild in `window`; past it, guard stops reverting
    /// there and says so, until the window has room again.
    pub max_reverts: usize,
    /// The window `max_reverts` counts in.
    pub window: Duration,
}

/// How soon a guarded guild is read after a hand change: long enough for the entries of
/// one action (a role's update and its members') to arrive together.
const GUARD_SETTLE: Duration = Duration::from_millis(250);

/// How long guard waits to read a guild again after a read for it failed.
const GUARD_RETRY: Duration = Duration::from_secs(30);

/// A guild watched: its manifest, its last read (for the names of what changes), and what
/// is under way.
struct Watching {
    loaded: Arc<LoadedManifest>,
    /// None until its first read is done; kept current by the Gateway's channel and role
    /// updates in between.
    snap: Option<Snapshot>,
    /// What its next plan must read because no event carried it.
    unread: Unread,
    /// Its reads after changes (and at start, and after a new session).
    plan: Lane,
    /// Its reads for guard, and the reverts: apart, so a revert never waits for a read
    /// queued behind a thousand others.
    guard: Lane,
    told: Told,
    /// Guarded: `--guard` and the manifest's `safety.guard: true`.
    guarded: bool,
    /// Hand changes not yet judged by guard.
    suspects: Vec<Suspect>,
    /// Hand changes a read in flight judges; put back if it fails.
    judging: Vec<Suspect>,
    /// The objects the manifest protects, by live id, as of the last read (guarded only).
    protected: HashMap<String, String>,
    /// When guard last reverted, within its window.
    reverts: VecDeque<Instant>,
}

/// One kind of work on a guild: when it is due next and why (none while nothing
/// changed), and whether one is in flight (one at a time; a change meanwhile makes it due
/// again).
#[derive(Default)]
struct Lane {
    due: Option<(Instant, &'static str)>,
    busy: bool,
}

impl Lane {
    /// When it should start, if it may.
    fn next(&self) -> Option<Instant> {
        self.due.filter(|_| !self.busy).map(|(at, _)| at)
    }

    /// Due `after` from now, unless due sooner already.
    fn soon(&mut self, after: Duration, why: &'static str) {
        let at = Instant::now() + after;
        self.due = Some(match self.due {
            Some((was, why)) if was <= at => (was, why),
            _ => (at, why),
        });
    }
}

/// What a guild's next plan must read: a change no event carried whole (a channel or a
/// role update does: `watch` puts it in its last read) is read again, the whole guild or
/// only its webhooks.
#[derive(Default)]
struct Unread {
    /// The whole guild (a creation, a deletion, a member's roles, an image, anything not
    /// told here).
    guild: bool,
    /// Its webhooks (`WEBHOOKS_UPDATE` names only the channel).
    webhooks: bool,
}

/// Which lane a read is for.
#[derive(Clone, Copy, PartialEq)]
enum For {
    Plan,
    Guard,
}

/// Which audit entries of a guild have been told, so none is told twice.
#[derive(Default)]
struct Told {
    /// Every entry up to this id was told, or written before the session began.
    to: u64,
    /// Entries told above `to` while a catch-up runs: a live entry may come before the
    /// catch-up's read of older ones.
    above: BTreeSet<u64>,
    /// A catch-up is in flight.
    catching: bool,
}

impl Told {
    /// Whether entry `id` is new (and now told).
    fn first_time(&mut self, id: u64) -> bool {
        if id <= self.to || !self.above.insert(id) {
            return false;
        }
        if !self.catching {
            self.to = id;
            self.above.clear();
        }
        true
    }

    /// A catch-up is done: everything up to `last`, and what was told meanwhile, is told.
    fn caught_up(&mut self, last: u64) {
        let top = self.above.last().copied().unwrap_or(0);
        self.to = self.to.max(last).max(top);
        self.above.clear();
        self.catching = false;
    }
}

/// What comes back to the loop from the work beside it, by guild id.
enum Done {
    /// A read and its plan: the drift line, and guard's verdict when it judged.
    Read(String, For, Result<Box<Read>, String>),
    /// A new session's catch-up: the audit entries written since the last one told, oldest
    /// first, or why they could not be read.
    CaughtUp(String, Result<Vec<AuditEntry>, String>),
    /// A revert's end: what it did, told as it is.
    Reverted(String, Guarded),
}

/// A guild read and planned.
struct Read {
    snap: Snapshot,
    protected: HashMap<String, String>,
    drift: Watched,
    verdict: Option<Verdict>,
}

/// The loop's fixed parts, for the work it starts.
struct Crew<'a, H: Host> {
    client: &'a Client,
    host: &'a H,
    done: mpsc::UnboundedSender<Done>,
    /// Reads and catch-ups in flight at once, at most (a revert goes first, unbounded).
    slots: Arc<Semaphore>,
}

/// Loads every guild's manifest, connects to the Gateway, reads each guild as its shard's
/// session begins, then tells what happens to them until every shard has stopped (a close
/// code Discord says not to reconnect after), which is an error; a guild that cannot be
/// read is told ([`Watched::Failed`]) and the others go on.
pub async fn watch(
    client: &Client,
    targets: Targets,
    host: &impl Host,
    run: &WatchRun,
    tell: &mut (dyn FnMut(&Watched) + Send),
) -> Result<(), Failure> {
    let mut guilds: HashMap<String, Watching> = HashMap::new();
    for g in fan_out(targets, |g, pre| async move { loaded(host, &g, pre).await }).await {
        match g.result {
            Ok(loaded) => {
                let guarded = run.guard.is_some()
                    && loaded.manifest.safety.as_ref().and_then(|s| s.guard) == Some(true);
                guilds.insert(
                    g.target.id.clone(),
                    Watching {
                        loaded,
                        snap: None,
                        unread: Unread::default(),
                        plan: Lane::default(),
                        guard: Lane::default(),
                        told: Told::default(),
                        guarded,
                        suspects: Vec::new(),
                        judging: Vec::new(),
                        protected: HashMap::new(),
                        reverts: VecDeque::new(),
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
        return Err("no guild's manifest could be loaded: nothing to watch".into());
    }
    let intents = guilds
        .values()
        .fold(0, |bits, w| bits | watch::intents_for(&w.loaded.manifest));
    let (mut gateway, _) = Gateway::connect(client, intents, run.shards).await?;
    // Another process runs the other shards' guilds (`--shard I/N`).
    guilds.retain(|id, _| gateway.shards.iter().any(|[s, _]| gateway.holds(*s, id)));
    if guilds.is_empty() {
        return Err(format!(
            "no guild chosen is on shard(s) {:?}: nothing to watch here",
            gateway.shards
        )
        .into());
    }
    // Entries before the connection are in the first reads; a later catch-up starts here.
    let since = snowflake_at(now_ms());
    for w in guilds.values_mut() {
        w.told.to = since;
    }
    tell(&Watched::Connected {
        shards: gateway.shards.clone(),
        intents: watch::intent_names(intents),
        guilds: guilds.len(),
        guarded: guilds.values().filter(|w| w.guarded).count(),
    });
    // The bot watch runs as writes guard's reverts: its entries are guildctl's too.
    let mut appliers = run.appliers.clone();
    appliers.push(client.get::<User>("/users/@me").await?.id);
    let (done, mut done_rx) = mpsc::unbounded_channel::<Done>();
    let crew = Crew {
        client,
        host,
        done,
        slots: Arc::new(Semaphore::new(CONCURRENCY)),
    };
    let mut ready: HashSet<u32> = HashSet::new();
    let mut audit = Entries {
        client,
        appliers,
        people: HashMap::new(),
        settle: run.settle,
    };
    // Guilds whose first read is still to come back; when all have and none was read,
    // there is nothing to watch.
    let mut starting: HashSet<String> = guilds.keys().cloned().collect();
    let mut started = 0usize;
    loop {
        let due = guilds
            .values()
            .flat_map(|w| [w.plan.next(), w.guard.next()])
            .flatten()
            .min();
        let far = Instant::now() + Duration::from_secs(3600);
        let event = tokio::select! {
            e = gateway.next() => e,
            () = sleep_until(due.unwrap_or(far)), if due.is_some() => {
                let now = Instant::now();
                for (id, w) in guilds.iter_mut() {
                    if w.guard.next().is_some_and(|at| at <= now) {
                        crew.read(id, w, For::Guard);
                    }
                    if w.plan.next().is_some_and(|at| at <= now) {
                        crew.read(id, w, For::Plan);
                    }
                }
                continue;
            }
            Some(d) = done_rx.recv() => {
                match d {
                    Done::Read(id, lane, read) => {
                        if lane == For::Plan && starting.remove(&id) && read.is_ok() {
                            started += 1;
                        }
                        if let Some(w) = guilds.get_mut(&id) {
                            crew.read_done(&id, w, lane, read, run, tell);
                        }
                        if starting.is_empty() && started == 0 {
                            return Err("no guild could be read: nothing to watch".into());
                        }
                    }
                    Done::CaughtUp(id, entries) => {
                        if let Some(w) = guilds.get_mut(&id) {
                            let last = match entries {
                                Ok(entries) => {
                                    for e in &entries {
                                        audit.tell(&id, w, e, tell).await;
                                    }
                                    entries.last().and_then(|e| e.id.parse().ok()).unwrap_or(0)
                                }
                                Err(error) => {
                                    tell(&Watched::Failed { guild_id: id.clone(), error });
                                    0
                                }
                            };
                            w.told.caught_up(last);
                            w.unread.guild = true;
                            // What else changed unseen (a reorder has no entry) is found by
                            // reading the guild again.
                            w.plan.soon(Duration::ZERO, "resync");
                        }
                    }
                    Done::Reverted(id, guarded) => {
                        if let Some(w) = guilds.get_mut(&id) {
                            w.guard.busy = false;
                            w.plan.soon(run.settle, "changed");
                        }
                        tell(&Watched::Guarded(guarded));
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
                // A shard's first session: its guilds are read now, so every change after
                // is an event and every change before is in the read. A later session
                // (Discord ended the last one; a resume is RESUMED) reads the audit log
                // from the last entry told, then the guild again.
                "READY" => {
                    let first = ready.insert(shard);
                    for (id, w) in guilds.iter_mut() {
                        if !gateway.holds(shard, id) {
                            continue;
                        }
                        if first {
                            w.plan.due = Some((Instant::now(), "start"));
                            crew.read(id, w, For::Plan);
                        } else if !w.told.catching {
                            crew.catch_up(id, w);
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
                    audit.tell(&gid, w, &entry, tell).await;
                }
                "RESUMED" | "GUILD_CREATE" => {}
                // Any other dispatch of a watched guild (a reorder the audit log does not
                // record, an object's own event) is a change to plan once it settles: put in
                // the last read when it carries the object, read again when not.
                _ => {
                    let gid = data["guild_id"].as_str().or_else(|| {
                        (name == "GUILD_UPDATE")
                            .then(|| data["id"].as_str())
                            .flatten()
                    });
                    if let Some(w) = gid.and_then(|g| guilds.get_mut(g)) {
                        take_in(w, &name, data);
                        w.plan.soon(run.settle, "changed");
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

impl<H: Host> Crew<'_, H> {
    /// Starts a read and plan of guild `id` beside the loop, for its plan lane, or for
    /// guard, with its verdict on the hand changes waiting.
    fn read(&self, id: &str, w: &mut Watching, lane: For) {
        let (why, suspects, base) = match lane {
            For::Plan => {
                let unread = std::mem::take(&mut w.unread);
                // Only what no event carried is read; a whole read when anything was not.
                let base = w
                    .snap
                    .clone()
                    .filter(|_| !unread.guild)
                    .map(|snap| (snap, unread.webhooks));
                let why = w.plan.due.take().map_or("changed", |(_, why)| why);
                (why, Vec::new(), base)
            }
            // Guard judges on a whole read of its own: what it reverts is what Discord
            // says now.
            For::Guard => {
                w.guard.due = None;
                w.judging = std::mem::take(&mut w.suspects);
                ("changed", w.judging.clone(), None)
            }
        };
        match lane {
            For::Plan => w.plan.busy = true,
            For::Guard => w.guard.busy = true,
        }
        let (client, host, loaded, id, done, slots) = (
            self.client.clone(),
            self.host.clone(),
            Arc::clone(&w.loaded),
            id.to_owned(),
            self.done.clone(),
            Arc::clone(&self.slots),
        );
        tokio::spawn(async move {
            let read = async {
                // A guard read goes first: a revert waits for no one's start. A plan from
                // the last read, events taken in, reads nothing.
                let reads = base.as_ref().is_none_or(|(_, webhooks)| *webhooks);
                let _slot = if lane == For::Plan && reads {
                    Some(slots.acquire_owned().await.map_err(|e| e.to_string())?)
                } else {
                    None
                };
                plan(&client, &host, loaded, &id, why, suspects, base)
                    .await
                    .map(Box::new)
                    .map_err(|e| e.to_string())
            };
            let read = read.await;
            let _ = done.send(Done::Read(id, lane, read));
        });
    }

    /// A read came back: tells its drift line, and has guard act on its verdict.
    fn read_done(
        &self,
        id: &str,
        w: &mut Watching,
        lane: For,
        read: Result<Box<Read>, String>,
        run: &WatchRun,
        tell: &mut (dyn FnMut(&Watched) + Send),
    ) {
        let judged = match lane {
            For::Plan => {
                w.plan.busy = false;
                Vec::new()
            }
            For::Guard => {
                w.guard.busy = false;
                std::mem::take(&mut w.judging)
            }
        };
        let read = match read {
            Ok(r) => *r,
            Err(error) => {
                tell(&Watched::Failed {
                    guild_id: id.to_owned(),
                    error,
                });
                // Guard does not forget a hand change it could not judge: the guild is
                // read again, not at once (a guild that cannot be read costs a read now
                // and then, no more).
                if !judged.is_empty() {
                    w.suspects.splice(0..0, judged);
                    w.guard.soon(GUARD_RETRY, "changed");
                }
                return;
            }
        };
        tell(&read.drift);
        let guild = Named {
            id: id.to_owned(),
            name: Some(read.snap.guild.name.clone()),
        };
        w.snap = Some(read.snap);
        w.protected = read.protected;
        let (Some(verdict), Some(guard)) = (read.verdict, &run.guard) else {
            return;
        };
        let said = |outcome: Outcome, verdict: &Verdict| Guarded {
            guild: guild.clone(),
            outcome,
            reverted: verdict.undone.clone(),
            left: verdict.left.clone(),
        };
        if verdict.revert.changes.is_empty() {
            if !verdict.left.is_empty() {
                tell(&Watched::Guarded(said(Outcome::Left, &verdict)));
            }
            return;
        }
        if guard.dry_run {
            tell(&Watched::Guarded(said(Outcome::DryRun, &verdict)));
            return;
        }
        let now = Instant::now();
        while w
            .reverts
            .front()
            .is_some_and(|t| now.duration_since(*t) > guard.window)
        {
            w.reverts.pop_front();
        }
        if w.reverts.len() >= guard.max_reverts {
            tell(&Watched::Guarded(said(Outcome::Stopped, &verdict)));
            return;
        }
        w.reverts.push_back(now);
        w.guard.busy = true;
        let mut guarded = said(Outcome::Reverted, &verdict);
        let options = ApplyOptions::new(verdict.reason(), w.loaded.dir());
        let (client, done, id) = (self.client.clone(), self.done.clone(), id.to_owned());
        tokio::spawn(async move {
            let outcome = crate::apply::apply(&client, &verdict.revert, &options, |_| {}).await;
            if let Some((_, e)) = outcome.failures.first() {
                guarded.outcome = Outcome::Failed {
                    error: e.to_string(),
                };
            }
            let _ = done.send(Done::Reverted(id, guarded));
        });
    }

    /// Starts reading the audit log of guild `id` after the last entry told, beside the
    /// loop: a new session's catch-up.
    fn catch_up(&self, id: &str, w: &mut Watching) {
        w.told.catching = true;
        let (client, id, done, slots, after) = (
            self.client.clone(),
            id.to_owned(),
            self.done.clone(),
            Arc::clone(&self.slots),
            w.told.to,
        );
        tokio::spawn(async move {
            let _slot = slots.acquire_owned().await;
            let entries = entries_after(&client, &id, after).await;
            let _ = done.send(Done::CaughtUp(id, entries));
        });
    }
}

/// Who made the entries, and what follows from one.
struct Entries<'a> {
    client: &'a Client,
    /// The user ids whose entries with guildctl's reason are guildctl's.
    appliers: Vec<String>,
    /// Each user read once.
    people: HashMap<String, Actor>,
    settle: Duration,
}

impl Entries<'_> {
    /// Tells one entry of guild `gid`, unless it was told already (a new session's live
    /// entry that its catch-up told, a replay), and makes the guild due: its plan's read
    /// once changes settle, guard's GUARD_SETTLE after the first hand change it must judge
    /// (a later change does not delay it).
    async fn tell(
        &mut self,
        gid: &str,
        w: &mut Watching,
        entry: &AuditEntry,
        tell: &mut (dyn FnMut(&Watched) + Send),
    ) {
        if !w.told.first_time(entry.id.parse().unwrap_or(0)) {
            return;
        }
        let by = actor(self.client, entry, &mut self.people).await;
        let guildctl = watch::is_guildctls(entry, &self.appliers);
        judge_later(w, entry, &by, guildctl);
        note_unread(w, entry);
        let snap = w.snap.as_ref();
        let target = entry
            .target_id
            .as_deref()
            .and_then(|t| snap.and_then(|s| name_of(s, t)));
        let guild = Named {
            id: gid.to_owned(),
            name: snap.map(|s| s.guild.name.clone()),
        };
        tell(&Watched::Change(watch::change(
            guild, entry, target, by, guildctl,
        )));
        w.plan.due = Some((Instant::now() + self.settle, "changed"));
        if !w.suspects.is_empty() {
            w.guard.soon(GUARD_SETTLE.min(self.settle), "changed");
        }
    }
}

/// Puts a dispatch's object in guild `w`'s last read (a channel's or a role's update carries
/// it whole), or marks what its next plan must read again.
fn take_in(w: &mut Watching, name: &str, data: serde_json::Value) {
    // A read in flight would put its older copy over what is taken in here.
    let snap = w.snap.as_mut().filter(|_| !w.plan.busy && !w.guard.busy);
    let taken = match (name, snap) {
        ("CHANNEL_UPDATE", Some(snap)) => serde_json::from_value(data)
            .map(|c| snap.update_channel(c))
            .unwrap_or(false),
        ("GUILD_ROLE_UPDATE", Some(snap)) => serde_json::from_value(data["role"].clone())
            .map(|r| snap.update_role(r))
            .unwrap_or(false),
        ("WEBHOOKS_UPDATE", _) => {
            w.unread.webhooks = true;
            true
        }
        _ => false,
    };
    w.unread.guild |= !taken;
}

/// Whether an audit entry says more than the object's own dispatch carries: a member
/// overwrite names a user the last read may not know, a role's icon is an image to read,
/// and any entry but a channel's, an overwrite's, a role's or a webhook's update is read
/// whole. A webhook's entry needs its webhooks read.
fn note_unread(w: &mut Watching, e: &AuditEntry) {
    use crate::discord::audit::action;
    let t = e.action_type;
    let member_overwrite = e
        .options
        .as_ref()
        .and_then(|o| o.get("type"))
        .is_some_and(|v| v == "1" || v == 1);
    let image = e
        .changes
        .iter()
        .any(|c| matches!(c.key.as_str(), "icon_hash" | "icon" | "unicode_emoji"));
    if [
        action::WEBHOOK_CREATE,
        action::WEBHOOK_UPDATE,
        action::WEBHOOK_DELETE,
    ]
    .contains(&t)
    {
        w.unread.webhooks = true;
    } else if t == action::CHANNEL_UPDATE || (t == action::ROLE_UPDATE && !image) {
    } else if [
        action::CHANNEL_OVERWRITE_CREATE,
        action::CHANNEL_OVERWRITE_UPDATE,
        action::CHANNEL_OVERWRITE_DELETE,
    ]
    .contains(&t)
    {
        w.unread.guild |= member_overwrite;
    } else {
        w.unread.guild = true;
    }
}

/// Keeps a guarded guild's hand change (not guildctl's, not Discord's) for guard to judge,
/// when it may break a policy or touches a protected object.
fn judge_later(w: &mut Watching, entry: &AuditEntry, by: &Actor, guildctl: bool) {
    let hand = !guildctl && !by.discord;
    let keys = watch::changed_keys(entry);
    if hand
        && w.guarded
        && let Some(target) = &entry.target_id
        && guard::may_breach(&w.loaded.manifest, &w.protected, target, &keys)
    {
        let who = match (&by.name, &by.id) {
            (Some(n), Some(id)) => format!("{n} ({id})"),
            (None, Some(id)) => format!("user {id}"),
            _ => "someone".to_owned(),
        };
        w.suspects.push(Suspect {
            target: target.clone(),
            keys,
            by: who,
        });
    }
}

/// The entries of guild `gid` written after entry `after`, oldest first, page by page (a
/// new session's catch-up; at most [`CATCH_UP_PAGES`] pages).
async fn entries_after(client: &Client, gid: &str, after: u64) -> Result<Vec<AuditEntry>, String> {
    let mut out: Vec<AuditEntry> = Vec::new();
    let mut from = after;
    for _ in 0..CATCH_UP_PAGES {
        let path = format!("/guilds/{gid}/audit-logs?after={from}&limit={AUDIT_PAGE}");
        let page: AuditPage = client
            .get(&path)
            .await
            .map_err(|e| format!("the audit log could not be read after a new session: {e}"))?;
        let mut entries = page.audit_log_entries;
        entries.sort_by_key(|e| e.id.parse::<u64>().unwrap_or(0));
        let full = entries.len() >= AUDIT_PAGE;
        from = entries
            .last()
            .and_then(|e| e.id.parse().ok())
            .unwrap_or(from);
        out.extend(entries);
        if !full {
            break;
        }
    }
    Ok(out)
}

/// Entries per audit-log page, the API's most.
const AUDIT_PAGE: usize = 100;

/// Pages a catch-up reads at most: 5,000 entries, more than a guild writes while a
/// session is down.
const CATCH_UP_PAGES: usize = 50;

/// Reads a guild and plans it against its manifest (the planning on a worker thread, off
/// the loop's): the read, how far it is, and guard's verdict on `suspects`, if any. With
/// `base`, the last read with the events since taken in, only the webhooks are read (when
/// asked), nothing else.
async fn plan(
    client: &Client,
    host: &impl Host,
    loaded: Arc<LoadedManifest>,
    id: &str,
    why: &'static str,
    suspects: Vec<Suspect>,
    base: Option<(Snapshot, bool)>,
) -> Result<Read, Failure> {
    let snap = match base {
        Some((mut snap, webhooks)) => {
            if webhooks {
                snap.read_webhooks(client).await?;
            }
            snap
        }
        None => snapshot::read(client, id, Reading::of(&loaded.manifest)).await?,
    };
    let options = host.plan_options();
    off_thread(move || {
        let (plan, _) = crate::planner::differences(&loaded, &snap, &options);
        let drift = Watched::Drift {
            guild_id: snap.guild.id.clone(),
            guild: snap.guild.name.clone(),
            changes: plan.changes.len(),
            summary: crate::report::summary_line(&plan),
            why,
        };
        let verdict = (!suspects.is_empty())
            .then(|| guard::decide(&loaded.manifest, &snap, &plan, &suspects));
        let guarded = loaded.manifest.safety.as_ref().and_then(|s| s.guard) == Some(true);
        Read {
            protected: if guarded {
                guard::protected(&loaded.manifest, &snap)
            } else {
                HashMap::new()
            },
            snap,
            drift,
            verdict,
        }
    })
    .await
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
