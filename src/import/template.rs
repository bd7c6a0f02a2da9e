//! A Discord server template (the JSON of `GET /guilds/templates/{code}`) as a manifest.
//!
//! A template's `serialized_source_guild` is a guild without ids: roles and channels carry
//! template-local integers (role 0 is @everyone), which channels use for their parent and
//! overwrites and the settings for the AFK and system channels. Roles come lowest first,
//! @everyone first, as Create Guild takes them and as Discord writes them in a template
//! (a template role has no `position`); the manifest lists them highest first. Channels
//! carry `position` within their parent.
//!
//! The manifest is built as the manifest's own types and written by export's YAML writer,
//! so it validates by construction; every name is made distinct where the checks need it
//! (roles; channels within their category and type group; forum tags). Whatever the
//! manifest cannot express, and every name changed, is a [`Note`]: nothing is dropped
//! silently. Fields that do not apply to a channel's type (a template gives every channel a
//! `bitrate`) are ignored, as Discord ignores them; fields this reader does not know are
//! ignored too (docs/manifest.md, "Start from a template").

use hashbrown::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::fmt::{self, Write};

use hashbrown::hash_map::Entry;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::discord::limits::{
    AFK_TIMEOUTS, AUTO_ARCHIVE_DURATIONS, BITRATE_MIN, CHANNEL_NAME_MAX, FORUM_TOPIC_MAX,
    GUILD_DESCRIPTION_MAX, GUILD_NAME_LEN, ROLE_NAME_MAX, SLOWMODE_MAX, STAGE_BITRATE_MAX,
    STAGE_USER_LIMIT_MAX, TAG_NAME_LEN, TAGS_MAX, TOPIC_MAX, VOICE_BITRATE_MAX,
    VOICE_USER_LIMIT_MAX,
};
use crate::discord::models::LOCALES;
use crate::discord::names::{stored_channel_name, stored_display_name};
use crate::export::{ExportError, permission_names, schema_modeline, section};
use crate::manifest::check::{ChannelLookup, Ctx, EVERYONE};
use crate::manifest::stored::as_stored;
use crate::manifest::{
    Channel, ChannelType, Color, Emoji, ExplicitContentFilter, ForumLayout, ForumTag, Manifest,
    MessageNotifications, Overwrite, Role, Settings, SortOrder, SystemChannelFlag,
    VerificationLevel,
};
use crate::permissions::Permissions;

use super::shown;

// ---------------------------------------------------------------------------------------------
// The template, as Discord sends it

/// `GET /guilds/templates/{code}`. Only `serialized_source_guild` is required; the rest
/// names the template in the manifest's header.
#[derive(Debug, Deserialize)]
pub struct Template {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub source_guild_id: Option<Id>,
    pub serialized_source_guild: SourceGuild,
}

/// The guild a template holds.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SourceGuild {
    pub name: Option<String>,
    pub description: Option<String>,
    pub region: Option<String>,
    pub verification_level: Option<i64>,
    pub default_message_notifications: Option<i64>,
    pub explicit_content_filter: Option<i64>,
    pub preferred_locale: Option<String>,
    pub afk_channel_id: Option<Id>,
    pub afk_timeout: Option<i64>,
    pub system_channel_id: Option<Id>,
    pub system_channel_flags: Option<i64>,
    pub icon_hash: Option<String>,
    pub roles: Option<Vec<TemplateRole>>,
    pub channels: Option<Vec<TemplateChannel>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateRole {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub permissions: Option<Bits>,
    pub color: Option<i64>,
    pub colors: Option<RoleColors>,
    pub hoist: Option<bool>,
    pub mentionable: Option<bool>,
    pub icon: Option<String>,
    pub unicode_emoji: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RoleColors {
    pub primary_color: Option<i64>,
    pub secondary_color: Option<i64>,
    pub tertiary_color: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateChannel {
    pub id: Option<Id>,
    #[serde(rename = "type")]
    pub kind: Option<i64>,
    pub name: Option<String>,
    pub position: Option<i64>,
    pub topic: Option<String>,
    pub bitrate: Option<i64>,
    pub user_limit: Option<i64>,
    pub nsfw: Option<bool>,
    pub rate_limit_per_user: Option<i64>,
    pub parent_id: Option<Id>,
    pub default_auto_archive_duration: Option<i64>,
    pub permission_overwrites: Option<Vec<TemplateOverwrite>>,
    pub available_tags: Option<Vec<TemplateTag>>,
    pub template: Option<String>,
    pub default_reaction_emoji: Option<ReactionEmoji>,
    pub default_thread_rate_limit_per_user: Option<i64>,
    pub default_sort_order: Option<i64>,
    pub default_forum_layout: Option<i64>,
    pub default_tag_setting: Option<String>,
    pub theme_color: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub struct TemplateOverwrite {
    pub id: Id,
    /// 0 a role, 1 a member.
    #[serde(rename = "type", default)]
    pub kind: Option<i64>,
    #[serde(default)]
    pub allow: Option<Bits>,
    #[serde(default)]
    pub deny: Option<Bits>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TemplateTag {
    pub name: Option<String>,
    pub emoji_id: Option<Id>,
    pub emoji_name: Option<String>,
    pub moderated: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ReactionEmoji {
    pub emoji_id: Option<Id>,
    pub emoji_name: Option<String>,
}

/// A template-local id or a snowflake: an integer, or a string of digits (Discord writes
/// template-local ids as integers where its schema says snowflake strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub u64);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(U64Visitor("an id (an integer or a string of digits)"))
            .map(Id)
    }
}

/// A permission bit set: a string of digits, as Discord sends it, or an integer, as older
/// templates have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits(pub Permissions);

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(U64Visitor(
            "a permission bit set (a string of digits, at most 2^64 - 1)",
        ))
        .map(|n| Bits(Permissions(n)))
    }
}

struct U64Visitor(&'static str);

impl Visitor<'_> for U64Visitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(E::invalid_value(de::Unexpected::Str(v), &self));
        }
        v.parse()
            .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

// ---------------------------------------------------------------------------------------------
// The result

/// Why a template could not be read. The JSON path names the value at fault.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("the template is not JSON: {0}")]
    Syntax(String),
    #[error("`{path}` in the template: {message}")]
    Shape { path: String, message: String },
    #[error(transparent)]
    Yaml(#[from] ExportError),
}

/// What a note says happened to part of the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A name given a suffix so that it is distinct.
    Renamed,
    /// Written otherwise than the template has it (a name as Discord stores it, a channel
    /// moved to the top level, two overwrites merged).
    Changed,
    /// Not in the manifest: it cannot express it.
    LeftOut,
    /// Kept as the template has it, but a guild without the feature it needs refuses it:
    /// `plan` says so at its line there (a role's `unicode_emoji` needs ROLE_ICONS).
    NeedsFeature,
}

