//! The questions drift asks of the audit log: for each drifted object and field, what an
//! entry must look like to explain the live value (the action types, the target, the key
//! Discord records the field under, docs/discord.md §7.2).

use serde_json::Value;

use super::entry::AuditEntry;
use crate::discord::audit::{ActionType, action};
use crate::plan::field::{self, Field};
use crate::plan::{Action, Change, Kind, Live};
use crate::snapshot::Snapshot;

/// What an entry must look like to explain one drifted value.
#[derive(Debug, Clone)]
pub(super) enum Matcher {
    /// A change of `key` whose new value is the live one (`None`: any value).
    Key { key: String, value: Option<Value> },
    /// An overwrite entry (13/14/15, or Discord's permission migrations 212/213) consistent
    /// with the channel's live overwrites.
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
pub(super) struct Question {
    pub(super) actions: Vec<ActionType>,
    pub(super) target: Option<String>,
    pub(super) matcher: Matcher,
    /// Set when Discord does not audit this kind of change: no search.
    pub(super) unaudited: Option<&'static str>,
}

impl Question {
    pub(super) fn new(
        actions: &[ActionType],
        target: Option<String>,
        matcher: Matcher,
    ) -> Question {
        Question {
            actions: actions.to_vec(),
            target,
            matcher,
            unaudited: None,
        }
    }

    pub(super) fn unaudited(why: &'static str) -> Question {
        Question {
            actions: Vec::new(),
            target: None,
            matcher: Matcher::Any,
            unaudited: Some(why),
        }
    }

    pub(super) fn applies(&self, e: &AuditEntry) -> bool {
        self.unaudited.is_none()
            && self.actions.contains(&e.action_type)
            && self
                .target
                .as_ref()
                .is_none_or(|t| e.target_id.as_ref() == Some(t))
    }

    /// Whether `e` explains the live value.
    pub(super) fn matches(&self, e: &AuditEntry) -> bool {
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
                    (action::CHANNEL_OVERWRITE_DELETE, None) => true,
                    (
                        action::CHANNEL_OVERWRITE_CREATE
                        | action::CHANNEL_OVERWRITE_UPDATE
                        | action::PIN_MESSAGES_MIGRATION
                        | action::BYPASS_SLOWMODE_MIGRATION,
                        Some((_, allow, deny)),
                    ) => e.changes.iter().all(|c| match c.key.as_str() {
                        "allow" => same(&Value::String(allow.clone()), &c.new_value),
                        "deny" => same(&Value::String(deny.clone()), &c.new_value),
                        _ => true,
                    }),
                    _ => false,
                }
            }
        }
    }

    /// A guildctl entry about the same field, whatever the value.
    pub(super) fn same_field(&self, e: &AuditEntry) -> bool {
        if !self.applies(e) {
            return false;
        }
        match &self.matcher {
            Matcher::Key { key, .. } => e.changes.iter().any(|c| &c.key == key),
            _ => true,
        }
    }
}

