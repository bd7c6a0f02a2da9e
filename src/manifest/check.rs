//! Semantic checks on a parsed manifest: what the schema cannot say (uniqueness, references,
//! limits that depend on the channel type, Discord's prerequisites). No network: references
//! to objects that may exist only in the live guild are warnings, and the planner checks them
//! against the snapshot.
//!
//! Every rule is one function in [`RULES`]; adding a check means adding one function and one
//! row there. [`check`] runs the rules, which need nothing but the manifest; [`check_loaded`]
//! adds the checks that read files next to the manifest (webhook avatars, through
//! [`read_image`]).
//!
//! Channel references (`settings.*_channel`, `widget.channel`, welcome screen and onboarding
//! channels, `webhooks[].channel`) all follow one rule, shared with the planner:
//! [`split_channel_ref`] and [`match_channel_ref`].

mod forum;
mod image;
mod people;
mod policies;
mod sections;

use std::borrow::Cow;

use hashbrown::HashMap;

use super::diagnostic::Diagnostic;
use super::load::LoadedManifest;
use super::stored::as_stored;
use super::suggest::closest;
use super::types::{
    Channel, ChannelType, ExplicitContentFilter, Manifest, Overwrite, PermissionName, Role,
    Snowflake, VerificationLevel,
};
use crate::discord::limits::*;
use crate::discord::models::LOCALES;
use crate::discord::names::{channel_answers_to, stored_channel_name};
use crate::permissions::Permissions;

pub use crate::discord::limits::IMAGE_MAX_BYTES;
pub use image::read_image;
pub use sections::image_fields;

/// The name of the default role.
pub const EVERYONE: &str = "@everyone";

