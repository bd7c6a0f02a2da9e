//! Apply loses nothing: webhook URLs (secrets Discord shows once) always land in a
//! private file and never in any output, and `--keep-going` skips only the calls
//! that need a failed one. The real binary runs against the emulator over HTTP.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{GuildNames, Harness, Run};
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet};
use serde_json::Value;

/// Two webhooks to create, one after the other (creates of a kind are sent in order).
const TWO_WEBHOOKS: &str = r#"version: 1
webhooks:
  - { name: Deploys, channel: general }
  - { name: Alerts, channel: bot-spam }
"#;

/// `guildctl ARGS` against the emulator, as `Harness::run` runs it, with the
/// fallback places for webhook URLs inside the test's folder (never the user's).
fn guildctl(h: &Harness, args: &[&str], env: &[(&str, &Path)]) -> tokio::process::Command {
    let mut cmd = h.command(args);
    cmd.env("XDG_STATE_HOME", h.dir.path().join("state"))
        .env("TMPDIR", h.dir.path().join("tmp"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

async fn finish(child: tokio::process::Child) -> Run {
    Run::of(child.wait_with_output().await.expect("guildctl runs"))
}

async fn run(h: &Harness, args: &[&str]) -> Run {
    finish(guildctl(h, args, &[]).spawn().expect("guildctl starts")).await
}

/// The id and URL of a webhook as the emulator made it (the URL holds its token).
fn webhook_url(h: &Harness, name: &str) -> (String, String, String) {
    let g = h.guild();
    let w = g.webhook_named(name);
    let token = w.token.clone().expect("the bot's webhook has a token");
    let url = format!("{}/webhooks/{}/{token}", h.emu.api_base, w.id);
    (w.id.clone(), token, url)
}

fn assert_not_in_output(run: &Run, secret: &str) {
    assert!(
        !run.stdout.contains(secret) && !run.stderr.contains(secret),
        "a webhook token was printed\n--- stdout\n{}\n--- stderr\n{}",
        run.stdout,
        run.stderr
    );
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A folder nobody can create a file in: one made read-only, or, when permission
/// bits do not stop this user (root), /sys, where no one can create files.
fn unwritable_folder(h: &Harness) -> PathBuf {
    let dir = h.dir.path().join("read-only");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    if std::fs::File::create(dir.join("probe")).is_ok() {
        return PathBuf::from("/sys");
    }
    dir
}

#[tokio::test]
async fn a_webhook_url_file_that_cannot_be_written_is_refused_before_any_call() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", TWO_WEBHOOKS);
    let m = m.to_str().unwrap();
    let dir = h.dir.path();
    std::fs::create_dir(dir.join("a-folder")).unwrap();
    std::fs::write(dir.join("real.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(dir.join("real.json"), dir.join("link.json")).unwrap();
    std::fs::write(dir.join("notes.txt"), "remember the milk\n").unwrap();
    let locked = unwritable_folder(&h).join("urls.json");
    let locked = locked.to_str().unwrap();
    let cases: [(&str, &str); 6] = [
        ("a-folder", "is a directory"),
        ("link.json", "is a symbolic link"),
        ("missing/urls.json", "its folder missing does not exist"),
        (locked, "no file can be created in its folder"),
        ("/dev/null", "is not a regular file"),
        (
            "notes.txt",
            "the file holds something other than webhook URLs",
        ),
    ];
    for (path, reason) in cases {
        h.emu.clear_requests();
        let r = run(&h, &["apply", "-f", m, "--yes", "--webhook-urls", path]).await;
        r.assert_code(1);
        assert!(
            r.stderr
                .contains(&format!("--webhook-urls {path}: {reason}")),
            "{path}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("nothing was sent to Discord"),
            "{}",
            r.stderr
        );
        // Checked before the first call: not even the reads were sent.
        assert!(h.writes().is_empty(), "{path}: {:?}", h.writes());
        assert!(h.requests().is_empty(), "{path}: {:?}", h.requests());
    }
    assert!(!h.guild().webhooks.iter().any(|w| w.name == "Deploys"));
    assert_eq!(
        std::fs::read_to_string(dir.join("real.json")).unwrap(),
        "{}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "remember the milk\n"
    );
    assert!(!dir.join("missing").exists());
}

#[tokio::test]
async fn created_webhook_urls_replace_the_file_atomically_readable_by_the_user_alone() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", TWO_WEBHOOKS);
    let secrets = h.dir.path().join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let file = secrets.join("urls.json");
    // An earlier run's file, left readable by others: its URL is kept, its mode is not.
    let earlier = r#"{"Old": "https://discord.com/api/v10/webhooks/1/earlier-token"}"#;
    std::fs::write(&file, earlier).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    // A second name for the earlier file: written in place, it would change too.
    let earlier_link = h.dir.path().join("earlier.json");
    std::fs::hard_link(&file, &earlier_link).unwrap();

    let r = run(
        &h,
        &[
            "apply",
            "-f",
            m.to_str().unwrap(),
            "--yes",
            "--webhook-urls",
            "secrets/urls.json",
        ],
    )
    .await;
    r.assert_code(0);
    let (_, deploys_token, deploys) = webhook_url(&h, "Deploys");
    let (_, alerts_token, alerts) = webhook_url(&h, "Alerts");
    let urls = read_json(&file);
    assert_eq!(urls["Deploys"], deploys.as_str());
    assert_eq!(urls["Alerts"], alerts.as_str());
    assert_eq!(
        urls["Old"],
        "https://discord.com/api/v10/webhooks/1/earlier-token"
    );
    assert_eq!(mode(&file), 0o600);
    // Replaced by a rename (a new file), not written in place, and no temporary
    // file is left beside it.
    assert_eq!(std::fs::read_to_string(&earlier_link).unwrap(), earlier);
    let names: Vec<String> = std::fs::read_dir(&secrets)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["urls.json"]);
    assert!(
        r.stderr
            .contains("The URLs of 2 new webhook(s) are in secrets/urls.json"),
        "{}",
        r.stderr
    );
    assert_not_in_output(&r, &deploys_token);
    assert_not_in_output(&r, &alerts_token);
    assert!(!h.dir.path().join("state").exists(), "no fallback was used");
}

#[tokio::test]
async fn without_webhook_urls_the_url_is_neither_printed_nor_written() {
    let h = Harness::start().await;
    let m = h.manifest("m.yaml", TWO_WEBHOOKS);
    let r = run(&h, &["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    r.assert_code(0);
    let (_, token, _) = webhook_url(&h, "Deploys");
    assert_not_in_output(&r, &token);
    assert!(
        r.stderr
            .contains("Created 2 webhook(s) (Deploys, Alerts); their URLs were not saved"),
        "{}",
        r.stderr
    );
    let files: Vec<PathBuf> = std::fs::read_dir(h.dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files, vec![m.clone()], "apply wrote no file");
}

/// Applies TWO_WEBHOOKS with `--webhook-urls out/urls.json`, and takes `out`
/// away while Deploys is being created: after the check before the first call,
/// before its URL arrives. (Renamed rather than made read-only, which does not
/// stop root.) The check runs before any request, and Deploys' create is held for
/// seconds, so the first request the emulator logs is the moment to do it.
async fn apply_losing_the_folder_mid_run(h: &Harness, env: &[(&str, &Path)]) -> Run {
    let m = h.manifest("m.yaml", TWO_WEBHOOKS);
    let out = h.dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let general = h.channel_id("general");
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "POST".into(),
                path: format!("/channels/{general}/webhooks"),
                probability: 1.0,
                kind: FaultKind::LatencyMs(3000),
            }],
        })
        .unwrap();
    let args = [
        "apply",
        "-f",
        m.to_str().unwrap(),
        "--yes",
        "--webhook-urls",
        "out/urls.json",
    ];
    let child = guildctl(h, &args, env).spawn().expect("guildctl starts");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while h.requests().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "no request came");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    std::fs::rename(&out, h.dir.path().join("out-gone")).unwrap();
    let r = finish(child).await;
    r.assert_code(1);
    // Apply stopped: Alerts, which was to follow, was never sent.
    let creates = h
        .requests()
        .into_iter()
        .filter(|q| q.method == "POST" && q.path.ends_with("/webhooks"))
        .count();
    assert_eq!(creates, 1, "{:?}", h.requests());
    assert!(!h.guild().webhooks.iter().any(|w| w.name == "Alerts"));
    assert!(
        r.stdout.contains("Skipped: create webhook Alerts"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("could not write the webhook URLs to out/urls.json: No such file"),
        "{}",
        r.stderr
    );
    r
}

#[tokio::test]
async fn a_url_that_cannot_be_written_mid_run_is_kept_in_a_private_fallback_file() {
    let h = Harness::start().await;
    let r = apply_losing_the_folder_mid_run(&h, &[]).await;
    let (_, token, url) = webhook_url(&h, "Deploys");
    assert_not_in_output(&r, &token);
    let shelter = h.dir.path().join("state/guildctl");
    let kept: Vec<PathBuf> = std::fs::read_dir(&shelter)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let file = &kept[0];
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with(&format!("webhook-urls-{}-", h.emu.guild_id)) && name.ends_with(".json"),
        "{name}"
    );
    assert_eq!(mode(file), 0o600);
    assert_eq!(mode(&shelter), 0o700);
    assert_eq!(read_json(file), serde_json::json!({ "Deploys": url }));
    // Apply says where, by the path.
    assert!(
        r.stderr
            .contains(&format!("are kept in {}", file.display())),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("(readable by you alone)"), "{}", r.stderr);
}

