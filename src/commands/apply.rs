//! `guildctl apply`: make the guild match the manifest.
//!
//! Apply runs only calls it derived itself, from the manifest and the live guild it has
//! just read. A saved plan (`--plan`, the one reviewed on a pull request) is never a
//! script: it is a digest to match. Apply refuses, before any write, when the plan it
//! derives is not the reviewed one, and the deletion gate and `protect` are judged on
//! the derived plan.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use clap::Args;

use guildctl::apply::{self, Status};
use guildctl::inert;
use guildctl::ops::{self, ApplyRefused, ApplyRequest};
use guildctl::plan::{self, PlanOptions};
use guildctl::progress::{self, ApplyProgress};
use guildctl::report::{self, Format, Heading};

use super::git::default_reason;
use super::locks::{self, Writer};
use super::{
    EXIT_INTERRUPTED, Target, annotate_rehearsal_refusal, connect, fetch, read_reviewed_plan,
    refused, rehearsal_failed, rehearsal_options,
};

#[derive(Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub target: Target,
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
    // Apply writes: it locks the sandbox state, or the live guild, for the whole run.
    target.conn.writer = Some(Writer {
        command: "guildctl apply",
        wait: lock_timeout,
    });
    let target = &target;
    if target.selection.active() {
        if webhook_urls.is_some() {
            bail!(
                "--webhook-urls takes one guild's URLs: apply the guilds that create webhooks one at a time (-f)"
            );
        }
        return super::workspace::apply(super::workspace::ApplyAll {
            target,
            plans: reviewed_path.as_deref(),
            yes,
            allow_deletes,
            allow_policy_changes,
            reason,
            keep_going,
            no_rehearse,
        })
        .await;
    }
    // Before the first call: a file that could not take the URLs is found now, not
    // after the webhooks exist.
    let webhook_urls = webhook_urls
        .as_deref()
        .map(apply::WebhookUrlFile::prepare)
        .transpose()
        .map_err(|e| anyhow!("--webhook-urls {e}; nothing was sent to Discord"))?;
    let (loaded, session) = connect(target).await?;
    // Held from before the guild is read until the calls are over: another apply of this
    // guild on this machine then plans from what this one made.
    let _guild_lock = session.lock_guild(&session.guild_id).await?;
    let reviewed = match &reviewed_path {
        Some(path) => Some(read_reviewed_plan(path, &loaded, &session.guild_id)?),
        None => None,
    };
    let snap = fetch(&session, &loaded.manifest).await?;
    let request = ApplyRequest {
        reviewed: reviewed.as_ref(),
        options: PlanOptions {
            allow_deletes,
            allow_policy_changes,
            ..target
                .plan_options_for(&loaded)
                .with_api_base(session.client.api_base())
        },
        rehearse: (!no_rehearse)
            .then(|| rehearsal_options(target))
            .transpose()?,
    };
    let color = target.conn.color_out();
    // The plan this run executes is always the one it derives here.
    let plan = match ops::plan_for_apply(&loaded, &snap, request).await {
        Ok(plan) => plan,
        Err(ApplyRefused::Plan(e)) => return Err(refused(target, &loaded, &e)),
        Err(e @ ApplyRefused::NotReviewed(_)) => {
            let path = reviewed_path.as_deref().unwrap_or(Path::new("-"));
            bail!("{e} (reviewed plan: {})", path.display())
        }
        Err(e) => {
            // A refused plan is shown with its refusal, as it would have run.
            if let Some(plan) = e.plan() {
                annotate_rehearsal_refusal(target, &loaded, plan)?;
                guildctl::out!(
                    "{}",
                    report::render(plan, Format::Text, Heading::Plan, color)
                );
            }
            // The plan just shown says the rehearsal's verdict; the error says what failed.
            if let ApplyRefused::RehearsalFailed { plan } = &e
                && let Some(failed) = rehearsal_failed(plan)
            {
                bail!("refusing to apply: {failed}");
            }
            return Err(e.into());
        }
    };
    guildctl::out!(
        "{}",
        report::render(&plan, Format::Text, Heading::Plan, color)
    );
    if plan.is_empty() {
        return Ok(0);
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!("apply needs confirmation: run it in a terminal, or pass --yes");
        }
        eprint!(
            "Apply these changes to {}? [y/N] ",
            inert::terminal(&plan.guild_name)
        );
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("Nothing was changed.");
            return Ok(1);
        }
    }
    let reason = reason.unwrap_or_else(|| default_reason(target.file()));
    let options = apply::ApplyOptions {
        keep_going,
        webhook_urls,
        ..apply::ApplyOptions::new(reason, loaded.dir())
    };
    let mut shown = ApplyProgress::new(
        &session.console,
        plan.operations.len(),
        progress::stderr_wants_bar(),
    );
    super::interrupt::watch(
        &session.client,
        &session.console,
        target.conn.sandbox_state.as_deref(),
    )?;
    let outcome = apply::apply(&session.client, &plan, &options, |p| shown.event(p)).await;
    shown.finish();
    // Saved whatever the outcome: the calls that were made changed the guild.
    session.save_sandbox(&target.conn)?;
    let urls_lost = webhook_urls_report(&outcome, session.sandbox.is_some());
    guildctl::outln!(
        "\nApplied {} of {} calls; {} failed, {} skipped.",
        outcome.count(Status::Done),
        plan.operations.len(),
        outcome.count(Status::Failed),
        outcome.count(Status::Skipped)
    );
    for (i, note) in &outcome.notes {
        let line = format!("{}: {note}", plan.operations[*i].summary);
        guildctl::outln!("Note: {}", inert::terminal(&line));
    }
    if outcome.interrupted || session.client.is_stopped() {
        for line in interrupted_report(&plan, &outcome, reviewed.is_some()) {
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
        for (i, e) in &outcome.failures {
            let line = format!("{}: {e}", plan.operations[*i].summary);
            guildctl::outln!("  {}", inert::terminal(&line));
        }
        let skipped: Vec<&str> = outcome
            .statuses
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == Status::Skipped)
            .map(|(i, _)| plan.operations[i].summary.as_str())
            .collect();
        if !skipped.is_empty() {
            guildctl::outln!("Skipped: {}", inert::terminal(&skipped.join(", ")));
        }
        if let Some(message) = urls_lost {
            bail!("{message}");
        }
        bail!(
            "{} call(s) failed; the calls marked done were made. Run `guildctl apply` again once the cause is fixed to finish",
            outcome.failures.len()
        );
    }
    if session.sandbox.is_some() {
        // In the sandbox, show that one apply converges.
        let after = match fetch(&session, &loaded.manifest).await {
            Ok(after) => after,
            // Interrupted once every call was over: nothing is left undone.
            Err(_) if session.client.is_stopped() => {
                guildctl::outln!("Interrupted before the fresh plan against the sandbox.");
                return Ok(EXIT_INTERRUPTED);
            }
            Err(e) => return Err(e),
        };
        match plan::diff_loaded(&loaded, &after, &target.plan_options()) {
            Ok(p) if p.is_empty() => {
                guildctl::outln!("A fresh plan against the sandbox shows no changes.")
            }
            Ok(p) => guildctl::outln!("A fresh plan still shows: {}", report::summary_line(&p)),
            Err(e) => guildctl::outln!(
                "A fresh plan was refused: {}",
                inert::terminal(&e.to_string())
            ),
        }
    }
    Ok(0)
}

