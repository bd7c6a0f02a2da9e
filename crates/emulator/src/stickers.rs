//! Guild stickers (docs/discord.md §10.2, resources/sticker): list, get, create (a
//! multipart/form-data upload), modify (name, description, tags: the file cannot change),
//! delete.

use axum::extract::{FromRequest, Multipart, Path, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

use crate::access::{InGuild, digits, guild_at};
use crate::app::{App, JsonBody, MAX_BODY, R, created, fired, no_content, ok};
use crate::audit_log::action::{STICKER_CREATE, STICKER_DELETE, STICKER_UPDATE};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::expressions::{Kind, creator, may_change, may_create, shows_creators, slots};
use crate::form::{self, Field, Reader};
use crate::media::{self, STICKER_LOTTIE};
use crate::perms::guild_permissions;
use crate::render;
use crate::state::{Guild, State, Sticker};

/// Sticker files are at most 512 KiB.
const MAX_FILE: usize = 512 * 1024;
/// And at most 320 × 320 pixels.
const MAX_SIDE: u64 = 320;

/// A Create Guild Sticker body: its text fields and the `file` part. A body that is not
/// multipart/form-data has neither (Discord answers 50035 for a wrong `Content-Type`).
pub struct StickerForm {
    fields: Map<String, Value>,
    file: Option<Vec<u8>>,
}

impl FromRequest<App> for StickerForm {
    type Rejection = ApiError;

    async fn from_request(req: Request, app: &App) -> Result<Self, Self::Rejection> {
        let multipart = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| {
                t.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("multipart/form-data")
            });
        let mut out = StickerForm {
            fields: Map::new(),
            file: None,
        };
        if !multipart {
            return Ok(out);
        }
        let mut parts = Multipart::from_request(req, app)
            .await
            .map_err(|_| bad_multipart())?;
        let mut total = 0usize;
        while let Some(field) = parts.next_field().await.map_err(|_| bad_multipart())? {
            let name = field.name().unwrap_or_default().to_owned();
            let bytes = field.bytes().await.map_err(|_| bad_multipart())?;
            total += bytes.len();
            if total > MAX_BODY {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    40005,
                    "Request entity too large",
                ));
            }
            if name == "file" {
                out.file = Some(bytes.to_vec());
            } else {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                out.fields.insert(name, Value::String(text));
            }
        }
        Ok(out)
    }
}

fn bad_multipart() -> ApiError {
    ApiError::field(
        &[],
        "MULTIPART_INVALID",
        "The multipart/form-data body could not be read.",
    )
}

/// `name` (2–30), `description` (empty or 2–100; null none), `tags` (1–200): `required`
/// on create.
struct StickerText {
    name: Option<String>,
    description: Option<Option<String>>,
    tags: Option<String>,
}

fn read_text(r: &mut Reader, required: bool) -> StickerText {
    let name = r.string_len("name", 2, 30);
    let name = r.present("name", name, required);
    let tags = r.string_len("tags", 1, 200);
    let tags = r.present("tags", tags, required);
    let description = match r.string("description") {
        Field::Set(d) if d.is_empty() || (2..=100).contains(&d.chars().count()) => Some(Some(d)),
        Field::Set(_) => {
            r.err(
                "description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 2 and 100 in length.",
            );
            None
        }
        Field::Null => Some(None),
        Field::Absent => None,
    };
    StickerText {
        name,
        description,
        tags,
    }
}

fn snapshot(s: &Sticker) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(s.name)),
        ("tags", json!(s.tags)),
        ("description", json!(s.description)),
        ("format_type", json!(s.format_type)),
    ]
}

fn find(g: &Guild, sid: &str) -> Result<usize, ApiError> {
    digits(sid)?;
    g.stickers
        .iter()
        .position(|s| s.id == sid)
        .ok_or_else(ApiError::unknown_sticker)
}

fn show(st: &State, g: &Guild, s: &Sticker, with_creator: bool) -> Value {
    render::sticker(&g.id, s, creator(st, s.user_id.as_deref(), with_creator))
}

/// 400 50046: a file that is not a sticker Discord takes.
fn invalid_file() -> ApiError {
    ApiError::bad_request(50046, "Invalid file uploaded")
}

/// `GET /guilds/{g}/stickers`: creators shown with either expression permission.
pub async fn list_stickers(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let with = shows_creators(guild_permissions(g, &call.actor));
    ok(Value::Array(
        g.stickers.iter().map(|s| show(&st, g, s, with)).collect(),
    ))
}

