//! Soundboard sounds: create, rename, change volume or emoji, replace the file, prune. As for
//! emoji ([`super::emojis`]), Discord cannot replace a sound's file (Modify Guild Soundboard
//! Sound takes `name`, `volume` and the emoji), so a changed file is a deletion and a
//! creation, said in the plan and counted by the deletion gate.

use hashbrown::HashSet;
use serde_json::{Value, json};

use super::expressions::ExpressionSection;
use super::{ExportedFiles, Names, SectionId, exported};
use crate::discord::Route;
use crate::discord::limits::SOUND_SLOTS;
use crate::discord::models::SoundboardSound as LiveSound;
use crate::discord::models::User;
use crate::manifest::{Manifest, Snowflake, SoundboardSound};
use crate::plan::field::Field;
use crate::plan::image::ImageFile;
use crate::plan::{IdRef, Kind, Phase, field};
use crate::plan_kit::calls::Calls;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::expressions::{Expression, ExpressionPlan, Live, LiveExpression, Slots};
use crate::snapshot::Snapshot;
use crate::snapshot::expressions::Filed;

pub(super) struct Sounds;

crate::snapshot::matching::declared!(SoundboardSound);

impl ExpressionSection for Sounds {
    const ID: SectionId = SectionId::Soundboard;

    fn export_into(snap: &Snapshot, files: &ExportedFiles, _: &Names, out: &mut Manifest) {
        out.soundboard = exported(
            snap.expressions.sounds.iter().flatten(),
            files,
            |s| s.cdn_path(),
            |s, sound| SoundboardSound {
                id: Some(Snowflake(s.sound_id.clone())),
                name: s.name.clone(),
                previous_names: Vec::new(),
                sound,
                volume: Some(s.volume),
                emoji: s.emoji_id.clone().or_else(|| s.emoji_name.clone()),
            },
        );
    }

    fn copy_of(s: &LiveSound) -> (Option<&User>, Value) {
        let object = json!({
            "sound_id": s.sound_id, "name": s.name, "volume": s.volume,
            "emoji_id": s.emoji_id, "emoji_name": s.emoji_name,
            "user_id": s.user.as_ref().map(|u| &u.id),
        });
        (s.user.as_ref(), object)
    }
}

const SOUND: Expression = Expression {
    calls: Calls {
        kind: Kind::Sound,
        noun: "sound",
        key: "sound",
        write: Phase::SoundWrite,
        delete: Phase::SoundDelete,
    },
    section: "soundboard",
    file_label: "sound",
    file_word: "file",
};

/// Discord's soundboard slots by boost tier (8/24/36/48): the first creation past the limit
/// is refused at its line (30045).
const SLOTS: Slots = Slots {
    by_tier: SOUND_SLOTS,
    more_feature: "MORE_SOUNDBOARD",
    called: "soundboard slots",
    plural: "sounds",
    code: 30045,
};

impl LiveExpression for LiveSound {
    fn live(&self) -> Live<'_> {
        Live {
            name: &self.name,
            id: &self.sound_id,
        }
    }

    fn delete_route(&self, cx: &Ctx) -> Route<IdRef> {
        Route::DeleteSound {
            guild: cx.guild(),
            sound: IdRef::Live(self.sound_id.clone()),
        }
    }
}

/// The emoji as the API keeps it: `(emoji_id, emoji_name)`. A string of digits is a custom
/// emoji's id, anything else a standard emoji.
fn emoji_fields(emoji: &str) -> (Option<String>, Option<String>) {
    if !emoji.is_empty() && emoji.bytes().all(|b| b.is_ascii_digit()) {
        (Some(emoji.to_owned()), None)
    } else {
        (None, Some(emoji.to_owned()))
    }
}

/// The live sound's emoji as the manifest writes it.
fn live_emoji(s: &LiveSound) -> Option<String> {
    s.emoji_id.clone().or_else(|| s.emoji_name.clone())
}

/// Puts the emoji in `b`, both API fields in the body (one of them null).
fn set_emoji(b: &mut ChangeBuilder, before: Option<String>, emoji: &str) {
    let (id, name) = emoji_fields(emoji);
    b.set(
        field::Sound::Emoji,
        json!(before),
        json!(emoji),
        json!(name),
    );
    b.body.insert("emoji_id".into(), json!(id));
}

impl ExpressionPlan for Sounds {
    type Declared = SoundboardSound;
    type Live = LiveSound;
    type Extra = ();
    const EXPRESSION: Expression = SOUND;
    const UNREAD: (&'static str, &'static str) = (
        "soundboard sounds",
        "grant the bot's role `create_guild_expressions`, or leave `soundboard` out",
    );

    fn file_field() -> Field {
        field::Sound::Sound.into()
    }

    fn declared(m: &Manifest) -> Option<&[SoundboardSound]> {
        m.soundboard.as_deref()
    }

    fn live(snap: &Snapshot) -> Option<&[LiveSound]> {
        snap.expressions.sounds.as_deref()
    }

    fn file(d: &SoundboardSound) -> &str {
        &d.sound
    }

    fn prunable(m: &Manifest, _: &LiveSound) -> bool {
        m.prune.soundboard
    }

    fn replaced(live: &LiveSound) -> String {
        format!(
            "sound `{}` (id {}) is deleted and created again with the new file: Discord cannot replace a sound's file",
            live.name, live.sound_id
        )
    }

    fn update(cx: &mut Ctx, d: &SoundboardSound, live: &LiveSound, (): (), source: String) {
        let mut b = ChangeBuilder::new();
        if live.name != d.name {
            b.changed(field::Sound::Name, json!(live.name), json!(d.name));
        }
        if let Some(v) = d.volume
            && (v - live.volume).abs() > 1e-9
        {
            b.changed(field::Sound::Volume, json!(live.volume), json!(v));
        }
        if let Some(e) = &d.emoji
            && live_emoji(live).as_deref() != Some(e.as_str())
        {
            set_emoji(&mut b, live_emoji(live), e);
        }
        let route = Route::UpdateSound {
            guild: cx.guild(),
            sound: IdRef::Live(live.sound_id.clone()),
        };
        SOUND
            .calls
            .update(cx, &d.name, &live.sound_id, b, source, route);
    }

    fn create(cx: &mut Ctx, d: &SoundboardSound, file: &ImageFile, (): (), source: String) {
        let mut b = ChangeBuilder::new();
        b.created(field::Sound::Name, json!(d.name));
        b.set(
            field::Sound::Sound,
            Value::Null,
            file.value(&d.sound),
            file.upload(&d.sound),
        );
        if let Some(v) = d.volume {
            b.created(field::Sound::Volume, json!(v));
        }
        if let Some(e) = &d.emoji {
            set_emoji(&mut b, None, e);
        }
        let route = Route::CreateSound { guild: cx.guild() };
        SOUND.calls.create(cx, &d.name, b, source, route);
    }

    fn check_slots(
        cx: &mut Ctx,
        live: &[LiveSound],
        deleted: &HashSet<&str>,
        created: &[(bool, String)],
    ) {
        SOUND.check_slots(cx, &SLOTS, live.len() - deleted.len(), created);
    }
}
