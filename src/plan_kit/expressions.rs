//! What the expressions (sections whose objects are each a named file: custom emoji,
//! sounds, stickers) share in a plan beyond their calls ([`crate::plan_kit::calls`]): one
//! plan ([`plan_expressions`]) of declared entries matched to live ones, a new file (Discord
//! replaces none of their files: a deletion and a creation, counted by the deletion gate),
//! pruning and slots. Each kind's section says what is particular to it
//! ([`ExpressionPlan`]): its fields, its file, its slots.

use std::borrow::Cow;

use hashbrown::HashSet;
use serde_json::{Value, json};

use crate::discord::Route;
use crate::manifest::Manifest;
use crate::plan::field::Field;
use crate::plan::image::ImageFile;
use crate::plan::{IdRef, ObjectRef};
use crate::plan_kit::calls::Calls;
pub(crate) use crate::plan_kit::calls::Live;
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::images::declared_file;
use crate::plan_kit::matching::{Declared, match_live};
use crate::snapshot::Snapshot;
use crate::snapshot::expressions::Filed;

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
    pub(crate) fn check_slots(
        &self,
        cx: &mut Ctx,
        slots: &Slots,
        kept: usize,
        created: &[(bool, String)],
    ) {
        let g = &cx.snap.guild;
        if g.has_feature(slots.more_feature) {
            return;
        }
        let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
        let limit = slots.by_tier[tier];
        let Some((k, (_, source))) = created
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

/// A kind of expression as its section plans it: [`plan_expressions`] takes the steps every
/// kind takes (match, update, replace a changed file, create, prune, slots), and the kind
/// says what is particular to it.
pub(crate) trait ExpressionPlan {
    /// A declared entry.
    type Declared: Declared;
    /// A live object.
    type Live: LiveExpression + Filed;
    /// What an entry needs besides itself and its file (the emoji's roles), made before its
    /// file is looked at.
    type Extra: Default;
    /// How the plan writes of the kind.
    const EXPRESSION: Expression;
    /// The problem when the live list could not be read: what it lists, and the help.
    const UNREAD: (&'static str, &'static str);

    /// The field the entry's file is.
    fn file_field() -> Field;
    /// The manifest's entries (`None`: the section is left out, not managed).
    fn declared(m: &Manifest) -> Option<&[Self::Declared]>;
    /// The live objects (`None`: not readable).
    fn live(snap: &Snapshot) -> Option<&[Self::Live]>;
    /// The entry's file, as declared.
    fn file(d: &Self::Declared) -> &str;
    /// The live object's file's SHA-256, when the CDN gave it.
    fn digest<'s>(snap: &'s Snapshot, l: &Self::Live) -> Option<&'s str> {
        snap.file_digest(l)
    }
    /// Managed by an integration: neither matched nor pruned.
    fn managed(_: &Self::Live) -> bool {
        false
    }
    /// Whether `prune:` deletes an unmatched one.
    fn prunable(m: &Manifest, l: &Self::Live) -> bool;
    /// What an entry needs before its file (`None`: a problem was said, the entry is skipped).
    /// Nothing, by default.
    fn extra(_: &mut Ctx, _: &Self::Declared, _: &str) -> Option<Self::Extra> {
        Some(Self::Extra::default())
    }
    /// Whether the entry's file is one the guild takes (else a problem was said).
    fn usable(_: &mut Ctx, _: &ImageFile, _: &str) -> bool {
        true
    }
    /// The warning for a live object deleted and created again for its new file.
    fn replaced(l: &Self::Live) -> String;
    /// The update of a matched entry whose file is the live one's.
    fn update(cx: &mut Ctx, d: &Self::Declared, l: &Self::Live, extra: Self::Extra, source: String);
    /// The creation of an entry.
    fn create(
        cx: &mut Ctx,
        d: &Self::Declared,
        file: &ImageFile,
        extra: Self::Extra,
        source: String,
    );
    /// The slots once the plan is applied: `kept` live ones stay, `created` (whether each
    /// is animated, and where it is declared) come.
    fn check_slots(
        cx: &mut Ctx,
        live: &[Self::Live],
        deleted: &HashSet<&str>,
        created: &[(bool, String)],
    );
}

/// Plans one kind of expression ([`ExpressionPlan`]).
pub(crate) fn plan_expressions<K: ExpressionPlan>(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    let expression = K::EXPRESSION;
    let section = expression.section;
    // Left out: not managed, and not read.
    let Some(declared) = K::declared(manifest) else {
        return;
    };
    let Some(live) = K::live(snap) else {
        let (what, help) = K::UNREAD;
        cx.problem(
            Some(section.into()),
            format!("the bot cannot list this guild's {what}"),
            Some(help),
        );
        return;
    };
    let own: Vec<&K::Live> = live.iter().filter(|l| !K::managed(l)).collect();
    let matches = expression.match_declared(cx, declared, &own);
    // Each created one, with whether it is animated and where it is declared: the slots.
    let mut created: Vec<(bool, String)> = Vec::new();
    let mut deleted: HashSet<&str> = HashSet::new();
    for (i, d) in declared.iter().enumerate() {
        let source = format!("{section}[{i}]");
        let Some(extra) = K::extra(cx, d, &source) else {
            continue;
        };
        let at = format!("{source}.{}", K::file_field().name());
        let Some(file) = declared_file(cx, &at, K::file(d)) else {
            continue;
        };
        if !K::usable(cx, &file, &source) {
            continue;
        }
        match matches[i] {
            Some(l) if K::digest(snap, l) == Some(file.digest.as_str()) => {
                K::update(cx, d, l, extra, source);
            }
            Some(l) => {
                let new = NewFile {
                    field: K::file_field(),
                    live_digest: K::digest(snap, l),
                    after: file.value(K::file(d)),
                    at,
                };
                let route = l.delete_route(cx);
                expression.replace(cx, l.live(), new, K::replaced(l), route);
                deleted.insert(l.live().id);
                created.push((file.animated, source.clone()));
                K::create(cx, d, &file, extra, source);
            }
            None => {
                created.push((file.animated, source.clone()));
                K::create(cx, d, &file, extra, source);
            }
        }
    }
    expression.prune_unmatched(
        cx,
        live,
        &matches,
        |l| !K::managed(l) && K::prunable(manifest, l),
        &mut deleted,
    );
    K::check_slots(cx, live, &deleted, &created);
}
