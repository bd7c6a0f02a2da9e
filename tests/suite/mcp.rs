//! `guildctl mcp` over stdio, as an MCP client talks to it: the real binary, newline-delimited
//! JSON-RPC on its stdin and stdout, against the sandbox or the kit's emulator.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::common::Harness;

/// The tools the server offers: each only reads.
const TOOLS: [&str; 6] = ["access", "drift", "explain", "plan", "schema", "validate"];

/// Long enough for a debug build on a loaded machine; a hang fails instead of blocking.
const WAIT: Duration = Duration::from_secs(120);

/// A running `guildctl mcp` and what it wrote on stdout so far.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// Every line the server wrote on stdout, each checked to be a JSON-RPC message.
    lines: Vec<String>,
    instructions: String,
}

impl Mcp {
    /// Starts `guildctl mcp ARGS` in `dir` with `env`, and opens the session
    /// (`initialize`, then `notifications/initialized`).
    async fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
            .arg("mcp")
            .args(args)
            .env_remove("DISCORD_TOKEN")
            .env_remove("GUILDCTL_API_BASE")
            .env_remove("GUILDCTL_GUILD")
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("guildctl mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut mcp = Mcp {
            child,
            stdin,
            stdout,
            next_id: 1,
            lines: Vec::new(),
            instructions: String::new(),
        };
        let init = mcp
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": { "name": "guildctl-tests", "version": "1" }
                }),
            )
            .await;
        let result = &init["result"];
        assert_eq!(result["protocolVersion"], "2025-06-18", "{init}");
        assert_eq!(result["serverInfo"]["name"], "guildctl", "{init}");
        assert!(result["capabilities"]["tools"].is_object(), "{init}");
        mcp.instructions = result["instructions"].as_str().unwrap_or("").to_owned();
        mcp.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        mcp
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to the server");
        self.stdin.flush().await.expect("flush");
    }

    /// Sends a request and returns the response with its id; every line read on the way
    /// must be a JSON-RPC message.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        loop {
            let line = tokio::time::timeout(WAIT, self.stdout.next_line())
                .await
                .unwrap_or_else(|_| panic!("no answer to {method} within {WAIT:?}"))
                .expect("read stdout")
                .unwrap_or_else(|| panic!("the server closed stdout before answering {method}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC, not {line:?}: {e}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            self.lines.push(line);
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool: its `result` (a protocol error fails the test).
    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self
            .request(
                "tools/call",
                json!({ "name": tool, "arguments": arguments }),
            )
            .await;
        assert!(response["error"].is_null(), "{tool}: {response}");
        response["result"].clone()
    }

    /// Closes stdin (the client leaves) and returns the server's exit code and stderr.
    async fn close(self) -> (i32, String, Vec<String>) {
        let Mcp {
            child,
            stdin,
            lines,
            ..
        } = self;
        drop(stdin);
        let out = tokio::time::timeout(WAIT, child.wait_with_output())
            .await
            .expect("the server exits when the client leaves")
            .expect("wait");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            lines,
        )
    }
}

/// The text of a result's content blocks.
fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("content: {result}"))
        .iter()
        .map(|c| {
            assert_eq!(c["type"], "text", "{c}");
            c["text"].as_str().expect("text").to_owned()
        })
        .collect()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// The environment that points guildctl at the kit's emulator, as the CLI tests run it.
fn emulator_env(h: &Harness) -> Vec<(&'static str, String)> {
    vec![
        ("DISCORD_TOKEN", h.emu.token.clone()),
        ("GUILDCTL_API_BASE", h.emu.api_base.clone()),
        ("GUILDCTL_GUILD", h.emu.guild_id.clone()),
    ]
}

async fn start_on(h: &Harness) -> Mcp {
    let env = emulator_env(h);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Mcp::start(h.dir.path(), &[], &env).await
}

const NEW_ROLE: &str = "version: 1
roles:
  - name: Reviewers
    permissions: [view_channel]
";

