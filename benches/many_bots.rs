//! Many bots (issue 45): `plan --all` and `apply --all` over a network of guilds served by
//! one bot token, then the same network split between two bots (`token_env:`), against an
//! in-process emulator whose global limit and route buckets are each bot's, as Discord's
//! (crates/emulator/README.md, "Several guilds"), on a scaled clock.
//!
//! One token's 50 requests a second bound the one-bot run; two bots each send at their own
//! 50, so the two-bot run should take about half as long, with no 429. Prints requests,
//! 429s, wall time and the global bound for each; asserts 0 × 429 and that two bots take at
//! most 0.6 of one bot's time. See docs/performance.md, "Many bots".
//!
//! Run: `cargo bench --bench many_bots` (GUILDCTL_BENCH_GUILDS guilds, default 100;
//! GUILDCTL_BENCH_SCALE the clock's speed-up, default 5). Without `--bench` (as
//! `cargo test --all-targets` runs it) a smoke test of 4 guilds that asserts only what does
//! not depend on the machine: every guild applied with its own bot's token, no 429.

// A bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use discord_emulator::{
    EmulatorOptions, LargeStateOptions, RunningEmulator, large_state, with_guild_copies,
    with_second_bot,
};

/// One command's run over the network.
struct Step {
    what: &'static str,
    wall: Duration,
    /// guildctl's own CPU (user + system), not the emulator's.
    cpu: Duration,
    requests: usize,
    limited: usize,
}

/// The least time one bot's global limit allows for `n` requests on the scaled clock: a
/// window for each 50 after the first 50.
fn global_bound(n: usize, scale: f64) -> Duration {
    let windows = (n as f64 / 50.0).ceil() - 1.0;
    Duration::from_secs_f64(windows.max(0.0) / scale)
}

/// CPU used by this process's children that have ended (guildctl's runs).
#[allow(unsafe_code)] // getrusage(2)
fn children_cpu() -> Duration {
    // SAFETY: rusage is plain data for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(us(usage.ru_utime) + us(usage.ru_stime))
}

