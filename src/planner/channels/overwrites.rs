//! Permission overwrites: the set a channel declares, what it is once synced with its
//! category, and how the plan shows it.

use hashbrown::HashMap;
use serde_json::{Value, json};

use super::Decl;
use crate::discord::models::{
    Channel as LiveChannel, OVERWRITE_MEMBER, OVERWRITE_ROLE, Overwrite as LiveOverwrite,
    channel_type,
};
use crate::permissions::Permissions;
use crate::plan::IdRef;
use crate::plan_kit::context::Ctx;
use crate::planner::roles::{perm_names, permission_bits};

/// An overwrite as guildctl compares them: target, type and bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Ow {
    pub(super) target: IdRef,
    pub(super) kind: u8,
    pub(super) allow: Permissions,
    pub(super) deny: Permissions,
}

impl Ow {
    pub(super) fn from_live(o: &LiveOverwrite) -> Ow {
        Ow {
            target: IdRef::Live(o.id.clone()),
            kind: o.kind,
            allow: o.allow,
            deny: o.deny,
        }
    }

    pub(super) fn api(&self) -> Value {
        json!({ "id": self.target.to_value(), "type": self.kind, "allow": self.allow, "deny": self.deny })
    }
}

/// A channel's overwrites as they are listed, sorted by target. An all-zero overwrite
/// changes no permission, but it is an entry Discord keeps and shows in the channel's
/// permission list, so it is created, shown and compared like any other.
pub(super) fn listed(set: &[Ow]) -> Vec<Ow> {
    let mut v = set.to_vec();
    v.sort_by(|a, b| a.target.cmp(&b.target));
    v
}

/// The overwrites as Discord's sync check sees them: all-zero ones dropped (a missing
/// overwrite counts as all-zero there).
pub(super) fn effective(set: &[Ow]) -> Vec<Ow> {
    let mut v = listed(set);
    v.retain(|o| !(o.allow.is_empty() && o.deny.is_empty()));
    v
}

/// Whether a channel whose overwrites are `have` already has the set `want`: for one
/// declared `sync_permissions: true`, as Discord's sync check compares (all-zero entries do
/// not count); otherwise as listed.
pub(super) fn same_set(d: &Decl, want: &[Ow], have: &[Ow]) -> bool {
    if d.ch.sync_permissions == Some(true) {
        effective(want) == effective(have)
    } else {
        listed(want) == listed(have)
    }
}

pub(super) fn live_set(c: &LiveChannel) -> Vec<Ow> {
    c.permission_overwrites.iter().map(Ow::from_live).collect()
}

/// The overwrites of each live channel that the plan's category writes change, by live
/// id: a category whose set the plan writes carries the new set to every channel in it
/// that is synced with it at that moment (§4.5). Nothing else changes a channel's set
/// before its own write: its own write and a create in a category wait for the category's
/// write, and moves come after every write (docs/decisions.md, "Order of overwrite
/// writes"), so this is the set each channel has when its own calls start.
pub(super) fn carried_by_categories(
    live: &[LiveChannel],
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
    desired: &[Option<Vec<Ow>>],
) -> HashMap<String, Vec<Ow>> {
    let mut written: HashMap<&str, (Vec<Ow>, &[Ow])> = HashMap::new();
    for (i, d) in decls.iter().enumerate() {
        if let (Some(category), Some(want)) = (matches[i], &desired[i])
            && d.kind == channel_type::CATEGORY
        {
            let have = live_set(category);
            if !same_set(d, want, &have) {
                written.insert(&category.id, (effective(&have), want.as_slice()));
            }
        }
    }
    let mut out = HashMap::new();
    for c in live {
        let Some((was, now)) = c.parent_id.as_deref().and_then(|p| written.get(p)) else {
            continue;
        };
        if effective(&live_set(c)) == *was {
            out.insert(c.id.clone(), now.to_vec());
        }
    }
    out
}

