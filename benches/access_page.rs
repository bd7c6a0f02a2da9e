//! What the access page costs at Discord's limits (250 roles, 500 channels: 125,000 cells):
//! the grid of the guild a broad plan leaves and its comparison with the live guild
//! (`access::grid`), the page written (`report::html`), its size, and — when Chromium is
//! here (`GUILDCTL_CHROMIUM`, else `chromium` on PATH) — the time headless Chromium takes to
//! parse the page, build the table and lay it out, as the page's script writes it into the
//! DOM (`data-render-ms`, from navigation start). Prints CPU time for the generation
//! (this thread's) and the median of the renders. See docs/performance.md, "The access page".
//!
//! Run: `cargo bench --bench access_page` (`-- --quick` for one iteration, no browser).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{measure, ms};

use std::path::{Path, PathBuf};
use std::process::Command;

use discord_emulator::{EmulatorOptions, LargeStateOptions, RunningEmulator, large_state};
use guildctl::access::Guild;
use guildctl::access::grid;
use guildctl::access::model::{ChannelSpec, Overwrite, ROLE};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::permissions::Permissions;
use guildctl::report::html::{self, Page, Shown};
use guildctl::snapshot::Snapshot;

async fn largest() -> Snapshot {
    let mut state = large_state(LargeStateOptions::default());
    state.config.time_scale = 1e6;
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

/// The live guild with every tenth channel opened to @everyone and @everyone allowed to
/// mention everyone: gains in many cells.
fn after_of(live: &Guild) -> Guild {
    let mut after = live.clone();
    let everyone = live.everyone().expect("@everyone");
    let perms = everyone.permissions | Permissions::from_name("mention_everyone").unwrap();
    after.set_role(&live.id, "@everyone", Some(perms), None, Some(0));
    for (k, c) in live.channels.iter().enumerate().step_by(10) {
        let open = vec![Overwrite {
            target: live.id.clone(),
            kind: ROLE,
            allow: Permissions::VIEW_CHANNEL,
            deny: Permissions::NONE,
        }];
        after.set_channel(
            ChannelSpec {
                id: &c.id,
                name: &c.name,
                kind: c.kind,
                parent: c.parent.as_deref(),
            },
            Some(open),
            None,
            Some(k + 1),
        );
    }
    after
}

/// Chromium, as the tests find it.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GUILDCTL_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    })
}

/// The page's own render time in headless Chromium (ms from navigation start to the
/// table laid out), and the wall time of the whole browser run.
fn render_ms(chromium: &Path, page: &Path, profile: &Path) -> (f64, f64) {
    let started = std::time::Instant::now();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let wall = started.elapsed().as_secs_f64() * 1e3;
    let dom = String::from_utf8_lossy(&out.stdout);
    let at = dom
        .find("data-render-ms=\"")
        .expect("the page's script ran")
        + 16;
    let end = at + dom[at..].find('"').expect("closing quote");
    (dom[at..end].parse().expect("a number"), wall)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let iters = if quick { 1 } else { 15 };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let snap = runtime.block_on(largest());
    let live = Guild::live(&snap);
    let after = after_of(&live);

    let one = grid::grid(&after);
    let both = grid::compare(&live, &after);
    let cells = one.rows.len() * one.columns.len();
    let page = |g: &grid::Grid, shown| {
        html::render(&Page {
            guild_id: &after.id,
            guild_name: &snap.guild.name,
            shown,
            grid: g,
            access: &[],
            new_member: None,
        })
    };
    let access_page = page(&one, Shown::AfterPlan);
    let plan_page = page(&both, Shown::Plan);

    let t_grid = measure(iters, || {
        std::hint::black_box(grid::grid(&after));
    });
    let t_compare = measure(iters, || {
        std::hint::black_box(grid::compare(&live, &after));
    });
    let t_render = measure(iters, || {
        std::hint::black_box(page(&both, Shown::Plan));
    });
    println!(
        "access page at {} channels x {} columns ({cells} cells): grid {:.1} ms, comparison {:.1} ms, page written {:.1} ms (CPU)",
        one.rows.len(),
        one.columns.len(),
        ms(t_grid),
        ms(t_compare),
        ms(t_render)
    );
    println!(
        "  sizes: access page {} KB, plan page {} KB (limit 2048 KB)",
        access_page.len() / 1024,
        plan_page.len() / 1024
    );
    assert!(
        plan_page.len() < 2 * 1024 * 1024,
        "the page stays under 2 MB"
    );

    if quick {
        return;
    }
    let Some(chromium) = chromium() else {
        println!(
            "  Chromium not found (GUILDCTL_CHROMIUM, or chromium on PATH): render time not measured"
        );
        return;
    };
    // GUILDCTL_BENCH_PAGES=DIR keeps the pages there, to open them.
    let dir = tempfile::tempdir().expect("temp dir");
    let kept = std::env::var_os("GUILDCTL_BENCH_PAGES").map(PathBuf::from);
    for (name, text) in [("access", &access_page), ("plan", &plan_page)] {
        let path = kept
            .as_deref()
            .unwrap_or(dir.path())
            .join(format!("{name}.html"));
        std::fs::write(&path, text).expect("page written");
        let profile = dir.path().join(format!("profile-{name}"));
        let runs: Vec<(f64, f64)> = (0..5)
            .map(|_| render_ms(&chromium, &path, &profile))
            .collect();
        println!(
            "  {name} page in headless Chromium: rendered in {:.0} ms (median of 5, from navigation start to the table laid out); whole browser run {:.0} ms",
            median(runs.iter().map(|r| r.0).collect()),
            median(runs.iter().map(|r| r.1).collect())
        );
    }
}
