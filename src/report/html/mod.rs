//! Access as one self-contained HTML page (`access --format html`, `plan --format html`):
//! the grid of [`crate::access::grid`] as a coloured table the page's own script builds,
//! filters kept in the URL fragment, the plan's access lines, and a legend (docs/access.md,
//! "The picture: access as a page").
//!
//! The page loads nothing: its style and script are inline, allowed by their sha256 in a
//! Content-Security-Policy that denies everything else. The grid travels as JSON in a
//! `<script type="application/json">` (one hex digit per cell, so 125,000 cells are
//! 125 KB), escaped so that no name from Discord can close the element; every name the
//! page writes as HTML is escaped here or by the script.

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::access::AccessChange;
use crate::access::grid::{ColumnKind, Grid, Presence};

const PAGE: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The version of the JSON the page embeds (docs/access.md).
pub const DATA_VERSION: u32 = 1;

/// Which guild the page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// The guild as it is today (`access --live`).
    Live,
    /// The guild as the manifest would make it (`access`).
    AfterPlan,
    /// The guild the plan leaves, with what changes from today's (`plan`).
    Plan,
}

impl Shown {
    fn key(self) -> &'static str {
        match self {
            Shown::Live => "live",
            Shown::AfterPlan => "after_plan",
            Shown::Plan => "plan",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Shown::Live => "today",
            Shown::AfterPlan => "once the plan is applied",
            Shown::Plan => "once the plan is applied, with what it changes",
        }
    }
}

/// What one page shows.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The guild's id.
    pub guild_id: &'a str,
    /// The guild's name, as Discord has it.
    pub guild_name: &'a str,
    /// Which guild, and whether it is compared with today's.
    pub shown: Shown,
    /// The grid ([`crate::access::grid::grid`], or `compare` for a plan).
    pub grid: &'a Grid,
    /// The plan's access lines (none for `access`).
    pub access: &'a [AccessChange],
    /// A new member's path, when one was computed (`access --new-member`): shown as it is.
    pub new_member: Option<&'a Value>,
}

/// The JSON the page embeds (docs/access.md, "The JSON in the page").
#[derive(Serialize)]
struct Data<'a> {
    version: u32,
    guild: GuildData<'a>,
    state: &'static str,
    columns: Vec<ColumnData<'a>>,
    rows: Vec<RowData<'a>>,
    cells: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_member: Option<&'a Value>,
}

#[derive(Serialize)]
struct GuildData<'a> {
    id: &'a str,
    name: &'a str,
}

#[derive(Serialize)]
struct ColumnData<'a> {
    name: &'a str,
    kind: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    roles: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    presence: Option<&'static str>,
}

#[derive(Serialize)]
struct RowData<'a> {
    path: &'a str,
    name: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    presence: Option<&'static str>,
}

fn presence(p: Presence) -> Option<&'static str> {
    match p {
        Presence::Kept => None,
        Presence::New => Some("new"),
        Presence::Gone => Some("gone"),
    }
}

/// Each row's cells as one hex digit per column.
fn encode(cells: &[Vec<u8>]) -> Vec<String> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|&c| char::from(DIGITS[usize::from(c & 0x0f)]))
                .collect()
        })
        .collect()
}

fn data<'a>(page: &Page<'a>) -> Data<'a> {
    let grid = page.grid;
    Data {
        version: DATA_VERSION,
        guild: GuildData {
            id: page.guild_id,
            name: page.guild_name,
        },
        state: page.shown.key(),
        columns: grid
            .columns
            .iter()
            .map(|c| ColumnData {
                name: &c.name,
                kind: match c.kind {
                    ColumnKind::Everyone => "everyone",
                    ColumnKind::Role => "role",
                    ColumnKind::Person => "person",
                },
                id: &c.id,
                roles: &c.roles,
                presence: presence(c.presence),
            })
            .collect(),
        rows: grid
            .rows
            .iter()
            .map(|r| RowData {
                path: &r.path,
                name: &r.name,
                kind: r.kind,
                category: r.category,
                presence: presence(r.presence),
            })
            .collect(),
        cells: encode(&grid.cells),
        before: grid.before.as_deref().map(encode),
        new_member: page.new_member,
    }
}

/// Text made safe inside an HTML element or a quoted attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside a `<script>` element: nothing in it can close the element or
/// start a comment or a CDATA section (`<`, `>`, `&` as `\u` escapes, which JSON reads
/// back the same), and the line separators old JavaScript parsers broke on.
pub fn script_json<T: Serialize + ?Sized>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The CSP source of an inline element's text: `'sha256-…'`.
fn hash_source(text: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(text.as_bytes())))
}

/// Standard base64 with padding (a CSP hash's form).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The page's Content-Security-Policy: nothing from anywhere, the page's own style and
/// script by their hashes.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src 'none'; base-uri 'none'; form-action 'none'",
        hash_source(STYLE),
        hash_source(SCRIPT)
    )
}

