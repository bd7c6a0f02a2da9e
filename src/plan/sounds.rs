//! Soundboard sounds: create, rename, change volume or emoji, replace the file, prune. As for
//! emoji ([`super::emojis`]), Discord cannot replace a sound's file (Modify Guild Soundboard
//! Sound takes `name`, `volume` and the emoji), so a changed file is a deletion and a
//! creation, said in the plan and counted by the deletion gate.

use hashbrown::HashSet;

use serde_json::{Value, json};

use super::context::{ChangeBuilder, Ctx, IdRef, Op, Phase, change};
use super::emojis::{Wanted, match_live};
use super::field;
use super::images::{ImageFile, declared_file};
use super::{Action, Kind, ObjectRef};
use crate::discord::Route;
use crate::discord::limits::SOUND_SLOTS;
use crate::discord::models::SoundboardSound as LiveSound;
use crate::manifest::SoundboardSound;

fn sound_ref(s: &LiveSound) -> ObjectRef {
    ObjectRef {
        kind: Kind::Sound,
        name: s.name.clone(),
        id: Some(s.sound_id.clone()),
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

pub(super) fn plan_sounds(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.soundboard.as_deref() else {
        return;
    };
    let Some(live) = snap.expressions.sounds.as_deref() else {
        cx.problem(
            Some("soundboard".into()),
            "the bot cannot list this guild's soundboard sounds".into(),
            Some("grant the bot's role `create_guild_expressions`, or leave `soundboard` out"),
        );
        return;
    };
    let wanted: Vec<Wanted<'_>> = declared
        .iter()
        .map(|d| Wanted {
            id: d.id.as_ref().map(|i| i.0.as_str()),
            name: &d.name,
            previous_names: &d.previous_names,
        })
        .collect();
    let keys: Vec<(&str, &str)> = live
        .iter()
        .map(|s| (s.sound_id.as_str(), s.name.as_str()))
        .collect();
    let matches: Vec<Option<&LiveSound>> = match_live(cx, "soundboard", "sound", &wanted, &keys)
        .into_iter()
        .map(|k| k.map(|k| &live[k]))
        .collect();
    let mut created: Vec<String> = Vec::new();
    let mut deleted: HashSet<&str> = HashSet::new();
    for (i, d) in declared.iter().enumerate() {
        let source = format!("soundboard[{i}]");
        let Some(file) = declared_file(cx, &format!("{source}.sound"), &d.sound) else {
            continue;
        };
        match matches[i] {
            Some(l) if cx.snap.sound_digest(l) == Some(file.digest.as_str()) => {
                plan_update(cx, d, l, source);
            }
            Some(l) => {
                replace(cx, d, l, &file, &source);
                deleted.insert(&l.sound_id);
                created.push(source.clone());
                plan_create(cx, d, &file, source);
            }
            None => {
                created.push(source.clone());
                plan_create(cx, d, &file, source);
            }
        }
    }
    let matched: HashSet<&str> = matches
        .iter()
        .flatten()
        .map(|s| s.sound_id.as_str())
        .collect();
    for s in live {
        if matched.contains(s.sound_id.as_str()) {
            continue;
        }
        if cx.manifest.prune.soundboard {
            let idx = cx.push_change(change(
                Action::Delete,
                Kind::Sound,
                s.name.clone(),
                Some(s.sound_id.clone()),
                vec![],
                Some("prune.soundboard".into()),
            ));
            let route = delete_route(cx, s);
            cx.push_op(Op::new(
                Phase::SoundDelete,
                idx,
                route,
                format!("delete sound {}", s.name),
            ));
            deleted.insert(&s.sound_id);
        } else {
            cx.unmanaged.push(sound_ref(s));
        }
    }
    check_slots(cx, live.len() - deleted.len(), &created);
}

fn delete_route(cx: &Ctx, s: &LiveSound) -> Route<IdRef> {
    Route::DeleteSound {
        guild: cx.guild(),
        sound: IdRef::Live(s.sound_id.clone()),
    }
}

fn plan_update(cx: &mut Ctx, d: &SoundboardSound, live: &LiveSound, source: String) {
    let mut b = ChangeBuilder::new();
    if live.name != d.name {
        b.set(
            field::Sound::Name,
            json!(live.name),
            json!(d.name),
            json!(d.name),
        );
    }
    if let Some(v) = d.volume
        && (v - live.volume).abs() > 1e-9
    {
        b.set(field::Sound::Volume, json!(live.volume), json!(v), json!(v));
    }
    if let Some(e) = &d.emoji
        && live_emoji(live).as_deref() != Some(e.as_str())
    {
        set_emoji(&mut b, live_emoji(live), e);
    }
    if b.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        Kind::Sound,
        d.name.clone(),
        Some(live.sound_id.clone()),
        b.fields,
        Some(source),
    ));
    let route = Route::UpdateSound {
        guild: cx.guild(),
        sound: IdRef::Live(live.sound_id.clone()),
    };
    let summary = format!("update sound {}", d.name);
    cx.push_op(Op::new(Phase::SoundWrite, idx, route, summary).body(Value::Object(b.body)));
}

