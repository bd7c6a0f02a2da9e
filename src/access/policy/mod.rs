//! Policies (`policies:`): rules about access a guild must keep, judged on a model of the
//! guild — the one a plan leaves (`plan` refuses a breach), the live one (`drift` reports
//! one), or the one the manifest alone describes (`validate`).
//!
//! - `never: { who, can, where? }`: nobody in `who` (`@everyone`, a role, or `anyone`) has
//!   any of `can` in the channels `where` names (guild-wide and everywhere without it).
//! - `only: { who, can, where? }`: no role outside `who` holds any of `can`: by its own
//!   permissions (guild-wide), or in the channels `where` names. A role that holds one only
//!   because `@everyone` does is `@everyone`'s breach, said once.
//! - `holders: { role, min?, max? }`: the members holding `role` stay in bounds: the roster
//!   when the role has one, else the live member count.
//!
//! The guild's owner (who has every permission) and the role of the bot guildctl runs as
//! (which must hold what it applies) are never judged, except by a `never` naming that role.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::model::{Guild, Role};
use super::rules::{Access, Holder, implicit};
use crate::discord::names::EVERYONE;
use crate::discord::names::stored_display_name;
use crate::manifest::pattern::ChannelPattern;
use crate::manifest::{PermissionName, Policy};
use crate::permissions::Permissions;

pub use crate::manifest::ANYONE;

/// A policy the guild breaks.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breach {
    /// The policy's name.
    pub policy: String,
    /// Where it is declared (`policies[1]`).
    pub policy_at: String,
    /// What breaks it: "@everyone has view_channel in Staff/#mod-log".
    pub what: String,
    /// The role or person that breaks it (`@everyone`, a role's name, `alice (123)`).
    pub who: String,
    /// The channel (`Staff/#mod-log`); none: guild-wide (or a count of holders).
    pub channel: Option<String>,
    /// The permissions (by name) the breach is about.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<String>,
    /// The model's channel (index) and role or user, for the caller to find the cause.
    #[serde(skip)]
    pub at: Place,
}

/// Where in the model a breach is, for finding what causes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    /// The channel's index in the model; none: guild-wide.
    pub channel: Option<usize>,
    /// The role's id, when a role breaks it.
    pub role: Option<String>,
    /// The user's id, when a person breaks it.
    pub user: Option<String>,
}

/// The verdict on a guild.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// What breaks the policies, each breach on its own.
    pub breaches: Vec<Breach>,
    /// The names of the policies kept.
    pub kept: Vec<String>,
    /// Policies that could not be judged, with why: (where it is declared, message).
    pub unjudged: Vec<(String, String)>,
    /// Findings that do not break a policy: a `where` that names no channel.
    pub warnings: Vec<(String, String)>,
}

/// What a policy covered before a plan, as ids of the guild the plan leaves: judged there as
/// well as what its text names now, so a plan cannot take a channel or a role out of a policy
/// and, in the same plan, do what the policy forbade there (`judge::policy_changes`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Carried {
    /// The channels (ids) its `where` named.
    pub channels: Vec<String>,
    /// The roles (ids) its `never.who` or `holders.role` named.
    pub roles: Vec<String>,
    /// For `only`: the roles (ids) it allowed; a role it did not allow is not allowed now.
    pub allowed: Option<Vec<String>>,
}

/// How sure a judgement must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certainty {
    /// The model is the whole guild (live, or after a plan): every policy is judged, and
    /// one that names what the guild lacks cannot be.
    Whole,
    /// The model holds only what the manifest says (`validate`): a role's unsaid permissions
    /// count as none and a channel whose overwrites it leaves out is not judged, so every
    /// breach found is one the manifest decides; what it cannot decide is left to `plan`.
    ManifestOnly,
}

