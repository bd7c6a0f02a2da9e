//! The manifest's YAML types. The JSON schema in `schema/` is generated from
//! these, so every doc comment here is what an editor shows for the field.
//!
//! The manifest's top level, its ids and what every section shares are here; each section's
//! types are in a file of their own: `settings`, `roles`, `channels`, `features` (welcome
//! screen, onboarding, widget), `webhooks`, `people` (rosters and bans), `doors`
//! (integrations and invites), `policies`, `expressions` (custom emoji, soundboard sounds and
//! stickers).
//!
//! An optional field left out is not managed, and is left out again when written: each type
//! with such fields says so once (`#[skip_serializing_none]`). A field that `null` clears is an
//! `Option<Option<T>>` read with `double_option`.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::skip_serializing_none;

// Defined before the sections, which use it (a macro is in scope below its definition).
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
        pub enum $name { $($(#[$vmeta])* #[serde(rename = $text)] $variant),+ }

        impl $name {
            /// Discord's integer for this value.
            pub fn value(self) -> u64 {
                match self { $($name::$variant => $value),+ }
            }
            /// The value for Discord's integer, if it has a name.
            pub fn from_value(v: u64) -> Option<Self> {
                match v { $($value => Some($name::$variant),)+ _ => None }
            }
            /// The name used in manifests.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }
    };
}

mod automod;
mod channels;
mod doors;
mod events;
mod expressions;
mod features;
mod people;
mod policies;
mod roles;
mod settings;
mod webhooks;

pub use automod::*;
pub use channels::*;
pub use doors::*;
pub use events::*;
pub use expressions::*;
pub use features::*;
pub use people::*;
pub use policies::*;
pub use roles::*;
pub use settings::*;
pub use webhooks::*;

/// A top-level section as the loader puts it together: from a folder's files, from bases,
/// and in the node paths diagnostics name. A section written here is one row.
#[derive(Debug, Clone, Copy)]
pub struct SectionKey {
    /// Its key (`roles`).
    pub key: &'static str,
    /// A list each of a folder's files may hold part of.
    pub split: bool,
    /// The field its items merge by across bases (`name`), when they do.
    pub identity: Option<&'static str>,
    /// Found in a diagnostic's message as a node path (`roles[0]`), to place it.
    pub placed: bool,
}

/// A split list merged by `name` and placed, as most sections are.
const fn named_list(key: &'static str) -> SectionKey {
    SectionKey {
        key,
        split: true,
        identity: Some("name"),
        placed: true,
    }
}

/// A mapping, placed.
const fn mapping(key: &'static str) -> SectionKey {
    SectionKey {
        key,
        split: false,
        identity: None,
        placed: true,
    }
}

/// The sections the loader knows by key (the others it takes whole from one file and layer).
pub const SECTION_KEYS: &[SectionKey] = &[
    mapping("settings"),
    named_list("roles"),
    named_list("channels"),
    mapping("welcome_screen"),
    mapping("onboarding"),
    mapping("widget"),
    named_list("webhooks"),
    SectionKey {
        key: "bans",
        split: true,
        identity: Some("id"),
        placed: false,
    },
    SectionKey {
        key: "integrations",
        split: false,
        identity: Some("application"),
        placed: false,
    },
    mapping("prune"),
    named_list("policies"),
    named_list("emojis"),
    named_list("soundboard"),
    named_list("automod"),
    named_list("events"),
    named_list("stickers"),
];

/// A guild configuration manifest (version 1).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "guildctl manifest")]
pub struct Manifest {
    /// Manifest format version. Only `1` exists.
    #[schemars(schema_with = "version_schema")]
    pub version: u32,
    /// The guild (server) id this manifest describes. When set, the manifest is planned and
    /// applied against this guild only: `--guild` or `GUILDCTL_GUILD` naming another guild is
    /// refused. Left out, the guild comes from `--guild` or `GUILDCTL_GUILD`.
    #[schemars(extend("examples" = ["81384788765712384"]))]
    pub guild: Option<Snowflake>,
    /// Base manifests this one is built on (a layout shared by several guilds): a path, or a
    /// list merged in order, relative to this file. This manifest wins per field; roles,
    /// channels and webhooks merge by name; other lists are taken whole (docs/manifest.md,
    /// "Bases").
    #[schemars(extend("examples" = ["../base.yaml"]))]
    pub extends: Option<Extends>,
    /// Guild settings. Any subset: a field left out is not managed.
    pub settings: Option<Settings>,
    /// Roles, highest first: list order is the role hierarchy. Roles that exist in the
    /// guild but are not listed are kept (and reported as unmanaged) unless `prune.roles`.
    pub roles: Option<Vec<Role>>,
    /// Categories (with their channels nested) and channels outside any category.
    /// List order is channel order. Unlisted live channels are kept unless `prune.channels`.
    pub channels: Option<Vec<Channel>>,
    /// The welcome screen of a community guild. Left out: not managed.
    pub welcome_screen: Option<WelcomeScreen>,
    /// Onboarding: default channels and the questions new members answer. Left out: not managed.
    pub onboarding: Option<Onboarding>,
    /// The server widget. Left out: not managed.
    pub widget: Option<Widget>,
    /// Incoming webhooks. Their tokens are secrets and never appear in plans or exports;
    /// `apply --webhook-urls FILE` writes the URLs of new ones to a private file.
    pub webhooks: Option<Vec<Webhook>>,
    /// Applications (bots and apps) allowed in the guild; drift reports every other, and
    /// `prune.integrations` removes them. The bot guildctl runs as is always allowed.
    /// Left out: not managed (and not read).
    pub integrations: Option<Vec<AllowedIntegration>>,
    /// Which invites may exist (by code or by rule); drift reports the others, and
    /// `prune.invites` deletes them. Left out: not managed (and not read).
    pub invites: Option<Invites>,
    /// Users banned from the guild, each with the reason sent to the audit log. Bans made
    /// live but not listed are kept unless `prune.bans`. In a folder manifest this list may be
    /// split across files (a shared ban list in its own file). Left out: bans are not managed.
    pub bans: Option<Vec<Ban>>,
    /// Rules about access the guild must keep, each with a `name` and one of `never`, `only`
    /// or `holders`. Judged on the guild as the plan leaves it: a plan that breaks one is
    /// refused before anything is sent, and drift reports a live breach as high risk. Bases
    /// (`extends:`) and the workspace file (`guildctl.yaml`, for every guild) may declare
    /// policies too: all of them count, and a name is used once (docs/access.md).
    pub policies: Option<Vec<Policy>>,
    /// Custom emoji by name. Emoji live but not listed are kept unless `prune.emojis`.
    /// Left out: not managed (and not read).
    pub emojis: Option<Vec<GuildEmoji>>,
    /// Soundboard sounds by name. Sounds live but not listed are kept unless
    /// `prune.soundboard`. Left out: not managed (and not read).
    pub soundboard: Option<Vec<SoundboardSound>>,
    /// AutoMod rules by name. Left out: not managed (and not read).
    pub automod: Option<Vec<AutoModRule>>,
    /// Scheduled events by name: future and recurring ones are managed, a past one-off is
    /// not created again. Left out: not managed (and not read).
    pub events: Option<Vec<ScheduledEvent>>,
    /// Guild stickers by name. Stickers live but not listed are kept unless
    /// `prune.stickers`. Left out: not managed (and not read).
    pub stickers: Option<Vec<GuildSticker>>,
    /// Delete objects of a kind that the manifest does not declare. Off by default.
    #[serde(default, skip_serializing_if = "Prune::is_default")]
    pub prune: Prune,
    /// Limits on what one apply may delete. Left out, the default limits hold (see `safety`).
    pub safety: Option<Safety>,
}

impl Manifest {
    /// Leaves out `guild:` and every id an entry pins in the guild (see
    /// [`crate::manifest::LoadedManifest::like`]).
    pub fn unpin(&mut self) {
        /// Each entry's pinned id, left out.
        fn each<T>(list: &mut Option<Vec<T>>, id: fn(&mut T) -> &mut Option<Snowflake>) {
            list.iter_mut().flatten().for_each(|e| *id(e) = None);
        }
        self.guild = None;
        each(&mut self.roles, |r| &mut r.id);
        each(&mut self.webhooks, |w| &mut w.id);
        each(&mut self.emojis, |e| &mut e.id);
        each(&mut self.soundboard, |s| &mut s.id);
        each(&mut self.stickers, |s| &mut s.id);
        each(&mut self.automod, |a| &mut a.id);
        each(&mut self.events, |e| &mut e.id);
        let mut channels: Vec<&mut Channel> = self.channels.iter_mut().flatten().collect();
        while let Some(c) = channels.pop() {
            c.id = None;
            each(&mut c.tags, |t| &mut t.id);
            channels.extend(c.channels.iter_mut().flatten());
        }
    }
}

/// `version: 1`, the only version, as a constant so editors offer and check it.
fn version_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "Manifest format version. Only `1` exists.",
        "type": "integer",
        "const": 1
    })
}

