//! How `validate`, `plan`, `export` and `drift` grow with the guild: generated guilds
//! of 10, 50, 125 and 250 roles (2× channels, 4× webhooks, a community with
//! onboarding at Discord's limits), each read once from an in-process emulator and
//! then worked on without HTTP. Prints CPU time per run (this thread's, from
//! CLOCK_THREAD_CPUTIME_ID, so other load on the machine counts less than in
//! wall time) and the growth from one size to the next. See docs/performance.md.
//!
//! Run: `cargo bench --bench scale` (`-- --quick` for a few iterations, as CI would;
//! GUILDCTL_BENCH_DIR=DIR keeps the manifests it generates).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{measure, ms};

#[path = "common/edit.rs"]
mod edit;
use edit::changed;

use discord_emulator::{EmulatorOptions, LargeStateOptions, RunningEmulator, large_state};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::plan::PlanOptions;
use guildctl::report::{self, Format, Heading};
use guildctl::snapshot::Snapshot;

const SIZES: [usize; 4] = [10, 50, 125, 250];

struct Row {
    roles: usize,
    channels: usize,
    webhooks: usize,
    options: usize,
    changes: usize,
    validate: Duration,
    plan: Duration,
    export: Duration,
    drift: Duration,
}

async fn snapshot_of(roles: usize, keep: Option<&Path>) -> Snapshot {
    let mut state = large_state(LargeStateOptions {
        roles,
        channels: 2 * roles,
        webhooks: 4 * roles,
        members: 10,
        community: true,
    });
    // No rate limit matters for one read.
    state.config.time_scale = 1e6;
    if let Some(dir) = keep {
        // For `guildctl emulator --state`, to time whole `guildctl plan` runs.
        let json = serde_json::to_string(&state).expect("state as JSON");
        std::fs::write(dir.join(format!("state-{roles}.json")), json).expect("write state");
    }
    let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
        .await
        .expect("emulator");
    let client = Client::with_options(
        &emu.api_base,
        Token::new(emu.token.clone()).expect("token"),
        ClientOptions::default(),
    )
    .expect("client");
    Snapshot::fetch(&client, &emu.guild_id)
        .await
        .expect("snapshot")
}

fn row(roles: usize, snap: &Snapshot, dir: &Path, iters: usize) -> Row {
    let exported = guildctl::export::export(snap).expect("export");
    let same = dir.join(format!("export-{roles}.yaml"));
    let edited = dir.join(format!("changed-{roles}.yaml"));
    std::fs::write(&same, &exported).expect("write");
    let new_roles = 250usize.saturating_sub(snap.guild.roles.len()).min(10);
    let new_channels = 500usize.saturating_sub(snap.channels.len()).min(10);
    std::fs::write(&edited, changed(&exported, new_roles, new_channels)).expect("write");
    let options = PlanOptions::default();

    let (loaded, report) = manifest::validate(&edited);
    assert!(!report.has_errors(), "{}", report.render_text(false));
    let loaded = loaded.expect("loaded");
    let (same_loaded, _) = manifest::validate(&same);
    let same_loaded = same_loaded.expect("loaded");
    let the_plan = guildctl::planner::diff_loaded(&loaded, snap, &options)
        .unwrap_or_else(|e| panic!("plan refused: {:?}", e.problems));
    assert!(!the_plan.is_empty(), "the changed manifest has changes");
    let drift = guildctl::planner::diff_loaded(&same_loaded, snap, &options).expect("drift");
    assert!(drift.is_empty(), "the export plans back to no changes");

    let validate = measure(iters, || {
        let (_, report) = manifest::validate(&edited);
        assert!(!report.has_errors());
    });
    let plan_time = measure(iters, || {
        let p = guildctl::planner::diff_loaded(&loaded, snap, &options).expect("plan");
        std::hint::black_box(report::render(&p, Format::Text, Heading::Plan, false));
    });
    let export = measure(iters, || {
        std::hint::black_box(guildctl::export::export(snap).expect("export"));
    });
    let drift_time = measure(iters, || {
        let p = guildctl::planner::diff_loaded(&same_loaded, snap, &options).expect("drift");
        std::hint::black_box(report::render(&p, Format::Text, Heading::Drift, false));
    });
    Row {
        roles: snap.guild.roles.len(),
        channels: snap.channels.len(),
        webhooks: snap.webhooks.as_ref().map_or(0, Vec::len),
        options: snap
            .onboarding
            .as_ref()
            .map_or(0, |o| o.prompts.iter().map(|p| p.options.len()).sum()),
        changes: the_plan.changes.len(),
        validate,
        plan: plan_time,
        export,
        drift: drift_time,
    }
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this binary
    // without it, as a smoke test: one iteration each is enough there.
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let iters = if quick { 1 } else { 9 };
    let dir = tempfile::tempdir().expect("temp dir");
    // GUILDCTL_BENCH_DIR keeps the generated manifests, to profile `guildctl validate`
    // on them (docs/performance.md).
    let kept = std::env::var_os("GUILDCTL_BENCH_DIR").map(std::path::PathBuf::from);
    let dir_path = kept.as_deref().unwrap_or(dir.path());
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut rows = Vec::new();
    for roles in SIZES {
        let snap = runtime.block_on(snapshot_of(roles, kept.as_deref()));
        rows.push(row(roles, &snap, dir_path, iters));
    }
    println!(
        "CPU ms per run (median of {iters}{}):",
        if quick { ", --quick" } else { "" }
    );
    println!(
        "| roles | channels | webhooks | onboarding options | plan changes | validate | plan | export | drift |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.roles,
            r.channels,
            r.webhooks,
            r.options,
            r.changes,
            ms(r.validate),
            ms(r.plan),
            ms(r.export),
            ms(r.drift)
        );
    }
    // 125 → 250 roles doubles every count: a linear step costs about 2×.
    let (a, b) = (&rows[2], &rows[3]);
    let growth = |x: Duration, y: Duration| ms(y) / ms(x).max(1e-3);
    println!(
        "growth 125 → 250 roles: validate {:.2}×, plan {:.2}×, export {:.2}×, drift {:.2}×",
        growth(a.validate, b.validate),
        growth(a.plan, b.plan),
        growth(a.export, b.export),
        growth(a.drift, b.drift)
    );
}
