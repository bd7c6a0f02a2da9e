//! Discord permission bits and their snake_case names.
//!
//! Values are 64-bit bit sets that travel as decimal strings. Bits without a
//! name here are kept as they are, so a round trip never drops a permission
//! Discord added after this table was written.

#![forbid(unsafe_code)]

use std::fmt;

pub mod aliases;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Every documented permission, by bit number (docs/discord.md §3.5).
pub const NAMED: &[(&str, u32)] = &[
    ("create_instant_invite", 0),
    ("kick_members", 1),
    ("ban_members", 2),
    ("administrator", 3),
    ("manage_channels", 4),
    ("manage_guild", 5),
    ("add_reactions", 6),
    ("view_audit_log", 7),
    ("priority_speaker", 8),
    ("stream", 9),
    ("view_channel", 10),
    ("send_messages", 11),
    ("send_tts_messages", 12),
    ("manage_messages", 13),
    ("embed_links", 14),
    ("attach_files", 15),
    ("read_message_history", 16),
    ("mention_everyone", 17),
    ("use_external_emojis", 18),
    ("view_guild_insights", 19),
    ("connect", 20),
    ("speak", 21),
    ("mute_members", 22),
    ("deafen_members", 23),
    ("move_members", 24),
    ("use_vad", 25),
    ("change_nickname", 26),
    ("manage_nicknames", 27),
    ("manage_roles", 28),
    ("manage_webhooks", 29),
    ("manage_guild_expressions", 30),
    ("use_application_commands", 31),
    ("request_to_speak", 32),
    ("manage_events", 33),
    ("manage_threads", 34),
    ("create_public_threads", 35),
    ("create_private_threads", 36),
    ("use_external_stickers", 37),
    ("send_messages_in_threads", 38),
    ("use_embedded_activities", 39),
    ("moderate_members", 40),
    ("view_creator_monetization_analytics", 41),
    ("use_soundboard", 42),
    ("create_guild_expressions", 43),
    ("create_events", 44),
    ("use_external_sounds", 45),
    ("send_voice_messages", 46),
    ("set_voice_channel_status", 48),
    ("send_polls", 49),
    ("use_external_apps", 50),
    ("pin_messages", 51),
    ("bypass_slowmode", 52),
];

/// Permissions that let a holder take the guild over, expel, silence or mass-ping its
/// members: administrator, every `manage_*` permission, ban, kick, timeout
/// (`moderate_members`) and `mention_everyone`. guildctl's one definition of "dangerous":
/// a plan that grants one is a risk shown first, and drift ranks a role or overwrite
/// holding one beyond the manifest as high risk.
pub const DANGEROUS: &[&str] = &[
    "administrator",
    "manage_guild",
    "manage_roles",
    "manage_channels",
    "manage_webhooks",
    "manage_messages",
    "manage_threads",
    "manage_nicknames",
    "manage_guild_expressions",
    "manage_events",
    "ban_members",
    "kick_members",
    "moderate_members",
    "mention_everyone",
];

/// The channel types a permission means something in, as Discord's permission table
/// gives them (its "Channel Type" column: **T**ext — text, announcement, forum and media
/// channels —, **V**oice, **S**tage); a permission in none of them is guild-wide only.
/// docs/discord.md §3.5 and Discord's `topics/permissions`, "Bitwise Permission Flags".
pub const CHANNEL_TYPES: &[(&str, &str)] = &[
    ("create_instant_invite", "TVS"),
    ("manage_channels", "TVS"),
    ("add_reactions", "TVS"),
    ("priority_speaker", "V"),
    ("stream", "VS"),
    ("view_channel", "TVS"),
    ("send_messages", "TVS"),
    ("send_tts_messages", "TVS"),
    ("manage_messages", "TVS"),
    ("embed_links", "TVS"),
    ("attach_files", "TVS"),
    ("read_message_history", "TVS"),
    ("mention_everyone", "TVS"),
    ("use_external_emojis", "TVS"),
    ("connect", "VS"),
    ("speak", "V"),
    ("mute_members", "VS"),
    ("deafen_members", "V"),
    ("move_members", "VS"),
    ("use_vad", "V"),
    ("manage_roles", "TVS"),
    ("manage_webhooks", "TVS"),
    ("use_application_commands", "TVS"),
    ("request_to_speak", "S"),
    ("manage_events", "VS"),
    ("manage_threads", "T"),
    ("create_public_threads", "T"),
    ("create_private_threads", "T"),
    ("use_external_stickers", "TVS"),
    ("send_messages_in_threads", "T"),
    ("use_embedded_activities", "TV"),
    ("use_soundboard", "V"),
    ("create_events", "VS"),
    ("use_external_sounds", "V"),
    ("send_voice_messages", "TVS"),
    ("set_voice_channel_status", "V"),
    ("send_polls", "TVS"),
    ("use_external_apps", "TVS"),
    ("pin_messages", "T"),
    ("bypass_slowmode", "TVS"),
];

