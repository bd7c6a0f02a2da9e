//! `emojis:`, `soundboard:` and `stickers:`: the guild's custom emoji, soundboard sounds and
//! stickers.

use super::*;

/// A custom emoji of the guild.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GuildEmoji {
    /// Pin this entry to an emoji id. Matching is by id, then name, then `previous_names`.
    pub id: Option<Snowflake>,
    /// The emoji's name, 2-32 letters, digits and underscores (`:name:` in messages).
    #[schemars(extend("examples" = ["ferris_wave"]))]
    pub name: String,
    /// Names this emoji had before: renamed in place (messages using it keep showing it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The image file: PNG, JPEG, GIF or WebP (a GIF or animated WebP makes an animated
    /// emoji), at most 256 KiB, by its path relative to the manifest's folder and inside it.
    /// Compared by content with the live emoji: a changed file deletes the emoji and creates
    /// it again (Discord cannot replace an emoji's image), which the deletion gate counts.
    #[schemars(extend("examples" = ["emojis/ferris_wave.png"]))]
    pub image: String,
    /// Roles allowed to use it, by name or id; left out or empty, everyone may.
    #[serde(serialize_with = "flow_opt")]
    pub roles: Option<Vec<String>>,
}

/// A soundboard sound of the guild.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SoundboardSound {
    /// Pin this entry to a sound id. Matching is by id, then name, then `previous_names`.
    pub id: Option<Snowflake>,
    /// The sound's name, 2-32 characters.
    #[schemars(extend("examples" = ["airhorn"]))]
    pub name: String,
    /// Names this sound had before: renamed in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The sound file: MP3 or Ogg (Vorbis or Opus), at most 512 KiB and 5.2 seconds, by its
    /// path relative to the manifest's folder and inside it. Compared by content with the live
    /// sound: a changed file deletes the sound and creates it again (Discord cannot replace a
    /// sound's file), which the deletion gate counts.
    #[schemars(extend("examples" = ["sounds/airhorn.ogg"]))]
    pub sound: String,
    /// How loud it plays, from 0 to 1. Left out: not managed (Discord's default is 1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub volume: Option<f64>,
    /// The emoji shown with it: a standard emoji (`"📯"`) or a custom emoji's id. Left out:
    /// not managed.
    #[schemars(extend("examples" = ["📯"]))]
    pub emoji: Option<String>,
}

/// A guild sticker.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GuildSticker {
    /// Pin this entry to a sticker id. Matching is by id, then name, then `previous_names`.
    pub id: Option<Snowflake>,
    /// The sticker's name, 2-30 characters.
    #[schemars(extend("examples" = ["ferris"]))]
    pub name: String,
    /// Names this sticker had before: renamed in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// The sticker file: PNG, APNG or GIF of at most 320x320 pixels, or Lottie JSON (only in
    /// a verified or partnered guild), at most 512 KiB, by its path relative to the
    /// manifest's folder and inside it. Compared by content with the live sticker: a changed
    /// file deletes the sticker and creates it again (Discord cannot replace a sticker's
    /// file), which the deletion gate counts.
    #[schemars(extend("examples" = ["stickers/ferris.png"]))]
    pub image: String,
    /// Autocomplete tags, 1-200 characters: by convention the name of a related emoji
    /// (`crab`), which Discord's client suggests the sticker for.
    #[schemars(extend("examples" = ["crab"]))]
    pub tags: String,
    /// What it shows, empty or 2-100 characters. Left out: not managed.
    pub description: Option<String>,
}
