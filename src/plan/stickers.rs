//! Guild stickers: create, rename, change tags or description, replace the file, prune. As for
//! emoji ([`super::emojis`]), Discord cannot replace a sticker's file (Modify Guild Sticker
//! takes `name`, `description` and `tags`), so a changed file is a deletion and a creation,
//! said in the plan and counted by the deletion gate. Create Guild Sticker is the one upload
//! Discord takes as multipart/form-data: the body holds the file's placeholder under `file`,
//! and apply sends it as the form's file part ([`crate::discord::Route::takes_form`]).

use hashbrown::HashSet;

use serde_json::{Value, json};

use super::context::{ChangeBuilder, Ctx, IdRef, Op, Phase, change};
use super::emojis::{Wanted, match_live};
use super::field;
use super::images::{ImageFile, declared_file};
use super::{Action, Kind, ObjectRef};
use crate::discord::Route;
use crate::discord::limits::STICKER_SLOTS;
use crate::discord::models::GuildSticker as LiveSticker;
use crate::manifest::{GuildSticker, LOTTIE};

fn sticker_ref(s: &LiveSticker) -> ObjectRef {
    ObjectRef {
        kind: Kind::Sticker,
        name: s.name.clone(),
        id: Some(s.id.clone()),
    }
}

/// A description as compared: Discord may keep an empty one as null.
fn description_of(d: Option<&str>) -> &str {
    d.unwrap_or_default()
}

pub(super) fn plan_stickers(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.stickers.as_deref() else {
        return;
    };
    let Some(live) = snap.expressions.stickers.as_deref() else {
        cx.problem(
            Some("stickers".into()),
            "the bot cannot list this guild's stickers".into(),
            Some("grant the bot's role `create_guild_expressions`, or leave `stickers` out"),
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
        .map(|s| (s.id.as_str(), s.name.as_str()))
        .collect();
    let matches: Vec<Option<&LiveSticker>> = match_live(cx, "stickers", "sticker", &wanted, &keys)
        .into_iter()
        .map(|k| k.map(|k| &live[k]))
        .collect();
    let mut created: Vec<String> = Vec::new();
    let mut deleted: HashSet<&str> = HashSet::new();
    for (i, d) in declared.iter().enumerate() {
        let source = format!("stickers[{i}]");
        let Some(file) = declared_file(cx, &format!("{source}.image"), &d.image) else {
            continue;
        };
        if !lottie_allowed(cx, &file, &source) {
            continue;
        }
        match matches[i] {
            Some(l) if cx.snap.sticker_digest(l) == Some(file.digest.as_str()) => {
                plan_update(cx, d, l, source);
            }
            Some(l) => {
                replace(cx, d, l, &file, &source);
                deleted.insert(&l.id);
                created.push(source.clone());
                plan_create(cx, d, &file, source);
            }
            None => {
                created.push(source.clone());
                plan_create(cx, d, &file, source);
            }
        }
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|s| s.id.as_str()).collect();
    for s in live {
        if matched.contains(s.id.as_str()) {
            continue;
        }
        if cx.manifest.prune.stickers {
            let idx = cx.push_change(change(
                Action::Delete,
                Kind::Sticker,
                s.name.clone(),
                Some(s.id.clone()),
                vec![],
                Some("prune.stickers".into()),
            ));
            let route = delete_route(cx, s);
            cx.push_op(Op::new(
                Phase::StickerDelete,
                idx,
                route,
                format!("delete sticker {}", s.name),
            ));
            deleted.insert(&s.id);
        } else {
            cx.unmanaged.push(sticker_ref(s));
        }
    }
    check_slots(cx, live.len() - deleted.len(), &created);
}

/// A Lottie sticker needs a verified or partnered guild (Create Guild Sticker); elsewhere
/// Discord refuses the file (50046), so the plan refuses it at the entry's `image`.
fn lottie_allowed(cx: &mut Ctx, file: &ImageFile, source: &str) -> bool {
    let g = &cx.snap.guild;
    if file.mime != LOTTIE || g.has_feature("VERIFIED") || g.has_feature("PARTNERED") {
        return true;
    }
    cx.problem(
        Some(format!("{source}.image")),
        "a Lottie sticker needs the guild feature VERIFIED or PARTNERED, which this guild does not have (Discord refuses the file: 50046)".into(),
        Some("use a PNG, APNG or GIF of at most 320x320 pixels"),
    );
    false
}

fn delete_route(cx: &Ctx, s: &LiveSticker) -> Route<IdRef> {
    Route::DeleteSticker {
        guild: cx.guild(),
        sticker: IdRef::Live(s.id.clone()),
    }
}

fn plan_update(cx: &mut Ctx, d: &GuildSticker, live: &LiveSticker, source: String) {
    let mut b = ChangeBuilder::new();
    if live.name != d.name {
        b.set(
            field::Sticker::Name,
            json!(live.name),
            json!(d.name),
            json!(d.name),
        );
    }
    if live.tags != d.tags {
        b.set(
            field::Sticker::Tags,
            json!(live.tags),
            json!(d.tags),
            json!(d.tags),
        );
    }
    if let Some(want) = &d.description
        && description_of(live.description.as_deref()) != want.as_str()
    {
        b.set(
            field::Sticker::Description,
            json!(live.description),
            json!(want),
            json!(want),
        );
    }
    if b.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        Kind::Sticker,
        d.name.clone(),
        Some(live.id.clone()),
        b.fields,
        Some(source),
    ));
    let route = Route::UpdateSticker {
        guild: cx.guild(),
        sticker: IdRef::Live(live.id.clone()),
    };
    let summary = format!("update sticker {}", d.name);
    cx.push_op(Op::new(Phase::StickerWrite, idx, route, summary).body(Value::Object(b.body)));
}