/// A rule: a name (used in docs and tests) and the function that appends its findings.
pub type Rule = fn(&Ctx<'_>, &mut Vec<Diagnostic>);

/// All semantic rules, in the order they run.
pub const RULES: &[(&str, Rule)] = &[
    ("unique-role-names", unique_role_names),
    ("unique-channel-names", unique_channel_names),
    ("everyone-role", everyone_role),
    ("permission-names", permission_names),
    ("overwrite-shape", overwrite_shape),
    ("overwrite-role-references", overwrite_role_references),
    ("settings-channel-references", settings_channel_references),
    ("guild-limits", guild_limits),
    ("settings-locale", settings_locale),
    ("role-limits", role_limits),
    ("channel-limits", channel_limits),
    ("channel-structure", channel_structure),
    ("channel-display-order", channel_display_order),
    ("channel-field-applicability", channel_field_applicability),
    ("forum-tags", forum::forum_tags),
    ("sync-permissions", sync_permissions),
    ("channel-name-normalisation", channel_name_normalisation),
    ("community-prerequisites", community_prerequisites),
    ("unique-ids", unique_ids),
    ("welcome-screen", sections::welcome_screen),
    ("onboarding-limits", sections::onboarding_limits),
    ("onboarding-references", sections::onboarding_references),
    (
        "onboarding-enable-requirements",
        sections::onboarding_enable_requirements,
    ),
    ("widget", sections::widget),
    ("webhook-names", sections::webhook_names),
    ("webhook-channels", sections::webhook_channels),
    ("webhook-avatar-paths", sections::webhook_avatar_paths),
    ("rosters-and-bans", people::rosters_and_bans),
    ("policies", policies::policies),
];

/// Runs every rule in [`RULES`] on the manifest. Pure: reads no files (see [`check_loaded`]).
pub fn check(m: &Manifest) -> Vec<Diagnostic> {
    check_by_rule(m).into_iter().map(|(_, d)| d).collect()
}

/// [`check`], with the name of the rule that found each diagnostic.
pub fn check_by_rule(m: &Manifest) -> Vec<(&'static str, Diagnostic)> {
    // Checked as Discord will store it, like the planner plans it: names that differ
    // only in whitespace are the same name.
    check_stored(&as_stored(m))
}

/// [`check_by_rule`] on a manifest already in its stored form.
fn check_stored(stored: &Manifest) -> Vec<(&'static str, Diagnostic)> {
    let ctx = Ctx::new(stored);
    let mut out = Vec::new();
    let mut found = Vec::new();
    for (name, rule) in RULES {
        rule(&ctx, &mut found);
        out.extend(found.drain(..).map(|d| (*name, d)));
    }
    out
}

/// [`check`], plus the checks that need the manifest's location: every webhook `avatar` must
/// be a readable PNG, JPEG or GIF of at most 8 MiB inside the manifest's folder (the same
/// checks [`read_image`] makes when apply uploads it). This is what `validate`, `plan` and
/// `apply` run.
pub fn check_loaded(loaded: &LoadedManifest) -> Vec<Diagnostic> {
    check_loaded_by_rule(loaded)
        .into_iter()
        .map(|(_, d)| d)
        .collect()
}

/// [`check_loaded`], with the name of the rule that found each diagnostic (`avatar-files`
/// for the file checks).
///
/// The rules' findings are made once per manifest content ([`LoadedManifest::checked`]):
/// they depend on the manifest alone. The files are looked at by every load, since they may
/// change while the manifest does not.
pub fn check_loaded_by_rule(loaded: &LoadedManifest) -> Vec<(&'static str, Diagnostic)> {
    let mut out = loaded
        .checked(|loaded| check_stored(loaded.stored()))
        .to_vec();
    let mut files = Vec::new();
    sections::webhook_avatar_files(&loaded.manifest, &loaded.dir(), &mut files);
    out.extend(files.into_iter().map(|d| ("avatar-files", d)));
    out
}

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
        path: &str,
        label: &str,
        r: &str,
        accept: &[ChannelType],
        out: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let lookup = self.lookup_channel(r, accept);
        if let ChannelLookup::Found(i) = lookup {
            return Some(i);
        }
        // Only a reference with something to say needs the words.
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
    /// error when several declared roles (each pinned by id) have that name.
    pub fn check_role_ref(&self, path: &str, name: &str, out: &mut Vec<Diagnostic>) -> RoleLookup {
        let found = self.lookup_role(name);
        match &found {
            RoleLookup::NotDeclared => {
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

/// Whether a reference has the shape of a Discord id (a snowflake of 15 to 20 digits).
fn is_snowflake(s: &str) -> bool {
    (15..=20).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_digit())
        && s.parse::<u64>().is_ok()
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

// ---------------------------------------------------------------------------------------------
// Helpers shared with the planner

/// Splits a channel reference into its category and its name: `Help/help` is channel `help`
/// in category `Help`, `help` is a plain name (`None`). The split is at the last `/`
/// (Discord drops `/` from text-like channel names, category names may contain it); a
/// reference that starts or ends with `/` is a plain name.
///
/// A plain name picks any channel of that name; when two or more match, the reference is
/// ambiguous and must be qualified. See [`match_channel_ref`].
pub fn split_channel_ref(r: &str) -> (Option<&str>, &str) {
    match r.rfind('/') {
        Some(i) if i > 0 && i + 1 < r.len() => (Some(&r[..i]), &r[i + 1..]),
        _ => (None, r),
    }
}

/// One channel a reference may name: its type, its name (as declared in a manifest or as
/// Discord stores it) and the name of its category (`None` at the top level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelKey<'a> {
    pub kind: ChannelType,
    pub name: &'a str,
    pub category: Option<&'a str>,
}

/// Whether a channel of type `kind` called `name` answers to the (unqualified) name `wanted`:
/// text-like channels compare in the form Discord stores (`General Chat` = `general-chat`),
/// other channels and categories exactly.
pub fn channel_name_matches(kind: ChannelType, name: &str, wanted: &str) -> bool {
    channel_answers_to(kind.value() as u8, name, wanted)
}

/// The channel reference rule, for the checks and the planner alike. Returns the indices of
/// the `candidates` that `r` names:
///
/// - `Category/name` names the channels called `name` in the category called `Category`
///   (exactly); a plain name names channels of that name anywhere. Names compare with
///   [`channel_name_matches`]. If a qualified reference matches nothing, the whole text is
///   tried as a plain name (a voice channel may be called `AC/DC`).
/// - When several match, a candidate whose name is exactly the written name (as Discord stores
///   it) wins if it is the only one: `General` picks voice channel `General` over text channel
///   `general`.
///
/// One index: resolved. None: not there. Several: ambiguous (an error in a manifest; qualify
/// it). Pass only the channel types the reference may name, and ask again with every type to
/// tell "wrong type" from "missing".
pub fn match_channel_ref<'a>(
    r: &str,
    candidates: impl IntoIterator<Item = ChannelKey<'a>>,
) -> Vec<usize> {
    let cands: Vec<ChannelKey<'a>> = candidates.into_iter().collect();
    let find = |cat: Option<&str>, name: &str| -> Vec<usize> {
        (0..cands.len())
            .filter(|&i| {
                let c = &cands[i];
                channel_name_matches(c.kind, c.name, name) && (cat.is_none() || c.category == cat)
            })
            .collect()
    };
    resolve_channel_ref(r, find, |i| stored_name(cands[i].kind, cands[i].name))
}

/// The rule of [`match_channel_ref`] over any way of finding candidates: `find(category,
/// name)` lists those a (possibly qualified) name matches, `stored(i)` is candidate `i`'s
/// name as Discord stores it. A qualified reference that matches nothing is tried whole
/// as a plain name; of several matches, the only one named exactly as written wins.
pub(crate) fn resolve_channel_ref<S: AsRef<str>>(
    r: &str,
    find: impl Fn(Option<&str>, &str) -> Vec<usize>,
    stored: impl Fn(usize) -> S,
) -> Vec<usize> {
    let (cat, mut name) = split_channel_ref(r);
    let mut found = find(cat, name);
    if found.is_empty() && cat.is_some() {
        name = r;
        found = find(None, r);
    }
    if found.len() > 1 {
        let exact: Vec<usize> = found
            .iter()
            .copied()
            .filter(|&i| stored(i).as_ref() == name)
            .collect();
        if exact.len() == 1 {
            return exact;
        }
    }
    found
}

/// A channel's name in the form a reference's exact-name tie-break compares.
fn stored_name(kind: ChannelType, name: &str) -> Cow<'_, str> {
    stored_channel_name(kind.value() as u8, name)
}

fn len(s: &str) -> usize {
    s.chars().count()
}

fn type_name(t: ChannelType) -> &'static str {
    t.name()
}

