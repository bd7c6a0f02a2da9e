//! `guildctl plan`: what apply would change, for a terminal, a pull request or tools.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use guildctl::inert;
use guildctl::manifest::{LoadedManifest, Within, Workspace, people};
use guildctl::ops::{self, Guild, PlanRun, Planned, Targets};
use guildctl::plan::{Plan, PlanError};
use guildctl::planner::AccessBoth;
use guildctl::report::{self, Format, Heading, sarif};

use super::guilds::{self, Outcome};
use super::{
    Bots, EXIT_CHANGES, Invalid, Session, Target, connect_loaded, load_checked, only, refused,
    rehearsal_failed,
};

#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub target: Target,
    /// Also write the plan as JSON, for `apply --plan`; with --all or --guilds, a folder
    /// that gets NAME.json per guild.
    #[arg(long)]
    out: Option<PathBuf>,
    /// text for a terminal, markdown for a pull request, json for tools, sarif for
    /// code-scanning views (refusals and risks on the manifest's lines), html for one
    /// self-contained page of who can do what where, with what the plan changes marked.
    #[arg(long, value_enum, default_value = "text")]
    format: PlanFormat,
    /// Also write the refusals and risks as SARIF 2.1.0 to FILE (for
    /// github/codeql-action/upload-sarif), whatever --format says; one manifest only.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "guilds"])]
    sarif: Option<PathBuf>,
    /// Also write the access page (as --format html writes it) to FILE, whatever
    /// --format says, from the same plan: for a pull request's artifact. One manifest only.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "guilds"])]
    page: Option<PathBuf>,
    /// With --all or --guilds and --reports DIR: also write each guild's access page to
    /// DIR/NAME.html, from the same plan.
    #[arg(long, requires = "reports")]
    pages: bool,
    /// Exit 2 when there are changes, 0 when there are none.
    #[arg(long)]
    detailed_exitcode: bool,
    /// Apply the plan first to an in-process copy of the guild (no request to Discord)
    /// and show the verdict; exit 1 when the copy refuses a call or does not converge.
    #[arg(long)]
    rehearse: bool,
    /// Compare the policies with those of this Git revision (the merge base with the
    /// target branch, for a pull request): a policy the change removes, renames or
    /// weakens, in the manifest, a base or guildctl.yaml, is then a risk. Without it, the
    /// plan says they were not compared.
    #[arg(long, value_name = "REV", env = "GUILDCTL_POLICIES_BASE")]
    policies_base: Option<String>,
    /// Also write the guild's ids by name to FILE, as it is now (JSON for `.json`, else an
    /// env file: GUILD_ID, ROLE_…, CHANNEL_…, WEBHOOK_…); objects the plan creates have none yet.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "guilds"])]
    ids_out: Option<PathBuf>,
    /// Apply the manifest to the guild --guild names, by names: its pinned ids and
    /// `guild:` are left out for this run (a test guild shaped like production; the
    /// deletion gate holds as always).
    #[arg(long, conflicts_with_all = ["all", "guilds"])]
    like: bool,
}

/// `plan --format`: the report's formats, SARIF, and the access page (`html`, as
/// `access --format html`; not a value of the shared [`Format`], which `drift` and `watch`
/// offer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    Text,
    Markdown,
    Json,
    Sarif,
    Html,
}

impl PlanFormat {
    /// The report format, or `None` for SARIF (written from the findings, not the plan) and
    /// the page (made from the guilds before and after the plan).
    fn report(self) -> Option<Format> {
        match self {
            PlanFormat::Text => Some(Format::Text),
            PlanFormat::Markdown => Some(Format::Markdown),
            PlanFormat::Json => Some(Format::Json),
            PlanFormat::Sarif | PlanFormat::Html => None,
        }
    }
}

