//! What a plan finds, as SARIF 2.1.0 (`plan --format sarif`, `plan --sarif FILE`): the
//! refusals, the policies it would break, what apply will refuse, and the risks
//! ([`PlanFinding`]), each placed on the
//! manifest's file, line and column through its source map, then written by
//! `manifest::sarif` as `validate --format sarif` is.

use std::borrow::Cow;

use crate::access::diff::WhoKind;
use crate::manifest::check::Ctx;
use crate::manifest::sarif::RuleText;
use crate::manifest::{Diagnostic, LoadedManifest, Report, Severity};
use crate::plan::field::{self, Field};
use crate::plan::{Change, Duplicate, Kind, Plan, PlanError, Problem, Risk, Widening};

/// Something a plan finds that a code-scanning view shows on the manifest. `rule`,
/// `diagnostic` and [`PLAN_RULES`] are the places that name each kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanFinding {
    /// A problem that refused the plan before any change was made.
    Refused(Problem),
    /// A policy (`policies:`) the plan would break, which refuses it too: placed on the
    /// change that breaks it, else the policy.
    PolicyBreach(Problem),
    /// Apply will refuse the plan (the deletion gate): why, and how to allow it.
    ApplyWillRefuse(String),
    /// What the plan widens or destroys: the risk's line, the kind of widening, the
    /// object's kind and where the change's object is declared.
    Risk {
        /// The risk as the plan states it.
        line: String,
        /// What kind of widening or destruction it is.
        what: Widening,
        /// The kind of object changed.
        kind: Kind,
        /// Where the manifest declares the object (`roles[2]`), when it does.
        source: Option<String>,
    },
    /// A declared entry that matches more than one live object.
    Duplicate(Duplicate),
}

impl PlanFinding {
    /// The SARIF rule id: stable across runs, so code scanning matches results again.
    pub fn rule(&self) -> &'static str {
        match self {
            PlanFinding::Refused(_) => "plan-refused",
            PlanFinding::PolicyBreach(_) => "policy-breach",
            PlanFinding::ApplyWillRefuse(_) => "apply-will-refuse",
            PlanFinding::Duplicate(_) => "duplicate",
            PlanFinding::Risk { what, .. } => match what {
                Widening::Grant { .. } => "risk-grant",
                Widening::Opens { .. } => "risk-opens",
                Widening::Access { .. } => "risk-access",
                Widening::BansMember { .. } => "risk-bans-member",
                Widening::Delete => "risk-delete",
                Widening::WebhookMove { .. } => "risk-webhook-move",
                Widening::Policy(_) => "risk-policy",
            },
        }
    }

    /// The finding as a diagnostic on a manifest path, for the source map to place.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            PlanFinding::Refused(p) | PlanFinding::PolicyBreach(p) => Diagnostic {
                severity: Severity::Error,
                path: p.source.clone().unwrap_or_default(),
                message: p.message.clone(),
                help: p.help.clone(),
            },
            PlanFinding::ApplyWillRefuse(why) => {
                Diagnostic::error("safety", format!("apply will refuse this plan: {why}"))
            }
            PlanFinding::Duplicate(d) => Diagnostic::warning(d.source.clone(), d.describe()),
            PlanFinding::Risk {
                line, kind, source, ..
            } => {
                // A deletion of an undeclared object is there because of `prune`.
                let path = source
                    .clone()
                    .unwrap_or_else(|| pruned_by(*kind).to_owned());
                Diagnostic::warning(path, line.clone())
            }
        }
    }
}

/// The `prune` entry that deletes an undeclared object of `kind`, its row of the kind
/// table (the source map falls back to `prune`, then to the manifest's start, where the
/// entry is absent; a kind no `prune` key deletes is placed on `prune`).
fn pruned_by(kind: Kind) -> &'static str {
    kind.pruned_by()
}

