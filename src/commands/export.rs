//! `guildctl export`: the live guild as a manifest.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use guildctl::snapshot::Snapshot;
use guildctl::snapshot::people::PeopleQuery;

use super::Connection;

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub conn: Connection,
    /// The file to write (standard output without it).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Also write rosters: `members:` for each role held by 1 to 25 members (lists the
    /// guild's members, 1,000 a read; needs the GUILD_MEMBERS intent).
    #[arg(long)]
    members: bool,
    /// Also write the ban list (`bans:`, 1,000 bans a read; needs ban_members).
    #[arg(long)]
    bans: bool,
}

pub async fn run(args: ExportArgs) -> Result<u8> {
    let ExportArgs {
        conn,
        output,
        members,
        bans,
    } = args;
    let session = conn.open(None).await?;
    let mut snap = Snapshot::fetch(&session.client, &session.guild_id)
        .await
        .context("reading the live guild")?;
    let mut wanted = PeopleQuery {
        bans,
        ..PeopleQuery::default()
    };
    if members {
        // Every role a roster could be exported for; the listing names their holders.
        let guild = snap.guild.id.clone();
        wanted.rosters = snap
            .guild
            .roles
            .iter()
            .filter(|r| r.id != guild && !r.managed)
            .map(|r| (r.id.clone(), Default::default()))
            .collect();
    }
    snap.read_people(&session.client, &wanted)
        .await
        .context("reading the guild's members and bans")?;
    if members && snap.people.as_ref().is_some_and(|p| p.listing_refused) {
        bail!(
            "export --members lists the guild's members, which Discord refused: the bot's application lacks the GUILD_MEMBERS privileged intent (Developer Portal > Bot > Server Members Intent). Nothing was written"
        );
    }
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
