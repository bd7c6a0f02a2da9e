//! Effective permissions and the access lines a plan must show, computed here apart from
//! `src/access`: from Discord's documented algorithm (docs/discord.md §3.6,
//! `topics/permissions`) and the line rules docs/access.md states, over the emulator's own
//! state (the guild before apply, and the guild apply left). Only Discord's permission table
//! (which permission means something in which kind of channel,
//! `discord_permissions::CHANNEL_TYPES`, data from Discord's docs) is shared.

use std::collections::{BTreeMap, BTreeSet};

use discord_emulator::State;
use discord_permissions::{CHANNEL_TYPES, NAMED};

type P = BTreeSet<&'static str>;

const CATEGORY: u8 = 4;
const VOICE: u8 = 2;
const STAGE: u8 = 13;

fn of_bits(bits: u64) -> P {
    NAMED
        .iter()
        .filter(|(_, bit)| bits & (1u64 << bit) != 0)
        .map(|(n, _)| *n)
        .collect()
}

/// What means something in a channel of Discord type `kind` (a category: anything some
/// kind of channel inherits from it).
fn meaningful(kind: u8) -> P {
    let letter = match kind {
        CATEGORY => None,
        VOICE => Some('V'),
        STAGE => Some('S'),
        _ => Some('T'),
    };
    CHANNEL_TYPES
        .iter()
        .filter(|(_, kinds)| letter.is_none_or(|l| kinds.contains(l)))
        .map(|(n, _)| *n)
        .collect()
}

fn everything() -> P {
    NAMED.iter().map(|(n, _)| *n).collect()
}

#[derive(Debug, Clone)]
struct Channel {
    id: String,
    name: String,
    kind: u8,
    parent: Option<String>,
    /// (target id, 0 role / 1 member, allow, deny)
    overwrites: Vec<(String, u8, P, P)>,
}

/// A guild as this computation reads it.
#[derive(Debug, Clone)]
pub struct Model {
    id: String,
    owner: String,
    /// Role id → (name, permissions); `@everyone` is the guild's id.
    roles: BTreeMap<String, (String, P)>,
    channels: Vec<Channel>,
    /// Member → the roles they hold.
    members: BTreeMap<String, BTreeSet<String>>,
}

impl Model {
    pub fn of(state: &State) -> Model {
        let g = &state.guilds[0];
        Model {
            id: g.id.clone(),
            owner: g.owner_id.clone(),
            roles: g
                .roles
                .iter()
                .map(|r| (r.id.clone(), (r.name.clone(), of_bits(r.permissions.0))))
                .collect(),
            channels: g
                .channels
                .iter()
                .map(|c| Channel {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    kind: c.kind,
                    parent: c.parent_id.clone(),
                    overwrites: c
                        .permission_overwrites
                        .iter()
                        .map(|o| (o.id.clone(), o.kind, of_bits(o.allow.0), of_bits(o.deny.0)))
                        .collect(),
                })
                .collect(),
            members: g
                .members
                .iter()
                .map(|m| {
                    let held = m.roles.iter().filter(|r| **r != g.id).cloned().collect();
                    (m.user_id.clone(), held)
                })
                .collect(),
        }
    }

    /// The users some member overwrite names.
    fn overwrite_users(&self) -> BTreeSet<String> {
        self.channels
            .iter()
            .flat_map(|c| &c.overwrites)
            .filter(|o| o.1 == 1)
            .map(|o| o.0.clone())
            .collect()
    }

    /// How plans name a channel: `#name` for text-like ones, after `Category/` inside one.
    fn path(&self, c: &Channel) -> String {
        let own = if matches!(c.kind, CATEGORY | VOICE | STAGE) {
            c.name.clone()
        } else {
            format!("#{}", c.name)
        };
        match c
            .parent
            .as_ref()
            .and_then(|p| self.channels.iter().find(|x| &x.id == p))
        {
            Some(p) => format!("{}/{own}", p.name),
            None => own,
        }
    }

