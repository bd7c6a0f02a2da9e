//! AutoMod rules: create, update, rename in place, a change of trigger kind as a delete and
//! a create, prune. Matched by id, name, previous names, and for the kinds a guild holds one
//! of, by kind: the mention-spam rule Discord makes for a community guild is taken over,
//! never duplicated (Discord would refuse a second one).

use std::borrow::Cow;

use hashbrown::HashSet;
use serde_json::{Value, json};

use super::{ExportedFiles, Names, Section, SectionId, as_listed, ids_of};
use crate::discord::Route;
use crate::discord::models::User;
use crate::discord::models::channel_type;
use crate::manifest::{
    AutoModAction, AutoModBlock, AutoModRule, AutoModTrigger, AutoModTriggerType, Manifest,
    Snowflake,
};
use crate::plan::field::AutoModRule as F;
use crate::plan::{IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::calls::{self, Calls};
use crate::plan_kit::context::{ALL_TYPES, ChangeBuilder, Ctx};
use crate::plan_kit::matching::match_live;
use crate::snapshot::Snapshot;
use crate::snapshot::automod::{AutoModRule as Live, TriggerMetadata, trigger_as_written};

pub(super) struct AutoMod;

crate::snapshot::matching::declared!(AutoModRule);

impl Section for AutoMod {
    fn id(&self) -> SectionId {
        SectionId::AutoMod
    }

    fn export(&self, snap: &Snapshot, _: &ExportedFiles, names: &Names, out: &mut Manifest) {
        out.automod = snap.automod.as_ref().map(|live| {
            live.iter()
                .map(|r| AutoModRule {
                    id: Some(Snowflake(r.id.clone())),
                    name: r.name.clone(),
                    previous_names: Vec::new(),
                    trigger: trigger_as_written(r.trigger_type, &r.trigger_metadata),
                    event: None,
                    actions: r
                        .actions
                        .iter()
                        .filter_map(|a| {
                            let m = &a.metadata;
                            Some(match a.kind {
                                1 => AutoModAction::Block(AutoModBlock {
                                    message: m.custom_message.clone().filter(|s| !s.is_empty()),
                                }),
                                2 => AutoModAction::Alert(names.channel(m.channel_id.as_deref()?)),
                                3 => AutoModAction::Timeout(m.duration_seconds?),
                                4 => AutoModAction::BlockMemberInteraction,
                                _ => return None,
                            })
                        })
                        .collect(),
                    exempt_roles: r
                        .exempt_roles
                        .iter()
                        .filter_map(|id| names.role(id))
                        .collect(),
                    exempt_channels: r
                        .exempt_channels
                        .iter()
                        .map(|id| names.channel(id))
                        .collect(),
                    enabled: r.enabled,
                })
                .collect()
        });
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        self.about().write(out, &m.automod)
    }

    /// As Discord lists them.
    fn copy(&self, snap: &Snapshot, _: &mut dyn FnMut(&User)) -> Vec<Value> {
        as_listed(&snap.automod)
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        ids_of(&snap.automod, |r| &r.id)
    }

    fn plan(&self, cx: &mut Ctx) {
        plan_automod(cx);
    }

    fn files(&self, _: &Snapshot) -> Vec<String> {
        Vec::new()
    }
}

/// Alerts go to text and announcement channels.
const ALERT_CHANNELS: &[u8] = &[channel_type::TEXT, channel_type::ANNOUNCEMENT];
/// Any channel a rule may exempt.
const EXEMPT_CHANNELS: &[u8] = ALL_TYPES;

const BLOCK_MESSAGE: u8 = 1;
const SEND_ALERT: u8 = 2;
const TIMEOUT: u8 = 3;
const BLOCK_MEMBER_INTERACTION: u8 = 4;

fn rule_ref(r: &Live) -> ObjectRef {
    ObjectRef {
        kind: Kind::AutoModRule,
        name: r.name.clone(),
        id: Some(r.id.clone()),
    }
}

const AUTOMOD: Calls = Calls {
    kind: Kind::AutoModRule,
    noun: "AutoMod rule",
    key: "automod",
    write: Phase::AutoModWrite,
    delete: Phase::AutoModDelete,
};

fn plan_automod(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.automod.as_deref() else {
        for r in snap.automod.iter().flatten() {
            cx.unmanaged.push(rule_ref(r));
        }
        return;
    };
    let Some(live) = snap.automod.as_deref() else {
        cx.problem(
            Some("automod".into()),
            "the bot cannot read this guild's AutoMod rules".into(),
            Some("grant the bot's role `manage_guild`, or leave `automod` out"),
        );
        return;
    };
    let matches = match_rules(cx, declared, live);
    for (i, d) in declared.iter().enumerate() {
        let source = format!("automod[{i}]");
        // Validation refused a trigger of no kind; nothing to plan.
        let Ok(kind) = d.trigger.kind() else { continue };
        let Some(wanted) = desired(cx, d, kind, &source) else {
            continue;
        };
        match matches[i] {
            Some(l) if l.trigger_type as u64 == kind.value() => {
                plan_update(cx, d, l, &wanted, source);
            }
            Some(l) => {
                // Discord cannot change a rule's trigger type: the rule goes, a new one comes.
                delete(
                    cx,
                    l,
                    source.clone(),
                    format!(
                        "its trigger changes from `{}` to `{}`, which Discord cannot change in place: deleted and created anew",
                        trigger_name(l.trigger_type),
                        kind.name()
                    ),
                );
                plan_create(cx, d, &wanted, source);
            }
            None => plan_create(cx, d, &wanted, source),
        }
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|r| r.id.as_str()).collect();
    for r in live {
        if matched.contains(r.id.as_str()) {
            continue;
        }
        if manifest.prune.automod {
            delete(cx, r, Kind::AutoModRule.pruned_by().into(), String::new());
        } else {
            cx.unmanaged.push(rule_ref(r));
        }
    }
}

fn trigger_name(t: u8) -> &'static str {
    AutoModTriggerType::from_value(t.into()).map_or("unknown", AutoModTriggerType::name)
}

