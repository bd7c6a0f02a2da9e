//! `guildctl apply`: make the guild match the manifest.
//!
//! Apply runs only calls it derived itself, from the manifest and the live guild it has
//! just read. A saved plan (`--plan`, the one reviewed on a pull request) is never a
//! script: it is a digest to match. Apply refuses, before any write, when the plan it
//! derives is not the reviewed one, and the deletion gate and `protect` are judged on
//! the derived plan.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Result, anyhow, bail};
use clap::Args;

use guildctl::apply::{self, Status, summary};
use guildctl::file_lock::Held;
use guildctl::inert;
use guildctl::ops::apply::{Applied, ApplyRun, CallRun, Calls, Replan};
use guildctl::ops::{self, ApplyRefused, Failure, Guild, GuildTarget, Targets};
use guildctl::plan::Plan;
use guildctl::progress::{self, ApplyProgress};
use guildctl::report::{self, Format, Heading};

use super::guilds::{self, Outcome};
use super::locks::{self, Writer};
use super::{
    Bots, EXIT_CHANGES, EXIT_INTERRUPTED, Session, Target, connect, failure, refused,
    rehearsal_failed,
};

#[derive(Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub target: Target,
    /// Once applied, write the guild's ids by name to FILE (JSON for `.json`, else an env
    /// file: GUILD_ID, ROLE_…, CHANNEL_…, WEBHOOK_…), for a bot's configuration.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "guilds"])]
    ids_out: Option<PathBuf>,
    /// Apply the manifest to the guild --guild names, by names: its pinned ids and
    /// `guild:` are left out for this run (a test guild shaped like production; the
    /// deletion gate holds as always).
    #[arg(long, conflicts_with_all = ["all", "guilds"])]
    like: bool,
    /// The plan reviewed for this change (from `plan --out`); with --all or --guilds, the
    /// folder `plan --all --out DIR` wrote (DIR/NAME.json per guild). Apply plans again and
    /// proceeds only if its plan is this one (the same changes digest, manifest, guild
    /// and guildctl version); it then runs the calls it derived itself, never the
    /// file's.
    #[arg(long)]
    plan: Option<PathBuf>,
    /// Do not ask for confirmation. It does not lift the deletion gate.
    #[arg(long)]
    yes: bool,
    /// Allow the plan up to N removals in total (roles, channels, categories, webhooks,
    /// integrations, invites, roster removals, lifted bans, and members banned), in place
    /// of the default limits and of the manifest's `safety.allow_deletes`; apply refuses
    /// a plan that removes more.
    #[arg(long, value_name = "N")]
    allow_deletes: Option<usize>,
    /// Allow the plan up to N policy changes (a policy removed, renamed or weakened, or a
    /// channel or role taken out of one), in place of the manifest's
    /// `safety.allow_policy_changes`; by default apply refuses any.
    #[arg(long, value_name = "N")]
    allow_policy_changes: Option<usize>,
    /// Compare the policies with those of this Git revision (after a merge, the merged
    /// commit's first parent): a policy the change removes, renames or weakens is then
    /// gated. Without it, apply says they were not compared.
    #[arg(long, value_name = "REV", env = "GUILDCTL_POLICIES_BASE")]
    policies_base: Option<String>,
    /// The audit-log reason; by default "guildctl apply" with the Git commit and author.
    #[arg(long)]
    reason: Option<String>,
    /// After a failed call, go on with the calls that do not depend on it (by
    /// default no new call starts after a failure).
    #[arg(long)]
    keep_going: bool,
    /// Write the URLs of webhooks this run creates (they contain their secret tokens)
    /// to this file, created readable by you alone, for your secret store.
    #[arg(long)]
    webhook_urls: Option<PathBuf>,
    /// Skip the rehearsal: by default the plan is applied first to an in-process copy
    /// of the guild, and apply refuses before any write when the copy refuses a call
    /// or does not converge.
    #[arg(long)]
    no_rehearse: bool,
    /// How long to wait while another guildctl apply on this machine holds the guild (or
    /// the sandbox state) before refusing: `0s` refuses at once; `90s`, `5m`, `1h`.
    #[arg(
        long,
        value_name = "DURATION",
        env = "GUILDCTL_LOCK_TIMEOUT",
        default_value = locks::DEFAULT_WAIT,
        value_parser = locks::lock_wait
    )]
    lock_timeout: std::time::Duration,
}

