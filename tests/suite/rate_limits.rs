//! Rate limits at Discord's real speed: a large apply meets no 429 and takes
//! about the least time the limits allow. The emulator's clock runs at scale 1, so
//! the client's timing races the emulator's windows as it would Discord's.
//!
//! Discord counts a request against the global limit when it arrives, which a client
//! never sees: only that it lies between sending and the response. Each run makes the
//! request that opens the emulator's first global window arrive late (a latency fault,
//! lifted as soon as that request is answered), and the requests after it arrive at
//! once. A client that counted a request from when it was sent would send the 51st a
//! second after the first was sent, inside the window the first opened on arrival: a
//! global 429 (the client before `538de71` did, in every run). Counted from the
//! response, the 51st waits until the first's window has closed.

use std::fmt::Write;
use std::time::{Duration, Instant};

use crate::common::lower_bound;

use discord_emulator::{
    EmulatorOptions, FaultKind, FaultRule, FaultSet, RunningEmulator, default_state,
};
use guildctl::apply::{self, ApplyOptions};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::snapshot::Snapshot;

/// Creates this many roles: about three windows of the global limit (50 a second).
const ROLES: usize = 150;
const RUNS: usize = 3;
/// How late the first role create arrives: far more than loopback's jitter, so the race
/// is certain, and little against the run.
const LATE: Duration = Duration::from_millis(60);

/// One apply of `ROLES` role creates against a fresh emulator at real time: the 429s
/// the emulator served, the wall time and the lower bound.
async fn one_run() -> (usize, Duration, Duration) {
    let mut state = default_state();
    state.config.time_scale = 1.0;
    let config = state.config.clone();
    let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
        .await
        .expect("emulator");
    let client = Client::with_options(
        &emu.api_base,
        Token::new(emu.token.clone()).unwrap(),
        ClientOptions::default(),
    )
    .unwrap();
    let mut yaml = String::from("version: 1\nroles:\n");
    for i in 0..ROLES {
        let _ = writeln!(yaml, "  - {{ name: Load {i:03} }}");
    }
    let dir = std::env::temp_dir();
    let loaded = manifest::load_str(&dir.join("rate-limits.yaml"), yaml).expect("manifest");
    let snap = Snapshot::fetch(&client, &emu.guild_id)
        .await
        .expect("snapshot");
    let plan = guildctl::planner::diff(&loaded.manifest, &snap).expect("plan");
    let creates = plan
        .operations
        .iter()
        .filter(|o| o.route.method() == reqwest::Method::POST)
        .count();
    assert_eq!(creates, ROLES, "the plan creates every role");
    let bound = lower_bound::lower_bound(&plan, &config);
    // The apply's first request opens a global window of its own: the snapshot's
    // window (in the emulator and in the client) has closed.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    emu.set_faults(FaultSet {
        seed: Some(12),
        rules: vec![FaultRule {
            method: "POST".into(),
            path: "/guilds/*/roles".into(),
            probability: 1.0,
            kind: FaultKind::LatencyMs(LATE.as_millis() as u64),
        }],
    })
    .expect("faults");
    emu.clear_requests();
    let start = Instant::now();
    // A call's end is reported before the next call starts: only the first create is
    // late. (Its start is reported too, before it is sent: that must not clear them.)
    let outcome = apply::apply(
        &client,
        &plan,
        &ApplyOptions::new("rate limits", dir),
        |p| {
            if p.status != apply::Status::Running {
                emu.clear_faults();
            }
        },
    )
    .await;
    let elapsed = start.elapsed();
    assert!(outcome.succeeded(), "apply failed: {:?}", outcome.failures);
    let requests = emu.requests();
    assert!(requests.len() >= ROLES);
    let late: Vec<usize> = (0..requests.len())
        .filter(|&i| requests[i].fault.is_some())
        .collect();
    assert_eq!(late, [0], "the first create, and only it, arrived late");
    let too_many = requests.iter().filter(|r| r.status == 429).count();
    // The first create's latency is time no client can save: it cannot know the create
    // arrived before its response.
    (too_many, elapsed, bound + LATE)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_apply_at_real_speed_meets_no_429_and_keeps_to_the_bound() {
    for run in 1..=RUNS {
        let (too_many, elapsed, bound) = one_run().await;
        let ratio = elapsed.as_secs_f64() / bound.as_secs_f64();
        eprintln!(
            "run {run}: {too_many} × 429, {:.3} s for a lower bound of {:.3} s ({ratio:.3}×)",
            elapsed.as_secs_f64(),
            bound.as_secs_f64()
        );
        assert_eq!(too_many, 0, "run {run}: a 429 in normal operation");
        assert!(bound >= Duration::from_secs(2), "the limits shape the run");
        // How close to the bound it keeps is measured by the bench (`cargo bench --bench
        // apply_under_limits`, docs/rate-limits.md: 1.02–1.05× on an idle machine); on a
        // loaded CI machine the wall clock says little more than that the client does not
        // wait for nothing, so only a gross regression fails here.
        assert!(ratio <= 1.5, "run {run}: {ratio:.3}× the lower bound");
    }
}

