//! Reading a manifest's files: one file, or every YAML file of a folder, within size limits.
//!
//! Nothing here parses YAML: [`read`] returns the files' text (or the problems that kept a
//! file from being read), and [`super::load`] parses and merges them.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use hashbrown::{HashMap, HashSet};

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

/// The folder a path read from a repository must stay inside, and how a refusal names it.
///
/// Every path a manifest's content is read from (`-f`, a workspace's `manifest:`,
/// `extends:`, a folder's entries, images) is resolved whole by [`resolve`] against one of
/// these before anything is opened, so a symbolic link committed anywhere along the path
/// (`guilds/root -> /`) cannot make a run read, and show, a file from elsewhere on the
/// machine that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Within {
    folder: PathBuf,
    named: String,
}

impl Within {
    /// Where a path given with `-f` must stay. A relative path: the working folder (a
    /// repository's checkout, whose links a pull request may have committed). An absolute
    /// path names its folder as a person chose it: what it names there must stay in that
    /// folder it is given in.
    pub fn given(path: &Path) -> Within {
        if !path.is_absolute() {
            return Within {
                folder: PathBuf::from("."),
                named: "the working folder".into(),
            };
        }
        // A path ending in `..` or a root names its folder outright.
        let folder = match (path.components().next_back(), path.parent()) {
            (Some(Component::Normal(_)), Some(parent)) => parent.to_path_buf(),
            _ => path.to_path_buf(),
        };
        let named = format!("the folder {} it is given in", folder.display());
        Within { folder, named }
    }

    /// A workspace's folder: its guilds' manifests stay inside it.
    pub fn workspace(root: &Path) -> Within {
        Within {
            folder: root.to_path_buf(),
            named: format!("the workspace's folder {}", root.display()),
        }
    }

    /// A manifest's folder: the entries of a folder manifest and the images a manifest names
    /// stay inside it.
    pub fn manifest_folder(dir: &Path) -> Within {
        Within {
            folder: dir.to_path_buf(),
            named: "the manifest's folder".into(),
        }
    }
}

/// The folder a whole run is confined to, when one is (`guildctl mcp`: the folder it serves,
/// set once before any tool runs), as the path it was given and its real path.
static CONFINED: OnceLock<Confinement> = OnceLock::new();

struct Confinement {
    given: PathBuf,
    real: PathBuf,
    named: String,
}

/// Confines every path this process reads from a repository to `root` (named `named` in
/// refusals), before anything is read: [`resolve`] refuses any path that leads out of it,
/// by `..`, an absolute path or a symbolic link, without looking at anything outside it, so
/// a refusal says the same whether or not the path exists and never where a link leads; and
/// no workspace file is looked for above it ([`workspace_file_above`]). Set once: a second
/// call changes nothing and says so.
pub fn confine_to(root: &Path, named: &str) -> std::io::Result<()> {
    let given = std::path::absolute(root)?;
    let real = std::fs::canonicalize(root)?;
    CONFINED
        .set(Confinement {
            given,
            real,
            named: named.to_owned(),
        })
        .map_err(|_| std::io::Error::other("the run is already confined to a folder"))
}

/// The workspace file (`guildctl.yaml`) in `folder` or the nearest folder above it, never
/// above the folder the run is confined to ([`confine_to`]), nor above `ceiling` (a tree
/// loaded apart, such as a base revision's).
pub fn workspace_file_above(folder: &Path, ceiling: Option<&Path>) -> Option<PathBuf> {
    let confined = CONFINED.get();
    folder
        .ancestors()
        .take_while(|d| confined.is_none_or(|c| d.starts_with(&c.real) || d.starts_with(&c.given)))
        .take_while(|d| ceiling.is_none_or(|c| d.starts_with(c)))
        .map(|d| d.join(WORKSPACE_FILE))
        .find(|f| f.is_file())
}

