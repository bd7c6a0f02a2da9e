//! The vocabulary every planner shares: the planning context (`Ctx`) with its
//! indexes of the manifest and snapshot, the phases calls run in, references to
//! objects created earlier in the run, and the builders of changes and calls.
//! The planners import it; `diff` runs them in order.

use hashbrown::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::discord::Route;
use crate::discord::models::channel_type;
use crate::discord::names::{is_normalised_type, stored_channel_name, stored_display_name};
use crate::manifest::{Manifest, resolve_channel_ref};
use crate::plan::{
    Action, Change, Duplicate, Field, FieldChange, IdRef, Kind, ObjectRef, Operation, Phase,
    PlanOptions, Problem, Warning,
};
use crate::snapshot::Snapshot;

/// What to do about a channel the bot may not be able to see (docs/discord.md §9.1).
pub(crate) const UNSEEN_HELP: &str = "Discord omits the channels a bot cannot view: give the bot's \
     role `view_channel` on the channel (or its category) and plan again; if the channel \
     surely does not exist, `--create-unseen NAME` lets guildctl create it";

/// One planning: the manifest, the live guild, and what the planners have made of them so far.
pub struct Ctx<'a> {
    pub snap: &'a Snapshot,
    pub manifest: &'a Manifest,
    pub options: &'a PlanOptions,
    pub guild_id: String,
    pub changes: Vec<Change>,
    pub(crate) ops: Vec<Op>,
    pub warnings: Vec<Warning>,
    /// Declared entries that match more than one live object (`plan_kit::matching`).
    pub duplicates: Vec<Duplicate>,
    pub unmanaged: Vec<ObjectRef>,
    pub problems: Vec<Problem>,
    /// @everyone's guild permissions once the plan is applied.
    pub everyone_after: crate::permissions::Permissions,
    /// The welcome screen and onboarding once the plan is applied (ids resolved), for a
    /// new member's view: the live ones, which the planners replace where declared.
    pub joining_after: crate::access::onboarding::Joining,
    /// Role names (declared and live) → id, for overwrites.
    pub role_ids: HashMap<String, IdRef>,
    /// Live role id → the name it has once the plan is applied (for display).
    pub role_names: HashMap<String, String>,
    /// The channels a reference may name: declared ones, and live ones no declaration
    /// matched.
    pub channel_refs: ChannelRefs,
    /// The guild as access sees it, live.
    pub access_live: crate::access::Guild,
    /// The same once the plan is applied: the planners record what they change, with the
    /// change that does it.
    pub access_after: crate::access::Guild,
    /// Channel follower webhooks a channel's `follows` manages: not listed as unmanaged.
    pub managed_followers: hashbrown::HashSet<String>,
}

/// Any channel but a category.
pub(crate) const ANY_CHANNEL: &[u8] = &[
    channel_type::TEXT,
    channel_type::VOICE,
    channel_type::ANNOUNCEMENT,
    channel_type::STAGE,
    channel_type::FORUM,
    channel_type::MEDIA,
];

/// Every channel type, to ask whether a reference names a channel of another type.
pub(crate) const ALL_TYPES: &[u8] = &[
    channel_type::TEXT,
    channel_type::VOICE,
    channel_type::CATEGORY,
    channel_type::ANNOUNCEMENT,
    channel_type::STAGE,
    channel_type::FORUM,
    channel_type::MEDIA,
];

/// One channel a reference may name.
#[derive(Debug, Clone)]
struct RefTarget {
    id: IdRef,
    kind: u8,
    /// The name as Discord stores it for this kind ([`stored_channel_name`]), what a
    /// reference is compared with.
    stored: String,
    category: Option<String>,
}

/// The channels references may name, indexed so that each reference costs a lookup;
/// resolved with the checks' rule (`manifest::resolve_channel_ref`), so the
/// plan means by a reference what validation said it means.
#[derive(Debug, Default)]
pub struct ChannelRefs {
    targets: Vec<RefTarget>,
    /// Every name in the form Discord stores a text channel's → the targets so named:
    /// names that answer to one another (as text or exactly) share this form.
    by_name: HashMap<String, Vec<usize>>,
    by_live_id: HashMap<String, usize>,
}

impl ChannelRefs {
    fn add(&mut self, id: &IdRef, kind: u8, name: &str, category: Option<&str>) {
        let i = self.targets.len();
        if let IdRef::Live(live) = id {
            self.by_live_id.insert(live.clone(), i);
        }
        self.by_name
            .entry(stored_channel_name(channel_type::TEXT, name).into_owned())
            .or_default()
            .push(i);
        self.targets.push(RefTarget {
            id: id.clone(),
            kind,
            stored: stored_channel_name(kind, name).into_owned(),
            category: category.map(str::to_owned),
        });
    }

