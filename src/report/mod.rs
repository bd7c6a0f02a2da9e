//! Renders plans (and drift, which is a plan read the other way) as text for
//! terminals, markdown for pull-request comments, and JSON for machines.
//!
//! Every name, value, message and id in a plan may come from outside (the live guild, a
//! manifest in a pull request, a saved plan file): each is shown through [`inert`].

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

pub mod access;
mod access_table;
pub mod html;
mod new_member;
pub mod people;
mod rehearsal;
pub mod sarif;

use crate::inert;
use crate::plan::image::ImageValue;
use crate::plan::{Action, Change, FieldChange, Kind, ObjectRef, Plan, PlanError, Risk, risk};

/// How a report is shown (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a terminal (colour optional).
    Text,
    /// For a pull-request comment, an issue or a job summary.
    Markdown,
    /// For programs; each report's JSON form is documented with it (docs/).
    Json,
}

/// What the report is about: a plan of what apply would do, or drift found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heading {
    /// "Plan for guild …": what apply would change.
    Plan,
    /// "Drift in guild …": how the live guild differs from the manifest.
    Drift,
}

impl Heading {
    /// The report's title: in a terminal, and (`markdown`) in a comment or an issue.
    fn title(self, markdown: bool) -> &'static str {
        let [terminal, md] = match self {
            Heading::Plan => ["Plan for guild", "guildctl plan"],
            Heading::Drift => ["Drift in guild", "guildctl drift report"],
        };
        if markdown { md } else { terminal }
    }
}

#[derive(Debug, Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
}

/// The plan as people read it (text, with ANSI colour when `color`; markdown sized for a
/// comment) or as JSON ([`plan_json`]).
pub fn render(plan: &Plan, format: Format, heading: Heading, color: bool) -> String {
    match format {
        Format::Json => plan_json(plan),
        Format::Text => text(plan, heading, Style { color }),
        Format::Markdown => render_markdown(plan, heading, MarkdownRoom::Comment),
    }
}

/// The plan as JSON, opening with its `risks` (what it widens or destroys, read from its
/// changes): the form of `plan --format json` and of the saved plan (`--out`). Reading a
/// plan back ignores `risks`: they are always read again from the changes.
pub fn plan_json(plan: &Plan) -> String {
    #[derive(Serialize)]
    struct WithRisks<'a> {
        risks: Vec<Risk>,
        #[serde(flatten)]
        plan: &'a Plan,
    }
    let with = WithRisks {
        risks: crate::judge::risks(plan),
        plan,
    };
    let mut s = inert::json_pretty(&with);
    s.push('\n');
    s
}

/// Where a markdown plan goes, which bounds its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkdownRoom {
    /// A pull-request comment or issue body: at most 65,536 characters.
    Comment,
    /// A GitHub Actions job summary: at most 1 MiB per step; the Action puts the whole
    /// plan there and links it from the comment.
    JobSummary,
}

impl MarkdownRoom {
    /// The most bytes the markdown takes (bytes, not characters: never more characters).
    pub fn bytes(self) -> usize {
        match self {
            MarkdownRoom::Comment => MARKDOWN_BUDGET,
            MarkdownRoom::JobSummary => JOB_SUMMARY_BUDGET,
        }
    }

    /// Where the whole plan is, after a cut.
    fn whole_plan(self) -> &'static str {
        match self {
            MarkdownRoom::Comment => {
                "The whole plan is in the run's job summary when the Action made this, in \
                 `guildctl plan --format text`, and in the saved plan (`--out`)."
            }
            MarkdownRoom::JobSummary => {
                "The saved plan (`--out`, the run's plan file) holds every change."
            }
        }
    }

    /// Why something was cut.
    fn to_fit(self) -> &'static str {
        match self {
            MarkdownRoom::Comment => "to fit a GitHub comment",
            MarkdownRoom::JobSummary => "to stay within a job summary's 1 MiB",
        }
    }
}

