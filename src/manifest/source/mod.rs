//! Reading a manifest's files: one file, or every YAML file of a folder, within size limits.
//!
//! Nothing here parses YAML: `read` returns the files' text (or the problems that kept a
//! file from being read), and [`super::load()`] parses and merges them. Which paths may be
//! read at all is `confine`'s.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use hashbrown::HashMap;

mod confine;
mod kept;

pub(crate) use kept::kept;

use confine::special_kind;
pub(crate) use confine::{PathRefusal, Refused, resolve};
pub use confine::{Within, confine_to, workspace_file_above};

/// The workspace file (`manifest::workspace`): its folder bounds where bases are read from.
pub const WORKSPACE_FILE: &str = "guildctl.yaml";

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

/// `path` as messages show it: without `.` and `..` steps (`guilds/../layouts/a.yaml` is
/// `layouts/a.yaml`) and relative to the working folder when it lies in it, so a
/// repository's files are named as its checkout names them, whichever manifest reached
/// them. Only when that names the same file (a `..` after a link does not); otherwise
/// `path` as written.
pub(crate) fn shown_path(path: &Path) -> PathBuf {
    let Ok(real) = std::fs::canonicalize(path) else {
        return path.to_path_buf();
    };
    let mut lexical = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(lexical.components().next_back(), Some(Component::Normal(_))) =>
            {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    let cwd = std::env::current_dir().ok();
    let real_cwd = cwd.as_deref().and_then(|c| std::fs::canonicalize(c).ok());
    let relative = [cwd, real_cwd]
        .into_iter()
        .flatten()
        .find_map(|c| lexical.strip_prefix(c).ok().map(Path::to_path_buf))
        .filter(|rel| !rel.as_os_str().is_empty());
    let shown = relative.unwrap_or(lexical);
    if shown.as_os_str().is_empty() || std::fs::canonicalize(&shown).ok() != Some(real) {
        return path.to_path_buf();
    }
    shown
}

/// One file of a manifest: its path as it will be shown (`-f`'s path, or the folder's path
/// joined with the file's path inside it) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as shown.
    pub path: PathBuf,
    /// The file's text.
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

/// The text of the one file at `path` (a file of the workspace: `guildctl.yaml`, the
/// people file), read as a manifest's files are, or the first problem's message.
pub(crate) fn read_text(path: &Path, within: &Within) -> Result<String, String> {
    let read = read(path, within);
    if let Some(p) = read.problems.into_iter().next() {
        return Err(p.message);
    }
    Ok(read
        .files
        .into_iter()
        .next()
        .map(|f| f.text)
        .unwrap_or_default())
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
///
/// The path itself is [`resolve`]d first and must stay `within` its folder (for `-f`,
/// [`Within::given`]). In a folder, every entry that is not hidden must be something the
/// loader can read or safely ignore: a regular file, a folder, or a symbolic link to one of
/// those inside the folder. Anything else — a dangling or looping link, a link leading out of
/// the folder (for YAML files and folders, which would be read), a FIFO, socket or device, a
/// name that is not UTF-8 — is a problem naming the path, never a silent skip; and nothing
/// but a regular file is ever opened, so a FIFO cannot make a run hang. Each file and folder
/// is read once.
pub(crate) fn read(path: &Path, within: &Within) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    let given = match resolve(path, &path.display().to_string(), within) {
        Ok(r) => r,
        Err(refused) => {
            let help = match refused.why {
                Refused::Outside { .. } => {
                    "give -f a path inside the working folder, or the manifest's absolute path"
                        .into()
                }
                _ if refused.is_outside() => refused.help_outside(),
                Refused::Special { .. } | Refused::System { .. } => {
                    "give -f a YAML file or a folder of them (a pipe, socket or device is not read)"
                        .into()
                }
                _ => "check the path given with -f: a manifest is a YAML file or a folder of them"
                    .into(),
            };
            let message = match refused.why {
                Refused::Missing { link: None } => format!("cannot read the manifest: {refused}"),
                _ => refused.to_string(),
            };
            out.problems.push(problem(message, &help));
            return out;
        }
    };
    if !given.is_dir {
        let (text, p) = read_file(path, &given.real, MAX_FILE_BYTES);
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
    let real_root = given.real;
    let mut walker = Walker {
        root: path,
        within: Within::manifest_folder(&real_root),
        found: Vec::new(),
        problems: Vec::new(),
        seen: HashMap::new(),
    };
    walker.seen.insert(real_root.clone(), path.to_path_buf());
    walker.walk(
        Path::new(""),
        &real_root,
        0,
        std::slice::from_ref(&real_root),
    );
    let Walker {
        found, problems, ..
    } = walker;
    let refused_entries = !problems.is_empty();
    out.problems.extend(problems);
    if found.is_empty() {
        if !refused_entries {
            out.problems.push(problem(
                format!(
                    "the folder {} has no YAML files (`*.yaml`, `*.yml`)",
                    path.display()
                ),
                "put the manifest's sections in YAML files in this folder (guild.yaml, roles.yaml, channels/...), or pass a file with -f",
            ));
        }
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
        let (text, p) = read_file(&full, &full, budget);
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

/// What to do about an entry a folder manifest cannot hold.
const HELP_ENTRY: &str = "a manifest folder holds YAML files, folders and the files they name \
                          (images); move it out of the folder, or hide it with a leading `.`";
const HELP_LINK: &str =
    "remove the link, or point it at a file or folder inside the manifest's folder";

/// Walks a folder manifest, collecting its YAML files and every entry it refuses.
struct Walker<'a> {
    /// The folder as given with -f (paths are shown under it).
    root: &'a Path,
    /// The folder with every symbolic link resolved: links must stay inside it.
    within: Within,
    /// YAML files, relative to `root`, in merge order.
    found: Vec<PathBuf>,
    problems: Vec<ReadProblem>,
    /// Every file and folder read so far, by its resolved path → the path it was reached by.
    seen: HashMap<PathBuf, PathBuf>,
}

impl Walker<'_> {
    /// A folder that could not be listed, or an entry of it that could not be read.
    fn unreadable(&mut self, dir: &Path, e: &std::io::Error) {
        self.refuse(
            format!("cannot read the folder {}: {e}", dir.display()),
            "check the folder's permissions",
        );
    }

    fn refuse(&mut self, message: String, help: &str) {
        self.problems.push(problem(message, help));
    }

    /// Records that the file or folder `real` is read as `shown`; false (and a problem) when it
    /// already is, through another path.
    fn first_visit(&mut self, real: &Path, shown: &Path, what: &str) -> bool {
        if let Some(first) = self.seen.get(real) {
            let message = format!(
                "the {what} {} is reached twice, as {} and as {}",
                real.display(),
                first.display(),
                shown.display()
            );
            self.refuse(
                message,
                "remove the symbolic link: a manifest reads each file and folder once (what it declares would be declared twice)",
            );
            return false;
        }
        self.seen.insert(real.to_path_buf(), shown.to_path_buf());
        true
    }

    /// Collects the YAML files under `rel` (relative to the manifest's folder), whose resolved
    /// path is `real`; `ancestors` are the resolved folders above it, `real` included.
    fn walk(&mut self, rel: &Path, real: &Path, depth: usize, ancestors: &[PathBuf]) {
        let dir = self.root.join(rel);
        let Ok(entries) = std::fs::read_dir(&dir).inspect_err(|e| self.unreadable(&dir, e)) else {
            return;
        };
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for entry in entries {
            let Ok(entry) = entry.inspect_err(|e| self.unreadable(&dir, e)) else {
                continue;
            };
            let name = entry.file_name();
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let child = rel.join(&name);
            let shown = self.root.join(&child);
            let Some(name_str) = name.to_str() else {
                self.refuse(
                    format!(
                        "the name of {} is not UTF-8 (shown here with \u{fffd} for the bytes that are not)",
                        shown.display()
                    ),
                    "rename it with a UTF-8 name (file names appear in diagnostics, annotations and plans), or move it out of the folder",
                );
                continue;
            };
            // Not followed: a link's own type, so a FIFO or device is never opened.
            let kind = match entry.file_type() {
                Ok(k) => k,
                Err(e) => {
                    self.refuse(
                        format!("cannot tell what {} is: {e}", shown.display()),
                        "check the folder's permissions",
                    );
                    continue;
                }
            };
            if kind.is_dir() {
                dirs.push((child, real.join(&name)));
            } else if kind.is_file() {
                if is_yaml(name_str) {
                    files.push((child, real.join(&name)));
                }
            } else if kind.is_symlink() {
                match self.follow(&shown, is_yaml(name_str)) {
                    Some((target, true)) => dirs.push((child, target)),
                    Some((target, false)) if is_yaml(name_str) => files.push((child, target)),
                    _ => {}
                }
            } else {
                self.refuse(
                    format!(
                        "{} is {}, not a file or folder",
                        shown.display(),
                        special_kind(&kind)
                    ),
                    HELP_ENTRY,
                );
            }
        }
        // A folder's own files first, then its subfolders, each in name order.
        files.sort();
        dirs.sort();
        for (child, real_file) in files {
            let shown = self.root.join(&child);
            if self.first_visit(&real_file, &shown, "file") {
                self.found.push(child);
            }
        }
        if self.found.len() > MAX_FILES {
            // Enough to report the limit; stop walking a huge tree.
            return;
        }
        for (d, real_dir) in dirs {
            let shown = self.root.join(&d);
            if ancestors.contains(&real_dir) {
                self.refuse(
                    format!(
                        "{} is a symbolic link to {}, a folder that contains it: following it would loop",
                        shown.display(),
                        real_dir.display()
                    ),
                    HELP_LINK,
                );
                continue;
            }
            if depth + 1 > MAX_FOLDER_DEPTH {
                self.refuse(
                    format!(
                        "the folder {} is nested more than {MAX_FOLDER_DEPTH} levels deep",
                        shown.display()
                    ),
                    "keep a folder manifest's files at most 8 folders deep",
                );
                return;
            }
            if !self.first_visit(&real_dir, &shown, "folder") {
                continue;
            }
            let mut below = ancestors.to_vec();
            below.push(real_dir.clone());
            self.walk(&d, &real_dir, depth + 1, &below);
        }
    }

    /// Follows the symbolic link `shown`: `Some((resolved path, is a folder))` when it leads to
    /// a regular file or a folder that may be read. Links that dangle, loop or lead to a special
    /// file are refused; so are links out of the manifest's folder, unless `read` is false and
    /// the target is a file (a link the loader never reads, such as an image: an image is
    /// resolved on its own when it is read).
    fn follow(&mut self, shown: &Path, read: bool) -> Option<(PathBuf, bool)> {
        match resolve(shown, &shown.display().to_string(), &self.within) {
            Ok(r) => Some((r.real, r.is_dir)),
            // Out of a confined run's folder, nothing there is looked at: left alone
            // whatever it is.
            Err(refused)
                if refused.is_outside()
                    && !read
                    && (matches!(refused.why, Refused::Confined { .. })
                        || std::fs::metadata(shown).is_ok_and(|m| m.is_file())) =>
            {
                None
            }
            Err(refused) => {
                let help = match refused.why {
                    _ if refused.is_outside() => refused.help_outside(),
                    Refused::Special { .. } => HELP_ENTRY.into(),
                    _ => HELP_LINK.into(),
                };
                self.refuse(refused.to_string(), &help);
                None
            }
        }
    }
}

fn is_yaml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Reads one file of at most `limit` bytes as UTF-8, opened at `open_at` (its resolved path,
/// or `path` itself) and named `path`. On a problem, the text is what could be shown of it
/// (lossy), possibly empty.
fn read_file(path: &Path, open_at: &Path, limit: u64) -> (String, Option<ReadProblem>) {
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
    if let Ok(m) = std::fs::metadata(open_at)
        && m.is_file()
        && m.len() > limit
    {
        return (String::new(), Some(too_big(Some(m.len()))));
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(open_at).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes));
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
