//! The plan: what differs between the manifest and the live guild, as field-level
//! changes for people and as ordered API operations for `apply`.
//!
//! A plan is a plain serialisable value. `diff` builds it, `gates` refuse it when
//! Discord would refuse one of its calls, `safety` judges what it deletes, `binding`
//! ties a saved plan to its manifest, guild and guildctl version, `risk` reads what it
//! widens or destroys, and `apply` executes its operations.

mod automod;
pub mod binding;
mod calls;
mod canonical_json;
mod channel_gates;
mod channels;
mod context;
mod diff;
mod emojis;
mod events;
mod expressions;
mod features;
pub mod field;
mod forum;
pub mod gates;
pub mod images;
mod integrations;
mod invites;
mod kind;
mod matching;
mod members;
mod order;
pub mod policies;
pub mod policy_changes;
mod regions;
pub mod rehearsal;
pub mod risk;
mod role_style;
mod roles;
pub mod safety;
mod settings;
mod sounds;
mod stickers;
mod webhooks;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::discord::Route;

/// What to read for a manifest's people: the reading room's ([`crate::snapshot::people_query`]).
pub use crate::snapshot::people_query;
pub use binding::{BindingError, Mismatch};
pub use context::{Duplicate, IdRef, PlanError, Problem};
pub use diff::{access_view, diff, diff_loaded, diff_with, differences};
pub use field::{Field, FieldChange};
pub use kind::{
    AuditActions, DeleteKind, Door, Grantee, Kind, KindFacts, PeopleEntries, Protect, ReliedOn,
    WhenMissing,
};
pub use members::BULK_BAN_MAX;
pub use policy_changes::{PolicyBase, PolicyBaseline, PolicyChange, PriorPolicy};
pub use rehearsal::{Rehearsal, RehearsalRefusal};
pub use risk::{Risk, Widening};
pub use safety::{Allowance, DeletionGate, PolicyAllowance, PolicyGate};

/// Choices a user makes for one plan, beyond the manifest.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// Declared channels the bot cannot see that may be created anyway, because the
    /// user says they do not exist hidden (`--create-unseen`): `name` or `Category/name`.
    pub create_unseen: Vec<String>,
    /// The manifest's image files, read by [`diff_loaded`] and [`differences`] from the
    /// manifest's folder ([`images::read_image_files`]).
    pub images: images::ImageFiles,
    /// The API base in use, for the links a plan shows (the widget image); none, none shown.
    pub api_base: Option<String>,
    /// The command line's allowance of deletions (`apply --allow-deletes N`): the deletion
    /// gate takes it in place of the manifest's `safety.allow_deletes`.
    pub allow_deletes: Option<usize>,
    /// The command line's allowance of policy changes (`apply --allow-policy-changes N`):
    /// the policy gate takes it in place of the manifest's `safety.allow_policy_changes`.
    pub allow_policy_changes: Option<usize>,
    /// The policies a change is compared with (`--policies-base REV`, read from Git).
    pub policy_baseline: PolicyBaseline,
}

impl PlanOptions {
    /// These options with the API base the session talks to.
    pub fn with_api_base(self, api_base: &str) -> PlanOptions {
        PlanOptions {
            api_base: Some(api_base.to_owned()),
            ..self
        }
    }
}

