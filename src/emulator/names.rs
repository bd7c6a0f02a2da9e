//! Channel name normalisation, shared by the emulator and guildctl's planner.
//!
//! Discord rewrites the names of text-like channels (discord-behaviour.md §4.2):
//! "Joey's Cool Channel" becomes "joeys-cool-channel". The real algorithm is not
//! documented; this is the approximation both sides agree on, so a plan compares
//! names exactly the way the emulator stores them.

/// Channel types whose names Discord normalises: text, announcement, forum, media.
pub const TEXT_LIKE: [u8; 4] = [0, 5, 15, 16];

/// Returns the name Discord would store for a channel of `kind` named `name`.
///
/// Text-like channels: lowercase, runs of whitespace become `-`, ASCII punctuation
/// other than `-` and `_` is dropped, repeated `-` collapse and leading/trailing `-`
/// are trimmed. Non-ASCII symbols (emoji, letters of other scripts) are kept, as
/// Discord keeps them. Voice, stage and category names are returned unchanged.
pub fn normalise_channel_name(kind: u8, name: &str) -> String {
    if !TEXT_LIKE.contains(&kind) {
        return name.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    for ch in name.chars().flat_map(char::to_lowercase) {
        let mapped = if ch.is_whitespace() {
            Some('-')
        } else if ch == '-' || ch == '_' {
            Some(ch)
        } else if ch.is_ascii_punctuation() || ch.is_control() {
            None
        } else {
            Some(ch)
        };
        if let Some(c) = mapped {
            // Collapse runs of '-' as they are produced.
            if c == '-' && out.ends_with('-') {
                continue;
            }
            out.push(c);
        }
    }
    out.trim_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_are_lowercased_and_dashed() {
        assert_eq!(
            normalise_channel_name(0, "Joey's Cool Channel"),
            "joeys-cool-channel"
        );
        assert_eq!(normalise_channel_name(5, "  News   Feed "), "news-feed");
        assert_eq!(normalise_channel_name(15, "Q&A -- Help!"), "qa-help");
        assert_eq!(normalise_channel_name(16, "snake_case_ok"), "snake_case_ok");
    }

    #[test]
    fn emoji_and_other_scripts_survive() {
        assert_eq!(normalise_channel_name(0, "📜 Rules"), "📜-rules");
        assert_eq!(normalise_channel_name(0, "Ça Va"), "ça-va");
    }

    #[test]
    fn voice_stage_and_category_names_are_untouched() {
        for kind in [2u8, 4, 13] {
            assert_eq!(normalise_channel_name(kind, "The Lounge!"), "The Lounge!");
        }
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        let once = normalise_channel_name(0, "--Hello,   World--");
        assert_eq!(once, "hello-world");
        assert_eq!(normalise_channel_name(0, &once), once);
    }
}
