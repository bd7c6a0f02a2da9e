//! Rules for rosters (`roles[].members`) and bans: each user once per list, nobody both
//! banned and on a roster (a ban removes the member), no roster on @everyone, reasons Discord
//! accepts, and `prune.bans` only beside a ban list.

use hashbrown::HashMap;

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
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (k, m) in members.iter().enumerate() {
            let at = format!("{path}.members[{k}]");
            if let Some(first) = seen.insert(m.id.0.as_str(), k) {
                out.push(
                    Diagnostic::error(
                        format!("{at}.id"),
                        format!(
                            "user {} is listed twice on this roster (first at {path}.members[{first}])",
                            m.id
                        ),
                    )
                    .with_help("remove this entry"),
                );
            }
            on_roster.entry(m.id.0.as_str()).or_insert(at);
        }
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
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (k, b) in bans.iter().enumerate() {
        let at = format!("bans[{k}]");
        if let Some(first) = seen.insert(b.id.0.as_str(), k) {
            out.push(
                Diagnostic::error(
                    format!("{at}.id"),
                    format!("user {} is banned twice (first at bans[{first}])", b.id),
                )
                .with_help("remove this entry; in a folder manifest, from one of its files"),
            );
        }
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
