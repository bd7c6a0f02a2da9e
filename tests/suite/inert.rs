//! Text from outside is inert (issue 19, point 5): names, reasons, usernames and file
//! names that hold mentions, references, markup, terminal escapes, bidi overrides and
//! workflow commands reach no output able to act on them.
//!
//! - Properties of `guildctl::inert` for any string, the markdown read back by a
//!   CommonMark reader (pulldown-cmark) as GitHub would read it.
//! - Over HTTP against the emulator: a guild whose names, topic, username and audit-log
//!   reason are hostile, shown by `plan` and `drift` (text and markdown) and posted as a
//!   pull-request comment and a drift issue to the GitHub stand-in.
//! - A manifest whose file name holds a newline and `::warning::`: no line of
//!   diagnostics on stderr starts a workflow command.

use crate::common;

use std::path::Path;

use common::github::{FakeGitHub, PR_NUMBER};
use common::{GuildNames, Harness, Run, arrange};
use discord_emulator::State;
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet};
use guildctl::inert;
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// Everything at once: a mention, a team mention, an issue reference, emphasis, an HTML
/// comment, a code fence, OSC 52 (writes the clipboard), cursor up and erase line, a
/// right-to-left override, a legacy workflow command and, after a line break, a
/// workflow command.
const HOSTILE: &str = "@octocat @org/team #1 **bold** <!-- x --> ``` \u{1b}]52;c;b3duZWQ=\u{7} \u{1b}[1A\u{1b}[2K \u{202e}gnp.exe ##[error]legacy\n::warning::owned";

// ---------------------------------------------------------------------------------------
// What "inert" means, checked on whole outputs

/// Terminal output: no control character but the line breaks guildctl writes, and no
/// line a GitHub runner reads as a workflow command (`::` at its start after whitespace,
/// `##[` anywhere; the runner may skip ignorable characters when it compares).
fn assert_terminal_inert(what: &str, out: &str) {
    for c in out.chars() {
        assert!(
            c == '\n' || !inert::is_display_control(c),
            "{what}: raw {c:?} in\n{out}"
        );
    }
    for line in out.lines() {
        let seen: String = line.chars().filter(|c| !inert::is_ignorable(*c)).collect();
        assert!(
            !seen.trim_start().starts_with("::"),
            "{what}: a workflow command line: {line:?}"
        );
        assert!(
            !seen.contains("##["),
            "{what}: a legacy workflow command in {line:?}"
        );
    }
}

/// What a CommonMark reader (with GitHub's extensions) makes of a markdown document.
#[derive(Default, Debug)]
struct Read {
    /// Text outside code, where GitHub looks for mentions, references and links.
    prose: String,
    code_blocks: Vec<String>,
    code_spans: Vec<String>,
    html: Vec<String>,
    links: usize,
    /// Emphasis, strong, strikethrough, math, footnotes: formatting.
    formatted: Vec<String>,
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
        | Options::ENABLE_FOOTNOTES
}

fn read(md: &str) -> Read {
    let mut r = Read::default();
    let mut in_code = false;
    for event in Parser::new_ext(md, options()) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => {
                in_code = true;
                r.code_blocks.push(String::new());
            }
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) if in_code => r.code_blocks.last_mut().unwrap().push_str(&t),
            Event::Text(t) => r.prose.push_str(&t),
            Event::Code(t) => r.code_spans.push(t.to_string()),
            Event::Html(t) | Event::InlineHtml(t) => r.html.push(t.to_string()),
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => r.links += 1,
            Event::Start(
                t @ (Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript),
            ) => r.formatted.push(format!("{t:?}")),
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => {
                r.formatted.push(t.to_string())
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::TableCell) => r.prose.push('\n'),
            _ => {}
        }
    }
    r
}

/// Where GitHub would mention, reference or link in rendered text.
fn autolinks(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let lower = text.to_lowercase();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let before_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '@' && !before_word && next.is_ascii_alphanumeric() {
            found.push(format!("mention at {i}"));
        }
        if c == '#' && next.is_ascii_digit() {
            found.push(format!("reference at {i}"));
        }
    }
    for pattern in ["://", "www.", "gh-1", "gh-0"] {
        if lower.contains(pattern) {
            found.push(pattern.to_owned());
        }
    }
    found
}

