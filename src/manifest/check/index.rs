//! The manifest as the rules read it ([`Ctx`]): its roles and channels flattened, each with
//! its path, indexed once by the keys references use; and the lookups every rule resolves a
//! reference with (a warning for what may exist only in the live guild, an error for what is
//! ambiguous or of the wrong type).

use super::refs::stored_name;
use super::*;

/// The manifest with its roles and channels flattened, each with its path.
pub struct Ctx<'a> {
    pub manifest: &'a Manifest,
    pub roles: Vec<(String, &'a Role)>,
    pub channels: Vec<ChannelRef<'a>>,
    /// Indexes built once, so each reference resolves in O(1) rather than by scanning
    /// every declared channel or role (a guild at Discord's limits has thousands of
    /// references).
    index: Index<'a>,
}

/// Declared channels and roles by the keys references use. Lists of indices ascend, so
/// lookups return matches in declaration order, as the scans they replace did.
#[derive(Default)]
struct Index<'a> {
    /// Text-like channels by their name as Discord stores it ([`channel_name_matches`]).
    text_channels: HashMap<String, Vec<usize>>,
    /// Other channels and categories by their exact name.
    other_channels: HashMap<&'a str, Vec<usize>>,
    /// The first channel pinning each id.
    channel_ids: HashMap<&'a str, usize>,
    roles: HashMap<&'a str, Vec<usize>>,
    /// The first role pinning each id.
    role_ids: HashMap<&'a str, usize>,
}

/// One channel or category wherever it is nested.
pub struct ChannelRef<'a> {
    /// `channels[1]` or `channels[1].channels[0]`.
    pub path: String,
    pub channel: &'a Channel,
    /// Index in [`Ctx::channels`] of the entry whose `channels` list holds this one.
    pub parent: Option<usize>,
    /// 0 at top level.
    pub depth: usize,
}

impl<'a> Ctx<'a> {
    pub fn new(m: &'a Manifest) -> Self {
        let roles: Vec<(String, &'a Role)> = super::entries("roles", &m.roles).collect();
        let mut channels = Vec::new();
        fn walk<'a>(
            list: &'a [Channel],
            prefix: &str,
            parent: Option<usize>,
            depth: usize,
            out: &mut Vec<ChannelRef<'a>>,
        ) {
            for (i, c) in list.iter().enumerate() {
                let path = format!("{prefix}channels[{i}]");
                let idx = out.len();
                out.push(ChannelRef {
                    path: path.clone(),
                    channel: c,
                    parent,
                    depth,
                });
                if let Some(children) = &c.channels {
                    walk(children, &format!("{path}."), Some(idx), depth + 1, out);
                }
            }
        }
        walk(
            m.channels.as_deref().unwrap_or(&[]),
            "",
            None,
            0,
            &mut channels,
        );
        let mut index = Index::default();
        for (i, c) in channels.iter().enumerate() {
            let ch = c.channel;
            if ch.channel_type().is_text_like() {
                index
                    .text_channels
                    .entry(text_name(&ch.name).into_owned())
                    .or_default()
                    .push(i);
            } else {
                index.other_channels.entry(&ch.name).or_default().push(i);
            }
            if let Some(id) = &ch.id {
                index.channel_ids.entry(&id.0).or_insert(i);
            }
        }
        for (i, (_, r)) in roles.iter().enumerate() {
            let r: &'a Role = r;
            index.roles.entry(&r.name).or_default().push(i);
            if let Some(id) = &r.id {
                index.role_ids.entry(&id.0).or_insert(i);
            }
        }
        Ctx {
            manifest: m,
            roles,
            channels,
            index,
        }
    }

    /// The declared channels whose name answers to `name` ([`channel_name_matches`]),
    /// in declaration order.
    fn channels_named(&self, name: &str) -> Vec<usize> {
        let text = self.index.text_channels.get(&*text_name(name));
        let other = self.index.other_channels.get(name);
        let mut out: Vec<usize> = text.into_iter().chain(other).flatten().copied().collect();
        out.sort_unstable();
        out
    }