fn symbol(action: Action) -> (&'static str, &'static str, &'static str) {
    match action {
        Action::Create => ("+", "32", "create"),
        Action::Update => ("~", "33", "update"),
        Action::Reorder => ("↕", "36", "reorder"),
        Action::Delete => ("-", "31", "delete"),
    }
}

/// One line of counts: "2 to create, 1 to update, 0 to reorder, 0 to delete.", or that
/// nothing differs.
pub fn summary_line(plan: &Plan) -> String {
    // Never a bare "matches" while an entry matches two live objects (a create two applies
    // made at once): that is said at the entry, and here.
    let duplicates = match plan.duplicates.len() {
        0 => String::new(),
        1 => " 1 declared entry matches more than one live object (see the warnings).".to_owned(),
        n => format!(" {n} declared entries match more than one live object (see the warnings)."),
    };
    if plan.is_empty() {
        if duplicates.is_empty() {
            return "No changes: the guild matches the manifest.".to_owned();
        }
        return format!("No changes to make.{duplicates}");
    }
    format!(
        "{} to create, {} to update, {} to reorder, {} to delete.{duplicates}",
        plan.count(Action::Create),
        plan.count(Action::Update),
        plan.count(Action::Reorder),
        plan.count(Action::Delete)
    )
}

fn text(plan: &Plan, heading: Heading, st: Style) -> String {
    let mut out = format!(
        "{} {} ({})\n\n",
        heading.title(false),
        inert::terminal(&plan.guild_name),
        inert::terminal(&plan.guild_id)
    );
    if heading == Heading::Plan {
        write_risks(&mut out, &crate::judge::risks(plan), st);
    }
    for c in &plan.changes {
        write_change(&mut out, c, st);
    }
    if !plan.changes.is_empty() {
        out.push('\n');
    }
    if heading == Heading::Plan {
        write_access(&mut out, plan, st);
    }
    let _ = writeln!(out, "{}", st.paint("1", &summary_line(plan)));
    if heading == Heading::Plan {
        if let Some(kept) = policies_line(plan) {
            let _ = writeln!(out, "{}", inert::terminal(&kept));
        }
        if let Some(note) = policy_base_note(plan) {
            let _ = writeln!(out, "{}", inert::terminal(&note));
        }
        let refusals = plan.refusals();
        for refusal in &refusals {
            let _ = writeln!(
                out,
                "\n{} {}",
                st.paint("1;31", "Apply will refuse:"),
                inert::terminal(refusal)
            );
        }
        for (gate, passed) in gates_passed(plan) {
            let _ = writeln!(out, "\n{gate}: passes; {}", inert::terminal(&passed));
        }
        if let Some(r) = &plan.rehearsal {
            rehearsal::text(&mut out, r, &|code, s| st.paint(code, s));
        }
        if let Some(url) = &plan.widget_image_url {
            let _ = writeln!(out, "\nWidget image: {}", inert::terminal(url));
        }
    }
    write_notes(&mut out, plan, st);
    if heading == Heading::Plan {
        let _ = writeln!(
            out,
            "\n{}",
            digest_lines(plan, |v| inert::terminal(v).into_owned()).join("\n")
        );
    }
    out
}

/// The plan's digests, which `apply --plan` checks and reviewers match; `code` marks up
/// the values.
fn digest_lines(plan: &Plan, code: fn(&str) -> String) -> Vec<String> {
    let manifest = if plan.manifest_sha256.is_empty() {
        "(none)".to_owned()
    } else {
        code(&format!("sha256:{}", plan.manifest_sha256))
    };
    vec![
        format!(
            "Changes digest:  {}",
            code(&format!("sha256:{}", plan.changes_sha256))
        ),
        format!("Manifest digest: {manifest}"),
        format!(
            "Made for guild {} by guildctl {}",
            code(&plan.guild_id),
            code(&plan.guildctl_version)
        ),
    ]
}

/// Names from the guild or the manifest, as a terminal shows them.
fn text_name(s: &str) -> String {
    inert::terminal(s).into_owned()
}

