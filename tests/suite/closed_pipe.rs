//! Standard output closed by its reader (`guildctl completions bash | head -1`): every
//! command that writes to stdout ends its output quietly and its work as usual. No panic,
//! no "Broken pipe", and the exit code the command has when its output is read whole
//! (docs/decisions.md, "A closed standard output"). The pipe's reader is gone before the
//! command starts, so its first write meets the closed pipe, every run.

use std::process::Stdio;

use tokio::io::AsyncWriteExt;

use crate::common::github::{FakeGitHub, PR_NUMBER};
use crate::common::gitlab::FakeGitLab;
use crate::common::{Harness, example};

/// What one run printed and how it ended.
struct Ended {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn run(mut cmd: tokio::process::Command, stdout: Stdio, stdin: Option<&str>) -> Ended {
    let mut child = cmd
        .stdout(stdout)
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .spawn()
        .expect("guildctl runs");
    if let (Some(text), Some(mut input)) = (stdin, child.stdin.take()) {
        // A client that sends its request and leaves: stdin ends after it.
        input.write_all(text.as_bytes()).await.unwrap();
    }
    let out = child.wait_with_output().await.expect("guildctl ends");
    Ended {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the command `make` builds with stdout a pipe nobody reads any more, then with
/// stdout read whole: the first ends quietly with `code`, the second wrote something and
/// ends with `code` too.
async fn ends_quietly(
    make: impl Fn() -> tokio::process::Command,
    stdin: Option<&str>,
    code: i32,
    what: &str,
) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let closed = run(make(), Stdio::from(writer), stdin).await;
    let stderr = closed.stderr.to_lowercase();
    assert!(!stderr.contains("panicked"), "{what}: {}", closed.stderr);
    assert!(!stderr.contains("broken pipe"), "{what}: {}", closed.stderr);
    assert_eq!(
        closed.code, code,
        "{what}, stdout closed: {}",
        closed.stderr
    );

    let read = run(make(), Stdio::piped(), stdin).await;
    assert_eq!(read.code, code, "{what}, stdout read: {}", read.stderr);
    assert!(
        !read.stdout.trim().is_empty(),
        "{what} writes nothing to stdout: this case tests nothing"
    );
}

/// The commands that write to stdout, each with the exit code it has when read whole.
#[tokio::test]
async fn every_command_that_writes_to_stdout_ends_quietly_when_its_reader_leaves() {
    let h = Harness::start().await;
    let community = example("community.yaml");
    let community = community.to_str().unwrap();
    let invalid = h.manifest("invalid.yaml", "version: 1\nroles: 3\n");
    let invalid = invalid.to_str().unwrap();
    let template = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/template-book-club.json"
    );
    h.run(&["plan", "-f", community, "--out", "plan.json"])
        .await
        .assert_code(0);
    let table: &[(&[&str], i32)] = &[
        (&["--help"], 0),
        (&["--version"], 0),
        (&["plan", "--help"], 0),
        (&["schema"], 0),
        (&["completions", "bash"], 0),
        (&["completions", "zsh"], 0),
        (&["completions", "fish"], 0),
        (&["completions", "powershell"], 0),
        (&["completions", "elvish"], 0),
        (&["man"], 0),
        (&["validate", "-f", community, "--format", "json"], 0),
        (&["validate", "-f", community, "--format", "sarif"], 0),
        (&["validate", "-f", invalid, "--format", "github"], 1),
        (&["import", "template", template], 0),
        (&["plan", "-f", community], 0),
        (&["plan", "-f", community, "--detailed-exitcode"], 2),
        (&["plan", "-f", community, "--format", "markdown"], 0),
        (&["plan", "-f", community, "--format", "json"], 0),
        (&["plan", "-f", community, "--format", "sarif"], 0),
        (&["drift", "-f", community], 2),
        (&["drift", "-f", community, "--format", "markdown"], 2),
        (&["drift", "-f", community, "--format", "json"], 2),
        (&["export"], 0),
        (&["access", "-f", community], 0),
        (&["access", "-f", community, "--format", "json"], 0),
        (&["lockdown", "--invites", "1h", "--reason", "raid"], 0),
        (
            &[
                "emulator",
                "call",
                "--state",
                "hand.json",
                "--new",
                "GET",
                "/users/@me",
            ],
            0,
        ),
        (&["github", "plan-digest", "plan.json"], 0),
        (&["github", "plan-rehearsal", "plan.json"], 0),
        (&["github", "plan-summary", "plan.json"], 0),
        (&["gitlab", "plan-digest", "plan.json"], 0),
    ];
    for (args, code) in table {
        ends_quietly(|| h.command(args), None, *code, &args.join(" ")).await;
    }
}

/// `apply`'s plan and summary go to stdout: with nobody reading them, apply still makes
/// every call, saves the sandbox and exits 0; the next plan is empty.
#[tokio::test]
async fn apply_finishes_its_work_when_nobody_reads_its_output() {
    let h = Harness::start().await;
    let community = example("community.yaml");
    let community = community.to_str().unwrap();
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let applied = run(
        h.command(&["apply", "-f", community, "--yes"]),
        Stdio::from(writer),
        None,
    )
    .await;
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    assert!(!applied.stderr.contains("panicked"), "{}", applied.stderr);
    assert!(!h.writes().is_empty(), "apply made no call");
    h.run(&["plan", "-f", community, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// The GitHub and GitLab subcommands that talk to their APIs print the URL they wrote.
#[tokio::test]
async fn the_forge_commands_end_quietly_when_their_reader_leaves() {
    let h = Harness::start().await;
    let body = h.manifest("body.md", "### guildctl plan\n\n2 to create.\n");
    let body = body.to_str().unwrap();
    let gh = FakeGitHub::start().await;
    let event = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/github-event-pull_request-opened.json"
    );
    let comment = [
        "github",
        "comment",
        "--marker",
        "plan:a",
        "--body-file",
        body,
    ];
    let github = || {
        let mut cmd = h.command(&comment);
        cmd.envs(gh.env())
            .env_remove("GUILDCTL_GITHUB_AUTHOR")
            .env("GITHUB_EVENT_PATH", event)
            .env("GITHUB_EVENT_NAME", "pull_request");
        cmd
    };
    ends_quietly(github, None, 0, "github comment").await;
    assert_eq!(gh.comments(PR_NUMBER).len(), 1, "one comment, kept current");

    let gl = FakeGitLab::start().await;
    gl.add_merge_request(5, "1111111111111111111111111111111111111111");
    let note = ["gitlab", "note", "--marker", "plan:a", "--body-file", body];
    let gitlab = || {
        let mut cmd = h.command(&note);
        cmd.envs(gl.env())
            .env_remove("GUILDCTL_GITLAB_AUTHOR")
            .env("CI_MERGE_REQUEST_IID", "5");
        cmd
    };
    ends_quietly(gitlab, None, 0, "gitlab note").await;
    assert_eq!(gl.notes(5).len(), 1, "one note, kept current");
}

/// `guildctl mcp` answers on stdout: a client that closed it has gone, as one that closes
/// stdin has; the server says so and exits 0.
#[tokio::test]
async fn mcp_ends_quietly_when_the_client_closes_its_input() {
    let h = Harness::start().await;
    let initialize = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
        r#""capabilities":{},"clientInfo":{"name":"closed-pipe","version":"1"}}}"#,
        "\n"
    );
    let mcp = || h.command(&["mcp", "--sandbox"]);
    ends_quietly(mcp, Some(initialize), 0, "mcp").await;
}

/// `guildctl emulator` prints its start line and serves: with nobody reading the line it
/// still serves until interrupted, and exits 0.
#[tokio::test]
async fn the_emulator_serves_when_nobody_reads_its_start_line() {
    let h = Harness::start().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = h
        .command(&["emulator", "--listen", &listen])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("guildctl runs");
    // It serves (the start line was written, and dropped, just before).
    let started = std::time::Instant::now();
    loop {
        if tokio::net::TcpStream::connect(&listen).await.is_ok() {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the emulator never listened"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Past the start line, to the wait for an interrupt.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let pid = i32::try_from(child.id().expect("running")).unwrap();
    // SAFETY: kill(2) on the child this test started, with a valid signal number.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().await.expect("guildctl ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// Output lost for another reason than a reader that left (a full disk) is an error: it is
/// said, and the command exits 1, never 0 with nothing written.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn output_lost_to_a_full_device_is_an_error() {
    let h = Harness::start().await;
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("Linux has /dev/full");
    let out = run(h.command(&["schema"]), Stdio::from(full), None).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: cannot write to standard output: No space left on device"),
        "{}",
        out.stderr
    );
}
