//! `guildctl drift`: where the live guild differs from the manifest, who changed it,
//! and what unmanaged object is dangerous. Reads only.

use anyhow::Result;
use clap::Args;

use std::sync::Arc;

use serde_json::Value;

use guildctl::drift;
use guildctl::ops::{self, DriftRun, Guild, Targets};
use guildctl::report::{self, Format};

use super::guilds::{self, Outcome};
use super::{Bots, Target, connect_loaded, load_checked, only};

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
    let run = DriftRun {
        audit_pages,
        appliers: applier,
        prune_days,
        now_ms: guildctl::discord::time::now_ms(),
    };
    if target.selection.active() {
        return drift_all(&target, format, &run, fail_on_unmanaged).await;
    }
    let loaded = Arc::new(load_checked(&target)?);
    let session = connect_loaded(&target, &loaded).await?;
    let targets = target.one(&session, &loaded);
    let found = only(ops::drift(&session.client, targets, &target, &run).await)?;
    guildctl::out!("{}", drift::render(&found.report, format));
    Ok(found.report.exit_code(fail_on_unmanaged))
}

/// `drift --all` / `--guilds`: every guild's drift, rendered as one guild's under a summary.
async fn drift_all(
    target: &Target,
    format: Format,
    run: &DriftRun,
    fail_on_unmanaged: bool,
) -> Result<u8> {
    let chosen = target.selection.resolve()?;
    let bots = Bots::open(&target.conn, &chosen).await?;
    let found = bots
        .run(async |s, mine| ops::drift(&s.client, Targets::workspace(mine), target, run).await)
        .await;
    let outcomes: Vec<Outcome> = found
        .into_iter()
        .map(|Guild { target: g, result }| match result {
            Err(e) => Outcome::failed(&g, &e),
            Ok(ops::Drifted {
                report: r,
                differences,
            }) => {
                let rendered = drift::render(&r, format);
                let code = r.exit_code(fail_on_unmanaged);
                Outcome {
                    name: guilds::name(&g),
                    id: g.id.clone(),
                    code,
                    changed: code != 0,
                    summary: if code == 0 {
                        "no drift".into()
                    } else {
                        format!("drift: {}", report::summary_line(&differences))
                    },
                    json: match format {
                        Format::Json => serde_json::from_str(&rendered).unwrap_or(Value::Null),
                        _ => Value::Null,
                    },
                    text: rendered,
                    planned: false,
                    failure_markdown: None,
                }
            }
        })
        .collect();
    if let Some(dir) = &target.selection.reports {
        guilds::write_reports(dir, &outcomes, format, "drift")?;
    }
    Ok(guilds::finish(&outcomes, format == Format::Json))
}
