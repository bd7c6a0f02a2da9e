//! Images: the API answers with a hash; the image itself is read from Discord's CDN at
//! `{kind}/{id}/{hash}.{ext}` (no token). guildctl reads live images to tell whether a
//! declared file is already the live image (by the SHA-256 of both) and to export them.

use reqwest::Method;

use super::limits::IMAGE_MAX_BYTES;
use super::models::{STICKER_GIF, STICKER_LOTTIE};
use super::{Client, ClientError};

/// Discord's CDN, for the default API base.
const DISCORD_CDN: &str = "https://cdn.discordapp.com";

/// Where the CDN is for an API base: Discord's for Discord's API (`https://discord.com/api…`),
/// otherwise `/cdn` at the API base's origin (the emulator serves it there).
pub fn cdn_base(api_base: &str) -> String {
    let origin_end = api_base
        .find("://")
        .map(|s| s + 3)
        .and_then(|s| api_base[s..].find('/').map(|e| s + e))
        .unwrap_or(api_base.len());
    let origin = &api_base[..origin_end];
    match origin {
        "https://discord.com"
        | "https://discordapp.com"
        | "https://canary.discord.com"
        | "https://ptb.discord.com" => DISCORD_CDN.to_owned(),
        _ => format!("{origin}/cdn"),
    }
}

/// One image of the live guild: the CDN folder (`icons`, `banners`, `splashes`,
/// `discovery-splashes`, `role-icons`), the id of the guild or role, and its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveImage<'a> {
    /// The CDN folder.
    pub kind: &'static str,
    /// The guild's or role's id.
    pub id: &'a str,
    /// The image hash (`a_` first for an animated one).
    pub hash: &'a str,
}

impl LiveImage<'_> {
    /// Whether Discord marks it animated (`a_` before the hash).
    pub fn animated(&self) -> bool {
        self.hash.starts_with("a_")
    }

    /// Its path on the CDN: GIF for an animated image, PNG otherwise (Discord converts on
    /// request; a hash holds no file type).
    pub fn path(&self) -> String {
        let ext = if self.animated() { "gif" } else { "png" };
        format!("{}/{}/{}.{ext}", self.kind, self.id, self.hash)
    }
}

/// A custom emoji's path on the CDN: emoji are named by their id alone, GIF when animated.
pub fn emoji_path(id: &str, animated: bool) -> String {
    let ext = if animated { "gif" } else { "png" };
    format!("emojis/{id}.{ext}")
}

/// A soundboard sound's path on the CDN: named by its id alone.
pub fn sound_path(id: &str) -> String {
    format!("soundboard-sounds/{id}")
}

/// A guild sticker's path on the CDN: named by its id, its extension by its format (PNG
/// and APNG `png`, Lottie `json`, GIF `gif`).
pub fn sticker_path(id: &str, format_type: u8) -> String {
    let ext = match format_type {
        STICKER_LOTTIE => "json",
        STICKER_GIF => "gif",
        _ => "png",
    };
    format!("stickers/{id}.{ext}")
}

/// The hex SHA-256 of an image's bytes: what a declared file and a live image are compared by.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Client {
    /// Reads a live image from the CDN (no token is sent there), at most
    /// [`IMAGE_MAX_BYTES`]: a larger `Content-Length` is refused before the body is read,
    /// and the body is counted as it streams in and dropped, unread, past the cap. A
    /// redirect is refused, never followed ([`ClientError::Redirected`]).
    pub async fn cdn_image(&self, image: &LiveImage<'_>) -> Result<Vec<u8>, ClientError> {
        self.cdn_file(&image.path()).await
    }

    /// Reads the file at `path` on the CDN ([`Client::cdn_image`]'s limits): an image, an
    /// emoji ([`emoji_path`]).
    pub async fn cdn_file(&self, path: &str) -> Result<Vec<u8>, ClientError> {
        let url = format!("{}/{path}", cdn_base(self.api_base()));
        let shown = format!("(CDN) /{path}");
        let fail = |detail: String| ClientError::Transport {
            method: Method::GET,
            path: shown.clone(),
            detail,
        };
        let mut resp = self
            .http()
            .get(&url)
            .send()
            .await
            .map_err(|e| fail(e.without_url().to_string()))?;
        if resp.status().is_redirection() {
            return Err(crate::error::redirected(&Method::GET, &shown, &resp));
        }
        if !resp.status().is_success() {
            return Err(fail(format!("the CDN answered {}", resp.status())));
        }
        let too_large = |size: String| {
            fail(format!(
                "{size}; an image is at most {IMAGE_MAX_BYTES} bytes (8 MiB), so the rest was not read"
            ))
        };
        let announced = resp.content_length();
        if let Some(n) = announced
            && n > IMAGE_MAX_BYTES
        {
            return Err(too_large(format!(
                "the CDN announced {n} bytes (Content-Length)"
            )));
        }
        // An announced length is only a promise: the bytes are counted either way. The
        // chunks are kept as they came and joined once whole, so nothing past the cap is
        // held, not even a buffer grown ahead of it.
        let (mut chunks, mut total) = (Vec::new(), 0u64);
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| fail(e.without_url().to_string()))?
        {
            total += chunk.len() as u64;
            if total > IMAGE_MAX_BYTES {
                return Err(too_large(format!(
                    "more than {IMAGE_MAX_BYTES} bytes arrived"
                )));
            }
            chunks.push(chunk);
        }
        Ok(chunks.concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cdn_is_discords_for_discords_api_and_the_emulators_otherwise() {
        assert_eq!(cdn_base("https://discord.com/api/v10"), DISCORD_CDN);
        assert_eq!(
            cdn_base("http://127.0.0.1:4000/api/v10"),
            "http://127.0.0.1:4000/cdn"
        );
        let gif = LiveImage {
            kind: "icons",
            id: "1",
            hash: "a_ff",
        };
        assert_eq!(gif.path(), "icons/1/a_ff.gif");
    }
}
