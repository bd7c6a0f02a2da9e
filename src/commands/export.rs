//! `guildctl export`: the live guild as a manifest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::json;

use guildctl::manifest::Within;
use guildctl::ops::{self, ExportRun, ExportTo, Guild, GuildTarget, Targets};

use super::guilds::{self, Outcome};
use super::{Bots, Connection, Selection, failure};

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub conn: Connection,
    #[command(flatten)]
    selection: Selection,
    /// The file to write (standard output without it); with --all or --guilds, the folder
    /// that gets NAME.yaml per guild.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Also write rosters: `members:` for each role held by 1 to 25 members (lists the
    /// guild's members, 1,000 a read; needs the GUILD_MEMBERS intent).
    #[arg(long)]
    members: bool,
    /// Also write the ban list (`bans:`, 1,000 bans a read; needs ban_members).
    #[arg(long)]
    bans: bool,
    /// Also write the guild's ids by name to FILE (JSON for `.json`, else an env file:
    /// GUILD_ID, ROLE_…, CHANNEL_…, WEBHOOK_…), for a bot's configuration.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "guilds"])]
    ids_out: Option<PathBuf>,
}

pub async fn run(args: ExportArgs) -> Result<u8> {
    let ExportArgs {
        conn,
        selection,
        output,
        members,
        bans,
        ids_out,
    } = args;
    if selection.active() {
        return export_all(&selection, &conn, output.as_deref(), members, bans).await;
    }
    let session = conn.open(None).await?;
    let run = ExportRun {
        to: match output {
            Some(path) => ExportTo::File(path),
            None => ExportTo::Stdout,
        },
        members,
        bans,
    };
    let guild = GuildTarget::file(
        PathBuf::new(),
        Within::given(Path::new(".")),
        session.guild_id.clone(),
    );
    let exported = ops::export(&session.client, Targets::ids([guild]), &run).await;
    let Some(Guild { result, .. }) = exported.into_iter().next() else {
        bail!("internal error: no export of the guild");
    };
    let exported = result.map_err(failure)?;
    for note in &exported.notes {
        eprintln!("{note}");
    }
    if let Some(path) = &exported.file {
        eprintln!("Wrote {}", path.display());
    }
    if let Some(yaml) = &exported.yaml {
        guildctl::out!("{yaml}");
    }
    if let Some(path) = &ids_out {
        super::ids_out::write(&session, path).await?;
    }
    Ok(0)
}

/// `export --all` / `--guilds`: one manifest per guild, `DIR/NAME.yaml`.
async fn export_all(
    sel: &Selection,
    conn: &Connection,
    out: Option<&Path>,
    members: bool,
    bans: bool,
) -> Result<u8> {
    let Some(dir) = out else {
        bail!(
            "export --all writes one manifest per guild: give the folder with -o DIR (DIR/NAME.yaml)"
        );
    };
    sel.no_reports("export")?;
    let chosen = sel.resolve()?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let bots = Bots::open(conn, &chosen).await?;
    let run = ExportRun {
        to: ExportTo::Folder(dir.to_path_buf()),
        members,
        bans,
    };
    let exported = bots
        .run(async |s, mine| {
            let targets = Targets::ids(mine.into_iter().map(GuildTarget::from));
            ops::export(&s.client, targets, &run).await
        })
        .await;
    let outcomes: Vec<Outcome> = exported
        .into_iter()
        .map(|Guild { target: g, result }| match result {
            Err(e) => Outcome::failed(&g, &e),
            Ok(exported) => {
                for note in &exported.notes {
                    eprintln!("{note}");
                }
                let path = exported.file.unwrap_or_default();
                Outcome {
                    name: guilds::name(&g),
                    id: g.id.clone(),
                    code: 0,
                    changed: false,
                    summary: format!("wrote {}", path.display()),
                    text: String::new(),
                    json: json!({ "file": path }),
                    planned: false,
                    failure_markdown: None,
                }
            }
        })
        .collect();
    Ok(guilds::finish(&outcomes, false))
}
