//! Who gains and who loses what, where, between two guilds: the live one and the one a
//! plan leaves (a plan's `access`).
//!
//! Lines are per `@everyone`, per role (a member holding it), and per member whose roles a
//! roster changes or whom a member overwrite names, computed with the roles they hold (a
//! user who is not a member gets none: an overwrite grants them nothing). A line says only
//! what is its own: what `@everyone` gains, every role and user gains with it and is said
//! once, on `@everyone`'s line; what a role gains, a user who keeps the role gains with it.
//! A who that is (or becomes, or stops being) an administrator gets one guild-wide line,
//! not one per channel. A role the plan creates is compared with a member holding no role.
//! Deleted roles and channels have their own line in the plan (a deletion), none here.

use std::collections::BTreeSet;

use hashbrown::HashMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::model::{Guild, Overwrite};
use super::rules::{Access, Holder};
use crate::discord::names::EVERYONE;
use crate::permissions::Permissions;

/// One line: what `who` gains and loses in `channel` (guild-wide without one).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessChange {
    /// `@everyone`, a role's name, or a person ([`super::person`]).
    pub who: String,
    /// What `who` is: `@everyone`, a role, or a person.
    pub who_kind: WhoKind,
    /// The role's live id, or the user's id.
    pub who_id: Option<String>,
    /// The channel as plans name it (`Staff/#mod-log`); none: guild-wide.
    pub channel: Option<String>,
    /// The channel's live id (none for a channel the plan creates).
    pub channel_id: Option<String>,
    /// The permissions gained (by name): held after apply, not before.
    pub gains: Vec<String>,
    /// The permissions lost (by name): held before apply, not after.
    pub loses: Vec<String>,
    /// The channel is new: nobody saw it before, so seeing it hides nothing that was hidden.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_channel: bool,
    /// The channel is a category: seen when one of its channels is, it holds no messages.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub category: bool,
    /// The gains that widen access: [`SIGHT`] in an existing channel that is not a category,
    /// and a dangerous permission the who did not hold guild-wide before (an overwrite
    /// grants it here). A role's powers showing in a new channel, or in one the who now
    /// sees, widen nothing more than the sight itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub widening: Vec<String>,
    /// The plan's changes (indexes into `changes`) that cause it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<usize>,
}

/// What an access line is about, so a reader (or a program) need not guess from the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhoKind {
    /// `@everyone`: every member.
    Everyone,
    /// A member holding the role.
    Role,
    /// One user, by their roles and their own overwrites.
    User,
}

impl AccessChange {
    /// One line: "@everyone gains view_channel in Staff/#mod-log"; `name` renders the
    /// names that come from the guild or the manifest.
    pub fn describe(&self, name: &dyn Fn(&str) -> String) -> String {
        let place = match &self.channel {
            Some(c) => format!("in {}", name(c)),
            None => "guild-wide".to_owned(),
        };
        let who = name(&self.who);
        match (self.gains.is_empty(), self.loses.is_empty()) {
            (false, true) => sentence(&who, "gains", &self.gains, &place),
            (true, false) => sentence(&who, "loses", &self.loses, &place),
            _ => format!(
                "{who} gains {} and loses {} {place}",
                self.gains.join(", "),
                self.loses.join(", ")
            ),
        }
    }
}

/// "@everyone gains view_channel in #x (and with it: send_messages, …)": seeing a channel
/// is what a reader looks for, and what comes with it follows.
pub fn sentence(who: &str, verb: &str, permissions: &[String], place: &str) -> String {
    let view = "view_channel";
    if permissions.len() > 1 && permissions.iter().any(|p| p == view) {
        let rest: Vec<&str> = permissions
            .iter()
            .map(String::as_str)
            .filter(|p| *p != view)
            .collect();
        return format!(
            "{who} {verb} {view} {place} (and with it: {})",
            rest.join(", ")
        );
    }
    format!("{who} {verb} {} {place}", permissions.join(", "))
}

/// The permissions that let someone see, write or speak in a channel: who gains one where
/// they had none sees or says more there.
pub const SIGHT: &[&str] = &[
    "view_channel",
    "read_message_history",
    "send_messages",
    "send_messages_in_threads",
    "create_public_threads",
    "create_private_threads",
    "send_voice_messages",
    "send_polls",
    "connect",
    "speak",
    "stream",
    "request_to_speak",
];

