//! `export`: each guild read whole, written as a manifest, with its files (images, emoji,
//! sounds, stickers, event covers) beside it.

use std::path::{Path, PathBuf};

use super::targets::fan_out;
use super::{Failure, Guild, Targets};
use crate::discord::Client;
use crate::export::ExportedImages;
use crate::sections::{self, FileWords, LiveFile};
use crate::snapshot::{self, Reading, Snapshot};

/// Where a guild's manifest goes.
#[derive(Debug, Clone)]
pub enum ExportTo {
    /// Standard output, without the files (`export` without `-o`): the YAML is returned.
    Stdout,
    /// This file, its files in folders beside it (`images/`, `emojis/`, ...).
    File(PathBuf),
    /// `DIR/NAME.yaml` for each guild, its files in folders of their own
    /// (`images/NAME`, `emojis/NAME`, ...): guilds' files share names.
    Folder(PathBuf),
}

/// What `export` asks.
#[derive(Debug, Clone)]
pub struct ExportRun {
    /// Where each guild's manifest goes.
    pub to: ExportTo,
    /// Also rosters (`--members`): the member listing.
    pub members: bool,
    /// Also the ban list (`--bans`).
    pub bans: bool,
}

/// A guild exported.
#[derive(Debug)]
pub struct Exported {
    /// The manifest, for [`ExportTo::Stdout`].
    pub yaml: Option<String>,
    /// The file written, otherwise.
    pub file: Option<PathBuf>,
    /// What a person is told, in order: the files written, those left out and why.
    pub notes: Vec<String>,
}

/// A file that could not be written, and why.
#[derive(Debug, thiserror::Error)]
#[error("{what}")]
pub struct FileError {
    /// What could not be written, in words (naming the file).
    pub what: String,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

fn file_error(what: String) -> impl FnOnce(std::io::Error) -> Failure {
    move |source| Box::new(FileError { what, source })
}

/// Exports every guild of `targets` (their manifests are not read: ids alone).
pub async fn export(client: &Client, targets: Targets, run: &ExportRun) -> Vec<Guild<Exported>> {
    fan_out(targets, |g, _| async move {
        let reading = Reading::everything(run.members, run.bans);
        let snap = snapshot::read(client, &g.id, reading).await?;
        if run.members && snap.people.as_ref().is_some_and(|p| p.listing_refused) {
            return Err(
                "export --members lists the guild's members, which Discord refused: the bot's application lacks the GUILD_MEMBERS privileged intent (Developer Portal > Bot > Server Members Intent). Nothing was written"
                    .into(),
            );
        }
        let mut notes = Vec::new();
        let (path, beside, sub) = match &run.to {
            ExportTo::Stdout => {
                notes.extend(left_out(&snap));
                let yaml = crate::export::export(&snap)?;
                return Ok(Exported {
                    yaml: Some(yaml),
                    file: None,
                    notes,
                });
            }
            ExportTo::File(path) => (
                path.clone(),
                path.parent().unwrap_or(Path::new("")).to_path_buf(),
                None,
            ),
            ExportTo::Folder(dir) => {
                let name = g.name.clone().unwrap_or_else(|| g.id.clone());
                (dir.join(format!("{name}.yaml")), dir.clone(), Some(name))
            }
        };
        let folder = |kind: &str| match &sub {
            Some(name) => format!("{kind}/{name}"),
            None => kind.to_owned(),
        };
        let images = write_files(client, &snap, &beside, folder, &mut notes).await?;
        let yaml = crate::export::export_with_images(&snap, &images)?;
        std::fs::write(&path, yaml).map_err(file_error(format!("cannot write {}", path.display())))?;
        Ok(Exported {
            yaml: None,
            file: Some(path),
            notes,
        })
    })
    .await
}

/// What an export to standard output leaves out, said: the files it would write beside a
/// manifest.
fn left_out(snap: &Snapshot) -> Vec<String> {
    const WRITTEN_WITH_O: &str =
        "are left out (unmanaged): they are written as files beside the manifest with -o FILE";
    let mut notes = Vec::new();
    for section in sections::ALL {
        if let Some(words) = section.about().files
            && !section.export_files(snap).is_empty()
        {
            notes.push(format!("note: {} {WRITTEN_WITH_O}", words.all));
        }
    }
    if !snap.live_images().is_empty() {
        notes.push(format!(
            "note: the guild's and roles' images {WRITTEN_WITH_O}"
        ));
    }
    notes
}

/// Every file an export writes beside its manifest in `base` — the guild's and roles'
/// images in `folder("images")`, then each section's files ([`sections::Section::export_files`])
/// in the folder of its [`sections::FileWords`] —, and the manifest's path for each by its
/// CDN path. A file the CDN does not give is left out (unmanaged), said.
async fn write_files(
    client: &Client,
    snap: &Snapshot,
    base: &Path,
    folder: impl Fn(&str) -> String,
    notes: &mut Vec<String>,
) -> Result<ExportedImages, Failure> {
    let mut to = FileWriter {
        client,
        base,
        notes,
    };
    let mut files = to.images(snap, &folder("images")).await?;
    for section in sections::ALL {
        if let Some(words) = section.about().files {
            let live = section.export_files(snap);
            files.extend(to.named(live, &folder(words.folder), &words).await?);
        }
    }
    Ok(files)
}

/// Where an export's files come from (the CDN) and go (folders of `base`, the manifest's
/// folder), and the notes that say what was written and what left out.
struct FileWriter<'a> {
    client: &'a Client,
    base: &'a Path,
    notes: &'a mut Vec<String>,
}

