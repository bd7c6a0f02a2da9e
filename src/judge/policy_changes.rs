//! Policy changes as risks (docs/access.md, "Changing a policy"). Policies are not stored in
//! Discord, so what they were comes from the reviewed history: the policies of a base
//! revision, read from Git by the command ([`PolicyBaseline`]). Against them, a plan finds
//!
//! - a policy removed (from the manifest, a base, or the workspace file, or lost with the
//!   `extends:` that brought it), renamed, or changed so it covers less (its `who`, `can`,
//!   `where`, `min`, `max`), each judged on the guild: `where` by the channels it matches,
//!   `who` by the roles its names resolve to (a pattern or name that now matches as much is
//!   no weaker);
//! - whatever a policy covered before the plan and does not after, its text unchanged: a
//!   channel or category moved or renamed out of its `where`, a role renamed out of its
//!   `who` (or into an `only`'s), a member leaving a `never`'s role or given an `only`'s.
//!
//! Each is a risk listed first in every format; all but a member's are counted by the policy
//! gate (`deletion_gate::policy_gate`). Without a base revision, the policies as they are stand for
//! what they were (escapes are still found) and the plan says so. And every policy is judged
//! on the guild the plan leaves as it was too, on what it covered before the plan
//! ([`Review::before`]), so no plan both loosens a policy and does what it forbade.

use std::collections::BTreeSet;

use crate::access::model::{Guild, Role};
use crate::access::policy::{ANYONE, Carried};
use crate::discord::models::channel_type;
use crate::discord::names::{EVERYONE, stored_display_name};
use crate::manifest::pattern::ChannelPattern;
use crate::manifest::{PermissionName, Policy};
use crate::permissions::Permissions;
use crate::plan::policy_change::{
    PolicyBase, PolicyBaseline, PolicyChange, PolicyChangeKind, ScopeObject,
};

/// What the comparison found, for the plan.
#[derive(Debug, Default)]
pub struct Review {
    pub base: PolicyBase,
    pub changes: Vec<PolicyChange>,
    /// The policies as they were (as they are, without a base), each with where it is said
    /// and what it covered before the plan, to judge on the guild the plan leaves.
    pub before: Vec<(String, Policy, Carried)>,
}

/// Compares the policies `now` (each with where it is declared) with `baseline`, on the live
/// guild and the guild the plan leaves.
pub fn review(
    now: &[(String, &Policy)],
    baseline: &PolicyBaseline,
    live: &Guild,
    after: &Guild,
) -> Review {
    let (base, prior): (PolicyBase, Vec<(Policy, Option<String>)>) = match baseline {
        PolicyBaseline::At {
            revision,
            commit,
            policies,
            ..
        } => (
            PolicyBase::Revision {
                revision: revision.clone(),
                commit: commit.clone(),
            },
            policies
                .iter()
                .map(|p| (p.policy.clone(), Some(p.file.clone())))
                .collect(),
        ),
        PolicyBaseline::NotGiven | PolicyBaseline::Unreadable { .. } => {
            let base = match baseline {
                PolicyBaseline::Unreadable { revision, why } => PolicyBase::Unreadable {
                    revision: revision.clone(),
                    why: why.clone(),
                },
                _ => PolicyBase::NotGiven,
            };
            (
                base,
                now.iter().map(|(_, p)| ((*p).clone(), None)).collect(),
            )
        }
    };
    let files_now: &[String] = match baseline {
        PolicyBaseline::At { files_now, .. } => files_now,
        _ => &[],
    };
    let prior_names: BTreeSet<&str> = prior.iter().map(|(p, _)| p.name.as_str()).collect();
    let mut out = Review {
        base,
        ..Review::default()
    };
    for (b, file) in &prior {
        let carried = Scope::of(b, live).carried();
        let shown = match file {
            Some(f) => format!("as {f} had it"),
            None => "as it was".to_owned(),
        };
        out.before.push((shown, b.clone(), carried));
        let now_named = now.iter().find(|(_, a)| a.name == b.name);
        let Some((at, a)) = now_named.map(|(at, a)| (at, *a)) else {
            let renamed = now
                .iter()
                .find(|(_, a)| !prior_names.contains(a.name.as_str()) && same_rule(a, b));
            let what = match renamed {
                Some((_, a)) => PolicyChangeKind::Renamed { to: a.name.clone() },
                None => PolicyChangeKind::Removed {
                    why: match file {
                        Some(f) if files_now.contains(f) => format!("deleted from {f}"),
                        Some(f) => format!(
                            "{f}, which defined it, is no longer one of the manifest's files (an `extends:` dropped, or the manifest moved out of the workspace)"
                        ),
                        None => "deleted".to_owned(),
                    },
                },
            };
            out.changes.push(PolicyChange {
                policy: b.name.clone(),
                before: Some(rule_text(b)),
                after: renamed.map(|(_, a)| rule_text(a)),
                defined_in: file.clone(),
                declared_at: renamed.map(|(at, _)| at.clone()),
                what,
            });
            continue;
        };
        let (sb, sa) = (Scope::of(b, live), Scope::of(a, after));
        let lost = lost(&sb, &sa, live, after);
        let change = |what| PolicyChange {
            policy: b.name.clone(),
            what,
            before: Some(rule_text(b)),
            after: Some(rule_text(a)),
            defined_in: file.clone(),
            declared_at: Some(at.clone()),
        };
        if same_rule(a, b) {
            out.changes.extend(lost.into_iter().map(|l| {
                change(match l {
                    Lost::Leaves(item, now) => PolicyChangeKind::Leaves { item, now },
                    Lost::Enters(item, now) => PolicyChangeKind::Enters { item, now },
                    Lost::Covers(_) => PolicyChangeKind::Changed,
                })
            }));
            continue;
        }
        let what = if !comparable(b, a) {
            PolicyChangeKind::Changed
        } else if lost.is_empty() {
            PolicyChangeKind::NoWeaker
        } else {
            PolicyChangeKind::Weakened {
                no_longer: lost.iter().map(Lost::said).collect(),
            }
        };
        out.changes.push(change(what));
    }
    out
}

