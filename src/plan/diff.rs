//! Builds a plan from a manifest and a snapshot.

use super::context::{Ctx, Phase, PlanError, Problem};
use super::{Operation, PLAN_FORMAT, Plan, PlanOptions, binding, safety};
use crate::manifest::stored::as_stored;
use crate::manifest::{LoadedManifest, Manifest};
use crate::snapshot::Snapshot;

/// [`diff`] for a manifest loaded from files, with the plan bound to their digest
/// ([`binding::manifest_digest`]), on success and on refusal alike.
pub fn diff_loaded(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> Result<Plan, PlanError> {
    let digest = binding::manifest_digest(loaded);
    match diff_with(&loaded.manifest, snap, options) {
        Ok(mut plan) => {
            plan.manifest_sha256 = digest;
            Ok(plan)
        }
        Err(mut e) => {
            e.partial.manifest_sha256 = digest;
            Err(e)
        }
    }
}

/// Computes the plan for `manifest` against `snap`. Returns the plan, or every
/// problem that would make Discord refuse one of its calls.
pub fn diff(manifest: &Manifest, snap: &Snapshot) -> Result<Plan, PlanError> {
    diff_with(manifest, snap, &PlanOptions::default())
}

/// [`diff`] with the user's [`PlanOptions`].
pub fn diff_with(
    manifest: &Manifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> Result<Plan, PlanError> {
    let desired = as_stored(manifest);
    let (mut plan, mut problems) = build(&desired, snap, options);
    plan.deletion_gate =
        safety::deletion_gate(&plan, snap, safety::Allowance::from_manifest(&desired));
    problems.extend(super::gates::check(&plan, snap));
    problems.extend(safety::protect_problems(&plan, &desired, snap));
    if problems.is_empty() {
        Ok(plan)
    } else {
        Err(PlanError {
            problems,
            partial: Box::new(plan),
        })
    }
}

/// The differences alone, for `drift`: none of apply's gates (bot permissions,
/// role hierarchy, limits, protected objects, the deletion gate) run, because
/// drift only reads and a bot with view permissions must be able to run it.
/// Problems the manifest itself has against this guild (a pinned id that does
/// not exist, ...) come back beside the plan instead of refusing it.
pub fn differences(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> (Plan, Vec<Problem>) {
    let desired = as_stored(&loaded.manifest);
    let (mut plan, problems) = build(&desired, snap, options);
    plan.manifest_sha256 = binding::manifest_digest(loaded);
    (plan, problems)
}

/// Runs the planners: the plan with its cascade notes, and the problems they found.
fn build(desired: &Manifest, snap: &Snapshot, options: &PlanOptions) -> (Plan, Vec<Problem>) {
    // Planned as Discord will store it (names trimmed of extra whitespace), so what
    // apply sends is what the next plan compares against.
    let mut cx = Ctx::new(desired, snap, options);
    super::roles::plan_roles(&mut cx);
    super::channels::plan_channels(&mut cx);
    super::settings::plan_settings(&mut cx);
    super::features::plan_welcome_screen(&mut cx);
    super::features::plan_onboarding(&mut cx);
    super::features::plan_widget(&mut cx);
    super::webhooks::plan_webhooks(&mut cx);

    let mut ops = std::mem::take(&mut cx.ops);
    ops.sort_by_key(|(phase, _)| *phase);
    let deps = dependencies(&ops);
    for ((phase, op), after) in ops.iter_mut().zip(deps) {
        op.after = after;
        op.stage = *phase as u8;
    }
    let operations: Vec<Operation> = ops.into_iter().map(|(_, op)| op).collect();
    let mut plan = Plan {
        format: PLAN_FORMAT,
        guildctl_version: binding::VERSION.to_owned(),
        manifest_sha256: String::new(),
        changes_sha256: binding::changes_digest(&cx.changes, &operations),
        guild_id: snap.guild.id.clone(),
        guild_name: snap.guild.name.clone(),
        base_fingerprint: snap.fingerprint(),
        changes: cx.changes,
        operations,
        warnings: cx.warnings,
        unmanaged: cx.unmanaged,
        deletion_gate: Default::default(),
    };
    safety::note_cascades(&mut plan, snap);
    (plan, cx.problems)
}

/// The calls each operation names as prerequisites, as indexes into `ops` (sorted
/// by phase): the calls creating what it refers to, earlier calls for the same
/// change, and the previous create of its phase (Discord places new roles and
/// channels in creation order). Waiting by phase is added by [`Plan::prerequisites`].
fn dependencies(ops: &[(Phase, Operation)]) -> Vec<Vec<usize>> {
    let mut out = Vec::with_capacity(ops.len());
    for (j, (phase_j, op_j)) in ops.iter().enumerate() {
        let refs = op_j.references();
        let previous_create = (0..j)
            .rev()
            .find(|&i| ops[i].0 == *phase_j && ops[i].1.method == "POST" && op_j.method == "POST");
        let deps: Vec<usize> = (0..j)
            .filter(|&i| {
                let op_i = &ops[i].1;
                op_i.creates.as_ref().is_some_and(|k| refs.contains(k))
                    || op_i.change == op_j.change
                    || Some(i) == previous_create
            })
            .collect();
        out.push(deps);
    }
    out
}
