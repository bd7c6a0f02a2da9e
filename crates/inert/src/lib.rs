//! Text from outside made inert where it is shown.
//!
//! Names (roles, channels, webhooks, tags, the guild), audit-log reasons, usernames,
//! Discord's and GitHub's error bodies, file names and anything a manifest or a saved plan
//! says come from people guildctl does not trust. Every renderer passes such a value
//! through one of these functions at the moment it is shown, never earlier: the plan and
//! the drift report keep the values as they are (their JSON is exact), and each output
//! decides how to show them.
//!
//! - [`terminal`]: terminals, logs and GitHub runners. One line, every control character
//!   shown escaped, and nothing a runner reads as a workflow command.
//! - [`markdown`]: GitHub markdown prose (paragraphs, list items, table cells). Renders
//!   exactly as the value reads, and cannot mention, reference, link or format.
//! - [`markdown_code`]: a value as an inline code span (not inside a table).
//! - [`json_pretty`]: JSON whose strings hold no raw character that [`terminal`] escapes.
//! - [`redact`]: webhook and interaction tokens in URLs and paths replaced by `{token}`.
//!
//! The rules, and why each is there, are in docs/architecture.md ("Text from outside").

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// `text` with the token of every webhook (or interaction) URL or path replaced by
/// `{token}`: `/webhooks/123/abc` → `/webhooks/123/{token}`. A token is the segment
/// after the id; the id itself is kept (ids are not secrets). Any host's: a webhook URL
/// pasted into a manifest (`https://discord.com/api/webhooks/ID/TOKEN`, discordapp.com,
/// canary, ptb) is a secret wherever it is shown, diagnostics' excerpts included.
pub fn redact(text: &str) -> String {
    const MARKERS: [&str; 2] = ["webhooks/", "interactions/"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = MARKERS
            .iter()
            .filter_map(|m| rest.find(m).map(|at| (at, m.len())))
            .min();
        let Some((at, len)) = next else {
            out.push_str(rest);
            return out;
        };
        let after = at + len;
        out.push_str(&rest[..after]);
        rest = &rest[after..];
        let id_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let token_len = if id_len > 0 && rest[id_len..].starts_with('/') {
            rest[id_len + 1..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                .count()
        } else {
            0
        };
        // A placeholder already there (`{token}`) is not a token; anything else is.
        if token_len > 0 {
            out.push_str(&rest[..=id_len]);
            out.push_str("{token}");
            rest = &rest[id_len + 1 + token_len..];
        } else {
            out.push_str(&rest[..id_len]);
            rest = &rest[id_len..];
        }
    }
}

/// Put after `@`, `#` and the other starts of GitHub's autolinks in markdown prose: they
/// are matched on the rendered text, where a backslash escape is already gone.
const BREAK: char = '\u{200b}';

/// ASCII punctuation that can start markdown syntax (emphasis, code, links, HTML, entities,
/// lists, tables, strikethrough, math), escaped with a backslash in prose.
const MARKDOWN_PUNCTUATION: &str = "\\`*_{}[]<>()#+-.!|~$&";

/// A character a terminal or a log viewer acts on instead of showing: C0 (newlines and
/// tabs included), DEL and C1 (`char::is_control`), the bidirectional overrides,
/// embeddings, isolates and marks that reorder what is shown (CVE-2021-42574), and the
/// line and paragraph separators.
pub fn is_display_control(c: char) -> bool {
    c.is_control()
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
}

/// A character that takes no room on display and that a culture-aware string comparison
/// may skip (the runner looks for `::` and `##[` with .NET's default, culture-aware
/// `StartsWith` and `IndexOf`): Default_Ignorable_Code_Point and the other format
/// characters. Matching the runner's patterns across them errs on the safe side.
pub fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061c}'
            | '\u{06dd}'
            | '\u{070f}'
            | '\u{08e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// Whether `chars[at..]` reads `pattern`, ignorable characters between its characters
/// skipped.
fn reads(chars: &[char], at: usize, pattern: &str) -> bool {
    let mut i = at;
    for (n, want) in pattern.chars().enumerate() {
        if n > 0 {
            while chars.get(i).is_some_and(|c| is_ignorable(*c)) {
                i += 1;
            }
        }
        if chars.get(i) != Some(&want) {
            return false;
        }
        i += 1;
    }
    true
}

/// Where a leading `::` starts (after whitespace and ignorable characters), if the text
/// opens with one: a line that starts with it is a workflow command to a GitHub runner,
/// which trims the line's start first.
fn leading_command(chars: &[char]) -> Option<usize> {
    let at = chars
        .iter()
        .position(|c| !c.is_whitespace() && !is_ignorable(*c))?;
    reads(chars, at, "::").then_some(at)
}