/// The kinds of channel of Discord's permission table (see [`CHANNEL_TYPES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// Text, announcement, forum and media channels.
    Text,
    Voice,
    Stage,
}

impl ChannelKind {
    fn letter(self) -> char {
        match self {
            ChannelKind::Text => 'T',
            ChannelKind::Voice => 'V',
            ChannelKind::Stage => 'S',
        }
    }
}

/// What each permission of [`NAMED`] allows, in the same order (after Discord's permission
/// table), for the JSON schema that editors show.
pub const DESCRIPTIONS: &[(&str, &str)] = &[
    ("create_instant_invite", "Create invites."),
    ("kick_members", "Kick members."),
    ("ban_members", "Ban members."),
    (
        "administrator",
        "Every permission, bypassing channel overwrites.",
    ),
    ("manage_channels", "Create, edit and delete channels."),
    ("manage_guild", "Edit the guild's settings."),
    ("add_reactions", "Add new reactions to messages."),
    ("view_audit_log", "Read the audit log."),
    (
        "priority_speaker",
        "Use priority speaker in a voice channel.",
    ),
    ("stream", "Go live (stream video) in a voice channel."),
    (
        "view_channel",
        "See a channel: read its messages, join it if it is voice.",
    ),
    (
        "send_messages",
        "Send messages in a channel, and create posts in a forum or media channel.",
    ),
    ("send_tts_messages", "Send text-to-speech (/tts) messages."),
    ("manage_messages", "Delete other members' messages."),
    ("embed_links", "Links the member sends show a preview."),
    ("attach_files", "Upload files and images."),
    ("read_message_history", "Read a channel's earlier messages."),
    (
        "mention_everyone",
        "Mention @everyone, @here and every role, even those not mentionable.",
    ),
    ("use_external_emojis", "Use custom emoji from other guilds."),
    ("view_guild_insights", "See the guild's insights."),
    ("connect", "Join a voice channel."),
    ("speak", "Speak in a voice channel."),
    ("mute_members", "Mute members in voice channels."),
    ("deafen_members", "Deafen members in voice channels."),
    ("move_members", "Move members between voice channels."),
    ("use_vad", "Speak by voice activity (without push-to-talk)."),
    ("change_nickname", "Change one's own nickname."),
    ("manage_nicknames", "Change other members' nicknames."),
    (
        "manage_roles",
        "Create, edit and delete roles below one's highest, and edit channel overwrites.",
    ),
    ("manage_webhooks", "Create, edit and delete webhooks."),
    (
        "manage_guild_expressions",
        "Edit and delete emoji, stickers and soundboard sounds created by anyone.",
    ),
    (
        "use_application_commands",
        "Use apps' commands (slash and context-menu commands).",
    ),
    ("request_to_speak", "Ask to speak in a stage channel."),
    (
        "manage_events",
        "Edit and delete scheduled events created by anyone.",
    ),
    (
        "manage_threads",
        "Delete and archive threads and posts, and see every private thread.",
    ),
    (
        "create_public_threads",
        "Create public and announcement threads.",
    ),
    ("create_private_threads", "Create private threads."),
    (
        "use_external_stickers",
        "Use custom stickers from other guilds.",
    ),
    (
        "send_messages_in_threads",
        "Send messages in threads and posts.",
    ),
    (
        "use_embedded_activities",
        "Start Activities in voice channels.",
    ),
    (
        "moderate_members",
        "Time members out (they cannot send, react or speak meanwhile).",
    ),
    (
        "view_creator_monetization_analytics",
        "See role subscription insights.",
    ),
    ("use_soundboard", "Use the soundboard in a voice channel."),
    (
        "create_guild_expressions",
        "Create emoji, stickers and soundboard sounds, and edit or delete one's own.",
    ),
    (
        "create_events",
        "Create scheduled events, and edit or delete one's own.",
    ),
    (
        "use_external_sounds",
        "Use soundboard sounds from other guilds.",
    ),
    ("send_voice_messages", "Send voice messages."),
    ("set_voice_channel_status", "Set a voice channel's status."),
    ("send_polls", "Send polls."),
    (
        "use_external_apps",
        "Let apps the member installed reply for everyone to see (else only the member sees).",
    ),
    ("pin_messages", "Pin and unpin messages."),
    ("bypass_slowmode", "Send without waiting for slowmode."),
];