/// `extends:`: one base manifest, or several merged in order.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Extends {
    /// One base manifest (a file or a folder), its path relative to the file that writes it.
    One(String),
    /// Several base manifests, merged in order.
    Many(Vec<String>),
}

/// Limits on what one apply may delete or loosen (docs/safety.md). By default apply refuses a
/// plan that deletes, of one kind (roles; channels with categories; webhooks), more than 30%
/// of the live objects of that kind, at least 2 and at most 10, and any plan that removes or
/// weakens a policy or takes something out of one; `--yes` does not lift this.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Safety {
    /// Let one apply delete up to this many objects in total (roles, channels, categories and
    /// webhooks, counting webhooks deleted with their channel), in place of the default limits.
    /// The same as `apply --allow-deletes N`, which takes precedence; `0` refuses every
    /// deletion. Write the number the plan shows, so reviewers see what was allowed.
    pub allow_deletes: Option<u32>,
    /// Let one apply change up to this many policies in ways that loosen them: a policy
    /// removed, renamed or weakened (in this file, a base or guildctl.yaml), or a channel,
    /// role or member taken out of what one covers. The same as `apply
    /// --allow-policy-changes N`, which takes precedence; by default none is allowed. Write
    /// the number the plan shows, and remove the line once applied.
    pub allow_policy_changes: Option<u32>,
    /// Let `guildctl watch --guard` revert, within seconds, a hand change that breaks one of
    /// the policies or touches a `protect: true` role, channel or webhook: only the fields
    /// changed, back to this manifest, never widening access (docs/watch.md, "Guard").
    /// Off by default: every change is then told, none reverted.
    #[schemars(extend("examples" = [true]))]
    pub guard: Option<bool>,
}