    /// Guild-wide permissions of a member holding `roles` (user `user`); `None` means all of
    /// them (the owner, or administrator).
    fn base(&self, roles: &BTreeSet<String>, user: Option<&str>) -> Option<P> {
        if user == Some(self.owner.as_str()) {
            return None;
        }
        let mut p = self
            .roles
            .get(&self.id)
            .map(|r| r.1.clone())
            .unwrap_or_default();
        for r in roles {
            if let Some((_, held)) = self.roles.get(r) {
                p.extend(held.iter().copied());
            }
        }
        (!p.contains("administrator")).then_some(p)
    }

    /// Permissions in channel `c` before the implicit rules.
    fn overwritten(
        &self,
        c: &Channel,
        roles: &BTreeSet<String>,
        user: Option<&str>,
        base: &P,
    ) -> P {
        let mut p = base.clone();
        if let Some((_, _, allow, deny)) = c.overwrites.iter().find(|o| o.0 == self.id) {
            p.retain(|x| !deny.contains(x));
            p.extend(allow.iter().copied());
        }
        let (mut allow, mut deny) = (P::new(), P::new());
        for (target, kind, a, d) in &c.overwrites {
            if *kind == 0 && *target != self.id && roles.contains(target) {
                allow.extend(a.iter().copied());
                deny.extend(d.iter().copied());
            }
        }
        p.retain(|x| !deny.contains(x));
        p.extend(allow);
        if let Some((_, _, a, d)) = c
            .overwrites
            .iter()
            .find(|o| o.1 == 1 && Some(o.0.as_str()) == user)
        {
            p.retain(|x| !d.contains(x));
            p.extend(a.iter().copied());
        }
        p
    }

    /// Discord's implicit rules, kept to what the kind of channel knows.
    fn implicit(mut p: P, kind: u8) -> P {
        let known = meaningful(kind);
        p.retain(|x| known.contains(x));
        if !p.contains("view_channel") {
            return P::new();
        }
        if !p.contains("send_messages") {
            for x in [
                "mention_everyone",
                "send_tts_messages",
                "attach_files",
                "embed_links",
            ] {
                p.remove(x);
            }
        }
        if matches!(kind, VOICE | STAGE) && !p.contains("connect") {
            p.retain(|x| *x == "view_channel");
        }
        p
    }

    /// Everything a member holding `roles` may do: guild-wide, and by channel id (a
    /// category is visible when one of its channels is).
    fn access(&self, roles: &BTreeSet<String>, user: Option<&str>) -> Access {
        let base = self.base(roles, user);
        let mut channels: BTreeMap<String, P> = self
            .channels
            .iter()
            .map(|c| {
                let p = match &base {
                    None => meaningful(c.kind),
                    Some(b) => Self::implicit(self.overwritten(c, roles, user, b), c.kind),
                };
                (c.id.clone(), p)
            })
            .collect();
        for c in &self.channels {
            if c.kind == CATEGORY || !channels[&c.id].contains("view_channel") {
                continue;
            }
            if let Some(p) = c.parent.as_ref().and_then(|p| channels.get_mut(p)) {
                p.insert("view_channel");
            }
        }
        Access {
            admin: base.is_none(),
            base: base.unwrap_or_else(everything),
            channels,
        }
    }
}

struct Access {
    admin: bool,
    base: P,
    channels: BTreeMap<String, P>,
}

/// One who's gains and losses between two guilds.
struct Delta {
    admin: bool,
    base: (P, P),
    /// By channel id of the guild after.
    channels: BTreeMap<String, (P, P)>,
}

fn diff(a: &P, b: &P) -> P {
    a.difference(b).copied().collect()
}

fn delta(before: &Access, after: &Access) -> Delta {
    let none = P::new();
    Delta {
        admin: before.admin || after.admin,
        base: (
            diff(&after.base, &before.base),
            diff(&before.base, &after.base),
        ),
        channels: after
            .channels
            .iter()
            .map(|(id, a)| {
                let b = before.channels.get(id).unwrap_or(&none);
                (id.clone(), (diff(a, b), diff(b, a)))
            })
            .collect(),
    }
}

