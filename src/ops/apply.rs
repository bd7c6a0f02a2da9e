//! `apply`, in two steps with the caller's confirmation between them: [`prepare`] plans
//! every guild and judges its gates, nothing written yet; [`run`] applies each guild whose
//! plan passed, whole, whatever happens to the others. A single guild's apply and
//! `apply --all` are the same two steps.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::targets::{fan_out, loaded, local_runtime, off_thread};
use super::{Failure, Guild, GuildTarget, Host, Targets, plan_options, refusal_report};
use crate::apply::{self as calls, ApplyOptions, WebhookUrlFile};
use crate::discord::Client;
/// A guild's lock held while its apply runs: what [`prepare`]'s `lock` returns, if the
/// program locks guilds at all ([`no_lock`] does not).
pub use crate::file_lock::Held;
use crate::manifest::LoadedManifest;
use crate::plan::{BindingError, Plan, PlanError, PlanOptions, UnsafePlan};
use crate::rehearse::{self, RehearseError, RehearseOptions};
use crate::snapshot::{self, Reading, Snapshot};

/// What `apply` is asked for one guild, beside its manifest and its live guild.
#[doc(hidden)] // plan_for_apply's request: the tests'; prepare is the API.
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
    /// The rehearsal on a copy of the guild could not run (not a verdict).
    #[error("rehearsing the plan on a copy of the guild (--no-rehearse skips it): {0}")]
    Rehearse(RehearseError),
    /// The deletion gate refuses the plan, shown with it.
    #[error("{error}. Nothing was changed")]
    Unsafe {
        /// The plan refused.
        plan: Box<Plan>,
        /// What the gate refused in it.
        error: UnsafePlan,
    },
    /// The copy refused a call or did not converge: the plan, with the verdict on it.
    #[error("refusing to apply: {}; nothing was sent to Discord", rehearsal_headline(.plan))]
    RehearsalFailed {
        /// The plan, its verdict in [`Plan::rehearsal`].
        plan: Box<Plan>,
    },
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
#[doc(hidden)] // a step of prepare on a snapshot read already: the tests'; prepare is the API.
pub async fn plan_for_apply(
    loaded: &LoadedManifest,
    snap: &Snapshot,
    request: ApplyRequest<'_>,
) -> Result<Plan, ApplyRefused> {
    let mut plan =
        crate::planner::diff_loaded(loaded, snap, &request.options).map_err(ApplyRefused::Plan)?;
    if let Some(reviewed) = request.reviewed {
        plan.matches_reviewed(reviewed)
            .map_err(ApplyRefused::NotReviewed)?;
        crate::judge::hold_reviewed_policy_changes(&mut plan, reviewed);
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

/// What `plan --all --out DIR` leaves beside the plans for the merge that applies them:
/// `guilds.txt`, the guilds with a plan (`NAME.json`), one a line; and
/// `not-planned.tsv`, `NAME<TAB>WHY` for each guild chosen that has none (its manifest
/// does not load, its plan was refused, its guild could not be read), so the apply
/// says why it leaves that guild alone.
#[doc(hidden)] // the command line's plan folder (`plan --all --out DIR`); not API.
pub const PLANNED_LIST: &str = "guilds.txt";
/// `NAME<TAB>WHY` for each guild of `plan --all --out DIR` that has no plan: see
/// [`PLANNED_LIST`].
#[doc(hidden)] // the command line's plan folder (`plan --all --out DIR`); not API.
pub const NOT_PLANNED_LIST: &str = "not-planned.tsv";

/// How `apply` plans each guild.
#[derive(Debug, Clone, Default)]
pub struct ApplyRun {
    /// The reviewed plans: the file for a manifest given alone (`--plan FILE`), the folder
    /// `plan --all --out DIR` wrote for a workspace's guilds (`DIR/NAME.json`).
    pub reviewed: Option<PathBuf>,
    /// `--allow-deletes`, in place of the manifest's.
    pub allow_deletes: Option<usize>,
    /// `--allow-policy-changes`, in place of the manifest's.
    pub allow_policy_changes: Option<usize>,
    /// Rehearse each plan before its first write (not `--no-rehearse`).
    pub rehearse: bool,
}

/// A guild whose plan passed every gate, ready to apply (an empty plan included).
#[derive(Debug)]
pub struct ToApply {
    /// The guild's manifest, loaded and checked.
    pub loaded: Arc<LoadedManifest>,
    /// The plan [`run`] will apply, judged by every gate (and rehearsed, when asked).
    pub plan: Plan,
    /// The plan was matched with a reviewed one.
    pub reviewed: bool,
    /// The guild's lock (live guilds), held from before it was read until its calls are
    /// over.
    lock: Option<Held>,
}

/// Plans every guild of `targets` as apply will run it ([`plan_for_apply`]), each locked by
/// `lock` before it is read; nothing is written. A refusal is the guild's failure
/// ([`ApplyRefused`], shown on the manifest's lines already).
///
/// `lock` is called with each guild's id before it is read, and what it returns is held
/// until that guild's calls are over ([`run`]); the command line locks the guild against
/// other guildctl processes on the machine, and a program that applies a guild from one
/// place passes [`no_lock`].
pub async fn prepare<H, L, Fut>(
    client: &Client,
    targets: Targets,
    host: &H,
    run: &ApplyRun,
    lock: L,
) -> Vec<Guild<ToApply>>
where
    H: Host,
    L: Fn(String) -> Fut,
    Fut: Future<Output = Result<Option<Held>, Failure>>,
{
    let lock = &lock;
    fan_out(targets, |g, pre| async move {
        let reviewed_path = match (&run.reviewed, &g.name) {
            (Some(dir), Some(name)) => {
                let path = dir.join(format!("{name}.json"));
                // A guild whose plan failed at review: not applied, whatever its manifest
                // says now.
                if !path.exists()
                    && let Some(why) = not_planned_why(dir, name)
                {
                    return Err(format!(
                        "not applied: it had no plan at review ({why}); nothing was sent to its guild. Fix it in a new change: its plan is applied when that one merges"
                    )
                    .into());
                }
                Some(path)
            }
            (Some(file), None) => Some(file.clone()),
            (None, _) => None,
        };
        let loaded = loaded(host, &g, pre).await?;
        let reviewed = match &reviewed_path {
            Some(path) => Some(read_reviewed_plan(path, &loaded, &g.id)?),
            None => None,
        };
        // Locked before it is read: another apply of this guild on this machine waits until
        // this one's calls are over, and then plans from what they made.
        let held = lock(g.id.clone()).await?;
        let snap = snapshot::read(client, &g.id, Reading::of(&loaded.manifest)).await?;
        let options = PlanOptions {
            allow_deletes: run.allow_deletes,
            allow_policy_changes: run.allow_policy_changes,
            ..plan_options(host, &g, &loaded, client.api_base())
        };
        let rehearse = run
            .rehearse
            .then(|| super::plan::rehearsal_options(host))
            .transpose()?;
        let host = host.clone();
        off_thread(move || {
            let request = ApplyRequest {
                reviewed: reviewed.as_ref(),
                options,
                rehearse,
            };
            // Its copy of the guild is served on this blocking thread's own runtime.
            match local_runtime()?.block_on(plan_for_apply(&loaded, &snap, request)) {
                Ok(plan) => Ok(ToApply {
                    loaded,
                    plan,
                    reviewed: reviewed.is_some(),
                    lock: held,
                }),
                Err(e) => {
                    match &e {
                        ApplyRefused::Plan(refused) => {
                            host.show(&refusal_report(&loaded, refused))?
                        }
                        _ => {
                            if let Some(plan) = e.plan() {
                                super::plan::annotate_refusal(&host, &loaded, plan)?;
                            }
                        }
                    }
                    Err(Box::new(e) as Failure)
                }
            }
        })
        .await?
    })
    .await
}

/// The `lock` of [`prepare`] for a program that does not lock its guilds: none is held.
pub async fn no_lock(_guild_id: String) -> Result<Option<Held>, Failure> {
    Ok(None)
}

/// Why a guild has no plan in a reviewed folder (its line of `not-planned.tsv`), when
/// the folder says.
fn not_planned_why(dir: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(NOT_PLANNED_LIST)).ok()?;
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .find(|(n, _)| *n == name)
        .map(|(_, why)| why.to_owned())
}

/// A reviewed plan that cannot be used: unreadable, not a plan, or not made from this
/// manifest, for this guild, by this guildctl.
#[derive(Debug, thiserror::Error)]
pub enum ReviewedPlanError {
    /// The file could not be read.
    #[error("cannot read the plan {}", .path.display())]
    Read {
        /// The reviewed plan's file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The file is not a plan guildctl wrote.
    #[error("{} is not a guildctl plan", .path.display())]
    NotAPlan {
        /// The reviewed plan's file.
        path: PathBuf,
        /// Where its JSON is not a plan's.
        source: serde_json::Error,
    },
    /// The plan was made from another manifest, for another guild or by another guildctl,
    /// or its digest is not its own.
    #[error(
        "refusing to apply {} with {}: {error}. Apply it with the manifest and guild it was made for, or make and review a new plan; nothing was sent to Discord",
        .path.display(), .manifest.display()
    )]
    Unbound {
        /// The reviewed plan's file.
        path: PathBuf,
        /// The manifest it was held to.
        manifest: PathBuf,
        /// What does not match.
        error: BindingError,
    },
}

