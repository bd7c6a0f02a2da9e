//! Policies (`policies:`) judged on the guild a plan leaves ([`crate::access::policy`]): a
//! breach is a problem that refuses the plan, placed on the manifest line that causes it —
//! the change that makes it so, else the declaration that keeps it, else the policy itself.
//!
//! Each policy is judged as it is, and as it was before the change on what it covered
//! before the plan ([`crate::judge::policy_changes`]): a plan that loosens a policy, or takes a
//! channel or role out of one, is refused when it also does, there, what the policy forbade
//! (a breach the live guild already had is the live guild's, said by drift).

use super::policy_changes::Review;
use crate::access::policy::{self, Breach, Certainty};
use crate::access::{Guild, model::Role};
use crate::manifest::Manifest;
use crate::plan::field::{self, Field};
use crate::plan::policy_change::PolicyChangeKind;
use crate::plan::{Change, Plan, Problem, Warning};
use crate::snapshot::Snapshot;

/// The manifest's policies, each with where it is declared.
pub fn declared(m: &Manifest) -> Vec<(String, &crate::manifest::Policy)> {
    m.policies
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, p)| (format!("policies[{i}]"), p))
        .collect()
}

/// The members holding `r`: a roster's, when the role has one (and any holder the reads
/// could not name, who keeps it); else the live count, when it was read.
pub fn holders(snap: &Snapshot, g: &Guild, r: &Role) -> Option<u64> {
    let people = snap.people.as_ref();
    if r.rostered {
        let unnamed = people.map_or(0, |p| p.unnamed_holders(&r.id));
        return Some(g.holders(&r.id) as u64 + unnamed);
    }
    if snap.role(&r.id).is_none() {
        // A role the plan creates: nobody holds it yet.
        return Some(0);
    }
    people?.role_counts.as_ref()?.get(&r.id).copied()
}

/// Judges the policies of `desired` on `after`, the guild the plan leaves, and the policies
/// as they were (`review.before`) there too, on what they covered on `live`: records the
/// kept ones (none the change touched) and the warnings on the plan, and returns a problem
/// per breach.
pub fn judge(
    desired: &Manifest,
    snap: &Snapshot,
    live: &Guild,
    after: &Guild,
    review: &Review,
    plan: &mut Plan,
) -> Vec<Problem> {
    let policies = declared(desired);
    let count = |r: &Role| holders(snap, after, r);
    let verdict = policy::judge(&policies, after, &count, Certainty::Whole);
    let mut problems = judge_before(
        review,
        &verdict.breaches,
        &policies,
        snap,
        live,
        after,
        plan,
    );
    // "Kept" is never said of a policy the change touched: the policy changes say it.
    let touched = |name: &String| {
        review.changes.iter().any(|c| {
            c.policy == *name || matches!(&c.what, PolicyChangeKind::Renamed { to } if to == name)
        })
    };
    plan.policies_kept = verdict.kept.into_iter().filter(|n| !touched(n)).collect();
    plan.warnings
        .extend(verdict.warnings.into_iter().map(|(at, message)| Warning {
            message,
            source: Some(at),
        }));
    problems.extend(verdict.unjudged.into_iter().map(|(at, message)| Problem {
        policy: None,
        message,
        source: Some(at),
        help: Some("correct the policy, or declare what it names".into()),
    }));
    problems.extend(verdict.breaches.iter().map(|b| Problem {
        policy: Some(b.policy.clone()),
        message: format!(
            "policy `{}` ({}) is broken once the plan is applied: {}",
            b.policy, b.policy_at, b.what
        ),
        source: Some(cause(b, plan, after).unwrap_or_else(|| b.policy_at.clone())),
        help: Some(
            "change the manifest so the guild keeps the policy (or change the policy in review); nothing was sent"
                .into(),
        ),
    }));
    problems
}

