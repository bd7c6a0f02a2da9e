//! Rosters (`roles[].members`: exactly these users hold the role) and bans (`bans:`, lifted
//! only under `prune.bans`), planned from the reads of [`crate::snapshot::people`].
//!
//! Each user given or taken a role is one change (a roster entry, named `Role ← user`), each
//! ban or unban one change, so the deletion gate counts roster removals, unbans and bans of
//! members one by one. Roles are given and taken one call each; new bans go out in bulk calls
//! of at most 200 users sharing a reason (the audit-log reason is per call), a lone ban with
//! Create Guild Ban.
//!
//! Every user a change names is shown as Discord knows them ([`Person`]: live username, id,
//! membership, and for a member to be banned the roles they hold): the manifest's `name` is a
//! comment, and a plan warns where it is not the user's username or names two users. The
//! guild's owner and the bot itself are never banned.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::discord::Route;
use crate::manifest::{Role, RosterMember};
use crate::permissions::Permissions;
use crate::plan::{Action, Change, FieldChange, HeldRole, IdRef, Kind, Person, Phase};
use crate::plan_kit::context::{Ctx, Op, change};
use crate::snapshot::{Snapshot, role_rank_cmp};

/// Users one Bulk Guild Ban may name (reference, Limits).
pub const BULK_BAN_MAX: usize = 200;

/// The name a user is shown by: their username as read, else their id (Discord knows no
/// such user). Never the manifest's `name`, which is a comment.
fn shown(cx: &Ctx, user: &str) -> String {
    username(cx, user).unwrap_or_else(|| user.to_owned())
}

/// `user` as the plan read them: their username, whether they are a member, and the
/// manifest's `name` for them when it is not their username (compared without case, as
/// Discord's usernames are lower case). For a member to be banned, also the roles they hold.
fn person(cx: &Ctx, user: &str, manifest_name: Option<&str>, ban: bool) -> Person {
    let people = cx.snap.people.as_ref();
    let username = people.and_then(|p| p.usernames.get(user)).cloned();
    let held = people.and_then(|p| p.declared.get(user)).cloned().flatten();
    let misnamed = |name: &&str| {
        username
            .as_deref()
            .is_none_or(|u| !u.eq_ignore_ascii_case(name))
    };
    let roles = match (&held, ban) {
        (Some(ids), true) => held_roles(cx, ids),
        _ => Vec::new(),
    };
    Person {
        member: held.is_some(),
        roles,
        named_in_manifest: manifest_name.filter(misnamed).map(str::to_owned),
        username,
    }
}

