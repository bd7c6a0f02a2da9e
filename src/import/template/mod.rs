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
//!
//! Here: the import's result and the state the conversion keeps; the template's JSON in
//! `json`, the conversion by section in `settings`, `roles` and `channels`, names made
//! distinct in `names`, and the YAML written in `render`.

mod channels;
mod json;
mod names;
mod render;
mod roles;
mod settings;

use std::fmt;

use hashbrown::HashMap;

use crate::export::ExportError;
use crate::manifest::Manifest;

pub use json::{
    Bits, Id, ReactionEmoji, RoleColors, SourceGuild, Template, TemplateChannel, TemplateOverwrite,
    TemplateRole, TemplateTag,
};

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
/// holds outside text as it is: show it with [`shown`](super::shown).
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
    let yaml = render::render(&template, &manifest, &cx.notes)?;
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
// The conversion's state; each section's conversion is in its own file.

/// Where the template keeps its guild: the start of every note's path.
const GUILD: &str = "serialized_source_guild";
/// A name for what the template left unnamed.
const UNNAMED: &str = "unnamed";

#[derive(Default)]
struct Convert {
    notes: Vec<Note>,
    /// Template role id → the role's name in the manifest (@everyone for 0).
    role_names: HashMap<u64, String>,
}

/// Where a template channel went in the manifest: its index in the top-level list, and its
/// index among its category's channels.
type Place = (usize, Option<usize>);

impl Convert {
    fn note(&mut self, kind: NoteKind, path: impl Into<String>, message: impl Into<String>) {
        self.notes.push(Note {
            kind,
            path: path.into(),
            message: message.into(),
        });
    }

    /// Notes what the import leaves out of the manifest, and why.
    fn left_out(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.note(NoteKind::LeftOut, path, message);
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
}

/// What the manifest's checks accept as a standard emoji: not ASCII (`:smile:` and custom
/// emoji written as `<:name:id>` are refused).
fn is_emoji_text(s: &str) -> bool {
    !s.is_empty() && !s.is_ascii() && !s.starts_with('<')
}
