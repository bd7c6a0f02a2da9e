//! The calls of a kind of object the plan updates, creates and deletes one at a time by its
//! own routes (webhooks and the sections that are units, `crate::sections`):
//! each a change and the call that makes it, written the same way for every such kind.

use serde_json::Value;

use crate::discord::Route;
use crate::plan::field::FieldChange;
use crate::plan::{Action, IdRef, Kind, Phase};
use crate::plan_kit::context::{ChangeBuilder, Ctx, Op, change};

/// One such kind, as the plan writes of it.
pub(crate) struct Calls {
    pub kind: Kind,
    /// Its name in summaries: `update AutoMod rule NAME`.
    pub noun: &'static str,
    /// The prefix of its created objects' keys: `automod:NAME`.
    pub key: &'static str,
    pub write: Phase,
    pub delete: Phase,
}

/// A live object: its name and id.
#[derive(Clone, Copy)]
pub(crate) struct Live<'a> {
    pub name: &'a str,
    pub id: &'a str,
}

impl Calls {
    /// An update of live object `id` (declared as `name`), when `b` holds anything: one
    /// change and its PATCH with `b`'s body.
    pub(crate) fn update(
        &self,
        cx: &mut Ctx,
        name: &str,
        id: &str,
        b: ChangeBuilder,
        source: String,
        route: Route<IdRef>,
    ) {
        if b.is_empty() {
            return;
        }
        let idx = cx.push_change(change(
            Action::Update,
            self.kind,
            name.to_owned(),
            Some(id.to_owned()),
            b.fields,
            Some(source),
        ));
        let summary = format!("update {} {name}", self.noun);
        cx.push_op(Op::new(self.write, idx, route, summary).body(Value::Object(b.body)));
    }

    /// A creation: one change and its POST with `b`'s body, whose answer names the new
    /// object (`KEY:NAME` for the calls that refer to it).
    pub(crate) fn create(
        &self,
        cx: &mut Ctx,
        name: &str,
        b: ChangeBuilder,
        source: String,
        route: Route<IdRef>,
    ) {
        let idx = cx.push_change(change(
            Action::Create,
            self.kind,
            name.to_owned(),
            None,
            b.fields,
            Some(source),
        ));
        let summary = format!("create {} {name}", self.noun);
        cx.push_op(
            Op::new(self.write, idx, route, summary)
                .body(Value::Object(b.body))
                .creates(format!("{}:{name}", self.key)),
        );
    }

    /// A deletion of `live`, showing `fields` (what goes with it); `why`, when set, is said
    /// after the call's summary: `delete sound NAME (its file changes)`.
    pub(crate) fn delete(
        &self,
        cx: &mut Ctx,
        live: Live<'_>,
        fields: Vec<FieldChange>,
        source: String,
        route: Route<IdRef>,
        why: &str,
    ) {
        let idx = cx.push_change(change(
            Action::Delete,
            self.kind,
            live.name.to_owned(),
            Some(live.id.to_owned()),
            fields,
            Some(source),
        ));
        let mut summary = format!("delete {} {}", self.noun, live.name);
        if !why.is_empty() {
            summary = format!("{summary} ({why})");
        }
        cx.push_op(Op::new(self.delete, idx, route, summary));
    }
}
