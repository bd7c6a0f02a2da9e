//! `watch --guard` (docs/watch.md, "Guard"): which hand changes are undone. A hand change
//! is reverted when it breaks one of the manifest's policies on the live guild, or touches
//! an object the manifest marks `protect: true`; only the fields the hand changed that the
//! manifest sets are sent back, and never a revert that itself widens access. Everything
//! else is told, not reverted. The loop that runs the revert is `ops::watch`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::access::Guild;
use crate::access::policy::{self, Certainty};
use crate::discord::Route;
use crate::discord::models::channel_type;
use crate::judge::deletion_gate::protector;
use crate::manifest::Manifest;
use crate::plan::{Action, Change, IdRef, Kind, Plan, Widening};
use crate::snapshot::Snapshot;
use crate::watch::Undone;

/// A hand change to judge: the object it touched, the API keys it changed, and who made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    /// The object's id (the entry's target: a role, a channel, a member, the guild).
    pub target: String,
    /// The keys the entry changed, as the API names them (`permissions`;
    /// `permission_overwrites` for an overwrite); empty: every field of the object.
    pub keys: Vec<String>,
    /// Who made it, in words for the audit-log reason (`alice (123)`).
    pub by: String,
}

/// What guard does about a guild's hand changes: `revert`, the plan's changes that undo a
/// breach or a protected object's change, each cut to the fields the hand changed, with
/// their calls (empty: nothing to revert); `undone`, each of them in words (same order);
/// `left`, the hand changes that break a policy or touch a protected object but are left
/// as they are, with why (their revert would widen access).
#[derive(Debug, Clone)]
pub struct Verdict {
    pub revert: Plan,
    pub undone: Vec<Undone>,
    pub left: Vec<String>,
}

impl Verdict {
    /// The audit-log reason the revert's calls carry: guildctl's (so no watcher or apply
    /// undoes it in turn), the policies and who made the change. The client cuts it to
    /// Discord's 512 characters.
    pub fn reason(&self) -> String {
        let why: BTreeSet<&str> = self.undone.iter().map(|u| u.because.as_str()).collect();
        let by: BTreeSet<&str> = self.undone.iter().map(|u| u.by.as_str()).collect();
        format!(
            "{REASON_PREFIX} reverted a hand change by {}: {}",
            by.into_iter().collect::<Vec<_>>().join(", "),
            why.into_iter().collect::<Vec<_>>().join("; ")
        )
    }
}

/// How every revert's audit-log reason begins; entries with it are guildctl's own.
pub const REASON_PREFIX: &str = "guildctl guard:";

/// Decides what to revert of `suspects` on the guild `snap` reads, planned against
/// `manifest` as `plan`.
pub fn decide(manifest: &Manifest, snap: &Snapshot, plan: &Plan, suspects: &[Suspect]) -> Verdict {
    let broken = breaches_by_object(manifest, snap);
    let protected = protected(manifest, snap);
    let mut keep: Vec<Kept> = Vec::new();
    let mut left = Vec::new();
    for (i, c) in plan.changes.iter().enumerate() {
        // A creation brings back what is gone under a new id, a reorder has no audit entry
        // to answer: both are apply's, after review.
        if !matches!(c.action, Action::Update | Action::Delete) {
            continue;
        }
        let Some(id) = c.object.id.as_deref() else {
            continue;
        };
        let touched: Vec<&Suspect> = suspects.iter().filter(|s| s.target == id).collect();
        if touched.is_empty() {
            continue;
        }
        let mut why: Vec<String> = Vec::new();
        for place in std::iter::once(id.to_owned()).chain(roster_role(plan, i)) {
            for p in broken.get(&place).into_iter().flatten() {
                why.push(format!("breaks policy `{p}`"));
            }
        }
        if let Some(by) = protected.get(id) {
            why.push(format!("touches {}, which `{by}` protects", c.object.name));
        }
        if why.is_empty() {
            continue;
        }
        // Only what the hand changed: an empty key list (an entry without changes) means
        // the whole object.
        let keys: Option<BTreeSet<String>> = if touched.iter().any(|s| s.keys.is_empty()) {
            None
        } else {
            Some(
                touched
                    .iter()
                    .flat_map(|s| s.keys.iter().cloned())
                    .collect(),
            )
        };
        let undo = cut(c, keys.as_ref());
        if c.action == Action::Update && undo.fields.is_empty() {
            continue;
        }
        let widening = widenings(plan, i, &undo);
        if !widening.is_empty() {
            left.push(format!(
                "{} is left as it is: reverting it would widen access: {}",
                undo.describe(),
                widening.join("; ")
            ));
            continue;
        }
        let by: BTreeSet<&str> = touched.iter().map(|s| s.by.as_str()).collect();
        keep.push(Kept {
            change: i,
            keys,
            undone: Undone {
                change: undo.describe(),
                because: why.join(", "),
                by: by.into_iter().collect::<Vec<_>>().join(", "),
            },
        });
    }
    Verdict {
        revert: only(plan, &keep),
        undone: keep.into_iter().map(|k| k.undone).collect(),
        left,
    }
}

