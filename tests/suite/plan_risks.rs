//! Risk cannot be cut: every plan (text, markdown, JSON) opens with what widens access or
//! destroys, and the pull-request comment's size cut never drops it. Plans are made over
//! HTTP against the emulator by the real binary.

use crate::common;

use common::{Harness, Run};
use guildctl::report::MARKDOWN_BUDGET;
use serde_json::{Value, json};

async fn plan(h: &Harness, manifest: &str, format: &str) -> Run {
    let m = h.manifest("guild.yaml", manifest);
    let run = h
        .run(&["plan", "-f", m.to_str().unwrap(), "--format", format])
        .await;
    run.assert_code(0);
    run
}

async fn risks(h: &Harness, manifest: &str) -> Vec<Value> {
    let run = plan(h, manifest, "json").await;
    let v: Value = serde_json::from_str(&run.stdout).expect("JSON plan");
    v["risks"].as_array().expect("a risks array").clone()
}

/// The text plan's lines between its title and the first change.
fn text_risks(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("Widens access or destroys"))
        .skip(1)
        .take_while(|l| l.starts_with("  ! "))
        .collect()
}

/// The markdown lines that escape_md leaves a name as, for `#name-with-dashes`.
fn md(name: &str) -> String {
    guildctl::inert::markdown(name)
}

/// The case: 70 channels with long topics and one overwrite opening Staff/#mod-log
/// to @everyone make a comment that must be cut. The mod-log risk stays, first, and the
/// note names exactly the changes left out.
#[tokio::test]
async fn a_comment_cut_to_size_keeps_the_risk_that_opens_mod_log() {
    let h = Harness::start().await;
    let topic: String = "Topic: lorem ipsum dolor sit amet "
        .repeat(40)
        .chars()
        .take(997)
        .collect();
    let mut yaml = String::from("version: 1\nchannels:\n");
    for i in 0..70 {
        yaml += &format!("  - {{ name: topic-{i:02}, type: text, topic: \"{topic}{i:03}\" }}\n");
    }
    yaml += "  - name: Staff
    type: category
    channels:
      - name: mod-log
        type: text
        overwrites:
          - { role: \"@everyone\", allow: [view_channel] }
          - { role: Moderator, allow: [view_channel], deny: [send_messages] }
          - { role: Admin, allow: [view_channel, send_messages] }
";
    let text = plan(&h, &yaml, "text").await;
    assert!(
        text.stdout.len() > MARKDOWN_BUDGET,
        "the whole plan is larger than a comment"
    );

    let comment = plan(&h, &yaml, "markdown").await.stdout;
    assert!(comment.len() <= MARKDOWN_BUDGET, "{} bytes", comment.len());
    assert!(comment.chars().count() <= 65_536);
    let lines: Vec<&str> = comment.lines().collect();
    // Verdict, then the risks, before any change: who gains what, where, computed as
    // Discord does (Helper's manage_messages now counts there too, but Helper held it
    // guild-wide: only seeing the channel widens, and that is @everyone's line).
    assert_eq!(
        lines[4],
        "**Widens access or destroys (1):** 1 access widening"
    );
    let everyone = "@everyone gains view_channel in Staff/#mod-log (and with it: send_messages, read_message_history, create_public_threads, send_messages_in_threads)";
    assert_eq!(
        lines[6],
        // Names are inert in markdown: no `#` reference, no `@` mention (crates/inert/src/lib.rs).
        format!(
            "- {}",
            everyone
                .replace('@', "@\u{200b}")
                .replace("#mod-log", "\\#\u{200b}mod\\-log")
        )
    );
    assert!(lines[8].starts_with("<details><summary>Changes (71)"));
    // The risky change's own diff is kept in preference to a topic's.
    assert!(comment.contains("  ~ update channel Staff/#mod-log"));

    // The note names exactly the changes the diff does not show.
    let shown: Vec<usize> = (0..70)
        .filter(|i| comment.contains(&format!("  + create channel #topic-{i:02}\n")))
        .collect();
    let left_out: Vec<String> = (0..70)
        .filter(|i| !shown.contains(i))
        .map(|i| md(&format!("#topic-{i:02}")))
        .collect();
    assert!(!left_out.is_empty() && !shown.is_empty(), "{shown:?}");
    let n = left_out.len();
    let note = format!(
        "… {n} of 71 changes left out to fit a GitHub comment: {n} channel creates ({}). The \
         whole plan is in the run's job summary when the Action made this, in `guildctl plan \
         --format text`, and in the saved plan (`--out`).",
        left_out.join(", ")
    );
    assert!(
        lines.contains(&note.as_str()),
        "expected\n{note}\nin\n{}",
        &comment[comment.len().saturating_sub(3000)..]
    );

    // Text and JSON open with the same risks.
    assert_eq!(text_risks(&text.stdout), vec![format!("  ! {everyone}")]);
    // The access lines say it all, Helper's included.
    assert!(
        text.stdout
            .contains("  Helper gains manage_messages, manage_threads in Staff/#mod-log\n"),
        "{}",
        text.stdout
    );
    let r = risks(&h, &yaml).await;
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["kind"], "access");
    assert_eq!(r[0]["who"], "@everyone");
    assert_eq!(r[0]["channel"], "Staff/#mod-log");
    assert_eq!(
        r[0]["permissions"],
        json!([
            "view_channel",
            "send_messages",
            "read_message_history",
            "create_public_threads",
            "send_messages_in_threads"
        ])
    );
    assert_eq!(r[0]["object"]["name"], "Staff/#mod-log");
    assert_eq!(r[0]["change"], 70, "the index of the mod-log change");
}

