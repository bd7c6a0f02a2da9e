//! Which calls of a plan may start, and which are skipped, as calls finish: apply's
//! scheduler, apart from the calls themselves so that it can be measured alone
//! (`benches/schedule.rs`).
//!
//! A call waits for the calls it names (`after`) and, by its stage, for every earlier
//! call of the stages it comes after ([`stage_waits_for`]): thousands of roster calls
//! wait for every role, channel and setting. Those stage waits are not expanded into
//! edges (that is quadratic); each stage keeps its calls in plan order and a cursor to
//! its first unfinished one, so "every earlier call of stages before mine is finished"
//! is a comparison, and each call is released once. The work is linear in the calls
//! and the ids they name.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashMap;

use super::Status;
use crate::plan::{Kind, Operation, Plan, ReliedOn, stage_waits_for};

const STAGES: usize = u8::MAX as usize + 1;

/// The state of every call of a plan as apply runs it.
pub struct Schedule<'p> {
    plan: &'p Plan,
    statuses: Vec<Status>,
    /// Prerequisites not yet finished: the calls named in `after`, and one for the
    /// stage wait until it is over.
    blocking: Vec<usize>,
    /// For each call, the calls that name it in `after`.
    waiters: Vec<Vec<usize>>,
    /// Each stage's calls in plan order, and the position of its first unfinished call.
    by_stage: Vec<Vec<usize>>,
    unfinished_from: Vec<usize>,
    /// Each stage's position of its first call whose stage wait is not yet over.
    released_to: Vec<usize>,
    /// The stages of this plan with a stage wait, each with the stages it waits for.
    waiting_stages: Vec<(usize, Vec<usize>)>,
    ready: BinaryHeap<Reverse<usize>>,
    /// Calls that failed or were skipped, by what a later call may rely on them for.
    broken_guild_wide: Vec<usize>,
    broken_objects: HashMap<&'p str, Vec<usize>>,
    /// Skips found since the last [`Schedule::pass`].
    skipped: Vec<usize>,
}

impl<'p> Schedule<'p> {
    /// A schedule of the plan's operations, none started.
    pub fn new(plan: &'p Plan) -> Schedule<'p> {
        let total = plan.operations.len();
        let mut by_stage: Vec<Vec<usize>> = vec![Vec::new(); STAGES];
        let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); total];
        let mut blocking = vec![0; total];
        for (j, op) in plan.operations.iter().enumerate() {
            by_stage[op.stage as usize].push(j);
            // A plan read from a file may name calls it does not have: not a reason to panic.
            for &i in op.after.iter().filter(|&&i| i < total && i != j) {
                waiters[i].push(j);
                blocking[j] += 1;
            }
        }
        let present: Vec<usize> = (0..STAGES).filter(|&t| !by_stage[t].is_empty()).collect();
        let waiting_stages: Vec<(usize, Vec<usize>)> = present
            .iter()
            .map(|&s| {
                let waits_for = present
                    .iter()
                    .copied()
                    .filter(|&t| stage_waits_for(s as u8, t as u8))
                    .collect::<Vec<_>>();
                (s, waits_for)
            })
            .filter(|(s, _)| (0..=u8::MAX).any(|t| stage_waits_for(*s as u8, t)))
            .collect();
        for (stage, _) in &waiting_stages {
            for &j in &by_stage[*stage] {
                blocking[j] += 1;
            }
        }
        let mut schedule = Schedule {
            plan,
            statuses: vec![Status::Pending; total],
            blocking,
            waiters,
            by_stage,
            unfinished_from: vec![0; STAGES],
            released_to: vec![0; STAGES],
            waiting_stages,
            ready: BinaryHeap::new(),
            broken_guild_wide: Vec::new(),
            broken_objects: HashMap::new(),
            skipped: Vec::new(),
        };
        // Nothing has failed yet, so nothing is skipped here.
        for j in 0..total {
            if schedule.blocking[j] == 0 {
                schedule.unblocked(j);
            }
        }
        schedule.release_stage_waits();
        schedule
    }

    /// Reports the calls skipped since the last pass and starts, lowest index first, up
    /// to `room` calls whose prerequisites have finished: each as `(index, Skipped |
    /// Running)`, in index order.
    pub fn pass(&mut self, room: usize) -> Vec<(usize, Status)> {
        let mut events: Vec<(usize, Status)> = self
            .skipped
            .drain(..)
            .map(|j| (j, Status::Skipped))
            .collect();
        for _ in 0..room {
            let Some(Reverse(j)) = self.ready.pop() else {
                break;
            };
            self.statuses[j] = Status::Running;
            events.push((j, Status::Running));
        }
        events.sort_unstable_by_key(|&(j, _)| j);
        events
    }

    /// Records how call `j` ended (`Done` or `Failed`), and what follows from it: calls
    /// that may start, and calls skipped because they needed it (and so on down a chain,
    /// with a work list rather than recursion, as chains may be thousands long).
    pub fn finish(&mut self, j: usize, status: Status) {
        self.statuses[j] = status;
        let mut over = vec![j];
        while let Some(j) = over.pop() {
            if matches!(self.statuses[j], Status::Failed | Status::Skipped) {
                self.remember_broken(j);
            }
            for w in std::mem::take(&mut self.waiters[j]) {
                self.blocking[w] -= 1;
                if self.blocking[w] == 0 && self.unblocked(w) {
                    over.push(w);
                }
            }
            let stage = self.plan.operations[j].stage as usize;
            let calls = &self.by_stage[stage];
            let mut from = self.unfinished_from[stage];
            while from < calls.len() && is_over(self.statuses[calls[from]]) {
                from += 1;
            }
            self.unfinished_from[stage] = from;
            over.extend(self.release_stage_waits());
        }
    }

    /// Calls that never started, once the run is over.
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.statuses.len()).filter(|&j| self.statuses[j] == Status::Pending)
    }

    /// Ends the stage wait of every call whose earlier calls of the stages it waits for
    /// have all finished; returns the calls this skipped. Cursors only move forward, so
    /// over a run this is linear in the calls (times the stages, a constant).
    fn release_stage_waits(&mut self) -> Vec<usize> {
        let mut skipped = Vec::new();
        for s in 0..self.waiting_stages.len() {
            let (stage, waits_for) = &self.waiting_stages[s];
            let stage = *stage;
            // The first unfinished call of the stages it waits for (`usize::MAX`: none).
            let frontier = waits_for
                .iter()
                .filter_map(|&t| self.by_stage[t].get(self.unfinished_from[t]).copied())
                .min()
                .unwrap_or(usize::MAX);
            while let Some(&j) = self.by_stage[stage].get(self.released_to[stage]) {
                if j > frontier {
                    break;
                }
                self.released_to[stage] += 1;
                self.blocking[j] -= 1;
                if self.blocking[j] == 0 && self.unblocked(j) {
                    skipped.push(j);
                }
            }
        }
        skipped
    }

    /// Every prerequisite of `j` has finished: it is ready, or skipped (returns true)
    /// when one it needs ([`needs_one`]) failed or was skipped.
    fn unblocked(&mut self, j: usize) -> bool {
        if self.statuses[j] != Status::Pending {
            return false;
        }
        if self.doomed(j) {
            self.statuses[j] = Status::Skipped;
            self.skipped.push(j);
            true
        } else {
            self.ready.push(Reverse(j));
            false
        }
    }

    /// Whether a prerequisite `j` needs ([`needs_one`]) failed or was skipped. Only
    /// broken calls are looked at: the `after` it names, and the broken calls it may rely
    /// on by its stage wait (found by what they are relied on for).
    fn doomed(&self, j: usize) -> bool {
        let op = &self.plan.operations[j];
        let total = self.statuses.len();
        let named = named_ids(op);
        let by_object = named
            .iter()
            .filter_map(|id| self.broken_objects.get(id))
            .flatten();
        let waits_on = |i: usize| {
            op.after.contains(&i)
                || (i < j && stage_waits_for(op.stage, self.plan.operations[i].stage))
        };
        op.after
            .iter()
            .chain(&self.broken_guild_wide)
            .chain(by_object)
            .copied()
            .filter(|&i| i < total && i != j)
            .any(|i| {
                matches!(self.statuses[i], Status::Failed | Status::Skipped)
                    && waits_on(i)
                    && needs_one(self.plan, j, i)
            })
    }

    fn remember_broken(&mut self, i: usize) {
        match relied_on_as(self.plan, i) {
            Some(Reliance::GuildWide) => self.broken_guild_wide.push(i),
            Some(Reliance::Object(id)) => self.broken_objects.entry(id).or_default().push(i),
            None => {}
        }
    }
}

