//! Channel patterns, as a policy's `where:` and `access --channel` write them
//! (docs/access.md, "Patterns"): a channel's path as plans show it (`Staff/#mod-log`), split
//! into parts at `/`, `#` left out, surrounding spaces trimmed, letters compared without
//! case; in a part `*` is any text, and a part that is `**` is any number of parts.
//!
//! The one matcher of them. A pattern comes from a pull request, a pre-commit hook or an
//! assistant's argument, so matching must not depend on how its stars are laid out: within
//! a part, the text between stars is searched for leftmost-first, each piece once (a star
//! before a piece can always give up what a later match needs, so the leftmost match of
//! each piece is the right one), with Knuth–Morris–Pratt, in time linear in the part and
//! the name; the `**` parts are resolved the same way over whole parts. A pattern's length
//! is bounded ([`MAX_PATTERN_CHARS`]), and names are Discord's (at most 100 characters a
//! channel), so a match costs at most the pattern's length times the path's.

/// The longest pattern, in characters: a category's and a channel's names at Discord's
/// limit of 100 each, with `/`, `#` and stars to spare.
pub const MAX_PATTERN_CHARS: usize = 256;

/// A pattern too long to match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the channel pattern has {chars} characters; a pattern may have at most {MAX_PATTERN_CHARS}"
)]
pub struct PatternTooLong {
    pub chars: usize,
}

/// A channel pattern, read once to match many paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelPattern {
    parts: Vec<Part>,
}

/// One part of a pattern: `**`, or the pieces of text between its stars.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    AnyParts,
    /// One piece: the part has no star and is compared whole. Several: the first is a
    /// prefix, the last a suffix, and those between are found in order.
    Text(Vec<Piece>),
}

/// Text between stars, with its Knuth–Morris–Pratt failure table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    chars: Vec<char>,
    /// `fail[k]`: the length of the longest proper prefix of `chars[..=k]` that is also
    /// its suffix.
    fail: Vec<usize>,
}

/// A part of a name or a pattern as it is compared: `#` left out, trimmed, lowercase.
pub fn normalise_part(part: &str) -> String {
    part.replace('#', "").trim().to_lowercase()
}

impl ChannelPattern {
    pub fn new(pattern: &str) -> Result<ChannelPattern, PatternTooLong> {
        let chars = pattern.chars().count();
        if chars > MAX_PATTERN_CHARS {
            return Err(PatternTooLong { chars });
        }
        let parts = pattern
            .split('/')
            .map(|part| match normalise_part(part) {
                p if p == "**" => Part::AnyParts,
                p => Part::Text(p.split('*').map(Piece::new).collect()),
            })
            .collect();
        Ok(ChannelPattern { parts })
    }

    /// Whether the channel at `path` (`Staff/#mod-log`) is one the pattern names.
    pub fn matches(&self, path: &str) -> bool {
        self.matches_counting(path, &mut 0)
    }

    /// [`Self::matches`], adding to `steps` each character compared: what a test bounds.
    fn matches_counting(&self, path: &str, steps: &mut u64) -> bool {
        let names: Vec<Vec<char>> = path
            .split('/')
            .map(|n| normalise_part(n).chars().collect())
            .collect();
        let mut groups = self.parts.split(|p| *p == Part::AnyParts);
        let first = groups.next().unwrap_or_default();
        let Some(last) = groups.next_back() else {
            // No `**`: part for part.
            return first.len() == names.len() && run_matches(first, &names, steps);
        };
        if first.len() + last.len() > names.len() {
            return false;
        }
        let (head, rest) = names.split_at(first.len());
        let (mut middle, tail) = rest.split_at(rest.len() - last.len());
        if !run_matches(first, head, steps) || !run_matches(last, tail, steps) {
            return false;
        }
        // Each run between two `**` at its first place, leaving the most for the rest.
        for run in groups.filter(|g| !g.is_empty()) {
            if run.len() > middle.len() {
                return false;
            }
            let found = (0..=middle.len() - run.len())
                .find(|&at| run_matches(run, &middle[at..at + run.len()], steps));
            match found {
                Some(at) => middle = &middle[at + run.len()..],
                None => return false,
            }
        }
        true
    }
}

/// Whether each part of `run` (no `**` among them) matches the name beside it.
fn run_matches(run: &[Part], names: &[Vec<char>], steps: &mut u64) -> bool {
    run.iter().zip(names).all(|(part, name)| match part {
        Part::Text(pieces) => text_matches(pieces, name, steps),
        Part::AnyParts => true,
    })
}

/// Whether a part's pieces match `name`: the first at its start, the last at its end, the
/// others in order between them, each at its leftmost place.
fn text_matches(pieces: &[Piece], name: &[char], steps: &mut u64) -> bool {
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return name.is_empty();
    };
    if pieces.len() == 1 {
        *steps += name.len().min(first.chars.len()) as u64 + 1;
        return first.chars == name;
    }
    let (head, tail) = (first.chars.len(), last.chars.len());
    if head + tail > name.len() {
        return false;
    }
    *steps += (head + tail) as u64;
    if !name.starts_with(&first.chars) || !name.ends_with(&last.chars) {
        return false;
    }
    let mut rest = &name[head..name.len() - tail];
    for piece in &pieces[1..pieces.len() - 1] {
        match piece.find_in(rest, steps) {
            Some(end) => rest = &rest[end..],
            None => return false,
        }
    }
    true
}

impl Piece {
    fn new(text: &str) -> Piece {
        let chars: Vec<char> = text.chars().collect();
        let mut fail = vec![0; chars.len()];
        let mut k = 0;
        for i in 1..chars.len() {
            while k > 0 && chars[i] != chars[k] {
                k = fail[k - 1];
            }
            if chars[i] == chars[k] {
                k += 1;
            }
            fail[i] = k;
        }
        Piece { chars, fail }
    }

