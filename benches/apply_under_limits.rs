//! Applies a plan of more than 200 changes against the emulator under its
//! Discord-like default limits (at a scaled clock) and compares the wall time with
//! the lower bound those limits allow. See docs/rate-limits.md.
//!
//! Run: `cargo bench --bench apply_under_limits` (set GUILDCTL_BENCH_SCALE to change
//! the clock's speed-up, default 25). `cargo test --all-targets` runs it too, without
//! `--bench`: at 100× (1.6 s instead of 6 s), with every count held (the changes, the apply
//! succeeding, no 429) and the ratio printed, not held: a debug build's time, on a machine
//! the rest of the tests share, says nothing of the limiter's.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write;
use std::time::{Duration, Instant};

use discord_emulator::{EmulatorOptions, RunningEmulator, default_state};
use guildctl::apply::{self, ApplyOptions};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::snapshot::Snapshot;

#[path = "../tests/suite/common/lower_bound.rs"]
mod lower_bound;
use lower_bound::lower_bound;

/// 150 channels created in the four existing categories, 50 roles created, every
/// existing role recoloured, two roles and two channels swapped, two webhooks
/// pruned: 200+ changes of every kind.
fn manifest() -> String {
    let mut y = String::from("version: 1\nroles:\n");
    for name in [
        "Moderator",
        "Contributor",
        "Helper",
        "Server Booster",
        "Member",
        "Muted",
    ] {
        let _ = writeln!(y, "  - name: {name}");
        if name != "Server Booster" {
            let _ = writeln!(y, "    color: \"#123456\"");
        }
    }
    for i in 0..50 {
        let _ = writeln!(y, "  - {{ name: Bench {i:02}, hoist: true }}");
    }
    y.push_str("channels:\n");
    let categories = [
        ("Information", vec!["welcome", "rules", "faq"]),
        ("General", vec!["general", "memes", "off-topic"]),
        ("Help", vec!["help", "showcase"]),
        ("Staff", vec!["mod-chat", "mod-log"]),
    ];
    let mut n = 0;
    for (cat, existing) in categories {
        let _ = writeln!(y, "  - name: {cat}\n    type: category\n    channels:");
        for e in existing {
            let _ = writeln!(y, "      - {{ name: {e} }}");
        }
        for _ in 0..38 {
            if n < 150 {
                let _ = writeln!(
                    y,
                    "      - {{ name: bench-{n:03}, topic: Load test channel {n} }}"
                );
                n += 1;
            }
        }
    }
    y.push_str("webhooks:\n  - { name: CI, channel: bot-spam }\nprune: { webhooks: true }\n");
    y
}

fn main() {
    let timed = std::env::args().any(|a| a == "--bench");
    let scale: f64 = std::env::var("GUILDCTL_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if timed { 25.0 } else { 100.0 });
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async move {
        let mut state = default_state();
        state.config.time_scale = scale;
        let config = state.config.clone();
        let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
            .await
            .expect("emulator");
        let options = ClientOptions {
            global_limit: config.global_per_second as usize,
            global_window: Duration::from_secs_f64(1.0 / scale),
            ..ClientOptions::default()
        };
        let client = Client::with_options(
            &emu.api_base,
            Token::new(emu.token.clone()).unwrap(),
            options,
        )
        .unwrap();
        let dir = std::env::temp_dir();
        let loaded =
            manifest::load_str(&dir.join("bench.yaml"), manifest()).expect("bench manifest");
        let snap = Snapshot::fetch(&client, &emu.guild_id)
            .await
            .expect("snapshot");
        let plan = guildctl::planner::diff(&loaded.manifest, &snap).expect("plan");
        let bound = lower_bound(&plan, &config);
        emu.clear_requests();

        let start = Instant::now();
        let outcome = apply::apply(&client, &plan, &ApplyOptions::new("bench", dir), |_| {}).await;
        let elapsed = start.elapsed();

        let requests = emu.requests();
        let too_many = requests.iter().filter(|r| r.status == 429).count();
        let ratio = elapsed.as_secs_f64() / bound.as_secs_f64();
        for (i, r) in requests.iter().enumerate().filter(|(_, r)| r.status == 429) {
            println!("429 at request {i}: {} {}", r.method, r.path);
        }
        println!("changes:            {}", plan.changes.len());
        println!(
            "calls:              {} (requests served: {})",
            plan.operations.len(),
            requests.len()
        );
        println!("429 responses:      {too_many}");
        println!("clock scale:        {scale}x");
        println!(
            "lower bound:        {:.3} s ({:.1} s at Discord's speed)",
            bound.as_secs_f64(),
            bound.as_secs_f64() * scale
        );
        println!(
            "wall time:          {:.3} s ({:.1} s at Discord's speed)",
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * scale
        );
        let held = if timed {
            ""
        } else {
            ", held by `cargo bench` only"
        };
        println!("ratio:              {ratio:.3} (target <= 1.2{held})");
        assert!(outcome.succeeded(), "apply failed: {:?}", outcome.failures);
        assert!(plan.changes.len() >= 200);
        assert_eq!(too_many, 0, "no 429 in normal operation");
        if timed {
            assert!(ratio <= 1.2, "wall time {ratio:.3}x the lower bound");
        }
    });
}
