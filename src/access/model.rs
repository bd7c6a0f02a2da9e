//! The guild as access sees it: roles and their permissions, channels with their kind,
//! category and overwrites, and the members guildctl knows the roles of.
//!
//! [`Guild::live`] reads it from a snapshot. The planners record on a copy what the plan
//! changes, with the index of the change that does it ([`Guild::set_role`],
//! [`Guild::set_channel`], [`Guild::give_role`], ...), so one computation
//! ([`super::rules`]) reads the guild before and after apply.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::HashMap;

use crate::discord::models::channel_type;
use crate::permissions::Permissions;
use crate::snapshot::Snapshot;

use crate::discord::names::EVERYONE;

/// An overwrite whose target is a role (`0`, as Discord numbers it).
pub const ROLE: u8 = 0;
/// An overwrite whose target is a member (`1`, as Discord numbers it).
pub const MEMBER: u8 = 1;

/// A guild as access computes on it: the live one ([`Guild::live`]) or the one a plan
/// leaves (a copy the planners change).
#[derive(Debug, Clone, Default)]
pub struct Guild {
    /// The guild's id, which is `@everyone`'s.
    pub id: String,
    /// The owner's user id: the owner holds every permission, whatever their roles.
    pub owner_id: String,
    /// The user guildctl acts as.
    pub bot_id: String,
    /// Highest first, `@everyone` last.
    pub roles: Vec<Role>,
    /// In the order Discord lists them: categories each followed by their channels.
    pub channels: Vec<Channel>,
    /// Members whose roles guildctl read (roster users, users member overwrites name, and
    /// any user asked about), by id.
    pub members: BTreeMap<String, Member>,
    /// Users guildctl read who are not members of the guild (left, or never joined; an
    /// overwrite may still name them, and grants them nothing), by id, with their username
    /// when Discord knows them.
    pub not_members: BTreeMap<String, Option<String>>,
    /// How many members hold each role (live ids), as Discord counted them, when read
    /// (rosters, `holders` policies, `access --channel`).
    pub role_counts: BTreeMap<String, u64>,
    /// Roles (live ids) whose every holder the member listing named: each is in `members`.
    pub listed_roles: BTreeSet<String>,
    role_at: HashMap<String, usize>,
    channel_at: HashMap<String, usize>,
}

/// A role: its name and guild-wide permissions, and where the plan touches it.
#[derive(Debug, Clone, PartialEq)]
pub struct Role {
    /// The live id; for a role the plan creates, its creation key (`role:Name`).
    pub id: String,
    /// The role's name, as lines name it.
    pub name: String,
    /// Its guild-wide permissions.
    pub permissions: Permissions,
    /// Discord gives and takes it (a bot's, an integration's, the booster role).
    pub managed: bool,
    /// For a bot's own role, the bot's user id.
    pub bot_id: Option<String>,
    /// Where the manifest declares it (`roles[2]`).
    pub source: Option<String>,
    /// The plan's changes (indexes) that make it what it is after apply.
    pub changed_by: Vec<usize>,
    /// The manifest lists its holders (`members:`): who holds it after apply is known.
    pub rostered: bool,
}

/// A channel (a category too): what access needs of it to compute who may do what there.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// The live id; for a channel the plan creates, its creation key.
    pub id: String,
    /// The channel's own name (without `#` or its category).
    pub name: String,
    /// Discord's channel type (`channel_type`).
    pub kind: u8,
    /// The category's id.
    pub parent: Option<String>,
    /// Its permission overwrites, as Discord keeps them.
    pub overwrites: Vec<Overwrite>,
    /// False where the manifest alone does not say the overwrites (a model made for
    /// `validate`, of a channel that leaves `overwrites` out).
    pub overwrites_known: bool,
    /// Where the manifest declares it (`channels[3].channels[0]`).
    pub source: Option<String>,
    /// The plan's changes (indexes) that make it what it is after apply.
    pub changed_by: Vec<usize>,
}

