//! `guildctl export`: the live guild as a manifest.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
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
    let reading = guildctl::snapshot::Reading::everything(members, bans);
    let snap = guildctl::snapshot::read(&session.client, &session.guild_id, reading).await?;
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

/// Every file an export writes beside its manifest in `base` — the guild's and roles'
/// images, emoji images, sounds, sticker files, event covers —, each kind in the folder
/// `folder(kind)` (`images`, `emojis`, `sounds`, `stickers`, `events`), and the manifest's
/// path for each by its CDN path. A file the CDN does not give is left out (unmanaged), said.
pub(crate) async fn write_files(
    client: &guildctl::discord::Client,
    snap: &Snapshot,
    base: &Path,
    folder: impl Fn(&str) -> String,
) -> Result<guildctl::export::ExportedImages> {
    use guildctl::discord::cdn;
    let mut files = write_images(client, snap, base, &folder("images")).await?;
    let expressions = &snap.expressions;
    let emojis = expressions.emojis.iter().flatten().filter(|e| !e.managed);
    let emojis = emojis.map(|e| Named {
        at: cdn::emoji_path(&e.id, e.animated),
        name: e.name.as_deref().unwrap_or_default(),
        id: &e.id,
    });
    let sounds = expressions.sounds.iter().flatten().map(|s| Named {
        at: cdn::sound_path(&s.sound_id),
        name: &s.name,
        id: &s.sound_id,
    });
    let stickers = expressions.stickers.iter().flatten().map(|s| Named {
        at: cdn::sticker_path(&s.id, s.format_type),
        name: &s.name,
        id: &s.id,
    });
    // The covers of the events export writes (scheduled or active).
    let events = snap.events.iter().flatten();
    let covers = events
        .filter(|e| guildctl::export::exports_event(e))
        .filter_map(|e| {
            Some(Named {
                at: e.live_image()?.path(),
                name: &e.name,
                id: &e.id,
            })
        });
    let kinds = [
        (EMOJI, emojis.collect::<Vec<_>>()),
        (SOUND, sounds.collect()),
        (STICKER, stickers.collect()),
        (COVER, covers.collect()),
    ];
    for (kind, list) in kinds {
        files.extend(write_named(client, list, base, &folder(kind.folder), &kind).await?);
    }
    Ok(files)
}

/// Writes each live image from the CDN into the folder `sub` (a relative path with `/`)
/// of `base`, the manifest's folder, and returns the manifest's path for each.
async fn write_images(
    client: &guildctl::discord::Client,
    snap: &Snapshot,
    base: &Path,
    sub: &str,
) -> Result<guildctl::export::ExportedImages> {
    let mut out = guildctl::export::ExportedImages::new();
    let live = snap.live_images();
    if live.is_empty() {
        return Ok(out);
    }
    let dir = base.join(sub);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for image in &live {
        match client.cdn_image(image).await {
            Ok(bytes) => {
                let name = guildctl::export::image_file_name(image);
                let file = dir.join(&name);
                std::fs::write(&file, bytes)
                    .with_context(|| format!("cannot write {}", file.display()))?;
                out.insert(image.path(), format!("{sub}/{name}"));
            }
            Err(e) => eprintln!(
                "note: {} is left out (unmanaged): {e}",
                guildctl::inert::terminal(&image.path())
            ),
        }
    }
    eprintln!("Wrote {} image(s) to {}", out.len(), dir.display());
    Ok(out)
}

/// A kind of file written under its object's name: what one is called in a note, what they
/// are called counted, and their folder.
struct NamedKind {
    one: &'static str,
    counted: &'static str,
    folder: &'static str,
}

const EMOJI: NamedKind = NamedKind {
    one: "emoji",
    counted: "emoji image(s)",
    folder: "emojis",
};
const SOUND: NamedKind = NamedKind {
    one: "sound",
    counted: "sound(s)",
    folder: "sounds",
};
const STICKER: NamedKind = NamedKind {
    one: "sticker",
    counted: "sticker(s)",
    folder: "stickers",
};
const COVER: NamedKind = NamedKind {
    one: "the cover of event",
    counted: "event cover(s)",
    folder: "events",
};

/// A file on the CDN that is written under its object's name in the guild.
struct Named<'a> {
    /// Its CDN path, by which the manifest refers to it.
    at: String,
    name: &'a str,
    /// For a second object of the same name: `NAME-ID`.
    id: &'a str,
}

/// Writes each file into the folder `sub` of `base` as `NAME.EXT`, and returns
/// the manifest's path for each by its CDN path. A name from the guild becomes a file name:
/// letters, digits and `_` only.
async fn write_named(
    client: &guildctl::discord::Client,
    files: Vec<Named<'_>>,
    base: &Path,
    sub: &str,
    kind: &NamedKind,
) -> Result<guildctl::export::ExportedImages> {
    let mut out = guildctl::export::ExportedImages::new();
    if files.is_empty() {
        return Ok(out);
    }
    let dir = base.join(sub);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut taken = std::collections::HashSet::new();
    for f in files {
        let bytes = match client.cdn_file(&f.at).await {
            Ok(b) => b,
            Err(err) => {
                eprintln!(
                    "note: {} {} is left out (unmanaged): {err}",
                    kind.one,
                    guildctl::inert::terminal(&f.at)
                );
                continue;
            }
        };
        let stem: String = f
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let ext = extension(&f.at, &bytes);
        let mut name = format!("{stem}.{ext}");
        if stem.is_empty() || !taken.insert(name.clone()) {
            name = format!("{stem}-{}.{ext}", f.id);
            taken.insert(name.clone());
        }
        let file = dir.join(&name);
        std::fs::write(&file, bytes).with_context(|| format!("cannot write {}", file.display()))?;
        out.insert(f.at, format!("{sub}/{name}"));
    }
    eprintln!("Wrote {} {} to {}", out.len(), kind.counted, dir.display());
    Ok(out)
}

/// A written file's extension: its CDN path's (`png`, `gif`, `json`), or, for a sound, whose
/// path has none, its container's (Ogg by its magic bytes, else MP3).
fn extension<'a>(at: &'a str, bytes: &[u8]) -> &'a str {
    let last = at.rsplit('/').next().unwrap_or(at);
    match last.rsplit_once('.') {
        Some((_, ext)) => ext,
        None if bytes.starts_with(b"OggS") => "ogg",
        None => "mp3",
    }
}
