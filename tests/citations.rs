//! The repository is self-contained: every citation in code and docs resolves inside it.
//!
//! - A doc named by path (`docs/NAME.md`) exists.
//! - A section cited as `docs/NAME.md §N.N` (or `discord.md §N.N`, or a list such as
//!   `§4.2, §9.2` or `§5.3-§5.5` after it, wrapped over a line or not) is a heading of that
//!   doc (`## §N.N …`). A bare `§N.N` is a section of `docs/discord.md`, the one doc whose
//!   headings are numbered so.
//! - Nothing cites a file kept outside the repository (the notes and reference text the
//!   Discord facts were first gathered in, the product contract, the style guide): their
//!   facts are in `docs/` now.
//!
//! Each finding names file:line and what to do. Its own test target: no kit, no emulator.

// A test fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What is scanned, from the repository's root.
const SCANNED: &[&str] = &[
    "src",
    "crates",
    "tests",
    "docs",
    "benches",
    "examples",
    "fuzz",
    "schema",
    "templates",
    "hooks",
    ".ci",
    ".github",
    "README.md",
    "action.yml",
    "Cargo.toml",
    "build.rs",
];

/// The doc that holds the sections a bare `§N.N` cites.
const SECTIONED_DOC: &str = "docs/discord.md";

/// Names of files outside the repository that citations once pointed at, and where their
/// content is now. Written in two pieces so that this file does not cite them itself.
const OUTSIDE: &[(&str, &str, &str)] = &[
    (
        "discord-",
        "behaviour.md",
        "cite docs/discord.md (same § numbers)",
    ),
    ("../", "shared/", "cite a file of the repository"),
    (
        "shared/",
        "reference",
        "cite docs/discord.md or Discord's public docs",
    ),
    (
        "000_",
        "7d8a",
        "cite docs/discord.md (Sources: the service reference)",
    ),
    (
        "DESIGN",
        ".md",
        "cite README.md or the docs/ page that says it",
    ),
    (
        "STYLE",
        ".md",
        "cite docs/architecture.md or docs/decisions.md",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every text file under `SCANNED`, as (path from the root, contents); build output and
/// binary files are skipped.
fn scanned_files(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = SCANNED.iter().map(|p| root.join(p)).collect();
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "target" || name == ".git" || name == "node_modules" {
                continue;
            }
            for entry in std::fs::read_dir(&path).expect("a scanned folder reads") {
                pending.push(entry.expect("a folder entry reads").path());
            }
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            files.push((relative, text));
        }
    }
    files.sort();
    files
}

/// The `§N` / `§N.N` numbers of a markdown file's headings.
fn headings(markdown: &str) -> BTreeSet<String> {
    markdown
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start_matches('#');
            if rest.len() == line.len() {
                return None;
            }
            let rest = rest.trim_start().strip_prefix('§')?;
            let number = section_number(rest)?;
            let after = &rest[number.len()..];
            (after.is_empty() || after.starts_with(' ')).then_some(number)
        })
        .collect()
}

/// `4.2` from `4.2, …`, `10` from `10)`; none without a leading digit.
fn section_number(text: &str) -> Option<String> {
    let mut end = 0;
    let bytes = text.as_bytes();
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end == 0 {
        return None;
    }
    if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
    }
    Some(text[..end].to_string())
}

/// The doc a `§` at byte `at` belongs to: the `NAME.md` just before it, with only other
/// section numbers, separators and comment markers between (`docs/discord.md §4.2, §9.2`,
/// or the doc at a line's end and the section on the next); else `None` (a bare section).
fn cited_doc(text: &str, at: usize) -> Option<&str> {
    let before = &text[..at];
    let mut cut = before.len();
    // One line break at most: a wrapped citation, not a doc named paragraphs earlier.
    let mut breaks = 0;
    loop {
        let head = &before[..cut];
        if let Some(stripped) = head.strip_suffix(" and") {
            cut = stripped.len();
            continue;
        }
        match head.chars().next_back() {
            Some('\n') if breaks == 0 => {
                breaks += 1;
                cut -= 1;
            }
            Some(c) if c.is_ascii_digit() || " \t\r.,;/!*#`-–§".contains(c) => {
                cut -= c.len_utf8();
            }
            _ => break,
        }
    }
    let head = &before[..cut];
    if !head.ends_with(".md") {
        return None;
    }
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || "._/-".contains(c)))
        .map_or(0, |i| i + 1);
    Some(&head[start..])
}

/// Where a cited doc lives: `docs/NAME.md` and `NAME.md` of a doc in `docs/` are the same
/// file; any other path is read from the root.
fn resolve(doc: &str, root: &Path) -> Option<String> {
    let doc = doc.trim_start_matches("./");
    if root.join(doc).is_file() {
        return Some(doc.to_string());
    }
    let in_docs = format!("docs/{doc}");
    root.join(&in_docs).is_file().then_some(in_docs)
}

