//! Apply's scheduler alone (`guildctl::apply::Schedule`), without HTTP: how its work grows
//! with the number of calls (docs/performance.md, "Apply's scheduler"). Each plan is a
//! tenth role creates (each after the one before, as Discord places new roles in creation
//! order), the guild's settings (the first stage barrier), and for the rest one roster call
//! each, after the create of its role: the shape of a plan that gives thousands of members
//! their roles. Calls finish in the order they started, 8 at a time, as apply runs them.
//! Prints this thread's CPU time per plan and per call, and the growth from one size to
//! the next (2× the calls: 2× the time when linear, 4× when quadratic).
//!
//! Run: `cargo bench --bench schedule` (`-- --quick` for small plans, one iteration).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;
use cpu::cpu_now;

use guildctl::apply::{Schedule, Status};
use guildctl::discord::Route;
use guildctl::plan::{
    Action, Change, DeletionGate, IdRef, Kind, ObjectRef, Operation, PLAN_FORMAT, Plan,
    barrier_stage,
};

/// Calls in flight at once, apply's default.
const CONCURRENCY: usize = 8;

fn change(kind: Kind, name: String, id: Option<String>) -> Change {
    Change {
        action: Action::Create,
        object: ObjectRef { kind, name, id },
        fields: Vec::new(),
        source: None,
        person: None,
    }
}

fn op(route: Route<IdRef>, change: usize, after: Vec<usize>, stage: u8) -> Operation {
    Operation {
        summary: route.path(),
        route,
        body: None,
        creates: None,
        reason: None,
        change,
        after,
        stage,
    }
}

/// A plan of `calls` operations, as the module says.
fn plan_of(calls: usize) -> Plan {
    let guild = || IdRef::Live("1".to_owned());
    let roles = (calls / 10).max(1);
    let mut changes = Vec::new();
    let mut operations = Vec::new();
    for r in 0..roles {
        changes.push(change(Kind::Role, format!("R{r}"), None));
        let after = if r == 0 { vec![] } else { vec![r - 1] };
        let mut create = op(Route::CreateRole { guild: guild() }, r, after, 0);
        create.creates = Some(format!("role:R{r}"));
        operations.push(create);
    }
    changes.push(change(Kind::Guild, "g".into(), Some("1".into())));
    let settings = Route::UpdateGuild { guild: guild() };
    operations.push(op(settings, changes.len() - 1, vec![], barrier_stage()));
    for m in 0..calls.saturating_sub(roles + 1) {
        let user = (10_000_000 + m).to_string();
        let r = m % roles;
        changes.push(change(
            Kind::RosterEntry,
            format!("R{r} ← {user}"),
            Some(user.clone()),
        ));
        let route = Route::AddMemberRole {
            guild: guild(),
            user: IdRef::Live(user),
            role: IdRef::New(format!("role:R{r}")),
        };
        operations.push(op(route, changes.len() - 1, vec![r], barrier_stage() + 1));
    }
    Plan {
        format: PLAN_FORMAT,
        guildctl_version: String::new(),
        manifest_sha256: String::new(),
        changes_sha256: String::new(),
        guild_id: "1".into(),
        guild_name: "bench".into(),
        base_fingerprint: String::new(),
        changes,
        operations,
        warnings: Vec::new(),
        unmanaged: Vec::new(),
        deletion_gate: DeletionGate::default(),
        rehearsal: None,
        widget_image_url: None,
        access: Vec::new(),
        policies_kept: Vec::new(),
        policy_changes: Vec::new(),
        policy_base: Default::default(),
        policy_gate: Default::default(),
        duplicates: Vec::new(),
    }
}

/// Schedules every call of `plan` to the end; returns how many started.
fn run(plan: &Plan) -> usize {
    let mut schedule = Schedule::new(plan);
    let mut in_flight: VecDeque<usize> = VecDeque::new();
    let mut started = 0;
    loop {
        for (j, status) in schedule.pass(CONCURRENCY - in_flight.len()) {
            if status == Status::Running {
                in_flight.push_back(j);
                started += 1;
            }
        }
        let Some(j) = in_flight.pop_front() else {
            break;
        };
        schedule.finish(j, Status::Done);
    }
    started
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let sizes: &[usize] = if quick {
        &[500, 1_000]
    } else {
        &[1_250, 2_500, 5_000, 10_000, 20_000]
    };
    let iters = if quick { 1 } else { 5 };
    println!(
        "apply's scheduler, CPU time (median of {iters}){}",
        if quick { " (--quick)" } else { "" }
    );
    println!(
        "{:>7}  {:>12}  {:>12}  {:>7}",
        "calls", "time", "per call", "growth"
    );
    let mut last: Option<Duration> = None;
    for &n in sizes {
        let plan = plan_of(n);
        let mut times: Vec<Duration> = (0..iters)
            .map(|_| {
                let start = cpu_now();
                let started = run(&plan);
                let took = cpu_now() - start;
                assert_eq!(started, n, "every call runs");
                took
            })
            .collect();
        times.sort();
        let t = times[times.len() / 2];
        let growth = last.map_or(String::new(), |l| {
            format!("{:.2}×", t.as_secs_f64() / l.as_secs_f64())
        });
        println!(
            "{n:>7}  {:>9.2} ms  {:>9.2} µs  {growth:>7}",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e6 / n as f64
        );
        last = Some(t);
    }
}
