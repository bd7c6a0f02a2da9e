//! Which paths a run may read from a repository: the folder each read must stay inside
//! ([`Within`]), the folder a whole run is confined to ([`confine_to`]), and the one
//! resolver ([`resolve`]) every path passes before anything is opened.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use hashbrown::HashSet;

use super::WORKSPACE_FILE;

/// The folder a path read from a repository must stay inside, and how a refusal names it.
///
/// Every path a manifest's content is read from (`-f`, a workspace's `manifest:`,
/// `extends:`, a folder's entries, images) is resolved whole by `resolve` against one of
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
/// refusals), before anything is read: `resolve` refuses any path that leads out of it,
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

/// Linux's file systems of the kernel's own: nothing on them is a manifest.
const SYSTEM_FILE_SYSTEMS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// The kind of a file that is neither a regular file, a folder nor a symbolic link.
pub(super) fn special_kind(t: &std::fs::FileType) -> &'static str {
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
}
