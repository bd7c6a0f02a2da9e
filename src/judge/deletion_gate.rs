//! What keeps a plan from destroying much by accident: the deletion gate (how many
//! objects of each kind a plan deletes, and how many members it bans, against a default
//! limit or an explicit, numbered allowance), the policy gate (policies a change removes or
//! loosens, none by default: [`policy_gate`]) and `protect: true` (objects never deleted).
//!
//! The gate's verdict is stored on the plan ([`crate::plan::Plan::deletion_gate`]) so every
//! format shows in advance whether apply will refuse. It is judged once, as the plan is
//! made, with the allowance the plan's options carry (apply's `--allow-deletes`, else the
//! manifest's), and apply refuses through [`crate::plan::Plan::raise_if_unsafe`].

use hashbrown::HashSet;

use serde_json::Value;

use crate::discord::Route;
use crate::discord::names::{stored_channel_name, stored_display_name};
use crate::manifest::{Channel, Manifest, Snowflake};
use crate::plan::Problem;
use crate::plan::deletion_gate::{
    AllowanceSource, KindDeletions, MAX_DELETE_LIMIT, MAX_DELETE_PERCENT, MIN_DELETE_LIMIT,
    counted, default_limit, member_bans,
};
use crate::plan::{
    Action, Allowance, Counted, DeleteKind, DeletionGate, Kind, Plan, PolicyAllowance,
    PolicyChange, PolicyGate, Protect, created_key,
};
use crate::snapshot::Snapshot;

/// Members holding a roster role before the plan, as far as they were read.
fn roster_holders(snap: &Snapshot) -> usize {
    let Some(people) = &snap.people else {
        return 0;
    };
    people
        .rosters
        .iter()
        .map(|r| people.known_holders(r).len())
        .sum()
}

/// Judges the plan's policy changes against the allowance (`None`: none allowed).
pub fn policy_gate(changes: &[PolicyChange], allowance: Option<PolicyAllowance>) -> PolicyGate {
    let counted: Vec<&PolicyChange> = changes.iter().filter(|c| c.gated()).collect();
    let n = counted.len();
    if n == 0 {
        return PolicyGate {
            allowance,
            ..PolicyGate::default()
        };
    }
    let allowed = allowance.map_or(0, |a| a.changes);
    let refused = n > allowed;
    let what = |n: usize| format!("{n} polic{}", if n == 1 { "y" } else { "ies" });
    let named: Vec<String> = counted
        .iter()
        .map(|c| format!("{}: {}", c.policy, c.short()))
        .collect();
    let reason = refused.then(|| {
        let limit = match allowance {
            Some(a) => format!("more than the {} that {} allows", a.changes, a.describe()),
            None => "and apply allows no policy change by default".into(),
        };
        format!(
            "removes, renames or loosens {} ({}), {limit}",
            what(n),
            named.join("; ")
        )
    });
    let help = refused.then(|| {
        let how = how_to_allow(allowance.map(|a| a.source), "policy_changes", n);
        format!(
            "if the change is meant, review it and allow its {} ({how}; --yes does not)",
            what(n)
        )
    });
    PolicyGate {
        refused,
        changes: n,
        allowance,
        reason,
        help,
    }
}

/// Takes in the policy changes the reviewed plan listed that this one, derived at apply,
/// does not (apply compared with another revision, or with none), and judges the gate
/// again: what was reviewed as a policy change stays one, whatever apply can read.
pub fn hold_reviewed_policy_changes(plan: &mut Plan, reviewed: &Plan) {
    let missing: Vec<PolicyChange> = reviewed
        .policy_changes
        .iter()
        .filter(|c| !plan.policy_changes.contains(c))
        .cloned()
        .collect();
    if missing.is_empty() {
        return;
    }
    plan.policy_changes.extend(missing);
    plan.policy_gate = policy_gate(&plan.policy_changes, plan.policy_gate.allowance);
}

/// A webhook that a channel deletion takes with it.
struct Lost {
    id: String,
    name: String,
    channel: String,
}

