//! YAML's comment trap: a `#` after a space starts a comment, so `color: #1abc9c` has no
//! value, `topic: Read #rules` reads "Read", and in `{ color: #1abc9c }` the comment hides
//! the closing bracket. A comment whose `#` is followed at once by something other than a
//! space (`#1abc9c`, `#rules`, `#🎉`) is almost always meant as part of the value, so it is
//! said at its line with the quoted form; `# a comment`, with its space, is left alone.
//!
//! A value left empty, or a bracket hidden, is said whatever the field. A plain value cut
//! short is said only in a text field (names, topics, descriptions, titles, messages and
//! the names references use: [`is_text_field`]), where a `#` may belong to the text; after
//! a number or a choice (`afk_timeout: 300 #900`, `type: text #voice`) such a comment is a
//! note, as YAML reads it. The parser keeps no comments in the tree, so the text is read
//! line by line here, and the tree says which field a line's value is.

use std::borrow::Cow;

use hashbrown::{HashMap, HashSet};

use crate::manifest::diagnostic::{Located, Severity};
use crate::manifest::source_map::Span;
use crate::manifest::tree::{At, Node, Scalar};

/// What a comment did to the value before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trap {
    /// The value was expected right where the comment starts: it is empty.
    NoValue,
    /// A plain value was cut short where the comment starts.
    CutShort,
    /// Inside `{ … }` or `[ … ]`: the comment hides the rest of the line, bracket included.
    HidesBracket,
}

/// One comment that looks like part of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub trap: Trap,
    /// 1-based line and character column of the `#`.
    pub line: usize,
    pub column: usize,
    /// The key whose value it is, when there is one (`color`).
    pub key: Option<String>,
    /// What YAML reads as the value (empty for [`Trap::NoValue`] and in brackets).
    pub read: String,
    /// The text the comment took (`#1abc9c`; in brackets, up to the next `,`, `}` or `]`).
    pub hidden: String,
}

