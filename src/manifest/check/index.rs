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
        let roles: Vec<(String, &'a Role)> = m
            .roles
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, r)| (format!("roles[{i}]"), r))
            .collect();
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
        ChannelLookup::NotDeclared
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
                        if let Some(c) = self.renamed_channel(name) {
                            out.push(renamed_ref("channel", name, &c.channel.name, &c.path, path));
                            return None;
                        }
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

    /// The declared role that had `name` before (its `previous_names`), with its path.
    fn renamed_role(&self, name: &str) -> Option<(&str, &'a Role)> {
        self.roles
            .iter()
            .find(|(_, r)| r.previous_names.iter().any(|p| p == name))
            .map(|(at, r)| (at.as_str(), *r))
    }

    /// The declared channel that had `name` before (its `previous_names`).
    fn renamed_channel(&self, name: &str) -> Option<&ChannelRef<'a>> {
        self.channels
            .iter()
            .find(|c| c.channel.previous_names.iter().any(|p| p == name))
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
        RoleLookup::NotDeclared
    }

    /// Resolves a role reference and reports at `path`: a warning when it is not declared, an
    /// error when several declared roles (each pinned by id) have that name. The path is
    /// written out only for a reference with something to say.
    pub fn check_role_ref(
        &self,
        path: &dyn std::fmt::Display,
        name: &str,
        out: &mut Vec<Diagnostic>,
    ) -> RoleLookup {
        let found = self.lookup_role(name);
        if let RoleLookup::Everyone | RoleLookup::Found(_) = found {
            return found;
        }
        let path = &path.to_string();
        match &found {
            RoleLookup::NotDeclared => {
                if let Some((at, role)) = self.renamed_role(name) {
                    out.push(renamed_ref("role", name, &role.name, at, path));
                    return found;
                }
                let d = Diagnostic::warning(
                    path,
                    format!("role \"{name}\" is not declared in this manifest"),
                );
                out.push(match closest(name, self.roles.iter().map(|(_, r)| r.name.as_str())) {
                    _ if is_snowflake(name) => d.with_help(
                        "fine if a role with this id exists in the guild (plan checks); a declared role is named by id only when it pins that `id`",
                    ),
                    Some(best) => d.with_help(format!("did you mean \"{best}\"?")),
                    None => d.with_help(
                        "fine if the role exists in the guild (plan checks); otherwise declare it under `roles`",
                    ),
                });
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
}

/// What a role reference resolves to among the declared roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleLookup {
    Everyone,
    /// Index in [`Ctx::roles`].
    Found(usize),
    NotDeclared,
    Ambiguous(Vec<usize>),
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
