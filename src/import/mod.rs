//! `guildctl import`: manifests made from what other tools keep. [`template`] turns a
//! Discord server template into a manifest.
//!
//! What an import reads is outside text (names, topics) that guildctl did not write: it
//! reaches YAML only through the manifest's writer, and a terminal or a YAML comment only
//! through [`shown`].

pub mod template;

pub use template::{Imported, Note, NoteKind, TemplateError, import_template};

/// Outside text made safe for one line of a terminal or of a YAML comment: every control
/// character (newlines and tabs included) and every bidirectional control that reorders
/// what is shown is written escaped (`\n`, `\u{202e}`), as `char::escape_debug` writes it;
/// everything else is kept.
pub fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control()
            || matches!(
                c,
                '\u{061c}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}'
                    | '\u{2028}'
                    | '\u{2029}'
            )
        {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
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
