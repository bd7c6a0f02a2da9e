//! The policies a change is compared with (`--policies-base REV`): the manifest, its bases
//! and the workspace file as the repository had them at a base revision, read from Git and
//! loaded by the same loader, within the same limits (docs/decisions.md, "What a policy
//! was").
//!
//! The revision's YAML files (and the links among them) are written to a private temporary
//! folder, and the manifest is loaded there with [`manifest::load_in_tree`]: every path is
//! resolved by the one resolver, inside that folder, and the workspace file is looked for
//! no higher than it; so a revision reads only its own tree, never a file of the machine.
//! Images and other files are not written: a policy is YAML.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use guildctl::manifest::{self, LoadedManifest, Within, Workspace};
use guildctl::plan::{PolicyBaseline, PriorPolicy};

/// The most YAML files of a revision written out.
const MAX_FILES: usize = 20_000;
/// The most bytes they may hold together.
const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;

/// The policies at `revision` for the manifest `loaded` (whose guild id, in a workspace, is
/// `guild`); `None`, empty or all zeros (a push that made its branch): not given.
pub(crate) fn baseline(
    revision: Option<&str>,
    loaded: &LoadedManifest,
    guild: Option<&str>,
) -> PolicyBaseline {
    let Some(revision) = revision
        .map(str::trim)
        .filter(|r| !r.is_empty() && !r.chars().all(|c| c == '0'))
    else {
        return PolicyBaseline::NotGiven;
    };
    match read(revision, loaded, guild) {
        Ok(b) => b,
        Err(why) => PolicyBaseline::Unreadable {
            revision: revision.to_owned(),
            why,
        },
    }
}

fn read(
    revision: &str,
    loaded: &LoadedManifest,
    guild: Option<&str>,
) -> Result<PolicyBaseline, String> {
    let dir = loaded.dir();
    let root = git(&dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        "the manifest is not in a Git repository (or git is not installed)".to_owned()
    })?;
    let root = PathBuf::from(String::from_utf8_lossy(&root).trim());
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    // `--end-of-options`: a revision is never read as an option of git's.
    let spec = format!("{revision}^{{commit}}");
    let commit = git(
        &root,
        &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec],
    )
    .map_err(|_| {
        format!(
            "this repository has no commit {revision} (a shallow checkout lacks the history: fetch it, e.g. actions/checkout with `fetch-depth: 0`)"
        )
    })?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let mut files_now: Vec<String> = loaded
        .files
        .iter()
        .filter_map(|f| relative(&root, &f.path))
        .collect();
    // The workspace file is still the manifest's when it states no policy now (the loader
    // then reads none of it): a policy deleted there is deleted, not lost with its file.
    if let Some(workspace) = workspace_file(&root, loaded)
        && !files_now.contains(&workspace)
    {
        files_now.push(workspace);
    }
    let manifest_now = relative(&root, &loaded.path)
        .ok_or_else(|| "the manifest is outside its Git repository".to_owned())?;
    let tree = tempfile::Builder::new()
        .prefix("guildctl-policies-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder for it: {e}"))?;
    let top = std::fs::canonicalize(tree.path()).unwrap_or_else(|_| tree.path().to_path_buf());
    write_tree(&root, &commit, &manifest_now, &top)?;
    let manifest_then = manifest_at(&top, &root, loaded, guild, &manifest_now);
    let shown = |p: &Path| relative(&top, p).unwrap_or_else(|| p.display().to_string());
    if std::fs::symlink_metadata(&manifest_then).is_err() {
        return Err(format!(
            "{} did not exist at {revision} (a new guild has no policy to compare)",
            shown(&manifest_then)
        ));
    }
    let then =
        manifest::load_in_tree(&manifest_then, &Within::workspace(&top), &top).map_err(|e| {
            let first = e.items().first().map_or(String::new(), |d| {
                let file = d
                    .span
                    .and_then(|s| e.report.files.get(s.file))
                    .map(|f| shown(&f.path))
                    .unwrap_or_else(|| shown(&manifest_then));
                let message = d.message.replace(&top.display().to_string(), revision);
                format!(": {file}: {message}")
            });
            format!("the manifest does not load at {revision}{first}")
        })?;
    let policies = then
        .stored()
        .policies
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, p)| PriorPolicy {
            policy: p.clone(),
            file: then
                .locations
                .span(&format!("policies[{i}]"))
                .and_then(|s| then.files.get(s.file))
                .map(|f| shown(&f.path))
                .unwrap_or_else(|| shown(&manifest_then)),
        })
        .collect();
    Ok(PolicyBaseline::At {
        revision: revision.to_owned(),
        commit,
        policies,
        files_now,
    })
}

/// Where the manifest was at the revision: in a workspace, the manifest its workspace file
/// then gave the same guild (by id: a manifest moved is still the guild's); else the same
/// path.
fn manifest_at(
    top: &Path,
    root: &Path,
    loaded: &LoadedManifest,
    guild: Option<&str>,
    manifest_now: &str,
) -> PathBuf {
    let same = top.join(manifest_now);
    let id = guild.or(loaded.manifest.guild.as_ref().map(|g| g.0.as_str()));
    let (Some(id), Some(workspace)) = (id, workspace_file(root, loaded)) else {
        return same;
    };
    match Workspace::read(&top.join(workspace)) {
        Ok(ws) => ws
            .guilds
            .into_iter()
            .find(|g| g.id == id)
            .map_or(same, |g| g.manifest),
        Err(_) => same,
    }
}

