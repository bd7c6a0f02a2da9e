//! The plan itself: the changes and operations of one guild's reconciliation, the options a
//! user chose for it, and the verdicts judged on it (docs/architecture.md, "The data path").

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::change::{Action, Change, ObjectRef, Warning};
use super::deletion_gate::{DeletionGate, PolicyGate};
use super::image::ImageFiles;
use super::operation::Operation;
use super::policy_change::{PolicyBase, PolicyBaseline, PolicyChange};
use super::problem::{Duplicate, Problem};
use super::rehearsal::Rehearsal;
use super::stage::stage_waits_for;

/// Choices a user makes for one plan, beyond the manifest.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// Declared channels the bot cannot see that may be created anyway, because the
    /// user says they do not exist hidden (`--create-unseen`): `name` or `Category/name`.
    pub create_unseen: Vec<String>,
    /// The manifest's image files, read by [`diff_loaded`](crate::planner::diff_loaded) and [`differences`](crate::planner::differences) from the
    /// manifest's folder ([`crate::planner::read_image_files`]).
    pub images: ImageFiles,
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

/// What differs between a manifest and a live guild, and how to make the guild the manifest:
/// the changes for people, the operations for `apply`, and the verdicts judged on them. A
/// plain value: serialised, it is the saved plan (`plan --out`) that `apply --plan` reads.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    /// The plan format ([`PLAN_FORMAT`]).
    pub format: u32,
    /// The guildctl version that made the plan; `apply --plan` refuses another's.
    #[serde(default)]
    pub guildctl_version: String,
    /// The manifest's content digest ([`manifest_digest`](super::binding::manifest_digest)); `apply --plan`
    /// refuses the plan with a manifest whose digest differs. Empty when the plan was
    /// made from a manifest value rather than files.
    #[serde(default)]
    pub manifest_sha256: String,
    /// The digest of `changes` and `operations` ([`changes_digest`](super::binding::changes_digest)), for
    /// reviewers to match the plan applied with the plan reviewed.
    #[serde(default)]
    pub changes_sha256: String,
    /// The guild's id.
    pub guild_id: String,
    /// The guild's name, as read.
    pub guild_name: String,
    /// Fingerprint of the snapshot the plan was computed from; `apply --plan`
    /// refuses a plan whose guild has changed since.
    pub base_fingerprint: String,
    /// What differs, one object a change, in the order planned.
    pub changes: Vec<Change>,
    /// The API calls that make the changes, in an order that satisfies every
    /// dependency (roles before what names them, creates before references,
    /// deletions last).
    pub operations: Vec<Operation>,
    /// What a reviewer should know that does not stop the plan.
    pub warnings: Vec<Warning>,
    /// Live objects the manifest does not declare, kept as they are.
    pub unmanaged: Vec<ObjectRef>,
    /// What the plan deletes against the limits, and whether apply will refuse it.
    #[serde(default)]
    pub deletion_gate: DeletionGate,
    /// The verdict of applying the plan first to a copy of the guild, when it was
    /// rehearsed (`plan --rehearse`, `apply`); not part of the changes digest.
    pub rehearsal: Option<Rehearsal>,
    /// Get Guild Widget Image on the API base in use, when the widget is on once the plan
    /// is applied; not part of the changes digest.
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
    /// covers ([`crate::judge::policy_changes`]); like `access`, not part of the changes digest.
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

    /// Whether the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// How many changes do `action`.
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
}

/// A plan the deletion gate refuses.
#[derive(Debug, Clone, thiserror::Error)]
#[error("apply refused: the plan {message}")]
pub struct UnsafePlan {
    /// Why, after "the plan": each refusing gate's sentence.
    pub message: String,
}

/// A plan that cannot be made: the problems found before any call.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", summarise(.problems))]
pub struct PlanError {
    /// Every problem found.
    pub problems: Vec<Problem>,
    /// The plan as far as it could be computed, for display beside the problems.
    pub partial: Box<Plan>,
}

fn summarise(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
    format!(
        "the plan was refused before any change was made:\n  {}",
        lines.join("\n  ")
    )
}
