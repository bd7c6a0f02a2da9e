//! A change: what differs in one object, field by field, in manifest terms; and the
//! warnings a plan carries beside its changes.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::field::{Field, FieldChange, WireField};
use super::kind::Kind;

/// What a change does to its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The object is created.
    Create,
    /// Fields of a live object change.
    Update,
    /// A list (the roles, the channels of a group) is put in another order.
    Reorder,
    /// The object is deleted (or, for a roster entry or a ban, taken away or lifted).
    Delete,
}

/// Which object a change is about.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    /// The kind of object.
    pub kind: Kind,
    /// Display name: a role's name, `#channel`, `Category/#channel`.
    pub name: String,
    /// Its live id; none for an object the plan creates.
    pub id: Option<String>,
}

/// One object's change: the action, the object, and each field's value before and after.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "WireChange")]
pub struct Change {
    /// What the change does.
    pub action: Action,
    /// The object it is about.
    pub object: ObjectRef,
    /// Field-level before/after, in manifest terms (names, not ids or bits), each with the
    /// field it is ([`Field`]).
    pub fields: Vec<FieldChange>,
    /// Where in the manifest the object is declared, e.g. `roles[2]`.
    pub source: Option<String>,
    /// For a roster entry or a ban: the user it names, as the plan read them from Discord.
    pub person: Option<Person>,
}

impl Change {
    /// `update role Moderator (permissions, color)`: what a refusal names.
    pub fn describe(&self) -> String {
        let verb = match self.action {
            Action::Create => "create",
            Action::Update => "update",
            Action::Reorder => "reorder",
            Action::Delete => "delete",
        };
        let fields: Vec<_> = self.fields.iter().map(|f| f.field.name()).collect();
        let mut s = format!("{verb} {} {}", self.object.kind.label(), self.object.name);
        if !fields.is_empty() {
            s.push_str(&format!(" ({})", fields.join(", ")));
        }
        s
    }

    /// Whether this change bans someone who is a member now (destructive: they leave the
    /// guild with every role they hold).
    pub fn bans_member(&self) -> bool {
        self.action == Action::Create
            && self.object.kind == Kind::Ban
            && self.person.as_ref().is_some_and(|p| p.member)
    }
}

/// A user a plan names (a roster entry's, a ban's), as Discord knows them. The manifest's
/// `name` for a user is a comment: the plan shows the live username, and the manifest's
/// name only where it is not that.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// Their username on Discord; `None` when Discord knows no user with this id.
    pub username: Option<String>,
    /// Whether they are a member of the guild now.
    pub member: bool,
    /// For a member to be banned: the roles they hold, highest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<HeldRole>,
    /// The manifest's `name` for them, when it is not their username: a comment that would
    /// mislead a reviewer, shown as a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_in_manifest: Option<String>,
}

/// A role a member holds, with the dangerous permissions it grants (none: empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldRole {
    /// The role's name.
    pub name: String,
    /// The dangerous permissions it grants, by their manifest names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dangerous: Vec<String>,
}

/// Something a reviewer should know that does not stop the plan.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// What it says.
    pub message: String,
    /// Where in the manifest it is about, e.g. `roles[2]`.
    pub source: Option<String>,
}

/// A change as a saved plan writes it; its fields are read with its object's kind.
#[derive(Deserialize)]
struct WireChange {
    action: Action,
    object: ObjectRef,
    fields: Vec<WireField>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    person: Option<Person>,
}

impl TryFrom<WireChange> for Change {
    type Error = String;

    fn try_from(w: WireChange) -> Result<Change, String> {
        let kind = w.object.kind;
        let fields = w
            .fields
            .into_iter()
            .map(|f| {
                let field = Field::parse(kind, &f.field)
                    .ok_or_else(|| format!("a {} has no field `{}`", kind.label(), f.field))?;
                if f.api.is_some() && f.api.as_deref() != field.api() {
                    return Err(format!(
                        "the {} field `{}` is sent as {}, not `{}`",
                        kind.label(),
                        f.field,
                        field
                            .api()
                            .map_or("nothing".to_owned(), |a| format!("`{a}`")),
                        f.api.unwrap_or_default()
                    ));
                }
                Ok(FieldChange {
                    field,
                    before: f.before,
                    after: f.after,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Change {
            action: w.action,
            object: w.object,
            fields,
            source: w.source,
            person: w.person,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::field::Channel;

    #[test]
    fn a_saved_change_names_its_api_field_and_is_read_with_it() {
        let change = Change {
            action: Action::Update,
            object: ObjectRef {
                kind: Kind::Channel,
                name: "#general".into(),
                id: Some("1".into()),
            },
            fields: vec![FieldChange::new(
                Channel::Slowmode,
                serde_json::json!(0),
                serde_json::json!(5),
            )],
            source: None,
            person: None,
        };
        let json = serde_json::to_value(&change).unwrap();
        assert_eq!(
            json["fields"][0],
            serde_json::json!({"field": "slowmode", "api": "rate_limit_per_user", "before": 0, "after": 5})
        );
        let back: Change = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, change);

        // An API field that is not the field's makes the file no plan.
        let mut lying = json.clone();
        lying["fields"][0]["api"] = serde_json::json!("topic");
        let e = serde_json::from_value::<Change>(lying)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "the channel field `slowmode` is sent as `rate_limit_per_user`, not `topic`"
            ),
            "{e}"
        );
        let mut unknown = json;
        unknown["fields"][0]["field"] = serde_json::json!("permissions");
        let e = serde_json::from_value::<Change>(unknown)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a channel has no field `permissions`"), "{e}");
    }
}
