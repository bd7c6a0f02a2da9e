//! The deletion gate's and the policy gate's verdicts as values: how many objects of each
//! kind a plan deletes against the limits or an explicit allowance, how many policies it
//! changes, and whether apply refuses it (judged by `judge::deletion_gate`).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::change::{Action, Change};
use super::kind::DeleteKind;
use crate::manifest::Manifest;

/// The share of a kind's live objects one apply may delete by default (octoDNS's
/// `MAX_SAFE_DELETE_PCENT`).
pub const MAX_DELETE_PERCENT: usize = 30;
/// Deleting this many objects of a kind is always allowed: in a small guild 30% is
/// less than one object, and removing one or two is ordinary tidying.
pub const MIN_DELETE_LIMIT: usize = 2;
/// However large the guild, one apply deletes at most this many objects of a kind by
/// default: a truncated manifest in a guild of 500 channels must not cost 150.
pub const MAX_DELETE_LIMIT: usize = 10;

impl DeleteKind {
    /// What the plan does to the kind's live objects, as a verb and what it counts:
    /// "deletes … channels", "removes … roster entries", "lifts … bans".
    fn verb_and_noun(self) -> (&'static str, &'static str) {
        match self {
            DeleteKind::RosterEntries => ("removes", "roster entries"),
            DeleteKind::Bans => ("lifts", "bans"),
            DeleteKind::MemberBans => ("bans", "members"),
            kind => ("deletes", kind.label()),
        }
    }

    /// The kind `c` counts as, if it is one the gate counts: a deletion of a kind `prune`
    /// deletes, or a ban of a member.
    pub(crate) fn of_change(c: &Change) -> Option<DeleteKind> {
        if c.bans_member() {
            return Some(DeleteKind::MemberBans);
        }
        (c.action == Action::Delete)
            .then_some(c.object.kind.facts().gate)
            .flatten()
    }
}

/// The default limit for a kind with `live` objects: 30% of them, at least 2, at most 10.
pub fn default_limit(live: usize) -> usize {
    (live * MAX_DELETE_PERCENT / 100).clamp(MIN_DELETE_LIMIT, MAX_DELETE_LIMIT)
}

/// Deletions of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindDeletions {
    /// The kind counted.
    pub kind: DeleteKind,
    /// Live objects of the kind before the plan (roles without @everyone).
    pub live: usize,
    /// Objects of the kind the plan deletes, counting `with_channels`.
    pub deletes: usize,
    /// Of `deletes`, webhooks that go with a channel the plan deletes (Discord deletes a
    /// channel's webhooks with it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub with_channels: usize,
    /// Of `deletes`, webhooks that go with an integration the plan removes (Delete Guild
    /// Integration deletes its application's webhooks).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub with_integrations: usize,
    /// The default limit for this kind ([`default_limit`]).
    pub limit: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl KindDeletions {
    fn percent(&self) -> usize {
        (self.deletes * 100 + self.live / 2) / self.live.max(1)
    }

    /// "deletes 17 of 18 channels (94%)", "removes 1 of 2 roster entries (50%)"; "bans 9
    /// members" (their number is not read).
    pub(crate) fn describe(&self) -> String {
        let (verb, noun) = self.kind.verb_and_noun();
        if self.kind == DeleteKind::MemberBans {
            return format!("{verb} {} {noun}", self.deletes);
        }
        let mut with = String::new();
        if self.with_channels > 0 {
            with.push_str(&format!(", {} with their channels", self.with_channels));
        }
        if self.with_integrations > 0 {
            with.push_str(&format!(
                ", {} with their integrations",
                self.with_integrations
            ));
        }
        format!(
            "{verb} {} of {} {noun} ({}%{with})",
            self.deletes,
            self.live,
            self.percent()
        )
    }
}

/// Who allowed deletions explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowanceSource {
    /// `apply --allow-deletes N`.
    Flag,
    /// `safety.allow_deletes` in the manifest.
    Manifest,
}

/// An explicit number of deletions allowed in one apply, in place of the default limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allowance {
    /// How many deletions (and bans of members) one apply may make.
    pub deletes: usize,
    /// Who gave it.
    pub source: AllowanceSource,
}

impl Allowance {
    /// The manifest's `safety.allow_deletes`, if set.
    pub fn from_manifest(m: &Manifest) -> Option<Allowance> {
        let n = m.safety.as_ref()?.allow_deletes?;
        Some(Allowance {
            deletes: usize::try_from(n).unwrap_or(usize::MAX),
            source: AllowanceSource::Manifest,
        })
    }

    /// `--allow-deletes N` when given (it takes precedence), else the manifest's.
    pub fn resolve(flag: Option<usize>, m: &Manifest) -> Option<Allowance> {
        match flag {
            Some(deletes) => Some(Allowance {
                deletes,
                source: AllowanceSource::Flag,
            }),
            None => Allowance::from_manifest(m),
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self.source {
            AllowanceSource::Flag => format!("--allow-deletes {}", self.deletes),
            AllowanceSource::Manifest => format!("`safety.allow_deletes: {}`", self.deletes),
        }
    }
}

/// The deletion gate's verdict on a plan.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionGate {
    /// Whether apply refuses the plan (`--yes` does not change this).
    pub refused: bool,
    /// Objects the plan deletes, of every kind, and members it bans.
    pub deletes: usize,
    /// Per kind with live objects or deletions.
    pub kinds: Vec<KindDeletions>,
    /// The explicit allowance in force, which replaces the default limits.
    pub allowance: Option<Allowance>,
    /// Why apply refuses, one sentence per reason with its numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// How to allow the plan, when it is refused.
    pub help: Option<String>,
}