/// `##[` anywhere in a line is a (legacy) workflow command to a GitHub runner.
fn legacy_command_at(chars: &[char], at: usize) -> bool {
    reads(chars, at, "##[")
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `s` for a terminal, a log or a GitHub runner's output: control characters, bidi
/// controls and line separators shown as `\n`, `\r`, `\t` or `\u{1b}`; a leading `::` and
/// every `##[` broken by showing one character as `\u{3a}` or `\u{23}`. The result is one
/// line that cannot start a workflow command, so a line that opens with fixed text or
/// with such a value cannot either. Backslashes are kept as they are: the result is for
/// reading, and the JSON output is the exact form. Escaping twice changes nothing.
pub fn terminal(s: &str) -> Cow<'_, str> {
    let clean = !s.chars().any(is_display_control) && !s.contains(':') && !s.contains('#');
    if clean {
        return Cow::Borrowed(s);
    }
    let chars: Vec<char> = s.chars().collect();
    let command = leading_command(&chars);
    let mut out = String::with_capacity(s.len() + 8);
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        if is_display_control(c) || Some(i) == command || (c == '#' && legacy_command_at(&chars, i))
        {
            push_escaped(&mut out, c);
            changed = true;
        } else {
            out.push(c);
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(s)
    }
}

/// `s` for GitHub markdown prose: a paragraph, a list item, a heading or a table cell. It
/// renders as [`terminal`] shows it, and nothing in it formats, links or notifies:
///
/// - markup characters are backslash-escaped (emphasis, code, links, HTML and comments,
///   entities, tables, strikethrough, math);
/// - GitHub finds `@user`, `@org/team`, `#123`, `GH-123`, `http://`, `www.` and e-mail
///   addresses in the text *after* markdown is rendered, where escapes are gone, so a
///   zero-width space goes after `@` and `#` and inside the others (as Renovate does in
///   the release notes it quotes): shown the same, matched no more.
///
/// Not for code blocks: inside one GitHub neither mentions nor links (see
/// docs/architecture.md); [`terminal`] and an unbreakable fence suffice there.
pub fn markdown(s: &str) -> String {
    let shown = terminal(s);
    let chars: Vec<char> = shown.chars().collect();
    let mut out = String::with_capacity(shown.len() + 16);
    let lower = |i: usize| chars.get(i).map(char::to_ascii_lowercase);
    for (i, &c) in chars.iter().enumerate() {
        if MARKDOWN_PUNCTUATION.contains(c) {
            out.push('\\');
        }
        out.push(c);
        let autolink = match c {
            '@' | '#' => true,
            // http://, https://, ftp://…
            ':' => chars.get(i + 1) == Some(&'/') && chars.get(i + 2) == Some(&'/'),
            // www.
            'w' | 'W' => {
                i >= 2
                    && lower(i - 1) == Some('w')
                    && lower(i - 2) == Some('w')
                    && chars.get(i + 1) == Some(&'.')
            }
            // GH-123
            '-' => i >= 2 && lower(i - 2) == Some('g') && lower(i - 1) == Some('h'),
            _ => false,
        };
        if autolink {
            out.push(BREAK);
        }
    }
    out
}

/// `s` as a markdown inline code span, whatever backticks it holds: the fence is longer
/// than any run of backticks inside, and padded when `s` starts or ends with one. Inside
/// code nothing formats, links or notifies. Not for table cells, where `|` ends the cell
/// even inside code: use [`markdown`] there.
pub fn markdown_code(s: &str) -> String {
    let shown = terminal(s);
    if shown.is_empty() {
        return "` `".to_owned();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in shown.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // CommonMark strips one space from each side when both have one.
    let pad = shown.starts_with('`')
        || shown.ends_with('`')
        || (shown.starts_with(' ') && shown.ends_with(' ') && !shown.trim().is_empty());
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{shown}{pad}{fence}")
}

/// A message of guildctl's own whose names are set in backticks (`` role `Mods` grants
/// `ban_members` ``), as markdown with those names as code spans: each piece is made inert
/// as [`markdown`] or [`markdown_code`] makes it. A message whose backticks do not pair (a
/// name holding one) is shown as [`markdown`] whole, backticks and all.
pub fn markdown_spans(s: &str) -> String {
    let pieces: Vec<&str> = s.split('`').collect();
    if pieces.len().is_multiple_of(2) {
        return markdown(s);
    }
    pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| match i % 2 {
            0 => markdown(piece),
            _ => markdown_code(piece),
        })
        .collect()
}

/// `value` as pretty JSON (two-space indent, as `serde_json::to_string_pretty`) in which
/// every character [`terminal`] escapes is written `\uXXXX` and every `##[` as `##\u005b`:
/// the same JSON to a parser, and inert on a terminal or in a runner's log. serde_json
/// already escapes C0, `"` and `\`; DEL, C1, bidi controls and line separators it writes
/// raw.
pub fn json_pretty<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, InertJson(PrettyFormatter::new()));
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// serde_json's pretty formatter, with string fragments written inert.
struct InertJson<'a>(PrettyFormatter<'a>);

