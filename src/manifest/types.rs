//! The manifest's YAML types. The JSON schema in `schema/` is generated from
//! these, so every doc comment here is what an editor shows for the field.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A guild configuration manifest (version 1).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "guildctl manifest")]
pub struct Manifest {
    /// Manifest format version. Only `1` exists.
    pub version: u32,
    /// The guild (server) id this manifest describes. When set, the manifest is planned and
    /// applied against this guild only: `--guild` or `GUILDCTL_GUILD` naming another guild is
    /// refused. Left out, the guild comes from `--guild` or `GUILDCTL_GUILD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["81384788765712384"]))]
    pub guild: Option<Snowflake>,
    /// Base manifests this one is built on (a layout shared by several guilds): a path, or a
    /// list merged in order, relative to this file. This manifest wins per field; roles,
    /// channels and webhooks merge by name; other lists are taken whole (docs/manifest.md,
    /// "Bases").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["../base.yaml"]))]
    pub extends: Option<Extends>,
    /// Guild settings. Any subset: a field left out is not managed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// Roles, highest first: list order is the role hierarchy. Roles that exist in the
    /// guild but are not listed are kept (and reported as unmanaged) unless `prune.roles`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<Role>>,
    /// Categories (with their channels nested) and channels outside any category.
    /// List order is channel order. Unlisted live channels are kept unless `prune.channels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<Channel>>,
    /// The welcome screen of a community guild. Left out: not managed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub welcome_screen: Option<WelcomeScreen>,
    /// Onboarding: default channels and the questions new members answer. Left out: not managed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onboarding: Option<Onboarding>,
    /// The server widget. Left out: not managed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widget: Option<Widget>,
    /// Incoming webhooks. Their tokens are secrets and never appear in plans or exports;
    /// `apply --webhook-urls FILE` writes the URLs of new ones to a private file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhooks: Option<Vec<Webhook>>,
    /// Applications (bots and apps) allowed in the guild; drift reports every other, and
    /// `prune.integrations` removes them. The bot guildctl runs as is always allowed.
    /// Left out: not managed (and not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<Vec<AllowedIntegration>>,
    /// Which invites may exist (by code or by rule); drift reports the others, and
    /// `prune.invites` deletes them. Left out: not managed (and not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invites: Option<Invites>,
    /// Users banned from the guild, each with the reason sent to the audit log. Bans made
    /// live but not listed are kept unless `prune.bans`. In a folder manifest this list may be
    /// split across files (a shared ban list in its own file). Left out: bans are not managed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bans: Option<Vec<Ban>>,
    /// Rules about access the guild must keep, each with a `name` and one of `never`, `only`
    /// or `holders`. Judged on the guild as the plan leaves it: a plan that breaks one is
    /// refused before anything is sent, and drift reports a live breach as high risk. Bases
    /// (`extends:`) and the workspace file (`guildctl.yaml`, for every guild) may declare
    /// policies too: all of them count, and a name is used once (docs/access.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policies: Option<Vec<Policy>>,
    /// Delete objects of a kind that the manifest does not declare. Off by default.
    #[serde(default, skip_serializing_if = "Prune::is_default")]
    pub prune: Prune,
    /// Limits on what one apply may delete. Left out, the default limits hold (see `safety`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<Safety>,
}

/// `extends:`: one base manifest, or several merged in order.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Extends {
    One(String),
    Many(Vec<String>),
}

/// Limits on what one apply may delete (docs/safety.md). By default apply refuses a plan
/// that deletes, of one kind (roles; channels with categories; webhooks), more than 30% of
/// the live objects of that kind, at least 2 and at most 10; `--yes` does not lift this.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Safety {
    /// Let one apply delete up to this many objects in total (roles, channels, categories and
    /// webhooks, counting webhooks deleted with their channel), in place of the default limits.
    /// The same as `apply --allow-deletes N`, which takes precedence; `0` refuses every
    /// deletion. Write the number the plan shows, so reviewers see what was allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_deletes: Option<u32>,
}