/// `GET /guilds/{g}/stickers/{s}`: the creator shown as in the list.
pub async fn get_sticker(call: InGuild, Path((_, sid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let s = &g.stickers[find(g, &sid)?];
    ok(show(
        &st,
        g,
        s,
        shows_creators(guild_permissions(g, &call.actor)),
    ))
}

/// `POST /guilds/{g}/stickers` (multipart: `name`, `description`, `tags`, `file`) → 201.
/// CREATE_GUILD_EXPRESSIONS. The file: PNG, APNG or GIF of at most 320 × 320 pixels, or
/// Lottie JSON in a VERIFIED or PARTNERED guild, at most 512 KiB (50045 above, 50046 for
/// any other file).
pub async fn create_sticker(call: InGuild, form: StickerForm) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let cfg = st.config.clone();
    let (g, snowflake) = guild_at(&mut st, gi);
    may_create(guild_permissions(g, &actor))?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&form.fields, &mut errs);
    let text = read_text(&mut r, true);
    if form.file.is_none() {
        errs.add(&["file"], "BASE_TYPE_REQUIRED", "This field is required");
    }
    errs.check()?;
    let (Some(name), Some(tags), Some(bytes)) = (text.name, text.tags, form.file) else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    if bytes.len() > MAX_FILE {
        return Err(ApiError::bad_request(
            50045,
            "File uploaded exceeds the maximum size",
        ));
    }
    let file = media::sticker_file(&bytes).ok_or_else(invalid_file)?;
    if file.format_type == STICKER_LOTTIE
        && !(g.has_feature("VERIFIED") || g.has_feature("PARTNERED"))
    {
        return Err(invalid_file());
    }
    if file.size.is_some_and(|(w, h)| w > MAX_SIDE || h > MAX_SIDE) {
        return Err(invalid_file());
    }
    let max = slots(Kind::Sticker, g, &cfg);
    if g.stickers.len() >= max {
        return Err(ApiError::bad_request(
            30039,
            &format!("Maximum number of stickers reached ({max})"),
        ));
    }
    let s = Sticker {
        id: snowflake.next_id(),
        name,
        description: text.description.flatten(),
        tags,
        format_type: file.format_type,
        available: true,
        user_id: Some(actor.clone()),
        file: Some(BASE64.encode(&bytes)),
    };
    let changes = snapshot_changes(snapshot(&s), true);
    let sid = s.id.clone();
    g.stickers.push(s);
    Entry::on(STICKER_CREATE, &sid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    let g = &st.guilds[gi];
    let s = g.stickers.last().ok_or_else(ApiError::unknown_sticker)?;
    fired(created(show(&st, g, s, true)), [events::stickers_update(g)])
}

/// `PATCH /guilds/{g}/stickers/{s}` (JSON): `name`, `description`, `tags`; one's own with
/// CREATE_GUILD_EXPRESSIONS, anyone's with MANAGE_GUILD_EXPRESSIONS.
pub async fn modify_sticker(
    call: InGuild,
    Path((_, sid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let si = find(g, &sid)?;
    may_change(
        guild_permissions(g, &actor),
        g.stickers[si].user_id.as_deref(),
        &actor,
    )?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let text = read_text(&mut r, false);
    errs.check()?;
    let s = &mut g.stickers[si];
    let before = snapshot(s);
    if let Some(n) = text.name {
        s.name = n;
    }
    if let Some(d) = text.description {
        s.description = d;
    }
    if let Some(t) = text.tags {
        s.tags = t;
    }
    let changes = diff_snapshots(before, snapshot(s));
    if !changes.is_empty() {
        Entry::on(STICKER_UPDATE, &sid)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let g = &st.guilds[gi];
    fired(
        ok(show(&st, g, &g.stickers[si], true)),
        [events::stickers_update(g)],
    )
}

/// `DELETE /guilds/{g}/stickers/{s}` → 204, with the same permissions as modify.
pub async fn delete_sticker(call: InGuild, Path((_, sid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let si = find(g, &sid)?;
    may_change(
        guild_permissions(g, &actor),
        g.stickers[si].user_id.as_deref(),
        &actor,
    )?;
    let s = g.stickers.remove(si);
    let changes = snapshot_changes(snapshot(&s), false);
    Entry::on(STICKER_DELETE, &sid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    fired(no_content(), [events::stickers_update(g)])
}
