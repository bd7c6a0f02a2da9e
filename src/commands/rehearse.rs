//! What `plan --rehearse` and `apply` share: the rehearsal's options, the plan applied
//! first to an in-process copy of the guild (guildctl::rehearse; apply's is one step of
//! `guildctl::ops::plan_for_apply`), and a refusal shown on the manifest line that caused it.

use anyhow::{Context, Result, anyhow};

use guildctl::manifest::{self, Diagnostic, LoadedManifest, Severity};
use guildctl::plan::Plan;
use guildctl::rehearse::{self, RehearseOptions};
use guildctl::snapshot::Snapshot;

use super::Target;

/// The rehearsal's options for this command line: the plan's options, and the copy's
/// rules from `GUILDCTL_REHEARSAL_RULES`.
pub(crate) fn options(target: &Target) -> Result<RehearseOptions> {
    Ok(RehearseOptions {
        plan: target.plan_options(),
        rules: RehearseOptions::rules_from_env()?,
    })
}

/// Rehearses `plan` and records the verdict on it (`plan --rehearse`). The plan's report
/// says a refusal, with its manifest place; `--annotations` gets it on its line too.
/// Whether the rehearsal passed is the verdict's `ok`: callers decide what a failure means.
pub(crate) async fn rehearse_plan(
    target: &Target,
    loaded: &LoadedManifest,
    snap: &Snapshot,
    plan: &mut Plan,
) -> Result<()> {
    let verdict = rehearse::rehearse(loaded, snap, plan, &options(target)?)
        .await
        .context("rehearsing the plan on a copy of the guild (--no-rehearse skips it)")?;
    plan.rehearsal = Some(verdict);
    annotate_refusal(target, loaded, plan)
}

/// The call the rehearsal's copy refused, if it refused one, on its manifest line in the
/// `--annotations` file (for a pull request). A person reads it once, in the plan's verdict
/// shown beside it, so it is not printed again.
pub(crate) fn annotate_refusal(
    target: &Target,
    loaded: &LoadedManifest,
    plan: &Plan,
) -> Result<()> {
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
    target.annotate(&manifest::report_on(loaded, &[diag]))
}

/// The error a failed rehearsal ends a command with: what failed, not the verdict again
/// (the plan, or the refusal on its manifest line, says it).
pub(crate) fn failed(plan: &Plan) -> Option<anyhow::Error> {
    let r = plan.rehearsal.as_ref().filter(|r| !r.ok)?;
    Some(anyhow!(
        "{}, as the plan's rehearsal verdict says; nothing was sent to Discord",
        r.failure()
    ))
}