#[tokio::test]
async fn everyone_gaining_a_permission_opens_every_format_and_apply() {
    let h = Harness::start().await;
    // The default @everyone plus mention_everyone (dangerous) and send_tts_messages (not).
    let yaml = "version: 1
roles:
  - name: \"@everyone\"
    permissions: [create_instant_invite, add_reactions, stream, view_channel, send_messages,
      embed_links, attach_files, read_message_history, use_external_emojis, connect, speak,
      use_vad, change_nickname, use_application_commands, create_public_threads,
      send_messages_in_threads, mention_everyone, send_tts_messages]
";
    let r = risks(&h, yaml).await;
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0]["kind"], "grant");
    assert_eq!(r[0]["object"]["kind"], "role");
    assert_eq!(r[0]["object"]["name"], "@everyone");
    // Anything @everyone gains counts, in bit order.
    assert_eq!(
        r[0]["permissions"],
        json!(["send_tts_messages", "mention_everyone"])
    );
    let line = "role @everyone gains send_tts_messages, mention_everyone";
    let text = plan(&h, yaml, "text").await;
    assert_eq!(text_risks(&text.stdout), vec![format!("  ! {line}")]);
    let markdown = plan(&h, yaml, "markdown").await;
    let md_line = line.replace('@', "@\u{200b}");
    assert!(
        markdown.stdout.contains(&format!("\n- {md_line}\n")),
        "{}",
        markdown.stdout
    );

    // apply prints the same plan, the risk first.
    let m = h.manifest("guild.yaml", yaml);
    let applied = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    applied.assert_code(0);
    let risk_at = applied.stdout.find(line).expect("the risk in apply's plan");
    let change_at = applied.stdout.find("~ update role").expect("the change");
    assert!(risk_at < change_at, "{}", applied.stdout);
}

#[tokio::test]
async fn a_role_gaining_administrator_is_a_risk_and_a_harmless_grant_is_not() {
    let h = Harness::start().await;
    let yaml = "version: 1
roles:
  - name: Admin
  - name: Moderator
    permissions: [administrator]
  - name: Helper
    permissions: [manage_messages, manage_threads, add_reactions, embed_links]
  - name: Contributor
    permissions: [manage_nicknames]
";
    let r = risks(&h, yaml).await;
    let lines: Vec<(String, Value)> = r
        .iter()
        .map(|x| {
            (
                x["object"]["name"].as_str().unwrap().to_owned(),
                x["permissions"].clone(),
            )
        })
        .collect();
    // Helper gains only harmless permissions; Contributor a manage_* one.
    assert_eq!(
        lines,
        vec![
            ("Moderator".to_owned(), json!(["administrator"])),
            ("Contributor".to_owned(), json!(["manage_nicknames"])),
        ]
    );
    let text = plan(&h, yaml, "text").await;
    assert_eq!(
        text_risks(&text.stdout),
        vec![
            "  ! role Moderator gains administrator",
            "  ! role Contributor gains manage_nicknames",
        ]
    );
    assert!(
        text.stdout
            .contains("Widens access or destroys (2): 2 role grants"),
        "{}",
        text.stdout
    );
}

