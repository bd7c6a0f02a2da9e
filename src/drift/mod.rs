//! Drift with blame: what differs between the live guild and the manifest, who
//! changed it, when and why (from the audit log, docs/discord.md §7.4), which
//! objects nobody declared and how risky they are, and what the bot could not read.
//!
//! Drift only reads: the guild's seven GETs ([`Snapshot::fetch`]) plus audit-log pages,
//! newest first, only as far back as the questions need (see [`DriftOptions::max_pages`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use crate::discord::Client;
use crate::discord::audit::action;
use crate::discord::models::WEBHOOK_INCOMING;
use crate::discord::time::rfc3339;
use crate::permissions::Permissions;
use crate::plan::{Action, Change, Door, FieldChange, Kind, Plan, Problem, Widening};
use crate::snapshot::Snapshot;

mod access;
mod audit;
mod blame;
mod doors;
mod entry;
mod questions;
mod render;
pub use access::{AccessReview, ReviewedMember, ReviewedRole};
pub use doors::{Lockdown, PruneCount, lockdown, prune_count};
pub use render::render;

use audit::ask;
use blame::{Who, make_blame};
use questions::{Matcher, Question, change_questions};

/// The JSON report's format version; bump it when a field changes meaning.
pub const DRIFT_FORMAT: u32 = 1;
/// Discord keeps audit-log entries for 45 days (§7.3).
pub const RETENTION_DAYS: u64 = 45;
/// Entries per audit-log page, the API's maximum (§7.3).
pub const PAGE_SIZE: usize = 100;
/// Default cap on audit-log pages per run: 10 × 100 entries.
pub const DEFAULT_MAX_PAGES: usize = 10;

/// How drift investigates: how far back it reads the audit log, and whose changes are
/// guildctl's.
#[derive(Debug, Clone)]
pub struct DriftOptions {
    /// Audit-log pages read at most (of [`PAGE_SIZE`] entries).
    pub max_pages: usize,
    /// Now, in Unix milliseconds (a parameter so tests and reports agree on "ago").
    pub now_ms: u64,
    /// The manifest repository's current commit, to tell whether a guildctl change
    /// came from it.
    pub current_commit: Option<String>,
    /// User ids of the bots that apply (`--applier`): only their entries with a
    /// `guildctl apply` reason are guildctl's. Empty: the bot drift runs as.
    pub appliers: Vec<String>,
}

/// A user id for `--applier`: a snowflake, digits only.
pub fn parse_user_id(s: &str) -> Result<String, String> {
    let ok = !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    if ok {
        Ok(s.to_owned())
    } else {
        Err("a Discord user id is 1 to 20 digits (the bot's id, as in its profile)".to_owned())
    }
}

impl DriftOptions {
    /// Options reading at most [`DEFAULT_MAX_PAGES`] pages, with the bot drift runs as
    /// the only applier.
    pub fn new(now_ms: u64, current_commit: Option<String>) -> DriftOptions {
        DriftOptions {
            max_pages: DEFAULT_MAX_PAGES,
            now_ms,
            current_commit,
            appliers: Vec::new(),
        }
    }
}

/// The drift report; its JSON form is documented in docs/drift.md.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftReport {
    /// [`DRIFT_FORMAT`], so a reader of the JSON knows what its fields mean.
    pub format: u32,
    /// The guild's id.
    pub guild_id: String,
    /// The guild's name, as Discord has it.
    pub guild_name: String,
    /// When the report was made (UTC, RFC 3339).
    pub generated_at: String,
    /// Managed objects that differ from the manifest.
    pub drifted: Vec<DriftedObject>,
    /// Live objects the manifest does not declare, high risk first.
    pub unmanaged: Vec<Unmanaged>,
    /// Parts of the guild the bot could not read, and why.
    pub unreadable: Vec<Unreadable>,
    /// Problems the manifest has against this guild (apply would refuse them).
    pub problems: Vec<String>,
    /// Declared entries that match more than one live object, and which one each manages:
    /// the others are listed as unmanaged, at medium risk, with who made them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<crate::plan::Duplicate>,
    /// How much of the audit log was read, and why reading stopped.
    pub audit_log: AuditSummary,
    /// Incident actions in force (`guildctl lockdown`), from the guild object.
    pub lockdown: Option<Lockdown>,
    /// Members a prune would remove (`drift --prune-days N`), read-only.
    pub prune_count: Option<PruneCount>,
    /// The manifest's policies (`policies:`) the live guild breaks: high risk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<crate::access::policy::Breach>,
    /// Who holds dangerous permissions (docs/access.md, "Access review").
    pub access_review: Option<AccessReview>,
}