/// The live objects a `protect: true` entry of `manifest` names (roles, channels and
/// categories, webhooks), by id, with the entry's place.
pub fn protected(manifest: &Manifest, snap: &Snapshot) -> HashMap<String, String> {
    let roles = snap
        .guild
        .roles
        .iter()
        .map(|r| (Kind::Role, &r.id, &r.name, 0));
    let channels = snap.channels.iter().map(|c| {
        let kind = if c.kind == channel_type::CATEGORY {
            Kind::Category
        } else {
            Kind::Channel
        };
        (kind, &c.id, &c.name, c.kind)
    });
    let webhooks = snap
        .webhooks
        .iter()
        .flatten()
        .filter_map(|w| w.name.as_ref().map(|name| (Kind::Webhook, &w.id, name, 0)));
    roles
        .chain(channels)
        .chain(webhooks)
        .filter_map(|(kind, id, name, channel_kind)| {
            protector(manifest, kind, id, name, channel_kind).map(|by| (id.clone(), by))
        })
        .collect()
}

/// Whether a hand change may need guard: it touches a protected object (`protected`, by
/// id), or changes what a policy judges (permissions, overwrites, who holds a role, a
/// channel's category) while the manifest has policies, or says not what it changed.
/// Anything else is told and planned, never read at once for guard.
pub fn may_breach(
    manifest: &Manifest,
    protected: &HashMap<String, String>,
    target: &str,
    keys: &[String],
) -> bool {
    const JUDGED: &[&str] = &[
        "permissions",
        "permission_overwrites",
        "$add",
        "$remove",
        "parent_id",
    ];
    keys.is_empty()
        || protected.contains_key(target)
        || (manifest.policies.as_ref().is_some_and(|p| !p.is_empty())
            && keys.iter().any(|k| JUDGED.contains(&k.as_str())))
}

/// A change guard reverts: its index in the plan, the API keys the hand changed (none: every
/// field), and it in words.
struct Kept {
    change: usize,
    keys: Option<BTreeSet<String>>,
    undone: Undone,
}

/// A change with only the fields whose API key is in `keys` (all, without keys).
fn cut(c: &Change, keys: Option<&BTreeSet<String>>) -> Change {
    let mut c = c.clone();
    if let Some(keys) = keys {
        c.fields
            .retain(|f| f.field.api().is_some_and(|k| keys.contains(k)));
    }
    c
}