pub(super) fn option(e: &AuditEntry, key: &str) -> Option<String> {
    e.options.as_ref()?.get(key).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Compares a live value with an audit value: Discord sends permissions as strings
/// and ids as strings, a missing value means null (§7.3).
pub(super) fn same(live: &Value, audit: &Option<Value>) -> bool {
    let norm = |v: &Value| -> Option<String> {
        match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    };
    norm(live) == audit.as_ref().and_then(norm)
}

/// The questions for one drifted object: object-level, then one per field (in order). A
/// kind's action types are its row of the kind table ([`Kind::facts`]); the matches over
/// kinds here and below name every kind, so a new one does not compile untaught.
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn change_questions(c: &Change, snap: &Snapshot) -> (Option<Question>, Vec<Question>) {
    let id = c.object.id.clone();
    use crate::plan::{AuditActions, WhenMissing};
    let facts = c.object.kind.facts();
    let AuditActions {
        create,
        update,
        delete,
    } = facts.audit;
    if let Some(q) = people_question(c, snap) {
        return (Some(q), Vec::new());
    }
    match c.action {
        Action::Create => {
            // Declared but missing: who deleted it (by its name; the id is gone).
            let q = match facts.when_missing {
                WhenMissing::DeletedByName => Question::new(
                    &[delete],
                    None,
                    Matcher::DeletedNamed {
                        name: bare_name(&c.object.name),
                    },
                ),
                WhenMissing::Unaudited(why) => Question::unaudited(why),
                WhenMissing::GuildEdit => Question::new(
                    &[
                        action::GUILD_UPDATE,
                        action::ONBOARDING_CREATE,
                        action::ONBOARDING_UPDATE,
                    ],
                    None,
                    Matcher::Any,
                ),
            };
            let fields = c.fields.iter().map(|_| q.clone()).collect();
            (Some(q), fields)
        }
        // An invite has no id: its entries name it by code.
        Action::Delete if c.object.kind == Kind::Invite => (
            Some(super::doors::invite_question(&c.object.name)),
            Vec::new(),
        ),
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

#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn field_question(
    c: &Change,
    field: &Field,
    snap: &Snapshot,
    (create, update): (u32, u32),
) -> Question {
    let id = c.object.id.clone();
    let guild = Some(snap.guild.id.clone());
    // Discord's permission migrations rewrote roles' permissions and overwrites too.
    let [pins, slowmode] = action::PERMISSION_MIGRATIONS;
    let role_permissions = [update, create, pins, slowmode];
    // The live object the field is read from, as the API shapes it, the entries that change
    // it, and their target.
    // Each prompt is an object of its own in the log (§7.2).
    if *field == Field::Onboarding(field::Onboarding::Prompts) {
        return Question::new(
            &[
                action::ONBOARDING_PROMPT_CREATE,
                action::ONBOARDING_PROMPT_UPDATE,
                action::ONBOARDING_PROMPT_DELETE,
            ],
            None,
            Matcher::Any,
        );
    }
    let (object, actions, target): (Option<Value>, &[ActionType], Option<String>) =
        match c.object.kind.live() {
            Live::NotOne(why) => return Question::unaudited(why),
            Live::Onboarding => (
                snap.onboarding
                    .as_ref()
                    .and_then(|o| serde_json::to_value(o).ok()),
                &[action::ONBOARDING_CREATE, action::ONBOARDING_UPDATE],
                guild,
            ),
            Live::Guild => (
                serde_json::to_value(&snap.guild).ok(),
                &[action::GUILD_UPDATE],
                guild,
            ),
            Live::Role => {
                let role = id.as_deref().and_then(|i| snap.role(i));
                let actions: &[ActionType] = if *field == Field::Role(field::Role::Permissions) {
                    &role_permissions
                } else {
                    &role_permissions[..2]
                };
                (role.and_then(|o| serde_json::to_value(o).ok()), actions, id)
            }
            Live::Channel => {
                let ch = id.as_deref().and_then(|i| snap.channel(i));
                if field.is_overwrites() {
                    let live = ch
                        .map(|c| {
                            c.permission_overwrites
                                .iter()
                                .map(|o| {
                                    (o.id.clone(), o.allow.0.to_string(), o.deny.0.to_string())
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    return Question::new(
                        &[
                            action::CHANNEL_OVERWRITE_CREATE,
                            action::CHANNEL_OVERWRITE_UPDATE,
                            action::CHANNEL_OVERWRITE_DELETE,
                            pins,
                            slowmode,
                        ],
                        id,
                        Matcher::Overwrites { live },
                    );
                }
                (
                    ch.and_then(|o| serde_json::to_value(o).ok()),
                    &[update, create],
                    id,
                )
            }
            Live::Listed(list) => (
                id.as_deref().and_then(|i| snap.listed_object(list, i)),
                &[update, create],
                id,
            ),
        };
    let (key, value) = audit_key(field, object.as_ref());
    Question::new(actions, target, Matcher::Key { key, value })
}

/// The key an audit-log change of `field` has, and the live value under it in `object`
/// (`None`: the entry is matched by key alone): the field's API name, but where the log
/// records it otherwise (docs/discord.md §7.2).
pub(super) fn audit_key(field: &Field, object: Option<&Value>) -> (String, Option<Value>) {
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
        | Field::Emoji(field::Emoji::Roles)
        | Field::Sound(field::Sound::Emoji)
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
pub(super) fn bare_name(display: &str) -> String {
    let last = display.rsplit('/').next().unwrap_or(display);
    last.trim_start_matches('#').to_owned()
}

/// Who gave or took a roster role (MEMBER_ROLE_UPDATE 25, on the user), or banned or lifted
/// a ban (MEMBER_BAN_ADD 22 / MEMBER_BAN_REMOVE 23): the object's id is the user's.
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn people_question(c: &Change, snap: &Snapshot) -> Option<Question> {
    let user = c.object.id.clone();
    use crate::plan::PeopleEntries;
    match c.object.kind.facts().people? {
        PeopleEntries::RoleGiven => {
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
            let key = if c.action == Action::Delete {
                "$add"
            } else {
                "$remove"
            };
            Some(Question::new(
                &[action::MEMBER_ROLE_UPDATE],
                user,
                Matcher::RoleGiven { key, role, name },
            ))
        }
        PeopleEntries::Ban if c.action == Action::Create => Some(Question::new(
            &[action::MEMBER_BAN_REMOVE],
            user,
            Matcher::Any,
        )),
        PeopleEntries::Ban => Some(Question::new(&[action::MEMBER_BAN_ADD], user, Matcher::Any)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