/// One permission overwrite of a channel: what it allows and denies its target there.
impl Channel {
    /// The channel as [`Guild::set_channel`] takes it.
    pub fn spec(&self) -> ChannelSpec<'_> {
        ChannelSpec {
            id: &self.id,
            name: &self.name,
            kind: self.kind,
            parent: self.parent.as_deref(),
        }
    }
}

/// A channel as [`Guild::set_channel`] records it: which, named what, of what kind, in
/// which category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelSpec<'a> {
    /// The live id, or the creation key of a channel the plan creates.
    pub id: &'a str,
    /// Its own name (without `#` or its category).
    pub name: &'a str,
    /// Discord's channel type (`channel_type`).
    pub kind: u8,
    /// The category's id (or creation key); none outside categories.
    pub parent: Option<&'a str>,
}

/// One permission overwrite of a channel: what it allows and denies its target there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overwrite {
    /// A role's id (or creation key), or a user's id.
    pub target: String,
    /// [`ROLE`] or [`MEMBER`].
    pub kind: u8,
    /// The permissions it grants in the channel.
    pub allow: Permissions,
    /// The permissions it takes away in the channel.
    pub deny: Permissions,
}

/// A member guildctl knows the roles of.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Member {
    /// The username Discord gave, when read.
    pub username: Option<String>,
    /// The roles held, `@everyone` left out.
    pub roles: BTreeSet<String>,
    /// The roster changes (indexes) that give or take their roles.
    pub changed_by: Vec<usize>,
}

/// Each id's place in `ids`, for sorting by the manifest's order.
fn positions(ids: &[String]) -> HashMap<&str, usize> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect()
}

/// How a channel is named in plans: `#name` for text-like channels, the name for voice
/// channels and categories, after `Category/` inside one.
pub fn display_name(kind: u8, name: &str, parent: Option<&str>) -> String {
    let own = if is_text_like(kind) {
        format!("#{name}")
    } else {
        name.to_owned()
    };
    match parent {
        Some(p) => format!("{p}/{own}"),
        None => own,
    }
}

/// Text, announcement, forum and media channels (Discord's sorting group of text).
pub fn is_text_like(kind: u8) -> bool {
    !matches!(
        kind,
        channel_type::CATEGORY | channel_type::VOICE | channel_type::STAGE
    )
}

