//! The plan comment's access table: for each channel whose access the plan changes, what
//! each role or person gains and loses there, in the three words a reviewer reads first
//! (view, send, manage), so the comment shows at a glance what turned on and what turned
//! off. The lines below it (and the page, `plan --format html`) say the rest.

use std::fmt::Write;

use hashbrown::HashMap;

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
    // One pass over the lines (a plan at Discord's limits has 100,000 and more): each row
    // and column found once by its index, with what ranks it.
    let mut rows: Vec<Row> = Vec::new();
    let mut row_at: HashMap<&str, usize> = HashMap::new();
    let mut columns: Vec<(&str, usize)> = Vec::new();
    let mut column_at: HashMap<&str, usize> = HashMap::new();
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(lines.len());
    for l in lines {
        let name = l.channel.as_deref().unwrap_or(GUILD_WIDE);
        let r = *row_at.entry(name).or_insert_with(|| {
            rows.push(Row {
                name,
                widens: false,
                all_new: true,
            });
            rows.len() - 1
        });
        rows[r].widens |= !l.widening.is_empty();
        rows[r].all_new &= l.new_channel;
        let c = *column_at.entry(&l.who).or_insert_with(|| {
            columns.push((&l.who, 0));
            columns.len() - 1
        });
        columns[c].1 += 1;
        placed.push((r, c));
    }
    // What widens access first, then changes in channels that exist, then new channels
    // (whose lines widen nothing): the rows the cut keeps are those a reviewer must see.
    // Columns keep the plan's order; those with most lines are shown.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&r| rows[r].rank());
    let mut by_weight: Vec<usize> = (0..columns.len()).collect();
    by_weight.sort_by_key(|&c| std::cmp::Reverse(columns[c].1));
    by_weight.truncate(MAX_COLUMNS);
    by_weight.sort_unstable();
    let shown = by_weight;
    // The cells shown, each with the lines that fall in it.
    let row_shown: HashMap<usize, usize> = order
        .iter()
        .take(MAX_ROWS)
        .enumerate()
        .map(|(k, &r)| (r, k))
        .collect();
    let column_shown: HashMap<usize, usize> =
        shown.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    let mut cells = vec![vec![Vec::new(); shown.len()]; row_shown.len()];
    for (l, (r, c)) in lines.iter().zip(placed) {
        if let (Some(&k), Some(&m)) = (row_shown.get(&r), column_shown.get(&c)) {
            cells[k][m].push(cell(l));
        }
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "**Access in the channels this plan changes** (+ gains, − loses; send is join for voice)\n"
    );
    let _ = write!(out, "| Channel |");
    for &c in &shown {
        let _ = write!(out, " {} |", inert::markdown(columns[c].0));
    }
    let _ = write!(out, "\n|---|");
    for _ in &shown {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    for (&r, row_cells) in order.iter().zip(&cells) {
        let _ = write!(out, "| {} |", inert::markdown(rows[r].name));
        for cell in row_cells {
            let _ = write!(out, " {} |", cell.join(" "));
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

/// A channel of the table (or the guild-wide row), and what ranks it.
struct Row<'a> {
    name: &'a str,
    /// One of its lines widens access.
    widens: bool,
    /// Every one of its lines is about a channel the plan creates.
    all_new: bool,
}

impl Row<'_> {
    fn rank(&self) -> u8 {
        match (self.widens, self.all_new) {
            (true, _) => 0,
            (false, false) => 1,
            (false, true) => 2,
        }
    }
}

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