impl Found {
    /// The value as it was meant, quoted for YAML: `color: "#1abc9c"`.
    fn quoted(&self) -> String {
        let value = match self.read.as_str() {
            "" => self.hidden.clone(),
            read => format!("{read} {}", self.hidden),
        };
        let value = format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""));
        match &self.key {
            Some(key) => format!("{key}: {value}"),
            None => format!("- {value}"),
        }
    }

    pub(super) fn located(&self, file: usize) -> Located {
        let what = match &self.key {
            Some(key) => format!("`{key}`"),
            None => "this entry".to_owned(),
        };
        let why = format!(
            "YAML reads `{}` as a comment, since a `#` after a space starts one",
            self.hidden
        );
        let (severity, message) = match self.trap {
            Trap::NoValue => (Severity::Error, format!("{what} has no value: {why}")),
            Trap::CutShort => (
                Severity::Warning,
                format!("{what} reads as {:?}: {why}", self.read),
            ),
            Trap::HidesBracket => (
                Severity::Error,
                format!(
                    "{why}, and the comment hides the rest of the line, its closing bracket too"
                ),
            ),
        };
        let help = match self.trap {
            Trap::CutShort => format!(
                "quote the value to keep all of it: `{}` (or put a space after the `#` if it is a comment)",
                self.quoted()
            ),
            _ => format!("quote the value: `{}`", self.quoted()),
        };
        Located {
            severity,
            rule: Cow::Borrowed("yaml-comment"),
            message,
            help: Some(help),
            path: String::new(),
            span: Some(Span {
                file,
                line: self.line,
                column: self.column,
                len: self.hidden.chars().count().max(1),
            }),
            related: Vec::new(),
        }
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether `line` opens a block scalar (`key: |`, `- >-`): the lines under it are text.
fn opens_block_scalar(line: &str) -> bool {
    let code = line.split(" #").next().unwrap_or(line).trim_end();
    let Some(last) = code.rsplit([' ', '\t']).next() else {
        return false;
    };
    let before = code[..code.len() - last.len()].trim_end();
    (last.starts_with('|') || last.starts_with('>'))
        && last[1..]
            .chars()
            .all(|c| matches!(c, '+' | '-') || c.is_ascii_digit())
        && (before.ends_with(':') || before.ends_with('-') || before.is_empty())
}

/// `- - name: x` → `name: x`: the line's content after its sequence dashes.
fn after_dashes(s: &str) -> &str {
    let mut s = s.trim_start();
    while let Some(rest) = s.strip_prefix("- ").or_else(|| (s == "-").then_some("")) {
        s = rest.trim_start();
    }
    s
}

/// The comments of `text` that look like part of a value.
pub(super) fn find(text: &str) -> Vec<Found> {
    if !may_hide_a_value(text) {
        return Vec::new();
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    let mut block_scalar: Option<usize> = None; // the indentation of the line opening it
    let mut quote: Option<u8> = None;
    let mut flow = 0usize;
    for (n, line) in lines.iter().enumerate() {
        if let Some(at) = block_scalar {
            if line.trim().is_empty() || indent(line) > at {
                continue;
            }
            block_scalar = None;
        }
        // Read by bytes: every character that matters here is ASCII, and a UTF-8 sequence
        // never holds an ASCII byte, so only a character's first byte is looked at.
        let bytes = line.as_bytes();
        let mut prev: Option<u8> = None; // the first byte of the previous non-space character
        let mut escaped = false;
        for (byte, &b) in bytes.iter().enumerate() {
            if b & 0xC0 == 0x80 {
                continue; // inside a character
            }
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if q == b'"' && b == b'\\' {
                    escaped = true;
                } else if b == q {
                    if q == b'\'' && bytes.get(byte + 1) == Some(&b'\'') {
                        escaped = true;
                    } else {
                        quote = None;
                    }
                }
                prev = Some(b);
                continue;
            }
            let starts_value = matches!(prev, None | Some(b':' | b'-' | b'[' | b'{' | b',' | b'?'));
            match b {
                b'#' if prev.is_none()
                    || matches!(bytes.get(byte.wrapping_sub(1)), Some(b' ' | b'\t')) =>
                {
                    let next = line.get(byte + 1..).and_then(|rest| rest.chars().next());
                    if prev.is_some() && next.is_some_and(|c| !c.is_whitespace() && c != '#') {
                        let column = line[..byte].chars().count() + 1;
                        out.extend(judge(&lines, n, byte, column, flow > 0));
                    }
                    break;
                }
                b'"' | b'\'' if starts_value => quote = Some(b),
                b'[' | b'{' if starts_value => flow += 1,
                b']' | b'}' => flow = flow.saturating_sub(1),
                _ => {}
            }
            if !is_space_at(line, byte, b) {
                prev = Some(b);
            }
        }
        if quote.is_none() && flow == 0 && opens_block_scalar(line) {
            block_scalar = Some(indent(line));
        }
    }
    out
}

/// Whether the character starting at `byte` of `line` (its first byte `b`) is white space.
fn is_space_at(line: &str, byte: usize, b: u8) -> bool {
    if b.is_ascii() {
        (b as char).is_whitespace()
    } else {
        line.get(byte..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(char::is_whitespace)
    }
}

/// Whether `text` has a `#` that may start a trap: after a space or a tab, and followed by
/// something other than a space or another `#` (what [`find`] looks at). Most files have
/// none, every exported one among them, and need no reading line by line: that reading
/// was a tenth of `validate`'s CPU on the largest guild.
fn may_hide_a_value(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('#').any(|(at, _)| {
        matches!(bytes.get(at.wrapping_sub(1)), Some(b' ' | b'\t'))
            && bytes
                .get(at + 1)
                .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'#'))
    })
}

/// The comments of `found` worth saying in the file whose tree is `tree`: every value left
/// empty or bracket hidden, and a value cut short where it is text ([`is_text_field`]).
pub(super) fn worth_saying(found: Vec<Found>, tree: &At<Node>) -> Vec<Found> {
    let cut: HashSet<usize> = found
        .iter()
        .filter(|f| f.trap == Trap::CutShort)
        .map(|f| f.line)
        .collect();
    if cut.is_empty() {
        return found;
    }
    let mut text = HashMap::new();
    text_lines(tree, &mut Vec::new(), &cut, &mut text);
    found
        .into_iter()
        .filter(|f| f.trap != Trap::CutShort || text.get(&f.line).copied().unwrap_or(false))
        .collect()
}

/// For each line of `lines` that holds a plain text value, whether its field is text: one
/// walk of the tree, `keys` the mapping keys above the node.
fn text_lines<'a>(
    node: &'a At<Node>,
    keys: &mut Vec<&'a str>,
    lines: &HashSet<usize>,
    out: &mut HashMap<usize, bool>,
) {
    match &node.value {
        Node::Map(entries) => {
            for (k, v) in entries {
                keys.push(&k.value.0);
                text_lines(v, keys, lines, out);
                keys.pop();
            }
        }
        Node::Seq(items) => items.iter().for_each(|i| text_lines(i, keys, lines, out)),
        Node::Scalar(s) => {
            let line = node.loc.line as usize;
            if matches!(s.kind, Scalar::Str(_)) && lines.contains(&line) {
                out.insert(line, is_text_field(keys));
            }
        }
    }
}

