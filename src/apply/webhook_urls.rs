//! Where apply keeps the URLs of the webhooks it creates. A URL carries the
//! webhook's token, a secret Discord shows once: it goes to the user's file
//! (checked before the first call, replaced atomically, mode 0600), or, when that
//! file cannot be written mid-run, to a fallback file of the same kind. It is
//! never printed. docs/safety.md, "Webhook URLs", is the user's view of this.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::discord::Secret;
use crate::private_file::{create_temp_beside, folder_of, write_private};

/// Why a webhook URL file cannot be used, or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum UrlFileProblem {
    /// The path ends in no file name (`/`, `..`).
    #[error("names no file")]
    NoFileName,
    /// The path is a symbolic link.
    #[error(
        "is a symbolic link; give the path of the file itself (the file is replaced, never written through a link)"
    )]
    Symlink,
    /// The path is a folder.
    #[error("is a directory; give the path of a file")]
    Directory,
    /// The path is a device, a socket or a pipe.
    #[error("is not a regular file")]
    NotRegular,
    /// The folder the file would be in does not exist.
    #[error("its folder {} does not exist", .0.display())]
    MissingFolder(PathBuf),
    /// What should be the file's folder is a file.
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// Creating a file in its folder was tried and refused.
    #[error("no file can be created in its folder {}: {}", .0.display(), .1)]
    FolderNotWritable(PathBuf, io::Error),
    /// The file exists and cannot be opened for writing.
    #[error("the file is not writable: {0}")]
    NotWritable(io::Error),
    /// The file exists and cannot be read (its earlier URLs are kept in it).
    #[error("the file cannot be read: {0}")]
    Unreadable(io::Error),
    /// The file holds something else: not overwritten, so nothing of the user's is lost.
    #[error(
        "the file holds something other than webhook URLs (a JSON object of names to URLs), so it is not overwritten"
    )]
    NotUrlFile,
    /// Writing the URLs failed during the run.
    #[error("{0}")]
    Write(io::Error),
}

/// A webhook URL file that cannot be used or written, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct UrlFileError {
    /// The file (or fallback file) concerned.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: UrlFileProblem,
}

/// A place to keep the URLs when the user's file cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shelter {
    /// This folder, created (with its parents) readable by the user alone.
    Folder(PathBuf),
    /// A new folder readable by the user alone, made inside this one (the system
    /// temporary folder, shared with others: a fresh folder cannot be prepared by them).
    NewFolderIn(PathBuf),
}

/// The file `apply --webhook-urls` writes, checked before the first call. Only
/// [`WebhookUrlFile::prepare`] makes one, so apply never starts with a file it
/// could not write.
#[derive(Clone)]
pub struct WebhookUrlFile {
    path: PathBuf,
    /// What the file held before the run (URLs of earlier runs), kept in it.
    earlier: Map<String, Value>,
    shelters: Vec<Shelter>,
}

impl std::fmt::Debug for WebhookUrlFile {
    // The earlier entries are secrets: show how many, never what.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookUrlFile")
            .field("path", &self.path)
            .field("earlier", &self.earlier.len())
            .field("shelters", &self.shelters)
            .finish()
    }
}

impl WebhookUrlFile {
    /// Checks that `path` can take the URLs: a regular file or nothing yet (not a
    /// link, a folder or a device), in an existing folder where a file can really be
    /// created (tried, since permission bits do not tell: root, ACLs, read-only
    /// mounts), and, if it exists, writable and holding only webhook URLs.
    pub fn prepare(path: impl Into<PathBuf>) -> Result<WebhookUrlFile, UrlFileError> {
        let path = path.into();
        let refuse = |problem| UrlFileError {
            path: path.clone(),
            problem,
        };
        if path.file_name().is_none() {
            return Err(refuse(UrlFileProblem::NoFileName));
        }
        let folder = folder_of(&path);
        match fs::metadata(folder) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refuse(UrlFileProblem::NotAFolder(folder.to_owned()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(refuse(UrlFileProblem::MissingFolder(folder.to_owned())));
            }
            Err(e) => {
                return Err(refuse(UrlFileProblem::FolderNotWritable(
                    folder.to_owned(),
                    e,
                )));
            }
        }
        let earlier = match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => return Err(refuse(UrlFileProblem::Symlink)),
            Ok(m) if m.is_dir() => return Err(refuse(UrlFileProblem::Directory)),
            Ok(m) if !m.is_file() => return Err(refuse(UrlFileProblem::NotRegular)),
            Ok(_) => {
                // Opened for appending, so nothing in it changes.
                OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(|e| refuse(UrlFileProblem::NotWritable(e)))?;
                let text =
                    fs::read_to_string(&path).map_err(|e| refuse(UrlFileProblem::Unreadable(e)))?;
                parse_url_file(&text).ok_or_else(|| refuse(UrlFileProblem::NotUrlFile))?
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(refuse(UrlFileProblem::Unreadable(e))),
        };
        let (probe, file) = create_temp_beside(&path)
            .map_err(|e| refuse(UrlFileProblem::FolderNotWritable(folder.to_owned(), e)))?;
        drop(file);
        // A probe left behind is an empty private file: harmless, so a failure is ignored.
        let _ = fs::remove_file(probe);
        Ok(WebhookUrlFile {
            path,
            earlier,
            shelters: default_shelters(),
        })
    }