/// Judges `policies` (each with where it is declared) on `g`; `count` gives the members
/// holding a role (its roster, else the live count), when known.
pub fn judge(
    policies: &[(String, &Policy)],
    g: &Guild,
    count: &dyn Fn(&Role) -> Option<u64>,
    certainty: Certainty,
) -> Verdict {
    judge_carried(policies, &[], g, count, certainty)
}

/// [`judge`], each policy also on what it covered before a plan: `carried[i]` for
/// `policies[i]` (nothing for those past its end).
pub fn judge_carried(
    policies: &[(String, &Policy)],
    carried: &[Carried],
    g: &Guild,
    count: &dyn Fn(&Role) -> Option<u64>,
    certainty: Certainty,
) -> Verdict {
    let mut v = Verdict::default();
    let nothing = Carried::default();
    for (i, (at, p)) in policies.iter().enumerate() {
        let before = (v.breaches.len(), v.unjudged.len());
        let mut cx = Judge {
            g,
            policy: p,
            at,
            certainty,
            carried: carried.get(i).unwrap_or(&nothing),
            v: &mut v,
        };
        match (&p.never, &p.only, &p.holders) {
            (Some(rule), None, None) => {
                cx.never(&rule.who, bits(&rule.can), rule.places.as_deref())
            }
            (None, Some(rule), None) => cx.only(&rule.who, bits(&rule.can), rule.places.as_deref()),
            (None, None, Some(rule)) => cx.holders(&rule.role, rule.min, rule.max, count),
            // The checks refuse any other shape before a model is judged.
            _ => continue,
        }
        if (v.breaches.len(), v.unjudged.len()) == before {
            v.kept.push(p.name.clone());
        }
    }
    v
}

fn bits(names: &[PermissionName]) -> Permissions {
    names
        .iter()
        .filter_map(|n| Permissions::parse_name(&n.0))
        .fold(Permissions::NONE, |a, b| a | b)
}

struct Judge<'a> {
    g: &'a Guild,
    policy: &'a Policy,
    at: &'a str,
    certainty: Certainty,
    carried: &'a Carried,
    v: &'a mut Verdict,
}

/// One who to judge: the label, the holder, and the role or user it is.
struct Subject {
    label: String,
    holder: Holder,
    role: Option<String>,
    user: Option<String>,
}