/// "a text", "an announcement".
fn a_type(t: ChannelType) -> String {
    let n = t.name();
    if n.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {n}")
    } else {
        format!("a {n}")
    }
}

/// Sorting group of a channel type: names must be unique within a parent and group.
fn group(t: ChannelType) -> &'static str {
    if t == ChannelType::Category {
        "category"
    } else if t.is_voice_like() {
        "voice"
    } else {
        "text"
    }
}

// ---------------------------------------------------------------------------------------------
// Rules

/// Groups the items by key, in order of first appearance: `(key, indices)`.
fn groups<K: Eq + std::hash::Hash + Clone>(
    keys: impl IntoIterator<Item = K>,
) -> Vec<(K, Vec<usize>)> {
    let mut index: HashMap<K, usize> = HashMap::new();
    let mut out: Vec<(K, Vec<usize>)> = Vec::new();
    for (i, k) in keys.into_iter().enumerate() {
        match index.get(&k) {
            Some(&g) => out[g].1.push(i),
            None => {
                index.insert(k.clone(), out.len());
                out.push((k, vec![i]));
            }
        }
    }
    out
}

fn unique_role_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    for (name, idx) in groups(ctx.roles.iter().map(|(_, r)| r.name.as_str())) {
        let first = ctx.roles[idx[0]].0.as_str();
        by_name.insert(name, first);
        // Duplicates are fine when each is pinned to its live role (an export of such a guild).
        if idx.iter().all(|&i| ctx.roles[i].1.id.is_some()) {
            continue;
        }
        for &i in &idx[1..] {
            out.push(
                Diagnostic::error(
                    format!("{}.name", ctx.roles[i].0),
                    format!("duplicate role name \"{name}\" (first declared at {first})"),
                )
                .with_help(
                    "role names must be unique in a manifest: rename or merge one of them \
                     (roles of the same name are allowed only when each pins its `id`)",
                ),
            );
        }
    }
    let mut previous: HashMap<&str, &str> = HashMap::new();
    for (path, r) in &ctx.roles {
        for (k, old) in r.previous_names.iter().enumerate() {
            let here = format!("{path}.previous_names[{k}]");
            if let Some(owner) = by_name.get(old.as_str()) {
                if *owner != path.as_str() {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!(
                                "\"{old}\" is a previous name of role \"{}\" but also the name of {owner}",
                                r.name
                            ),
                        )
                        .with_help(
                            "a live role called this would match both entries: drop the previous name, \
                             or rename the other role",
                        ),
                    );
                } else {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!("role \"{}\" lists its own name in previous_names", r.name),
                        )
                        .with_help("remove it from previous_names"),
                    );
                }
            } else if let Some(other) = previous.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one role only"),
                );
            } else {
                previous.insert(old, path);
            }
        }
    }
}

fn unique_channel_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // (parent, group, comparable name) → first path
    fn key<'n>(c: &ChannelRef<'_>, name: &'n str) -> (Option<usize>, &'static str, Cow<'n, str>) {
        let t = c.channel.channel_type();
        let cmp = if t.is_text_like() {
            text_name(name)
        } else {
            Cow::Borrowed(name)
        };
        (c.parent, group(t), cmp)
    }
    let mut names: HashMap<(Option<usize>, &str, Cow<'_, str>), &str> = HashMap::new();
    for (k, idx) in groups(ctx.channels.iter().map(|c| key(c, &c.channel.name))) {
        let first = ctx.channels[idx[0]].path.as_str();
        names.insert(k, first);
        // Duplicates are fine when each is pinned to its live channel (an export of such a guild).
        if idx.iter().all(|&i| ctx.channels[i].channel.id.is_some()) {
            continue;
        }
        for &i in &idx[1..] {
            let c = &ctx.channels[i];
            let t = c.channel.channel_type();
            let what = match group(t) {
                "category" => "category name",
                "voice" => "voice/stage channel name",
                _ => "text channel name",
            };
            let scope = match c.parent {
                Some(p) => format!("in category \"{}\"", ctx.channels[p].channel.name),
                None => "at the top level".to_string(),
            };
            let same = if t.is_text_like() {
                " (Discord's names compare lowercased, with spaces as dashes)"
            } else {
                ""
            };
            out.push(
                Diagnostic::error(
                    format!("{}.name", c.path),
                    format!(
                        "duplicate {what} \"{}\" {scope}: {first} has the same name{same}",
                        c.channel.name
                    ),
                )
                .with_help(
                    "channels are matched by name within their category and type group; rename one \
                     (channels of the same name are allowed only when each pins its `id`)",
                ),
            );
        }
    }
    let mut previous: HashMap<(Option<usize>, &str, Cow<'_, str>), &str> = HashMap::new();
    for c in &ctx.channels {
        for (k, old) in c.channel.previous_names.iter().enumerate() {
            let here = format!("{}.previous_names[{k}]", c.path);
            let kk = key(c, old);
            if let Some(owner) = names.get(&kk) {
                let msg = if *owner == c.path.as_str() {
                    format!(
                        "channel \"{}\" lists its own name in previous_names",
                        c.channel.name
                    )
                } else {
                    format!(
                        "\"{old}\" is a previous name of \"{}\" but also the name of {owner}",
                        c.channel.name
                    )
                };
                out.push(Diagnostic::error(here, msg).with_help(
                    "a live channel called this would match two entries: drop the previous name",
                ));
            } else if let Some(other) = previous.get(&kk) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one channel only"),
                );
            } else {
                previous.insert(kk, &c.path);
            }
        }
    }
}