    /// Keeps URLs in `folder` when the file cannot be written, instead of the
    /// default places (for tests and tools that must not touch the user's folders).
    pub fn with_fallback_folder(mut self, folder: impl Into<PathBuf>) -> WebhookUrlFile {
        self.shelters = vec![Shelter::Folder(folder.into())];
        self
    }

    /// The file the URLs go to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `$XDG_STATE_HOME/guildctl` (else `~/.local/state/guildctl`), then a new private
/// folder in the system temporary folder.
fn default_shelters() -> Vec<Shelter> {
    let mut out = Vec::new();
    // The XDG spec says to ignore a relative XDG_STATE_HOME.
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local/state"))
        });
    if let Some(state) = state {
        out.push(Shelter::Folder(state.join("guildctl")));
    }
    out.push(Shelter::NewFolderIn(std::env::temp_dir()));
    out
}

/// A JSON object of strings (an empty file counts as one with nothing in it).
fn parse_url_file(text: &str) -> Option<Map<String, Value>> {
    if text.trim().is_empty() {
        return Some(Map::new());
    }
    let map: Map<String, Value> = serde_json::from_str(text).ok()?;
    map.values().all(Value::is_string).then_some(map)
}

fn render(map: &Map<String, Value>) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(map).unwrap_or_default();
    text.push('\n');
    text.into_bytes()
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A webhook created in the run.
struct Created {
    name: String,
    id: String,
    url: Secret,
}

/// Where the URLs of the webhooks a run created are.
#[derive(Debug)]
pub enum UrlsKept {
    /// In the file given to apply.
    File(PathBuf),
    /// The file given could not be written, and the run stopped; they are in this
    /// fallback file, readable by the user alone.
    Fallback {
        /// The fallback file.
        path: PathBuf,
        /// Why the file given could not be written.
        error: UrlFileError,
    },
    /// Neither the file given nor any fallback place could be written, and the run
    /// stopped. The webhooks (name, id) exist; Discord can show their URLs again.
    Nowhere {
        /// Why the file given could not be written.
        error: UrlFileError,
        /// Why each fallback place could not be written either.
        fallback_errors: Vec<UrlFileError>,
        /// The webhooks created (name, id), so the user can find them.
        webhooks: Vec<(String, String)>,
    },
}

impl UrlsKept {
    /// Whether the URLs are where the user asked.
    pub fn as_asked(&self) -> bool {
        matches!(self, UrlsKept::File(_))
    }
}

/// Writes each URL as it arrives, so none waits in memory for the end of the run.
pub(crate) struct Keeper<'a> {
    file: &'a WebhookUrlFile,
    guild_id: &'a str,
    created: Vec<Created>,
    kept: Option<UrlsKept>,
}