/// Which roles a rule judges, so a person's breach leaves out what those roles' own
/// breaches say (what a role has, a member holding it has with it, said once).
#[derive(Clone, Copy)]
enum Judged<'r> {
    /// `anyone`: `@everyone` and every role.
    All,
    /// One role (`@everyone`'s id for `@everyone`).
    Role(&'r str),
    /// Every role outside an `only` rule's `who` (with `@everyone` unless it is allowed).
    Outside(&'r [String]),
}

impl<'a> Judge<'a> {
    fn unjudged(&mut self, message: String) {
        self.v.unjudged.push((self.at.to_owned(), message));
    }

    /// A role the policy names is not in the guild: said on the plan, since the policy
    /// then holds trivially for it (a typo would go unnoticed).
    fn missing_role(&mut self, path: &str, name: &str) {
        if self.certainty == Certainty::Whole {
            self.v.warnings.push((
                format!("{}.{path}", self.at),
                format!(
                    "policy `{}` names role `{name}`, which the guild does not have (nor will the plan make it)",
                    self.policy.name
                ),
            ));
        }
    }

    fn breach(&mut self, s: &Subject, channel: Option<usize>, found: Permissions, what: String) {
        self.v.breaches.push(Breach {
            policy: self.policy.name.clone(),
            policy_at: self.at.to_owned(),
            what,
            who: s.label.clone(),
            channel: channel.map(|i| self.g.path(i)),
            permissions: found.display_names(),
            at: Place {
                channel,
                role: s.role.clone(),
                user: s.user.clone(),
            },
        });
    }

    /// The role named `name` (`@everyone` included), as Discord stores names.
    fn role(&self, name: &str) -> Option<&'a Role> {
        let key = stored_display_name(name);
        self.g
            .roles
            .iter()
            .find(|r| stored_display_name(&r.name) == key)
    }

    fn role_subject(&self, r: &Role) -> Subject {
        if r.id == self.g.id {
            return Subject {
                label: EVERYONE.to_owned(),
                holder: Holder::everyone(),
                role: Some(r.id.clone()),
                user: None,
            };
        }
        Subject {
            label: r.name.clone(),
            holder: Holder::roles([r.id.clone()]),
            role: Some(r.id.clone()),
            user: None,
        }
    }

    /// Every role (the bot's own left out) and every member an overwrite names.
    fn everyone_and_all(&self) -> Vec<Subject> {
        let mut out: Vec<Subject> = self
            .g
            .roles
            .iter()
            .filter(|r| !self.is_bot_role(r))
            .map(|r| self.role_subject(r))
            .collect();
        out.extend(self.people(|_| true));
        out
    }

    /// The members a member overwrite names whose roles `holding` accepts (by the ids they
    /// are known to hold): the owner (every permission), the bot (never judged) and users who
    /// are not members (an overwrite grants them nothing) left out.
    fn people(&self, holding: impl Fn(&[&str]) -> bool) -> Vec<Subject> {
        let g = self.g;
        g.overwrite_members()
            .into_iter()
            .filter(|u| *u != g.owner_id && *u != g.bot_id && g.is_member(u) != Some(false))
            .filter(|u| {
                let held: Vec<&str> = g
                    .members
                    .get(*u)
                    .map(|m| m.roles.iter().map(String::as_str).collect())
                    .unwrap_or_default();
                holding(&held)
            })
            .map(|u| Subject {
                label: g.person(u),
                holder: Holder::member(g, u),
                role: None,
                user: Some(u.to_owned()),
            })
            .collect()
    }

    /// What `s` may do. A person's roles are read for a plan (and drift); the manifest
    /// alone (`validate`) does not say them, so there a person is judged by what their own
    /// overwrite grants whatever roles they hold: its allows, as the implicit rules leave
    /// them.
    fn access(&self, s: &Subject) -> Access {
        let g = self.g;
        let Some(user) = s.user.as_deref() else {
            return g.access(&s.holder);
        };
        if self.certainty == Certainty::Whole {
            return g.access(&s.holder);
        }
        let channels = g
            .channels
            .iter()
            .map(|c| {
                let own = c
                    .overwrites
                    .iter()
                    .find(|o| o.kind == super::model::MEMBER && o.target == user);
                own.map_or(Permissions::NONE, |o| implicit(o.allow, c.kind))
            })
            .collect();
        Access {
            base: Permissions::NONE,
            channels,
        }
    }

    /// What the judged roles' own breaches say for `s`, which its breach leaves out: for a
    /// role, `@everyone`'s (under `anyone`); for a person, that of each judged role they
    /// hold, `@everyone` included.
    fn explained(&self, s: &Subject, judged: Judged) -> Option<Access> {
        let g = self.g;
        let is_everyone = s.role.as_deref() == Some(g.id.as_str());
        // What @everyone has is @everyone's breach (or allowed by an `only`), said once.
        let everyones = match judged {
            Judged::All | Judged::Outside(_) => true,
            Judged::Role(r) => r == g.id && s.user.is_some(),
        };
        let mut holders: Vec<Holder> = Vec::new();
        if everyones && !is_everyone {
            holders.push(Holder::everyone());
        }
        if s.user.is_some() {
            for r in &s.holder.roles {
                let judged_role = match judged {
                    Judged::All => g.role(r).is_some_and(|r| !self.is_bot_role(r)),
                    Judged::Role(id) => id == r,
                    Judged::Outside(allowed) => !allowed.contains(r),
                };
                if judged_role {
                    holders.push(Holder::roles([r.clone()]));
                }
            }
        }
        holders.iter().map(|h| g.access(h)).reduce(|a, b| Access {
            base: a.base | b.base,
            channels: a
                .channels
                .iter()
                .zip(&b.channels)
                .map(|(x, y)| *x | *y)
                .collect(),
        })
    }

    fn is_bot_role(&self, r: &Role) -> bool {
        r.managed
            && r.bot_id.as_deref() == Some(self.g.bot_id.as_str())
            && !self.g.bot_id.is_empty()
    }

    /// The channels `places` names (every channel for `None`); warns of a pattern that
    /// names none.
    fn channels(&mut self, places: Option<&[String]>) -> Vec<usize> {
        let judged =
            |c: &super::model::Channel| self.certainty == Certainty::Whole || c.overwrites_known;
        let Some(patterns) = places else {
            return (0..self.g.channels.len())
                .filter(|&i| judged(&self.g.channels[i]))
                .collect();
        };
        let paths: Vec<String> = (0..self.g.channels.len()).map(|i| self.g.path(i)).collect();
        let mut out = Vec::new();
        for (k, pattern) in patterns.iter().enumerate() {
            // Compiled once for every channel; one past the length limit names nothing
            // (`validate` refuses it before any policy is judged).
            let compiled = ChannelPattern::new(pattern).ok();
            let found: Vec<usize> = paths
                .iter()
                .enumerate()
                .filter(|(_, p)| compiled.as_ref().is_some_and(|c| c.matches(p)))
                .map(|(i, _)| i)
                .collect();
            if found.is_empty() && self.certainty == Certainty::Whole {
                let rule = if self.policy.never.is_some() {
                    "never"
                } else {
                    "only"
                };
                self.v.warnings.push((
                    format!("{}.{rule}.where[{k}]", self.at),
                    format!(
                        "policy `{}`: `{pattern}` names no channel of the guild, so it holds nowhere there",
                        self.policy.name
                    ),
                ));
            }
            out.extend(found.into_iter().filter(|&i| judged(&self.g.channels[i])));
        }
        let carried = self.carried.channels.iter();
        out.extend(
            carried
                .filter_map(|id| self.g.channel_index(id))
                .filter(|&i| judged(&self.g.channels[i])),
        );
        out.sort_unstable();
        out.dedup();
        out
    }

    /// A role `never` names, and each member an overwrite names who holds it (`@everyone`:
    /// who holds no role); the manifest alone says no member holds no role.
    fn role_group(&self, r: &'a Role) -> (Vec<Subject>, Judged<'a>) {
        let everyone = r.id == self.g.id;
        let mut subjects = vec![self.role_subject(r)];
        if !(everyone && self.certainty == Certainty::ManifestOnly) {
            subjects.extend(self.people(|held| {
                if everyone {
                    held.is_empty()
                } else {
                    held.contains(&r.id.as_str())
                }
            }));
        }
        (subjects, Judged::Role(&r.id))
    }

    fn never(&mut self, who: &str, can: Permissions, places: Option<&[String]>) {
        let g = self.g;
        let mut groups: Vec<(Vec<Subject>, Judged<'a>)> = Vec::new();
        let named = if who == ANYONE {
            groups.push((self.everyone_and_all(), Judged::All));
            None
        } else if let Some(r) = self.role(who) {
            groups.push(self.role_group(r));
            Some(r.id.as_str())
        } else {
            self.missing_role("never.who", who);
            None
        };
        // The roles it named before the plan (renamed since, or gone from its text).
        if who != ANYONE {
            for id in &self.carried.roles {
                if let Some(r) = g.role(id).filter(|r| Some(r.id.as_str()) != named) {
                    groups.push(self.role_group(r));
                }
            }
        }
        if groups.is_empty() {
            return;
        }
        let channels = self.channels(places);
        for (subjects, judged) in groups {
            self.never_of(subjects, judged, can, places, &channels);
        }
    }

    fn never_of(
        &mut self,
        subjects: Vec<Subject>,
        judged: Judged<'_>,
        can: Permissions,
        places: Option<&[String]>,
        channels: &[usize],
    ) {
        let g = self.g;
        for s in subjects {
            let access = self.access(&s);
            let explained = self.explained(&s, judged);
            let inherited = |i: Option<usize>| match &explained {
                Some(e) => i.map_or(e.base, |i| e.channels[i]),
                None => Permissions::NONE,
            };
            let mut said = Permissions::NONE;
            if places.is_none() {
                let found = access.base & can & !inherited(None);
                if !found.is_empty() {
                    let what = format!("{} has {} guild-wide", s.label, names(found));
                    self.breach(&s, None, found, what);
                    said = found;
                }
            }
            for &i in channels {
                let found = access.channels[i] & can & !said & !inherited(Some(i));
                if !found.is_empty() {
                    let what = format!("{} has {} in {}", s.label, names(found), g.path(i));
                    self.breach(&s, Some(i), found, what);
                }
            }
        }
    }

    fn only(&mut self, who: &[String], can: Permissions, places: Option<&[String]>) {
        let mut allowed: Vec<String> = Vec::new();
        for (k, name) in who.iter().enumerate() {
            match self.role(name) {
                Some(r) => allowed.push(r.id.clone()),
                // Allowing a role that does not exist allows nobody.
                None => self.missing_role(&format!("only.who[{k}]"), name),
            }
        }
        // A role it did not allow before the plan is not allowed by it now.
        if let Some(before) = &self.carried.allowed {
            allowed.retain(|id| before.contains(id));
        }
        let listed = who.join(", ");
        // Roles outside `who`, and the members an overwrite names who hold none of its
        // roles (one who does is allowed).
        let subjects: Vec<Subject> = self
            .everyone_and_all()
            .into_iter()
            .filter(|s| match &s.role {
                Some(r) => !allowed.contains(r),
                None => !s.holder.roles.iter().any(|r| allowed.contains(r)),
            })
            .collect();
        let Some(places) = places else {
            // Guild-wide: the roles' own permissions.
            for s in subjects.iter().filter(|s| s.role.is_some()) {
                let Some(r) = s.role.as_deref().and_then(|id| self.g.role(id)) else {
                    continue;
                };
                let own = if r.permissions.contains(Permissions::ADMINISTRATOR) {
                    can
                } else {
                    r.permissions & can
                };
                if !own.is_empty() {
                    let what = format!(
                        "{} holds {}{}, which only {listed} may",
                        s.label,
                        names(own),
                        admin_note(r.permissions, own)
                    );
                    self.breach(s, None, own, what);
                }
            }
            return;
        };
        let channels = self.channels(Some(places));
        for s in &subjects {
            let access = self.access(s);
            // What @everyone has there is @everyone's to answer for (or allowed); what a
            // person's roles have, theirs.
            let explained = self.explained(s, Judged::Outside(&allowed));
            for &i in &channels {
                let inherited = explained
                    .as_ref()
                    .map_or(Permissions::NONE, |e| e.channels[i]);
                let found = access.channels[i] & can & !inherited;
                if !found.is_empty() {
                    let what = format!(
                        "{} has {} in {}, which only {listed} may",
                        s.label,
                        names(found),
                        self.g.path(i)
                    );
                    self.breach(s, Some(i), found, what);
                }
            }
        }
    }

    fn holders(
        &mut self,
        role: &str,
        min: Option<u32>,
        max: Option<u32>,
        count: &dyn Fn(&Role) -> Option<u64>,
    ) {
        let carried = self.carried.roles.first().and_then(|id| self.g.role(id));
        let named = self.role(role);
        if named.is_none() && carried.is_some() {
            self.missing_role("holders.role", role);
        }
        let Some(r) = named.or(carried) else {
            // No such role: nobody holds it.
            self.missing_role("holders.role", role);
            if let Some(m) = min.filter(|m| *m > 0 && self.certainty == Certainty::Whole) {
                let s = Subject {
                    label: role.to_owned(),
                    holder: Holder::everyone(),
                    role: None,
                    user: None,
                };
                let what = format!(
                    "no member holds {role} (the guild has no such role); the policy wants at least {m}"
                );
                self.breach(&s, None, Permissions::NONE, what);
            }
            return;
        };
        let Some(n) = count(r) else {
            if self.certainty == Certainty::Whole {
                self.unjudged(format!(
                    "policy `{}`: how many members hold `{}` could not be read",
                    self.policy.name, r.name
                ));
            }
            return;
        };
        let low = min.is_some_and(|m| n < u64::from(m));
        let high = max.is_some_and(|m| n > u64::from(m));
        if low || high {
            let bounds = match (min, max) {
                (Some(a), Some(b)) => format!("{a} to {b}"),
                (Some(a), None) => format!("at least {a}"),
                (None, Some(b)) => format!("at most {b}"),
                (None, None) => String::new(),
            };
            let s = self.role_subject(r);
            let what = format!("{n} member(s) hold {}; the policy allows {bounds}", r.name);
            self.breach(&s, None, Permissions::NONE, what);
        }
    }
}

/// The guild as the manifest alone describes it, for `validate`: declared roles with their
/// declared permissions (none when unsaid), rosters, declared channels with the overwrites
/// they declare (or sync); a channel that leaves its overwrites out is not known.
/// `m` is in its stored form ([`crate::manifest::LoadedManifest::stored`]).
pub fn manifest_model(m: &crate::manifest::Manifest) -> Guild {
    use super::model::{ChannelSpec, MEMBER, Overwrite, ROLE};
    let role_key = |name: &str| {
        if name == EVERYONE {
            MANIFEST_GUILD.to_owned()
        } else {
            format!("role:{name}")
        }
    };
    let declared_perms = |names: &Option<Vec<PermissionName>>| names.as_deref().map(bits);
    let everyone = m
        .roles
        .iter()
        .flatten()
        .find(|r| r.name == EVERYONE)
        .and_then(|r| declared_perms(&r.permissions))
        .unwrap_or_default();
    let mut g = Guild::new(MANIFEST_GUILD, everyone);
    for (i, r) in m.roles.iter().flatten().enumerate() {
        let source = format!("roles[{i}]");
        let id = role_key(&r.name);
        g.set_role(
            &id,
            &r.name,
            Some(declared_perms(&r.permissions).unwrap_or_default()),
            Some(&source),
            None,
        );
        if let Some(members) = &r.members {
            g.mark_rostered(&id);
            for user in members {
                g.give_role(&user.id.0, &id, None, 0);
            }
        }
    }
    let set = |list: &[crate::manifest::Overwrite]| -> Vec<Overwrite> {
        list.iter()
            .filter_map(|o| match (&o.role, &o.member) {
                (Some(role), None) => Some((role_key(role), ROLE, o)),
                (None, Some(user)) => Some((user.0.clone(), MEMBER, o)),
                _ => None,
            })
            .map(|(target, kind, o)| Overwrite {
                target,
                kind,
                allow: bits(&o.allow),
                deny: bits(&o.deny),
            })
            .collect()
    };
    for (i, c) in m.channels.iter().flatten().enumerate() {
        let source = format!("channels[{i}]");
        let kind = c.channel_type().value() as u8;
        let id = format!("channel:{}", c.name);
        g.set_channel(
            ChannelSpec {
                id: &id,
                name: &c.name,
                kind,
                parent: None,
            },
            Some(set(c.overwrites.as_deref().unwrap_or_default())),
            Some(&source),
            None,
        );
        let known = c.overwrites.is_some();
        if let Some(at) = g.channel_index(&id) {
            g.channels[at].overwrites_known = known;
        }
        for (j, child) in c.channels.iter().flatten().enumerate() {
            let child_id = format!("channel:{}/{}", c.name, child.name);
            let synced = child.sync_permissions == Some(true) && child.overwrites.is_none();
            let own = child.overwrites.as_deref().map(set);
            g.set_channel(
                ChannelSpec {
                    id: &child_id,
                    name: &child.name,
                    kind: child.channel_type().value() as u8,
                    parent: Some(&id),
                },
                own,
                Some(&format!("{source}.channels[{j}]")),
                None,
            );
            if let Some(at) = g.channel_index(&child_id) {
                g.channels[at].overwrites_known = child.overwrites.is_some() || (synced && known);
            }
        }
    }
    g
}

/// The id the manifest's own model gives its guild (and `@everyone`).
const MANIFEST_GUILD: &str = "guild";

/// What `validate` finds of the policies: the breaches the manifest alone decides, each
/// placed on the declaration that makes it (else the policy).
pub fn manifest_breaches(m: &crate::manifest::Manifest) -> Vec<crate::manifest::Diagnostic> {
    let policies: Vec<(String, &Policy)> = m
        .policies
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, p)| (format!("policies[{i}]"), p))
        .collect();
    if policies.is_empty() {
        return Vec::new();
    }
    let g = manifest_model(m);
    let count = |r: &Role| r.rostered.then(|| g.holders(&r.id) as u64);
    let verdict = judge(&policies, &g, &count, Certainty::ManifestOnly);
    verdict
        .breaches
        .iter()
        .map(|b| {
            let channel = b.at.channel.and_then(|i| g.channels.get(i));
            let role = b.at.role.as_deref().and_then(|r| g.role(r));
            // In a channel: its overwrites; guild-wide: the role's permissions (or roster).
            let place = match (channel, role) {
                (Some(c), _) => c.source.as_ref().map(|s| format!("{s}.overwrites")),
                (None, Some(r)) if r.rostered && b.permissions.is_empty() => {
                    r.source.as_ref().map(|s| format!("{s}.members"))
                }
                (None, Some(r)) => r.source.as_ref().map(|s| format!("{s}.permissions")),
                (None, None) => None,
            };
            crate::manifest::Diagnostic::error(
                place.unwrap_or_else(|| b.policy_at.clone()),
                format!(
                    "policy `{}` ({}) is broken by the manifest itself: {}",
                    b.policy, b.policy_at, b.what
                ),
            )
            .with_help("change the manifest so the guild keeps the policy, or change the policy")
        })
        .collect()
}