#[tokio::test]
async fn lists_only_tools_that_read_and_says_it_never_applies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut mcp = Mcp::start(dir.path(), &["--sandbox"], &[]).await;
    let listed = mcp.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS, "{listed}");
    for t in &tools {
        let a = &t["annotations"];
        assert_eq!(a["readOnlyHint"], true, "{t}");
        assert_eq!(a["destructiveHint"], false, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        // No argument carries a token: the connection is the server's.
        let props = t["inputSchema"]["properties"].as_object();
        assert!(
            props.is_none_or(|p| p.keys().all(|k| !k.contains("token"))),
            "{t}"
        );
    }
    for write in ["apply", "lockdown", "export", "emulator"] {
        assert!(!names.contains(&write), "{write} is offered");
    }
    // The sandbox answers without a bot.
    std::fs::write(dir.path().join("guild.yaml"), NEW_ROLE).expect("write");
    let planned = mcp.call("plan", json!({ "manifest": "guild.yaml" })).await;
    assert!(!is_error(&planned), "{planned}");
    assert!(texts(&planned)[0].contains("Ferris Fans"), "{planned}");
    assert!(
        mcp.instructions.contains("None of them writes to Discord")
            && mcp.instructions.contains("pull request"),
        "{}",
        mcp.instructions
    );
    let (code, stderr, _) = mcp.close().await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("guildctl mcp: serving read-only tools"),
        "{stderr}"
    );
}

#[tokio::test]
async fn validate_returns_each_diagnostic_with_its_place_and_rule() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("guild.yaml"),
        "version: 1\nroles:\n  - name: Moderator\n  - name: Moderator\n",
    )
    .expect("write");
    // Started elsewhere, working in the folder --root names, as a client without a working
    // folder setting starts it.
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let root = dir.path().display().to_string();
    let mut mcp = Mcp::start(elsewhere.path(), &["--sandbox", "--root", &root], &[]).await;
    let result = mcp
        .call("validate", json!({ "manifest": "guild.yaml" }))
        .await;
    assert!(
        !is_error(&result),
        "a finding is not a tool failure: {result}"
    );
    let doc: Value = serde_json::from_str(&texts(&result)[0]).expect("validate's JSON");
    assert_eq!(doc["valid"], false, "{doc}");
    let d = &doc["diagnostics"][0];
    assert_eq!(d["rule"], "unique-role-names", "{doc}");
    assert_eq!(d["severity"], "error", "{doc}");
    assert_eq!(d["file"], "guild.yaml", "{doc}");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(4), Some(11)),
        "{doc}"
    );
    assert_eq!(d["path"], "roles[1].name", "{doc}");

    // What the rule means, as `explain` says it; a Discord code too.
    let explained = mcp
        .call("explain", json!({ "rule": "unique-role-names" }))
        .await;
    assert!(!is_error(&explained), "{explained}");
    assert!(texts(&explained)[0].contains("Fix:"), "{explained}");
    let code = mcp
        .call("explain", json!({ "rule": "Discord error 50013" }))
        .await;
    assert!(texts(&code)[0].contains("Missing Permissions"), "{code}");
    let unknown = mcp
        .call("explain", json!({ "rule": "unique-role-name" }))
        .await;
    assert!(is_error(&unknown), "{unknown}");
    assert!(
        texts(&unknown)[0].contains("did you mean `unique-role-names`"),
        "{unknown}"
    );

    // The schema is `guildctl schema`'s.
    let schema = mcp.call("schema", json!({})).await;
    let schema: Value = serde_json::from_str(&texts(&schema)[0]).expect("the schema is JSON");
    assert_eq!(schema["$id"], guildctl::manifest::SCHEMA_ID);
    mcp.close().await;
}