/// Who gains and who loses what, where, once the plan is applied.
fn write_access(out: &mut String, plan: &Plan, st: Style) {
    if plan.access.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "{}",
        st.paint(
            "1",
            &format!("Access once applied ({}):", plan.access.len())
        )
    );
    for a in &plan.access {
        let _ = writeln!(out, "  {}", a.describe(&text_name));
    }
    out.push('\n');
}

/// "Policies: 3 kept (a, b, c)", when the manifest states policies; those the change
/// touched are said apart, never as kept: "…; changed by this plan: d (weakened), e
/// (Staff/#mod-log leaves)". With the base revision they were compared with.
fn policies_line(plan: &Plan) -> Option<String> {
    let mut touched: Vec<(&str, Vec<String>)> = Vec::new();
    for c in &plan.policy_changes {
        match touched.iter_mut().find(|(p, _)| *p == c.policy) {
            Some((_, said)) => said.push(c.short()),
            None => touched.push((&c.policy, vec![c.short()])),
        }
    }
    if plan.policies_kept.is_empty() && touched.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !plan.policies_kept.is_empty() {
        parts.push(format!(
            "{} kept ({})",
            plan.policies_kept.len(),
            plan.policies_kept.join(", ")
        ));
    }
    if !touched.is_empty() {
        let said: Vec<String> = touched
            .iter()
            .map(|(p, what)| format!("{p} ({})", what.join(", ")))
            .collect();
        parts.push(format!(
            "{} changed by this plan: {}",
            touched.len(),
            said.join(", ")
        ));
    }
    let compared = match &plan.policy_base {
        crate::plan::PolicyBase::Revision { revision, commit } => {
            let short: String = commit.chars().take(12).collect();
            if *revision == *commit || revision.starts_with(&short) {
                format!(" (compared with {short})")
            } else {
                format!(" (compared with {revision}, {short})")
            }
        }
        _ => String::new(),
    };
    Some(format!("Policies{compared}: {}", parts.join("; ")))
}

/// Why the policies were not compared with a base revision, for a plan with policies.
fn policy_base_note(plan: &Plan) -> Option<String> {
    if plan.policies_kept.is_empty() && plan.policy_changes.is_empty() {
        return None;
    }
    plan.policy_base.note().map(|n| format!("{n}."))
}

/// The gates a plan passes with something to say: what they let through, and by what.
fn gates_passed(plan: &Plan) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(p) = plan.deletion_gate.passed() {
        out.push(("Deletion gate", p));
    }
    if let Some(p) = plan.policy_gate.passed() {
        out.push(("Policy gate", p));
    }
    out
}

/// The risks first, each on its own line, never cut: what widens access or destroys.
fn write_risks(out: &mut String, risks: &[Risk], st: Style) {
    if risks.is_empty() {
        return;
    }
    let head = format!(
        "Widens access or destroys ({}): {}",
        risks.len(),
        risk::counts(risks)
    );
    let _ = writeln!(out, "{}", st.paint("1;31", &head));
    for r in risks {
        let _ = writeln!(out, "  {} {}", st.paint("31", "!"), r.describe(&text_name));
    }
    out.push('\n');
}

fn write_change(out: &mut String, c: &Change, st: Style) {
    let (sym, code, verb) = symbol(c.action);
    let id = c
        .object
        .id
        .as_ref()
        .map(|i| format!("  (id {})", inert::terminal(i)))
        .unwrap_or_default();
    // A reorder's name already says what is reordered ("role hierarchy"), and
    // guild-wide objects (welcome screen, onboarding, widget) have no name of their own.
    let mut words = vec![st.paint(code, sym), verb.to_owned()];
    if c.action != Action::Reorder {
        words.push(c.object.kind.label().to_owned());
    }
    if !c.object.name.is_empty() {
        words.push(st.paint("1", &inert::terminal(&c.object.name)));
    }
    let _ = writeln!(out, "  {}{id}{}", words.join(" "), person_notes(c, st));
    if let Some(p) = c.person.as_ref().filter(|_| c.bans_member()) {
        let held: Vec<String> = p
            .roles
            .iter()
            .map(|r| match r.dangerous.as_slice() {
                [] => inert::terminal(&r.name).into_owned(),
                d => format!(
                    "{} {}",
                    inert::terminal(&r.name),
                    st.paint(
                        "31",
                        &format!("(dangerous: {})", inert::terminal(&d.join(", ")))
                    )
                ),
            })
            .collect();
        let held = if held.is_empty() {
            "no role".to_owned()
        } else {
            held.join(", ")
        };
        let _ = writeln!(out, "      holds: {held}");
    }
    // A create's heading already names the object.
    let shown = c
        .fields
        .iter()
        .filter(|f| !(c.action == Action::Create && f.field.is_name()));
    for f in shown {
        write_field(out, f, c.action, st);
    }
}

