//! `stickers:`, the guild's stickers: below the planner (`planner::stickers`).

use serde_json::{Value, json};

use super::{ExportedFiles, Names, PlanTurn, Section, SectionId, write_declared};
use crate::discord::cdn::sticker_path;
use crate::discord::models::User;
use crate::manifest::{GuildSticker, Manifest, Snowflake};
use crate::snapshot::Snapshot;

pub(super) struct Stickers;

impl Section for Stickers {
    fn id(&self) -> SectionId {
        SectionId::Stickers
    }

    fn plan_turn(&self) -> PlanTurn {
        PlanTurn::Last
    }

    fn key(&self) -> &'static str {
        "stickers"
    }

    fn export(&self, snap: &Snapshot, files: &ExportedFiles, _: &Names, out: &mut Manifest) {
        let Some(live) = snap.expressions.stickers.as_ref() else {
            return;
        };
        let list: Vec<GuildSticker> = live
            .iter()
            .filter_map(|s| {
                let image = files.get(&sticker_path(&s.id, s.format_type))?.clone();
                Some(GuildSticker {
                    id: Some(Snowflake(s.id.clone())),
                    name: s.name.clone(),
                    previous_names: Vec::new(),
                    image,
                    tags: s.tags.clone(),
                    description: s.description.clone().filter(|d| !d.is_empty()),
                })
            })
            .collect();
        out.stickers = (!list.is_empty()).then_some(list);
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        write_declared(
            out,
            "Stickers, their files written beside the manifest.",
            self.key(),
            &m.stickers,
        )
    }

    fn copy_key(&self) -> &'static str {
        "stickers"
    }

    /// As Discord lists them, without their files, as the emoji are.
    fn copy(&self, snap: &Snapshot, creator: &mut dyn FnMut(&User)) -> Vec<Value> {
        snap.expressions
            .stickers
            .iter()
            .flatten()
            .map(|s| {
                if let Some(u) = &s.user {
                    creator(u);
                }
                json!({
                    "id": s.id, "name": s.name, "description": s.description, "tags": s.tags,
                    "format_type": s.format_type, "user_id": s.user.as_ref().map(|u| &u.id),
                })
            })
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        snap.expressions
            .stickers
            .iter()
            .flatten()
            .map(|s| s.id.as_str())
            .collect()
    }

    fn files(&self, snap: &Snapshot) -> Vec<String> {
        snap.sticker_paths()
    }
}