#[tokio::test]
async fn plan_against_the_emulator_only_reads_and_never_shows_the_token() {
    let h = Harness::start().await;
    h.manifest("guild.yaml", NEW_ROLE);
    let mut mcp = start_on(&h).await;
    let result = mcp.call("plan", json!({ "manifest": "guild.yaml" })).await;
    assert!(!is_error(&result), "{result}");
    let [plan, summary] = <[String; 2]>::try_from(texts(&result)).expect("plan and summary");
    assert!(plan.contains("+ create role Reviewers"), "{plan}");
    let summary: Value = serde_json::from_str(&summary).expect("the summary is JSON");
    assert_eq!(summary["guild_id"], h.emu.guild_id.as_str());
    assert_eq!(summary["changes"]["create"], 1, "{summary}");
    assert_eq!(summary["apply_will_refuse"], false, "{summary}");
    assert!(summary["risks"].is_array() && summary["access"].is_array());

    // The markdown form, for a pull request.
    let md = mcp
        .call(
            "plan",
            json!({ "manifest": "guild.yaml", "format": "markdown" }),
        )
        .await;
    assert!(texts(&md)[0].contains("Reviewers"), "{md}");

    // Rehearsed on an in-process copy of the guild, never on the guild itself.
    let rehearsed = mcp
        .call(
            "plan",
            json!({ "manifest": "guild.yaml", "rehearse": true }),
        )
        .await;
    assert!(!is_error(&rehearsed), "{rehearsed}");
    let summary: Value = serde_json::from_str(&texts(&rehearsed)[1]).expect("JSON");
    assert_eq!(summary["rehearsal"]["ok"], true, "{summary}");

    let (code, stderr, lines) = mcp.close().await;
    assert_eq!(code, 0, "{stderr}");
    let requests = h.requests();
    let guild = format!("/api/v10/guilds/{}", h.emu.guild_id);
    assert!(
        requests.iter().any(|r| r.path == guild),
        "the plan read the guild: {requests:?}"
    );
    assert!(h.writes().is_empty(), "the plan wrote: {:?}", h.writes());
    assert!(requests.iter().all(|r| r.method == "GET"), "{requests:?}");
    let token = &h.emu.token;
    for line in lines.iter().chain([&stderr]) {
        assert!(!line.contains(token.as_str()), "the token is shown: {line}");
    }
}

#[tokio::test]
async fn access_shows_the_matrix_and_a_preview_as_a_role() {
    let h = Harness::start().await;
    h.manifest("guild.yaml", NEW_ROLE);
    let mut mcp = start_on(&h).await;
    let matrix = mcp
        .call("access", json!({ "manifest": "guild.yaml" }))
        .await;
    assert!(!is_error(&matrix), "{matrix}");
    let text = &texts(&matrix)[0];
    assert!(text.contains("once the plan is applied"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("#mod-chat") && l.contains("view Moderator |")),
        "{text}"
    );
    let preview = mcp
        .call(
            "access",
            json!({ "manifest": "guild.yaml", "as": ["@everyone"], "format": "json" }),
        )
        .await;
    assert!(!is_error(&preview), "{preview}");
    let view: Value = serde_json::from_str(&texts(&preview)[0]).expect("access JSON");
    assert_eq!(view["guild_id"], h.emu.guild_id.as_str(), "{view}");
    let drift = mcp.call("drift", json!({ "manifest": "guild.yaml" })).await;
    assert!(!is_error(&drift), "{drift}");
    assert!(texts(&drift)[0].contains("Reviewers"), "{drift}");
    mcp.close().await;
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn a_path_outside_the_folder_is_refused_unread() {
    let h = Harness::start().await;
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let outside = elsewhere.path().join("outside.yaml");
    std::fs::write(&outside, NEW_ROLE).expect("write");
    std::os::unix::fs::symlink(&outside, h.dir.path().join("linked.yaml")).expect("symlink");
    let mut mcp = start_on(&h).await;

    let absolute = outside.display().to_string();
    let up = format!(
        "../{}/outside.yaml",
        elsewhere.path().file_name().unwrap().to_string_lossy()
    );
    for manifest in [absolute.as_str(), up.as_str(), "linked.yaml"] {
        let validated = mcp.call("validate", json!({ "manifest": manifest })).await;
        let doc: Value = serde_json::from_str(&texts(&validated)[0]).expect("JSON");
        assert_eq!(doc["diagnostics"][0]["rule"], "read", "{manifest}: {doc}");
        let planned = mcp.call("plan", json!({ "manifest": manifest })).await;
        assert!(is_error(&planned), "{manifest}: {planned}");
        let all = texts(&planned).join("\n");
        assert!(all.contains("nothing was sent to Discord"), "{all}");
        assert!(all.contains("\"rule\": \"read\""), "{all}");
        assert!(all.contains(OUTSIDE), "{manifest}: {all}");
        // Where the link leads is not said.
        assert!(!all.contains("symbolic link to"), "{manifest}: {all}");
    }
    mcp.close().await;
    assert!(h.requests().is_empty(), "{:?}", h.requests());
}

#[tokio::test]
async fn a_workspace_is_validated_whole_and_planned_by_guild_name() {
    let h = Harness::start().await;
    std::fs::create_dir(h.dir.path().join("guilds")).expect("mkdir");
    h.manifest("guilds/main.yaml", NEW_ROLE);
    h.manifest(
        "guildctl.yaml",
        &format!(
            "version: 1\nguilds:\n  main: {{ id: \"{}\", manifest: guilds/main.yaml }}\n",
            h.emu.guild_id
        ),
    );
    let mut mcp = start_on(&h).await;
    let validated = mcp.call("validate", json!({})).await;
    let doc: Value = serde_json::from_str(&texts(&validated)[0]).expect("JSON");
    assert_eq!(doc["valid"], true, "{doc}");
    assert_eq!(doc["manifests"].as_array().map(Vec::len), Some(1), "{doc}");
    let planned = mcp.call("plan", json!({ "guild": "main" })).await;
    assert!(!is_error(&planned), "{planned}");
    assert!(
        texts(&planned)[0].contains("+ create role Reviewers"),
        "{planned}"
    );
    let unknown = mcp.call("plan", json!({ "guild": "mian" })).await;
    assert!(is_error(&unknown), "{unknown}");
    let both = mcp
        .call(
            "plan",
            json!({ "guild": "main", "manifest": "guilds/main.yaml" }),
        )
        .await;
    assert!(texts(&both)[0].contains("not both"), "{both}");
    // An argument the tool does not have is refused, not silently dropped.
    let wrong = mcp
        .call("plan", json!({ "path": "guilds/main.yaml" }))
        .await;
    assert!(is_error(&wrong), "{wrong}");
    assert!(texts(&wrong)[0].contains("unknown field `path`"), "{wrong}");
    // There is no tool to apply with.
    let apply = mcp
        .request(
            "tools/call",
            json!({ "name": "apply", "arguments": { "guild": "main" } }),
        )
        .await;
    assert!(apply["error"].is_object(), "{apply}");
    mcp.close().await;
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn without_a_token_plan_says_how_to_give_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("guild.yaml"), NEW_ROLE).expect("write");
    let mut mcp = Mcp::start(dir.path(), &["--guild", "81384788765712384"], &[]).await;
    let result = mcp.call("plan", json!({ "manifest": "guild.yaml" })).await;
    assert!(is_error(&result), "{result}");
    assert!(texts(&result)[0].contains("DISCORD_TOKEN"), "{result}");
    mcp.close().await;
}