/// Evaluates the deletion gate for `plan` against the guild it was made from.
pub fn deletion_gate(plan: &Plan, snap: &Snapshot, allowance: Option<Allowance>) -> DeletionGate {
    let lost = lost_with_channels(plan, snap);
    let with_integrations = lost_with_integrations(plan, snap, &lost).len();
    let live = |k: DeleteKind| match k.counted() {
        Counted::Roles => snap
            .guild
            .roles
            .iter()
            .filter(|r| r.id != snap.guild.id)
            .count(),
        Counted::Channels => snap.channels.len(),
        Counted::RosterHolders => roster_holders(snap),
        Counted::Bans => snap
            .people
            .as_ref()
            .and_then(|p| p.bans.as_ref())
            .map_or(0, |b| b.len()),
        Counted::Listed(list) => snap.listed_len(list),
        Counted::Nothing => 0,
    };
    let mut kinds = Vec::new();
    for kind in DeleteKind::ALL {
        let direct = plan
            .changes
            .iter()
            .filter(|c| DeleteKind::of_change(c) == Some(kind))
            .count();
        let (with_channels, with_integrations) = if kind == DeleteKind::Webhooks {
            (lost.len(), with_integrations)
        } else {
            (0, 0)
        };
        let live = live(kind);
        if live == 0 && direct == 0 {
            continue;
        }
        kinds.push(KindDeletions {
            kind,
            live,
            deletes: direct + with_channels + with_integrations,
            with_channels,
            with_integrations,
            limit: default_limit(live),
        });
    }
    let deletes: usize = kinds.iter().map(|k| k.deletes).sum();
    let reasons: Vec<String> = match &allowance {
        Some(a) if deletes > a.deletes => vec![format!(
            "{}, more than the {} that {} allows",
            counted(&kinds),
            a.deletes,
            a.describe()
        )],
        Some(_) => Vec::new(),
        None => kinds
            .iter()
            .filter(|k| k.deletes > k.limit)
            .map(|k| {
                if k.kind == DeleteKind::MemberBans {
                    return format!(
                        "bans {} members, above the default limit of {} members banned in one apply",
                        k.deletes, k.limit
                    );
                }
                format!(
                    "{}, above the default limit of {} ({MAX_DELETE_PERCENT}% of {}, at least {MIN_DELETE_LIMIT}, at most {MAX_DELETE_LIMIT})",
                    k.describe(),
                    k.limit,
                    k.live
                )
            })
            .collect(),
    };
    let refused = !reasons.is_empty();
    let help = refused.then(|| {
        let parts: Vec<String> = kinds
            .iter()
            .filter(|k| k.deletes > 0)
            .map(|k| match (k.with_channels, k.with_integrations) {
                (0, 0) => format!("{} {}", k.deletes, k.kind.label()),
                (n, 0) if n == k.deletes => format!("{n} {} with their channels", k.kind.label()),
                (n, 0) => format!(
                    "{} {}, {n} of them with their channels",
                    k.deletes,
                    k.kind.label()
                ),
                (c, i) => format!(
                    "{} {}, {c} of them with their channels and {i} with their integrations",
                    k.deletes,
                    k.kind.label()
                ),
            })
            .collect();
        let how = how_to_allow(allowance.map(|a| a.source), "deletes", deletes);
        let noun = match member_bans(&kinds) {
            0 => "deletion(s)",
            b if b == deletes => "member ban(s)",
            _ => "deletion(s) and member ban(s)",
        };
        format!(
            "to allow its {deletes} {noun} ({}), {how} (--yes does not)",
            parts.join(", ")
        )
    });
    DeletionGate {
        refused,
        deletes,
        kinds,
        allowance,
        reasons,
        help,
    }
}

/// Live webhooks that a removed integration takes with it (those of its application),
/// beyond those deleted directly or with a channel: the gate counts them.
fn lost_with_integrations<'s>(
    plan: &Plan,
    snap: &'s Snapshot,
    lost: &[Lost],
) -> Vec<&'s crate::discord::models::Webhook> {
    let removed: HashSet<&str> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Delete && c.object.kind == Kind::Integration)
        .filter_map(|c| c.object.id.as_deref())
        .filter_map(|id| {
            snap.doors
                .integrations
                .iter()
                .flatten()
                .find(|i| i.id == id)
                .and_then(|i| i.application_id())
        })
        .collect();
    if removed.is_empty() {
        return Vec::new();
    }
    let deleted_directly = deleted_ids(plan, &[Kind::Webhook]);
    snap.webhooks
        .iter()
        .flatten()
        .filter(|w| {
            w.application_id
                .as_deref()
                .is_some_and(|a| removed.contains(a))
                && !deleted_directly.contains(w.id.as_str())
                && !lost.iter().any(|l| l.id == w.id)
        })
        .collect()
}