/// A managed object whose live state differs from the manifest.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftedObject {
    /// `create` (declared, missing live), `update`, `reorder`, `delete`.
    pub action: Action,
    /// What kind of object it is.
    pub kind: Kind,
    /// Its name, as plans show it.
    pub name: String,
    /// Its live id (none when it is missing live).
    pub id: Option<String>,
    /// Where the manifest declares it, e.g. `roles[2]`.
    pub source: Option<String>,
    /// The fields whose live value differs, each with who set it.
    pub fields: Vec<DriftedField>,
    /// Set when a live field widens access beyond the manifest (see the field's `risk`):
    /// listed first, like a high-risk unmanaged object.
    #[serde(default)]
    pub high_risk: bool,
    /// For a missing object, who deleted it; for one to be deleted, who created it.
    pub blame: Option<Blame>,
}

/// One field whose live value differs from the manifest's.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftedField {
    /// The field, as the manifest names it.
    pub field: String,
    /// The live value, in manifest terms.
    pub live: Value,
    /// The manifest's value.
    pub manifest: Value,
    /// What the live value grants beyond the manifest's, when that is a dangerous
    /// permission for a role (any permission for `@everyone`) or access to a channel.
    pub risk: Option<String>,
    /// Who set the live value.
    pub blame: Blame,
}

/// Who made the live value what it is. Exactly one of `entry` and `not_found` is set.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Blame {
    /// The audit-log entry that made it so.
    pub entry: Option<Attribution>,
    /// Why no entry was found.
    pub not_found: Option<String>,
    /// The newest guildctl change to the same field among the entries read, when the
    /// attributed change is someone else's (a hand revert of an apply).
    pub previous_guildctl: Option<Attribution>,
}

/// An audit-log entry a change is attributed to: who, when, and the reason they gave.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Attribution {
    /// The entry's id.
    pub entry_id: String,
    /// The entry's action (Discord's number for it).
    pub action_type: crate::discord::audit::ActionType,
    /// Who made the change.
    pub user: Actor,
    /// UTC, RFC 3339, from the entry id's snowflake timestamp.
    pub at: String,
    /// "5 minutes ago", relative to `generated_at`.
    pub ago: String,
    /// The audit-log reason given with the change.
    pub reason: Option<String>,
    /// Set when the change was guildctl's: made by the bot that applies, with a
    /// `guildctl apply…` reason.
    pub guildctl: Option<GuildctlChange>,
    /// The reason says `guildctl apply…` but the entry is another user's: a reason
    /// anyone can type proves nothing, so the change is that user's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub claims_guildctl: bool,
}

/// A change guildctl made, and whether it came from the manifest's current commit.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GuildctlChange {
    /// The commit the reason names, if any.
    pub commit: Option<String>,
    /// Whether that commit is the manifest's current one (`None`: unknown).
    pub current: Option<bool>,
}

/// Who made a change: a person, a bot, a webhook, an integration, or Discord.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Actor {
    /// The user's id, when the entry names one.
    pub id: Option<String>,
    /// The username (unique), or the webhook's name.
    pub name: String,
    /// Their display name (Discord's `global_name`), when they set one.
    pub display_name: Option<String>,
    /// `human`, `bot`, `this_bot` (the bot guildctl runs as), `webhook`,
    /// `integration`, `discord` (Discord's own change: a permission migration, named
    /// "Discord's permission migration") or `unknown`.
    pub kind: String,
}

/// A live object the manifest does not declare, with its risk and who made it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Unmanaged {
    /// `role`, `channel`, `category`, `webhook` or `overwrite`.
    pub kind: String,
    /// Its name (for an overwrite, whose and where).
    pub name: String,
    /// Its live id.
    pub id: String,
    /// It grants something dangerous (administrator, a hand-made webhook, ...): listed first.
    pub high_risk: bool,
    /// Flagged, though not high risk: an invite made by hand that never expires.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub medium_risk: bool,
    /// Why it is (or is not) high risk.
    pub risk: String,
    /// Who created it.
    pub blame: Blame,
}

