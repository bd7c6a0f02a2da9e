//! What the channel plan records for the access model: who can view and send where once
//! the plan is applied (onboarding's requirements and the plan's access lines read it).

use hashbrown::HashMap;

use crate::access::model::ChannelSpec;
use crate::discord::models::OVERWRITE_ROLE;
use crate::permissions::Permissions;
use crate::plan::{Action, Field, IdRef, field};
use crate::plan_kit::context::Ctx;

use super::overwrites::{Ow, live_set};
use super::{Decl, Declared};

/// Records, for every channel, whether @everyone can view it and send messages in
/// it once the plan is applied (onboarding's requirements count these).
pub(super) fn record_everyone_can_send(
    cx: &mut Ctx,
    declared: Declared,
    carried: &HashMap<String, Vec<Ow>>,
) {
    let Declared {
        decls,
        matches,
        ids,
        overwrites: desired,
    } = declared;
    let everyone = IdRef::Live(cx.guild_id.clone());
    let base = cx.everyone_after;
    let can_send = |ows: &[Ow]| -> bool {
        if base.contains(Permissions::ADMINISTRATOR) {
            return true;
        }
        let p = ows
            .iter()
            .find(|o| o.target == everyone && o.kind == OVERWRITE_ROLE)
            .map(|o| (base & !o.deny) | o.allow)
            .unwrap_or(base);
        p.contains(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES)
    };
    let mut finals: Vec<Vec<Ow>> = Vec::with_capacity(decls.len());
    for (i, d) in decls.iter().enumerate() {
        let set = match (&desired[i], matches[i]) {
            (Some(want), _) => want.clone(),
            (None, Some(live)) => carried
                .get(&live.id)
                .cloned()
                .unwrap_or_else(|| live_set(live)),
            // Created in a category without overwrites: Discord copies the category's.
            (None, None) => d.parent.map(|p| finals[p].clone()).unwrap_or_default(),
        };
        finals.push(set);
    }
    for (i, id) in ids.iter().enumerate() {
        let writable = can_send(&finals[i]);
        cx.everyone_can_send.insert(id.clone(), writable);
    }
    for c in &cx.snap.channels {
        let id = IdRef::Live(c.id.clone());
        cx.everyone_can_send.entry(id).or_insert_with(|| {
            let ows = carried.get(&c.id).cloned().unwrap_or_else(|| live_set(c));
            can_send(&ows)
        });
    }
}

/// Records declared channel `i` as the plan leaves it in the guild access is computed on;
/// `change` is the index of its change, a cause when it touches who may do what there.
pub(super) fn record_access(
    cx: &mut Ctx,
    decls: &[Decl],
    ids: &[IdRef],
    i: usize,
    ows: Option<&[Ow]>,
    change: Option<usize>,
) {
    let d = &decls[i];
    let touches_access = |c: &crate::plan::Change| {
        c.action == Action::Create
            || c.fields.iter().any(|f| {
                f.field.is_overwrites()
                    || matches!(
                        f.field,
                        Field::Channel(field::Channel::Category | field::Channel::Type)
                    )
            })
    };
    let change = change.filter(|&c| touches_access(&cx.changes[c]));
    let set = ows.map(|set| {
        set.iter()
            .map(|o| crate::access::model::Overwrite {
                target: o.target.key().to_owned(),
                kind: o.kind,
                allow: o.allow,
                deny: o.deny,
            })
            .collect()
    });
    let parent = d.parent.map(|p| ids[p].key().to_owned());
    cx.access_after.set_channel(
        ChannelSpec {
            id: ids[i].key(),
            name: &d.stored_name(),
            kind: d.kind,
            parent: parent.as_deref(),
        },
        set,
        Some(&d.source),
        change,
    );
}