/// What a change's heading line says of the user it names: for a new ban whether they are
/// a member, and a warning where the manifest's `name` for them is not their username.
fn person_notes(c: &Change, st: Style) -> String {
    let Some(p) = &c.person else {
        return String::new();
    };
    let mut out = String::new();
    if c.object.kind == Kind::Ban && c.action == Action::Create {
        out.push_str(if p.member {
            "  member"
        } else {
            "  not a member"
        });
    }
    if let Some(called) = &p.named_in_manifest {
        let _ = write!(
            out,
            "  {} the manifest calls them {}",
            st.paint("33", "!"),
            inert::terminal(&format!("{called:?}"))
        );
    }
    out
}

fn write_field(out: &mut String, f: &FieldChange, action: Action, st: Style) {
    let indent = "      ";
    let name = f.field.name();
    let field = inert::terminal(&name);
    match (&f.before, &f.after) {
        (Value::Array(before), Value::Array(after)) if action == Action::Reorder => {
            let _ = writeln!(out, "{indent}{field}:");
            let b: Vec<String> = before.iter().map(plain).collect();
            let a: Vec<String> = after.iter().map(plain).collect();
            write_line_diff(
                out,
                &b.join("\n"),
                &a.join("\n"),
                st,
                &format!("{indent}  "),
            );
        }
        (Value::Array(before), Value::Array(after))
            if f.field.is_set() && is_flat(before) && is_flat(after) =>
        {
            let b: Vec<String> = before.iter().map(plain).collect();
            let a: Vec<String> = after.iter().map(plain).collect();
            let added: Vec<&String> = a.iter().filter(|x| !b.contains(x)).collect();
            let removed: Vec<&String> = b.iter().filter(|x| !a.contains(x)).collect();
            let mut parts = Vec::new();
            if !added.is_empty() {
                parts.push(st.paint("32", &format!("+ {}", join(&added))));
            }
            if !removed.is_empty() {
                parts.push(st.paint("31", &format!("- {}", join(&removed))));
            }
            let _ = writeln!(out, "{indent}{field}: {}", parts.join("  "));
        }
        (Value::Null, Value::Array(after)) if f.field.is_set() => {
            let a: Vec<String> = after.iter().map(plain).collect();
            let _ = writeln!(out, "{indent}{field}: {}", a.join(", "));
        }
        (before, after)
            if is_long(before) || is_long(after) || before.is_array() || after.is_array() =>
        {
            let _ = writeln!(out, "{indent}{field}:");
            write_line_diff(
                out,
                &block(before),
                &block(after),
                st,
                &format!("{indent}  "),
            );
        }
        (Value::Null, after) => {
            let _ = writeln!(out, "{indent}{field}: {}", show(after));
        }
        (before, after) => {
            let _ = writeln!(out, "{indent}{field}: {} → {}", show(before), show(after));
        }
    }
}

