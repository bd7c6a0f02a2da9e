//! What keeps a plan from destroying much by accident: the deletion gate (how many
//! objects of each kind a plan deletes, and how many members it bans, against a default
//! limit or an explicit, numbered allowance), the policy gate (policies a change removes or
//! loosens, none by default: [`policy_gate`]) and `protect: true` (objects never deleted).
//!
//! The gate's verdict is stored on the plan ([`super::Plan::deletion_gate`]) so every
//! format shows in advance whether apply will refuse. It is judged once, as the plan is
//! made, with the allowance the plan's options carry (apply's `--allow-deletes`, else the
//! manifest's), and apply refuses through [`super::Plan::raise_if_unsafe`].

use hashbrown::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::context::Problem;
pub use super::kind::DeleteKind;
use super::policy_changes::PolicyChange;
use super::{Action, Change, Kind, Plan, Protect, created_key};
use crate::discord::Route;
use crate::discord::names::{stored_channel_name, stored_display_name};
use crate::manifest::{Channel, Manifest};
use crate::snapshot::Snapshot;

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
    fn of_change(c: &Change) -> Option<DeleteKind> {
        if c.bans_member() {
            return Some(DeleteKind::MemberBans);
        }
        (c.action == Action::Delete)
            .then_some(c.object.kind.facts().gate)
            .flatten()
    }
}

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

/// The default limit for a kind with `live` objects: 30% of them, at least 2, at most 10.
pub fn default_limit(live: usize) -> usize {
    (live * MAX_DELETE_PERCENT / 100).clamp(MIN_DELETE_LIMIT, MAX_DELETE_LIMIT)
}

/// Deletions of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindDeletions {
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
    fn describe(&self) -> String {
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
    pub deletes: usize,
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

    fn describe(&self) -> String {
        match self.source {
            AllowanceSource::Flag => format!("--allow-deletes {}", self.deletes),
            AllowanceSource::Manifest => format!("`safety.allow_deletes: {}`", self.deletes),
        }
    }
}

/// The deletion gate's verdict on a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletionGate {
    /// Whether apply refuses the plan (`--yes` does not change this).
    pub refused: bool,
    /// Objects the plan deletes, of every kind, and members it bans.
    pub deletes: usize,
    /// Per kind with live objects or deletions.
    pub kinds: Vec<KindDeletions>,
    /// The explicit allowance in force, which replaces the default limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowance: Option<Allowance>,
    /// Why apply refuses, one sentence per reason with its numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// How to allow the plan, when it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl DeletionGate {
    /// "apply will refuse: deletes 17 of 18 channels (94%), above ...; to allow it, ..."
    /// or `None` when apply proceeds.
    pub fn refusal(&self) -> Option<String> {
        if !self.refused {
            return None;
        }
        let mut s = self.reasons.join("; ");
        if let Some(h) = &self.help {
            s.push_str("; ");
            s.push_str(h);
        }
        Some(s)
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
    pub changes: usize,
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

    fn describe(&self) -> String {
        match self.source {
            AllowanceSource::Flag => format!("--allow-policy-changes {}", self.changes),
            AllowanceSource::Manifest => {
                format!("`safety.allow_policy_changes: {}`", self.changes)
            }
        }
    }
}