fn everyone_role(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let last = ctx.roles.len().saturating_sub(1);
    for (i, (path, r)) in ctx.roles.iter().enumerate() {
        if r.name != EVERYONE {
            if r.name.eq_ignore_ascii_case(EVERYONE) || r.name == "everyone" {
                out.push(
                    Diagnostic::warning(
                        format!("{path}.name"),
                        format!("role \"{}\" looks like the default role but is not spelled `@everyone`", r.name),
                    )
                    .with_help("write `@everyone` to manage the default role"),
                );
            }
            continue;
        }
        let help = "of @everyone only `permissions` can be managed; remove the field";
        let fields: [(&str, bool); 7] = [
            ("previous_names", !r.previous_names.is_empty()),
            ("color", r.color.is_some()),
            ("colors", r.colors.is_some()),
            ("icon", r.icon.is_some()),
            ("hoist", r.hoist.is_some()),
            ("mentionable", r.mentionable.is_some()),
            ("unicode_emoji", r.unicode_emoji.is_some()),
        ];
        for (field, set) in fields {
            if set {
                out.push(
                    Diagnostic::error(
                        format!("{path}.{field}"),
                        format!("`{field}` cannot be set on @everyone"),
                    )
                    .with_help(help),
                );
            }
        }
        if i != last {
            out.push(
                Diagnostic::warning(
                    path.clone(),
                    "@everyone is always the lowest role, but it is not listed last",
                )
                .with_help("move @everyone to the end of `roles` (its position cannot change)"),
            );
        }
    }
}

fn unknown_permission(path: String, p: &PermissionName) -> Option<Diagnostic> {
    if Permissions::parse_name(&p.0).is_some() {
        return None;
    }
    let help = super::suggest::permission_help(&p.0);
    Some(Diagnostic::error(path, format!("unknown permission `{}`", p.0)).with_help(help))
}

fn permission_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        for (k, p) in r.permissions.iter().flatten().enumerate() {
            out.extend(unknown_permission(format!("{path}.permissions[{k}]"), p));
        }
    }
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            for (list, perms) in [("allow", &o.allow), ("deny", &o.deny)] {
                for (k, p) in perms.iter().enumerate() {
                    out.extend(unknown_permission(
                        format!("{}.overwrites[{i}].{list}[{k}]", c.path),
                        p,
                    ));
                }
            }
        }
    }
}

fn overwrite_target(o: &Overwrite) -> Option<String> {
    match (&o.role, &o.member) {
        (Some(r), None) => Some(format!("role \"{r}\"")),
        (None, Some(m)) => Some(format!("member {m}")),
        _ => None,
    }
}

fn overwrite_shape(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        // By the role or member named: `Mod` and Mod's pinned id are one target.
        let mut seen = FirstSeen::default();
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            let path = format!("{}.overwrites[{i}]", c.path);
            match (&o.role, &o.member) {
                (Some(_), Some(_)) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has both `role` and `member`")
                        .with_help("an overwrite is for one role or one member: split it into two"),
                ),
                (None, None) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has neither `role` nor `member`")
                        .with_help("add `role: <name>` or `member: <user id>`"),
                ),
                _ => {}
            }
            let target = match (&o.role, &o.member) {
                (Some(r), None) => Some((ctx.role_identity(r), r, format!("{path}.role"))),
                (None, Some(m)) => Some((
                    Identity::Written(format!("member {m}")),
                    &m.0,
                    format!("{path}.member"),
                )),
                _ => None,
            };
            if let (Some(shown), Some((id, written, at))) = (overwrite_target(o), target)
                && let Some(first) = seen.repeat(id, &at, written)
            {
                out.push(
                    Diagnostic::error(
                        at,
                        format!(
                            "a second overwrite for {shown} in \"{}\" ({first})",
                            c.channel.name
                        ),
                    )
                    .with_help(
                        "a channel has one overwrite per role or member, however it is written \
                         (name or id): merge the two into one",
                    ),
                );
            }
            let allowed: Vec<Permissions> = o
                .allow
                .iter()
                .filter_map(|p| Permissions::parse_name(&p.0))
                .collect();
            for (k, p) in o.deny.iter().enumerate() {
                if let Some(bit) = Permissions::parse_name(&p.0)
                    && allowed.contains(&bit)
                {
                    out.push(
                        Diagnostic::error(
                            format!("{path}.deny[{k}]"),
                            format!("`{}` is both allowed and denied in the same overwrite", p.0),
                        )
                        .with_help("keep it in `allow` or in `deny`, not both"),
                    );
                }
            }
        }
    }
}