/// The deletion half of a new file.
fn replace(cx: &mut Ctx, d: &GuildSticker, live: &LiveSticker, file: &ImageFile, source: &str) {
    let before = match cx.snap.sticker_digest(live) {
        Some(digest) => json!(format!(
            "(sticker sha256 {}…)",
            &digest[..12.min(digest.len())]
        )),
        None => json!("(sticker the CDN did not give)"),
    };
    let mut b = ChangeBuilder::new();
    b.show(field::Sticker::Image, before, file.value(&d.image));
    let idx = cx.push_change(change(
        Action::Delete,
        Kind::Sticker,
        live.name.clone(),
        Some(live.id.clone()),
        b.fields,
        Some(format!("{source}.image")),
    ));
    cx.warn(
        Some(format!("{source}.image")),
        format!(
            "sticker `{}` (id {}) is deleted and created again with the new file: Discord cannot replace a sticker's file, so it gets a new id, and messages that sent the old one show it as deleted",
            live.name, live.id
        ),
    );
    let route = delete_route(cx, live);
    cx.push_op(Op::new(
        Phase::StickerDelete,
        idx,
        route,
        format!("delete sticker {} (its file changes)", live.name),
    ));
}

fn plan_create(cx: &mut Ctx, d: &GuildSticker, file: &ImageFile, source: String) {
    let mut b = ChangeBuilder::new();
    b.set(
        field::Sticker::Name,
        Value::Null,
        json!(d.name),
        json!(d.name),
    );
    b.set(
        field::Sticker::Image,
        Value::Null,
        file.value(&d.image),
        file.upload(&d.image),
    );
    b.set(
        field::Sticker::Tags,
        Value::Null,
        json!(d.tags),
        json!(d.tags),
    );
    if let Some(want) = d.description.as_ref().filter(|w| !w.is_empty()) {
        b.set(
            field::Sticker::Description,
            Value::Null,
            json!(want),
            json!(want),
        );
    }
    let idx = cx.push_change(change(
        Action::Create,
        Kind::Sticker,
        d.name.clone(),
        None,
        b.fields,
        Some(source),
    ));
    let route = Route::CreateSticker { guild: cx.guild() };
    let summary = format!("create sticker {}", d.name);
    cx.push_op(
        Op::new(Phase::StickerWrite, idx, route, summary)
            .body(Value::Object(b.body))
            .creates(format!("sticker:{}", d.name)),
    );
}

/// Discord's sticker slots by boost tier (5/15/30/60): the first creation past the limit is
/// refused at its line (30039). MORE_STICKERS raises it by a number Discord does not
/// document: not checked there.
fn check_slots(cx: &mut Ctx, kept: usize, created: &[String]) {
    let g = &cx.snap.guild;
    if g.has_feature("MORE_STICKERS") {
        return;
    }
    let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
    let limit = STICKER_SLOTS[tier];
    if let Some((k, source)) = created
        .iter()
        .enumerate()
        .find(|(k, _)| kept + k + 1 > limit)
    {
        let message = format!(
            "this would be sticker number {} of a guild at boost tier {tier}, which has {limit} sticker slots (Discord refuses it: 30039)",
            kept + k + 1
        );
        cx.problem(
            Some(source.clone()),
            message,
            Some("remove stickers (or let `prune.stickers` delete unlisted ones), or boost the guild to a higher tier"),
        );
    }
}
