//! Policy changes as values: what a plan removes, renames or loosens of the policies, and
//! what leaves what a policy covers (found by `judge::policy_changes`).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use crate::manifest::Policy;

/// The policies a change is compared with, as the command found them.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum PolicyBaseline {
    /// No base revision was given (`--policies-base`).
    #[default]
    NotGiven,
    /// The revision given could not be read: why.
    Unreadable {
        /// The revision as given.
        revision: String,
        /// Why it could not be read.
        why: String,
    },
    /// The policies at `revision` (commit `commit`), and the files (relative to the
    /// repository) the manifest reads now.
    At {
        /// The revision as given.
        revision: String,
        /// The commit it names.
        commit: String,
        /// The policies it had.
        policies: Vec<PriorPolicy>,
        /// The files the manifest reads now, relative to the repository.
        files_now: Vec<String>,
    },
}

/// A policy as the base revision had it, and the file (relative to the repository) that
/// defined it.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorPolicy {
    /// The policy as the revision had it.
    pub policy: Policy,
    /// The file that defined it, relative to the repository.
    pub file: String,
}

/// What the plan was compared with, as it says it (JSON `policy_base`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "compared", rename_all = "snake_case")]
pub enum PolicyBase {
    /// No base revision: a policy removed or weakened by the change is not seen.
    #[default]
    NotGiven,
    /// The revision could not be read, so neither is that.
    Unreadable {
        /// The revision as given.
        revision: String,
        /// Why it could not be read.
        why: String,
    },
    /// The policies of this revision.
    Revision {
        /// The revision as given.
        revision: String,
        /// The commit it names.
        commit: String,
    },
}

impl PolicyBase {
    /// Whether no base revision was given.
    pub fn is_not_given(&self) -> bool {
        *self == PolicyBase::NotGiven
    }

    /// The sentence a plan with policies says about a comparison that was not made.
    pub fn note(&self) -> Option<String> {
        match self {
            PolicyBase::NotGiven => Some(
                "Policy changes were not compared with a base revision (--policies-base REV): a policy this change removes or weakens is not seen here".into(),
            ),
            PolicyBase::Unreadable { revision, why } => Some(format!(
                "Policy changes could not be compared with {revision}: {why}; a policy this change removes or weakens is not seen here"
            )),
            PolicyBase::Revision { .. } => None,
        }
    }
}

/// A policy this change removes, renames or changes, or something that leaves what one
/// covers.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyChange {
    /// The policy's name (before the change, for one renamed).
    pub policy: String,
    /// What happens to it.
    #[serde(flatten)]
    pub what: PolicyChangeKind,
    /// The policy's rule in words before the change, and after it; none where there is none.
    pub before: Option<String>,
    /// Its rule in words after the change.
    pub after: Option<String>,
    /// The file that defined it at the base revision, relative to the repository.
    pub defined_in: Option<String>,
    /// Where the policy is declared now (`policies[2]`), for a placed finding (SARIF);
    /// none for one removed.
    pub declared_at: Option<String>,
}

/// What happens to the policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "policy_change", rename_all = "snake_case")]
pub enum PolicyChangeKind {
    /// It is gone: `why` says how (deleted from its file, or its file no longer read).
    Removed {
        /// How it went.
        why: String,
    },
    /// Its rule is kept under another name.
    Renamed {
        /// Its new name.
        to: String,
    },
    /// Its rule changed and covers less: what it no longer covers.
    Weakened {
        /// What it no longer covers, in words.
        no_longer: Vec<String>,
    },
    /// Its rule changed in a way not compared (`only` guild-wide and in channels, another
    /// kind of rule): reviewed as a weakening.
    Changed,
    /// Its rule changed and covers at least as much in this guild: not a risk.
    NoWeaker,
    /// Its rule is the same, and something it covered before the plan is outside it after.
    Leaves {
        /// What leaves it.
        item: ScopeObject,
        /// Where or what it is now.
        now: String,
    },
    /// An `only` rule's `who` gains a role or a member who was outside it.
    Enters {
        /// Who enters it.
        item: ScopeObject,
        /// What they are now.
        now: String,
    },
}

/// A channel, category, role or member a policy covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeObject {
    /// `channel`, `category`, `role` or `member`.
    pub kind: String,
    /// As a plan names it before the change: `Staff/#mod-log`, `Helper`, `alice (123)`.
    pub name: String,
    /// Its live id.
    pub id: String,
}

impl PolicyChange {
    /// Whether the policy gate counts it: every change but a member's (a roster entry is
    /// an act on people, listed and reviewed in the plan, not a change to what a policy
    /// protects) and a change that covers as much.
    pub fn gated(&self) -> bool {
        match &self.what {
            PolicyChangeKind::NoWeaker => false,
            PolicyChangeKind::Leaves { item, .. } | PolicyChangeKind::Enters { item, .. } => {
                item.kind != "member"
            }
            _ => true,
        }
    }

    /// Whether it loosens the policy (a risk).
    pub fn is_risk(&self) -> bool {
        self.what != PolicyChangeKind::NoWeaker
    }

    /// What the policies line says of it: "weakened", "removed", "Staff/#mod-log leaves".
    pub fn short(&self) -> String {
        match &self.what {
            PolicyChangeKind::Removed { .. } => "removed".into(),
            PolicyChangeKind::Renamed { to } => format!("renamed to {to}"),
            PolicyChangeKind::Weakened { .. } => "weakened".into(),
            PolicyChangeKind::Changed => "changed".into(),
            PolicyChangeKind::NoWeaker => "changed, no weaker".into(),
            PolicyChangeKind::Leaves { item, .. } => format!("{} leaves", item.name),
            PolicyChangeKind::Enters { item, .. } => format!("{} enters", item.name),
        }
    }

    /// One line for the risks: the policy's name, what happens, its rule before and after;
    /// `name` renders text from the manifest or the guild.
    pub fn describe(&self, name: &dyn Fn(&str) -> String) -> String {
        let policy = name(&self.policy);
        let rule = |r: &Option<String>| r.as_deref().map_or("(none)".to_owned(), name);
        let defined = self
            .defined_in
            .as_deref()
            .map(|f| format!(", in {}", name(f)))
            .unwrap_or_default();
        let moved = |item: &ScopeObject, verb: &str, now: &str| {
            format!(
                "{} {} {verb} policy {policy} ({}): {}",
                item.kind,
                name(&item.name),
                rule(&self.after),
                name(now)
            )
        };
        match &self.what {
            PolicyChangeKind::Removed { why } => format!(
                "policy {policy} removed: {} (it was: {}{defined})",
                name(why),
                rule(&self.before)
            ),
            PolicyChangeKind::Renamed { to } => format!(
                "policy {policy} renamed to {} (rule: {}{defined})",
                name(to),
                rule(&self.after)
            ),
            PolicyChangeKind::Weakened { no_longer } => {
                let lost: Vec<String> = no_longer.iter().map(|s| name(s)).collect();
                format!(
                    "policy {policy} weakened: before {}; after {}; no longer covers {}",
                    rule(&self.before),
                    rule(&self.after),
                    lost.join(", ")
                )
            }
            PolicyChangeKind::Changed | PolicyChangeKind::NoWeaker => format!(
                "policy {policy} changed: before {}; after {}{}",
                rule(&self.before),
                rule(&self.after),
                if self.is_risk() {
                    " (not compared: review it as a weakening)"
                } else {
                    ""
                }
            ),
            PolicyChangeKind::Leaves { item, now } => moved(item, "leaves", now),
            PolicyChangeKind::Enters { item, now } => moved(item, "enters the `who` of", now),
        }
    }
}