    /// [`match_channel_ref`] over the declared channels for which `keep` holds, through
    /// the index; the same indices, in [`Ctx::channels`].
    fn match_declared(&self, r: &str, keep: impl Fn(&ChannelRef<'a>) -> bool) -> Vec<usize> {
        let find = |cat: Option<&str>, name: &str| -> Vec<usize> {
            self.channels_named(name)
                .into_iter()
                .filter(|&i| {
                    let c = &self.channels[i];
                    keep(c) && (cat.is_none() || self.category_of(c) == cat)
                })
                .collect()
        };
        resolve_channel_ref(r, find, |i| {
            let c = self.channels[i].channel;
            stored_name(c.channel_type(), &c.name)
        })
    }

    /// The name of the category holding `c`, if any.
    fn category_of(&self, c: &ChannelRef<'a>) -> Option<&'a str> {
        c.parent.map(|p| self.channels[p].channel.name.as_str())
    }

    /// Resolves a channel reference against the declared channels. `accept` lists the channel
    /// types the reference may name; empty means any channel but a category.
    pub fn lookup_channel(&self, r: &str, accept: &[ChannelType]) -> ChannelLookup {
        let ok = |t: ChannelType| {
            if accept.is_empty() {
                t != ChannelType::Category
            } else {
                accept.contains(&t)
            }
        };
        let found = self.match_declared(r, |c| ok(c.channel.channel_type()));
        match found.len() {
            1 => return ChannelLookup::Found(found[0]),
            0 => {}
            _ => return ChannelLookup::Ambiguous(found),
        }
        let any = self.match_declared(r, |_| true);
        if let Some(&i) = any.first() {
            return ChannelLookup::WrongType(i);
        }
        // Names first; a reference no name matches may be the id a declared channel pins.
        if is_snowflake(r)
            && let Some(&i) = self.index.channel_ids.get(r)
        {
            return if ok(self.channels[i].channel.channel_type()) {
                ChannelLookup::Found(i)
            } else {
                ChannelLookup::WrongType(i)
            };
        }
        match self.renamed_channel_ref(r) {
            Some((i, new)) => ChannelLookup::Renamed(i, new),
            None => ChannelLookup::NotDeclared,
        }
    }

    /// A reference that names a channel by a previous name (its own, or its category's),
    /// when nothing declared answers to it: the channel apply renames, and the reference
    /// written with the new names. Once apply has renamed it, nothing has the old name.
    fn renamed_channel_ref(&self, r: &str) -> Option<(usize, String)> {
        let (cat, name) = split_channel_ref(r);
        // `categories`: only categories (Some(true)), only channels (Some(false)), or any.
        let renamed_to = |wanted: &str, categories: Option<bool>| {
            self.channels.iter().position(|c| {
                let t = c.channel.channel_type();
                categories.is_none_or(|cat| (t == ChannelType::Category) == cat)
                    && c.channel
                        .previous_names
                        .iter()
                        .any(|p| channel_name_matches(t, p, wanted))
            })
        };
        let new_cat = cat.and_then(|cat| {
            let declared = self.channels.iter().any(|c| {
                c.channel.channel_type() == ChannelType::Category && c.channel.name == cat
            });
            if declared {
                return None;
            }
            renamed_to(cat, Some(true)).map(|i| self.channels[i].channel.name.as_str())
        });
        let new_name = match self.match_declared(name, |_| true).is_empty() {
            true => renamed_to(name, cat.map(|_| false))
                .map(|i| (i, self.channels[i].channel.name.as_str())),
            false => None,
        };
        let new = match (cat, new_cat, new_name) {
            (_, None, None) => return None,
            (Some(cat), new_cat, new_name) => format!(
                "{}/{}",
                new_cat.unwrap_or(cat),
                new_name.map_or(name, |(_, n)| n)
            ),
            (None, _, new_name) => new_name.map_or(name, |(_, n)| n).to_owned(),
        };
        // The channel it names now: the renamed one, or the one the new spelling finds.
        let i = match self.match_declared(&new, |_| true).first() {
            Some(&i) => i,
            None => new_name.map(|(i, _)| i)?,
        };
        Some((i, new))
    }

    /// What a channel reference names, to tell the same channel written twice in two
    /// spellings (`rules`, `Info/rules`, `Rules`, its id): the declared channel it resolves
    /// to, or else the reference as written (the planner compares those with the live guild).
    pub fn channel_identity(&self, r: &str, accept: &[ChannelType]) -> Identity {
        match self.lookup_channel(r, accept) {
            ChannelLookup::Found(i) => Identity::Channel(i),
            _ => Identity::Written(r.to_string()),
        }
    }

    /// What a role reference names (see [`Ctx::channel_identity`]).
    pub fn role_identity(&self, name: &str) -> Identity {
        match self.lookup_role(name) {
            RoleLookup::Everyone => Identity::Everyone,
            RoleLookup::Found(i) => Identity::Role(i),
            _ => Identity::Written(name.to_string()),
        }
    }

    /// Resolves a channel reference and reports what is wrong with it at `path`: a warning when
    /// it is not declared (it may exist live), an error when it is ambiguous or names a channel
    /// of a type `accept` does not allow. `label` names the reference in messages
    /// (`` `afk_channel` ``, `a webhook's channel`).
    pub fn check_channel_ref(
        &self,
        path: &dyn std::fmt::Display,
        label: &str,
        r: &str,
        accept: &[ChannelType],
        out: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let lookup = self.lookup_channel(r, accept);
        if let ChannelLookup::Found(i) = lookup {
            return Some(i);
        }
        // Only a reference with something to say needs the words, and its path written out.
        let path = &path.to_string();
        let kinds = kinds_text(accept);
        match lookup {
            ChannelLookup::Found(i) => Some(i),
            ChannelLookup::Renamed(i, new) => {
                let c = &self.channels[i];
                out.push(renamed_ref("channel", r, &new, &c.path, path));
                None
            }
            ChannelLookup::WrongType(i) => {
                let c = &self.channels[i];
                let t = c.channel.channel_type();
                let got = if t == ChannelType::Category {
                    "a category".to_string()
                } else {
                    type_name(t).to_string()
                };
                out.push(
                    Diagnostic::error(
                        path,
                        format!(
                            "{label} must be {kinds} channel, but \"{r}\" is declared as {got} at {}",
                            c.path
                        ),
                    )
                    .with_help(format!("point {label} at {kinds} channel")),
                );
                None
            }
            ChannelLookup::Ambiguous(found) => {
                let paths: Vec<&str> = found
                    .iter()
                    .map(|&i| self.channels[i].path.as_str())
                    .collect();
                let cats: Vec<Option<&str>> = found
                    .iter()
                    .map(|&i| self.category_of(&self.channels[i]))
                    .collect();
                let mut distinct = cats.clone();
                distinct.sort();
                distinct.dedup();
                let help = if distinct.len() == cats.len() && cats.iter().all(Option::is_some) {
                    let (_, name) = split_channel_ref(r);
                    let forms: Vec<String> = cats
                        .iter()
                        .flatten()
                        .map(|cat| format!("`{cat}/{name}`"))
                        .collect();
                    format!("qualify the name with its category: {}", forms.join(" or "))
                } else if distinct.len() == cats.len() {
                    "qualify the name with its category (`Category/name`); one of them is not in a category, so rename it or the others".to_string()
                } else {
                    "they share a category, so `Category/name` cannot tell them apart: rename one"
                        .to_string()
                };
                out.push(
                    Diagnostic::error(
                        path,
                        format!(
                            "\"{r}\" names {} declared channels ({})",
                            found.len(),
                            paths.join(", ")
                        ),
                    )
                    .with_help(help),
                );
                None
            }
            ChannelLookup::NotDeclared => {
                let (cat, name) = split_channel_ref(r);
                let d = match cat {
                    Some(cat)
                        if !self.channels.iter().any(|c| {
                            c.channel.channel_type() == ChannelType::Category
                                && c.channel.name == cat
                        }) =>
                    {
                        let cats = self
                            .channels
                            .iter()
                            .filter(|c| c.channel.channel_type() == ChannelType::Category)
                            .map(|c| c.channel.name.as_str());
                        let help = match closest(cat, cats) {
                            Some(best) => format!("did you mean `{best}/{name}`?"),
                            None => "fine if the category exists in the guild (plan checks); otherwise declare it under `channels`".to_string(),
                        };
                        Diagnostic::warning(
                            path,
                            format!("category \"{cat}\" is not declared in this manifest"),
                        )
                        .with_help(help)
                    }
                    Some(cat) => {
                        let elsewhere: Vec<String> = self
                            .channels
                            .iter()
                            .filter(|c| !matches!(c.channel.channel_type(), ChannelType::Category))
                            .filter(|c| {
                                channel_name_matches(
                                    c.channel.channel_type(),
                                    &c.channel.name,
                                    name,
                                )
                            })
                            .map(|c| match self.category_of(c) {
                                Some(other) => format!("`{other}/{name}`"),
                                None => format!("`{name}`"),
                            })
                            .collect();
                        let help = if elsewhere.is_empty() {
                            format!(
                                "fine if {kinds} channel \"{name}\" exists in \"{cat}\" in the guild (plan checks); otherwise declare it there"
                            )
                        } else {
                            format!(
                                "it is declared elsewhere: did you mean {}?",
                                elsewhere.join(" or ")
                            )
                        };
                        Diagnostic::warning(
                            path,
                            format!("no channel \"{name}\" is declared in category \"{cat}\""),
                        )
                        .with_help(help)
                    }
                    None => {
                        let names = self
                            .channels
                            .iter()
                            .filter(|c| {
                                let t = c.channel.channel_type();
                                t != ChannelType::Category
                                    && (accept.is_empty() || accept.contains(&t))
                            })
                            .map(|c| c.channel.name.as_str());
                        let help = match closest(name, names) {
                            _ if is_snowflake(r) => format!(
                                "fine if {kinds} channel with this id exists in the guild (plan checks); a declared channel is named by id only when it pins that `id`"
                            ),
                            Some(best) if best != name => format!("did you mean \"{best}\"?"),
                            _ => format!(
                                "fine if {kinds} channel of that name exists in the guild (plan checks); otherwise declare it under `channels`"
                            ),
                        };
                        Diagnostic::warning(
                            path,
                            format!("channel \"{r}\" is not declared in this manifest"),
                        )
                        .with_help(help)
                    }
                };
                out.push(d);
                None
            }
        }
    }

    /// A policy's `where` pattern (`Staff/*`, `Staff`, `Info/#rules`; docs/access.md): a
    /// part written without `*` that names no declared channel or category but is a previous
    /// name of one is an error naming the new name, as every reference by a previous name
    /// is. Parts compare as patterns match (`manifest::pattern`): `#` left out, case ignored.
    pub fn check_place_pattern(
        &self,
        path: &dyn std::fmt::Display,
        pattern: &str,
        out: &mut Vec<Diagnostic>,
    ) {
        let parts: Vec<&str> = pattern.split('/').collect();
        let key = crate::manifest::pattern::normalise_part;
        let answers = |c: &ChannelRef<'_>, name: &str, wanted: &str| {
            let t = c.channel.channel_type();
            key(name) == wanted || channel_name_matches(t, name, wanted)
        };
        let mut renamed = Vec::with_capacity(parts.len());
        let mut changed = None;
        for (n, part) in parts.iter().enumerate() {
            let wanted = key(part);
            // The first of two parts is a category; a last part, a channel or a category.
            let fits = |c: &&ChannelRef<'_>| {
                parts.len() == 1
                    || (n + 1 < parts.len()) == (c.channel.channel_type() == ChannelType::Category)
            };
            let declared = self.channels.iter().filter(fits);
            let new = if part.contains('*')
                || declared
                    .clone()
                    .any(|c| answers(c, &c.channel.name, &wanted))
            {
                None
            } else {
                declared.clone().find(|c| {
                    c.channel
                        .previous_names
                        .iter()
                        .any(|p| answers(c, p, &wanted))
                })
            };
            match new {
                Some(c) => {
                    changed.get_or_insert(c.path.as_str());
                    renamed.push(c.channel.name.as_str());
                }
                None => renamed.push(part),
            }
        }
        if let Some(declared_at) = changed {
            let new = renamed.join("/");
            out.push(renamed_ref(
                "channel",
                pattern,
                &new,
                declared_at,
                &path.to_string(),
            ));
        }
    }