impl Guild {
    /// The live guild, with the members the snapshot read.
    pub fn live(snap: &Snapshot) -> Guild {
        let mut g = Guild {
            id: snap.guild.id.clone(),
            owner_id: snap.guild.owner_id.clone(),
            bot_id: snap.bot.id.clone(),
            ..Guild::default()
        };
        for r in snap.roles_by_rank() {
            let everyone = r.id == snap.guild.id;
            g.roles.push(Role {
                id: r.id.clone(),
                name: if everyone {
                    EVERYONE.to_owned()
                } else {
                    r.name.clone()
                },
                permissions: r.permissions,
                managed: r.managed,
                bot_id: r
                    .tags
                    .as_ref()
                    .and_then(|t| t.get("bot_id"))
                    .and_then(|b| b.as_str())
                    .map(str::to_owned),
                source: None,
                changed_by: Vec::new(),
                rostered: false,
            });
        }
        // As Discord's client lists them: channels outside categories, then each category
        // followed by its channels; text-like before voice, by position, then id.
        let mut sorted: Vec<&crate::discord::models::Channel> = snap.channels.iter().collect();
        sorted.sort_by(|a, b| {
            let group = |k: u8| match k {
                channel_type::CATEGORY => 2,
                channel_type::VOICE | channel_type::STAGE => 1,
                _ => 0,
            };
            (group(a.kind), a.position)
                .cmp(&(group(b.kind), b.position))
                .then(crate::snapshot::snowflake_cmp(&a.id, &b.id))
        });
        let parent_of = |c: &crate::discord::models::Channel| {
            c.parent_id
                .as_deref()
                .filter(|p| snap.channel(p).is_some())
                .map(str::to_owned)
        };
        let mut ordered: Vec<&crate::discord::models::Channel> = Vec::new();
        for c in sorted.iter().filter(|c| parent_of(c).is_none()) {
            ordered.push(c);
            if c.kind == channel_type::CATEGORY {
                ordered.extend(
                    sorted
                        .iter()
                        .filter(|x| parent_of(x).as_deref() == Some(c.id.as_str())),
                );
            }
        }
        // Any other (a parent that is not a category): last, as read.
        let placed: hashbrown::HashSet<&str> = ordered.iter().map(|c| c.id.as_str()).collect();
        let rest: Vec<&crate::discord::models::Channel> = sorted
            .iter()
            .copied()
            .filter(|c| !placed.contains(c.id.as_str()))
            .collect();
        ordered.extend(rest);
        for c in ordered {
            g.channels.push(Channel {
                id: c.id.clone(),
                name: c.name.clone(),
                kind: c.kind,
                parent: parent_of(c),
                overwrites: c
                    .permission_overwrites
                    .iter()
                    .map(|o| Overwrite {
                        target: o.id.clone(),
                        kind: o.kind,
                        allow: o.allow,
                        deny: o.deny,
                    })
                    .collect(),
                overwrites_known: true,
                source: None,
                changed_by: Vec::new(),
            });
        }
        if let Some(people) = &snap.people {
            for (user, roles) in &people.declared {
                let username = people.usernames.get(user).cloned();
                match roles {
                    Some(roles) => {
                        g.members.insert(
                            user.clone(),
                            Member {
                                username,
                                roles: roles.iter().filter(|r| **r != g.id).cloned().collect(),
                                changed_by: Vec::new(),
                            },
                        );
                    }
                    None => {
                        g.not_members.insert(user.clone(), username);
                    }
                }
            }
            if let Some(counts) = &people.role_counts {
                g.role_counts = counts.clone();
            }
            if let Some(holders) = &people.holders {
                g.listed_roles = holders.keys().cloned().collect();
            }
            // Holders named by the member listing, with every role they hold.
            for (user, roles) in &people.listed {
                g.members.entry(user.clone()).or_insert_with(|| Member {
                    username: people.usernames.get(user).cloned(),
                    roles: roles.iter().filter(|r| **r != g.id).cloned().collect(),
                    changed_by: Vec::new(),
                });
            }
        }
        g.reindex();
        g
    }

    /// An empty guild of id `id` holding only `@everyone` with `everyone` permissions: the
    /// start of a model built by hand (tests, `validate`).
    pub fn new(id: &str, everyone: Permissions) -> Guild {
        let mut g = Guild {
            id: id.to_owned(),
            ..Guild::default()
        };
        g.roles.push(Role {
            id: id.to_owned(),
            name: EVERYONE.to_owned(),
            permissions: everyone,
            managed: false,
            bot_id: None,
            source: None,
            changed_by: Vec::new(),
            rostered: false,
        });
        g.reindex();
        g
    }