impl DeletionGate {
    /// "apply will refuse: deletes 17 of 18 channels (94%), above ...; to allow it, ..."
    /// or `None` when apply proceeds.
    pub fn refusal(&self) -> Option<String> {
        refusal(self.refused, self.reasons.join("; "), self.help.as_deref())
    }

    /// One line about a plan that deletes and passes, for reviewers: what allowed it.
    pub fn passed(&self) -> Option<String> {
        if self.refused || self.deletes == 0 {
            return None;
        }
        let by = match &self.allowance {
            Some(a) => format!("allowed by {}", a.describe()),
            None => "within the default limits".to_owned(),
        };
        // "deletes 17 of 18 channels (94%) and 2 of 4 webhooks": a verb said once per run.
        let mut kinds: Vec<String> = Vec::new();
        let mut last_verb = "";
        for k in self
            .kinds
            .iter()
            .filter(|k| k.deletes > 0 && k.kind != DeleteKind::MemberBans)
        {
            let (verb, _) = k.kind.verb_and_noun();
            let said = k.describe();
            kinds.push(match said.strip_prefix(verb) {
                Some(rest) if verb == last_verb => rest.trim_start().to_owned(),
                _ => said,
            });
            last_verb = verb;
        }
        let mut what = Vec::new();
        if !kinds.is_empty() {
            what.push(kinds.join(" and "));
        }
        let banned = member_bans(&self.kinds);
        if banned > 0 {
            what.push(format!("bans {banned} member(s)"));
        }
        Some(format!("{}, {by}", what.join(" and ")))
    }
}

/// An explicit number of policy changes allowed in one apply (none by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyAllowance {
    /// How many policy changes one apply may make.
    pub changes: usize,
    /// Who gave it.
    pub source: AllowanceSource,
}

impl PolicyAllowance {
    /// `--allow-policy-changes N` when given (it takes precedence), else the manifest's
    /// `safety.allow_policy_changes`.
    pub fn resolve(flag: Option<usize>, m: &Manifest) -> Option<PolicyAllowance> {
        if let Some(changes) = flag {
            return Some(PolicyAllowance {
                changes,
                source: AllowanceSource::Flag,
            });
        }
        let n = m.safety.as_ref()?.allow_policy_changes?;
        Some(PolicyAllowance {
            changes: usize::try_from(n).unwrap_or(usize::MAX),
            source: AllowanceSource::Manifest,
        })
    }

    pub(crate) fn describe(&self) -> String {
        match self.source {
            AllowanceSource::Flag => format!("--allow-policy-changes {}", self.changes),
            AllowanceSource::Manifest => {
                format!("`safety.allow_policy_changes: {}`", self.changes)
            }
        }
    }
}

/// The policy gate's verdict: the policy changes it counts ([`PolicyChange::gated`](super::PolicyChange::gated))
/// against the allowance, none by default.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyGate {
    /// Whether apply refuses the plan (`--yes` does not change this).
    pub refused: bool,
    /// The policy changes counted.
    pub changes: usize,
    /// The explicit allowance in force.
    pub allowance: Option<PolicyAllowance>,
    /// Why apply refuses, with the changes named.
    pub reason: Option<String>,
    /// How to allow the plan, when it is refused.
    pub help: Option<String>,
}

impl PolicyGate {
    /// A plan that changes no policy (the gate is then left out of its JSON).
    pub fn is_empty(&self) -> bool {
        *self == PolicyGate::default()
    }

    /// "changes 1 policy (…), and none is allowed by default; to allow it, …", or `None`.
    pub fn refusal(&self) -> Option<String> {
        refusal(
            self.refused,
            self.reason.clone().unwrap_or_default(),
            self.help.as_deref(),
        )
    }

    /// One line about a plan whose policy changes pass: what allowed them.
    pub fn passed(&self) -> Option<String> {
        if self.refused || self.changes == 0 {
            return None;
        }
        let by = self
            .allowance
            .map(|a| a.describe())
            .unwrap_or_else(|| "an allowance".into());
        Some(format!(
            "changes {} polic{}, allowed by {by}",
            self.changes,
            if self.changes == 1 { "y" } else { "ies" }
        ))
    }
}

/// What a gate that refuses says: why, then how to allow the plan; `None` when it passes.
fn refusal(refused: bool, why: String, help: Option<&str>) -> Option<String> {
    refused.then(|| match help {
        Some(help) => format!("{why}; {help}"),
        None => why,
    })
}

/// Members banned, of the kinds counted.
pub(crate) fn member_bans(kinds: &[KindDeletions]) -> usize {
    kinds
        .iter()
        .filter(|k| k.kind == DeleteKind::MemberBans)
        .map(|k| k.deletes)
        .sum()
}

/// What an allowance counts, in words: "deletes 3 object(s)", "bans 9 member(s)", or both.
pub(crate) fn counted(kinds: &[KindDeletions]) -> String {
    let banned = member_bans(kinds);
    let deleted = kinds.iter().map(|k| k.deletes).sum::<usize>() - banned;
    match (deleted, banned) {
        (n, 0) => format!("deletes {n} object(s)"),
        (0, b) => format!("bans {b} member(s)"),
        (n, b) => format!("deletes {n} object(s) and bans {b} member(s)"),
    }
}
