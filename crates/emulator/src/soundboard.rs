//! Soundboard sounds (docs/discord.md §10.2, resources/soundboard): list, get,
//! create, modify (name, volume, emoji: the sound itself cannot change), delete.

use axum::extract::Path;
use serde_json::{Value, json};

use crate::access::{InGuild, digits, guild_at};
use crate::app::{JsonBody, R, created, fired, no_content, ok};
use crate::audit_log::action::{
    SOUNDBOARD_SOUND_CREATE, SOUNDBOARD_SOUND_DELETE, SOUNDBOARD_SOUND_UPDATE,
};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::expressions::{Kind, creator, may_change, may_create, shows_creators, slots, too_large};
use crate::form::{self, Reader, show as shown};
use crate::media;
use crate::perms::guild_permissions;
use crate::render;
use crate::state::{Guild, Sound, State};

/// Sounds are at most 512 KiB ("512kb" in the docs, read as KiB like stickers' limit)…
const MAX_SOUND_KIB: usize = 512;
/// …and play at most 5.2 seconds.
const MAX_SECONDS: f64 = 5.2;

/// `volume`: 0 to 1; null is the default, 1.
fn read_volume(r: &mut Reader) -> Option<f64> {
    let v = r.obj.get("volume")?;
    let n = match v {
        Value::Null => return Some(1.0),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match n {
        Some(x) if (0.0..=1.0).contains(&x) => Some(x),
        Some(x) => {
            let code = if x > 1.0 {
                "NUMBER_TYPE_MAX"
            } else {
                "NUMBER_TYPE_MIN"
            };
            r.err("volume", code, "float value should be <= 1.0 and >= 0.0.");
            None
        }
        None => {
            let msg = format!("Value \"{}\" is not float.", shown(v));
            r.err("volume", "NUMBER_TYPE_COERCE", &msg);
            None
        }
    }
}

/// `emoji_id` (a snowflake) and `emoji_name` (1–32 characters), each nullable.
fn read_emoji(r: &mut Reader) -> (Option<Option<String>>, Option<Option<String>>) {
    let id = r.snowflake("emoji_id").into_option();
    let name = r.string_len("emoji_name", 1, 32).into_option();
    (id, name)
}

/// `sound`: a data URI whose bytes are MP3 or Ogg (sniffed), at most 512 KiB decoded and
/// 5.2 seconds long.
fn read_sound(r: &mut Reader) -> Result<Option<String>, ApiError> {
    let f = r.string("sound");
    let Some(raw) = r.require("sound", f) else {
        return Ok(None);
    };
    let bytes = media::data_uri(&raw).ok_or_else(invalid_sound)?.bytes;
    if bytes.len() > MAX_SOUND_KIB * 1024 {
        return Err(too_large("sound", MAX_SOUND_KIB));
    }
    let (_, seconds) = media::audio(&bytes).ok_or_else(invalid_sound)?;
    if seconds > MAX_SECONDS {
        return Err(ApiError::field(
            &["sound"],
            "SOUND_DURATION_TOO_LONG",
            &format!("Sound must be {MAX_SECONDS} seconds or shorter (this one is {seconds:.2})."),
        ));
    }
    Ok(Some(raw))
}

/// 400 50046: not an MP3 or Ogg file the emulator can read.
fn invalid_sound() -> ApiError {
    ApiError::bad_request(50046, "Invalid file uploaded")
}

fn snapshot(s: &Sound) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(s.name)),
        ("volume", json!(s.volume)),
        ("emoji_id", json!(s.emoji_id)),
        ("emoji_name", json!(s.emoji_name)),
    ]
}

fn find(g: &Guild, sid: &str) -> Result<usize, ApiError> {
    digits(sid)?;
    g.soundboard_sounds
        .iter()
        .position(|s| s.sound_id == sid)
        .ok_or_else(ApiError::unknown_sound)
}

fn show(st: &State, g: &Guild, s: &Sound, with_creator: bool) -> Value {
    render::sound(&g.id, s, creator(st, s.user_id.as_deref(), with_creator))
}

/// `GET /guilds/{g}/soundboard-sounds` → `{items}`; creators shown with either expression
/// permission.
pub async fn list_sounds(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let with = shows_creators(guild_permissions(g, &call.actor));
    let items: Vec<Value> = g
        .soundboard_sounds
        .iter()
        .map(|s| show(&st, g, s, with))
        .collect();
    ok(json!({ "items": items }))
}