/// The bits of [`SIGHT`].
pub fn sight_mask() -> Permissions {
    SIGHT
        .iter()
        .filter_map(|n| Permissions::from_name(n))
        .fold(Permissions::NONE, |a, b| a | b)
}

/// Guild-wide permissions with no meaning in a channel (kick, ban, administrator, ...).
fn guild_only() -> Permissions {
    !Permissions::in_any_channel()
}

/// What one holder's access became: gained and lost, guild-wide and per channel of `after`.
struct Delta {
    base: (Permissions, Permissions),
    /// Guild-wide permissions before.
    held: Permissions,
    /// Gains and losses by channel; empty when there are none anywhere (most holders of
    /// most plans: 250 roles' worth of 500 channels would be 2 MB of nothing).
    channels: Vec<(Permissions, Permissions)>,
    admin: bool,
}

impl Delta {
    /// No gain and no loss anywhere.
    fn none() -> Delta {
        Delta {
            base: (Permissions::NONE, Permissions::NONE),
            held: Permissions::NONE,
            channels: Vec::new(),
            admin: false,
        }
    }

    /// The gains and losses in channel `i`.
    fn channel(&self, i: usize) -> (Permissions, Permissions) {
        self.channels
            .get(i)
            .copied()
            .unwrap_or((Permissions::NONE, Permissions::NONE))
    }
}

/// The channels of `after` where a holder of unchanged guild-wide permissions may see a
/// difference: new ones, ones whose kind, parent or overwrites changed (in any order: the
/// overwrites' order changes nothing), and categories whose channels changed or moved (a
/// category is visible through its channels).
fn changed_channels(before: &Guild, after: &Guild, at_before: &[Option<usize>]) -> Vec<bool> {
    let mut changed: Vec<bool> = after
        .channels
        .iter()
        .zip(at_before)
        .map(|(a, b)| {
            b.is_none_or(|j| {
                let b = &before.channels[j];
                b.kind != a.kind
                    || b.parent != a.parent
                    || b.overwrites_known != a.overwrites_known
                    || !same_overwrites(&b.overwrites, &a.overwrites)
            })
        })
        .collect();
    let parents: Vec<&str> = after
        .channels
        .iter()
        .zip(&changed)
        .filter(|(_, c)| **c)
        .filter_map(|(a, _)| a.parent.as_deref())
        .chain(
            before
                .channels
                .iter()
                .filter(|b| after.channel(&b.id).is_none_or(|a| a.parent != b.parent))
                .filter_map(|b| b.parent.as_deref()),
        )
        .collect();
    for p in parents {
        if let Some(p) = after.channel_index(p) {
            changed[p] = true;
        }
    }
    changed
}

fn same_overwrites(before: &[Overwrite], after: &[Overwrite]) -> bool {
    if before == after {
        return true;
    }
    let sorted = |o: &[Overwrite]| {
        let mut o = o.to_vec();
        o.sort_by(|x, y| (x.kind, &x.target).cmp(&(y.kind, &y.target)));
        o
    };
    before.len() == after.len() && sorted(before) == sorted(after)
}

fn delta(before: &Access, after: &Access, at_before: &[Option<usize>]) -> Delta {
    let admin = before.base == Permissions::ALL || after.base == Permissions::ALL;
    let channels = after
        .channels
        .iter()
        .zip(at_before)
        .map(|(a, b)| {
            let b = b.map_or(Permissions::NONE, |i| before.channels[i]);
            (*a & !b, b & !*a)
        })
        .collect();
    Delta {
        base: (after.base & !before.base, before.base & !after.base),
        held: before.base,
        channels,
        admin,
    }
}

/// The access lines between `before` (the live guild) and `after` (the guild a plan
/// leaves), `@everyone` first, then roles in `after`'s order, then people.
pub fn between(before: &Guild, after: &Guild) -> Vec<AccessChange> {
    lines_between(before, after, true)
}

