//! Names as Discord stores them, which is not always as they were sent.
//!
//! Written from docs/discord.md alone (§4.2, §9.2), never from a client's
//! code: a client that gets these rules wrong must be caught by its tests
//! against this emulator, not agree with it by construction.

/// Channel types whose names Discord rewrites: text, announcement, forum and
/// media (§4.2).
const TEXT_LIKE: [u8; 4] = [0, 5, 15, 16];

/// The name Discord stores for a channel of type `kind` sent as `sent`.
///
/// Text-like channels (§4.2, observed; the exact algorithm is undocumented):
/// lower-cased, whitespace becomes `-`, ASCII punctuation other than `-` and
/// `_` is dropped (as are control characters), and dashes neither repeat nor
/// stand at either end: "Joey's Cool Channel" → "joeys-cool-channel". Letters
/// outside ASCII and emoji are kept.
///
/// Other channels (voice, stage, category) keep case and punctuation and are
/// stored as `stored_object_name` says, with inner whitespace kept.
pub fn stored_channel_name(kind: u8, sent: &str) -> String {
    stored_channel_name_with(kind, sent, false)
}

/// [`stored_channel_name`], with inner whitespace of voice, stage and category names
/// collapsed when `collapse_inner` ([`crate::EmulatorConfig::collapse_inner_whitespace`]).
pub fn stored_channel_name_with(kind: u8, sent: &str, collapse_inner: bool) -> String {
    if !TEXT_LIKE.contains(&kind) {
        return stored_object_name(sent, collapse_inner);
    }
    let lowered = sent.to_lowercase();
    let spaced: String = lowered
        .chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .filter(|c| !c.is_ascii_punctuation() || *c == '-' || *c == '_')
        .map(|c| if c.is_whitespace() { '-' } else { c })
        .collect();
    spaced
        .split('-')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// A role, category or voice channel name as stored: trimmed, its inner whitespace
/// kept as sent (Discord's own server templates hold names such as `Mod  Team`), or
/// collapsed like a nickname's when `collapse_inner`.
pub fn stored_object_name(sent: &str, collapse_inner: bool) -> String {
    if collapse_inner {
        stored_display_name(sent)
    } else {
        sent.trim().to_owned()
    }
}

/// A nickname or webhook name as Discord stores
/// it: "trimmed of leading, trailing, and excessive internal whitespace"
/// (§9.2; webhook names follow the nickname rules of §6). Every run of
/// whitespace inside becomes one space.
pub fn stored_display_name(sent: &str) -> String {
    sent.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_like_names_follow_the_observed_examples() {
        assert_eq!(
            stored_channel_name(0, "Joey's Cool Channel"),
            "joeys-cool-channel"
        );
        assert_eq!(stored_channel_name(5, "News -- Today!"), "news-today");
        assert_eq!(stored_channel_name(15, "Help_Desk"), "help_desk");
        assert_eq!(stored_channel_name(16, "📜 Rules"), "📜-rules");
        assert_eq!(stored_channel_name(0, "  Ça  Va  "), "ça-va");
        assert_eq!(stored_channel_name(0, "tab\tand\u{7}bell"), "tab-andbell");
    }

    #[test]
    fn other_channels_keep_case_and_punctuation_but_not_extra_whitespace() {
        assert_eq!(stored_channel_name(2, "Lounge Room!"), "Lounge Room!");
        assert_eq!(stored_channel_name(4, "  Staff \t Only "), "Staff \t Only");
        assert_eq!(
            stored_channel_name_with(4, "  Staff \t Only ", true),
            "Staff Only"
        );
        assert_eq!(stored_object_name(" Mod  Team ", false), "Mod  Team");
        assert_eq!(stored_object_name(" Mod  Team ", true), "Mod Team");
    }

    #[test]
    fn display_names_are_trimmed_and_collapsed() {
        assert_eq!(stored_display_name("  Deploy bot "), "Deploy bot");
        assert_eq!(stored_display_name("a\n\n b"), "a b");
        assert_eq!(stored_display_name("   "), "");
    }

    #[test]
    fn storing_twice_changes_nothing() {
        for kind in [0, 2, 4, 5, 15] {
            for n in ["Hello World", "a--b", "-x-", "Ünïcode  Tëxt", "!!!", " q "] {
                let once = stored_channel_name(kind, n);
                assert_eq!(stored_channel_name(kind, &once), once, "{kind} {n:?}");
            }
        }
    }
}
