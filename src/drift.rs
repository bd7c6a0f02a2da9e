//! Drift with blame: what differs between the live guild and the manifest, who
//! changed it, when and why (from the audit log, discord-behaviour.md §7.4), which
//! objects nobody declared and how risky they are, and what the bot could not read.
//!
//! Drift only reads: the guild's seven GETs ([`Snapshot::fetch`]) plus audit-log pages,
//! newest first, only as far back as the questions need (see [`DriftOptions::max_pages`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::discord::models::WEBHOOK_INCOMING;
use crate::discord::time::{DAY_MS, ago, rfc3339, snowflake_ms};
use crate::discord::{Client, ClientError};
use crate::permissions::Permissions;
use crate::plan::field::{self, Field};
use crate::plan::{Action, Change, FieldChange, Kind, Plan, Problem, Widening, risk};
use crate::snapshot::Snapshot;

mod access;
mod doors;
mod render;
pub use access::{AccessReview, ReviewedMember, ReviewedRole};
pub use doors::{Lockdown, PruneCount, lockdown, prune_count};
pub use render::render;

/// The JSON report's format version; bump it when a field changes meaning.
pub const DRIFT_FORMAT: u32 = 1;
/// Discord keeps audit-log entries for 45 days (§7.3).
pub const RETENTION_DAYS: u64 = 45;
/// Entries per audit-log page, the API's maximum (§7.3).
pub const PAGE_SIZE: usize = 100;
/// Default cap on audit-log pages per run: 10 × 100 entries.
pub const DEFAULT_MAX_PAGES: usize = 10;

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
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftReport {
    pub format: u32,
    pub guild_id: String,
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
    pub audit_log: AuditSummary,
    /// Incident actions in force (`guildctl lockdown`), from the guild object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lockdown: Option<Lockdown>,
    /// Members a prune would remove (`drift --prune-days N`), read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prune_count: Option<PruneCount>,
    /// The manifest's policies (`policies:`) the live guild breaks: high risk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<crate::access::policy::Breach>,
    /// Who holds dangerous permissions (docs/access.md, "Access review").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_review: Option<AccessReview>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftedObject {
    /// `create` (declared, missing live), `update`, `reorder`, `delete`.
    pub action: Action,
    pub kind: Kind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Where the manifest declares it, e.g. `roles[2]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub fields: Vec<DriftedField>,
    /// Set when a live field widens access beyond the manifest (see the field's `risk`):
    /// listed first, like a high-risk unmanaged object.
    #[serde(default)]
    pub high_risk: bool,
    /// For a missing object, who deleted it; for one to be deleted, who created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blame: Option<Blame>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DriftedField {
    pub field: String,
    /// The live value, in manifest terms.
    pub live: Value,
    /// The manifest's value.
    pub manifest: Value,
    /// What the live value grants beyond the manifest's, when that is a dangerous
    /// permission for a role (any permission for `@everyone`) or access to a channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    pub blame: Blame,
}

/// Who made the live value what it is. Exactly one of `entry` and `not_found` is set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Blame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<Attribution>,
    /// Why no entry was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_found: Option<String>,
    /// The newest guildctl change to the same field among the entries read, when the
    /// attributed change is someone else's (a hand revert of an apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_guildctl: Option<Attribution>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Attribution {
    pub entry_id: String,
    pub action_type: u32,
    pub user: Actor,
    /// UTC, RFC 3339, from the entry id's snowflake timestamp.
    pub at: String,
    /// "5 minutes ago", relative to `generated_at`.
    pub ago: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Set when the change was guildctl's: made by the bot that applies, with a
    /// `guildctl apply…` reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guildctl: Option<GuildctlChange>,
    /// The reason says `guildctl apply…` but the entry is another user's: a reason
    /// anyone can type proves nothing, so the change is that user's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub claims_guildctl: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GuildctlChange {
    /// The commit the reason names, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether that commit is the manifest's current one (`None`: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Actor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The username (unique), or the webhook's name.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// `human`, `bot`, `this_bot` (the bot guildctl runs as), `webhook`,
    /// `integration` or `unknown`.
    pub kind: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Unmanaged {
    /// `role`, `channel`, `category`, `webhook` or `overwrite`.
    pub kind: String,
    pub name: String,
    pub id: String,
    pub high_risk: bool,
    /// Flagged, though not high risk: an invite made by hand that never expires.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub medium_risk: bool,
    /// Why it is (or is not) high risk.
    pub risk: String,
    /// Who created it.
    pub blame: Blame,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Unreadable {
    /// What was not read: `webhooks`, `hidden channels`, `audit log`, ...
    pub part: String,
    pub why: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct AuditSummary {
    /// Audit-log requests made.
    pub pages_read: usize,
    pub entries_read: usize,
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

    /// 2 when something managed drifted, the live guild breaks a policy, or a high- or
    /// medium-risk object is unmanaged (or any unmanaged object with `fail_on_unmanaged`),
    /// else 0.
    pub fn exit_code(&self, fail_on_unmanaged: bool) -> u8 {
        let fail = !self.drifted.is_empty()
            || !self.policies.is_empty()
            || self.high_risk() > 0
            || self.unmanaged.iter().any(|u| u.medium_risk)
            || (fail_on_unmanaged && !self.unmanaged.is_empty());
        if fail { 2 } else { 0 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    #[error("reading the audit log: {0}")]
    Client(#[from] ClientError),
}

// ---------------------------------------------------------------------------
// Questions asked of the audit log.

/// What an entry must look like to explain one drifted value.
#[derive(Debug, Clone)]
enum Matcher {
    /// A change of `key` whose new value is the live one (`None`: any value).
    Key { key: String, value: Option<Value> },
    /// An overwrite entry (13/14/15) consistent with the channel's live overwrites.
    Overwrites { live: Vec<(String, String, String)> },
    /// A deletion of an object of this name.
    DeletedNamed { name: String },
    /// A create of an overwrite for this role or member.
    OverwriteFor { id: String },
    /// A member role update (25) that gave (`$add`) or took (`$remove`) this role, known
    /// by its live id or, once renamed or gone, the name it had.
    RoleGiven {
        key: &'static str,
        role: Option<String>,
        name: String,
    },
    /// Any entry of the actions on the target.
    Any,
}

#[derive(Debug, Clone)]
struct Question {
    actions: Vec<u32>,
    target: Option<String>,
    matcher: Matcher,
    /// Set when Discord does not audit this kind of change: no search.
    unaudited: Option<&'static str>,
}

impl Question {
    fn new(actions: &[u32], target: Option<String>, matcher: Matcher) -> Question {
        Question {
            actions: actions.to_vec(),
            target,
            matcher,
            unaudited: None,
        }
    }

    fn unaudited(why: &'static str) -> Question {
        Question {
            actions: Vec::new(),
            target: None,
            matcher: Matcher::Any,
            unaudited: Some(why),
        }
    }

    fn applies(&self, e: &AuditEntry) -> bool {
        self.unaudited.is_none()
            && self.actions.contains(&e.action_type)
            && self
                .target
                .as_ref()
                .is_none_or(|t| e.target_id.as_ref() == Some(t))
    }

    /// Whether `e` explains the live value.
    fn matches(&self, e: &AuditEntry) -> bool {
        if !self.applies(e) {
            return false;
        }
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Key { key, value } => e
                .changes
                .iter()
                .any(|c| &c.key == key && value.as_ref().is_none_or(|v| same(v, &c.new_value))),
            Matcher::DeletedNamed { name } => e
                .changes
                .iter()
                .any(|c| c.key == "name" && same(&Value::String(name.clone()), &c.old_value)),
            Matcher::OverwriteFor { id } => option(e, "id").as_deref() == Some(id.as_str()),
            Matcher::RoleGiven { key, role, name } => e.changes.iter().any(|c| {
                c.key == *key
                    && c.new_value
                        .iter()
                        .flat_map(|v| v.as_array())
                        .flatten()
                        .any(|r| {
                            let is = |k: &str, want: &str| {
                                r.get(k).and_then(Value::as_str) == Some(want)
                            };
                            role.as_deref().is_some_and(|id| is("id", id)) || is("name", name)
                        })
            }),
            Matcher::Overwrites { live } => {
                let Some(id) = option(e, "id") else {
                    return false;
                };
                let now = live.iter().find(|(i, _, _)| *i == id);
                match (e.action_type, now) {
                    (15, None) => true,
                    (13 | 14, Some((_, allow, deny))) => {
                        e.changes.iter().all(|c| match c.key.as_str() {
                            "allow" => same(&Value::String(allow.clone()), &c.new_value),
                            "deny" => same(&Value::String(deny.clone()), &c.new_value),
                            _ => true,
                        })
                    }
                    _ => false,
                }
            }
        }
    }

    /// A guildctl entry about the same field, whatever the value.
    fn same_field(&self, e: &AuditEntry) -> bool {
        if !self.applies(e) {
            return false;
        }
        match &self.matcher {
            Matcher::Key { key, .. } => e.changes.iter().any(|c| &c.key == key),
            _ => true,
        }
    }
}

fn option(e: &AuditEntry, key: &str) -> Option<String> {
    e.options.as_ref()?.get(key).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Compares a live value with an audit value: Discord sends permissions as strings
/// and ids as strings, a missing value means null (§7.3).
fn same(live: &Value, audit: &Option<Value>) -> bool {
    let norm = |v: &Value| -> Option<String> {
        match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    };
    norm(live) == audit.as_ref().and_then(norm)
}

// ---------------------------------------------------------------------------
// The audit log as read.

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct AuditPage {
    audit_log_entries: Vec<AuditEntry>,
    users: Vec<AuditUser>,
    webhooks: Vec<Named>,
    integrations: Vec<Named>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct AuditEntry {
    id: String,
    action_type: u32,
    user_id: Option<String>,
    target_id: Option<String>,
    changes: Vec<AuditChange>,
    options: Option<serde_json::Map<String, Value>>,
    reason: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct AuditChange {
    key: String,
    new_value: Option<Value>,
    old_value: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct AuditUser {
    id: String,
    username: String,
    global_name: Option<String>,
    bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Named {
    id: String,
    name: Option<String>,
    account: Option<Value>,
}

/// What one run learnt from the audit log.
struct Answers {
    found: Vec<Option<AuditEntry>>,
    guildctl: Vec<Option<AuditEntry>>,
    users: Vec<AuditUser>,
    webhooks: Vec<Named>,
    integrations: Vec<Named>,
    summary: AuditSummary,
    error: Option<String>,
}

async fn ask(
    client: &Client,
    guild_id: &str,
    questions: &[Question],
    options: &DriftOptions,
    appliers: &[String],
) -> Answers {
    let mut a = Answers {
        found: vec![None; questions.len()],
        guildctl: vec![None; questions.len()],
        users: Vec::new(),
        webhooks: Vec::new(),
        integrations: Vec::new(),
        summary: AuditSummary {
            max_pages: options.max_pages,
            ..AuditSummary::default()
        },
        error: None,
    };
    let open = |a: &Answers| {
        questions
            .iter()
            .zip(&a.found)
            .any(|(q, f)| q.unaudited.is_none() && f.is_none())
    };
    if !open(&a) {
        a.summary.stopped = "not_needed".into();
        return a;
    }
    let oldest_ms = options.now_ms.saturating_sub(RETENTION_DAYS * DAY_MS);
    let mut before: Option<String> = None;
    // One newest-first stream serves every question: a request per drifted object
    // (the `target_id` filter) would make the count grow with the drift.
    loop {
        if a.summary.pages_read >= options.max_pages {
            a.summary.stopped = "page_cap".into();
            break;
        }
        let mut path = format!("/guilds/{guild_id}/audit-logs?limit={PAGE_SIZE}");
        if let Some(b) = &before {
            path.push_str(&format!("&before={b}"));
        }
        a.summary.pages_read += 1;
        let page: AuditPage = match client.get(&path).await {
            Ok(p) => p,
            Err(ClientError::Api(e)) if e.status.as_u16() == 403 => {
                a.summary.stopped = "forbidden".into();
                break;
            }
            Err(e) => {
                a.summary.stopped = "error".into();
                a.error = Some(e.to_string());
                break;
            }
        };
        let count = page.audit_log_entries.len();
        a.users.extend(page.users);
        a.webhooks.extend(page.webhooks);
        a.integrations.extend(page.integrations);
        let mut past_retention = false;
        for e in page.audit_log_entries {
            if snowflake_ms(&e.id).is_some_and(|ms| ms < oldest_ms) {
                past_retention = true;
                break;
            }
            a.summary.entries_read += 1;
            for (i, q) in questions.iter().enumerate() {
                if a.found[i].is_none() && q.matches(&e) {
                    a.found[i] = Some(e.clone());
                } else if a.guildctl[i].is_none() && is_guildctl(&e, appliers) && q.same_field(&e) {
                    a.guildctl[i] = Some(e.clone());
                }
            }
            before = Some(e.id);
        }
        if past_retention {
            a.summary.stopped = "retention".into();
            break;
        }
        if !open(&a) {
            a.summary.stopped = "all_attributed".into();
            break;
        }
        if count < PAGE_SIZE {
            a.summary.stopped = "end_of_log".into();
            break;
        }
    }
    a
}

/// Whether the reason says the change was guildctl's; anyone can write it.
fn claims_guildctl(e: &AuditEntry) -> bool {
    e.reason
        .as_deref()
        .is_some_and(|r| r.starts_with("guildctl apply"))
}

/// An entry is guildctl's only when the bot that applies made it, with guildctl's reason.
fn is_guildctl(e: &AuditEntry, appliers: &[String]) -> bool {
    claims_guildctl(e) && e.user_id.as_ref().is_some_and(|u| appliers.contains(u))
}

// ---------------------------------------------------------------------------
// Building the report.

/// Investigates the drift `plan` shows (made with [`crate::plan::differences`] from
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
    for c in &plan.changes {
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
    let mut unmanaged = unmanaged_objects(plan, snap);
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

    let mut drifted: Vec<DriftedObject> = plan
        .changes
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
        audit_log: answers.summary,
        lockdown: lockdown(snap, options.now_ms),
        prune_count: None,
        policies: breaches,
        access_review: Some(review.review),
    }
}

impl Blame {
    fn none(why: &str) -> Blame {
        Blame {
            entry: None,
            not_found: Some(why.to_owned()),
            previous_guildctl: None,
        }
    }
}

/// What attributing an entry needs: the log as read, the guild, the options, and the
/// bots whose entries are guildctl's.
struct Who<'a> {
    answers: &'a Answers,
    snap: &'a Snapshot,
    options: &'a DriftOptions,
    appliers: &'a [String],
}

fn make_blame(q: &Question, i: usize, who: &Who) -> Blame {
    if let Some(why) = q.unaudited {
        return Blame::none(why);
    }
    let a = who.answers;
    let attribution = |e: &AuditEntry| attribute(e, who);
    match &a.found[i] {
        Some(e) => Blame {
            entry: Some(attribution(e)),
            not_found: None,
            previous_guildctl: if is_guildctl(e, who.appliers) {
                None
            } else {
                a.guildctl[i].as_ref().map(attribution)
            },
        },
        None => {
            let why = match a.summary.stopped.as_str() {
                "forbidden" => "the bot lacks view_audit_log (403 on the audit-log read)".to_owned(),
                "error" => "the audit log could not be read".to_owned(),
                "retention" => format!(
                    "no entry in the last {RETENTION_DAYS} days (Discord's audit-log retention): the change is older, or Discord did not audit it"
                ),
                "page_cap" => format!(
                    "not in the newest {} audit-log entries read ({} pages, the cap): the change is older (raise --audit-pages)",
                    a.summary.entries_read, a.summary.pages_read
                ),
                _ => "no matching entry in the whole audit log: older than its 45 days, or a change Discord does not audit".to_owned(),
            };
            Blame {
                entry: None,
                not_found: Some(why),
                previous_guildctl: a.guildctl[i].as_ref().map(attribution),
            }
        }
    }
}

fn attribute(e: &AuditEntry, who: &Who) -> Attribution {
    let (a, snap, options) = (who.answers, who.snap, who.options);
    let ms = snowflake_ms(&e.id).unwrap_or(0);
    let user = match &e.user_id {
        None => Actor {
            id: None,
            display_name: None,
            name: "unknown (system)".into(),
            kind: "unknown".into(),
        },
        Some(id) => {
            let u = a.users.iter().find(|u| &u.id == id);
            let name = u
                .map(|u| u.username.clone())
                .or_else(|| {
                    a.webhooks
                        .iter()
                        .find(|w| &w.id == id)
                        .and_then(|w| w.name.clone())
                })
                .unwrap_or_else(|| "unknown user".into());
            let integration = a.integrations.iter().any(|i| {
                i.account
                    .as_ref()
                    .and_then(|acc| acc.get("id"))
                    .and_then(Value::as_str)
                    == Some(id.as_str())
            });
            let kind = if *id == snap.bot.id {
                "this_bot"
            } else if a.webhooks.iter().any(|w| &w.id == id) {
                "webhook"
            } else if integration {
                "integration"
            } else if u.is_some_and(|u| u.bot) {
                "bot"
            } else if u.is_some() {
                "human"
            } else {
                "unknown"
            };
            Actor {
                id: Some(id.clone()),
                name,
                display_name: u.and_then(|u| u.global_name.clone()),
                kind: kind.into(),
            }
        }
    };
    let guildctl = is_guildctl(e, who.appliers).then(|| {
        let commit = e.reason.as_deref().and_then(commit_in_reason);
        let current = match (&commit, &options.current_commit) {
            (Some(c), Some(head)) => {
                Some(head.starts_with(c.as_str()) || c.starts_with(head.as_str()))
            }
            _ => None,
        };
        GuildctlChange { commit, current }
    });
    Attribution {
        entry_id: e.id.clone(),
        action_type: e.action_type,
        user,
        at: rfc3339(ms),
        ago: ago(options.now_ms.saturating_sub(ms)),
        reason: e.reason.clone(),
        claims_guildctl: guildctl.is_none() && claims_guildctl(e),
        guildctl,
    }
}

/// The commit in "guildctl apply: commit abc123 by someone".
fn commit_in_reason(reason: &str) -> Option<String> {
    let rest = reason.split_once("commit ")?.1;
    let sha: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    (sha.len() >= 4).then_some(sha)
}

/// The questions for one drifted object: object-level, then one per field (in order).
fn change_questions(c: &Change, snap: &Snapshot) -> (Option<Question>, Vec<Question>) {
    let id = c.object.id.clone();
    let (create, update, delete): (u32, u32, u32) = match c.object.kind {
        Kind::Role => (30, 31, 32),
        Kind::Category | Kind::Channel => (10, 11, 12),
        Kind::Webhook => (50, 51, 52),
        Kind::Integration => (80, 81, 82),
        Kind::Invite => (40, 41, 42),
        Kind::AutoModRule => (140, 141, 142),
        Kind::ScheduledEvent => (100, 101, 102),
        _ => (0, 1, 0),
    };
    if let Some(q) = people_question(c, snap) {
        return (Some(q), Vec::new());
    }
    match c.action {
        Action::Create => {
            // Declared but missing: who deleted it (by its name; the id is gone).
            let q = match c.object.kind {
                Kind::Role
                | Kind::Category
                | Kind::Channel
                | Kind::Webhook
                | Kind::AutoModRule
                | Kind::ScheduledEvent => Question::new(
                    &[delete],
                    None,
                    Matcher::DeletedNamed {
                        name: bare_name(&c.object.name),
                    },
                ),
                Kind::WelcomeScreen => {
                    Question::unaudited("Discord does not audit welcome-screen edits")
                }
                _ => Question::new(&[1, 166, 167], None, Matcher::Any),
            };
            let fields = c.fields.iter().map(|_| q.clone()).collect();
            (Some(q), fields)
        }
        // An invite has no id: its entries name it by code.
        Action::Delete if c.object.kind == Kind::Invite => {
            (Some(doors::invite_question(&c.object.name)), Vec::new())
        }
        Action::Delete => {
            let q = Question::new(&[create], id, Matcher::Any);
            (Some(q), Vec::new())
        }
        Action::Reorder => {
            let q = Question::unaudited(
                "an order change: Discord does not reliably audit role or channel reorders",
            );
            (None, c.fields.iter().map(|_| q.clone()).collect())
        }
        Action::Update => {
            let fields = c
                .fields
                .iter()
                .map(|f| field_question(c, &f.field, snap, (create, update)))
                .collect();
            (None, fields)
        }
    }
}

fn field_question(
    c: &Change,
    field: &Field,
    snap: &Snapshot,
    (create, update): (u32, u32),
) -> Question {
    let id = c.object.id.clone();
    let guild = Some(snap.guild.id.clone());
    // The live object the field is read from, as the API shapes it, the entries that change
    // it, and their target.
    let (object, actions, target): (Option<Value>, &[u32], Option<String>) = match c.object.kind {
        Kind::WelcomeScreen => {
            return Question::unaudited("Discord does not audit welcome-screen edits");
        }
        // Only ever deleted, never updated, by a plan.
        Kind::Integration | Kind::Invite => return Question::new(&[create], id, Matcher::Any),
        // Asked about as whole objects ([`people_question`]).
        Kind::RosterEntry | Kind::Ban => return Question::unaudited("asked about as a whole"),
        // Each prompt is an object of its own in the log (§7.2).
        Kind::Onboarding if *field == Field::Onboarding(field::Onboarding::Prompts) => {
            return Question::new(&[163, 164, 165], None, Matcher::Any);
        }
        Kind::Onboarding => (
            snap.onboarding
                .as_ref()
                .and_then(|o| serde_json::to_value(o).ok()),
            &[166, 167],
            guild,
        ),
        Kind::Guild | Kind::Widget => (serde_json::to_value(&snap.guild).ok(), &[1], guild),
        Kind::Role => {
            let role = id.as_deref().and_then(|i| snap.role(i));
            (
                role.and_then(|o| serde_json::to_value(o).ok()),
                &[update, create],
                id,
            )
        }
        Kind::Category | Kind::Channel | Kind::Overwrites => {
            let ch = id.as_deref().and_then(|i| snap.channel(i));
            if field.is_overwrites() {
                let live = ch
                    .map(|c| {
                        c.permission_overwrites
                            .iter()
                            .map(|o| (o.id.clone(), o.allow.0.to_string(), o.deny.0.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                return Question::new(&[13, 14, 15], id, Matcher::Overwrites { live });
            }
            (
                ch.and_then(|o| serde_json::to_value(o).ok()),
                &[update, create],
                id,
            )
        }
        Kind::ScheduledEvent => {
            let e = snap
                .events
                .iter()
                .flatten()
                .find(|e| Some(&e.id) == id.as_ref());
            (
                e.and_then(|o| serde_json::to_value(o).ok()),
                &[update, create],
                id,
            )
        }
        Kind::AutoModRule => {
            let r = snap
                .automod
                .iter()
                .flatten()
                .find(|r| Some(&r.id) == id.as_ref());
            (
                r.and_then(|o| serde_json::to_value(o).ok()),
                &[update, create],
                id,
            )
        }
        Kind::Webhook => {
            let w = snap
                .webhooks
                .iter()
                .flatten()
                .find(|w| Some(&w.id) == id.as_ref());
            (
                w.and_then(|o| serde_json::to_value(o).ok()),
                &[update, create],
                id,
            )
        }
    };
    let (key, value) = audit_key(field, object.as_ref());
    Question::new(actions, target, Matcher::Key { key, value })
}

/// The key an audit-log change of `field` has, and the live value under it in `object`
/// (`None`: the entry is matched by key alone): the field's API name, but where the log
/// records it otherwise (discord-behaviour.md §7.2).
fn audit_key(field: &Field, object: Option<&Value>) -> (String, Option<Value>) {
    use field::{Channel, Guild, Role, Webhook};
    let api = field.api().unwrap_or_default();
    let value = |key: &str| object.and_then(|o| o.get(key)).cloned();
    match field {
        // An image by its hash.
        Field::Guild(Guild::Icon | Guild::Banner | Guild::Splash | Guild::DiscoverySplash)
        | Field::Role(Role::Icon)
        | Field::Webhook(Webhook::Avatar) => (format!("{api}_hash"), value(api)),
        // The widget's settings are logged as the guild's.
        Field::Widget(_) => {
            let key = format!("widget_{api}");
            let live = value(&key);
            (key, live)
        }
        // A solid colour as the deprecated `color` (a `colors` key is unverified).
        Field::Role(Role::Color) => ("color".to_owned(), value("color")),
        // Lists and objects whose form in the log (order, ids) is Discord's: by key.
        Field::Guild(Guild::Community | Guild::InvitesDisabled | Guild::RaidAlertsDisabled)
        | Field::Channel(Channel::Tags | Channel::DefaultReaction)
        // A rule's metadata, actions and exemptions as Discord logs them: by key.
        | Field::AutoModRule(
            field::AutoModRule::Trigger
            | field::AutoModRule::Actions
            | field::AutoModRule::ExemptRoles
            | field::AutoModRule::ExemptChannels,
        )
        // An event's place, times and rule as Discord logs them: by key.
        | Field::ScheduledEvent(
            field::ScheduledEvent::Place
            | field::ScheduledEvent::Start
            | field::ScheduledEvent::End
            | field::ScheduledEvent::Recurrence,
        ) => (api.to_owned(), None),
        Field::ScheduledEvent(field::ScheduledEvent::Image) => (format!("{api}_hash"), None),
        _ => (api.to_owned(), value(api)),
    }
}

/// `Category/#name` → `name`: what the audit log stores.
fn bare_name(display: &str) -> String {
    let last = display.rsplit('/').next().unwrap_or(display);
    last.trim_start_matches('#').to_owned()
}

/// What a drifted field's live value widens beyond the manifest's: the plan's risk
/// rules ([`risk::of_change`]) on the change read the other way, keeping grants and
/// openings (a deletion or a webhook move by hand is drift, not access).
fn field_risk(c: &Change, f: &FieldChange, guild_id: &str) -> Option<String> {
    if c.action != Action::Update {
        return None;
    }
    let one = Change {
        fields: vec![f.clone()],
        ..c.clone()
    };
    let found: Vec<String> = risk::of_change(0, &risk::reversed(&one), guild_id)
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
            | Widening::WebhookMove { .. } => None,
        })
        .collect();
    (!found.is_empty()).then(|| found.join("; "))
}

