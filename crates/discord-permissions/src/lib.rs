//! Discord permission bits and their snake_case names.
//!
//! Values are 64-bit bit sets that travel as decimal strings. Bits without a
//! name here are kept as they are, so a round trip never drops a permission
//! Discord added after this table was written.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Every documented permission, by bit number (discord-behaviour.md §3.5).
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

/// A permission bit set. Serialised as Discord does: a decimal string.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permissions(pub u64);

impl Permissions {
    pub const NONE: Permissions = Permissions(0);
    pub const ALL: Permissions = Permissions(u64::MAX);
    pub const ADMINISTRATOR: Permissions = Permissions(1 << 3);
    pub const MANAGE_CHANNELS: Permissions = Permissions(1 << 4);
    pub const MANAGE_GUILD: Permissions = Permissions(1 << 5);
    pub const VIEW_AUDIT_LOG: Permissions = Permissions(1 << 7);
    pub const VIEW_CHANNEL: Permissions = Permissions(1 << 10);
    pub const SEND_MESSAGES: Permissions = Permissions(1 << 11);
    pub const MANAGE_ROLES: Permissions = Permissions(1 << 28);
    pub const MANAGE_WEBHOOKS: Permissions = Permissions(1 << 29);

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
        // discord-behaviour.md §3.5: OR of all documented bits = 8866461766385663.
        assert_eq!(Permissions::known_mask(), 8866461766385663);
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