/// A line diff of two texts; each line is shown inert (a value's own line breaks make the
/// lines, so a name or topic cannot add a line of its own choosing elsewhere).
fn write_line_diff(out: &mut String, before: &str, after: &str, st: Style, indent: &str) {
    // Every line ends with a newline, so a last line is not reported as changed.
    let terminate = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}\n")
        }
    };
    let (before, after) = (terminate(before), terminate(after));
    let diff = TextDiff::from_lines(&before, &after);
    for change in diff.iter_all_changes() {
        let line = inert::terminal(change.value().trim_end_matches('\n'));
        let (sign, code) = match change.tag() {
            ChangeTag::Delete => ("-", "31"),
            ChangeTag::Insert => ("+", "32"),
            ChangeTag::Equal => (" ", "0"),
        };
        let _ = writeln!(out, "{indent}{}", st.paint(code, &format!("{sign} {line}")));
    }
}

fn is_flat(items: &[Value]) -> bool {
    items.iter().all(|v| !v.is_object() && !v.is_array())
}

fn is_long(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.len() > 60 || s.contains('\n'))
}

/// A value on one line, inert.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => inert::terminal(s).into_owned(),
        other => inert::terminal(&other.to_string()).into_owned(),
    }
}

fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn show(v: &Value) -> String {
    if let Some(image) = ImageValue::of(v) {
        return inert::terminal(&image.to_string()).into_owned();
    }
    match v {
        Value::Null => "(none)".to_owned(),
        Value::String(s) => inert::terminal(&format!("{s:?}")).into_owned(),
        other => inert::terminal(&other.to_string()).into_owned(),
    }
}