pub async fn run(args: PlanArgs) -> Result<u8> {
    let PlanArgs {
        mut target,
        out,
        format,
        sarif: sarif_file,
        page: page_file,
        pages,
        detailed_exitcode,
        rehearse,
        policies_base,
        ids_out,
        like,
    } = args;
    target.like = like;
    target.policies_base = policies_base;
    if target.selection.active() {
        let Some(format) = format.report() else {
            let (what, name) = match format {
                PlanFormat::Html => ("one guild's access page", "html"),
                _ => ("one manifest's findings", "sarif"),
            };
            anyhow::bail!(
                "--format {name} writes {what}, one guild at a time: run `plan -f MANIFEST --format {name}` for each guild"
            );
        };
        let run = PlanRun {
            rehearse,
            pages: pages
                .then(|| target.selection.reports.as_deref().map(Arc::from))
                .flatten(),
        };
        return plan_all(&target, out.as_deref(), format, detailed_exitcode, run).await;
    }
    let sarif_out = SarifOut {
        stdout: format == PlanFormat::Sarif,
        file: sarif_file.as_deref(),
    };
    let page = format == PlanFormat::Html || page_file.is_some();
    let (session, loaded, plan, access) =
        plan_for(&target, format.report(), sarif_out, rehearse, page).await?;
    if let Some(path) = &ids_out {
        super::ids_out::write(&session, path).await?;
    }
    sarif_out.write(&loaded, Some(&plan), None)?;
    if let Some(path) = out {
        std::fs::write(&path, report::plan_json(&plan))
            .with_context(|| format!("cannot write the plan to {}", path.display()))?;
        eprintln!(
            "Plan saved to {} (changes sha256:{})",
            path.display(),
            plan.changes_sha256
        );
    }
    if let Some(format) = format.report() {
        guildctl::out!(
            "{}",
            report::render(&plan, format, Heading::Plan, target.conn.color_out())
        );
    }
    if let Some(both) = &access {
        let html = ops::plan_page(&plan, both);
        if let Some(path) = &page_file {
            std::fs::write(path, &html)
                .with_context(|| format!("cannot write the access page to {}", path.display()))?;
        }
        if format == PlanFormat::Html {
            guildctl::out!("{html}");
        }
    }
    if let Some(e) = rehearsal_failed(&plan) {
        return Err(e);
    }
    Ok(if detailed_exitcode && !plan.is_empty() {
        EXIT_CHANGES
    } else {
        0
    })
}

/// Where the plan's SARIF goes: stdout (`--format sarif`), a file (`--sarif`), both or neither.
#[derive(Clone, Copy)]
struct SarifOut<'a> {
    stdout: bool,
    file: Option<&'a std::path::Path>,
}

impl SarifOut<'_> {
    fn write(
        &self,
        loaded: &LoadedManifest,
        plan: Option<&Plan>,
        refused: Option<&PlanError>,
    ) -> Result<()> {
        if !self.stdout && self.file.is_none() {
            return Ok(());
        }
        self.write_log(&sarif::render(
            loaded,
            &sarif::plan_findings(loaded, plan, refused),
        ))
    }

    /// A manifest that does not validate: the validation's results, as `validate --format
    /// sarif` writes them, so code scanning shows why there is no plan.
    fn write_invalid(&self, report: &guildctl::manifest::Report) -> Result<()> {
        if !self.stdout && self.file.is_none() {
            return Ok(());
        }
        self.write_log(&guildctl::manifest::sarif::render(&[report], &[]))
    }

    fn write_log(&self, log: &str) -> Result<()> {
        if let Some(path) = self.file {
            std::fs::write(path, log)
                .with_context(|| format!("cannot write SARIF to {}", path.display()))?;
        }
        if self.stdout {
            guildctl::out!("{log}");
        }
        Ok(())
    }
}

async fn plan_for(
    target: &Target,
    format: Option<Format>,
    sarif_out: SarifOut<'_>,
    rehearse: bool,
    keep_access: bool,
) -> Result<(Session, Arc<LoadedManifest>, Plan, Option<AccessBoth>)> {
    let loaded = match load_checked(target) {
        Ok(loaded) => Arc::new(loaded),
        Err(e) => {
            if let Some(invalid) = e.downcast_ref::<Invalid>() {
                sarif_out.write_invalid(&invalid.report)?;
            }
            return Err(e);
        }
    };
    let (session, planned, access) = plan_loaded(target, &loaded, rehearse, keep_access).await?;
    let plan = planned.map_err(|e| {
        // Machine output says why too: a pull request comment is made from it.
        match format {
            Some(Format::Markdown) => guildctl::out!("{}", report::refusal_markdown(&e)),
            Some(Format::Json) => guildctl::outln!(
                "{}",
                inert::json_pretty(&json!({ "refused": true, "problems": e.problems }))
            ),
            Some(Format::Text) | None => {}
        }
        if let Err(written) = sarif_out.write(&loaded, None, Some(&e)) {
            return written;
        }
        refused(&e)
    })?;
    Ok((session, loaded, plan, access))
}

/// The plan of a loaded manifest ([`ops::plan`] for its one guild): the live guild read as
/// it needs, diffed, and rehearsed when asked. A refused plan is the inner error, its
/// problems shown on the manifest's lines. With `keep_access`, also the guild as access
/// sees it today and once the plan is applied, from the same planning (the page).
async fn plan_loaded(
    target: &Target,
    loaded: &Arc<LoadedManifest>,
    rehearse: bool,
    keep_access: bool,
) -> Result<(Session, Result<Plan, PlanError>, Option<AccessBoth>)> {
    let session = connect_loaded(target, loaded).await?;
    let run = PlanRun {
        rehearse,
        pages: None,
    };
    let (planned, access) = if keep_access {
        let guild = target.guild(session.guild_id.clone());
        let kept = ops::plan_with_access(
            &session.client,
            guild,
            Some(Arc::clone(loaded)),
            target,
            run,
        )
        .await
        .map_err(super::failure)?;
        (kept.planned, Some(kept.access))
    } else {
        let targets = target.one(&session, loaded);
        (
            only(ops::plan(&session.client, targets, target, run).await)?,
            None,
        )
    };
    Ok(match planned {
        Planned::Plan(plan) => (session, Ok(*plan), access),
        Planned::Refused(e) => (session, Err(e), access),
    })
}

