//! `roles:`: a role, its colours (solid, gradient, holographic), and the permission names
//! roles and overwrites grant.

use super::*;

/// A role. Only `name` is required; a field left out is not managed.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Role {
    /// Pin this entry to a role id. Matching is by id, then name, then `previous_names`.
    pub id: Option<Snowflake>,
    /// Role name (at most 100 characters). `@everyone` manages the default role, of which only
    /// `permissions` can be set.
    #[schemars(extend("examples" = ["Moderator", "@everyone"]))]
    pub name: String,
    /// Names this role had before: a role found under one of them is renamed in place (it keeps
    /// its id and members), never deleted and recreated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// Guild-wide permissions, by Discord's names in snake_case (`manage_messages`).
    /// Authoritative when present, except that bits guildctl has no name for are kept.
    #[serde(serialize_with = "flow_opt")]
    pub permissions: Option<Vec<PermissionName>>,
    /// Role colour as `#rrggbb`, or `0`/`"#000000"` for none: a solid colour. For a gradient
    /// or the holographic style, write `colors` instead.
    pub color: Option<Color>,
    /// A gradient (`{ primary: "#..", secondary: "#.." }`) or `holographic`; needs the
    /// ENHANCED_ROLE_COLORS feature. Instead of `color`, never beside it.
    pub colors: Option<RoleColors>,
    /// An image beside the role's name, a file like a webhook's `avatar` (PNG, JPEG or GIF,
    /// at most 8 MiB, inside the manifest's folder); needs the ROLE_ICONS feature; `null`
    /// removes it.
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["images/moderator.png"]))]
    pub icon: Option<Option<String>>,
    /// Show members with this role separately in the member list.
    pub hoist: Option<bool>,
    /// Anyone may @mention this role.
    pub mentionable: Option<bool>,
    /// A standard emoji shown beside the role (needs the ROLE_ICONS feature); `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub unicode_emoji: Option<Option<String>>,
    /// Never delete this role, whatever `prune` says: nor any other live role this entry names
    /// (by `id`, `name` or `previous_names`), such as a second role of the same name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
    /// The roster: exactly these users hold the role. Members not listed lose it, listed
    /// members who are in the guild get it (a listed user who is not a member is reported).
    /// Left out: who holds the role is not managed. Not on `@everyone` or managed roles.
    pub members: Option<Vec<RosterMember>>,
}

/// A role's colours beyond a solid one: a two-colour gradient, or Discord's holographic style
/// (its fixed three colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RoleColors {
    /// `holographic`: Discord's own three colours (11127295, 16759788, 16761760).
    Style(ColorStyle),
    /// A gradient from `primary` to `secondary`.
    Gradient(Gradient),
}

/// A named colour style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColorStyle {
    /// Discord's holographic style.
    Holographic,
}

/// A two-colour gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gradient {
    /// The first colour (also what older clients show as the role's colour).
    pub primary: Color,
    /// The second colour.
    pub secondary: Color,
}

/// Discord's holographic style: primary, secondary, tertiary (the Role object's docs).
pub const HOLOGRAPHIC: [u32; 3] = [11_127_295, 16_759_788, 16_761_760];

impl RoleColors {
    /// Primary, secondary and tertiary as Discord stores them.
    pub fn triple(self) -> (u32, Option<u32>, Option<u32>) {
        match self {
            RoleColors::Style(ColorStyle::Holographic) => {
                (HOLOGRAPHIC[0], Some(HOLOGRAPHIC[1]), Some(HOLOGRAPHIC[2]))
            }
            RoleColors::Gradient(g) => (g.primary.0, Some(g.secondary.0), None),
        }
    }
}

/// An RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, JsonSchema)]
#[schemars(transparent)]
pub struct Color(#[schemars(schema_with = "color_schema")] pub u32);

/// `"#rrggbb"` or an integer up to 0xFFFFFF. (An `extend` on the `u32` kept its
/// `"type": "integer"`, which rejected every string.)
fn color_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "An RGB colour: \"#rrggbb\" (for example \"#3498db\"), or an integer up to 16777215; 0 is no colour.",
        "anyOf": [
            {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
            {"type": "integer", "minimum": 0, "maximum": 16777215}
        ]
    })
}

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("#{:06x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(u32),
            Str(String),
        }
        let err = |s: &str| {
            serde::de::Error::custom(format!(
                "\"{s}\" is not a colour: write it as \"#rrggbb\", for example \"#3498db\""
            ))
        };
        match Raw::deserialize(d)? {
            Raw::Num(n) if n <= 0xFF_FFFF => Ok(Color(n)),
            Raw::Num(n) => Err(err(&n.to_string())),
            Raw::Str(s) => {
                let hex = s.strip_prefix('#').ok_or_else(|| err(&s))?;
                if hex.len() != 6 {
                    return Err(err(&s));
                }
                u32::from_str_radix(hex, 16).map(Color).map_err(|_| err(&s))
            }
        }
    }
}

/// A permission name in snake_case, as Discord names them (`view_channel`,
/// `send_messages`, ...); `bit_N` names a bit guildctl has no name for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(transparent)]
pub struct PermissionName(pub String);

/// The schema lists every name (so an editor completes them and flags `mange_roles`), each
/// with what it allows; `bit_N` is the separate, documented way to name any other bit.
impl JsonSchema for PermissionName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PermissionName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<serde_json::Value> = crate::permissions::NAMED
            .iter()
            .map(|(name, bit)| {
                let what = crate::permissions::description(name).unwrap_or("");
                serde_json::json!({
                    "const": name,
                    "description": format!("{} (bit {bit}).", what.trim_end_matches('.')),
                })
            })
            .collect();
        schemars::json_schema!({
            "description": "A permission: Discord's name for it in snake_case, or `bit_N` for a bit guildctl has no name for.",
            "anyOf": [
                {
                    "description": "A permission by its name.",
                    "oneOf": names,
                },
                {
                    "description": "A permission bit guildctl has no name for, by its number (`bit_53`): it is kept as it is.",
                    "type": "string",
                    "pattern": "^bit_[0-9]{1,2}$",
                },
            ],
            "examples": ["view_channel", "send_messages", "manage_roles"],
        })
    }
}