fn is_over(status: Status) -> bool {
    matches!(status, Status::Done | Status::Failed | Status::Skipped)
}

/// What later calls rely on a call for, beyond naming it in `after`.
enum Reliance<'p> {
    /// The guild's settings and @everyone's permissions: COMMUNITY and what every
    /// channel shows are conditions Discord checks on later calls.
    GuildWide,
    /// A role, category or channel, relied on by the calls that name its id.
    Object(&'p str),
}

fn relied_on_as(plan: &Plan, i: usize) -> Option<Reliance<'_>> {
    let object = &plan.changes.get(plan.operations[i].change)?.object;
    match (object.kind.facts().relied_on, object.id.as_deref()) {
        (ReliedOn::GuildWide, _) => Some(Reliance::GuildWide),
        // @everyone's role (its id is the guild's) is the guild's permissions.
        (ReliedOn::ById, Some(id)) if object.kind == Kind::Role && id == plan.guild_id => {
            Some(Reliance::GuildWide)
        }
        (ReliedOn::ById, Some(id)) => Some(Reliance::Object(id)),
        (ReliedOn::ById, None) | (ReliedOn::Nothing, _) => None,
    }
}

/// Whether operation `j` needs the success of its prerequisite `i`: it is skipped when
/// `i` fails, and otherwise only waits for it to finish, so with `keep_going` a failure
/// stops nothing else.
///
/// It needs every call it names in `after` (the creates it refers to, the earlier
/// calls of its change). A stage wait adds the rest of the earlier stages; of those it
/// needs the calls whose object it relies on ([`Reliance`]): the guild's settings,
/// @everyone's permissions, and a role, category or channel whose id it names in its
/// path or body. Nothing refers to a welcome screen, onboarding, widget, webhook or a
/// whole order, so their failures are waited out, never inherited.
pub(super) fn needs_one(plan: &Plan, j: usize, i: usize) -> bool {
    let op = &plan.operations[j];
    op.after.contains(&i)
        || match relied_on_as(plan, i) {
            Some(Reliance::GuildWide) => true,
            Some(Reliance::Object(id)) => named_ids(op).contains(&id),
            None => false,
        }
}

/// The ids an operation names: its route's, and string values anywhere in its body.
fn named_ids(op: &Operation) -> Vec<&str> {
    fn walk<'v>(v: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match v {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            serde_json::Value::Object(m) => m.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out: Vec<&str> = op
        .route
        .ids()
        .filter_map(crate::plan::IdRef::live)
        .collect();
    if let Some(body) = &op.body {
        walk(body, &mut out);
    }
    out
}
