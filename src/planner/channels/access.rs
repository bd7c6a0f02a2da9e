//! What the channel plan records for the access model: each channel as the plan leaves it
//! (the plan's access lines and onboarding's requirements read it).

use crate::access::model::ChannelSpec;
use crate::plan::{Action, Field, IdRef, field};
use crate::plan_kit::context::Ctx;

use super::Decl;
use super::overwrites::Ow;

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