/// A markdown document guildctl wrote, read back: no raw control character, no HTML or
/// link but guildctl's own, outside text neither mentioning, referencing, linking nor
/// formatting, and `code_blocks` fenced blocks, no more (a name cannot close one).
fn assert_markdown_inert(what: &str, md: &str, code_blocks: usize) -> Read {
    for c in md.chars() {
        assert!(
            c == '\n' || !inert::is_display_control(c),
            "{what}: raw {c:?} in\n{md}"
        );
    }
    let r = read(md);
    let found = autolinks(&r.prose);
    assert!(found.is_empty(), "{what}: {found:?} in\n{}", r.prose);
    assert_eq!(r.links, 0, "{what}: a link in\n{md}");
    for h in &r.html {
        assert!(
            !h.contains("<!-- x") && !h.contains("octocat"),
            "{what}: outside text read as HTML: {h:?}"
        );
    }
    assert_eq!(
        r.code_blocks.len(),
        code_blocks,
        "{what}: code blocks {:#?}\nin\n{md}",
        r.code_blocks
    );
    for f in &r.formatted {
        assert!(!f.contains("bold"), "{what}: formatted {f:?}");
    }
    // Each time the hostile text is shown, it reads as written.
    let shown = r.prose.matches("**bold**").count();
    assert!(shown > 0, "{what}: the hostile text is not shown:\n{md}");
    assert_eq!(
        r.prose.matches("bold").count(),
        shown,
        "{what}: {}",
        r.prose
    );
    assert_eq!(
        r.prose.matches("<!-- x -->").count(),
        shown,
        "{what}: {}",
        r.prose
    );
    assert_eq!(
        r.prose.matches("@\u{200b}octocat").count(),
        shown,
        "{what}: {}",
        r.prose
    );
    r
}

// ---------------------------------------------------------------------------------------
// The functions, for any string