/// What an interrupted run did not do, and how to finish: the calls never sent, those
/// stopped before Discord confirmed them, those that failed. `reviewed`: the run applied
/// a reviewed plan (`--plan`), which no longer matches what is left.
pub(crate) fn interrupted_report(
    plan: &plan::Plan,
    outcome: &apply::Outcome,
    reviewed: bool,
) -> Vec<String> {
    let summaries = |keep: &dyn Fn(usize, Status) -> bool| -> Vec<&str> {
        outcome
            .statuses
            .iter()
            .enumerate()
            .filter(|&(i, s)| keep(i, *s))
            .map(|(i, _)| plan.operations[i].summary.as_str())
            .collect()
    };
    let not_done = outcome.statuses.len() - outcome.count(Status::Done);
    let mut lines = vec![if not_done == 0 {
        "Interrupted, after every call was made.".to_owned()
    } else {
        format!("Interrupted: {not_done} call(s) not made.")
    }];
    let unconfirmed = |i: usize| outcome.unconfirmed.contains(&i);
    let not_sent = summaries(&|i, s| s != Status::Done && s != Status::Failed && !unconfirmed(i));
    if !not_sent.is_empty() {
        lines.push(format!(
            "Not sent: {}",
            inert::terminal(&not_sent.join(", "))
        ));
    }
    let maybe = summaries(&|i, _| unconfirmed(i));
    if !maybe.is_empty() {
        lines.push(format!(
            "Stopped before Discord confirmed them (an earlier try may have been made): {}",
            inert::terminal(&maybe.join(", "))
        ));
    }
    for (i, e) in &outcome.failures {
        let line = format!("{}: {e}", plan.operations[*i].summary);
        lines.push(format!("Failed: {}", inert::terminal(&line)));
    }
    if not_done > 0 {
        lines.push(
            "Run `guildctl apply` again to finish: it plans again from the guild as it is now, so it makes only what is still missing.".to_owned(),
        );
        if reviewed {
            lines.push(
                "The reviewed plan (--plan) no longer matches what is left, so apply refuses it: review a plan of the rest, or apply without --plan.".to_owned(),
            );
        }
    }
    lines
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
