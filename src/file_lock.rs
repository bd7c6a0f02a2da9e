//! Exclusive locks between guildctl processes on one machine: an OS file lock (`flock`,
//! std's [`File::try_lock`]) on a small lock file that says who holds it. The OS lets the
//! lock go when its holder ends, a crash or `kill -9` included, so a lock never outlives
//! its process; the file is removed on release, and one left by a crash is simply locked
//! again by the next process.
//!
//! The file records the holder's process id, when it took the lock and what it runs (for
//! the message a waiting process shows), never anything secret.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// How often a waiting process tries the lock again.
const RETRY_EVERY: Duration = Duration::from_millis(100);

/// Who holds a lock, as its file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// Unix seconds when it took the lock.
    pub since: u64,
    /// What it runs (`guildctl apply`).
    pub command: String,
}

impl Holder {
    /// This process, now, running `command`.
    pub fn me(command: &str) -> Holder {
        Holder {
            pid: std::process::id(),
            since: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            command: command.to_owned(),
        }
    }
}

/// A lock this process holds; dropping it releases it.
#[derive(Debug)]
pub struct Held {
    file: File,
    path: PathBuf,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Removed while still locked, then unlocked as the file closes: a process that
        // opened the old file finds it gone once it gets the lock, and opens the new one
        // ([`try_acquire`]), so two processes never hold the same path.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum Busy {
    /// Another process held it for the whole wait (`None`: its file named nobody yet).
    #[error("held by another process")]
    Held(Option<Holder>),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Takes the lock at `path` if it is free now: `Ok(Err(holder))` when another process
/// holds it. The file is created readable by its owner alone; a symbolic link or
/// anything but a plain file there is refused, never followed or written.
pub fn try_acquire(path: &Path, me: &Holder) -> io::Result<Result<Held, Option<Holder>>> {
    loop {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => io::Error::other(format!(
                    "{} is a symbolic link: a lock file is never reached through one",
                    path.display()
                )),
                _ => e,
            })?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a plain file",
                path.display()
            )));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(Err(holder_of(path))),
            Err(TryLockError::Error(e)) => return Err(e),
        }
        // The holder before may have removed the file between our open and our lock:
        // then this lock is on a file nobody else will look at, and we start again.
        let same = match fs::metadata(path) {
            Ok(now) => {
                let ours = file.metadata()?;
                now.dev() == ours.dev() && now.ino() == ours.ino()
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if !same {
            continue;
        }
        file.set_len(0)?;
        let mut record = serde_json::to_string(me).map_err(io::Error::other)?;
        record.push('\n');
        file.write_all(record.as_bytes())?;
        return Ok(Ok(Held {
            file,
            path: path.to_owned(),
        }));
    }
}

/// Takes the lock at `path`, waiting up to `wait` while another process holds it;
/// `waiting` is told once, with the holder, when the lock is busy at first.
pub async fn acquire(
    path: &Path,
    me: &Holder,
    wait: Duration,
    waiting: impl FnOnce(Option<&Holder>),
) -> Result<Held, Busy> {
    let until = tokio::time::Instant::now() + wait;
    let mut waiting = Some(waiting);
    loop {
        let holder = match try_acquire(path, me)? {
            Ok(held) => return Ok(held),
            Err(holder) => holder,
        };
        if tokio::time::Instant::now() >= until {
            return Err(Busy::Held(holder));
        }
        if let Some(tell) = waiting.take() {
            tell(holder.as_ref());
        }
        tokio::time::sleep_until(until.min(tokio::time::Instant::now() + RETRY_EVERY)).await;
    }
}

/// The holder a lock file names; `None` while it is being written, or when it is not
/// guildctl's.
fn holder_of(path: &Path) -> Option<Holder> {
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(text.trim()).ok()
}

/// `folder`, created readable by its owner alone when it does not exist yet (its
/// parents as usual), and refused unless it is a folder of this user's that nobody else
/// may write to (not a symbolic link): no one else can put a file or a link in it.
pub fn private_folder(folder: &Path) -> io::Result<()> {
    if fs::symlink_metadata(folder).is_err() {
        if let Some(parent) = folder.parent() {
            fs::create_dir_all(parent)?;
        }
        match fs::DirBuilder::new().mode(0o700).create(folder) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            other => other?,
        }
    }
    let meta = fs::symlink_metadata(folder)?;
    let not_private = |why: &str| {
        Err(io::Error::other(format!(
            "{} {why}, so it cannot hold locks",
            folder.display()
        )))
    };
    if !meta.is_dir() {
        return not_private("is not a folder (or is a symbolic link)");
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return not_private("belongs to another user");
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o022 != 0 {
        return not_private(&format!("may be written by others (mode {mode:o})"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_named_to_the_others_and_gone_on_release() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.lock");
        let first = Holder::me("guildctl apply");
        let held = try_acquire(&path, &first).unwrap().unwrap();
        // Another open file description of the same file is refused, with the holder.
        let busy = try_acquire(&path, &Holder::me("guildctl lockdown")).unwrap();
        assert_eq!(busy.unwrap_err(), Some(first));
        drop(held);
        assert!(!path.exists(), "removed on release");
        let again = try_acquire(&path, &Holder::me("guildctl apply")).unwrap();
        assert!(again.is_ok());
    }

    #[test]
    fn a_file_left_by_a_crash_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.lock");
        std::fs::write(&path, "{\"pid\":1,\"since\":0,\"command\":\"x\"}\n").unwrap();
        let me = Holder::me("guildctl apply");
        let _held = try_acquire(&path, &me).unwrap().unwrap();
        assert_eq!(holder_of(&path), Some(me));
    }

    #[test]
    fn a_link_is_never_followed_and_a_shared_folder_never_used() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("precious");
        std::fs::write(&victim, "keep me").unwrap();
        let link = dir.path().join("g.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = try_acquire(&link, &Holder::me("guildctl apply")).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");

        let private = dir.path().join("locks");
        private_folder(&private).unwrap();
        let mode = std::fs::metadata(&private).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        private_folder(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = private_folder(&private).unwrap_err();
        assert!(e.to_string().contains("may be written by others"), "{e}");
        let e = private_folder(&victim).unwrap_err();
        assert!(e.to_string().contains("is not a folder"), "{e}");
    }

    #[tokio::test]
    async fn a_wait_is_bounded_and_told_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.lock");
        let _held = try_acquire(&path, &Holder::me("guildctl apply"))
            .unwrap()
            .unwrap();
        let mut told = 0;
        let started = std::time::Instant::now();
        let r = acquire(
            &path,
            &Holder::me("guildctl apply"),
            Duration::from_millis(250),
            |h| {
                told += 1;
                assert_eq!(h.map(|h| h.pid), Some(std::process::id()));
            },
        )
        .await;
        assert!(matches!(r, Err(Busy::Held(Some(_)))));
        assert_eq!(told, 1);
        assert!(started.elapsed() >= Duration::from_millis(250));
    }
}
