//! Custom emoji: create, rename, change roles, replace the image, prune. Discord cannot
//! replace an emoji's image (Modify Guild Emoji takes `name` and `roles`), so a changed file
//! is a deletion and a creation: the plan says so, and the deletion gate counts it.

use hashbrown::HashSet;
use serde_json::{Value, json};

use super::expressions::ExpressionSection;
use super::{ExportedFiles, Names, SectionId, exported};
use crate::discord::Route;
use crate::discord::limits::EMOJI_SLOTS;
use crate::discord::models::GuildEmoji as LiveEmoji;
use crate::discord::models::User;
use crate::manifest::{GuildEmoji, Manifest, Snowflake};
use crate::plan::field::Field;
use crate::plan::image::ImageFile;
use crate::plan::{IdRef, Kind, Phase, field};
use crate::plan_kit::calls::Calls;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::expressions::{Expression, ExpressionPlan, Live, LiveExpression};
use crate::snapshot::Snapshot;
use crate::snapshot::expressions::Filed;

pub(super) struct Emojis;

crate::snapshot::matching::declared!(GuildEmoji);

impl ExpressionSection for Emojis {
    const ID: SectionId = SectionId::Emojis;

    /// Managed emoji (an integration's) are not guildctl's to write.
    fn export_into(snap: &Snapshot, files: &ExportedFiles, names: &Names, out: &mut Manifest) {
        out.emojis = exported(
            snap.expressions
                .emojis
                .iter()
                .flatten()
                .filter(|e| !e.managed),
            files,
            |e| e.cdn_path(),
            |e, image| GuildEmoji {
                id: Some(Snowflake(e.id.clone())),
                name: e.name.clone().unwrap_or_default(),
                previous_names: Vec::new(),
                image,
                roles: (!e.roles.is_empty())
                    .then(|| e.roles.iter().filter_map(|r| names.role(r)).collect()),
            },
        );
    }

    /// Each creator is a user of the copy, so it can tell the bot's own emoji from others'.
    fn copy_of(e: &LiveEmoji) -> (Option<&User>, Value) {
        let object = json!({
            "id": e.id, "name": e.name.clone().unwrap_or_default(), "roles": e.roles,
            "user_id": e.user.as_ref().map(|u| &u.id), "managed": e.managed,
            "animated": e.animated,
        });
        (e.user.as_ref(), object)
    }
}

const EMOJI: Expression = Expression {
    calls: Calls {
        kind: Kind::Emoji,
        noun: "emoji",
        key: "emoji",
        write: Phase::EmojiWrite,
        delete: Phase::EmojiDelete,
    },
    section: "emojis",
    file_label: "image",
    file_word: "image",
};

impl LiveExpression for LiveEmoji {
    fn live(&self) -> Live<'_> {
        Live {
            name: self.name.as_deref().unwrap_or_default(),
            id: &self.id,
        }
    }

    fn delete_route(&self, cx: &Ctx) -> Route<IdRef> {
        Route::DeleteEmoji {
            guild: cx.guild(),
            emoji: IdRef::Live(self.id.clone()),
        }
    }
}

impl ExpressionPlan for Emojis {
    type Declared = GuildEmoji;
    type Live = LiveEmoji;
    /// The roles the emoji is for (`None`: not managed).
    type Extra = Option<Vec<IdRef>>;
    const EXPRESSION: Expression = EMOJI;
    const UNREAD: (&'static str, &'static str) = (
        "emojis",
        "grant the bot's role `create_guild_expressions` (and `manage_guild_expressions` for emojis others uploaded), or leave `emojis` out",
    );

    fn file_field() -> Field {
        field::Emoji::Image.into()
    }

    fn declared(m: &Manifest) -> Option<&[GuildEmoji]> {
        m.emojis.as_deref()
    }

    fn live(snap: &Snapshot) -> Option<&[LiveEmoji]> {
        snap.expressions.emojis.as_deref()
    }

    fn file(d: &GuildEmoji) -> &str {
        &d.image
    }

    /// An integration's emoji are not guildctl's to change or delete.
    fn managed(l: &LiveEmoji) -> bool {
        l.managed
    }

    fn prunable(m: &Manifest, _: &LiveEmoji) -> bool {
        m.prune.emojis
    }

    fn extra(cx: &mut Ctx, d: &GuildEmoji, source: &str) -> Option<Option<Vec<IdRef>>> {
        emoji_roles(cx, d, source)
    }

    fn replaced(live: &LiveEmoji) -> String {
        let name = live.name.as_deref().unwrap_or_default();
        format!(
            "emoji `{name}` (id {}) is deleted and created again with the new image: Discord cannot replace an emoji's image, so it gets a new id, and messages that used the old one show `:{name}:` as text",
            live.id
        )
    }