fn overwrite_role_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            if let Some(role) = &o.role {
                ctx.check_role_ref(&format!("{}.overwrites[{i}].role", c.path), role, out);
            }
        }
    }
}

fn settings_channel_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(s) = &ctx.manifest.settings else {
        return;
    };
    use ChannelType::{Text, Voice};
    let refs: [(&str, &Option<Option<String>>, ChannelType); 5] = [
        ("afk_channel", &s.afk_channel, Voice),
        ("system_channel", &s.system_channel, Text),
        ("rules_channel", &s.rules_channel, Text),
        ("public_updates_channel", &s.public_updates_channel, Text),
        ("safety_alerts_channel", &s.safety_alerts_channel, Text),
    ];
    for (field, value, want) in refs {
        let Some(Some(name)) = value else { continue };
        ctx.check_channel_ref(
            &format!("settings.{field}"),
            &format!("`{field}`"),
            name,
            &[want],
            out,
        );
    }
}

fn guild_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let m = ctx.manifest;
    if let Some(s) = &m.settings {
        if let Some(name) = &s.name {
            let n = len(name);
            if n < GUILD_NAME_LEN.0 || n > GUILD_NAME_LEN.1 {
                out.push(
                    Diagnostic::error(
                        "settings.name",
                        format!("guild name is {n} characters; Discord allows 2 to 100"),
                    )
                    .with_help("shorten or lengthen the name"),
                );
            }
        }
        if let Some(Some(d)) = &s.description
            && len(d) > GUILD_DESCRIPTION_MAX
        {
            out.push(
                Diagnostic::error(
                    "settings.description",
                    format!(
                        "description is {} characters; the limit is {GUILD_DESCRIPTION_MAX}",
                        len(d)
                    ),
                )
                .with_help("shorten the description"),
            );
        }
        if let Some(t) = s.afk_timeout
            && !AFK_TIMEOUTS.contains(&t)
        {
            out.push(
                Diagnostic::error(
                    "settings.afk_timeout",
                    format!("afk_timeout {t} is not allowed"),
                )
                .with_help("use 60, 300, 900, 1800 or 3600 (seconds)"),
            );
        }
    }
    let roles = ctx.roles.len();
    if roles > ROLES_MAX {
        out.push(
            Diagnostic::error(
                "roles",
                format!("{roles} roles declared; a guild holds at most {ROLES_MAX}"),
            )
            .with_help("remove roles"),
        );
    }
    let channels = ctx.channels.len();
    if channels > CHANNELS_MAX {
        out.push(
            Diagnostic::error(
                "channels",
                format!("{channels} channels and categories declared; a guild holds at most {CHANNELS_MAX}"),
            )
            .with_help("remove channels (threads do not count)"),
        );
    }
}

/// Discord refuses a `preferred_locale` outside its list; `en-us` for `en-US` would
/// otherwise fail at apply time, halfway through.
fn settings_locale(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(locale) = ctx
        .manifest
        .settings
        .as_ref()
        .and_then(|s| s.preferred_locale.as_deref())
    else {
        return;
    };
    if LOCALES.contains(&locale) {
        return;
    }
    let help = match LOCALES.iter().find(|l| l.eq_ignore_ascii_case(locale)) {
        Some(exact) => format!("Discord spells it `{exact}`"),
        None => match closest(locale, LOCALES) {
            Some(near) => format!(
                "did you mean `{near}`? Discord's locales: {}",
                LOCALES.join(", ")
            ),
            None => format!("use one of Discord's locales: {}", LOCALES.join(", ")),
        },
    };
    out.push(
        Diagnostic::error(
            "settings.preferred_locale",
            format!("`{locale}` is not a locale Discord accepts"),
        )
        .with_help(help),
    );
}

fn role_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        let n = len(&r.name);
        if n == 0 || n > ROLE_NAME_MAX {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!(
                        "role name is {n} characters; Discord allows 1 to {ROLE_NAME_MAX}{}",
                        trimmed_note(n)
                    ),
                )
                .with_help("give the role a name of 1 to 100 characters"),
            );
        }
        if let Some(c) = r.color
            && c.0 > COLOR_MAX
        {
            out.push(
                Diagnostic::error(format!("{path}.color"), "colour is larger than #ffffff")
                    .with_help("write colours as \"#rrggbb\""),
            );
        }
        if r.color.is_some() && r.colors.is_some() {
            out.push(
                Diagnostic::error(
                    format!("{path}.colors"),
                    "a role has `color` (a solid colour) or `colors` (a gradient or `holographic`), not both",
                )
                .with_help("keep `color` for a solid colour, or only `colors`"),
            );
        }
    }
}