/// `--max-rps N` holds guildctl's own rate to N a second: against an emulator whose global
/// limit is 3 a second (a bot sharing its budget with its own traffic), an apply capped at
/// 3 meets no 429; at the bot's 50 its first reads, six at once, meet the lower limit. At a
/// hundredth of Discord's second (the emulator's `time_scale` and `GUILDCTL_CLOCK_SCALE`),
/// so it takes no time.
#[tokio::test]
async fn max_rps_keeps_guildctl_under_a_lower_limit() {
    async fn too_many(cap: Option<&str>) -> usize {
        let mut state = default_state();
        state.config.time_scale = 100.0;
        state.config.global_per_second = 3;
        let h = crate::common::Harness::with_state(Some(state)).await;
        let mut yaml = String::from("version: 1\nroles:\n");
        for i in 0..10 {
            let _ = writeln!(yaml, "  - {{ name: Load {i:03} }}");
        }
        let manifest = h.manifest("roles.yaml", &yaml);
        let mut args = vec!["apply", "-f", manifest.to_str().unwrap(), "--yes"];
        if let Some(cap) = cap {
            args.extend(["--max-rps", cap]);
        }
        let run = h.run_env(&args, &[("GUILDCTL_CLOCK_SCALE", "100")]).await;
        run.assert_code(0);
        let made = h
            .guild()
            .roles
            .iter()
            .filter(|r| r.name.starts_with("Load"))
            .count();
        assert_eq!(made, 10);
        h.requests().iter().filter(|r| r.status == 429).count()
    }
    assert_eq!(
        too_many(Some("3")).await,
        0,
        "capped at the emulator's limit"
    );
    assert!(
        too_many(None).await > 0,
        "at 50 a second, the lower limit is met"
    );
}

/// The workspace's `rate: { max_rps: N }` holds for `--all` as `--max-rps` does, and the
/// flag takes precedence over it.
#[tokio::test]
async fn the_workspace_rate_holds_for_a_run_over_its_guilds() {
    async fn too_many(flag: Option<&str>) -> usize {
        let mut state = default_state();
        state.config.time_scale = 100.0;
        state.config.global_per_second = 3;
        let h = crate::common::Harness::with_state(Some(state)).await;
        h.manifest("guild.yaml", "version: 1\n");
        let workspace = format!(
            "version: 1\nguilds:\n  main: {{ id: \"{}\", manifest: guild.yaml }}\nrate:\n  max_rps: 3\n",
            h.emu.guild_id
        );
        h.put("guildctl.yaml", workspace.as_bytes());
        let mut args = vec!["plan", "--all"];
        if let Some(flag) = flag {
            args.extend(["--max-rps", flag]);
        }
        let run = h.run_env(&args, &[("GUILDCTL_CLOCK_SCALE", "100")]).await;
        assert!(matches!(run.code, 0 | 2), "{}", run.stderr);
        h.requests().iter().filter(|r| r.status == 429).count()
    }
    assert_eq!(too_many(None).await, 0, "the workspace's 3 a second");
    assert!(too_many(Some("50")).await > 0, "--max-rps 50 over it");
}
