//! `soundboard:`, the guild's soundboard sounds: below the planner (`planner::sounds`).

use serde_json::{Value, json};

use super::{ExportedFiles, Names, PlanTurn, Section, SectionId, write_declared};
use crate::discord::cdn::sound_path;
use crate::discord::models::User;
use crate::manifest::{Manifest, Snowflake, SoundboardSound};
use crate::snapshot::Snapshot;

pub(super) struct Sounds;

impl Section for Sounds {
    fn id(&self) -> SectionId {
        SectionId::Soundboard
    }

    fn plan_turn(&self) -> PlanTurn {
        PlanTurn::Last
    }

    fn key(&self) -> &'static str {
        "soundboard"
    }

    fn export(&self, snap: &Snapshot, files: &ExportedFiles, _: &Names, out: &mut Manifest) {
        let Some(live) = snap.expressions.sounds.as_ref() else {
            return;
        };
        let list: Vec<SoundboardSound> = live
            .iter()
            .filter_map(|s| {
                let sound = files.get(&sound_path(&s.sound_id))?.clone();
                Some(SoundboardSound {
                    id: Some(Snowflake(s.sound_id.clone())),
                    name: s.name.clone(),
                    previous_names: Vec::new(),
                    sound,
                    volume: Some(s.volume),
                    emoji: s.emoji_id.clone().or_else(|| s.emoji_name.clone()),
                })
            })
            .collect();
        out.soundboard = (!list.is_empty()).then_some(list);
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        write_declared(
            out,
            "Soundboard sounds, their files written beside the manifest.",
            self.key(),
            &m.soundboard,
        )
    }

    fn copy_key(&self) -> &'static str {
        "soundboard_sounds"
    }

    fn copy(&self, snap: &Snapshot, creator: &mut dyn FnMut(&User)) -> Vec<Value> {
        snap.expressions
            .sounds
            .iter()
            .flatten()
            .map(|s| {
                if let Some(u) = &s.user {
                    creator(u);
                }
                json!({
                    "sound_id": s.sound_id, "name": s.name, "volume": s.volume,
                    "emoji_id": s.emoji_id, "emoji_name": s.emoji_name,
                    "user_id": s.user.as_ref().map(|u| &u.id),
                })
            })
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        snap.expressions
            .sounds
            .iter()
            .flatten()
            .map(|s| s.sound_id.as_str())
            .collect()
    }

    fn files(&self, snap: &Snapshot) -> Vec<String> {
        snap.sound_paths()
    }
}
