//! What was made from a file of the workspace (`guildctl.yaml`, the people file), kept for
//! the process while the file stays as it was: every guild of a run reads the same
//! workspace, so a run over N guilds reads it once, not N times; a long-running `watch` or
//! `mcp` reads it again once its length or modification time changed.

use std::any::{Any, TypeId};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// A file as it was: its real path, length and modification time.
type Stamp = (PathBuf, u64, SystemTime);

type Kept = (TypeId, Stamp, Arc<dyn Any + Send + Sync>);

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// The `T` made from the file at `path` by `make`: kept from an earlier call while the file
/// is unchanged; made again (and kept) otherwise. A file whose stamp cannot be read is
/// made each time.
pub(crate) fn kept<T, E>(path: &Path, make: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E>
where
    T: Send + Sync + 'static,
{
    let stamp = std::fs::metadata(path).ok().and_then(|m| {
        let real = std::fs::canonicalize(path).ok()?;
        Some((real, m.len(), m.modified().ok()?))
    });
    let Some(stamp) = stamp else {
        return make().map(Arc::new);
    };
    let kind = TypeId::of::<T>();
    if let Ok(kept) = KEPT.lock()
        && let Some((.., made)) = kept.iter().find(|(k, s, _)| *k == kind && *s == stamp)
        && let Ok(made) = Arc::clone(made).downcast::<T>()
    {
        return Ok(made);
    }
    let made = Arc::new(make()?);
    if let Ok(mut kept) = KEPT.lock() {
        kept.retain(|(k, s, _)| !(*k == kind && s.0 == stamp.0));
        kept.push((kind, stamp, Arc::clone(&made) as Arc<dyn Any + Send + Sync>));
    }
    Ok(made)
}