/// The welcome screen new members of a community guild see.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WelcomeScreen {
    /// Show the welcome screen (Discord records this as the WELCOME_SCREEN_ENABLED feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The server description shown on the screen, at most 140 characters; `null` clears it.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<Option<String>>,
    /// Up to 5 recommended channels, in order. Authoritative when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<WelcomeChannel>>,
}

/// A channel recommended on the welcome screen.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WelcomeChannel {
    /// The channel, by name (or id); `Category/name` picks the one in that category when several
    /// channels share the name.
    #[schemars(extend("examples" = ["rules", "Information/rules"]))]
    pub channel: String,
    /// What the channel is for, 1-50 characters.
    pub description: String,
    /// An emoji shown beside the channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<Emoji>,
}

/// An emoji: a standard one as the character itself (`"📜"`), or a custom one of the guild
/// by id (and name).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Emoji {
    /// A standard emoji, written as the character.
    Unicode(String),
    /// A custom emoji of this guild.
    Custom(CustomEmoji),
}

/// A custom emoji.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CustomEmoji {
    /// The emoji's id (with Developer Mode on: right-click the emoji, Copy ID).
    pub id: Snowflake,
    /// The emoji's name, 2-32 letters, digits or underscores, without colons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether it is animated (a GIF emoji).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub animated: bool,
}

/// Onboarding: what new members are asked and which channels they see first.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Onboarding {
    /// Turn onboarding on. Discord requires at least 7 default channels, at least 5 of them
    /// where @everyone can send messages (counted per `mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// `default`: only default channels count toward the requirements; `advanced`: channels
    /// offered by questions count too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<OnboardingMode>,
    /// Channels every new member sees, by name, as `Category/name` or by id (at most 500),
    /// each once.
    /// Authoritative when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_channels: Option<Vec<String>>,
    /// Questions, in order (at most 15), matched to live ones by title. Authoritative when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<Prompt>>,
}

/// An onboarding question.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// The question, 1-100 characters. Prompts are matched to live ones by title.
    #[schemars(extend("examples" = ["What brings you here?"]))]
    pub title: String,
    /// `multiple_choice` (the default) or `dropdown`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<PromptType>,
    /// Members may pick only one answer (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub single_select: bool,
    /// Members must answer before finishing onboarding (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Asked during onboarding (default true); false shows it only under Channels & Roles.
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub in_onboarding: bool,
    /// The answers, 1-50, matched to live ones by title.
    pub options: Vec<PromptOption>,
}

fn yes() -> bool {
    true
}

/// An answer to an onboarding question.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptOption {
    /// The answer, 1-50 characters.
    pub title: String,
    /// A longer explanation, at most 100 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An emoji shown beside the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<Emoji>,
    /// Roles given to members who pick it, by name or id (at most 50), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Channels shown to members who pick it, by name, as `Category/name` or by id (at most
    /// 50), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<String>,
}

/// The server widget.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Widget {
    /// Turn the widget on: anyone may then read the guild's name, online member count and
    /// invite (through widget.json and the embeddable widget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The channel the widget's invite leads to, by name, `Category/name` or id; `null` for no
    /// invite.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub channel: Option<Option<String>>,
}

/// An incoming webhook.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Webhook {
    /// Pin this entry to a webhook id. Matching is by id, then name, then `previous_names`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Snowflake>,
    /// The webhook's name, 1-80 characters, never containing "clyde" or "discord".
    #[schemars(extend("examples" = ["CI", "Releases"]))]
    pub name: String,
    /// Names this webhook had before: renamed in place (its URL keeps working).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The text, announcement, forum or media channel it posts to, by name, as
    /// `Category/name` or by id. Changing it moves the webhook (its URL keeps working).
    #[schemars(extend("examples" = ["announcements", "Dev/ci"]))]
    pub channel: String,
    /// An image file for its avatar: PNG, JPEG or GIF, at most 8 MiB, by its path relative to
    /// the manifest's folder and inside it (`assets/ci.png`); `null` removes the avatar. A webhook
    /// that already has an avatar keeps it until this changes to `null` and back (the guild's
    /// and roles' images are compared by content instead).
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["assets/ci.png"]))]
    pub avatar: Option<Option<String>>,
    /// Never delete this webhook (its URL would stop working), whatever `prune` says: nor any
    /// other incoming webhook this entry names (by `id`, `name` or `previous_names`). A plan
    /// that deletes the channel it is in is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
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