/// Format version of serialised plans (2 added the binding digests and the deletion gate;
/// 3 the user a roster entry or ban names, as Discord knows them: [`Change::person`], the
/// deletion gate's member bans, and an image change bound to the file's bytes: its `after`
/// is the file with its SHA-256, size, type and dimensions, its upload placeholder carries
/// the SHA-256; 4 typed fields: each field change names the API field it is sent as, `api`).
pub const PLAN_FORMAT: u32 = 4;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub format: u32,
    /// The guildctl version that made the plan; `apply --plan` refuses another's.
    #[serde(default)]
    pub guildctl_version: String,
    /// The manifest's content digest ([`binding::manifest_digest`]); `apply --plan`
    /// refuses the plan with a manifest whose digest differs. Empty when the plan was
    /// made from a manifest value rather than files.
    #[serde(default)]
    pub manifest_sha256: String,
    /// The digest of `changes` and `operations` ([`binding::changes_digest`]), for
    /// reviewers to match the plan applied with the plan reviewed.
    #[serde(default)]
    pub changes_sha256: String,
    pub guild_id: String,
    pub guild_name: String,
    /// Fingerprint of the snapshot the plan was computed from; `apply --plan`
    /// refuses a plan whose guild has changed since.
    pub base_fingerprint: String,
    pub changes: Vec<Change>,
    /// The API calls that make the changes, in an order that satisfies every
    /// dependency (roles before what names them, creates before references,
    /// deletions last).
    pub operations: Vec<Operation>,
    pub warnings: Vec<Warning>,
    /// Live objects the manifest does not declare, kept as they are.
    pub unmanaged: Vec<ObjectRef>,
    /// What the plan deletes against the limits, and whether apply will refuse it.
    #[serde(default)]
    pub deletion_gate: DeletionGate,
    /// The verdict of applying the plan first to a copy of the guild, when it was
    /// rehearsed (`plan --rehearse`, `apply`); not part of the changes digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rehearsal: Option<Rehearsal>,
    /// Get Guild Widget Image on the API base in use, when the widget is on once the plan
    /// is applied; not part of the changes digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widget_image_url: Option<String>,
    /// Who gains and who loses what, where, once the plan is applied, computed as Discord
    /// computes permissions from the live guild and the plan (docs/access.md); like
    /// `rehearsal`, not part of the changes digest: apply makes it again with the plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access: Vec<crate::access::AccessChange>,
    /// The names of the policies (`policies:`) the guild keeps once the plan is applied; a
    /// plan that would break one is refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies_kept: Vec<String>,
    /// Policies this change removes, renames or changes, and what leaves what a policy
    /// covers ([`policy_changes`]); like `access`, not part of the changes digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policy_changes: Vec<PolicyChange>,
    /// What the policies were compared with (a base revision, or why none).
    #[serde(default, skip_serializing_if = "PolicyBase::is_not_given")]
    pub policy_base: PolicyBase,
    /// The policy changes against the allowance, and whether apply will refuse them.
    #[serde(default, skip_serializing_if = "PolicyGate::is_empty")]
    pub policy_gate: PolicyGate,
    /// Declared entries that match more than one live object, and which one each manages
    /// (also said as a warning at the entry); not part of the changes digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<Duplicate>,
}

/// Operations of this stage and later wait for every operation of an earlier stage.
pub fn barrier_stage() -> u8 {
    context::Phase::FIRST_BARRIER as u8
}

/// Whether a call of stage `stage` waits for every earlier call of stage `earlier`,
/// whatever it names: from the settings stage on, for every earlier stage; the role
/// order for the role creates.
pub fn stage_waits_for(stage: u8, earlier: u8) -> bool {
    let barrier = context::Phase::FIRST_BARRIER as u8;
    (stage >= barrier && earlier < stage)
        || (stage == context::Phase::RoleOrder as u8 && earlier == context::Phase::RoleCreate as u8)
}