#[tokio::test]
async fn when_no_file_can_be_written_the_url_is_still_not_printed() {
    let h = Harness::start().await;
    // /sys takes no new file, for root either: neither fallback place works.
    let sys = Path::new("/sys/guildctl");
    let r = apply_losing_the_folder_mid_run(
        &h,
        &[("XDG_STATE_HOME", sys), ("TMPDIR", Path::new("/sys"))],
    )
    .await;
    let (id, token, _) = webhook_url(&h, "Deploys");
    assert_not_in_output(&r, &token);
    assert!(r.stderr.contains("nor to a fallback file"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("The URLs are secrets and are not printed"),
        "{}",
        r.stderr
    );
    // Says which webhook, so its URL can be copied from Discord.
    assert!(
        r.stderr.contains(&format!("Deploys (id {id})")),
        "{}",
        r.stderr
    );
}

/// Channel changes and a widget change whose PATCH always fails with a 500 (after
/// the client's retries).
async fn apply_with_a_failing_widget(h: &Harness, extra: &[&str]) -> Run {
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
channels:
  - name: Help
    type: category
    channels:
      - name: help
        topic: Ask anything about Rust, with code as text
      - name: showcase
      - name: bot-spam
widget:
  enabled: true
  channel: general
"#,
    );
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "PATCH".into(),
                path: "/guilds/*/widget".into(),
                probability: 1.0,
                kind: FaultKind::Status(500),
            }],
        })
        .unwrap();
    let mut args = vec!["apply", "-f", m.to_str().unwrap(), "--yes"];
    args.extend_from_slice(extra);
    let r = run(h, &args).await;
    r.assert_code(1);
    // The widget failed for good: every attempt got the 500, none went through.
    let widget: Vec<u16> = h
        .requests()
        .iter()
        .filter(|q| q.method == "PATCH" && q.path.ends_with("/widget"))
        .map(|q| q.status)
        .collect();
    assert!(widget.len() > 1, "retried: {widget:?}");
    assert!(widget.iter().all(|s| *s == 500), "{widget:?}");
    assert_eq!(
        h.guild().widget_channel_id,
        Some(h.channel_id("welcome")),
        "the widget is unchanged"
    );
    assert!(
        r.stdout.contains("Failed:\n  update widget:"),
        "{}",
        r.stdout
    );
    // Channel updates come before the widget: made either way.
    let help = h.channel_id("help");
    let g = h.guild();
    let help = g.channels.iter().find(|c| c.id == help).unwrap();
    assert_eq!(
        help.topic.as_deref(),
        Some("Ask anything about Rust, with code as text")
    );
    r
}