/// [`between`]; `skip_unchanged: false` computes every holder's access in both guilds
/// (what the shortcut is tested against).
fn lines_between(before: &Guild, after: &Guild, skip_unchanged: bool) -> Vec<AccessChange> {
    let at_before: Vec<Option<usize>> = after
        .channels
        .iter()
        .map(|c| before.channel_index(&c.id))
        .collect();
    // A holder whose roles, channels and roles' permissions are all as they were has the
    // access it had: known without computing it in every channel twice (most plans touch
    // no permission; for 250 roles in 500 channels that was a seventh of a plan's CPU).
    // Only the changed channels are computed for such a holder when channels changed.
    let changed = changed_channels(before, after, &at_before);
    let channels_same =
        before.channels.len() == after.channels.len() && !changed.iter().any(|&c| c);
    let same_role = |id: &str| match (before.role(id), after.role(id)) {
        (Some(b), Some(a)) => b.permissions == a.permissions,
        _ => false,
    };
    let same_base = skip_unchanged && before.owner_id == after.owner_id && same_role(&after.id);
    let delta_of = |was: &Holder, now: &Holder| {
        let unchanged = same_base && was == now && now.roles.iter().all(|r| same_role(r));
        if !unchanged {
            return delta(&before.access(was), &after.access(now), &at_before);
        }
        let mut d = Delta::none();
        if channels_same {
            return d;
        }
        let base = before.base(was);
        d.held = base;
        d.admin = base == Permissions::ALL;
        d.channels = vec![(Permissions::NONE, Permissions::NONE); after.channels.len()];
        for (i, own) in d.channels.iter_mut().enumerate() {
            if changed[i] {
                let b =
                    at_before[i].map_or(Permissions::NONE, |j| before.channel_access(was, base, j));
                let a = after.channel_access(now, base, i);
                *own = (a & !b, b & !a);
            }
        }
        d
    };
    let mut out = Vec::new();
    let everyone_holder = Holder::everyone();
    let everyone = delta_of(&everyone_holder, &everyone_holder);
    let everyone_role = after.everyone();
    let line = Line {
        after,
        at_before: &at_before,
    };
    line.push(
        &mut out,
        Who {
            name: EVERYONE.to_owned(),
            kind: WhoKind::Everyone,
            id: Some(after.id.clone()),
            causes: everyone_role
                .map(|r| r.changed_by.clone())
                .unwrap_or_default(),
        },
        &everyone,
        &[],
    );

    // Each role's own delta, kept for the people who hold it before and after.
    let mut by_role: HashMap<&str, Delta> = HashMap::new();
    for r in after.roles.iter().filter(|r| r.id != after.id) {
        let was = if before.role(&r.id).is_some() {
            Holder::roles([r.id.clone()])
        } else {
            Holder::everyone()
        };
        let now = Holder::roles([r.id.clone()]);
        let d = delta_of(&was, &now);
        line.push(
            &mut out,
            Who {
                name: r.name.clone(),
                kind: WhoKind::Role,
                id: before.role(&r.id).map(|_| r.id.clone()),
                causes: r.changed_by.clone(),
            },
            &d,
            &[&everyone],
        );
        by_role.insert(r.id.as_str(), d);
    }

    // People whose roles a roster changes, and people a member overwrite names.
    let mut users: BTreeSet<&str> = after
        .members
        .iter()
        .filter(|(u, m)| before.members.get(*u).map(|b| &b.roles) != Some(&m.roles))
        .map(|(u, _)| u.as_str())
        .collect();
    users.extend(before.overwrite_members());
    users.extend(after.overwrite_members());
    for user in users {
        // The owner has every permission; a user who is not a member is in no channel of
        // the guild, whatever an overwrite says of them.
        let outside = |g: &Guild| g.is_member(user) == Some(false);
        if user == after.owner_id || (outside(before) && outside(after)) {
            continue;
        }
        let was = Holder::member(before, user);
        let now = Holder::member(after, user);
        let d = delta_of(&was, &now);
        let kept: Vec<&Delta> = now
            .roles
            .iter()
            .filter(|r| was.roles.contains(r))
            .filter_map(|r| by_role.get(r.as_str()))
            .collect();
        let mut explained = vec![&everyone];
        explained.extend(kept);
        let member = after.members.get(user).or_else(|| before.members.get(user));
        line.push(
            &mut out,
            Who {
                name: after.person(user),
                kind: WhoKind::User,
                id: Some(user.to_owned()),
                causes: member.map(|m| m.changed_by.clone()).unwrap_or_default(),
            },
            &d,
            &explained,
        );
    }
    out
}