/// What a plan finds, in a fixed order: the refusals and policy breaches (with
/// `refused`), apply's refusal, the duplicates, then the risks in the order of the plan's
/// changes, each placed on the manifest line that causes it (`risk_place`).
pub fn plan_findings(
    loaded: &LoadedManifest,
    plan: Option<&Plan>,
    refused: Option<&PlanError>,
) -> Vec<PlanFinding> {
    let mut out = Vec::new();
    if let Some(e) = refused {
        out.extend(e.problems.iter().cloned().map(|p| match p.policy {
            Some(_) => PlanFinding::PolicyBreach(p),
            None => PlanFinding::Refused(p),
        }));
    }
    if let Some(plan) = plan {
        out.extend(
            plan.refusals()
                .into_iter()
                .map(PlanFinding::ApplyWillRefuse),
        );
        out.extend(plan.duplicates.iter().cloned().map(PlanFinding::Duplicate));
        let declared = Ctx::new(&loaded.manifest);
        for r in crate::judge::risks(plan) {
            // A policy change is placed on the policy's declaration, or on `policies:` for one gone.
            let Some(c) = r.change.and_then(|i| plan.changes.get(i)) else {
                if let Widening::Policy(p) = &r.what {
                    out.push(PlanFinding::Risk {
                        line: r.describe(&|s: &str| s.to_owned()),
                        kind: Kind::Policy,
                        source: Some(p.declared_at.clone().unwrap_or_else(|| "policies".into())),
                        what: r.what,
                    });
                }
                continue;
            };
            out.push(PlanFinding::Risk {
                line: r.describe(&|s: &str| s.to_owned()),
                source: risk_place(&declared, plan, &r),
                what: r.what,
                kind: c.object.kind,
            });
        }
    }
    out
}

/// The manifest path of what makes a risk: for access someone gains in a channel, the
/// overwrite that opens it (the entry for that role, member or `@everyone`, in the channel
/// or the category it syncs with), else the role's `permissions` that grant it, else the
/// change that carries it; for a role's grant, its `permissions`; for a webhook's move, its
/// `channel`; else the object's declaration. `None` for an object the manifest does not
/// declare (a deletion by `prune`).
fn risk_place(declared: &Ctx, plan: &Plan, r: &Risk) -> Option<String> {
    let carrier = plan.changes.get(r.change?)?;
    match &r.what {
        Widening::Access { who, channel, .. } => {
            let line = plan
                .access
                .iter()
                .find(|a| a.who == *who && a.channel.as_deref() == Some(channel.as_str()));
            let causes: Vec<&Change> = line
                .map(|a| {
                    a.changes
                        .iter()
                        .filter_map(|&i| plan.changes.get(i))
                        .collect()
                })
                .unwrap_or_default();
            let opening = causes
                .iter()
                .find(|c| c.fields.iter().any(|f| f.field.is_overwrites()))
                .or_else(|| causes.iter().find(|c| sets_permissions(c)))
                .copied()
                .unwrap_or(carrier);
            let source = opening.source.as_ref()?;
            if opening.fields.iter().any(|f| f.field.is_overwrites()) {
                let (kind, id) =
                    line.map_or((WhoKind::Role, None), |a| (a.who_kind, a.who_id.as_deref()));
                return Some(
                    overwrite_for(declared, source, who, kind, id)
                        .unwrap_or_else(|| format!("{source}.overwrites")),
                );
            }
            Some(if sets_permissions(opening) {
                format!("{source}.permissions")
            } else {
                source.clone()
            })
        }
        Widening::Grant { .. } if sets_permissions(carrier) => carrier
            .source
            .as_ref()
            .map(|source| format!("{source}.permissions")),
        Widening::WebhookMove { .. } => carrier
            .source
            .as_ref()
            .map(|source| format!("{source}.channel")),
        _ => carrier.source.clone(),
    }
}

fn sets_permissions(c: &Change) -> bool {
    c.fields
        .iter()
        .any(|f| f.field == Field::Role(field::Role::Permissions))
}

