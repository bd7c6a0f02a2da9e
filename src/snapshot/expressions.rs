//! The guild's expressions as read live: custom emoji, soundboard sounds and stickers. Each
//! kind is read only when the manifest declares it (`emojis:`, `soundboard:`, `stickers:`),
//! one listing GET, and one CDN read per object for its file's SHA-256, so a manifest
//! without them keeps the snapshot's seven reads.

use serde::{Deserialize, Serialize};

use super::{Snapshot, optional};
use crate::discord::cdn::{digest, emoji_path, sound_path, sticker_path};
use crate::discord::models::{GuildEmoji, GuildSticker, SoundboardSound, SoundboardSounds};
use crate::discord::{Client, ClientError};

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

impl Snapshot {
    /// Reads the emoji list (one GET) when `emojis` is asked for, and each emoji's image
    /// from the CDN into [`Snapshot::images`] under [`emoji_path`]; an image the CDN would
    /// not give is left out (the plan then cannot tell it is the declared file, and says so).
    pub(super) async fn read_expressions(
        &mut self,
        client: &Client,
        emojis: bool,
        sounds: bool,
        stickers: bool,
    ) -> Result<(), ClientError> {
        let mut paths = Vec::new();
        if emojis {
            self.read_emoji_list(client).await?;
            paths.extend(self.emoji_paths());
        }
        if sounds {
            self.read_sound_list(client).await?;
            paths.extend(self.sound_paths());
        }
        if stickers {
            self.read_sticker_list(client).await?;
            paths.extend(self.sticker_paths());
        }
        for at in paths {
            if let Ok(bytes) = client.cdn_file(&at).await {
                self.images.insert(at, digest(&bytes));
            }
        }
        Ok(())
    }

    /// Reads the emoji list alone (one GET; `export` reads the images itself, to write them).
    pub async fn read_emoji_list(&mut self, client: &Client) -> Result<(), ClientError> {
        let path = format!("/guilds/{}/emojis", self.guild.id);
        let list = optional(client.get::<Vec<GuildEmoji>>(&path)).await?;
        for e in list.iter().flatten() {
            // An id is digits; anything else would be a path on the CDN.
            if e.id.is_empty() || !e.id.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ClientError::Decode {
                    method: reqwest::Method::GET,
                    path,
                    detail: format!("\"{}\" is not a Discord id", e.id),
                });
            }
        }
        self.expressions.emojis = list;
        Ok(())
    }

    /// Reads the soundboard sounds alone (one GET).
    pub async fn read_sound_list(&mut self, client: &Client) -> Result<(), ClientError> {
        let path = format!("/guilds/{}/soundboard-sounds", self.guild.id);
        let list = optional(client.get::<SoundboardSounds>(&path)).await?;
        for s in list.iter().flat_map(|l| &l.items) {
            if s.sound_id.is_empty() || !s.sound_id.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ClientError::Decode {
                    method: reqwest::Method::GET,
                    path,
                    detail: format!("\"{}\" is not a Discord id", s.sound_id),
                });
            }
        }
        self.expressions.sounds = list.map(|l| l.items);
        Ok(())
    }

    /// Reads the guild's stickers alone (one GET).
    pub async fn read_sticker_list(&mut self, client: &Client) -> Result<(), ClientError> {
        let path = format!("/guilds/{}/stickers", self.guild.id);
        let list = optional(client.get::<Vec<GuildSticker>>(&path)).await?;
        for s in list.iter().flatten() {
            // An id is digits; anything else would be a path on the CDN.
            if s.id.is_empty() || !s.id.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ClientError::Decode {
                    method: reqwest::Method::GET,
                    path,
                    detail: format!("\"{}\" is not a Discord id", s.id),
                });
            }
        }
        self.expressions.stickers = list;
        Ok(())
    }

    /// The CDN path of each live sticker's file ([`sticker_path`]).
    pub fn sticker_paths(&self) -> Vec<String> {
        self.expressions
            .stickers
            .iter()
            .flatten()
            .map(|s| sticker_path(&s.id, s.format_type))
            .collect()
    }

    /// The SHA-256 of a live sticker's file, when the CDN gave it.
    pub fn sticker_digest(&self, s: &GuildSticker) -> Option<&str> {
        self.images
            .get(&sticker_path(&s.id, s.format_type))
            .map(String::as_str)
    }

    /// The CDN path of each live sound ([`sound_path`]).
    pub fn sound_paths(&self) -> Vec<String> {
        self.expressions
            .sounds
            .iter()
            .flatten()
            .map(|s| sound_path(&s.sound_id))
            .collect()
    }

    /// The SHA-256 of a live sound's file, when the CDN gave it.
    pub fn sound_digest(&self, s: &SoundboardSound) -> Option<&str> {
        self.images
            .get(&sound_path(&s.sound_id))
            .map(String::as_str)
    }

    /// The CDN path of each live emoji's image ([`emoji_path`]).
    pub fn emoji_paths(&self) -> Vec<String> {
        self.expressions
            .emojis
            .iter()
            .flatten()
            .map(|e| emoji_path(&e.id, e.animated))
            .collect()
    }

    /// The SHA-256 of a live emoji's image, when the CDN gave it.
    pub fn emoji_digest(&self, e: &GuildEmoji) -> Option<&str> {
        self.images
            .get(&emoji_path(&e.id, e.animated))
            .map(String::as_str)
    }
}
