//! Reading a manifest's files: one file, or every YAML file of a folder, within size limits.
//!
//! Nothing here parses YAML: [`read`] returns the files' text (or the problems that kept a
//! file from being read), and [`super::load`] parses and merges them.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest manifest file read, in bytes (checked before reading, and while reading for
/// files whose size is not known in advance). A guild at Discord's limits (250 roles, 500
/// channels with overwrites, onboarding, 1000 webhooks) takes well under 1 MiB of YAML.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// The largest total size of the YAML files of a folder manifest, in bytes.
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;
/// The most YAML files a folder manifest may have.
pub const MAX_FILES: usize = 256;
/// How deep a folder manifest's subfolders may go (`channels/staff/` is depth 2).
pub const MAX_FOLDER_DEPTH: usize = 8;

/// One file of a manifest: its path as it will be shown (`-f`'s path, or the folder's path
/// joined with the file's path inside it) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// A file that could not be read: which one (an index into the files, when the problem is
/// in a file's content), what is wrong, how to fix it, and where (line, column) if known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadProblem {
    pub file: Option<usize>,
    pub at: Option<(usize, usize)>,
    pub message: String,
    pub help: String,
}

/// What [`read`] found: whether `-f` named a folder, the files (in merge order), and the
/// problems. A file with a problem is still listed (with the text read, possibly empty), so
/// diagnostics can name it.
#[derive(Debug, Default)]
pub(crate) struct ReadOutcome {
    pub is_dir: bool,
    pub files: Vec<SourceFile>,
    /// Per file: whether its text is usable (read, within limits, UTF-8).
    pub usable: Vec<bool>,
    pub problems: Vec<ReadProblem>,
}

fn problem(message: String, help: &str) -> ReadProblem {
    ReadProblem {
        file: None,
        at: None,
        message,
        help: help.to_string(),
    }
}

/// Reads the manifest at `path`: a file, or a folder whose `*.yaml` and `*.yml` files (in
/// subfolders too; hidden ones, starting with `.`, skipped) are read in merge order: a
/// folder's own files by name, then its subfolders by name, each the same way.
pub(crate) fn read(path: &Path) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            out.problems.push(problem(
                format!("cannot read the manifest: {e}"),
                "check the path given with -f: a manifest is a YAML file or a folder of them",
            ));
            return out;
        }
    };
    if !meta.is_dir() {
        let (text, p) = read_file(path, MAX_FILE_BYTES);
        out.files.push(SourceFile {
            path: path.to_path_buf(),
            text,
        });
        out.usable.push(p.is_none());
        out.problems
            .extend(p.map(|p| ReadProblem { file: Some(0), ..p }));
        return out;
    }
    out.is_dir = true;
    let mut found = Vec::new();
    if let Err(p) = walk(path, Path::new(""), 0, &mut found) {
        out.problems.push(p);
        return out;
    }
    if found.is_empty() {
        out.problems.push(problem(
            format!(
                "the folder {} has no YAML files (`*.yaml`, `*.yml`)",
                path.display()
            ),
            "put the manifest's sections in YAML files in this folder (guild.yaml, roles.yaml, channels/...), or pass a file with -f",
        ));
        return out;
    }
    if found.len() > MAX_FILES {
        out.problems.push(problem(
            format!(
                "the folder {} has {} YAML files; a manifest may have at most {MAX_FILES}",
                path.display(),
                found.len()
            ),
            "merge some of the files; did -f name the wrong folder?",
        ));
        return out;
    }
    let mut total: u64 = 0;
    for rel in found {
        let full = path.join(&rel);
        let budget = MAX_FILE_BYTES.min(MAX_TOTAL_BYTES.saturating_sub(total));
        let (text, p) = read_file(&full, budget);
        total += text.len() as u64;
        let index = out.files.len();
        out.files.push(SourceFile { path: full, text });
        out.usable.push(p.is_none());
        if let Some(mut p) = p {
            p.file = Some(index);
            if budget < MAX_FILE_BYTES && p.message.contains("bytes; a manifest file") {
                p.message = format!(
                    "the folder's YAML files are larger than {MAX_TOTAL_BYTES} bytes together; this one is past the limit"
                );
                p.help = "a manifest this large is not a guild's configuration: did -f name the wrong folder?".into();
            }
            out.problems.push(p);
        }
    }
    out
}

/// Collects the YAML files under `dir` (paths relative to the manifest's folder).
fn walk(
    root: &Path,
    rel: &Path,
    depth: usize,
    found: &mut Vec<PathBuf>,
) -> Result<(), ReadProblem> {
    let dir = root.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        problem(
            format!("cannot read the folder {}: {e}", dir.display()),
            "check the folder's permissions",
        )
    })?;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            problem(
                format!("cannot read the folder {}: {e}", dir.display()),
                "check the folder's permissions",
            )
        })?;
        let name = entry.file_name();
        let Some(name_str) = name.to_str() else {
            continue;
        };
        if name_str.starts_with('.') {
            continue;
        }
        let child = rel.join(&name);
        // Symbolic links to files are followed; links to folders are not (no cycles).
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            dirs.push(child);
        } else if is_yaml(name_str)
            && (kind.is_file() || std::fs::metadata(root.join(&child)).is_ok_and(|m| m.is_file()))
        {
            files.push(child);
        }
    }
    // A folder's own files first, then its subfolders, each in name order.
    files.sort();
    dirs.sort();
    found.extend(files);
    if found.len() > MAX_FILES {
        // Enough to report the limit; stop walking a huge tree.
        return Ok(());
    }
    for d in dirs {
        if depth + 1 > MAX_FOLDER_DEPTH {
            return Err(problem(
                format!(
                    "the folder {} is nested more than {MAX_FOLDER_DEPTH} levels deep",
                    root.join(&d).display()
                ),
                "keep a folder manifest's files at most 8 folders deep",
            ));
        }
        walk(root, &d, depth + 1, found)?;
    }
    Ok(())
}

fn is_yaml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Reads one file of at most `limit` bytes as UTF-8. On a problem, the text is what could be
/// shown of it (lossy), possibly empty.
fn read_file(path: &Path, limit: u64) -> (String, Option<ReadProblem>) {
    let too_big = |n: Option<u64>| {
        let size = match n {
            Some(n) => format!("{n} bytes"),
            None => format!("more than {limit} bytes"),
        };
        problem(
            format!(
                "{} is {size}; a manifest file may have at most {limit} bytes",
                path.display()
            ),
            "a guild's manifest is far smaller: did -f name the wrong file? Split a large manifest into a folder of files",
        )
    };
    if let Ok(m) = std::fs::metadata(path)
        && m.is_file()
        && m.len() > limit
    {
        return (String::new(), Some(too_big(Some(m.len()))));
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return (
            String::new(),
            Some(problem(
                format!("cannot read {}: {e}", path.display()),
                "check the path and the file's permissions",
            )),
        );
    }
    if bytes.len() as u64 > limit {
        return (String::new(), Some(too_big(None)));
    }
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let before = String::from_utf8_lossy(&bytes[..valid])
                .replace("\r\n", "\n")
                .replace('\r', "\n");
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (
                text,
                Some(ReadProblem {
                    file: None,
                    at: Some((line, column)),
                    message: format!(
                        "the file is not UTF-8 text (invalid byte 0x{:02x})",
                        bytes[valid]
                    ),
                    help: "save the manifest as UTF-8".into(),
                }),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_extensions() {
        assert!(is_yaml("roles.yaml"));
        assert!(is_yaml("ROLES.YML"));
        assert!(!is_yaml("avatar.png"));
        assert!(!is_yaml("yaml"));
    }
}
