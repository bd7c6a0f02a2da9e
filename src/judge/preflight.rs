//! Preflight: every operation of a plan is checked against what Discord
//! would refuse (missing permissions, role hierarchy, grants the bot cannot
//! make, limits), so a refused plan fails before its first call.

use serde_json::Value;

use crate::discord::Route;
use crate::permissions::Permissions;
use crate::plan::{Action, Live, Plan, Problem, created_key};
use crate::snapshot::Snapshot;

/// Discord's limits (docs/discord.md §2.3, §4.6).
pub const MAX_ROLES: usize = 250;
pub const MAX_CHANNELS: usize = 500;

/// `after` is the guild the plan leaves, as access sees it (the channel gates judge calls
/// made after every role and channel write on it).
pub fn check(plan: &Plan, snap: &Snapshot, after: &crate::access::Guild) -> Vec<Problem> {
    let mut problems = Vec::new();
    let bot = snap.bot_permissions();
    let admin = bot == Permissions::ALL;
    let ranked = snap.roles_by_rank();
    let rank_of: hashbrown::HashMap<&str, usize> = ranked
        .iter()
        .enumerate()
        .rev()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let top = snap.bot_top_rank();
    let bot_role = top.and_then(|t| ranked.get(t)).map(|r| r.name.clone());
    let guild = &snap.guild.id;

    // The names of what `bits` holds that the bot does not.
    let beyond_bot = |bits: Permissions| {
        let missing = Permissions(bits.0 & !bot.0);
        (!missing.is_empty()).then(|| missing.display_names().join(", "))
    };
    let mut seen_need: Vec<&str> = Vec::new();
    for op in &plan.operations {
        let change = &plan.changes[op.change];
        let object = format!("{} `{}`", change.object.kind.label(), change.object.name);
        let mut fail = |message: String, help: &str| {
            problems.push(Problem {
                policy: None,
                message,
                source: change.source.clone(),
                help: Some(help.to_owned()),
            })
        };
        let needed = op
            .route
            .permissions()
            .iter()
            .chain(overwrite_permissions(op))
            .chain(automod_permissions(op))
            .chain(event_permissions(op, snap));
        for (name, perm) in needed {
            if !bot.contains(*perm) && !seen_need.contains(name) {
                seen_need.push(name);
                fail(
                    format!("the bot lacks `{name}`, which {} needs", op.summary),
                    "grant the bot's role this permission in Discord",
                );
            }
        }

        // Hierarchy: the bot edits and deletes only roles strictly below its highest.
        let (edited, deletes) = match &op.route {
            Route::UpdateRole { role, .. } => (role.live(), false),
            Route::DeleteRole { role, .. } => (role.live(), true),
            _ => (None, false),
        };
        if let Some(target_id) = edited
            && target_id != guild.as_str()
        {
            let rank = rank_of.get(target_id).copied();
            if let (Some(rank), Some(top)) = (rank, top)
                && rank <= top
            {
                let bot_role = bot_role.clone().unwrap_or_default();
                if deletes {
                    fail(
                        format!(
                            "`prune.roles` would delete {object}, which is at or above the bot's highest role `{bot_role}`, so the bot cannot delete it"
                        ),
                        &format!(
                            "to keep it, declare it at the top of `roles` with `protect: true` (`- {{ name: {:?}, protect: true }}`); to let guildctl delete it, move the bot's role above it in Discord",
                            change.object.name
                        ),
                    );
                } else {
                    fail(
                        format!(
                            "{object} is at or above the bot's highest role `{bot_role}`, so the bot cannot edit it"
                        ),
                        "leave this role's fields out of the manifest, or move the bot's role above it in Discord",
                    );
                }
            }
            if deletes && snap.role(target_id).is_some_and(|r| r.managed) {
                fail(
                    format!("{object} is managed by an integration and cannot be deleted"),
                    "remove it from the manifest's deletions",
                );
            }
        }

        // An emoji, sound or sticker another uploaded (or whose uploader Discord did not show) needs
        // `manage_guild_expressions` besides the route's `create_guild_expressions`.
        let uploader = match (change.action, change.object.kind.live()) {
            (Action::Update | Action::Delete, Live::Listed(list)) => change
                .object
                .id
                .as_deref()
                .and_then(|id| snap.uploader(list, id)),
            _ => None,
        };
        if let Some(uploader) = uploader
            && uploader.is_none_or(|u| u.id != snap.bot.id)
            && !bot.contains(Permissions::MANAGE_GUILD_EXPRESSIONS)
        {
            let by = uploader.map_or("someone the bot cannot see".to_owned(), |u| {
                u.username.clone()
            });
            fail(
                format!(
                    "the bot lacks `manage_guild_expressions`, which {} needs: {by} uploaded it, not the bot",
                    op.summary
                ),
                "grant the bot's role `manage_guild_expressions` in Discord, or leave it out of the manifest",
            );
        }
        let Some(body) = &op.body else { continue };
        if let Some(p) = body.get("permissions").and_then(perm_value)
            && let Some(missing) = beyond_bot(p)
        {
            fail(
                format!("{object} would get permissions the bot does not have: {missing}"),
                "Discord lets a bot grant only permissions it holds: grant them to the bot's role, or remove them here",
            );
        }
        for ow in body
            .get("permission_overwrites")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let bits = ["allow", "deny"]
                .iter()
                .filter_map(|k| ow.get(*k).and_then(perm_value))
                .fold(Permissions::NONE, |a, b| a | b);
            if let Some(missing) = beyond_bot(bits) {
                fail(
                    format!(
                        "an overwrite on {object} allows or denies permissions the bot does not have: {missing}"
                    ),
                    "grant them to the bot's role, or remove them from the overwrite",
                );
            } else if bits.contains(Permissions::MANAGE_ROLES) && !admin {
                fail(
                    format!(
                        "an overwrite on {object} sets `manage_roles`, which only administrators may put in an overwrite"
                    ),
                    "give the bot Administrator, or remove `manage_roles` from the overwrite",
                );
            }
        }
        let features = body.get("features").and_then(Value::as_array);
        let community_now = snap.guild.has_feature("COMMUNITY");
        let community_after = features.map(|f| f.iter().any(|v| v == "COMMUNITY"));
        if community_after.is_some_and(|c| c != community_now) && !admin {
            fail(
                "turning COMMUNITY on or off needs a bot with Administrator".into(),
                "give the bot's role Administrator, or leave `community` out",
            );
        }
    }

    let count = |is: fn(&Route<crate::plan::IdRef>) -> bool| {
        plan.operations.iter().filter(|o| is(&o.route)).count()
    };
    let count_after = |live: usize, creates: usize, deletes: usize| live + creates - deletes;
    let limits = [
        (
            "roles",
            count_after(
                snap.guild.roles.len(),
                count(|r| matches!(r, Route::CreateRole { .. })),
                count(|r| matches!(r, Route::DeleteRole { .. })),
            ),
            MAX_ROLES,
        ),
        (
            "channels",
            count_after(
                snap.channels.len(),
                count(|r| matches!(r, Route::CreateChannel { .. })),
                count(|r| matches!(r, Route::DeleteChannel { .. })),
            ),
            MAX_CHANNELS,
        ),
    ];
    for (what, then, max) in limits {
        if then > max {
            problems.push(Problem {
                policy: None,
                message: format!("the guild would have {then} {what}; Discord allows {max}"),
                source: Some(what.into()),
                help: Some(format!("declare fewer {what}, or prune unused ones")),
            });
        }
    }
    problems.extend(super::member_preflight::check(plan, snap));
    problems.extend(crate::judge::channel_preflight::check(plan, snap, after));
    problems.extend(crate::judge::channel_preflight::sight(snap, after));
    problems
}