/// A part of the guild the bot could not read, so drift could not judge it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Unreadable {
    /// What was not read: `webhooks`, `hidden channels`, `audit log`, ...
    pub part: String,
    /// Why: the permission it needs, or what Discord answered.
    pub why: String,
}

/// How much of the audit log drift read.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct AuditSummary {
    /// Audit-log requests made.
    pub pages_read: usize,
    /// Entries those pages held.
    pub entries_read: usize,
    /// The cap on pages ([`DriftOptions::max_pages`]).
    pub max_pages: usize,
    /// Why reading stopped: `not_needed`, `all_attributed`, `end_of_log`,
    /// `retention` (entries older than 45 days), `page_cap`, `forbidden`, `error`.
    pub stopped: String,
}

impl DriftReport {
    /// High-risk unmanaged objects.
    pub fn high_risk(&self) -> usize {
        self.unmanaged.iter().filter(|u| u.high_risk).count()
    }

    /// Managed objects whose live values widen access beyond the manifest.
    pub fn high_risk_drift(&self) -> usize {
        self.drifted.iter().filter(|d| d.high_risk).count()
    }

    /// 2 when something managed drifted, the live guild breaks a policy, an entry matches
    /// more than one live object, or a high- or medium-risk object is unmanaged (or any
    /// unmanaged object with `fail_on_unmanaged`), else 0.
    pub fn exit_code(&self, fail_on_unmanaged: bool) -> u8 {
        // A manifest problem (a managed value that could not be read, a pinned id that is
        // gone) means the guild could not be shown to match: never exit 0 on it.
        let fail = !self.drifted.is_empty()
            || !self.problems.is_empty()
            || !self.duplicates.is_empty()
            || !self.policies.is_empty()
            || self.high_risk() > 0
            || self.unmanaged.iter().any(|u| u.medium_risk)
            || (fail_on_unmanaged && !self.unmanaged.is_empty());
        if fail { 2 } else { 0 }
    }
}

