//! A declared image file as a plan holds it: its bytes' digest, size, type and
//! dimensions, and the manifest's image files read before planning.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::operation::image_ref;
use crate::discord::cdn::digest;

/// A declared image file as the plan sees it: what its bytes are (SHA-256, size, type by
/// its first bytes, width and height when its header says), and whether it is a GIF
/// (Discord takes a GIF for animated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageFile {
    /// The SHA-256 of its bytes, in hex.
    pub digest: String,
    /// Whether Discord takes it for animated (a GIF, an animated WebP).
    pub animated: bool,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its type by its first bytes, e.g. `image/png`.
    pub mime: &'static str,
    /// Width and height in pixels, when the header can be read.
    pub size: Option<(u64, u64)>,
}

impl ImageFile {
    /// The file of type `mime` with these bytes.
    pub fn of(mime: &'static str, bytes: &[u8]) -> ImageFile {
        let size = imagesize::blob_size(bytes)
            .ok()
            .map(|s| (s.width as u64, s.height as u64));
        ImageFile {
            digest: digest(bytes),
            animated: mime == "image/gif" || (mime == "image/webp" && webp_animated(bytes)),
            bytes: bytes.len() as u64,
            mime,
            size,
        }
    }

    /// The image as a change's `after`: the file named `rel` and what it holds, so the
    /// changes digest covers its bytes, not its name ([`ImageValue`]).
    pub fn value(&self, rel: &str) -> Value {
        json!(ImageValue {
            file: rel.to_owned(),
            sha256: self.digest.clone(),
            bytes: self.bytes,
            kind: self.mime.to_owned(),
            width: self.size.map(|s| s.0),
            height: self.size.map(|s| s.1),
        })
    }

    /// The placeholder apply fills with the file's data URI, refusing bytes that are not
    /// these ([`image_ref`]).
    pub fn upload(&self, rel: &str) -> Value {
        image_ref(rel, &self.digest)
    }
}

/// A declared image as a plan's change shows it (its `after`): a file replaced after review
/// changes the plan's changes digest, so `apply --plan` refuses it before any call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageValue {
    /// The file's path as the manifest writes it.
    pub file: String,
    /// The SHA-256 of its bytes, in hex.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its type, e.g. `image/png`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its width in pixels, when its header says.
    pub width: Option<u64>,
    /// Its height in pixels, when its header says.
    pub height: Option<u64>,
}

impl ImageValue {
    /// `v` as an image value, if it is one.
    pub fn of(v: &Value) -> Option<ImageValue> {
        v.get("sha256")?;
        serde_json::from_value(v.clone()).ok()
    }
}

/// A declared image as a reviewer checks it: the file, the start of its SHA-256 (what the
/// plan is bound to), its width and height, type and size:
/// `"images/icon.png" (sha256 9f86d081884c…, 512×512 image/png, 20480 bytes)`.
impl std::fmt::Display for ImageValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let prefix: String = self.sha256.chars().take(12).collect();
        write!(f, "{:?} (sha256 {prefix}…, ", self.file)?;
        if let (Some(w), Some(h)) = (self.width, self.height) {
            write!(f, "{w}×{h} ")?;
        }
        write!(f, "{}, {} bytes)", self.kind, self.bytes)
    }
}

/// Whether a WebP file is animated: its extended header (`VP8X`) sets the animation flag.
fn webp_animated(bytes: &[u8]) -> bool {
    bytes.len() > 20 && &bytes[12..16] == b"VP8X" && bytes[20] & 0x02 != 0
}

/// The manifest's image files by their path as written, read once before planning (with
/// `validate`'s checks, [`read_image`](crate::manifest::read_image)).
pub type ImageFiles = BTreeMap<String, Result<ImageFile, String>>;
