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

/// What one run of a network came to.
struct Measured {
    plan: Duration,
    apply: Duration,
    plan_requests: usize,
    apply_requests: usize,
    limited: usize,
}

/// The least time one bot's global limit allows for `n` requests on the scaled clock: a
/// window for each 50 after the first 50.
fn global_bound(n: usize, scale: f64) -> Duration {
    let windows = (n as f64 / 50.0).ceil() - 1.0;
    Duration::from_secs_f64(windows.max(0.0) / scale)
}

/// Runs guildctl in `dir` against `emu`, with the bots' tokens in the environment; its wall
/// time and exit code.
fn guildctl(dir: &Path, emu: &RunningEmulator, env: &[(&str, &str)], args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .env("DISCORD_TOKEN", &emu.token)
        .env("GUILDCTL_API_BASE", &emu.api_base)
        .env(
            "GUILDCTL_CLOCK_SCALE",
            format!("{}", emu.state().config.time_scale),
        )
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
    wall
}

/// The network of `guilds` guilds, served by one bot or, with `two_bots`, its second half by
/// a second bot: `plan --all` of manifests that match, then `apply --all` of three new
/// roles in every guild.
fn network(guilds: usize, scale: f64, size: &LargeStateOptions, two_bots: bool) -> Measured {
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
    let mut ws = String::from("version: 1\nguilds:\n");
    for (i, id) in ids.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("guilds/g{i:03}.yaml")),
            "version: 1\n",
        )
        .unwrap();
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

    // A second between runs: a bot's global window is per token, not per process.
    std::thread::sleep(Duration::from_secs_f64(1.1 / scale));
    emu.clear_requests();
    let plan = guildctl(dir.path(), &emu, &env, &["plan", "--all"]);
    let plan_requests = emu.requests();

    let roles = "version: 1\nroles:\n  - name: Bench A\n  - name: Bench B\n  - name: Bench C\n";
    for i in 0..guilds {
        std::fs::write(dir.path().join(format!("guilds/g{i:03}.yaml")), roles).unwrap();
    }
    std::thread::sleep(Duration::from_secs_f64(1.1 / scale));
    emu.clear_requests();
    let apply = guildctl(dir.path(), &emu, &env, &["apply", "--all", "--yes"]);
    let apply_requests = emu.requests();
    let state = emu.state();
    for g in &state.guilds {
        let made = g
            .roles
            .iter()
            .filter(|r| r.name.starts_with("Bench "))
            .count();
        assert_eq!(made, 3, "{}: its three roles, made by its own bot", g.name);
    }
    let limited = plan_requests
        .iter()
        .chain(&apply_requests)
        .filter(|r| r.status == 429)
        .count();
    runtime.block_on(emu.shutdown());
    Measured {
        plan,
        apply,
        plan_requests: plan_requests.len(),
        apply_requests: apply_requests.len(),
        limited,
    }
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
    for (label, m, bots) in [("one bot", &one, 1), ("two bots", &two, 2)] {
        println!("{label}:");
        for (what, wall, n) in [
            ("plan --all", m.plan, m.plan_requests),
            ("apply --all", m.apply, m.apply_requests),
        ] {
            let bound = global_bound(n.div_ceil(bots), scale);
            println!(
                "  {what:<12} {n:>5} requests, wall {:.3} s ({:.1} s at Discord's speed), one token's bound for its share {:.3} s",
                wall.as_secs_f64(),
                wall.as_secs_f64() * scale,
                bound.as_secs_f64()
            );
        }
        println!("  429 responses: {}", m.limited);
    }
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "two bots / one bot: plan {:.2}, apply {:.2} (target about 0.5)",
        ratio(two.plan, one.plan),
        ratio(two.apply, one.apply)
    );
    assert_eq!(one.limited + two.limited, 0, "no 429");
    if bench {
        assert!(
            ratio(two.plan, one.plan) <= 0.6,
            "two bots plan in about half"
        );
        assert!(
            ratio(two.apply, one.apply) <= 0.6,
            "two bots apply in about half"
        );
    }
}