/// `plan --all` / `--guilds`: every guild's plan, rendered as one guild's `plan` renders
/// it under a summary; with `--out DIR`, each plan in `DIR/NAME.json` and the folder's
/// index for the apply that follows the merge.
async fn plan_all(
    target: &Target,
    out: Option<&Path>,
    format: Format,
    detailed_exitcode: bool,
    run: PlanRun,
) -> Result<u8> {
    let chosen = target.selection.resolve()?;
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the plan folder {}", dir.display()))?;
    }
    if let Some(dir) = &run.pages {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the reports folder {}", dir.display()))?;
    }
    let bots = Bots::open(&target.conn, &chosen).await?;
    let color = target.conn.color_out();
    let planned = bots
        .run(async |s, mine| {
            ops::plan(&s.client, Targets::workspace(mine), target, run.clone()).await
        })
        .await;
    let (people, people_report) = people_block(&planned, format)?;
    let mut outcomes = Vec::new();
    for Guild { target: g, result } in planned {
        outcomes.push(match result {
            Err(e) => Outcome::failed(&g, &e),
            Ok(Planned::Refused(e)) => Outcome {
                name: guilds::name(&g),
                id: g.id.clone(),
                code: 1,
                changed: false,
                summary: format!("refused: {} problem(s)", e.problems.len()),
                text: match format {
                    Format::Markdown => report::refusal_markdown(&e),
                    _ => format!("error: {}\n", refused(&e)),
                },
                json: json!({ "refused": true, "problems": e.problems }),
                planned: false,
                failure_markdown: None,
            },
            Ok(Planned::Plan(plan)) => {
                // Written with its verdict, as one guild's `plan --out` writes it; a plan
                // that cannot be written is its guild's failure.
                if let Some(dir) = out {
                    let path = dir.join(format!("{}.json", guilds::name(&g)));
                    if let Err(e) = std::fs::write(&path, report::plan_json(&plan))
                        .with_context(|| format!("cannot write the plan to {}", path.display()))
                    {
                        outcomes.push(Outcome::failed(&g, &e.into()));
                        continue;
                    }
                }
                let mut o = guilds::plan_outcome(&g, &plan, format, color, detailed_exitcode);
                // A failed rehearsal is this guild's failure, as `plan --rehearse` exits 1.
                // What failed, in a few words: the verdict is in the guild's plan.
                if let Some(r) = plan.rehearsal.as_ref().filter(|r| !r.ok) {
                    o.code = 1;
                    o.summary = r.failure().to_owned();
                }
                o
            }
        });
    }
    if let Some(dir) = &target.selection.reports {
        guilds::write_reports(dir, &outcomes, format, "plan")?;
        if let Some(text) = people_report {
            let path = dir.join("people.md");
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if let Some(dir) = out {
        guilds::write_plan_index(dir, &outcomes)?;
    }
    guildctl::out!("{people}");
    Ok(guilds::finish(&outcomes, format == Format::Json))
}

/// The run's roster changes by person, before the guilds' plans (docs/workspace.md,
/// "People kept once"), named as the workspace's people file names them: what is shown
/// (nothing in JSON, where each guild's plan has its roster changes, or when no one's
/// roles change), and, with a people file, the markdown block for `--reports` (which the
/// Action posts as the pull request's people comment, kept up to date when no one's roles
/// change any more).
fn people_block(planned: &[Guild<Planned>], format: Format) -> Result<(String, Option<String>)> {
    let ws = Workspace::find_kept(Path::new("."))?;
    let people = match &ws.people {
        Some(file) => Some(people::cached(file, &Within::workspace(&ws.root))?),
        None => None,
    };
    let plans = planned.iter().filter_map(|g| match &g.result {
        Ok(Planned::Plan(plan)) => Some((g.target.name.as_deref().unwrap_or("-"), &**plan)),
        _ => None,
    });
    let moves = report::people::moves(people.as_deref(), plans);
    let shown = match format {
        Format::Json => String::new(),
        Format::Markdown => report::people::markdown(&moves),
        Format::Text => report::people::text(&moves),
    };
    let report = people.map(|_| match report::people::markdown(&moves) {
        none if none.is_empty() => "### People\n\nNo one's roles change.\n".to_owned(),
        block => block,
    });
    Ok((shown, report))
}