/// One line per list item or overwrite, so a line diff reads well (made inert line by
/// line there).
fn block(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", plain_list(v)))
                    .collect::<Vec<_>>()
                    .join("; "),
                other => plain(other),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

fn plain_list(v: &Value) -> String {
    match v {
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        other => plain(other),
    }
}

fn write_notes(out: &mut String, plan: &Plan, st: Style) {
    if !plan.warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings:");
        for w in &plan.warnings {
            let at = w
                .source
                .as_ref()
                .map(|s| format!(" ({})", inert::terminal(s)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {} {}{at}",
                st.paint("33", "!"),
                inert::terminal(&w.message)
            );
        }
    }
    if !plan.unmanaged.is_empty() {
        let _ = writeln!(
            out,
            "\nNot in the manifest, kept as they are ({}): {}",
            plan.unmanaged.len(),
            unmanaged_line(&plan.unmanaged)
        );
    }
}

/// Unmanaged objects shown on a terminal at most.
const UNMANAGED_SHOWN: usize = 8;

/// "role Admin, channel #x, … and 21 more (5 roles, 17 channels, 4 webhooks)": a few by
/// name and the rest counted by kind, so a manifest that manages one corner of a guild
/// does not print the whole guild; JSON lists them all.
fn unmanaged_line(unmanaged: &[ObjectRef]) -> String {
    let mut line: Vec<String> = unmanaged
        .iter()
        .take(UNMANAGED_SHOWN)
        .map(|o| format!("{} {}", o.kind.label(), inert::terminal(&o.name)))
        .collect();
    if unmanaged.len() <= UNMANAGED_SHOWN {
        return line.join(", ");
    }
    let mut kinds: Vec<(Kind, usize)> = Vec::new();
    for o in unmanaged {
        match kinds.iter_mut().find(|(k, _)| *k == o.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((o.kind, 1)),
        }
    }
    let counted: Vec<String> = kinds
        .iter()
        .map(|&(k, n)| format!("{n} {}", plural(k.label(), n)))
        .collect();
    line.push(format!(
        "… and {} more ({} in all; --format json lists them)",
        unmanaged.len() - UNMANAGED_SHOWN,
        counted.join(", ")
    ));
    line.join(", ")
}

/// "role" → "roles", "category" → "categories", "roster entry" → "roster entries".
fn plural(label: &str, n: usize) -> String {
    if label == Kind::Overwrites.label() {
        return "channels' overwrites".to_owned();
    }
    match (n, label.strip_suffix('y')) {
        (1, _) => label.to_owned(),
        (_, Some(stem)) => format!("{stem}ies"),
        _ => format!("{label}s"),
    }
}

/// A pull-request comment or issue body holds at most 65,536 characters; the
/// markdown stays under this many bytes, leaving room for the marker and links the
/// Action adds.
pub const MARKDOWN_BUDGET: usize = 60_000;

/// A job summary takes at most 1 MiB per step; the rest is room for the digest line
/// the Action appends.
pub const JOB_SUMMARY_BUDGET: usize = 1_040_000;

/// Items shown of a long list (warnings, unmanaged objects, refusals) before
/// "… and N more".
const LIST_ITEMS: usize = 50;

/// Markdown for a pull request or an issue: the verdict line first, the details
/// folded, and never more than `room`'s bytes whatever the plan's size (the whole plan
/// stays in the text and JSON formats). `render` with [`Format::Markdown`] is for a comment.
pub fn render_markdown(plan: &Plan, heading: Heading, room: MarkdownRoom) -> String {
    let mut out = format!(
        "### {} for **{}** ({})\n\n",
        heading.title(true),
        inert::markdown(&plan.guild_name),
        inert::markdown_code(&plan.guild_id)
    );
    let _ = writeln!(out, "**{}**\n", summary_line(plan));
    for d in plan.duplicates.iter().take(LIST_ITEMS) {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {} ({})\n",
            inert::markdown_spans(&d.describe()),
            inert::markdown_code(&d.source)
        );
    }
    if heading == Heading::Plan {
        if let Some(r) = &plan.rehearsal {
            rehearsal::markdown(&mut out, r);
        }
        // The gate's own messages are fixed words; a saved plan file may say anything.
        for refusal in plan.refusals() {
            let _ = writeln!(
                out,
                "> [!CAUTION]\n> **Apply will refuse:** {}\n",
                inert::markdown(&refusal)
            );
        }
        for (gate, passed) in gates_passed(plan) {
            let _ = writeln!(out, "**{gate}:** passes; {}\n", inert::markdown(&passed));
        }
        if let Some(kept) = policies_line(plan) {
            let _ = writeln!(out, "**{}**\n", inert::markdown(&kept));
        }
        if let Some(note) = policy_base_note(plan) {
            let _ = writeln!(out, "> [!WARNING]\n> {}\n", inert::markdown(&note));
        }
    }

    let mut tail = String::new();
    if heading == Heading::Plan && !plan.access.is_empty() {
        tail.push_str(&access_table::markdown(&plan.access).unwrap_or_default());
        let items: Vec<String> = plan
            .access
            .iter()
            .map(|a| a.describe(&markdown_name))
            .collect();
        let summary = format!(
            "Access once applied: who gains or loses what ({})",
            items.len()
        );
        folded_list(&mut tail, &summary, &items);
    }
    if !plan.warnings.is_empty() {
        let items: Vec<String> = plan
            .warnings
            .iter()
            .map(|w| inert::markdown_spans(&w.message))
            .collect();
        folded_list(&mut tail, &format!("Warnings ({})", items.len()), &items);
    }
    if !plan.unmanaged.is_empty() {
        let items: Vec<String> = plan
            .unmanaged
            .iter()
            .map(|o| format!("{} {}", o.kind.label(), inert::markdown(&o.name)))
            .collect();
        let summary = format!("Not in the manifest, kept as they are ({})", items.len());
        folded_list(&mut tail, &summary, &items);
    }
    if heading == Heading::Plan {
        if let Some(url) = &plan.widget_image_url {
            let _ = writeln!(tail, "Widget image: {}\n", inert::markdown_code(url));
        }
        // Two trailing spaces: a line break in markdown.
        for line in digest_lines(plan, inert::markdown_code) {
            let _ = writeln!(tail, "{line}  ");
        }
    }

    // The risks take what they need before the changes; the changes' frame and the note
    // on what was left out are kept free for them.
    let risks = match heading {
        Heading::Plan => crate::judge::risks(plan),
        Heading::Drift => Vec::new(),
    };
    let reserved = if plan.changes.is_empty() {
        0
    } else {
        CHANGES_FRAME + LEFT_OUT_NOTE
    };
    let for_risks = room
        .bytes()
        .saturating_sub(out.len() + tail.len() + reserved);
    out.push_str(&risks_markdown(&risks, for_risks, room));
    if !plan.changes.is_empty() {
        let left = room.bytes().saturating_sub(out.len() + tail.len());
        out.push_str(&changes_markdown(plan, &risks, left, room));
    }
    out.push_str(&tail);
    out
}

