//! Private files written whole: a reader sees the old file or the new one, never a
//! part, and nobody but the owner can read it, not even for a moment. For what
//! holds secrets (webhook URLs) or a whole guild (the sandbox's state).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new file readable by its owner alone, in the folder of `path`.
pub fn create_temp_beside(path: &Path) -> io::Result<(PathBuf, File)> {
    let folder = folder_of(path);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    for n in 0..100 {
        let temp = folder.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        // create_new: never an existing file, nor a link someone left there.
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
        {
            Ok(file) => {
                // The umask can only narrow 0600; this makes it exactly 0600.
                file.set_permissions(fs::Permissions::from_mode(0o600))?;
                return Ok((temp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary file name",
    ))
}

/// Replaces `path` with `bytes` atomically: a private temporary file beside it,
/// synced, renamed over it. A reader sees the old file or the new one, never a part,
/// and the file is never readable by others, not even for a moment.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (temp, mut file) = create_temp_beside(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    // The rename lasts a crash once the folder is synced; some file systems cannot,
    // and the file is complete either way.
    if let Ok(dir) = File::open(folder_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}