/// The plan's access lines as a list (empty for `access`).
fn access_lines(lines: &[AccessChange]) -> String {
    if lines.is_empty() {
        return "<p>The plan changes no one's access.</p>".to_owned();
    }
    let mut out = String::from("<ul class=\"lines\">");
    for l in lines {
        let place = l
            .channel
            .as_deref()
            .map_or_else(|| "guild-wide".to_owned(), |c| format!("in {}", escape(c)));
        let mut said = Vec::new();
        if !l.gains.is_empty() {
            said.push(format!(
                "<span class=\"gain\">+ gains</span> {}",
                escape(&l.gains.join(", "))
            ));
        }
        if !l.loses.is_empty() {
            said.push(format!(
                "<span class=\"loss\">− loses</span> {}",
                escape(&l.loses.join(", "))
            ));
        }
        let _ = write!(
            out,
            "<li><b>{}</b> {} {place}</li>",
            escape(&l.who),
            said.join("; ")
        );
    }
    out.push_str("</ul>");
    out
}

/// A new member's path on guild `g` with nothing answered, as `access --new-member --format
/// json` says it: what the page shows under the grid (none when the walk cannot be made).
pub fn new_member_json(
    g: &crate::access::Guild,
    joining: &crate::access::onboarding::Joining,
) -> Option<Value> {
    let walk = crate::access::onboarding::walk(g, joining, &[]).ok()?;
    serde_json::to_value(walk).ok()
}

/// A new member's path (`access --new-member`'s JSON, nothing answered): the welcome
/// screen, the channel list on joining, then each question with what its answers give.
fn new_member(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return "<p>Not computed for this page.</p>".to_owned();
    };
    let text = |v: &Value| escape(v.as_str().unwrap_or_default());
    let channels = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|c| text(&c["channel"]))
            .collect()
    };
    let names = |list: &Value| -> String {
        let all: Vec<String> = list.as_array().into_iter().flatten().map(text).collect();
        if all.is_empty() {
            "—".to_owned()
        } else {
            all.join(", ")
        }
    };
    let mut out = String::new();
    let _ = write!(out, "<p>Onboarding: {}.</p>", text(&v["onboarding"]));
    if let Some(w) = v["welcome_screen"].as_object() {
        let _ = write!(
            out,
            "<h3>Welcome screen</h3><p>{}</p><ul>",
            text(&w["description"])
        );
        for c in w["channels"].as_array().into_iter().flatten() {
            let _ = write!(
                out,
                "<li>{} {} — {}</li>",
                text(&c["emoji"]),
                text(&c["channel"]),
                text(&c["description"])
            );
        }
        out.push_str("</ul>");
    }
    let joined = channels(&v["default_channels"]);
    let _ = write!(
        out,
        "<h3>On joining ({} channels in their list; {} more to browse)</h3><p>{}</p>",
        joined.len(),
        channels(&v["browsable"]).len(),
        joined.join(", ")
    );
    let prompts = v["prompts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if !prompts.is_empty() {
        out.push_str("<h3>Questions</h3><ol>");
        for p in prompts {
            let required = if p["required"].as_bool() == Some(true) {
                " (required)"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<li>{}{required}<table><caption class=\"sr\">Answers to {}</caption><thead><tr><th scope=\"col\">Answer</th><th scope=\"col\">Roles</th><th scope=\"col\">Channels added</th><th scope=\"col\">Their roles open</th></tr></thead><tbody>",
                text(&p["title"]),
                text(&p["title"])
            );
            for o in p["options"].as_array().into_iter().flatten() {
                let _ = write!(
                    out,
                    "<tr><th scope=\"row\">{} {}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
                    text(&o["emoji"]),
                    text(&o["title"]),
                    names(&o["roles"]),
                    names(&o["channels"]),
                    names(&o["opens"])
                );
            }
            out.push_str("</tbody></table></li>");
        }
        out.push_str("</ol>");
    }
    out
}

/// The page.
pub fn render(page: &Page<'_>) -> String {
    let title = format!(
        "Access in {} ({}) {}",
        page.guild_name,
        page.guild_id,
        page.shown.words()
    );
    let plan = page.shown == Shown::Plan;
    let lines = if plan {
        format!(
            "<section id=\"lines\" aria-labelledby=\"lines-h\"><h2 id=\"lines-h\">Access once applied ({})</h2>{}</section>",
            page.access.len(),
            access_lines(page.access)
        )
    } else {
        String::new()
    };
    fill(
        PAGE,
        &[
            ("CSP", &escape(&content_security_policy())),
            ("TITLE", &escape(&title)),
            ("STYLE", STYLE),
            ("KIND", if plan { "plan" } else { "access" }),
            ("ACCESS_LINES", &lines),
            ("NEW_MEMBER", &new_member(page.new_member)),
            ("DATA", &script_json(&data(page))),
            ("SCRIPT", SCRIPT),
        ],
    )
}

/// `template` with each `{{KEY}}` replaced by its value, in one pass: a value is never
/// read again, so a name holding `{{SCRIPT}}` stays text.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find("}}").and_then(|end| {
            values
                .iter()
                .find(|(k, _)| *k == &after[..end])
                .map(|(_, v)| (end, v))
        }) {
            Some((end, v)) => {
                out.push_str(v);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_alphabet_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn nothing_in_the_json_closes_its_script() {
        let s = script_json(&["</script><img src=x onerror=alert(1)>", "a\u{2028}b&"]);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert!(!s.contains('\u{2028}'));
        let back: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(back[0], "</script><img src=x onerror=alert(1)>");
        assert_eq!(back[1], "a\u{2028}b&");
    }
}
