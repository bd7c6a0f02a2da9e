//! `watch` at size (issue 44, docs/performance.md "Watch"): the emulator with 1,000 guilds,
//! `ops::watch` over all of them in this process, and hand changes arriving at a steady
//! rate from the guilds' owner, each with a reason of its own. Measured:
//!
//! - the time from a change's API answer to watch telling it (p50, p99), and to the guild's
//!   drift line once it settled;
//! - with `--guard`, the time from a hand change that breaks a policy (every tenth change
//!   grants @everyone administrator in a guild of its own) to its revert's end (p50, p99),
//!   and that every one was reverted;
//! - the requests watch makes while nothing changes (none are expected);
//! - the process's resident memory per guild watched (after the first reads, less before);
//! - after forced disconnects (a dropped connection, a RECONNECT, an INVALID_SESSION that
//!   cannot be resumed) in the middle of the stream, that every change the audit log holds
//!   was told, once.
//!
//! Run: `cargo bench --bench watch` (GUILDCTL_BENCH_GUILDS guilds, default 1,000;
//! GUILDCTL_BENCH_CHANGES changes, default 600, at GUILDCTL_BENCH_RATE a second, default
//! 20). Without `--bench` (as `cargo test --all-targets` runs it) it is a smoke test of
//! 10 guilds and 30 changes that asserts only what does not depend on the machine.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use discord_emulator::gateway::GatewayCommand;
use discord_emulator::state::BotToken;
use discord_emulator::{EmulatorOptions, RunningEmulator, default_state, with_guild_copies};
use guildctl::discord::gateway::ShardSet;
use guildctl::discord::{Client, Token};
use guildctl::manifest::Within;
use guildctl::ops::{self, Embedded, GuardRun, GuildTarget, Targets, WatchRun};
use guildctl::watch::{Outcome, Watched};
use tokio::sync::mpsc;

const OWNER_TOKEN: &str = "bench-owner-token";

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of this process, in MB (`/proc/self/statm`).
fn rss_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let timed = std::env::args().any(|a| a == "--bench");
    let (guilds, changes, rate) = if timed {
        (
            env_or("GUILDCTL_BENCH_GUILDS", 1000),
            env_or("GUILDCTL_BENCH_CHANGES", 600),
            env_or("GUILDCTL_BENCH_RATE", 20),
        )
    } else {
        (10, 30, 50)
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench(guilds, changes, rate, timed));
}