/// The workspace file above the manifest, in the repository, relative to its `root`.
fn workspace_file(root: &Path, loaded: &LoadedManifest) -> Option<String> {
    let folder = std::fs::canonicalize(loaded.dir()).unwrap_or_else(|_| loaded.dir());
    folder
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .map(|d| d.join(manifest::WORKSPACE_FILE))
        .find(|f| f.is_file())
        .and_then(|f| relative(root, &f))
}

/// `path` relative to `root`, with `/` between its parts, when it is inside it.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let real = std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let rel = real.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

fn is_yaml(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// A path of the tree as a relative path of plain parts (never `..`, a root or `.git`).
fn safe_path(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    let plain = p
        .components()
        .all(|c| matches!(c, Component::Normal(n) if n != ".git"));
    (plain && !path.is_empty()).then(|| p.to_path_buf())
}

/// One entry of `git ls-tree`.
struct Entry {
    mode: String,
    kind: String,
    object: String,
    path: String,
}

/// Writes the YAML files of `commit` (and the manifest, whatever its name) into `top`, and
/// the symbolic links among them: those named as YAML files or pointing at a folder.
fn write_tree(root: &Path, commit: &str, manifest: &str, top: &Path) -> Result<(), String> {
    let listing = git(root, &["ls-tree", "-r", "-t", "-z", "--full-tree", commit])
        .map_err(|e| format!("cannot list the files of {commit}: {e}"))?;
    let entries: Vec<Entry> = listing
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let r = String::from_utf8_lossy(r);
            let (meta, path) = r.split_once('\t')?;
            let mut m = meta.split(' ');
            Some(Entry {
                mode: m.next()?.to_owned(),
                kind: m.next()?.to_owned(),
                object: m.next()?.to_owned(),
                path: path.to_owned(),
            })
        })
        .collect();
    let folders: Vec<&str> = entries
        .iter()
        .filter(|e| e.kind == "tree")
        .map(|e| e.path.as_str())
        .collect();
    let wanted: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.kind == "blob" && safe_path(&e.path).is_some())
        .filter(|e| e.mode == "120000" || is_yaml(&e.path) || e.path == manifest)
        .collect();
    if wanted.len() > MAX_FILES {
        return Err(format!(
            "{commit} has more than {MAX_FILES} YAML files: not a guild's configuration"
        ));
    }
    let mut batch = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let (Some(mut input), Some(output)) = (batch.stdin.take(), batch.stdout.take()) else {
        return Err("cannot talk to git cat-file".into());
    };
    let mut output = BufReader::new(output);
    let mut total: u64 = 0;
    let result = (|| -> Result<(), String> {
        for e in wanted {
            writeln!(input, "{}", e.object)
                .and_then(|()| input.flush())
                .map_err(|err| format!("cannot read {}: {err}", e.path))?;
            let mut head = String::new();
            output
                .read_line(&mut head)
                .map_err(|err| format!("cannot read {}: {err}", e.path))?;
            let size: u64 = head
                .split_whitespace()
                .nth(2)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("git cannot read {} at {commit}", e.path))?;
            // A file over the loader's limit is written one byte past it, so the loader
            // says it is too large; the rest is read and dropped.
            let keep = size.min(manifest::source::MAX_FILE_BYTES + 1);
            let mut bytes = Vec::with_capacity(usize::try_from(keep).unwrap_or(0));
            (&mut output)
                .take(keep)
                .read_to_end(&mut bytes)
                .map_err(|err| format!("cannot read {}: {err}", e.path))?;
            std::io::copy(
                &mut (&mut output).take(size - keep + 1),
                &mut std::io::sink(),
            )
            .map_err(|err| format!("cannot read {}: {err}", e.path))?;
            total += keep;
            if total > MAX_TOTAL_BYTES {
                return Err(format!(
                    "the YAML files of {commit} hold more than {MAX_TOTAL_BYTES} bytes: not a guild's configuration"
                ));
            }
            let Some(rel) = safe_path(&e.path) else {
                continue;
            };
            let at = top.join(&rel);
            if let Some(parent) = at.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|err| format!("cannot write {}: {err}", e.path))?;
            }
            if e.mode == "120000" {
                link(&e.path, &bytes, &at, &folders)?;
            } else {
                std::fs::write(&at, &bytes)
                    .map_err(|err| format!("cannot write {}: {err}", e.path))?;
            }
        }
        Ok(())
    })();
    drop(input);
    let _ = batch.wait();
    result
}

/// A symbolic link of the tree, written as one where it can lead to YAML: named as a YAML
/// file, or pointing at a folder of the tree. The loader's resolver then refuses one that
/// leads out of the tree, as it refuses it in a checkout.
fn link(path: &str, target: &[u8], at: &Path, folders: &[&str]) -> Result<(), String> {
    let target = String::from_utf8_lossy(target).into_owned();
    let from = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut resolved = PathBuf::new();
    for c in from.join(&target).components() {
        match c {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(n) => resolved.push(n),
            _ => {}
        }
    }
    let to_folder = folders.iter().any(|f| Path::new(f) == resolved.as_path());
    if !(is_yaml(path) || to_folder) {
        return Ok(());
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&target, at)
            .map_err(|err| format!("cannot write the link {path}: {err}"))
    }
    #[cfg(not(unix))]
    {
        let _ = at;
        Ok(())
    }
}

/// The output of `git ARGS` in `dir`, or what went wrong.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(if err.is_empty() {
            format!("git {} failed", args.join(" "))
        } else {
            err
        });
    }
    Ok(out.stdout)
}