/// The policy gate's verdict: the policy changes it counts ([`PolicyChange::gated`])
/// against the allowance, none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyGate {
    /// Whether apply refuses the plan (`--yes` does not change this).
    pub refused: bool,
    /// The policy changes counted.
    pub changes: usize,
    /// The explicit allowance in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowance: Option<PolicyAllowance>,
    /// Why apply refuses, with the changes named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How to allow the plan, when it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl PolicyGate {
    /// A plan that changes no policy (the gate is then left out of its JSON).
    pub fn is_empty(&self) -> bool {
        *self == PolicyGate::default()
    }

    /// "changes 1 policy (…), and none is allowed by default; to allow it, …", or `None`.
    pub fn refusal(&self) -> Option<String> {
        if !self.refused {
            return None;
        }
        let mut s = self.reason.clone().unwrap_or_default();
        if let Some(h) = &self.help {
            s.push_str("; ");
            s.push_str(h);
        }
        Some(s)
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
        let how = match allowance.map(|a| a.source) {
            Some(AllowanceSource::Flag) => format!("pass --allow-policy-changes {n}"),
            Some(AllowanceSource::Manifest) => format!(
                "raise `safety.allow_policy_changes` to {n} in the manifest, or pass --allow-policy-changes {n} to apply"
            ),
            None => format!(
                "pass --allow-policy-changes {n} to apply, or set `safety: {{ allow_policy_changes: {n} }}` in the manifest"
            ),
        };
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

/// Members banned, of the kinds counted.
fn member_bans(kinds: &[KindDeletions]) -> usize {
    kinds
        .iter()
        .filter(|k| k.kind == DeleteKind::MemberBans)
        .map(|k| k.deletes)
        .sum()
}

/// What an allowance counts, in words: "deletes 3 object(s)", "bans 9 member(s)", or both.
fn counted(kinds: &[KindDeletions]) -> String {
    let banned = member_bans(kinds);
    let deleted = kinds.iter().map(|k| k.deletes).sum::<usize>() - banned;
    match (deleted, banned) {
        (n, 0) => format!("deletes {n} object(s)"),
        (0, b) => format!("bans {b} member(s)"),
        (n, b) => format!("deletes {n} object(s) and bans {b} member(s)"),
    }
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
    let live = |k: DeleteKind| match k {
        DeleteKind::Roles => snap
            .guild
            .roles
            .iter()
            .filter(|r| r.id != snap.guild.id)
            .count(),
        DeleteKind::Channels => snap.channels.len(),
        DeleteKind::Webhooks => snap.webhooks.as_ref().map_or(0, Vec::len),
        DeleteKind::Integrations => snap.doors.integrations.as_ref().map_or(0, Vec::len),
        DeleteKind::Invites => snap.doors.invites.as_ref().map_or(0, Vec::len),
        DeleteKind::RosterEntries => roster_holders(snap),
        DeleteKind::Bans => snap
            .people
            .as_ref()
            .and_then(|p| p.bans.as_ref())
            .map_or(0, |b| b.len()),
        // The guild's members are not counted; the limit is the least one.
        DeleteKind::MemberBans => 0,
        DeleteKind::Emojis => snap.expressions.emojis.as_ref().map_or(0, Vec::len),
        DeleteKind::Sounds => snap.expressions.sounds.as_ref().map_or(0, Vec::len),
        DeleteKind::AutoModRules => snap.automod.as_ref().map_or(0, Vec::len),
        DeleteKind::ScheduledEvents => snap.events.as_ref().map_or(0, Vec::len),
        DeleteKind::Stickers => snap.expressions.stickers.as_ref().map_or(0, Vec::len),
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
                (n, 0) => format!("{} {}, {n} of them with their channels", k.deletes, k.kind.label()),
                (c, i) => format!(
                    "{} {}, {c} of them with their channels and {i} with their integrations",
                    k.deletes,
                    k.kind.label()
                ),
            })
            .collect();
        let how = match allowance.map(|a| a.source) {
            // The flag takes precedence: the manifest's setting would not help.
            Some(AllowanceSource::Flag) => format!("pass --allow-deletes {deletes}"),
            Some(AllowanceSource::Manifest) => format!(
                "raise `safety.allow_deletes` to {deletes} in the manifest, or pass --allow-deletes {deletes} to apply"
            ),
            None => format!(
                "pass --allow-deletes {deletes} to apply, or set `safety: {{ allow_deletes: {deletes} }}` in the manifest"
            ),
        };
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
    let deleted_directly: HashSet<&str> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Delete && c.object.kind == Kind::Webhook)
        .filter_map(|c| c.object.id.as_deref())
        .collect();
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

/// Channels the plan deletes, by id.
fn deleted_channels(plan: &Plan) -> HashSet<&str> {
    plan.changes
        .iter()
        .filter(|c| {
            c.action == Action::Delete && matches!(c.object.kind, Kind::Channel | Kind::Category)
        })
        .filter_map(|c| c.object.id.as_deref())
        .collect()
}

/// Live webhooks (of any type) that end the plan in a channel it deletes without being
/// deleted themselves: Discord deletes them with the channel.
fn lost_with_channels(plan: &Plan, snap: &Snapshot) -> Vec<Lost> {
    let deleted = deleted_channels(plan);
    if deleted.is_empty() {
        return Vec::new();
    }
    let deleted_directly: HashSet<&str> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Delete && c.object.kind == Kind::Webhook)
        .filter_map(|c| c.object.id.as_deref())
        .collect();
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
        plan.warnings.push(super::Warning {
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

fn entries(m: &Manifest) -> Vec<Entry<'_>> {
    fn channels<'m>(list: &'m [Channel], prefix: &str, out: &mut Vec<Entry<'m>>) {
        for (i, c) in list.iter().enumerate() {
            let source = format!("{prefix}[{i}]");
            out.push(Entry {
                kind: DeleteKind::Channels,
                source: source.clone(),
                id: c.id.as_ref().map(|s| s.0.as_str()),
                names: std::iter::once(c.name.as_str())
                    .chain(c.previous_names.iter().map(String::as_str))
                    .collect(),
                protect: c.protect,
            });
            if let Some(children) = &c.channels {
                channels(children, &format!("{source}.channels"), out);
            }
        }
    }
    let mut out = Vec::new();
    for (i, r) in m.roles.iter().flatten().enumerate() {
        out.push(Entry {
            kind: DeleteKind::Roles,
            source: format!("roles[{i}]"),
            id: r.id.as_ref().map(|s| s.0.as_str()),
            names: std::iter::once(r.name.as_str())
                .chain(r.previous_names.iter().map(String::as_str))
                .collect(),
            protect: r.protect,
        });
    }
    channels(
        m.channels.as_deref().unwrap_or_default(),
        "channels",
        &mut out,
    );
    for (i, w) in m.webhooks.iter().flatten().enumerate() {
        out.push(Entry {
            kind: DeleteKind::Webhooks,
            source: format!("webhooks[{i}]"),
            id: w.id.as_ref().map(|s| s.0.as_str()),
            names: std::iter::once(w.name.as_str())
                .chain(w.previous_names.iter().map(String::as_str))
                .collect(),
            protect: w.protect,
        });
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
        assert_eq!(
            of(DeleteKind::RosterEntries, 2, 1).describe(),
            "removes 1 of 2 roster entries (50%)"
        );
        assert_eq!(
            of(DeleteKind::Bans, 4, 1).describe(),
            "lifts 1 of 4 bans (25%)"
        );
        assert_eq!(
            of(DeleteKind::Channels, 18, 17).describe(),
            "deletes 17 of 18 channels (94%)"
        );
        assert_eq!(
            of(DeleteKind::MemberBans, 0, 9).describe(),
            "bans 9 members"
        );
    }
}
