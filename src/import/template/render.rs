//! The manifest written as YAML by export's writer, under a header that names the template
//! and says, as comments, every note: what was renamed, changed, left out or needs a
//! feature.

use std::fmt::Write;

use super::json::{Id, Template};
use super::{Note, NoteKind, TemplateError};
use crate::export::{SETTINGS_NOTE, schema_modeline, section};
use crate::import::shown;
use crate::manifest::Manifest;

pub(super) fn render(t: &Template, m: &Manifest, notes: &[Note]) -> Result<String, TemplateError> {
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
    section(&mut out, Some(SETTINGS_NOTE), "settings", &m.settings)?;
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
