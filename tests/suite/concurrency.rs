//! Two applies at once, and an apply interrupted (issue 41, points 7 and 8;
//! docs/safety.md, "Two applies at once" and "Interrupting apply"): the real binary as a
//! child process against the emulator, made slow where a test needs time to act (the
//! emulator's latency fault on writes, or a sandbox state whose role creations are
//! rate-limited), the signal sent once its progress shows calls under way.

use crate::common;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Harness, Run};
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Every write the emulator gets waits `ms` (real time) before it is carried out.
fn slow_writes(h: &Harness, ms: u64) {
    let rules = ["POST", "PATCH", "PUT", "DELETE"]
        .into_iter()
        .map(|method| FaultRule {
            method: method.into(),
            path: "/**".into(),
            probability: 1.0,
            kind: FaultKind::LatencyMs(ms),
        })
        .collect();
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules,
        })
        .unwrap();
}

/// A guildctl process whose output is read as it comes, for a test to act on a line.
struct Watched {
    child: tokio::process::Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<tokio::task::JoinHandle<()>>,
}

fn read_into(
    from: impl AsyncRead + Unpin + Send + 'static,
    into: Arc<Mutex<String>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut lines = BufReader::new(from).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut text = into.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    })
}

impl Watched {
    fn start(mut cmd: tokio::process::Command) -> Watched {
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("guildctl starts");
        let (stdout, stderr) = (Arc::default(), Arc::default());
        let readers = vec![
            read_into(child.stdout.take().unwrap(), Arc::clone(&stdout)),
            read_into(child.stderr.take().unwrap(), Arc::clone(&stderr)),
        ];
        Watched {
            child,
            stdout,
            stderr,
            readers,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("still running")
    }

    /// Waits (at most 60 s) until `seen(stdout, stderr)` holds.
    async fn until(&self, what: &str, seen: impl Fn(&str, &str) -> bool) {
        let started = Instant::now();
        loop {
            let (out, err) = (
                self.stdout.lock().unwrap().clone(),
                self.stderr.lock().unwrap().clone(),
            );
            if seen(&out, &err) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "never saw {what}\n--- stdout\n{out}\n--- stderr\n{err}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn signal(&self, signal: i32) {
        let pid = i32::try_from(self.pid()).unwrap();
        // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
        #[allow(unsafe_code)]
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0);
    }

    async fn finish(mut self) -> Run {
        let status = self.child.wait().await.expect("guildctl ends");
        for reader in self.readers {
            reader.await.unwrap();
        }
        let text = |buf: &Arc<Mutex<String>>| buf.lock().unwrap().clone();
        Run {
            code: status.code().unwrap_or(-1),
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
        }
    }
}

/// `guildctl ARGS` in `dir` against its own in-process sandbox (no harness emulator).
fn sandbox_command(dir: &std::path::Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GUILDCTL_GUILD")
        .env_remove("DISCORD_TOKEN")
        .env_remove("GUILDCTL_LOCK_TIMEOUT");
    cmd
}

/// `Applied K of N calls` from apply's summary.
fn applied(stdout: &str) -> (usize, usize) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Applied "))
        .unwrap_or_else(|| panic!("no summary line in\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

/// Roles R01..Rn, and (waiting for every one of them, as guild settings wait for every
/// earlier call) a new AFK timeout.
fn roles_and_settings(roles: usize) -> String {
    let mut yaml = String::from("version: 1\nsettings: { afk_timeout: 3600 }\nroles:\n");
    for i in 1..=roles {
        yaml.push_str(&format!("  - {{ name: R{i:02} }}\n"));
    }
    yaml
}

fn count_named<'a>(names: impl Iterator<Item = &'a str>, prefix: &str) -> usize {
    names.filter(|n| n.starts_with(prefix)).count()
}

/// SIGINT once calls are under way: the calls in flight finish, nothing else is sent,
/// apply says what was done and what was not, and exits 130; the next apply finishes
/// the plan and a fresh plan is empty.
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_apply_finishes_what_is_in_flight_sends_nothing_more_and_says_so() {
    let h = Harness::start().await;
    h.manifest("m.yaml", &roles_and_settings(12));
    slow_writes(&h, 500);
    let guild = h.emu.guild_id.clone();
    let apply = Watched::start(h.command(&["apply", "-f", "m.yaml", "--yes"]));
    apply
        .until("a call done", |_, err| err.contains(": done"))
        .await;
    apply.signal(libc::SIGINT);
    let run = apply.finish().await;
    run.assert_code(130);
    assert!(
        run.stderr
            .contains("Interrupted (SIGINT): no new call starts; the calls already sent finish, each within 30 s."),
        "{}",
        run.stderr
    );
    let (done, total) = applied(&run.stdout);
    assert!(done >= 1 && done < total, "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!("Interrupted: {} call(s) not made.", total - done)),
        "{}",
        run.stdout
    );
    // The settings wait for every role: never sent, and said so.
    let not_sent = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Not sent: "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(not_sent.contains("update guild settings"), "{not_sent}");
    assert!(
        run.stdout.contains(
            "Run `guildctl apply` again to finish: it plans again from the guild as it is now, so it makes only what is still missing."
        ),
        "{}",
        run.stdout
    );
    // Every write Discord got is a call reported done: none started after the signal.
    let writes = h.writes();
    assert_eq!(writes.len(), done, "{writes:#?}\n{}", run.stdout);
    assert!(
        writes
            .iter()
            .all(|w| !(w.method == "PATCH" && w.path.ends_with(&format!("/guilds/{guild}")))),
        "the settings call was sent: {writes:#?}"
    );
    let made = count_named(h.guild().roles.iter().map(|r| r.name.as_str()), "R");
    assert!(made <= done, "{made} roles for {done} calls");

    // The next apply finishes it, and then there is nothing left to do.
    h.emu.clear_faults();
    let again = h.run(&["apply", "-f", "m.yaml", "--yes"]).await;
    again.assert_code(0);
    assert!(
        h.plan_json("m.yaml").await["changes"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let names: Vec<String> = h.guild().roles.iter().map(|r| r.name.clone()).collect();
    for i in 1..=12 {
        let name = format!("R{i:02}");
        assert_eq!(names.iter().filter(|n| **n == name).count(), 1, "{names:?}");
    }
}

/// The same with the sandbox and SIGTERM: the state file keeps exactly what was applied
/// (written, whole, under its lock), and the next apply finishes from there.
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_sandbox_apply_keeps_what_it_did_in_the_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One role creation per 0.4 s of real time: the apply takes seconds.
    let mut state = discord_emulator::default_state();
    state.config.role_creates.limit = 1;
    state.config.role_creates.window_seconds = 0.4;
    std::fs::write(d.join("s.json"), serde_json::to_string(&state).unwrap()).unwrap();
    std::fs::write(d.join("m.yaml"), roles_and_settings(6)).unwrap();
    let args = [
        "apply",
        "-f",
        "m.yaml",
        "--yes",
        "--sandbox",
        "--sandbox-state",
        "s.json",
    ];
    let apply = Watched::start(sandbox_command(d, &args));
    apply
        .until("a call done", |_, err| err.contains(": done"))
        .await;
    apply.signal(libc::SIGTERM);
    let run = apply.finish().await;
    run.assert_code(130);
    assert!(
        run.stderr.contains("Interrupted (SIGTERM)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Sandbox state saved to s.json"),
        "{}",
        run.stderr
    );
    let (done, total) = applied(&run.stdout);
    assert!(done >= 1 && done < total, "{}", run.stdout);
    let saved = discord_emulator::load_state_file(&d.join("s.json")).unwrap();
    let roles = count_named(saved.guilds[0].roles.iter().map(|r| r.name.as_str()), "R");
    assert_eq!(
        roles, done,
        "the state keeps every call made, and only those"
    );

    // Fast again, the next apply finishes, and a fresh plan has nothing to do.
    let mut saved: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    saved["config"]["role_creates"]["window_seconds"] = 0.001.into();
    std::fs::write(d.join("s.json"), saved.to_string()).unwrap();
    let again = Run::of(sandbox_command(d, &args).output().await.unwrap());
    again.assert_code(0);
    let (done_now, _) = applied(&again.stdout);
    assert_eq!(done_now, total - done, "{}", again.stdout);
    let plan = Run::of(
        sandbox_command(
            d,
            &[
                "plan",
                "-f",
                "m.yaml",
                "--detailed-exitcode",
                "--sandbox",
                "--sandbox-state",
                "s.json",
            ],
        )
        .output()
        .await
        .unwrap(),
    );
    plan.assert_code(0);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);
}

/// A second signal ends the process at once, without waiting for the calls in flight.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_interrupt_exits_at_once() {
    let h = Harness::start().await;
    h.manifest("m.yaml", &roles_and_settings(3));
    slow_writes(&h, 20_000);
    let apply = Watched::start(h.command(&["apply", "-f", "m.yaml", "--yes"]));
    // The plan is printed just before the first call starts.
    apply
        .until("the plan", |out, _| out.contains("to create"))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    apply.signal(libc::SIGINT);
    apply
        .until("the first interrupt's notice", |_, err| {
            err.contains("Interrupted (SIGINT)")
        })
        .await;
    let second = Instant::now();
    apply.signal(libc::SIGINT);
    let run = apply.finish().await;
    assert!(
        second.elapsed() < Duration::from_secs(5),
        "took {:?}",
        second.elapsed()
    );
    run.assert_code(130);
    assert!(
        run.stderr.contains(
            "Interrupted again (SIGINT): stopping at once. The calls in flight may or may not have been made; run `guildctl apply` again to finish."
        ),
        "{}",
        run.stderr
    );
    // The calls were still held by the emulator's latency: none had been carried out.
    assert!(h.writes().is_empty());
}

/// Two sandbox applies started together, one adding alpha-room and one beta-room: the
/// second waits for the first's state, so both rooms exist after (several rounds).
#[tokio::test(flavor = "multi_thread")]
async fn two_sandbox_applies_at_once_both_keep_their_room() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..4 {
        let d = dir.path().join(format!("round-{round}"));
        std::fs::create_dir(&d).unwrap();
        for room in ["alpha", "beta"] {
            std::fs::write(
                d.join(format!("{room}.yaml")),
                format!("version: 1\nchannels:\n  - {{ name: {room}-room, type: text }}\n"),
            )
            .unwrap();
        }
        let run = |room: &str| {
            let file = format!("{room}.yaml");
            let args = [
                "apply",
                "-f",
                file.as_str(),
                "--yes",
                "--sandbox",
                "--sandbox-state",
                "s.json",
            ];
            sandbox_command(&d, &args).output()
        };
        let (alpha, beta) = tokio::join!(run("alpha"), run("beta"));
        let (alpha, beta) = (Run::of(alpha.unwrap()), Run::of(beta.unwrap()));
        alpha.assert_code(0);
        beta.assert_code(0);
        let state = discord_emulator::load_state_file(&d.join("s.json")).unwrap();
        let channels: Vec<&str> = state.guilds[0]
            .channels
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        for room in ["alpha-room", "beta-room"] {
            assert_eq!(
                channels.iter().filter(|c| **c == room).count(),
                1,
                "round {round}: {channels:?}\n{}\n{}",
                alpha.stderr,
                beta.stderr
            );
        }
        assert!(!d.join(".s.json.lock").exists(), "the lock file is removed");
    }
}