    /// Resolves a role name against the declared roles (`@everyone` always resolves).
    pub fn lookup_role(&self, name: &str) -> RoleLookup {
        if name == EVERYONE {
            return RoleLookup::Everyone;
        }
        let found: &[usize] = self.index.roles.get(name).map_or(&[], Vec::as_slice);
        match found.len() {
            0 => {}
            1 => return RoleLookup::Found(found[0]),
            _ => return RoleLookup::Ambiguous(found.to_vec()),
        }
        // Names first; then an id: the guild's (@everyone's id is the guild id) or one a
        // declared role pins.
        if is_snowflake(name) {
            if self.manifest.guild.as_ref().is_some_and(|g| g.0 == name) {
                return RoleLookup::Everyone;
            }
            if let Some(&i) = self.index.role_ids.get(name) {
                return RoleLookup::Found(i);
            }
        }
        // A previous name of a declared role: once apply renames it, nothing has that name.
        match self
            .roles
            .iter()
            .position(|(_, r)| r.previous_names.iter().any(|p| p == name))
        {
            Some(i) => RoleLookup::Renamed(i),
            None => RoleLookup::NotDeclared,
        }
    }

    /// Resolves a role reference and reports at `path`: a warning or an error when it is not
    /// declared (as `undeclared` says), an error when it is a previous name of a declared role or when
    /// several declared roles (each pinned by id) have that name. The path is written out
    /// only for a reference with something to say.
    pub fn check_role_ref(
        &self,
        path: &dyn std::fmt::Display,
        name: &str,
        undeclared: Undeclared,
        out: &mut Vec<Diagnostic>,
    ) -> RoleLookup {
        let found = self.lookup_role(name);
        if let RoleLookup::Everyone | RoleLookup::Found(_) = found {
            return found;
        }
        let path = &path.to_string();
        match &found {
            RoleLookup::Renamed(i) => {
                let (at, role) = &self.roles[*i];
                out.push(renamed_ref("role", name, &role.name, at, path));
            }
            RoleLookup::NotDeclared => {
                let near = closest(name, self.roles.iter().map(|(_, r)| r.name.as_str()));
                let message = format!("role \"{name}\" is not declared in this manifest");
                // A name one edit or so from a declared role's is a typo, an error: the hook
                // and validate stop it rather than plan later (which refuses a role neither
                // declared nor live). A name close to none may be a role the guild keeps by
                // hand, and an id names a live role on purpose: only plan can check those.
                let diagnostic = match (undeclared, near) {
                    (Undeclared::Warn, _) if is_snowflake(name) => Some(Diagnostic::warning(path, message).with_help(
                        "fine if a role with this id exists in the guild (plan checks); a declared role is named by id only when it pins that `id`",
                    )),
                    (Undeclared::Warn, Some(best)) => Some(
                        Diagnostic::error(path, message).with_help(format!(
                            "did you mean \"{best}\"? If the guild has a role \"{name}\" of its own, declare it under `roles` by its name alone (`- name: {name}`), which changes nothing of it"
                        )),
                    ),
                    (Undeclared::Warn, None) => Some(Diagnostic::warning(path, message).with_help(
                        "fine if the role exists in the guild (plan checks); otherwise declare it under `roles`",
                    )),
                    (Undeclared::WarnIfClose, Some(best)) if !is_snowflake(name) => Some(
                        Diagnostic::warning(path, message).with_help(format!(
                            "did you mean \"{best}\"? (fine if the role exists in the guild: plan checks)"
                        )),
                    ),
                    (Undeclared::WarnIfClose, _) => None,
                };
                out.extend(diagnostic);
            }
            RoleLookup::Ambiguous(all) => {
                let paths: Vec<&str> = all.iter().map(|&i| self.roles[i].0.as_str()).collect();
                out.push(
                    Diagnostic::error(
                        path,
                        format!(
                            "\"{name}\" names {} declared roles ({})",
                            all.len(),
                            paths.join(", ")
                        ),
                    )
                    .with_help("roles are referenced by name: rename one of them"),
                );
            }
            RoleLookup::Everyone | RoleLookup::Found(_) => {}
        }
        found
    }
}