/// Something the import changed or left out, at a JSON path of the template. The message
/// holds outside text as it is: show it with [`shown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    pub path: String,
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            NoteKind::Renamed => "renamed",
            NoteKind::Changed => "changed",
            NoteKind::LeftOut => "left out",
            NoteKind::NeedsFeature => "needs a guild feature",
        };
        write!(f, "{what}: {} (at {})", self.message, self.path)
    }
}

/// A template turned into a manifest.
#[derive(Debug)]
pub struct Imported {
    pub manifest: Manifest,
    /// The manifest as YAML, with the schema line, a header naming the template and the
    /// notes as comments.
    pub yaml: String,
    pub notes: Vec<Note>,
}

/// Reads the template JSON in `text` and writes it as a manifest.
pub fn import_template(text: &str) -> Result<Imported, TemplateError> {
    let template = parse(text)?;
    let mut cx = Convert::default();
    let manifest = cx.manifest(&template.serialized_source_guild);
    let yaml = render(&template, &manifest, &cx.notes)?;
    Ok(Imported {
        manifest,
        yaml,
        notes: cx.notes,
    })
}

/// The template, or the JSON path of the first value that is not what a template holds.
pub fn parse(text: &str) -> Result<Template, TemplateError> {
    let mut json = serde_json::Deserializer::from_str(text);
    let template: Template = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            TemplateError::Syntax(inner.to_string())
        } else {
            TemplateError::Shape {
                path,
                message: inner.to_string(),
            }
        }
    })?;
    json.end()
        .map_err(|e| TemplateError::Syntax(e.to_string()))?;
    Ok(template)
}

// ---------------------------------------------------------------------------------------------
// Conversion

const GUILD: &str = "serialized_source_guild";
const UNNAMED: &str = "unnamed";

#[derive(Default)]
struct Convert {
    notes: Vec<Note>,
    /// Template role id → the role's name in the manifest (@everyone for 0).
    role_names: HashMap<u64, String>,
}

/// A channel of the template placed in the manifest: where it is in the template, its
/// type, and its overwrites by role name (for telling synced channels).
/// Where a template channel went in the manifest: its index in the top-level list, and its
/// index among its category's channels.
type Place = (usize, Option<usize>);

struct Placed<'t> {
    at: usize,
    source: &'t TemplateChannel,
    kind: ChannelType,
    overwrites: Vec<(String, Permissions, Permissions)>,
}

impl Convert {
    fn note(&mut self, kind: NoteKind, path: impl Into<String>, message: impl Into<String>) {
        self.notes.push(Note {
            kind,
            path: path.into(),
            message: message.into(),
        });
    }

    fn manifest(&mut self, g: &SourceGuild) -> Manifest {
        let roles = self.roles(g.roles.as_deref().unwrap_or_default());
        let (channels, ids) = self.channels(g.channels.as_deref().unwrap_or_default());
        let mut m = Manifest {
            version: 1,
            roles: Some(roles),
            channels: Some(channels),
            ..Manifest::default()
        };
        m.settings = Some(self.settings(g, &m, &ids));
        m
    }

    // -- Settings

