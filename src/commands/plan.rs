//! `guildctl plan`: what apply would change, for a terminal, a pull request or tools.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use guildctl::inert;
use guildctl::plan::{self, Plan};
use guildctl::report::{self, Format, Heading};

use super::{EXIT_CHANGES, Session, Target, read_guild, refused, rehearsal_failed, rehearse_plan};

#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub target: Target,
    /// Also write the plan as JSON, for `apply --plan`; with --all or --guilds, a folder
    /// that gets NAME.json per guild.
    #[arg(long)]
    out: Option<PathBuf>,
    /// text for a terminal, markdown for a pull request, json for tools.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Exit 2 when there are changes, 0 when there are none.
    #[arg(long)]
    detailed_exitcode: bool,
    /// Apply the plan first to an in-process copy of the guild (no request to Discord)
    /// and show the verdict; exit 1 when the copy refuses a call or does not converge.
    #[arg(long)]
    rehearse: bool,
}

pub async fn run(args: PlanArgs) -> Result<u8> {
    let PlanArgs {
        target,
        out,
        format,
        detailed_exitcode,
        rehearse,
    } = args;
    if target.selection.active() {
        return super::workspace::plan(
            &target,
            out.as_deref(),
            format,
            detailed_exitcode,
            rehearse,
        )
        .await;
    }
    let (_session, plan) = plan_for(&target, format, rehearse).await?;
    if let Some(path) = out {
        std::fs::write(&path, report::plan_json(&plan))
            .with_context(|| format!("cannot write the plan to {}", path.display()))?;
        eprintln!(
            "Plan saved to {} (changes sha256:{})",
            path.display(),
            plan.changes_sha256
        );
    }
    guildctl::out!(
        "{}",
        report::render(&plan, format, Heading::Plan, target.conn.color_out())
    );
    if let Some(e) = rehearsal_failed(&plan) {
        return Err(e);
    }
    Ok(if detailed_exitcode && !plan.is_empty() {
        EXIT_CHANGES
    } else {
        0
    })
}

async fn plan_for(target: &Target, format: Format, rehearse: bool) -> Result<(Session, Plan)> {
    let (loaded, session, snap) = read_guild(target).await?;
    let mut plan = plan::diff_loaded(
        &loaded,
        &snap,
        &target
            .plan_options()
            .with_api_base(session.client.api_base()),
    )
    .map_err(|e| {
        // Machine output says why too: a pull request comment is made from it.
        match format {
            Format::Markdown => guildctl::out!("{}", report::refusal_markdown(&e)),
            Format::Json => guildctl::outln!(
                "{}",
                inert::json_pretty(&serde_json::json!({ "refused": true, "problems": e.problems }))
            ),
            Format::Text => {}
        }
        refused(target, &loaded, &e)
    })?;
    if rehearse {
        rehearse_plan(target, &loaded, &snap, &mut plan).await?;
    }
    Ok((session, plan))
}