/// Investigates the drift `plan` shows (made with [`crate::planner::differences`] from
/// `manifest`, in its stored form): asks the audit log who made each live value, ranks
/// unmanaged objects by risk, judges the manifest's policies on the live guild, reviews
/// who holds dangerous permissions, lists what the bot could not read.
pub async fn investigate(
    client: &Client,
    snap: &Snapshot,
    plan: &Plan,
    problems: &[Problem],
    manifest: &crate::manifest::Manifest,
    options: &DriftOptions,
) -> DriftReport {
    let mut questions: Vec<Question> = Vec::new();
    // Per drifted object: the object-level question and one per field.
    let mut object_q: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    let changes = drifted_changes(plan);
    for c in &changes {
        let (oq, fqs) = change_questions(c, snap);
        let oi = oq.map(|q| {
            questions.push(q);
            questions.len() - 1
        });
        let fis = fqs
            .into_iter()
            .map(|q| {
                questions.push(q);
                questions.len() - 1
            })
            .collect();
        object_q.push((oi, fis));
    }
    let mut unmanaged = unmanaged_objects(plan, snap, manifest.channels.is_some());
    mark_duplicates(&mut unmanaged, &plan.duplicates);
    let unmanaged_first = questions.len();
    questions.extend(unmanaged.iter().map(|(_, q)| q.clone()));
    let live = crate::access::Guild::live(snap);
    let counts = access::role_counts(client, snap).await;
    let breaches = access::breaches(manifest, &live, &counts.as_ref().ok().cloned());
    let review_first = questions.len();
    let mut review = access::review(manifest, snap, &live, &counts, &mut questions);

    let appliers = if options.appliers.is_empty() {
        vec![snap.bot.id.clone()]
    } else {
        options.appliers.clone()
    };
    let answers = ask(client, &snap.guild.id, &questions, options, &appliers).await;
    let who = Who {
        answers: &answers,
        snap,
        options,
        appliers: &appliers,
    };
    let blame = |i: usize| make_blame(&questions[i], i, &who);

    let mut drifted: Vec<DriftedObject> = changes
        .iter()
        .zip(&object_q)
        .map(|(c, (oi, fis))| {
            let fields: Vec<DriftedField> = if fis.len() == c.fields.len() {
                c.fields
                    .iter()
                    .zip(fis)
                    .map(|(f, &qi)| DriftedField {
                        field: f.field.name().into_owned(),
                        live: f.before.clone(),
                        manifest: f.after.clone(),
                        risk: field_risk(c, f, &snap.guild.id),
                        blame: blame(qi),
                    })
                    .collect()
            } else {
                c.fields
                    .iter()
                    .map(|f| DriftedField {
                        field: f.field.name().into_owned(),
                        live: f.before.clone(),
                        manifest: f.after.clone(),
                        risk: field_risk(c, f, &snap.guild.id),
                        blame: Blame::none("see the object's line"),
                    })
                    .collect()
            };
            DriftedObject {
                action: c.action,
                kind: c.object.kind,
                name: c.object.name.clone(),
                id: c.object.id.clone(),
                source: c.source.clone(),
                high_risk: fields.iter().any(|f| f.risk.is_some())
                    || dangerous_holding(c, snap).is_some(),
                fields,
                blame: oi.map(blame),
            }
        })
        .collect();
    // High risk first, as for unmanaged objects; otherwise the plan's order.
    drifted.sort_by_key(|d| !d.high_risk);
    let mut unmanaged: Vec<Unmanaged> = unmanaged
        .drain(..)
        .enumerate()
        .map(|(k, (mut u, _))| {
            u.blame = blame(unmanaged_first + k);
            u
        })
        .collect();
    // High risk first; otherwise the order the plan found them in.
    unmanaged.sort_by_key(|u| !u.high_risk);
    for (n, &(k, j)) in review.asks.iter().enumerate() {
        review.review.roles[k].members[j].granted = blame(review_first + n);
    }

    let mut unreadable = unreadable_parts(snap);
    unreadable.extend(snap.doors.unreadable.iter().map(|(part, why)| Unreadable {
        part: part.clone(),
        why: why.clone(),
    }));
    match answers.summary.stopped.as_str() {
        "forbidden" if !unreadable.iter().any(|u| u.part == "audit log permission") => unreadable
            .push(Unreadable {
                part: "audit log".into(),
                why: "needs view_audit_log (Discord answered 403): nothing can be attributed"
                    .into(),
            }),
        "error" => unreadable.push(Unreadable {
            part: "audit log".into(),
            why: answers.error.clone().unwrap_or_default(),
        }),
        _ => {}
    }
    DriftReport {
        format: DRIFT_FORMAT,
        guild_id: snap.guild.id.clone(),
        guild_name: snap.guild.name.clone(),
        generated_at: rfc3339(options.now_ms),
        drifted,
        unmanaged,
        unreadable,
        problems: problems.iter().map(|p| p.message.clone()).collect(),
        duplicates: plan.duplicates.clone(),
        audit_log: answers.summary,
        lockdown: lockdown(snap, options.now_ms),
        prune_count: None,
        policies: breaches,
        access_review: Some(review.review),
    }
}

/// What a drifted field's live value widens beyond the manifest's: the plan's risk
/// rules ([`crate::judge::risk::of_change`]) on the change read the other way, keeping grants and
/// openings (a deletion or a webhook move by hand is drift, not access).
fn field_risk(c: &Change, f: &FieldChange, guild_id: &str) -> Option<String> {
    if c.action != Action::Update {
        return None;
    }
    let one = Change {
        fields: vec![f.clone()],
        ..c.clone()
    };
    let found: Vec<String> =
        crate::judge::risk::of_change(0, &crate::judge::risk::reversed(&one), guild_id)
            .into_iter()
            .filter_map(|r| match r.what {
                Widening::Grant { permissions } => Some(format!(
                    "live grants {}, which the manifest does not",
                    permissions.join(", ")
                )),
                Widening::Opens { who, permissions } => Some(format!(
                    "live opens {} to {who}, which the manifest does not",
                    permissions.join(", ")
                )),
                Widening::BansMember { .. }
                | Widening::Access { .. }
                | Widening::Delete
                | Widening::WebhookMove { .. }
                | Widening::Policy(_) => None,
            })
            .collect();
    (!found.is_empty()).then(|| found.join("; "))
}

/// Whether a roster entry the plan would take was a dangerous role given by hand.
fn dangerous_holding(c: &Change, snap: &Snapshot) -> Option<String> {
    if c.object.kind != Kind::RosterEntry || c.action != Action::Delete {
        return None;
    }
    let name = c.object.name.split(" ← ").next()?;
    let role = snap.guild.roles.iter().find(|r| r.name == name)?;
    let bad = role.permissions.dangerous_names();
    (!bad.is_empty()).then(|| format!("holds a role granting {}", bad.join(", ")))
}