fn channel_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let ch = c.channel;
        let t = ch.channel_type();
        let p = &c.path;
        let n = len(&ch.name);
        if n == 0 || n > CHANNEL_NAME_MAX {
            out.push(
                Diagnostic::error(
                    format!("{p}.name"),
                    format!(
                        "channel name is {n} characters; Discord allows 1 to {CHANNEL_NAME_MAX}{}",
                        trimmed_note(n)
                    ),
                )
                .with_help("give the channel a name of 1 to 100 characters"),
            );
        }
        if let Some(Some(topic)) = &ch.topic {
            let max = if matches!(t, ChannelType::Forum | ChannelType::Media) {
                FORUM_TOPIC_MAX
            } else {
                TOPIC_MAX
            };
            if len(topic) > max {
                out.push(
                    Diagnostic::error(
                        format!("{p}.topic"),
                        format!(
                            "topic is {} characters; a {} channel allows {max}",
                            len(topic),
                            type_name(t)
                        ),
                    )
                    .with_help("shorten the topic"),
                );
            }
        }
        for (field, v) in [
            ("slowmode", ch.slowmode),
            ("default_thread_slowmode", ch.default_thread_slowmode),
        ] {
            if let Some(v) = v
                && v > SLOWMODE_MAX
            {
                out.push(
                    Diagnostic::error(
                        format!("{p}.{field}"),
                        format!("{field} {v} is above {SLOWMODE_MAX} seconds (6 hours)"),
                    )
                    .with_help("use 0 to 21600 seconds"),
                );
            }
        }
        if let Some(b) = ch.bitrate {
            let max = if t == ChannelType::Stage {
                STAGE_BITRATE_MAX
            } else {
                VOICE_BITRATE_MAX
            };
            if t.is_voice_like() && !(BITRATE_MIN..=max).contains(&b) {
                out.push(
                    Diagnostic::error(
                        format!("{p}.bitrate"),
                        format!(
                            "bitrate {b} is outside {BITRATE_MIN}-{max} for a {} channel",
                            type_name(t)
                        ),
                    )
                    .with_help(
                        "voice: 8000 to 96000 (up to 384000 with boosts); stage: 8000 to 64000",
                    ),
                );
            }
        }
        if let Some(u) = ch.user_limit {
            let max = if t == ChannelType::Stage {
                STAGE_USER_LIMIT_MAX
            } else {
                VOICE_USER_LIMIT_MAX
            };
            if t.is_voice_like() && u > max {
                out.push(
                    Diagnostic::error(
                        format!("{p}.user_limit"),
                        format!(
                            "user_limit {u} is above {max} for a {} channel",
                            type_name(t)
                        ),
                    )
                    .with_help(format!("use 0 (no limit) to {max}")),
                );
            }
        }
        if let Some(d) = ch.default_auto_archive_duration
            && !AUTO_ARCHIVE_DURATIONS.contains(&d)
        {
            out.push(
                Diagnostic::error(
                    format!("{p}.default_auto_archive_duration"),
                    format!("default_auto_archive_duration {d} is not allowed"),
                )
                .with_help("use 60, 1440, 4320 or 10080 (minutes)"),
            );
        }
        if t == ChannelType::Category {
            let children = ch.channels.as_ref().map_or(0, Vec::len);
            if children > CATEGORY_CHILDREN_MAX {
                out.push(
                    Diagnostic::error(
                        format!("{p}.channels"),
                        format!("category \"{}\" has {children} channels; the limit is {CATEGORY_CHILDREN_MAX}", ch.name),
                    )
                    .with_help("move channels to another category"),
                );
            }
        }
    }
}

fn channel_structure(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let t = c.channel.channel_type();
        if c.channel.channels.is_some() && t != ChannelType::Category {
            out.push(
                Diagnostic::error(
                    format!("{}.channels", c.path),
                    format!(
                        "only a category holds channels, but \"{}\" is {} channel",
                        c.channel.name,
                        a_type(t)
                    ),
                )
                .with_help("add `type: category`, or move these channels out"),
            );
        }
        if t == ChannelType::Category && c.depth > 0 {
            out.push(
                Diagnostic::error(
                    c.path.clone(),
                    format!("category \"{}\" is inside another category", c.channel.name),
                )
                .with_help("categories cannot be nested: move it to the top-level `channels` list"),
            );
        }
    }
}