    /// The name of a type in `kinds` nearest to `reference`, for a "did you mean".
    fn closest(&self, reference: &str, kinds: &[u8]) -> Option<String> {
        let names = self
            .targets
            .iter()
            .filter(|t| kinds.contains(&t.kind))
            .map(|t| t.stored.as_str());
        crate::manifest::closest(reference, names).map(str::to_owned)
    }

    /// The channel type of a channel a reference may name.
    pub fn kind_of(&self, id: &IdRef) -> Option<u8> {
        self.targets.iter().find(|t| &t.id == id).map(|t| t.kind)
    }

    /// The targets of a type in `kinds` that `reference` names: a live id, or a
    /// (possibly `Category/`-qualified) name.
    fn find(&self, reference: &str, kinds: &[u8]) -> Vec<usize> {
        if let Some(&i) = self.by_live_id.get(reference) {
            return if kinds.contains(&self.targets[i].kind) {
                vec![i]
            } else {
                Vec::new()
            };
        }
        let named = |category: Option<&str>, name: &str| -> Vec<usize> {
            let text = stored_channel_name(channel_type::TEXT, name);
            let Some(found) = self.by_name.get(&*text) else {
                return Vec::new();
            };
            // `name` as each kind of channel would store it (`names::channel_answers_to`).
            let display = stored_display_name(name);
            found
                .iter()
                .copied()
                .filter(|&i| {
                    let t = &self.targets[i];
                    let wanted = if is_normalised_type(t.kind) {
                        &text
                    } else {
                        &display
                    };
                    kinds.contains(&t.kind)
                        && t.stored == **wanted
                        && (category.is_none() || t.category.as_deref() == category)
                })
                .collect()
        };
        resolve_channel_ref(reference, named, |i| self.targets[i].stored.as_str())
    }
}