/// Guild settings. Channels are referenced by name, or as `Category/name` when several share
/// the name, or by id; `null` clears a channel setting.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Guild name, 2-100 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["Rust Tools"]))]
    pub name: Option<String>,
    /// Guild description (at most 300 characters); `null` clears it.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<Option<String>>,
    /// Who may talk: none (unrestricted), low (verified email), medium (registered longer
    /// than 5 minutes), high (member longer than 10 minutes), very_high (verified phone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_level: Option<VerificationLevel>,
    /// Which messages notify members who have not chosen for themselves: `all_messages` or
    /// `only_mentions` (advised for large guilds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_message_notifications: Option<MessageNotifications>,
    /// Whose media is scanned for explicit content. A community guild needs `all_members`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit_content_filter: Option<ExplicitContentFilter>,
    /// Name of the voice channel idle members are moved to; `null` for none.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub afk_channel: Option<Option<String>>,
    /// Seconds of inactivity before a member is moved to the AFK channel: 60, 300, 900, 1800 or 3600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = [60, 300, 900, 1800, 3600]))]
    pub afk_timeout: Option<u32>,
    /// Name of the text channel for join and boost notices; `null` for none.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_channel: Option<Option<String>>,
    /// Notices the system channel suppresses. The list is authoritative when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_channel_flags: Option<Vec<SystemChannelFlag>>,
    /// Name of the rules channel (required for `community: true`); `null` for none.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub rules_channel: Option<Option<String>>,
    /// Name of the channel that receives Discord's community updates (required for `community: true`).
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub public_updates_channel: Option<Option<String>>,
    /// Name of the channel that receives safety alerts; `null` for none.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub safety_alerts_channel: Option<Option<String>>,
    /// Preferred locale of a community guild, for example `en-US`: the language of Discord's
    /// messages to it, and how Discovery lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Locale>")]
    pub preferred_locale: Option<String>,
    /// Show the boost progress bar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premium_progress_bar_enabled: Option<bool>,
    /// The COMMUNITY feature. Turning it on needs the rules and public updates channels,
    /// verification level at least `low` and explicit content filter `all_members`, and a
    /// bot with Administrator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub community: Option<bool>,
    /// Pause all invites (the INVITES_DISABLED feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invites_disabled: Option<bool>,
    /// Turn off join-raid alerts (the RAID_ALERTS_DISABLED feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raid_alerts_disabled: Option<bool>,
    /// The guild's icon: an image file (PNG, JPEG or GIF, at most 8 MiB) by its path relative to the manifest's folder and inside it; `null` removes it. An animated (GIF) icon needs the ANIMATED_ICON feature.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["images/icon.png"]))]
    pub icon: Option<Option<String>>,
    /// The guild's banner, an image file like `icon`; needs the BANNER feature (a GIF, ANIMATED_BANNER too).
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["images/banner.png"]))]
    pub banner: Option<Option<String>>,
    /// The invite background, an image file like `icon` (PNG or JPEG); needs the INVITE_SPLASH feature.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["images/splash.png"]))]
    pub splash: Option<Option<String>>,
    /// The Discovery background, an image file like `icon` (PNG or JPEG); needs the DISCOVERABLE feature.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["images/discovery_splash.png"]))]
    pub discovery_splash: Option<Option<String>>,
}

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

