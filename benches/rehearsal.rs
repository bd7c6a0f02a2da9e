//! What rehearsal adds to `plan` for the largest guild of the scale bench (250 roles, 500
//! channels, 1,000 webhooks, 750 onboarding options): CPU time and peak heap, plan alone
//! against plan then rehearsal. Everything runs on this thread (a current-thread runtime
//! serves the rehearsal's in-process emulator), so this thread's CPU time holds all of it.
//! See docs/rehearsal.md.
//!
//! Two edits: a new topic in every text channel, and the scale bench's edit (benches/scale.rs:
//! topics, role colours; the largest plan of that bench). Targets: rehearsal adds ≤ 150 ms
//! CPU, and memory stays under 2× the plan's.
//!
//! Run: `cargo bench --bench rehearsal` (`-- --quick` for one iteration). Without `--bench`
//! (as `cargo test --all-targets` runs it) each edit is planned and rehearsed once and
//! the rehearsal's verdict checked, with nothing timed: the figures are `cargo bench`'s.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{cpu_now, ms};

use discord_emulator::{EmulatorOptions, LargeStateOptions, RunningEmulator, large_state};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::plan::{self, PlanOptions};
use guildctl::rehearse::{RehearseOptions, rehearse};
use guildctl::report::{self, Format, Heading};
use guildctl::snapshot::Snapshot;

#[path = "common/edit.rs"]
mod edit;
use edit::changed;

/// Counts the heap in use and its peak since the last reset.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only counters are added.
#[allow(unsafe_code)] // a global allocator has no safe form
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = IN_USE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let timed = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick") || !timed;
    let iters = if quick { 1 } else { 9 };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");

    // The live guild, read once, as the scale bench reads it.
    let mut state = large_state(LargeStateOptions {
        roles: 250,
        channels: 500,
        webhooks: 1000,
        members: 10,
        community: true,
    });
    state.config.time_scale = 1e6;
    let snap = runtime.block_on(async {
        let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
            .await
            .expect("emulator");
        let client = Client::with_options(
            &emu.api_base,
            Token::new(emu.token.clone()).expect("token"),
            ClientOptions::default(),
        )
        .expect("client");
        let snap = Snapshot::fetch(&client, &emu.guild_id)
            .await
            .expect("snapshot");
        emu.shutdown().await;
        snap
    });
    let exported = guildctl::export::export(&snap).expect("export");
    let new_roles = 250usize.saturating_sub(snap.guild.roles.len()).min(10);
    let new_channels = 500usize.saturating_sub(snap.channels.len()).min(10);
    let edits = [
        // A new topic in every text channel.
        (
            "topics",
            exported.replace("topic: Channel ", "topic: Changed "),
        ),
        // The scale bench's edit: topics, every generated role's colour, new roles and
        // channels where the limits leave room.
        ("scale", changed(&exported, new_roles, new_channels)),
    ];
    println!(
        "Rehearsal of the largest guild (250 roles, 500 channels, 1,000 webhooks, 750 onboarding options); CPU ms, median of {iters}{}:",
        if quick { ", --quick" } else { "" }
    );
    println!(
        "| edit | changes | calls | plan CPU ms | plan + rehearsal CPU ms | rehearsal adds | peak heap MiB plan | with rehearsal | × |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, edited) in edits {
        let path = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&path, edited).expect("write");
        measure(&runtime, &snap, &path, name, iters, timed);
    }
}

/// Times plan alone and plan then rehearsal of the manifest at `path`, and prints a row;
/// untimed, plans and rehearses it once.
fn measure(
    runtime: &tokio::runtime::Runtime,
    snap: &Snapshot,
    path: &std::path::Path,
    name: &str,
    iters: usize,
    timed: bool,
) {
    let (loaded, report) = manifest::validate(path);
    assert!(!report.has_errors(), "{}", report.render_text(false));
    let loaded = loaded.expect("loaded");
    let options = PlanOptions::default();
    let the_plan = guildctl::planner::diff_loaded(&loaded, snap, &options).expect("plan");
    let calls = the_plan.operations.len();
    assert!(calls > 100, "{calls} calls");

    let plan_once = || {
        let p = guildctl::planner::diff_loaded(&loaded, snap, &options).expect("plan");
        std::hint::black_box(report::render(&p, Format::Text, Heading::Plan, false));
        p
    };
    let rehearse_once = |p: &plan::Plan| {
        let verdict = runtime
            .block_on(rehearse(&loaded, snap, p, &RehearseOptions::default()))
            .expect("rehearsal");
        assert!(verdict.ok, "{verdict:?}");
        assert_eq!(verdict.calls, calls);
    };
    if !timed {
        // Under `cargo test` the rehearsal's verdict is what is held; the warm-up, timed
        // and peak-heap runs below repeat it only to measure.
        rehearse_once(&the_plan);
        println!(
            "| {name} | {} | {calls} | (not timed without --bench) |",
            the_plan.changes.len()
        );
        return;
    }
    // Warm-up, then timed runs of plan alone and of the rehearsal of its plan.
    rehearse_once(&plan_once());
    let mut plan_times = Vec::new();
    let mut rehearsal_times = Vec::new();
    for _ in 0..iters {
        let start = cpu_now();
        let p = plan_once();
        let planned = cpu_now();
        rehearse_once(&p);
        let rehearsed = cpu_now();
        plan_times.push(planned - start);
        rehearsal_times.push(rehearsed - planned);
    }

    // Peak heap: what is held while planning (the snapshot and manifest included), and
    // while planning then rehearsing.
    let base = IN_USE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let p = plan_once();
    let plan_peak = PEAK.load(Ordering::Relaxed);
    PEAK.store(IN_USE.load(Ordering::Relaxed), Ordering::Relaxed);
    rehearse_once(&p);
    let rehearse_peak = PEAK.load(Ordering::Relaxed);
    let changes = p.changes.len();
    drop(p);

    let (plan_ms, rehearse_ms) = (median(plan_times), median(rehearsal_times));
    let both_peak = plan_peak.max(rehearse_peak);
    println!(
        "| {name} | {changes} | {calls} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.2} |",
        ms(plan_ms),
        ms(plan_ms + rehearse_ms),
        ms(rehearse_ms),
        mib(plan_peak),
        mib(both_peak),
        both_peak as f64 / plan_peak as f64
    );
}