/// Each declared rule's live match ([`match_live`]), then, for a rule still unmatched, the
/// one live rule of its kind where a guild holds one of that kind.
fn match_rules<'s>(
    cx: &mut Ctx,
    declared: &[AutoModRule],
    live: &'s [Live],
) -> Vec<Option<&'s Live>> {
    let all: Vec<&Live> = live.iter().collect();
    match_live(
        cx,
        "automod",
        Kind::AutoModRule,
        declared,
        &all,
        |r| (&r.id, Cow::Borrowed(&r.name)),
        // A guild holds at most one rule of some kinds: that one is the declared rule.
        |d, r| {
            d.trigger
                .kind()
                .is_ok_and(|k| k.max_per_guild() == 1 && u64::from(r.trigger_type) == k.value())
        },
    )
}

/// A rule as the API takes it, ids as references, with its references resolved.
struct Wanted {
    kind: AutoModTriggerType,
    metadata: TriggerMetadata,
    actions: Vec<Value>,
    exempt_roles: Vec<IdRef>,
    exempt_channels: Vec<IdRef>,
}

fn desired(
    cx: &mut Ctx,
    d: &AutoModRule,
    kind: AutoModTriggerType,
    source: &str,
) -> Option<Wanted> {
    let mut ok = true;
    let mut actions = Vec::new();
    for (k, a) in d.actions.iter().enumerate() {
        let v = match a {
            AutoModAction::Block(b) => match &b.message {
                Some(m) => json!({"type": BLOCK_MESSAGE, "metadata": {"custom_message": m}}),
                None => json!({"type": BLOCK_MESSAGE, "metadata": {}}),
            },
            AutoModAction::Alert(channel) => {
                let at = format!("{source}.actions[{k}].alert");
                match cx.resolve_channel(channel, &at, ALERT_CHANNELS) {
                    Some(id) => {
                        json!({"type": SEND_ALERT, "metadata": {"channel_id": id.to_value()}})
                    }
                    None => {
                        ok = false;
                        continue;
                    }
                }
            }
            AutoModAction::Timeout(s) => {
                json!({"type": TIMEOUT, "metadata": {"duration_seconds": s}})
            }
            AutoModAction::BlockMemberInteraction => {
                json!({"type": BLOCK_MEMBER_INTERACTION, "metadata": {}})
            }
        };
        actions.push(v);
    }
    let mut exempt_roles = Vec::new();
    for (k, name) in d.exempt_roles.iter().enumerate() {
        match cx.resolve_role(name, &format!("{source}.exempt_roles[{k}]")) {
            Some(id) => exempt_roles.push(id),
            None => ok = false,
        }
    }
    let mut exempt_channels = Vec::new();
    for (k, c) in d.exempt_channels.iter().enumerate() {
        let at = format!("{source}.exempt_channels[{k}]");
        match cx.resolve_channel(c, &at, EXEMPT_CHANNELS) {
            Some(id) => exempt_channels.push(id),
            None => ok = false,
        }
    }
    ok.then(|| Wanted {
        kind,
        metadata: metadata_of(&d.trigger, kind),
        actions,
        exempt_roles,
        exempt_channels,
    })
}

