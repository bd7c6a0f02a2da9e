//! Which guilds of a workspace a change touches: those with a changed file among the files
//! their manifest reads, bases included (a change to a base touches every guild that extends
//! it), and the images and avatars it names. The changed files come from GitHub (a pull
//! request's files), GitLab (a merge request's diffs) or pre-commit (`validate --changed`),
//! so a checkout needs no history.
//!
//! Decisions the issue is silent on (docs/github.md, "A workspace"):
//! - a change to the workspace file itself touches every guild (a guild's id or
//!   manifest may have moved), and so does a change to its people file (rosters);
//! - a guild whose manifest does not load is touched, so its comment says why;
//! - a list the forge cuts short touches every guild;
//! - a renamed file counts under both names.

use std::path::{Component, Path, PathBuf};

use crate::manifest::{self, Workspace, WorkspaceGuild};

/// The files a change touches, as paths relative to the repository; `complete` is false
/// when the forge's list stops at its cap.
pub struct ChangedFiles {
    pub paths: Vec<String>,
    pub complete: bool,
}

/// A guild the change touches, and why (for the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub name: String,
    pub why: String,
}

/// The guilds of `ws` that `changed` (paths relative to `repo_root`) touch, in the
/// workspace's order.
pub fn touched_guilds(ws: &Workspace, repo_root: &Path, changed: &ChangedFiles) -> Vec<Touched> {
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
    // The people file gives rosters to any guild: a change to it may touch every one.
    let people = ws.people.as_deref().map(absolute);
    if let Some((_, shown)) = changed.iter().find(|(p, _)| Some(p) == people.as_ref()) {
        return every(format!("the people file {shown} changed"));
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

/// Every file some guild's manifest is made of (absolute), bases included; a guild whose
/// manifest does not load adds nothing.
pub fn used_by_guilds(ws: &Workspace) -> Vec<PathBuf> {
    ws.guilds
        .iter()
        .filter_map(|g| manifest::load(&g.manifest).ok())
        .flat_map(|l| {
            l.files
                .iter()
                .map(|f| absolute(&f.path))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether two paths name the same file, however they were written.
pub fn is_same_file(a: &Path, b: &Path) -> bool {
    absolute(a) == absolute(b)
}

/// `p` made absolute and its `.` and `..` resolved, through links where it exists (so
/// a changed path and a manifest's file compare equal however they were reached).
pub fn absolute(p: &Path) -> PathBuf {
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