/// Strings rich in what matters here: markup, autolink starts, controls, bidi, commands.
fn tricky() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '@', '#', '`', '*', '_', '<', '>', '!', '-', '+', '[', ']', '(', ')', '|', '~', '$', '&',
        ':', '/', '.', '\\', 'w', 'W', 'g', 'G', 'h', 'H', '1', '0', 'a', ' ', '\n', '\r', '\t',
        '\u{1b}', '\u{7}', '\u{7f}', '\u{85}', '\u{9b}', '\u{202e}', '\u{2066}', '\u{2028}',
        '\u{200b}', '\u{200d}', '\u{feff}', '\u{a0}', 'é', '🛡',
    ]);
    prop::collection::vec(prop_oneof![3 => special, 1 => any::<char>()], 0..48)
        .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn terminal_form_is_one_line_without_controls_or_commands(s in tricky()) {
        let t = inert::terminal(&s);
        prop_assert!(!t.chars().any(inert::is_display_control), "{:?}", t);
        let seen: String = t.chars().filter(|c| !inert::is_ignorable(*c)).collect();
        prop_assert!(!seen.trim_start().starts_with("::"), "{:?}", t);
        prop_assert!(!seen.contains("##["), "{:?}", t);
        // Idempotent, and text without anything to escape passes as it is.
        prop_assert_eq!(inert::terminal(&t), t.clone());
        // As a runner reads it: ignorable characters between `#`s still make `##[`.
        let bare: String = s.chars().filter(|c| !inert::is_ignorable(*c)).collect();
        if !s.chars().any(inert::is_display_control) && !bare.contains("::") && !bare.contains("##") {
            prop_assert_eq!(&*t, &*s);
        }
    }

    #[test]
    fn markdown_form_renders_as_the_terminal_form_and_does_nothing_else(s in tricky()) {
        let md = inert::markdown(&s);
        prop_assert!(!md.chars().any(inert::is_display_control), "{:?}", md);
        let r = read(&format!("x {md} x"));
        let shown = r.prose.trim_end_matches('\n').replace('\u{200b}', "");
        let want = format!("x {} x", inert::terminal(&s)).replace('\u{200b}', "");
        prop_assert_eq!(shown, want, "{:?}", md);
        prop_assert!(r.html.is_empty() && r.links == 0 && r.formatted.is_empty(), "{:?}", r);
        prop_assert!(r.code_blocks.is_empty() && r.code_spans.is_empty(), "{:?}", r);
        let found = autolinks(&r.prose);
        prop_assert!(found.is_empty(), "{:?} in {:?}", found, r.prose);
    }

    #[test]
    fn markdown_form_stays_in_its_list_item_and_table_cell(s in tricky()) {
        let md = inert::markdown(&s);
        // CommonMark trims spaces and tabs around an item or a cell, nothing else.
        let spaces = |c: char| c == ' ' || c == '\t' || c == '\n';
        let want = inert::terminal(&s).trim_matches(spaces).replace('\u{200b}', "");
        // A list item: one item, nothing nested in it.
        let item = read(&format!("- {md}\n"));
        prop_assert_eq!(item.prose.trim_matches(spaces).replace('\u{200b}', ""), want.clone());
        let blocks = Parser::new_ext(&format!("- {md}\n"), options())
            .filter(|e| matches!(e, Event::Start(Tag::List(_) | Tag::Heading { .. } | Tag::BlockQuote(_))))
            .count();
        prop_assert_eq!(blocks, 1, "{:?}", md);
        // A table cell: two cells in the row, the second one the value.
        let table = format!("| a | b |\n|---|---|\n| x | {md} |\n");
        let cells: Vec<String> = {
            let mut cells = Vec::new();
            let mut in_body = false;
            for e in Parser::new_ext(&table, options()) {
                match e {
                    Event::End(TagEnd::TableHead) => in_body = true,
                    Event::Start(Tag::TableCell) if in_body => cells.push(String::new()),
                    Event::Text(t) if in_body => cells.last_mut().unwrap().push_str(&t),
                    _ => {}
                }
            }
            cells
        };
        prop_assert_eq!(cells.len(), 2, "{:?}", table);
        prop_assert_eq!(cells[1].trim_matches(spaces).replace('\u{200b}', ""), want);
    }

    #[test]
    fn markdown_code_form_is_one_code_span_holding_the_terminal_form(s in tricky()) {
        let code = inert::markdown_code(&s);
        let r = read(&format!("x {code} x"));
        let want = match inert::terminal(&s) {
            t if t.is_empty() => " ".to_owned(),
            t => t.into_owned(),
        };
        prop_assert_eq!(r.code_spans, vec![want], "{:?}", code);
        prop_assert!(r.html.is_empty() && r.links == 0 && r.formatted.is_empty());
    }

    #[test]
    fn json_form_parses_back_to_the_same_value_and_is_inert(s in tricky()) {
        let v = serde_json::json!({ "name": s, "list": [s.clone()] });
        let out = inert::json_pretty(&v);
        prop_assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
        for line in out.lines() {
            prop_assert!(!line.chars().any(inert::is_display_control), "{:?}", line);
            let seen: String = line.chars().filter(|c| !inert::is_ignorable(*c)).collect();
            prop_assert!(!seen.trim_start().starts_with("::") && !seen.contains("##["), "{:?}", line);
        }
    }
}

// ---------------------------------------------------------------------------------------
// A hostile guild, over HTTP

const HUMAN_TOKEN: &str = "human-owner-token-for-inert-tests";

/// The default guild, its names, a topic and the owner's name made hostile (planted in
/// the state: Discord collapses whitespace in names it is sent, an API may still answer
/// anything), and a token for the owner to make a hand change with.
fn hostile_state() -> State {
    let mut st = discord_emulator::default_state();
    let mut g = arrange(&mut st);
    g.owner_token(HUMAN_TOKEN);
    let owner = g.user("ferris");
    owner.username = format!("ferris {HOSTILE}");
    owner.global_name = Some(format!("Ferris {HOSTILE}"));
    g.name = format!("Guild {HOSTILE}");
    g.role("Muted").name = HOSTILE.into();
    g.channel("Help").name = format!("Help {HOSTILE}");
    g.channel("general").topic(HOSTILE);
    g.webhook("GitHub").name = HOSTILE.into();
    st
}

/// The roles as they are but the hostile one, which `prune` deletes; Moderator's colour
/// and general's topic declared, so a hand change drifts and the topic changes.
const MANIFEST: &str = "version: 1
roles:
  - name: Admin
  - name: Moderator
    color: \"#3498db\"
  - name: Helper
  - name: Contributor
  - name: Member
