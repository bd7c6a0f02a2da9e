//! `guildctl watch` end to end against the emulator's Gateway: a hand change made through
//! `guildctl emulator call` is told with who made it and why, the guild is read again only
//! after it changed, and a dropped connection loses nothing.

use std::process::Stdio;
use std::time::Duration;

use discord_emulator::gateway::GatewayCommand;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

use crate::common::Harness;

const WAIT: Duration = Duration::from_secs(30);

/// A `guildctl watch --format json` running against the harness's emulator.
struct Watcher {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    seen: Vec<Value>,
}

impl Watcher {
    async fn start(h: &Harness, extra: &[&str]) -> Watcher {
        let manifest = h.manifest("guild.yaml", "version: 1\n");
        let manifest = manifest.to_str().unwrap();
        let mut args = vec![
            "watch", "-f", manifest, "--format", "json", "--settle", "0.2",
        ];
        args.extend_from_slice(extra);
        let mut child = h
            .command(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("guildctl watch starts");
        let stdout = child.stdout.take().expect("its stdout");
        Watcher {
            child,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
        }
    }

    /// Until watch says it connected and the emulator holds its session.
    async fn in_session(&mut self, h: &Harness) {
        self.until("the connection", |v| v["event"] == "connected")
            .await;
        let deadline = tokio::time::Instant::now() + WAIT;
        while h.emu.gateway_sessions().is_empty() {
            assert!(tokio::time::Instant::now() < deadline, "no session");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The next line `pick` takes, within [`WAIT`]; the lines before it are kept in `seen`.
    async fn until(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let line = tokio::time::timeout(left, self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no {what} in time; told so far: {:#?}", self.seen))
                .expect("reading watch's output")
                .unwrap_or_else(|| panic!("watch ended before {what}; told: {:#?}", self.seen));
            let v: Value = serde_json::from_str(&line).expect("a JSON line");
            self.seen.push(v.clone());
            if pick(&v) {
                return v;
            }
        }
    }
}

/// `guildctl emulator call --emulator URL` as ferris, a person with rights in the guild.
async fn hand_change(h: &Harness, path: &str, body: &str, reason: &str) {
    let base = h.emu.base_url.clone();
    let run = h
        .run(&[
            "emulator",
            "call",
            "--emulator",
            &base,
            "--as",
            "ferris",
            "--reason",
            reason,
            "PATCH",
            path,
            body,
        ])
        .await;
    run.assert_code(0);
}

#[tokio::test]
async fn a_hand_change_is_told_with_who_and_why_and_the_guild_is_read_again_only_then() {
    let h = Harness::start().await;
    let mut w = Watcher::start(&h, &[]).await;
    let start = w.until("the first read", |v| v["event"] == "drift").await;
    assert_eq!(start["why"], "start");
    let connected = w
        .until("the connection", |v| v["event"] == "connected")
        .await;
    assert_eq!(connected["shards"], serde_json::json!([[0, 1]]));
    assert_eq!(
        connected["intents"],
        serde_json::json!(["GUILDS", "GUILD_MODERATION"])
    );
    // When its session begins, watch reads one audit-log page (what was written between its
    // first reads and the connection: nothing here); then, idle, nothing at all.
    let deadline = tokio::time::Instant::now() + WAIT;
    while !h.reads().iter().any(|r| r.contains("/audit-logs?after=")) {
        assert!(tokio::time::Instant::now() < deadline, "{:?}", h.reads());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    h.emu.clear_requests();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(h.requests().len(), 0, "{:?}", h.requests());

    let general = h.channel_id("General/general");
    hand_change(
        &h,
        &format!("/channels/{general}"),
        r#"{"rate_limit_per_user": 30}"#,
        "too busy",
    )
    .await;
    let change = w.until("the change", |v| v["event"] == "change").await;
    assert_eq!(change["by"]["name"], "ferris");
    assert_eq!(change["by"]["bot"], false);
    assert_eq!(change["reason"], "too busy");
    assert_eq!(change["action_type"], 11);
    assert_eq!(change["action"], "updated a channel");
    assert_eq!(change["target"]["name"], "#general");
    assert_eq!(change["target"]["id"], general.as_str());
    assert_eq!(change["guild"]["id"], h.emu.guild_id.as_str());
    assert_eq!(change["guildctl"], false);
    let again = w
        .until("the read after it", |v| v["event"] == "drift")
        .await;
    assert_eq!(again["why"], "changed");
    // The writes were the hand change's; watch itself wrote nothing.
    let writes: Vec<_> = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].reason.as_deref(), Some("too busy"));
    w.child.kill().await.ok();
}

#[tokio::test]
async fn a_dropped_connection_loses_no_change() {
    let h = Harness::start().await;
    let mut w = Watcher::start(&h, &[]).await;
    // Then drop its TCP connection without a close frame.
    w.in_session(&h).await;
    let reached = h
        .emu
        .gateway_command(&GatewayCommand {
            send: "drop".into(),
            resumable: true,
            code: None,
            session_id: None,
        })
        .unwrap();
    assert_eq!(reached, 1);
    // Made while the connection is down or coming back.
    let role = h.role_id("Moderator");
    hand_change(
        &h,
        &format!("/guilds/{}/roles/{role}", h.emu.guild_id),
        r#"{"mentionable": true}"#,
        "while you were away",
    )
    .await;
    let change = w.until("the change", |v| v["event"] == "change").await;
    assert_eq!(change["reason"], "while you were away");
    assert_eq!(change["target"]["name"], "@Moderator");
    let sessions = h.emu.gateway_sessions();
    assert_eq!(
        sessions.len(),
        1,
        "resumed, not a second session: {sessions:?}"
    );
    w.child.kill().await.ok();
}

#[tokio::test]
async fn a_change_made_while_no_session_listened_is_told_when_a_new_one_begins() {
    let mut state = discord_emulator::default_state();
    // Discord's 5 s between identifies is twilight's to keep (its queue waits): the
    // emulator need not refuse the second one too.
    state.config.gateway.identify_interval_ms = 0;
    let h = Harness::with_state(Some(state)).await;
    let mut w = Watcher::start(&h, &[]).await;
    w.in_session(&h).await;
    // Discord ends the session: what happens until the next one is never dispatched.
    h.emu
        .gateway_command(&GatewayCommand {
            send: "invalid_session".into(),
            resumable: false,
            code: None,
            session_id: None,
        })
        .unwrap();
    assert!(h.emu.gateway_sessions().is_empty());
    let role = h.role_id("Helper");
    hand_change(
        &h,
        &format!("/guilds/{}/roles/{role}", h.emu.guild_id),
        r#"{"mentionable": true}"#,
        "nobody was listening",
    )
    .await;
    let change = w
        .until("the missed change", |v| v["event"] == "change")
        .await;
    assert_eq!(change["reason"], "nobody was listening");
    assert_eq!(change["by"]["name"], "ferris");
    let resync = w
        .until("the read after the new session", |v| v["event"] == "drift")
        .await;
    assert_eq!(resync["why"], "resync");
    let told = w.seen.iter().filter(|v| v["event"] == "change").count();
    assert_eq!(told, 1, "told once: {:#?}", w.seen);
    w.child.kill().await.ok();
}
