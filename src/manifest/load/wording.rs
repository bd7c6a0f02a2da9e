//! What the loader says about YAML it cannot read, and about values its types refuse: the
//! parser's and serde's messages tidied and said in words, with a help for each, and the
//! place a syntax error most likely starts (a quote or bracket left open lines earlier).

use super::{MAX_ALIASES, MAX_DEPTH, MAX_NODES};
use crate::manifest::source_map::Span;

/// The place of a parse error: its line and column, one character long.
pub(super) fn error_span(e: &serde_saphyr::Error, file: usize, text: &str) -> Span {
    let (line, column) = match e.location() {
        Some(loc) if loc.line() > 0 => (loc.line() as usize, loc.column().max(1) as usize),
        _ => (1, 1),
    };
    // A position past the end of the text (an unclosed bracket at the end) is shown on the
    // last line.
    let lines = text.split('\n').count().max(1);
    let line = line.min(lines);
    Span {
        file,
        line,
        column,
        len: 1,
    }
}

/// Whether a parser message is about a tab ("found a tab", "tabs are not allowed").
pub(super) fn mentions_tab(message: &str) -> bool {
    message
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| w == "tab" || w == "tabs")
}

/// The first tab at or after the parser's place (1-based line and column): the parser
/// reports a tab where the scalar before it began, a line or more before the tab itself.
pub(super) fn tab_at_or_after(text: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    text.split('\n')
        .enumerate()
        .skip(line.saturating_sub(1))
        .find_map(|(n, l)| {
            let from = if n + 1 == line {
                column.saturating_sub(1)
            } else {
                0
            };
            l.chars()
                .enumerate()
                .skip(from)
                .find(|&(_, c)| c == '\t')
                .map(|(i, _)| (n + 1, i + 1))
        })
}