/// [`crate::manifest::validate`], with the breaches of the policies the manifest alone
/// decides ([`manifest_breaches`]): what `guildctl validate` reports.
pub fn validate(
    path: &std::path::Path,
) -> (
    Option<crate::manifest::LoadedManifest>,
    crate::manifest::Report,
) {
    validate_in(path, &crate::manifest::Within::given(path))
}

/// [`validate`] for a path that must stay `within` a folder (a workspace guild's manifest).
pub fn validate_in(
    path: &std::path::Path,
    within: &crate::manifest::Within,
) -> (
    Option<crate::manifest::LoadedManifest>,
    crate::manifest::Report,
) {
    let (loaded, mut report) = crate::manifest::validate_in(path, within);
    if let Some(l) = loaded.as_ref().filter(|_| !report.has_errors()) {
        let found = manifest_breaches(l.stored());
        report.add_diagnostics(
            &l.locations,
            found
                .iter()
                .map(|d| (std::borrow::Cow::Borrowed("policy-breaches"), d)),
        );
        report.sort();
    }
    (loaded, report)
}

fn names(p: Permissions) -> String {
    p.display_names().join(", ")
}

/// " (administrator gives them)" when the role holds them only through administrator.
fn admin_note(own: Permissions, found: Permissions) -> &'static str {
    if own.contains(Permissions::ADMINISTRATOR) && !found.contains(Permissions::ADMINISTRATOR) {
        " (administrator gives them)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests;