pub async fn run(args: ApplyArgs) -> Result<u8> {
    let ApplyArgs {
        mut target,
        ids_out,
        like,
        plan: reviewed_path,
        yes,
        allow_deletes,
        allow_policy_changes,
        policies_base,
        reason,
        keep_going,
        webhook_urls,
        no_rehearse,
        lock_timeout,
    } = args;
    target.policies_base = policies_base;
    target.like = like;
    // Apply writes: it locks the sandbox state, or the live guild, for the whole run.
    target.conn.writer = Some(Writer {
        command: "guildctl apply",
        wait: lock_timeout,
    });
    let target = &target;
    let run = ApplyRun {
        reviewed: reviewed_path.clone(),
        allow_deletes,
        allow_policy_changes,
        rehearse: !no_rehearse,
    };
    let mut calls = CallRun {
        reason,
        keep_going,
        webhook_urls: None,
        replan: false,
    };
    if target.selection.active() {
        // One file takes one guild's URLs (docs/decisions.md, "Webhook URLs with --all").
        if webhook_urls.is_some() {
            bail!(
                "--webhook-urls takes one guild's URLs: apply the guilds that create webhooks one at a time (-f)"
            );
        }
        return apply_all(target, &run, &calls, yes).await;
    }
    // Before the first call: a file that could not take the URLs is found now, not
    // after the webhooks exist.
    calls.webhook_urls = webhook_urls
        .as_deref()
        .map(apply::WebhookUrlFile::prepare)
        .transpose()
        .map_err(|e| anyhow!("--webhook-urls {e}; nothing was sent to Discord"))?;
    let (loaded, session) = connect(target).await?;
    let loaded = Arc::new(loaded);
    // In the sandbox, show that one apply converges.
    calls.replan = session.sandbox.is_some();
    let color = target.conn.color_out();
    // The plan this run executes is always the one it derives here; the guild is locked
    // from before it is read until the calls are over, so another apply of this guild on
    // this machine then plans from what this one made.
    let prepared = ops::apply::prepare(
        &session.client,
        target.one(&session, &loaded),
        target,
        &run,
        |id| lock(&session, id),
    )
    .await;
    let plan = match prepared.first().map(|g| &g.result) {
        Some(Ok(ready)) => &ready.plan,
        _ => {
            let Some(Guild { result: Err(e), .. }) = prepared.into_iter().next() else {
                bail!("internal error: no plan for the guild");
            };
            let (shown, error) = refusal(e, reviewed_path.as_deref());
            if let Some(plan) = shown {
                // A refused plan is shown with its refusal, as it would have run.
                guildctl::out!(
                    "{}",
                    report::render(&plan, Format::Text, Heading::Plan, color)
                );
            }
            return Err(error);
        }
    };
    guildctl::out!(
        "{}",
        report::render(plan, Format::Text, Heading::Plan, color)
    );
    if plan.is_empty() {
        if let Some(path) = &ids_out {
            super::ids_out::write(&session, path).await?;
        }
        return Ok(0);
    }
    if !yes {
        let question = format!(
            "Apply these changes to {}?",
            inert::terminal(&plan.guild_name)
        );
        if !confirmed(&question)? {
            return Ok(1);
        }
    }
    let shown = Mutex::new(ApplyProgress::new(
        &session.console,
        plan.operations.len(),
        progress::stderr_wants_bar(),
    ));
    super::interrupt::watch(
        [&session.client],
        &session.console,
        target.conn.sandbox_state.as_deref(),
    )?;
    let progress = |_: &GuildTarget, p: apply::Progress<'_>| {
        if let Ok(mut shown) = shown.lock() {
            shown.event(p);
        }
    };
    let applied = ops::apply::run(&session.client, prepared, target, &calls, &progress).await;
    if let Ok(shown) = shown.into_inner() {
        shown.finish();
    }
    // Saved whatever the outcome: the calls that were made changed the guild.
    session.save_sandbox(&target.conn)?;
    let Some(Guild { result, .. }) = applied.into_iter().next() else {
        bail!("internal error: no outcome for the guild");
    };
    let applied = result.map_err(failure)?;
    let plan = &applied.plan;
    let (outcome, replan) = match applied.calls {
        Calls::Made { outcome, replan } => (outcome, replan),
        Calls::Nothing => return Ok(0),
        Calls::NotStarted => {
            guildctl::outln!(
                "Interrupted before the first call: nothing was sent. Run `guildctl apply` again to apply it."
            );
            return Ok(EXIT_INTERRUPTED);
        }
    };
    let urls_lost = webhook_urls_report(&outcome, session.sandbox.is_some());
    guildctl::outln!("\n{}", summary::counts_line(plan, &outcome));
    for line in summary::notes(plan, &outcome) {
        guildctl::outln!("{line}");
    }
    if outcome.interrupted || session.client.is_stopped() {
        for line in summary::interrupted_report(plan, &outcome, applied.reviewed) {
            guildctl::outln!("{line}");
        }
        if let Some(message) = urls_lost {
            eprintln!("error: {}", inert::terminal(&message));
        }
        return Ok(EXIT_INTERRUPTED);
    }
    if !outcome.succeeded() {
        if !outcome.failures.is_empty() {
            guildctl::outln!("Failed:");
        }
        for line in summary::failures(plan, &outcome) {
            guildctl::outln!("  {line}");
        }
        if let Some(line) = summary::skipped(plan, &outcome) {
            guildctl::outln!("{line}");
        }
        if let Some(message) = urls_lost {
            bail!("{message}");
        }
        bail!(
            "{} call(s) failed; the calls marked done were made. Run `guildctl apply` again once the cause is fixed to finish",
            outcome.failures.len()
        );
    }
    if let Some(path) = &ids_out {
        super::ids_out::write(&session, path).await?;
    }
    match replan {
        None => Ok(0),
        Some(Replan::Failed(e)) => Err(failure(e)),
        Some(replan) => {
            guildctl::out!("{}", replan_line(&replan));
            Ok(match replan {
                Replan::Interrupted => EXIT_INTERRUPTED,
                _ => 0,
            })
        }
    }
}

