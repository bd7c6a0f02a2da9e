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
//! channels, `webhooks[].channel`, AutoMod exemptions and alerts, events' and invite rules'
//! channels) all follow one rule, shared with the planner: [`split_channel_ref`] and
//! [`match_channel_ref`] (`refs`). Every reference by name, to a role or a channel, is
//! resolved by [`Ctx`]'s lookups (`index`), which also know previous names: no rule has a
//! lookup of its own.
//!
//! The rules read the manifest through [`Ctx`] (`index`: roles and channels flattened and
//! indexed, and the reference lookups), and live by section: `settings`, `roles`,
//! `channels`, `forum`, `permissions` (names and overwrites), `ids`, `features` (welcome
//! screen, onboarding, widget), `webhooks`, `image` (every image file named), `people`
//! (rosters and bans), `policies`, `expressions` (custom emoji), `automod`, `events`, `doors`
//! (invite rules). Discord's limits are [`crate::discord::limits`].

mod audio;
mod automod;
mod channel_data;
mod channels;
mod doors;
mod events;
mod expressions;
mod features;
mod forum;
mod ids;
mod image;
mod index;
mod people;
mod permissions;
mod policies;
mod refs;
mod roles;
mod settings;
mod webhooks;

use std::borrow::Cow;

use hashbrown::HashMap;

use super::diagnostic::Diagnostic;
use super::load::LoadedManifest;
use super::stored::as_stored;
use super::suggest::closest;
use super::types::{Channel, ChannelType, Emoji, Manifest, Role};
use crate::discord::limits::*;

pub use crate::discord::limits::IMAGE_MAX_BYTES;
pub use expressions::{EMOJI_RULES, SOUND_RULES, STICKER_RULES, expression_files};
pub use image::{
    FileRules, IMAGE_RULES, LOTTIE, UPLOAD_RULES, image_fields, read_file_as, read_image,
};
pub use index::{ChannelLookup, ChannelRef, Ctx, FirstSeen, Identity, RoleLookup, Undeclared};
pub(crate) use refs::resolve_channel_ref;
pub use refs::{ChannelKey, channel_name_matches, match_channel_ref, split_channel_ref};

pub use crate::discord::names::EVERYONE;

/// A rule: a name (used in docs and tests) and the function that appends its findings.
pub type Rule = fn(&Ctx<'_>, &mut Vec<Diagnostic>);

/// All semantic rules, in the order they run.
#[rustfmt::skip]
pub const RULES: &[(&str, Rule)] = &[
    ("unique-role-names",              roles::unique_role_names),
    ("unique-channel-names",           channels::unique_channel_names),
    ("everyone-role",                  roles::everyone_role),
    ("permission-names",               permissions::permission_names),
    ("overwrite-shape",                permissions::overwrite_shape),
    ("overwrite-role-references",      permissions::overwrite_role_references),
    ("settings-channel-references",    settings::settings_channel_references),
    ("guild-limits",                   settings::guild_limits),
    ("settings-locale",                settings::settings_locale),
    ("role-limits",                    roles::role_limits),
    ("channel-limits",                 channels::channel_limits),
    ("channel-structure",              channels::channel_structure),
    ("channel-display-order",          channels::channel_display_order),
    ("channel-field-applicability",    channels::channel_field_applicability),
    ("forum-tags",                     forum::forum_tags),
    ("sync-permissions",               channels::sync_permissions),
    ("channel-name-normalisation",     channels::channel_name_normalisation),
    ("community-prerequisites",        settings::community_prerequisites),
    ("unique-ids",                     ids::unique_ids),
    ("welcome-screen",                 features::welcome_screen),
    ("onboarding-limits",              features::onboarding_limits),
    ("onboarding-references",          features::onboarding_references),
    ("onboarding-enable-requirements", features::onboarding_enable_requirements),
    ("widget",                         features::widget),
    ("webhook-names",                  webhooks::webhook_names),
    ("webhook-channels",               webhooks::webhook_channels),
    ("webhook-avatar-paths",           image::webhook_avatar_paths),
    ("rosters-and-bans",               people::rosters_and_bans),
    ("policies",                       policies::policies),
    ("emoji-names",                    expressions::emoji_names),
    ("unique-emoji-names",             expressions::unique_emoji_names),
    ("emoji-roles",                    expressions::emoji_roles),
    ("sound-fields",                   expressions::sounds),
    ("unique-sound-names",             expressions::unique_sound_names),
    ("automod-names",                  automod::automod_names),
    ("automod-triggers",               automod::automod_triggers),
    ("automod-rule-counts",            automod::automod_rule_counts),
    ("automod-actions",                automod::automod_actions),
    ("automod-references",             automod::automod_references),
    ("event-names",                    events::event_names),
    ("event-place-and-times",          events::event_place_and_times),
    ("event-recurrence",               events::event_recurrence),
    ("event-channels",                 events::event_channels),
    ("invite-channels",                doors::invite_channels),
    ("sticker-fields",                 expressions::stickers),
    ("unique-sticker-names",           expressions::unique_sticker_names),
    ("channel-flags",                  channel_data::channel_flags),
    ("channel-follows",                channel_data::channel_follows),
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
/// The rules' findings are made once per manifest content (`LoadedManifest::checked`):
/// they depend on the manifest alone. The files are looked at by every load, since they may
/// change while the manifest does not.
pub fn check_loaded_by_rule(loaded: &LoadedManifest) -> Vec<(&'static str, Diagnostic)> {
    let mut out = loaded
        .checked(|loaded| check_stored(loaded.stored()))
        .to_vec();
    let mut files = Vec::new();
    image::webhook_avatar_files(&loaded.manifest, &loaded.dir(), &mut files);
    out.extend(files.into_iter().map(|d| ("avatar-files", d)));
    out
}

// ---------------------------------------------------------------------------------------------
// What the rules share

/// The diagnostics of one rule on a manifest that `fill` writes (the rules' unit tests).
#[cfg(test)]
fn run_rule(rule: Rule, fill: impl FnOnce(&mut Manifest)) -> Vec<Diagnostic> {
    let mut m = Manifest {
        version: 1,
        ..Default::default()
    };
    fill(&mut m);
    let mut out = Vec::new();
    rule(&Ctx::new(&m), &mut out);
    out
}

/// A kind matched by name (roles, webhooks, and the sections' kinds): each
/// later entry of a name is an error naming the first. Twins are fine when every entry of
/// the name is `pinned` to its live object's `id` (an export of a guild that has them).
/// `at` is an entry's path by index; returns each name with its first entry's index, for
/// the rules on previous names.
fn duplicate_names<'a>(
    entries: impl IntoIterator<Item = (&'a str, bool)>,
    at: impl Fn(usize) -> String,
    (what, help): (&str, &str),
    out: &mut Vec<Diagnostic>,
) -> Vec<(&'a str, usize)> {
    let entries: Vec<(&str, bool)> = entries.into_iter().collect();
    let mut firsts = Vec::new();
    for (name, idx) in groups(entries.iter().map(|&(name, _)| name)) {
        firsts.push((name, idx[0]));
        if idx.iter().all(|&i| entries[i].1) {
            continue;
        }
        let first = at(idx[0]);
        for &i in &idx[1..] {
            out.push(
                Diagnostic::error(
                    format!("{}.name", at(i)),
                    format!("duplicate {what} name \"{name}\" (first declared at {first})"),
                )
                .with_help(help),
            );
        }
    }
    firsts
}

/// A list section's entries, each with its path (`events[2]`); none when it is left out.
fn entries<'a, T>(
    section: &'static str,
    list: &'a Option<Vec<T>>,
) -> impl Iterator<Item = (String, &'a T)> {
    let list = list.as_deref().unwrap_or_default();
    list.iter()
        .enumerate()
        .map(move |(i, e)| (format!("{section}[{i}]"), e))
}

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

fn len(s: &str) -> usize {
    s.chars().count()
}

fn type_name(t: ChannelType) -> &'static str {
    t.name()
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

/// Whether a reference has the shape of a Discord id (a snowflake of 15 to 20 digits).
fn is_snowflake(s: &str) -> bool {
    (15..=20).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_digit())
        && s.parse::<u64>().is_ok()
}