/// Whether two policies state the same rule (their names aside).
fn same_rule(a: &Policy, b: &Policy) -> bool {
    a.never == b.never && a.only == b.only && a.holders == b.holders
}

/// Whether what `b` and `a` cover can be compared: the same kind of rule, and an `only`
/// guild-wide on both sides or in channels on both.
fn comparable(b: &Policy, a: &Policy) -> bool {
    match (&b.never, &b.only, &b.holders, &a.never, &a.only, &a.holders) {
        (Some(_), _, _, Some(_), _, _) | (_, _, Some(_), _, _, Some(_)) => true,
        (_, Some(x), _, _, Some(y), _) => x.places.is_some() == y.places.is_some(),
        _ => false,
    }
}

/// A policy's rule in words: "never @everyone: view_channel in Staff/*", "only Admin:
/// ban_members (guild-wide)", "holders of Moderator: 2 to 6".
pub fn rule_text(p: &Policy) -> String {
    let can = |c: &[PermissionName]| {
        c.iter()
            .map(|n| n.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let place = |w: &Option<Vec<String>>, none: &str| match w {
        Some(w) => format!("in {}", w.join(", ")),
        None => none.to_owned(),
    };
    if let Some(r) = &p.never {
        return format!(
            "never {}: {} {}",
            r.who,
            can(&r.can),
            place(&r.places, "anywhere")
        );
    }
    if let Some(r) = &p.only {
        return format!(
            "only {}: {} {}",
            r.who.join(", "),
            can(&r.can),
            place(&r.places, "(guild-wide)")
        );
    }
    if let Some(r) = &p.holders {
        let bounds = match (r.min, r.max) {
            (Some(a), Some(b)) => format!("{a} to {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => "any number".to_owned(),
        };
        return format!("holders of {}: {bounds}", r.role);
    }
    "(no rule)".to_owned()
}

/// What a policy covers on one guild, by ids.
#[derive(Debug, Default)]
struct Scope {
    can: Permissions,
    /// `never`: `None` for `anyone`, else the roles it names (`@everyone`: the guild's id).
    who: Option<BTreeSet<String>>,
    /// The channels `where` names; `None`: guild-wide (and, for `never`, every channel).
    places: Option<BTreeSet<String>>,
    /// `only`: the roles it allows.
    allowed: BTreeSet<String>,
    /// `holders`: the role, and its bounds (no minimum is 0; no maximum is none).
    role: Option<String>,
    min: u32,
    max: Option<u32>,
    /// The members (read) holding a role of `who` (`never`, `@everyone` aside) or of
    /// `allowed` (`only`).
    people: BTreeSet<String>,
}

impl Scope {
    fn of(p: &Policy, g: &Guild) -> Scope {
        let mut s = Scope::default();
        let roles_of = |names: &[&str]| -> BTreeSet<String> {
            names
                .iter()
                .filter_map(|n| role_named(g, n))
                .map(|r| r.id.clone())
                .collect()
        };
        if let Some(r) = &p.never {
            s.can = bits(&r.can);
            s.places = r.places.as_deref().map(|w| channels_named(g, w));
            if r.who != ANYONE {
                let who = roles_of(&[r.who.as_str()]);
                s.people = holding(g, &who, &g.id);
                s.who = Some(who);
            }
        } else if let Some(r) = &p.only {
            s.can = bits(&r.can);
            s.places = r.places.as_deref().map(|w| channels_named(g, w));
            let names: Vec<&str> = r.who.iter().map(String::as_str).collect();
            s.allowed = roles_of(&names);
            s.people = holding(g, &s.allowed, &g.id);
        } else if let Some(r) = &p.holders {
            s.role = role_named(g, &r.role).map(|r| r.id.clone());
            s.min = r.min.unwrap_or(0);
            s.max = r.max;
        }
        s
    }

    /// What the judge carries onto the guild the plan leaves.
    fn carried(&self) -> Carried {
        let mut roles: Vec<String> = self.who.iter().flatten().cloned().collect();
        roles.extend(self.role.iter().cloned());
        Carried {
            channels: self.places.iter().flatten().cloned().collect(),
            roles,
            allowed: (!self.allowed.is_empty()).then(|| self.allowed.iter().cloned().collect()),
        }
    }
}

/// The role named `name` as Discord stores names (the judge's lookup).
fn role_named<'g>(g: &'g Guild, name: &str) -> Option<&'g Role> {
    let key = stored_display_name(name);
    g.roles.iter().find(|r| stored_display_name(&r.name) == key)
}

/// The channels (ids) `patterns` name on `g`.
fn channels_named(g: &Guild, patterns: &[String]) -> BTreeSet<String> {
    // Compiled once; a pattern past the length limit names nothing.
    let compiled: Vec<ChannelPattern> = patterns
        .iter()
        .filter_map(|p| ChannelPattern::new(p).ok())
        .collect();
    (0..g.channels.len())
        .filter(|&i| {
            let path = g.path(i);
            compiled.iter().any(|p| p.matches(&path))
        })
        .map(|i| g.channels[i].id.clone())
        .collect()
}

/// The members (read) holding one of `roles`, `@everyone` (`everyone`) aside.
fn holding(g: &Guild, roles: &BTreeSet<String>, everyone: &str) -> BTreeSet<String> {
    g.members
        .iter()
        .filter(|(_, m)| {
            m.roles
                .iter()
                .any(|r| r.as_str() != everyone && roles.contains(r))
        })
        .map(|(u, _)| u.clone())
        .collect()
}

fn bits(names: &[PermissionName]) -> Permissions {
    names
        .iter()
        .filter_map(|n| Permissions::parse_name(&n.0))
        .fold(Permissions::NONE, |a, b| a | b)
}

/// One thing a policy covered before and does not after.
enum Lost {
    /// A channel, role or member outside it now, and where or what it is now.
    Leaves(ScopeObject, String),
    /// A role or member inside an `only`'s `who` now.
    Enters(ScopeObject, String),
    /// Anything else it no longer covers (permissions, guild-wide, a bound), in words.
    Covers(String),
}

impl Lost {
    fn said(&self) -> String {
        match self {
            Lost::Leaves(o, now) => format!("{} {} ({now})", o.kind, o.name),
            Lost::Enters(o, now) => format!("{} {} ({now})", o.kind, o.name),
            Lost::Covers(s) => s.clone(),
        }
    }
}

/// What `b` (on the live guild) covers that `a` (on the guild the plan leaves) does not:
/// deleted channels and roles aside (the deletion gate counts them), created ones aside
/// (nothing was covered there).
fn lost(b: &Scope, a: &Scope, live: &Guild, after: &Guild) -> Vec<Lost> {
    let mut out = Vec::new();
    let dropped = b.can & !a.can;
    if !dropped.is_empty() {
        out.push(Lost::Covers(dropped.display_names().join(", ")));
    }
    // never: who.
    match (&b.who, &a.who) {
        (None, Some(_)) => out.push(Lost::Covers("anyone (every role)".into())),
        (Some(before), Some(now)) => {
            for id in before.difference(now) {
                if let Some(r) = after.role(id) {
                    out.push(Lost::Leaves(role_object(live, id), renamed(live, r)));
                }
            }
        }
        _ => {}
    }
    // where: channels.
    match (&b.places, &a.places) {
        // `never` everywhere, now only in some channels (an `only` cannot change so: it is
        // not compared).
        (None, Some(_)) => out.push(Lost::Covers(
            "guild-wide and every channel outside its `where`".into(),
        )),
        (Some(before), Some(now)) => {
            for id in before.difference(now) {
                let Some(i) = after.channel_index(id) else {
                    continue;
                };
                let was = channel_object(live, id);
                let now = after.path(i);
                let how = if now == was.name {
                    "no longer matched".to_owned()
                } else {
                    format!("now {now}")
                };
                out.push(Lost::Leaves(was, how));
            }
        }
        _ => {}
    }
    // only: who.
    for id in a.allowed.difference(&b.allowed) {
        if let Some(r) = live.role(id) {
            let now = match after.role(id) {
                Some(n) if n.name != r.name => format!("renamed {}", n.name),
                _ => "now named in its `who`".to_owned(),
            };
            out.push(Lost::Enters(role_object(live, id), now));
        }
    }
    // Members: leaving a `never`'s roles, entering an `only`'s.
    let still = |u: &String| after.is_member(u) != Some(false) && after.members.contains_key(u);
    if a.allowed.is_empty() && b.allowed.is_empty() {
        for u in b.people.difference(&a.people).filter(|u| still(u)) {
            let held = role_names(live, b.who.iter().flatten());
            out.push(Lost::Leaves(
                member_object(live, u),
                format!("no longer holds {held}"),
            ));
        }
    } else {
        for u in a.people.difference(&b.people).filter(|u| still(u)) {
            let held = after
                .members
                .get(u)
                .into_iter()
                .flat_map(|m| m.roles.iter());
            let holds = role_names(after, held.filter(|r| a.allowed.contains(*r)));
            out.push(Lost::Enters(
                member_object(live, u),
                format!("holds {holds} once applied"),
            ));
        }
    }
    // holders: the role and the bounds.
    if let Some(id) = &b.role
        && a.role.as_ref() != Some(id)
        && let Some(r) = after.role(id)
    {
        out.push(Lost::Leaves(role_object(live, id), renamed(live, r)));
    }
    if a.min < b.min {
        out.push(Lost::Covers(format!("at least {}", b.min)));
    }
    if let Some(max) = b.max
        && a.max.is_none_or(|m| m > max)
    {
        out.push(Lost::Covers(format!("at most {max}")));
    }
    out
}

/// How a role is now: "renamed Helpers", or "no longer named" by the policy.
fn renamed(live: &Guild, now: &Role) -> String {
    match live.role(&now.id) {
        Some(was) if was.name != now.name => format!("renamed {}", now.name),
        _ => "no longer named".to_owned(),
    }
}

/// The names of the roles among `ids` that `g` has, joined with commas.
fn role_names<'a>(g: &Guild, ids: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = ids
        .filter_map(|id| g.role(id))
        .map(|r| r.name.as_str())
        .collect();
    names.join(", ")
}

