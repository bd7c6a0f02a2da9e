//! The people a manifest names: role rosters (`roles[].members`) and `bans:`.

use super::*;

/// One user on a role's roster: written as a bare id (`"849074781683712000"`), as
/// `{ id, name }`, or as `{ person: alice }`, a person of the workspace's people file
/// (docs/workspace.md), whose id the load fills in.
#[skip_serializing_none]
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(from = "RosterEntry")]
pub struct RosterMember {
    /// The user's id.
    pub id: Snowflake,
    /// A comment for readers of the manifest: the plan shows the user by their live username
    /// and id, and warns where this is not their username.
    #[schemars(extend("examples" = ["alice"]))]
    pub name: Option<String>,
    /// The person of the people file it was written as (`{ person: alice }`), until the
    /// load gives it their id; `None` once resolved, and for an entry written by id.
    #[serde(skip)]
    #[schemars(skip)]
    pub person: Option<String>,
}

/// A roster entry as written (the schema's and the reader's form of [`RosterMember`]).
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum RosterEntry {
    /// The user's id alone.
    Id(Snowflake),
    /// The user's id, with their name for readers.
    Named(NamedRosterMember),
    /// A person of the workspace's people file, by their name there.
    Person(PersonRosterMember),
}

/// A roster entry naming a person of the people file.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PersonRosterMember {
    /// Their name in the workspace's people file (`people: people.yaml` in guildctl.yaml),
    /// which gives their Discord id.
    #[schemars(extend("examples" = ["alice"]))]
    person: String,
}

/// A roster entry with its fields.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NamedRosterMember {
    /// The user's id.
    id: Snowflake,
    /// A comment for readers of the manifest: the plan shows the user by their live username
    /// and id, and warns where this is not their username.
    #[schemars(extend("examples" = ["alice"]))]
    name: Option<String>,
}

impl From<RosterEntry> for RosterMember {
    fn from(entry: RosterEntry) -> RosterMember {
        match entry {
            RosterEntry::Id(id) => RosterMember {
                id,
                name: None,
                person: None,
            },
            RosterEntry::Named(NamedRosterMember { id, name }) => RosterMember {
                id,
                name,
                person: None,
            },
            // The id stays empty until the load finds the person (`manifest::people`).
            RosterEntry::Person(PersonRosterMember { person }) => RosterMember {
                id: Snowflake(String::new()),
                name: None,
                person: Some(person),
            },
        }
    }
}

/// One banned user.
#[skip_serializing_none]
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ban {
    /// The user's id (a user who never joined may be banned too).
    pub id: Snowflake,
    /// A comment for readers of the manifest: the plan shows the user by their live username
    /// and id, and warns where this is not their username.
    pub name: Option<String>,
    /// Why, at most 512 characters: sent as the audit-log reason of the ban, which Discord
    /// keeps as the ban's reason. A live ban's reason is never changed (that would take an
    /// unban).
    #[schemars(extend("examples" = ["Spam links in #general"]))]
    pub reason: Option<String>,
}
