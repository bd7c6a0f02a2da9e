//! `--all` and `--guilds NAME,...`: `validate`, `plan`, `apply`, `drift` and `export` run
//! for every (or the named) guild of the workspace file (`guildctl.yaml`).
//!
//! - One bot, one budget: every guild is read and written through one client, so
//!   Discord's global limit (50 requests a second per bot) is counted once across them,
//!   while each guild's routes have their own buckets (keyed by the guild or channel in
//!   the path) and run side by side. At most [`CONCURRENCY`] guilds are worked on at a
//!   time: enough requests in flight to keep to the global limit, few enough guilds held
//!   in memory at once (they are planned as a stream and only their reports kept).
//! - A guild that fails (invalid manifest, refused plan, API error) is reported and the
//!   others go on. `apply` plans every guild first, and applies each guild whose plan
//!   passed its gates, whole: no guild is half-applied because another failed.
//! - Output: a one-line summary per guild first, then each guild's report under its name;
//!   JSON is one document with one result per guild. Exit codes combine as one run's would:
//!   1 if any guild failed, else 2 if any has changes (where the command reports them),
//!   else 0.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use futures_util::StreamExt;
use serde_json::{Value, json};

use guildctl::apply::{self, Status};
use guildctl::drift::{self, DriftOptions};
use guildctl::inert;
use guildctl::manifest::{self, LoadedManifest, Workspace, WorkspaceGuild};
use guildctl::ops::{self, ApplyRefused, ApplyRequest};
use guildctl::plan::{self, Plan, PlanOptions};
use guildctl::report::{self, Format, Heading};
use guildctl::snapshot::Snapshot;

use super::git::{current_commit, default_reason};
use super::{
    Connection, EXIT_CHANGES, EXIT_INTERRUPTED, Invalid, Session, Target,
    annotate_rehearsal_refusal, load_checked, refused, rehearsal_options, rehearse_plan,
};

/// Guilds worked on at once. Each reads its guild with 6 requests side by side, so 8
/// guilds keep up to ~48 requests in flight: the global limit of 50 a second is reached
/// with responses slower than a second, and no more than 8 guilds' snapshots are held.
pub(crate) const CONCURRENCY: usize = 8;

/// Which guilds of the workspace to run.
#[derive(Args, Clone, Default)]
pub(crate) struct Selection {
    /// Run for every guild of the workspace file (guildctl.yaml, in this folder or above).
    #[arg(long, conflicts_with = "guilds", group = "workspace_run")]
    pub(crate) all: bool,
    /// Run for these guilds of the workspace file (names, comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAME,...",
        group = "workspace_run"
    )]
    pub(crate) guilds: Vec<String>,
    /// With --all or --guilds: also write each guild's report to DIR/NAME.md (or .txt,
    /// .json, as --format says) and one line per guild, `NAME<TAB>EXIT CODE`, to
    /// DIR/guilds.tsv, for a step that posts one comment or issue per guild.
    #[arg(long, value_name = "DIR", requires = "workspace_run")]
    pub(crate) reports: Option<PathBuf>,
}

impl Selection {
    pub(crate) fn active(&self) -> bool {
        self.all || !self.guilds.is_empty()
    }

    /// Refuses `--reports` where a command does not write them.
    fn no_reports(&self, command: &str) -> Result<()> {
        if self.reports.is_some() {
            bail!("--reports is for plan and drift; {command} --all prints its reports");
        }
        Ok(())
    }

    /// The workspace and the guilds chosen, in the workspace's order for `--all`.
    fn resolve(&self) -> Result<(Workspace, Vec<WorkspaceGuild>)> {
        let ws = Workspace::find(Path::new("."))?;
        let names = (!self.all).then_some(self.guilds.as_slice());
        let guilds = ws.select(names)?;
        Ok((ws, guilds))
    }
}

