//! Renders plans (and drift, which is a plan read the other way) as text for
//! terminals, markdown for pull-request comments, and JSON for machines.
//!
//! Every name, value, message and id in a plan may come from outside (the live guild, a
//! manifest in a pull request, a saved plan file): each is shown through [`inert`].

use std::fmt::Write;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::inert;
use crate::plan::{Action, Change, FieldChange, Plan, PlanError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Json,
}

/// What the report is about: a plan of what apply would do, or drift found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heading {
    Plan,
    Drift,
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

pub fn render(plan: &Plan, format: Format, heading: Heading, color: bool) -> String {
    match format {
        Format::Json => {
            let mut s = inert::json_pretty(plan);
            s.push('\n');
            s
        }
        Format::Text => text(plan, heading, Style { color }),
        Format::Markdown => render_markdown(plan, heading, MarkdownRoom::Comment),
    }
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

    fn left_out(self, lines: usize) -> String {
        match self {
            MarkdownRoom::Comment => format!(
                "… {lines} more line(s) left out to fit a GitHub comment; the whole plan is in \
                 the run's job summary when the Action made this, in \
                 `guildctl plan --format text`, and in the saved plan (`--out`)."
            ),
            MarkdownRoom::JobSummary => format!(
                "… {lines} more line(s) left out to stay within a job summary's 1 MiB; the \
                 saved plan (`--out`, the run's plan file) holds every change."
            ),
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

pub fn summary_line(plan: &Plan) -> String {
    if plan.is_empty() {
        return "No changes: the guild matches the manifest.".to_owned();
    }
    format!(
        "{} to create, {} to update, {} to reorder, {} to delete.",
        plan.count(Action::Create),
        plan.count(Action::Update),
        plan.count(Action::Reorder),
        plan.count(Action::Delete)
    )
}

fn text(plan: &Plan, heading: Heading, st: Style) -> String {
    let mut out = String::new();
    let title = match heading {
        Heading::Plan => "Plan for guild",
        Heading::Drift => "Drift in guild",
    };
    let _ = writeln!(
        out,
        "{title} {} ({})\n",
        inert::terminal(&plan.guild_name),
        inert::terminal(&plan.guild_id)
    );
    for c in &plan.changes {
        write_change(&mut out, c, st);
    }
    if !plan.changes.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "{}", st.paint("1", &summary_line(plan)));
    if heading == Heading::Plan {
        if let Some(refusal) = plan.deletion_gate.refusal() {
            let _ = writeln!(
                out,
                "\n{} {}",
                st.paint("1;31", "Apply will refuse:"),
                inert::terminal(&refusal)
            );
        } else if let Some(passed) = plan.deletion_gate.passed() {
            let _ = writeln!(out, "\nDeletion gate: passes; {}", inert::terminal(&passed));
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
    let _ = writeln!(out, "  {}{id}", words.join(" "));
    // A create's heading already names the object.
    let shown = c
        .fields
        .iter()
        .filter(|f| !(c.action == Action::Create && f.field == "name"));
    for f in shown {
        write_field(out, f, c.action, st);
    }
}

fn write_field(out: &mut String, f: &FieldChange, action: Action, st: Style) {
    let indent = "      ";
    let field = inert::terminal(&f.field);
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
            if SET_FIELDS.contains(&f.field.as_str()) && is_flat(before) && is_flat(after) =>
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
        (Value::Null, Value::Array(after)) if SET_FIELDS.contains(&f.field.as_str()) => {
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

/// Lists whose order means nothing: shown as what is added and removed.
const SET_FIELDS: &[&str] = &["permissions", "system_channel_flags", "default_channels"];

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
        let names: Vec<String> = plan
            .unmanaged
            .iter()
            .map(|o| format!("{} {}", o.kind.label(), inert::terminal(&o.name)))
            .collect();
        let _ = writeln!(
            out,
            "\nNot in the manifest, kept as they are ({}): {}",
            names.len(),
            names.join(", ")
        );
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
    let mut out = String::new();
    let title = match heading {
        Heading::Plan => "guildctl plan",
        Heading::Drift => "guildctl drift report",
    };
    let _ = writeln!(
        out,
        "### {title} for **{}** ({})\n",
        inert::markdown(&plan.guild_name),
        inert::markdown_code(&plan.guild_id)
    );
    let _ = writeln!(out, "**{}**\n", summary_line(plan));
    if heading == Heading::Plan {
        // The gate's own messages hold numbers and fixed words, but a saved plan file
        // may say anything.
        if let Some(refusal) = plan.deletion_gate.refusal() {
            let _ = writeln!(
                out,
                "> [!CAUTION]\n> **Apply will refuse:** {}\n",
                inert::markdown(&refusal)
            );
        } else if let Some(passed) = plan.deletion_gate.passed() {
            let _ = writeln!(
                out,
                "**Deletion gate:** passes; {}\n",
                inert::markdown(&passed)
            );
        }
    }

    let mut tail = String::new();
    if !plan.warnings.is_empty() {
        let items: Vec<String> = plan
            .warnings
            .iter()
            .map(|w| inert::markdown(&w.message))
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
        // Two trailing spaces: a line break in markdown.
        for line in digest_lines(plan, inert::markdown_code) {
            let _ = writeln!(tail, "{line}  ");
        }
    }

    if !plan.changes.is_empty() {
        let mut body = String::new();
        for c in &plan.changes {
            write_change(&mut body, c, Style { color: false });
        }
        // A diff block colours + and - lines on GitHub. Inside it GitHub neither mentions
        // nor links, and the text renderer made every value inert and one line; what is
        // left is that no run of backticks may close the fence.
        let body = body.replace("```", "'''");
        // What surrounds the diff, with room for the line saying what was left out.
        let frame = 400;
        let left = room.bytes().saturating_sub(out.len() + tail.len() + frame);
        let (shown, cut) = cut_lines(&body, left);
        let _ = writeln!(
            out,
            "<details><summary>Changes ({})</summary>\n\n```diff\n{shown}```",
            plan.changes.len()
        );
        if cut > 0 {
            let _ = writeln!(out, "\n{}", room.left_out(cut));
        }
        let _ = writeln!(out, "\n</details>\n");
    }
    out.push_str(&tail);
    out
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

/// The whole lines of `text` that fit in `room` bytes, and how many were left out.
fn cut_lines(text: &str, room: usize) -> (String, usize) {
    let mut shown = String::new();
    let mut used = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let n = line.len();
        if used + n > room {
            return (shown, lines.len() - i);
        }
        used += n;
        shown.push_str(line);
    }
    (shown, 0)
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
