//! What in a plan widens access or destroys, computed once from its changes so that text,
//! markdown and JSON open with the same list, and the pull-request comment never cuts it.
//!
//! A risk is read from a change's before/after values in manifest terms (the values a
//! reviewer sees), never from a plan file's own say: a saved plan's risks are those of
//! its changes. The one definition of a dangerous permission is
//! [`Permissions::dangerous_names`], shared with drift.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::permissions::Permissions;
use crate::plan::field::{self, Field};
use crate::plan::{Action, Change, Grantee, Kind, ObjectRef, Plan, Risk, Widening};

/// The `@everyone` role's name in plans and manifests.
use crate::discord::names::EVERYONE;
/// Every risk of `plan`: its policy changes first (they change what every later plan is
/// held to), then the others in the order of the changes that carry them. What an
/// overwrite opens is said in access terms ([`Widening::Access`], from the plan's
/// `access`), which counts what the overwrite really changes for whom, as Discord computes it.
pub fn assess(plan: &Plan) -> Vec<Risk> {
    let mut out: Vec<Risk> = plan
        .changes
        .iter()
        .enumerate()
        .flat_map(|(i, c)| of_change(i, c, &plan.guild_id))
        .filter(|r| !matches!(r.what, Widening::Opens { .. }))
        .collect();
    let accesses = access_risks(plan, &out);
    out.extend(accesses);
    out.sort_by_key(|r| r.change);
    let policies = plan
        .policy_changes
        .iter()
        .filter(|p| p.is_risk())
        .map(|p| Risk {
            change: None,
            object: ObjectRef {
                kind: Kind::Policy,
                name: p.policy.clone(),
                id: None,
            },
            what: Widening::Policy(p.clone()),
            named_in_manifest: None,
        });
    policies.chain(out).collect()
}

/// The plan's access lines that widen access (their `widening`: sight, a voice or a
/// dangerous permission where the who had none), each carried by the first change that
/// causes it. What a grant already says (`grants`: @everyone's, the role's own, the roster
/// entry's) is not said again per channel.
fn access_risks(plan: &Plan, grants: &[Risk]) -> Vec<Risk> {
    use crate::access::diff::WhoKind;
    // What @everyone is granted, every member gains wherever they may use it.
    let granted = |a: &crate::access::AccessChange| -> Permissions {
        grants
            .iter()
            .filter_map(|r| match &r.what {
                Widening::Grant { permissions } => {
                    // Whom the kind grants to is its row of the kind table.
                    let same = match r.object.kind.facts().grants_to {
                        // What @everyone is granted, every member has.
                        Some(Grantee::Role) if r.object.name == EVERYONE => true,
                        Some(Grantee::Role) => {
                            a.who_kind == WhoKind::Role && r.object.name == a.who
                        }
                        Some(Grantee::User) => {
                            a.who_kind == WhoKind::User && r.object.id == a.who_id
                        }
                        None => false,
                    };
                    same.then(|| permissions_of(permissions))
                }
                _ => None,
            })
            .fold(Permissions::NONE, |x, y| x | y)
    };
    let mut out = Vec::new();
    for a in &plan.access {
        let Some(channel) = &a.channel else { continue };
        let gained = permissions_of(&a.widening) & !granted(a);
        if gained.is_empty() {
            continue;
        }
        let (change, object) = match a
            .changes
            .iter()
            .find_map(|&i| plan.changes.get(i).map(|c| (Some(i), c.object.clone())))
        {
            Some(found) => found,
            // A cause always exists for a plan guildctl made; a file may say otherwise.
            None => (
                None,
                ObjectRef {
                    kind: Kind::Channel,
                    name: channel.clone(),
                    id: a.channel_id.clone(),
                },
            ),
        };
        out.push(Risk {
            change,
            object,
            what: Widening::Access {
                who: a.who.clone(),
                channel: channel.clone(),
                permissions: gained.display_names(),
            },
            named_in_manifest: change
                .and_then(|i| plan.changes.get(i))
                .and_then(|c| c.person.as_ref())
                .and_then(|p| p.named_in_manifest.clone()),
        });
    }
    out
}

