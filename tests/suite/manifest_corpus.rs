//! The corpus of invalid manifests (`tests/manifests/invalid/`: files and folders) and of
//! manifests that are valid with warnings (`tests/manifests/warnings/`), run through the real
//! binary:
//!
//! - `validate` exits 1 for every invalid entry (0 for the warnings), and its text output is
//!   the snapshot in `tests/suite/snapshots/` (paths relative to the crate);
//! - every error and warning `validate --format json` reports is on a line the entry marks
//!   with a trailing `# error-here` / `# warning-here` comment (or a header
//!   `# expect-error-line: N` / `# expect-warning-line: N`, for a line whose own comment
//!   would change what it says), and every marked line gets one;
//! - `plan` refuses every invalid entry before any network call: it runs with a token, a guild
//!   id and `GUILDCTL_API_BASE` pointing at a loopback port we listen on, and nothing connects.
//!
//! Update the snapshots after an intended change with
//! `INSTA_UPDATE=always cargo test --test suite manifest_corpus::` (or `cargo insta review`).

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The entries of a corpus folder: `(name, path relative to the crate)`, sorted.
fn entries(kind: &str) -> Vec<(String, PathBuf)> {
    let dir = Path::new("tests/manifests").join(kind);
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root().join(&dir))
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let stem = name.trim_end_matches(".yaml").to_string();
            (stem, dir.join(name))
        })
        .collect();
    out.sort();
    out
}

fn guildctl(args: &[&str], api_port: u16) -> Output {
    Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS")
        .env("DISCORD_TOKEN", "corpus-test-token")
        .env("GUILDCTL_GUILD", "81384788765712384")
        .env(
            "GUILDCTL_API_BASE",
            format!("http://127.0.0.1:{api_port}/api/v10"),
        )
        .output()
        .expect("run guildctl")
}