/// A syntax error is often found lines after the mistake: a quote or bracket left open runs
/// on until the parser gives up. Finds a quote opened on an earlier line and still open at
/// the error, or a bracket opened on an earlier line and still open when the text has come
/// back to that line's indentation: `(line, column, "quote" | "bracket")`.
pub(super) fn unclosed_before(
    text: &str,
    err_line: usize,
    err_col: usize,
) -> Option<(usize, usize, &'static str)> {
    let mut stack: Vec<(usize, usize, usize)> = Vec::new(); // (line, column, indent of its line)
    let mut quote: Option<(char, usize, usize)> = None;
    for (n, line) in text.split('\n').enumerate() {
        let ln = n + 1;
        if ln > err_line {
            break;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if quote.is_none() && ln == err_line {
            // Back at (or left of) the indentation of the line that opened the bracket.
            if let Some(&(l, c, ind)) = stack.last()
                && l < err_line
                && !line.trim().is_empty()
                && indent <= ind
            {
                return Some((l, c, "bracket"));
            }
        }
        let mut prev: Option<char> = None; // previous non-space character on this line
        let mut chars = line.chars().enumerate().peekable();
        while let Some((i, ch)) = chars.next() {
            let col = i + 1;
            if ln == err_line && col >= err_col {
                break;
            }
            match quote {
                Some((q, _, _)) => {
                    if q == '"' && ch == '\\' {
                        chars.next();
                    } else if ch == q {
                        if q == '\'' && chars.peek().is_some_and(|(_, c)| *c == '\'') {
                            chars.next();
                        } else {
                            quote = None;
                        }
                    }
                }
                None => {
                    let starts_value =
                        matches!(prev, None | Some(':' | '-' | '[' | '{' | ',' | '?'));
                    match ch {
                        '#' if prev.is_none()
                            || line[..line.char_indices().nth(i).map_or(0, |(b, _)| b)]
                                .ends_with(' ') =>
                        {
                            break;
                        }
                        '"' | '\'' if starts_value => quote = Some((ch, ln, col)),
                        '[' | '{' if starts_value => stack.push((ln, col, indent)),
                        ']' | '}' => {
                            stack.pop();
                        }
                        _ => {}
                    }
                }
            }
            if !ch.is_whitespace() {
                prev = Some(ch);
            }
        }
    }
    match quote {
        Some((_, l, c)) if l < err_line => Some((l, c, "quote")),
        _ => None,
    }
}

/// serde-saphyr's message without its own " at line X, column Y" suffix, and the rule
/// (`syntax`, or `limits` for a budget breach) with a help text.
pub(super) fn describe_parse_error(e: &serde_saphyr::Error) -> (&'static str, String, String) {
    let text = e.without_snippet().to_string();
    let text = match text.rfind(" at line ") {
        Some(i) if text[i..].contains("column") => text[..i].to_string(),
        _ => text,
    };
    let text = match text.find(", set DuplicateKeyPolicy") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    let message = text.trim().trim_end_matches(':').to_string();
    if message.contains("recursion limit exceeded") {
        return (
            "limits",
            format!("the YAML nests deeper than {MAX_DEPTH} levels"),
            "a manifest nests a few levels at most (channels in categories, overwrites): \
             check the indentation and brackets"
                .to_string(),
        );
    }
    if let Some(rest) = message.strip_prefix("budget breached: ") {
        let what = rest.split([' ', '{']).next().unwrap_or("");
        let (message, help) = match what {
            "Depth" => (
                format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                "a manifest nests a few levels at most (channels in categories, overwrites): \
                 check the indentation and brackets"
                    .to_string(),
            ),
            "Documents" => (
                "the file has more than one YAML document (a second `---`)".to_string(),
                "a manifest file is one document: remove the `---` line, or split the manifest \
                 into a folder of files"
                    .to_string(),
            ),
            "Nodes" | "Events" => (
                format!("the YAML has more than {MAX_NODES} values"),
                "a guild's manifest is far smaller: did -f name the wrong file?".to_string(),
            ),
            "Aliases" | "Anchors" | "AliasAnchorRatio" => (
                format!(
                    "the YAML uses more than {MAX_ALIASES} aliases or anchors, or expands them too much"
                ),
                "write the values out instead of repeating aliases (`*name`)".to_string(),
            ),
            _ => (
                format!("the YAML is too large ({rest})"),
                "a guild's manifest is far smaller: did -f name the wrong file?".to_string(),
            ),
        };
        return ("limits", message, help);
    }
    let help = syntax_hint(&message);
    ("syntax", format!("invalid YAML: {message}"), help)
}

fn syntax_hint(message: &str) -> String {
    if message.contains("duplicate") {
        "each key may appear once per mapping; remove or merge the repeated key".into()
    } else if mentions_tab(message) {
        "YAML indents with spaces only; replace the tab characters".into()
    } else if message.contains("unclosed") {
        "close the bracket or quote that starts here".into()
    } else if message.contains("did not find expected '-'") {
        "this line is indented differently from the entries around it: line it up with the \
         other fields of its entry"
            .into()
    } else if message.contains("unknown anchor") {
        "define the anchor (`&name`) before the alias (`*name`) uses it, or write the value out"
            .into()
    } else {
        "check the indentation and quoting on this line and the one before it; \
         quote values that contain `: ` or start with `@`, `*`, `&`, `!`, `{` or `[`"
            .into()
    }
}

/// serde's message, tidied: `invalid value: integer `5000000000`, expected u32` → with the
/// Rust type names said in words.
pub(super) fn type_message(message: &str) -> String {
    let m = message
        .replace(
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        )
        .replace("expected u64", "expected a whole number");
    match m.rfind(" at line ") {
        Some(i) if m[i..].contains("column") => m[..i].to_string(),
        _ => m,
    }
}

pub(super) fn type_hint(message: &str) -> Option<String> {
    if message.contains("u32") || message.contains("u64") {
        return Some("write a whole number in range, without quotes or units".into());
    }
    None
}

/// serde_path_to_error's path (`roles[0].color`, `?` for unknown parts) as a node path.
pub(super) fn serde_path(p: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for seg in p.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            serde_path_to_error::Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_is_found_where_it_is_not_where_the_scalar_began() {
        let text = "version: 1\nroles:\n  - name: Mods\n\tcolor: 5\n";
        assert!(mentions_tab("while scanning a plain scalar, found a tab"));
        assert!(!mentions_tab("did not find expected key (table)"));
        assert_eq!(tab_at_or_after(text, 3, 11), Some((4, 1)));
        assert_eq!(tab_at_or_after("a: 1\n", 1, 1), None);
    }
}