channels:
  - name: General
    type: category
    channels:
      - { name: general, type: text, topic: Welcome }
prune: { roles: true }
";

/// A hand change as the (hostile) owner, with a hostile audit-log reason.
async fn hand_change(h: &Harness) {
    let moderator = h.role_id("Moderator");
    let url = format!(
        "{}/guilds/{}/roles/{moderator}",
        h.emu.api_base, h.emu.guild_id
    );
    let reason = percent_encoding::utf8_percent_encode(HOSTILE, percent_encoding::NON_ALPHANUMERIC)
        .to_string();
    let res = reqwest::Client::new()
        .patch(&url)
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", reason)
        .json(&serde_json::json!({ "color": 0x123456 }))
        .send()
        .await
        .expect("request");
    assert!(res.status().is_success(), "{}", res.status());
}

fn checked(what: &str, run: Run) -> Run {
    assert!(
        run.code == 0 || run.code == 2,
        "{what}: exit {}\n--- stdout\n{}\n--- stderr\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
    assert_terminal_inert(&format!("{what} (stderr)"), &run.stderr);
    run
}

async fn github(gh: &FakeGitHub, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
    cmd.arg("github").args(args).current_dir(dir);
    for (k, v) in gh.env() {
        cmd.env(k, v);
    }
    let out = cmd
        .env(
            "GITHUB_EVENT_PATH",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/github-event-pull_request-opened.json"
            ),
        )
        .env("GITHUB_EVENT_NAME", "pull_request")
        .output()
        .await
        .expect("guildctl runs");
    Run::of(out)
}