#[tokio::test]
async fn text_from_the_guild_stays_inert_in_results() {
    let mut state = discord_emulator::default_state();
    state.guilds[0].name = "Ferris\u{202e}Fans\u{1b}[2J".into();
    let h = Harness::with_state(Some(state)).await;
    h.manifest("guild.yaml", NEW_ROLE);
    let mut mcp = start_on(&h).await;
    let result = mcp.call("plan", json!({ "manifest": "guild.yaml" })).await;
    let [plan, summary] = <[String; 2]>::try_from(texts(&result)).expect("plan and summary");
    for shown in [&plan, &summary] {
        assert!(
            !shown.contains('\u{202e}') && !shown.contains('\u{1b}'),
            "a control reached the assistant raw: {shown:?}"
        );
    }
    assert!(plan.contains("Ferris\\u{202e}Fans\\u{1b}[2J"), "{plan}");
    assert!(summary.contains("Ferris\\u202eFans\\u001b[2J"), "{summary}");
    // The JSON is the same value to a parser.
    let parsed: Value = serde_json::from_str(&summary).expect("JSON");
    assert_eq!(parsed["guild_name"], "Ferris\u{202e}Fans\u{1b}[2J");
    mcp.close().await;
}

/// What every refusal of a path out of the server's folder says, whatever is there.
const OUTSIDE: &str = "leads outside the folder the server works in";

/// A repository inside a folder that has a workspace file, a base and other files of its
/// own, none of which the server may read: `outer/` holds `guildctl.yaml` (a policy the
/// repository's guild breaks), `layouts/base.yaml` (a role named `Outside-Value`) and
/// `files/exists.yaml`; the server's root is `outer/repo/`.
struct Nested {
    outer: tempfile::TempDir,
}

const OUTER_POLICY: &str = "outer-staff-stays-private";

impl Nested {
    fn new() -> Nested {
        let outer = tempfile::tempdir().expect("temp dir");
        let at = |rel: &str| outer.path().join(rel);
        for dir in ["repo", "layouts", "files"] {
            std::fs::create_dir(at(dir)).expect("mkdir");
        }
        std::fs::write(
            at("guildctl.yaml"),
            format!(
                "version: 1\nguilds: {{}}\npolicies:\n  - name: {OUTER_POLICY}\n    never: {{ who: \"@everyone\", can: [view_channel] }}\n"
            ),
        )
        .expect("write");
        std::fs::write(
            at("layouts/base.yaml"),
            "version: 1\nroles:\n  - name: Outside-Value\n",
        )
        .expect("write");
        std::fs::write(
            at("files/exists.yaml"),
            "version: 1\nroles:\n  - name: Outside-Value\n",
        )
        .expect("write");
        Nested { outer }
    }

