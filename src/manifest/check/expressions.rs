//! Rules for custom emoji, soundboard sounds and stickers (Discord's docs, resources/emoji,
//! resources/soundboard and resources/sticker; docs/discord.md §10.2): names Discord accepts, each used once,
//! the roles emoji are for, sounds' volume and emoji; and their files, each with its kind's
//! rules (`expression_files`), which `image` and `audio` check with the others.

use super::*;

/// A custom emoji's image (Create Guild Emoji).
pub const EMOJI_RULES: FileRules = FileRules {
    what: "image",
    max_seconds: None,
    max_side: None,
    types: &["image/png", "image/jpeg", "image/gif", "image/webp"],
    types_shown: "PNG, JPEG, GIF or WebP",
    max_bytes: crate::discord::limits::EMOJI_IMAGE_MAX_BYTES,
    max_shown: "256 KiB",
    smaller: "make the image smaller (an emoji is shown at 128x128 pixels at most)",
};

/// A soundboard sound (Create Guild Soundboard Sound).
pub const SOUND_RULES: FileRules = FileRules {
    what: "sound",
    max_seconds: Some(crate::discord::limits::SOUND_MAX_SECONDS),
    max_side: None,
    types: &["audio/mpeg", "audio/ogg"],
    types_shown: "MP3 or Ogg",
    max_bytes: crate::discord::limits::SOUND_MAX_BYTES,
    max_shown: "512 KiB",
    smaller: "make the sound smaller (a lower bitrate, or shorter)",
};

/// A sticker's file (Create Guild Sticker): an APNG is a PNG by its first bytes.
pub const STICKER_RULES: FileRules = FileRules {
    what: "sticker",
    max_seconds: None,
    max_side: Some(crate::discord::limits::STICKER_MAX_SIDE),
    types: &["image/png", "image/gif", LOTTIE],
    types_shown: "PNG, APNG, GIF or Lottie JSON",
    max_bytes: crate::discord::limits::STICKER_MAX_BYTES,
    max_shown: "512 KiB",
    smaller: "make the sticker smaller (fewer frames or colours; Discord shows it at 320x320 pixels at most)",
};

/// Every emoji image, sound and sticker file the manifest names, with the node path of its
/// field and the rules its file is held to: the one list `validate` and the plan read.
pub fn expression_files(m: &Manifest) -> Vec<((String, &str), &'static FileRules)> {
    let emojis = emoji_image_fields(m).into_iter().map(|f| (f, &EMOJI_RULES));
    let sounds = sound_fields(m).into_iter().map(|f| (f, &SOUND_RULES));
    let stickers = sticker_fields(m).into_iter().map(|f| (f, &STICKER_RULES));
    emojis.chain(sounds).chain(stickers).collect()
}

/// Every sound file the manifest names, with the node path of its field.
pub fn sound_fields(m: &Manifest) -> Vec<(String, &str)> {
    m.soundboard
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, s)| (format!("soundboard[{i}].sound"), s.sound.as_str()))
        .collect()
}

/// Every sticker file the manifest names, with the node path of its field.
pub fn sticker_fields(m: &Manifest) -> Vec<(String, &str)> {
    m.stickers
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, s)| (format!("stickers[{i}].image"), s.image.as_str()))
        .collect()
}

/// Every emoji image the manifest names, with the node path of its field.
pub fn emoji_image_fields(m: &Manifest) -> Vec<(String, &str)> {
    m.emojis
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, e)| (format!("emojis[{i}].image"), e.image.as_str()))
        .collect()
}

/// Each emoji name (and each previous name): 2-32 ASCII letters, digits and underscores.
pub(super) fn emoji_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let emojis = ctx.manifest.emojis.as_deref().unwrap_or_default();
    for (i, e) in emojis.iter().enumerate() {
        let path = format!("emojis[{i}]");
        for (at, name) in name_and_previous(&path, &e.name, &e.previous_names) {
            emoji_name_error(out, at, name);
        }
    }
}

