//! `guildctl codeowners`: a CODEOWNERS file from the workspace's `owners:`, so the pull
//! requests that change a delegated file ask its team, and every other file (the workspace
//! file first) the default owners.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use guildctl::manifest::Workspace;

#[derive(Args)]
pub(crate) struct CodeownersArgs {
    /// Write it to FILE (`.github/CODEOWNERS` on GitHub, `CODEOWNERS` or `.gitlab/CODEOWNERS`
    /// on GitLab) instead of printing it.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "FILE",
        conflicts_with = "check"
    )]
    out: Option<PathBuf>,
    /// Exit 1 when FILE is not what `owners:` makes, saying so: for CI, after a change
    /// to guildctl.yaml.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
}

pub(crate) fn run(args: CodeownersArgs) -> Result<u8> {
    let ws = Workspace::find(Path::new("."))?;
    let text = ws.owners.codeowners(&prefix(&ws.root))?;
    if let Some(file) = &args.check {
        let now = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        if now != text {
            bail!(
                "{} is not what {}'s `owners:` makes: run `guildctl codeowners -o {}`",
                file.display(),
                ws.path.display(),
                file.display()
            );
        }
        eprintln!(
            "{} matches {}'s `owners:`",
            file.display(),
            ws.path.display()
        );
        return Ok(0);
    }
    match &args.out {
        Some(file) => {
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(file, &text)
                .with_context(|| format!("cannot write {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => guildctl::out!("{text}"),
    }
    Ok(0)
}

/// The workspace's folder from the root of the Git repository it is in (the nearest folder
/// above with `.git`), with `/`; empty at the root or outside Git.
fn prefix(root: &Path) -> String {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let Some(top) = root.ancestors().find(|a| a.join(".git").exists()) else {
        return String::new();
    };
    root.strip_prefix(top)
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default()
}
