//! `guildctl export`: the live guild as a manifest.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use guildctl::snapshot::Snapshot;

use super::Connection;

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub conn: Connection,
    #[command(flatten)]
    selection: super::workspace::Selection,
    /// The file to write (standard output without it); with --all or --guilds, the folder
    /// that gets NAME.yaml per guild.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub async fn run(args: ExportArgs) -> Result<u8> {
    let ExportArgs {
        conn,
        selection,
        output,
    } = args;
    if selection.active() {
        return super::workspace::export(&selection, &conn, output.as_deref()).await;
    }
    let session = conn.open(None).await?;
    let snap = Snapshot::fetch(&session.client, &session.guild_id)
        .await
        .context("reading the live guild")?;
    let yaml = guildctl::export::export(&snap)?;
    match output {
        Some(path) => {
            std::fs::write(&path, yaml)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("Wrote {}", path.display());
        }
        None => print!("{yaml}"),
    }
    Ok(0)
}