/// What one guild's run came to.
struct Outcome {
    name: String,
    id: String,
    code: u8,
    /// Whether the guild differs from its manifest (its plan or drift is not empty),
    /// whatever the exit code says (`plan` exits 0 on changes without
    /// `--detailed-exitcode`).
    changed: bool,
    /// One line for the summary table.
    summary: String,
    /// The guild's report as the single-guild command prints it (text or markdown).
    text: String,
    /// The same for `--format json`.
    json: Value,
    /// Whether `plan` saved a plan for the guild (`--out`): a guild without one is
    /// named in the folder's `not-planned.tsv`, with why, and not in `guilds.txt`.
    planned: bool,
    /// For a guild that failed before it had a report: the report's markdown body, the
    /// error with its file, line and column where the manifest is the cause.
    failure_markdown: Option<String>,
}

impl Outcome {
    fn failed(g: &WorkspaceGuild, e: &anyhow::Error) -> Outcome {
        let message = format!("{e:#}");
        // A manifest that does not load: its first error, placed, rather than a count.
        let invalid = e.downcast_ref::<Invalid>();
        let summary = match invalid.and_then(|i| i.report.first_error()) {
            Some(first) => format!("invalid manifest: {first}"),
            None => format!("error: {message}"),
        };
        let failure_markdown = Some(match invalid {
            Some(i) => format!(
                "**{} does not load ({}): nothing was planned, and nothing was sent to Discord.**\n\n{}",
                inert::markdown_code(&i.path.display().to_string()),
                i.report.summary(),
                i.report.render_markdown_errors()
            ),
            None => format!("{}\n", inert::markdown(&message)),
        });
        Outcome {
            name: g.name.clone(),
            id: g.id.clone(),
            code: 1,
            changed: false,
            summary,
            text: format!("error: {}\n", inert::terminal(&message)),
            json: json!({ "error": message }),
            planned: false,
            failure_markdown,
        }
    }
}

/// Runs `job` for each guild, at most [`CONCURRENCY`] at a time, and returns the outcomes
/// in the guilds' order. A job's error is that guild's failure, not the run's.
async fn each<F, Fut>(guilds: &[WorkspaceGuild], job: F) -> Vec<Outcome>
where
    F: Fn(WorkspaceGuild) -> Fut,
    Fut: std::future::Future<Output = Result<Outcome>>,
{
    let mut out: Vec<(usize, Outcome)> =
        futures_util::stream::iter(guilds.iter().cloned().enumerate())
            .map(|(i, g)| {
                let run = job(g.clone());
                async move {
                    let o = run.await.unwrap_or_else(|e| Outcome::failed(&g, &e));
                    (i, o)
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, o)| o).collect()
}

/// Writes each guild's report to `DIR/NAME.EXT` and the exit codes to `DIR/guilds.tsv`
/// (`--reports DIR`). A guild that failed before it had a report gets one saying why,
/// in markdown when the reports are.
fn write_reports(dir: &Path, outcomes: &[Outcome], format: Format, command: &str) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the reports folder {}", dir.display()))?;
    let ext = match format {
        Format::Markdown => "md",
        Format::Json => "json",
        Format::Text => "txt",
    };
    let mut index = String::new();
    for o in outcomes {
        let mut body = match (format, &o.failure_markdown) {
            (Format::Markdown, Some(failure)) => {
                format!(
                    "### guildctl {command} failed for `{}`\n\n{failure}",
                    o.name
                )
            }
            (Format::Json, _) => inert::json_pretty(&o.json),
            _ => o.text.clone(),
        };
        // The comment or note this report replaces may show an older plan of the guild:
        // say it no longer holds, and that a merge now applies nothing to the guild.
        if format == Format::Markdown && command == "plan" && !o.planned {
            body.push_str(&format!(
                "\n> [!WARNING]\n> Any plan of `{}` shown here before is **no longer current**: merging this change applies nothing to `{}`. Fix what is above and push again; the next plan replaces this one.\n",
                o.name, o.name
            ));
        }
        let path = dir.join(format!("{}.{ext}", o.name));
        std::fs::write(&path, body)
            .with_context(|| format!("cannot write the report {}", path.display()))?;
        index.push_str(&format!("{}\t{}\n", o.name, o.code));
    }
    let path = dir.join("guilds.tsv");
    std::fs::write(&path, index).with_context(|| format!("cannot write {}", path.display()))
}

