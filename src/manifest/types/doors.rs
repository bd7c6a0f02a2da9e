//! The ways into the guild: the applications allowed in it (`integrations:`) and the invites
//! that may exist (`invites:`) (docs/manifest.md, "Integrations, invites and lockdown").

use super::*;

/// An application (bot or app) allowed in the guild.
#[skip_serializing_none]
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AllowedIntegration {
    /// The application's id (in the Developer Portal, or drift's report).
    #[schemars(extend("examples" = ["1234567890123456789"]))]
    pub application: Snowflake,
    /// A name for people reading the manifest; not compared.
    #[schemars(extend("examples" = ["GitHub"]))]
    pub name: Option<String>,
}

/// Which invites may exist. An invite may exist when its code is listed, or when it
/// matches one of the rules (every condition the rule sets). Left out: not managed.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Invites {
    /// Invite codes that may exist whatever the rules say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("examples" = [["rust"]]))]
    pub codes: Vec<String>,
    /// Rules an invite not listed by code must match one of. No rules and no codes: no
    /// invite may exist.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<InviteRule>,
    /// The guild's vanity URL code (discord.gg/CODE). Discord sets it in the server's
    /// settings, not through the API: guildctl reads it and reports when it differs.
    pub vanity: Option<String>,
}

/// Conditions on an invite; an invite matches the rule when it meets every one set.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InviteRule {
    /// Only invites that expire (`true`).
    pub expires: Option<bool>,
    /// Only invites that expire within this many seconds of their creation (1-604800).
    pub max_age: Option<u32>,
    /// Only invites limited to at most this many uses.
    pub max_uses: Option<u32>,
    /// Only invites into these channels, by name, `Category/name` or id.
    pub channels: Option<Vec<String>>,
}