/// Which kinds of object guildctl deletes when they are live but not declared.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prune {
    /// Delete roles the manifest does not declare (managed roles and roles at or above the
    /// bot's highest role are never deleted).
    #[serde(default)]
    pub roles: bool,
    /// Delete channels and categories the manifest does not declare.
    #[serde(default)]
    pub channels: bool,
    /// Delete incoming webhooks the manifest does not declare (their URLs stop working).
    #[serde(default)]
    pub webhooks: bool,
    /// Remove applications `integrations` does not list (Delete Guild Integration: their
    /// bot, its role and their webhooks go too).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integrations: bool,
    /// Delete invites that `invites` does not allow.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invites: bool,
    /// Lift bans the manifest's `bans` does not list (each counts as a deletion for the
    /// deletion gate). Needs `bans`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bans: bool,
    /// Delete custom emoji `emojis` does not list (managed ones, an integration's, are kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub emojis: bool,
    /// Delete soundboard sounds `soundboard` does not list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub soundboard: bool,
    /// Delete AutoMod rules `automod` does not declare (Discord's own mention-spam rule
    /// included).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automod: bool,
    /// Delete scheduled events `events` does not declare (only those not yet started).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub events: bool,
    /// Delete guild stickers `stickers` does not list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stickers: bool,
}

impl Prune {
    fn is_default(&self) -> bool {
        *self == Prune::default()
    }
}

/// A Discord id: a 64-bit snowflake written as a string of digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[schemars(transparent)]
pub struct Snowflake(#[schemars(regex(pattern = r"^[0-9]{15,20}$"))] pub String);

impl<'de> Deserialize<'de> for Snowflake {
    /// Accepts a string of digits or a YAML integer (ids fit in u64).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Str(String),
            Num(u64),
        }
        let s = match Raw::deserialize(d)? {
            Raw::Str(s) => s,
            Raw::Num(n) => n.to_string(),
        };
        if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(serde::de::Error::custom(format!(
                "\"{s}\" is not a Discord id (a snowflake is a string of digits)"
            )));
        }
        Ok(Snowflake(s))
    }
}

impl std::fmt::Display for Snowflake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Writes a list in flow style (`[a, b]`), which keeps permission lists short in exports.
fn flow<S: Serializer, T: Serialize>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    serde_saphyr::FlowSeq(v).serialize(s)
}

fn flow_opt<S: Serializer, T: Serialize>(v: &Option<Vec<T>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => flow(v, s),
        None => s.serialize_none(),
    }
}

/// Distinguishes a field that is absent (`None`: unmanaged) from one set to `null`
/// (`Some(None)`: managed, cleared).
fn double_option<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}