/// What the permission called `name` allows, if it has a name.
pub fn description(name: &str) -> Option<&'static str> {
    DESCRIPTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| *d)
}

/// A permission bit set. Serialised as Discord does: a decimal string.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permissions(pub u64);

impl Permissions {
    pub const NONE: Permissions = Permissions(0);
    pub const ALL: Permissions = Permissions(u64::MAX);
    pub const KICK_MEMBERS: Permissions = Permissions(1 << 1);
    pub const ADMINISTRATOR: Permissions = Permissions(1 << 3);
    pub const MANAGE_CHANNELS: Permissions = Permissions(1 << 4);
    pub const MANAGE_GUILD: Permissions = Permissions(1 << 5);
    pub const VIEW_AUDIT_LOG: Permissions = Permissions(1 << 7);
    pub const VIEW_CHANNEL: Permissions = Permissions(1 << 10);
    pub const SEND_MESSAGES: Permissions = Permissions(1 << 11);
    pub const SEND_TTS_MESSAGES: Permissions = Permissions(1 << 12);
    pub const MANAGE_MESSAGES: Permissions = Permissions(1 << 13);
    pub const EMBED_LINKS: Permissions = Permissions(1 << 14);
    pub const ATTACH_FILES: Permissions = Permissions(1 << 15);
    pub const MENTION_EVERYONE: Permissions = Permissions(1 << 17);
    pub const CONNECT: Permissions = Permissions(1 << 20);
    pub const MANAGE_THREADS: Permissions = Permissions(1 << 34);
    pub const BAN_MEMBERS: Permissions = Permissions(1 << 2);
    pub const MANAGE_ROLES: Permissions = Permissions(1 << 28);
    pub const MANAGE_WEBHOOKS: Permissions = Permissions(1 << 29);
    /// Edit and delete anyone's emoji, stickers and soundboard sounds.
    pub const MANAGE_GUILD_EXPRESSIONS: Permissions = Permissions(1 << 30);
    /// Edit and delete anyone's scheduled events.
    pub const MANAGE_EVENTS: Permissions = Permissions(1 << 33);
    /// Create expressions, and edit or delete one's own: what a bot needs to create one
    /// since 2026-02-23, when MANAGE_GUILD_EXPRESSIONS alone stopped sufficing.
    pub const CREATE_GUILD_EXPRESSIONS: Permissions = Permissions(1 << 43);
    /// Create scheduled events, and edit or delete one's own (split from MANAGE_EVENTS
    /// on the same date).
    pub const CREATE_EVENTS: Permissions = Permissions(1 << 44);
    /// Time members out (an AutoMod rule with a timeout action needs it).
    pub const MODERATE_MEMBERS: Permissions = Permissions(1 << 40);

