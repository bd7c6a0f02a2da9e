//! What custom emoji, soundboard sounds and stickers share in a plan beyond their calls
//! ([`crate::plan_kit::calls`]): declared entries matched to live ones, a new file (Discord replaces
//! none of their files: a deletion and a creation, counted by the deletion gate), pruning
//! and slots. Each kind's module says what is particular to it: its fields, its file, its
//! slots.

use std::borrow::Cow;

use hashbrown::HashSet;
use serde_json::{Value, json};

use crate::discord::Route;
use crate::plan::field::Field;
use crate::plan::{IdRef, ObjectRef};
use crate::plan_kit::calls::Calls;
pub(crate) use crate::plan_kit::calls::Live;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::matching::{Declared, match_live};

/// One kind of expression, as the plan writes of it.
pub(crate) struct Expression {
    /// Its calls; its noun (`emoji`, `sound`, `sticker`) also names it in problems.
    pub calls: Calls,
    /// Its manifest section, for places (`emojis`).
    pub section: &'static str,
    /// What a replaced file is called where its digest is shown: `(image sha256 …)`.
    pub file_label: &'static str,
    /// And in the deletion's summary: `(its image changes)`.
    pub file_word: &'static str,
}

/// A kind's slots, for a kind whose objects all count against one number.
pub(crate) struct Slots {
    /// By boost tier, 0 to 3.
    pub by_tier: [usize; 4],
    /// The guild feature that raises the limit.
    pub more_feature: &'static str,
    /// What the slots are called: `sticker slots`.
    pub called: &'static str,
    /// The kind's plural in the help: `stickers`.
    pub plural: &'static str,
    /// Discord's error code for one too many.
    pub code: u32,
}

/// What the shared steps need of a live expression of any kind.
pub(crate) trait LiveExpression {
    fn live(&self) -> Live<'_>;
    fn delete_route(&self, cx: &Ctx) -> Route<IdRef>;
}

/// A declared entry whose file differs from the live one's.
pub(crate) struct NewFile<'a> {
    /// The field the file is declared in.
    pub field: Field,
    /// The live file's SHA-256, when the CDN gave it.
    pub live_digest: Option<&'a str>,
    /// The new file, as the plan shows it.
    pub after: Value,
    /// Where the file is declared (`emojis[0].image`).
    pub at: String,
}

impl Expression {
    /// The deletion half of a new file, with a warning of what the new id costs.
    pub(crate) fn replace(
        &self,
        cx: &mut Ctx,
        live: Live<'_>,
        file: NewFile<'_>,
        warning: String,
        route: Route<IdRef>,
    ) {
        let label = self.file_label;
        let before = match file.live_digest {
            Some(digest) => json!(format!(
                "({label} sha256 {}…)",
                &digest[..12.min(digest.len())]
            )),
            None => json!(format!("({label} the CDN did not give)")),
        };
        let mut b = ChangeBuilder::new();
        b.show(file.field, before, file.after);
        cx.warn(Some(file.at.clone()), warning);
        let why = format!("its {} changes", self.file_word);
        self.calls.delete(cx, live, b.fields, file.at, route, &why);
    }

    /// Each declared entry's live match ([`match_live`]) among `live`.
    pub(crate) fn match_declared<'l, T: LiveExpression>(
        &self,
        cx: &mut Ctx,
        declared: &[impl Declared],
        live: &[&'l T],
    ) -> Vec<Option<&'l T>> {
        match_live(
            cx,
            self.section,
            self.calls.kind,
            declared,
            live,
            |l| {
                let l = l.live();
                (l.id, Cow::Borrowed(l.name))
            },
            |_, _| false,
        )
    }

    /// The live ones no entry matched: each deleted under `prune.<section>` where `prunable`
    /// says so, else listed as unmanaged. Adds the deleted ids to `deleted`.
    pub(crate) fn prune_unmatched<'l, T: LiveExpression>(
        &self,
        cx: &mut Ctx,
        live: &'l [T],
        matches: &[Option<&T>],
        prunable: impl Fn(&T) -> bool,
        deleted: &mut HashSet<&'l str>,
    ) {
        let matched: HashSet<&str> = matches.iter().flatten().map(|m| m.live().id).collect();
        for object in live {
            let l = object.live();
            if matched.contains(l.id) {
                continue;
            }
            if !prunable(object) {
                cx.unmanaged.push(ObjectRef {
                    kind: self.calls.kind,
                    name: l.name.to_owned(),
                    id: Some(l.id.to_owned()),
                });
                continue;
            }
            let route = object.delete_route(cx);
            let source = self.calls.kind.pruned_by().to_owned();
            self.calls.delete(cx, l, Vec::new(), source, route, "");
            deleted.insert(l.id);
        }
    }

    /// Discord's slots by boost tier for a kind counted as one: the first creation past the
    /// limit is refused at its line with Discord's code. A guild with the feature that
    /// raises the limit, by a number Discord does not document, is not checked.
    pub(crate) fn check_slots(&self, cx: &mut Ctx, slots: &Slots, kept: usize, created: &[String]) {
        let g = &cx.snap.guild;
        if g.has_feature(slots.more_feature) {
            return;
        }
        let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
        let limit = slots.by_tier[tier];
        let Some((k, source)) = created
            .iter()
            .enumerate()
            .find(|(k, _)| kept + k + 1 > limit)
        else {
            return;
        };
        let message = format!(
            "this would be {} number {} of a guild at boost tier {tier}, which has {limit} {} (Discord refuses it: {})",
            self.calls.noun,
            kept + k + 1,
            slots.called,
            slots.code
        );
        let help = format!(
            "remove {} (or let `prune.{}` delete unlisted ones), or boost the guild to a higher tier",
            slots.plural, self.section
        );
        cx.problem(Some(source.clone()), message, Some(help.as_str()));
    }
}
