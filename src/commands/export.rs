//! `guildctl export`: the live guild as a manifest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use guildctl::snapshot::Snapshot;
use guildctl::snapshot::people::PeopleQuery;

use super::{
    Connection, write_emoji_images, write_event_covers, write_images, write_sounds, write_stickers,
};

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
    read_sections(&session.client, &mut snap).await?;
    if members && snap.people.as_ref().is_some_and(|p| p.listing_refused) {
        bail!(
            "export --members lists the guild's members, which Discord refused: the bot's application lacks the GUILD_MEMBERS privileged intent (Developer Portal > Bot > Server Members Intent). Nothing was written"
        );
    }
    match output {
        Some(path) => {
            let beside = path.parent().unwrap_or(Path::new(""));
            let images =
                write_files(&session.client, &snap, beside, |kind| kind.to_owned()).await?;
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
            if snap.events.iter().flatten().any(|e| e.image.is_some()) {
                eprintln!(
                    "note: the events' cover images are left out (unmanaged): they are written as files beside the manifest with -o FILE"
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

/// What an export reads beyond the guild, for one guild and for a workspace alike: the whole
/// guild's AutoMod rules and scheduled events (one GET each; left out when the bot may not
/// read them), and its emoji, soundboard and sticker lists.
pub(crate) async fn read_sections(
    client: &guildctl::discord::Client,
    snap: &mut Snapshot,
) -> Result<()> {
    let guild = snap.guild.id.clone();
    snap.automod = guildctl::snapshot::automod::read(client, &guild)
        .await
        .context("reading the guild's AutoMod rules")?;
    snap.events = guildctl::snapshot::events::read(client, &guild)
        .await
        .context("reading the guild's scheduled events")?;
    snap.read_emoji_list(client)
        .await
        .context("reading the guild's emojis")?;
    snap.read_sound_list(client)
        .await
        .context("reading the guild's soundboard sounds")?;
    snap.read_sticker_list(client)
        .await
        .context("reading the guild's stickers")?;
    Ok(())
}

/// Every file an export writes beside its manifest in `base` — the guild's and roles'
/// images, emoji images, sounds, sticker files, event covers —, each kind in the folder
/// `folder(kind)` (`images`, `emojis`, `sounds`, `stickers`, `events`), and the manifest's path for each by its CDN
/// path.
pub(crate) async fn write_files(
    client: &guildctl::discord::Client,
    snap: &Snapshot,
    base: &Path,
    folder: impl Fn(&str) -> String,
) -> Result<guildctl::export::ExportedImages> {
    let mut files = write_images(client, snap, base, &folder("images")).await?;
    files.extend(write_emoji_images(client, snap, base, &folder("emojis")).await?);
    files.extend(write_sounds(client, snap, base, &folder("sounds")).await?);
    files.extend(write_stickers(client, snap, base, &folder("stickers")).await?);
    files.extend(write_event_covers(client, snap, base, &folder("events")).await?);
    Ok(files)
}
