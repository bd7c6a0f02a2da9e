//! `policies:`: rules about access the guild must keep (docs/access.md).

use super::*;

/// A rule about access: its `name` and exactly one of `never`, `only` and `holders`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// What the plan and drift call the policy when it is broken; unique among the
    /// manifest's, its bases' and the workspace file's.
    #[schemars(extend("examples" = ["staff-stays-private", "few-admins"]))]
    pub name: String,
    /// Nobody in `who` has any of `can` (in the channels of `where`).
    pub never: Option<NeverRule>,
    /// No role outside `who` holds any of `can` (guild-wide, or in the channels of `where`).
    pub only: Option<OnlyRule>,
    /// The number of members holding `role` stays between `min` and `max`.
    pub holders: Option<HoldersRule>,
}

/// `never`'s `who` for every role and every member a member overwrite names.
pub const ANYONE: &str = "anyone";

/// `never`: nobody in `who` has these permissions.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NeverRule {
    /// `@everyone` (a member with no role), a role by name (a member holding it), or
    /// `anyone` (every role, and every member a member overwrite names).
    #[schemars(extend("examples" = ["@everyone", "anyone", "Helper"]))]
    pub who: String,
    /// The permissions, by snake_case name.
    #[serde(serialize_with = "flow")]
    pub can: Vec<PermissionName>,
    /// The channels it holds in, as `Category/name` patterns where `*` is any name
    /// (`Staff/*`: every channel of Staff; `Staff`: the category itself; `#` is optional).
    /// Left out: guild-wide and in every channel.
    #[serde(rename = "where", serialize_with = "flow_opt")]
    #[schemars(extend("examples" = [["Staff/*"]]))]
    pub places: Option<Vec<String>>,
}

/// `only`: no role outside `who` holds these permissions.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnlyRule {
    /// The roles that may hold them, by name. `@everyone` listed lets every member; the
    /// guild's owner and the role of the bot guildctl runs as are never judged.
    #[serde(serialize_with = "flow")]
    #[schemars(extend("examples" = [["Admin"]]))]
    pub who: Vec<String>,
    /// The permissions, by snake_case name.
    #[serde(serialize_with = "flow")]
    pub can: Vec<PermissionName>,
    /// The channels it holds in, as `Category/name` patterns where `*` is any name. Left
    /// out: guild-wide, by the roles' own permissions.
    #[serde(rename = "where", serialize_with = "flow_opt")]
    pub places: Option<Vec<String>>,
}

/// `holders`: how many members may hold a role.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HoldersRule {
    /// The role, by name.
    #[schemars(extend("examples" = ["Moderator"]))]
    pub role: String,
    /// At least this many members (the role's roster when it has one, else the live count).
    pub min: Option<u32>,
    /// At most this many members.
    pub max: Option<u32>,
}
