//! The plan comment's access table: for each channel whose access the plan changes, what
//! each role or person gains and loses there, in the three words a reviewer reads first
//! (view, send, manage), so the comment shows at a glance what turned on and what turned
//! off. The lines below it (and the page, `plan --format html`) say the rest.

use std::fmt::Write;

use crate::access::diff::AccessChange;
use crate::inert;

/// Channels (rows) and roles or people (columns) the table shows at most; the rest are
/// counted under it, and listed in the lines that follow.
const MAX_ROWS: usize = 15;
const MAX_COLUMNS: usize = 6;

/// The table, or nothing when the plan changes nobody's access.
pub fn markdown(lines: &[AccessChange]) -> Option<String> {
    if lines.is_empty() {
        return None;
    }
    // Rows and columns in the plan's order; the columns that change most first.
    let mut rows: Vec<&str> = Vec::new();
    let mut columns: Vec<(&str, usize)> = Vec::new();
    for l in lines {
        let row = l.channel.as_deref().unwrap_or(GUILD_WIDE);
        if !rows.contains(&row) {
            rows.push(row);
        }
        match columns.iter_mut().find(|(w, _)| *w == l.who) {
            Some((_, n)) => *n += 1,
            None => columns.push((&l.who, 1)),
        }
    }
    // What widens access first, then changes in channels that exist, then new channels
    // (whose lines widen nothing): the rows the cut keeps are those a reviewer must see.
    let rank = |row: &str| {
        let here = || {
            lines
                .iter()
                .filter(move |l| l.channel.as_deref().unwrap_or(GUILD_WIDE) == row)
        };
        if here().any(|l| !l.widening.is_empty()) {
            0
        } else if here().all(|l| l.new_channel) {
            2
        } else {
            1
        }
    };
    rows.sort_by_key(|r| rank(r));
    let mut by_weight = columns.clone();
    by_weight.sort_by_key(|w| std::cmp::Reverse(w.1));
    let shown: Vec<&str> = columns
        .iter()
        .map(|(w, _)| *w)
        .filter(|w| {
            by_weight[..by_weight.len().min(MAX_COLUMNS)]
                .iter()
                .any(|(x, _)| x == w)
        })
        .collect();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "**Access in the channels this plan changes** (+ gains, − loses; send is join for voice)\n"
    );
    let _ = write!(out, "| Channel |");
    for who in &shown {
        let _ = write!(out, " {} |", inert::markdown(who));
    }
    let _ = write!(out, "\n|---|");
    for _ in &shown {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    for row in rows.iter().take(MAX_ROWS) {
        let _ = write!(out, "| {} |", inert::markdown(row));
        for who in &shown {
            let cell = lines
                .iter()
                .filter(|l| l.who == *who && l.channel.as_deref().unwrap_or(GUILD_WIDE) == *row)
                .map(cell)
                .collect::<Vec<_>>()
                .join(" ");
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    let more_rows = rows.len().saturating_sub(MAX_ROWS);
    let more_columns = columns.len() - shown.len();
    let more: Vec<String> = [
        (more_rows, "channel(s)"),
        (more_columns, "role(s) or people"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} more {what}"))
    .collect();
    if !more.is_empty() {
        let _ = writeln!(out, "\n{}: in the list below.", more.join(" and "));
    }
    out.push('\n');
    Some(out)
}

/// The row of what a role or person gains or loses guild-wide.
const GUILD_WIDE: &str = "(guild-wide)";

/// "+view +send −manage +2 more": the three words, then how many other permissions change.
fn cell(l: &AccessChange) -> String {
    let mut words = Vec::new();
    let mut others = 0;
    for (sign, perms) in [("+", &l.gains), ("−", &l.loses)] {
        let mut said: Vec<&str> = Vec::new();
        for p in perms {
            match word(p) {
                Some(w) if !said.contains(&w) => {
                    said.push(w);
                    words.push(format!("{sign}{w}"));
                }
                Some(_) => {}
                None => others += 1,
            }
        }
    }
    if others > 0 {
        words.push(format!("±{others} more"));
    }
    words.join(" ")
}

/// The word a permission is read as in the table, if it is one of the three.
fn word(permission: &str) -> Option<&'static str> {
    match permission {
        "view_channel" => Some("view"),
        "send_messages" | "connect" => Some("send"),
        "administrator" => Some("admin"),
        p if p.starts_with("manage_") => Some("manage"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::diff::WhoKind;

    fn line(who: &str, channel: Option<&str>, gains: &[&str], loses: &[&str]) -> AccessChange {
        AccessChange {
            who: who.to_owned(),
            who_kind: WhoKind::Role,
            who_id: None,
            channel: channel.map(str::to_owned),
            channel_id: None,
            gains: gains.iter().map(|s| (*s).to_owned()).collect(),
            loses: loses.iter().map(|s| (*s).to_owned()).collect(),
            new_channel: false,
            category: false,
            widening: Vec::new(),
            changes: Vec::new(),
        }
    }

    #[test]
    fn a_cell_says_view_send_manage_and_counts_the_rest() {
        let t = markdown(&[
            line(
                "Members",
                Some("Staff/modlog"),
                &["view_channel", "send_messages", "embed_links"],
                &[],
            ),
            line(
                "Helper",
                Some("Staff/modlog"),
                &[],
                &["manage_messages", "manage_threads"],
            ),
            line("Helper", None, &["kick_members"], &[]),
        ])
        .unwrap();
        assert!(t.contains("| Channel | Members | Helper |"), "{t}");
        assert!(
            t.contains("| Staff/modlog | +view +send ±1 more | −manage |"),
            "{t}"
        );
        assert!(t.contains("| \\(guild\\-wide\\) |  | ±1 more |"), "{t}");
        assert!(markdown(&[]).is_none());
    }

    #[test]
    fn many_channels_and_people_are_counted_not_shown() {
        let lines: Vec<AccessChange> = (0..20)
            .flat_map(|c| {
                (0..8).map(move |w| {
                    line(
                        &format!("r{w}"),
                        Some(&format!("c{c}")),
                        &["view_channel"],
                        &[],
                    )
                })
            })
            .collect();
        let t = markdown(&lines).unwrap();
        assert_eq!(t.lines().filter(|l| l.starts_with("| c")).count(), MAX_ROWS);
        assert!(
            t.contains("5 more channel(s) and 2 more role(s) or people"),
            "{t}"
        );
    }
}