/// The path of the overwrite for `who` in the channel declared at `channel_path`, or in
/// the category it sits in (a synced channel takes the category's).
fn overwrite_for(
    declared: &Ctx,
    channel_path: &str,
    who: &str,
    kind: WhoKind,
    id: Option<&str>,
) -> Option<String> {
    let at = declared
        .channels
        .iter()
        .position(|c| c.path == channel_path)?;
    let mut next = Some(at);
    while let Some(i) = next {
        let c = &declared.channels[i];
        let found = c
            .channel
            .overwrites
            .iter()
            .flatten()
            .position(|o| match kind {
                WhoKind::User => o.member.as_ref().map(|m| m.0.as_str()) == id,
                WhoKind::Everyone | WhoKind::Role => {
                    o.role.as_deref().is_some_and(|r| r == who || Some(r) == id)
                }
            });
        if let Some(k) = found {
            return Some(format!("{}.overwrites[{k}]", c.path));
        }
        next = c.parent;
    }
    None
}

/// The plan's findings placed in the manifest's files.
pub fn plan_report(loaded: &LoadedManifest, findings: &[PlanFinding]) -> Report {
    let diags: Vec<(&'static str, Diagnostic)> = findings
        .iter()
        .map(|f| (f.rule(), f.diagnostic()))
        .collect();
    let mut report = loaded.report();
    report.add_diagnostics(
        &loaded.locations,
        diags.iter().map(|(rule, d)| (Cow::Borrowed(*rule), d)),
    );
    report.sort();
    report
}

/// The plan's rules, with one sentence each (the SARIF driver's `rules`).
pub const PLAN_RULES: &[RuleText] = &[
    (
        "plan-refused",
        "The plan was refused before any change: Discord would refuse it.",
    ),
    (
        "policy-breach",
        "The plan was refused: once applied, the guild would break one of the manifest's policies.",
    ),
    (
        "apply-will-refuse",
        "Apply will refuse the plan: it deletes more than the safety limits allow, or changes policies without an allowance.",
    ),
    (
        "risk-grant",
        "A role gains a dangerous permission, or @everyone gains any.",
    ),
    (
        "risk-opens",
        "A channel's overwrites let someone see, write or hold a dangerous permission where they could not.",
    ),
    (
        "risk-access",
        "Someone gains a permission in a channel, through a role, a roster or an overwrite.",
    ),
    ("risk-bans-member", "A member of the guild is banned."),
    ("risk-delete", "An object is deleted."),
    ("risk-webhook-move", "A webhook posts into another channel."),
    (
        "risk-policy",
        "A policy is removed, renamed or loosened, or a channel, role or member leaves what one covers.",
    ),
    (
        "duplicate",
        "A declared entry matches more than one live object (the same name in the same place): guildctl manages one of them.",
    ),
];

/// The plan's findings on `loaded` as a SARIF log, with a final line break.
pub fn render(loaded: &LoadedManifest, findings: &[PlanFinding]) -> String {
    crate::manifest::sarif::render(&[&plan_report(loaded, findings)], PLAN_RULES)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pruned integration, invite or lifted ban whose change names no source is placed on
    /// the `prune` entry that deletes it, as a role is on `prune.roles`: not on `prune` as a
    /// whole, nor on the ban list (the planners name these sources today; a saved plan or a
    /// planner that does not still lands on the right line).
    #[test]
    fn every_pruned_kind_is_placed_on_its_own_prune_entry() {
        assert_eq!(pruned_by(Kind::Integration), "prune.integrations");
        assert_eq!(pruned_by(Kind::Invite), "prune.invites");
        assert_eq!(pruned_by(Kind::Ban), "prune.bans");
        assert_eq!(pruned_by(Kind::Role), "prune.roles");
        assert_eq!(pruned_by(Kind::Sound), "prune.soundboard");
    }
}