/// Two applies of one live guild from one machine: the second waits for the first,
/// says so (whose pid, since when), then plans from what the first made: the channel
/// exists once. With `--lock-timeout 0s` it refuses at once, having sent nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_apply_of_a_guild_waits_for_the_first_and_says_so() {
    let h = Harness::start().await;
    h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - { name: shared-room, type: text }\n",
    );
    slow_writes(&h, 3_000);
    let guild = h.emu.guild_id.clone();
    let first = Watched::start(h.command(&["apply", "-f", "m.yaml", "--yes"]));
    let first_pid = first.pid();
    // The first reads the guild only once it holds the lock.
    let started = Instant::now();
    while h.reads().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "no read");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let second = Watched::start(h.command(&["apply", "-f", "m.yaml", "--yes"]));
    second
        .until("the notice (or the end)", |out, err| {
            err.contains("waiting up to") || out.contains("Applied ")
        })
        .await;
    let refused = h
        .run(&["apply", "-f", "m.yaml", "--yes", "--lock-timeout", "0s"])
        .await;
    let (first, second) = (first.finish().await, second.finish().await);
    first.assert_code(0);
    second.assert_code(0);
    assert!(
        second
            .stderr
            .contains(&format!("another guildctl apply (pid {first_pid}, since "))
            && second.stderr.contains(&format!(
                ") holds guild {guild}; waiting up to 5 min for it to finish…"
            )),
        "{}",
        second.stderr
    );
    assert!(second.stdout.contains("No changes"), "{}", second.stdout);
    let rooms = h
        .guild()
        .channels
        .iter()
        .filter(|c| c.name == "shared-room")
        .count();
    assert_eq!(rooms, 1);
    assert_eq!(h.writes().len(), 1, "one create, by the first apply");
    refused.assert_code(1);
    assert!(
        refused.stderr.contains(&format!(
            "another guildctl apply (pid {first_pid}, since "
        )) && refused.stderr.contains(&format!(
            ") still holds guild {guild}; nothing was sent to Discord. Run guildctl apply again once it has finished, or pass --lock-timeout 5m to wait for it"
        )),
        "{}",
        refused.stderr
    );
}