/// How [`Ctx::check_role_ref`] says a reference to a role the manifest does not declare
/// (one the live guild may have: plan checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undeclared {
    /// A warning (plan checks the role exists live), but an error when a declared name is
    /// close to it: a typo, which plan would refuse.
    Warn,
    /// Only when a declared name is close to it (a typo): `policies:` name roles the
    /// manifest leaves alone (an Admin above the bot's role) as a matter of course.
    WarnIfClose,
}

/// What a channel reference resolves to among the declared channels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelLookup {
    /// Index in [`Ctx::channels`].
    Found(usize),
    /// Not declared (it may exist in the live guild).
    NotDeclared,
    /// Several declared channels of an accepted type match (indices in [`Ctx::channels`]).
    Ambiguous(Vec<usize>),
    /// Only channels of another type match; the first one.
    WrongType(usize),
    /// A previous name (of the channel or of its category) of the declared channel at this
    /// index in [`Ctx::channels`]; the reference written with the new names.
    Renamed(usize, String),
}

/// What a role reference resolves to among the declared roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleLookup {
    Everyone,
    /// Index in [`Ctx::roles`].
    Found(usize),
    NotDeclared,
    Ambiguous(Vec<usize>),
    /// A previous name of the declared role at this index in [`Ctx::roles`].
    Renamed(usize),
}