/// An entry's name and its previous names, each with its path: one rule holds for all.
fn name_and_previous<'a>(
    path: &str,
    name: &'a String,
    previous: &'a [String],
) -> impl Iterator<Item = (String, &'a String)> {
    let previous = previous
        .iter()
        .enumerate()
        .map(move |(k, p)| (format!("{path}.previous_names[{k}]"), p));
    std::iter::once((format!("{path}.name"), name)).chain(previous)
}

/// The one rule for an emoji's name, or why `name` breaks it.
fn emoji_name_problem(name: &str) -> Option<String> {
    let (min, max) = EMOJI_NAME_LEN;
    let n = len(name);
    if n < min || n > max {
        return Some(format!(
            "emoji name \"{name}\" is {n} characters; Discord takes {min}-{max}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Some(format!(
            "emoji name \"{name}\" contains {c:?}; Discord takes only letters a-z and A-Z, digits and `_`"
        ));
    }
    None
}

fn emoji_name_error(out: &mut Vec<Diagnostic>, path: String, name: &str) {
    if let Some(message) = emoji_name_problem(name) {
        out.push(Diagnostic::error(path, message).with_help(
            "write the name with letters, digits and `_` only, 2-32 of them (`ferris_wave`)",
        ));
    }
}

/// Emoji, stickers and sounds are matched by name, and none is pinned to an `id`: two
/// entries of one name in `section` would be one object.
fn unique_names<T>(
    list: &Option<Vec<T>>,
    name: impl Fn(&T) -> &String,
    (section, what): (&str, &str),
    out: &mut Vec<Diagnostic>,
) {
    let names = list.iter().flatten().map(|e| (name(e).as_str(), false));
    let help = format!("give each {what} its own name");
    duplicate_names(names, |i| format!("{section}[{i}]"), (what, &help), out);
}

/// An emoji is matched by name: two entries of one name would be one emoji.
pub(super) fn unique_emoji_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    unique_names(&ctx.manifest.emojis, |e| &e.name, ("emojis", "emoji"), out);
}

/// The roles an emoji is for: declared roles (or live ones, checked by the plan); not
/// @everyone, which Discord does not take (everyone may use an emoji that lists no role).
pub(super) fn emoji_roles(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let emojis = ctx.manifest.emojis.as_deref().unwrap_or_default();
    for (i, e) in emojis.iter().enumerate() {
        for (k, role) in e.roles.iter().flatten().enumerate() {
            let path = format!("emojis[{i}].roles[{k}]");
            if let RoleLookup::Everyone = ctx.check_role_ref(&path, role, Undeclared::Warn, out) {
                out.push(
                    Diagnostic::error(path, "an emoji cannot be limited to @everyone".to_owned())
                        .with_help("leave `roles` out (or empty) to let everyone use it"),
                );
            }
        }
    }
}

/// Each sound: a name of 2-32 characters (and its previous names), a `volume` from 0 to 1,
/// and an `emoji` that is one standard emoji or a custom emoji's id.
pub(super) fn sounds(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let sounds = ctx.manifest.soundboard.as_deref().unwrap_or_default();
    for (i, s) in sounds.iter().enumerate() {
        let path = format!("soundboard[{i}]");
        for (at, name) in name_and_previous(&path, &s.name, &s.previous_names) {
            Text("sound name", SOUND_NAME_LEN).check(out, at, name);
        }
        if let Some(v) = s.volume
            && !(0.0..=1.0).contains(&v)
        {
            out.push(
                Diagnostic::error(
                    format!("{path}.volume"),
                    format!("volume {v} is outside 0 to 1"),
                )
                .with_help("write a volume from 0 (silent) to 1 (as recorded)"),
            );
        }
        if let Some(e) = &s.emoji {
            let id = !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit());
            let standard = !e.is_empty() && !e.is_ascii() && len(e) <= 32;
            if !(id || standard) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.emoji"),
                        format!("`{e}` is neither a standard emoji nor a custom emoji's id"),
                    )
                    .with_help("write the emoji itself (`emoji: \"📯\"`) or a custom emoji's id"),
                );
            }
        }
    }
}

/// A sound is matched by name: two entries of one name would be one sound.
pub(super) fn unique_sound_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    unique_names(
        &ctx.manifest.soundboard,
        |e| &e.name,
        ("soundboard", "sound"),
        out,
    );
}