/// What `plan --out DIR` leaves beside the plans for the merge that applies them:
/// `guilds.txt`, the guilds with a plan (`NAME.json`), one a line; and
/// `not-planned.tsv`, `NAME<TAB>WHY` for each guild chosen that has none (its manifest
/// does not load, its plan was refused, its guild could not be read), so the apply
/// says why it leaves that guild alone.
const PLANNED_LIST: &str = "guilds.txt";
const NOT_PLANNED_LIST: &str = "not-planned.tsv";

fn write_plan_index(dir: &Path, outcomes: &[Outcome]) -> Result<()> {
    let mut planned = String::new();
    let mut not_planned = String::new();
    for o in outcomes {
        if o.planned {
            planned.push_str(&format!("{}\n", o.name));
        } else {
            // One line, whatever the message holds.
            let why: String = inert::terminal(&o.summary)
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            not_planned.push_str(&format!("{}\t{why}\n", o.name));
        }
    }
    for (name, text) in [(PLANNED_LIST, planned), (NOT_PLANNED_LIST, not_planned)] {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
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

/// Prints the outcomes: the summary table, then each guild's report (or one JSON
/// document), and returns the combined exit code.
fn finish(outcomes: &[Outcome], json_out: bool) -> u8 {
    let code = combined(outcomes.iter().map(|o| o.code));
    if json_out {
        let guilds: Vec<Value> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "name": o.name,
                    "id": o.id,
                    "exit_code": o.code,
                    "summary": o.summary,
                    "result": o.json,
                })
            })
            .collect();
        guildctl::outln!(
            "{}",
            inert::json_pretty(&json!({ "exit_code": code, "guilds": guilds }))
        );
        return code;
    }
    guildctl::out!("{}", summary_table(outcomes));
    for o in outcomes {
        guildctl::outln!("\n== {} ({}) ==", o.name, o.id);
        guildctl::out!("{}", o.text);
    }
    code
}

/// 1 if any failed, else 2 if any has changes, else 0.
fn combined(codes: impl Iterator<Item = u8>) -> u8 {
    codes.fold(0, |acc, c| match (acc, c) {
        (1, _) | (_, 1) => 1,
        (2, _) | (_, 2) => 2,
        _ => 0,
    })
}

/// One line per guild: name, id, exit code and what happened; then the counts.
fn summary_table(outcomes: &[Outcome]) -> String {
    let width = outcomes
        .iter()
        .map(|o| o.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!("{:width$}  {:20}  exit  result\n", "guild", "id");
    for o in outcomes {
        out.push_str(&format!(
            "{:width$}  {:20}  {:<4}  {}\n",
            o.name,
            o.id,
            o.code,
            inert::terminal(&o.summary)
        ));
    }
    let failed = outcomes.iter().filter(|o| o.code == 1).count();
    let changed = outcomes.iter().filter(|o| o.code != 1 && o.changed).count();
    out.push_str(&format!(
        "{} guild(s): {failed} failed, {changed} with changes, {} unchanged.\n",
        outcomes.len(),
        outcomes.len() - failed - changed
    ));
    out
}

/// Loads a guild's manifest with its checks (shown on stderr) and refuses one whose
/// `guild:` names another guild than the workspace gives it.
pub(crate) fn load_for(target: &Target, g: &WorkspaceGuild) -> Result<(Target, LoadedManifest)> {
    let mut t = target.clone();
    t.file = Some(g.manifest.clone());
    t.within = Some(g.within());
    t.conn.guild = Some(g.id.clone());
    let loaded = load_checked(&t)?;
    if let Some(declared) = &loaded.manifest.guild
        && declared.0 != g.id
    {
        bail!(
            "{} is for guild {} (its `guild:`), but the workspace gives `{}` the id {}; nothing was sent to Discord",
            g.manifest.display(),
            declared.0,
            g.name,
            g.id
        );
    }
    Ok((t, loaded))
}

/// Runs a guild's CPU-bound work (loading its manifest, planning, rehearsing, rendering)
/// on tokio's blocking threads: the CLI's runtime has one thread, which then only sends
/// requests and reads responses, while the guilds in flight are loaded and planned on the
/// other cores as their requests wait on the rate limit.
async fn off_thread<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| anyhow!("a worker thread failed: {e}"))
}