/// Whether a value under these mapping keys is text where a `#` may belong: a name
/// (of anything, and the names references use), a topic, a description, a title, a message,
/// a location, tags, a reason, AutoMod's words. Not a number, a choice, a colour, a
/// permission, an id, a time or a file.
fn is_text_field(keys: &[&str]) -> bool {
    let Some(last) = keys.last() else {
        return false;
    };
    match *last {
        "name"
        | "previous_names"
        | "topic"
        | "description"
        | "title"
        | "message"
        | "location"
        | "tags"
        | "reason"
        | "keywords"
        | "regex"
        | "channel"
        | "channels"
        | "default_channels"
        | "roles"
        | "role"
        | "exempt_roles"
        | "exempt_channels"
        | "who"
        | "where"
        | "alert"
        | "afk_channel"
        | "system_channel"
        | "rules_channel"
        | "public_updates_channel"
        | "safety_alerts_channel" => true,
        // AutoMod's allowed words; an overwrite's `allow` lists permissions.
        "allow" => keys.contains(&"trigger"),
        _ => false,
    }
}

/// What the comment at `byte` of line `n` does to the value before it, if anything.
fn judge(lines: &[&str], n: usize, byte: usize, column: usize, in_flow: bool) -> Option<Found> {
    let line = lines[n];
    let before = line[..byte].trim_end();
    let comment = line[byte..].trim_end();
    let mut found = Found {
        trap: Trap::CutShort,
        line: n + 1,
        column,
        key: None,
        read: String::new(),
        hidden: comment.to_owned(),
    };
    if in_flow {
        let end = comment.find([',', '}', ']']).unwrap_or(comment.len());
        found.trap = Trap::HidesBracket;
        found.hidden = comment[..end].trim_end().to_owned();
        let tail = before
            .rsplit(['{', ',', '['])
            .next()
            .unwrap_or(before)
            .trim();
        found.key = tail.strip_suffix(':').map(|k| k.trim().to_owned());
        return Some(found);
    }
    let content = after_dashes(before);
    if content.is_empty() || content.ends_with(':') {
        // A key whose value is a block on the lines below is not empty.
        let below = lines[n + 1..]
            .iter()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        if below.is_some_and(|l| {
            indent(l) > indent(line) || (content.ends_with(':') && l.trim_start().starts_with("- "))
        }) {
            return None;
        }
        found.trap = Trap::NoValue;
        found.key = content.strip_suffix(':').map(|k| k.trim().to_owned());
        return Some(found);
    }
    let (key, value) = match content.split_once(": ") {
        Some((k, v)) => (Some(k.trim().to_owned()), v.trim()),
        None => (None, content),
    };
    // A quoted, bracketed, aliased or tagged value ends where YAML says, not at the comment.
    if value.is_empty() || value.starts_with(['"', '\'', '[', '{', '&', '*', '!', '|', '>']) {
        return None;
    }
    found.key = key;
    found.read = value.to_owned();
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Found {
        let found = find(text);
        assert_eq!(found.len(), 1, "{text:?}: {found:?}");
        found.into_iter().next().unwrap()
    }

    #[test]
    fn a_colour_after_a_space_is_a_comment_and_no_value() {
        let f = one("roles:\n  - name: Mods\n    color: #1abc9c\n");
        assert_eq!((f.trap, f.line, f.column), (Trap::NoValue, 3, 12));
        assert_eq!(f.quoted(), "color: \"#1abc9c\"");
        let said = f.located(0);
        assert_eq!(said.severity, Severity::Error);
        assert!(
            said.message.starts_with("`color` has no value"),
            "{}",
            said.message
        );
    }

    #[test]
    fn a_channel_mention_cuts_a_topic_short() {
        let f = one("channels:\n  - name: help\n    topic: Read #rules first\n");
        assert_eq!(f.trap, Trap::CutShort);
        assert_eq!(f.read, "Read");
        assert_eq!(f.quoted(), "topic: \"Read #rules first\"");
        assert_eq!(f.located(0).severity, Severity::Warning);
    }

    #[test]
    fn in_a_flow_mapping_the_comment_hides_the_bracket() {
        let f = one("roles:\n  - { name: Mods, color: #1abc9c }\n");
        assert_eq!(f.trap, Trap::HidesBracket);
        assert_eq!(f.hidden, "#1abc9c");
        assert_eq!(f.quoted(), "color: \"#1abc9c\"");
    }

    #[test]
    fn text_fields_are_names_and_prose_not_numbers_or_choices() {
        for text in [
            &["channels", "topic"][..],
            &["channels", "channels", "name"],
            &["roles", "previous_names"],
            &["automod", "trigger", "allow"],
            &["automod", "actions", "alert"],
            &["onboarding", "prompts", "options", "roles"],
        ] {
            assert!(is_text_field(text), "{text:?}");
        }
        for other in [
            &["channels", "overwrites", "allow"][..],
            &["settings", "afk_timeout"],
            &["channels", "type"],
            &["roles", "color"],
            &["roles", "members"],
            &[],
        ] {
            assert!(!is_text_field(other), "{other:?}");
        }
    }

    #[test]
    fn a_hash_before_any_other_character_than_a_space_is_looked_at() {
        let f = one("channels:\n  - name: help\n    topic: Party #\u{1f389} time\n");
        assert_eq!((f.trap, f.read.as_str()), (Trap::CutShort, "Party"));
        assert_eq!(find("channels:\n  - topic: Party ## heading\n"), Vec::new());
    }

    #[test]
    fn real_comments_and_quoted_values_are_left_alone() {
        for text in [
            "# a comment\nversion: 1 # the format\n",
            "roles: #staff\n  - name: Mods\n",
            "roles: #staff\n- name: Mods\n",
            "channels:\n  - topic: \"Read #rules\"\n",
            "channels:\n  - topic: 'it''s #1' # ok\n",
            "channels:\n  - topic: |\n      Read #rules\n      and #faq\n",
            "settings:\n  description: >-\n    #1 guild\n",
            "channels:\n  - name: a#b\n",
        ] {
            assert_eq!(find(text), Vec::new(), "{text:?}");
        }
    }

    /// The reading before the byte loop and the early return (one character at a time),
    /// kept as the reference the faster one must agree with.
    fn find_by_chars(text: &str) -> Vec<Found> {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut out = Vec::new();
        let mut block_scalar: Option<usize> = None; // the indentation of the line opening it
        let mut quote: Option<char> = None;
        let mut flow = 0usize;
        for (n, line) in lines.iter().enumerate() {
            if let Some(at) = block_scalar {
                if line.trim().is_empty() || indent(line) > at {
                    continue;
                }
                block_scalar = None;
            }
            let mut prev: Option<char> = None; // the previous non-space character on the line
            let mut chars = line.char_indices().enumerate().peekable();
            while let Some((i, (byte, ch))) = chars.next() {
                if let Some(q) = quote {
                    if q == '"' && ch == '\\' {
                        chars.next();
                    } else if ch == q {
                        if q == '\'' && chars.peek().is_some_and(|(_, (_, c))| *c == '\'') {
                            chars.next();
                        } else {
                            quote = None;
                        }
                    }
                    prev = Some(ch);
                    continue;
                }
                let starts_value = matches!(prev, None | Some(':' | '-' | '[' | '{' | ',' | '?'));
                match ch {
                    '#' if prev.is_none() || line[..byte].ends_with([' ', '\t']) => {
                        let next = line[byte + 1..].chars().next();
                        if prev.is_some() && next.is_some_and(|c| !c.is_whitespace() && c != '#') {
                            out.extend(judge(&lines, n, byte, i + 1, flow > 0));
                        }
                        break;
                    }
                    '"' | '\'' if starts_value => quote = Some(ch),
                    '[' | '{' if starts_value => flow += 1,
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                }
                if !ch.is_whitespace() {
                    prev = Some(ch);
                }
            }
            if quote.is_none() && flow == 0 && opens_block_scalar(line) {
                block_scalar = Some(indent(line));
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn the_byte_reading_finds_what_the_character_reading_found(
            lines in proptest::collection::vec(
                "[ \t]{0,3}(- )?[a-z]{0,4}(: ?)?[ #'\"\\\\{}\\[\\],|>a-z\u{e9}\u{3000}\u{1f389}]{0,12}",
                1..8,
            )
        ) {
            let text = lines.join("\n");
            proptest::prop_assert_eq!(find(&text), find_by_chars(&text));
        }
    }
}