/// Reads a saved plan and checks, before any request, that it was made from this
/// manifest, for this guild, by this guildctl, and that its digest is its own. What it
/// says is trusted no further: only its digest is used, to match the plan apply derives.
fn read_reviewed_plan(
    path: &Path,
    loaded: &LoadedManifest,
    guild_id: &str,
) -> Result<Plan, ReviewedPlanError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReviewedPlanError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let plan: Plan = serde_json::from_str(&text).map_err(|source| ReviewedPlanError::NotAPlan {
        path: path.to_path_buf(),
        source,
    })?;
    let digest = crate::plan::binding::manifest_digest(loaded);
    plan.verify_binding(&digest, guild_id)
        .map_err(|error| ReviewedPlanError::Unbound {
            path: path.to_path_buf(),
            manifest: loaded.path.clone(),
            error,
        })?;
    Ok(plan)
}

/// How `apply` makes each guild's calls.
#[derive(Clone, Default)]
pub struct CallRun {
    /// The audit-log reason; by default the host's ([`Host::reason`]).
    pub reason: Option<String>,
    /// After a failed call, go on with the calls that do not depend on it.
    pub keep_going: bool,
    /// Where the URLs of webhooks created are written (`--webhook-urls`: one guild's).
    pub webhook_urls: Option<WebhookUrlFile>,
    /// Plan each guild again once its calls succeeded, to show that one apply converges
    /// (the sandbox).
    pub replan: bool,
}

