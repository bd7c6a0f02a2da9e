//! Failures and rate limits: applies under injected faults always end cleanly, a
//! rerun converges, and nothing is duplicated, lost or deleted that should not be.

use crate::common;

use std::collections::HashSet;
use std::time::Duration;

use common::{Harness, example};
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet, Scope, Storm};
use guildctl::apply::{self, ApplyOptions, Status};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::plan::{self, Plan};
use guildctl::snapshot::Snapshot;

/// A client for tests: short timeouts and backoff, so injected timeouts cost little.
fn client(h: &Harness) -> Client {
    let options = ClientOptions {
        timeout: Duration::from_millis(150),
        backoff: Duration::from_millis(5),
        global_limit: 1_000_000,
        ..ClientOptions::default()
    };
    h.client_with(options)
}

/// The plan of `loaded` (its avatar read from its folder, as the CLI reads it; the example's
/// `holders` policy counts Moderator's members, as the commands read them).
async fn plan_for(c: &Client, h: &Harness, loaded: &manifest::LoadedManifest) -> (Snapshot, Plan) {
    let mut snap = Snapshot::fetch(c, &h.emu.guild_id).await.expect("snapshot");
    let people = guildctl::snapshot::people_query(&loaded.manifest, &snap);
    snap.read_people(c, &people).await.expect("people");
    snap.read_sections(c, &loaded.manifest)
        .await
        .expect("AutoMod rules and events");
    let plan = guildctl::planner::diff_loaded(loaded, &snap, &plan::PlanOptions::default())
        .expect("the plan is not refused");
    (snap, plan)
}

fn rule(probability: f64, kind: FaultKind) -> FaultRule {
    FaultRule {
        method: "*".into(),
        path: "/**".into(),
        probability,
        kind,
    }
}

/// Every `method path` request answered 403.
fn refuse(method: &str, path: &str) -> FaultSet {
    FaultSet {
        seed: Some(1),
        rules: vec![FaultRule {
            method: method.into(),
            path: path.into(),
            probability: 1.0,
            kind: FaultKind::Status(403),
        }],
    }
}

/// No two live roles, webhooks, or channels of one parent and sorting group share a name.
fn assert_no_duplicates(h: &Harness, seed: u64) {
    let g = h.guild();
    let mut roles = HashSet::new();
    for r in &g.roles {
        assert!(
            roles.insert(r.name.clone()),
            "seed {seed}: duplicate role {}",
            r.name
        );
    }
    let mut channels = HashSet::new();
    for c in &g.channels {
        let group = match c.kind {
            4 => 0,
            2 | 13 => 1,
            _ => 2,
        };
        let key = (c.parent_id.clone(), group, c.name.clone());
        assert!(
            channels.insert(key),
            "seed {seed}: duplicate channel {}",
            c.name
        );
    }
    let mut hooks = HashSet::new();
    for w in &g.webhooks {
        assert!(
            hooks.insert(w.name.clone()),
            "seed {seed}: duplicate webhook {}",
            w.name
        );
    }
}

