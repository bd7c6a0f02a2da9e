//! The drift report as text (a who / when / why line under each drifted field),
//! markdown (one table, high risk first, sized for one GitHub comment) and JSON.
//!
//! Names, usernames, reasons, values and the errors of reads that failed come from
//! outside: each is shown through [`inert`] (`t` for text, `cell` for markdown).

use std::fmt::Write;

use serde_json::Value;

use super::{Attribution, Blame, DriftReport, DriftedObject};
use crate::inert;
use crate::manifest::schema::bare;
use crate::plan::Action;
use crate::plan::image::ImageValue;
use crate::report::Format;

/// Rows of the markdown table at most; GitHub comments hold 65,536 characters and
/// a row with a long reason takes ~600 (names and reasons are cut at 100 characters).
pub const MARKDOWN_MAX_ROWS: usize = 60;

/// The report as text, markdown (a PR or issue comment) or JSON (docs/drift.md).
pub fn render(r: &DriftReport, format: Format) -> String {
    match format {
        Format::Json => inert::json_pretty(r) + "\n",
        Format::Text => text(r),
        Format::Markdown => markdown(r),
    }
}

fn verb(a: Action) -> &'static str {
    match a {
        Action::Create => "missing (declared, not in the guild)",
        Action::Update => "changed",
        Action::Reorder => "reordered",
        Action::Delete => "to be deleted (the manifest removes it)",
    }
}

