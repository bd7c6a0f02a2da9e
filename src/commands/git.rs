//! The Git facts an apply records: the manifest's commit and its author.

use std::path::Path;

/// The output of `git ARGS` run in the manifest's folder, trimmed; `None` outside Git
/// or when it prints nothing.
pub(crate) fn git_beside(manifest: &Path, args: &[&str]) -> Option<String> {
    let dir = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The manifest's current commit: GITHUB_SHA in a workflow, else `git rev-parse HEAD`
/// of the manifest's repository; `None` outside Git.
pub(crate) fn current_commit(manifest: &Path) -> Option<String> {
    if let Ok(sha) = std::env::var("GITHUB_SHA")
        && !sha.trim().is_empty()
    {
        return Some(sha.trim().to_owned());
    }
    git_beside(manifest, &["rev-parse", "HEAD"])
}

/// "guildctl apply" with the commit and its author, so each audit-log entry points
/// back to the change that caused it.
pub(crate) fn default_reason(manifest: &Path) -> String {
    let from_env = std::env::var("GITHUB_SHA").ok().map(|sha| {
        let actor = std::env::var("GITHUB_ACTOR").unwrap_or_default();
        (sha.chars().take(12).collect::<String>(), actor)
    });
    let from_git = || {
        let text = git_beside(manifest, &["log", "-1", "--format=%h%x09%an"])?;
        let (sha, author) = text.split_once('\t')?;
        Some((sha.to_owned(), author.to_owned()))
    };
    match from_env.or_else(from_git) {
        Some((sha, author)) if !author.is_empty() => {
            format!("guildctl apply: commit {sha} by {author}")
        }
        Some((sha, _)) => format!("guildctl apply: commit {sha}"),
        None => "guildctl apply".to_owned(),
    }
}
