//! How long a file may grow before it is split (docs/architecture.md, "The house").

use std::path::Path;

use super::{ROOT, rust_files};

/// The longest a Rust file of the repository may be (docs/architecture.md): past it, a file
/// is split along what it holds.
const MOST_LINES: usize = 1_000;

#[test]
fn no_rust_file_is_over_a_thousand_lines() {
    let root = Path::new(ROOT);
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "examples", "fuzz"] {
        if root.join(dir).is_dir() {
            rust_files(root, Path::new(dir), &mut files);
        }
    }
    // What a build writes (`fuzz/target` after `cargo fuzz build`) is not the source.
    files.retain(|f| !f.components().any(|c| c.as_os_str() == "target"));
    assert!(
        files.len() > 100,
        "the walk found the source: {}",
        files.len()
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(root.join(f)).expect("a source file");
            let lines = text.lines().count();
            (lines > MOST_LINES).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these along what they hold (at most {MOST_LINES} lines):\n{}",
        long.join("\n")
    );
}