/// Unmanaged objects with their risk and the question that finds their creator.
/// The plan's changes that are drift: a channel's overwrites sent again as they are (its
/// category drifted, and the category's write would be copied to it) are the apply's
/// concern, not a difference of the channel's own.
fn drifted_changes(plan: &Plan) -> Vec<Change> {
    let kept = |f: &FieldChange| {
        f.field == crate::plan::Field::Channel(crate::plan::field::Channel::KeptOverwrites)
    };
    plan.changes
        .iter()
        .filter_map(|c| {
            if !c.fields.iter().any(kept) {
                return Some(c.clone());
            }
            let mut c = c.clone();
            c.fields.retain(|f| !kept(f));
            (!c.fields.is_empty()).then_some(c)
        })
        .collect()
}

/// The unmanaged objects a declared entry matches besides the one it manages: medium risk
/// (what two applies at once, or a copy by hand, left), saying which entry and object.
fn mark_duplicates(unmanaged: &mut [(Unmanaged, Question)], duplicates: &[crate::plan::Duplicate]) {
    for (u, _) in unmanaged.iter_mut() {
        let Some(d) = duplicates.iter().find(|d| d.others.contains(&u.id)) else {
            continue;
        };
        u.medium_risk = true;
        u.risk = format!(
            "a duplicate: the manifest's {} `{}` ({}) matches it too, and manages {} ({})",
            d.kind.label(),
            d.name,
            d.source,
            d.managed,
            d.why
        );
    }
}

// What a kind is as a door is its row of the kind table; every door is named here.
#[deny(clippy::wildcard_enum_match_arm)]
fn unmanaged_objects(
    plan: &Plan,
    snap: &Snapshot,
    manages_channels: bool,
) -> Vec<(Unmanaged, Question)> {
    let mut out = Vec::new();
    let item = |kind: &str, name: String, id: &str, high: bool, risk: String| Unmanaged {
        kind: kind.to_owned(),
        name,
        id: id.to_owned(),
        high_risk: high,
        medium_risk: false,
        risk,
        blame: Blame::none(""),
    };
    for o in &plan.unmanaged {
        let Some(id) = o.id.as_deref() else { continue };
        let Some(door) = o.kind.facts().door else {
            continue;
        };
        match door {
            Door::Role => {
                let Some(r) = snap.role(id) else { continue };
                let bad = r.permissions.dangerous_names();
                let (high, risk) = if r.managed {
                    (
                        false,
                        "an integration's role (Discord made it for a bot or a subscription)"
                            .to_owned(),
                    )
                } else if bad.is_empty() {
                    (false, "grants no dangerous permission".to_owned())
                } else {
                    (true, format!("grants {}", bad.join(", ")))
                };
                out.push((
                    item("role", o.name.clone(), id, high, risk),
                    Question::new(&[action::ROLE_CREATE], Some(id.to_owned()), Matcher::Any),
                ));
            }
            Door::Webhook => {
                let hand_made = snap
                    .webhooks
                    .iter()
                    .flatten()
                    .find(|w| w.id == id)
                    .is_some_and(|w| {
                        w.kind == WEBHOOK_INCOMING
                            && w.application_id.as_deref() != Some(&snap.bot.id)
                    });
                let (high, risk) = if hand_made {
                    (
                        true,
                        "a hand-made webhook: anyone with its URL can post as it".to_owned(),
                    )
                } else {
                    (false, "made by an application".to_owned())
                };
                out.push((
                    item("webhook", o.name.clone(), id, high, risk),
                    Question::new(&[action::WEBHOOK_CREATE], Some(id.to_owned()), Matcher::Any),
                ));
            }
            // A manifest without `channels:` (a roster or a settings file) leaves every
            // channel alone: only their overwrites that grant power are worth a line.
            Door::Channel if !manages_channels => {
                out.extend(powerful_overwrites(snap, id, &o.name));
            }
            Door::Channel => {
                out.push((
                    item(
                        o.kind.label(),
                        o.name.clone(),
                        id,
                        false,
                        overwrites_said(snap, id),
                    ),
                    Question::new(&[action::CHANNEL_CREATE], Some(id.to_owned()), Matcher::Any),
                ));
                // Its overwrites are unmanaged too; those granting power are the risk.
                out.extend(powerful_overwrites(snap, id, &o.name));
            }
            // A declared channel whose overwrites the manifest leaves alone.
            Door::Overwrites => out.extend(powerful_overwrites(snap, id, &o.name)),
            Door::Integration => out.extend(doors::integration(snap, id, &o.name)),
            Door::Invite => out.extend(doors::invite(snap, id)),
            // A ban made by hand that the ban list does not have (kept without prune.bans).
            Door::Ban => out.push((
                item(
                    "ban",
                    o.name.clone(),
                    id,
                    false,
                    "a ban the manifest's list does not have".to_owned(),
                ),
                Question::new(&[action::MEMBER_BAN_ADD], Some(id.to_owned()), Matcher::Any),
            )),
        }
    }
    out
}

