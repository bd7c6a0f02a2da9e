//! `guildctl access` as text (a channel tree that fits a terminal), markdown (a table for a
//! pull request or a wiki) and JSON. Names come from the guild and the manifest: each is
//! shown through [`inert`].

use std::fmt::Write;

use crate::access::view::{
    Matrix, MatrixRow, Place, Preview, PreviewRow, RoleHolders, Shape, View,
};
use crate::inert;

use super::Format;

/// The access view as a channel tree (text), a table (markdown) or JSON.
pub fn render(v: &View, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = inert::json_pretty(v);
            s.push('\n');
            s
        }
        Format::Text => text(v),
        Format::Markdown => markdown(v),
    }
}

fn state(v: &View) -> &'static str {
    if v.state == "live" {
        "today"
    } else {
        "once the plan is applied"
    }
}

/// Channels by their own name, nested under their category: the last part of the path.
fn own_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, n)| n)
}

fn list(names: &[String], shown: fn(&str) -> String) -> String {
    if names.is_empty() {
        "—".to_owned()
    } else {
        names
            .iter()
            .map(|n| shown(n))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn term(s: &str) -> String {
    inert::terminal(s).into_owned()
}

fn md(s: &str) -> String {
    inert::markdown(s)
}

/// The permissions every channel of a group has in common, and what a channel has beyond
/// or without them: a preview reads as "as everywhere" where nothing differs.
struct Common {
    text: Vec<String>,
    voice: Vec<String>,
}

impl Common {
    fn of(rows: &[PreviewRow]) -> Common {
        let meet = |voice: bool| -> Vec<String> {
            let mut group = rows
                .iter()
                .filter(|r| r.place.kind != "category" && is_voice(r.place.kind) == voice);
            let Some(first) = group.next() else {
                return Vec::new();
            };
            let mut common = first.permissions.clone();
            for r in group {
                common.retain(|p| r.permissions.contains(p));
            }
            common
        };
        Common {
            text: meet(false),
            voice: meet(true),
        }
    }

    /// The groups with something in common, by name (`text`, `voice`).
    fn groups(&self) -> impl Iterator<Item = (&'static str, &[String])> {
        [
            ("text", self.text.as_slice()),
            ("voice", self.voice.as_slice()),
        ]
        .into_iter()
        .filter(|(_, perms)| !perms.is_empty())
    }

    /// "as everywhere", or "+x, −y" against the row's group.
    fn differs(&self, r: &PreviewRow) -> String {
        let common = if is_voice(r.place.kind) {
            &self.voice
        } else {
            &self.text
        };
        let more: Vec<&str> = r
            .permissions
            .iter()
            .filter(|p| !common.contains(p))
            .map(String::as_str)
            .collect();
        let less: Vec<&str> = common
            .iter()
            .filter(|p| !r.permissions.contains(p))
            .map(String::as_str)
            .collect();
        match (more.is_empty(), less.is_empty()) {
            (true, true) => "as everywhere".to_owned(),
            (false, true) => format!("also {}", more.join(", ")),
            (true, false) => format!("not {}", less.join(", ")),
            (false, false) => format!("also {}; not {}", more.join(", "), less.join(", ")),
        }
    }
}

fn is_voice(kind: &str) -> bool {
    matches!(kind, "voice" | "stage")
}

fn text(v: &View) -> String {
    let mut out = String::new();
    match &v.shape {
        Shape::Matrix(m) => {
            let _ = writeln!(
                out,
                "Access in {} ({}) {}: who can view, send (join, for voice) and manage",
                term(&v.guild_name),
                term(&v.guild_id),
                state(v)
            );
            admins(&mut out, v, term);
            out.push('\n');
            matrix_text(&mut out, m);
        }
        Shape::Preview(p) => {
            let among = p
                .among
                .as_deref()
                .map(|c| format!(" that --channel {} names", term(c)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "Access as {} in {} ({}) {}: sees {} of {} channels{among}",
                term(&p.who),
                term(&v.guild_name),
                term(&v.guild_id),
                state(v),
                p.channels
                    .iter()
                    .filter(|r| r.place.kind != "category")
                    .count(),
                p.total_channels,
            );
            preview_text(&mut out, p);
        }
        Shape::NewMember(n) => out = super::new_member::text(v, n),
    }
    out
}

fn admins(out: &mut String, v: &View, shown: fn(&str) -> String) {
    if !v.administrators.is_empty() {
        let _ = writeln!(
            out,
            "Administrators see and do everything, and are not listed below: {}",
            list(&v.administrators, shown)
        );
    }
}

/// The channel column of a tree: each channel's own name, indented under its category,
/// and the width they are padded to.
fn tree_column<'a>(rows: impl Iterator<Item = &'a Place>) -> (Vec<String>, usize) {
    let names: Vec<String> = rows
        .map(|p| {
            let indent = if p.in_category { "  " } else { "" };
            format!("{indent}{}", term(own_name(&p.channel)))
        })
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max();
    (names, width.unwrap_or(0).clamp(8, 32))
}

fn matrix_text(out: &mut String, m: &Matrix) {
    let (names, w) = tree_column(m.channels.iter().map(|r| &r.place));
    for (r, name) in m.channels.iter().zip(names) {
        let _ = writeln!(
            out,
            "{name:<w$}  view {} | send {} | manage {}",
            list(&r.view, term),
            list(&r.send, term),
            list(&r.manage, term),
        );
        detail_text(out, r);
    }
}

fn detail_text(out: &mut String, r: &MatrixRow) {
    for p in &r.permissions {
        let _ = writeln!(out, "      {}: {}", term(&p.role), p.permissions.join(", "));
        if let Some(h) = &p.holders {
            let _ = writeln!(out, "        {}", held_by(h, term));
        }
    }
}

/// "held by alice (1), bob (2)", "held by 40 members, 2 of them named: …", or "held by
/// nobody": the people first, as "who can see #mod-log" asks.
fn held_by(h: &RoleHolders, shown: fn(&str) -> String) -> String {
    let names = h
        .named
        .iter()
        .map(|n| shown(n))
        .collect::<Vec<_>>()
        .join(", ");
    let named = h.named.len() as u64;
    match h.count {
        Some(0) => "held by nobody".to_owned(),
        Some(n) if n == named => format!("held by {names}"),
        Some(n) if named == 0 => format!(
            "held by {n} member{} (none named: a roster or --people names them)",
            if n == 1 { "" } else { "s" }
        ),
        Some(n) => format!("held by {n} members, {named} of them named: {names}"),
        None if named == 0 => "holders not read".to_owned(),
        None => format!("held by {names}, and perhaps others"),
    }
}

fn preview_text(out: &mut String, p: &Preview) {
    if p.administrator {
        let _ = writeln!(out, "An administrator: every permission in every channel.");
    }
    if !p.guild_wide.is_empty() {
        let _ = writeln!(out, "Guild-wide: {}", p.guild_wide.join(", "));
    }
    let common = Common::of(&p.channels);
    for (group, perms) in common.groups() {
        let _ = writeln!(out, "Everywhere they see ({group}): {}", perms.join(", "));
    }
    out.push('\n');
    let (names, w) = tree_column(p.channels.iter().map(|r| &r.place));
    for (r, name) in p.channels.iter().zip(names) {
        if r.place.kind == "category" {
            let _ = writeln!(out, "{name}");
        } else {
            let _ = writeln!(out, "{name:<w$}  {}", common.differs(r));
        }
    }
}

fn markdown(v: &View) -> String {
    let mut out = String::new();
    match &v.shape {
        Shape::Matrix(m) => {
            let _ = writeln!(
                out,
                "### Access in **{}** ({}) {}\n",
                md(&v.guild_name),
                inert::markdown_code(&v.guild_id),
                state(v)
            );
            admins(&mut out, v, md);
            out.push('\n');
            let _ = writeln!(
                out,
                "| Channel | View | Send (join, for voice) | Manage |\n|---|---|---|---|"
            );
            for r in &m.channels {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    md(&r.place.channel),
                    list(&r.view, md),
                    list(&r.send, md),
                    list(&r.manage, md)
                );
            }
            let detailed: Vec<&MatrixRow> = m
                .channels
                .iter()
                .filter(|r| !r.permissions.is_empty())
                .collect();
            for r in detailed {
                let _ = writeln!(out, "\n**{}**\n", md(&r.place.channel));
                for p in &r.permissions {
                    let held = p
                        .holders
                        .as_ref()
                        .map(|h| format!(" ({})", held_by(h, md)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "- {}{held}: {}",
                        md(&p.role),
                        md(&p.permissions.join(", "))
                    );
                }
            }
        }
        Shape::Preview(p) => {
            let _ = writeln!(
                out,
                "### Access as **{}** in **{}** ({}) {}\n",
                md(&p.who),
                md(&v.guild_name),
                inert::markdown_code(&v.guild_id),
                state(v)
            );
            if p.administrator {
                let _ = writeln!(
                    out,
                    "An administrator: every permission in every channel.\n"
                );
            }
            if !p.guild_wide.is_empty() {
                let _ = writeln!(out, "Guild-wide: {}\n", md(&p.guild_wide.join(", ")));
            }
            let common = Common::of(&p.channels);
            for (group, perms) in common.groups() {
                let _ = writeln!(
                    out,
                    "Everywhere they see ({group}): {}\n",
                    md(&perms.join(", "))
                );
            }
            let _ = writeln!(out, "| Channel | Can |\n|---|---|");
            for r in p.channels.iter().filter(|r| r.place.kind != "category") {
                let _ = writeln!(
                    out,
                    "| {} | {} |",
                    md(&r.place.channel),
                    md(&common.differs(r))
                );
            }
        }
        Shape::NewMember(n) => out = super::new_member::markdown(v, n),
    }
    out
}
