//! Policies (`policies:`) judged on the guild a plan leaves ([`crate::access::policy`]): a
//! breach is a problem that refuses the plan, placed on the manifest line that causes it —
//! the change that makes it so, else the declaration that keeps it, else the policy itself.

use super::field::{self, Field};
use super::{Change, Plan, Problem, Warning};
use crate::access::policy::{self, Breach, Certainty};
use crate::access::{Guild, model::Role};
use crate::manifest::Manifest;
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

/// Judges the policies of `desired` on `after`, the guild the plan leaves: records the kept
/// ones and the warnings on the plan, and returns a problem per breach.
pub fn judge(desired: &Manifest, snap: &Snapshot, after: &Guild, plan: &mut Plan) -> Vec<Problem> {
    let policies = declared(desired);
    if policies.is_empty() {
        return Vec::new();
    }
    let count = |r: &Role| holders(snap, after, r);
    let verdict = policy::judge(&policies, after, &count, Certainty::Whole);
    plan.policies_kept = verdict.kept;
    plan.warnings
        .extend(verdict.warnings.into_iter().map(|(at, message)| Warning {
            message,
            source: Some(at),
        }));
    let mut problems: Vec<Problem> = verdict
        .unjudged
        .into_iter()
        .map(|(at, message)| Problem {
            policy: None,
            message,
            source: Some(at),
            help: Some("correct the policy, or declare what it names".into()),
        })
        .collect();
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
fn change_place(c: &Change) -> Option<String> {
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
