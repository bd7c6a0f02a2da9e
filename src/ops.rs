//! The sequences of steps a command runs, written once for every command that runs them
//! (cargo's `ops`): a command parses its arguments, calls one operation here, and renders
//! what comes back.

use crate::manifest::LoadedManifest;
use crate::plan::{self, BindingError, Plan, PlanError, PlanOptions, UnsafePlan};
use crate::rehearse::{self, RehearseError, RehearseOptions};
use crate::snapshot::Snapshot;

/// What `apply` is asked for one guild, beside its manifest and its live guild.
#[derive(Debug, Clone, Default)]
pub struct ApplyRequest<'a> {
    /// The plan reviewed for this change (`--plan`), already bound to the manifest, the
    /// guild and this guildctl ([`Plan::verify_binding`]): the plan derived must be this one.
    pub reviewed: Option<&'a Plan>,
    /// The plan's options; their `allow_deletes` (`--allow-deletes`) is the deletion gate's
    /// allowance, in place of the manifest's.
    pub options: PlanOptions,
    /// The rehearsal on a copy of the guild; `None` skips it (`--no-rehearse`).
    pub rehearse: Option<RehearseOptions>,
}

/// Why apply will not run a guild's plan. Nothing was sent to Discord.
#[derive(Debug, thiserror::Error)]
pub enum ApplyRefused {
    /// Discord would refuse one of the plan's calls, or the manifest has a problem against
    /// this guild: each problem has its manifest place.
    #[error(transparent)]
    Plan(PlanError),
    /// The plan derived is not the reviewed one, or the guild moved since the review.
    #[error(
        "refusing to apply: {0}. Make and review a new plan (`guildctl plan`); nothing was sent to Discord"
    )]
    NotReviewed(BindingError),
    #[error("rehearsing the plan on a copy of the guild (--no-rehearse skips it): {0}")]
    Rehearse(RehearseError),
    /// The deletion gate refuses the plan, shown with it.
    #[error("{error}. Nothing was changed")]
    Unsafe { plan: Box<Plan>, error: UnsafePlan },
    /// The copy refused a call or did not converge: the plan, with the verdict on it.
    #[error("refusing to apply: {}; nothing was sent to Discord", rehearsal_headline(.plan))]
    RehearsalFailed { plan: Box<Plan> },
}

impl ApplyRefused {
    /// The plan the refusal is about, when it was made whole (to show it with the refusal).
    pub fn plan(&self) -> Option<&Plan> {
        match self {
            ApplyRefused::Unsafe { plan, .. } | ApplyRefused::RehearsalFailed { plan } => {
                Some(plan)
            }
            ApplyRefused::Plan(_) | ApplyRefused::NotReviewed(_) | ApplyRefused::Rehearse(_) => {
                None
            }
        }
    }
}

fn rehearsal_headline(plan: &Plan) -> String {
    let same = |s: &str| s.to_owned();
    plan.rehearsal
        .as_ref()
        .map(|r| r.headline(&same, &same))
        .unwrap_or_default()
}

/// The plan `apply` will run for one guild: derived from the manifest and the live guild
/// (never read from a file), matched with the reviewed plan, judged by the deletion gate
/// with the request's allowance (once, as the plan is made) and by the manifest's policies
/// and Discord's rules, rehearsed on a copy of the guild, and refused when unsafe or when
/// the copy refused it. Single-guild and workspace apply both run this.
pub async fn plan_for_apply(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    request: ApplyRequest<'_>,
) -> Result<Plan, ApplyRefused> {
    let mut plan = plan::diff_loaded(loaded, snap, &request.options).map_err(ApplyRefused::Plan)?;
    if let Some(reviewed) = request.reviewed {
        plan.matches_reviewed(reviewed)
            .map_err(ApplyRefused::NotReviewed)?;
        plan.hold_reviewed_policy_changes(reviewed);
    }
    if let Some(options) = &request.rehearse
        && !plan.is_empty()
    {
        let verdict = rehearse::rehearse(loaded, snap, &plan, options)
            .await
            .map_err(ApplyRefused::Rehearse)?;
        plan.rehearsal = Some(verdict);
    }
    if let Err(error) = plan.raise_if_unsafe() {
        return Err(ApplyRefused::Unsafe {
            plan: Box::new(plan),
            error,
        });
    }
    if plan.rehearsal.as_ref().is_some_and(|r| !r.ok) {
        return Err(ApplyRefused::RehearsalFailed {
            plan: Box::new(plan),
        });
    }
    Ok(plan)
}