impl FileWriter<'_> {
    /// The folder `sub` of `base`, made, for `files` (none for none).
    fn folder_for<T>(&self, files: &[T], sub: &str) -> Result<Option<PathBuf>, Failure> {
        if files.is_empty() {
            return Ok(None);
        }
        let dir = self.base.join(sub);
        std::fs::create_dir_all(&dir)
            .map_err(file_error(format!("cannot create {}", dir.display())))?;
        Ok(Some(dir))
    }

    /// Writes each live image from the CDN into the folder `sub` (a relative path with `/`),
    /// and returns the manifest's path for each.
    async fn images(&mut self, snap: &Snapshot, sub: &str) -> Result<ExportedImages, Failure> {
        let mut out = ExportedImages::new();
        let live = snap.live_images();
        let Some(dir) = self.folder_for(&live, sub)? else {
            return Ok(out);
        };
        for image in &live {
            match self.client.cdn_image(image).await {
                Ok(bytes) => {
                    let name = crate::export::image_file_name(image);
                    let file = dir.join(&name);
                    std::fs::write(&file, bytes)
                        .map_err(file_error(format!("cannot write {}", file.display())))?;
                    out.insert(image.path(), format!("{sub}/{name}"));
                }
                Err(e) => self.notes.push(format!(
                    "note: {} is left out (unmanaged): {e}",
                    crate::inert::terminal(&image.path())
                )),
            }
        }
        self.notes
            .push(format!("Wrote {} image(s) to {}", out.len(), dir.display()));
        Ok(out)
    }

    /// Writes each file into the folder `sub` as `NAME.EXT`, and returns the manifest's path
    /// for each by its CDN path. A name from the guild becomes a file name: letters, digits
    /// and `_` only.
    async fn named(
        &mut self,
        files: Vec<LiveFile<'_>>,
        sub: &str,
        kind: &FileWords,
    ) -> Result<ExportedImages, Failure> {
        let mut out = ExportedImages::new();
        let Some(dir) = self.folder_for(&files, sub)? else {
            return Ok(out);
        };
        let mut taken = std::collections::HashSet::new();
        for f in files {
            let bytes = match self.client.cdn_file(&f.at).await {
                Ok(b) => b,
                Err(err) => {
                    self.notes.push(format!(
                        "note: {} {} is left out (unmanaged): {err}",
                        kind.one,
                        crate::inert::terminal(&f.at)
                    ));
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
            std::fs::write(&file, bytes)
                .map_err(file_error(format!("cannot write {}", file.display())))?;
            out.insert(f.at, format!("{sub}/{name}"));
        }
        self.notes.push(format!(
            "Wrote {} {} to {}",
            out.len(),
            kind.counted,
            dir.display()
        ));
        Ok(out)
    }
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

/// A guild's ids by name, as it is now (`--ids-out`): one read of the guild (its seven
/// GETs), for a bot's configuration.
pub async fn ids(client: &Client, guild_id: &str) -> Result<snapshot::ids::Ids, Failure> {
    let snap = Snapshot::fetch(client, guild_id).await?;
    Ok(snapshot::ids::Ids::of(&snap))
}
