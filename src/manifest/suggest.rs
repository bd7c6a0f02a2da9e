//! "Did you mean …?": the closest known word to a misspelt one.

/// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word_l = word.to_lowercase();
    let length = word_l.chars().count();
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (c.to_lowercase(), c))
        // The distance is at least the difference in length: a word far longer or shorter
        // than a candidate is not compared letter by letter.
        .filter(|(c_l, _)| c_l.chars().count().abs_diff(length) <= limit)
        .map(|(c_l, c)| (strsim::levenshtein(&word_l, &c_l), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The help for a permission name guildctl does not know: the name it is in our spelling
/// (`VIEW_CHANNEL`, `ViewChannel`), the name another tool's alias stands for
/// (`read_messages` is `view_channel`), the names a permissions integer stands for, or
/// the nearest name.
pub fn permission_help(word: &str) -> String {
    use crate::permissions::{NAMED, Permissions, aliases};
    if let Some(names) = integer_names(word) {
        return names;
    }
    let ours = aliases::our_spelling(word);
    if Permissions::parse_name(&ours).is_some() {
        return format!("permission names are snake_case: write `{ours}`");
    }
    if let Some(a) = aliases::alias(word) {
        return format!(
            "`{word}` is {} for `{}`: write `{}`",
            a.source, a.name, a.name
        );
    }
    match closest(&ours, NAMED.iter().map(|(n, _)| *n)) {
        Some(best) => format!("did you mean `{best}`?"),
        None => "use Discord's permission names in snake_case (`view_channel`, `send_messages`), \
                 or `bit_N` for a bit guildctl has no name for"
            .to_string(),
    }
}

/// For a permissions integer (`104324673`, as templates, bots and the API store them): the
/// list of names it stands for, ready to paste.
pub fn integer_names(word: &str) -> Option<String> {
    let bits: u64 = word.trim().parse().ok()?;
    let names = crate::permissions::Permissions(bits).display_names();
    Some(if names.is_empty() {
        "`0` grants nothing: write `[]`".to_string()
    } else {
        format!(
            "{bits} is a permissions integer; write its names instead: [{}]",
            names.join(", ")
        )
    })
}