#[tokio::test]
async fn a_deletion_is_a_risk() {
    let h = Harness::start().await;
    // Every role but Muted is declared; prune deletes Muted.
    let yaml = "version: 1
roles:
  - name: Admin
  - name: guildctl
  - name: Moderator
  - name: Helper
  - name: Contributor
  - name: Server Booster
  - name: Member
prune: { roles: true }
";
    let r = risks(&h, yaml).await;
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0]["kind"], "delete");
    assert_eq!(r[0]["object"]["name"], "Muted");
    assert!(r[0].get("permissions").is_none());
    let text = plan(&h, yaml, "text").await;
    assert_eq!(text_risks(&text.stdout), vec!["  ! delete role Muted"]);
    let markdown = plan(&h, yaml, "markdown").await;
    assert!(
        markdown
            .stdout
            .contains("**Widens access or destroys (1):** 1 deletion\n\n- delete role Muted\n"),
        "{}",
        markdown.stdout
    );
}

#[tokio::test]
async fn a_webhook_move_is_a_risk_and_a_webhook_that_stays_is_not() {
    let h = Harness::start().await;
    // CI posts in #bot-spam; the manifest moves it to #general. GitHub stays.
    let yaml = "version: 1
webhooks:
  - { name: CI, channel: general }
  - { name: GitHub, channel: bot-spam }
";
    let r = risks(&h, yaml).await;
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0]["kind"], "webhook_move");
    assert_eq!(r[0]["object"]["name"], "CI");
    assert_eq!(r[0]["from"], "bot-spam");
    assert_eq!(r[0]["to"], "general");
    let text = plan(&h, yaml, "text").await;
    assert_eq!(
        text_risks(&text.stdout),
        vec!["  ! webhook CI moves from bot-spam to general"]
    );
}

/// Thousands of deletions: the risk list alone is larger than a comment. The counts per
/// kind stay, as many whole lines as fit, and a line saying how many were left out and
/// where every one is; the job summary holds them all.
#[tokio::test]
async fn a_risk_list_larger_than_a_comment_is_counted_and_points_to_the_whole() {
    let mut state = discord_emulator::large_state(discord_emulator::LargeStateOptions {
        community: false,
        ..Default::default()
    });
    // At Discord's limits with short names every deletion's line fits in one comment
    // (1,745 lines, 52 KB); webhook names of 80 characters, Discord's longest, do not.
    for w in &mut state.guilds[0].webhooks {
        w.name = format!("{} {}", w.name, "x".repeat(80))
            .chars()
            .take(80)
            .collect();
    }
    let h = Harness::with_state(Some(state)).await;
    // Admin is above the bot and must stay; every other role, channel and webhook goes.
    let yaml = "version: 1
roles: [{ name: Admin }]
channels: []
webhooks: []
prune: { roles: true, channels: true, webhooks: true }
";
    let r = risks(&h, yaml).await;
    assert!(r.len() > 1000, "{}", r.len());
    assert!(r.iter().all(|x| x["kind"] == "delete"));
    let counts = format!(
        "**Widens access or destroys ({}):** {} deletions",
        r.len(),
        r.len()
    );

    let comment = plan(&h, yaml, "markdown").await.stdout;
    assert!(comment.len() <= MARKDOWN_BUDGET, "{} bytes", comment.len());
    assert!(comment.contains(&counts), "{}", &comment[..600]);
    let shown = comment
        .lines()
        .filter(|l| l.starts_with("- delete "))
        .count();
    assert!(shown > 100 && shown < r.len(), "{shown} of {}", r.len());
    let footer = format!(
        "- … and {} more left out to fit a GitHub comment (all {} are counted above); every \
         one is in the run's job summary when the Action made this, and in `guildctl plan \
         --format text`.",
        r.len() - shown,
        r.len()
    );
    assert!(comment.contains(&footer), "{footer}");
    // The digests reviewers match still close the comment.
    assert!(comment.contains("Changes digest:"));

    // The job summary (1 MiB) holds every risk.
    let m = h.manifest("guild.yaml", yaml);
    let saved = h.dir.path().join("plan.json");
    h.run(&[
        "plan",
        "-f",
        m.to_str().unwrap(),
        "--out",
        saved.to_str().unwrap(),
    ])
    .await
    .assert_code(0);
    let saved_json: Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(saved_json["risks"].as_array().map(Vec::len), Some(r.len()));
    let summary = h
        .run(&["github", "plan-summary", saved.to_str().unwrap()])
        .await;
    summary.assert_code(0);
    let all = summary
        .stdout
        .lines()
        .filter(|l| l.starts_with("- delete "))
        .count();
    assert_eq!(all, r.len());
    assert!(!summary.stdout.contains("more left out"));
}
