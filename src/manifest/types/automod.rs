//! `automod:`: AutoMod rules by name (Discord's resources/auto-moderation).

use super::*;

/// An AutoMod rule. Matched to a live rule by `id`, then `name`, then `previous_names`,
/// then (for the trigger types a guild holds one of) by its trigger type, so the
/// mention-spam rule Discord makes for a community guild is taken over, not duplicated.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AutoModRule {
    /// Pin this entry to a rule id.
    pub id: Option<Snowflake>,
    /// The rule's name, 1-100 characters.
    #[schemars(extend("examples" = ["No invite links"]))]
    pub name: String,
    /// Names this rule had before: renamed in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// What the rule looks for. Its kind (keywords and regex, preset lists, mention limit,
    /// spam, member profile) cannot change in place: a rule of another kind is deleted and
    /// created anew, which the plan says and the deletion gate counts.
    pub trigger: AutoModTrigger,
    /// When the rule runs: `message_send` (the default), or `member_update` for a
    /// `member_profile` rule (its only event; written or not).
    pub event: Option<AutoModEvent>,
    /// What the rule does, 1 to 5 actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<AutoModAction>,
    /// Roles the rule does not apply to, by name (at most 20).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub exempt_roles: Vec<String>,
    /// Channels the rule does not apply to, by name, `Category/name` or id (at most 50).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub exempt_channels: Vec<String>,
    /// Whether the rule runs. Default `true`: a rule declared is meant to run.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A rule's trigger: one of keywords and regex (`keywords`, `regex`, `allow`), `preset`
/// (with `allow`), `mention_limit` (with `raid_protection`), `spam: true`, or
/// `member_profile: true` (with `keywords`, `regex`, `allow`).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AutoModTrigger {
    /// Words and phrases to match (at most 1000, each 1-60 characters; `*` is a wildcard).
    #[serde(serialize_with = "flow_opt")]
    #[schemars(extend("examples" = [["discord.gg/*"]]))]
    pub keywords: Option<Vec<String>>,
    /// Rust-flavoured regular expressions (at most 10, each 1-260 characters).
    #[serde(serialize_with = "flow_opt")]
    pub regex: Option<Vec<String>>,
    /// Words that never trigger the rule (at most 100, or 1000 for a `preset` rule; each
    /// 1-60 characters).
    #[serde(serialize_with = "flow_opt")]
    pub allow: Option<Vec<String>>,
    /// Discord's word lists.
    #[serde(serialize_with = "flow_opt")]
    pub preset: Option<Vec<AutoModPreset>>,
    /// Mentions (users and roles, each once) a message may hold, 0-50.
    pub mention_limit: Option<u32>,
    /// Detect mention raids (with `mention_limit`).
    pub raid_protection: Option<bool>,
    /// `true`: Discord's spam filter.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spam: bool,
    /// `true`: match `keywords`, `regex` and `allow` against member profiles.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub member_profile: bool,
}

named_enum! {
    /// Discord's trigger types.
    AutoModTriggerType {
        /// Keywords and regular expressions in messages.
        Keyword = 1 => "keywords",
        /// Discord's spam filter.
        Spam = 3 => "spam",
        /// Discord's word lists.
        Preset = 4 => "preset",
        /// Too many mentions in a message.
        MentionSpam = 5 => "mention_limit",
        /// Keywords and regular expressions in member profiles.
        MemberProfile = 6 => "member_profile",
    }
}

impl AutoModTriggerType {
    /// How many rules of the type a guild may hold.
    pub fn max_per_guild(self) -> usize {
        if self == AutoModTriggerType::Keyword {
            6
        } else {
            1
        }
    }

    /// The only event its rules run on.
    pub fn event(self) -> AutoModEvent {
        if self == AutoModTriggerType::MemberProfile {
            AutoModEvent::MemberUpdate
        } else {
            AutoModEvent::MessageSend
        }
    }
}

impl AutoModTrigger {
    /// The trigger type the fields written say, or what is wrong with them.
    pub fn kind(&self) -> Result<AutoModTriggerType, String> {
        use AutoModTriggerType as T;
        let words = self.keywords.is_some() || self.regex.is_some();
        let mut kinds = Vec::new();
        if self.member_profile {
            kinds.push(T::MemberProfile);
        } else if words {
            kinds.push(T::Keyword);
        }
        if self.preset.is_some() {
            kinds.push(T::Preset);
        }
        if self.mention_limit.is_some() || self.raid_protection.is_some() {
            kinds.push(T::MentionSpam);
        }
        if self.spam {
            kinds.push(T::Spam);
        }
        match kinds.as_slice() {
            [] => Err("the trigger says nothing to match: write `keywords`, `regex`, `preset`, `mention_limit`, `spam: true` or `member_profile: true`".into()),
            [one] => Ok(*one),
            many => Err(format!(
                "the trigger mixes kinds ({}); a rule has one",
                many.iter().map(|k| format!("`{}`", k.name())).collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

named_enum! {
    /// Discord's keyword preset lists.
    AutoModPreset {
        /// Swearing and cursing.
        Profanity = 1 => "profanity",
        /// Sexually explicit words and phrases.
        SexualContent = 2 => "sexual_content",
        /// Personal insults and hate speech.
        Slurs = 3 => "slurs",
    }
}

named_enum! {
    /// When a rule runs.
    AutoModEvent {
        /// When a member sends or edits a message.
        MessageSend = 1 => "message_send",
        /// When a member joins or edits their profile.
        MemberUpdate = 2 => "member_update",
    }
}

/// One action of a rule: `block: {message}`, `alert: CHANNEL`, `timeout: SECONDS` or
/// `block_member_interaction`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AutoModAction {
    /// Block the message, optionally telling its author why (at most 150 characters).
    Block(
        /// `{message}`, or `{}` for Discord's own notice.
        AutoModBlock,
    ),
    /// Post an alert in this text or announcement channel (by name, `Category/name` or id).
    Alert(
        /// The channel alerts go to.
        String,
    ),
    /// Time the member out for this many seconds (at most 4 weeks, 2419200; keyword and
    /// mention rules only; the bot needs `moderate_members`).
    Timeout(
        /// Seconds, at most 2419200.
        u32,
    ),
    /// Keep the member from interacting until they fix their profile (member-profile
    /// rules only).
    BlockMemberInteraction,
}

/// `block:`'s settings.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AutoModBlock {
    /// Shown to the member whose message is blocked.
    pub message: Option<String>,
}