    fn settings(&mut self, g: &SourceGuild, m: &Manifest, ids: &HashMap<u64, Place>) -> Settings {
        let mut s = Settings::default();
        if let Some(name) = &g.name {
            // Discord counts without surrounding whitespace; the checks count all of it.
            let n = name.trim().chars().count();
            if n >= GUILD_NAME_LEN.0 && name.chars().count() <= GUILD_NAME_LEN.1 {
                s.name = Some(name.clone());
            } else {
                self.note(
                    NoteKind::LeftOut,
                    format!("{GUILD}.name"),
                    format!("guild name \"{name}\" has {n} characters; Discord allows 2 to 100"),
                );
            }
        }
        match &g.description {
            Some(d) if d.chars().count() > GUILD_DESCRIPTION_MAX => self.note(
                NoteKind::LeftOut,
                format!("{GUILD}.description"),
                format!("the description is longer than {GUILD_DESCRIPTION_MAX} characters"),
            ),
            Some(d) if !d.is_empty() => s.description = Some(Some(d.clone())),
            _ => s.description = Some(None),
        }
        s.verification_level = self.named("verification_level", g.verification_level, |v| {
            VerificationLevel::from_value(v)
        });
        s.default_message_notifications = self.named(
            "default_message_notifications",
            g.default_message_notifications,
            MessageNotifications::from_value,
        );
        s.explicit_content_filter = self.named(
            "explicit_content_filter",
            g.explicit_content_filter,
            ExplicitContentFilter::from_value,
        );
        if let Some(t) = g.afk_timeout {
            match u32::try_from(t).ok().filter(|t| AFK_TIMEOUTS.contains(t)) {
                Some(t) => s.afk_timeout = Some(t),
                None => self.note(
                    NoteKind::LeftOut,
                    format!("{GUILD}.afk_timeout"),
                    format!("afk_timeout {t} is not one of 60, 300, 900, 1800, 3600"),
                ),
            }
        }
        s.afk_channel = self.channel_setting(
            "afk_channel_id",
            g.afk_channel_id,
            ChannelType::Voice,
            m,
            ids,
        );
        s.system_channel = self.channel_setting(
            "system_channel_id",
            g.system_channel_id,
            ChannelType::Text,
            m,
            ids,
        );
        if let Some(flags) = g.system_channel_flags {
            let bits = u64::try_from(flags).unwrap_or(0);
            let named: Vec<SystemChannelFlag> = (0..6)
                .map(|b| 1u64 << b)
                .filter(|bit| bits & bit != 0)
                .filter_map(SystemChannelFlag::from_value)
                .collect();
            let known = named.iter().fold(0, |acc, f| acc | f.value());
            if flags < 0 || bits & !known != 0 {
                self.note(
                    NoteKind::LeftOut,
                    format!("{GUILD}.system_channel_flags"),
                    format!(
                        "system channel flags {flags}: the bits without a name ({}) are not managed",
                        if flags < 0 { flags } else { (bits & !known) as i64 }
                    ),
                );
            }
            s.system_channel_flags = Some(named);
        }
        if let Some(locale) = &g.preferred_locale {
            if LOCALES.contains(&locale.as_str()) {
                s.preferred_locale = Some(locale.clone());
            } else {
                self.note(
                    NoteKind::LeftOut,
                    format!("{GUILD}.preferred_locale"),
                    format!("\"{locale}\" is not a locale Discord accepts"),
                );
            }
        }
        if let Some(region) = &g.region {
            self.note(
                NoteKind::LeftOut,
                format!("{GUILD}.region"),
                format!(
                    "voice region \"{region}\": Discord no longer has a guild region (a voice \
                     channel's `rtc_region` replaces it)"
                ),
            );
        }
        if g.icon_hash.is_some() {
            self.note(
                NoteKind::LeftOut,
                format!("{GUILD}.icon_hash"),
                "the guild icon: a template holds only its hash, not the image",
            );
        }
        s
    }

    /// A named setting from Discord's integer, or a note when the integer has no name.
    fn named<T>(
        &mut self,
        field: &str,
        value: Option<i64>,
        from: impl Fn(u64) -> Option<T>,
    ) -> Option<T> {
        let v = value?;
        let named = u64::try_from(v).ok().and_then(from);
        if named.is_none() {
            self.note(
                NoteKind::LeftOut,
                format!("{GUILD}.{field}"),
                format!("{field} {v} is not a value Discord documents"),
            );
        }
        named
    }

    /// A channel setting: the reference that names the channel with template-local id `id`
    /// in the manifest `m`, as the checks resolve it (its name, or `Category/name`).
    fn channel_setting(
        &mut self,
        field: &str,
        id: Option<Id>,
        want: ChannelType,
        m: &Manifest,
        ids: &HashMap<u64, Place>,
    ) -> Option<Option<String>> {
        let path = format!("{GUILD}.{field}");
        let Some(Id(id)) = id else {
            return Some(None);
        };
        let Some(&(top, child)) = ids.get(&id) else {
            self.note(
                NoteKind::LeftOut,
                path,
                format!("channel {id} is not in the template"),
            );
            return None;
        };
        let channels = m.channels.as_deref().unwrap_or_default();
        let (entry, category) = match child {
            Some(k) => (
                &channels[top].channels.as_deref().unwrap_or_default()[k],
                Some(&channels[top]),
            ),
            None => (&channels[top], None),
        };
        if entry.channel_type() != want {
            self.note(
                NoteKind::LeftOut,
                path,
                format!(
                    "channel \"{}\" is {} channel, not {}",
                    entry.name,
                    entry.channel_type().name(),
                    want.name()
                ),
            );
            return None;
        }
        let target = match child {
            Some(k) => format!("channels[{top}].channels[{k}]"),
            None => format!("channels[{top}]"),
        };
        let stored = as_stored(m);
        let ctx = Ctx::new(&stored);
        // Tried as the checks will read it: each part as Discord stores it.
        let mut tries = vec![(
            entry.name.clone(),
            stored_display_name(&entry.name).into_owned(),
        )];
        if let Some(cat) = category {
            tries.push((
                format!("{}/{}", cat.name, entry.name),
                format!(
                    "{}/{}",
                    stored_display_name(&cat.name),
                    stored_display_name(&entry.name)
                ),
            ));
        }
        for (r, read) in tries {
            if let ChannelLookup::Found(i) = ctx.lookup_channel(&read, &[want])
                && ctx.channels[i].path == target
            {
                return Some(Some(r));
            }
        }
        self.note(
            NoteKind::LeftOut,
            path,
            format!(
                "channel \"{}\" cannot be named without naming another too",
                entry.name
            ),
        );
        None
    }