/// [`load_for`] on a blocking thread.
async fn load_off_thread(target: &Target, g: &WorkspaceGuild) -> Result<(Target, LoadedManifest)> {
    let (target, g) = (target.clone(), g.clone());
    off_thread(move || load_for(&target, &g)).await?
}

/// A runtime for the rehearsal on a blocking thread: its in-process copy of the guild
/// is served there, not on the thread that talks to Discord.
fn local_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start a runtime for the rehearsal")
}

/// One session (one client, one rate-limit budget) for every guild.
async fn open(conn: &Connection, guilds: &[WorkspaceGuild]) -> Result<Session> {
    let first = guilds.first().map(|g| g.id.as_str());
    let mut conn = conn.clone();
    conn.guild = None;
    conn.open(first).await
}

/// A guild as its manifest needs it: the same reads as one guild's command makes.
async fn read(session: &Session, id: &str, loaded: &LoadedManifest) -> Result<Snapshot> {
    let reading = guildctl::snapshot::Reading::of(&loaded.manifest);
    Ok(guildctl::snapshot::read(&session.client, id, reading).await?)
}

// --- validate

/// One guild of a workspace, checked as `validate` checks it (policies included), its
/// manifest's `guild:` held to the workspace's id.
pub(crate) fn validate_guild(g: &WorkspaceGuild) -> manifest::Report {
    let (loaded, mut report) = guildctl::access::policy::validate_in(&g.manifest, &g.within());
    if let Some(declared) = loaded.as_ref().and_then(|l| l.manifest.guild.as_ref())
        && declared.0 != g.id
    {
        report.items.push(manifest::Located {
            severity: manifest::Severity::Error,
            rule: "workspace".into(),
            message: format!(
                "the manifest is for guild {}, but the workspace gives `{}` the id {}",
                declared.0, g.name, g.id
            ),
            help: Some("make `guild:` and the workspace's `id` the same guild".into()),
            path: "guild".into(),
            span: loaded.as_ref().and_then(|l| l.locations.span("guild")),
            related: Vec::new(),
        });
    }
    report
}

pub(crate) fn validate(sel: &Selection, format: manifest::ReportFormat, color: bool) -> Result<u8> {
    sel.no_reports("validate")?;
    let (_, guilds) = sel.resolve()?;
    // SARIF is one log for the whole run: every guild's report in it, no summary table.
    let mut sarif_reports: Vec<manifest::Report> = Vec::new();
    let outcomes: Vec<Outcome> = guilds
        .iter()
        .map(|g| {
            let report = validate_guild(g);
            let errors = report.has_errors();
            let rendered = manifest::render_reports(std::slice::from_ref(&report), format, color);
            let json = match format {
                manifest::ReportFormat::Json => {
                    serde_json::from_str(&rendered.stdout).unwrap_or(Value::Null)
                }
                _ => Value::Null,
            };
            // Text goes where `validate` puts it: diagnostics on stderr, annotations on stdout.
            eprint!("{}", rendered.stderr);
            let summary = if errors {
                format!("invalid ({})", report.summary())
            } else {
                "valid".into()
            };
            if format == manifest::ReportFormat::Sarif {
                sarif_reports.push(report);
            }
            Outcome {
                name: g.name.clone(),
                id: g.id.clone(),
                code: u8::from(errors),
                changed: false,
                summary,
                text: rendered.stdout,
                json,
                planned: false,
                failure_markdown: None,
            }
        })
        .collect();
    if format == manifest::ReportFormat::Sarif {
        let all: Vec<&manifest::Report> = sarif_reports.iter().collect();
        guildctl::out!("{}", manifest::sarif::render(&all, &[]));
        return Ok(combined(outcomes.iter().map(|o| o.code)));
    }
    Ok(finish(&outcomes, format == manifest::ReportFormat::Json))
}

