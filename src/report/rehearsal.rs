//! The rehearsal's verdict in the plan's text and markdown (JSON carries the value as is):
//! one line beside the plan's own verdict, then what was left undone or still differs,
//! and what the copy could not know.

use std::fmt::Write;

use crate::inert;
use crate::plan::Rehearsal;

/// Names shown of a long list before "… and N more"; the JSON has them all.
const SHOWN: usize = 10;

fn some(items: &[String], show: &dyn Fn(&str) -> String) -> String {
    let mut s: Vec<String> = items.iter().take(SHOWN).map(|i| show(i)).collect();
    if items.len() > SHOWN {
        s.push(format!("… and {} more", items.len() - SHOWN));
    }
    s.join("; ")
}

/// What a failed rehearsal lists, each under its label: the calls left undone, and what a
/// second plan still shows (the lists that are not empty).
fn what_went_wrong(r: &Rehearsal) -> impl Iterator<Item = (&'static str, &[String])> {
    [
        ("Left undone", r.left_undone.as_slice()),
        ("A second plan still shows", r.still_changes.as_slice()),
    ]
    .into_iter()
    .filter(|(_, items)| !items.is_empty())
}

/// For a terminal, after the summary line.
pub(super) fn text(out: &mut String, r: &Rehearsal, paint: &dyn Fn(&str, &str) -> String) {
    let show = |s: &str| inert::terminal(s).into_owned();
    let colour = if r.ok { "32" } else { "1;31" };
    let (verdict, detail) = r.verdict(&show, &show);
    let _ = writeln!(out, "\n{} {detail}", paint(colour, &format!("{verdict}:")));
    for (label, items) in what_went_wrong(r) {
        let _ = writeln!(out, "  {label}: {}", some(items, &show));
    }
    if !r.not_rehearsed.is_empty() {
        // What, not why: each item's reason is in the JSON and the markdown.
        let what: Vec<String> = r.not_rehearsed.iter().map(|i| short(i)).collect();
        let _ = writeln!(
            out,
            "  Not rehearsed ({}): {} (--format json says why)",
            what.len(),
            some(&what, &show)
        );
    }
}

/// "the welcome screen: the guild read got none…" → "the welcome screen": an item up to
/// its reason.
fn short(item: &str) -> String {
    let end = item.find([':', '(']).unwrap_or(item.len());
    item[..end].trim_end().to_owned()
}

/// For a pull request, right under the summary line.
pub(super) fn markdown(out: &mut String, r: &Rehearsal) {
    let show = |s: &str| inert::markdown(s);
    let code = |s: &str| inert::markdown_code(s);
    let (verdict, detail) = r.verdict(&show, &code);
    if r.ok {
        let _ = writeln!(out, "**{verdict}:** {detail}\n");
    } else {
        let _ = writeln!(
            out,
            "> [!CAUTION]\n> **{verdict}, apply will refuse:** {detail}"
        );
        for (label, items) in what_went_wrong(r) {
            let _ = writeln!(out, ">\n> {label}: {}", some(items, &show));
        }
        out.push('\n');
    }
    if !r.not_rehearsed.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>Not rehearsed ({})</summary>\n",
            r.not_rehearsed.len()
        );
        for item in &r.not_rehearsed {
            let _ = writeln!(out, "- {}", show(item));
        }
        let _ = writeln!(out, "\n</details>\n");
    }
}
