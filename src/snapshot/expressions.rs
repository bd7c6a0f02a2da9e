//! The guild's expressions as read live: custom emoji, soundboard sounds and stickers. Each
//! kind is read only when the manifest declares it (`emojis:`, `soundboard:`, `stickers:`),
//! one listing GET, and one CDN read per object for its file's SHA-256, so a manifest
//! without them keeps the snapshot's seven reads.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::held::{Objects, by_id, objects};
use super::{Snapshot, optional};
use crate::discord::cdn::{digest, emoji_path, sound_path, sticker_path};
use crate::discord::models::{GuildEmoji, GuildSticker, SoundboardSound, SoundboardSounds};
use crate::discord::{Client, ClientError};
use crate::manifest::Manifest;

/// What was read of the guild's expressions; `None` where it was not asked for, or the bot
/// may not list it (403).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Expressions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emojis: Option<Vec<GuildEmoji>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sounds: Option<Vec<SoundboardSound>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stickers: Option<Vec<GuildSticker>>,
}

impl Expressions {
    pub fn is_empty(&self) -> bool {
        self.emojis.is_none() && self.sounds.is_none() && self.stickers.is_none()
    }
}

/// One list of expressions, read by its own GET: the lists in the order they are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// Custom emoji.
    Emojis,
    /// Soundboard sounds.
    Sounds,
    /// Stickers.
    Stickers,
}

by_id! {
    GuildEmoji => id, uploaded by user;
    SoundboardSound => sound_id, uploaded by user;
    GuildSticker => id, uploaded by user;
}

impl List {
    pub(super) const ALL: [List; 3] = [List::Emojis, List::Sounds, List::Stickers];

    /// Whether `m` declares its section (else it is not read).
    fn declared(self, m: &Manifest) -> bool {
        match self {
            List::Emojis => m.emojis.is_some(),
            List::Sounds => m.soundboard.is_some(),
            List::Stickers => m.stickers.is_some(),
        }
    }

    /// Its objects in `e`.
    pub(super) fn objects(self, e: &Expressions) -> Objects<'_> {
        match self {
            List::Emojis => objects(&e.emojis),
            List::Sounds => objects(&e.sounds),
            List::Stickers => objects(&e.stickers),
        }
    }

    /// What reading it is called in an error.
    pub(super) fn step(self) -> &'static str {
        match self {
            List::Emojis => "reading the guild's emojis",
            List::Sounds => "reading the guild's soundboard sounds",
            List::Stickers => "reading the guild's stickers",
        }
    }
}

/// A listing at `path` (`None`: the bot may not list it), each object's id checked to be
/// digits: anything else would be a path on the CDN.
async fn listed<L: DeserializeOwned, T>(
    client: &Client,
    path: String,
    items: fn(L) -> Vec<T>,
    id: fn(&T) -> &str,
) -> Result<Option<Vec<T>>, ClientError> {
    let list = optional(client.get::<L>(&path)).await?.map(items);
    for o in list.iter().flatten() {
        let id = id(o);
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ClientError::Decode {
                method: reqwest::Method::GET,
                path,
                detail: format!("\"{id}\" is not a Discord id"),
            });
        }
    }
    Ok(list)
}

impl Snapshot {
    /// Reads each list `m` declares (one GET each), then each object's file from the CDN
    /// into [`Snapshot::images`] under its path; a file the CDN would not give is left out
    /// (the plan then cannot tell it is the declared file, and says so).
    pub(super) async fn read_expressions(
        &mut self,
        client: &Client,
        m: &Manifest,
    ) -> Result<(), ClientError> {
        let mut paths = Vec::new();
        for list in List::ALL.into_iter().filter(|l| l.declared(m)) {
            self.read_list(client, list).await?;
            let e = &self.expressions;
            paths.extend(match list {
                List::Emojis => file_paths(&e.emojis),
                List::Sounds => file_paths(&e.sounds),
                List::Stickers => file_paths(&e.stickers),
            });
        }
        for at in paths {
            if let Ok(bytes) = client.cdn_file(&at).await {
                self.images.insert(at, digest(&bytes));
            }
        }
        Ok(())
    }

    /// Reads one list alone (one GET; `export` reads the files itself, to write them).
    pub(super) async fn read_list(
        &mut self,
        client: &Client,
        list: List,
    ) -> Result<(), ClientError> {
        let guild = &self.guild.id;
        let e = &mut self.expressions;
        match list {
            List::Emojis => {
                let path = format!("/guilds/{guild}/emojis");
                e.emojis = listed(client, path, |l: Vec<GuildEmoji>| l, |o| &o.id).await?;
            }
            List::Sounds => {
                let path = format!("/guilds/{guild}/soundboard-sounds");
                let items = |l: SoundboardSounds| l.items;
                e.sounds = listed(client, path, items, |o| &o.sound_id).await?;
            }
            List::Stickers => {
                let path = format!("/guilds/{guild}/stickers");
                e.stickers = listed(client, path, |l: Vec<GuildSticker>| l, |o| &o.id).await?;
            }
        }
        Ok(())
    }

    /// The SHA-256 of a live expression's file, when the CDN gave it.
    pub fn file_digest(&self, o: &impl Filed) -> Option<&str> {
        self.images.get(&o.cdn_path()).map(String::as_str)
    }
}

/// An expression's file on the CDN.
pub trait Filed {
    /// Its CDN path, under which [`Snapshot::images`] keeps its SHA-256.
    fn cdn_path(&self) -> String;
}

impl Filed for GuildEmoji {
    fn cdn_path(&self) -> String {
        emoji_path(&self.id, self.animated)
    }
}

impl Filed for SoundboardSound {
    fn cdn_path(&self) -> String {
        sound_path(&self.sound_id)
    }
}

impl Filed for GuildSticker {
    fn cdn_path(&self) -> String {
        sticker_path(&self.id, self.format_type)
    }
}

/// The CDN path of each live object's file in `list`.
pub fn file_paths<T: Filed>(list: &Option<Vec<T>>) -> Vec<String> {
    list.iter().flatten().map(Filed::cdn_path).collect()
}
