//! Rules for rosters (`roles[].members`) and bans: each user once per list, nobody both
//! banned and on a roster (a ban removes the member), no roster on @everyone, reasons Discord
//! accepts, and `prune.bans` only beside a ban list.

use hashbrown::HashMap;

use crate::manifest::Snowflake;

use super::*;

pub(super) fn rosters_and_bans(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut on_roster: HashMap<&str, String> = HashMap::new();
    for (path, r) in &ctx.roles {
        let Some(members) = &r.members else { continue };
        if r.name == EVERYONE {
            out.push(
                Diagnostic::error(
                    format!("{path}.members"),
                    "@everyone has no roster: every member holds it",
                )
                .with_help("remove `members` from @everyone"),
            );
            continue;
        }
        for (k, m) in members.iter().enumerate() {
            on_roster
                .entry(m.id.0.as_str())
                .or_insert_with(|| format!("{path}.members[{k}]"));
        }
        once_each(
            members.iter().map(|m| &m.id),
            |k| format!("{path}.members[{k}]"),
            ("is listed twice on this roster", "remove this entry"),
            out,
        );
    }
    let Some(bans) = &ctx.manifest.bans else {
        if ctx.manifest.prune.bans {
            out.push(
                Diagnostic::warning(
                    "prune.bans",
                    "`prune.bans` does nothing without a `bans` list: bans are not managed",
                )
                .with_help("add `bans:` (an empty list lifts every ban), or remove `prune.bans`"),
            );
        }
        return;
    };
    once_each(
        bans.iter().map(|b| &b.id),
        |k| format!("bans[{k}]"),
        (
            "is banned twice",
            "remove this entry; in a folder manifest, from one of its files",
        ),
        out,
    );
    for (k, b) in bans.iter().enumerate() {
        let at = format!("bans[{k}]");
        if let Some(roster) = on_roster.get(b.id.0.as_str()) {
            out.push(
                Diagnostic::error(
                    format!("{at}.id"),
                    format!("user {} is banned and on a roster ({roster})", b.id),
                )
                .with_help("a ban removes the member from the guild: remove one of the two"),
            );
        }
        if let Some(reason) = &b.reason {
            let n = reason.chars().count();
            if n == 0 || n > MAX_REASON_CHARS {
                out.push(Diagnostic::error(
                    format!("{at}.reason"),
                    format!("a ban's reason is 1-{MAX_REASON_CHARS} characters, not {n}"),
                ));
            }
        }
    }
}

/// Each user once per list: an error at each entry naming a user an earlier entry named
/// (`user ID {twice} (first at PATH)`, PATH the earliest).
fn once_each<'a>(
    users: impl IntoIterator<Item = &'a Snowflake>,
    at: impl Fn(usize) -> String,
    (twice, help): (&str, &str),
    out: &mut Vec<Diagnostic>,
) {
    let mut firsts: HashMap<&str, usize> = HashMap::new();
    for (k, id) in users.into_iter().enumerate() {
        let first = *firsts.entry(id.0.as_str()).or_insert(k);
        if first != k {
            out.push(
                Diagnostic::error(
                    format!("{}.id", at(k)),
                    format!("user {id} {twice} (first at {})", at(first)),
                )
                .with_help(help),
            );
        }
    }
}
