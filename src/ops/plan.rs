//! `plan`: each guild read as its manifest needs, diffed, and rehearsed when asked.

use std::path::Path;
use std::sync::Arc;

use super::targets::{fan_out, loaded, local_runtime, off_thread};
use super::{Failure, Guild, GuildTarget, Host, Targets, plan_options, refusal_report};
use crate::discord::Client;
use crate::manifest::{self, Diagnostic, LoadedManifest, Severity};
use crate::plan::{Plan, PlanError};
use crate::rehearse::{self, RehearseError, RehearseOptions};
use crate::snapshot::{self, Reading, Snapshot};

/// How `plan` runs.
#[derive(Debug, Clone, Default)]
pub struct PlanRun {
    /// Apply each plan first to an in-process copy of its guild (`--rehearse`).
    pub rehearse: bool,
    /// Write each guild's access page (made from the same planning) into this folder, as
    /// `NAME.html` (`plan --all --reports DIR --pages`).
    pub pages: Option<Arc<Path>>,
}

/// A guild's plan, or the problems for which it was refused (shown on the manifest's
/// lines already, [`Host::show`]).
#[derive(Debug)]
pub enum Planned {
    /// The plan: empty when the guild is as the manifest says.
    Plan(Box<Plan>),
    /// Discord would refuse one of its calls, or the manifest has a problem against this
    /// guild: each problem with its manifest place.
    Refused(PlanError),
}

/// The rehearsal could not run (not a verdict: the copy was never made or read back).
#[derive(Debug, thiserror::Error)]
#[error("rehearsing the plan on a copy of the guild (--no-rehearse skips it): {0}")]
pub struct CannotRehearse(pub RehearseError);

/// Plans every guild of `targets`.
pub async fn plan(
    client: &Client,
    targets: Targets,
    host: &impl Host,
    run: PlanRun,
) -> Vec<Guild<Planned>> {
    fan_out(targets, |g, pre| {
        let run = run.clone();
        async move {
            let loaded = loaded(host, &g, pre).await?;
            let snap = snapshot::read(client, &g.id, Reading::of(&loaded.manifest)).await?;
            let (host, api_base) = (host.clone(), client.api_base().to_owned());
            off_thread(move || {
                let (planned, access) = plan_read(&host, &g, &loaded, &snap, &api_base, &run)?;
                if let (Some(dir), Planned::Plan(plan)) = (&run.pages, &planned) {
                    let name = g.name.as_deref().unwrap_or(&g.id);
                    let path = dir.join(format!("{name}.html"));
                    std::fs::write(&path, plan_page(plan, &access)).map_err(|e| {
                        format!("cannot write the access page to {}: {e}", path.display())
                    })?;
                }
                Ok(planned)
            })
            .await?
        }
    })
    .await
}

/// A guild's plan, with the guild as access sees it today and once the plan is applied,
/// both from the planning that made it (`plan --format html`).
#[derive(Debug)]
pub struct PlannedWithAccess {
    /// The plan, or why it was refused.
    pub planned: Planned,
    /// The live guild and the guild the plan leaves.
    pub access: crate::planner::AccessBoth,
}

/// The access page of `plan` (`plan --format html`): the grid of the guild it leaves with
/// today's cells beside it, its access lines, and a new member's path there.
pub fn plan_page(plan: &Plan, both: &crate::planner::AccessBoth) -> String {
    use crate::report::html;
    let grid = crate::access::grid::compare(&both.live, &both.after);
    let new_member = html::new_member_json(&both.after, &both.joining);
    html::render(&html::Page {
        guild_id: &plan.guild_id,
        guild_name: &plan.guild_name,
        shown: html::Shown::Plan,
        grid: &grid,
        access: &plan.access,
        new_member: new_member.as_ref(),
    })
}

/// [`plan`] for one guild, keeping the two guilds access computes on: one read of the
/// guild, as `plan` reads it.
pub async fn plan_with_access(
    client: &Client,
    g: GuildTarget,
    pre: Option<Arc<LoadedManifest>>,
    host: &impl Host,
    run: PlanRun,
) -> Result<PlannedWithAccess, Failure> {
    let loaded = loaded(host, &g, pre).await?;
    let snap = snapshot::read(client, &g.id, Reading::of(&loaded.manifest)).await?;
    let (host, api_base) = (host.clone(), client.api_base().to_owned());
    let (planned, access) =
        off_thread(move || plan_read(&host, &g, &loaded, &snap, &api_base, &run)).await??;
    Ok(PlannedWithAccess { planned, access })
}

/// The plan of a guild read already (on a blocking thread: its rehearsal's copy is
/// served on a runtime of its own).
fn plan_read(
    host: &impl Host,
    g: &GuildTarget,
    loaded: &Arc<LoadedManifest>,
    snap: &Snapshot,
    api_base: &str,
    run: &PlanRun,
) -> Result<(Planned, crate::planner::AccessBoth), Failure> {
    let options = plan_options(host, g, loaded, api_base);
    let (planned, access) = crate::planner::diff_loaded_with_access(loaded, snap, &options);
    let mut plan = match planned {
        Ok(plan) => plan,
        Err(e) => {
            host.show(&refusal_report(loaded, &e))?;
            return Ok((Planned::Refused(e), access));
        }
    };
    if run.rehearse {
        let options = rehearsal_options(host)?;
        let verdict = local_runtime()?
            .block_on(rehearse::rehearse(loaded, snap, &plan, &options))
            .map_err(CannotRehearse)?;
        plan.rehearsal = Some(verdict);
        annotate_refusal(host, loaded, &plan)?;
    }
    Ok((Planned::Plan(Box::new(plan)), access))
}

/// The rehearsal's options: the command line's plan options, and the copy's rules from
/// `GUILDCTL_REHEARSAL_RULES`.
pub(super) fn rehearsal_options(host: &impl Host) -> Result<RehearseOptions, Failure> {
    Ok(RehearseOptions {
        plan: host.plan_options(),
        rules: RehearseOptions::rules_from_env()?,
    })
}

/// The call the rehearsal's copy refused, if it refused one, on its manifest line
/// ([`Host::annotate`], for a pull request). A person reads it once, in the plan's verdict
/// shown beside it, so it is not shown again.
pub fn annotate_refusal(
    host: &impl Host,
    loaded: &LoadedManifest,
    plan: &Plan,
) -> Result<(), Failure> {
    let Some(r) = plan.rehearsal.as_ref().and_then(|v| v.refusal.as_ref()) else {
        return Ok(());
    };
    let diag = Diagnostic {
        severity: Severity::Error,
        path: r.source.clone().unwrap_or_default(),
        message: format!(
            "the rehearsal's copy refused {}: {}",
            r.call,
            r.answer(&|s| s.to_owned())
        ),
        help: Some(
            "Discord would refuse this call: change the manifest (or the guild) so it is accepted; nothing was sent to Discord".to_owned(),
        ),
    };
    host.annotate(&manifest::report_on(loaded, &[diag]))
}