/// The breaches of the policies as they were, judged on `after` with what they covered on
/// `live` carried over, that neither the live guild had (its own breach, drift's) nor the
/// policies as they are already say (`now`).
fn judge_before(
    review: &Review,
    now: &[Breach],
    policies: &[(String, &crate::manifest::Policy)],
    snap: &Snapshot,
    live: &Guild,
    after: &Guild,
    plan: &Plan,
) -> Vec<Problem> {
    if review.before.is_empty() {
        return Vec::new();
    }
    let before: Vec<(String, &crate::manifest::Policy)> = review
        .before
        .iter()
        .map(|(at, p, _)| (at.clone(), p))
        .collect();
    let carried: Vec<policy::Carried> = review.before.iter().map(|(_, _, c)| c.clone()).collect();
    let count_after = |r: &Role| holders(snap, after, r);
    let count_live = |r: &Role| holders(snap, live, r);
    let then = policy::judge_carried(&before, &carried, after, &count_after, Certainty::Whole);
    let had = policy::judge(&before, live, &count_live, Certainty::Whole);
    let key = |b: &Breach, g: &Guild| {
        (
            b.policy.clone(),
            b.at.role.clone(),
            b.at.user.clone(),
            b.at.channel
                .and_then(|i| g.channels.get(i))
                .map(|c| c.id.clone()),
            b.permissions.clone(),
        )
    };
    let live_keys: Vec<_> = had.breaches.iter().map(|b| key(b, live)).collect();
    let mut out: Vec<Problem> = Vec::new();
    for b in then.breaches {
        if live_keys.contains(&key(&b, after))
            || now.iter().any(|n| n.policy == b.policy && n.what == b.what)
            || out
                .iter()
                .any(|p| p.message.contains(&b.what) && p.policy.as_ref() == Some(&b.policy))
        {
            continue;
        }
        let current = policies.iter().find(|(_, p)| p.name == b.policy);
        let same_text = current.is_some_and(|(_, p)| {
            review
                .before
                .iter()
                .any(|(_, was, _)| was.name == p.name && was == *p)
        });
        let (message, help) = if same_text {
            (
                format!(
                    "policy `{}` ({}) is broken once the plan is applied: {}, which the policy covers until this plan takes it out (a plan is judged by what its policies covered before it too)",
                    b.policy,
                    current.map_or("", |(at, _)| at.as_str()),
                    b.what
                ),
                "move or rename it out of the policy in a plan of its own (reviewed, and allowed by the policy gate), then make this change; nothing was sent",
            )
        } else {
            (
                format!(
                    "policy `{}`, as it was before this change ({}), is broken once the plan is applied: {} (a plan that removes or loosens a policy is still judged by the policy as it was)",
                    b.policy, b.policy_at, b.what
                ),
                "change the policy in a plan of its own (reviewed, and allowed by the policy gate), then make this change; nothing was sent",
            )
        };
        let source = cause(&b, plan, after).or_else(|| current.map(|(at, _)| at.clone()));
        out.push(Problem {
            policy: Some(b.policy.clone()),
            message,
            source,
            help: Some(help.into()),
        });
    }
    out
}

/// Where in the manifest the breach comes from: the latest change of the plan that makes it
/// so, else the declaration that keeps it (a channel's overwrites, a role's permissions or
/// roster); `None` when the manifest does not speak of it (the live guild breaks the policy
/// and the plan leaves it).
fn cause(b: &Breach, plan: &Plan, after: &Guild) -> Option<String> {
    let mut changes: Vec<usize> = Vec::new();
    let channel = b.at.channel.and_then(|i| after.channels.get(i));
    if let Some(c) = channel {
        changes.extend(&c.changed_by);
        if let Some(p) = c.parent.as_deref().and_then(|p| after.channel(p)) {
            changes.extend(&p.changed_by);
        }
    }
    let role = b.at.role.as_deref().and_then(|r| after.role(r));
    if let Some(r) = role {
        changes.extend(&r.changed_by);
    }
    if let Some(m) = b.at.user.as_deref().and_then(|u| after.members.get(u)) {
        changes.extend(&m.changed_by);
    }
    if let Some(path) = changes
        .iter()
        .max()
        .and_then(|&i| plan.changes.get(i))
        .and_then(change_place)
    {
        return Some(path);
    }
    if let Some(c) = channel.filter(|c| c.overwrites_known)
        && let Some(source) = &c.source
    {
        return Some(format!("{source}.overwrites"));
    }
    let r = role?;
    let source = r.source.as_ref()?;
    Some(
        if r.rostered && b.channel.is_none() && b.permissions.is_empty() {
            format!("{source}.members")
        } else {
            format!("{source}.permissions")
        },
    )
}

/// The manifest line of a change that touches access: its overwrites, its permissions, its
/// roster line, else the object.
pub(crate) fn change_place(c: &Change) -> Option<String> {
    let source = c.source.as_ref()?;
    let permissions = c
        .fields
        .iter()
        .any(|f| f.field == Field::Role(field::Role::Permissions));
    let overwrites = c.fields.iter().any(|f| f.field.is_overwrites());
    let place = if permissions {
        format!("{source}.permissions")
    } else if overwrites {
        format!("{source}.overwrites")
    } else {
        source.clone()
    };
    Some(place)
}
