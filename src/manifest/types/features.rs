//! `welcome_screen:`, `onboarding:` and `widget:`, and the emoji they show.

use super::*;

/// The welcome screen new members of a community guild see.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WelcomeScreen {
    /// Show the welcome screen (Discord records this as the WELCOME_SCREEN_ENABLED feature).
    pub enabled: Option<bool>,
    /// The server description shown on the screen, at most 140 characters; `null` clears it.
    #[serde(default, deserialize_with = "double_option")]
    pub description: Option<Option<String>>,
    /// Up to 5 recommended channels, in order. Authoritative when present.
    pub channels: Option<Vec<WelcomeChannel>>,
}

/// A channel recommended on the welcome screen.
#[skip_serializing_none]
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
#[skip_serializing_none]
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CustomEmoji {
    /// The emoji's id (with Developer Mode on: right-click the emoji, Copy ID).
    pub id: Snowflake,
    /// The emoji's name, 2-32 letters, digits or underscores, without colons.
    pub name: Option<String>,
    /// Whether it is animated (a GIF emoji).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub animated: bool,
}

/// Onboarding: what new members are asked and which channels they see first.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Onboarding {
    /// Turn onboarding on. Discord requires at least 7 default channels, at least 5 of them
    /// where @everyone can send messages (counted per `mode`).
    pub enabled: Option<bool>,
    /// `default`: only default channels count toward the requirements; `advanced`: channels
    /// offered by questions count too.
    pub mode: Option<OnboardingMode>,
    /// Channels every new member sees, by name, as `Category/name` or by id (at most 500),
    /// each once.
    /// Authoritative when present.
    pub default_channels: Option<Vec<String>>,
    /// Questions, in order (at most 15), matched to live ones by title. Authoritative when present.
    pub prompts: Option<Vec<Prompt>>,
}

named_enum!(
    /// Onboarding mode.
    OnboardingMode {
        /// Only default channels count toward Discord's requirements.
        Default = 0 => "default",
        /// Default channels and channels offered by questions count.
        Advanced = 1 => "advanced",
    }
);

/// An onboarding question.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// The question, 1-100 characters. Prompts are matched to live ones by title.
    #[schemars(extend("examples" = ["What brings you here?"]))]
    pub title: String,
    /// `multiple_choice` (the default) or `dropdown`.
    #[serde(rename = "type")]
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

named_enum!(
    /// How an onboarding question is shown.
    PromptType {
        /// The answers are shown as buttons (the default).
        MultipleChoice = 0 => "multiple_choice",
        /// The answers are in a drop-down list.
        Dropdown = 1 => "dropdown",
    }
);

fn yes() -> bool {
    true
}

/// An answer to an onboarding question.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptOption {
    /// The answer, 1-50 characters.
    pub title: String,
    /// A longer explanation, at most 100 characters.
    pub description: Option<String>,
    /// An emoji shown beside the answer.
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
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Widget {
    /// Turn the widget on: anyone may then read the guild's name, online member count and
    /// invite (through widget.json and the embeddable widget).
    pub enabled: Option<bool>,
    /// The channel the widget's invite leads to, by name, `Category/name` or id; `null` for no
    /// invite.
    #[serde(default, deserialize_with = "double_option")]
    pub channel: Option<Option<String>>,
}