    /// Where the piece's leftmost occurrence in `text` ends; each character of `text` is
    /// compared at most twice.
    fn find_in(&self, text: &[char], steps: &mut u64) -> Option<usize> {
        if self.chars.is_empty() {
            return Some(0);
        }
        let mut k = 0;
        for (i, c) in text.iter().enumerate() {
            while k > 0 && self.chars[k] != *c {
                *steps += 1;
                k = self.fail[k - 1];
            }
            *steps += 1;
            if self.chars[k] == *c {
                k += 1;
                if k == self.chars.len() {
                    return Some(i + 1);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn matches(pattern: &str, path: &str) -> bool {
        ChannelPattern::new(pattern).expect("pattern").matches(path)
    }

    /// The matcher before issue 42, exponential in the stars: what a pattern must mean.
    fn reference(pattern: &str, path: &str) -> bool {
        fn segments(p: &[String], s: &[String]) -> bool {
            match (p.first(), s.first()) {
                (None, None) => true,
                (Some(seg), _) if seg == "**" => (0..=s.len()).any(|k| segments(&p[1..], &s[k..])),
                (Some(seg), Some(name)) => glob(seg, name) && segments(&p[1..], &s[1..]),
                _ => false,
            }
        }
        fn glob(p: &str, s: &str) -> bool {
            match p.split_once('*') {
                None => p == s,
                Some((head, rest)) => {
                    let Some(tail) = s.strip_prefix(head) else {
                        return false;
                    };
                    (0..=tail.len())
                        .filter(|&k| tail.is_char_boundary(k))
                        .any(|k| glob(rest, &tail[k..]))
                }
            }
        }
        let norm = |s: &str| -> Vec<String> { s.split('/').map(normalise_part).collect() };
        segments(&norm(pattern), &norm(path))
    }

    #[test]
    fn patterns_name_channels_by_category() {
        assert!(matches("Staff/*", "Staff/#mod-log"));
        assert!(matches("staff/#MOD-LOG", "Staff/#mod-log"));
        assert!(!matches("Staff/*", "Staff"));
        assert!(matches("Staff", "Staff"));
        assert!(matches("**", "Staff/#mod-log") && matches("**", "#general"));
        assert!(matches("Staff/**", "Staff") && matches("**/#mod-log", "Staff/#mod-log"));
        assert!(matches("*/mod-*", "Staff/#mod-log"));
        assert!(!matches("*", "Staff/#mod-log"));
        assert!(matches("#general", "#general") && matches("general", "#general"));
        assert!(matches("*a*a*b", "xaaab") && !matches("*a*a*b", "xab"));
        assert!(
            !matches("ab*ba", "aba"),
            "a prefix and a suffix may not overlap"
        );
        assert!(
            matches("é*", "É-news"),
            "letters compare without case, not bytes"
        );
    }

    #[test]
    fn a_pattern_past_the_limit_is_refused() {
        let long = "a".repeat(MAX_PATTERN_CHARS + 1);
        assert_eq!(
            ChannelPattern::new(&long),
            Err(PatternTooLong {
                chars: MAX_PATTERN_CHARS + 1
            })
        );
        assert!(ChannelPattern::new(&long[1..]).is_ok());
    }

    /// The patterns that took the old matcher minutes cost steps linear in the pattern and
    /// the name within a part, and at most their product across parts, whatever the stars.
    #[test]
    fn the_worst_case_stays_bounded() {
        let name = "a".repeat(100);
        let parts = vec![name.as_str(); 20].join("/");
        let cases = [
            ("*a*a*a*a*a*a*b".to_owned(), name.clone(), false),
            ("*a*a*a*a*a*a*b*".to_owned(), name.clone(), false),
            ("*aaaaaaaaaab*".to_owned(), name.clone(), false),
            ("**".to_owned() + &"a*".repeat(127), name.clone(), false),
            ("*a".repeat(50), name.clone(), true),
            ("*a".repeat(128), name.clone() + "b", false),
            (
                format!("**/{}b/**", "*a*/".repeat(10)),
                parts.clone(),
                false,
            ),
            (format!("**/{}**", "*a*/".repeat(10)), parts.clone(), true),
        ];
        for (pattern, path, expected) in cases {
            let compiled = ChannelPattern::new(&pattern).expect("within the limit");
            let mut steps = 0;
            assert_eq!(
                compiled.matches_counting(&path, &mut steps),
                expected,
                "{pattern}"
            );
            let (p, n) = (pattern.chars().count() as u64, path.chars().count() as u64);
            let names = path.split('/').count() as u64;
            assert!(
                steps <= 2 * (p + n) * names,
                "{pattern} over {n} characters: {steps} steps"
            );
        }
        // Within one part, linear: each character of the name compared twice at most.
        let mut steps = 0;
        let found = ChannelPattern::new("*a*a*a*a*a*a*b*")
            .expect("pattern")
            .matches_counting(&name, &mut steps);
        assert!(!found && steps <= 2 * 100 + 15, "{steps} steps");
    }

    proptest! {
        /// The same answer as the old matcher, on patterns and paths small enough for it.
        #[test]
        fn agrees_with_the_old_matcher(
            pattern in "[aAb#*/ ]{0,10}|\\*\\*/[ab*]{0,4}|[ab*]{0,4}/\\*\\*(/[ab*]{0,3})?",
            path in "[aAb# ]{0,6}(/[aAb# ]{0,6}){0,2}",
        ) {
            prop_assert_eq!(matches(&pattern, &path), reference(&pattern, &path));
        }
    }
}
