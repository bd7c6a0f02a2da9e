//! 250 custom emoji uploaded to a guild that has none (docs/performance.md, "Emojis"):
//! Discord limits Create Guild Emoji per guild (the emulator: 50 an hour), so the upload is
//! five windows long whatever the client does; apply must come within 1.05× of that bound
//! and get no 429. The clock is scaled so the hour passes in a fraction of a second.
//!
//! The plan's reads are counted too: the guild's seven, one emoji listing, no CDN read (the
//! guild has no emoji yet; each live emoji costs one).
//!
//! Run: `cargo bench --bench emojis` (GUILDCTL_BENCH_SCALE sets the clock's speed-up, default
//! 2000: an hour in 1.8 s, long beside the few milliseconds each upload costs both sides; under
//! `cargo test` 100,000, as only the counts are held there).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write;
use std::time::{Duration, Instant};

use discord_emulator::{EmulatorOptions, RunningEmulator, default_state};
use guildctl::apply::{self, ApplyOptions};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::plan::PlanOptions;
use guildctl::snapshot::Snapshot;

#[path = "../tests/suite/common/lower_bound.rs"]
mod lower_bound;
use lower_bound::lower_bound;

const EMOJIS: usize = 250;

/// A 32×32 PNG by its header, made unique by `k`.
fn png(k: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(&13u32.to_be_bytes());
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&32u32.to_be_bytes());
    b.extend_from_slice(&32u32.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(format!("emoji {k}").as_bytes());
    b
}

fn main() {
    // `cargo test --all-targets` runs this too (without `--bench`): the counts hold there,
    // but only `cargo bench` holds the ratio.
    let timed = std::env::args().any(|a| a == "--bench");
    let scale: f64 = std::env::var("GUILDCTL_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        // Without `--bench` only the counts matter: the hour passes at once.
        .unwrap_or(if timed { 2000.0 } else { 1e5 });
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::from("version: 1\nemojis:\n");
    std::fs::create_dir_all(dir.path().join("emojis")).unwrap();
    for k in 0..EMOJIS {
        std::fs::write(dir.path().join(format!("emojis/e{k:03}.png")), png(k)).unwrap();
        let _ = writeln!(yaml, "  - {{ name: e{k:03}, image: emojis/e{k:03}.png }}");
    }
    let path = dir.path().join("guild.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let loaded = manifest::load_str(&path, yaml).expect("manifest");

    let mut state = default_state();
    let g = &mut state.guilds[0];
    g.emojis.clear();
    // Tier 3: 250 static slots.
    g.premium_tier = 3;
    g.premium_subscription_count = 14;
    state.config.time_scale = scale;
    let config = state.config.clone();

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async move {
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

        let mut snap = Snapshot::fetch(&client, &emu.guild_id)
            .await
            .expect("snapshot");
        snap.read_sections(&client, &loaded.manifest)
            .await
            .expect("emojis");
        let reads = emu.requests().len();
        let p =
            guildctl::planner::diff_loaded(&loaded, &snap, &PlanOptions::default()).expect("plan");
        assert_eq!(p.operations.len(), EMOJIS);
        let bound = lower_bound(&p, &config);

        emu.clear_requests();
        let t = Instant::now();
        let outcome =
            apply::apply(&client, &p, &ApplyOptions::new("bench", dir.path()), |_| {}).await;
        let elapsed = t.elapsed();
        let requests = emu.requests();
        let creates = requests
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/emojis"))
            .count();
        let too_many = requests.iter().filter(|r| r.status == 429).count();
        let ratio = elapsed.as_secs_f64() / bound.as_secs_f64();
        println!("emoji apply, {EMOJIS} emojis to a guild with none:");
        println!("  plan reads:       {reads} (7 + 1 emoji listing)");
        println!(
            "  creates:          {creates} (requests served: {})",
            requests.len()
        );
        println!("  429 responses:    {too_many}");
        println!("  clock scale:      {scale}x");
        println!(
            "  lower bound:      {:.3} s ({:.0} s at Discord's speed)",
            bound.as_secs_f64(),
            bound.as_secs_f64() * scale
        );
        println!(
            "  wall time:        {:.3} s ({:.0} s at Discord's speed)",
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * scale
        );
        println!("  ratio:            {ratio:.3} (target <= 1.05)");
        assert!(outcome.succeeded(), "{:?}", outcome.failures);
        assert_eq!(reads, 8);
        assert_eq!(creates, EMOJIS);
        assert_eq!(requests.len(), EMOJIS, "no read while applying");
        assert_eq!(too_many, 0);
        assert_eq!(emu.state().guilds[0].emojis.len(), EMOJIS);
        // Loose, so a loaded machine does not fail the bench; the figure is the ratio shown.
        if timed {
            assert!(ratio <= 1.2, "wall time {ratio:.3}x the lower bound");
        }
        emu.shutdown().await;
    });
}
