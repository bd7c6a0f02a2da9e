//! `guildctl import`: manifests made from what other tools keep. [`template`] turns a
//! Discord server template into a manifest.
//!
//! What an import reads is outside text (names, topics) that guildctl did not write: it
//! reaches YAML only through the manifest's writer, and a terminal or a YAML comment only
//! through [`shown`].

pub mod template;

pub use template::{Imported, Note, NoteKind, TemplateError, import_template};

/// Outside text made safe for one line of a terminal or of a YAML comment: the shared
/// [`crate::inert::terminal`] form (control and bidirectional characters escaped, nothing a
/// workflow runner reads as a command).
pub fn shown(s: &str) -> String {
    crate::inert::terminal(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(shown("Mod Team 🛡️"), "Mod Team 🛡️");
        assert_eq!(shown("a\nb\tc\u{1b}[31m"), "a\\nb\\tc\\u{1b}[31m");
        assert_eq!(shown("evil\u{202e}txt"), "evil\\u{202e}txt");
        assert_eq!(shown("l'été \"x\""), "l'été \"x\"");
    }
}
