//! Names made distinct within their length, as Discord writes and compares them: a text-like
//! channel's in its stored form (`general-2`), any other with a number (`Member (2)`).

use hashbrown::HashSet;

use crate::discord::names::{stored_channel_name, stored_display_name};

/// How a name is written and compared: a text-like channel's in Discord's stored form
/// (`general-2`), any other as written, compared with whitespace collapsed (`Member (2)`).
#[derive(Clone, Copy)]
pub(super) enum Style {
    Text,
    Display,
}

impl Style {
    pub(super) fn key(self, name: &str) -> String {
        match self {
            Style::Text => stored_channel_name(0, name).into_owned(),
            Style::Display => stored_display_name(name).into_owned(),
        }
    }
}

/// The first `max` characters of `name`, without what Discord would trim from the end.
pub(super) fn truncate(name: &str, max: usize, style: Style) -> String {
    let cut: String = name.chars().take(max).collect();
    match style {
        Style::Text => cut.trim_end_matches('-').to_owned(),
        Style::Display => cut.trim_end().to_owned(),
    }
}

/// `base`, or the first of `base (2)`, `base (3)`, … (`base-2` for text-like channels) that
/// is not `taken`, in at most `max` characters; recorded as taken.
pub(super) fn distinct(
    base: &str,
    max: usize,
    style: Style,
    taken: &mut HashSet<String>,
) -> String {
    let mut name = base.to_owned();
    let mut n = 1usize;
    while taken.contains(&style.key(&name)) {
        n += 1;
        let suffix = match style {
            Style::Text => format!("-{n}"),
            Style::Display => format!(" ({n})"),
        };
        let room = max.saturating_sub(suffix.chars().count());
        name = format!("{}{suffix}", truncate(base, room, style));
    }
    taken.insert(style.key(&name));
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_distinct_within_their_length() {
        let mut taken = HashSet::new();
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member"
        );
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member (2)"
        );
        assert_eq!(
            distinct("Member", 100, Style::Display, &mut taken),
            "Member (3)"
        );
        let mut taken = HashSet::new();
        assert_eq!(distinct("general", 100, Style::Text, &mut taken), "general");
        assert_eq!(
            distinct("general", 100, Style::Text, &mut taken),
            "general-2"
        );
        let long = "x".repeat(20);
        let mut taken = HashSet::new();
        distinct(&long, 20, Style::Display, &mut taken);
        let second = distinct(&long, 20, Style::Display, &mut taken);
        assert_eq!(second, format!("{} (2)", "x".repeat(16)));
        assert_eq!(second.chars().count(), 20);
    }
}
