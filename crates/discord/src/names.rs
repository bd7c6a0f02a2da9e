//! Names as Discord stores them, which is not always as they were sent
//! (docs/discord.md §4.2, §9.2). The planner compares what Discord stores, so
//! an apply followed by a plan is empty and nothing is created twice.
//!
//! The emulator has its own copy of these rules, written from the same reference:
//! where the two disagree, the tests see it.

use std::borrow::Cow;

/// The name Discord shows the guild's base role under (its id is the guild's).
pub const EVERYONE: &str = "@everyone";

use super::models::channel_type;

/// Whether Discord rewrites names of channels of this type.
pub fn is_normalised_type(kind: u8) -> bool {
    matches!(
        kind,
        channel_type::TEXT | channel_type::ANNOUNCEMENT | channel_type::FORUM | channel_type::MEDIA
    )
}

/// The name Discord stores for a channel of type `kind` created as `name`:
/// text-like names are lowercased, whitespace runs become `-`, ASCII punctuation
/// other than `-` and `_` is dropped, dashes collapse and are trimmed. Non-ASCII
/// characters (accents, emoji) are kept. Other types keep case and punctuation
/// and lose surrounding and repeated whitespace, as every display name does.
pub fn stored_channel_name(kind: u8, name: &str) -> Cow<'_, str> {
    if !is_normalised_type(kind) {
        return stored_display_name(name);
    }
    // Most names are already stored so (every live one): kept as they are, without the
    // per-character lowering below.
    let b = name.as_bytes();
    let already = b
        .iter()
        .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
        && b.first() != Some(&b'-')
        && b.last() != Some(&b'-')
        && !name.contains("--");
    if already {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        let mapped = if c.is_whitespace() {
            Some('-')
        } else if (c.is_ascii_punctuation() && c != '-' && c != '_') || c.is_control() {
            None
        } else {
            Some(c)
        };
        if let Some(m) = mapped
            && !(m == '-' && out.ends_with('-'))
        {
            out.push(m);
        }
    }
    Cow::Owned(out.trim_matches('-').to_owned())
}

/// Whether a channel of type `kind` called `name` answers to the (unqualified) name
/// `wanted` in a manifest's reference: text-like channels compare in the form Discord
/// stores (`General Chat` = `general-chat`), other channels and categories by their
/// names with whitespace collapsed (a live `Mod  Team` answers to `Mod Team`).
pub fn channel_answers_to(kind: u8, name: &str, wanted: &str) -> bool {
    stored_channel_name(kind, name) == stored_channel_name(kind, wanted)
}

/// The key a role, webhook, voice or category name is matched by, and the form
/// guildctl sends: trimmed, every run of whitespace inside becoming one space.
/// Discord stores nicknames and webhook names so (§9.2); roles, categories and voice
/// channels may keep inner runs (`Mod  Team` in Discord's own templates), so live names
/// are reduced to this key before they are compared, and names that differ only in
/// whitespace are one name (docs/decisions.md).
pub fn stored_display_name(name: &str) -> Cow<'_, str> {
    // Already reduced (the common case): no whitespace but single inner spaces.
    let already = !name.chars().any(|c| c.is_whitespace() && c != ' ')
        && !name.contains("  ")
        && !name.starts_with(' ')
        && !name.ends_with(' ');
    if already {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    for word in name.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Cow::Owned(out)
}

/// The guild's name as Discord stores it: without leading and trailing whitespace (the
/// reference's Guild object: "2-100 characters, leading and trailing whitespace excluded");
/// its inner whitespace is kept as sent. The 2-100 limit applies to this form.
pub fn stored_guild_name(name: &str) -> Cow<'_, str> {
    let trimmed = name.trim();
    if trimmed.len() == name.len() {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(trimmed.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_are_rewritten_like_discord() {
        assert_eq!(
            stored_channel_name(0, "Joey's Cool Channel"),
            "joeys-cool-channel"
        );
        assert_eq!(stored_channel_name(0, "  a -- b  "), "a-b");
        assert_eq!(stored_channel_name(5, "📜 Rules!"), "📜-rules");
        assert_eq!(stored_channel_name(15, "Help_Desk"), "help_desk");
        assert_eq!(stored_channel_name(15, "Q&A -- Help!"), "qa-help");
        assert_eq!(stored_channel_name(0, "Ça Va"), "ça-va");
        assert_eq!(stored_channel_name(0, "tab\u{7}bell"), "tabbell");
    }

    #[test]
    fn voice_and_category_names_are_kept() {
        assert_eq!(stored_channel_name(2, "Lounge Room"), "Lounge Room");
        assert_eq!(stored_channel_name(4, "Staff Only!"), "Staff Only!");
        assert_eq!(stored_channel_name(2, " Lounge \t Room "), "Lounge Room");
    }

    #[test]
    fn the_guild_name_loses_surrounding_whitespace_only() {
        assert_eq!(stored_guild_name("  Ferris Fans  "), "Ferris Fans");
        assert_eq!(stored_guild_name("Ferris  Fans"), "Ferris  Fans");
        assert_eq!(stored_guild_name("\t a \n"), "a");
        assert!(matches!(stored_guild_name("Ferris Fans"), Cow::Borrowed(_)));
    }

    #[test]
    fn display_names_lose_surrounding_and_repeated_whitespace() {
        assert_eq!(stored_display_name("  Deploy bot "), "Deploy bot");
        assert_eq!(stored_display_name("a\n\n b"), "a b");
        assert_eq!(stored_display_name(" \t "), "");
        assert_eq!(stored_display_name("@everyone"), "@everyone");
    }

    #[test]
    fn names_already_stored_are_kept_and_others_still_reduced() {
        for kept in ["general", "help_desk", "a-b-c", "2024"] {
            assert_eq!(stored_channel_name(0, kept), kept);
        }
        assert_eq!(stored_channel_name(0, "-x-"), "x");
        assert_eq!(stored_channel_name(0, "a--b"), "a-b");
        assert_eq!(stored_channel_name(0, "Ab"), "ab");
        assert_eq!(stored_display_name("Mod Team"), "Mod Team");
        assert_eq!(stored_display_name("Mod\u{a0}\u{a0}Team"), "Mod Team");
        assert_eq!(stored_display_name("Mod\tTeam"), "Mod Team");
        // A vertical tab is whitespace to `split_whitespace`, though not ASCII whitespace.
        assert_eq!(stored_display_name("Mod\u{b}Team"), "Mod Team");
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        for n in ["Hello World", "a--b", "-x-", "Ünïcode Tëxt", "!!!"] {
            let once = stored_channel_name(0, n);
            assert_eq!(stored_channel_name(0, &once), once);
        }
    }
}
