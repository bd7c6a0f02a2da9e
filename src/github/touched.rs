//! Which guilds of a workspace a pull request touches: those with a file the pull
//! request changes among the files their manifest reads, bases included (a change to a
//! base plans every guild that extends it), and the images and avatars it names. The pull request's files come from GitHub
//! (`GET /repos/{owner}/{repo}/pulls/{n}/files`), so the checkout needs no history.
//!
//! Decisions the issue is silent on (docs/github.md, "A workspace"):
//! - a change to the workspace file itself touches every guild (a guild's id or
//!   manifest may have moved);
//! - a guild whose manifest does not load is touched, so its comment says why;
//! - a list GitHub cuts short (it gives at most 3,000 files) touches every guild;
//! - a renamed file counts under both names.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::manifest::{self, Workspace, WorkspaceGuild};

use super::client::GitHub;
use super::error::GithubError;

/// GitHub lists at most this many files of a pull request.
const GITHUB_FILE_CAP: usize = 3000;

/// The files a pull request changes, as paths relative to the repository; `complete`
/// is false when GitHub's list stops at its cap.
pub struct PullFiles {
    pub paths: Vec<String>,
    pub complete: bool,
}

pub async fn pull_request_files(gh: &GitHub, number: u64) -> Result<PullFiles, GithubError> {
    let path = gh.repo_path(&format!("/pulls/{number}/files?per_page=100"));
    let files = gh.get_all(&path).await?;
    let complete = files.len() < GITHUB_FILE_CAP;
    let mut paths = Vec::new();
    for f in &files {
        for key in ["filename", "previous_filename"] {
            if let Some(p) = f.get(key).and_then(Value::as_str) {
                paths.push(p.to_owned());
            }
        }
    }
    Ok(PullFiles { paths, complete })
}

/// A guild the change touches, and why (for the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub name: String,
    pub why: String,
}

/// The guilds of `ws` that `changed` (paths relative to `repo_root`) touch, in the
/// workspace's order.
pub fn touched_guilds(ws: &Workspace, repo_root: &Path, changed: &PullFiles) -> Vec<Touched> {
    let root = absolute(repo_root);
    let changed: Vec<(PathBuf, &str)> = changed
        .paths
        .iter()
        .map(|p| (absolute(&root.join(p)), p.as_str()))
        .collect();
    let workspace_file = absolute(&ws.path);
    let every = |why: String| -> Vec<Touched> {
        ws.guilds
            .iter()
            .map(|g| Touched {
                name: g.name.clone(),
                why: why.clone(),
            })
            .collect()
    };
    if let Some((_, shown)) = changed.iter().find(|(p, _)| *p == workspace_file) {
        return every(format!("the workspace file {shown} changed"));
    }
    ws.guilds
        .iter()
        .filter_map(|g| {
            touched(g, &changed).map(|why| Touched {
                name: g.name.clone(),
                why,
            })
        })
        .collect()
}

/// Every guild of `ws`: for a list GitHub cut short.
pub fn every_guild(ws: &Workspace, why: &str) -> Vec<Touched> {
    ws.guilds
        .iter()
        .map(|g| Touched {
            name: g.name.clone(),
            why: why.to_owned(),
        })
        .collect()
}

fn touched(g: &WorkspaceGuild, changed: &[(PathBuf, &str)]) -> Option<String> {
    let loaded = match manifest::load_in(&g.manifest, &g.within()) {
        Ok(l) => l,
        Err(_) => {
            return Some(format!(
                "its manifest {} does not load",
                g.manifest.display()
            ));
        }
    };
    let files: Vec<PathBuf> = loaded.files.iter().map(|f| absolute(&f.path)).collect();
    // The images and avatars it names (its bases' too) are read with it: a new icon is a
    // change of the guild, as much as a changed line.
    let dir = loaded.dir();
    let images: Vec<PathBuf> = manifest::image_fields(&loaded.manifest)
        .into_iter()
        .map(|(_, rel)| absolute(&dir.join(rel)))
        .collect();
    // A folder manifest: a file added to the folder joins it.
    let folder = loaded.is_dir.then(|| absolute(&loaded.path));
    changed.iter().find_map(|(p, shown)| {
        if files.contains(p) {
            Some(format!("{shown} is one of its manifest's files"))
        } else if images.contains(p) {
            Some(format!("{shown} is an image its manifest names"))
        } else if folder.as_ref().is_some_and(|d| p.starts_with(d)) {
            Some(format!("{shown} is in its manifest's folder"))
        } else {
            None
        }
    })
}

/// `p` made absolute and its `.` and `..` resolved, through links where it exists (so
/// a changed path and a manifest's file compare equal however they were reached).
fn absolute(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    // A path that no longer exists (a deleted file) under a folder that does.
    match (out.parent(), out.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|d| d.join(name))
            .unwrap_or(out),
        _ => out,
    }
}