/// The deletion half of a new file.
fn replace(cx: &mut Ctx, d: &SoundboardSound, live: &LiveSound, file: &ImageFile, source: &str) {
    let before = match cx.snap.sound_digest(live) {
        Some(digest) => json!(format!(
            "(sound sha256 {}…)",
            &digest[..12.min(digest.len())]
        )),
        None => json!("(sound the CDN did not give)"),
    };
    let mut b = ChangeBuilder::new();
    b.show(field::Sound::Sound, before, file.value(&d.sound));
    let idx = cx.push_change(change(
        Action::Delete,
        Kind::Sound,
        live.name.clone(),
        Some(live.sound_id.clone()),
        b.fields,
        Some(format!("{source}.sound")),
    ));
    cx.warn(
        Some(format!("{source}.sound")),
        format!(
            "sound `{}` (id {}) is deleted and created again with the new file: Discord cannot replace a sound's file",
            live.name, live.sound_id
        ),
    );
    let route = delete_route(cx, live);
    cx.push_op(Op::new(
        Phase::SoundDelete,
        idx,
        route,
        format!("delete sound {} (its file changes)", live.name),
    ));
}

fn plan_create(cx: &mut Ctx, d: &SoundboardSound, file: &ImageFile, source: String) {
    let mut b = ChangeBuilder::new();
    b.set(
        field::Sound::Name,
        Value::Null,
        json!(d.name),
        json!(d.name),
    );
    b.set(
        field::Sound::Sound,
        Value::Null,
        file.value(&d.sound),
        file.upload(&d.sound),
    );
    if let Some(v) = d.volume {
        b.set(field::Sound::Volume, Value::Null, json!(v), json!(v));
    }
    if let Some(e) = &d.emoji {
        set_emoji(&mut b, None, e);
    }
    let idx = cx.push_change(change(
        Action::Create,
        Kind::Sound,
        d.name.clone(),
        None,
        b.fields,
        Some(source),
    ));
    let route = Route::CreateSound { guild: cx.guild() };
    let summary = format!("create sound {}", d.name);
    cx.push_op(
        Op::new(Phase::SoundWrite, idx, route, summary)
            .body(Value::Object(b.body))
            .creates(format!("sound:{}", d.name)),
    );
}

/// Discord's soundboard slots by boost tier (8/24/36/48): the first creation past the limit
/// is refused at its line (30045). MORE_SOUNDBOARD raises it by a number Discord does not
/// document: not checked there.
fn check_slots(cx: &mut Ctx, kept: usize, created: &[String]) {
    let g = &cx.snap.guild;
    if g.has_feature("MORE_SOUNDBOARD") {
        return;
    }
    let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
    let limit = SOUND_SLOTS[tier];
    if let Some((k, source)) = created
        .iter()
        .enumerate()
        .find(|(k, _)| kept + k + 1 > limit)
    {
        let message = format!(
            "this would be sound number {} of a guild at boost tier {tier}, which has {limit} soundboard slots (Discord refuses it: 30045)",
            kept + k + 1
        );
        cx.problem(
            Some(source.clone()),
            message,
            Some("remove sounds (or let `prune.soundboard` delete unlisted ones), or boost the guild to a higher tier"),
        );
    }
}
