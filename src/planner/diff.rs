//! Builds a plan from a manifest and a snapshot.

use hashbrown::HashMap;

use crate::judge::{deletion_gate, policy_changes};
use crate::manifest::stored::as_stored;
use crate::manifest::{LoadedManifest, Manifest};
use crate::plan::{
    Allowance, Operation, PLAN_FORMAT, Phase, Plan, PlanError, PlanOptions, PolicyAllowance,
    Problem, binding,
};
use crate::plan_kit::context::{Ctx, Op};
use crate::sections::PlanTurn;
use crate::snapshot::Snapshot;

/// [`diff`] for a manifest loaded from files, with the plan bound to their digest
/// ([`binding::manifest_digest`]), on success and on refusal alike.
pub fn diff_loaded(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> Result<Plan, PlanError> {
    diff_loaded_with_access(loaded, snap, options).0
}

/// The guild as access sees it today and once a plan is applied, both from the planning
/// that made the plan (`plan --format html`).
#[derive(Debug, Clone)]
pub struct AccessBoth {
    /// The live guild.
    pub live: crate::access::Guild,
    /// The guild the plan leaves.
    pub after: crate::access::Guild,
    /// Its welcome screen and onboarding once the plan is applied.
    pub joining: crate::access::onboarding::Joining,
}

/// [`diff_loaded`], with the live guild and the guild the plan leaves as access sees them
/// (kept for a refused plan too).
pub fn diff_loaded_with_access(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> (Result<Plan, PlanError>, AccessBoth) {
    let digest = binding::manifest_digest(loaded);
    let options = &with_images(loaded, options);
    let (planned, both) = diff_stored(loaded.stored(), snap, options);
    let planned = match planned {
        Ok(mut plan) => {
            plan.manifest_sha256 = digest;
            Ok(plan)
        }
        Err(mut e) => {
            e.partial.manifest_sha256 = digest;
            Err(e)
        }
    };
    (planned, both)
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
    diff_stored(&as_stored(manifest), snap, options).0
}

/// [`diff_with`] for a manifest already in the form Discord stores ([`as_stored`]).
fn diff_stored(
    desired: &Manifest,
    snap: &Snapshot,
    options: &PlanOptions,
) -> (Result<Plan, PlanError>, AccessBoth) {
    let Built {
        mut plan,
        mut problems,
        after,
        live,
        joining,
    } = build(desired, snap, options);
    let allowance = Allowance::resolve(options.allow_deletes, desired);
    plan.deletion_gate = deletion_gate::deletion_gate(&plan, snap, allowance);
    let review = policy_changes::review(
        &crate::judge::policies::declared(desired),
        &options.policy_baseline,
        &live,
        &after,
    );
    problems.extend(crate::judge::policies::judge(
        desired, snap, &live, &after, &review, &mut plan,
    ));
    let allowance = PolicyAllowance::resolve(options.allow_policy_changes, desired);
    plan.policy_gate = deletion_gate::policy_gate(&review.changes, allowance);
    plan.policy_base = review.base;
    plan.policy_changes = review.changes;
    problems.extend(crate::judge::preflight::check(&plan, snap, &after));
    problems.extend(deletion_gate::protect_problems(&plan, desired, snap));
    let planned = if problems.is_empty() {
        Ok(plan)
    } else {
        Err(PlanError {
            problems,
            partial: Box::new(plan),
        })
    };
    (
        planned,
        AccessBoth {
            live,
            after,
            joining,
        },
    )
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
    let Built {
        mut plan, problems, ..
    } = build(loaded.stored(), snap, &with_images(loaded, options));
    plan.manifest_sha256 = binding::manifest_digest(loaded);
    (plan, problems)
}

/// What `guildctl access` shows ([`crate::access::view`]) of the guild today (`q.live`)
/// or as the manifest would make it (a new member's view with its welcome screen and
/// onboarding, the manifest's where declared, else the live ones): the guild the plan leaves, whether or not apply's
/// gates would pass it (showing needs no permission). The problems that would refuse the
/// plan come beside it.
pub fn access_view(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
    q: &crate::access::view::Query,
) -> Result<(crate::access::view::View, Vec<Problem>), crate::access::view::ViewError> {
    let (guild, joining, problems) = access_guild(loaded, snap, options, q.live);
    let view = crate::access::view::view(&guild, &snap.guild.name, q, &joining)?;
    Ok((view, problems))
}

/// The guild `guildctl access` computes on: today's (`live`), or the one the plan leaves,
/// with its welcome screen and onboarding and the problems that would refuse the plan.
pub fn access_guild(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    options: &PlanOptions,
    live: bool,
) -> (
    crate::access::Guild,
    crate::access::onboarding::Joining,
    Vec<Problem>,
) {
    if live {
        let joining = crate::access::onboarding::Joining::live(snap);
        (crate::access::Guild::live(snap), joining, Vec::new())
    } else {
        let built = build(loaded.stored(), snap, &with_images(loaded, options));
        (built.after, built.joining, built.problems)
    }
}

/// `options` with the manifest's image files read from its folder.
fn with_images(loaded: &LoadedManifest, options: &PlanOptions) -> PlanOptions {
    PlanOptions {
        images: crate::plan_kit::images::read_image_files(&loaded.manifest, &loaded.dir()),
        ..options.clone()
    }
}

/// What the planners make: the plan with its cascade notes, the problems they found, and the
/// guild as access sees it once the plan is applied, and before.
struct Built {
    plan: Plan,
    problems: Vec<Problem>,
    after: crate::access::Guild,
    live: crate::access::Guild,
    /// The welcome screen and onboarding once the plan is applied.
    joining: crate::access::onboarding::Joining,
}

/// Runs the planner of each section that is a unit ([`crate::sections::ALL`]) whose turn it
/// is, in the registry's order.
fn plan_sections(turn: PlanTurn, cx: &mut Ctx) {
    for section in crate::sections::ALL {
        if section.about().plan_turn == turn {
            section.plan(cx);
        }
    }
}

/// Runs the planners.
fn build(desired: &Manifest, snap: &Snapshot, options: &PlanOptions) -> Built {
    // Planned as Discord will store it (names trimmed of extra whitespace), so what
    // apply sends is what the next plan compares against.
    let mut cx = Ctx::new(desired, snap, options);
    crate::planner::roles::plan_roles(&mut cx);
    crate::planner::channels::plan_channels(&mut cx);
    crate::planner::settings::plan_settings(&mut cx);
    crate::planner::welcome_onboarding_widget::plan_welcome_screen(&mut cx);
    crate::planner::welcome_onboarding_widget::plan_onboarding(&mut cx);
    crate::planner::welcome_onboarding_widget::plan_widget(&mut cx);
    crate::planner::webhooks::plan_webhooks(&mut cx);
    crate::planner::integrations::plan_integrations(&mut cx);
    crate::planner::invites::plan_invites(&mut cx);
    plan_sections(PlanTurn::AfterDoors, &mut cx);
    crate::planner::regions::check_regions(&mut cx);
    crate::planner::members::plan_rosters(&mut cx);
    crate::planner::members::plan_bans(&mut cx);
    crate::planner::members::check_names(&mut cx);
    plan_sections(PlanTurn::Last, &mut cx);

    let mut ops = std::mem::take(&mut cx.ops);
    ops.sort_by_key(|op| op.phase);
    let deps = dependencies(&ops);
    for (op, after) in ops.iter_mut().zip(deps) {
        op.operation.after = after;
        op.operation.stage = op.phase as u8;
    }
    let operations: Vec<Operation> = ops.into_iter().map(|op| op.operation).collect();
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
        duplicates: cx.duplicates,
        unmanaged: cx.unmanaged,
        deletion_gate: Default::default(),
        rehearsal: None,
        widget_image_url: crate::planner::welcome_onboarding_widget::widget_image_url(
            desired, snap, options,
        ),
        access: crate::access::diff::between(&cx.access_live, &cx.access_after),
        policies_kept: Vec::new(),
        policy_changes: Vec::new(),
        policy_base: Default::default(),
        policy_gate: Default::default(),
    };
    deletion_gate::note_cascades(&mut plan, snap);
    Built {
        plan,
        problems: cx.problems,
        after: cx.access_after,
        live: cx.access_live,
        joining: cx.joining_after,
    }
}

/// The calls each operation names as prerequisites, as indexes into `ops` (sorted
/// by phase): the calls creating what it refers to, earlier calls for the same
/// change, earlier calls whose path names an object it waits for ([`Op::after_writes_of`]),
/// and the previous create of its phase (Discord places new roles and channels in
/// creation order). Waiting by phase is added by [`Plan::prerequisites`].
///
/// Indexed by creation key, by change and by the ids paths name as it goes, so it takes
/// time in proportion to the dependencies found rather than to the square of the
/// operations.
fn dependencies(ops: &[Op]) -> Vec<Vec<usize>> {
    let mut out = Vec::with_capacity(ops.len());
    let mut by_creates: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_change: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut by_path_id: HashMap<&str, Vec<usize>> = HashMap::new();
    // The last create of the phase so far; ops are sorted by phase.
    let mut last_create: Option<(Phase, usize)> = None;
    for (j, op) in ops.iter().enumerate() {
        let op_j = &op.operation;
        let mut deps: Vec<usize> = Vec::new();
        for k in op_j.references() {
            if let Some(found) = by_creates.get(k.as_str()) {
                deps.extend(found);
            }
        }
        if let Some(same) = by_change.get(&op_j.change) {
            deps.extend(same);
        }
        for object in &op.after_writes_of {
            if let Some(found) = by_path_id.get(object.key()) {
                deps.extend(found);
            }
        }
        let posts = op_j.route.method() == reqwest::Method::POST;
        if posts
            && let Some((phase, i)) = last_create
            && phase == op.phase
        {
            deps.push(i);
        }
        deps.sort_unstable();
        deps.dedup();
        out.push(deps);
        if let Some(k) = &op_j.creates {
            by_creates.entry(k).or_default().push(j);
        }
        by_change.entry(op_j.change).or_default().push(j);
        for id in op_j.route.ids() {
            by_path_id.entry(id.key()).or_default().push(j);
        }
        if posts {
            last_create = Some((op.phase, j));
        }
    }
    out
}
