//! Many guilds from one workspace (issue 22): `guildctl plan --all` over 100 guilds at
//! Discord's limits (250 roles, 500 channels, 1,000 webhooks and a full onboarding
//! each), then `guildctl apply --all` of a change to the base they all extend, against
//! an in-process emulator with its Discord-like limits on a scaled clock.
//!
//! guildctl runs as its own process (the release or debug binary of this build), so its
//! CPU time and peak memory are its own (`wait4`'s rusage), not the emulator's.
//! Prints requests, 429s, wall time against the bound the limits set, CPU and peak
//! memory; asserts the targets. See docs/performance.md, "Many guilds".
//!
//! Run: `cargo bench --bench many_guilds` (GUILDCTL_BENCH_SCALE sets the clock's
//! speed-up, default 5; GUILDCTL_BENCH_GUILDS the number of guilds, default 100).
//! Without `--bench` (as `cargo test --all-targets` runs it) it is a smoke test of
//! 4 smaller guilds (20 roles, 40 channels, 100 webhooks, 100 members, a full
//! onboarding) that asserts only what does not depend on the machine.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use discord_emulator::{
    EmulatorOptions, LargeStateOptions, RunningEmulator, large_state, with_guild_copies,
};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::snapshot::Snapshot;

/// What one guildctl process cost.
struct Cost {
    code: i32,
    wall: Duration,
    cpu: Duration,
    peak_mb: f64,
    stdout: String,
}

/// Runs guildctl in `dir` and measures it: wall time from spawn to exit, user + system
/// CPU and peak resident memory from the kernel's accounting of that one process.
///
/// guildctl is started by a fresh copy of this bench (`--measure-child`), not by this
/// process: Linux carries a process's peak RSS across `exec`, so a child forked from
/// this process (which holds the emulator's 100 guilds, ~180 MB) would report this
/// process's peak as its own. The copy is small when it forks, and reports its child's
/// rusage in a file.
fn run(dir: &Path, emu: &RunningEmulator, scale: f64, args: &[&str]) -> Cost {
    let out = dir.join("stdout.txt");
    let usage_file = dir.join("rusage.txt");
    // One global window between commands: Discord counts a bot's requests per token, not
    // per process, so a command started within a second of the previous one's last
    // requests shares its window and may meet a global 429 in its first second (at
    // Discord's speed 13 of them, on apply's first reads after `plan --rehearse`). Each
    // command's own pacing is what is measured; docs/performance.md says what back-to-back
    // runs meet.
    std::thread::sleep(Duration::from_secs_f64(1.1 / scale));
    let start = Instant::now();
    let status = Command::new(std::env::current_exe().expect("the bench's path"))
        .arg("--measure-child")
        .arg(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .env("GUILDCTL_BENCH_RUSAGE", &usage_file)
        .env("DISCORD_TOKEN", &emu.token)
        .env("GUILDCTL_API_BASE", &emu.api_base)
        .env("GUILDCTL_CLOCK_SCALE", format!("{scale}"))
        .env("NO_COLOR", "1")
        .env_remove("GUILDCTL_GUILD")
        .current_dir(dir)
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .status()
        .expect("guildctl runs");
    let wall = start.elapsed();
    let usage = std::fs::read_to_string(&usage_file).expect("the child's rusage");
    let nums: Vec<u64> = usage
        .split_whitespace()
        .map(|n| n.parse().expect("a number"))
        .collect();
    Cost {
        code: status.code().unwrap_or(-1),
        wall,
        cpu: Duration::from_micros(nums[0]),
        // ru_maxrss is in KiB on Linux.
        peak_mb: nums[1] as f64 * 1024.0 / 1e6,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
    }
}

/// `--measure-child PROGRAM ARGS...`: runs the program, writes its CPU (µs, user +
/// system) and peak RSS (KiB) to GUILDCTL_BENCH_RUSAGE, and exits with its exit code.
// The child is reaped by `wait4`, which also gives its rusage; clippy sees no `wait()`.
#[allow(clippy::zombie_processes)]
#[allow(unsafe_code)] // wait4(2), for the child's rusage
fn measure_child(args: &[String]) -> ! {
    let child = Command::new(&args[0])
        .args(&args[1..])
        .spawn()
        .expect("the program runs");
    let mut status = 0;
    // SAFETY: rusage is plain data for wait4 to fill; the pid is our own child's.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid, "wait4");
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    let path = std::env::var("GUILDCTL_BENCH_RUSAGE").expect("GUILDCTL_BENCH_RUSAGE");
    std::fs::write(
        path,
        format!(
            "{} {}\n",
            us(usage.ru_utime) + us(usage.ru_stime),
            usage.ru_maxrss
        ),
    )
    .expect("the rusage file");
    std::process::exit(if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        101
    });
}