struct Who {
    name: String,
    kind: WhoKind,
    id: Option<String>,
    causes: Vec<usize>,
}

/// Writes the lines of each who, on the guild after apply.
struct Line<'a> {
    after: &'a Guild,
    at_before: &'a [Option<usize>],
}

impl Line<'_> {
    /// The lines of one who's delta `d`, less what the deltas in `explained` already say.
    fn push(&self, out: &mut Vec<AccessChange>, who: Who, d: &Delta, explained: &[&Delta]) {
        let minus = |(g, l): (Permissions, Permissions),
                     f: &dyn Fn(&Delta) -> (Permissions, Permissions)| {
            explained.iter().fold((g, l), |(g, l), e| {
                let (eg, el) = f(e);
                (g & !eg, l & !el)
            })
        };
        let make = |channel: Option<usize>, (gains, loses): (Permissions, Permissions)| {
            let widening = match channel {
                Some(i) => {
                    let c = &self.after.channels[i];
                    let sight = if self.at_before[i].is_none()
                        || c.kind == crate::discord::models::channel_type::CATEGORY
                    {
                        Permissions::NONE
                    } else {
                        sight_mask()
                    };
                    gains & (sight | (Permissions::dangerous_mask() & !d.held))
                }
                None => Permissions::NONE,
            };
            let mut changes = who.causes.clone();
            if let Some(i) = channel {
                let c = &self.after.channels[i];
                changes.extend(&c.changed_by);
                if let Some(p) = c.parent.as_deref().and_then(|p| self.after.channel(p)) {
                    changes.extend(&p.changed_by);
                }
                // A category is seen through its channels.
                for child in self.after.children(&c.id) {
                    changes.extend(&self.after.channels[child].changed_by);
                }
            }
            changes.sort_unstable();
            changes.dedup();
            AccessChange {
                who: who.name.clone(),
                who_kind: who.kind,
                who_id: who.id.clone(),
                channel: channel.map(|i| self.after.path(i)),
                channel_id: channel
                    .filter(|&i| self.at_before[i].is_some())
                    .map(|i| self.after.channels[i].id.clone()),
                gains: gains.display_names(),
                loses: loses.display_names(),
                new_channel: channel.is_some_and(|i| self.at_before[i].is_none()),
                category: channel.is_some_and(|i| {
                    self.after.channels[i].kind == crate::discord::models::channel_type::CATEGORY
                }),
                widening: widening.display_names(),
                changes,
            }
        };
        if d.admin {
            // Administrator says it all: every channel, every permission.
            let admin = Permissions::ADMINISTRATOR;
            let (g, l) = (d.base.0 & admin, d.base.1 & admin);
            if !(g | l).is_empty() {
                out.push(make(None, (g, l)));
            }
            return;
        }
        let only = guild_only();
        let (g, l) = minus((d.base.0 & only, d.base.1 & only), &|e| e.base);
        if !(g | l).is_empty() {
            out.push(make(None, (g, l)));
        }
        for (i, own) in d.channels.iter().enumerate() {
            if own.0.is_empty() && own.1.is_empty() {
                continue;
            }
            let (g, l) = minus(*own, &|e| e.channel(i));
            if !(g | l).is_empty() {
                out.push(make(Some(i), (g, l)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::model::{Channel, ChannelSpec, Member, ROLE};
    use crate::access::test_kit::{
        allow_view, deny_view, p, set_general, set_mod_log, staff_guild,
    };
    use crate::discord::models::channel_type;

    /// @everyone reads and writes; Staff/#mod-log is Mod's (11) alone.
    fn live() -> Guild {
        let mut g = staff_guild();
        g.set_role("10", "Admin", Some(p(&["administrator"])), None, None);
        g.set_role("11", "Mod", Some(p(&["kick_members"])), None, None);
        g.set_role("12", "Member", Some(Permissions::NONE), None, None);
        g.members.insert(
            "500".into(),
            Member {
                username: Some("heidi".into()),
                roles: ["12".to_owned()].into(),
                changed_by: vec![],
            },
        );
        g
    }

    fn lines(before: &Guild, after: &Guild) -> Vec<String> {
        between(before, after)
            .iter()
            .map(|l| l.describe(&|s| s.to_owned()))
            .collect()
    }

    #[test]
    fn opening_a_channel_to_everyone_is_one_line_not_one_per_role() {
        let before = live();
        let mut after = before.clone();
        let source = Some("channels[1].channels[0]");
        set_mod_log(&mut after, vec![allow_view("11")], source, Some(4));
        // The category shows once one of its channels does.
        assert_eq!(
            lines(&before, &after),
            vec![
                "@everyone gains view_channel in Staff",
                "@everyone gains view_channel in Staff/#mod-log (and with it: send_messages)"
            ]
        );
        let all = between(&before, &after);
        assert_eq!(all[0].changes, vec![4]);
        assert_eq!(all[1].changes, vec![4]);
        assert_eq!(all[1].channel_id.as_deref(), Some("22"));
    }

    #[test]
    fn a_role_losing_a_channel_and_a_guild_wide_grant() {
        let before = live();
        let mut after = before.clone();
        set_mod_log(&mut after, vec![deny_view("1")], None, Some(0));
        after.set_role("12", "Member", Some(p(&["ban_members"])), None, Some(1));
        assert_eq!(
            lines(&before, &after),
            vec![
                "Mod loses view_channel in Staff/#mod-log (and with it: send_messages)",
                "Member gains ban_members guild-wide",
            ]
        );
    }

    #[test]
    fn a_roster_grant_shows_the_new_channels_of_the_person() {
        let before = live();
        let mut after = before.clone();
        after.give_role("500", "11", None, 9);
        assert_eq!(
            lines(&before, &after),
            vec![
                "heidi (500) gains kick_members guild-wide",
                "heidi (500) gains view_channel in Staff (and with it: send_messages)",
                "heidi (500) gains view_channel in Staff/#mod-log (and with it: send_messages)",
            ]
        );
        let all = between(&before, &after);
        assert!(
            all.iter()
                .all(|l| l.changes.contains(&9) && l.who_kind == WhoKind::User)
        );
    }

    #[test]
    fn administrator_is_one_line_and_a_new_channel_says_so() {
        let before = live();
        let mut after = before.clone();
        after.set_role("12", "Member", Some(p(&["administrator"])), None, Some(2));
        after.set_channel(
            ChannelSpec {
                id: "channel:news",
                name: "news",
                kind: channel_type::TEXT,
                parent: None,
            },
            None,
            None,
            Some(3),
        );
        assert_eq!(
            lines(&before, &after),
            vec![
                "@everyone gains view_channel in #news (and with it: send_messages)",
                "Member gains administrator guild-wide",
            ]
        );
        let all = between(&before, &after);
        assert!(all[0].new_channel && all[0].channel_id.is_none());
    }

    #[test]
    fn a_member_overwrite_is_computed_with_the_roles_held_and_not_for_a_non_member() {
        let mut before = live();
        let muted = Overwrite {
            target: "12".into(),
            kind: ROLE,
            allow: Permissions::NONE,
            deny: Permissions::SEND_MESSAGES,
        };
        set_general(&mut before, vec![muted.clone()], Some(7));
        before.not_members.insert("501".into(), Some("gone".into()));
        let member = |user: &str| Overwrite {
            target: user.into(),
            kind: crate::access::model::MEMBER,
            allow: Permissions::SEND_MESSAGES,
            deny: Permissions::NONE,
        };
        let mut after = before.clone();
        set_general(
            &mut after,
            vec![muted, member("500"), member("501")],
            Some(7),
        );
        // heidi holds Member, which may not send there: her own overwrite lets her.
        assert_eq!(
            lines(&before, &after),
            vec!["heidi (500) gains send_messages in #general"]
        );
    }

    #[test]
    fn nothing_changed_nothing_said() {
        assert!(between(&live(), &live()).is_empty());
    }

    /// One hand change to the live guild of [`live`].
    #[derive(Debug, Clone)]
    enum Edit {
        RolePermissions(usize, u64),
        NewRole(u64),
        Overwrite(usize, usize, u64, u64),
        MemberRoles(Vec<usize>),
        Parent(usize),
        ReverseOverwrites(usize),
        NewChannel(bool, u64),
        RemoveChannel(usize),
    }

    fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
        use proptest::prelude::*;
        // view_channel, send_messages, kick_members, administrator: the bits that matter here.
        let bits = prop::sample::subsequence(
            vec![
                "view_channel",
                "send_messages",
                "kick_members",
                "administrator",
            ],
            0..=4,
        )
        .prop_map(|names| p(&names).0);
        prop_oneof![
            (0..4usize, bits.clone()).prop_map(|(r, b)| Edit::RolePermissions(r, b)),
            bits.clone().prop_map(Edit::NewRole),
            (0..3usize, 0..4usize, bits.clone(), bits.clone())
                .prop_map(|(c, r, a, d)| Edit::Overwrite(c, r, a, d)),
            prop::collection::vec(0..4usize, 0..3).prop_map(Edit::MemberRoles),
            (0..3usize).prop_map(Edit::Parent),
            (0..3usize).prop_map(Edit::ReverseOverwrites),
            (any::<bool>(), bits).prop_map(|(inside, deny)| Edit::NewChannel(inside, deny)),
            (0..3usize).prop_map(Edit::RemoveChannel),
        ]
    }

    /// `ch` set again with `overwrites`, by the plan's change `change`.
    fn with_overwrites(
        g: &mut Guild,
        ch: &Channel,
        overwrites: Vec<Overwrite>,
        change: Option<usize>,
    ) {
        g.set_channel(ch.spec(), Some(overwrites), None, change);
    }

    fn apply(g: &mut Guild, e: &Edit) {
        let roles = ["1", "10", "11", "12"];
        let channels = ["20", "21", "22"];
        match e {
            Edit::RolePermissions(r, b) => {
                let name = g
                    .role(roles[*r])
                    .map(|x| x.name.clone())
                    .unwrap_or_default();
                g.set_role(roles[*r], &name, Some(Permissions(*b)), None, Some(1));
            }
            Edit::NewRole(b) => g.set_role("13", "New", Some(Permissions(*b)), None, Some(2)),
            Edit::Overwrite(c, r, allow, deny) => {
                let Some(ch) = g.channel(channels[*c]).cloned() else {
                    return;
                };
                let mut ows = ch.overwrites.clone();
                ows.retain(|o| o.target != roles[*r]);
                ows.push(Overwrite {
                    target: roles[*r].into(),
                    kind: ROLE,
                    allow: Permissions(*allow),
                    deny: Permissions(*deny),
                });
                with_overwrites(g, &ch, ows, Some(3));
            }
            Edit::MemberRoles(rs) => {
                let m = g.members.get_mut("500").unwrap();
                m.roles = rs.iter().map(|&r| roles[r].to_owned()).collect();
            }
            Edit::NewChannel(inside, deny) => {
                let ows = vec![Overwrite {
                    target: "1".into(),
                    kind: ROLE,
                    allow: Permissions::NONE,
                    deny: Permissions(*deny),
                }];
                let parent = inside.then_some("21");
                g.set_channel(
                    ChannelSpec {
                        id: "23",
                        name: "new",
                        kind: channel_type::TEXT,
                        parent,
                    },
                    Some(ows),
                    None,
                    Some(5),
                );
            }
            Edit::RemoveChannel(c) => g.remove_channel(channels[*c]),
            Edit::ReverseOverwrites(c) => {
                let Some(ch) = g.channel(channels[*c]).cloned() else {
                    return;
                };
                let ows = ch.overwrites.iter().rev().cloned().collect();
                with_overwrites(g, &ch, ows, None);
            }
            Edit::Parent(c) => {
                let Some(ch) = g.channel(channels[*c]).cloned() else {
                    return;
                };
                if ch.kind != channel_type::CATEGORY {
                    let parent = if ch.parent.is_some() {
                        None
                    } else {
                        Some("21")
                    };
                    g.set_channel(
                        ChannelSpec {
                            parent,
                            ..ch.spec()
                        },
                        None,
                        None,
                        Some(4),
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

        /// Skipping the holders whose inputs did not change says exactly what computing
        /// everyone's access in every channel says.
        #[test]
        fn the_shortcut_says_what_the_full_computation_says(
            edits in proptest::collection::vec(edit(), 0..5)
        ) {
            let before = live();
            let mut after = live();
            for e in &edits {
                apply(&mut after, e);
            }
            proptest::prop_assert_eq!(
                lines_between(&before, &after, true),
                lines_between(&before, &after, false)
            );
        }
    }
}