impl Plan {
    /// Every operation that must be done before operation `j` starts: those it
    /// names, and from the settings stage on, every operation of an earlier stage;
    /// the role order waits for the role creates.
    pub fn prerequisites(&self, j: usize) -> Vec<usize> {
        let op = &self.operations[j];
        let mut out = op.after.clone();
        if !(0..=u8::MAX).any(|t| stage_waits_for(op.stage, t)) {
            return out;
        }
        // A set, not `out.contains`: a late stage waits for thousands of calls.
        let named: hashbrown::HashSet<usize> = op.after.iter().copied().collect();
        for (i, other) in self.operations.iter().enumerate().take(j) {
            if stage_waits_for(op.stage, other.stage) && !named.contains(&i) {
                out.push(i);
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// What the plan widens or destroys ([`risk::assess`]), read from its changes.
    pub fn risks(&self) -> Vec<Risk> {
        risk::assess(self)
    }

    pub fn count(&self, action: Action) -> usize {
        self.changes.iter().filter(|c| c.action == action).count()
    }

    /// Refuses the plan when its deletion gate or its policy gate does (octoDNS's
    /// `Plan.raise_if_unsafe`).
    pub fn raise_if_unsafe(&self) -> Result<(), UnsafePlan> {
        match self.refusals().as_slice() {
            [] => Ok(()),
            all => Err(UnsafePlan {
                message: all.join("; and it "),
            }),
        }
    }

    /// Why apply will refuse the plan, a sentence per gate that refuses it (each starts with
    /// a verb: "deletes 3 of 4 roles …", "changes 1 policy …").
    pub fn refusals(&self) -> Vec<String> {
        [self.deletion_gate.refusal(), self.policy_gate.refusal()]
            .into_iter()
            .flatten()
            .collect()
    }

    /// Takes in the policy changes the reviewed plan listed that this one, derived at apply,
    /// does not (apply compared with another revision, or with none), and judges the gate
    /// again: what was reviewed as a policy change stays one, whatever apply can read.
    pub fn hold_reviewed_policy_changes(&mut self, reviewed: &Plan) {
        let missing: Vec<PolicyChange> = reviewed
            .policy_changes
            .iter()
            .filter(|c| !self.policy_changes.contains(c))
            .cloned()
            .collect();
        if missing.is_empty() {
            return;
        }
        self.policy_changes.extend(missing);
        self.policy_gate = safety::policy_gate(&self.policy_changes, self.policy_gate.allowance);
    }
}

/// A plan the deletion gate refuses.
#[derive(Debug, Clone, thiserror::Error)]
#[error("apply refused: the plan {message}")]
pub struct UnsafePlan {
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Create,
    Update,
    Reorder,
    Delete,
}

/// Which object a change is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    pub kind: Kind,
    /// Display name: a role's name, `#channel`, `Category/#channel`.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "field::WireChange")]
pub struct Change {
    pub action: Action,
    pub object: ObjectRef,
    /// Field-level before/after, in manifest terms (names, not ids or bits), each with the
    /// field it is ([`Field`]).
    pub fields: Vec<FieldChange>,
    /// Where in the manifest the object is declared, e.g. `roles[2]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For a roster entry or a ban: the user it names, as the plan read them from Discord.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<Person>,
}

impl Change {
    /// `update role Moderator (permissions, color)`: what a refusal names.
    pub fn describe(&self) -> String {
        let verb = match self.action {
            Action::Create => "create",
            Action::Update => "update",
            Action::Reorder => "reorder",
            Action::Delete => "delete",
        };
        let fields: Vec<_> = self.fields.iter().map(|f| f.field.name()).collect();
        let mut s = format!("{verb} {} {}", self.object.kind.label(), self.object.name);
        if !fields.is_empty() {
            s.push_str(&format!(" ({})", fields.join(", ")));
        }
        s
    }

    /// Whether this change bans someone who is a member now (destructive: they leave the
    /// guild with every role they hold).
    pub fn bans_member(&self) -> bool {
        self.action == Action::Create
            && self.object.kind == Kind::Ban
            && self.person.as_ref().is_some_and(|p| p.member)
    }
}

/// A user a plan names (a roster entry's, a ban's), as Discord knows them. The manifest's
/// `name` for a user is a comment: the plan shows the live username, and the manifest's
/// name only where it is not that.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// Their username on Discord; `None` when Discord knows no user with this id.
    pub username: Option<String>,
    /// Whether they are a member of the guild now.
    pub member: bool,
    /// For a member to be banned: the roles they hold, highest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<HeldRole>,
    /// The manifest's `name` for them, when it is not their username: a comment that would
    /// mislead a reviewer, shown as a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_in_manifest: Option<String>,
}

/// A role a member holds, with the dangerous permissions it grants (none: empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldRole {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dangerous: Vec<String>,
}

/// One API call. Ids of objects created earlier in the same run appear in its route as
/// [`IdRef::New`] and in bodies as `{"$created": KEY}`, and are filled in by `apply`.
///
/// A saved plan writes the route and, beside it, its method and path for people and for
/// the changes digest; they are read back only to be checked against the route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "WireOperation", try_from = "WireOperation")]
pub struct Operation {
    /// The call: its method, path, audit-log reason and bucket follow from it.
    pub route: Route<IdRef>,
    pub body: Option<Value>,
    /// The key under which the id of the object this call creates is remembered.
    pub creates: Option<String>,
    /// The audit-log reason this call sends instead of apply's (a ban's own reason).
    pub reason: Option<String>,
    /// A short human description, for progress output.
    pub summary: String,
    /// Index into `Plan::changes` of the change this call implements.
    pub change: usize,
    /// Indexes of the operations this one needs done first (see [`Plan::prerequisites`]).
    pub after: Vec<usize>,
    /// Its place in the order of kinds of call (roles, channels, settings, ...,
    /// deletions); later stages from settings on wait for every earlier stage.
    pub stage: u8,
}

/// An operation as a saved plan writes it.
#[derive(Serialize, Deserialize)]
struct WireOperation {
    route: Route<IdRef>,
    method: String,
    path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    creates: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    summary: String,
    change: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    after: Vec<usize>,
    stage: u8,
}

impl From<Operation> for WireOperation {
    fn from(op: Operation) -> WireOperation {
        WireOperation {
            method: op.route.method().to_string(),
            path: op.route.path(),
            route: op.route,
            body: op.body,
            creates: op.creates,
            reason: op.reason,
            summary: op.summary,
            change: op.change,
            after: op.after,
            stage: op.stage,
        }
    }
}

impl TryFrom<WireOperation> for Operation {
    type Error = String;