/// Who gave or took a roster role (MEMBER_ROLE_UPDATE 25, on the user), or banned or lifted
/// a ban (MEMBER_BAN_ADD 22 / MEMBER_BAN_REMOVE 23): the object's id is the user's.
fn people_question(c: &Change, snap: &Snapshot) -> Option<Question> {
    let user = c.object.id.clone();
    match (c.object.kind, c.action) {
        (Kind::RosterEntry, action) => {
            let name = c
                .object
                .name
                .split(" ← ")
                .next()
                .unwrap_or_default()
                .to_owned();
            let role = snap
                .guild
                .roles
                .iter()
                .find(|r| r.name == name)
                .map(|r| r.id.clone());
            // Taken off the roster by the plan: someone gave it; missing: someone took it.
            let key = if action == Action::Delete {
                "$add"
            } else {
                "$remove"
            };
            Some(Question::new(
                &[25],
                user,
                Matcher::RoleGiven { key, role, name },
            ))
        }
        (Kind::Ban, Action::Create) => Some(Question::new(&[23], user, Matcher::Any)),
        (Kind::Ban, _) => Some(Question::new(&[22], user, Matcher::Any)),
        _ => None,
    }
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
fn unmanaged_objects(plan: &Plan, snap: &Snapshot) -> Vec<(Unmanaged, Question)> {
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
        match o.kind {
            Kind::Role => {
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
                    Question::new(&[30], Some(id.to_owned()), Matcher::Any),
                ));
            }
            Kind::Webhook => {
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
                    Question::new(&[50], Some(id.to_owned()), Matcher::Any),
                ));
            }
            Kind::Category | Kind::Channel => {
                out.push((
                    item(
                        o.kind.label(),
                        o.name.clone(),
                        id,
                        false,
                        "no permission of its own".to_owned(),
                    ),
                    Question::new(&[10], Some(id.to_owned()), Matcher::Any),
                ));
                // Its overwrites are unmanaged too; those granting power are the risk.
                out.extend(powerful_overwrites(snap, id, &o.name));
            }
            // A declared channel whose overwrites the manifest leaves alone.
            Kind::Overwrites => out.extend(powerful_overwrites(snap, id, &o.name)),
            Kind::Integration => out.extend(doors::integration(snap, id, &o.name)),
            Kind::Invite => out.extend(doors::invite(snap, id)),
            // A ban made by hand that the ban list does not have (kept without prune.bans).
            Kind::Ban => out.push((
                item(
                    "ban",
                    o.name.clone(),
                    id,
                    false,
                    "a ban the manifest's list does not have".to_owned(),
                ),
                Question::new(&[22], Some(id.to_owned()), Matcher::Any),
            )),
            _ => {}
        }
    }
    out
}

/// The overwrites on channel `id` that grant a dangerous permission: high risk when
/// nothing in the manifest manages them, with the question that finds who made each.
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
            let target = snap
                .role(&ow.id)
                .map(|r| format!("role {}", r.name))
                .unwrap_or_else(|| format!("member {}", ow.id));
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
                &[13],
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_in_reasons() {
        assert_eq!(
            commit_in_reason("guildctl apply: commit abc1234 by Ann").as_deref(),
            Some("abc1234")
        );
        assert_eq!(commit_in_reason("guildctl apply"), None);
    }

    #[test]
    fn audit_values_compare_as_discord_sends_them() {
        assert!(same(
            &Value::String("8".into()),
            &Some(serde_json::json!(8))
        ));
        assert!(same(&Value::Null, &None));
        assert!(!same(&serde_json::json!(1), &Some(serde_json::json!(2))));
    }
}