/// How many seeded runs `cargo test` makes (seeds 0, 1, …): each is a whole apply under
/// faults, a rerun and two plans, about a third of a second of CPU in a debug build.
/// `GUILDCTL_RESILIENCE_SEEDS=200` (or more) runs the long form.
const SEEDS: (&str, u64) = ("GUILDCTL_RESILIENCE_SEEDS", 50);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_runs_with_faults_end_cleanly_and_converge() {
    let seeds = std::env::var(SEEDS.0)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SEEDS.1);
    let text = std::fs::read_to_string(example("community.yaml")).unwrap();
    // Prune webhooks too, so the runs delete as well as create, update and reorder.
    let text = text.replace("webhooks: false", "webhooks: true");
    let dir = example("community.yaml").parent().unwrap().to_path_buf();
    let loaded = manifest::load_str(&dir.join("community.yaml"), text).expect("example loads");
    let mut failed_runs = 0;
    let mut faults_seen = 0;
    for seed in 0..seeds {
        let h = Harness::start().await;
        let c = client(&h);
        let (_, plan) = plan_for(&c, &h, &loaded).await;
        assert!(
            plan.operations.len() >= 30,
            "the plan exercises many routes"
        );
        let deletes = plan
            .operations
            .iter()
            .filter(|o| o.route.method() == reqwest::Method::DELETE)
            .count();
        assert!(deletes > 0);
        let unmanaged: Vec<String> = plan.unmanaged.iter().filter_map(|o| o.id.clone()).collect();
        // 10% of all requests fail: server errors, timeouts, or connections dropped
        // after the write was done.
        h.emu
            .set_faults(FaultSet {
                seed: Some(seed),
                rules: vec![
                    rule(0.034, FaultKind::Status(500)),
                    rule(0.034, FaultKind::Timeout),
                    rule(0.034, FaultKind::DropAfter),
                ],
            })
            .unwrap();
        let options = ApplyOptions::new("resilience test", dir.clone());
        let outcome = apply::apply(&c, &plan, &options, |_| {}).await;
        if !outcome.succeeded() {
            failed_runs += 1;
            // A clean failure: every call is accounted for, none left running.
            assert!(
                outcome
                    .statuses
                    .iter()
                    .all(|s| matches!(s, Status::Done | Status::Failed | Status::Skipped))
            );
        }
        faults_seen += h.requests().iter().filter(|r| r.fault.is_some()).count();
        h.emu.clear_faults();

        // A rerun without faults completes the job, and a plan then shows nothing.
        let (_, rerun) = plan_for(&c, &h, &loaded).await;
        let outcome = apply::apply(&c, &rerun, &options, |_| {}).await;
        assert!(
            outcome.succeeded(),
            "seed {seed}: rerun failed: {:?}",
            outcome.failures
        );
        let (_, last) = plan_for(&c, &h, &loaded).await;
        assert!(
            last.is_empty(),
            "seed {seed}: not converged: {:?}",
            last.changes
        );
        assert_no_duplicates(&h, seed);
        let g = h.guild();
        for id in &unmanaged {
            let alive = g.roles.iter().any(|r| &r.id == id)
                || g.channels.iter().any(|c| &c.id == id)
                || g.webhooks.iter().any(|w| &w.id == id);
            assert!(alive, "seed {seed}: unmanaged object {id} was deleted");
        }
    }
    // The faults really happened: a tenth of the forty-odd requests of each run.
    assert!(
        faults_seen as u64 > seeds,
        "only {faults_seen} faults in {seeds} runs"
    );
    // Whether a random run fails depends on how its calls interleave with the
    // faults' draws, so the clean-failure path is also taken on purpose: every
    // create fails on the server, whatever the order.
    let h = Harness::start().await;
    let c = client(&h);
    let (_, plan) = plan_for(&c, &h, &loaded).await;
    h.emu
        .set_faults(FaultSet {
            seed: Some(7),
            rules: vec![FaultRule {
                method: "POST".into(),
                path: "/**".into(),
                probability: 1.0,
                kind: FaultKind::Status(500),
            }],
        })
        .unwrap();
    let options = ApplyOptions::new("resilience test", dir.clone());
    let outcome = apply::apply(&c, &plan, &options, |_| {}).await;
    eprintln!("{failed_runs} of {seeds} faulted runs failed and were finished by a rerun");
    assert!(
        !outcome.succeeded(),
        "every create refused, yet apply succeeded"
    );
    assert!(
        outcome
            .statuses
            .iter()
            .all(|s| matches!(s, Status::Done | Status::Failed | Status::Skipped))
    );
    h.emu.clear_faults();
    let (_, rerun) = plan_for(&c, &h, &loaded).await;
    assert!(apply::apply(&c, &rerun, &options, |_| {}).await.succeeded());
    let (_, last) = plan_for(&c, &h, &loaded).await;
    assert!(last.is_empty(), "not converged after the forced failure");
    assert_no_duplicates(&h, u64::MAX);
}

