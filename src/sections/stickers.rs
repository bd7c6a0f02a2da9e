//! Guild stickers: create, rename, change tags or description, replace the file, prune. As for
//! emoji ([`super::emojis`]), Discord cannot replace a sticker's file (Modify Guild Sticker
//! takes `name`, `description` and `tags`), so a changed file is a deletion and a creation,
//! said in the plan and counted by the deletion gate. Create Guild Sticker is the one upload
//! Discord takes as multipart/form-data: the body holds the file's placeholder under `file`,
//! and apply sends it as the form's file part ([`crate::discord::Route::takes_form`]).

use hashbrown::HashSet;
use serde_json::{Value, json};

use super::expressions::ExpressionSection;
use super::{ExportedFiles, Names, SectionId, exported};
use crate::discord::Route;
use crate::discord::limits::STICKER_SLOTS;
use crate::discord::models::GuildSticker as LiveSticker;
use crate::discord::models::User;
use crate::manifest::{GuildSticker, LOTTIE, Manifest, Snowflake};
use crate::plan::field::Field;
use crate::plan::image::ImageFile;
use crate::plan::{IdRef, Kind, Phase, field};
use crate::plan_kit::calls::Calls;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::expressions::{Expression, ExpressionPlan, Live, LiveExpression, Slots};
use crate::snapshot::Snapshot;
use crate::snapshot::expressions::Filed;

pub(super) struct Stickers;

crate::snapshot::matching::declared!(GuildSticker);

impl ExpressionSection for Stickers {
    const ID: SectionId = SectionId::Stickers;

    fn export_into(snap: &Snapshot, files: &ExportedFiles, _: &Names, out: &mut Manifest) {
        out.stickers = exported(
            snap.expressions.stickers.iter().flatten(),
            files,
            |s| s.cdn_path(),
            |s, image| GuildSticker {
                id: Some(Snowflake(s.id.clone())),
                name: s.name.clone(),
                previous_names: Vec::new(),
                image,
                tags: s.tags.clone(),
                description: s.description.clone().filter(|d| !d.is_empty()),
            },
        );
    }

    /// As Discord lists them, without their files, as the emoji are.
    fn copy_of(s: &LiveSticker) -> (Option<&User>, Value) {
        let object = json!({
            "id": s.id, "name": s.name, "description": s.description, "tags": s.tags,
            "format_type": s.format_type, "user_id": s.user.as_ref().map(|u| &u.id),
        });
        (s.user.as_ref(), object)
    }
}

const STICKER: Expression = Expression {
    calls: Calls {
        kind: Kind::Sticker,
        noun: "sticker",
        key: "sticker",
        write: Phase::StickerWrite,
        delete: Phase::StickerDelete,
    },
    section: "stickers",
    file_label: "sticker",
    file_word: "file",
};

/// Discord's sticker slots by boost tier (5/15/30/60): the first creation past the limit is
/// refused at its line (30039).
const SLOTS: Slots = Slots {
    by_tier: STICKER_SLOTS,
    more_feature: "MORE_STICKERS",
    called: "sticker slots",
    plural: "stickers",
    code: 30039,
};

impl LiveExpression for LiveSticker {
    fn live(&self) -> Live<'_> {
        Live {
            name: &self.name,
            id: &self.id,
        }
    }

    fn delete_route(&self, cx: &Ctx) -> Route<IdRef> {
        Route::DeleteSticker {
            guild: cx.guild(),
            sticker: IdRef::Live(self.id.clone()),
        }
    }
}

/// A description as compared: Discord may keep an empty one as null.
fn description_of(d: Option<&str>) -> &str {
    d.unwrap_or_default()
}

impl ExpressionPlan for Stickers {
    type Declared = GuildSticker;
    type Live = LiveSticker;
    type Extra = ();
    const EXPRESSION: Expression = STICKER;
    const UNREAD: (&'static str, &'static str) = (
        "stickers",
        "grant the bot's role `create_guild_expressions`, or leave `stickers` out",
    );

    fn file_field() -> Field {
        field::Sticker::Image.into()
    }

    fn declared(m: &Manifest) -> Option<&[GuildSticker]> {
        m.stickers.as_deref()
    }

    fn live(snap: &Snapshot) -> Option<&[LiveSticker]> {
        snap.expressions.stickers.as_deref()
    }

    fn file(d: &GuildSticker) -> &str {
        &d.image
    }

    fn prunable(m: &Manifest, _: &LiveSticker) -> bool {
        m.prune.stickers
    }

    fn usable(cx: &mut Ctx, file: &ImageFile, source: &str) -> bool {
        lottie_allowed(cx, file, source)
    }

    fn replaced(live: &LiveSticker) -> String {
        format!(
            "sticker `{}` (id {}) is deleted and created again with the new file: Discord cannot replace a sticker's file, so it gets a new id, and messages that sent the old one show it as deleted",
            live.name, live.id
        )
    }

    fn update(cx: &mut Ctx, d: &GuildSticker, live: &LiveSticker, (): (), source: String) {
        let mut b = ChangeBuilder::new();
        if live.name != d.name {
            b.changed(field::Sticker::Name, json!(live.name), json!(d.name));
        }
        if live.tags != d.tags {
            b.changed(field::Sticker::Tags, json!(live.tags), json!(d.tags));
        }
        if let Some(want) = &d.description
            && description_of(live.description.as_deref()) != want.as_str()
        {
            b.changed(
                field::Sticker::Description,
                json!(live.description),
                json!(want),
            );
        }
        let route = Route::UpdateSticker {
            guild: cx.guild(),
            sticker: IdRef::Live(live.id.clone()),
        };
        STICKER
            .calls
            .update(cx, &d.name, &live.id, b, source, route);
    }

    fn create(cx: &mut Ctx, d: &GuildSticker, file: &ImageFile, (): (), source: String) {
        let mut b = ChangeBuilder::new();
        b.created(field::Sticker::Name, json!(d.name));
        b.set(
            field::Sticker::Image,
            Value::Null,
            file.value(&d.image),
            file.upload(&d.image),
        );
        b.created(field::Sticker::Tags, json!(d.tags));
        if let Some(want) = d.description.as_ref().filter(|w| !w.is_empty()) {
            b.created(field::Sticker::Description, json!(want));
        }
        let route = Route::CreateSticker { guild: cx.guild() };
        STICKER.calls.create(cx, &d.name, b, source, route);
    }

    fn check_slots(
        cx: &mut Ctx,
        live: &[LiveSticker],
        deleted: &HashSet<&str>,
        created: &[(bool, String)],
    ) {
        STICKER.check_slots(cx, &SLOTS, live.len() - deleted.len(), created);
    }
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