    fn root(&self) -> std::path::PathBuf {
        self.outer.path().join("repo")
    }

    fn put(&self, rel: &str, text: &str) {
        std::fs::write(self.root().join(rel), text).expect("write");
    }

    async fn serve(&self) -> Mcp {
        let root = self.root().display().to_string();
        Mcp::start(self.outer.path(), &["--sandbox", "--root", &root], &[]).await
    }

    /// Whether `text` says anything of what lies outside the root: its values, the outer
    /// policy, or the paths of the outer folder's files.
    fn leaks(&self, text: &str) -> bool {
        let outer = self.outer.path().display().to_string();
        text.contains("Outside-Value")
            || text.contains(OUTER_POLICY)
            || ["files", "layouts", "guildctl.yaml"]
                .iter()
                .any(|f| text.contains(&format!("{outer}/{f}")))
    }
}

/// `@everyone` sees #general: what the outer policy forbids.
const OPEN_GENERAL: &str = "version: 1
channels:
  - name: general
    overwrites:
      - { role: \"@everyone\", allow: [view_channel] }
";

#[tokio::test]
async fn a_workspace_file_above_the_root_is_neither_found_nor_used() {
    let n = Nested::new();
    n.put("guild.yaml", OPEN_GENERAL);
    let mut mcp = n.serve().await;
    let validated = mcp
        .call("validate", json!({ "manifest": "guild.yaml" }))
        .await;
    let doc: Value = serde_json::from_str(&texts(&validated)[0]).expect("JSON");
    assert_eq!(doc["valid"], true, "the outer policy was judged: {doc}");
    assert!(!n.leaks(&doc.to_string()), "{doc}");
    let planned = mcp.call("plan", json!({ "manifest": "guild.yaml" })).await;
    assert!(!is_error(&planned), "{planned}");
    let all = texts(&planned).join("\n");
    assert!(!n.leaks(&all), "{all}");
    // Nor is it the workspace of the `guild` argument or of a bare `validate`.
    let whole = mcp.call("validate", json!({})).await;
    assert!(is_error(&whole), "{whole}");
    assert!(texts(&whole)[0].contains("no guildctl.yaml"), "{whole}");
    mcp.close().await;
}

#[tokio::test]
async fn a_base_outside_the_root_is_refused_unread() {
    let n = Nested::new();
    n.put("guild.yaml", "version: 1\nextends: ../layouts/base.yaml\n");
    let mut mcp = n.serve().await;
    let validated = mcp
        .call("validate", json!({ "manifest": "guild.yaml" }))
        .await;
    let doc: Value = serde_json::from_str(&texts(&validated)[0]).expect("JSON");
    assert_eq!(doc["valid"], false, "{doc}");
    let d = &doc["diagnostics"][0];
    assert_eq!(d["rule"], "extends", "{doc}");
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64()),
        (Some("guild.yaml"), Some(2))
    );
    assert!(
        d["message"].as_str().unwrap_or("").contains(OUTSIDE),
        "{doc}"
    );
    assert!(!n.leaks(&doc.to_string()), "{doc}");
    for tool in ["plan", "access"] {
        let result = mcp.call(tool, json!({ "manifest": "guild.yaml" })).await;
        assert!(is_error(&result), "{tool}: {result}");
        let all = texts(&result).join("\n");
        assert!(all.contains(OUTSIDE) && !n.leaks(&all), "{tool}: {all}");
    }
    mcp.close().await;
}