/// Runs guildctl in `dir` against `emu`, with the bots' tokens in the environment.
fn guildctl(
    what: &'static str,
    dir: &Path,
    emu: &RunningEmulator,
    env: &[(&str, &str)],
    args: &[&str],
) -> Step {
    let scale = emu.state().config.time_scale;
    // A second between runs: a bot's global window is per token, not per process.
    std::thread::sleep(Duration::from_secs_f64(1.1 / scale));
    emu.clear_requests();
    let cpu = children_cpu();
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .env("DISCORD_TOKEN", &emu.token)
        .env("GUILDCTL_API_BASE", &emu.api_base)
        .env("GUILDCTL_CLOCK_SCALE", format!("{scale}"))
        .env("NO_COLOR", "1")
        .env_remove("GUILDCTL_GUILD")
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("guildctl runs");
    let wall = start.elapsed();
    assert!(
        out.status.success(),
        "guildctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = emu.requests();
    Step {
        what,
        wall,
        cpu: children_cpu() - cpu,
        requests: requests.len(),
        limited: requests.iter().filter(|r| r.status == 429).count(),
    }
}

/// The network of `guilds` guilds, served by one bot or, with `two_bots`, its second half by
/// a second bot: `plan --all` of manifests that match, `apply --all --no-rehearse` of three
/// new roles in every guild, then `apply --all` (rehearsed) of three more.
fn network(guilds: usize, scale: f64, size: &LargeStateOptions, two_bots: bool) -> Vec<Step> {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut state = with_guild_copies(large_state(*size), guilds);
    state.config.time_scale = scale;
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let second_half = &ids[guilds / 2..];
    let token_b = two_bots.then(|| with_second_bot(&mut state, "events-bot", second_half));
    let emu = runtime
        .block_on(RunningEmulator::start(EmulatorOptions {
            state: Some(state),
        }))
        .expect("emulator");

    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("guilds")).unwrap();
    let manifests = |roles: &[&str]| {
        let mut text = String::from("version: 1\n");
        if !roles.is_empty() {
            text.push_str("roles:\n");
        }
        for r in roles {
            let _ = writeln!(text, "  - name: {r}");
        }
        for i in 0..guilds {
            std::fs::write(dir.path().join(format!("guilds/g{i:03}.yaml")), &text).unwrap();
        }
    };
    manifests(&[]);
    let mut ws = String::from("version: 1\nguilds:\n");
    for (i, id) in ids.iter().enumerate() {
        let bot = if two_bots && second_half.contains(id) {
            ", token_env: BOT_B_TOKEN"
        } else {
            ""
        };
        let _ = writeln!(
            ws,
            "  g{i:03}: {{ id: \"{id}\", manifest: guilds/g{i:03}.yaml{bot} }}"
        );
    }
    std::fs::write(dir.path().join("guildctl.yaml"), ws).unwrap();
    let env: Vec<(&str, &str)> = token_b
        .as_deref()
        .map(|t| ("BOT_B_TOKEN", t))
        .into_iter()
        .collect();

    let (d, e) = (dir.path(), env.as_slice());
    let mut steps = vec![guildctl("plan --all", d, &emu, e, &["plan", "--all"])];
    manifests(&["Bench A", "Bench B", "Bench C"]);
    steps.push(guildctl(
        "apply --all --no-rehearse",
        d,
        &emu,
        e,
        &["apply", "--all", "--yes", "--no-rehearse"],
    ));
    manifests(&[
        "Bench A", "Bench B", "Bench C", "Bench D", "Bench E", "Bench F",
    ]);
    steps.push(guildctl(
        "apply --all (rehearsed)",
        d,
        &emu,
        e,
        &["apply", "--all", "--yes"],
    ));
    let state = emu.state();
    for g in &state.guilds {
        let made = g
            .roles
            .iter()
            .filter(|r| r.name.starts_with("Bench "))
            .count();
        assert_eq!(made, 6, "{}: its six roles, made by its own bot", g.name);
    }
    runtime.block_on(emu.shutdown());
    steps
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let env_num = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let guilds = if bench {
        env_num("GUILDCTL_BENCH_GUILDS").map_or(100, |n| n as usize)
    } else {
        4
    };
    let scale = if bench {
        env_num("GUILDCTL_BENCH_SCALE").unwrap_or(5.0)
    } else {
        100.0
    };
    // Guilds of a real community's size: what bounds the run is the number of requests
    // (7 reads a guild whatever its size), not the guild's.
    let size = LargeStateOptions {
        roles: 50,
        channels: 100,
        webhooks: 20,
        members: 100,
        community: true,
    };
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("guildctl {profile} build; {guilds} guilds of 50 roles, 100 channels; clock {scale}x");
    let one = network(guilds, scale, &size, false);
    let two = network(guilds, scale, &size, true);
    for (label, steps, bots) in [("one bot", &one, 1), ("two bots", &two, 2)] {
        println!("{label}:");
        for s in steps.iter() {
            let bound = global_bound(s.requests.div_ceil(bots), scale);
            println!(
                "  {:<26} {:>5} requests, wall {:.3} s ({:.1} s at Discord's speed), bound {:.3} s, cpu {:.3} s, {} x 429",
                s.what,
                s.requests,
                s.wall.as_secs_f64(),
                s.wall.as_secs_f64() * scale,
                bound.as_secs_f64(),
                s.cpu.as_secs_f64(),
                s.limited
            );
        }
    }
    let mut ratios = Vec::new();
    for (a, b) in one.iter().zip(&two) {
        let ratio = b.wall.as_secs_f64() / a.wall.as_secs_f64();
        println!("two bots / one bot, {}: {ratio:.2}", a.what);
        ratios.push(ratio);
    }
    let limited: usize = one.iter().chain(&two).map(|s| s.limited).sum();
    assert_eq!(limited, 0, "no 429");
    if bench {
        // Plan and apply are bound by the bot's 50 a second: two bots halve them. The
        // rehearsed apply is shown, not asserted: its rehearsals are CPU work, which a second
        // bot does not spread over more cores.
        assert!(ratios[0] <= 0.6, "two bots plan in about half");
        assert!(ratios[1] <= 0.6, "two bots apply in about half");
    }
}