/// Discord shows a category's (and the top level's) text-like channels above its voice
/// channels, whatever their positions: a list that puts voice first plans to "no changes"
/// while members see another order, so it is said where it starts.
fn channel_display_order(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let siblings = groups(ctx.channels.iter().map(|c| c.parent).collect::<Vec<_>>());
    for (parent, members) in siblings {
        let listed: Vec<&ChannelRef> = members
            .iter()
            .map(|&i| &ctx.channels[i])
            .filter(|c| c.channel.channel_type() != ChannelType::Category)
            .collect();
        let Some(first_voice) = listed
            .iter()
            .position(|c| c.channel.channel_type().is_voice_like())
        else {
            continue;
        };
        if !listed[first_voice..]
            .iter()
            .any(|c| !c.channel.channel_type().is_voice_like())
        {
            continue;
        }
        let (text, voice): (Vec<&&ChannelRef>, Vec<&&ChannelRef>) = listed
            .iter()
            .partition(|c| !c.channel.channel_type().is_voice_like());
        let shown: Vec<&str> = text
            .iter()
            .chain(voice.iter())
            .map(|c| c.channel.name.as_str())
            .collect();
        let place = match parent {
            Some(p) => format!("category \"{}\"", ctx.channels[p].channel.name),
            None => "the channels outside categories".to_owned(),
        };
        let v = listed[first_voice];
        out.push(
            Diagnostic::warning(
                v.path.clone(),
                format!(
                    "\"{}\" ({}) is listed above text channels in {place}, but Discord shows text channels above voice channels; members will see: {}",
                    v.channel.name,
                    type_name(v.channel.channel_type()),
                    shown.join(", ")
                ),
            )
            .with_help("list the text channels first: the manifest then reads as members see it"),
        );
    }
}

fn channel_field_applicability(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    use ChannelType::*;
    // discord-behaviour.md §4.2
    const TEXTISH: &[ChannelType] = &[Text, Announcement, Forum, Media];
    const VOICEISH: &[ChannelType] = &[Voice, Stage];
    const FORUMISH: &[ChannelType] = &[Forum, Media];
    for c in &ctx.channels {
        let ch = c.channel;
        let t = ch.channel_type();
        let fields: [(&str, bool, &[ChannelType]); 14] = [
            ("topic", ch.topic.is_some(), TEXTISH),
            (
                "nsfw",
                ch.nsfw.is_some(),
                &[Text, Voice, Announcement, Stage, Forum, Media],
            ),
            (
                "slowmode",
                ch.slowmode.is_some(),
                &[Text, Voice, Stage, Forum, Media],
            ),
            ("bitrate", ch.bitrate.is_some(), VOICEISH),
            ("user_limit", ch.user_limit.is_some(), VOICEISH),
            ("rtc_region", ch.rtc_region.is_some(), VOICEISH),
            (
                "video_quality_mode",
                ch.video_quality_mode.is_some(),
                VOICEISH,
            ),
            (
                "default_auto_archive_duration",
                ch.default_auto_archive_duration.is_some(),
                TEXTISH,
            ),
            (
                "default_thread_slowmode",
                ch.default_thread_slowmode.is_some(),
                TEXTISH,
            ),
            ("tags", ch.tags.is_some(), FORUMISH),
            ("default_reaction", ch.default_reaction.is_some(), FORUMISH),
            ("sort_order", ch.sort_order.is_some(), FORUMISH),
            // §9.5: forum channels only.
            ("layout", ch.layout.is_some(), &[Forum]),
            ("require_tag", ch.require_tag.is_some(), FORUMISH),
        ];
        for (field, set, types) in fields {
            if set && !types.contains(&t) {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                out.push(
                    Diagnostic::error(
                        format!("{}.{field}", c.path),
                        format!("`{field}` does not apply to {} channel", a_type(t)),
                    )
                    .with_help(format!(
                        "`{field}` applies to: {}; remove it",
                        names.join(", ")
                    )),
                );
            }
        }
    }
}

fn sync_permissions(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let Some(sync) = c.channel.sync_permissions else {
            continue;
        };
        let path = format!("{}.sync_permissions", c.path);
        let in_category = c
            .parent
            .is_some_and(|p| ctx.channels[p].channel.channel_type() == ChannelType::Category);
        if !in_category {
            out.push(
                Diagnostic::error(
                    path,
                    format!(
                        "`sync_permissions` on \"{}\", which is not inside a category",
                        c.channel.name
                    ),
                )
                .with_help("only a channel in a category can be synced with it; remove the field"),
            );
        } else if sync && c.channel.overwrites.is_some() {
            out.push(
                Diagnostic::error(
                    path,
                    "`sync_permissions: true` together with `overwrites`",
                )
                .with_help("a synced channel has exactly its category's overwrites: remove `overwrites`, or set `sync_permissions: false`"),
            );
        }
    }
}

fn channel_name_normalisation(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let t = c.channel.channel_type();
        if !t.is_text_like() {
            continue;
        }
        let norm = text_name(&c.channel.name);
        if norm != c.channel.name && !norm.is_empty() {
            out.push(
                Diagnostic::warning(
                    format!("{}.name", c.path),
                    format!(
                        "Discord will rename {} channel \"{}\" to \"{norm}\"",
                        type_name(t),
                        c.channel.name
                    ),
                )
                .with_help(format!(
                    "write `name: {norm}` so plans stay at zero changes"
                )),
            );
        } else if norm.is_empty() && !c.channel.name.is_empty() {
            out.push(
                Diagnostic::error(
                    format!("{}.name", c.path),
                    format!(
                        "channel name \"{}\" has nothing Discord keeps (letters, digits, `-`, `_`)",
                        c.channel.name
                    ),
                )
                .with_help("use letters or digits in the name"),
            );
        }
    }
}