    // -- Roles

    fn roles(&mut self, roles: &[TemplateRole]) -> Vec<Role> {
        // The first role with id 0 is @everyone; a role of the template met again under an
        // id already seen is an ordinary role whose overwrites went to the first.
        let everyone_at = roles.iter().position(|r| r.id == Some(Id(0)));
        let mut taken: HashSet<String> = HashSet::from([EVERYONE.to_owned()]);
        let mut names: HashMap<usize, String> = HashMap::new();
        let mut out = Vec::new();
        // Highest first: the first in the manifest's order keeps a shared name.
        for (i, r) in roles.iter().enumerate().rev() {
            if Some(i) == everyone_at {
                continue;
            }
            let path = format!("{GUILD}.roles[{i}]");
            let name = self.role_name(r.name.as_deref(), &path, &mut taken);
            names.insert(i, name.clone());
            let color = self.role_color(r, &name, &path);
            if r.icon.as_deref().is_some_and(|i| !i.is_empty()) {
                self.note(
                    NoteKind::LeftOut,
                    format!("{path}.icon"),
                    format!("the icon image of role \"{name}\""),
                );
            }
            let unicode_emoji = match r.unicode_emoji.as_deref() {
                Some(e) if is_emoji_text(e) => {
                    // Kept: the manifest says what the template says, and the guild it is
                    // applied to may have the feature; plan refuses it there if not.
                    self.note(
                        NoteKind::NeedsFeature,
                        format!("{path}.unicode_emoji"),
                        format!(
                            "role \"{name}\" keeps its emoji {e}, which needs the guild feature ROLE_ICONS: a guild without it refuses it at plan; remove `unicode_emoji` there"
                        ),
                    );
                    Some(Some(e.to_owned()))
                }
                Some(e) if !e.is_empty() => {
                    self.note(
                        NoteKind::LeftOut,
                        format!("{path}.unicode_emoji"),
                        format!("\"{e}\" beside role \"{name}\" is not a standard emoji"),
                    );
                    None
                }
                _ => None,
            };
            out.push(Role {
                name,
                permissions: r.permissions.map(|b| permission_names(b.0)),
                color,
                hoist: r.hoist,
                mentionable: r.mentionable,
                unicode_emoji,
                ..Role::default()
            });
        }
        // Overwrites name roles by template id: the first role with each id.
        self.role_names.insert(0, EVERYONE.to_owned());
        for (i, r) in roles.iter().enumerate() {
            let (Some(Id(id)), Some(name)) = (r.id, names.get(&i)) else {
                continue;
            };
            if let Some(first) = self.role_names.get(&id) {
                let message = format!(
                    "role \"{name}\" has id {id}, as \"{first}\" before it: overwrites for {id} are for \"{first}\""
                );
                self.note(NoteKind::Changed, format!("{GUILD}.roles[{i}].id"), message);
            } else {
                self.role_names.insert(id, name.clone());
            }
        }
        if let Some(i) = everyone_at {
            out.push(Role {
                name: EVERYONE.to_owned(),
                permissions: roles[i].permissions.map(|b| permission_names(b.0)),
                ..Role::default()
            });
        }
        out
    }