#[tokio::test]
async fn a_rejected_token_stops_after_exactly_one_request() {
    let h = Harness::start().await;
    for cmd in ["plan", "apply"] {
        h.emu.clear_requests();
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
            .args(
                [
                    cmd,
                    "-f",
                    example("community.yaml").to_str().unwrap(),
                    "--yes",
                ][..if cmd == "plan" { 3 } else { 4 }]
                    .iter(),
            )
            .env("DISCORD_TOKEN", "wrong-token")
            .env("GUILDCTL_API_BASE", &h.emu.api_base)
            .env("GUILDCTL_GUILD", &h.emu.guild_id)
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("rejected the bot token"), "{stderr}");
        assert_eq!(h.requests().len(), 1, "{:?}", h.requests());
    }
}

#[tokio::test]
async fn a_429_storm_ends_the_run_before_the_invalid_request_budget_is_spent() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    // Let the plan's reads through, then every write meets a storm of 429s.
    let mut set = FaultSet::default();
    for method in ["POST", "PATCH", "PUT", "DELETE"] {
        set.rules.push(FaultRule {
            method: method.into(),
            path: "/**".into(),
            probability: 1.0,
            kind: FaultKind::Storm429(Storm {
                count: 100_000,
                retry_after: 0.001,
                scope: Scope::User,
            }),
        });
    }
    h.emu.set_faults(set).unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["apply", "-f", m.to_str().unwrap(), "--yes"])
        .env("DISCORD_TOKEN", &h.emu.token)
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_GUILD", &h.emu.guild_id)
        .env("GUILDCTL_INVALID_BUDGET", "25")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("rate-limited or refused responses"),
        "{stdout}"
    );
    // No request starts once 25 are spent; at most the 8 already in flight add to it.
    let too_many = h.requests().iter().filter(|r| r.status == 429).count();
    assert!(
        (25..=25 + 8).contains(&too_many),
        "{too_many} 429 responses"
    );
}

/// Discord counts invalid responses per IP address, not per token (docs/discord.md
/// §1.4): two clients of one process with different bots' tokens draw on one budget, and
/// the second stops where the first left it.
#[tokio::test]
async fn clients_with_different_tokens_share_one_invalid_request_budget() {
    const OTHER_BOT: &str = "another-bot-token-in-the-same-process";
    let mut st = discord_emulator::default_state();
    common::arrange(&mut st).owner_token(OTHER_BOT);
    let h = Harness::with_state(Some(st)).await;
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "GET".into(),
                path: "/users/@me".into(),
                probability: 1.0,
                kind: FaultKind::Status(403),
            }],
        })
        .unwrap();
    let options = ClientOptions {
        invalid_budget: 5,
        ..ClientOptions::default()
    };
    let first = h.client_with(options.clone());
    let second = Client::with_options(
        &h.emu.api_base,
        Token::new(OTHER_BOT.to_owned()).unwrap(),
        options,
    )
    .unwrap();
    for _ in 0..3 {
        assert!(first.get::<serde_json::Value>("/users/@me").await.is_err());
    }
    assert_eq!(second.invalid_responses(), 3);
    // Two more 403s reach the budget of five: the second is then refused before it asks.
    for _ in 0..2 {
        let _ = second.get::<serde_json::Value>("/users/@me").await;
    }
    let sent = h.requests().len();
    let e = second
        .get::<serde_json::Value>("/users/@me")
        .await
        .expect_err("the budget is spent");
    assert!(
        e.to_string()
            .contains("stopped after 5 rate-limited or refused responses"),
        "{e}"
    );
    assert_eq!(
        h.requests().len(),
        sent,
        "a request went out past the budget"
    );
    assert_eq!(first.invalid_responses(), 5);
}