/// What the fresh plan after an apply in the sandbox shows, as a line.
fn replan_line(replan: &Replan) -> String {
    match replan {
        Replan::Planned(Ok(p)) if p.is_empty() => {
            "A fresh plan against the sandbox shows no changes.\n".to_owned()
        }
        Replan::Planned(Ok(p)) => {
            format!("A fresh plan still shows: {}\n", report::summary_line(p))
        }
        Replan::Planned(Err(e)) => format!(
            "A fresh plan was refused: {}\n",
            inert::terminal(&e.to_string())
        ),
        Replan::Interrupted => {
            "Interrupted before the fresh plan against the sandbox.\n".to_owned()
        }
        Replan::Failed(e) => format!("error: {}\n", inert::terminal(&guilds::chain(e.as_ref()))),
    }
}

/// Locks guild `id` for the session's writes (a live guild's).
async fn lock(session: &Session, id: String) -> Result<Option<Held>, Failure> {
    Ok(session.lock_guild(&id).await?)
}

/// A guild's plan that apply refused, as one guild's apply ends: the plan to show with the
/// refusal, if it was made whole, and the error.
fn refusal(e: Failure, reviewed: Option<&Path>) -> (Option<Box<Plan>>, anyhow::Error) {
    let refused_plan = match e.downcast::<ApplyRefused>() {
        Ok(refused) => *refused,
        Err(e) => return (None, failure(e)),
    };
    match refused_plan {
        // Its problems are shown on the manifest's lines.
        ApplyRefused::Plan(e) => (None, refused(&e)),
        e @ ApplyRefused::NotReviewed(_) => {
            let path = reviewed.unwrap_or(Path::new("-"));
            (None, anyhow!("{e} (reviewed plan: {})", path.display()))
        }
        // The plan shown says the rehearsal's verdict; the error says what failed.
        ApplyRefused::RehearsalFailed { plan } => match rehearsal_failed(&plan) {
            Some(failed) => (Some(plan), anyhow!("refusing to apply: {failed}")),
            None => {
                let shown = plan.clone();
                (Some(shown), ApplyRefused::RehearsalFailed { plan }.into())
            }
        },
        ApplyRefused::Unsafe { plan, error } => {
            let shown = plan.clone();
            (Some(shown), ApplyRefused::Unsafe { plan, error }.into())
        }
        e @ ApplyRefused::Rehearse(_) => (None, e.into()),
    }
}