/// Whether `path` leads out of the confinement's folder. Found by walking the path from the
/// folder part by part, following symbolic links as the system would, and stopping at the
/// first step out: nothing outside the folder is looked at.
fn leads_out(path: &Path, c: &Confinement) -> bool {
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(here) => here.join(path),
            Err(_) => return true,
        }
    };
    let inside = |p: &Path| -> Option<PathBuf> {
        [&c.real, &c.given]
            .iter()
            .find_map(|root| p.strip_prefix(root).ok())
            .map(Path::to_path_buf)
    };
    let Some(rest) = inside(&full) else {
        return true;
    };
    let mut real = c.real.clone();
    let mut steps = steps_of(&rest);
    // Links followed so far: Linux gives up after 40, and `resolve` then says the path loops.
    let mut links = 0;
    while let Some(step) = steps.pop_front() {
        match step {
            Step::Up => {
                if real == c.real {
                    return true;
                }
                real.pop();
            }
            Step::Name(name) => {
                let next = real.join(&name);
                let is_link =
                    std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
                if !is_link {
                    // A file, a folder, or nothing: what follows is looked at under it.
                    real = next;
                    continue;
                }
                links += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    return false;
                };
                if links > 40 {
                    return false;
                }
                let target = if target.is_absolute() {
                    match inside(&target) {
                        Some(rest) => {
                            real = c.real.clone();
                            rest
                        }
                        None => return true,
                    }
                } else {
                    target
                };
                for s in steps_of(&target).into_iter().rev() {
                    steps.push_front(s);
                }
            }
            Step::Out => return true,
        }
    }
    false
}

/// A step of a path walked from a folder.
enum Step {
    Up,
    Name(std::ffi::OsString),
    /// A root or a prefix: somewhere else.
    Out,
}

fn steps_of(path: &Path) -> VecDeque<Step> {
    path.components()
        .filter_map(|part| match part {
            Component::CurDir => None,
            Component::ParentDir => Some(Step::Up),
            Component::Normal(name) => Some(Step::Name(name.to_owned())),
            Component::RootDir | Component::Prefix(_) => Some(Step::Out),
        })
        .collect()
}

/// A path [`resolve`] found inside its folder: where it really is, and whether it is a folder
/// (else it is a regular file).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The path with every symbolic link and `..` resolved.
    pub real: PathBuf,
    pub is_dir: bool,
}

/// Why [`resolve`] refused a path.
#[derive(Debug)]
pub(crate) enum Refused {
    /// Nothing is there; `link` is where a symbolic link at the path points.
    Missing {
        link: Option<PathBuf>,
    },
    /// A symbolic link that leads back to itself through `link`.
    Loops {
        link: PathBuf,
    },
    /// A FIFO, socket or device, reached through a symbolic link to `link` when the path is one.
    Special {
        kind: &'static str,
        link: Option<PathBuf>,
    },
    /// On `/proc`, `/sys` or `/dev`.
    System {
        real: PathBuf,
    },
    /// The path is itself a symbolic link, to `to`, outside the folder.
    LinkOut {
        to: PathBuf,
    },
    /// A symbolic link along the path (`link`, to `to`) leads it to `real`, outside the folder.
    ThroughLink {
        link: PathBuf,
        to: PathBuf,
        real: PathBuf,
    },
    /// Outside the folder with no symbolic link to blame (`..`, or an absolute path).
    Outside {
        real: PathBuf,
    },
    /// Leading out of the folder the run is confined to ([`confine_to`]), whatever is there.
    Confined {
        named: String,
    },
    Unreadable(std::io::Error),
}

/// A refused path, named as it is shown, with the folder it had to stay in.
#[derive(Debug)]
pub(crate) struct PathRefusal {
    pub shown: String,
    pub within: String,
    pub why: Refused,
}

impl PathRefusal {
    /// Whether the path leads out of its folder (as opposed to not being readable at all).
    pub fn is_outside(&self) -> bool {
        matches!(
            self.why,
            Refused::LinkOut { .. }
                | Refused::ThroughLink { .. }
                | Refused::Outside { .. }
                | Refused::Confined { .. }
        )
    }

    /// What to do about a path that leads out of its folder.
    pub fn help_outside(&self) -> String {
        if let Refused::Confined { named } = &self.why {
            return format!(
                "name a path inside {named}: nothing outside it is read, and nothing is said of what is there"
            );
        }
        if let Refused::Outside { .. } = self.why {
            return format!(
                "keep the file inside {}: guildctl reads a manifest's files only from there",
                self.within
            );
        }
        format!(
            "copy the file or folder into {} instead of linking to it: guildctl reads a \
             manifest's files only from there, so a reviewed change cannot pull in a file from \
             elsewhere on the machine that runs it",
            self.within
        )
    }
}