impl<'a> Ctx<'a> {
    pub fn new(manifest: &'a Manifest, snap: &'a Snapshot, options: &'a PlanOptions) -> Ctx<'a> {
        let access_live = crate::access::Guild::live(snap);
        Ctx {
            access_after: access_live.clone(),
            access_live,
            snap,
            manifest,
            options,
            guild_id: snap.guild.id.clone(),
            changes: Vec::new(),
            ops: Vec::new(),
            warnings: Vec::new(),
            duplicates: Vec::new(),
            unmanaged: Vec::new(),
            problems: Vec::new(),
            role_ids: HashMap::new(),
            role_names: HashMap::new(),
            everyone_after: snap
                .everyone_role()
                .map(|r| r.permissions)
                .unwrap_or_default(),
            joining_after: crate::access::onboarding::Joining::live(snap),
            channel_refs: ChannelRefs::default(),
            managed_followers: hashbrown::HashSet::new(),
        }
    }

    pub fn push_change(&mut self, change: Change) -> usize {
        self.changes.push(change);
        self.changes.len() - 1
    }

    /// Records a call ([`Op`]).
    pub(crate) fn push_op(&mut self, op: Op) {
        self.ops.push(op);
    }

    pub fn problem(&mut self, source: Option<String>, message: String, help: Option<&str>) {
        self.problems.push(Problem {
            policy: None,
            message,
            source,
            help: help.map(str::to_owned),
        });
    }

    /// The help for a role reference that resolves to nothing: the nearest role name, or
    /// how to make one.
    pub fn role_help(&self, reference: &str) -> String {
        match crate::manifest::closest(reference, self.role_ids.keys().map(String::as_str)) {
            Some(best) => format!("did you mean `{best}`?"),
            None => "declare the role under `roles`, or correct the name".to_owned(),
        }
    }

    /// Resolves a role reference written in the manifest at `source` (every planner's role
    /// references come here): a declared role by its name, a live one by its name or id.
    /// A previous name of a declared role is a problem even while a live role still has it
    /// (apply renames that role, so the reference would name nothing after it), and so is a
    /// name neither declared nor live. `manifest check` refuses both first; this holds for
    /// a plan made without it.
    pub fn resolve_role(&mut self, reference: &str, source: &str) -> Option<IdRef> {
        let roles = self.manifest.roles.as_deref().unwrap_or_default();
        if !roles.iter().any(|r| r.name == reference)
            && let Some(renamed) = roles
                .iter()
                .find(|r| r.previous_names.iter().any(|p| p == reference))
        {
            let new = renamed.name.clone();
            self.problem(
                Some(source.to_owned()),
                format!(
                    "role `{reference}` is a previous name of role `{new}`: apply renames it, so nothing will have that name"
                ),
                Some(&format!("name it by its new name: `{new}`")),
            );
            return None;
        }
        if let Some(id) = self.role_ids.get(reference) {
            return Some(id.clone());
        }
        let help = self.role_help(reference);
        self.problem(
            Some(source.to_owned()),
            format!("role `{reference}` is neither declared nor in the guild"),
            Some(&help),
        );
        None
    }

    pub fn warn(&mut self, source: Option<String>, message: String) {
        self.warnings.push(Warning { message, source });
    }

    /// Makes channel `id` of type `kind`, called `name` in category `parent`, one a
    /// reference may name.
    pub fn add_channel_ref(&mut self, id: &IdRef, kind: u8, name: &str, parent: Option<&str>) {
        self.channel_refs.add(id, kind, name, parent);
    }

    /// Resolves a channel reference written in the manifest at `source`, reporting a
    /// reference that is unknown, ambiguous, or of a type `kinds` does not allow.
    pub fn resolve_channel(
        &mut self,
        reference: &str,
        source: &str,
        kinds: &[u8],
    ) -> Option<IdRef> {
        let fitting = self.channel_refs.find(reference, kinds);
        let found = if fitting.is_empty() {
            // Asked again with every type, to tell "wrong type" from "missing".
            self.channel_refs.find(reference, ALL_TYPES)
        } else {
            fitting.clone()
        };
        match (found.len(), fitting.as_slice()) {
            (0, _) if self.snap.sees_every_channel() => {
                let near = self.channel_refs.closest(reference, kinds);
                self.problems.push(Problem {
                    message: format!("channel `{reference}` is neither declared nor in the guild"),
                    source: Some(source.to_owned()),
                    help: Some(match near {
                        Some(best) => format!("did you mean `{best}`?"),
                        None => "declare the channel under `channels`, or correct the name".into(),
                    }),
                    policy: None,
                });
            }
            (0, _) => self.problem(
                Some(source.to_owned()),
                format!(
                    "channel `{reference}` is neither declared nor among the channels the bot can see; \
                     it may exist hidden from the bot, which is not an administrator"
                ),
                Some(UNSEEN_HELP),
            ),
            (_, [one]) => return Some(self.channel_refs.targets[*one].id.clone()),
            (_, []) => self.problem(
                Some(source.to_owned()),
                format!("`{reference}` is not a {} channel", kinds_label(kinds)),
                None,
            ),
            _ => self.problem(
                Some(source.to_owned()),
                format!("`{reference}` names {} channels", fitting.len()),
                Some("write it as `Category/name` to say which"),
            ),
        }
        None
    }

    /// Records that the list entry at `source`, written `written`, resolved to `id`. When an
    /// earlier entry of the same list (`seen`) resolved to the same object — one channel or
    /// role in two spellings — reports it at `source` and returns false: the caller drops the
    /// entry, so nothing counts the object twice or sends it twice.
    pub fn first_in_list(
        &mut self,
        seen: &mut Vec<(IdRef, String, String)>,
        id: &IdRef,
        source: &str,
        written: &str,
        what: &str,
    ) -> bool {
        let Some((_, first, first_written)) = seen.iter().find(|(i, _, _)| i == id) else {
            seen.push((id.clone(), source.to_owned(), written.to_owned()));
            return true;
        };
        let message = if first_written == written {
            format!("{what} `{written}` is listed twice (first at {first})")
        } else {
            format!("`{written}` names the same {what} as `{first_written}` (first at {first})")
        };
        let help = format!(
            "remove this entry: a {what} is listed once, however it is written (name, id{})",
            if what == "channel" {
                ", `Category/name` or the name as Discord stores it"
            } else {
                ""
            }
        );
        self.problems.push(Problem {
            policy: None,
            message,
            source: Some(source.to_owned()),
            help: Some(help),
        });
        false
    }

    /// The name a channel will have once the plan is applied, for display.
    pub fn channel_label(&self, id: &IdRef) -> String {
        match id {
            // A declared channel by its declared name: a rename shows as the new name.
            IdRef::Live(id) => self
                .channel_refs
                .by_live_id
                .get(id)
                .map(|&i| self.channel_refs.targets[i].stored.clone())
                .or_else(|| self.snap.channel(id).map(|c| c.name.clone()))
                .unwrap_or_else(|| id.clone()),
            // Keys are `channel:Name` or `channel:Category/name`.
            IdRef::New(key) => {
                let path = key.trim_start_matches("channel:");
                path.rsplit('/').next().unwrap_or(path).to_owned()
            }
        }
    }

    /// The name a role will have once the plan is applied, for display.
    pub fn role_label(&self, id: &IdRef) -> String {
        match id {
            IdRef::Live(id) => self
                .role_names
                .get(id)
                .cloned()
                .unwrap_or_else(|| id.clone()),
            IdRef::New(key) => key.trim_start_matches("role:").to_owned(),
        }
    }

    /// The guild, as a route names it.
    pub fn guild(&self) -> IdRef {
        IdRef::Live(self.guild_id.clone())
    }
}

/// One call a planner asks for: its phase, the change it implements, its route, and what
/// it sends.
pub(crate) struct Op {
    pub(crate) phase: Phase,
    pub(crate) operation: Operation,
    /// Objects whose earlier writes of the run it waits for ([`Op::after_writes_of`]).
    pub(crate) after_writes_of: Vec<IdRef>,
}

impl Op {
    /// A call of `phase` for the change at index `change`, shown as `summary` while apply runs.
    pub fn new(phase: Phase, change: usize, route: Route<IdRef>, summary: String) -> Op {
        Op {
            phase,
            operation: Operation {
                route,
                body: None,
                creates: None,
                reason: None,
                summary,
                change,
                after: Vec::new(),
                stage: phase as u8,
            },
            after_writes_of: Vec::new(),
        }
    }