/// A guild's apply: its plan, and what its calls came to.
#[derive(Debug)]
pub struct Applied {
    /// The guild's manifest.
    pub loaded: Arc<LoadedManifest>,
    /// The plan applied.
    pub plan: Plan,
    /// The plan was matched with a reviewed one ([`ApplyRun::reviewed`]).
    pub reviewed: bool,
    /// What its calls came to.
    pub calls: Calls,
}

/// What a guild's calls came to.
#[derive(Debug)]
pub enum Calls {
    /// The plan was empty: nothing to do.
    Nothing,
    /// An interrupt came before its first call: nothing was sent.
    NotStarted,
    /// Its calls were made (some may have failed); with the fresh plan when asked for.
    Made {
        /// Each call's status, and what failed and why.
        outcome: Box<calls::Outcome>,
        /// The guild planned again, when [`CallRun::replan`] asked and every call
        /// succeeded.
        replan: Option<Replan>,
    },
}

/// A fresh plan once the calls succeeded.
#[derive(Debug)]
pub enum Replan {
    /// The fresh plan (empty when one apply converged), or the problems for which it was
    /// refused.
    Planned(Result<Box<Plan>, PlanError>),
    /// Interrupted before the guild was read again: nothing is left undone.
    Interrupted,
    /// The guild could not be read again.
    Failed(Failure),
}