named_enum!(
    /// Verification level.
    VerificationLevel {
        /// Unrestricted.
        None = 0 => "none",
        /// Members must have a verified email.
        Low = 1 => "low",
        /// Members must also have been registered on Discord for more than 5 minutes.
        Medium = 2 => "medium",
        /// Members must also have been in the guild for more than 10 minutes.
        High = 3 => "high",
        /// Members must have a verified phone number.
        VeryHigh = 4 => "very_high",
    }
);
named_enum!(
    /// Default message notification level.
    MessageNotifications {
        /// Members are notified of every message (Discord's default for a new guild).
        AllMessages = 0 => "all_messages",
        /// Members are notified only of messages that mention them.
        OnlyMentions = 1 => "only_mentions",
    }
);
named_enum!(
    /// Explicit content filter level.
    ExplicitContentFilter {
        /// No media is scanned.
        Disabled = 0 => "disabled",
        /// Media from members without a role is scanned.
        MembersWithoutRoles = 1 => "members_without_roles",
        /// Media from every member is scanned (required for a community guild).
        AllMembers = 2 => "all_members",
    }
);
named_enum!(
    /// A notice the system channel can suppress (each is one bit of system_channel_flags).
    SystemChannelFlag {
        /// No message when a member joins (bit 1 << 0).
        SuppressJoinNotifications = 1 => "suppress_join_notifications",
        /// No message when a member boosts the guild (bit 1 << 1).
        SuppressPremiumSubscriptions = 2 => "suppress_premium_subscriptions",
        /// No server setup tips (bit 1 << 2).
        SuppressGuildReminderNotifications = 4 => "suppress_guild_reminder_notifications",
        /// No sticker reply buttons on join messages (bit 1 << 3).
        SuppressJoinNotificationReplies = 8 => "suppress_join_notification_replies",
        /// No message when a member buys or renews a role subscription (bit 1 << 4).
        SuppressRoleSubscriptionPurchaseNotifications = 16 => "suppress_role_subscription_purchase_notifications",
        /// No sticker reply buttons on role subscription messages (bit 1 << 5).
        SuppressRoleSubscriptionPurchaseNotificationReplies = 32 => "suppress_role_subscription_purchase_notification_replies",
    }
);
named_enum!(
    /// Channel type.
    ChannelType {
        /// A text channel (type 0).
        Text = 0 => "text",
        /// A voice channel (type 2).
        Voice = 2 => "voice",
        /// A category that holds other channels (type 4).
        Category = 4 => "category",
        /// An announcement channel (type 5), available in community guilds.
        Announcement = 5 => "announcement",
        /// A stage channel (type 13).
        Stage = 13 => "stage",
        /// A forum channel (type 15).
        Forum = 15 => "forum",
        /// A media channel (type 16).
        Media = 16 => "media",
    }
);
named_enum!(
    /// Camera video quality in voice and stage channels.
    VideoQualityMode {
        /// Discord picks the quality for each member (the default).
        Auto = 1 => "auto",
        /// 720p for everyone.
        Full = 2 => "full",
    }
);
named_enum!(
    /// Onboarding mode.
    OnboardingMode {
        /// Only default channels count toward Discord's requirements.
        Default = 0 => "default",
        /// Default channels and channels offered by questions count.
        Advanced = 1 => "advanced",
    }
);
named_enum!(
    /// How an onboarding question is shown.
    PromptType {
        /// The answers are shown as buttons (the default).
        MultipleChoice = 0 => "multiple_choice",
        /// The answers are in a drop-down list.
        Dropdown = 1 => "dropdown",
    }
);

named_enum!(
    /// How a forum or media channel sorts its posts for members who have not chosen.
    SortOrder {
        /// Posts with the most recent activity first.
        LatestActivity = 0 => "latest_activity",
        /// The newest posts first.
        CreationDate = 1 => "creation_date",
    }
);
named_enum!(
    /// How a forum channel shows its posts for members who have not chosen. (Discord reports
    /// a forum that never had one set as "not set", 0, which a manifest cannot ask for.)
    ForumLayout {
        /// One post per row.
        List = 1 => "list",
        /// A collection of tiles.
        Gallery = 2 => "gallery",
    }
);

