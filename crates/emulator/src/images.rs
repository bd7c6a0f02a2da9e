//! Uploaded images: the guild's icon, banner, splash and discovery splash, role icons and
//! scheduled events' covers (docs/discord.md §3.1, §5.1, §10.3). Discord keeps a hash
//! in the object and serves the image from its CDN at `{kind}/{id}/{hash}.{ext}`; the
//! emulator keeps the data URI under its hash in the guild and serves it at
//! `/cdn/{kind}/{id}/{hash}.{ext}` (no token, as the CDN), so a client can read back what it
//! uploaded. Emoji, stickers and soundboard sounds are named by their own ids on the CDN
//! (`emojis/{id}.{ext}`, `stickers/{id}.{ext}`, `soundboard-sounds/{id}`); the emulator
//! serves the exact bytes of each at `/cdn/…` too ([`get_asset`]).

use axum::body::Body;
use axum::extract::{Path, State as AxState};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::app::{App, lock};
use crate::error::ApiError;
use crate::form::image_hash;
use crate::media::{self, STICKER_GIF, STICKER_LOTTIE, decode_base64};
use crate::state::Guild;

/// The image formats a data URI names, and whether the image may be animated.
fn format_of(data_uri: &str) -> Option<&str> {
    let head = data_uri.split_once(',')?.0;
    head.strip_prefix("data:image/")?.strip_suffix(";base64")
}

/// Whether an uploaded image is animated. Discord prefixes the hash of an animated image with
/// `a_`; the emulator takes every GIF for animated (it does not count frames).
pub(crate) fn is_animated(data_uri: &str) -> bool {
    format_of(data_uri) == Some("gif")
}

/// Keeps `data_uri` (already checked by [`crate::form::Reader::image`]) in the guild and
/// returns the hash the object stores: `a_` first for an animated image, as Discord's.
pub(crate) fn store(g: &mut Guild, data_uri: &str) -> String {
    let hash = image_hash(data_uri);
    let hash = if is_animated(data_uri) {
        format!("a_{hash}")
    } else {
        hash
    };
    g.images.insert(hash.clone(), data_uri.to_owned());
    hash
}

/// Refuses an image the guild lacks the feature for: Discord answers 50101 ("needs more
/// boosts", §2) for role icons and banners; the same for the splashes and animated images.
pub(crate) fn require_feature(g: &Guild, feature: &str) -> Result<(), ApiError> {
    if g.has_feature(feature) {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            50101,
            "This server needs more boosts to perform this action",
        ))
    }
}

/// `GET /cdn/{kind}/{id}/{file}`: the image whose hash `file` names (its extension is
/// ignored: the emulator serves the upload as it was, where Discord would convert), if the
/// object `id` of kind `kind` holds it now.
pub async fn get_image(
    AxState(app): AxState<App>,
    Path((kind, id, file)): Path<(String, String, String)>,
) -> Response {
    let hash = file.split_once('.').map_or(file.as_str(), |(h, _)| h);
    let st = lock(&app.state);
    let found = st.guilds.iter().find_map(|g| {
        let holds = match kind.as_str() {
            "icons" => g.id == id && g.icon.as_deref() == Some(hash),
            "banners" => g.id == id && g.banner.as_deref() == Some(hash),
            "splashes" => g.id == id && g.splash.as_deref() == Some(hash),
            "discovery-splashes" => g.id == id && g.discovery_splash.as_deref() == Some(hash),
            "role-icons" => g
                .roles
                .iter()
                .any(|r| r.id == id && r.icon.as_deref() == Some(hash)),
            "guild-events" => g
                .scheduled_events
                .iter()
                .any(|e| e.id == id && e.image.as_deref() == Some(hash)),
            _ => false,
        };
        holds.then(|| g.images.get(hash)).flatten()
    });
    let Some(uri) = found else {
        return (StatusCode::NOT_FOUND, "404: Not Found").into_response();
    };
    let mime = format!("image/{}", format_of(uri).unwrap_or("png"));
    match uri.split_once(',').and_then(|(_, d)| decode_base64(d)) {
        Some(bytes) => ([(header::CONTENT_TYPE, mime)], Body::from(bytes)).into_response(),
        None => (StatusCode::NOT_FOUND, "404: Not Found").into_response(),
    }
}

/// `GET /cdn/{kind}/{file}`: the exact bytes of an emoji (`emojis/{id}.{ext}`), a sticker
/// (`stickers/{id}.{ext}`) or a soundboard sound (`soundboard-sounds/{id}`), typed by what
/// they are; the extension is ignored (Discord would convert). 404 for an unknown id, or an
/// object the state holds without its file (a copy made from a snapshot).
pub async fn get_asset(
    AxState(app): AxState<App>,
    Path((kind, file)): Path<(String, String)>,
) -> Response {
    let id = file.split_once('.').map_or(file.as_str(), |(id, _)| id);
    let st = lock(&app.state);
    let found = st.guilds.iter().find_map(|g| match kind.as_str() {
        "emojis" => {
            let d = media::data_uri(g.emojis.iter().find(|e| e.id == id)?.image.as_deref()?)?;
            let mime = media::image_format(&d.bytes).map_or(d.mime, |f| f.mime().to_owned());
            Some((mime, d.bytes))
        }
        "stickers" => {
            let s = g.stickers.iter().find(|s| s.id == id)?;
            let bytes = decode_base64(s.file.as_deref()?)?;
            let mime = match s.format_type {
                STICKER_LOTTIE => "application/json",
                STICKER_GIF => "image/gif",
                _ => "image/png",
            };
            Some((mime.to_owned(), bytes))
        }
        "soundboard-sounds" => {
            let s = g.soundboard_sounds.iter().find(|s| s.sound_id == id)?;
            let d = media::data_uri(s.sound.as_deref()?)?;
            let mime = media::audio(&d.bytes).map_or(d.mime, |(f, _)| f.mime().to_owned());
            Some((mime, d.bytes))
        }
        _ => None,
    });
    match found {
        Some((mime, bytes)) => ([(header::CONTENT_TYPE, mime)], Body::from(bytes)).into_response(),
        None => (StatusCode::NOT_FOUND, "404: Not Found").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn animated_hashes_start_with_a_() {
        let mut g: Guild = serde_json::from_value(serde_json::json!({
            "id": "1", "name": "g", "owner_id": "2"
        }))
        .unwrap();
        let h = store(&mut g, "data:image/gif;base64,R0lGODlh");
        assert!(h.starts_with("a_"));
        let h = store(&mut g, "data:image/png;base64,iVBORw0K");
        assert!(!h.starts_with("a_"));
        assert_eq!(g.images.len(), 2);
    }
}