/// The YAML files of an entry (itself, or those in its folder), relative to the crate.
fn yaml_files(entry: &Path) -> Vec<PathBuf> {
    let full = root().join(entry);
    if full.is_file() {
        return vec![entry.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut stack = vec![entry.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(root().join(&dir)).unwrap() {
            let e = e.unwrap();
            let rel = dir.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                stack.push(rel);
            } else if rel.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

type Lines = BTreeMap<(String, &'static str), BTreeSet<usize>>;

/// The lines each file of an entry marks: `(file, "error" | "warning") → lines`.
fn marked_lines(entry: &Path) -> Lines {
    let mut out = Lines::new();
    for file in yaml_files(entry) {
        let bytes = std::fs::read(root().join(&file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let name = file.display().to_string();
        for (i, line) in text.lines().enumerate() {
            for (marker, severity) in [("error-here", "error"), ("warning-here", "warning")] {
                if line.contains(marker) {
                    out.entry((name.clone(), severity))
                        .or_default()
                        .insert(i + 1);
                }
            }
            for (header, severity) in [
                ("# expect-error-line:", "error"),
                ("# expect-warning-line:", "warning"),
            ] {
                if let Some(n) = line.trim().strip_prefix(header) {
                    let n: usize = n.trim().parse().expect("a line number");
                    out.entry((name.clone(), severity)).or_default().insert(n);
                }
            }
        }
    }
    out
}

/// The lines `validate --format json` reports, and how many diagnostics have no line.
fn reported_lines(json: &serde_json::Value) -> (Lines, usize) {
    let mut out = Lines::new();
    let mut unplaced = 0;
    for d in json["diagnostics"].as_array().unwrap() {
        let severity = match d["severity"].as_str().unwrap() {
            "error" => "error",
            _ => "warning",
        };
        match d["line"].as_u64() {
            Some(line) => {
                out.entry((d["file"].as_str().unwrap().to_string(), severity))
                    .or_default()
                    .insert(line as usize);
            }
            None => unplaced += 1,
        }
    }
    (out, unplaced)
}

/// Runs one entry; returns what is wrong with it (empty when all is well).
fn run_entry(kind: &str, name: &str, path: &Path, port: u16) -> Vec<String> {
    let mut problems = Vec::new();
    let p = path.to_str().unwrap();
    let expect_code = if kind == "invalid" { 1 } else { 0 };

    let json_out = guildctl(&["validate", "-f", p, "--format", "json"], port);
    if json_out.status.code() != Some(expect_code) {
        problems.push(format!(
            "validate --format json exited {:?}, expected {expect_code}",
            json_out.status.code()
        ));
    }
    let json: serde_json::Value = match serde_json::from_slice(&json_out.stdout) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("validate --format json printed no JSON: {e}"));
            return problems;
        }
    };
    let (reported, unplaced) = reported_lines(&json);
    let marked = marked_lines(path);
    if reported != marked {
        problems.push(format!(
            "reported lines {reported:?} differ from the marked lines {marked:?}"
        ));
    }
    if unplaced > 0 && !marked.is_empty() {
        problems.push(format!("{unplaced} diagnostic(s) without a line"));
    }
    if kind == "invalid" && json["errors"].as_u64().unwrap_or(0) == 0 {
        problems.push("no error reported".into());
    }

    let text_out = guildctl(&["validate", "-f", p, "--color", "never"], port);
    if text_out.status.code() != Some(expect_code) {
        problems.push(format!("validate exited {:?}", text_out.status.code()));
    }
    let text = String::from_utf8_lossy(&text_out.stderr).replace('\\', "/");
    insta::assert_snapshot!(format!("{kind}__{name}"), text);

    if kind == "invalid" {
        let plan = guildctl(&["plan", "-f", p, "--color", "never"], port);
        let stderr = String::from_utf8_lossy(&plan.stderr);
        if plan.status.code() != Some(1) || !stderr.contains("nothing was sent to Discord") {
            problems.push(format!(
                "plan exited {:?} without refusing the manifest:\n{stderr}",
                plan.status.code()
            ));
        }
    }
    problems
}

fn run_corpus(kind: &str, at_least: usize) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let all = entries(kind);
    assert!(
        all.len() >= at_least,
        "{kind}: {} entries, expected at least {at_least}",
        all.len()
    );
    let mut failures = Vec::new();
    for (name, path) in &all {
        for p in run_entry(kind, name, path, port) {
            failures.push(format!("{}: {p}", path.display()));
        }
    }
    // Nothing tried to reach the API.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((_, from)) => failures.push(format!("a connection reached the API port from {from}")),
        Err(e) => failures.push(format!("accept: {e}")),
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_manifests_are_refused_at_the_marked_lines() {
    run_corpus("invalid", 60);
}

#[test]
fn warnings_alone_do_not_fail() {
    run_corpus("warnings", 5);
}

/// The machine-readable formats, on a folder manifest whose problems span files.
#[test]
fn json_and_github_formats() {
    let entry = "tests/manifests/invalid/folder-duplicate-role-across-files";
    let json = guildctl(&["validate", "-f", entry, "--format", "json"], 9);
    assert_eq!(json.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    insta::assert_json_snapshot!("format_json", value);

    let github = guildctl(&["validate", "-f", entry, "--format", "github"], 9);
    assert_eq!(github.status.code(), Some(1));
    insta::assert_snapshot!("format_github", String::from_utf8_lossy(&github.stdout));
    assert_eq!(
        String::from_utf8_lossy(&github.stderr),
        format!("{entry}: invalid (1 error, 0 warnings)\n")
    );
}

/// Several manifests in one run: each is reported, and the exit code is 1 if any has an error.
#[test]
fn several_manifests_in_one_run() {
    let out = guildctl(
        &[
            "validate",
            "-f",
            "examples/minimal.yaml",
            "-f",
            "tests/manifests/warnings/text-channel-renamed.yaml",
            "--format",
            "json",
        ],
        9,
    );
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["warnings"], 1);
    assert_eq!(v["manifests"].as_array().unwrap().len(), 2);

    let out = guildctl(
        &[
            "validate",
            "-f",
            "examples/minimal.yaml",
            "-f",
            "tests/manifests/invalid/version-unsupported.yaml",
        ],
        9,
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("examples/minimal.yaml: valid\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("version-unsupported.yaml: invalid (1 error, 0 warnings)"),
        "{stderr}"
    );
}