fn role_object(g: &Guild, id: &str) -> ScopeObject {
    let name = match g.role(id) {
        Some(r) if r.id == g.id => EVERYONE.to_owned(),
        Some(r) => r.name.clone(),
        None => id.to_owned(),
    };
    ScopeObject {
        kind: "role".into(),
        name,
        id: id.to_owned(),
    }
}

fn channel_object(g: &Guild, id: &str) -> ScopeObject {
    let (kind, name) = match g.channel_index(id) {
        Some(i) if g.channels[i].kind == channel_type::CATEGORY => ("category", g.path(i)),
        Some(i) => ("channel", g.path(i)),
        None => ("channel", id.to_owned()),
    };
    ScopeObject {
        kind: kind.into(),
        name,
        id: id.to_owned(),
    }
}

fn member_object(g: &Guild, user: &str) -> ScopeObject {
    ScopeObject {
        kind: "member".into(),
        name: g.person(user),
        id: user.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::model::ChannelSpec;
    use crate::access::test_kit;
    use crate::plan::PriorPolicy;

    /// A guild with Staff/#mod-log, Staff/#mod-chat and #general, and roles Admin, Helper.
    fn guild() -> Guild {
        let mut g = Guild::new("g", Permissions::NONE);
        g.set_role(
            "admin",
            "Admin",
            Some(Permissions::ADMINISTRATOR),
            None,
            None,
        );
        g.set_role("helper", "Helper", Some(Permissions::NONE), None, None);
        g.set_channel(
            ChannelSpec {
                id: "staff",
                name: "Staff",
                kind: channel_type::CATEGORY,
                parent: None,
            },
            None,
            None,
            None,
        );
        for (id, name) in [("log", "mod-log"), ("chat", "mod-chat")] {
            g.set_channel(
                ChannelSpec {
                    id,
                    name,
                    kind: channel_type::TEXT,
                    parent: Some("staff"),
                },
                None,
                None,
                None,
            );
        }
        g.set_channel(
            ChannelSpec {
                id: "general",
                name: "general",
                kind: channel_type::TEXT,
                parent: None,
            },
            None,
            None,
            None,
        );
        g
    }

    fn never(who: &str, can: &[&str], places: Option<&[&str]>) -> Policy {
        test_kit::never("p", who, can, places)
    }

    fn only(who: &[&str], can: &[&str], places: Option<&[&str]>) -> Policy {
        test_kit::only("p", who, can, places)
    }

    fn holders(min: Option<u32>, max: Option<u32>) -> Policy {
        test_kit::holders("p", "Helper", min, max)
    }

    /// What becomes of policy `base` once it reads `now`.
    fn against(base: &Policy, now: Policy) -> Vec<PolicyChangeKind> {
        verdict(base.clone(), Some(now))
    }

    /// What becomes of policy `before` (at the base revision) once it reads `after`, the
    /// guild unchanged.
    fn verdict(before: Policy, after: Option<Policy>) -> Vec<PolicyChangeKind> {
        let g = guild();
        let baseline = PolicyBaseline::At {
            revision: "main".into(),
            commit: "c".into(),
            policies: vec![PriorPolicy {
                policy: before,
                file: "guildctl.yaml".into(),
            }],
            files_now: vec!["guildctl.yaml".into()],
        };
        let now: Vec<(String, &Policy)> = after
            .iter()
            .map(|p| ("policies[0]".to_owned(), p))
            .collect();
        review(&now, &baseline, &g, &g)
            .changes
            .into_iter()
            .map(|c| c.what)
            .collect()
    }

    fn weakened(lost: &[&str]) -> Vec<PolicyChangeKind> {
        vec![PolicyChangeKind::Weakened {
            no_longer: lost.iter().map(|s| (*s).to_owned()).collect(),
        }]
    }

    #[test]
    fn a_never_whose_who_grows_or_whose_where_names_more_is_no_weaker() {
        let staff = ["Staff/*"];
        let base = never("Helper", &["view_channel"], Some(&staff));
        let no_weaker = vec![PolicyChangeKind::NoWeaker];
        assert_eq!(
            against(&base, never(ANYONE, &["view_channel"], Some(&staff))),
            no_weaker
        );
        assert_eq!(
            against(&base, never("Helper", &["view_channel"], None)),
            no_weaker
        );
        // Another pattern that names the same channels here.
        assert_eq!(
            against(
                &base,
                never("Helper", &["view_channel"], Some(&["Staff/mod-*"]))
            ),
            no_weaker
        );
        assert_eq!(
            against(
                &base,
                never("Helper", &["view_channel", "send_messages"], Some(&staff))
            ),
            no_weaker
        );
        // Unchanged: nothing to say.
        assert_eq!(against(&base, base.clone()), vec![]);
    }

    #[test]
    fn a_never_whose_where_shrinks_or_whose_can_or_who_narrows_is_weaker() {
        let base = never(
            "Helper",
            &["view_channel", "send_messages"],
            Some(&["Staff/*"]),
        );
        assert_eq!(
            against(
                &base,
                never(
                    "Helper",
                    &["view_channel", "send_messages"],
                    Some(&["Staff/mod-chat"])
                )
            ),
            weakened(&["channel Staff/#mod-log (no longer matched)"])
        );
        assert_eq!(
            against(
                &base,
                never("Helper", &["view_channel"], Some(&["Staff/*"]))
            ),
            weakened(&["send_messages"])
        );
        assert_eq!(
            verdict(
                base,
                Some(never(
                    "Admin",
                    &["view_channel", "send_messages"],
                    Some(&["Staff/*"])
                ))
            ),
            weakened(&["role Helper (no longer named)"])
        );
        assert_eq!(
            verdict(
                never(ANYONE, &["view_channel"], None),
                Some(never("Helper", &["view_channel"], None))
            ),
            weakened(&["anyone (every role)"])
        );
        assert_eq!(
            verdict(
                never("Helper", &["view_channel"], None),
                Some(never("Helper", &["view_channel"], Some(&["Staff/*"])))
            ),
            weakened(&["guild-wide and every channel outside its `where`"])
        );
    }

    #[test]
    fn an_only_that_allows_more_or_restricts_less_is_weaker() {
        let base = only(&["Admin"], &["ban_members", "kick_members"], None);
        assert_eq!(
            against(
                &base,
                only(&["Admin", "Helper"], &["ban_members", "kick_members"], None)
            ),
            weakened(&["role Helper (now named in its `who`)"])
        );
        assert_eq!(
            against(&base, only(&["Admin"], &["ban_members"], None)),
            weakened(&["kick_members"])
        );
        assert_eq!(
            against(&base, only(&[], &["ban_members", "kick_members"], None)),
            vec![PolicyChangeKind::NoWeaker]
        );
        // Guild-wide and in channels are not compared: a change to review.
        assert_eq!(
            verdict(
                base,
                Some(only(
                    &["Admin"],
                    &["ban_members", "kick_members"],
                    Some(&["Staff/*"])
                ))
            ),
            vec![PolicyChangeKind::Changed]
        );
    }

    #[test]
    fn holders_bounds_that_widen_are_weaker_and_another_kind_of_rule_is_a_change() {
        assert_eq!(
            verdict(holders(Some(2), Some(6)), Some(holders(Some(1), Some(6)))),
            weakened(&["at least 2"])
        );
        assert_eq!(
            verdict(holders(Some(2), Some(6)), Some(holders(Some(2), None))),
            weakened(&["at most 6"])
        );
        assert_eq!(
            verdict(holders(Some(2), Some(6)), Some(holders(Some(3), Some(5)))),
            vec![PolicyChangeKind::NoWeaker]
        );
        assert_eq!(
            verdict(
                holders(None, Some(6)),
                Some(never("Helper", &["administrator"], None))
            ),
            vec![PolicyChangeKind::Changed]
        );
    }

    #[test]
    fn a_policy_gone_is_removed_or_renamed() {
        let base = never("Helper", &["view_channel"], None);
        assert_eq!(
            verdict(base.clone(), None),
            vec![PolicyChangeKind::Removed {
                why: "deleted from guildctl.yaml".into()
            }]
        );
        let renamed = Policy {
            name: "q".into(),
            ..base.clone()
        };
        assert_eq!(
            verdict(base, Some(renamed)),
            vec![PolicyChangeKind::Renamed { to: "q".into() }]
        );
    }

    /// The policy unchanged, the guild moved: what left it, by id.
    #[test]
    fn a_channel_moved_or_a_role_renamed_out_of_a_policy_leaves_it() {
        let live = guild();
        let mut after = guild();
        after.set_channel(
            ChannelSpec {
                id: "log",
                name: "mod-log",
                kind: channel_type::TEXT,
                parent: None,
            },
            None,
            None,
            Some(0),
        );
        after.set_role("helper", "Helpers", None, None, Some(1));
        let p = never("Helper", &["view_channel"], Some(&["Staff/*"]));
        let now = [("policies[0]".to_owned(), &p)];
        let r = review(&now, &PolicyBaseline::NotGiven, &live, &after);
        assert_eq!(r.base, PolicyBase::NotGiven);
        let what: Vec<(String, String)> = r
            .changes
            .iter()
            .map(|c| match &c.what {
                PolicyChangeKind::Leaves { item, now } => (
                    format!("{} {} {}", item.kind, item.name, item.id),
                    now.clone(),
                ),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            what,
            [
                (
                    "role Helper helper".to_owned(),
                    "renamed Helpers".to_owned()
                ),
                (
                    "channel Staff/#mod-log log".to_owned(),
                    "now #mod-log".to_owned()
                ),
            ]
        );
        // Judged there too: what it covered before, by id.
        let (_, _, carried) = &r.before[0];
        assert_eq!(carried.channels, ["chat", "log"]);
        assert_eq!(carried.roles, ["helper"]);
    }
}