    fn reindex(&mut self) {
        self.role_at = self
            .roles
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        self.channel_at = self
            .channels
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.clone(), i))
            .collect();
    }

    /// Role `id` (a live id or a creation key).
    pub fn role(&self, id: &str) -> Option<&Role> {
        self.role_at.get(id).map(|&i| &self.roles[i])
    }

    /// The `@everyone` role (whose id is the guild's).
    pub fn everyone(&self) -> Option<&Role> {
        self.role(&self.id)
    }

    /// Where channel `id` is in [`Guild::channels`] (the index [`super::Access`] uses).
    pub fn channel_index(&self, id: &str) -> Option<usize> {
        self.channel_at.get(id).copied()
    }

    /// Channel `id` (a live id or a creation key).
    pub fn channel(&self, id: &str) -> Option<&Channel> {
        self.channel_index(id).map(|i| &self.channels[i])
    }

    /// The role named `name` (`@everyone` included), the highest of several.
    pub fn role_named(&self, name: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.name == name)
    }

    /// How channel `i` is named in plans (`Staff/#mod-log`).
    pub fn path(&self, i: usize) -> String {
        let c = &self.channels[i];
        let parent = c
            .parent
            .as_deref()
            .and_then(|p| self.channel(p))
            .map(|p| p.name.as_str());
        display_name(c.kind, &c.name, parent)
    }

    /// Indexes of the channels in category `id`.
    pub fn children(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        let id = id.to_owned();
        self.channels
            .iter()
            .enumerate()
            .filter(move |(_, c)| c.parent.as_deref() == Some(id.as_str()))
            .map(|(i, _)| i)
    }

    /// Records role `id` as it is after apply (created when new), named `name`, with
    /// `permissions` when the manifest says them (else as it is).
    pub fn set_role(
        &mut self,
        id: &str,
        name: &str,
        permissions: Option<Permissions>,
        source: Option<&str>,
        change: Option<usize>,
    ) {
        let i = match self.role_at.get(id) {
            Some(&i) => i,
            None => {
                // New roles go above @everyone, below the others, until ordered.
                let at = self
                    .roles
                    .iter()
                    .position(|r| r.id == self.id)
                    .unwrap_or(self.roles.len());
                self.roles.insert(
                    at,
                    Role {
                        id: id.to_owned(),
                        name: name.to_owned(),
                        permissions: Permissions::NONE,
                        managed: false,
                        bot_id: None,
                        source: None,
                        changed_by: Vec::new(),
                        rostered: false,
                    },
                );
                self.reindex();
                at
            }
        };
        let r = &mut self.roles[i];
        if r.id != self.id {
            r.name = name.to_owned();
        }
        if let Some(p) = permissions {
            r.permissions = p;
        }
        if source.is_some() {
            r.source = source.map(str::to_owned);
        }
        if let Some(c) = change {
            r.changed_by.push(c);
        }
    }

    /// Puts the roles in this order (ids; unlisted roles keep their place after them,
    /// `@everyone` last).
    pub fn order_roles(&mut self, ids: &[String]) {
        let rank = positions(ids);
        let everyone = self.id.clone();
        let mut keyed: Vec<(usize, usize, Role)> = std::mem::take(&mut self.roles)
            .into_iter()
            .enumerate()
            .map(|(at, r)| {
                let key = if r.id == everyone {
                    usize::MAX
                } else {
                    rank.get(r.id.as_str()).copied().unwrap_or(ids.len())
                };
                (key, at, r)
            })
            .collect();
        keyed.sort_by_key(|(k, at, _)| (*k, *at));
        self.roles = keyed.into_iter().map(|(_, _, r)| r).collect();
        self.reindex();
    }

    /// Removes role `id` (deleted by the plan), from members and overwrites too.
    pub fn remove_role(&mut self, id: &str) {
        self.roles.retain(|r| r.id != id);
        for m in self.members.values_mut() {
            m.roles.remove(id);
        }
        for c in &mut self.channels {
            c.overwrites.retain(|o| !(o.kind == ROLE && o.target == id));
        }
        self.reindex();
    }

    /// Records channel `channel.id` as it is after apply (created when new, at the end of
    /// its category). `overwrites`: the set the manifest gives it, `None` to keep it — a new
    /// channel then gets its category's, as Discord copies them. Setting a category's
    /// overwrites carries them to its synced channels, as Discord does.
    pub fn set_channel(
        &mut self,
        channel: ChannelSpec<'_>,
        overwrites: Option<Vec<Overwrite>>,
        source: Option<&str>,
        change: Option<usize>,
    ) {
        let ChannelSpec {
            id,
            name,
            kind,
            parent,
        } = channel;
        let i = match self.channel_at.get(id) {
            Some(&i) => i,
            None => {
                let inherited = parent
                    .and_then(|p| self.channel(p))
                    .map(|p| p.overwrites.clone())
                    .unwrap_or_default();
                let known = parent
                    .and_then(|p| self.channel(p))
                    .is_none_or(|p| p.overwrites_known);
                let at = match parent {
                    Some(p) => self
                        .channels
                        .iter()
                        .rposition(|c| c.id == p || c.parent.as_deref() == Some(p))
                        .map_or(self.channels.len(), |i| i + 1),
                    None => self.channels.len(),
                };
                self.channels.insert(
                    at,
                    Channel {
                        id: id.to_owned(),
                        name: name.to_owned(),
                        kind,
                        parent: parent.map(str::to_owned),
                        overwrites: inherited,
                        overwrites_known: known,
                        source: None,
                        changed_by: Vec::new(),
                    },
                );
                self.reindex();
                at
            }
        };
        let c = &mut self.channels[i];
        c.name = name.to_owned();
        c.kind = kind;
        c.parent = parent.map(str::to_owned);
        if source.is_some() {
            c.source = source.map(str::to_owned);
        }
        if let Some(change) = change {
            c.changed_by.push(change);
        }
        if let Some(set) = overwrites {
            // The set it had is kept only to find the children synced with it: no copy of
            // either set for a channel that is not a category.
            let before = std::mem::replace(&mut c.overwrites, set);
            c.overwrites_known = true;
            let set = &c.overwrites;
            if kind == channel_type::CATEGORY && !same_set(&before, set) {
                let set = set.clone();
                let synced: Vec<usize> = self
                    .children(id)
                    .filter(|&ci| same_set(&self.channels[ci].overwrites, &before))
                    .collect();
                for ci in synced {
                    let child = &mut self.channels[ci];
                    child.overwrites = set.clone();
                    child.changed_by.extend(change);
                }
            }
        }
    }

    /// Puts the channels in the order Discord's client shows them once the plan's order is
    /// applied: `declared` (ids, in the manifest's order) first within each place, the
    /// others after them as they were; channels outside categories, then each category
    /// with its channels; text-like before voice.
    pub fn order_channels(&mut self, declared: &[String]) {
        let rank = positions(declared);
        let key = |at: usize, c: &Channel| -> (u8, usize, usize) {
            let group = match c.kind {
                channel_type::CATEGORY => 2,
                channel_type::VOICE | channel_type::STAGE => 1,
                _ => 0,
            };
            let declared = rank.get(c.id.as_str()).copied().unwrap_or(usize::MAX);
            (group, declared, at)
        };
        let mut keyed: Vec<((u8, usize, usize), usize)> = self
            .channels
            .iter()
            .enumerate()
            .map(|(at, c)| (key(at, c), at))
            .collect();
        keyed.sort_unstable();
        let sorted: Vec<usize> = keyed.into_iter().map(|(_, at)| at).collect();
        let has_parent = |c: &Channel| {
            c.parent
                .as_deref()
                .is_some_and(|p| self.channel_at.contains_key(p))
        };
        let mut order: Vec<usize> = Vec::with_capacity(sorted.len());
        for &at in &sorted {
            let c = &self.channels[at];
            if has_parent(c) {
                continue;
            }
            order.push(at);
            if c.kind == channel_type::CATEGORY {
                order.extend(
                    sorted
                        .iter()
                        .copied()
                        .filter(|&x| self.channels[x].parent.as_deref() == Some(c.id.as_str())),
                );
            }
        }
        let placed: hashbrown::HashSet<usize> = order.iter().copied().collect();
        order.extend(sorted.into_iter().filter(|at| !placed.contains(at)));
        let mut old: Vec<Option<Channel>> = std::mem::take(&mut self.channels)
            .into_iter()
            .map(Some)
            .collect();
        self.channels = order.into_iter().filter_map(|at| old[at].take()).collect();
        self.reindex();
    }

    /// Removes channel `id` (deleted by the plan); a category's channels move to the top
    /// level, as Discord moves them.
    pub fn remove_channel(&mut self, id: &str) {
        self.channels.retain(|c| c.id != id);
        for c in &mut self.channels {
            if c.parent.as_deref() == Some(id) {
                c.parent = None;
            }
        }
        self.reindex();
    }

    /// Role `id` has a roster: the members holding it after apply are the roster's.
    pub fn mark_rostered(&mut self, id: &str) {
        if let Some(&i) = self.role_at.get(id) {
            self.roles[i].rostered = true;
        }
    }

    /// Who holds role `id`, as far as the reads and the plan know: the members named
    /// (`username (id)`), and how many hold it in all when that is known (a roster after the
    /// plan, the member listing, or Discord's member count).
    pub fn role_holders(&self, id: &str) -> (Vec<String>, Option<u64>) {
        let named: Vec<String> = self
            .members
            .iter()
            .filter(|(_, m)| m.roles.contains(id))
            .map(|(user, _)| self.person(user))
            .collect();
        // A role the plan creates is held by nobody until a roster gives it.
        let created = !id.bytes().all(|b| b.is_ascii_digit());
        let all_named =
            created || self.role(id).is_some_and(|r| r.rostered) || self.listed_roles.contains(id);
        let count = if all_named {
            Some(named.len() as u64)
        } else {
            self.role_counts.get(id).map(|&n| n.max(named.len() as u64))
        };
        (named, count)
    }

    /// The members known to hold role `id`.
    pub fn holders(&self, id: &str) -> usize {
        self.members
            .values()
            .filter(|m| m.roles.contains(id))
            .count()
    }

    /// `user` holds `role` after apply (a roster entry).
    pub fn give_role(&mut self, user: &str, role: &str, username: Option<&str>, change: usize) {
        let m = self.members.entry(user.to_owned()).or_default();
        m.roles.insert(role.to_owned());
        if m.username.is_none() {
            m.username = username.map(str::to_owned);
        }
        m.changed_by.push(change);
    }

    /// `user` no longer holds `role` after apply.
    pub fn take_role(&mut self, user: &str, role: &str, username: Option<&str>, change: usize) {
        let m = self.members.entry(user.to_owned()).or_default();
        m.roles.remove(role);
        if m.username.is_none() {
            m.username = username.map(str::to_owned);
        }
        m.changed_by.push(change);
    }

    /// Whether `user` is a member: `Some(false)` for a user guildctl read who is not,
    /// `None` for one it did not read (a model built without the people reads).
    pub fn is_member(&self, user: &str) -> Option<bool> {
        if self.members.contains_key(user) {
            Some(true)
        } else if self.not_members.contains_key(user) {
            Some(false)
        } else {
            None
        }
    }

    /// How a user is named: `username (id)` with the username Discord gave, when read.
    pub fn person(&self, user: &str) -> String {
        let username = match self.members.get(user) {
            Some(m) => m.username.as_deref(),
            None => self.not_members.get(user).and_then(Option::as_deref),
        };
        super::person(username, user)
    }

    /// The users some overwrite names.
    pub fn overwrite_members(&self) -> BTreeSet<&str> {
        self.channels
            .iter()
            .flat_map(|c| &c.overwrites)
            .filter(|o| o.kind == MEMBER)
            .map(|o| o.target.as_str())
            .collect()
    }
}

/// Two overwrite sets as Discord's sync check compares them: order does not matter and an
/// all-zero overwrite is the same as none (docs/discord.md §4.5).
pub fn same_set(a: &[Overwrite], b: &[Overwrite]) -> bool {
    fn norm(s: &[Overwrite]) -> Vec<(&str, u8, u64, u64)> {
        let mut v: Vec<(&str, u8, u64, u64)> = s
            .iter()
            .filter(|o| !(o.allow.is_empty() && o.deny.is_empty()))
            .map(|o| (o.target.as_str(), o.kind, o.allow.0, o.deny.0))
            .collect();
        v.sort_unstable();
        v
    }
    norm(a) == norm(b)
}