/// The objects of these kinds the plan deletes, by id.
fn deleted_ids<'p>(plan: &'p Plan, kinds: &[Kind]) -> HashSet<&'p str> {
    plan.changes
        .iter()
        .filter(|c| c.action == Action::Delete && kinds.contains(&c.object.kind))
        .filter_map(|c| c.object.id.as_deref())
        .collect()
}

/// Channels the plan deletes, by id.
fn deleted_channels(plan: &Plan) -> HashSet<&str> {
    deleted_ids(plan, &[Kind::Channel, Kind::Category])
}

/// Live webhooks (of any type) that end the plan in a channel it deletes without being
/// deleted themselves: Discord deletes them with the channel.
fn lost_with_channels(plan: &Plan, snap: &Snapshot) -> Vec<Lost> {
    let deleted = deleted_channels(plan);
    if deleted.is_empty() {
        return Vec::new();
    }
    let deleted_directly = deleted_ids(plan, &[Kind::Webhook]);
    let mut out = Vec::new();
    for w in snap.webhooks.iter().flatten() {
        if deleted_directly.contains(w.id.as_str()) {
            continue;
        }
        // A webhook the plan moves ends in the channel its PATCH names.
        let moved_to = plan.operations.iter().find_map(|op| {
            let body = op.body.as_ref()?;
            matches!(&op.route, Route::UpdateWebhook { webhook } if webhook.live() == Some(&w.id))
                .then(|| body.get("channel_id"))
                .flatten()
        });
        let channel = match moved_to {
            Some(v) if created_key(v).is_some() => continue,
            Some(Value::String(id)) => Some(id.as_str()),
            _ => w.channel_id.as_deref(),
        };
        let Some(channel) = channel.filter(|c| deleted.contains(c)) else {
            continue;
        };
        out.push(Lost {
            id: w.id.clone(),
            name: w.name.clone().unwrap_or_default(),
            channel: channel_display(snap, channel),
        });
    }
    out
}

fn channel_display(snap: &Snapshot, id: &str) -> String {
    let Some(c) = snap.channel(id) else {
        return id.to_owned();
    };
    match c.parent_id.as_deref().and_then(|p| snap.channel(p)) {
        Some(parent) => format!("{}/#{}", parent.name, c.name),
        None => format!("#{}", c.name),
    }
}

/// Webhooks that go with a deleted channel (the gate counts them): each is taken off the
/// plan's unmanaged list, which says "kept", and a warning names it instead.
pub(crate) fn note_cascades(plan: &mut Plan, snap: &Snapshot) {
    for l in lost_with_channels(plan, snap) {
        plan.unmanaged
            .retain(|o| !(o.kind == Kind::Webhook && o.id.as_deref() == Some(l.id.as_str())));
        plan.warnings.push(crate::plan::Warning {
            message: format!(
                "webhook `{}` (id {}) is deleted with {}, which this plan deletes; its URL stops working",
                l.name, l.id, l.channel
            ),
            source: None,
        });
    }
}

/// A manifest entry that may protect live objects: its kind, where it is, and the names
/// and id it answers to.
struct Entry<'m> {
    kind: DeleteKind,
    source: String,
    id: Option<&'m str>,
    names: Vec<&'m str>,
    protect: bool,
}

/// How to allow `n` of what `apply --allow-WHAT` and `safety.allow_WHAT` allow (`what`:
/// `deletes`, `policy_changes`), given where the allowance in force comes from.
fn how_to_allow(source: Option<AllowanceSource>, what: &str, n: usize) -> String {
    let flag = format!("--allow-{}", what.replace('_', "-"));
    let setting = format!("allow_{what}");
    match source {
        // The flag takes precedence: the manifest's setting would not help.
        Some(AllowanceSource::Flag) => format!("pass {flag} {n}"),
        Some(AllowanceSource::Manifest) => {
            format!("raise `safety.{setting}` to {n} in the manifest, or pass {flag} {n} to apply")
        }
        None => format!(
            "pass {flag} {n} to apply, or set `safety: {{ {setting}: {n} }}` in the manifest"
        ),
    }
}