/// What reverting change `i` (cut to `cut`) would widen: a grant, an opening, an access
/// line's widening, a ban of a member, a webhook moved; in words.
fn widenings(plan: &Plan, i: usize, cut: &Change) -> Vec<String> {
    let mut out: Vec<String> = crate::judge::risk::of_change(i, cut, &plan.guild_id)
        .into_iter()
        .filter_map(|r| match r.what {
            Widening::Grant { permissions } => Some(format!(
                "{} would gain {}",
                cut.object.name,
                permissions.join(", ")
            )),
            Widening::Opens { who, permissions }
            | Widening::Access {
                who, permissions, ..
            } => Some(format!("{who} would gain {}", permissions.join(", "))),
            Widening::BansMember { .. } => Some("a member would be banned".to_owned()),
            Widening::WebhookMove { to, .. } => Some(format!("a webhook would post into {to}")),
            Widening::Delete | Widening::Policy(_) => None,
        })
        .collect();
    out.extend(
        plan.access
            .iter()
            .filter(|a| a.changes.contains(&i) && !a.widening.is_empty())
            .map(|a| {
                let at = a.channel.as_deref().unwrap_or("guild-wide");
                format!("{} would gain {} ({at})", a.who, a.widening.join(", "))
            }),
    );
    out
}

/// The live breaches of `manifest`'s policies by the object that causes each: a channel
/// (and its category), a role, a member; the policies' names.
fn breaches_by_object(manifest: &Manifest, snap: &Snapshot) -> BTreeMap<String, Vec<String>> {
    let policies = crate::judge::policies::declared(manifest);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if policies.is_empty() {
        return out;
    }
    let live = Guild::live(snap);
    let count = |r: &crate::access::model::Role| crate::judge::policies::holders(snap, &live, r);
    for b in policy::judge(&policies, &live, &count, Certainty::Whole).breaches {
        let channel = b.at.channel.and_then(|i| live.channels.get(i));
        let places = channel
            .map(|c| c.id.clone())
            .into_iter()
            .chain(channel.and_then(|c| c.parent.clone()))
            .chain(b.at.role.clone())
            .chain(b.at.user.clone());
        for place in places {
            let names = out.entry(place).or_default();
            if !names.contains(&b.policy) {
                names.push(b.policy.clone());
            }
        }
    }
    out
}

/// The role a roster change gives or takes (its call's), so a role's breach finds it.
fn roster_role(plan: &Plan, change: usize) -> Option<String> {
    plan.operations
        .iter()
        .filter(|op| op.change == change)
        .find_map(|op| match &op.route {
            Route::AddMemberRole {
                role: IdRef::Live(r),
                ..
            }
            | Route::RemoveMemberRole {
                role: IdRef::Live(r),
                ..
            } => Some(r.clone()),
            _ => None,
        })
}

/// The plan with only the changes `keep` names (each with its fields cut to the keys given,
/// and its update calls' bodies too), their calls renumbered.
fn only(plan: &Plan, keep: &[Kept]) -> Plan {
    let new_index: BTreeMap<usize, usize> = keep
        .iter()
        .enumerate()
        .map(|(new, k)| (k.change, new))
        .collect();
    let mut out = Plan {
        changes: Vec::new(),
        operations: Vec::new(),
        access: Vec::new(),
        ..plan.clone()
    };
    for k in keep {
        out.changes
            .push(cut(&plan.changes[k.change], k.keys.as_ref()));
    }
    let op_index: BTreeMap<usize, usize> = plan
        .operations
        .iter()
        .enumerate()
        .filter(|(_, op)| new_index.contains_key(&op.change))
        .enumerate()
        .map(|(new, (old, _))| (old, new))
        .collect();
    for &old in op_index.keys() {
        let mut op = plan.operations[old].clone();
        op.change = new_index[&op.change];
        op.after = op
            .after
            .iter()
            .filter_map(|a| op_index.get(a).copied())
            .collect();
        let keys = keep
            .iter()
            .find(|k| k.change == plan.operations[old].change)
            .and_then(|k| k.keys.as_ref());
        if let (Some(keys), Some(serde_json::Value::Object(body))) = (keys, op.body.as_mut())
            && is_update(&op.route)
        {
            body.retain(|k, _| keys.contains(k));
        }
        out.operations.push(op);
    }
    out
}

/// A PATCH whose body's keys are each one field: the calls whose bodies guard cuts.
fn is_update(route: &Route<IdRef>) -> bool {
    matches!(
        route,
        Route::UpdateGuild { .. } | Route::UpdateRole { .. } | Route::UpdateChannel { .. }
    )
}
