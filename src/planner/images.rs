//! Images the manifest names (the guild's icon, banner and splashes, role icons): one rule
//! for all. Discord answers only with a hash, so the plan compares the SHA-256 of the
//! declared file with that of the live image as the CDN gives it (read with the snapshot):
//! an unchanged image is not sent again, a changed one is one field of one PATCH.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::context::{ChangeBuilder, Ctx};
use super::field::{self, Field};
use super::image_ref;
use crate::discord::cdn::{LiveImage, digest};
use crate::manifest::{
    EMOJI_RULES, Manifest, SOUND_RULES, STICKER_RULES, read_file_as, read_image,
};

/// A declared image file as the plan sees it: what its bytes are (SHA-256, size, type by
/// its first bytes, width and height when its header says), and whether it is a GIF
/// (Discord takes a GIF for animated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageFile {
    pub digest: String,
    pub animated: bool,
    pub bytes: u64,
    pub mime: &'static str,
    /// Width and height in pixels, when the header can be read.
    pub size: Option<(u64, u64)>,
}

impl ImageFile {
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
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub width: Option<u64>,
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
/// `validate`'s checks, [`read_image`]).
pub type ImageFiles = BTreeMap<String, Result<ImageFile, String>>;

/// Reads every image file `manifest` names, relative to `dir`: each with its kind's rules
/// (an emoji's image with [`EMOJI_RULES`]; a file named both ways is read as an image first,
/// and `validate` holds it to both).
pub fn read_image_files(manifest: &Manifest, dir: &Path) -> ImageFiles {
    let mut out: ImageFiles = crate::manifest::image_fields(manifest)
        .into_iter()
        .map(|(_, rel)| {
            let file = read_image(dir, rel).map(|(mime, bytes)| ImageFile::of(mime, &bytes));
            (rel.to_owned(), file)
        })
        .collect();
    let files = crate::manifest::emoji_image_fields(manifest)
        .into_iter()
        .map(|(_, rel)| (rel, &EMOJI_RULES))
        .chain(
            crate::manifest::sound_fields(manifest)
                .into_iter()
                .map(|(_, rel)| (rel, &SOUND_RULES)),
        )
        .chain(
            crate::manifest::sticker_fields(manifest)
                .into_iter()
                .map(|(_, rel)| (rel, &STICKER_RULES)),
        );
    for (rel, rules) in files {
        out.entry(rel.to_owned()).or_insert_with(|| {
            read_file_as(dir, rel, rules).map(|(mime, bytes)| ImageFile::of(mime, &bytes))
        });
    }
    out
}

/// The image file `rel` as read for the plan; a problem at `source` when it was not.
pub(super) fn declared_file(cx: &mut Ctx, source: &str, rel: &str) -> Option<ImageFile> {
    match cx.options.images.get(rel) {
        Some(Ok(f)) => Some(f.clone()),
        Some(Err(e)) => {
            let e = e.clone();
            cx.problem(
                Some(source.to_owned()),
                e,
                Some("run `guildctl validate` for the image checks"),
            );
            None
        }
        None => {
            cx.problem(
                Some(source.to_owned()),
                format!(
                    "image \"{rel}\" was not read: this plan was made without the manifest's folder"
                ),
                None,
            );
            None
        }
    }
}

/// One image field (its API field is where the request body carries it).
pub(super) struct Slot<'s> {
    pub field: Field,
    /// The manifest path of the field, for problems.
    pub source: String,
    pub declared: &'s Option<Option<String>>,
    pub live: Option<LiveImage<'s>>,
}

/// Adds the change of one image to `b`, refusing (at the field's line) an image the guild
/// lacks the feature for, as Discord would (50101).
pub(super) fn image_change(
    cx: &mut Ctx,
    b: &mut ChangeBuilder,
    slot: Slot<'_>,
    // The feature the image needs, by whether it is animated.
    needs: impl Fn(bool) -> Option<&'static str>,
    features: &[String],
) {
    let live_shown = slot
        .live
        .as_ref()
        .map(|l| json!(format!("(image {})", l.hash)))
        .unwrap_or(Value::Null);
    match slot.declared {
        Some(None) if slot.live.is_some() => {
            b.set(slot.field, live_shown, Value::Null, Value::Null);
        }
        None | Some(None) => {}
        Some(Some(rel)) => {
            let Some(file) = declared_file(cx, &slot.source, rel) else {
                return;
            };
            let same = slot
                .live
                .as_ref()
                .and_then(|l| cx.snap.image_digest(l))
                .is_some_and(|d| d == file.digest);
            if same {
                return;
            }
            if let Some(feature) = needs(file.animated)
                && !features.iter().any(|f| f == feature)
            {
                let what = if file.animated {
                    "an animated (GIF) "
                } else {
                    "a "
                };
                cx.problem(
                    Some(slot.source),
                    format!(
                        "{what}`{}` needs the guild feature {feature}, which this guild does not have (Discord refuses it: 50101)",
                        slot.field.name()
                    ),
                    Some("remove the field, use a PNG or JPEG where the feature is for animation, or boost the guild to the level that gives the feature"),
                );
                return;
            }
            b.set(slot.field, live_shown, file.value(rel), file.upload(rel));
        }
    }
}

fn live_of<'a>(kind: &'static str, id: &'a str, hash: &'a Option<String>) -> Option<LiveImage<'a>> {
    hash.as_deref().map(|hash| LiveImage { kind, id, hash })
}

/// The guild's four images, into the settings PATCH. Modify Guild's table says which feature
/// each needs; an animated banner needs BANNER and ANIMATED_BANNER, so BANNER is named first.
pub(super) fn guild_images(cx: &mut Ctx, s: &crate::manifest::Settings, b: &mut ChangeBuilder) {
    let snap = cx.snap;
    let g = &snap.guild;
    let id = g.id.as_str();
    let has_banner = g.has_feature("BANNER");
    let slots = [
        (field::Guild::Icon, &s.icon, live_of("icons", id, &g.icon)),
        (
            field::Guild::Banner,
            &s.banner,
            live_of("banners", id, &g.banner),
        ),
        (
            field::Guild::Splash,
            &s.splash,
            live_of("splashes", id, &g.splash),
        ),
        (
            field::Guild::DiscoverySplash,
            &s.discovery_splash,
            live_of("discovery-splashes", id, &g.discovery_splash),
        ),
    ];
    for (field, declared, live) in slots {
        let needs = move |animated: bool| match field {
            field::Guild::Icon => animated.then_some("ANIMATED_ICON"),
            field::Guild::Banner if !has_banner => Some("BANNER"),
            field::Guild::Banner => animated.then_some("ANIMATED_BANNER"),
            field::Guild::Splash => Some("INVITE_SPLASH"),
            _ => Some("DISCOVERABLE"),
        };
        let slot = Slot {
            field: field.into(),
            source: format!("settings.{}", field.name()),
            declared,
            live,
        };
        image_change(cx, b, slot, needs, &g.features);
    }
}