impl ChannelType {
    /// Text-like channels are sorted together above voice-like ones in each parent,
    /// and Discord normalises their names.
    pub fn is_text_like(self) -> bool {
        matches!(
            self,
            ChannelType::Text | ChannelType::Announcement | ChannelType::Forum | ChannelType::Media
        )
    }
    pub fn is_voice_like(self) -> bool {
        matches!(self, ChannelType::Voice | ChannelType::Stage)
    }
    /// Forum and media channels hold posts, with tags (discord-behaviour.md §9.5).
    pub fn is_forum_like(self) -> bool {
        matches!(self, ChannelType::Forum | ChannelType::Media)
    }
}

/// A role. Only `name` is required; a field left out is not managed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Role {
    /// Pin this entry to a role id. Matching is by id, then name, then `previous_names`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "flow_opt"
    )]
    pub permissions: Option<Vec<PermissionName>>,
    /// Role colour as `#rrggbb`, or `0`/`"#000000"` for none: a solid colour. For a gradient
    /// or the holographic style, write `colors` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// A gradient (`{ primary: "#..", secondary: "#.." }`) or `holographic`; needs the
    /// ENHANCED_ROLE_COLORS feature. Instead of `color`, never beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<RoleColors>,
    /// An image beside the role's name, a file like a webhook's `avatar` (PNG, JPEG or GIF,
    /// at most 8 MiB, inside the manifest's folder); needs the ROLE_ICONS feature; `null`
    /// removes it.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["images/moderator.png"]))]
    pub icon: Option<Option<String>>,
    /// Show members with this role separately in the member list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hoist: Option<bool>,
    /// Anyone may @mention this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mentionable: Option<bool>,
    /// A standard emoji shown beside the role (needs the ROLE_ICONS feature); `null` clears it.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub unicode_emoji: Option<Option<String>>,
    /// Never delete this role, whatever `prune` says: nor any other live role this entry names
    /// (by `id`, `name` or `previous_names`), such as a second role of the same name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
    /// The roster: exactly these users hold the role. Members not listed lose it, listed
    /// members who are in the guild get it (a listed user who is not a member is reported).
    /// Left out: who holds the role is not managed. Not on `@everyone` or managed roles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<RosterMember>>,
}

/// One user on a role's roster.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RosterMember {
    /// The user's id.
    pub id: Snowflake,
    /// A comment for readers of the manifest: the plan shows the user by their live username
    /// and id, and warns where this is not their username.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["alice"]))]
    pub name: Option<String>,
}

/// One banned user.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ban {
    /// The user's id (a user who never joined may be banned too).
    pub id: Snowflake,
    /// A comment for readers of the manifest: the plan shows the user by their live username
    /// and id, and warns where this is not their username.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why, at most 512 characters: sent as the audit-log reason of the ban, which Discord
    /// keeps as the ban's reason. A live ban's reason is never changed (that would take an
    /// unban).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["Spam links in #general"]))]
    pub reason: Option<String>,
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

/// A locale Discord knows, for `settings.preferred_locale` (only the schema uses this type).
pub struct Locale;

impl JsonSchema for Locale {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Locale".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::discord::models::{LOCALE_LANGUAGES, LOCALES};
        let locales: Vec<serde_json::Value> = LOCALES
            .iter()
            .zip(LOCALE_LANGUAGES)
            .map(|(code, language)| serde_json::json!({"const": code, "description": language}))
            .collect();
        schemars::json_schema!({
            "description": "A locale Discord accepts (discord-behaviour.md §9.4), written as Discord writes it (`en-US`, not `en-us`).",
            "type": "string",
            "oneOf": locales,
        })
    }
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

