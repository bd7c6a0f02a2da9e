//! `drift`: each guild read as its manifest needs, its differences from the manifest
//! without apply's gates, each attributed from the audit log.

use super::targets::{fan_out, loaded};
use super::{Guild, Host, Targets};
use crate::discord::Client;
use crate::drift::{self, DriftOptions, DriftReport};
use crate::plan::Plan;
use crate::snapshot::{self, Reading};

/// How `drift` runs.
#[derive(Debug, Clone, Default)]
pub struct DriftRun {
    /// Audit-log pages read at most to attribute changes.
    pub audit_pages: usize,
    /// The user ids whose entries are guildctl's (`--applier`); by default the bot's.
    pub appliers: Vec<String>,
    /// Also count the members a prune of this many days' inactivity would remove.
    pub prune_days: Option<u8>,
    /// The time the report is made at, in milliseconds since the epoch.
    pub now_ms: u64,
}

/// A guild's drift: the report, and the differences it was made from.
#[derive(Debug)]
pub struct Drifted {
    /// What drifted, who changed it and when (from the audit log), what nobody declared.
    pub report: DriftReport,
    /// The guild's differences from its manifest, without apply's gates.
    pub differences: Plan,
}

/// The drift of every guild of `targets`.
pub async fn drift(
    client: &Client,
    targets: Targets,
    host: &impl Host,
    run: &DriftRun,
) -> Vec<Guild<Drifted>> {
    fan_out(targets, |g, pre| async move {
        let loaded = loaded(host, &g, pre).await?;
        let snap = snapshot::read(client, &g.id, Reading::of(&loaded.manifest)).await?;
        // Drift needs only eyes: the differences without apply's gates.
        let (plan, problems) = crate::planner::differences(&loaded, &snap, &host.plan_options());
        let mut options = DriftOptions::new(run.now_ms, host.commit(&g.manifest));
        options.max_pages = run.audit_pages;
        options.appliers = run.appliers.clone();
        let mut report =
            drift::investigate(client, &snap, &plan, &problems, loaded.stored(), &options).await;
        if let Some(days) = run.prune_days {
            report.prune_count = Some(drift::prune_count(client, &g.id, days).await?);
        }
        Ok(Drifted {
            report,
            differences: plan,
        })
    })
    .await
}