/// A text Discord bounds in length: what messages call it, and its bounds in characters.
#[derive(Debug, Clone, Copy)]
struct Text(&'static str, (usize, usize));

impl Text {
    /// An error at `path` when `text` is out of bounds (`path` is written out only then:
    /// `format_args!` at the call).
    fn check(self, out: &mut Vec<Diagnostic>, path: impl std::fmt::Display, text: &str) {
        let Text(what, (min, max)) = self;
        let n = len(text);
        if n < min || n > max {
            let allowed = if min == 0 {
                format!("at most {max}")
            } else {
                format!("{min} to {max}")
            };
            out.push(
                Diagnostic::error(
                    path.to_string(),
                    format!(
                        "{what} is {n} characters; Discord allows {allowed}{}",
                        trimmed_note(n)
                    ),
                )
                .with_help(if n < min {
                    format!("write a {what} of {allowed} characters")
                } else {
                    format!("shorten the {what} to {max} characters")
                }),
            );
        }
    }
}

/// `<:name:id>` or `<a:name:id>`, as Discord writes custom emoji in messages.
fn parse_custom_emoji_text(s: &str) -> Option<(&str, &str, bool)> {
    let inner = s.strip_prefix('<')?.strip_suffix('>')?;
    let (animated, rest) = match inner.strip_prefix("a:") {
        Some(rest) => (true, rest),
        None => (false, inner.strip_prefix(':')?),
    };
    let (name, id) = rest.split_once(':')?;
    Some((name, id, animated))
}

fn check_emoji(path: String, e: &Emoji, out: &mut Vec<Diagnostic>) {
    match e {
        Emoji::Unicode(s) => {
            if let Some((name, id, animated)) = parse_custom_emoji_text(s) {
                let anim = if animated { ", animated: true" } else { "" };
                out.push(
                    Diagnostic::error(
                        path,
                        format!("\"{s}\" is a custom emoji written as message text"),
                    )
                    .with_help(format!(
                        "write it as `emoji: {{id: \"{id}\", name: {name}{anim}}}`"
                    )),
                );
            } else if s.is_empty() || s.is_ascii() {
                out.push(
                    Diagnostic::error(path, format!("\"{s}\" is not an emoji"))
                        .with_help(
                            "write a standard emoji as the character itself (`emoji: \"📜\"`, not `:scroll:`), \
                             or a custom emoji as `{id: \"…\", name: …}`",
                        ),
                );
            }
        }
        Emoji::Custom(c) => {
            if !is_snowflake(&c.id.0) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.id"),
                        format!("custom emoji id \"{}\" is not a Discord id", c.id),
                    )
                    .with_help(
                        "an id is a snowflake of 15 to 20 digits: copy it with Developer Mode \
                         (right-click the emoji, Copy ID)",
                    ),
                );
            }
            if let Some(name) = &c.name {
                let n = len(name);
                if !(EMOJI_NAME_LEN.0..=EMOJI_NAME_LEN.1).contains(&n)
                    || !name
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                {
                    out.push(
                        Diagnostic::error(
                            format!("{path}.name"),
                            format!("\"{name}\" is not a custom emoji name"),
                        )
                        .with_help("emoji names are 2 to 32 letters, digits or underscores, without colons"),
                    );
                }
            }
        }
    }
}