// --- plan

pub(crate) async fn plan(
    target: &Target,
    out: Option<&Path>,
    format: Format,
    detailed_exitcode: bool,
    rehearse: bool,
) -> Result<u8> {
    let (_, guilds) = target.selection.resolve()?;
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the plan folder {}", dir.display()))?;
    }
    let session = open(&target.conn, &guilds).await?;
    let color = target.conn.color_out();
    let outcomes = each(&guilds, |g| {
        let session = &session;
        let out = out.map(Path::to_path_buf);
        async move {
            let (t, loaded) = load_off_thread(target, &g).await?;
            let snap = read(session, &g.id, &loaded).await?;
            let api_base = session.client.api_base().to_owned();
            off_thread(move || {
                let options = t.plan_options_for(&loaded).with_api_base(&api_base);
                let mut plan = match plan::diff_loaded(&loaded, &snap, &options) {
                    Ok(p) => p,
                    Err(e) => {
                        let err = refused(&t, &loaded, &e);
                        return Ok(Outcome {
                            name: g.name.clone(),
                            id: g.id.clone(),
                            code: 1,
                            changed: false,
                            summary: format!("refused: {} problem(s)", e.problems.len()),
                            text: match format {
                                Format::Markdown => report::refusal_markdown(&e),
                                _ => format!("error: {err}\n"),
                            },
                            json: json!({ "refused": true, "problems": e.problems }),
                            planned: false,
                            failure_markdown: None,
                        });
                    }
                };
                if rehearse {
                    local_runtime()?.block_on(rehearse_plan(&t, &loaded, &snap, &mut plan))?;
                }
                drop(snap);
                // Written with its verdict, as one guild's `plan --out` writes it.
                if let Some(dir) = &out {
                    let path = dir.join(format!("{}.json", g.name));
                    std::fs::write(&path, report::plan_json(&plan))
                        .with_context(|| format!("cannot write the plan to {}", path.display()))?;
                }
                let mut o = plan_outcome(&g, &plan, format, color, detailed_exitcode);
                // A failed rehearsal is this guild's failure, as `plan --rehearse` exits 1.
                // What failed, in a few words: the verdict is in the guild's plan.
                if let Some(r) = plan.rehearsal.as_ref().filter(|r| !r.ok) {
                    o.code = 1;
                    o.summary = r.failure().to_owned();
                }
                Ok(o)
            })
            .await?
        }
    })
    .await;
    if let Some(dir) = &target.selection.reports {
        write_reports(dir, &outcomes, format, "plan")?;
    }
    if let Some(dir) = out {
        write_plan_index(dir, &outcomes)?;
    }
    Ok(finish(&outcomes, format == Format::Json))
}

fn plan_outcome(
    g: &WorkspaceGuild,
    plan: &Plan,
    format: Format,
    color: bool,
    detailed_exitcode: bool,
) -> Outcome {
    let rendered = report::render(plan, format, Heading::Plan, color);
    Outcome {
        name: g.name.clone(),
        id: g.id.clone(),
        code: if detailed_exitcode && !plan.is_empty() {
            EXIT_CHANGES
        } else {
            0
        },
        changed: !plan.is_empty(),
        summary: report::summary_line(plan),
        json: match format {
            Format::Json => serde_json::from_str(&rendered).unwrap_or(Value::Null),
            _ => Value::Null,
        },
        text: rendered,
        planned: true,
        failure_markdown: None,
    }
}

// --- apply

/// `apply --all`'s arguments (the single-guild ones that apply to many).
pub(crate) struct ApplyAll<'a> {
    pub(crate) target: &'a Target,
    /// A folder of reviewed plans, `NAME.json` per guild (`plan --all --out DIR`).
    pub(crate) plans: Option<&'a Path>,
    pub(crate) yes: bool,
    pub(crate) allow_deletes: Option<usize>,
    pub(crate) allow_policy_changes: Option<usize>,
    pub(crate) reason: Option<String>,
    pub(crate) keep_going: bool,
    /// Skip each guild's rehearsal (`--no-rehearse`).
    pub(crate) no_rehearse: bool,
}