fn parent_name(h: &Harness, channel: &str) -> Option<String> {
    let g = h.guild();
    let c = g.channel_named(channel);
    let parent = c.parent_id.as_ref()?;
    Some(g.channels.iter().find(|p| &p.id == parent)?.name.clone())
}

#[tokio::test]
async fn keep_going_moves_a_channel_whatever_happened_to_the_widget() {
    let h = Harness::start().await;
    let r = apply_with_a_failing_widget(&h, &["--keep-going"]).await;
    assert_eq!(parent_name(&h, "bot-spam").as_deref(), Some("Help"));
    // The move and the reorder were made, after the widget had failed: the planned
    // order holds, a failure nothing needs just does not stop it.
    let requests = h.requests();
    let last_widget = requests
        .iter()
        .rposition(|q| q.path.ends_with("/widget"))
        .unwrap();
    let positions = format!("/api/v10/guilds/{}/channels", h.emu.guild_id);
    let moves: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, q)| q.method == "PATCH" && q.path == positions)
        .map(|(i, q)| {
            assert!((200..300).contains(&q.status), "{q:?}");
            i
        })
        .collect();
    assert_eq!(moves.len(), 2, "one move, one reorder: {requests:?}");
    assert!(moves.iter().all(|&i| i > last_widget));
    assert!(
        r.stdout
            .contains("Applied 3 of 4 calls; 1 failed, 0 skipped."),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Skipped:"), "{}", r.stdout);
}

#[tokio::test]
async fn without_keep_going_a_failed_widget_stops_the_run() {
    let h = Harness::start().await;
    let r = apply_with_a_failing_widget(&h, &[]).await;
    assert_eq!(parent_name(&h, "bot-spam"), None, "not moved");
    let positions = format!("/api/v10/guilds/{}/channels", h.emu.guild_id);
    assert!(
        !h.requests()
            .iter()
            .any(|q| q.method == "PATCH" && q.path == positions)
    );
    assert!(
        r.stdout
            .contains("Applied 1 of 4 calls; 1 failed, 2 skipped."),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("Skipped: move channel Help/#bot-spam, reorder channels"),
        "{}",
        r.stdout
    );
}