/// A channel or a category. Categories hold their channels in `channels`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Channel {
    /// Pin this entry to a channel id. Matching is by id, then name within its parent and
    /// type group, then `previous_names`, then a unique name anywhere (a move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Snowflake>,
    /// Channel name, 1-100 characters. Discord lowercases text-like channel names and turns
    /// spaces into dashes; write them that way to avoid a warning.
    #[schemars(extend("examples" = ["general", "Voice Lounge"]))]
    pub name: String,
    /// Channel type: text (when left out), voice, category, announcement (community guilds),
    /// stage, forum or media. A channel's type is not changed by apply.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<ChannelType>,
    /// Names this channel had before: renamed in place (messages are kept), never recreated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// Topic (text, announcement: at most 1024 characters; forum, media: 4096).
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("examples" = ["Read the rules before posting"]))]
    pub topic: Option<Option<String>>,
    /// Age-restricted: Discord asks members to confirm they are adults before showing it
    /// (text, voice, announcement, stage, forum, media).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw: Option<bool>,
    /// Slowmode: seconds a member waits between messages, 0-21600 (text, voice, stage, forum, media).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = [0, 5, 60]))]
    pub slowmode: Option<u32>,
    /// Voice and stage bitrate in bits per second: 8000 up to 96000 (128000 at boost tier 1,
    /// 256000 at tier 2, 384000 at tier 3); stage channels up to 64000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitrate: Option<u32>,
    /// Voice: at most this many members (0-99, 0 = no limit); stage: up to 10000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_limit: Option<u32>,
    /// Voice region id for voice and stage channels (for example `rotterdam`, `us-east`);
    /// `null` = automatic.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub rtc_region: Option<Option<String>>,
    /// Camera video quality in voice and stage channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_quality_mode: Option<VideoQualityMode>,
    /// Minutes after which new threads archive: 60, 1440, 4320 or 10080.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = [60, 1440, 4320, 10080]))]
    pub default_auto_archive_duration: Option<u32>,
    /// Slowmode copied to new threads (and to new posts of a forum or media channel),
    /// 0-21600 seconds (text, announcement, forum, media).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_thread_slowmode: Option<u32>,
    /// Forum and media channels: the tags a post can carry, in the order Discord shows them
    /// (at most 20, names unique). Authoritative when present: a live tag not listed is
    /// deleted, and posts lose it. Tags are matched to live ones by a pinned `id`, then by
    /// name, then by `previous_names`; a matched tag keeps its id, so posts that carry it
    /// keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<ForumTag>>,
    /// Forum and media channels: the emoji on the reaction button of every post (a standard
    /// emoji as the character, or a custom emoji of the guild by `id`); `null` for none.
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub default_reaction: Option<Option<Emoji>>,
    /// Forum and media channels: how posts are sorted for members who have not chosen:
    /// `latest_activity` or `creation_date`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_order: Option<SortOrder>,
    /// Forum channels only (not media): how posts are shown for members who have not chosen:
    /// `list` or `gallery`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<ForumLayout>,
    /// Forum and media channels: a new post must carry at least one of `tags` (Discord's
    /// REQUIRE_TAG channel flag). Needs at least one tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_tag: Option<bool>,
    /// Permission overwrites. When present the list is authoritative for this channel:
    /// overwrites not listed are removed. Mutually exclusive with `sync_permissions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrites: Option<Vec<Overwrite>>,
    /// Keep this channel's overwrites equal to its category's (Discord's "synced" state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_permissions: Option<bool>,
    /// Channels inside this category (only for `type: category`). List order is channel order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<Channel>>,
    /// Never delete this channel (its messages would be lost), whatever `prune` says: nor any
    /// other live channel this entry names (by `id`, `name` or `previous_names`), such as a
    /// second channel of the same name. A category's protection does not extend to its channels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
}

impl Channel {
    pub fn channel_type(&self) -> ChannelType {
        self.kind.unwrap_or(ChannelType::Text)
    }
}

