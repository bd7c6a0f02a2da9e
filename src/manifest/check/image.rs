//! Image files next to the manifest (the guild's icon, banner and splashes, role icons,
//! webhook avatars: [`image_fields`]): where they may be, what they may be.
//!
//! One implementation for `validate` (through [`super::check_loaded`]) and for apply (through
//! [`read_image`]), so a manifest that validates uploads exactly the file that was checked.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::expressions::expression_files;
use super::webhooks::webhook_list;
use super::{Ctx, Diagnostic};
use crate::discord::limits::IMAGE_MAX_BYTES;
use crate::manifest::source::{PathRefusal, Refused, Within, resolve};
use crate::manifest::types::Manifest;

/// A problem with an image reference: what is wrong, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ImageError {
    pub message: String,
    pub help: String,
}

fn err(message: String, help: &str) -> ImageError {
    ImageError {
        message,
        help: help.to_string(),
    }
}

const HELP_WHERE: &str = "write the path relative to the manifest's folder, with `/` between folders, \
     and keep the image inside that folder (for example `assets/avatar.png`)";

/// Checks an image path without the filesystem, and returns it with `.` and `..` resolved:
/// not empty, not absolute (nor a Windows drive or UNC path), `/` as the separator, and no
/// `..` that leaves the manifest's folder.
pub(super) fn normalise_rel(rel: &str) -> Result<PathBuf, ImageError> {
    if rel.trim().is_empty() {
        return Err(err(
            "the image path is empty".into(),
            "name an image file, or write `null` for no image",
        ));
    }
    let bytes = rel.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if rel.starts_with('/') || rel.starts_with('\\') || drive || Path::new(rel).is_absolute() {
        return Err(err(format!("image path \"{rel}\" is absolute"), HELP_WHERE));
    }
    if rel.contains('\\') {
        return Err(err(
            format!("image path \"{rel}\" uses `\\` between folders"),
            "write `/` between folders: the manifest then works on every system",
        ));
    }
    let mut out = PathBuf::new();
    for part in Path::new(rel).components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return Err(err(
                        format!("image path \"{rel}\" leaves the manifest's folder"),
                        HELP_WHERE,
                    ));
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => {
                return Err(err(format!("image path \"{rel}\" is absolute"), HELP_WHERE));
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(err(
            format!("image path \"{rel}\" names the manifest's folder, not a file"),
            "name an image file inside the folder",
        ));
    }
    Ok(out)
}

/// The image's MIME type by its first bytes, or a description of what it is instead.
fn sniff(head: &[u8]) -> Result<&'static str, &'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Ok("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Ok("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Ok("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Ok("image/webp")
    } else if head.starts_with(b"OggS") {
        Ok("audio/ogg")
    } else if head.starts_with(b"ID3")
        || (head.len() >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
    {
        Ok("audio/mpeg")
    } else if head.starts_with(b"BM") {
        Err("a BMP image")
    } else if head.starts_with(b"<svg") || head.starts_with(b"<?xml") {
        Err("an SVG or XML file")
    } else if head.is_empty() {
        Err("empty")
    } else {
        Err("not an image Discord takes")
    }
}

/// What one kind of file may be: its types (by their first bytes) and its size.
#[derive(Debug, Clone, Copy)]
pub struct FileRules {
    /// What the file is to a person: "image", "sound".
    pub what: &'static str,
    /// The longest a sound may play, in seconds (its length is read from its bytes).
    pub max_seconds: Option<f64>,
    /// The most pixels an image may have each way (read from its header).
    pub max_side: Option<u64>,
    /// The MIME types taken.
    pub types: &'static [&'static str],
    /// The types as a person reads them: "PNG, JPEG or GIF".
    pub types_shown: &'static str,
    pub max_bytes: u64,
    /// The limit as a person reads it: "8 MiB".
    pub max_shown: &'static str,
    /// How to make the file smaller.
    pub smaller: &'static str,
}

/// The guild's images, role icons, webhook avatars.
pub const IMAGE_RULES: FileRules = FileRules {
    what: "image",
    max_seconds: None,
    max_side: None,
    types: &["image/png", "image/jpeg", "image/gif"],
    types_shown: "PNG, JPEG or GIF",
    max_bytes: IMAGE_MAX_BYTES,
    max_shown: "8 MiB",
    smaller: "make the image smaller (an avatar is shown at 128x128 pixels at most)",
};