/// A guild ready to apply: its plan passed every gate.
struct Ready {
    manifest: PathBuf,
    dir: PathBuf,
    plan: Plan,
    /// The guild's lock (live guilds), held from before it was read until its calls
    /// are over.
    lock: Option<guildctl::file_lock::Held>,
}

pub(crate) async fn apply(args: ApplyAll<'_>) -> Result<u8> {
    let target = args.target;
    target.selection.no_reports("apply")?;
    let (_, guilds) = target.selection.resolve()?;
    let session = open(&target.conn, &guilds).await?;
    let color = target.conn.color_out();
    // 1. Plan every guild and judge its gates; nothing is written yet.
    let mut ready: Vec<Option<Ready>> = Vec::new();
    let mut planned: Vec<Outcome> = Vec::new();
    let results = {
        let session = &session;
        let args = &args;
        let mut results: Vec<(usize, Result<Ready>)> =
            futures_util::stream::iter(guilds.iter().cloned().enumerate())
                .map(|(i, g)| async move { (i, plan_to_apply(args, session, g).await) })
                .buffer_unordered(CONCURRENCY)
                .collect()
                .await;
        results.sort_by_key(|(i, _)| *i);
        results
    };
    for ((_, r), g) in results.into_iter().zip(&guilds) {
        match r {
            Ok(r) => {
                let mut o = plan_outcome(g, &r.plan, Format::Text, color, false);
                if !r.plan.is_empty() {
                    o.code = EXIT_CHANGES;
                }
                planned.push(o);
                ready.push(Some(r));
            }
            Err(e) => {
                planned.push(match e.downcast_ref::<ApplyRefused>() {
                    // Shown as one guild's apply shows it: the plan, whose verdict says the
                    // refusal once; the summary says what failed.
                    Some(ApplyRefused::RehearsalFailed { plan }) => Outcome {
                        code: 1,
                        changed: !plan.is_empty(),
                        summary: format!(
                            "refusing to apply: {}",
                            plan.rehearsal
                                .as_ref()
                                .map_or("rehearsal failed", |r| r.failure())
                        ),
                        ..plan_outcome(g, plan, Format::Text, color, false)
                    },
                    _ => Outcome::failed(g, &e),
                });
                ready.push(None);
            }
        }
    }
    let to_apply = ready
        .iter()
        .flatten()
        .filter(|r| !r.plan.is_empty())
        .count();
    if to_apply > 0 && !args.yes {
        guildctl::out!("{}", summary_table(&planned));
        if !std::io::stdin().is_terminal() {
            bail!("apply needs confirmation: run it in a terminal, or pass --yes");
        }
        eprint!("Apply the changes to {to_apply} guild(s)? [y/N] ");
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("Nothing was changed.");
            return Ok(1);
        }
    }
    // 2. Apply each guild that is ready, whole, whatever happens to the others. An
    // interrupt stops every guild's calls, and the guilds not started yet stay so.
    super::interrupt::watch(
        &session.client,
        &session.console,
        target.conn.sandbox_state.as_deref(),
    )?;
    let session = &session;
    let reason = args.reason.clone();
    let keep_going = args.keep_going;
    let reviewed = args.plans.is_some();
    let mut applied: Vec<(usize, (u8, String, String))> =
        futures_util::stream::iter(ready.iter_mut().enumerate())
            .filter_map(|(i, r)| async move { r.as_mut().map(|r| (i, r)) })
            .map(|(i, r)| {
                let reason = reason
                    .clone()
                    .unwrap_or_else(|| default_reason(&r.manifest));
                async move {
                    if r.plan.is_empty() {
                        drop(r.lock.take());
                        return (i, (0, report::summary_line(&r.plan), String::new()));
                    }
                    if session.client.is_stopped() {
                        drop(r.lock.take());
                        let summary = format!(
                            "not applied: interrupted before it started ({} call(s)); run apply again to apply it",
                            r.plan.operations.len()
                        );
                        return (i, (EXIT_INTERRUPTED, summary, String::new()));
                    }
                    let options = apply::ApplyOptions {
                        keep_going,
                        ..apply::ApplyOptions::new(reason, r.dir.clone())
                    };
                    let outcome = apply::apply(&session.client, &r.plan, &options, |_| {}).await;
                    // Its calls are over: another apply of this guild may start.
                    drop(r.lock.take());
                    (i, applied_report(&r.plan, &outcome, reviewed))
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    applied.sort_by_key(|(i, _)| *i);
    for (i, (code, summary, detail)) in applied {
        let o = &mut planned[i];
        o.code = code;
        o.summary = summary;
        o.text.push_str(&detail);
    }
    session.save_sandbox(&target.conn)?;
    let code = finish(&planned, false);
    if session.client.is_stopped() {
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(code)
}

/// Plans one guild for `apply --all`: its manifest, its live guild, the reviewed plan if
/// given, the deletion gate and the other gates.
async fn plan_to_apply(args: &ApplyAll<'_>, session: &Session, g: WorkspaceGuild) -> Result<Ready> {
    // A guild whose plan failed at review: not applied, whatever its manifest says now.
    if let Some(dir) = args.plans
        && !dir.join(format!("{}.json", g.name)).exists()
        && let Some(why) = not_planned_why(dir, &g.name)
    {
        bail!(
            "not applied: it had no plan at review ({why}); nothing was sent to its guild. Fix it in a new change: its plan is applied when that one merges"
        );
    }
    let (t, loaded) = load_off_thread(args.target, &g).await?;
    let reviewed = match args.plans {
        Some(dir) => Some(super::read_reviewed_plan(
            &dir.join(format!("{}.json", g.name)),
            &loaded,
            &g.id,
        )?),
        None => None,
    };
    // Locked before it is read: another apply of this guild on this machine waits until
    // this one's calls are over, and then plans from what they made.
    let lock = session.lock_guild(&g.id).await?;
    let snap = read(session, &g.id, &loaded).await?;
    let options = PlanOptions {
        allow_deletes: args.allow_deletes,
        allow_policy_changes: args.allow_policy_changes,
        ..t.plan_options_for(&loaded)
            .with_api_base(session.client.api_base())
    };
    // Each guild is rehearsed before its first write, as one guild's apply is; a guild
    // whose copy refuses is that guild's failure, and the others go on.
    let rehearse = (!args.no_rehearse)
        .then(|| rehearsal_options(&t))
        .transpose()?;
    off_thread(move || {
        let request = ApplyRequest {
            reviewed: reviewed.as_ref(),
            options,
            rehearse,
        };
        // Its copy of the guild is served on this blocking thread's own runtime.
        match local_runtime()?.block_on(ops::plan_for_apply(&loaded, &snap, request)) {
            Ok(plan) => Ok(Ready {
                manifest: loaded.path.clone(),
                dir: loaded.dir(),
                plan,
                lock,
            }),
            Err(ApplyRefused::Plan(e)) => Err(refused(&t, &loaded, &e)),
            Err(e) => {
                if let Some(plan) = e.plan() {
                    annotate_rehearsal_refusal(&t, &loaded, plan)?;
                }
                Err(e.into())
            }
        }
    })
    .await?
}

/// (exit code, summary, details) of one guild's apply.
fn applied_report(plan: &Plan, outcome: &apply::Outcome, reviewed: bool) -> (u8, String, String) {
    let total = plan.operations.len();
    let done = outcome.count(Status::Done);
    let mut detail = format!(
        "\nApplied {done} of {total} calls; {} failed, {} skipped.\n",
        outcome.count(Status::Failed),
        outcome.count(Status::Skipped)
    );
    for (i, e) in &outcome.failures {
        let line = format!("{}: {e}", plan.operations[*i].summary);
        detail.push_str(&format!("  failed: {}\n", inert::terminal(&line)));
    }
    if outcome.interrupted {
        for line in super::apply::interrupted_report(plan, outcome, reviewed) {
            detail.push_str(&format!("{line}\n"));
        }
        let summary =
            format!("interrupted: applied {done} of {total} call(s); run apply again to finish");
        return (EXIT_INTERRUPTED, summary, detail);
    }
    if outcome.succeeded() {
        (0, format!("applied {done} call(s)"), detail)
    } else {
        (
            1,
            format!(
                "apply failed: {} of {total} call(s) failed; run apply again once fixed",
                outcome.failures.len()
            ),
            detail,
        )
    }
}

// --- drift

pub(crate) async fn drift(
    target: &Target,
    format: Format,
    audit_pages: usize,
    fail_on_unmanaged: bool,
    appliers: &[String],
) -> Result<u8> {
    let (_, guilds) = target.selection.resolve()?;
    let session = open(&target.conn, &guilds).await?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let outcomes = each(&guilds, |g| {
        let session = &session;
        async move {
            let (t, loaded) = load_off_thread(target, &g).await?;
            let snap = read(session, &g.id, &loaded).await?;
            let (plan, problems) = plan::differences(&loaded, &snap, &t.plan_options());
            let mut options = DriftOptions::new(now_ms, current_commit(&g.manifest));
            options.max_pages = audit_pages;
            options.appliers = appliers.to_vec();
            let r = drift::investigate(
                &session.client,
                &snap,
                &plan,
                &problems,
                loaded.stored(),
                &options,
            )
            .await;
            let rendered = drift::render(&r, format);
            let code = r.exit_code(fail_on_unmanaged);
            Ok(Outcome {
                name: g.name.clone(),
                id: g.id.clone(),
                code,
                changed: code != 0,
                summary: if code == 0 {
                    "no drift".into()
                } else {
                    format!("drift: {}", report::summary_line(&plan))
                },
                json: match format {
                    Format::Json => serde_json::from_str(&rendered).unwrap_or(Value::Null),
                    _ => Value::Null,
                },
                text: rendered,
                planned: false,
                failure_markdown: None,
            })
        }
    })
    .await;
    if let Some(dir) = &target.selection.reports {
        write_reports(dir, &outcomes, format, "drift")?;
    }
    Ok(finish(&outcomes, format == Format::Json))
}

// --- export

pub(crate) async fn export(sel: &Selection, conn: &Connection, out: Option<&Path>) -> Result<u8> {
    let Some(dir) = out else {
        bail!(
            "export --all writes one manifest per guild: give the folder with -o DIR (DIR/NAME.yaml)"
        );
    };
    sel.no_reports("export")?;
    let (_, guilds) = sel.resolve()?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let session = open(conn, &guilds).await?;
    let outcomes = each(&guilds, |g| {
        let session = &session;
        async move {
            let reading = guildctl::snapshot::Reading::everything(false, false);
            let snap = guildctl::snapshot::read(&session.client, &g.id, reading).await?;
            // What a single guild's export writes, each guild's files in folders of their
            // own (`images/NAME`, `emojis/NAME`, ...): guilds' files share names.
            let images = super::export::write_files(&session.client, &snap, dir, |kind| {
                format!("{kind}/{}", g.name)
            })
            .await?;
            let yaml = guildctl::export::export_with_images(&snap, &images)?;
            let path = dir.join(format!("{}.yaml", g.name));
            std::fs::write(&path, yaml)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(Outcome {
                name: g.name.clone(),
                id: g.id.clone(),
                code: 0,
                changed: false,
                summary: format!("wrote {}", path.display()),
                text: String::new(),
                json: json!({ "file": path }),
                planned: false,
                failure_markdown: None,
            })
        }
    })
    .await;
    Ok(finish(&outcomes, false))
}

#[cfg(test)]
mod tests {
    use super::combined;

    #[test]
    fn exit_codes_combine() {
        assert_eq!(combined([0, 0].into_iter()), 0);
        assert_eq!(combined([0, 2, 0].into_iter()), 2);
        assert_eq!(combined([2, 1, 0].into_iter()), 1);
        assert_eq!(combined([1, 2].into_iter()), 1);
    }
}
