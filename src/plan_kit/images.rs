//! Images the manifest names (the guild's icon, banner and splashes, role icons): one rule
//! for all. Discord answers only with a hash, so the plan compares the SHA-256 of the
//! declared file with that of the live image as the CDN gives it (read with the snapshot):
//! an unchanged image is not sent again, a changed one is one field of one PATCH.

use std::path::Path;

use serde_json::{Value, json};

use crate::discord::cdn::LiveImage;
use crate::manifest::{Manifest, read_file_as, read_image};
use crate::plan::field::{self, Field};
use crate::plan::image::{ImageFile, ImageFiles};
use crate::plan_kit::context::{ChangeBuilder, Ctx};

/// Reads every image file `manifest` names, relative to `dir`: each with its kind's rules
/// ([`crate::manifest::expression_files`]; a file named both ways is read as an image
/// first, and `validate` holds it to both).
pub fn read_image_files(manifest: &Manifest, dir: &Path) -> ImageFiles {
    let mut out: ImageFiles = crate::manifest::image_fields(manifest)
        .into_iter()
        .map(|(_, rel)| {
            let file = read_image(dir, rel).map(|(mime, bytes)| ImageFile::of(mime, &bytes));
            (rel.to_owned(), file)
        })
        .collect();
    let files = crate::manifest::expression_files(manifest)
        .into_iter()
        .map(|((_, rel), rules)| (rel, rules));
    for (rel, rules) in files {
        out.entry(rel.to_owned()).or_insert_with(|| {
            read_file_as(dir, rel, rules).map(|(mime, bytes)| ImageFile::of(mime, &bytes))
        });
    }
    out
}

/// The image file `rel` as read for the plan; a problem at `source` when it was not.
pub(crate) fn declared_file(cx: &mut Ctx, source: &str, rel: &str) -> Option<ImageFile> {
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
pub(crate) struct Slot<'s> {
    pub field: Field,
    /// The manifest path of the field, for problems.
    pub source: String,
    pub declared: &'s Option<Option<String>>,
    pub live: Option<LiveImage<'s>>,
}

/// Adds the change of one image to `b`, refusing (at the field's line) an image the guild
/// lacks the feature for, as Discord would (50101).
pub(crate) fn image_change(
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
            b.changed(slot.field, live_shown, Value::Null);
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
pub(crate) fn guild_images(cx: &mut Ctx, s: &crate::manifest::Settings, b: &mut ChangeBuilder) {
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