/// The trigger's metadata as Discord stores it for `kind`: what is not written is empty, or
/// Discord's default (a mention limit of 20, raid protection off).
fn metadata_of(t: &AutoModTrigger, kind: AutoModTriggerType) -> TriggerMetadata {
    use AutoModTriggerType as T;
    let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
    match kind {
        T::Keyword | T::MemberProfile => TriggerMetadata {
            keyword_filter: list(&t.keywords),
            regex_patterns: list(&t.regex),
            allow_list: list(&t.allow),
            ..Default::default()
        },
        T::Preset => TriggerMetadata {
            presets: t.preset.iter().flatten().map(|p| p.value() as u8).collect(),
            allow_list: list(&t.allow),
            ..Default::default()
        },
        T::MentionSpam => TriggerMetadata {
            mention_total_limit: Some(t.mention_limit.unwrap_or(20)),
            mention_raid_protection_enabled: Some(t.raid_protection.unwrap_or(false)),
            ..Default::default()
        },
        T::Spam => TriggerMetadata::default(),
    }
}

/// A live rule's metadata as compared: the fields of its kind, presets in order.
fn comparable(m: &TriggerMetadata) -> TriggerMetadata {
    let mut m = m.clone();
    m.presets.sort_unstable();
    m.presets.dedup();
    m
}

/// Actions as the manifest writes them, channels by name.
fn actions_shown(cx: &Ctx, actions: &[Value]) -> Value {
    let shown: Vec<Value> = actions
        .iter()
        .map(|a| {
            let m = &a["metadata"];
            match a["type"].as_u64() {
                Some(1) => match m.get("custom_message").and_then(Value::as_str) {
                    Some(msg) if !msg.is_empty() => json!({"block": {"message": msg}}),
                    _ => json!({"block": {}}),
                },
                Some(2) => {
                    let v = &m["channel_id"];
                    let id = match v.as_str() {
                        Some(s) => IdRef::Live(s.to_owned()),
                        None => IdRef::New(v["$created"].as_str().unwrap_or_default().to_owned()),
                    };
                    json!({"alert": cx.channel_label(&id)})
                }
                Some(3) => json!({"timeout": m["duration_seconds"]}),
                Some(4) => json!("block_member_interaction"),
                _ => a.clone(),
            }
        })
        .collect();
    Value::Array(shown)
}

/// Live actions in the form `desired` builds them, to compare.
fn live_actions(l: &Live) -> Vec<Value> {
    l.actions
        .iter()
        .map(|a| {
            let m = &a.metadata;
            match a.kind {
                BLOCK_MESSAGE => match m.custom_message.as_deref() {
                    Some(msg) if !msg.is_empty() => {
                        json!({"type": BLOCK_MESSAGE, "metadata": {"custom_message": msg}})
                    }
                    _ => json!({"type": BLOCK_MESSAGE, "metadata": {}}),
                },
                SEND_ALERT => {
                    json!({"type": SEND_ALERT, "metadata": {"channel_id": m.channel_id}})
                }
                TIMEOUT => {
                    json!({"type": TIMEOUT, "metadata": {"duration_seconds": m.duration_seconds}})
                }
                k => json!({"type": k, "metadata": {}}),
            }
        })
        .collect()
}

fn ids(list: &[IdRef]) -> Value {
    Value::Array(list.iter().map(IdRef::to_value).collect())
}

fn roles_shown(cx: &Ctx, list: &[IdRef]) -> Value {
    json!(list.iter().map(|r| cx.role_label(r)).collect::<Vec<_>>())
}

fn channels_shown(cx: &Ctx, list: &[IdRef]) -> Value {
    json!(list.iter().map(|c| cx.channel_label(c)).collect::<Vec<_>>())
}

fn live_refs(list: &[String]) -> Vec<IdRef> {
    list.iter().cloned().map(IdRef::Live).collect()
}

fn same_set(a: &[IdRef], b: &[IdRef]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort();
    b.sort();
    a == b
}