/// Any file guildctl uploads, for apply: the kind's own rules were checked when the plan was
/// made, and apply sends only the bytes the plan is bound to (their SHA-256).
pub const UPLOAD_RULES: FileRules = FileRules {
    what: "file",
    max_seconds: None,
    max_side: None,
    types: &[
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "audio/ogg",
        "audio/mpeg",
        LOTTIE,
    ],
    types_shown: "PNG, JPEG, GIF, WebP, MP3, Ogg or Lottie JSON",
    max_bytes: IMAGE_MAX_BYTES,
    max_shown: "8 MiB",
    smaller: "make the file smaller",
};

/// A Lottie animation's type: JSON, told by its content.
pub const LOTTIE: &str = "application/json";

/// Whether `bytes` are a Lottie animation: a JSON object with a list of `layers` (what
/// every Lottie file has; Discord renders the rest).
fn is_lottie(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .is_some_and(|v| v.get("layers").is_some_and(serde_json::Value::is_array))
}

/// [`read_image`] with a help text for each problem.
pub(super) fn load_image(
    manifest_dir: &Path,
    rel: &str,
) -> Result<(&'static str, Vec<u8>), ImageError> {
    load_file(manifest_dir, rel, &IMAGE_RULES)
}

/// Reads the file `rel` of `manifest_dir` as `rules` take it, through the one path resolver.
pub(super) fn load_file(
    manifest_dir: &Path,
    rel: &str,
    rules: &FileRules,
) -> Result<(&'static str, Vec<u8>), ImageError> {
    let max = rules.max_bytes;
    let norm = normalise_rel(rel)?;
    let full = manifest_dir.join(&norm);
    let shown = format!("{} \"{rel}\"", rules.what);
    let resolved = match resolve(&full, &shown, &Within::manifest_folder(manifest_dir)) {
        Ok(r) => r,
        Err(PathRefusal {
            why: Refused::Missing { link: None },
            ..
        }) => {
            return Err(err(
                format!("{shown} does not exist (looked for {})", full.display()),
                "create the file, or correct the path (it is relative to the manifest's folder)",
            ));
        }
        Err(refused) => {
            let help = if refused.is_outside() {
                refused.help_outside()
            } else {
                format!(
                    "name an image file inside the manifest's folder ({})",
                    rules.types_shown
                )
            };
            return Err(err(refused.to_string(), &help));
        }
    };
    if resolved.is_dir {
        return Err(err(
            format!("{shown} is not a file"),
            &format!("name an image file ({})", rules.types_shown),
        ));
    }
    let meta = std::fs::metadata(&resolved.real).map_err(|e| {
        err(
            format!("cannot read {shown}: {e}"),
            "check the file's permissions",
        )
    })?;
    let too_big = |n: u64| {
        err(
            format!(
                "{shown} is {n} bytes; Discord takes at most {} ({max} bytes)",
                rules.max_shown
            ),
            rules.smaller,
        )
    };
    if meta.len() > max {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&resolved.real)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(|e| {
            err(
                format!("cannot read {shown}: {e}"),
                "check the file's permissions",
            )
        })?;
    if bytes.len() as u64 > max {
        return Err(too_big(bytes.len() as u64));
    }
    if let Some(max_seconds) = rules.max_seconds {
        return match super::audio::audio(&bytes) {
            Some((mime, s)) if s <= max_seconds => Ok((mime, bytes)),
            Some((_, s)) => Err(err(
                format!(
                    "{shown} plays {s:.2} seconds; Discord takes at most {max_seconds} seconds"
                ),
                "cut the sound shorter",
            )),
            None => Err(err(
                format!(
                    "{shown} is not a readable {} file (by its bytes; MP3 frames or Ogg Vorbis or Opus pages)",
                    rules.types_shown
                ),
                &format!(
                    "convert it to {}; the file's extension does not matter, its content does",
                    rules.types_shown
                ),
            )),
        };
    }
    if rules.types.contains(&LOTTIE) && is_lottie(&bytes) {
        return Ok((LOTTIE, bytes));
    }
    let what = match sniff(&bytes) {
        Ok(mime) if rules.types.contains(&mime) => return side_checked(rules, &shown, mime, bytes),
        Ok("image/webp") => "a WebP image",
        Ok(_) => "a file of another type",
        Err(what) => what,
    };
    Err(err(
        format!(
            "{shown} is not a {} file (by its first bytes it is {what})",
            rules.types_shown
        ),
        &format!(
            "convert it to {}; the file's extension does not matter, its content does",
            rules.types_shown
        ),
    ))
}