/// `apply --all` interrupted: every guild's calls stop, the guilds not started yet stay
/// so and the summary names them; the exit code is 130, and the next `apply --all`
/// finishes every guild.
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_stops_the_remaining_guilds_of_apply_all_and_names_them() {
    let state = discord_emulator::with_guild_copies(discord_emulator::default_state(), 10);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let mut workspace = String::from("guilds:\n");
    for (i, id) in ids.iter().enumerate() {
        h.manifest(&format!("g{i}.yaml"), &roles_and_settings(2));
        workspace.push_str(&format!(
            "  g{i}: {{ id: \"{id}\", manifest: g{i}.yaml }}\n"
        ));
    }
    h.manifest("guildctl.yaml", &workspace);
    slow_writes(&h, 800);
    let apply = Watched::start(h.command(&["apply", "--all", "--yes"]));
    let started = Instant::now();
    while h.writes().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "no write");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    apply.signal(libc::SIGINT);
    let run = apply.finish().await;
    run.assert_code(130);
    // Eight guilds are applied at a time: the last two had not started.
    for name in ["g8", "g9"] {
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{}", run.stdout));
        assert!(
            line.contains("130")
                && line.contains("not applied: interrupted before it started (3 call(s)); run apply again to apply it"),
            "{line}"
        );
    }
    assert!(
        run.stdout.contains("interrupted: applied "),
        "{}",
        run.stdout
    );
    // Nothing of the two was sent.
    for id in &ids[8..] {
        assert!(
            h.writes().iter().all(|w| !w.path.contains(id.as_str())),
            "guild {id} was written"
        );
    }
    h.emu.clear_faults();
    h.run(&["apply", "--all", "--yes"]).await.assert_code(0);
    h.run(&["plan", "--all", "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// Every command that writes a sandbox state back takes its lock: `emulator call` and
/// `lockdown` refuse while another process holds it (here, this test), and write nothing.
#[tokio::test(flavor = "multi_thread")]
async fn every_command_that_writes_the_sandbox_state_takes_its_lock() {
    use guildctl::file_lock::{Holder, try_acquire};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let held = try_acquire(&d.join(".s.json.lock"), &Holder::me("guildctl apply"))
        .unwrap()
        .unwrap();
    let call = [
        "emulator",
        "call",
        "--new",
        "--state",
        "s.json",
        "GET",
        "/users/@me",
    ];
    let lockdown = [
        "lockdown",
        "--sandbox",
        "--sandbox-state",
        "s.json",
        "--invites",
        "1h",
        "--reason",
        "raid",
    ];
    for (args, command) in [
        (&call[..], "guildctl emulator call"),
        (&lockdown[..], "guildctl lockdown"),
    ] {
        let mut cmd = sandbox_command(d, args);
        cmd.env("GUILDCTL_LOCK_TIMEOUT", "0s");
        let run = Run::of(cmd.output().await.unwrap());
        run.assert_code(1);
        assert!(
            run.stderr.contains(&format!(
                "another guildctl apply (pid {}, since ",
                std::process::id()
            )) && run.stderr.contains(&format!(
                ") still holds the sandbox state s.json; nothing was changed. Run {command} again once it has finished"
            )),
            "{}",
            run.stderr
        );
        assert!(!d.join("s.json").exists());
    }
    drop(held);
    Run::of(sandbox_command(d, &call).output().await.unwrap()).assert_code(0);
    Run::of(sandbox_command(d, &lockdown).output().await.unwrap()).assert_code(0);
    let state = std::fs::read_to_string(d.join("s.json")).unwrap();
    assert!(
        state.contains("invites_disabled_until"),
        "the lockdown was saved"
    );
}