/// The risks of one change; `guild_id` is the `@everyone` role's id.
pub fn of_change(index: usize, c: &Change, guild_id: &str) -> Vec<Risk> {
    let risk = |what: Widening| Risk {
        change: Some(index),
        object: c.object.clone(),
        what,
        named_in_manifest: c.person.as_ref().and_then(|p| p.named_in_manifest.clone()),
    };
    if c.bans_member() {
        let roles = c
            .person
            .as_ref()
            .map(|p| p.roles.clone())
            .unwrap_or_default();
        return vec![risk(Widening::BansMember { roles })];
    }
    if c.action == Action::Delete {
        return vec![risk(Widening::Delete)];
    }
    if matches!(c.action, Action::Reorder) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for f in &c.fields {
        match &f.field {
            Field::Role(field::Role::Permissions) => {
                let gained = permissions(&f.after) & !permissions(&f.before);
                let everyone = c.object.name == EVERYONE
                    || c.object.id.as_deref() == Some(guild_id) && !guild_id.is_empty();
                let shown = if everyone && !gained.contains(Permissions::ADMINISTRATOR) {
                    gained.display_names()
                } else {
                    names(gained.dangerous_names())
                };
                if !shown.is_empty() {
                    out.push(risk(Widening::Grant { permissions: shown }));
                }
            }
            // A member given a roster role gains what the role grants that is dangerous.
            Field::RosterEntry(field::RosterEntry::Grants) => {
                let shown = names(permissions(&f.after).dangerous_names());
                if !shown.is_empty() {
                    out.push(risk(Widening::Grant { permissions: shown }));
                }
            }
            overwrites if overwrites.is_overwrites() => {
                // A new channel shows nothing that was hidden: only a dangerous grant
                // in its overwrites counts, not who may see or write there.
                let watched = if c.action == Action::Create {
                    Permissions::dangerous_mask()
                } else {
                    access_mask() | Permissions::dangerous_mask()
                };
                for (who, permissions) in opened(&f.before, &f.after, watched) {
                    out.push(risk(Widening::Opens { who, permissions }));
                }
            }
            Field::Webhook(field::Webhook::Channel) if !f.before.is_null() => {
                out.push(risk(Widening::WebhookMove {
                    from: plain(&f.before),
                    to: plain(&f.after),
                }));
            }
            _ => {}
        }
    }
    out
}

/// The same change read the other way (before and after swapped): what the live guild
/// holds beyond the manifest, for drift.
pub fn reversed(c: &Change) -> Change {
    let mut r = c.clone();
    for f in &mut r.fields {
        std::mem::swap(&mut f.before, &mut f.after);
    }
    r.action = match c.action {
        Action::Create => Action::Delete,
        Action::Delete => Action::Create,
        other => other,
    };
    r
}

fn permissions_of(names: &[String]) -> Permissions {
    names
        .iter()
        .filter_map(|n| Permissions::parse_name(n))
        .fold(Permissions::NONE, |a, b| a | b)
}

/// A list of permission names as bits; names guildctl does not know are left out (a
/// plan from elsewhere cannot smuggle text through them).
fn permissions(v: &Value) -> Permissions {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(Permissions::parse_name)
        .fold(Permissions::NONE, |a, b| a | b)
}

fn names(list: Vec<&str>) -> Vec<String> {
    list.into_iter().map(str::to_owned).collect()
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "(none)".to_owned(),
        other => other.to_string(),
    }
}

fn access_mask() -> Permissions {
    crate::access::diff::sight_mask()
}

/// Per overwrite target, the `watched` permissions it gains from `before` to `after`
/// (overwrite lists in manifest terms: `{role|member, allow?, deny?}`).
fn opened(before: &Value, after: &Value, watched: Permissions) -> Vec<(String, Vec<String>)> {
    let b = targets(before);
    let a = targets(after);
    let mut seen: Vec<&String> = Vec::new();
    let mut out = Vec::new();
    for who in a.keys().chain(b.keys()) {
        if seen.contains(&who) {
            continue;
        }
        seen.push(who);
        let none = (Permissions::NONE, Permissions::NONE);
        let (allow_b, deny_b) = b.get(who).copied().unwrap_or(none);
        let (allow_a, deny_a) = a.get(who).copied().unwrap_or(none);
        let gained = ((allow_a & !allow_b) | (deny_b & !deny_a)) & watched;
        if !gained.is_empty() {
            out.push((who.clone(), gained.display_names()));
        }
    }
    out
}