/// A line's place: who (`everyone`, `role:ID`, `user:ID`) and the channel (its path; none
/// for a guild-wide line).
pub type Key = (String, Option<String>);

/// The access lines a plan between `before` and `after` must show, by the rules of
/// docs/access.md ("In every plan"): per `@everyone`, per role (a member holding it alone;
/// a role new to the guild compared with a member holding none), and per person whose roles
/// change or whom a member overwrite names; each line says only what is its own (less what
/// `@everyone`'s line says, and, for a person, what the lines of the roles they keep say);
/// one guild-wide line of `administrator` for a who that is or becomes one; guild-wide
/// lines hold only permissions no channel knows. The owner has none.
pub fn expected_lines(before: &Model, after: &Model) -> BTreeMap<Key, (P, P)> {
    let mut out = BTreeMap::new();
    let no_roles = BTreeSet::new();
    let everyone = delta(
        &before.access(&no_roles, None),
        &after.access(&no_roles, None),
    );
    let guild_only: P = diff(&everything(), &meaningful(CATEGORY));
    let paths: BTreeMap<&str, String> = after
        .channels
        .iter()
        .map(|c| (c.id.as_str(), after.path(c)))
        .collect();
    let mut push = |who: String, d: &Delta, explained: &[&Delta]| {
        if d.admin {
            let admin = |s: &P| {
                s.iter()
                    .copied()
                    .filter(|x| *x == "administrator")
                    .collect::<P>()
            };
            let (g, l) = (admin(&d.base.0), admin(&d.base.1));
            if !(g.is_empty() && l.is_empty()) {
                out.insert((who, None), (g, l));
            }
            return;
        }
        let minus = |(g, l): (P, P), f: &dyn Fn(&Delta) -> (P, P)| {
            explained.iter().fold((g, l), |(g, l), e| {
                let (eg, el) = f(e);
                (diff(&g, &eg), diff(&l, &el))
            })
        };
        let only = |s: &P| s.intersection(&guild_only).copied().collect::<P>();
        let (g, l) = minus((only(&d.base.0), only(&d.base.1)), &|e| e.base.clone());
        if !(g.is_empty() && l.is_empty()) {
            out.insert((who.clone(), None), (g, l));
        }
        for (id, own) in &d.channels {
            let (g, l) = minus(own.clone(), &|e| {
                e.channels.get(id).cloned().unwrap_or_default()
            });
            if !(g.is_empty() && l.is_empty()) {
                out.insert((who.clone(), Some(paths[id.as_str()].clone())), (g, l));
            }
        }
    };
    push("everyone".to_owned(), &everyone, &[]);
    let mut by_role: BTreeMap<&str, Delta> = BTreeMap::new();
    for id in after.roles.keys().filter(|r| **r != after.id) {
        let alone = BTreeSet::from([id.clone()]);
        let was = if before.roles.contains_key(id) {
            &alone
        } else {
            &no_roles
        };
        let d = delta(&before.access(was, None), &after.access(&alone, None));
        push(format!("role:{id}"), &d, &[&everyone]);
        by_role.insert(id, d);
    }
    let mut users: BTreeSet<String> = after
        .members
        .iter()
        .filter(|(u, held)| before.members.get(*u) != Some(held))
        .map(|(u, _)| u.clone())
        .collect();
    users.extend(before.overwrite_users());
    users.extend(after.overwrite_users());
    for user in users.iter().filter(|u| **u != after.owner) {
        let was = before.members.get(user).cloned().unwrap_or_default();
        let now = after.members.get(user).cloned().unwrap_or_default();
        let d = delta(
            &before.access(&was, Some(user)),
            &after.access(&now, Some(user)),
        );
        let mut explained = vec![&everyone];
        explained.extend(
            now.intersection(&was)
                .filter_map(|r| by_role.get(r.as_str())),
        );
        push(format!("user:{user}"), &d, &explained);
    }
    out
}