    fn try_from(w: WireOperation) -> Result<Operation, String> {
        let (method, path) = (w.route.method(), w.route.path());
        if w.method != method.as_str() || w.path != path {
            return Err(format!(
                "an operation shows {} {} but its route is {method} {path}",
                w.method, w.path
            ));
        }
        Ok(Operation {
            route: w.route,
            body: w.body,
            creates: w.creates,
            reason: w.reason,
            summary: w.summary,
            change: w.change,
            after: w.after,
            stage: w.stage,
        })
    }
}

impl Operation {
    /// The creation keys this operation's route and body refer to.
    pub fn references(&self) -> Vec<String> {
        fn walk(v: &Value, out: &mut Vec<String>) {
            if let Some(k) = created_key(v) {
                out.push(k.to_owned());
                return;
            }
            match v {
                Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
                Value::Object(m) => m.values().for_each(|i| walk(i, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(b) = &self.body {
            walk(b, &mut out);
        }
        out.extend(
            self.route
                .ids()
                .filter_map(IdRef::created)
                .map(str::to_owned),
        );
        out
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The placeholder for the id of an object created earlier in the run.
pub fn created_ref(key: &str) -> Value {
    serde_json::json!({ "$created": key })
}

/// The placeholder for a created object's id inside an operation's path.
pub fn created_path_ref(key: &str) -> String {
    format!("{{$created:{key}}}")
}

/// The placeholder for an image file next to the manifest, sent as a data URI of its bytes
/// once apply has checked that their SHA-256 is `sha256`, the digest the plan was made with.
pub fn image_ref(path: &str, sha256: &str) -> Value {
    serde_json::json!({ "$image": path, "sha256": sha256 })
}

/// The key in a `{"$created": KEY}` placeholder, if `v` is one.
pub fn created_key(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) if m.len() == 1 => m.get("$created").and_then(Value::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved operation is its route, with the method and path shown beside it; a file whose
    /// shown path is not its route's is not a plan (a reviewer would read one call, apply
    /// derive another).
    #[test]
    fn a_saved_operation_shows_its_routes_method_and_path_and_is_read_by_its_route() {
        let op = Operation {
            route: Route::CreateWebhook {
                channel: IdRef::New("channel:Staff/mod-log".into()),
            },
            body: Some(serde_json::json!({"name": "hook"})),
            creates: Some("webhook:hook".into()),
            reason: None,
            summary: "create webhook hook".into(),
            change: 0,
            after: vec![],
            stage: 8,
        };
        let json = serde_json::to_value(&op).unwrap();
        assert_eq!(
            json["route"],
            serde_json::json!({"create_webhook": {"channel": {"$created": "channel:Staff/mod-log"}}})
        );
        assert_eq!(json["method"], "POST");
        assert_eq!(
            json["path"],
            "/channels/{$created:channel:Staff/mod-log}/webhooks"
        );
        assert_eq!(
            serde_json::from_value::<Operation>(json.clone()).unwrap(),
            op
        );
        assert_eq!(op.references(), ["channel:Staff/mod-log"]);

        let mut lying = json;
        lying["path"] = serde_json::json!("/channels/1/webhooks");
        let e = serde_json::from_value::<Operation>(lying)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("an operation shows POST /channels/1/webhooks but its route is POST /channels/{$created:channel:Staff/mod-log}/webhooks"),
            "{e}"
        );
    }
}
