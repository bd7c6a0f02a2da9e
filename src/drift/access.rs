//! Drift's view of access: the policies the live guild breaks (high risk), and the access
//! review — who holds dangerous permissions, per role: the members a roster names, by
//! name, with who gave them the role where the audit log says so; the other holders by
//! count.
//!
//! Costs one read beyond drift's own: the role member counts (Get Guild Role Member
//! Counts), unless the snapshot read them for the manifest's rosters.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::{Blame, Matcher, Question};
use crate::access::policy::{self, Breach, Certainty};
use crate::access::{Guild, person};
use crate::discord::Client;
use crate::discord::audit::action;
use crate::manifest::Manifest;
use crate::snapshot::Snapshot;

/// Who holds dangerous permissions, per role.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct AccessReview {
    /// Roles holding a dangerous permission, highest first.
    pub roles: Vec<ReviewedRole>,
    /// The guild's owner, who holds every permission whatever their roles.
    pub owner: String,
    /// Why holders could not be counted, when they could not.
    pub uncounted: Option<String>,
}

/// A role holding dangerous permissions, and who holds it.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReviewedRole {
    /// The role's name.
    pub role: String,
    /// The role's live id.
    pub id: String,
    /// Its dangerous permissions (`administrator` alone when it has it).
    pub dangerous: Vec<String>,
    /// A role Discord gives (a bot's or an integration's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub managed: bool,
    /// The members the manifest's roster names who hold it, with who gave it to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<ReviewedMember>,
    /// Holders beyond those: counted, not named (none when the count was not read).
    pub others: Option<u64>,
}

/// A member holding a reviewed role, and who gave it to them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReviewedMember {
    /// The user's id.
    pub id: String,
    /// As access lines name people: `alice (123)`.
    pub name: String,
    /// Who gave the role (a member role update adding it), from the audit log.
    pub granted: Blame,
}

/// The review before the audit log is asked: the roles, and for each named member the
/// question that finds who gave them the role (indexes into `questions`).
pub(super) struct Pending {
    pub review: AccessReview,
    pub asks: Vec<(usize, usize)>,
}

/// How many members hold each role: as the snapshot read them, else one read.
pub(super) async fn role_counts(
    client: &Client,
    snap: &Snapshot,
) -> Result<BTreeMap<String, u64>, String> {
    if let Some(counts) = snap.people.as_ref().and_then(|p| p.role_counts.clone()) {
        return Ok(counts);
    }
    let path = format!("/guilds/{}/roles/member-counts", snap.guild.id);
    client
        .get::<BTreeMap<String, u64>>(&path)
        .await
        .map_err(|e| format!("the role member counts could not be read: {e}"))
}

/// The policies of `manifest` the live guild breaks.
pub(super) fn breaches(
    manifest: &Manifest,
    live: &Guild,
    counts: &Option<BTreeMap<String, u64>>,
) -> Vec<Breach> {
    let policies = crate::judge::policies::declared(manifest);
    if policies.is_empty() {
        return Vec::new();
    }
    let count =
        |r: &crate::access::model::Role| counts.as_ref().and_then(|c| c.get(&r.id)).copied();
    policy::judge(&policies, live, &count, Certainty::Whole).breaches
}

/// The review of `live`, and the audit-log questions it asks (appended to `questions`).
pub(super) fn review(
    manifest: &Manifest,
    snap: &Snapshot,
    live: &Guild,
    counts: &Result<BTreeMap<String, u64>, String>,
    questions: &mut Vec<Question>,
) -> Pending {
    let rostered: Vec<&str> = manifest
        .roles
        .iter()
        .flatten()
        .filter(|r| r.members.is_some())
        .map(|r| r.name.as_str())
        .collect();
    let mut review = AccessReview {
        owner: person(
            live.members
                .get(&live.owner_id)
                .and_then(|m| m.username.as_deref()),
            &live.owner_id,
        ),
        uncounted: counts.as_ref().err().cloned(),
        ..AccessReview::default()
    };
    let mut asks = Vec::new();
    for r in live.roles.iter().filter(|r| r.id != live.id) {
        let dangerous = r.permissions.dangerous_names();
        if dangerous.is_empty() {
            continue;
        }
        let named: Vec<String> = match (&snap.people, rostered.contains(&r.name.as_str())) {
            (Some(people), true) => people.known_holders(&r.id).into_iter().collect(),
            _ => Vec::new(),
        };
        let k = review.roles.len();
        let members = named
            .iter()
            .enumerate()
            .map(|(j, user)| {
                questions.push(Question::new(
                    &[action::MEMBER_ROLE_UPDATE],
                    Some(user.clone()),
                    Matcher::RoleGiven {
                        key: "$add",
                        role: Some(r.id.clone()),
                        name: r.name.clone(),
                    },
                ));
                asks.push((k, j));
                let username = snap
                    .people
                    .as_ref()
                    .and_then(|p| p.usernames.get(user))
                    .map(String::as_str);
                ReviewedMember {
                    id: user.clone(),
                    name: person(username, user),
                    granted: Blame::none("not asked"),
                }
            })
            .collect();
        let others = counts
            .as_ref()
            .ok()
            .and_then(|c| c.get(&r.id))
            .map(|n| n.saturating_sub(named.len() as u64));
        review.roles.push(ReviewedRole {
            role: r.name.clone(),
            id: r.id.clone(),
            dangerous: dangerous.iter().map(|s| (*s).to_owned()).collect(),
            managed: r.managed,
            members,
            others,
        });
    }
    Pending { review, asks }
}
