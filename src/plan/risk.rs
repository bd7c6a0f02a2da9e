//! The risks of a plan as values: what widens access or destroys, and for whom (judged by
//! `judge::risk`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::change::HeldRole;
use super::change::ObjectRef;
use super::kind::Kind;

/// One change that widens access or destroys.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Risk {
    /// Index into [`Plan::changes`](super::Plan::changes) of the change that carries it; none for a policy
    /// change (policies are the repository's: [`Plan::policy_changes`](super::Plan::policy_changes)).
    pub change: Option<usize>,
    /// The object changed.
    pub object: ObjectRef,
    /// What widens, and for whom.
    #[serde(flatten)]
    pub what: Widening,
    /// For a change naming a user: the manifest's `name` for them, when it is not their
    /// username ([`super::Person::named_in_manifest`]).
    pub named_in_manifest: Option<String>,
}

/// What widens, and for whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Widening {
    /// A role gains permissions guild-wide: any permission for `@everyone`, a dangerous
    /// one for any other role (a new role holding one counts); or a member given a roster
    /// role gains the dangerous permissions it holds.
    Grant {
        /// The permissions gained, by their manifest names.
        permissions: Vec<String>,
    },
    /// A channel's overwrites let `who` (`@everyone`, `role NAME`, `member NAME (ID)`) see, write
    /// or hold a dangerous permission where they could not: an allow added, a deny removed,
    /// or a whole overwrite that denied taken away (by an edit or a sync with the category).
    /// On a new channel only dangerous permissions count.
    Opens {
        /// Who gains.
        who: String,
        /// What they gain, by the permissions' manifest names.
        permissions: Vec<String>,
    },
    /// A member is banned: they leave the guild with every role they hold (`roles`, highest
    /// first, each with the dangerous permissions it grants).
    BansMember {
        /// The roles they hold, highest first.
        roles: Vec<HeldRole>,
    },
    /// Once the plan is applied, `who` (`@everyone`, a role, a person) can see, write or
    /// hold a dangerous permission in `channel` where they could not: a line of the plan's
    /// `access`, computed as Discord computes permissions, which says what an overwrite, a
    /// role's permissions or a roster entry opens. In a channel the plan creates only
    /// dangerous permissions count (nothing there was hidden before).
    Access {
        /// Who gains.
        who: String,
        /// Where.
        channel: String,
        /// What they gain, by the permissions' manifest names.
        permissions: Vec<String>,
    },
    /// The object is deleted.
    Delete,
    /// A webhook posts into another channel.
    WebhookMove {
        /// The channel it posted into.
        from: String,
        /// The channel it posts into once the plan is applied.
        to: String,
    },
    /// A policy removed, renamed or loosened, or something that leaves what a policy covers
    /// ([`super::policy_change`]), with the policy's rule before and after.
    Policy(super::policy_change::PolicyChange),
}

impl Widening {
    /// The label of the kind, for counts ("2 deletions").
    pub fn label(&self, n: usize) -> String {
        let (one, many) = match self {
            Widening::Grant { .. } => ("role grant", "role grants"),
            Widening::Opens { .. } => ("channel opening", "channel openings"),
            Widening::BansMember { .. } => ("member ban", "member bans"),
            Widening::Access { .. } => ("access widening", "access widenings"),
            Widening::Delete => ("deletion", "deletions"),
            Widening::WebhookMove { .. } => ("webhook move", "webhook moves"),
            Widening::Policy(_) => ("policy change", "policy changes"),
        };
        format!("{n} {}", if n == 1 { one } else { many })
    }

    fn rank(&self) -> u8 {
        match self {
            Widening::Policy(_) => 0,
            Widening::Grant { .. } => 1,
            Widening::Opens { .. } => 2,
            Widening::Access { .. } => 3,
            Widening::BansMember { .. } => 4,
            Widening::Delete => 5,
            Widening::WebhookMove { .. } => 6,
        }
    }
}

impl Risk {
    /// One line saying what widens, for whom; `name` renders the names that come from the
    /// guild or the manifest (escaping them for markdown, as they are for a terminal). A
    /// change naming a user ends with their id, and with the manifest's name for them where
    /// it is not their username.
    pub fn describe(&self, name: &dyn Fn(&str) -> String) -> String {
        let object = format!("{} {}", self.object.kind.label(), name(&self.object.name));
        let mut line = match &self.what {
            Widening::Grant { permissions } => {
                format!("{object} gains {}", permissions.join(", "))
            }
            Widening::Opens { who, permissions } => {
                format!("{object} opens {} to {}", permissions.join(", "), name(who))
            }
            Widening::BansMember { roles } => {
                let held: Vec<String> = roles
                    .iter()
                    .map(|r| match r.dangerous.as_slice() {
                        [] => name(&r.name),
                        dangerous => {
                            format!("{} (dangerous: {})", name(&r.name), dangerous.join(", "))
                        }
                    })
                    .collect();
                let held = if held.is_empty() {
                    "no role".to_owned()
                } else {
                    held.join(", ")
                };
                format!("ban {}, a member holding {held}", name(&self.object.name))
            }
            Widening::Access {
                who,
                channel,
                permissions,
            } => crate::access::diff::sentence(
                &name(who),
                "gains",
                permissions,
                &format!("in {}", name(channel)),
            ),
            Widening::Delete => format!("delete {object}"),
            Widening::WebhookMove { from, to } => {
                format!("{object} moves from {} to {}", name(from), name(to))
            }
            Widening::Policy(p) => p.describe(name),
        };
        if let (Kind::RosterEntry | Kind::Ban, Some(id)) = (self.object.kind, &self.object.id) {
            line.push_str(&format!(" (user {})", name(id)));
        }
        if let Some(called) = &self.named_in_manifest {
            line.push_str(&format!("; the manifest calls them \"{}\"", name(called)));
        }
        line
    }
}

/// Counts per kind, in a fixed order: "1 role grant, 2 deletions".
pub fn counts(risks: &[Risk]) -> String {
    let mut by: BTreeMap<u8, (usize, &Widening)> = BTreeMap::new();
    for r in risks {
        by.entry(r.what.rank()).or_insert((0, &r.what)).0 += 1;
    }
    by.values()
        .map(|(n, w)| w.label(*n))
        .collect::<Vec<_>>()
        .join(", ")
}