    fn role_name(&mut self, name: Option<&str>, path: &str, taken: &mut HashSet<String>) -> String {
        let written = name.unwrap_or_default();
        let mut base = written.to_owned();
        if stored_display_name(&base).is_empty() {
            base = format!("{UNNAMED} role");
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("a role without a name is called \"{base}\""),
            );
        } else if base.chars().count() > ROLE_NAME_MAX {
            base = truncate(&base, ROLE_NAME_MAX, Style::Display);
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("role name \"{written}\" is cut to {ROLE_NAME_MAX} characters"),
            );
        }
        let name = distinct(&base, ROLE_NAME_MAX, Style::Display, taken);
        if name != base {
            self.note(
                NoteKind::Renamed,
                format!("{path}.name"),
                format!("role \"{base}\" is \"{name}\": another role has that name"),
            );
        }
        name
    }

    fn role_color(&mut self, r: &TemplateRole, name: &str, path: &str) -> Option<Color> {
        let colors = r.colors.as_ref();
        if let Some(c) = colors
            && (c.secondary_color.is_some() || c.tertiary_color.is_some())
        {
            self.note(
                NoteKind::LeftOut,
                format!("{path}.colors"),
                format!(
                    "the gradient of role \"{name}\": the manifest has one colour (the primary is kept)"
                ),
            );
        }
        let (field, value) = match colors.and_then(|c| c.primary_color) {
            Some(p) => ("colors.primary_color", p),
            None => ("color", r.color?),
        };
        match u32::try_from(value).ok().filter(|c| *c <= 0xFF_FFFF) {
            Some(c) => Some(Color(c)),
            None => {
                self.note(
                    NoteKind::LeftOut,
                    format!("{path}.{field}"),
                    format!("colour {value} of role \"{name}\" is not an RGB colour"),
                );
                None
            }
        }
    }

    // -- Channels

    /// The manifest's channels (top-level ones, then categories with theirs, each list in
    /// Discord's display order) and where each template channel id went: (index in the
    /// top-level list, index among its category's channels).
    fn channels(&mut self, channels: &[TemplateChannel]) -> (Vec<Channel>, HashMap<u64, Place>) {
        // Which template entry each id means: the first that has it.
        let mut by_id: HashMap<u64, usize> = HashMap::new();
        let mut placed: Vec<Placed> = Vec::new();
        for (i, c) in channels.iter().enumerate() {
            let path = format!("{GUILD}.channels[{i}]");
            let kind = c
                .kind
                .and_then(|k| u64::try_from(k).ok())
                .and_then(ChannelType::from_value);
            let Some(kind) = kind else {
                let name = c.name.as_deref().unwrap_or_default();
                let kind = c.kind.map_or("none".to_owned(), |k| k.to_string());
                self.note(
                    NoteKind::LeftOut,
                    path,
                    format!("channel \"{name}\" of type {kind}, which a manifest does not declare"),
                );
                continue;
            };
            if let Some(Id(id)) = c.id {
                match by_id.entry(id) {
                    Entry::Occupied(_) => self.note(
                        NoteKind::Changed,
                        format!("{path}.id"),
                        format!("channel id {id} is used twice: references to it are to the first"),
                    ),
                    Entry::Vacant(v) => {
                        v.insert(placed.len());
                    }
                }
            }
            let overwrites = self.overwrites(c, &path);
            placed.push(Placed {
                at: i,
                source: c,
                kind,
                overwrites,
            });
        }
        // Parents: a category's index in `placed`.
        let mut parent: Vec<Option<usize>> = vec![None; placed.len()];
        for (k, p) in placed.iter().enumerate() {
            let Some(Id(pid)) = p.source.parent_id else {
                continue;
            };
            let path = format!("{GUILD}.channels[{}].parent_id", p.at);
            if p.kind == ChannelType::Category {
                self.note(
                    NoteKind::Changed,
                    path,
                    "a category inside another: it is put at the top level",
                );
                continue;
            }
            match by_id.get(&pid) {
                Some(&c) if placed[c].kind == ChannelType::Category => parent[k] = Some(c),
                _ => self.note(
                    NoteKind::Changed,
                    path,
                    format!("parent {pid} is not a category of the template: the channel is put at the top level"),
                ),
            }
        }
        // Display order: by position (none: last), text-like above voice-like in a parent.
        let order = |list: &mut Vec<usize>| {
            list.sort_by_key(|&k| {
                let p = &placed[k];
                (
                    p.kind.is_voice_like(),
                    p.source.position.unwrap_or(i64::MAX),
                    p.at,
                )
            })
        };
        let mut top: Vec<usize> = (0..placed.len())
            .filter(|&k| parent[k].is_none() && placed[k].kind != ChannelType::Category)
            .collect();
        order(&mut top);
        let mut categories: Vec<usize> = (0..placed.len())
            .filter(|&k| placed[k].kind == ChannelType::Category)
            .collect();
        order(&mut categories);

        let mut out: Vec<Channel> = Vec::new();
        let mut where_: HashMap<usize, Place> = HashMap::new();
        // Names are distinct per parent and type group (the checks' rule); the top level
        // has its channels and the categories.
        let mut top_names: HashMap<&'static str, HashSet<String>> = HashMap::new();
        for &k in &top {
            let entry = self.channel(&placed[k], None, &mut top_names);
            where_.insert(k, (out.len(), None));
            out.push(entry);
        }
        for &cat in &categories {
            let mut entry = self.channel(&placed[cat], None, &mut top_names);
            let mut children: Vec<usize> = (0..placed.len())
                .filter(|&k| parent[k] == Some(cat))
                .collect();
            order(&mut children);
            let mut names: HashMap<&'static str, HashSet<String>> = HashMap::new();
            let mut inside = Vec::new();
            for &k in &children {
                let child = self.channel(&placed[k], Some(&placed[cat]), &mut names);
                where_.insert(k, (out.len(), Some(inside.len())));
                inside.push(child);
            }
            where_.insert(cat, (out.len(), None));
            entry.channels = Some(inside);
            out.push(entry);
        }
        let ids = by_id
            .into_iter()
            .filter_map(|(id, k)| where_.get(&k).map(|w| (id, *w)))
            .collect();
        (out, ids)
    }

    /// A channel's overwrites by role name, merged per role.
    fn overwrites(
        &mut self,
        c: &TemplateChannel,
        path: &str,
    ) -> Vec<(String, Permissions, Permissions)> {
        let mut out: Vec<(String, Permissions, Permissions)> = Vec::new();
        for (j, o) in c.permission_overwrites.iter().flatten().enumerate() {
            let here = format!("{path}.permission_overwrites[{j}]");
            let Id(id) = o.id;
            match o.kind {
                Some(0) | None => {}
                Some(1) => {
                    self.note(
                        NoteKind::LeftOut,
                        here,
                        format!(
                            "an overwrite for member {id}: a template's member ids name no one"
                        ),
                    );
                    continue;
                }
                Some(k) => {
                    self.note(
                        NoteKind::LeftOut,
                        here,
                        format!("an overwrite of type {k} (0 is a role, 1 a member)"),
                    );
                    continue;
                }
            }
            let Some(role) = self.role_names.get(&id).cloned() else {
                self.note(
                    NoteKind::LeftOut,
                    here,
                    format!("an overwrite for role {id}, which the template does not have"),
                );
                continue;
            };
            let allow = o.allow.map_or(Permissions::NONE, |b| b.0);
            let mut deny = o.deny.map_or(Permissions::NONE, |b| b.0);
            if !(allow & deny).is_empty() {
                // Discord applies deny, then allow: allow wins.
                self.note(
                    NoteKind::Changed,
                    format!("{here}.deny"),
                    format!(
                        "{} both allowed and denied for \"{role}\": allowed, as Discord applies it",
                        permission_names(allow & deny)
                            .iter()
                            .map(|p| p.0.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                deny = deny & !allow;
            }
            if let Some(same) = out.iter_mut().find(|(r, ..)| *r == role) {
                self.note(
                    NoteKind::Changed,
                    here,
                    format!("a second overwrite for \"{role}\": merged into the first"),
                );
                same.1 |= allow;
                same.2 = (same.2 | deny) & !same.1;
            } else {
                out.push((role, allow, deny));
            }
        }
        out
    }

    fn channel(
        &mut self,
        p: &Placed,
        category: Option<&Placed>,
        names: &mut HashMap<&'static str, HashSet<String>>,
    ) -> Channel {
        use ChannelType::*;
        let c = p.source;
        let t = p.kind;
        let path = format!("{GUILD}.channels[{}]", p.at);
        let name = self.channel_name(c.name.as_deref(), t, &path, names);
        let textish = t.is_text_like();
        let voiceish = t.is_voice_like();
        let mut out = Channel {
            name: name.clone(),
            kind: (t != Text).then_some(t),
            ..Channel::default()
        };
        if textish {
            let max = if t.is_forum_like() {
                FORUM_TOPIC_MAX
            } else {
                TOPIC_MAX
            };
            out.topic = match c.topic.as_deref() {
                Some(topic) if topic.chars().count() > max => {
                    self.note(
                        NoteKind::LeftOut,
                        format!("{path}.topic"),
                        format!("the topic of \"{name}\" is longer than {max} characters"),
                    );
                    None
                }
                Some(topic) if !topic.is_empty() => Some(Some(topic.to_owned())),
                _ => Some(None),
            };
        }
        if t != Category {
            out.nsfw = Some(c.nsfw.unwrap_or(false));
        } else if c.nsfw == Some(true) {
            self.note(
                NoteKind::LeftOut,
                format!("{path}.nsfw"),
                format!("category \"{name}\" marked age-restricted (only channels can be)"),
            );
        }
        let mut range = |field: &str, value: Option<i64>, max: u32, min: u32| -> Option<u32> {
            let v = value?;
            match u32::try_from(v).ok().filter(|v| (min..=max).contains(v)) {
                Some(v) => Some(v),
                None => {
                    self.note(
                        NoteKind::LeftOut,
                        format!("{path}.{field}"),
                        format!("{field} {v} of \"{name}\" is outside {min}-{max}"),
                    );
                    None
                }
            }
        };
        if matches!(t, Text | Voice | Stage | Forum | Media) {
            out.slowmode = range(
                "rate_limit_per_user",
                c.rate_limit_per_user,
                SLOWMODE_MAX,
                0,
            );
        }
        if voiceish {
            let (bitrate_max, users_max) = if t == Stage {
                (STAGE_BITRATE_MAX, STAGE_USER_LIMIT_MAX)
            } else {
                (VOICE_BITRATE_MAX, VOICE_USER_LIMIT_MAX)
            };
            out.bitrate = range("bitrate", c.bitrate, bitrate_max, BITRATE_MIN);
            out.user_limit = range("user_limit", c.user_limit, users_max, 0);
        }
        if textish {
            out.default_thread_slowmode = range(
                "default_thread_rate_limit_per_user",
                c.default_thread_rate_limit_per_user,
                SLOWMODE_MAX,
                0,
            );
            if let Some(d) = c.default_auto_archive_duration {
                match u32::try_from(d)
                    .ok()
                    .filter(|d| AUTO_ARCHIVE_DURATIONS.contains(d))
                {
                    Some(d) => out.default_auto_archive_duration = Some(d),
                    None => self.note(
                        NoteKind::LeftOut,
                        format!("{path}.default_auto_archive_duration"),
                        format!(
                            "default_auto_archive_duration {d} of \"{name}\" is not 60, 1440, 4320 or 10080"
                        ),
                    ),
                }
            }
        }
        if t.is_forum_like() {
            self.forum(c, t, &name, &path, &mut out);
        } else if c.available_tags.as_ref().is_some_and(|t| !t.is_empty()) {
            self.note(
                NoteKind::LeftOut,
                format!("{path}.available_tags"),
                format!("tags on \"{name}\", which is not a forum or media channel"),
            );
        }
        for (field, set) in [
            (
                "template",
                c.template.as_deref().is_some_and(|t| !t.is_empty()),
            ),
            ("default_tag_setting", c.default_tag_setting.is_some()),
            ("theme_color", c.theme_color.is_some()),
        ] {
            if set {
                self.note(
                    NoteKind::LeftOut,
                    format!("{path}.{field}"),
                    format!("`{field}` of \"{name}\": the manifest has no such field"),
                );
            }
        }
        let synced = category.is_some_and(|cat| same_overwrites(&cat.overwrites, &p.overwrites));
        if synced {
            out.sync_permissions = Some(true);
        } else {
            out.overwrites = Some(
                p.overwrites
                    .iter()
                    .map(|(role, allow, deny)| Overwrite {
                        role: Some(role.clone()),
                        member: None,
                        allow: permission_names(*allow),
                        deny: permission_names(*deny),
                    })
                    .collect(),
            );
        }
        out
    }

    fn channel_name(
        &mut self,
        name: Option<&str>,
        t: ChannelType,
        path: &str,
        names: &mut HashMap<&'static str, HashSet<String>>,
    ) -> String {
        let written = name.unwrap_or_default();
        let style = if t.is_text_like() {
            Style::Text
        } else {
            Style::Display
        };
        let mut base = match style {
            Style::Text => stored_channel_name(t.value() as u8, written).into_owned(),
            Style::Display => written.to_owned(),
        };
        if style.key(&base).is_empty() {
            base = UNNAMED.to_owned();
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!(
                    "{} channel named \"{written}\", which has nothing Discord keeps, is called \"{base}\"",
                    t.name()
                ),
            );
        } else if base.chars().count() > CHANNEL_NAME_MAX {
            base = truncate(&base, CHANNEL_NAME_MAX, style);
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("channel name \"{written}\" is cut to {CHANNEL_NAME_MAX} characters"),
            );
        } else if base != written {
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!(
                    "{} channel \"{written}\" is written \"{base}\", as Discord stores it",
                    t.name()
                ),
            );
        }
        let group = if t == ChannelType::Category {
            "category"
        } else if t.is_voice_like() {
            "voice"
        } else {
            "text"
        };
        let name = distinct(
            &base,
            CHANNEL_NAME_MAX,
            style,
            names.entry(group).or_default(),
        );
        if name != base {
            let what = if t == ChannelType::Category {
                "category".to_owned()
            } else {
                format!("{} channel", t.name())
            };
            self.note(
                NoteKind::Renamed,
                format!("{path}.name"),
                format!("{what} \"{base}\" is \"{name}\": another in the same place has that name"),
            );
        }
        name
    }

    fn forum(
        &mut self,
        c: &TemplateChannel,
        t: ChannelType,
        name: &str,
        path: &str,
        out: &mut Channel,
    ) {
        let mut tags = Vec::new();
        let mut taken = HashSet::new();
        for (k, tag) in c.available_tags.iter().flatten().enumerate() {
            let here = format!("{path}.available_tags[{k}]");
            if tags.len() == TAGS_MAX {
                self.note(
                    NoteKind::LeftOut,
                    here,
                    format!("tags of \"{name}\" past the {TAGS_MAX} Discord allows"),
                );
                break;
            }
            let written = tag.name.as_deref().unwrap_or_default();
            let mut base = written.to_owned();
            if stored_display_name(&base).is_empty() {
                base = "tag".to_owned();
            } else if base.chars().count() > TAG_NAME_LEN.1 {
                base = truncate(&base, TAG_NAME_LEN.1, Style::Display);
            }
            let tag_name = distinct(&base, TAG_NAME_LEN.1, Style::Display, &mut taken);
            if tag_name != written {
                self.note(
                    NoteKind::Renamed,
                    format!("{here}.name"),
                    format!(
                        "tag \"{written}\" of \"{name}\" is \"{tag_name}\" (1 to 20 characters, each name once)"
                    ),
                );
            }
            let emoji = self.emoji(tag.emoji_id, tag.emoji_name.as_deref(), &here);
            tags.push(ForumTag {
                name: tag_name,
                emoji,
                moderated: tag.moderated.unwrap_or(false),
                ..ForumTag::default()
            });
        }
        out.tags = Some(tags);
        out.default_reaction = Some(c.default_reaction_emoji.as_ref().and_then(|e| {
            self.emoji(
                e.emoji_id,
                e.emoji_name.as_deref(),
                &format!("{path}.default_reaction_emoji"),
            )
        }));
        if let Some(v) = c.default_sort_order {
            out.sort_order = u64::try_from(v).ok().and_then(SortOrder::from_value);
            if out.sort_order.is_none() {
                self.note(
                    NoteKind::LeftOut,
                    format!("{path}.default_sort_order"),
                    format!("sort order {v} of \"{name}\" is not 0 or 1"),
                );
            }
        }
        // 0 is "not set", which a manifest cannot ask for.
        match c.default_forum_layout {
            Some(0) | None => {}
            Some(v) if t == ChannelType::Forum => {
                out.layout = u64::try_from(v).ok().and_then(ForumLayout::from_value);
                if out.layout.is_none() {
                    self.note(
                        NoteKind::LeftOut,
                        format!("{path}.default_forum_layout"),
                        format!("layout {v} of \"{name}\" is not 1 (list) or 2 (gallery)"),
                    );
                }
            }
            Some(_) => {}
        }
    }

    /// A tag's or a forum's emoji: a standard one kept, a custom one left out (it belongs
    /// to the template's source guild).
    fn emoji(&mut self, id: Option<Id>, name: Option<&str>, path: &str) -> Option<Emoji> {
        if let Some(Id(id)) = id {
            self.note(
                NoteKind::LeftOut,
                path,
                format!("custom emoji {id}, of the template's own guild"),
            );
            return None;
        }
        let name = name.filter(|n| !n.is_empty())?;
        if is_emoji_text(name) {
            Some(Emoji::Unicode(name.to_owned()))
        } else {
            self.note(
                NoteKind::LeftOut,
                path,
                format!("\"{name}\" is not a standard emoji"),
            );
            None
        }
    }
}