impl Formatter for InertJson<'_> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let chars: Vec<char> = fragment.chars().collect();
        let mut plain = String::with_capacity(fragment.len());
        for (i, &c) in chars.iter().enumerate() {
            let legacy = c == '[' && i >= 2 && reads_back_hashes(&chars, i);
            if is_display_control(c) || legacy {
                plain.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                plain.push(c);
            }
        }
        writer.write_all(plain.as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Whether the `[` at `at` closes a `##[`, ignorable characters between skipped.
fn reads_back_hashes(chars: &[char], at: usize) -> bool {
    let mut hashes = 0;
    let mut i = at;
    while i > 0 && hashes < 2 {
        i -= 1;
        match chars[i] {
            '#' => hashes += 1,
            c if is_ignorable(c) => {}
            _ => break,
        }
    }
    hashes == 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_backticks_become_code_spans_and_the_rest_stays_inert() {
        assert_eq!(
            markdown_spans("role `Mods` grants `ban_members` to *all*"),
            "role `Mods` grants `ban_members` to \\*all\\*"
        );
        // Inside a span nothing pings; outside, a mention is broken as everywhere.
        assert_eq!(
            markdown_spans("`@everyone` and @here"),
            format!("`@everyone` and @{BREAK}here")
        );
        // Unpaired backticks (a name holding one) are escaped, not trusted as spans.
        assert_eq!(markdown_spans("role `a`b` x"), markdown("role `a`b` x"));
    }

    #[test]
    fn terminal_shows_controls_escaped_on_one_line() {
        assert_eq!(terminal("Moderator"), "Moderator");
        assert!(matches!(terminal("Moderator"), Cow::Borrowed(_)));
        assert_eq!(
            terminal("a\x1b]52;c;aGk=\x07b"),
            "a\\u{1b}]52;c;aGk=\\u{7}b"
        );
        assert_eq!(terminal("\x1b[1A\x1b[2K"), "\\u{1b}[1A\\u{1b}[2K");
        assert_eq!(terminal("x\n::warning::owned"), "x\\n::warning::owned");
        assert_eq!(terminal("tab\there\r"), "tab\\there\\r");
        assert_eq!(terminal("\u{7f}\u{85}\u{9b}"), "\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(terminal("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(terminal("a\u{2028}b"), "a\\u{2028}b");
        // Emoji sequences keep their joiners and variation selectors.
        assert_eq!(terminal("🛡️ Mods 👨‍👩‍👧"), "🛡️ Mods 👨‍👩‍👧");
    }

    #[test]
    fn terminal_breaks_workflow_commands() {
        assert_eq!(terminal("::warning::owned"), "\\u{3a}:warning::owned");
        assert_eq!(terminal("  ::error::x"), "  \\u{3a}:error::x");
        assert_eq!(terminal("\u{200b}::error::x"), "\u{200b}\\u{3a}:error::x");
        assert_eq!(terminal("a ::b"), "a ::b");
        assert_eq!(terminal("role ##[error]x"), "role \\u{23}#[error]x");
        assert_eq!(terminal("###[x"), "#\\u{23}#[x");
        assert_eq!(terminal("#\u{200b}#[x"), "\\u{23}\u{200b}#[x");
        assert_eq!(terminal("#1 and ## [x"), "#1 and ## [x");
    }

    #[test]
    fn terminal_is_idempotent() {
        for s in ["::a", "##[b", "\x1b\n\u{202e}", "plain", "\\u{1b}"] {
            let once = terminal(s).into_owned();
            assert_eq!(terminal(&once), once, "{s:?}");
        }
    }

    #[test]
    fn markdown_escapes_markup_and_breaks_autolinks() {
        assert_eq!(markdown("Moderator"), "Moderator");
        assert_eq!(markdown("**bold**"), "\\*\\*bold\\*\\*");
        assert_eq!(markdown("<!-- x -->"), "\\<\\!\\-\\- x \\-\\-\\>");
        assert_eq!(markdown("@octocat"), "@\u{200b}octocat");
        assert_eq!(markdown("@org/team"), "@\u{200b}org/team");
        assert_eq!(markdown("#1"), "\\#\u{200b}1");
        assert_eq!(markdown("gh-12"), "gh\\-\u{200b}12");
        assert_eq!(markdown("https://x.example"), "https:\u{200b}//x\\.example");
        assert_eq!(markdown("WWW.x"), "WWW\u{200b}\\.x");
        assert_eq!(markdown("a|b"), "a\\|b");
        assert_eq!(markdown("a\nb"), "a\\\\nb");
    }

    #[test]
    fn markdown_code_fences_around_any_backticks() {
        assert_eq!(markdown_code("abc"), "`abc`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code(" x "), "`  x  `");
        assert_eq!(markdown_code(""), "` `");
        assert_eq!(markdown_code("a\nb"), "`a\\nb`");
    }

    #[test]
    fn json_escapes_what_terminals_act_on_and_parses_back() {
        let v = serde_json::json!({ "name": "a\u{202e}b\u{7f}\u{85}##[error]x\u{2028}\x1b" });
        let out = json_pretty(&v);
        assert!(
            !out.chars().any(|c| is_display_control(c) && c != '\n'),
            "{out}"
        );
        assert!(!out.contains("##["), "{out}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
        assert_eq!(
            json_pretty(&serde_json::json!({"a": [1, "b"]})),
            serde_json::to_string_pretty(&serde_json::json!({"a": [1, "b"]})).unwrap()
        );
    }
}