    /// The union of every bit that has a name.
    pub fn known_mask() -> u64 {
        NAMED.iter().fold(0, |acc, (_, bit)| acc | (1u64 << bit))
    }

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn contains(self, other: Permissions) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The bit for one name, if the name is known.
    pub fn from_name(name: &str) -> Option<Permissions> {
        NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, bit)| Permissions(1u64 << bit))
    }

    /// Names of the named bits that are set, in bit order.
    pub fn names(self) -> Vec<&'static str> {
        NAMED
            .iter()
            .filter(|(_, bit)| self.0 & (1u64 << bit) != 0)
            .map(|(n, _)| *n)
            .collect()
    }

    /// The set bits that have no name.
    pub fn unnamed(self) -> Permissions {
        Permissions(self.0 & !Self::known_mask())
    }

    /// Names for display: known names, then `bit_N` for any unnamed bit.
    pub fn display_names(self) -> Vec<String> {
        let mut out: Vec<String> = self.names().into_iter().map(str::to_owned).collect();
        let unnamed = self.unnamed().0;
        out.extend(
            (0..64)
                .filter(|b| unnamed & (1u64 << b) != 0)
                .map(|b| format!("bit_{b}")),
        );
        out
    }

    /// The permissions that mean something in a channel of `kind` ([`CHANNEL_TYPES`]).
    pub fn in_channel_kind(kind: ChannelKind) -> Permissions {
        CHANNEL_TYPES
            .iter()
            .filter(|(_, kinds)| kinds.contains(kind.letter()))
            .filter_map(|(n, _)| Permissions::from_name(n))
            .fold(Permissions::NONE, |a, b| a | b)
    }

    /// The permissions that mean something in some kind of channel: what a channel's
    /// overwrites can change, and what a category passes to its channels.
    pub fn in_any_channel() -> Permissions {
        CHANNEL_TYPES
            .iter()
            .filter_map(|(n, _)| Permissions::from_name(n))
            .fold(Permissions::NONE, |a, b| a | b)
    }

    /// The bits of [`DANGEROUS`].
    pub fn dangerous_mask() -> Permissions {
        DANGEROUS
            .iter()
            .filter_map(|n| Permissions::from_name(n))
            .fold(Permissions::NONE, |a, b| a | b)
    }

    /// The dangerous permissions this set holds, by name: `administrator` alone when it
    /// is set (it implies every other), else those of [`DANGEROUS`] in bit order.
    pub fn dangerous_names(self) -> Vec<&'static str> {
        if self.contains(Permissions::ADMINISTRATOR) {
            return vec!["administrator"];
        }
        (self & Permissions::dangerous_mask()).names()
    }

    /// Parses a name, or `bit_N` for a bit guildctl has no name for.
    pub fn parse_name(name: &str) -> Option<Permissions> {
        if let Some(n) = name.strip_prefix("bit_") {
            return n
                .parse::<u32>()
                .ok()
                .filter(|b| *b < 64)
                .map(|b| Permissions(1u64 << b));
        }
        Self::from_name(name)
    }
}