/// `apply --all` / `--guilds`: every guild planned and judged first, nothing written; then,
/// confirmed, each guild whose plan passed applied whole, whatever happens to the others.
async fn apply_all(target: &Target, run: &ApplyRun, calls: &CallRun, yes: bool) -> Result<u8> {
    target.selection.no_reports("apply")?;
    let chosen = target.selection.resolve()?;
    let bots = Bots::open(&target.conn, &chosen).await?;
    let color = target.conn.color_out();
    // 1. Plan every guild and judge its gates; nothing is written yet.
    let prepared = bots
        .run(async |s, mine| {
            let targets = Targets::workspace(mine);
            ops::apply::prepare(&s.client, targets, target, run, |id| lock(s, id)).await
        })
        .await;
    let mut planned: Vec<Outcome> = prepared
        .iter()
        .map(|g| match &g.result {
            Ok(r) => {
                let mut o = guilds::plan_outcome(&g.target, &r.plan, Format::Text, color, false);
                if !r.plan.is_empty() {
                    o.code = EXIT_CHANGES;
                }
                o
            }
            Err(e) => match e.downcast_ref::<ApplyRefused>() {
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
                    ..guilds::plan_outcome(&g.target, plan, Format::Text, color, false)
                },
                // Its problems are shown on the manifest's lines; the summary counts them.
                Some(ApplyRefused::Plan(refusal)) => {
                    Outcome::failed(&g.target, &refused(refusal).into())
                }
                _ => Outcome::failed(&g.target, e),
            },
        })
        .collect();
    let to_apply = prepared
        .iter()
        .filter_map(|g| g.result.as_ref().ok())
        .filter(|r| !r.plan.is_empty())
        .count();
    if to_apply > 0 && !yes {
        guildctl::out!("{}", guilds::summary_table(&planned));
        if !confirmed(&format!("Apply the changes to {to_apply} guild(s)?"))? {
            return Ok(1);
        }
    }
    // 2. Apply each guild that is ready, whole, whatever happens to the others. An
    // interrupt stops every guild's calls, and the guilds not started yet stay so.
    super::interrupt::watch(
        bots.sessions().map(|s| &s.client),
        bots.console(),
        target.conn.sandbox_state.as_deref(),
    )?;
    let sandbox = bots.sessions().any(|s| s.sandbox.is_some());
    // In the sandbox, show that one apply converges, as one guild's apply does.
    let calls = CallRun {
        replan: sandbox,
        ..calls.clone()
    };
    // No progress bar: several guilds' calls run at once (docs/decisions.md).
    let applied = bots
        .then(prepared, async |s, mine| {
            ops::apply::run(&s.client, mine, target, &calls, &|_, _| {}).await
        })
        .await;
    for (o, g) in planned.iter_mut().zip(applied) {
        let Ok(applied) = g.result else { continue };
        let (code, summary, detail) = applied_report(&applied, sandbox);
        o.code = code;
        o.summary = summary;
        o.text.push_str(&detail);
    }
    for s in bots.sessions() {
        s.save_sandbox(&target.conn)?;
    }
    let code = guilds::finish(&planned, false);
    if bots.sessions().any(|s| s.client.is_stopped()) {
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(code)
}