impl std::fmt::Display for PathRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (shown, within) = (&self.shown, &self.within);
        match &self.why {
            Refused::Missing { link: None } => write!(f, "{shown} does not exist"),
            Refused::Missing { link: Some(t) } => write!(
                f,
                "{shown} is a symbolic link to {}, which does not exist",
                t.display()
            ),
            Refused::Loops { link } => write!(
                f,
                "{shown} is a symbolic link that loops (it leads back to itself through {})",
                link.display()
            ),
            Refused::Special { kind, link: None } => {
                write!(f, "{shown} is {kind}, not a file or folder")
            }
            Refused::Special {
                kind,
                link: Some(t),
            } => write!(
                f,
                "{shown} is a symbolic link to {}, which is {kind}",
                t.display()
            ),
            Refused::System { real } => write!(
                f,
                "{shown} is {}, on a system file system, not a manifest or a file it names",
                real.display()
            ),
            Refused::LinkOut { to } => write!(
                f,
                "{shown} is a symbolic link to {}, outside {within}",
                to.display()
            ),
            Refused::ThroughLink { link, to, real } => write!(
                f,
                "{shown} leads through the symbolic link {} (to {}) to {}, outside {within}",
                link.display(),
                to.display(),
                real.display()
            ),
            Refused::Outside { real } => {
                write!(f, "{shown} is {}, outside {within}", real.display())
            }
            Refused::Confined { named } => write!(f, "{shown} leads outside {named}"),
            Refused::Unreadable(e) => write!(f, "cannot read {shown}: {e}"),
        }
    }
}

/// The one resolver of paths read from a repository: `path` with every symbolic link and
/// `..` resolved, refused unless it exists, is a regular file or a folder (never a FIFO,
/// socket or device, nothing on `/proc`, `/sys` or `/dev`), and stays inside `within`.
/// Nothing is opened: only the path's entries are looked at. A refusal names the path as
/// `shown`, and the symbolic link that leads out when one does.
pub(crate) fn resolve(path: &Path, shown: &str, within: &Within) -> Result<Resolved, PathRefusal> {
    let refuse = |why| PathRefusal {
        shown: shown.to_owned(),
        within: within.named.clone(),
        why,
    };
    if let Some(c) = CONFINED.get()
        && leads_out(path, c)
    {
        return Err(refuse(Refused::Confined {
            named: c.named.clone(),
        }));
    }
    let link = || std::fs::read_link(path).ok();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refuse(Refused::Missing { link: link() }));
        }
        Err(_) if link().is_some() && link_loops(path) => {
            return Err(refuse(Refused::Loops {
                link: link().unwrap_or_default(),
            }));
        }
        Err(e) => return Err(refuse(Refused::Unreadable(e))),
    };
    if !meta.is_file() && !meta.is_dir() {
        return Err(refuse(Refused::Special {
            kind: special_kind(&meta.file_type()),
            link: link(),
        }));
    }
    let real = std::fs::canonicalize(path).map_err(|e| refuse(Refused::Unreadable(e)))?;
    if SYSTEM_FILE_SYSTEMS.iter().any(|sys| real.starts_with(sys)) {
        return Err(refuse(Refused::System { real }));
    }
    let folder = if within.folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        &within.folder
    };
    let real_folder = std::fs::canonicalize(folder).map_err(|e| refuse(Refused::Unreadable(e)))?;
    if real.starts_with(&real_folder) {
        return Ok(Resolved {
            real,
            is_dir: meta.is_dir(),
        });
    }
    Err(refuse(match link_out(path, &real_folder) {
        Some((at, to)) if at == path => Refused::LinkOut { to },
        Some((link, to)) => Refused::ThroughLink { link, to, real },
        None => Refused::Outside { real },
    }))
}