/// The rule's exempt roles and channels where they differ from the live rule's (`live`:
/// roles, channels); for a creation (`None`), those it has.
fn set_exemptions(cx: &Ctx, b: &mut ChangeBuilder, w: &Wanted, live: Option<(&[IdRef], &[IdRef])>) {
    let (roles, channels) = live.unwrap_or((&[], &[]));
    type Shown = fn(&Ctx, &[IdRef]) -> Value;
    let shown: [(F, &[IdRef], &[IdRef], Shown); 2] = [
        (F::ExemptRoles, roles, &w.exempt_roles, roles_shown),
        (
            F::ExemptChannels,
            channels,
            &w.exempt_channels,
            channels_shown,
        ),
    ];
    for (field, have, want, show) in shown {
        if !same_set(have, want) {
            let before = live.map_or(Value::Null, |_| show(cx, have));
            b.set(field, before, show(cx, want), ids(want));
        }
    }
}

fn plan_update(cx: &mut Ctx, d: &AutoModRule, l: &Live, w: &Wanted, source: String) {
    let mut b = ChangeBuilder::new();
    if l.name != d.name {
        b.changed(F::Name, json!(l.name), json!(d.name));
    }
    let live_meta = comparable(&l.trigger_metadata);
    let mut metadata = w.metadata.clone();
    // A mention rule keeps the live limit and raid protection where the manifest is silent.
    if w.kind == AutoModTriggerType::MentionSpam {
        if d.trigger.mention_limit.is_none() {
            metadata.mention_total_limit = live_meta.mention_total_limit;
        }
        if d.trigger.raid_protection.is_none() {
            metadata.mention_raid_protection_enabled = live_meta.mention_raid_protection_enabled;
        }
    }
    if live_meta != comparable(&metadata) {
        b.set(
            F::Trigger,
            json!(trigger_as_written(l.trigger_type, &live_meta)),
            json!(trigger_as_written(l.trigger_type, &metadata)),
            json!(metadata),
        );
    }
    let live_act = live_actions(l);
    if live_act != w.actions {
        b.set(
            F::Actions,
            actions_shown(cx, &live_act),
            actions_shown(cx, &w.actions),
            Value::Array(w.actions.clone()),
        );
    }
    let live = (live_refs(&l.exempt_roles), live_refs(&l.exempt_channels));
    set_exemptions(cx, &mut b, w, Some((&live.0, &live.1)));
    if l.enabled != d.enabled {
        b.changed(F::Enabled, json!(l.enabled), json!(d.enabled));
    }
    let route = Route::UpdateAutoModRule {
        guild: cx.guild(),
        rule: IdRef::Live(l.id.clone()),
    };
    AUTOMOD.update(cx, &d.name, &l.id, b, source, route);
}

fn plan_create(cx: &mut Ctx, d: &AutoModRule, w: &Wanted, source: String) {
    let mut b = ChangeBuilder::new();
    b.created(F::Name, json!(d.name));
    b.set(F::Trigger, Value::Null, json!(d.trigger), json!(w.metadata));
    b.body.insert("trigger_type".into(), json!(w.kind.value()));
    b.body
        .insert("event_type".into(), json!(w.kind.event().value()));
    b.set(
        F::Actions,
        Value::Null,
        actions_shown(cx, &w.actions),
        Value::Array(w.actions.clone()),
    );
    set_exemptions(cx, &mut b, w, None);
    b.created(F::Enabled, json!(d.enabled));
    let route = Route::CreateAutoModRule { guild: cx.guild() };
    AUTOMOD.create(cx, &d.name, b, source, route);
}

/// Deletes a live rule; `why`, when set, is said as a warning on the entry.
fn delete(cx: &mut Ctx, r: &Live, source: String, why: String) {
    if !why.is_empty() {
        cx.warn(
            Some(source.clone()),
            format!("AutoMod rule `{}`: {why}", r.name),
        );
    }
    let mut b = ChangeBuilder::new();
    b.show(
        F::Trigger,
        json!(trigger_as_written(r.trigger_type, &r.trigger_metadata)),
        Value::Null,
    );
    let route = Route::DeleteAutoModRule {
        guild: cx.guild(),
        rule: IdRef::Live(r.id.clone()),
    };
    let live = calls::Live {
        name: &r.name,
        id: &r.id,
    };
    AUTOMOD.delete(cx, live, b.fields, source, route, "");
}
