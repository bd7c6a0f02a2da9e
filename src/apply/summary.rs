//! What an apply's calls came to, in words: the lines a single guild's apply and
//! `apply --all` print alike for a guild.

use super::{Outcome, Status};
use crate::inert;
use crate::plan::Plan;

/// `Applied D of T calls; F failed, S skipped.`
pub fn counts_line(plan: &Plan, outcome: &Outcome) -> String {
    format!(
        "Applied {} of {} calls; {} failed, {} skipped.",
        outcome.count(Status::Done),
        plan.operations.len(),
        outcome.count(Status::Failed),
        outcome.count(Status::Skipped)
    )
}

/// What calls that succeeded left undone on purpose, one line each: `Note: CALL: NOTE`.
pub fn notes(plan: &Plan, outcome: &Outcome) -> Vec<String> {
    per_call(plan, &outcome.notes)
        .map(|line| format!("Note: {line}"))
        .collect()
}

/// The failed calls, each `CALL: ERROR`, made inert.
pub fn failures(plan: &Plan, outcome: &Outcome) -> Vec<String> {
    per_call(plan, &outcome.failures).collect()
}

/// `CALL: WHAT` for each call (by index) and what is said of it, made inert: the error
/// text and the names in a call's summary may come from outside.
fn per_call<'a, T: std::fmt::Display>(
    plan: &'a Plan,
    said: &'a [(usize, T)],
) -> impl Iterator<Item = String> + 'a {
    said.iter().map(|(i, what)| {
        let line = format!("{}: {what}", plan.operations[*i].summary);
        inert::terminal(&line).into_owned()
    })
}

/// `Skipped: a, b` for the calls a failure left unmade, when there are any.
pub fn skipped(plan: &Plan, outcome: &Outcome) -> Option<String> {
    let skipped: Vec<&str> = outcome
        .statuses
        .iter()
        .enumerate()
        .filter(|(_, s)| **s == Status::Skipped)
        .map(|(i, _)| plan.operations[i].summary.as_str())
        .collect();
    (!skipped.is_empty()).then(|| format!("Skipped: {}", inert::terminal(&skipped.join(", "))))
}

/// What an interrupted run did not do, and how to finish: the calls never sent, those
/// stopped before Discord confirmed them, those that failed. `reviewed`: the run applied
/// a reviewed plan (`--plan`), which no longer matches what is left.
pub fn interrupted_report(plan: &Plan, outcome: &Outcome, reviewed: bool) -> Vec<String> {
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