    /// Waits for every call of an earlier phase whose path names `object` (a category's
    /// update, before a call whose result Discord's copy of that category's overwrites
    /// would change). Calls before the settings phase otherwise run in any order.
    pub fn after_writes_of(mut self, object: IdRef) -> Op {
        self.after_writes_of.push(object);
        self
    }

    pub fn body(mut self, body: Value) -> Op {
        self.operation.body = Some(body);
        self
    }

    /// The key the id of the object it creates is remembered under.
    pub fn creates(mut self, key: String) -> Op {
        self.operation.creates = Some(key);
        self
    }

    /// The audit-log reason it sends instead of apply's (a ban's own reason).
    pub fn reason(mut self, reason: Option<String>) -> Op {
        self.operation.reason = reason;
        self
    }
}

/// A change with its fields, built field by field.
pub(crate) struct ChangeBuilder {
    pub fields: Vec<FieldChange>,
    pub body: serde_json::Map<String, Value>,
}

impl ChangeBuilder {
    pub fn new() -> Self {
        ChangeBuilder {
            fields: Vec::new(),
            body: serde_json::Map::new(),
        }
    }

    /// Records a field whose display value and API value may differ; `api` goes into the
    /// body under the field's API name.
    pub fn set(&mut self, field: impl Into<Field>, before: Value, after: Value, api: Value) {
        let field = field.into();
        if let Some(key) = field.api() {
            self.body.insert(key.to_owned(), api);
        }
        self.fields.push(FieldChange {
            field,
            before,
            after,
        });
    }

    /// Records a field sent as it is shown: `after` goes into the body.
    pub fn changed(&mut self, field: impl Into<Field>, before: Value, after: Value) {
        self.set(field, before, after.clone(), after);
    }

    /// Records a field a creation sets, sent as it is shown.
    pub fn created(&mut self, field: impl Into<Field>, value: Value) {
        self.changed(field, Value::Null, value);
    }

    /// Records a field the change shows but whose value this body does not carry (a
    /// channel's move, sent by the positions call; overwrites Discord copies itself).
    pub fn show(&mut self, field: impl Into<Field>, before: Value, after: Value) {
        self.fields.push(FieldChange::new(field, before, after));
    }

    /// Records a field when the desired value differs from the live one.
    pub fn compare<T: Serialize + PartialEq>(
        &mut self,
        field: impl Into<Field>,
        live: T,
        desired: Option<T>,
    ) {
        if let Some(d) = desired
            && d != live
        {
            let before = json(&live);
            let after = json(&d);
            self.set(field, before, after.clone(), after);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

fn kinds_label(kinds: &[u8]) -> &'static str {
    if kinds.contains(&channel_type::VOICE) {
        "voice"
    } else {
        "text"
    }
}

pub(crate) fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The change for creating, updating or deleting one object.
pub(crate) fn change(
    action: Action,
    kind: Kind,
    name: String,
    id: Option<String>,
    fields: Vec<FieldChange>,
    source: Option<String>,
) -> Change {
    Change {
        action,
        object: ObjectRef { kind, name, id },
        fields,
        source,
        person: None,
    }
}
