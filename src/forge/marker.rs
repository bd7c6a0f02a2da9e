//! The hidden HTML comment that finds guildctl's own comment, note or issue again, and
//! bodies that carry it, cut to a forge's limit.

/// A marker needs a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the marker must not be empty")]
pub struct EmptyMarker;

/// The hidden HTML comment that finds guildctl's own comment or issue again, e.g.
/// `<!-- guildctl:plan:guild.yaml -->`. Characters that could end the HTML comment
/// early or break the line (`>`, `--`, `%`, whitespace) are percent-encoded, so any
/// manifest path makes one marker that stays hidden.
pub fn marker(key: &str) -> Result<String, EmptyMarker> {
    if key.trim().is_empty() {
        return Err(EmptyMarker);
    }
    let mut out = String::from("<!-- guildctl:");
    let mut prev_dash = false;
    for c in key.chars() {
        let encode = match c {
            '<' | '>' | '%' | '!' => true,
            '-' => prev_dash,
            c => c.is_whitespace() || c.is_control(),
        };
        if encode {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
            prev_dash = false;
        } else {
            out.push(c);
            prev_dash = c == '-';
        }
    }
    // A key ending in '-' would make "--" with the closing "-->" prefix.
    if prev_dash {
        out.pop();
        out.push_str("%2D");
    }
    out.push_str(" -->");
    Ok(out)
}

/// `marker` on its own line, then the body, cut to `limit` characters (the forge's) with
/// a note saying why and where the whole report is (`cut`).
pub fn body_with_marker(marker: &str, body: &str, limit: usize, cut: &str) -> String {
    let full = format!("{marker}\n{body}");
    if full.chars().count() <= limit {
        return full;
    }
    let note = format!("\n\n… ({cut})\n");
    let keep = limit - note.chars().count();
    let mut cut: String = full.chars().take(keep).collect();
    // An open ``` fence would swallow the note.
    if cut.matches("```").count() % 2 == 1 {
        // Room for the closing fence, counted in characters like the limit.
        for _ in 0..4 {
            cut.pop();
        }
        cut.push_str("\n```");
    }
    cut.push_str(&note);
    cut
}

/// Whether `body` carries `marker`: on its first line, or on a line of its own.
pub fn carries(body: &str, marker: &str) -> bool {
    body.starts_with(marker) || body.contains(&format!("\n{marker}"))
}