    fn update(
        cx: &mut Ctx,
        d: &GuildEmoji,
        live: &LiveEmoji,
        roles: Option<Vec<IdRef>>,
        source: String,
    ) {
        let mut b = ChangeBuilder::new();
        let live_name = live.name.clone().unwrap_or_default();
        if live_name != d.name {
            b.changed(field::Emoji::Name, json!(live_name), json!(d.name));
        }
        if let Some(roles) = roles {
            let want: HashSet<&str> = roles.iter().map(IdRef::key).collect();
            let have: HashSet<&str> = live.roles.iter().map(String::as_str).collect();
            if want != have || roles.iter().any(|r| r.created().is_some()) {
                let before: Vec<IdRef> = live.roles.iter().cloned().map(IdRef::Live).collect();
                set_roles(cx, &mut b, roles_value(cx, &before), &roles);
            }
        }
        let route = Route::UpdateEmoji {
            guild: cx.guild(),
            emoji: IdRef::Live(live.id.clone()),
        };
        EMOJI.calls.update(cx, &d.name, &live.id, b, source, route);
    }

    fn create(
        cx: &mut Ctx,
        d: &GuildEmoji,
        file: &ImageFile,
        roles: Option<Vec<IdRef>>,
        source: String,
    ) {
        let mut b = ChangeBuilder::new();
        b.created(field::Emoji::Name, json!(d.name));
        b.set(
            field::Emoji::Image,
            Value::Null,
            file.value(&d.image),
            file.upload(&d.image),
        );
        if let Some(roles) = roles.filter(|r| !r.is_empty()) {
            set_roles(cx, &mut b, Value::Null, &roles);
        }
        let route = Route::CreateEmoji { guild: cx.guild() };
        EMOJI.calls.create(cx, &d.name, b, source, route);
    }

    fn check_slots(
        cx: &mut Ctx,
        live: &[LiveEmoji],
        deleted: &HashSet<&str>,
        created: &[(bool, String)],
    ) {
        check_slots(cx, live, deleted, created);
    }
}

/// The roles the emoji is for, as ids (`None` when `roles` is left out: not managed), or
/// `None` and a problem when one is neither declared nor live.
fn emoji_roles(cx: &mut Ctx, d: &GuildEmoji, source: &str) -> Option<Option<Vec<IdRef>>> {
    let Some(written) = &d.roles else {
        return Some(None);
    };
    let mut out = Vec::new();
    let mut seen = Vec::new();
    let mut ok = true;
    for (k, r) in written.iter().enumerate() {
        let at = format!("{source}.roles[{k}]");
        match cx.resolve_role(r, &at) {
            Some(id) => {
                if cx.first_in_list(&mut seen, &id, &at, r, "role") {
                    out.push(id);
                }
            }
            None => ok = false,
        }
    }
    ok.then_some(Some(out))
}

/// Puts the emoji's roles in `b`: shown by name, sent by id.
fn set_roles(cx: &Ctx, b: &mut ChangeBuilder, before: Value, roles: &[IdRef]) {
    b.set(
        field::Emoji::Roles,
        before,
        roles_value(cx, roles),
        roles_api(roles),
    );
}

fn roles_value(cx: &Ctx, roles: &[IdRef]) -> Value {
    let mut names: Vec<String> = roles.iter().map(|r| cx.role_label(r)).collect();
    names.sort();
    json!(names)
}

fn roles_api(roles: &[IdRef]) -> Value {
    Value::Array(roles.iter().map(IdRef::to_value).collect())
}

/// Discord's emoji slots by boost tier (50/100/150/250, static and animated counted apart):
/// the emoji left once the plan is applied must fit, or the first creation past the limit is
/// refused at its line (30008, 30018). A guild with MORE_EMOJI has more, by a number Discord
/// does not document: not checked there.
fn check_slots(
    cx: &mut Ctx,
    live: &[LiveEmoji],
    deleted: &HashSet<&str>,
    created: &[(bool, String)],
) {
    let g = &cx.snap.guild;
    if g.has_feature("MORE_EMOJI") {
        return;
    }
    let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
    let limit = EMOJI_SLOTS[tier];
    for animated in [false, true] {
        let kept = live
            .iter()
            .filter(|e| e.animated == animated && !deleted.contains(e.id.as_str()))
            .count();
        let mut count = kept;
        for (a, source) in created.iter().filter(|(a, _)| *a == animated) {
            count += 1;
            if count > limit {
                let what = if *a { "animated" } else { "static" };
                let message = format!(
                    "this emoji would be {what} emoji number {count} of a guild at boost tier {tier}, which has {limit} {what} slots (Discord refuses it: {})",
                    if *a { 30018 } else { 30008 }
                );
                cx.problem(
                    Some(source.clone()),
                    message,
                    Some("remove emojis (or let `prune.emojis` delete unlisted ones), or boost the guild to a higher tier"),
                );
                break;
            }
        }
    }
}
