//! `emojis:`, the guild's custom emoji: below the planner (`planner::emojis`).

use serde_json::{Value, json};

use super::{ExportedFiles, Names, PlanTurn, Section, SectionId, write_declared};
use crate::discord::cdn::emoji_path;
use crate::discord::models::User;
use crate::manifest::{GuildEmoji, Manifest, Snowflake};
use crate::snapshot::Snapshot;

pub(super) struct Emojis;

impl Section for Emojis {
    fn id(&self) -> SectionId {
        SectionId::Emojis
    }

    fn plan_turn(&self) -> PlanTurn {
        PlanTurn::Last
    }

    fn key(&self) -> &'static str {
        "emojis"
    }

    /// Managed emoji (an integration's) are not guildctl's to write.
    fn export(&self, snap: &Snapshot, files: &ExportedFiles, names: &Names, out: &mut Manifest) {
        let Some(live) = snap.expressions.emojis.as_ref() else {
            return;
        };
        let list: Vec<GuildEmoji> = live
            .iter()
            .filter(|e| !e.managed)
            .filter_map(|e| {
                let image = files.get(&emoji_path(&e.id, e.animated))?.clone();
                Some(GuildEmoji {
                    id: Some(Snowflake(e.id.clone())),
                    name: e.name.clone().unwrap_or_default(),
                    previous_names: Vec::new(),
                    image,
                    roles: (!e.roles.is_empty())
                        .then(|| e.roles.iter().filter_map(|r| names.role(r)).collect()),
                })
            })
            .collect();
        out.emojis = (!list.is_empty()).then_some(list);
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        write_declared(
            out,
            "Custom emojis, their images written beside the manifest (emojis an integration manages are not).",
            self.key(),
            &m.emojis,
        )
    }

    fn copy_key(&self) -> &'static str {
        "emojis"
    }

    /// Each creator is a user of the copy, so it can tell the bot's own emoji from others'.
    fn copy(&self, snap: &Snapshot, creator: &mut dyn FnMut(&User)) -> Vec<Value> {
        snap.expressions
            .emojis
            .iter()
            .flatten()
            .map(|e| {
                if let Some(u) = &e.user {
                    creator(u);
                }
                json!({
                    "id": e.id, "name": e.name.clone().unwrap_or_default(), "roles": e.roles,
                    "user_id": e.user.as_ref().map(|u| &u.id), "managed": e.managed,
                    "animated": e.animated,
                })
            })
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        snap.expressions
            .emojis
            .iter()
            .flatten()
            .map(|e| e.id.as_str())
            .collect()
    }

    fn files(&self, snap: &Snapshot) -> Vec<String> {
        snap.emoji_paths()
    }
}