/// The overwrite set each declared channel should have, or `None` where unmanaged.
pub(super) fn desired_overwrites(
    cx: &mut Ctx,
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
) -> Vec<Option<Vec<Ow>>> {
    let mut out: Vec<Option<Vec<Ow>>> = Vec::with_capacity(decls.len());
    for (i, d) in decls.iter().enumerate() {
        let live_ows = matches[i]
            .map(|l| l.permission_overwrites.as_slice())
            .unwrap_or(&[]);
        let set = if let Some(list) = &d.ch.overwrites {
            let mut set = Vec::new();
            let mut seen = Vec::new();
            for (j, o) in list.iter().enumerate() {
                let source = format!("{}.overwrites[{j}]", d.source);
                let (target, kind) = match (&o.role, &o.member) {
                    (Some(role), None) => match cx.resolve_role(role, &format!("{source}.role")) {
                        Some(id) => (id, OVERWRITE_ROLE),
                        None => continue,
                    },
                    (None, Some(member)) => {
                        if let Some((message, help)) = not_a_member(cx, &member.0, &d.ch.name) {
                            cx.problem(Some(format!("{source}.member")), message, Some(help));
                            continue;
                        }
                        (IdRef::Live(member.0.clone()), OVERWRITE_MEMBER)
                    }
                    _ => {
                        cx.problem(
                            Some(source),
                            format!(
                                "an overwrite on `{}` must name exactly one of `role` or `member`",
                                d.ch.name
                            ),
                            None,
                        );
                        continue;
                    }
                };
                // One overwrite per target: a role by name and by id is one target.
                let (what, written) = match (&o.role, &o.member) {
                    (Some(role), _) => ("role", role.as_str()),
                    (_, Some(member)) => ("member", member.0.as_str()),
                    _ => ("target", ""),
                };
                if !cx.first_in_list(&mut seen, &target, &source, written, what) {
                    continue;
                }
                let live = live_ows
                    .iter()
                    .find(|l| Some(l.id.as_str()) == target.live());
                let allow = permission_bits(
                    cx,
                    &o.allow,
                    live.map(|l| l.allow).unwrap_or_default(),
                    &format!("{source}.allow"),
                );
                let deny = permission_bits(
                    cx,
                    &o.deny,
                    live.map(|l| l.deny).unwrap_or_default(),
                    &format!("{source}.deny"),
                );
                set.push(Ow {
                    target,
                    kind,
                    allow,
                    deny,
                });
            }
            Some(set)
        } else if d.ch.sync_permissions == Some(true) {
            // Categories are flattened before their children, so the parent's set is known.
            match d.parent {
                Some(p) => Some(out[p].clone().unwrap_or_else(|| {
                    matches[p]
                        .map(|c| c.permission_overwrites.iter().map(Ow::from_live).collect())
                        .unwrap_or_default()
                })),
                None => {
                    cx.problem(
                        Some(format!("{}.sync_permissions", d.source)),
                        format!(
                            "`{}` is not in a category, so it has nothing to sync with",
                            d.ch.name
                        ),
                        Some("remove `sync_permissions`, or move the channel into a category"),
                    );
                    None
                }
            }
        } else {
            None
        };
        out.push(set);
    }
    out
}

/// Why Discord would refuse a member overwrite for `user` on channel `channel`, when the
/// plan read them and they are not a member: Discord sets an overwrite only for a member of
/// the guild (and removes a member's overwrites when they leave), so one for anyone else
/// grants nothing and is refused (error and help).
fn not_a_member(cx: &Ctx, user: &str, channel: &str) -> Option<(String, &'static str)> {
    let people = cx.snap.people.as_ref()?;
    if !matches!(people.declared.get(user), Some(None)) {
        return None;
    }
    Some(match people.usernames.get(user) {
        Some(name) => (
            format!(
                "the overwrite on `{channel}` names {}, who is not a member of the guild (left, or never joined): it would grant nothing, and Discord sets an overwrite only for a member, so it would refuse it",
                crate::access::person(Some(name), user)
            ),
            "remove this overwrite (Discord removes a member's overwrites when they leave); add it again once they rejoin",
        ),
        None => (
            format!(
                "the overwrite on `{channel}` names user {user}, and Discord knows no user with this id: it would refuse the overwrite"
            ),
            "correct the id (Discord's user ids: Developer Mode, right-click the user, Copy User ID), or remove this overwrite",
        ),
    })
}

/// Overwrites in manifest terms, for plans people read: a member as Discord knows them,
/// `username (id)` (their id alone when the plan did not read them).
pub(super) fn overwrites_display(cx: &Ctx, set: &[Ow]) -> Value {
    let usernames = cx.snap.people.as_ref().map(|p| &p.usernames);
    let name_of = |t: &IdRef, kind: u8| -> (String, String) {
        if kind == OVERWRITE_MEMBER {
            let id = t.live().unwrap_or_default();
            let shown = match usernames.and_then(|u| u.get(id)) {
                Some(name) => crate::access::person(Some(name), id),
                None => id.to_owned(),
            };
            return ("member".into(), shown);
        }
        ("role".into(), cx.role_label(t))
    };
    Value::Array(
        listed(set)
            .iter()
            .map(|o| {
                let (k, v) = name_of(&o.target, o.kind);
                let mut m = serde_json::Map::new();
                m.insert(k, Value::String(v));
                if !o.allow.is_empty() {
                    m.insert("allow".into(), perm_names(o.allow));
                }
                if !o.deny.is_empty() {
                    m.insert("deny".into(), perm_names(o.deny));
                }
                Value::Object(m)
            })
            .collect(),
    )
}