pub async fn get_sound(call: InGuild, Path((_, sid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let s = &g.soundboard_sounds[find(g, &sid)?];
    ok(show(
        &st,
        g,
        s,
        shows_creators(guild_permissions(g, &call.actor)),
    ))
}

/// `POST /guilds/{g}/soundboard-sounds` → 201 (CREATE_GUILD_EXPRESSIONS); 30045 when the
/// guild's slots are full.
pub async fn create_sound(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let cfg = st.config.clone();
    let (g, snowflake) = guild_at(&mut st, gi);
    may_create(guild_permissions(g, &actor))?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = r.string_len("name", 2, 32);
    let name = r.present("name", name, true);
    let volume = read_volume(&mut r).unwrap_or(1.0);
    let (emoji_id, emoji_name) = read_emoji(&mut r);
    let sound = read_sound(&mut r)?;
    errs.check()?;
    let (Some(name), Some(sound)) = (name, sound) else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let max = slots(Kind::Sound, g, &cfg);
    if g.soundboard_sounds.len() >= max {
        return Err(ApiError::bad_request(
            30045,
            &format!("Maximum number of soundboard sounds reached ({max})"),
        ));
    }
    let s = Sound {
        sound_id: snowflake.next_id(),
        name,
        volume,
        emoji_id: emoji_id.flatten(),
        emoji_name: emoji_name.flatten(),
        available: true,
        user_id: Some(actor.clone()),
        sound: Some(sound),
    };
    let changes = snapshot_changes(snapshot(&s), true);
    let sid = s.sound_id.clone();
    g.soundboard_sounds.push(s);
    Entry::on(SOUNDBOARD_SOUND_CREATE, &sid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    let g = &st.guilds[gi];
    let s = g
        .soundboard_sounds
        .last()
        .ok_or_else(ApiError::unknown_sound)?;
    // The sound as its creator is shown it, `user` included (the sound object's `user?`).
    let out = show(&st, g, s, true);
    let made = events::Dispatch::new(events::GUILD_SOUNDBOARD_SOUND_CREATE, &g.id, out.clone());
    fired(created(out), [made])
}

/// `PATCH /guilds/{g}/soundboard-sounds/{s}`: `name`, `volume`, `emoji_id`, `emoji_name`
/// (a `sound` is not read). One's own with CREATE_GUILD_EXPRESSIONS, anyone's with
/// MANAGE_GUILD_EXPRESSIONS.
pub async fn modify_sound(
    call: InGuild,
    Path((_, sid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let si = find(g, &sid)?;
    let owner = g.soundboard_sounds[si].user_id.clone();
    may_change(guild_permissions(g, &actor), owner.as_deref(), &actor)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = r.string_len("name", 2, 32);
    let name = r.present("name", name, false);
    let volume = read_volume(&mut r);
    let (emoji_id, emoji_name) = read_emoji(&mut r);
    errs.check()?;
    let s = &mut g.soundboard_sounds[si];
    let before = snapshot(s);
    if let Some(n) = name {
        s.name = n;
    }
    if let Some(v) = volume {
        s.volume = v;
    }
    if let Some(e) = emoji_id {
        s.emoji_id = e;
    }
    if let Some(e) = emoji_name {
        s.emoji_name = e;
    }
    let changes = diff_snapshots(before, snapshot(s));
    if !changes.is_empty() {
        Entry::on(SOUNDBOARD_SOUND_UPDATE, &sid)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let g = &st.guilds[gi];
    let out = show(&st, g, &g.soundboard_sounds[si], true);
    let updated = events::Dispatch::new(events::GUILD_SOUNDBOARD_SOUND_UPDATE, &g.id, out.clone());
    fired(ok(out), [updated])
}

/// `DELETE /guilds/{g}/soundboard-sounds/{s}` → 204, with the same permissions as modify.
pub async fn delete_sound(call: InGuild, Path((_, sid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let si = find(g, &sid)?;
    let owner = g.soundboard_sounds[si].user_id.clone();
    may_change(guild_permissions(g, &actor), owner.as_deref(), &actor)?;
    let s = g.soundboard_sounds.remove(si);
    let changes = snapshot_changes(snapshot(&s), false);
    Entry::on(SOUNDBOARD_SOUND_DELETE, &sid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    fired(no_content(), [events::sound_delete(&g.id, &sid)])
}