/// The first symbolic link along `path` that leads out of `real_folder` from inside it: the
/// link (a prefix of `path`) and where it points.
fn link_out(path: &Path, real_folder: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut at = PathBuf::new();
    for part in path.components() {
        at.push(part);
        let is_link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            continue;
        }
        let parent = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let from_inside = std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(real_folder));
        let leads_out = std::fs::canonicalize(&at).is_ok_and(|r| !r.starts_with(real_folder));
        if from_inside && leads_out {
            let to = std::fs::read_link(&at).unwrap_or_default();
            return Some((at, to));
        }
    }
    None
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

/// Linux's file systems of the kernel's own: nothing on them is a manifest.
const SYSTEM_FILE_SYSTEMS: [&str; 3] = ["/proc", "/sys", "/dev"];

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

/// The kind of a file that is neither a regular file, a folder nor a symbolic link.
fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_char_device() {
            return "a character device";
        }
    }
    let _ = t;
    "a special file"
}

/// Whether the symbolic link at `path` leads back to itself through links alone (checked by
/// following the chain, since the OS's "too many levels" error has no stable kind).
fn link_loops(path: &Path) -> bool {
    let mut seen = HashSet::new();
    let mut at = path.to_path_buf();
    // Linux gives up after 40 links: so does this.
    for _ in 0..40 {
        if !seen.insert(at.clone()) {
            return true;
        }
        match std::fs::read_link(&at) {
            Ok(target) => {
                at = match at.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                }
            }
            Err(_) => return false,
        }
    }
    true
}

impl Walker<'_> {
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
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                self.refuse(
                    format!("cannot read the folder {}: {e}", dir.display()),
                    "check the folder's permissions",
                );
                return;
            }
        };
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.refuse(
                        format!("cannot read the folder {}: {e}", dir.display()),
                        "check the folder's permissions",
                    );
                    continue;
                }
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

    /// The walk from the confined folder: out by `..`, an absolute path, or a link (relative,
    /// absolute, or through a chain of links) whether or not anything is there; in otherwise.
    #[cfg(unix)]
    #[test]
    fn a_path_leads_out_of_the_confined_folder_by_any_way_whatever_is_there() {
        use std::os::unix::fs::symlink;
        let outer = tempfile::tempdir().expect("temp dir");
        let root = outer.path().join("root");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::create_dir(outer.path().join("out")).expect("mkdir");
        std::fs::write(root.join("in.yaml"), "").expect("write");
        std::fs::write(outer.path().join("out/there.yaml"), "").expect("write");
        symlink("in.yaml", root.join("to-in")).expect("symlink");
        symlink("../in.yaml", root.join("sub/up-in")).expect("symlink");
        symlink(root.join("in.yaml"), root.join("abs-in")).expect("symlink");
        symlink("../out", root.join("to-out")).expect("symlink");
        symlink("/", root.join("to-root")).expect("symlink");
        symlink("to-out", root.join("chain")).expect("symlink");
        symlink("../out/absent.yaml", root.join("dangling-out")).expect("symlink");
        let c = Confinement {
            given: root.clone(),
            real: std::fs::canonicalize(&root).expect("real"),
            named: "the folder".into(),
        };
        let at = |rel: &str| root.join(rel);
        for inside in [
            "in.yaml",
            "absent.yaml",
            "sub/../in.yaml",
            "to-in",
            "sub/up-in",
            "abs-in",
            "absent/../in.yaml",
        ] {
            assert!(!leads_out(&at(inside), &c), "{inside}");
        }
        for outside in [
            "../out/there.yaml",
            "../out/absent.yaml",
            "sub/../../out/there.yaml",
            "absent/../../x",
            "to-out/there.yaml",
            "to-out/absent.yaml",
            "to-root/etc/passwd",
            "chain/there.yaml",
            "dangling-out",
            "to-out/../root/in.yaml",
        ] {
            assert!(leads_out(&at(outside), &c), "{outside}");
        }
        assert!(leads_out(&outer.path().join("out/there.yaml"), &c));
        assert!(leads_out(Path::new("/etc/passwd"), &c));
    }

    #[test]
    fn yaml_extensions() {
        assert!(is_yaml("roles.yaml"));
        assert!(is_yaml("ROLES.YML"));
        assert!(!is_yaml("avatar.png"));
        assert!(!is_yaml("yaml"));
    }
}
