//! A channel's change and its calls: an update (fields, overwrites, a move), a creation,
//! and the pruning of what the manifest does not declare.

use hashbrown::HashSet;

use serde_json::{Value, json};

use crate::discord::Route;
use crate::discord::models::{Channel as LiveChannel, channel_type};
use crate::manifest::ChannelType;
use crate::plan::{Action, FieldChange, IdRef, Kind, Phase, field};
use crate::plan_kit::context::{Ctx, Op, change};

use super::fields::channel_fields;
use super::matching::live_ref;
use super::overwrites::{Ow, live_set, overwrites_display, same_set};
use super::{Decl, object_kind};

/// What the plan makes of a declared channel beyond its fields: its overwrites (none where
/// the manifest leaves them alone), its category, and the phase its calls run in.
pub(super) struct Wanted<'a> {
    pub ows: Option<&'a [Ow]>,
    pub parent: Option<IdRef>,
    pub phase: Phase,
}

/// `inherited`: the channel's overwrites when its own calls start (the live set, or its
/// category's new one where the category's write carries over to it).
pub(super) fn plan_update(
    cx: &mut Ctx,
    decls: &[Decl],
    i: usize,
    live: &LiveChannel,
    inherited: &[Ow],
    wanted: Wanted<'_>,
) {
    let Wanted { ows, parent, phase } = wanted;
    let d = &decls[i];
    if live.kind != d.kind {
        let swappable = [channel_type::TEXT, channel_type::ANNOUNCEMENT];
        if !(swappable.contains(&live.kind) && swappable.contains(&d.kind)) {
            cx.problem(
                Some(d.source.clone()),
                format!(
                    "`{}` is a {} channel live and cannot become a {} channel: Discord only converts between text and announcement",
                    d.ch.name,
                    type_label(live.kind),
                    type_label(d.kind)
                ),
                Some("give the new channel another name (and prune or keep the old one), or keep its type"),
            );
            return;
        }
    }
    let (mut b, warnings) = channel_fields(d, Some(live));
    for (field, w) in warnings {
        cx.warn(Some(format!("{}.{field}", d.source)), w);
    }
    let live_parent = live.parent_id.clone().map(IdRef::Live);
    let moves = d.kind != channel_type::CATEGORY && parent != live_parent;
    // The order of overwrite writes (docs/decisions.md): categories first, then each
    // channel's own write, then moves. A channel that already has its set once its
    // category's write is copied to it needs no call of its own.
    let mut sync_on_move = false;
    let mut writes_overwrites = false;
    if let Some(want) = ows {
        let have = live_set(live);
        // Shown only where the plan changes or shows them: most channels keep their set.
        let shown = || (overwrites_display(cx, &have), overwrites_display(cx, want));
        let synced = d.ch.sync_permissions == Some(true);
        if same_set(d, want, inherited) {
            if !same_set(d, want, &have) {
                // Shown, but no call: the category's update carries it over.
                let (old, new) = shown();
                b.show(field::Channel::SyncedOverwrites, old, new);
            }
        } else if moves && synced {
            // Moved into the category it follows: the move syncs it (`lock_permissions`)
            // with the category as the plan leaves it, in the call the move makes anyway.
            sync_on_move = true;
            let (old, new) = shown();
            b.show(field::Channel::SyncedOverwrites, old, new);
        } else {
            // The whole set in one PATCH: there is never a moment with a deny missing.
            let field = if same_set(d, want, &have) {
                field::Channel::KeptOverwrites
            } else {
                field::Channel::Overwrites
            };
            writes_overwrites = true;
            let (old, new) = shown();
            b.set(
                field,
                old,
                new,
                Value::Array(want.iter().map(Ow::api).collect()),
            );
        }
    }
    let mut fields = b.fields;
    if moves {
        let name = |p: &Option<IdRef>| json!(p.as_ref().map(|p| cx.channel_label(p)));
        fields.push(FieldChange::new(
            field::Channel::Category,
            name(&live_parent),
            name(&parent),
        ));
    }
    if fields.is_empty() {
        return;
    }
    let (idx, kind, display) = push_change(cx, decls, d, Some(live.id.clone()), fields);
    if !b.body.is_empty() {
        let route = Route::UpdateChannel {
            channel: IdRef::Live(live.id.clone()),
        };
        let summary = format!("update {} {display}", kind.label());
        let mut op = Op::new(phase, idx, route, summary).body(Value::Object(b.body));
        if let Some(category) = live_parent.clone().filter(|_| writes_overwrites) {
            // After its category's write, which would otherwise copy over this set.
            op = op.after_writes_of(category);
        }
        cx.push_op(op);
    }
    if moves {
        // One parent change per positions call, as Discord requires (40009).
        let parent_value = parent.as_ref().map(IdRef::to_value).unwrap_or(Value::Null);
        let mut entry = json!({ "id": live.id, "parent_id": parent_value });
        if sync_on_move {
            entry["lock_permissions"] = Value::Bool(true);
        }
        let route = Route::UpdateChannelPositions { guild: cx.guild() };
        let summary = format!("move channel {display}");
        cx.push_op(Op::new(Phase::ChannelMove, idx, route, summary).body(json!([entry])));
    }
}