#[tokio::test]
async fn a_link_out_of_the_root_is_refused_without_saying_where_it_leads() {
    let n = Nested::new();
    let outer = n.outer.path();
    std::os::unix::fs::symlink(outer.join("files/exists.yaml"), n.root().join("file.yaml"))
        .expect("symlink");
    std::os::unix::fs::symlink(outer.join("files"), n.root().join("folder")).expect("symlink");
    std::os::unix::fs::symlink("../layouts", n.root().join("layouts")).expect("symlink");
    // A folder manifest inside the root with a YAML file linked from outside.
    std::fs::create_dir(n.root().join("guild")).expect("mkdir");
    n.put("guild/guild.yaml", "version: 1\n");
    std::os::unix::fs::symlink(
        outer.join("files/exists.yaml"),
        n.root().join("guild/roles.yaml"),
    )
    .expect("symlink");
    n.put("based.yaml", "version: 1\nextends: layouts/base.yaml\n");
    let mut mcp = n.serve().await;
    for manifest in [
        "file.yaml",
        "folder/exists.yaml",
        "folder",
        "guild",
        "based.yaml",
    ] {
        let validated = mcp.call("validate", json!({ "manifest": manifest })).await;
        let doc: Value = serde_json::from_str(&texts(&validated)[0]).expect("JSON");
        assert_eq!(doc["valid"], false, "{manifest}: {doc}");
        let text = doc.to_string();
        assert!(text.contains(OUTSIDE), "{manifest}: {doc}");
        assert!(!n.leaks(&text), "{manifest}: {doc}");
        assert!(!text.contains("symbolic link"), "{manifest}: {doc}");
    }
    mcp.close().await;
}

#[tokio::test]
async fn a_refusal_is_the_same_whether_the_path_outside_exists() {
    let n = Nested::new();
    let files = n.outer.path().join("files");
    std::os::unix::fs::symlink(files.join("exists.yaml"), n.root().join("to-exists.yaml"))
        .expect("symlink");
    std::os::unix::fs::symlink(files.join("absent.yaml"), n.root().join("to-absent.yaml"))
        .expect("symlink");
    n.put(
        "base-exists.yaml",
        "version: 1\nextends: ../files/exists.yaml\n",
    );
    n.put(
        "base-absent.yaml",
        "version: 1\nextends: ../files/absent.yaml\n",
    );
    let mut mcp = n.serve().await;
    let absolute = |name: &str| files.join(name).display().to_string();
    let pairs = [
        (absolute("exists.yaml"), absolute("absent.yaml")),
        ("../files/exists.yaml".into(), "../files/absent.yaml".into()),
        ("to-exists.yaml".into(), "to-absent.yaml".into()),
        ("base-exists.yaml".into(), "base-absent.yaml".into()),
    ];
    for (there, not_there) in pairs {
        let mut said = Vec::new();
        for manifest in [&there, &not_there] {
            let validated = mcp.call("validate", json!({ "manifest": manifest })).await;
            let planned = mcp.call("plan", json!({ "manifest": manifest })).await;
            let text = [texts(&validated), texts(&planned)].concat().join("\n");
            assert!(text.contains(OUTSIDE), "{manifest}: {text}");
            // The two names are as long, so places in the line are the same too.
            said.push(text.replace("exists", "NAME").replace("absent", "NAME"));
        }
        assert_eq!(said[0], said[1], "{there} and {not_there} are told apart");
    }
    mcp.close().await;
}

/// Ample for a refusal that looks only at the argument's length (milliseconds), even in a
/// debug build on a loaded machine; before issue 42 a megabyte `rule` held `explain` for
/// over a minute in a debug build.
const QUICKLY: Duration = Duration::from_secs(5);

#[tokio::test]
async fn a_megabyte_argument_is_refused_before_any_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut mcp = Mcp::start(dir.path(), &["--sandbox"], &[]).await;
    let huge = "a".repeat(1024 * 1024);
    let calls = [
        ("explain", json!({ "rule": huge })),
        ("validate", json!({ "manifest": huge })),
        (
            "access",
            json!({ "manifest": "guild.yaml", "channel": huge }),
        ),
        (
            "access",
            json!({ "manifest": "guild.yaml", "as": vec!["Member"; 1000] }),
        ),
    ];
    for (tool, arguments) in calls {
        let started = std::time::Instant::now();
        let result = mcp.call(tool, arguments).await;
        let took = started.elapsed();
        assert!(took < QUICKLY, "{tool}: answered in {took:?}");
        assert!(is_error(&result), "{tool}: {result}");
        let text = texts(&result).join("\n");
        assert!(text.contains("nothing was read or run"), "{tool}: {text}");
        assert!(
            text.contains("at most 4096") || text.contains("at most 250"),
            "{tool}: {text}"
        );
        assert!(text.len() < 1000, "{tool}: the argument is echoed back");
    }
    // The server still answers.
    let schema = mcp.call("schema", json!({})).await;
    assert!(!is_error(&schema), "{schema}");
    mcp.close().await;
}
