//! What Discord would refuse of a plan's roster and ban calls: the bot gives, takes and bans
//! only below its highest role (docs/discord.md §3.4).

use std::collections::BTreeSet;

use crate::discord::Route;
use crate::plan::{Plan, Problem};
use crate::snapshot::Snapshot;

/// What Discord would refuse of the roster calls: the bot gives and takes only roles strictly
/// below its highest role (docs/discord.md §3.4).
pub(crate) fn check(plan: &Plan, snap: &Snapshot) -> Vec<Problem> {
    let Some(top) = snap.bot_top_rank() else {
        return Vec::new();
    };
    let ranked = snap.roles_by_rank();
    let bot_role = ranked.get(top).map(|r| r.name.as_str()).unwrap_or("");
    let mut refused: BTreeSet<&str> = BTreeSet::new();
    let mut problems = Vec::new();
    for op in &plan.operations {
        let (Route::AddMemberRole { role, .. } | Route::RemoveMemberRole { role, .. }) = &op.route
        else {
            continue;
        };
        let Some(role) = role.live() else {
            continue;
        };
        let Some(rank) = ranked.iter().position(|r| r.id == role) else {
            continue;
        };
        if rank > top || !refused.insert(role) {
            continue;
        }
        let change = &plan.changes[op.change];
        problems.push(Problem {
            policy: None,
            message: format!(
                "the roster of `{}` cannot be applied: the role is at or above the bot's highest role `{bot_role}`, so the bot can neither give nor take it",
                ranked[rank].name
            ),
            source: change.source.clone(),
            help: Some(
                "move the bot's role above this role in Discord, or remove `members` from it"
                    .into(),
            ),
        });
    }
    // Discord refuses to ban a member whose highest role is not below the bot's (§3.4).
    let people = snap.people.as_ref();
    for c in plan.changes.iter().filter(|c| c.bans_member()) {
        let Some(user) = c.object.id.as_deref() else {
            continue;
        };
        let held = people
            .and_then(|p| p.declared.get(user))
            .cloned()
            .flatten()
            .unwrap_or_default();
        let Some(rank) = ranked.iter().position(|r| held.contains(&r.id)) else {
            continue;
        };
        if rank > top {
            continue;
        }
        problems.push(Problem {
            policy: None,
            message: format!(
                "`bans` cannot ban {} (user {user}): their role `{}` is at or above the bot's highest role `{bot_role}`, so Discord refuses",
                c.object.name, ranked[rank].name
            ),
            source: c.source.clone(),
            help: Some("remove this entry, or have someone ranked above them ban them by hand".into()),
        });
    }
    problems
}