/// A tag of a forum or media channel. Every field is sent whenever the channel's tags change,
/// so a field left out takes its default.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ForumTag {
    /// Pin this entry to a live tag of the channel by its id (`export` writes it). Matching is
    /// by id, then name, then `previous_names`; a pinned tag the channel no longer has is
    /// matched by name instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Snowflake>,
    /// The tag's name, 1-20 characters, unique among the channel's tags. Tags are matched to
    /// live ones by name (after a pinned `id`).
    #[schemars(extend("examples" = ["bug", "question", "solved"]))]
    pub name: String,
    /// Names this tag had before: a live tag found under one of them is renamed in place and
    /// keeps its id, so the posts that carry it keep it. Without them a renamed tag is a new
    /// tag, and the old one is deleted (from its posts too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// An emoji shown with the tag: a standard one as the character (`"🐛"`), or a custom one
    /// of the guild by `id` (Discord keeps only the id of a custom tag emoji).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<Emoji>,
    /// Only members with `manage_threads` may put this tag on a post (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moderated: bool,
}

/// A permission overwrite for one role or one member.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Overwrite {
    /// The role this overwrite is for, by name or id (`@everyone` for the default role); one
    /// overwrite per role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The member this overwrite is for, by user id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<Snowflake>,
    /// Permissions granted in this channel, by snake_case name. A permission in neither list
    /// is inherited from the member's roles.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub allow: Vec<PermissionName>,
    /// Permissions taken away in this channel, by snake_case name. A permission cannot be in
    /// both `allow` and `deny`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub deny: Vec<PermissionName>,
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
}

impl Prune {
    fn is_default(&self) -> bool {
        *self == Prune::default()
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

// The ways into the guild: the applications allowed in it and the invites that may
// exist (docs/manifest.md, "Integrations, invites and lockdown").

/// An application (bot or app) allowed in the guild.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AllowedIntegration {
    /// The application's id (in the Developer Portal, or drift's report).
    #[schemars(extend("examples" = ["1234567890123456789"]))]
    pub application: Snowflake,
    /// A name for people reading the manifest; not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = ["GitHub"]))]
    pub name: Option<String>,
}

/// Which invites may exist. An invite may exist when its code is listed, or when it
/// matches one of the rules (every condition the rule sets). Left out: not managed.
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vanity: Option<String>,
}

/// Conditions on an invite; an invite matches the rule when it meets every one set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InviteRule {
    /// Only invites that expire (`true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<bool>,
    /// Only invites that expire within this many seconds of their creation (1-604800).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<u32>,
    /// Only invites limited to at most this many uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// Only invites into these channels, by name, `Category/name` or id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<String>>,
}

/// A rule about access: its `name` and exactly one of `never`, `only` and `holders`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// What the plan and drift call the policy when it is broken; unique among the
    /// manifest's, its bases' and the workspace file's.
    #[schemars(extend("examples" = ["staff-stays-private", "few-admins"]))]
    pub name: String,
    /// Nobody in `who` has any of `can` (in the channels of `where`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub never: Option<NeverRule>,
    /// No role outside `who` holds any of `can` (guild-wide, or in the channels of `where`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<OnlyRule>,
    /// The number of members holding `role` stays between `min` and `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holders: Option<HoldersRule>,
}

/// `never`'s `who` for every role and every member a member overwrite names.
pub const ANYONE: &str = "anyone";

/// `never`: nobody in `who` has these permissions.
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
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "Option::is_none",
        serialize_with = "flow_opt"
    )]
    #[schemars(extend("examples" = [["Staff/*"]]))]
    pub places: Option<Vec<String>>,
}

/// `only`: no role outside `who` holds these permissions.
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
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "Option::is_none",
        serialize_with = "flow_opt"
    )]
    pub places: Option<Vec<String>>,
}

/// `holders`: how many members may hold a role.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HoldersRule {
    /// The role, by name.
    #[schemars(extend("examples" = ["Moderator"]))]
    pub role: String,
    /// At least this many members (the role's roster when it has one, else the live count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u32>,
    /// At most this many members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
}