impl<'m> Entry<'m> {
    /// The entry at `source`, answering to its id, its name and its previous names.
    fn new(
        kind: DeleteKind,
        source: String,
        id: &'m Option<Snowflake>,
        name: &'m str,
        previous_names: &'m [String],
        protect: bool,
    ) -> Self {
        Entry {
            kind,
            source,
            id: id.as_ref().map(|s| s.0.as_str()),
            names: std::iter::once(name)
                .chain(previous_names.iter().map(String::as_str))
                .collect(),
            protect,
        }
    }
}

fn entries(m: &Manifest) -> Vec<Entry<'_>> {
    // Roles, channels and webhooks answer alike: by id, name and previous names.
    macro_rules! entry {
        ($kind:expr, $source:expr, $x:expr) => {
            Entry::new(
                $kind,
                $source,
                &$x.id,
                &$x.name,
                &$x.previous_names,
                $x.protect,
            )
        };
    }
    fn channels<'m>(list: &'m [Channel], prefix: &str, out: &mut Vec<Entry<'m>>) {
        for (i, c) in list.iter().enumerate() {
            let source = format!("{prefix}[{i}]");
            out.push(entry!(DeleteKind::Channels, source.clone(), c));
            if let Some(children) = &c.channels {
                channels(children, &format!("{source}.channels"), out);
            }
        }
    }
    let mut out = Vec::new();
    for (i, r) in m.roles.iter().flatten().enumerate() {
        out.push(entry!(DeleteKind::Roles, format!("roles[{i}]"), r));
    }
    channels(
        m.channels.as_deref().unwrap_or_default(),
        "channels",
        &mut out,
    );
    for (i, w) in m.webhooks.iter().flatten().enumerate() {
        out.push(entry!(DeleteKind::Webhooks, format!("webhooks[{i}]"), w));
    }
    out
}

/// The manifest entry (`roles[2]`) that names a live object of `kind` with this id and
/// name (for a channel, of Discord type `channel_kind`), if any; only entries with
/// `protect: true` when `protected_only`.
fn naming_entry(
    m: &Manifest,
    kind: DeleteKind,
    id: &str,
    name: &str,
    channel_kind: u8,
    protected_only: bool,
) -> Option<String> {
    // The manifest's names are stored already; the live one is reduced to the same key.
    let key = stored_display_name(name);
    let channel_key = stored_channel_name(channel_kind, name);
    entries(m)
        .into_iter()
        .filter(|e| e.kind == kind && (e.protect || !protected_only))
        .find(|e| {
            e.id == Some(id)
                || e.names.iter().any(|n| {
                    *n == key
                        || (kind == DeleteKind::Channels
                            && stored_channel_name(channel_kind, n) == channel_key)
                })
        })
        .map(|e| e.source)
}

/// The `protect: true` entry that keeps a live object from being deleted, if any.
pub(crate) fn protector(
    m: &Manifest,
    kind: Kind,
    id: &str,
    name: &str,
    channel_kind: u8,
) -> Option<String> {
    naming_entry(m, kind.facts().gate?, id, name, channel_kind, true)
}