fn community_prerequisites(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let s = ctx.manifest.settings.as_ref();
    let community = s.and_then(|s| s.community);
    if let Some(s) = s
        && community == Some(true)
    {
        for (field, value) in [
            ("rules_channel", &s.rules_channel),
            ("public_updates_channel", &s.public_updates_channel),
        ] {
            if !matches!(value, Some(Some(_))) {
                out.push(
                    Diagnostic::error(
                        "settings.community",
                        format!("`community: true` needs `settings.{field}`"),
                    )
                    .with_help(format!(
                        "set `{field}` to a text channel; Discord enables COMMUNITY only with rules and updates channels"
                    )),
                );
            }
        }
        if let Some(v) = s.verification_level
            && v.value() < VerificationLevel::Low.value()
        {
            out.push(
                Diagnostic::error(
                    "settings.verification_level",
                    format!(
                        "`community: true` needs verification_level `low` or higher, not `{}`",
                        v.name()
                    ),
                )
                .with_help("set `verification_level: low` (or medium, high, very_high)"),
            );
        }
        if let Some(f) = s.explicit_content_filter
            && f != ExplicitContentFilter::AllMembers
        {
            out.push(
                Diagnostic::error(
                    "settings.explicit_content_filter",
                    format!(
                        "`community: true` needs explicit_content_filter `all_members`, not `{}`",
                        f.name()
                    ),
                )
                .with_help("set `explicit_content_filter: all_members`"),
            );
        }
    }
    if community != Some(true) {
        let m = ctx.manifest;
        for (section, present, what) in [
            (
                "welcome_screen",
                m.welcome_screen.is_some(),
                "a welcome screen",
            ),
            ("onboarding", m.onboarding.is_some(), "onboarding"),
        ] {
            if !present {
                continue;
            }
            let d = if community == Some(false) {
                Diagnostic::error(
                    section,
                    format!("`{section}` in a guild with `community: false`"),
                )
            } else {
                Diagnostic::warning(
                    section,
                    format!("{what} needs a community guild, and `settings.community` is not set"),
                )
            };
            out.push(d.with_help(format!(
                "set `settings.community: true` (fine without it if the guild already is a community), or remove `{section}`"
            )));
        }
        for c in &ctx.channels {
            if c.channel.channel_type() == ChannelType::Announcement {
                let d = if community == Some(false) {
                    Diagnostic::error(
                        format!("{}.type", c.path),
                        format!(
                            "announcement channel \"{}\" in a guild with `community: false`",
                            c.channel.name
                        ),
                    )
                } else {
                    Diagnostic::warning(
                        format!("{}.type", c.path),
                        format!(
                            "announcement channel \"{}\" needs a community guild",
                            c.channel.name
                        ),
                    )
                };
                out.push(
                    d.with_help("set `settings.community: true`, or make it a `text` channel"),
                );
            }
        }
    }
}

fn unique_ids(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let roles = ctx.roles.iter().map(|(p, r)| (p.as_str(), r.id.as_ref()));
    let channels = ctx
        .channels
        .iter()
        .map(|c| (c.path.as_str(), c.channel.id.as_ref()));
    let webhook_paths: Vec<String> = (0..ctx.manifest.webhooks.as_ref().map_or(0, Vec::len))
        .map(|i| format!("webhooks[{i}]"))
        .collect();
    let webhooks = webhook_paths
        .iter()
        .zip(ctx.manifest.webhooks.iter().flatten())
        .map(|(p, w)| (p.as_str(), w.id.as_ref()));
    type Pinned<'a> = Vec<(&'a str, Option<&'a Snowflake>)>;
    let lists: [(&str, Pinned<'_>); 3] = [
        ("role", roles.collect()),
        ("channel", channels.collect()),
        ("webhook", webhooks.collect()),
    ];
    for (what, list) in lists {
        let mut seen: HashMap<&str, &str> = HashMap::new();
        for (path, id) in list {
            let Some(id) = id else { continue };
            if let Some(first) = seen.get(id.0.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.id"),
                        format!("{what} id {id} is also pinned by {first}"),
                    )
                    .with_help(format!(
                        "an id names one {what}: remove or correct one of them"
                    )),
                );
            } else {
                seen.insert(&id.0, path);
            }
        }
    }
}

/// Why a name can be empty when the manifest has one: names are checked as Discord
/// stores them, without surrounding whitespace.
pub(super) fn trimmed_note(len: usize) -> &'static str {
    if len == 0 {
        " (counted without surrounding whitespace, which Discord trims)"
    } else {
        ""
    }
}

/// A text channel's name as Discord stores it.
fn text_name(name: &str) -> Cow<'_, str> {
    crate::discord::names::stored_channel_name(crate::discord::models::channel_type::TEXT, name)
}