/// What a channel call needs beyond its route: setting overwrites needs `manage_roles`
/// (Discord's Modify Channel: "If modifying permission overwrites, the MANAGE_ROLES
/// permission is required"; on create, when there are any), and so does syncing a moved
/// channel with its category (`lock_permissions`).
fn overwrite_permissions(op: &crate::plan::Operation) -> &'static [(&'static str, Permissions)] {
    const ROLES: &[(&str, Permissions)] = &[("manage_roles", Permissions::MANAGE_ROLES)];
    let body = op.body.as_ref();
    let overwrites = body
        .and_then(|b| b.get("permission_overwrites"))
        .and_then(Value::as_array)
        .is_some_and(|o| matches!(op.route, Route::UpdateChannel { .. }) || !o.is_empty());
    let locks = body.and_then(Value::as_array).is_some_and(|items| {
        items
            .iter()
            .any(|i| i.get("lock_permissions") == Some(&Value::Bool(true)))
    });
    if overwrites || locks { ROLES } else { &[] }
}

/// What an AutoMod rule's call needs beyond `manage_guild`: a rule with a timeout action
/// needs `moderate_members` (Discord's resources/auto-moderation, "Action Types").
fn automod_permissions(op: &crate::plan::Operation) -> &'static [(&'static str, Permissions)] {
    const MODERATE: &[(&str, Permissions)] = &[("moderate_members", Permissions::MODERATE_MEMBERS)];
    let times_out = op
        .body
        .as_ref()
        .and_then(|b| b.get("actions"))
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|a| a["type"] == 3));
    let rule = matches!(
        op.route,
        Route::CreateAutoModRule { .. } | Route::UpdateAutoModRule { .. }
    );
    if rule && times_out { MODERATE } else { &[] }
}

/// What a change to a scheduled event needs beyond `create_events`: `manage_events` for an
/// event someone else made (Discord split the two on 2026-02-23).
fn event_permissions(
    op: &crate::plan::Operation,
    snap: &Snapshot,
) -> &'static [(&'static str, Permissions)] {
    const MANAGE: &[(&str, Permissions)] = &[("manage_events", Permissions::MANAGE_EVENTS)];
    let event = match &op.route {
        Route::UpdateScheduledEvent { event, .. } | Route::DeleteScheduledEvent { event, .. } => {
            event.live()
        }
        _ => None,
    };
    let others = event
        .and_then(|id| snap.events.iter().flatten().find(|e| e.id == id))
        .is_some_and(|e| e.creator_id.as_deref() != Some(snap.bot.id.as_str()));
    if others { MANAGE } else { &[] }
}

/// A permission value in a request body; `{"$created": ..}` placeholders are never permissions.
fn perm_value(v: &Value) -> Option<Permissions> {
    if created_key(v).is_some() {
        return None;
    }
    serde_json::from_value(v.clone()).ok()
}