/// Deletions of protected objects, and declared webhooks that a channel deletion would
/// take with it: planning problems, found before any call. The planners never schedule
/// a protected object's deletion; this also refuses a saved plan that does.
#[deny(clippy::wildcard_enum_match_arm)]
pub fn protect_problems(plan: &Plan, manifest: &Manifest, snap: &Snapshot) -> Vec<Problem> {
    let mut problems = Vec::new();
    for c in &plan.changes {
        let (Action::Delete, Some(id)) = (c.action, c.object.id.as_deref()) else {
            continue;
        };
        let Some(protect) = c.object.kind.facts().protect else {
            continue;
        };
        // The live name `protect:` entries are matched by.
        let (name, channel_kind) = match protect {
            Protect::Role => (snap.role(id).map(|r| r.name.clone()), 0),
            Protect::Channel => (
                snap.channel(id).map(|ch| ch.name.clone()),
                snap.channel(id).map_or(0, |ch| ch.kind),
            ),
            Protect::Webhook => (
                snap.webhooks
                    .iter()
                    .flatten()
                    .find(|w| w.id == id)
                    .and_then(|w| w.name.clone()),
                0,
            ),
        };
        let name = name.unwrap_or_else(|| c.object.name.clone());
        if let Some(source) = protector(manifest, c.object.kind, id, &name, channel_kind) {
            problems.push(Problem {
                policy: None,
                message: format!(
                    "the plan deletes {} `{}` (id {id}), which {source} protects",
                    c.object.kind.label(),
                    c.object.name
                ),
                source: Some(source),
                help: Some(
                    "make the plan again: guildctl never plans to delete a protected object".into(),
                ),
            });
        }
    }
    for l in lost_with_channels(plan, snap) {
        // Declared (matched by id, name or previous name) or protected: either way the
        // manifest wants it kept.
        if let Some(source) = naming_entry(manifest, DeleteKind::Webhooks, &l.id, &l.name, 0, false)
        {
            problems.push(Problem {
                policy: None,
                message: format!(
                    "webhook `{}` ({source}) is in {}, which this plan deletes: Discord would delete the webhook with it",
                    l.name, l.channel
                ),
                source: Some(source),
                help: Some("declare the channel so it is kept, or move the webhook to a channel that stays".into()),
            });
        }
    }
    // A declared webhook created in a channel the plan deletes would be lost at once.
    let deleted = deleted_channels(plan);
    for op in &plan.operations {
        let Route::CreateWebhook { channel } = &op.route else {
            continue;
        };
        if let Some(channel) = channel.live()
            && deleted.contains(channel)
            && let Some(change) = plan.changes.get(op.change)
        {
            problems.push(Problem {
                policy: None,
                message: format!(
                    "webhook `{}` would be created in {}, which this plan deletes",
                    change.object.name,
                    channel_display(snap, channel)
                ),
                source: change.source.clone(),
                help: Some(
                    "declare the channel so it is kept, or put the webhook in a channel that stays"
                        .into(),
                ),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_limit_is_30_percent_at_least_2_at_most_10() {
        let limits: Vec<usize> = [0, 1, 6, 10, 18, 33, 34, 100, 500]
            .into_iter()
            .map(default_limit)
            .collect();
        assert_eq!(limits, [2, 2, 2, 3, 5, 9, 10, 10, 10]);
    }

    #[test]
    fn the_flag_takes_precedence_over_the_manifest() {
        let m: Manifest = serde_json::from_value(serde_json::json!({
            "version": 1, "safety": {"allow_deletes": 40}
        }))
        .unwrap();
        assert_eq!(
            Allowance::resolve(None, &m),
            Some(Allowance {
                deletes: 40,
                source: AllowanceSource::Manifest
            })
        );
        assert_eq!(
            Allowance::resolve(Some(0), &m),
            Some(Allowance {
                deletes: 0,
                source: AllowanceSource::Flag
            })
        );
        assert_eq!(Allowance::resolve(None, &Manifest::default()), None);
    }

    #[test]
    fn roster_removals_and_lifted_bans_read_as_what_they_are() {
        let of = |kind, live, deletes| KindDeletions {
            kind,
            live,
            deletes,
            with_channels: 0,
            with_integrations: 0,
            limit: default_limit(live),
        };
        for (kind, live, deletes, said) in [
            (
                DeleteKind::RosterEntries,
                2,
                1,
                "removes 1 of 2 roster entries (50%)",
            ),
            (DeleteKind::Bans, 4, 1, "lifts 1 of 4 bans (25%)"),
            (
                DeleteKind::Channels,
                18,
                17,
                "deletes 17 of 18 channels (94%)",
            ),
            (DeleteKind::MemberBans, 0, 9, "bans 9 members"),
        ] {
            assert_eq!(of(kind, live, deletes).describe(), said);
        }
    }
}
