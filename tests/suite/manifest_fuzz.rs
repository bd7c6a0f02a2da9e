//! Property tests of the loader on stable Rust: whatever the input, validation neither panics
//! nor reports a place outside its file, and every output format renders
//! (`guildctl::manifest::fuzz_one` does the work, as for the cargo-fuzz target in `fuzz/`).
//!
//! Inputs: arbitrary bytes; the example and corpus manifests with random edits (bytes
//! replaced, inserted, deleted; lines duplicated or swapped); and "YAML soup" built from the
//! manifest's own keys, values and YAML punctuation. Each in file mode and folder mode.
//!
//! `cargo test` runs a few hundred cases (seconds). The long run is time-bounded and prints
//! how many inputs it tried (docs/validation.md):
//!
//! ```text
//! GUILDCTL_FUZZ_SECONDS=600 cargo test --release --test suite manifest_fuzz:: -- --ignored --nocapture
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

/// Example and corpus manifests: realistic starting points for edits.
fn seeds() -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![root.join("examples"), root.join("tests/manifests")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    out.sort();
    assert!(out.len() > 50, "seeds not found");
    out
}

const WORDS: &[&str] = &[
    "version",
    "1",
    "2",
    "guild",
    "settings",
    "name",
    "description",
    "roles",
    "channels",
    "type",
    "category",
    "text",
    "voice",
    "stage",
    "forum",
    "announcement",
    "media",
    "overwrites",
    "role",
    "member",
    "allow",
    "deny",
    "view_channel",
    "send_messages",
    "@everyone",
    "permissions",
    "color",
    "\"#3498db\"",
    "hoist",
    "true",
    "false",
    "null",
    "yes",
    "no",
    "on",
    "~",
    "id",
    "\"81384788765712384\"",
    "previous_names",
    "topic",
    "slowmode",
    "bitrate",
    "user_limit",
    "sync_permissions",
    "welcome_screen",
    "onboarding",
    "prompts",
    "options",
    "title",
    "default_channels",
    "widget",
    "webhooks",
    "channel",
    "avatar",
    "assets/ci.png",
    "../x.png",
    "prune",
    "community",
    "rules_channel",
    "afk_timeout",
    "300",
    "-1",
    "99999999999999999999999",
    "1e400",
    ".nan",
    "0x1F",
    "0o17",
    "emoji",
    "\"📜\"",
    "\"<:a:123456789012345678>\"",
    "Staff/general",
    "General Chat",
    "&a",
    "*a",
    "<<",
    "!!str",
    "!!binary",
    "!custom",
    "|",
    ">-",
    "'",
    "\"",
    "\\u0000",
    "é",
];

const PUNCT: &[&str] = &[
    ": ", ":", "\n", "\n  ", "\n    ", "\n      ", "- ", "  - ", "[", "]", "{", "}", ", ", "#",
    " # c", "---", "...", "\t", "\r\n", "?", " ", "\u{feff}", "\u{0}",
];

fn soup() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        3 => proptest::sample::select(WORDS).prop_map(str::to_string),
        3 => proptest::sample::select(PUNCT).prop_map(str::to_string),
        1 => "[a-zA-Z0-9 _\\-]{0,8}",
    ];
    proptest::collection::vec(token, 0..120).prop_map(|t| t.concat().into_bytes())
}

#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Replace(p, b)),
        (
            any::<usize>(),
            prop_oneof![
                proptest::sample::select(PUNCT).prop_map(|s| s.as_bytes().to_vec()),
                proptest::sample::select(WORDS).prop_map(|s| s.as_bytes().to_vec()),
                proptest::collection::vec(any::<u8>(), 1..4),
            ]
        )
            .prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<usize>(), 1usize..16).prop_map(|(p, n)| Edit::Delete(p, n)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(mut data: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = data.len();
        match e {
            Edit::Replace(p, b) if n > 0 => data[p % n] = *b,
            Edit::Insert(p, bytes) => {
                let at = p % (n + 1);
                data.splice(at..at, bytes.iter().copied());
            }
            Edit::Delete(p, len) if n > 0 => {
                let at = p % n;
                data.drain(at..(at + len).min(n));
            }
            Edit::DuplicateLine(p) | Edit::SwapLines(p, _) => {
                let mut lines: Vec<Vec<u8>> =
                    data.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
                let k = lines.len();
                match e {
                    Edit::DuplicateLine(_) => {
                        let l = lines[p % k].clone();
                        lines.insert(p % k, l);
                    }
                    Edit::SwapLines(_, q) => lines.swap(p % k, q % k),
                    _ => {}
                }
                data = lines.join(&b'\n');
            }
            _ => {}
        }
    }
    data
}

fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::sample::select(seeds),
        proptest::collection::vec(edit(), 1..8),
    )
        .prop_map(|(seed, edits)| apply(seed, &edits))
}

/// A fuzz input: a mode byte (even: one file; odd: a folder) and the content; in folder
/// mode, two or three parts joined with the 0x1e separator.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let seeds = seeds();
    let content = prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..2048),
        3 => mutated(seeds),
        2 => soup(),
    ];
    (any::<u8>(), proptest::collection::vec(content, 1..4)).prop_map(|(mode, parts)| {
        let mut out = vec![mode];
        if mode % 2 == 0 {
            out.extend_from_slice(&parts[0]);
        } else {
            out.extend(parts.join(&0x1e_u8));
        }
        out
    })
}

proptest! {
    #![proptest_config(Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn validation_never_panics(data in input()) {
        guildctl::manifest::fuzz_one(&data);
    }
}

#[test]
fn the_examples_and_the_corpus_as_they_are() {
    for seed in seeds() {
        for mode in [0u8, 1] {
            let mut data = vec![mode];
            data.extend_from_slice(&seed);
            guildctl::manifest::fuzz_one(&data);
        }
    }
}

/// The long run: as many inputs as fit in `GUILDCTL_FUZZ_SECONDS` (default 60), each checked
/// like [`validation_never_panics`]; prints the count. A failing input is written to
/// `target/fuzz-failure.bin` before the panic propagates.
#[test]
#[ignore = "long-running: GUILDCTL_FUZZ_SECONDS=600 cargo test --release --test suite manifest_fuzz:: -- --ignored --nocapture"]
fn timed_fuzz_run() {
    let seconds: u64 = std::env::var("GUILDCTL_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let strategy = input();
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let mut count: u64 = 0;
    let mut bytes: u64 = 0;
    let mut slowest = Duration::ZERO;
    while Instant::now() < deadline {
        let data = strategy.new_tree(&mut runner).unwrap().current();
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| guildctl::manifest::fuzz_one(&data));
        slowest = slowest.max(started.elapsed());
        if let Err(panic) = outcome {
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failure.bin");
            let _ = std::fs::write(&path, &data);
            eprintln!(
                "failing input ({} bytes) written to {}",
                data.len(),
                path.display()
            );
            std::panic::resume_unwind(panic);
        }
        count += 1;
        bytes += data.len() as u64;
    }
    println!(
        "fuzz: {count} inputs ({bytes} bytes) in {seconds} s without a failure; slowest input {slowest:?}"
    );
}