/// Whether two overwrite lists grant the same, whatever their order.
fn same_overwrites(
    a: &[(String, Permissions, Permissions)],
    b: &[(String, Permissions, Permissions)],
) -> bool {
    let set = |l: &[(String, Permissions, Permissions)]| -> BTreeMap<String, (u64, u64)> {
        l.iter()
            .map(|(r, a, d)| (r.clone(), (a.bits(), d.bits())))
            .collect()
    };
    set(a) == set(b)
}

/// What the manifest's checks accept as a standard emoji: not ASCII (`:smile:` and custom
/// emoji written as `<:name:id>` are refused).
fn is_emoji_text(s: &str) -> bool {
    !s.is_empty() && !s.is_ascii() && !s.starts_with('<')
}

/// How a name is written and compared: a text-like channel's in Discord's stored form
/// (`general-2`), any other as written, compared with whitespace collapsed (`Member (2)`).
#[derive(Clone, Copy)]
enum Style {
    Text,
    Display,
}

impl Style {
    fn key(self, name: &str) -> String {
        match self {
            Style::Text => stored_channel_name(0, name).into_owned(),
            Style::Display => stored_display_name(name).into_owned(),
        }
    }
}

/// The first `max` characters of `name`, without what Discord would trim from the end.
fn truncate(name: &str, max: usize, style: Style) -> String {
    let cut: String = name.chars().take(max).collect();
    match style {
        Style::Text => cut.trim_end_matches('-').to_owned(),
        Style::Display => cut.trim_end().to_owned(),
    }
}