/// A doc's path from the root and its section numbers; `None` when there is no such file.
type DocSections = Option<(String, BTreeSet<String>)>;

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The problems of one file's citations, each `file:line: what, and what to do`.
/// `sections` gives a doc's heading numbers (None: no such file).
fn problems(file: &str, text: &str, sections: &mut dyn FnMut(&str) -> DocSections) -> Vec<String> {
    let mut found = Vec::new();
    for (first, second, instead) in OUTSIDE {
        let name = format!("{first}{second}");
        for (at, _) in text.match_indices(&name) {
            found.push(format!(
                "{file}:{}: cites `{name}`, which is not in the repository: {instead}",
                line_of(text, at)
            ));
        }
    }
    // A path into docs/ names a file that is there.
    for (at, _) in text.match_indices("docs/") {
        // Only a path from the root: not `…/developers/docs/…` nor `crates/x/docs/…`.
        if text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || "_/.-".contains(c)) {
            continue;
        }
        let path: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "._/-".contains(*c))
            .collect();
        let path = path.trim_end_matches('.');
        if path.ends_with(".md") && sections(path).is_none() {
            found.push(format!(
                "{file}:{}: cites `{path}`, which does not exist: name the doc that holds it",
                line_of(text, at)
            ));
        }
    }
    for (at, _) in text.match_indices('§') {
        let Some(number) = section_number(&text[at + '§'.len_utf8()..]) else {
            continue;
        };
        let doc = cited_doc(text, at).unwrap_or(SECTIONED_DOC);
        let line = line_of(text, at);
        match sections(doc) {
            None => found.push(format!(
                "{file}:{line}: cites §{number} of `{doc}`, which is not in the repository"
            )),
            Some((path, numbers)) if !numbers.contains(&number) => found.push(format!(
                "{file}:{line}: cites §{number} of {path}, which has no heading `§{number}`: \
                 add the section there or correct the number"
            )),
            Some(_) => {}
        }
    }
    found
}

#[test]
fn every_citation_resolves_inside_the_repository() {
    let root = root();
    let own = file!().replace('\\', "/");
    let mut cache: BTreeMap<String, DocSections> = BTreeMap::new();
    let mut sections = |doc: &str| {
        cache
            .entry(doc.to_string())
            .or_insert_with(|| {
                let path = resolve(doc, &root)?;
                let text = std::fs::read_to_string(root.join(&path)).ok()?;
                Some((path, headings(&text)))
            })
            .clone()
    };
    let files = scanned_files(&root);
    assert!(
        files.iter().any(|(path, _)| path == SECTIONED_DOC),
        "{SECTIONED_DOC} is scanned"
    );
    let mut found = Vec::new();
    for (path, text) in &files {
        if *path == own {
            continue;
        }
        found.extend(problems(path, text, &mut sections));
    }
    assert!(
        found.is_empty(),
        "{} citation(s) do not resolve inside the repository:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_discord_doc_numbers_the_sections_the_code_cites() {
    let text = std::fs::read_to_string(root().join(SECTIONED_DOC)).expect("docs/discord.md");
    let numbers = headings(&text);
    // The sections the code leans on most: rate limits, errors, hierarchy, channel
    // fields, webhooks, the audit log, visibility and stored names.
    for number in [
        "1", "1.4", "2.1", "3.4", "4.2", "5.4", "6", "7.2", "8", "9.1", "9.2", "10.2",
    ] {
        assert!(numbers.contains(number), "docs/discord.md has no §{number}");
    }
}

/// The checker itself finds what it is meant to: a wrapped citation, a list, a missing
/// section, a missing doc, a bare section and a file outside the repository.
#[test]
fn the_checker_catches_each_kind_of_broken_citation() {
    let doc = "# D\n## §1 One\n### §1.1 One-one\n### §4.2 Four-two\n";
    let mut sections = |path: &str| match path {
        "docs/discord.md" | "discord.md" => Some(("docs/discord.md".to_string(), headings(doc))),
        "docs/manifest.md" => Some(("docs/manifest.md".to_string(), BTreeSet::new())),
        _ => None,
    };
    let good = "/// Limits (docs/discord.md §1.1, §4.2 and §1).\n/// Wrapped (docs/discord.md\n/// §4.2), bare §1.1, see docs/manifest.md.\n";
    assert_eq!(
        problems("good.rs", good, &mut sections),
        Vec::<String>::new()
    );

    let bad = format!(
        "// docs/discord.md §4.2, §9.5\n// bare §3.3\n// docs/manifest.md §2\n// docs/nowhere.md\n// {}{} §1\n",
        OUTSIDE[0].0, OUTSIDE[0].1
    );
    let found = problems("bad.rs", &bad, &mut sections);
    let expect = [
        "bad.rs:1: cites §9.5 of docs/discord.md",
        "bad.rs:2: cites §3.3 of docs/discord.md",
        "bad.rs:3: cites §2 of docs/manifest.md",
        "bad.rs:4: cites `docs/nowhere.md`, which does not exist",
        "bad.rs:5: cites `discord-behaviour.md`",
        "bad.rs:5: cites §1 of `discord-behaviour.md`",
    ];
    for needle in expect {
        assert!(
            found.iter().any(|f| f.starts_with(needle)),
            "no finding starting {needle:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "{found:#?}");
}