/// The object a reference names, whatever its spelling: one list must not name it twice.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Identity {
    Everyone,
    /// Index in [`Ctx::roles`].
    Role(usize),
    /// Index in [`Ctx::channels`].
    Channel(usize),
    /// Not declared (or ambiguous): the reference as written.
    Written(String),
}

/// The entries of one list seen so far, by the object they name: finds the entry that names
/// an object an earlier entry already named, in the same or another spelling.
#[derive(Default)]
pub struct FirstSeen<'a> {
    first: HashMap<Identity, (String, &'a str)>,
}

impl<'a> FirstSeen<'a> {
    /// Records the entry at `path` written `written`; if an earlier entry named the same
    /// object, returns where that one is and how it is written, as
    /// `first at PATH` or `first at PATH, written "X"`.
    pub fn repeat(&mut self, id: Identity, path: &str, written: &'a str) -> Option<String> {
        match self.first.get(&id) {
            Some((first, w)) if *w == written => Some(format!("first at {first}")),
            Some((first, w)) => Some(format!("first at {first}, written \"{w}\"")),
            None => {
                self.first.insert(id, (path.to_string(), written));
                None
            }
        }
    }
}

/// "a text", "a voice", "a text, announcement, forum or media", or "a" for any type.
fn kinds_text(accept: &[ChannelType]) -> String {
    let names: Vec<&str> = accept.iter().map(|t| t.name()).collect();
    match names.as_slice() {
        [] => "a".to_string(),
        [one] => a_type_name(one),
        [init @ .., last] => format!("{} or {last}", a_type_name(&init.join(", "))),
    }
}

fn a_type_name(n: &str) -> String {
    if n.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {n}")
    } else {
        format!("a {n}")
    }
}

/// A reference by a name the manifest renames away: once apply renames the object, nothing
/// has that name, so the reference would never resolve (and a rehearsal never converge).
fn renamed_ref(kind: &str, old: &str, new: &str, declared_at: &str, path: &str) -> Diagnostic {
    Diagnostic::error(
        path,
        format!(
            "{kind} \"{old}\" is a previous name of the {kind} \"{new}\" ({declared_at}): apply renames it, so nothing will have that name"
        ),
    )
    .with_help(format!("name it by its new name: \"{new}\""))
}
