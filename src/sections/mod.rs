//! The manifest's sections as units, one module per section: its key, its planner (with the
//! kit of `crate::plan_kit`, the room below), its live objects as `export` writes them and
//! as the rehearsal's copy holds them, their files and their ids. The pipeline iterates
//! [`ALL`]: `export` builds and writes each section from it, the rehearsal copies each and
//! reads back its files, and `planner::diff` runs each one's planner in its turn.
//!
//! The expression-like sections are units so far; the others are still written out by each
//! room (docs/architecture.md, "Sections").
#![deny(clippy::wildcard_enum_match_arm)]

mod automod;
mod emojis;
mod events;
mod expressions;
mod names;
mod sounds;
mod stickers;

pub use events::exports_event;
pub use names::Names;

use std::fmt::Write;

use hashbrown::HashMap;
use serde::Serialize;
use serde_json::Value;

use crate::discord::models::User;
use crate::manifest::Manifest;
use crate::plan_kit::context::Ctx;
use crate::snapshot::Snapshot;

/// Which section, for the rooms above that dispatch on it with a match naming every one
/// (the planner of each lives in `plan`, which this room sits below).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionId {
    Emojis,
    Soundboard,
    Stickers,
    AutoMod,
    Events,
}

/// Where in the plan a section's planner runs: its changes keep the place they always had
/// among the other sections' (a plan lists its changes in the order they were planned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanTurn {
    /// After the webhooks, integrations and invites, before the rosters and bans.
    AfterDoors,
    /// Last, after the rosters and bans.
    Last,
}

/// The files `export` wrote for live objects, by CDN path: the name each got beside the
/// manifest.
pub type ExportedFiles = HashMap<String, String>;

/// What a section is called and where it runs.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// Which section.
    pub id: SectionId,
    /// Its key in the manifest (`emojis`).
    pub key: &'static str,
    /// The key of the rehearsal copy's guild its objects go under (`soundboard_sounds`).
    pub copy_key: &'static str,
    /// Where in the plan its planner runs.
    pub plan_turn: PlanTurn,
    /// The comment `export` writes above it.
    pub comment: &'static str,
    /// How `export` names its live objects' files, for a section that has files.
    pub files: Option<FileWords>,
}

/// How `export` names a section's files in its folder and its notes.
#[derive(Debug, Clone, Copy)]
pub struct FileWords {
    /// The folder beside the manifest they are written into (`stickers`).
    pub folder: &'static str,
    /// One, in a note on a file left out (`sticker`, `the cover of event`).
    pub one: &'static str,
    /// Counted, in the note on those written (`sticker(s)`).
    pub counted: &'static str,
    /// All of them, in the note of an export to standard output, which leaves them out
    /// (`the guild's stickers`).
    pub all: &'static str,
}

/// A live object's file as `export` writes it: under its object's name in the guild.
#[derive(Debug, Clone)]
pub struct LiveFile<'s> {
    /// Its CDN path, by which the manifest refers to it.
    pub at: String,
    /// Its object's name.
    pub name: &'s str,
    /// Its object's id, for a second object of the same name: `NAME-ID`.
    pub id: &'s str,
}

impl SectionId {
    /// What each section is called and where it runs: one table, a row a section.
    pub const fn about(self) -> About {
        match self {
            SectionId::Emojis => About {
                id: self,
                key: "emojis",
                copy_key: "emojis",
                plan_turn: PlanTurn::Last,
                comment: "Custom emojis, their images written beside the manifest (emojis an integration manages are not).",
                files: Some(FileWords {
                    folder: "emojis",
                    one: "emoji",
                    counted: "emoji image(s)",
                    all: "the guild's emojis",
                }),
            },
            SectionId::Soundboard => About {
                id: self,
                key: "soundboard",
                copy_key: "soundboard_sounds",
                plan_turn: PlanTurn::Last,
                comment: "Soundboard sounds, their files written beside the manifest.",
                files: Some(FileWords {
                    folder: "sounds",
                    one: "sound",
                    counted: "sound(s)",
                    all: "the guild's soundboard sounds",
                }),
            },
            SectionId::Stickers => About {
                id: self,
                key: "stickers",
                copy_key: "stickers",
                plan_turn: PlanTurn::Last,
                comment: "Stickers, their files written beside the manifest.",
                files: Some(FileWords {
                    folder: "stickers",
                    one: "sticker",
                    counted: "sticker(s)",
                    all: "the guild's stickers",
                }),
            },
            SectionId::AutoMod => About {
                id: self,
                key: "automod",
                copy_key: "auto_moderation_rules",
                plan_turn: PlanTurn::AfterDoors,
                comment: "AutoMod rules, pinned by id (Discord's own mention-spam rule among them in a community guild).",
                files: None,
            },
            SectionId::Events => About {
                id: self,
                key: "events",
                copy_key: "scheduled_events",
                plan_turn: PlanTurn::AfterDoors,
                comment: "Scheduled events not over yet, pinned by id, their cover images written beside the manifest.",
                files: Some(FileWords {
                    folder: "events",
                    one: "the cover of event",
                    counted: "event cover(s)",
                    all: "the events' cover images",
                }),
            },
        }
    }
}

impl About {
    /// The section declared as `value`, written with its comment; nothing when it is not
    /// declared.
    pub fn write<T: Serialize>(&self, out: &mut String, value: &Option<T>) -> Result<(), String> {
        match value {
            Some(_) => write_section(out, Some(self.comment), self.key, value),
            None => Ok(()),
        }
    }
}

