//! Discord's rewriting of text-like channel names (discord-behaviour.md §4.2).
//!
//! The exact algorithm is undocumented. This approximation is used both by the
//! planner (to compare names as Discord will store them) and by the emulator
//! (to store them that way), so the two always agree.

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
/// characters (accents, emoji) are kept. Other types keep the name as given.
pub fn normalise_channel_name(kind: u8, name: &str) -> String {
    if !is_normalised_type(kind) {
        return name.to_owned();
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
    out.trim_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_are_rewritten_like_discord() {
        assert_eq!(
            normalise_channel_name(0, "Joey's Cool Channel"),
            "joeys-cool-channel"
        );
        assert_eq!(normalise_channel_name(0, "  a -- b  "), "a-b");
        assert_eq!(normalise_channel_name(5, "📜 Rules!"), "📜-rules");
        assert_eq!(normalise_channel_name(15, "Help_Desk"), "help_desk");
        assert_eq!(normalise_channel_name(15, "Q&A -- Help!"), "qa-help");
        assert_eq!(normalise_channel_name(0, "Ça Va"), "ça-va");
        assert_eq!(normalise_channel_name(0, "tab\u{7}bell"), "tabbell");
    }

    #[test]
    fn voice_and_category_names_are_kept() {
        assert_eq!(normalise_channel_name(2, "Lounge Room"), "Lounge Room");
        assert_eq!(normalise_channel_name(4, "Staff Only!"), "Staff Only!");
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        for n in ["Hello World", "a--b", "-x-", "Ünïcode Tëxt", "!!!"] {
            let once = normalise_channel_name(0, n);
            assert_eq!(normalise_channel_name(0, &once), once);
        }
    }
}