/// Applies each guild that is ready, whole, at most [`super::CONCURRENCY`] at a time,
/// whatever happens to the others; `progress` hears each guild's calls. An interrupt
/// stops every guild's calls ([`Client::stop`]), and the guilds not started yet stay so.
/// A guild that failed to prepare stays failed.
pub async fn run<H: Host>(
    client: &Client,
    ready: Vec<Guild<ToApply>>,
    host: &H,
    run: &CallRun,
    progress: &(dyn Fn(&GuildTarget, calls::Progress<'_>) + Sync),
) -> Vec<Guild<Applied>> {
    use futures_util::StreamExt;
    let mut out: Vec<(usize, Guild<Applied>)> =
        futures_util::stream::iter(ready.into_iter().enumerate())
            .map(|(i, g)| async move {
                let Guild { target, result } = g;
                let result = match result {
                    Ok(ready) => Ok(apply_one(client, &target, ready, host, run, progress).await),
                    Err(e) => Err(e),
                };
                (i, Guild { target, result })
            })
            .buffer_unordered(super::CONCURRENCY)
            .collect()
            .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, g)| g).collect()
}

async fn apply_one(
    client: &Client,
    target: &GuildTarget,
    mut ready: ToApply,
    host: &impl Host,
    run: &CallRun,
    progress: &(dyn Fn(&GuildTarget, calls::Progress<'_>) + Sync),
) -> Applied {
    let calls = if ready.plan.is_empty() {
        Calls::Nothing
    } else if client.is_stopped() {
        Calls::NotStarted
    } else {
        let reason = run
            .reason
            .clone()
            .unwrap_or_else(|| host.reason(&ready.loaded.path));
        let options = ApplyOptions {
            keep_going: run.keep_going,
            webhook_urls: run.webhook_urls.clone(),
            ..ApplyOptions::new(reason, ready.loaded.dir())
        };
        let outcome = calls::apply(client, &ready.plan, &options, |p| progress(target, p)).await;
        // Its calls are over: another apply of this guild may start.
        drop(ready.lock.take());
        let replan = (run.replan && outcome.succeeded() && !outcome.interrupted)
            .then_some(())
            .map(|()| replan(client, target, &ready.loaded, host));
        let replan = match replan {
            Some(fresh) => Some(fresh.await),
            None => None,
        };
        Calls::Made {
            outcome: Box::new(outcome),
            replan,
        }
    };
    drop(ready.lock.take());
    Applied {
        loaded: ready.loaded,
        plan: ready.plan,
        reviewed: ready.reviewed,
        calls,
    }
}

/// The guild read again and planned, to show that one apply converges.
async fn replan(
    client: &Client,
    target: &GuildTarget,
    loaded: &LoadedManifest,
    host: &impl Host,
) -> Replan {
    match snapshot::read(client, &target.id, Reading::of(&loaded.manifest)).await {
        Ok(after) => Replan::Planned(
            crate::planner::diff_loaded(loaded, &after, &host.plan_options()).map(Box::new),
        ),
        // Interrupted once every call was over: nothing is left undone.
        Err(_) if client.is_stopped() => Replan::Interrupted,
        Err(e) => Replan::Failed(Box::new(e)),
    }
}