impl<'a> Keeper<'a> {
    pub fn new(file: &'a WebhookUrlFile, guild_id: &'a str) -> Keeper<'a> {
        Keeper {
            file,
            guild_id,
            created: Vec::new(),
            kept: None,
        }
    }

    /// Keeps one more URL. False when it could not go to the user's file: the run
    /// must stop (it is then in a fallback file, or, if none could be written,
    /// Discord still holds it).
    pub fn keep(&mut self, name: &str, id: &str, url: &Secret) -> bool {
        self.created.push(Created {
            name: name.to_owned(),
            id: id.to_owned(),
            url: url.clone(),
        });
        match self.kept.take() {
            None | Some(UrlsKept::File(_)) => {
                match write_private(&self.file.path, &self.merged()) {
                    Ok(()) => {
                        self.kept = Some(UrlsKept::File(self.file.path.clone()));
                        true
                    }
                    Err(e) => {
                        let error = UrlFileError {
                            path: self.file.path.clone(),
                            problem: UrlFileProblem::Write(e),
                        };
                        self.kept = Some(self.shelter(error, None));
                        false
                    }
                }
            }
            Some(UrlsKept::Fallback { path, error }) => {
                self.kept = Some(self.shelter(error, Some(path)));
                false
            }
            Some(UrlsKept::Nowhere { error, .. }) => {
                self.kept = Some(self.shelter(error, None));
                false
            }
        }
    }

    pub fn finish(self) -> Option<UrlsKept> {
        self.kept
    }

    /// The user's file: what it held, then this run's URLs. A name it already had
    /// with another URL (a webhook of another guild, or one since deleted) keeps
    /// that URL under a new name, so nothing in the file is lost.
    fn merged(&self) -> Vec<u8> {
        let mut map = self.file.earlier.clone();
        for c in &self.created {
            let url = Value::String(c.url.expose().to_owned());
            if let Some(old) = map.get(&c.name).filter(|old| **old != url).cloned() {
                let free = (1..)
                    .map(|n| match n {
                        1 => format!("{} (earlier)", c.name),
                        n => format!("{} (earlier {n})", c.name),
                    })
                    .find(|k| !map.contains_key(k))
                    .unwrap_or_default();
                map.insert(free, old);
            }
            map.insert(c.name.clone(), url);
        }
        render(&map)
    }

    /// This run's URLs alone, for a fallback file.
    fn this_run(&self) -> Vec<u8> {
        let map: Map<String, Value> = self
            .created
            .iter()
            .map(|c| (c.name.clone(), Value::String(c.url.expose().to_owned())))
            .collect();
        render(&map)
    }

    /// Writes this run's URLs to the fallback file in use (`current`), else to a new
    /// one in the first place that takes it.
    fn shelter(&self, error: UrlFileError, current: Option<PathBuf>) -> UrlsKept {
        let bytes = self.this_run();
        let mut fallback_errors = Vec::new();
        if let Some(path) = current {
            match write_private(&path, &bytes) {
                Ok(()) => return UrlsKept::Fallback { path, error },
                Err(e) => fallback_errors.push(UrlFileError {
                    path,
                    problem: UrlFileProblem::Write(e),
                }),
            }
        }
        for shelter in &self.file.shelters {
            match self.write_in(shelter, &bytes) {
                Ok(path) => return UrlsKept::Fallback { path, error },
                Err(e) => fallback_errors.push(e),
            }
        }
        UrlsKept::Nowhere {
            error,
            fallback_errors,
            webhooks: self
                .created
                .iter()
                .map(|c| (c.name.clone(), c.id.clone()))
                .collect(),
        }
    }

    /// A new file `webhook-urls-<guild>-<unix time>.json` in the shelter.
    fn write_in(&self, shelter: &Shelter, bytes: &[u8]) -> Result<PathBuf, UrlFileError> {
        let secs = now_secs();
        let folder = match shelter {
            Shelter::Folder(folder) => {
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(folder)
                    .map_err(|e| UrlFileError {
                        path: folder.clone(),
                        problem: UrlFileProblem::Write(e),
                    })?;
                folder.clone()
            }
            Shelter::NewFolderIn(parent) => new_private_folder(parent, secs)?,
        };
        let stem = format!("webhook-urls-{}-{secs}", self.guild_id);
        let path = (1..100)
            .map(|n| match n {
                1 => folder.join(format!("{stem}.json")),
                n => folder.join(format!("{stem}-{n}.json")),
            })
            .find(|p| fs::symlink_metadata(p).is_err())
            .unwrap_or_else(|| folder.join(format!("{stem}-{}.json", std::process::id())));
        write_private(&path, bytes).map_err(|e| UrlFileError {
            path: path.clone(),
            problem: UrlFileProblem::Write(e),
        })?;
        Ok(path)
    }
}

/// A folder only its owner can enter, new (so nobody else prepared it), in `parent`.
fn new_private_folder(parent: &Path, secs: u64) -> Result<PathBuf, UrlFileError> {
    let mut last = None;
    for n in 0..100 {
        let folder = parent.join(format!("guildctl-{}-{secs}-{n}", std::process::id()));
        match DirBuilder::new().mode(0o700).create(&folder) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                return Err(UrlFileError {
                    path: folder,
                    problem: UrlFileProblem::Write(e),
                });
            }
        }
    }
    Err(UrlFileError {
        path: parent.to_owned(),
        problem: UrlFileProblem::Write(
            last.unwrap_or_else(|| io::Error::other("no free folder name")),
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn only_objects_of_strings_are_url_files() {
        assert_eq!(parse_url_file("").map(|m| m.len()), Some(0));
        assert_eq!(parse_url_file(" \n").map(|m| m.len()), Some(0));
        assert_eq!(
            parse_url_file(r#"{"CI": "https://x/webhooks/1/t"}"#).map(|m| m.len()),
            Some(1)
        );
        assert!(parse_url_file("export TOKEN=1").is_none());
        assert!(parse_url_file(r#"{"CI": 1}"#).is_none());
        assert!(parse_url_file("[]").is_none());
    }

    #[test]
    fn a_name_written_again_keeps_the_earlier_url() {
        let dir = std::env::temp_dir().join(format!("guildctl-merge-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("urls.json");
        fs::write(&path, r#"{"CI": "https://old/webhooks/1/a"}"#).unwrap();
        let file = WebhookUrlFile::prepare(&path).unwrap();
        let mut keeper = Keeper::new(&file, "9");
        assert!(keeper.keep("CI", "2", &Secret::new("https://new/webhooks/2/b".into())));
        let map = parse_url_file(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(map["CI"], "https://new/webhooks/2/b");
        assert_eq!(map["CI (earlier)"], "https://old/webhooks/1/a");
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        fs::remove_dir_all(&dir).unwrap();
    }
}