#[tokio::test]
async fn a_hostile_guild_is_shown_inert_in_plans_drift_and_on_github() {
    let h = Harness::with_state(Some(hostile_state())).await;
    hand_change(&h).await;
    let m = h.manifest("guild.yaml", MANIFEST);
    let m = m.to_str().unwrap();
    let escaped = inert::terminal(HOSTILE).into_owned();

    // The plan as text: every hostile piece shown, escaped, on the lines it belongs to.
    let text = checked("plan text", h.run(&["plan", "-f", m]).await);
    assert_terminal_inert("plan text", &text.stdout);
    assert!(
        text.stdout.contains(&format!("- delete role {escaped}")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains(&format!("Plan for guild Guild {escaped}"))
    );
    // The unmanaged webhook is counted, not named, on a terminal (the list is folded);
    // drift names it below, escaped.
    assert!(text.stdout.contains("\\u{1b}]52;c;b3duZWQ=\\u{7}"));
    assert!(text.stdout.contains("\\u{202e}gnp.exe"));
    assert!(text.stdout.contains("\\n::warning::owned"));

    // The plan as markdown: the diff in one fence the names cannot close, the rest prose
    // that mentions, references, links and formats nothing.
    let md = checked(
        "plan markdown",
        h.run(&["plan", "-f", m, "--format", "markdown"]).await,
    );
    let read = assert_markdown_inert("plan markdown", &md.stdout, 1);
    let diff = &read.code_blocks[0];
    assert!(
        diff.contains(&format!("- delete role {}", escaped.replace("```", "'''"))),
        "{diff}"
    );
    assert!(!diff.contains("```"));
    assert!(
        read.prose
            .contains("Guild @\u{200b}octocat @\u{200b}org/team #\u{200b}1")
    );

    // JSON is exact (it parses back to the names as they are) and inert.
    let json = checked(
        "plan json",
        h.run(&["plan", "-f", m, "--format", "json"]).await,
    );
    assert_terminal_inert("plan json", &json.stdout);
    let plan: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(plan["guild_name"], format!("Guild {HOSTILE}"));

    // Drift as text and markdown: the hand change's who and why, the hostile webhook
    // ranked high risk.
    let drift = checked("drift text", h.run(&["drift", "-f", m]).await);
    assert_terminal_inert("drift text", &drift.stdout);
    assert!(
        drift
            .stdout
            .contains("reason \"@octocat @org/team #1 **bold** <!-- x --> ``` \\u{1b}]52;"),
        "{}",
        drift.stdout
    );
    assert!(drift.stdout.contains("HIGH RISK"), "{}", drift.stdout);
    assert!(
        drift.stdout.contains(&format!("webhook {escaped}")),
        "{}",
        drift.stdout
    );
    let drift_md = checked(
        "drift markdown",
        h.run(&["drift", "-f", m, "--format", "markdown"]).await,
    );
    let dread = assert_markdown_inert("drift markdown", &drift_md.stdout, 0);
    assert!(
        dread.prose.contains("ferris @\u{200b}octocat"),
        "the hand change's author is shown: {}",
        dread.prose
    );

    // Posted to GitHub: the comment and the drift issue are the same inert markdown.
    let gh = FakeGitHub::start().await;
    let plan_md = h.dir.path().join("plan.md");
    std::fs::write(&plan_md, &md.stdout).unwrap();
    let posted = github(
        &gh,
        h.dir.path(),
        &[
            "comment",
            "--marker",
            "plan:guild.yaml",
            "--body-file",
            plan_md.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(posted.code, 0, "{}", posted.stderr);
    assert_terminal_inert("github comment", &(posted.stdout + &posted.stderr));
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1);
    assert_markdown_inert("the pull-request comment", &comments[0].body, 1);

    let drift_file = h.dir.path().join("drift.md");
    std::fs::write(&drift_file, &drift_md.stdout).unwrap();
    let issue = github(
        &gh,
        h.dir.path(),
        &[
            "drift-issue",
            "--marker",
            "drift:guild.yaml",
            "--body-file",
            drift_file.to_str().unwrap(),
            "--drifted",
            "true",
        ],
    )
    .await;
    assert_eq!(issue.code, 0, "{}", issue.stderr);
    let opened = gh
        .issues()
        .into_iter()
        .find(|i| i.body.contains("guildctl:drift"))
        .expect("the drift issue");
    assert_markdown_inert("the drift issue", &opened.body, 0);
    gh.assert_conforms();
}

/// A folder whose name holds a line break and workflow commands, an OSC 52 sequence and
/// a bidi override, with an invalid manifest inside.
fn hostile_folder(root: &Path) -> std::path::PathBuf {
    let dir = root.join("ok\n::warning::owned ##[error]legacy \u{1b}]52;c;aGk=\u{7} \u{202e}lmay");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("guild.yaml");
    std::fs::write(
        &file,
        "version: 1\nroles:\n  - name: Moderator\n  - name: Moderator\n    permissions: [fly]\n",
    )
    .unwrap();
    file
}

#[tokio::test]
async fn a_file_name_cannot_inject_a_workflow_command_through_diagnostics() {
    let h = Harness::start().await;
    let file = hostile_folder(h.dir.path());
    let f = file.to_str().unwrap();

    // validate, text on stderr: diagnostics that name the file, and the summary line.
    let v = h.run(&["validate", "-f", f]).await;
    assert_eq!(v.code, 1, "{}", v.stderr);
    assert_terminal_inert("validate (stderr)", &v.stderr);
    assert!(
        v.stderr.contains("ok\\n::warning::owned"),
        "the file is named, escaped: {}",
        v.stderr
    );
    assert!(v.stderr.contains("unknown permission"), "{}", v.stderr);

    // validate as annotations: exactly one command per diagnostic, the name inside it.
    let g = h.run(&["validate", "-f", f, "--format", "github"]).await;
    assert_terminal_inert("validate --format github (stderr)", &g.stderr);
    let lines: Vec<&str> = g.stdout.lines().collect();
    assert!(!lines.is_empty(), "{}", g.stdout);
    for line in &lines {
        assert!(
            line.starts_with("::error file=") || line.starts_with("::warning file="),
            "{line:?}"
        );
        assert!(!line.chars().any(inert::is_display_control), "{line:?}");
        assert_eq!(line.matches("::").count(), 2, "one command: {line:?}");
        assert!(!line.contains("##["), "{line:?}");
    }

    // plan refuses the manifest: the diagnostics and the closing error line.
    let p = h.run(&["plan", "-f", f]).await;
    assert_eq!(p.code, 1, "{}", p.stderr);
    assert_terminal_inert("plan (stderr)", &p.stderr);
    assert!(p.stderr.contains("error: "), "{}", p.stderr);
    assert!(h.writes().is_empty());

    // A file whose name itself starts with a command, given relative: the summary line
    // starts with it.
    std::fs::write(
        h.dir.path().join("::warning::owned.yaml"),
        "version: 1\nroles: [{ name: a }, { name: a }]\n",
    )
    .unwrap();
    let r = h.run(&["validate", "-f", "::warning::owned.yaml"]).await;
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_terminal_inert("validate relative (stderr)", &r.stderr);
    assert!(
        r.stderr.contains("\\u{3a}:warning::owned.yaml: invalid"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn apply_progress_and_failures_are_inert() {
    let h = Harness::with_state(Some(hostile_state())).await;
    // The hostile role's deletion fails: its name is in a progress line, a failure line
    // and the error under it.
    h.emu
        .set_faults(FaultSet {
            seed: None,
            rules: vec![FaultRule {
                method: "DELETE".into(),
                path: "/guilds/*/roles/*".into(),
                probability: 1.0,
                kind: FaultKind::Status(403),
            }],
        })
        .expect("faults set");
    let m = h.manifest("guild.yaml", MANIFEST);
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_terminal_inert("apply (stdout)", &run.stdout);
    assert_terminal_inert("apply (stderr)", &run.stderr);
    let escaped = inert::terminal(HOSTILE).into_owned();
    assert!(
        run.stderr
            .contains(&format!("delete role {escaped}: FAILED")),
        "a progress line names the role, escaped: {}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains(&format!("  delete role {escaped}: DELETE")),
        "the failure names the role, escaped: {}",
        run.stdout
    );
    // The other calls were made: the topic is Welcome now.
    let g = h.guild();
    let general = g.channel_named("general");
    assert_eq!(general.topic.as_deref(), Some("Welcome"));
}

/// A webhook URL pasted into a manifest (issue 30, point 8): its token never reaches an
/// excerpt, a message, an annotation or JSON, whichever Discord host it names; the id stays,
/// and a place after it on the same line is still marked under its own text.
#[tokio::test]
async fn a_webhook_url_in_a_manifest_is_redacted_in_every_excerpt() {
    let h = Harness::start().await;
    let token = "Zx9-secretWebhookToken_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNO";
    let hosts = [
        "discord.com",
        "discordapp.com",
        "canary.discord.com",
        "ptb.discord.com",
    ];
    let mut yaml = "version: 1\nwebhooks:\n".to_owned();
    for (i, host) in hosts.iter().enumerate() {
        yaml.push_str(&format!(
            "  - {{ name: Hook{i}, channel: general, url: \"https://{host}/api/webhooks/11223344556677889{i}/{token}\", avatr: x }}\n"
        ));
    }
    // A value that is itself the URL, where a message may echo the value.
    yaml.push_str(&format!(
        "  - \"https://discord.com/api/v10/webhooks/112233445566778899/{token}\"\n"
    ));
    let f = h.manifest("hooks.yaml", &yaml);
    let f = f.to_str().unwrap();
    let mut outputs = Vec::new();
    for args in [
        vec!["validate", "-f", f],
        vec!["validate", "-f", f, "--format", "github"],
        vec!["validate", "-f", f, "--format", "json"],
        vec!["plan", "-f", f],
    ] {
        let r = h.run(&args).await;
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        for stream in [&r.stdout, &r.stderr] {
            assert!(
                !stream.contains(token),
                "{args:?} shows the token:\n{stream}"
            );
            assert!(!stream.contains("Zx9-secret"), "{args:?}:\n{stream}");
        }
        outputs.push(r);
    }
    assert!(h.writes().is_empty());
    let text = &outputs[0].stderr;
    assert!(text.contains("unknown field `url`"), "{text}");
    for (i, host) in hosts.iter().enumerate() {
        assert!(
            text.contains(&format!(
                "https://{host}/api/webhooks/11223344556677889{i}/{{token}}"
            )),
            "{host}: the URL is shown with its token redacted:\n{text}"
        );
    }
    // The caret of `avatr`, past the redacted token on its line, is under `avatr`.
    let lines: Vec<&str> = text.lines().collect();
    let marked = lines.windows(2).find(|w| {
        w[0].contains("Hook0")
            && w[1]
                .find('^')
                .is_some_and(|caret| w[0].get(caret..caret + 5) == Some("avatr"))
    });
    assert!(
        marked.is_some(),
        "a caret under `avatr` on the redacted line:\n{text}"
    );
}
