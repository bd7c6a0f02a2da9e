//! What a manifest's content decides (its typed value, the form Discord stores, the rules'
//! findings, its digest), made once per distinct content in a process. A workspace whose guilds share a
//! layout (`extends: ../base.yaml` and nothing else, or the same manifest named twice) has
//! one content for many guilds; planning 100 of them should not validate, type and check
//! 100 copies of the same 10,000 lines.
//!
//! Content is the files as read, in merge order, and the folder they are read from (paths in
//! a manifest are relative to it). Nothing here reads other files: the avatar checks, which
//! do, run for every load. The manifest's own file
//! counts by its text, not its name: two guilds' `g001.yaml` and `g002.yaml` that read the
//! same in the same folder are one manifest. Every finding is placed by file index, line and
//! column, which are the same for the same content; each guild's report names its own files.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::diagnostic::{Diagnostic, Located};
use super::source::SourceFile;
use super::types::Manifest;

/// The stages after the merge, and the checks, for one content.
#[derive(Debug)]
pub(super) struct Derived {
    pub(super) manifest: Arc<Manifest>,
    pub(super) stored: OnceLock<Manifest>,
    pub(super) checks: OnceLock<Vec<(&'static str, Diagnostic)>>,
    /// The content digest a plan is bound to (`plan::binding::manifest_digest`).
    pub(super) digest: OnceLock<String>,
}

/// What stages 5 and 6 made of a content: the manifest, or the problems that stopped them.
type Outcome = Result<Arc<Derived>, Vec<Located>>;

/// One content seen in this process, and what it became (made by the first load to ask;
/// loads of the same content at the same time wait for it rather than repeat it).
struct Entry {
    dir: PathBuf,
    is_dir: bool,
    files: Vec<SourceFile>,
    outcome: Arc<OnceLock<Outcome>>,
}

impl Entry {
    fn is(&self, dir: &Path, is_dir: bool, files: &[SourceFile]) -> bool {
        self.dir == dir
            && self.is_dir == is_dir
            && self.files.len() == files.len()
            && self.files.iter().zip(files).enumerate().all(|(i, (a, b))| {
                // A file manifest's own file counts by its text alone.
                a.text == b.text && ((i == 0 && !is_dir) || a.path == b.path)
            })
    }
}

/// The most contents kept, most recently used first. Each holds a whole manifest twice
/// (typed and stored), so a workspace of distinct manifests keeps only a few: they are
/// worked on at most 8 at a time (`ops::CONCURRENCY`).
const MAX_KEPT: usize = 8;

static SEEN: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// What `make` makes of this content, made once: by this call, or by an earlier or
/// concurrent one for the same content.
pub(super) fn derive(
    dir: &Path,
    is_dir: bool,
    files: &[SourceFile],
    make: impl FnOnce() -> Result<Manifest, Vec<Located>>,
) -> Outcome {
    let cell = match SEEN.lock() {
        Ok(mut seen) => {
            let entry = match seen.iter().position(|e| e.is(dir, is_dir, files)) {
                Some(at) => seen.remove(at),
                None => Entry {
                    dir: dir.to_path_buf(),
                    is_dir,
                    files: files.to_vec(),
                    outcome: Arc::new(OnceLock::new()),
                },
            };
            let cell = Arc::clone(&entry.outcome);
            seen.insert(0, entry);
            seen.truncate(MAX_KEPT);
            cell
        }
        // A load that panicked while holding the lock kept nothing worth reusing.
        Err(_) => Arc::new(OnceLock::new()),
    };
    cell.get_or_init(|| {
        make().map(|manifest| {
            Arc::new(Derived {
                manifest: Arc::new(manifest),
                stored: OnceLock::new(),
                checks: OnceLock::new(),
                digest: OnceLock::new(),
            })
        })
    })
    .clone()
}