/// The least time the global limit allows for `n` requests: a window for each 50 after
/// the first 50 (the last window need not end, only begin), on the scaled clock.
fn global_bound(n: usize, per_second: u32, scale: f64) -> Duration {
    let windows = (n as f64 / f64::from(per_second)).ceil() - 1.0;
    Duration::from_secs_f64(windows.max(0.0) / scale)
}

/// The export of the first guild as the shared base: ids dropped (every guild has its
/// own) and the guild's name left to each; names kept, so it declares the same layout in each copy; no `guild:`.
fn base_of(export: &str) -> String {
    let mut out = String::with_capacity(export.len());
    // The indent of a `- id: …` item dropped: its next key opens the item instead.
    let mut dash: Option<usize> = None;
    let mut section = "";
    for line in export.lines() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if indent == 0 {
            section = line;
        }
        // The guild's own id and name stay each guild's.
        let guild_name = section == "settings:" && line.starts_with("  name: ");
        if line.starts_with("guild:") || guild_name || t.starts_with("id: ") {
            continue;
        }
        if t.starts_with("- id: ") {
            dash = Some(indent);
            continue;
        }
        if let Some(d) = dash.take() {
            let _ = writeln!(out, "{}- {t}", " ".repeat(d));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--measure-child") {
        measure_child(&args[2..]);
    }
    let bench = args.iter().any(|a| a == "--bench");
    let env_num = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let guilds = if bench {
        env_num("GUILDCTL_BENCH_GUILDS").map_or(100, |n| n as usize)
    } else {
        4
    };
    let scale = if bench {
        env_num("GUILDCTL_BENCH_SCALE").unwrap_or(5.0)
    } else {
        50.0
    };
    // Under `cargo test` smaller guilds (the checks there count calls per guild, which
    // do not depend on the size: every list is one page either way); `cargo bench` keeps
    // Discord's limits.
    let size = if bench {
        LargeStateOptions::default()
    } else {
        LargeStateOptions {
            roles: 20,
            channels: 40,
            webhooks: 100,
            members: 100,
            community: true,
        }
    };
    let (roles, channels) = (size.roles, size.channels);
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };

    // The emulator serves on its own runtime's threads; this thread only waits.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut state = with_guild_copies(large_state(size), guilds);
    state.config.time_scale = scale;
    // The emulator's state too, to profile `plan --all` against a standing emulator
    // (`guildctl emulator --state`).
    if let Ok(keep) = std::env::var("GUILDCTL_BENCH_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        let file = std::fs::File::create(Path::new(&keep).join("state.json")).unwrap();
        serde_json::to_writer(std::io::BufWriter::new(file), &state).unwrap();
    }
    let config = state.config.clone();
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let names: Vec<String> = state.guilds.iter().map(|g| g.name.clone()).collect();
    // Which guild a write is for: its guild's id in the path, or its channel's.
    let mut guild_of: HashMap<String, String> = HashMap::new();
    for g in &state.guilds {
        guild_of.insert(g.id.clone(), g.id.clone());
        for c in &g.channels {
            guild_of.insert(c.id.clone(), g.id.clone());
        }
    }
    let emu = runtime
        .block_on(RunningEmulator::start(EmulatorOptions {
            state: Some(state),
        }))
        .expect("emulator");

    // The workspace: one base (the first guild's layout, by name) and one small file
    // per guild that extends it.
    let dir = tempfile::tempdir().expect("temp dir");
    let export = runtime.block_on(async {
        let client = Client::with_options(
            &emu.api_base,
            Token::new(emu.token.clone()).unwrap(),
            ClientOptions {
                global_window: Duration::from_secs_f64(1.0 / scale),
                ..ClientOptions::default()
            },
        )
        .unwrap();
        let snap = Snapshot::fetch(&client, &ids[0]).await.expect("snapshot");
        guildctl::export::export(&snap).expect("export")
    });
    let base = base_of(&export);
    std::fs::write(dir.path().join("base.yaml"), &base).unwrap();
    std::fs::create_dir_all(dir.path().join("guilds")).unwrap();
    let mut ws = String::from("guilds:\n");
    for (i, id) in ids.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("guilds/g{i:03}.yaml")),
            "version: 1\nextends: ../base.yaml\n",
        )
        .unwrap();
        let _ = writeln!(
            ws,
            "  g{i:03}: {{ id: \"{id}\", manifest: guilds/g{i:03}.yaml }}"
        );
    }
    std::fs::write(dir.path().join("guildctl.yaml"), ws).unwrap();
    // A copy of the workspace to profile `validate --all` with (it needs no emulator).
    if let Ok(keep) = std::env::var("GUILDCTL_BENCH_KEEP") {
        let keep = Path::new(&keep);
        std::fs::create_dir_all(keep.join("guilds")).unwrap();
        for f in ["base.yaml", "guildctl.yaml"] {
            std::fs::copy(dir.path().join(f), keep.join(f)).unwrap();
        }
        for i in 0..ids.len() {
            let f = format!("guilds/g{i:03}.yaml");
            std::fs::copy(dir.path().join(&f), keep.join(&f)).unwrap();
        }
    }
    emu.clear_requests();

    // 0. validate --all: loading and checking every guild's manifest (its base
    // included) with no request, the part of plan's CPU that is not the guild.
    let validate = run(dir.path(), &emu, scale, &["validate", "--all"]);
    assert_eq!(validate.code, 0, "{}", validate.stdout);
    println!(
        "validate --all:     cpu {:.3} s, wall {:.3} s, peak {:.1} MB",
        validate.cpu.as_secs_f64(),
        validate.wall.as_secs_f64(),
        validate.peak_mb
    );
    emu.clear_requests();

    // 1. plan --all: the base matches every guild, so each plan is empty.
    let plan = run(
        dir.path(),
        &emu,
        scale,
        &["plan", "--all", "--detailed-exitcode"],
    );
    let requests = emu.requests();
    let gets = requests.iter().filter(|r| r.method == "GET").count();
    let limited = requests.iter().filter(|r| r.status == 429).count();
    let bound = global_bound(requests.len(), config.global_per_second, scale);
    let paper = Duration::from_secs_f64(requests.len() as f64 / 50.0 / scale);
    let ratio = plan.wall.as_secs_f64() / bound.as_secs_f64().max(1e-3);
    println!(
        "guildctl {profile} build; {guilds} guilds of {roles} roles, {channels} channels; clock {scale}x"
    );
    println!("base manifest: {} lines", base.lines().count());
    println!("plan --all:");
    println!("  exit code:        {}", plan.code);
    println!(
        "  GETs:             {gets} ({:.2} per guild), requests {}",
        gets as f64 / guilds as f64,
        requests.len()
    );
    println!("  429 responses:    {limited}");
    println!(
        "  wall:             {:.3} s ({:.1} s at Discord's speed)",
        plan.wall.as_secs_f64(),
        plan.wall.as_secs_f64() * scale
    );
    println!(
        "  global bound:     {:.3} s (windows begun; {:.3} s as requests / 50 per s)",
        bound.as_secs_f64(),
        paper.as_secs_f64()
    );
    println!("  ratio:            {ratio:.3} (target <= 1.05)");
    println!(
        "  cpu:              {:.3} s (target <= 1.5)",
        plan.cpu.as_secs_f64()
    );
    println!("  peak memory:      {:.1} MB (target <= 150)", plan.peak_mb);
    assert_eq!(plan.code, 0, "{}", plan.stdout);
    assert_eq!(gets, 7 * guilds, "7 GETs per guild");
    assert_eq!(limited, 0, "no 429");

    // 1b. The same, with every guild's file declaring the guild's own name: no two
    // manifests read alike, so nothing but the base's parse is shared (guilds whose
    // manifests read the same are validated, typed and checked once: docs/performance.md).
    let own = |i: usize| {
        format!(
            "version: 1\nextends: ../base.yaml\nsettings:\n  name: {:?}\n",
            names[i]
        )
    };
    for i in 0..guilds {
        std::fs::write(dir.path().join(format!("guilds/g{i:03}.yaml")), own(i)).unwrap();
    }
    emu.clear_requests();
    let distinct = run(
        dir.path(),
        &emu,
        scale,
        &["plan", "--all", "--detailed-exitcode"],
    );
    let limited = emu.requests().iter().filter(|r| r.status == 429).count();
    println!(
        "plan --all, each guild's file with its own name: cpu {:.3} s, wall {:.3} s, peak {:.1} MB, {limited} x 429",
        distinct.cpu.as_secs_f64(),
        distinct.wall.as_secs_f64(),
        distinct.peak_mb
    );
    assert_eq!(distinct.code, 0, "{}", distinct.stdout);
    assert_eq!(limited, 0, "no 429");
    for i in 0..guilds {
        std::fs::write(
            dir.path().join(format!("guilds/g{i:03}.yaml")),
            "version: 1\nextends: ../base.yaml\n",
        )
        .unwrap();
    }

    // 2. A change to the base: two roles recoloured and one channel's topic, in every
    // guild. apply --all plans each guild (7 GETs), rehearses it, and makes 3 writes;
    // plan --all --rehearse of the change first, to show what reading, planning and
    // rehearsing cost without the writes.
    std::fs::write(dir.path().join("base.yaml"), change(&base)).unwrap();
    let rehearsed = run(dir.path(), &emu, scale, &["plan", "--all", "--rehearse"]);
    assert_eq!(rehearsed.code, 0, "{}", rehearsed.stdout);
    println!(
        "plan --all --rehearse of the change: cpu {:.3} s, wall {:.3} s, peak {:.1} MB",
        rehearsed.cpu.as_secs_f64(),
        rehearsed.wall.as_secs_f64(),
        rehearsed.peak_mb
    );
    let changed = change(&base);
    std::fs::write(dir.path().join("base.yaml"), &changed).unwrap();
    emu.clear_requests();
    let apply = run(dir.path(), &emu, scale, &["apply", "--all", "--yes"]);
    let requests = emu.requests();
    let limited = requests.iter().filter(|r| r.status == 429).count();
    let mut writes: HashMap<&str, usize> = HashMap::new();
    for r in requests.iter().filter(|r| r.method != "GET") {
        let id = r
            .path
            .split('/')
            .find_map(|part| guild_of.get(part))
            .map(String::as_str)
            .unwrap_or("?");
        *writes.entry(id).or_insert(0) += 1;
    }
    let total_writes: usize = writes.values().sum();
    // Reads then writes, all under one global limit; each guild's writes go to three
    // buckets of their own (a role's, another role's, a channel's: one call each), so
    // the route buckets add nothing to the global bound here.
    let bound = global_bound(requests.len(), config.global_per_second, scale);
    let ratio = apply.wall.as_secs_f64() / bound.as_secs_f64().max(1e-3);
    println!("apply --all of a base change:");
    println!("  exit code:        {}", apply.code);
    println!(
        "  requests:         {} ({} writes, {:.2} per guild)",
        requests.len(),
        total_writes,
        total_writes as f64 / guilds as f64
    );
    println!("  429 responses:    {limited}");
    for r in requests.iter().filter(|r| r.status == 429).take(20) {
        println!("    429: {} {}", r.method, r.path);
    }
    println!(
        "  wall:             {:.3} s ({:.1} s at Discord's speed)",
        apply.wall.as_secs_f64(),
        apply.wall.as_secs_f64() * scale
    );
    println!("  bound:            {:.3} s", bound.as_secs_f64());
    println!("  ratio:            {ratio:.3} (target <= 1.05)");
    println!("  cpu:              {:.3} s", apply.cpu.as_secs_f64());
    println!("  peak memory:      {:.1} MB", apply.peak_mb);
    assert_eq!(apply.code, 0, "{}", apply.stdout);
    assert_eq!(limited, 0, "no 429");
    assert_eq!(writes.len(), guilds, "every guild written: {writes:?}");
    assert!(
        writes.values().all(|n| *n == 3),
        "3 writes per guild: {writes:?}"
    );

    // Converged: the next plan is empty everywhere.
    let again = run(
        dir.path(),
        &emu,
        scale,
        &["plan", "--all", "--detailed-exitcode"],
    );
    assert_eq!(again.code, 0, "{}", again.stdout);
    drop(emu);
}

/// The base with the colour of its first two generated roles ("Team …", below the
/// bot's role) and the topic of its first generated channel changed.
fn change(base: &str) -> String {
    let mut out = String::with_capacity(base.len());
    let (mut colours, mut topics) = (0, 0);
    let mut team = false;
    for line in base.lines() {
        let t = line.trim_start().trim_start_matches("- ");
        let indent = &line[..line.len() - t.len()];
        if let Some(name) = t.strip_prefix("name: ") {
            team = name.trim_matches('"').starts_with("Team ");
        }
        if colours < 2 && team && t.starts_with("color: ") {
            let _ = writeln!(out, "{indent}color: \"#0f0e0d\"");
            colours += 1;
        } else if topics < 1 && t.starts_with("topic: Channel ") {
            let _ = writeln!(out, "{indent}topic: Changed by the bench");
            topics += 1;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert_eq!((colours, topics), (2, 1), "the base has colours and topics");
    out
}