pub(super) fn plan_create(
    cx: &mut Ctx,
    decls: &[Decl],
    i: usize,
    ows: Option<&[Ow]>,
    parent: Option<IdRef>,
    phase: Phase,
) {
    let d = &decls[i];
    let (mut b, _) = channel_fields(d, None);
    // Discord's create route takes no `flags` (OpenAPI `CreateGuildChannelRequest`): they
    // are set by an update of the new channel.
    let flags = b.body.remove("flags");
    b.body.insert("type".into(), json!(d.kind));
    if let Some(p) = &parent {
        b.body.insert("parent_id".into(), p.to_value());
    }
    if let Some(want) = ows {
        b.set(
            field::Channel::Overwrites,
            Value::Null,
            overwrites_display(cx, want),
            Value::Array(want.iter().map(Ow::api).collect()),
        );
    }
    if d.kind != channel_type::TEXT {
        b.fields.insert(
            1.min(b.fields.len()),
            FieldChange::new(field::Channel::Type, Value::Null, json!(type_label(d.kind))),
        );
    }
    let (idx, kind, display) = push_change(cx, decls, d, None, b.fields);
    let route = Route::CreateChannel { guild: cx.guild() };
    let summary = format!("create {} {display}", kind.label());
    let mut op = Op::new(phase, idx, route, summary)
        .body(Value::Object(b.body))
        .creates(d.key.clone());
    if let Some(category) = parent {
        // Created in its category as the plan leaves it: it copies that set, or is not
        // synced with the old one when the category's write comes.
        op = op.after_writes_of(category);
    }
    cx.push_op(op);
    if let Some(flags) = flags {
        let route = Route::UpdateChannel {
            channel: IdRef::New(d.key.clone()),
        };
        let summary = format!("set the flags of new {} {display}", kind.label());
        cx.push_op(Op::new(phase, idx, route, summary).body(json!({ "flags": flags })));
    }
}

/// The channel's change in the plan: an update of the live channel whose id is `live`, or
/// a creation without one. Returns its index, its kind and its name as plans show it.
fn push_change(
    cx: &mut Ctx,
    decls: &[Decl],
    d: &Decl,
    live: Option<String>,
    fields: Vec<FieldChange>,
) -> (usize, Kind, String) {
    let kind = object_kind(d.kind);
    let display = d.display(decls);
    let action = if live.is_some() {
        Action::Update
    } else {
        Action::Create
    };
    let source = Some(d.source.clone());
    let idx = cx.push_change(change(action, kind, display.clone(), live, fields, source));
    (idx, kind, display)
}

pub(super) fn type_label(kind: u8) -> &'static str {
    ChannelType::from_value(kind.into())
        .map(|t| t.name())
        .unwrap_or("unknown")
}

/// Live channels the manifest does not declare: deleted under `prune.channels`,
/// otherwise reported as unmanaged and kept.
pub(super) fn plan_unmatched(cx: &mut Ctx, matched: &HashSet<&str>) {
    let snap = cx.snap;
    let guild = &snap.guild;
    let protected: Vec<&str> = if guild.has_feature("COMMUNITY") {
        [&guild.rules_channel_id, &guild.public_updates_channel_id]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    } else {
        Vec::new()
    };
    for c in &snap.channels {
        if matched.contains(c.id.as_str()) {
            continue;
        }
        let object = live_ref(snap, c);
        if !cx.manifest.prune.channels {
            cx.unmanaged.push(object);
            continue;
        }
        if let Some(by) =
            crate::judge::deletion_gate::protector(cx.manifest, object.kind, &c.id, &c.name, c.kind)
        {
            cx.warn(
                None,
                format!(
                    "{} `{}` (id {}) is kept although `prune.channels` is on: {by} protects it",
                    object.kind.label(),
                    object.name,
                    c.id
                ),
            );
            cx.unmanaged.push(object);
            continue;
        }
        if protected.contains(&c.id.as_str()) {
            // Discord refuses with 50074; keep it and say why.
            cx.warn(
                None,
                format!(
                    "{} is the rules or community updates channel, which Discord does not let a community guild delete; it is kept",
                    object.name
                ),
            );
            cx.unmanaged.push(object);
            continue;
        }
        let category = c.kind == channel_type::CATEGORY;
        let name = object.name.clone();
        let idx = cx.push_change(change(
            Action::Delete,
            object.kind,
            name.clone(),
            Some(c.id.clone()),
            vec![],
            // Pointed at the `prune:` line that asks for it.
            Some(Kind::Channel.pruned_by().into()),
        ));
        let phase = if category {
            Phase::CategoryDelete
        } else {
            Phase::ChannelDelete
        };
        let route = Route::DeleteChannel {
            channel: IdRef::Live(c.id.clone()),
        };
        let summary = format!("delete {} {name}", object.kind.label());
        cx.push_op(Op::new(phase, idx, route, summary));
        cx.access_after.remove_channel(&c.id);
    }
}