/// `base`, or the first of `base (2)`, `base (3)`, … (`base-2` for text-like channels) that
/// is not `taken`, in at most `max` characters; recorded as taken.
fn distinct(base: &str, max: usize, style: Style, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 1usize;
    while taken.contains(&style.key(&name)) {
        n += 1;
        let suffix = match style {
            Style::Text => format!("-{n}"),
            Style::Display => format!(" ({n})"),
        };
        let room = max.saturating_sub(suffix.chars().count());
        name = format!("{}{suffix}", truncate(base, room, style));
    }
    taken.insert(style.key(&name));
    name
}

// ---------------------------------------------------------------------------------------------
// Writing

fn render(t: &Template, m: &Manifest, notes: &[Note]) -> Result<String, TemplateError> {
    let mut out = String::new();
    let _ = writeln!(out, "{}", schema_modeline());
    // The template's name, or its guild's when it has none.
    let name = t
        .name
        .as_deref()
        .or(t.serialized_source_guild.name.as_deref())
        .unwrap_or("");
    let _ = writeln!(
        out,
        "# Imported by `guildctl import template` from template \"{}\" (code {}) of guild {}.",
        shown(name),
        shown(t.code.as_deref().unwrap_or("unknown")),
        t.source_guild_id
            .map_or("unknown".to_owned(), |Id(id)| id.to_string()),
    );
    let _ = writeln!(
        out,
        "# Nothing is pinned to ids: applied to a guild, each entry is matched by name.\n\
         # `guildctl validate -f FILE` checks it; `guildctl plan -f FILE` shows what apply would do."
    );
    for (kind, title) in [
        (NoteKind::Renamed, "Renamed so that every name is distinct:"),
        (NoteKind::Changed, "Changed to fit:"),
        (
            NoteKind::LeftOut,
            "Left out (the manifest cannot express them):",
        ),
        (
            NoteKind::NeedsFeature,
            "Kept, needing a guild feature (plan refuses them on a guild without it):",
        ),
    ] {
        let mut these = notes.iter().filter(|n| n.kind == kind).peekable();
        if these.peek().is_none() {
            continue;
        }
        let _ = writeln!(out, "#\n# {title}");
        for n in these {
            let _ = writeln!(out, "#   {} (at {})", shown(&n.message), shown(&n.path));
        }
    }
    out.push('\n');
    section(&mut out, None, "version", &m.version)?;
    section(
        &mut out,
        Some("Guild settings; channels are referred to by name."),
        "settings",
        &m.settings,
    )?;
    section(
        &mut out,
        Some("Roles, highest first: list order is the hierarchy."),
        "roles",
        &m.roles,
    )?;
    section(
        &mut out,
        Some(
            "Channels in display order; `sync_permissions: true` marks channels with their category's overwrites.",
        ),
        "channels",
        &m.channels,
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_distinct_within_their_length() {
        let mut taken = HashSet::new();
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member"
        );
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member (2)"
        );
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member (3)"
        );
        let mut taken = HashSet::new();
        assert_eq!(distinct("general", 100, Style::Text, &mut taken), "general");
        assert_eq!(
            distinct("general", 100, Style::Text, &mut taken),
            "general-2"
        );
        let long = "x".repeat(20);
        let mut taken = HashSet::new();
        distinct(&long, 20, Style::Display, &mut taken);
        let second = distinct(&long, 20, Style::Display, &mut taken);
        assert_eq!(second, format!("{} (2)", "x".repeat(16)));
        assert_eq!(second.chars().count(), 20);
    }

    #[test]
    fn ids_and_bits_are_integers_or_strings_of_digits() {
        let t: TemplateOverwrite =
            serde_json::from_str(r#"{"id": "7", "type": 0, "allow": 1024, "deny": "2048"}"#)
                .unwrap();
        assert_eq!(t.id, Id(7));
        assert_eq!(t.allow, Some(Bits(Permissions(1024))));
        assert_eq!(t.deny, Some(Bits(Permissions(2048))));
        for bad in [r#"{"id": -1}"#, r#"{"id": "x"}"#, r#"{"id": 1.5}"#] {
            assert!(
                serde_json::from_str::<TemplateOverwrite>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