/// An image within `rules.max_side` pixels each way (by its header), or why not.
fn side_checked(
    rules: &FileRules,
    shown: &str,
    mime: &'static str,
    bytes: Vec<u8>,
) -> Result<(&'static str, Vec<u8>), ImageError> {
    let Some(max) = rules.max_side else {
        return Ok((mime, bytes));
    };
    match imagesize::blob_size(&bytes) {
        Ok(s) if s.width as u64 <= max && s.height as u64 <= max => Ok((mime, bytes)),
        Ok(s) => Err(err(
            format!(
                "{shown} is {}x{} pixels; Discord takes at most {max}x{max}",
                s.width, s.height
            ),
            &format!("scale it to {max}x{max} pixels"),
        )),
        Err(_) => Err(err(
            format!("{shown} has no readable width and height in its header"),
            &format!("save it again as {}", rules.types_shown),
        )),
    }
}

/// Reads an image for upload (a webhook avatar), making the checks `validate` makes: `rel` is
/// relative to `manifest_dir` and must stay inside it (no absolute path, no `..` leaving it,
/// no symbolic link leading out of it), the file must exist, be a PNG, JPEG or GIF by its
/// first bytes, and be at most 8 MiB. Returns the MIME type (`image/png`, `image/jpeg`,
/// `image/gif`) and the bytes; the error is the message a diagnostic would show.
///
/// For a [`super::LoadedManifest`], `manifest_dir` is [`super::LoadedManifest::dir`].
pub fn read_image(manifest_dir: &Path, rel: &str) -> Result<(&'static str, Vec<u8>), String> {
    load_image(manifest_dir, rel).map_err(|e| e.message)
}

/// [`read_image`] with the rules of one kind of file ([`EMOJI_RULES`](super::EMOJI_RULES), [`UPLOAD_RULES`]).
pub fn read_file_as(
    manifest_dir: &Path,
    rel: &str,
    rules: &FileRules,
) -> Result<(&'static str, Vec<u8>), String> {
    load_file(manifest_dir, rel, rules).map_err(|e| e.message)
}

/// Every image file the manifest names, with the node path of its field: webhook avatars,
/// the guild's icon, banner and splashes, role icons. One list, so every image gets the same
/// checks here and at apply.
pub fn image_fields(m: &Manifest) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    if let Some(s) = &m.settings {
        for (field, v) in [
            ("icon", &s.icon),
            ("banner", &s.banner),
            ("splash", &s.splash),
            ("discovery_splash", &s.discovery_splash),
        ] {
            if let Some(Some(rel)) = v {
                out.push((format!("settings.{field}"), rel.as_str()));
            }
        }
    }
    for (i, r) in m.roles.iter().flatten().enumerate() {
        if let Some(Some(rel)) = &r.icon {
            out.push((format!("roles[{i}].icon"), rel.as_str()));
        }
    }
    for (path, w) in webhook_list(m) {
        if let Some(Some(rel)) = &w.avatar {
            out.push((format!("{path}.avatar"), rel.as_str()));
        }
    }
    for (i, e) in m.events.iter().flatten().enumerate() {
        if let Some(rel) = &e.image {
            out.push((format!("events[{i}].image"), rel.as_str()));
        }
    }
    out
}

pub(super) fn webhook_avatar_paths(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let files = expression_files(ctx.manifest).into_iter().map(|(f, _)| f);
    for (path, rel) in image_fields(ctx.manifest).into_iter().chain(files) {
        if let Err(e) = normalise_rel(rel) {
            out.push(Diagnostic::error(path, e.message).with_help(e.help));
        }
    }
}

/// The file half of the image checks (see [`super::check_loaded`]): paths the pure rule
/// accepted must name a readable image inside `dir`.
pub(super) fn webhook_avatar_files(m: &Manifest, dir: &Path, out: &mut Vec<Diagnostic>) {
    for (path, rel) in image_fields(m) {
        if normalise_rel(rel).is_ok()
            && let Err(e) = load_image(dir, rel)
        {
            out.push(Diagnostic::error(path, e.message).with_help(e.help));
        }
    }
    for ((path, rel), rules) in expression_files(m) {
        if normalise_rel(rel).is_ok()
            && let Err(e) = load_file(dir, rel, rules)
        {
            out.push(Diagnostic::error(path, e.message).with_help(e.help));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_rules() {
        assert_eq!(
            normalise_rel("./assets/../assets/ci.png").unwrap(),
            PathBuf::from("assets/ci.png")
        );
        for bad in [
            "",
            "/etc/passwd",
            "C:/x.png",
            "\\\\server\\x.png",
            "../x.png",
            "a/../../x.png",
            "a\\b.png",
            ".",
            "a/..",
        ] {
            assert!(normalise_rel(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Ok("image/png"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Ok("image/jpeg"));
        assert_eq!(sniff(b"GIF89a..."), Ok("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Ok("image/webp"));
        assert!(sniff(b"hello").is_err());
    }
}