async fn bench(guilds: usize, changes: usize, rate: usize, timed: bool) {
    let mut state = with_guild_copies(default_state(), guilds);
    // The REST limits are not what is measured: emulated time runs fast enough that no
    // write or read waits on them. The Gateway's times are real (its config).
    state.config.time_scale = 1e6;
    let owner = state.guilds[0].owner_id.clone();
    state.tokens.push(BotToken {
        token: OWNER_TOKEN.into(),
        user_id: owner,
    });
    // Each guild's #general, where the owner's changes go.
    let general: Vec<(String, String)> = state
        .guilds
        .iter()
        .map(|g| {
            let c = g.channels.iter().find(|c| c.name == "general").unwrap();
            (g.id.clone(), c.id.clone())
        })
        .collect();
    let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("guild.yaml");
    std::fs::write(&manifest, GUARDED).unwrap();
    let first = &default_state().guilds[0];
    let everyone_perms = first.role(&first.id).expect("@everyone").permissions;
    let targets = Targets::ids(general.iter().map(|(gid, _)| {
        GuildTarget::file(manifest.clone(), Within::given(&manifest), gid.clone())
    }));
    let client = Client::new(&emu.api_base, Token::new(emu.token.clone()).unwrap()).unwrap();
    let run = WatchRun {
        shards: ShardSet {
            count: None,
            only: None,
        },
        appliers: Vec::new(),
        settle: Duration::from_millis(500),
        guard: Some(GuardRun {
            dry_run: false,
            max_reverts: 5,
            window: Duration::from_secs(600),
        }),
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Watched)>();
    let rss_before = rss_mb();
    let started = Instant::now();
    let watcher = tokio::spawn(async move {
        let host = Embedded::new("bench");
        let mut tell = move |w: &Watched| {
            let _ = tx.send((Instant::now(), w.clone()));
        };
        let _ = ops::watch(&client, targets, &host, &run, &mut tell).await;
    });
    // The connection, then each guild's first read as its session begins.
    let mut read_at_start = 0;
    let mut connected = None;
    while read_at_start < guilds {
        let (at, w) = rx.recv().await.expect("watch goes on");
        match w {
            Watched::Drift { .. } => read_at_start += 1,
            Watched::Connected { guarded, .. } => {
                assert_eq!(guarded, guilds, "every guild guarded");
                connected = Some(at.duration_since(started));
            }
            Watched::Failed { error, .. } => panic!("a guild failed: {error}"),
            _ => {}
        }
    }
    let connected = connected.expect("connected before the reads");
    let startup = started.elapsed();
    let rss_after = rss_mb();

    // Idle: no request at all.
    emu.clear_requests();
    let idle = if timed {
        Duration::from_secs(10)
    } else {
        Duration::from_secs(1)
    };
    tokio::time::sleep(idle).await;
    let idle_requests = emu.requests().len();

    // The changes, at a steady rate: `changes` of them undisturbed (the latencies), then as
    // many again with a forced disconnect at a quarter, a half and three quarters of the way
    // (nothing may be missed).
    let http = reqwest::Client::new();
    let mut answered: HashMap<String, Instant> = HashMap::new();
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let mut next = tokio::time::Instant::now();
    let disconnects = [
        (changes + changes / 4, "drop", true),
        (changes + changes / 2, "reconnect", true),
        (changes + 3 * changes / 4, "invalid_session", false),
    ];
    let mut seen = Seen::default();
    let mut steady: Vec<String> = Vec::new();
    // A breach's guild: when it was answered, and whether it was in the steady part.
    let mut breaches: HashMap<String, (Instant, bool)> = HashMap::new();
    for k in 0..2 * changes {
        for (at, send, resumable) in disconnects {
            if k == at {
                emu.gateway_command(&GatewayCommand {
                    send: send.into(),
                    resumable,
                    code: None,
                    session_id: None,
                })
                .unwrap();
            }
        }
        tokio::time::sleep_until(next).await;
        next += interval;
        // Every tenth: @everyone made administrator, each time in another guild.
        let breach = k % 10 == 5;
        let (gid, channel) = if breach {
            &general[(k / 10) % general.len()]
        } else {
            &general[(k * 7919) % general.len()]
        };
        let reason = format!("bench-{k}-{gid}");
        let request = if breach {
            let admin = everyone_perms | discord_permissions::Permissions::ADMINISTRATOR;
            http.patch(format!("{}/guilds/{gid}/roles/{gid}", emu.api_base))
                .json(&serde_json::json!({ "permissions": admin.to_string() }))
        } else {
            http.patch(format!("{}/channels/{channel}", emu.api_base))
                .json(&serde_json::json!({ "topic": format!("topic {k}") }))
        };
        let resp = request
            .header("Authorization", format!("Bot {OWNER_TOKEN}"))
            .header("X-Audit-Log-Reason", &reason)
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{}", resp.status());
        if k < changes {
            steady.push(reason.clone());
        }
        if breach {
            breaches.insert(gid.clone(), (Instant::now(), k < changes));
        }
        answered.insert(reason, Instant::now());
        while let Ok((at, w)) = rx.try_recv() {
            seen.note(at, w);
        }
    }
    // The last ones, and the guilds' reads after them: after a new session every guild's
    // audit log is read again (one request each, at the client's 50 a second).
    let wait = env_or("GUILDCTL_BENCH_WAIT", 30 + guilds / 25) as u64;
    let deadline = Instant::now() + Duration::from_secs(wait);
    while (seen.told.len() < 2 * changes || seen.reverted.len() < breaches.len())
        && Instant::now() < deadline
    {
        if let Ok(Some((at, w))) = tokio::time::timeout(Duration::from_millis(100), rx.recv()).await
        {
            seen.note(at, w);
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    while let Ok((at, w)) = rx.try_recv() {
        seen.note(at, w);
    }
    watcher.abort();
    let Seen {
        told,
        settled,
        reverted,
    } = seen;
    let still_admin = emu
        .state()
        .guilds
        .iter()
        .filter(|g| {
            g.roles
                .iter()
                .any(|r| r.id == g.id && r.permissions != everyone_perms)
        })
        .count();
    let mut to_revert: Vec<Duration> = breaches
        .iter()
        .filter(|(_, (_, steady))| *steady)
        .filter_map(|(gid, (at, _))| Some(reverted.get(gid)?.saturating_duration_since(*at)))
        .collect();
    to_revert.sort();

    // Every change the audit log holds was told, once (the check above), and no other.
    let logged: usize = emu
        .state()
        .guilds
        .iter()
        .flat_map(|g| &g.audit_log)
        .filter(|e| e.reason.as_deref().is_some_and(|r| r.starts_with("bench-")))
        .count();
    assert_eq!(logged, 2 * changes);
    let missed: Vec<&String> = answered.keys().filter(|r| !told.contains_key(*r)).collect();

    let latency = |reasons: &mut dyn Iterator<Item = &String>| {
        let mut d: Vec<Duration> = reasons
            .filter_map(|r| Some(told.get(r)?.saturating_duration_since(answered[r])))
            .collect();
        d.sort();
        d
    };
    let to_report = latency(&mut steady.iter());
    let disturbed = latency(&mut answered.keys().filter(|r| !steady.contains(r)));
    // From each guild's last change to its drift line after it.
    let mut last: HashMap<&str, Instant> = HashMap::new();
    for (r, at) in &answered {
        let gid = r.rsplit('-').next().unwrap_or_default();
        let e = last.entry(gid).or_insert(*at);
        *e = (*e).max(*at);
    }
    // Only a line after the change counts: a guild still waiting for its read (the bot's
    // 50 requests a second read about 6 guilds a second) has none yet.
    let mut to_settled: Vec<Duration> = last
        .iter()
        .filter_map(|(gid, at)| {
            let s = settled.get(*gid)?;
            (s > at).then(|| s.duration_since(*at))
        })
        .collect();
    to_settled.sort();
    println!(
        "watch, {guilds} guilds, {changes} hand changes at {rate}/s, then {changes} more with 3 forced disconnects:"
    );
    println!(
        "  start:              connected in {:.1} s, {guilds} guilds read in {:.1} s",
        connected.as_secs_f64(),
        startup.as_secs_f64()
    );
    println!(
        "  memory:             {:.1} MB resident more after the first reads: {:.1} KB a guild (emulator included in the process)",
        rss_after - rss_before,
        (rss_after - rss_before) * 1e3 / guilds as f64
    );
    println!(
        "  idle requests:      {idle_requests} in {} s",
        idle.as_secs()
    );
    println!(
        "  change to report:   p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(percentile(&to_report, 0.5)),
        ms(percentile(&to_report, 0.99)),
        ms(percentile(&to_report, 1.0))
    );
    println!(
        "  with disconnects:   p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (a new session waits for its identify)",
        ms(percentile(&disturbed, 0.5)),
        ms(percentile(&disturbed, 0.99)),
        ms(percentile(&disturbed, 1.0))
    );
    println!(
        "  change to drift:    p50 {:.0} ms, p99 {:.0} ms (settle 500 ms; from each guild's last change; {} of {} guilds read after it in time)",
        ms(percentile(&to_settled, 0.5)),
        ms(percentile(&to_settled, 0.99)),
        to_settled.len(),
        last.len(),
    );
    println!(
        "  change to revert:   p50 {:.0} ms, p99 {:.0} ms ({} of {} breaches reverted; @everyone is not the manifest's in {still_admin} guild(s) after)",
        ms(percentile(&to_revert, 0.5)),
        ms(percentile(&to_revert, 0.99)),
        reverted.len(),
        breaches.len()
    );
    println!(
        "  told:               {} of {} in time ({wait} s after the last), none twice, {} missed",
        told.len(),
        2 * changes,
        missed.len()
    );
    assert!(
        missed.is_empty(),
        "{} changes not told: {:?}",
        missed.len(),
        missed.iter().take(20).collect::<Vec<_>>()
    );
    assert_eq!(
        idle_requests, 0,
        "watch reads nothing while nothing changes"
    );
    assert_eq!(reverted.len(), breaches.len(), "every breach reverted");
    assert_eq!(still_admin, 0, "@everyone back to the manifest everywhere");
    if timed {
        assert!(
            percentile(&to_report, 0.99) < Duration::from_secs(2),
            "report p99 under 2 s"
        );
        assert!(
            percentile(&to_revert, 0.99) < Duration::from_secs(5),
            "revert p99 within seconds"
        );
    }
    emu.shutdown().await;
}

/// What watch told, by the change's reason; each guild's last drift line after a change;
/// and each guild's revert.
#[derive(Default)]
struct Seen {
    told: HashMap<String, Instant>,
    settled: HashMap<String, Instant>,
    reverted: HashMap<String, Instant>,
}

impl Seen {
    fn note(&mut self, at: Instant, w: Watched) {
        match w {
            // guard's own entries are not the bench's changes.
            Watched::Change(c) if c.guildctl => {}
            Watched::Change(c) => {
                let reason = c.reason.unwrap_or_default();
                assert!(
                    self.told.insert(reason.clone(), at).is_none(),
                    "{reason} told twice"
                );
            }
            Watched::Drift { guild_id, why, .. } if why != "start" => {
                self.settled.insert(guild_id, at);
            }
            Watched::Guarded(g) => {
                assert_eq!(
                    g.outcome,
                    Outcome::Reverted,
                    "{}",
                    guildctl::watch::text(&Watched::Guarded(g.clone()))
                );
                assert!(
                    self.reverted.insert(g.guild.id.clone(), at).is_none(),
                    "a guild reverted twice"
                );
            }
            // What happened to the connection, as it happened.
            w @ (Watched::Connection { .. }
            | Watched::Failed { .. }
            | Watched::Connected { .. }) => {
                eprintln!("{}", guildctl::watch::text(&w));
            }
            _ => {}
        }
    }
}

/// Each guild's manifest: @everyone as the emulator's default guild has it, which a policy
/// keeps from administrator; guard on.
const GUARDED: &str = r##"version: 1
safety:
  guard: true
policies:
  - name: everyone-is-no-admin
    never: {who: "@everyone", can: [administrator]}
roles:
  - name: "@everyone"
    permissions: [create_instant_invite, add_reactions, stream, view_channel, send_messages,
      embed_links, attach_files, read_message_history, use_external_emojis, connect, speak,
      use_vad, change_nickname, use_application_commands, create_public_threads,
      send_messages_in_threads]
"##;