#[tokio::test]
async fn a_failed_apply_reports_done_failed_and_skipped_then_a_rerun_finishes() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    h.emu
        .set_faults(refuse("POST", "/guilds/*/channels"))
        .unwrap();
    let run = h.run(&["apply", "-f", m, "--yes"]).await;
    run.assert_code(1);
    assert!(run.stdout.contains("Failed:"), "{}", run.stdout);
    assert!(run.stdout.contains("403"), "{}", run.stdout);
    assert!(run.stdout.contains("Skipped:"), "{}", run.stdout);
    assert!(run.stderr.contains(": done"), "{}", run.stderr);
    h.emu.clear_faults();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn keep_going_finishes_what_does_not_depend_on_the_failure() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    h.emu
        .set_faults(refuse("PATCH", "/guilds/*/roles/*"))
        .unwrap();
    let stop = h.run(&["apply", "-f", m, "--yes"]).await;
    stop.assert_code(1);
    let done_stop = stop.stderr.matches(": done").count();
    // Back to the start, then the same with --keep-going.
    let h2 = Harness::start().await;
    h2.emu
        .set_faults(refuse("PATCH", "/guilds/*/roles/*"))
        .unwrap();
    let going = h2.run(&["apply", "-f", m, "--yes", "--keep-going"]).await;
    going.assert_code(1);
    let done_going = going.stderr.matches(": done").count();
    assert!(done_going > done_stop, "{done_going} vs {done_stop}");
    // Channel writes do not depend on role edits: they were made.
    assert!(going.stderr.contains("create channel"), "{}", going.stderr);
}

#[tokio::test]
async fn the_client_waits_for_buckets_instead_of_hitting_429s() {
    // Real limits, at 200× speed: a 5-per-5-seconds bucket refills every 25 ms.
    let mut state = discord_emulator::default_state();
    state.config.time_scale = 200.0;
    let h = Harness::with_state(Some(state)).await;
    let c = Client::with_options(
        &h.emu.api_base,
        Token::new(h.emu.token.clone()).unwrap(),
        ClientOptions {
            global_window: Duration::from_secs(1) / 200,
            ..ClientOptions::default()
        },
    )
    .unwrap();
    // 30 channel creates share one bucket of the guild.
    let path = format!("/guilds/{}/channels", h.emu.guild_id);
    for i in 0..30 {
        let body = serde_json::json!({ "name": format!("load-{i}") });
        c.send(reqwest::Method::POST, &path, Some(&body), Some("load"))
            .await
            .unwrap();
    }
    let requests = h.requests();
    assert_eq!(requests.iter().filter(|r| r.status == 429).count(), 0);
    assert_eq!(requests.iter().filter(|r| r.status == 201).count(), 30);
}

#[tokio::test]
async fn the_name_and_topic_sublimit_is_waited_out_not_hammered() {
    // Two name or topic changes per channel per ten minutes: at 2000× speed, 0.3 s.
    let mut state = discord_emulator::default_state();
    state.config.time_scale = 2000.0;
    let h = Harness::with_state(Some(state)).await;
    let c = client(&h);
    let general = h.channel_id("general");
    let path = format!("/channels/{general}");
    for i in 0..4 {
        let body = serde_json::json!({ "topic": format!("topic {i}") });
        c.send(reqwest::Method::PATCH, &path, Some(&body), Some("sublimit"))
            .await
            .expect("the change goes through after waiting");
    }
    let requests = h.requests();
    let too_many = requests.iter().filter(|r| r.status == 429).count();
    let done = requests.iter().filter(|r| r.status == 200).count();
    assert_eq!(done, 4);
    // The third change meets the sublimit once and waits; the fourth fits the new window.
    assert!((1..=2).contains(&too_many), "{too_many} 429 responses");
    assert_eq!(
        h.guild()
            .channels
            .iter()
            .find(|ch| ch.id == general)
            .unwrap()
            .topic
            .as_deref(),
        Some("topic 3")
    );
}
