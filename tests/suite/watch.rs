//! `guildctl watch` end to end against the emulator's Gateway: a hand change made through
//! `guildctl emulator call` is told with who made it and why, the guild is read again only
//! after it changed, and a dropped connection loses nothing.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use discord_emulator::gateway::GatewayCommand;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

use crate::common::Harness;
use crate::common::github::FakeGitHub;
use crate::common::gitlab::FakeGitLab;
use crate::common::guild::perms;

const WAIT: Duration = Duration::from_secs(30);

/// A `guildctl watch --format json` running against the harness's emulator.
struct Watcher {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    seen: Vec<Value>,
    /// What it wrote on stderr so far.
    stderr: Arc<Mutex<String>>,
}

impl Watcher {
    async fn start(h: &Harness, extra: &[&str]) -> Watcher {
        Watcher::start_with(h, "version: 1\n", extra).await
    }

    /// `guildctl watch` of a manifest of its own.
    async fn start_with(h: &Harness, yaml: &str, extra: &[&str]) -> Watcher {
        Watcher::start_env(h, yaml, extra, &[]).await
    }

    /// `guildctl watch` of a manifest of its own, with more environment variables.
    async fn start_env(h: &Harness, yaml: &str, extra: &[&str], env: &[(&str, String)]) -> Watcher {
        let manifest = h.manifest("guild.yaml", yaml);
        let manifest = manifest.to_str().unwrap();
        let mut args = vec![
            "watch", "-f", manifest, "--format", "json", "--settle", "0.2",
        ];
        args.extend_from_slice(extra);
        let mut child = h
            .command(&args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("guildctl watch starts");
        let stdout = child.stdout.take().expect("its stdout");
        let mut err = BufReader::new(child.stderr.take().expect("its stderr")).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = Arc::clone(&stderr);
        tokio::spawn(async move {
            while let Ok(Some(line)) = err.next_line().await {
                eprintln!("{line}");
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        Watcher {
            child,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
            stderr,
        }
    }

    /// Until watch says it connected and read the guild, and the emulator holds its
    /// session.
    async fn in_session(&mut self, h: &Harness) {
        self.until("the connection", |v| v["event"] == "connected")
            .await;
        self.until("the first read", |v| v["event"] == "drift")
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

/// `guildctl emulator call --emulator URL` as ferris, a person with rights in the guild
/// (a PATCH).
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

/// ferris edits role `id` of the harness's guild by hand (`@everyone`'s id is the guild's).
async fn edit_role(h: &Harness, id: &str, body: &str, reason: &str) {
    let path = format!("/guilds/{}/roles/{id}", h.emu.guild_id);
    hand_change(h, &path, body, reason).await;
}

#[tokio::test]
async fn a_hand_change_is_told_with_who_and_why_and_the_guild_is_read_again_only_then() {
    let h = Harness::start().await;
    let mut w = Watcher::start(&h, &[]).await;
    let connected = w
        .until("the connection", |v| v["event"] == "connected")
        .await;
    assert_eq!(connected["shards"], serde_json::json!([[0, 1]]));
    assert_eq!(
        connected["intents"],
        serde_json::json!(["GUILDS", "GUILD_MODERATION"])
    );
    // The guild is read once its session began, so every change after is an event and
    // every change before is in the read: no audit-log page is read to catch up.
    let start = w.until("the first read", |v| v["event"] == "drift").await;
    assert_eq!(start["why"], "start");
    let reads = h.reads();
    assert!(
        !reads.iter().any(|r| r.contains("/audit-logs")),
        "{reads:?}"
    );
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
    // The writes were the hand change's; watch itself wrote nothing. Its reads: who ferris
    // is, once, and nothing of the guild: CHANNEL_UPDATE carried the channel whole, and it
    // was planned from the last read with the channel put in.
    let writes: Vec<_> = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].reason.as_deref(), Some("too busy"));
    let reads = h.reads();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert!(reads[0].starts_with("/api/v10/users/"), "{reads:?}");
    assert_eq!(
        again["changes"], 0,
        "the manifest does not manage #general: {again:#}"
    );
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
    edit_role(&h, &role, r#"{"mentionable": true}"#, "while you were away").await;
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
    edit_role(
        &h,
        &role,
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

/// A guarded guild's manifest: a policy on @everyone, and Moderator protected, each as the
/// emulator's guild has them.
const GUARDED: &str = r##"version: 1
safety:
  guard: true
policies:
  - name: everyone-is-no-admin
    never: {who: "@everyone", can: [administrator, manage_roles]}
roles:
  - name: Moderator
    protect: true
    color: "#3498db"
    permissions: [kick_members, ban_members, view_audit_log, manage_messages, mute_members,
      deafen_members, move_members, manage_nicknames, manage_threads, moderate_members]
  - name: "@everyone"
    permissions: [create_instant_invite, add_reactions, stream, view_channel, send_messages,
      embed_links, attach_files, read_message_history, use_external_emojis, connect, speak,
      use_vad, change_nickname, use_application_commands, create_public_threads,
      send_messages_in_threads]
"##;

/// @everyone's permissions in the emulator's guild, by name.
fn everyone_can(h: &Harness) -> Vec<&'static str> {
    let g = h.guild();
    g.role(&g.id).expect("@everyone").permissions.names()
}

/// ferris grants @everyone administrator (and makes Helper mentionable, which breaks nothing).
async fn grant_everyone_admin(h: &Harness) {
    let g = h.guild();
    let admin = g.role(&g.id).unwrap().permissions | perms(&["administrator"]);
    edit_role(
        h,
        &g.id,
        &format!(r#"{{"permissions": "{admin}"}}"#),
        "3 a.m.",
    )
    .await;
}

#[tokio::test]
async fn guard_reverts_a_hand_change_that_breaks_a_policy_naming_the_policy_and_the_actor() {
    let h = Harness::start().await;
    let before = everyone_can(&h);
    let mut w = Watcher::start_with(&h, GUARDED, &["--guard"]).await;
    let connected = w
        .until("the connection", |v| v["event"] == "connected")
        .await;
    assert_eq!(connected["guarded"], 1);
    w.until("the first read", |v| v["event"] == "drift").await;
    let helper = h.role_id("Helper");
    edit_role(&h, &helper, r#"{"mentionable": true}"#, "pingable").await;
    grant_everyone_admin(&h).await;
    assert!(everyone_can(&h).contains(&"administrator"));
    let guarded = w.until("the revert", |v| v["event"] == "guarded").await;
    assert_eq!(guarded["outcome"], "reverted", "{guarded:#}");
    let ferris = h.user_id("ferris");
    assert_eq!(
        guarded["reverted"],
        serde_json::json!([{
            "change": "update role @everyone (permissions)",
            "because": "breaks policy `everyone-is-no-admin`",
            "by": format!("ferris ({ferris})"),
        }])
    );
    assert_eq!(everyone_can(&h), before, "back to the reviewed state");
    // One call, with guildctl's reason naming the policy and who did it; Helper's change
    // breaks nothing and stays.
    let reverts: Vec<_> = h
        .writes()
        .into_iter()
        .filter(|r| {
            r.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("guildctl guard:"))
        })
        .collect();
    assert_eq!(reverts.len(), 1, "{reverts:?}");
    let reason = reverts[0].reason.as_deref().unwrap();
    assert!(reason.contains("ferris ("), "{reason}");
    assert!(reason.contains("everyone-is-no-admin"), "{reason}");
    assert!(
        h.guild().role(&helper).unwrap().mentionable,
        "told, not reverted"
    );
    // Its own revert comes back as an entry marked guildctl's (before or after the
    // guarded line), and is not undone in turn.
    let own = |v: &Value| v["event"] == "change" && v["guildctl"] == true;
    let entry = match w.seen.iter().find(|v| own(v)) {
        Some(v) => v.clone(),
        None => w.until("the revert's entry", own).await,
    };
    assert_eq!(entry["by"]["bot"], true);
    w.until("the read after it", |v| v["event"] == "drift")
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let guard_writes = h
        .writes()
        .iter()
        .filter(|r| {
            r.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("guildctl"))
        })
        .count();
    assert_eq!(guard_writes, 1);
    w.child.kill().await.ok();
}

#[tokio::test]
async fn guard_dry_run_says_what_it_would_revert_and_sends_nothing() {
    let h = Harness::start().await;
    let mut w = Watcher::start_with(&h, GUARDED, &["--guard", "--dry-run"]).await;
    w.in_session(&h).await;
    grant_everyone_admin(&h).await;
    let guarded = w.until("the verdict", |v| v["event"] == "guarded").await;
    assert_eq!(guarded["outcome"], "dry_run");
    assert_eq!(
        guarded["reverted"][0]["change"],
        "update role @everyone (permissions)"
    );
    assert!(everyone_can(&h).contains(&"administrator"), "nothing sent");
    assert_eq!(h.writes().len(), 1, "only the hand change");
    w.child.kill().await.ok();
}

#[tokio::test]
async fn guard_touches_only_the_fields_changed_and_stops_past_its_limit() {
    let h = Harness::start().await;
    let mut w = Watcher::start_with(&h, GUARDED, &["--guard", "--max-reverts", "1"]).await;
    w.in_session(&h).await;
    let moderator = h.role_id("Moderator");
    // A protected role's colour: reverted; its name is not the manifest's to set here
    // (Moderator is matched by name, so a rename is told and planned, not reverted: only
    // what the hand changed and the manifest sets goes back).
    edit_role(&h, &moderator, r#"{"color": 16711680}"#, "red").await;
    let first = w.until("the revert", |v| v["event"] == "guarded").await;
    assert_eq!(first["outcome"], "reverted", "{first:#}");
    assert_eq!(
        first["reverted"][0]["change"],
        "update role Moderator (color)"
    );
    assert!(
        first["reverted"][0]["because"]
            .as_str()
            .unwrap()
            .contains("which `roles[0]` protects"),
        "{first:#}"
    );
    assert_eq!(h.guild().role(&moderator).unwrap().color, 0x3498DB);
    // A second within the window: guard stops, says so, and sends nothing.
    edit_role(&h, &moderator, r#"{"color": 255}"#, "blue").await;
    let second = w.until("the stop", |v| v["event"] == "guarded").await;
    assert_eq!(second["outcome"], "stopped", "{second:#}");
    assert_eq!(h.guild().role(&moderator).unwrap().color, 255);
    w.child.kill().await.ok();
}

#[tokio::test]
async fn guard_never_reverts_by_widening_access() {
    let h = Harness::start().await;
    let mut w = Watcher::start_with(&h, GUARDED, &["--guard"]).await;
    w.in_session(&h).await;
    let moderator = h.role_id("Moderator");
    // Taking ban_members from the protected Moderator narrows access; giving it back
    // would widen it: told, left for a person.
    let fewer =
        h.guild().role(&moderator).unwrap().permissions.bits() & !perms(&["ban_members"]).bits();
    edit_role(
        &h,
        &moderator,
        &format!(r#"{{"permissions": "{fewer}"}}"#),
        "no more bans",
    )
    .await;
    let guarded = w.until("the verdict", |v| v["event"] == "guarded").await;
    assert_eq!(guarded["outcome"], "left", "{guarded:#}");
    let left = guarded["left"][0].as_str().unwrap();
    assert!(left.contains("would widen access"), "{left}");
    assert!(left.contains("ban_members"), "{left}");
    assert!(
        !h.guild()
            .role(&moderator)
            .unwrap()
            .permissions
            .names()
            .contains(&"ban_members")
    );
    w.child.kill().await.ok();
}

/// Polls `check` until it holds, within [`WAIT`]; `Err` when it never did.
async fn eventually(check: impl Fn() -> bool) -> Result<(), ()> {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !check() {
        if tokio::time::Instant::now() >= deadline {
            return Err(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

#[tokio::test]
async fn watch_keeps_the_drift_issue_current_and_tells_a_mod_log_webhook_without_showing_its_url() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let hook = h
        .guild()
        .webhooks
        .into_iter()
        .find(|w| w.name == "Mod Mail")
        .unwrap();
    let token = hook.token.clone().unwrap();
    let url = format!("{}/webhooks/{}/{token}", h.emu.api_base, hook.id);
    let mut env = gh.env();
    env.push(("MODLOG_WEBHOOK", url));
    // The policy is the manifest's: no guard here, only the report.
    let yaml = GUARDED.replace("safety:\n  guard: true\n", "");
    let mut w = Watcher::start_env(
        &h,
        &yaml,
        &[
            "--issue",
            "github",
            "--issue-every",
            "0",
            "--webhook-env",
            "MODLOG_WEBHOOK",
        ],
        &env,
    )
    .await;
    w.in_session(&h).await;
    let marker = format!("drift:{}", h.dir.path().join("guild.yaml").display());
    let breach = "policy everyone\\-is\\-no\\-admin";
    let ours = |gh: &FakeGitHub| {
        gh.issues()
            .into_iter()
            .filter(|i| i.body.contains(&marker))
            .collect::<Vec<_>>()
    };
    grant_everyone_admin(&h).await;
    // The issue (opened at start already for the guild's unmanaged risks) says so.
    eventually(|| {
        ours(&gh)
            .first()
            .is_some_and(|i| i.state == "open" && i.body.contains(breach))
    })
    .await
    .unwrap_or_else(|()| panic!("{:#?}", gh.issues()));
    let issue = &ours(&gh)[0];
    assert_eq!(issue.labels, vec!["guildctl-drift".to_owned()]);
    assert!(issue.title.starts_with("guildctl: the guild drifted from "));
    // The mod-log channel hears of it, mentions off, markdown escaped.
    eventually(|| {
        h.guild()
            .messages
            .iter()
            .any(|m| m.webhook_id == hook.id && m.content.contains("ferris"))
    })
    .await
    .expect("the webhook's message");
    let message = h
        .guild()
        .messages
        .into_iter()
        .find(|m| m.webhook_id == hook.id)
        .unwrap();
    assert!(
        message.content.contains("updated a role"),
        "{}",
        message.content
    );
    assert!(
        message.content.contains("3 a\\.m\\."),
        "{}",
        message.content
    );
    // Put back by hand: the issue says so no more.
    let g = h.guild();
    let back = g.role(&g.id).unwrap().permissions.bits() & !perms(&["administrator"]).bits();
    edit_role(
        &h,
        &g.id,
        &format!(r#"{{"permissions": "{back}"}}"#),
        "oops",
    )
    .await;
    eventually(|| ours(&gh).first().is_some_and(|i| !i.body.contains(breach)))
        .await
        .unwrap_or_else(|()| panic!("not updated: {:#?}", gh.issues()));
    assert_eq!(ours(&gh).len(), 1, "one issue per guild");
    gh.assert_conforms();
    w.child.kill().await.ok();
    let said = w.stderr.lock().unwrap().clone();
    let shown = format!("{said}{:?}", w.seen);
    assert!(
        !shown.contains(&token),
        "the webhook's token is never shown"
    );
    assert!(
        !shown.contains(&h.emu.token),
        "the bot's token is never shown"
    );
}

#[tokio::test]
async fn guard_closes_a_staff_channel_opened_to_everyone_by_its_overwrites() {
    let h = Harness::start().await;
    let yaml = r##"version: 1
safety:
  guard: true
policies:
  - name: staff-stays-private
    never: { who: "@everyone", can: [view_channel], where: ["Staff/*"] }
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        overwrites:
          - role: "@everyone"
            deny: [view_channel]
          - role: Moderator
            allow: [view_channel]
            deny: [send_messages]
          - role: Admin
            allow: [view_channel, send_messages]
"##;
    let mut w = Watcher::start_with(&h, yaml, &["--guard"]).await;
    w.in_session(&h).await;
    let start = w.seen.iter().find(|v| v["event"] == "drift").unwrap();
    assert_eq!(start["changes"], 0, "{start:#}");
    // ferris lets @everyone see #mod-log, with Discord's Edit Channel Permissions.
    let mod_log = h.channel_id("Staff/mod-log");
    let everyone = h.emu.guild_id.clone();
    let view = perms(&["view_channel"]);
    let run = h
        .run(&[
            "emulator",
            "call",
            "--emulator",
            &h.emu.base_url,
            "--as",
            "ferris",
            "--reason",
            "let them look",
            "PUT",
            &format!("/channels/{mod_log}/permissions/{everyone}"),
            &format!(r#"{{"type": 0, "allow": "{view}", "deny": "0"}}"#),
        ])
        .await;
    run.assert_code(0);
    let guarded = w.until("the revert", |v| v["event"] == "guarded").await;
    assert_eq!(guarded["outcome"], "reverted", "{guarded:#}");
    assert_eq!(
        guarded["reverted"][0]["because"],
        "breaks policy `staff-stays-private`"
    );
    let ow = h
        .guild()
        .channel(&mod_log)
        .unwrap()
        .permission_overwrites
        .iter()
        .find(|o| o.id == everyone)
        .cloned()
        .expect("@everyone's overwrite");
    assert_eq!(ow.deny, view, "hidden again");
    assert_eq!(ow.allow, perms(&[]));
    w.child.kill().await.ok();
}

/// The service files docs/watch.md points to run flags watch has.
#[tokio::test]
async fn the_service_examples_use_flags_watch_has() {
    let h = Harness::start().await;
    let help = h.run(&["watch", "--help"]).await;
    help.assert_code(0);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/watch");
    let mut seen = 0;
    for file in ["guildctl-watch.service", "kubernetes.yaml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("watch") && l.contains("--all"))
            .unwrap_or_else(|| panic!("{file} runs no watch"));
        for flag in line
            .split(|c: char| c.is_whitespace() || c == '"' || c == ',' || c == '\'')
            .filter(|w| w.starts_with("--"))
        {
            seen += 1;
            assert!(
                help.stdout.contains(&format!("{flag} "))
                    || help.stdout.contains(&format!("{flag}\n"))
                    || help.stdout.contains(&format!("{flag} <")),
                "{file}: watch has no {flag}"
            );
        }
    }
    assert!(seen >= 6, "{seen}");
}

#[tokio::test]
async fn watch_keeps_the_drift_issue_on_gitlab_too() {
    let h = Harness::start().await;
    let gl = FakeGitLab::start().await;
    let yaml = GUARDED.replace("safety:\n  guard: true\n", "");
    let env: Vec<(&str, String)> = gl.env();
    let mut w = Watcher::start_env(
        &h,
        &yaml,
        &["--issue", "gitlab", "--issue-every", "0"],
        &env,
    )
    .await;
    w.in_session(&h).await;
    let marker = format!("drift:{}", h.dir.path().join("guild.yaml").display());
    grant_everyone_admin(&h).await;
    eventually(|| {
        gl.issues().iter().any(|i| {
            i.description.contains(&marker)
                && i.state == "opened"
                && i.description.contains("everyone\\-is\\-no\\-admin")
        })
    })
    .await
    .unwrap_or_else(|()| panic!("{:#?}", gl.issues()));
    let ours: Vec<_> = gl
        .issues()
        .into_iter()
        .filter(|i| i.description.contains(&marker))
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].labels, vec!["guildctl-drift".to_owned()]);
    assert!(gl.violations().is_empty(), "{:?}", gl.violations());
    w.child.kill().await.ok();
}

#[tokio::test]
async fn a_change_the_event_carries_is_planned_without_reading_the_guild_and_one_it_does_not_is_read()
 {
    let h = Harness::start().await;
    let yaml = GUARDED.replace("safety:\n  guard: true\n", "");
    let mut w = Watcher::start_with(&h, &yaml, &[]).await;
    w.in_session(&h).await;
    h.emu.clear_requests();
    // Moderator's colour: GUILD_ROLE_UPDATE carries the role, so the drift is found in the
    // last read with the role put in.
    let moderator = h.role_id("Moderator");
    edit_role(&h, &moderator, r#"{"color": 255}"#, "blue").await;
    let drift = w.until("the drift", |v| v["event"] == "drift").await;
    assert_eq!(drift["changes"], 1, "{drift:#}");
    let reads = h.reads();
    assert!(
        reads.iter().all(|r| r.contains("/users/")),
        "only who ferris is: {reads:?}"
    );
    // The same as a plan from a whole read says.
    let manifest = h.dir.path().join("guild.yaml");
    let plan = h
        .run(&["plan", "-f", manifest.to_str().unwrap(), "--format", "json"])
        .await
        .json();
    assert_eq!(
        plan["changes"].as_array().map(Vec::len),
        Some(1),
        "{plan:#}"
    );
    // A new role: GUILD_ROLE_CREATE is not taken in, the guild is read again.
    h.emu.clear_requests();
    let run = h
        .run(&[
            "emulator",
            "call",
            "--emulator",
            &h.emu.base_url,
            "--as",
            "ferris",
            "POST",
            &format!("/guilds/{}/roles", h.emu.guild_id),
            r#"{"name": "Fresh"}"#,
        ])
        .await;
    run.assert_code(0);
    w.until("the drift after the new role", |v| v["event"] == "drift")
        .await;
    let reads = h.reads();
    assert!(
        reads
            .iter()
            .any(|r| r.ends_with(&format!("/guilds/{}/channels", h.emu.guild_id))),
        "the guild read again: {reads:?}"
    );
    w.child.kill().await.ok();
}
