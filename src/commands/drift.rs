//! `guildctl drift`: where the live guild differs from the manifest, who changed it,
//! and what unmanaged object is dangerous. Reads only.

use anyhow::Result;
use clap::Args;

use guildctl::drift::{self, DriftOptions, DriftReport};
use guildctl::manifest::LoadedManifest;
use guildctl::plan;
use guildctl::report::Format;

use super::git::current_commit;
use super::{Session, Target, connect_loaded, fetch, load_checked};

#[derive(Args)]
pub struct DriftArgs {
    #[command(flatten)]
    pub target: Target,
    /// text for a terminal, markdown for an issue, json for tools.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Audit-log pages (100 entries each) read at most to attribute changes.
    #[arg(long, value_name = "N", default_value_t = guildctl::drift::DEFAULT_MAX_PAGES)]
    audit_pages: usize,
    /// Also exit 2 for low-risk objects that are not in the manifest.
    #[arg(long)]
    fail_on_unmanaged: bool,
    /// The user id of the bot that applies, when drift runs as another (repeatable):
    /// only its entries count as guildctl's. Default: the bot drift runs as.
    #[arg(long, value_name = "USER_ID", value_parser = drift::parse_user_id)]
    applier: Vec<String>,
    /// Also show how many members a prune of N days' inactivity would remove (1-30; one
    /// more read, nothing is pruned).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=30))]
    prune_days: Option<u8>,
}

pub async fn run(args: DriftArgs) -> Result<u8> {
    let DriftArgs {
        target,
        format,
        audit_pages,
        fail_on_unmanaged,
        applier,
        prune_days,
    } = args;
    if target.selection.active() {
        return super::workspace::drift(&target, format, audit_pages, fail_on_unmanaged, &applier)
            .await;
    }
    let loaded = load_checked(&target)?;
    let (session, mut report) = drift_loaded(&target, &loaded, audit_pages, applier).await?;
    if let Some(days) = prune_days {
        report.prune_count =
            Some(drift::prune_count(&session.client, &session.guild_id, days).await?);
    }
    guildctl::out!("{}", drift::render(&report, format));
    Ok(report.exit_code(fail_on_unmanaged))
}

/// Drift of a loaded manifest: the live guild read as it needs, its differences without
/// apply's gates, each attributed from at most `audit_pages` pages of the audit log.
pub(crate) async fn drift_loaded(
    target: &Target,
    loaded: &LoadedManifest,
    audit_pages: usize,
    appliers: Vec<String>,
) -> Result<(Session, DriftReport)> {
    let session = connect_loaded(target, loaded).await?;
    let snap = fetch(&session, &loaded.manifest).await?;
    // Drift needs only eyes: the differences without apply's gates.
    let (plan, problems) = plan::differences(loaded, &snap, &target.plan_options());
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut options = DriftOptions::new(now_ms, current_commit(target.file()));
    options.max_pages = audit_pages;
    options.appliers = appliers;
    let report = drift::investigate(
        &session.client,
        &snap,
        &plan,
        &problems,
        loaded.stored(),
        &options,
    )
    .await;
    Ok((session, report))
}