/// Each sticker: a name of 2-30 characters (and its previous names), tags of 1-200
/// characters, and a description that is empty or 2-100 characters (Create Guild Sticker).
pub(super) fn stickers(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let stickers = ctx.manifest.stickers.as_deref().unwrap_or_default();
    for (i, s) in stickers.iter().enumerate() {
        let path = format!("stickers[{i}]");
        for (at, name) in name_and_previous(&path, &s.name, &s.previous_names) {
            Text("sticker name", STICKER_NAME_LEN).check(out, at, name);
        }
        Text("sticker tags", STICKER_TAGS_LEN).check(out, format_args!("{path}.tags"), &s.tags);
        if let Some(d) = s.description.as_deref().filter(|d| !d.is_empty()) {
            Text("sticker description", STICKER_DESCRIPTION_LEN).check(
                out,
                format_args!("{path}.description"),
                d,
            );
        }
    }
}

/// A sticker is matched by name: two entries of one name would be one sticker.
pub(super) fn unique_sticker_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    unique_names(
        &ctx.manifest.stickers,
        |e| &e.name,
        ("stickers", "sticker"),
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(yaml: &str, rule: Rule) -> Vec<String> {
        run_rule(rule, |m| *m = serde_saphyr::from_str(yaml).unwrap())
            .into_iter()
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect()
    }

    #[test]
    fn emoji_names_are_2_to_32_letters_digits_and_underscores() {
        let got = found(
            "version: 1\nemojis:\n  - { name: ok_name1, image: a.png }\n  - { name: x, image: a.png }\n  - { name: has-dash, image: a.png, previous_names: [fine, \"no space\"] }\n",
            emoji_names,
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("emojis[1].name: emoji name \"x\" is 1 characters"));
        assert!(got[1].starts_with("emojis[2].name:") && got[1].contains("'-'"));
        assert!(got[2].starts_with("emojis[2].previous_names[1]:"));
    }

    #[test]
    fn sounds_have_names_volumes_and_emoji_discord_takes() {
        let got = found(
            "version: 1\nsoundboard:\n  - { name: a, sound: a.ogg, volume: 1.5, emoji: \":horn:\" }\n  - { name: ok, sound: b.ogg, volume: 0.5, emoji: \"📯\" }\n",
            sounds,
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("soundboard[0].name:"), "{got:?}");
        assert!(
            got[1].starts_with("soundboard[0].volume: volume 1.5"),
            "{got:?}"
        );
        assert!(got[2].starts_with("soundboard[0].emoji:"), "{got:?}");
    }

    #[test]
    fn stickers_have_names_tags_and_descriptions_discord_takes() {
        let got = found(
            "version: 1\nstickers:\n  - { name: f, image: a.png, tags: \"\", description: x }\n  - { name: ok, image: b.png, tags: crab, description: \"\" }\n",
            stickers,
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("stickers[0].name:"), "{got:?}");
        assert!(got[1].starts_with("stickers[0].tags:"), "{got:?}");
        assert!(got[2].starts_with("stickers[0].description:"), "{got:?}");
        let dup = found(
            "version: 1\nstickers:\n  - { name: ferris, image: a.png, tags: crab }\n  - { name: ferris, image: b.png, tags: crab }\n",
            unique_sticker_names,
        );
        assert_eq!(
            dup,
            ["stickers[1].name: duplicate sticker name \"ferris\" (first declared at stickers[0])"]
        );
    }

    #[test]
    fn emoji_names_are_unique() {
        let got = found(
            "version: 1\nemojis:\n  - { name: wave, image: a.png }\n  - { name: wave, image: b.png }\n",
            unique_emoji_names,
        );
        assert_eq!(
            got,
            ["emojis[1].name: duplicate emoji name \"wave\" (first declared at emojis[0])"]
        );
    }

    #[test]
    fn emoji_roles_name_roles_but_not_everyone() {
        let got = found(
            "version: 1\nroles:\n  - { name: Mod }\nemojis:\n  - { name: wave, image: a.png, roles: [Mod, \"@everyone\"] }\n",
            emoji_roles,
        );
        assert_eq!(
            got,
            ["emojis[0].roles[1]: an emoji cannot be limited to @everyone"]
        );
    }
}