/// Overwrites by target label (`@everyone`, `role NAME`, `member NAME (ID)`, or `member ID`
/// for one the plan did not read): (allow, deny).
fn targets(v: &Value) -> BTreeMap<String, (Permissions, Permissions)> {
    let mut out = BTreeMap::new();
    for o in v.as_array().into_iter().flatten() {
        let who = match (o.get("role").and_then(Value::as_str), o.get("member")) {
            (Some(EVERYONE), _) => EVERYONE.to_owned(),
            (Some(role), _) => format!("role {role}"),
            (None, Some(m)) => format!("member {}", plain(m)),
            (None, None) => continue,
        };
        let allow = permissions(o.get("allow").unwrap_or(&Value::Null));
        let deny = permissions(o.get("deny").unwrap_or(&Value::Null));
        out.insert(who, (allow, deny));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::FieldChange;
    use serde_json::json;

    fn change(action: Action, kind: Kind, name: &str, field: &str, b: Value, a: Value) -> Change {
        Change {
            action,
            object: ObjectRef {
                kind,
                name: name.into(),
                id: None,
            },
            fields: vec![FieldChange::new(Field::parse(kind, field).unwrap(), b, a)],
            source: None,
            person: None,
        }
    }

    /// The one risk `c` makes, as the renderers say it (it fails on none or several).
    fn the_one_risk(c: &Change) -> String {
        let r = of_change(0, c, "1");
        assert_eq!(r.len(), 1, "{r:?}");
        r[0].describe(&|s| s.to_owned())
    }

    #[test]
    fn everyone_gains_anything_other_roles_only_danger() {
        let c = change(
            Action::Update,
            Kind::Role,
            "@everyone",
            "permissions",
            json!(["view_channel"]),
            json!(["view_channel", "add_reactions"]),
        );
        assert_eq!(the_one_risk(&c), "role @everyone gains add_reactions");
        let c = change(
            Action::Update,
            Kind::Role,
            "Helper",
            "permissions",
            json!([]),
            json!(["add_reactions", "manage_messages"]),
        );
        assert_eq!(the_one_risk(&c), "role Helper gains manage_messages");
        // A role losing power is no risk.
        assert!(of_change(0, &reversed(&c), "1").is_empty());
    }

    #[test]
    fn a_member_given_a_dangerous_roster_role_gains_it() {
        let c = change(
            Action::Create,
            Kind::RosterEntry,
            "Moderator ← heidi",
            "grants",
            Value::Null,
            // Names guildctl does not know, or harmless ones, are never shown.
            json!(["ban_members", "add_reactions", "no such name"]),
        );
        assert_eq!(
            the_one_risk(&c),
            "roster entry Moderator ← heidi gains ban_members"
        );
        let harmless = change(
            Action::Create,
            Kind::RosterEntry,
            "Member ← heidi",
            "grants",
            Value::Null,
            json!(["add_reactions"]),
        );
        assert!(of_change(0, &harmless, "1").is_empty());
    }

    #[test]
    fn an_overwrite_that_denied_taken_away_opens_the_channel() {
        let c = change(
            Action::Update,
            Kind::Channel,
            "Staff/#mod-log",
            "overwrites",
            json!([{ "role": "@everyone", "deny": ["view_channel", "add_reactions"] },
                   { "role": "Mods", "allow": ["view_channel"] }]),
            json!([{ "role": "Mods", "allow": ["view_channel"] }]),
        );
        let r = of_change(3, &c, "1");
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].change, Some(3));
        assert_eq!(
            r[0].describe(&|s| s.to_owned()),
            "channel Staff/#mod-log opens view_channel to @everyone"
        );
        let v = serde_json::to_value(&r[0]).unwrap();
        assert_eq!(v["kind"], "opens");
        assert_eq!(v["who"], "@everyone");
        assert_eq!(v["object"]["name"], "Staff/#mod-log");
    }

    #[test]
    fn a_new_channel_counts_only_dangerous_grants() {
        let c = change(
            Action::Create,
            Kind::Channel,
            "#events",
            "overwrites",
            Value::Null,
            json!([{ "role": "@everyone", "allow": ["view_channel"] },
                   { "role": "Events", "allow": ["send_messages", "mention_everyone"] }]),
        );
        assert_eq!(
            the_one_risk(&c),
            "channel #events opens mention_everyone to role Events"
        );
    }

    #[test]
    fn unknown_permission_names_are_not_carried() {
        let c = change(
            Action::Update,
            Kind::Role,
            "@everyone",
            "permissions",
            json!([]),
            json!(["<script>", "bit_60"]),
        );
        let r = of_change(0, &c, "1");
        assert_eq!(
            r[0].what,
            Widening::Grant {
                permissions: vec!["bit_60".into()]
            }
        );
    }
}
