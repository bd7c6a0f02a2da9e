//! Custom emoji (docs/discord.md §10.2, resources/emoji): list, get, create, modify
//! (name and roles: an emoji's image cannot be replaced), delete. The routes have strict
//! per-guild limits of their own (§1.5), in `config.route_buckets`.

use axum::extract::Path;
use serde_json::{Value, json};

use crate::access::{InGuild, digits, guild_at};
use crate::app::{JsonBody, R, created, fired, no_content, ok};
use crate::audit_log::action::{EMOJI_CREATE, EMOJI_DELETE, EMOJI_UPDATE};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::expressions::{Kind, creator, may_change, may_create, shows_creators, slots, too_large};
use crate::form::{self, Field, Reader, check_refs};
use crate::media;
use crate::perms::guild_permissions;
use crate::render;
use crate::state::{Emoji, Guild, State};

/// Emoji images, animated or not, are at most 256 KiB (resources/emoji).
const MAX_IMAGE_KIB: usize = 256;
/// More roles than a guild can have is never right.
const MAX_ROLES: usize = 250;

/// `name`: 2–32 characters of letters, digits and underscores.
fn read_name(r: &mut Reader, required: bool) -> Option<String> {
    let f = r.string_len("name", 2, 32);
    let name = r.present("name", f, required)?;
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Some(name)
    } else {
        r.err(
            "name",
            "STRING_TYPE_REGEX",
            "String value did not match validation regex.",
        );
        None
    }
}

/// `roles`: roles of the guild allowed to use it (a set); null is none.
fn read_roles(r: &mut Reader, g: &Guild) -> Option<Vec<String>> {
    match r.snowflakes("roles", MAX_ROLES) {
        Field::Set(ids) => {
            check_refs(r, "roles", &ids, |id| g.role(id).is_some(), "role");
            Some(ids)
        }
        Field::Null => Some(Vec::new()),
        Field::Absent => None,
    }
}

/// `image`: a data URI whose bytes are PNG, JPEG, GIF, WebP or AVIF (sniffed, whatever
/// type the URI names), at most 256 KiB once decoded. The URI as sent, and whether the
/// image is animated.
fn read_image(r: &mut Reader) -> Result<Option<(String, bool)>, ApiError> {
    let f = r.string("image");
    let Some(raw) = r.require("image", f) else {
        return Ok(None);
    };
    let Some(d) = media::data_uri(&raw) else {
        r.err("image", "IMAGE_INVALID", "Invalid image data");
        return Ok(None);
    };
    if d.bytes.len() > MAX_IMAGE_KIB * 1024 {
        return Err(too_large("image", MAX_IMAGE_KIB));
    }
    let Some(format) = media::image_format(&d.bytes) else {
        r.err("image", "IMAGE_INVALID", "Invalid image data");
        return Ok(None);
    };
    Ok(Some((raw, media::is_animated(&d.bytes, format))))
}

fn snapshot(e: &Emoji) -> Vec<(&'static str, Value)> {
    let roles = if e.roles.is_empty() {
        Value::Null
    } else {
        json!(e.roles)
    };
    vec![("name", json!(e.name)), ("roles", roles)]
}

fn find(g: &Guild, eid: &str) -> Result<usize, ApiError> {
    digits(eid)?;
    g.emojis
        .iter()
        .position(|e| e.id == eid)
        .ok_or_else(ApiError::unknown_emoji)
}

fn show(st: &State, e: &Emoji, with_creator: bool) -> Value {
    render::emoji(e, creator(st, e.user_id.as_deref(), with_creator))
}

/// `GET /guilds/{g}/emojis`: creators shown with either expression permission.
pub async fn list_emojis(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let with = shows_creators(guild_permissions(g, &call.actor));
    ok(Value::Array(
        g.emojis.iter().map(|e| show(&st, e, with)).collect(),
    ))
}

/// `GET /guilds/{g}/emojis/{e}`: the creator shown with MANAGE_GUILD_EXPRESSIONS, or to
/// its creator holding CREATE_GUILD_EXPRESSIONS.
pub async fn get_emoji(call: InGuild, Path((_, eid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let e = &g.emojis[find(g, &eid)?];
    let with = may_change(
        guild_permissions(g, &call.actor),
        e.user_id.as_deref(),
        &call.actor,
    )
    .is_ok();
    ok(show(&st, e, with))
}

/// `POST /guilds/{g}/emojis` → 201 (CREATE_GUILD_EXPRESSIONS). Static and animated emoji
/// have their own slots (30008 / 30018 when full).
pub async fn create_emoji(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let cfg = st.config.clone();
    let (g, snowflake) = guild_at(&mut st, gi);
    may_create(guild_permissions(g, &actor))?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = read_name(&mut r, true);
    let image = read_image(&mut r)?;
    let roles = read_roles(&mut r, g).unwrap_or_default();
    errs.check()?;
    let (Some(name), Some((image, animated))) = (name, image) else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let max = slots(Kind::Emoji, g, &cfg);
    let held = g.emojis.iter().filter(|e| e.animated == animated).count();
    if held >= max {
        return Err(if animated {
            ApiError::bad_request(
                30018,
                &format!("Maximum number of animated emojis reached ({max})"),
            )
        } else {
            ApiError::bad_request(30008, &format!("Maximum number of emojis reached ({max})"))
        });
    }
    let e = Emoji {
        id: snowflake.next_id(),
        name,
        roles,
        user_id: Some(actor.clone()),
        require_colons: true,
        managed: false,
        animated,
        available: true,
        image: Some(image),
    };
    let changes = snapshot_changes(snapshot(&e), true);
    let eid = e.id.clone();
    g.emojis.push(e);
    Entry::on(EMOJI_CREATE, &eid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    let e = st.guilds[gi]
        .emojis
        .last()
        .ok_or_else(ApiError::unknown_emoji)?;
    // The creator sees itself as the creator.
    let update = events::emojis_update(&st.guilds[gi]);
    fired(created(show(&st, e, true)), [update])
}

/// `PATCH /guilds/{g}/emojis/{e}`: `name` and `roles` (an `image` is not read: an emoji's
/// image cannot change). One's own with CREATE_GUILD_EXPRESSIONS, anyone's with
/// MANAGE_GUILD_EXPRESSIONS.
pub async fn modify_emoji(
    call: InGuild,
    Path((_, eid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let ei = find(g, &eid)?;
    may_change(
        guild_permissions(g, &actor),
        g.emojis[ei].user_id.as_deref(),
        &actor,
    )?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = read_name(&mut r, false);
    let roles = read_roles(&mut r, g);
    errs.check()?;
    let e = &mut g.emojis[ei];
    let before = snapshot(e);
    if let Some(n) = name {
        e.name = n;
    }
    if let Some(rs) = roles {
        e.roles = rs;
    }
    let changes = diff_snapshots(before, snapshot(e));
    if !changes.is_empty() {
        Entry::on(EMOJI_UPDATE, &eid)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    fired(
        ok(show(&st, &st.guilds[gi].emojis[ei], true)),
        [events::emojis_update(&st.guilds[gi])],
    )
}

/// `DELETE /guilds/{g}/emojis/{e}` → 204, with the same permissions as modify.
pub async fn delete_emoji(call: InGuild, Path((_, eid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    let ei = find(g, &eid)?;
    may_change(
        guild_permissions(g, &actor),
        g.emojis[ei].user_id.as_deref(),
        &actor,
    )?;
    let e = g.emojis.remove(ei);
    let changes = snapshot_changes(snapshot(&e), false);
    Entry::on(EMOJI_DELETE, &eid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    fired(no_content(), [events::emojis_update(g)])
}