/// The roles among `ids` the guild has, highest first, with their dangerous permissions.
fn held_roles(cx: &Ctx, ids: &[String]) -> Vec<HeldRole> {
    // Sorted alone, not picked from the whole ranking: a ban list may name thousands.
    let mut roles: Vec<_> = ids.iter().filter_map(|id| cx.snap.role(id)).collect();
    roles.sort_by(|a, b| role_rank_cmp(&cx.snap.guild.id, a, b));
    roles
        .into_iter()
        .map(|r| HeldRole {
            name: r.name.clone(),
            dangerous: r
                .permissions
                .dangerous_names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
        .collect()
}

/// `ivan (user 19)`, or `user 19 (no user Discord knows)`: a user in a warning's words.
fn who(person: &Person, user: &str) -> String {
    match &person.username {
        Some(name) => format!("{name} (user {user})"),
        None => format!("user {user} (no user Discord knows)"),
    }
}

/// Warns, at the entry's `name`, that the manifest's name for `user` is not their username.
fn warn_misnamed(cx: &mut Ctx, person: &Person, user: &str, entry: &str) {
    let Some(name) = &person.named_in_manifest else {
        return;
    };
    let live = match &person.username {
        Some(u) => format!("their username is `{u}`"),
        None => "Discord knows no user with this id".to_owned(),
    };
    cx.warn(
        Some(format!("{entry}.name")),
        format!(
            "the manifest calls user {user} `{name}`, but {live}: `name` is a comment, and the plan shows them as Discord knows them"
        ),
    );
}

pub(super) fn plan_rosters(cx: &mut Ctx) {
    let Some(roles) = cx.manifest.roles.clone() else {
        return;
    };
    for (i, d) in roles.iter().enumerate() {
        let Some(members) = &d.members else { continue };
        let source = format!("roles[{i}].members");
        let Some(people) = cx.snap.people.clone() else {
            cx.problem(
                Some(source),
                format!("the roster of `{}` was not read from the guild", d.name),
                Some("plan through `guildctl plan`, which reads the members a roster names"),
            );
            continue;
        };
        let Some(role) = cx.role_ids.get(&d.name).cloned() else {
            continue;
        };
        if let IdRef::Live(id) = &role
            && cx.snap.role(id).is_some_and(|r| r.managed)
        {
            cx.problem(
                Some(source),
                format!(
                    "`{}` is a managed role (a bot's, an integration's or the booster role): Discord gives and takes it, so it cannot have a roster",
                    d.name
                ),
                Some("remove `members` from this role"),
            );
            continue;
        }
        cx.access_after.mark_rostered(role.key());
        // By id, each with its first entry (validation refuses a user listed twice).
        let mut declared: BTreeMap<&str, (usize, &RosterMember)> = BTreeMap::new();
        for (k, m) in members.iter().enumerate() {
            declared.entry(m.id.0.as_str()).or_insert((k, m));
        }
        let grants = dangerous_after(cx, d, &role);
        let held = match &role {
            IdRef::Live(id) => people.known_holders(id),
            IdRef::New(_) => BTreeSet::new(),
        };
        for (&user, &(k, m)) in &declared {
            let entry = format!("{source}[{k}]");
            match people.declared.get(user) {
                Some(Some(_)) if held.contains(user) => {}
                Some(Some(_)) => {
                    let person = person(cx, user, m.name.as_deref(), false);
                    warn_misnamed(cx, &person, user, &entry);
                    give(cx, &role, &d.name, (user, person), &grants, &entry)
                }
                _ => {
                    let person = person(cx, user, m.name.as_deref(), false);
                    warn_misnamed(cx, &person, user, &entry);
                    cx.warn(
                        Some(entry),
                        format!(
                            "{} on the roster of `{}` is not a member of the guild (left, or never joined): nothing to give",
                            who(&person, user),
                            d.name
                        ),
                    );
                }
            }
        }
        for user in held.iter().filter(|u| !declared.contains_key(u.as_str())) {
            take(cx, &role, &d.name, user, &source);
        }
        if let IdRef::Live(id) = &role {
            let unnamed = people.unnamed_holders(id);
            if unnamed > 0 {
                cx.warn(
                    Some(source.clone()),
                    format!(
                        "{unnamed} member(s) hold `{}` without being on its roster, and the bot cannot list members to name them: its application lacks the GUILD_MEMBERS privileged intent. Only the declared members are managed; they keep the role until the intent is enabled (Developer Portal > Bot > Server Members Intent) and a plan takes it from them",
                        d.name
                    ),
                );
            }
        }
    }
}

/// The username Discord gave `user`, when it was read.
fn username(cx: &Ctx, user: &str) -> Option<String> {
    cx.snap
        .people
        .as_ref()
        .and_then(|p| p.usernames.get(user))
        .cloned()
}

fn member_role(cx: &Ctx, user: &str, role: &IdRef, give: bool) -> Route<IdRef> {
    let (guild, user, role) = (cx.guild(), IdRef::Live(user.to_owned()), role.clone());
    if give {
        Route::AddMemberRole { guild, user, role }
    } else {
        Route::RemoveMemberRole { guild, user, role }
    }
}

/// The dangerous permissions roster role `d` holds once the plan is applied (as declared,
/// else as live), which a member given it gains: the change says so, and the plan's risks
/// read it from there.
fn dangerous_after(cx: &Ctx, d: &Role, role: &IdRef) -> Vec<&'static str> {
    let live = role
        .live()
        .and_then(|id| cx.snap.role(id))
        .map(|r| r.permissions)
        .unwrap_or_default();
    let after = match &d.permissions {
        // Unknown names are the role planner's problem to report.
        Some(names) => names
            .iter()
            .filter_map(|n| Permissions::parse_name(&n.0))
            .fold(live.unnamed(), |a, b| a | b),
        None => live,
    };
    after.dangerous_names()
}

/// Gives roster role `name` to `user`, shown as the plan read them.
fn give(
    cx: &mut Ctx,
    role: &IdRef,
    name: &str,
    holder: (&str, Person),
    grants: &[&str],
    src: &str,
) {
    let fields = if grants.is_empty() {
        vec![]
    } else {
        vec![FieldChange::new(
            crate::plan::field::RosterEntry::Grants,
            serde_json::Value::Null,
            json!(grants),
        )]
    };
    roster_entry(cx, role, name, holder, fields, src, true);
}

fn take(cx: &mut Ctx, role: &IdRef, name: &str, user: &str, src: &str) {
    // A holder: a member, whether read on their own or named by the member listing.
    let person = Person {
        member: true,
        ..person(cx, user, None, false)
    };
    roster_entry(cx, role, name, (user, person), vec![], src, false);
}

/// The change and call that give roster role `name` to `user` (`give`) or take it away.
fn roster_entry(
    cx: &mut Ctx,
    role: &IdRef,
    name: &str,
    (user, person): (&str, Person),
    fields: Vec<FieldChange>,
    src: &str,
    give: bool,
) {
    let who = shown(cx, user);
    let action = if give { Action::Create } else { Action::Delete };
    let idx = cx.push_change(Change {
        person: Some(person),
        ..change(
            action,
            Kind::RosterEntry,
            format!("{name} ← {who}"),
            Some(user.to_owned()),
            fields,
            Some(src.to_owned()),
        )
    });
    let username = username(cx, user);
    if give {
        cx.access_after
            .give_role(user, role.key(), username.as_deref(), idx);
    } else {
        cx.access_after
            .take_role(user, role.key(), username.as_deref(), idx);
    }
    let route = member_role(cx, user, role, give);
    let what = if give {
        format!("give {name} to {who}")
    } else {
        format!("take {name} from {who}")
    };
    cx.push_op(Op::new(Phase::Rosters, idx, route, what));
}

/// New bans sharing a reason: (change index, user id) each.
type ReasonGroup = (Option<String>, Vec<(usize, String)>);

pub(super) fn plan_bans(cx: &mut Ctx) {
    // Borrowed, not cloned: a ban list may hold 10,000 users.
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.bans.as_deref() else {
        return;
    };
    let live = match snap.people.as_ref().and_then(|p| p.bans.as_ref()) {
        Some(live) => live,
        None => {
            cx.problem(
                Some("bans".into()),
                "the guild's bans could not be read (the bot needs `ban_members` to read them)"
                    .into(),
                Some("grant the bot's role `ban_members`, or leave `bans` out of the manifest"),
            );
            return;
        }
    };
    // New bans grouped by reason, in declaration order: one audit-log reason per call.
    let mut by_reason: Vec<ReasonGroup> = Vec::new();
    let mut listed: BTreeSet<&str> = BTreeSet::new();
    for (k, b) in declared.iter().enumerate() {
        listed.insert(b.id.0.as_str());
        if live.contains_key(&b.id.0) {
            continue;
        }
        let entry = format!("bans[{k}]");
        let person = person(cx, &b.id.0, b.name.as_deref(), true);
        if let Some(whom) = unbannable(snap, &b.id.0) {
            cx.problem(
                Some(entry),
                format!(
                    "`bans` names {}, {whom}: guildctl never bans them",
                    who(&person, &b.id.0)
                ),
                Some("remove this entry from `bans`"),
            );
            continue;
        }
        if person.username.is_none() && !person.member {
            cx.problem(
                Some(format!("{entry}.id")),
                format!("`bans` names user {}, and Discord knows no user with this id: it would refuse the ban", b.id.0),
                Some("correct the id (Discord's user ids: Developer Mode, right-click the user, Copy User ID), or remove this entry"),
            );
            continue;
        }
        warn_misnamed(cx, &person, &b.id.0, &entry);
        let who = shown(cx, &b.id.0);
        let fields = match &b.reason {
            Some(r) => vec![FieldChange::new(
                crate::plan::field::Ban::Reason,
                serde_json::Value::Null,
                json!(r),
            )],
            None => vec![],
        };
        let idx = cx.push_change(Change {
            person: Some(person),
            ..change(
                Action::Create,
                Kind::Ban,
                who,
                Some(b.id.0.clone()),
                fields,
                Some(entry),
            )
        });
        match by_reason.iter_mut().find(|(r, _)| *r == b.reason) {
            Some((_, list)) => list.push((idx, b.id.0.clone())),
            None => by_reason.push((b.reason.clone(), vec![(idx, b.id.0.clone())])),
        }
    }
    for (reason, list) in by_reason {
        for batch in list.chunks(BULK_BAN_MAX) {
            let (first, _) = batch[0];
            let guild = cx.guild();
            let (route, body, summary) = if let [(_, user)] = batch {
                let user = IdRef::Live(user.clone());
                (
                    Route::CreateBan { guild, user },
                    json!({}),
                    format!("ban {}", cx.changes[first].object.name),
                )
            } else {
                let ids: Vec<&str> = batch.iter().map(|(_, u)| u.as_str()).collect();
                (
                    Route::BulkBan { guild },
                    json!({ "user_ids": ids }),
                    format!("ban {} users", ids.len()),
                )
            };
            // The ban's reason is the call's audit-log reason, which Discord keeps as the
            // ban's reason.
            cx.push_op(
                Op::new(Phase::Bans, first, route, summary)
                    .body(body)
                    .reason(reason.clone()),
            );
        }
    }
    let unlisted: Vec<(&String, &Option<String>)> = live
        .iter()
        .filter(|(u, _)| !listed.contains(u.as_str()))
        .collect();
    if unlisted.is_empty() {
        return;
    }
    if !cx.manifest.prune.bans {
        for (user, _) in unlisted {
            let name = shown(cx, user);
            cx.unmanaged.push(crate::plan::ObjectRef {
                kind: Kind::Ban,
                name,
                id: Some(user.clone()),
            });
        }
        return;
    }
    for (user, _) in unlisted {
        let who = shown(cx, user);
        let idx = cx.push_change(Change {
            person: Some(person(cx, user, None, false)),
            ..change(
                Action::Delete,
                Kind::Ban,
                who.clone(),
                Some(user.clone()),
                vec![],
                Some(Kind::Ban.pruned_by().into()),
            )
        });
        let route = Route::DeleteBan {
            guild: cx.guild(),
            user: IdRef::Live(user.clone()),
        };
        let summary = format!("lift the ban of {who}");
        cx.push_op(Op::new(Phase::Bans, idx, route, summary));
    }
}

/// Warns where the manifest gives one `name` to two users (roster entries and bans alike):
/// a reviewer reading names would take them for one person.
pub(super) fn check_names(cx: &mut Ctx) {
    let manifest = cx.manifest;
    let rosters = manifest
        .roles
        .iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, r)| {
            r.members.iter().flatten().enumerate().map(move |(k, m)| {
                (
                    format!("roles[{i}].members[{k}]"),
                    &m.id.0,
                    m.name.as_deref(),
                )
            })
        });
    let bans = manifest
        .bans
        .iter()
        .flatten()
        .enumerate()
        .map(|(k, b)| (format!("bans[{k}]"), &b.id.0, b.name.as_deref()));
    // Lower case → the first user so named and where.
    let mut first: BTreeMap<String, (&String, String)> = BTreeMap::new();
    for (entry, id, name) in rosters.chain(bans) {
        let Some(name) = name else { continue };
        match first.get(&name.to_lowercase()) {
            None => {
                first.insert(name.to_lowercase(), (id, entry));
            }
            Some((other, at)) if *other != id => {
                let message = format!(
                    "the manifest calls two users `{name}`: {other} ({at}) and {id} ({entry}); `name` is a comment, and the plan shows each as Discord knows them"
                );
                cx.warn(Some(format!("{entry}.name")), message);
            }
            Some(_) => {}
        }
    }
}

/// Whom guildctl never bans, and why: the guild's owner (Discord refuses it, and a ban list
/// naming them is an attack or a mistake) and the bot itself (it would lock guildctl out).
fn unbannable(snap: &Snapshot, user: &str) -> Option<&'static str> {
    if user == snap.guild.owner_id {
        Some("the guild's owner")
    } else if user == snap.bot.id {
        Some("the bot guildctl runs as")
    } else {
        None
    }
}
