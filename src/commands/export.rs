//! `guildctl export`: the live guild as a manifest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use guildctl::snapshot::Snapshot;
use guildctl::snapshot::people::PeopleQuery;

use super::{Connection, write_emoji_images, write_images, write_sounds, write_stickers};

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
        selection,
        output,
        members,
        bans,
    } = args;
    if selection.active() {
        if members || bans {
            bail!(
                "--members and --bans export one guild at a time: run `export -o FILE --guild ID` for the guild whose rosters or bans you want. Nothing was written"
            );
        }
        return super::workspace::export(&selection, &conn, output.as_deref()).await;
    }
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
    // An export describes the whole guild: its AutoMod rules too (one GET; left out when
    // the bot may not read them).
    snap.automod = guildctl::snapshot::automod::read(&session.client, &session.guild_id)
        .await
        .context("reading the guild's AutoMod rules")?;
    snap.events = guildctl::snapshot::events::read(&session.client, &session.guild_id)
        .await
        .context("reading the guild's scheduled events")?;
    if members && snap.people.as_ref().is_some_and(|p| p.listing_refused) {
        bail!(
            "export --members lists the guild's members, which Discord refused: the bot's application lacks the GUILD_MEMBERS privileged intent (Developer Portal > Bot > Server Members Intent). Nothing was written"
        );
    }
    snap.read_emoji_list(&session.client)
        .await
        .context("reading the guild's emojis")?;
    snap.read_sound_list(&session.client)
        .await
        .context("reading the guild's soundboard sounds")?;
    snap.read_sticker_list(&session.client)
        .await
        .context("reading the guild's stickers")?;
    match output {
        Some(path) => {
            let beside = path.parent().unwrap_or(Path::new(""));
            let mut images = write_images(&session.client, &snap, beside, "images").await?;
            images.extend(write_emoji_images(&session.client, &snap, beside, "emojis").await?);
            images.extend(write_sounds(&session.client, &snap, beside, "sounds").await?);
            images.extend(write_stickers(&session.client, &snap, beside, "stickers").await?);
            let yaml = guildctl::export::export_with_images(&snap, &images)?;
            std::fs::write(&path, yaml)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("Wrote {}", path.display());
        }
        None => {
            if !snap.emoji_paths().is_empty()
                || !snap.sound_paths().is_empty()
                || !snap.sticker_paths().is_empty()
            {
                eprintln!(
                    "note: the guild's emojis, soundboard sounds and stickers are left out (unmanaged): they are written as files beside the manifest with -o FILE"
                );
            }
            if !snap.live_images().is_empty() {
                eprintln!(
                    "note: the guild's and roles' images are left out (unmanaged): they are written as files beside the manifest with -o FILE"
                );
            }
            guildctl::out!("{}", guildctl::export::export(&snap)?);
        }
    }
    Ok(0)
}