/// Bytes of the changes' `<details>` and diff fence around the changes shown.
const CHANGES_FRAME: usize = 120;
/// Bytes kept for the note saying which changes were left out, before any names: its
/// fixed words and a count for each kind of change (9 kinds of object × 4 actions at most).
const LEFT_OUT_NOTE: usize = 400 + 40 * 36;

/// Names from the guild or the manifest in markdown: inert text.
fn markdown_name(s: &str) -> String {
    inert::markdown(s)
}

/// The risks, at most `budget` bytes: the count per kind always, then every line that
/// fits; when some do not, how many were left out and where the whole list is.
fn risks_markdown(risks: &[Risk], budget: usize, room: MarkdownRoom) -> String {
    if risks.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "**Widens access or destroys ({}):** {}\n\n",
        risks.len(),
        risk::counts(risks)
    );
    let lines: Vec<String> = risks
        .iter()
        .map(|r| format!("- {}\n", r.describe(&markdown_name)))
        .collect();
    let all: usize = lines.iter().map(String::len).sum();
    if out.len() + all < budget {
        lines.iter().for_each(|l| out.push_str(l));
        out.push('\n');
        return out;
    }
    let whole = match room {
        MarkdownRoom::Comment => {
            "every one is in the run's job summary when the Action made this, and in \
             `guildctl plan --format text`"
        }
        MarkdownRoom::JobSummary => {
            "every one is in `guildctl plan --format text` and in the saved plan's `risks`"
        }
    };
    let footer = |n: usize| {
        format!(
            "- … and {n} more left out {} (all {} are counted above); {whole}.\n\n",
            room.to_fit(),
            risks.len()
        )
    };
    let keep = budget.saturating_sub(out.len() + footer(risks.len()).len());
    let mut used = 0;
    let mut shown = 0;
    for l in &lines {
        if used + l.len() > keep {
            break;
        }
        used += l.len();
        shown += 1;
        out.push_str(l);
    }
    out.push_str(&footer(risks.len() - shown));
    out
}

/// The changes, folded, at most `left` bytes: whole changes in the plan's order, those
/// carrying a risk chosen first; those that do not fit are left out and named in a note
/// (counts per kind, then as many names as the room holds).
fn changes_markdown(plan: &Plan, risks: &[Risk], left: usize, room: MarkdownRoom) -> String {
    let blocks: Vec<String> = plan
        .changes
        .iter()
        .map(|c| {
            let mut b = String::new();
            write_change(&mut b, c, Style { color: false });
            // A diff block colours + and - lines on GitHub; fences inside values cannot close it.
            b.replace("```", "'''")
        })
        .collect();
    let open = format!(
        "<details><summary>Changes ({})</summary>\n\n```diff\n",
        plan.changes.len()
    );
    let close = "\n</details>\n\n";
    let fence = "```\n";
    let all: usize = blocks.iter().map(String::len).sum();
    let mut shown = vec![true; blocks.len()];
    if open.len() + all + fence.len() + close.len() > left {
        let budget = left.saturating_sub(open.len() + fence.len() + close.len() + LEFT_OUT_NOTE);
        let risky: hashbrown::HashSet<usize> = risks.iter().filter_map(|r| r.change).collect();
        let order = (0..blocks.len())
            .filter(|i| risky.contains(i))
            .chain((0..blocks.len()).filter(|i| !risky.contains(i)));
        let mut used = 0;
        for i in order {
            shown[i] = used + blocks[i].len() <= budget;
            if shown[i] {
                used += blocks[i].len();
            }
        }
    }
    let mut out = open;
    for (b, _) in blocks.iter().zip(&shown).filter(|(_, s)| **s) {
        out.push_str(b);
    }
    out.push_str(fence);
    let left_out: Vec<usize> = (0..blocks.len()).filter(|&i| !shown[i]).collect();
    if !left_out.is_empty() {
        // The note's words first, then names in what is left.
        let bare = left_out_note(plan, &left_out, 0, room).len();
        let names_room = left.saturating_sub(out.len() + 2 + bare + close.len());
        let _ = writeln!(
            out,
            "\n{}",
            left_out_note(plan, &left_out, names_room, room)
        );
    }
    out.push_str(close);
    out
}