/// One manifest section as a unit: what it is, its planner, and what the rooms around the
/// planner need of it.
pub trait Section: Sync {
    /// Which section it is.
    fn id(&self) -> SectionId;

    /// What it is called and where it runs.
    fn about(&self) -> About {
        self.id().about()
    }

    /// Its live objects as manifest entries, with their ids pinned, roles and channels by
    /// name, each file as the name `files` gives it (left out when not read).
    fn export(&self, snap: &Snapshot, files: &ExportedFiles, names: &Names, out: &mut Manifest);

    /// The section of `m` as `export` writes it, with its comment, when `m` declares it.
    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String>;

    /// Its live objects as the rehearsal's copy of the guild holds them, without their files
    /// (the copy's CDN answers 404 for them; the read-back takes their digests from the
    /// snapshot); each creator is given to `creator`, so the copy knows them as users.
    fn copy(&self, snap: &Snapshot, creator: &mut dyn FnMut(&User)) -> Vec<Value>;

    /// Its live objects' ids (the copy's new ids come after every one).
    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str>;

    /// The CDN path of each live object's file.
    fn files(&self, snap: &Snapshot) -> Vec<String>;

    /// The live files `export` writes beside the manifest (in [`About::files`]' folder),
    /// those of the objects it exports.
    fn export_files<'s>(&self, _snap: &'s Snapshot) -> Vec<LiveFile<'s>> {
        Vec::new()
    }

    /// Plans the section: the changes that make its live objects the manifest's, and the
    /// problems that refuse them, added to `cx` (in its turn, [`About::plan_turn`]).
    fn plan(&self, cx: &mut Ctx);
}

/// Every section that is a unit, in the order the export writes them (and the copy and,
/// within each [`PlanTurn`], the plan take them).
pub static ALL: &[&dyn Section] = &[
    &emojis::Emojis,
    &sounds::Sounds,
    &stickers::Stickers,
    &automod::AutoMod,
    &events::Events,
];

/// Writes `key: value` as YAML, with a comment above it (each line of `comment` becomes a
/// `# ` line; the caller keeps outside text in it to one line each).
pub fn write_section<T: Serialize>(
    out: &mut String,
    comment: Option<&str>,
    key: &str,
    value: &T,
) -> Result<(), String> {
    if let Some(c) = comment {
        out.push('\n');
        for line in c.lines() {
            let _ = writeln!(out, "# {line}");
        }
    }
    let one = std::collections::BTreeMap::from([(key, value)]);
    let options = serde_saphyr::ser_options! { compact_list_indent: false };
    let yaml = serde_saphyr::to_string_with_options(&one, options).map_err(|e| e.to_string())?;
    out.push_str(&yaml);
    Ok(())
}

/// Live objects with files as `export` writes them: each whose file was written, made by
/// `entry` with the file's name; `None` when none was.
fn exported<'s, T: 's, E>(
    live: impl IntoIterator<Item = &'s T>,
    files: &ExportedFiles,
    path: impl Fn(&T) -> String,
    entry: impl Fn(&T, String) -> E,
) -> Option<Vec<E>> {
    let list: Vec<E> = live
        .into_iter()
        .filter_map(|o| Some(entry(o, files.get(&path(o))?.clone())))
        .collect();
    (!list.is_empty()).then_some(list)
}

/// A live list as Discord lists it, for the rehearsal's copy.
fn as_listed<T: Serialize>(list: &Option<Vec<T>>) -> Vec<Value> {
    let listed = list.iter().flatten();
    listed
        .filter_map(|o| serde_json::to_value(o).ok())
        .collect()
}

/// The ids of a live list, when it was read.
fn ids_of<'s, T>(list: &'s Option<Vec<T>>, id: impl Fn(&'s T) -> &'s String) -> Vec<&'s str> {
    list.iter().flatten().map(|o| id(o).as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A match naming every section: a new one does not compile here until it is in [`ALL`].
    fn place(id: SectionId) -> usize {
        match id {
            SectionId::Emojis => 0,
            SectionId::Soundboard => 1,
            SectionId::Stickers => 2,
            SectionId::AutoMod => 3,
            SectionId::Events => 4,
        }
    }

    /// The loader knows each section by the one table of keys, as a list split across files
    /// and merged by name; and every key of that table is a field of the manifest.
    #[test]
    fn the_loaders_table_holds_every_section_and_only_manifest_keys() {
        let keys = crate::manifest::SECTION_KEYS;
        for s in ALL {
            let key = s.about().key;
            let row = keys.iter().find(|r| r.key == key);
            assert!(
                matches!(row, Some(r) if r.split && r.identity == Some("name") && r.placed),
                "{key}: {row:?}"
            );
        }
        let schema = serde_json::to_value(schemars::schema_for!(Manifest)).expect("a schema");
        for row in keys {
            assert!(schema["properties"].get(row.key).is_some(), "{}", row.key);
        }
    }

    #[test]
    fn every_section_is_registered_once_in_order() {
        for (i, s) in ALL.iter().enumerate() {
            assert_eq!(place(s.about().id), i, "{}", s.about().key);
        }
        assert_eq!(ALL.len(), place(SectionId::Events) + 1);
    }
}