/// The overwrites on channel `id` that grant a dangerous permission: high risk when
/// nothing in the manifest manages them, with the question that finds who made each.
/// What an unmanaged channel's overwrites amount to: those that grant power are listed
/// apart, as high risk.
fn overwrites_said(snap: &Snapshot, id: &str) -> String {
    let overwrites = snap
        .channel(id)
        .map(|c| c.permission_overwrites.as_slice())
        .unwrap_or_default();
    let powerful = overwrites
        .iter()
        .filter(|ow| !ow.allow.dangerous_names().is_empty())
        .count();
    match (overwrites.len(), powerful) {
        (0, _) => "no permission overwrites".to_owned(),
        (n, 0) => format!("{n} permission overwrite(s), none granting a dangerous permission"),
        (n, p) => format!("{n} permission overwrite(s), {p} granting power (listed apart)"),
    }
}

fn powerful_overwrites(snap: &Snapshot, id: &str, channel: &str) -> Vec<(Unmanaged, Question)> {
    let overwrites = snap
        .channel(id)
        .map(|c| c.permission_overwrites.as_slice())
        .unwrap_or_default();
    overwrites
        .iter()
        .filter_map(|ow| {
            let bad = ow.allow.dangerous_names();
            if bad.is_empty() {
                return None;
            }
            // A member as Discord knows them (the plan's reads named them).
            let username = snap.people.as_ref().and_then(|p| p.usernames.get(&ow.id));
            let target = match (snap.role(&ow.id), username) {
                (Some(r), _) => format!("role {}", r.name),
                (None, Some(name)) => format!("member {name} ({})", ow.id),
                (None, None) => format!("member {}", ow.id),
            };
            let found = Unmanaged {
                kind: "overwrite".to_owned(),
                name: format!("{channel} for {target}"),
                id: ow.id.clone(),
                high_risk: true,
                medium_risk: false,
                risk: format!("allows {}", bad.join(", ")),
                blame: Blame::none(""),
            };
            let question = Question::new(
                &[action::CHANNEL_OVERWRITE_CREATE],
                Some(id.to_owned()),
                Matcher::OverwriteFor { id: ow.id.clone() },
            );
            Some((found, question))
        })
        .collect()
}

/// What Discord did not show the bot, inferred from its permissions.
fn unreadable_parts(snap: &Snapshot) -> Vec<Unreadable> {
    let perms = snap.bot_permissions();
    let mut out = Vec::new();
    if snap.webhooks.is_none() {
        let why = if perms.contains(Permissions::MANAGE_WEBHOOKS) {
            "Discord refused the read (403 or 404)"
        } else {
            "not read: needs manage_webhooks (Discord lists webhooks only to those who may manage them); webhook drift is unknown"
        };
        out.push(Unreadable {
            part: "webhooks".into(),
            why: why.into(),
        });
    }
    if !snap.sees_every_channel() {
        out.push(Unreadable {
            part: "hidden channels".into(),
            why: "the bot is not an administrator: Discord omits the channels it cannot view, so their drift (and whether they exist) is unknown".into(),
        });
    }
    if !perms.contains(Permissions::VIEW_AUDIT_LOG) && perms != Permissions::ALL {
        // Reported from the 403 when the log is asked; said here for a clean guild too.
        out.push(Unreadable {
            part: "audit log permission".into(),
            why: "the bot lacks view_audit_log: changes cannot be attributed".into(),
        });
    }
    out
}