/// "… 57 of 71 changes left out to fit a GitHub comment: 57 channel creates (#a, #b, …
/// and 40 more). The whole plan is in …"
fn left_out_note(plan: &Plan, left_out: &[usize], names_room: usize, room: MarkdownRoom) -> String {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for &i in left_out {
        let c = &plan.changes[i];
        let (_, _, verb) = symbol(c.action);
        let kind = match c.action {
            Action::Reorder => verb.to_owned(),
            _ => format!("{} {verb}", c.object.kind.label()),
        };
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let counts: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}{}", if *n == 1 { "" } else { "s" }))
        .collect();
    let mut names = String::new();
    let mut named = 0;
    for &i in left_out {
        let o = &plan.changes[i].object;
        let name = if o.name.is_empty() {
            o.kind.label().to_owned()
        } else {
            markdown_name(&o.name)
        };
        let sep = if named == 0 { "" } else { ", " };
        // Room for this name, the brackets and the words saying how many more there are.
        if names.len() + sep.len() + name.len() + 32 > names_room {
            break;
        }
        names.push_str(sep);
        names.push_str(&name);
        named += 1;
    }
    let rest = left_out.len() - named;
    let names = match (named, rest) {
        (0, _) => String::new(),
        (_, 0) => format!(" ({names})"),
        (_, n) => format!(" ({names} and {n} more)"),
    };
    format!(
        "… {} of {} changes left out {}: {}{names}. {}",
        left_out.len(),
        plan.changes.len(),
        room.to_fit(),
        counts.join(", "),
        room.whole_plan()
    )
}

/// A `<details>` list of at most [`LIST_ITEMS`] items, saying how many were left out.
fn folded_list(out: &mut String, summary: &str, items: &[String]) {
    let _ = writeln!(out, "<details><summary>{summary}</summary>\n");
    bullets(out, items);
    let _ = writeln!(out, "\n</details>\n");
}

/// At most [`LIST_ITEMS`] bullets, then how many more there are.
fn bullets(out: &mut String, items: &[String]) {
    for item in items.iter().take(LIST_ITEMS) {
        let _ = writeln!(out, "- {item}");
    }
    if items.len() > LIST_ITEMS {
        let _ = writeln!(out, "- … and {} more", items.len() - LIST_ITEMS);
    }
}

/// A refused plan as markdown: the verdict, then every problem with where it is in
/// the manifest and what to do, so a pull request shows why instead of nothing.
pub fn refusal_markdown(e: &PlanError) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### guildctl plan for **{}** ({})\n",
        inert::markdown(&e.partial.guild_name),
        inert::markdown_code(&e.partial.guild_id)
    );
    let _ = writeln!(
        out,
        "> [!CAUTION]\n> **The plan was refused: {} problem(s), before any change was made.**\n",
        e.problems.len()
    );
    let items: Vec<String> = e
        .problems
        .iter()
        .map(|p| {
            let place = p
                .source
                .as_deref()
                .map(|s| format!(" ({})", inert::markdown_code(s)))
                .unwrap_or_default();
            let help = p
                .help
                .as_deref()
                .map(|h| format!(": {}", inert::markdown(h)))
                .unwrap_or_default();
            format!("**{}**{place}{help}", inert::markdown(&p.message))
        })
        .collect();
    bullets(&mut out, &items);
    out
}