/// A value on one line, as it reads (made inert where it is shown).
fn show(v: &Value) -> String {
    if let Some(image) = ImageValue::of(v) {
        return image.to_string();
    }
    match v {
        Value::Null => "(none)".to_owned(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(bare).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// One line of the text report: made inert whole, since every value in it may come from
/// outside and none of it is meant to hold a control character or a line break.
fn put(out: &mut String, line: &str) {
    out.push_str(&inert::terminal(line));
    out.push('\n');
}

/// "alice (id 1, human) · 2025-… (3 minutes ago) · reason "…"".
fn who_when_why(a: &Attribution) -> String {
    let id = a
        .user
        .id
        .as_deref()
        .map(|i| format!("id {i}, "))
        .unwrap_or_default();
    let mut s = format!(
        "{} ({id}{}) · {} ({})",
        a.user.name,
        a.user.kind.replace('_', " "),
        a.at.replace('T', " ").replace('Z', " UTC"),
        a.ago
    );
    match &a.reason {
        Some(r) => {
            let _ = write!(s, " · reason {r:?}");
        }
        None if a.user.kind == "discord" => {
            let _ = write!(s, " · audit-log type {}, no person's change", a.action_type);
        }
        None => s.push_str(" · no reason given"),
    }
    if let Some(g) = &a.guildctl {
        let current = match g.current {
            Some(true) => ", the manifest's current commit",
            Some(false) => ", not the manifest's current commit",
            None => "",
        };
        match g.commit.as_deref() {
            Some(commit) => {
                let _ = write!(s, " · guildctl apply from commit {commit}{current}");
            }
            None => s.push_str(" · guildctl apply (its commit was not recorded)"),
        }
    }
    if a.claims_guildctl {
        s.push_str(" · the reason claims guildctl, but the entry is not the applying bot's");
    }
    s
}

fn blame_line(b: &Blame) -> String {
    let mut s = match (&b.entry, &b.not_found) {
        (Some(a), _) => who_when_why(a),
        (None, Some(why)) => format!("not found: {why}"),
        (None, None) => "not found".to_owned(),
    };
    if let Some(g) = &b.previous_guildctl {
        let _ = write!(s, "; before that, guildctl: {}", who_when_why(g));
    }
    s
}

fn text(r: &DriftReport) -> String {
    let mut out = String::new();
    put(
        &mut out,
        &format!("Drift in guild {} ({})", r.guild_name, r.guild_id),
    );
    out.push('\n');
    if !r.policies.is_empty() {
        put(
            &mut out,
            &format!(
                "HIGH RISK, policies the live guild breaks ({}):",
                r.policies.len()
            ),
        );
        for b in &r.policies {
            put(
                &mut out,
                &format!("  ! policy {} ({}): {}", b.policy, b.policy_at, b.what),
            );
        }
        out.push('\n');
    }
    let widened: Vec<_> = r.drifted.iter().filter(|d| d.high_risk).collect();
    if !widened.is_empty() {
        put(
            &mut out,
            &format!(
                "HIGH RISK, managed but widened by hand ({}):",
                widened.len()
            ),
        );
        for d in &widened {
            write_drifted(&mut out, d, "!");
        }
        out.push('\n');
    }
    let high: Vec<_> = r.unmanaged.iter().filter(|u| u.high_risk).collect();
    if !high.is_empty() {
        put(
            &mut out,
            &format!("HIGH RISK, not in the manifest ({}):", high.len()),
        );
        for u in &high {
            put(
                &mut out,
                &format!("  ! {} {} (id {}): {}", u.kind, u.name, u.id, u.risk),
            );
            put(
                &mut out,
                &format!("      created by: {}", blame_line(&u.blame)),
            );
        }
        out.push('\n');
    }
    let rest: Vec<_> = r.drifted.iter().filter(|d| !d.high_risk).collect();
    for d in &rest {
        write_drifted(&mut out, d, "~");
    }
    if !rest.is_empty() {
        out.push('\n');
    }
    let low: Vec<_> = r.unmanaged.iter().filter(|u| !u.high_risk).collect();
    if !low.is_empty() {
        put(
            &mut out,
            &format!("Not in the manifest, low risk ({}):", low.len()),
        );
        for u in &low {
            let made = match &u.blame.entry {
                Some(a) => format!("created by {} {}", a.user.name, a.ago),
                None => "creator unknown".to_owned(),
            };
            let marker = if u.medium_risk { "*" } else { "-" };
            put(
                &mut out,
                &format!(
                    "  {marker} {} {} (id {}): {}; {made}",
                    u.kind, u.name, u.id, u.risk
                ),
            );
        }
        out.push('\n');
    }
    for line in doors_lines(r) {
        put(&mut out, &line);
    }
    if let Some(review) = &r.access_review {
        put(&mut out, "Who holds dangerous permissions (access review):");
        for line in review_lines(review) {
            put(&mut out, &format!("  - {line}"));
        }
        out.push('\n');
    }
    if !r.unreadable.is_empty() {
        put(&mut out, "Not read:");
        for u in &r.unreadable {
            put(&mut out, &format!("  - {}: {}", u.part, u.why));
        }
        out.push('\n');
    }
    for p in &r.problems {
        put(
            &mut out,
            &format!("Manifest problem (apply would refuse): {p}"),
        );
    }
    for d in &r.duplicates {
        put(
            &mut out,
            &format!("Duplicate ({}): {}", d.source, d.describe()),
        );
    }
    put(&mut out, &summary(r));
    out
}

/// The access review, one line per role holding a dangerous permission, then the owner.
fn review_lines(review: &super::AccessReview) -> Vec<String> {
    let mut out = Vec::new();
    for role in &review.roles {
        let mut holders: Vec<String> = role
            .members
            .iter()
            .map(|m| {
                let given = match &m.granted.entry {
                    Some(a) => format!("given by {} {}", a.user.name, a.ago),
                    None => "who gave it is not in the audit log read".to_owned(),
                };
                format!("{} ({given})", m.name)
            })
            .collect();
        match role.others {
            Some(0) if !holders.is_empty() => {}
            Some(0) => holders.push("nobody".to_owned()),
            Some(n) if role.members.is_empty() => {
                holders.push(format!("{n} member(s), not on a roster"))
            }
            Some(n) => holders.push(format!("and {n} more, not on the roster")),
            None => holders.push("holders not counted".to_owned()),
        }
        let managed = if role.managed {
            " (a role Discord gives: a bot's or an integration's)"
        } else {
            ""
        };
        out.push(format!(
            "{}{managed} holds {}: {}",
            role.role,
            role.dangerous.join(", "),
            holders.join("; ")
        ));
    }
    if out.is_empty() {
        out.push("no role holds a dangerous permission".to_owned());
    }
    out.push(format!(
        "the owner, {}, holds every permission whatever their roles",
        review.owner
    ));
    if let Some(why) = &review.uncounted {
        out.push(format!("holders not counted: {why}"));
    }
    out
}

/// The lockdown in force and the prune count, one line each.
fn doors_lines(r: &DriftReport) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(l) = &r.lockdown {
        let mut parts = Vec::new();
        if let Some(t) = &l.invites_until {
            parts.push(format!("joins (invites) paused until {t}"));
        }
        if let Some(t) = &l.dms_until {
            parts.push(format!("DMs paused until {t}"));
        }
        out.push(format!(
            "Lockdown in force: {} (`guildctl lockdown --lift` ends it)",
            parts.join("; ")
        ));
    }
    if let Some(p) = &r.prune_count {
        out.push(match (p.members, &p.unreadable) {
            (Some(n), _) => format!(
                "Prune count: {n} member(s) without roles inactive for {} day(s) would be removed by a prune (read only)",
                p.days
            ),
            (None, why) => format!(
                "Prune count for {} day(s) not read: {}",
                p.days,
                why.as_deref().unwrap_or("unknown")
            ),
        });
    }
    out
}

/// One drifted object: its line, who made or removed it, and each field with who / when
/// / why and, where the live value widens access, the risk.
fn write_drifted(out: &mut String, d: &DriftedObject, marker: &str) {
    let id =
        d.id.as_deref()
            .map(|i| format!(" (id {i})"))
            .unwrap_or_default();
    put(
        out,
        &format!(
            "  {marker} {} {}{id}: {}",
            d.kind.label(),
            d.name,
            verb(d.action)
        ),
    );
    if let Some(b) = &d.blame {
        let label = if d.action == Action::Create {
            "deleted by"
        } else {
            "created by"
        };
        put(out, &format!("      {label}: {}", blame_line(b)));
    }
    if d.action == Action::Create {
        return;
    }
    for f in &d.fields {
        put(
            out,
            &format!(
                "      {}: live {} ≠ manifest {}",
                f.field,
                show(&f.live),
                show(&f.manifest)
            ),
        );
        if let Some(risk) = &f.risk {
            put(out, &format!("        HIGH RISK: {risk}"));
        }
        put(
            out,
            &format!("        who / when / why: {}", blame_line(&f.blame)),
        );
    }
}

fn summary(r: &DriftReport) -> String {
    let head = match (r.drifted.is_empty(), r.problems.len(), r.duplicates.len()) {
        (true, 0, 0) => "No changes: the guild matches the manifest. ".to_owned(),
        (true, 0, n) => format!(
            "No managed value differs, but {n} declared entr{} match{} more than one live object (above). ",
            if n == 1 { "y" } else { "ies" },
            if n == 1 { "es" } else { "" }
        ),
        (true, n, _) => format!(
            "The guild could not be shown to match the manifest: {n} manifest problem(s) above. "
        ),
        (false, _, _) => String::new(),
    };
    let fields: usize = r.drifted.iter().map(|d| d.fields.len().max(1)).sum();
    let widened = match r.high_risk_drift() {
        0 => String::new(),
        n => format!(", {n} of them high risk"),
    };
    let a = &r.audit_log;
    let broken = match r.policies.len() {
        0 => String::new(),
        n => format!("{n} policy breach(es), "),
    };
    format!(
        "{head}{broken}{} drifted object(s) ({fields} field(s)){widened}, {} high-risk and {} other unmanaged object(s). Audit log: {} page(s), {} entries read (stopped: {}).",
        r.drifted.len(),
        r.high_risk(),
        r.unmanaged.len() - r.high_risk(),
        a.pages_read,
        a.entries_read,
        a.stopped.replace('_', " ")
    )
}

/// A table cell: cut to `max` characters, then inert markdown on one line (pipes
/// escaped, line breaks shown as `\n`).
fn cell(s: &str, max: usize) -> String {
    let cut: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        inert::markdown(&format!("{cut}…"))
    } else {
        inert::markdown(&cut)
    }
}

fn md_who(b: &Blame) -> (String, String, String) {
    match &b.entry {
        Some(a) => {
            let who = format!(
                "{} ({})",
                cell(&a.user.name, 60),
                a.user.kind.replace('_', " ")
            );
            let when = format!(
                "{} ({})",
                a.at.replace('T', " ").replace('Z', " UTC"),
                a.ago
            );
            let mut why = a
                .reason
                .as_deref()
                .map(|r| cell(r, 100))
                .unwrap_or_else(|| "—".into());
            if let Some(g) = &a.guildctl {
                let _ = write!(
                    why,
                    " (guildctl, commit {}{})",
                    g.commit.as_deref().unwrap_or("?"),
                    match g.current {
                        Some(true) => ", current",
                        Some(false) => ", not current",
                        None => "",
                    }
                );
            }
            if a.claims_guildctl {
                why.push_str(" (claims guildctl, but not the applying bot's change)");
            }
            (who, when, why)
        }
        None => (
            "not found".into(),
            "—".into(),
            cell(b.not_found.as_deref().unwrap_or(""), 160),
        ),
    }
}

/// A drifted object's rows: who made or removed it, then one per field; a field whose
/// live value widens access is marked high risk and says what it grants.
fn drifted_rows(rows: &mut Vec<String>, d: &DriftedObject) {
    let name = format!("{} {}", d.kind.label(), cell(&d.name, 80));
    if let Some(b) = &d.blame {
        let (who, when, why) = md_who(b);
        rows.push(format!(
            "| drift | {name} | {} | {who} | {when} | {why} |",
            verb(d.action)
        ));
    }
    if d.action == Action::Create {
        return;
    }
    for f in &d.fields {
        let (who, when, why) = md_who(&f.blame);
        let (level, risk) = match &f.risk {
            Some(r) => ("🔴 HIGH", format!("; {}", cell(r, 120))),
            None => ("drift", String::new()),
        };
        rows.push(format!(
            "| {level} | {name} | {}: {} → manifest {}{risk} | {who} | {when} | {why} |",
            cell(&f.field, 40),
            cell(&show(&f.live), 60),
            cell(&show(&f.manifest), 60)
        ));
    }
}

fn markdown(r: &DriftReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### guildctl drift report for **{}** ({})\n",
        cell(&r.guild_name, 100),
        inert::markdown_code(&r.guild_id)
    );
    let _ = writeln!(out, "{}\n", summary(r));
    for line in doors_lines(r) {
        let _ = writeln!(out, "{}\n", inert::markdown(&line));
    }
    let mut rows: Vec<String> = Vec::new();
    for b in &r.policies {
        rows.push(format!(
            "| 🔴 HIGH | policy {} | breaks {}: {} | — | — | — |",
            cell(&b.policy, 60),
            inert::markdown_code(&b.policy_at),
            cell(&b.what, 200)
        ));
    }
    for d in r.drifted.iter().filter(|d| d.high_risk) {
        drifted_rows(&mut rows, d);
    }
    for u in r.unmanaged.iter().filter(|u| u.high_risk) {
        let (who, when, why) = md_who(&u.blame);
        rows.push(format!(
            "| 🔴 HIGH | {} {} | not in the manifest: {} | {who} | {when} | {why} |",
            u.kind,
            cell(&u.name, 80),
            cell(&u.risk, 100)
        ));
    }
    for d in r.drifted.iter().filter(|d| !d.high_risk) {
        drifted_rows(&mut rows, d);
    }
    for u in r.unmanaged.iter().filter(|u| !u.high_risk) {
        let (who, when, why) = md_who(&u.blame);
        let level = if u.medium_risk { "🟠 medium" } else { "low" };
        rows.push(format!(
            "| {level} | {} {} | not in the manifest: {} | {who} | {when} | {why} |",
            u.kind,
            cell(&u.name, 80),
            cell(&u.risk, 100)
        ));
    }
    if !rows.is_empty() {
        let _ = writeln!(out, "| risk | object | what | who | when (UTC) | why |");
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        let total = rows.len();
        for row in rows.iter().take(MARKDOWN_MAX_ROWS) {
            let _ = writeln!(out, "{row}");
        }
        if total > MARKDOWN_MAX_ROWS {
            let _ = writeln!(
                out,
                "\n{} more row(s) left out to fit one comment; run `guildctl drift --format json` for all.",
                total - MARKDOWN_MAX_ROWS
            );
        }
        out.push('\n');
    }
    if let Some(review) = &r.access_review {
        let lines = review_lines(review);
        let _ = writeln!(
            out,
            "<details><summary>Access review: who holds dangerous permissions ({} role(s))</summary>\n",
            review.roles.len()
        );
        for line in &lines {
            let _ = writeln!(out, "- {}", cell(line, 1500));
        }
        let _ = writeln!(out, "\n</details>\n");
    }
    if !r.unreadable.is_empty() {
        let _ = writeln!(out, "**Not read**\n");
        for u in &r.unreadable {
            let _ = writeln!(out, "- {}: {}", cell(&u.part, 40), cell(&u.why, 300));
        }
        out.push('\n');
    }
    for p in &r.problems {
        let _ = writeln!(out, "- manifest problem: {}", cell(p, 300));
    }
    for d in &r.duplicates {
        let _ = writeln!(
            out,
            "- duplicate ({}): {}",
            inert::markdown_code(&d.source),
            cell(&d.describe(), 500)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drift::{Actor, GuildctlChange};

    fn applied(commit: Option<&str>) -> Attribution {
        Attribution {
            entry_id: "1".into(),
            action_type: crate::discord::audit::action::CHANNEL_UPDATE,
            user: Actor {
                id: Some("2".into()),
                name: "guildctl".into(),
                display_name: None,
                kind: "this_bot".into(),
            },
            at: "2026-01-01T00:00:00Z".into(),
            ago: "1 hour ago".into(),
            reason: Some("guildctl apply".into()),
            guildctl: Some(GuildctlChange {
                commit: commit.map(str::to_owned),
                current: None,
            }),
            claims_guildctl: false,
        }
    }

    #[test]
    fn an_apply_without_a_commit_is_not_from_commit_unknown_commit() {
        let line = who_when_why(&applied(None));
        assert!(!line.contains("unknown commit"), "{line}");
        assert!(
            line.ends_with("guildctl apply (its commit was not recorded)"),
            "{line}"
        );
        let line = who_when_why(&applied(Some("abc1234")));
        assert!(
            line.ends_with("guildctl apply from commit abc1234"),
            "{line}"
        );
    }
}