impl std::ops::BitOr for Permissions {
    type Output = Permissions;
    fn bitor(self, rhs: Self) -> Self {
        Permissions(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Permissions {
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}

impl std::ops::BitAnd for Permissions {
    type Output = Permissions;
    fn bitand(self, rhs: Self) -> Self {
        Permissions(self.0 & rhs.0)
    }
}

impl std::ops::Not for Permissions {
    type Output = Permissions;
    fn not(self) -> Self {
        Permissions(!self.0)
    }
}

impl fmt::Debug for Permissions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Permissions({})", self.display_names().join("|"))
    }
}

impl fmt::Display for Permissions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Permissions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for Permissions {
    /// Accepts a decimal string or an integer, as Discord does.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Str(String),
            Num(u64),
        }
        match Raw::deserialize(d)? {
            Raw::Num(n) => Ok(Permissions(n)),
            Raw::Str(s) => s.trim().parse::<u64>().map(Permissions).map_err(|_| {
                serde::de::Error::custom(format!("Value \"{s}\" is not a permission bit set."))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_bits_or_to_the_reference_total() {
        // docs/discord.md §3.5: OR of all documented bits = 8866461766385663.
        assert_eq!(Permissions::known_mask(), 8866461766385663);
    }

    #[test]
    fn every_name_has_a_description_in_the_same_order() {
        let names: Vec<&str> = NAMED.iter().map(|(n, _)| *n).collect();
        let described: Vec<&str> = DESCRIPTIONS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, described);
        assert!(DESCRIPTIONS.iter().all(|(_, d)| d.ends_with('.')));
    }

    #[test]
    fn every_manage_permission_is_dangerous_and_administrator_says_it_all() {
        for (name, _) in NAMED.iter().filter(|(n, _)| n.starts_with("manage_")) {
            assert!(DANGEROUS.contains(name), "{name}");
        }
        assert!(
            DANGEROUS
                .iter()
                .all(|n| Permissions::from_name(n).is_some())
        );
        let kick_and_send = Permissions((1 << 1) | (1 << 11));
        assert_eq!(kick_and_send.dangerous_names(), vec!["kick_members"]);
        assert_eq!(Permissions::ALL.dangerous_names(), vec!["administrator"]);
        assert!(Permissions(1 << 11).dangerous_names().is_empty());
    }

    #[test]
    fn channel_types_name_known_permissions_in_bit_order() {
        let bit = |n: &str| NAMED.iter().find(|(m, _)| *m == n).map(|(_, b)| *b);
        let bits: Vec<u32> = CHANNEL_TYPES.iter().map(|(n, _)| bit(n).unwrap()).collect();
        assert!(bits.windows(2).all(|w| w[0] < w[1]), "{bits:?}");
        assert!(
            CHANNEL_TYPES
                .iter()
                .all(|(_, k)| !k.is_empty() && k.chars().all(|c| "TVS".contains(c)))
        );
        // Guild-wide only: kicking, banning, administrator, the audit log.
        let channel = Permissions::in_any_channel();
        for guild_wide in [
            "kick_members",
            "ban_members",
            "administrator",
            "view_audit_log",
            "manage_guild",
        ] {
            assert!(
                !channel.contains(Permissions::from_name(guild_wide).unwrap()),
                "{guild_wide}"
            );
        }
        let text = Permissions::in_channel_kind(ChannelKind::Text);
        let voice = Permissions::in_channel_kind(ChannelKind::Voice);
        let speak = Permissions::from_name("speak").unwrap();
        let threads = Permissions::from_name("send_messages_in_threads").unwrap();
        assert!(!text.contains(speak) && voice.contains(speak));
        assert!(text.contains(threads) && !voice.contains(threads));
        // Voice and stage channels have a text chat: Discord lists send_messages for them.
        assert!(voice.contains(Permissions::SEND_MESSAGES));
    }

    #[test]
    fn constants_are_the_bits_of_their_names() {
        for (c, name) in [
            (
                Permissions::MANAGE_GUILD_EXPRESSIONS,
                "manage_guild_expressions",
            ),
            (Permissions::MANAGE_EVENTS, "manage_events"),
            (
                Permissions::CREATE_GUILD_EXPRESSIONS,
                "create_guild_expressions",
            ),
            (Permissions::CREATE_EVENTS, "create_events"),
            (Permissions::MANAGE_WEBHOOKS, "manage_webhooks"),
        ] {
            assert_eq!(Permissions::from_name(name), Some(c), "{name}");
        }
    }

    #[test]
    fn unnamed_bits_survive_display_and_parse() {
        let p = Permissions((1 << 11) | (1 << 53));
        assert_eq!(p.display_names(), vec!["send_messages", "bit_53"]);
        let back = p
            .display_names()
            .iter()
            .map(|n| Permissions::parse_name(n).unwrap())
            .fold(Permissions::NONE, |a, b| a | b);
        assert_eq!(back, p);
    }

    #[test]
    fn serde_uses_decimal_strings_and_accepts_numbers() {
        let p: Permissions = serde_json::from_str("\"2048\"").unwrap();
        assert_eq!(p.0, 2048);
        let q: Permissions = serde_json::from_str("2048").unwrap();
        assert_eq!(p, q);
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"2048\"");
        assert!(serde_json::from_str::<Permissions>("\"1.5\"").is_err());
    }
}