/// (exit code, summary, details) of one guild's apply in `apply --all`: what one guild's
/// apply says, under the guild's name.
fn applied_report(applied: &Applied, sandbox: bool) -> (u8, String, String) {
    let plan = &applied.plan;
    let total = plan.operations.len();
    let outcome = match &applied.calls {
        Calls::Nothing => return (0, report::summary_line(plan), String::new()),
        Calls::NotStarted => {
            let summary = format!(
                "not applied: interrupted before it started ({total} call(s)); run apply again to apply it"
            );
            return (EXIT_INTERRUPTED, summary, String::new());
        }
        Calls::Made { outcome, .. } => outcome,
    };
    let done = outcome.count(Status::Done);
    let mut detail = format!("\n{}\n", summary::counts_line(plan, outcome));
    for line in summary::notes(plan, outcome) {
        detail.push_str(&format!("{line}\n"));
    }
    for line in summary::failures(plan, outcome) {
        detail.push_str(&format!("  failed: {line}\n"));
    }
    if let Some(line) = summary::skipped(plan, outcome) {
        detail.push_str(&format!("  {line}\n"));
    }
    let urls_lost = webhook_urls_report(outcome, sandbox);
    if outcome.interrupted {
        for line in summary::interrupted_report(plan, outcome, applied.reviewed) {
            detail.push_str(&format!("{line}\n"));
        }
        let summary =
            format!("interrupted: applied {done} of {total} call(s); run apply again to finish");
        return (EXIT_INTERRUPTED, summary, detail);
    }
    if let Some(message) = urls_lost {
        detail.push_str(&format!("  error: {}\n", inert::terminal(&message)));
    }
    if outcome.succeeded() {
        if let Calls::Made {
            replan: Some(replan),
            ..
        } = &applied.calls
        {
            detail.push_str(&replan_line(replan));
        }
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

/// Says where the URLs of the webhooks created are, never what they are (each holds
/// its webhook's token). Returns the error to end with when they are not where the
/// user asked.
fn webhook_urls_report(outcome: &apply::Outcome, sandbox: bool) -> Option<String> {
    use apply::UrlsKept;
    let count = outcome.webhook_urls.len();
    match &outcome.webhook_urls_kept {
        None if count > 0 => {
            let names: Vec<&str> = outcome
                .webhook_urls
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            // The sandbox's webhooks live in the emulator alone: Discord never saw them.
            let where_else = if sandbox {
                "they exist in the sandbox only, so to see them pass --webhook-urls FILE next time"
            } else {
                "copy them from Discord (the channel's settings > Integrations > Webhooks)"
            };
            eprintln!(
                "Created {count} webhook(s) ({}); their URLs were not saved (no --webhook-urls): {where_else}.",
                inert::terminal(&names.join(", "))
            );
            None
        }
        None => None,
        Some(UrlsKept::File(path)) => {
            eprintln!(
                "The URLs of {count} new webhook(s) are in {} (readable by you alone); put them in your secret store.",
                path.display()
            );
            None
        }
        Some(UrlsKept::Fallback { path, error }) => Some(format!(
            "could not write the webhook URLs to {error}, so apply stopped there. The URLs of the {count} webhook(s) it created are kept in {} (readable by you alone): put them in your secret store, then delete that file",
            path.display()
        )),
        Some(UrlsKept::Nowhere {
            error,
            fallback_errors,
            webhooks,
        }) => {
            let tried: Vec<String> = fallback_errors.iter().map(ToString::to_string).collect();
            let hooks: Vec<String> = webhooks
                .iter()
                .map(|(name, id)| format!("{name} (id {id})"))
                .collect();
            Some(format!(
                "could not write the webhook URLs to {error}, nor to a fallback file ({}), so apply stopped there. The URLs are secrets and are not printed; the webhooks exist, and Discord shows their URLs in the channel's settings > Integrations > Webhooks: {}",
                tried.join("; "),
                hooks.join(", ")
            ))
        }
    }
}

/// Asks `question` on the terminal; false (after saying nothing was changed) unless the
/// answer is yes. Without a terminal there is no one to ask: an error naming `--yes`.
fn confirmed(question: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("apply needs confirmation: run it in a terminal, or pass --yes");
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    let yes = matches!(answer.trim(), "y" | "Y" | "yes");
    if !yes {
        eprintln!("Nothing was changed.");
    }
    Ok(yes)
}
