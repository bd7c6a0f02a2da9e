//! Channels: create, read, edit, delete and the bulk position route
//! (docs/discord.md §4).

use axum::Json;
use axum::extract::{Path, State as AxState};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use discord_permissions::Permissions;
use serde_json::{Value, json};

use crate::access::{InGuild, channel_loc, guild_for_write, need, need_in_channel};
use crate::app::{App, Ctx, JsonBody, R, fired, lock, no_content, ok};
use crate::audit_log::action::{CHANNEL_CREATE, CHANNEL_DELETE, CHANNEL_UPDATE};
use crate::audit_log::{Entry, change, diff, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader};
use crate::names::stored_channel_name_with;
use crate::overwrites::{
    check_overwrite_grants, check_overwrite_targets, log_overwrite_diff, read_overwrites,
    set_overwrites,
};
use crate::perms::{can_view_channel, guild_permissions, viewable_channels};
use crate::render;
use crate::state::{Channel, DefaultReaction, ForumTag, Guild, Overwrite, SnowflakeGen, State};

const MAX_CHANNELS: usize = 500;
const MAX_CATEGORY_CHILDREN: usize = 50;
const MAX_TAGS: usize = 20;
/// Channel flags (resources/channel, "Channel Flags"). Threads only: pinned in its forum.
const PINNED: u64 = 1 << 1;
/// A post must carry a tag: forum and media channels.
const REQUIRE_TAG: u64 = 1 << 4;
/// Hides the embedded media download options: media channels.
const HIDE_MEDIA_DOWNLOAD_OPTIONS: u64 = 1 << 15;
/// Members opt in to see its contents: text-like and voice channels (not stage), never
/// with `nsfw`.
const IS_SPOILER_CHANNEL: u64 = 1 << 21;

/// The types whose `flags` a create or modify sets (§4.2): text, voice, announcement,
/// forum and media. Other types ignore the field.
fn takes_flags(kind: u8) -> bool {
    matches!(kind, 0 | 2 | 5 | 15 | 16)
}

/// `flags` as a channel of `kind` keeps them: the documented bits that do not apply to the
/// type (and PINNED, a thread's) are dropped, as fields that do not apply are ignored;
/// bits Discord does not document are kept as sent.
fn channel_flags(kind: u8, sent: u64) -> u64 {
    let mut drop = PINNED;
    if !is_forum_like(kind) {
        drop |= REQUIRE_TAG;
    }
    if kind != 16 {
        drop |= HIDE_MEDIA_DOWNLOAD_OPTIONS;
    }
    if !takes_flags(kind) {
        drop |= IS_SPOILER_CHANNEL;
    }
    sent & !drop
}

/// A spoiler channel cannot be age-restricted: the error goes on `flags` when the request
/// set them, else on `nsfw`.
fn check_spoiler(flags: u64, nsfw: bool, flags_sent: bool) -> Result<(), ApiError> {
    if flags & IS_SPOILER_CHANNEL != 0 && nsfw {
        let key = if flags_sent { "flags" } else { "nsfw" };
        return Err(ApiError::field(
            &[key],
            "CHANNEL_SPOILER_NSFW",
            "A spoiler channel cannot be age-restricted (nsfw).",
        ));
    }
    Ok(())
}

fn is_text_like(kind: u8) -> bool {
    matches!(kind, 0 | 5 | 15 | 16)
}
fn is_voice_like(kind: u8) -> bool {
    matches!(kind, 2 | 13)
}
/// Forum and media: the channels made of posts, with tags (§9.5).
fn is_forum_like(kind: u8) -> bool {
    matches!(kind, 15 | 16)
}

/// The sorting group of a channel (§4.3): categories; text-like per parent;
/// voice-like per parent.
fn group(kind: u8, parent: &Option<String>) -> (u8, Option<String>) {
    if kind == 4 {
        (0, None)
    } else if is_voice_like(kind) {
        (2, parent.clone())
    } else {
        (1, parent.clone())
    }
}

fn bottom_position(g: &Guild, kind: u8, parent: &Option<String>) -> i64 {
    let grp = group(kind, parent);
    g.channels
        .iter()
        .filter(|c| group(c.kind, &c.parent_id) == grp)
        .map(|c| c.position + 1)
        .max()
        .unwrap_or(0)
}

#[derive(Default)]
struct ChanFields {
    name: Option<String>,
    topic: Option<Option<String>>,
    position: Option<i64>,
    parent_id: Option<Option<String>>,
    overwrites: Option<Vec<Overwrite>>,
    nsfw: Option<bool>,
    rate_limit: Option<u32>,
    bitrate: Option<u32>,
    user_limit: Option<u32>,
    rtc_region: Option<Option<String>>,
    video_quality_mode: Option<u8>,
    auto_archive: Option<u32>,
    thread_rate_limit: Option<u32>,
    flags: Option<u64>,
    tags: Option<Vec<TagInput>>,
    reaction: Option<Option<DefaultReaction>>,
    sort_order: Option<Option<u8>>,
    layout: Option<u8>,
}

/// A tag as sent; its id is resolved against the channel's tags on write.
struct TagInput {
    id: Option<String>,
    name: String,
    moderated: bool,
    emoji_id: Option<String>,
    emoji_name: Option<String>,
}

/// `available_tags`: at most 20, each with a name of 1–20 characters. Null
/// empties the list.
fn read_tags(r: &mut Reader) -> Option<Vec<TagInput>> {
    let list = match r.array("available_tags") {
        Field::Set(l) => l,
        Field::Null => return Some(Vec::new()),
        Field::Absent => return None,
    };
    if list.len() > MAX_TAGS {
        let msg = format!("Must be {MAX_TAGS} or fewer in length.");
        r.err("available_tags", "BASE_TYPE_MAX_LENGTH", &msg);
        return None;
    }
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let path = vec!["available_tags".to_owned(), i.to_string()];
        let Some(mut t) = form::item(&mut *r.errs, path, item) else {
            continue;
        };
        let id = t.snowflake("id").set();
        let name = t.string_len("name", 1, 20);
        let name = t.require("name", name);
        let moderated = t.boolean("moderated").set().unwrap_or(false);
        let emoji_id = t.snowflake("emoji_id").set();
        let emoji_name = t.string("emoji_name").set();
        if let Some(name) = name {
            out.push(TagInput {
                id,
                name,
                moderated,
                emoji_id,
                emoji_name,
            });
        }
    }
    Some(out)
}

/// `default_reaction_emoji`: `{emoji_id, emoji_name}` or null; one with
/// neither emoji is no default reaction.
fn read_reaction(r: &mut Reader) -> Option<Option<DefaultReaction>> {
    let obj = r.obj;
    match obj.get("default_reaction_emoji")? {
        Value::Null => Some(None),
        v => {
            let path = vec!["default_reaction_emoji".to_owned()];
            let mut e = form::item(&mut *r.errs, path, v)?;
            let emoji_id = e.snowflake("emoji_id").set();
            let emoji_name = e.string("emoji_name").set();
            let any = emoji_id.is_some() || emoji_name.is_some();
            Some(any.then_some(DefaultReaction {
                emoji_id,
                emoji_name,
            }))
        }
    }
}

/// The tags an update (or create, with no `old`) leaves: the whole list as
/// sent (§9.5). An id naming one of `old` keeps it, once; every other tag
/// gets a new snowflake, as ids are the server's to assign.
fn resolve_tags(old: &[ForumTag], sent: Vec<TagInput>, snow: &mut SnowflakeGen) -> Vec<ForumTag> {
    let mut out: Vec<ForumTag> = Vec::new();
    for t in sent {
        let id = match t.id {
            Some(id) if old.iter().any(|o| o.id == id) && !out.iter().any(|o| o.id == id) => id,
            _ => snow.next_id(),
        };
        out.push(ForumTag {
            id,
            name: t.name,
            moderated: t.moderated,
            emoji_id: t.emoji_id,
            emoji_name: t.emoji_name,
        });
    }
    out
}

/// Type choices for create; the odd set is what Discord prints (§2.1).
fn type_choices(g: &Guild) -> (&'static [i64], &'static str) {
    if g.has_feature("NEWS") {
        (&[0, 2, 4, 5, 13, 15, 16], "{0, 2, 4, 5, 6, 13, 14, 15, 16}")
    } else {
        (&[0, 2, 4, 13, 15, 16], "{0, 2, 4, 6, 13, 14, 15, 16}")
    }
}

fn bitrate_max(g: &Guild, kind: u8) -> i64 {
    if kind == 13 {
        return 64_000;
    }
    if g.has_feature("VIP_REGIONS") {
        return 384_000;
    }
    match g.premium_tier {
        0 => 96_000,
        1 => 128_000,
        2 => 256_000,
        _ => 384_000,
    }
}

/// Reads channel fields valid for `kind`; fields that do not apply to the type
/// are ignored, as Discord does (§4.2).
fn read_channel(
    r: &mut Reader,
    g: &Guild,
    kind: u8,
    create: bool,
    moving: Option<&str>,
    collapse_inner: bool,
) -> ChanFields {
    let mut f = ChanFields::default();
    // Every type's name is stored normalised (§4.2, §9.2); the 1–100 limit
    // applies to what is stored.
    match r.stored_name("name", 1, 100, |n| {
        stored_channel_name_with(kind, n, collapse_inner)
    }) {
        Field::Set(n) => f.name = Some(n),
        Field::Null => r.required("name"),
        Field::Absent if create && !r.has("name") => r.required("name"),
        Field::Absent => {}
    }
    f.position = r.int("position").set();
    f.nsfw = r.boolean("nsfw").set();
    if takes_flags(kind)
        && let Field::Set(fl) = r.int_range("flags", 0, i64::from(i32::MAX))
    {
        f.flags = Some(channel_flags(kind, fl as u64));
    }
    f.overwrites = read_overwrites(r, "permission_overwrites");
    if kind != 4 {
        let p = r.snowflake("parent_id");
        if let Field::Set(pid) = &p {
            match g.channel(pid) {
                Some(c) if c.kind == 4 => {
                    let children = g
                        .channels
                        .iter()
                        .filter(|c| {
                            c.parent_id.as_deref() == Some(pid) && Some(c.id.as_str()) != moving
                        })
                        .count();
                    if children >= MAX_CATEGORY_CHILDREN {
                        r.err(
                            "parent_id",
                            "CHANNEL_PARENT_MAX_CHANNELS",
                            "Maximum number of channels in category reached (50)",
                        );
                    }
                }
                _ => r.err("parent_id", "CHANNEL_PARENT_INVALID_TYPE", "Not a category"),
            }
        }
        f.parent_id = p.into_option();
    }
    if is_text_like(kind) {
        let max = if matches!(kind, 15 | 16) { 4096 } else { 1024 };
        f.topic = r.string_len("topic", 0, max).into_option();
        if let Field::Set(d) = r.int_choice(
            "default_auto_archive_duration",
            &[60, 1440, 4320, 10080],
            "(60, 1440, 4320, 10080)",
        ) {
            f.auto_archive = Some(d as u32);
        }
        // On create for every text-like type; on modify not for announcement channels
        // (§4.2), where Discord ignores it like any field that does not apply.
        if (create || kind != 5)
            && let Field::Set(d) = r.int_range("default_thread_rate_limit_per_user", 0, 21600)
        {
            f.thread_rate_limit = Some(d as u32);
        }
    }
    if is_forum_like(kind) {
        f.tags = read_tags(r);
        f.reaction = read_reaction(r);
        f.sort_order = r
            .int_choice("default_sort_order", &[0, 1], "(0, 1)")
            .into_option()
            .map(|v| v.map(|n| n as u8));
    }
    if kind == 15 {
        // Null is "not set", which the API shows as 0.
        f.layout = r
            .int_choice("default_forum_layout", &[0, 1, 2], "(0, 1, 2)")
            .into_option()
            .map(|v| v.unwrap_or(0) as u8);
    }
    if kind != 4
        && kind != 5
        && let Field::Set(v) = r.int_range("rate_limit_per_user", 0, 21600)
    {
        f.rate_limit = Some(v as u32);
    }
    if is_voice_like(kind) {
        if let Field::Set(v) = r.int_range("bitrate", 8000, bitrate_max(g, kind)) {
            f.bitrate = Some(v as u32);
        }
        let umax = if kind == 13 { 10_000 } else { 99 };
        if let Field::Set(v) = r.int_range("user_limit", 0, umax) {
            f.user_limit = Some(v as u32);
        }
        f.rtc_region = r.string("rtc_region").into_option();
        if let Field::Set(v) = r.int_choice("video_quality_mode", &[1, 2], "(1, 2)") {
            f.video_quality_mode = Some(v as u8);
        }
    }
    f
}

fn channel_snapshot(c: &Channel) -> Vec<(&'static str, Value)> {
    // Null where a field does not apply, so creates of other types omit it.
    let tags = if is_forum_like(c.kind) {
        json!(c.available_tags)
    } else {
        Value::Null
    };
    let layout = if c.kind == 15 {
        json!(c.default_forum_layout)
    } else {
        Value::Null
    };
    vec![
        ("name", json!(c.name)),
        ("type", json!(c.kind)),
        ("position", json!(c.position)),
        ("parent_id", json!(c.parent_id)),
        ("topic", json!(c.topic)),
        ("nsfw", json!(c.nsfw)),
        ("rate_limit_per_user", json!(c.rate_limit_per_user)),
        ("bitrate", json!(c.bitrate)),
        ("user_limit", json!(c.user_limit)),
        ("rtc_region", json!(c.rtc_region)),
        ("video_quality_mode", json!(c.video_quality_mode)),
        (
            "default_auto_archive_duration",
            json!(c.default_auto_archive_duration),
        ),
        (
            "default_thread_rate_limit_per_user",
            json!(c.default_thread_rate_limit_per_user),
        ),
        ("flags", json!(c.flags)),
        ("available_tags", tags),
        ("default_reaction_emoji", json!(c.default_reaction_emoji)),
        ("default_sort_order", json!(c.default_sort_order)),
        ("default_forum_layout", layout),
    ]
}

pub async fn get_channels(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    // Channels the caller cannot view are left out entirely (§9.1).
    let viewable = viewable_channels(g, &call.actor);
    ok(Value::Array(
        g.channels
            .iter()
            .enumerate()
            .filter(|(i, _)| viewable.as_ref().is_none_or(|v| v[*i]))
            .map(|(_, c)| render::channel(&g.id, c))
            .collect(),
    ))
}

pub async fn post_channel(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let collapse = st.config.collapse_inner_whitespace;
    let max_categories = st.config.max_categories;
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_CHANNELS)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let (choices, shown) = type_choices(g);
    let kind = match r.int_choice("type", choices, shown) {
        Field::Set(k) => k as u8,
        _ => 0,
    };
    let f = read_channel(&mut r, g, kind, true, None, collapse);
    errs.check()?;
    check_spoiler(
        f.flags.unwrap_or(0),
        f.nsfw.unwrap_or(false),
        f.flags.is_some(),
    )?;
    if g.channels.len() >= MAX_CHANNELS {
        return Err(ApiError::bad_request(
            30013,
            "Maximum number of guild channels reached (500)",
        ));
    }
    if let Some(max) = max_categories
        && kind == 4
        && g.channels.iter().filter(|c| c.kind == 4).count() >= max
    {
        return Err(ApiError::bad_request(
            30030,
            &format!("Maximum number of server categories has been reached ({max})"),
        ));
    }
    let parent = f.parent_id.clone().flatten();
    if let Some(pid) = &parent
        && let Some(p) = g.channel(pid)
    {
        need_in_channel(g, p, actor, Permissions::MANAGE_CHANNELS)?;
    }
    // Without overwrites the category's are copied; with them, exactly those (§4.5).
    let overwrites = match f.overwrites {
        Some(o) => {
            if !o.is_empty() {
                need(guild_permissions(g, actor), Permissions::MANAGE_ROLES)?;
            }
            check_overwrite_targets(g, &o)?;
            check_overwrite_grants(g, actor, &[], &o)?;
            o
        }
        None => parent
            .as_ref()
            .and_then(|p| g.channel(p))
            .map(|p| p.permission_overwrites.clone())
            .unwrap_or_default(),
    };
    let voice = is_voice_like(kind);
    let position = f
        .position
        .unwrap_or_else(|| bottom_position(g, kind, &parent));
    let mut ch = Channel {
        id: snowflake.next_id(),
        kind,
        name: f.name.unwrap_or_default(),
        position,
        parent_id: parent,
        permission_overwrites: overwrites,
        topic: f.topic.flatten(),
        nsfw: f.nsfw.unwrap_or(false),
        flags: f.flags.unwrap_or(0),
        rate_limit_per_user: (kind != 4).then_some(f.rate_limit.unwrap_or(0)),
        bitrate: voice.then_some(f.bitrate.unwrap_or(64000)),
        user_limit: voice.then_some(f.user_limit.unwrap_or(0)),
        rtc_region: f.rtc_region.flatten(),
        video_quality_mode: f.video_quality_mode,
        default_auto_archive_duration: f.auto_archive,
        default_thread_rate_limit_per_user: f.thread_rate_limit,
        available_tags: Vec::new(),
        default_reaction_emoji: f.reaction.flatten(),
        default_sort_order: f.sort_order.flatten(),
        default_forum_layout: f.layout.unwrap_or(0),
    };
    if let Some(tags) = f.tags {
        ch.available_tags = resolve_tags(&[], tags, snowflake);
    }
    let mut changes = snapshot_changes(channel_snapshot(&ch), true);
    changes.push(change(
        "permission_overwrites",
        Value::Null,
        json!(ch.permission_overwrites),
    ));
    let out = render::channel(&g.id, &ch);
    let created = events::channel(events::CHANNEL_CREATE, &g.id, &ch);
    let cid = ch.id.clone();
    g.channels.push(ch);
    Entry::on(CHANNEL_CREATE, &cid)
        .changes(changes)
        .by(actor, call.reason())
        .record(g, snowflake);
    fired(
        Ok((StatusCode::CREATED, Json(out)).into_response()),
        [created],
    )
}

pub async fn get_channel(AxState(app): AxState<App>, ctx: Ctx, Path(cid): Path<String>) -> R {
    let st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    // A channel hidden from the caller (§9.1) is Missing Access, as writes to
    // it are (§2.3: 50001 "cannot see the resource/channel"); a 404 would
    // hide nothing a PATCH does not reveal.
    if !can_view_channel(g, ci, &ctx.user_id) {
        return Err(ApiError::missing_access());
    }
    ok(render::channel(&g.id, &g.channels[ci]))
}

fn is_community_channel(g: &Guild, cid: &str) -> bool {
    g.has_feature("COMMUNITY")
        && (g.rules_channel_id.as_deref() == Some(cid)
            || g.public_updates_channel_id.as_deref() == Some(cid))
}

pub async fn patch_channel(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(cid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let State {
        guilds,
        snowflake,
        config,
        ..
    } = &mut *st;
    let collapse = config.collapse_inner_whitespace;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_CHANNELS)?;
    let obj = form::object(&body)?;
    let cur_kind = g.channels[ci].kind;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    // Type changes: only text ↔ announcement, announcement needs NEWS (§4.6).
    let mut new_kind = cur_kind;
    if let Field::Set(k) = r.int("type") {
        // Out-of-range numbers must not wrap into a valid type.
        let k = u8::try_from(k).unwrap_or(u8::MAX);
        if k != cur_kind {
            let allowed: &[u8] = if g.has_feature("NEWS") { &[0, 5] } else { &[0] };
            if !matches!(cur_kind, 0 | 5) || !allowed.contains(&k) {
                let shown = if g.has_feature("NEWS") {
                    "{0, 5}"
                } else {
                    "{0}"
                };
                r.err(
                    "type",
                    "BASE_TYPE_CHOICES",
                    &format!("Value must be one of {shown}."),
                );
            } else {
                new_kind = k;
            }
        }
    }
    let f = read_channel(&mut r, g, new_kind, false, Some(&cid), collapse);
    errs.check()?;
    {
        let c = &g.channels[ci];
        check_spoiler(
            f.flags.unwrap_or(c.flags),
            f.nsfw.unwrap_or(c.nsfw),
            f.flags.is_some(),
        )?;
    }
    if new_kind == 5 && is_community_channel(g, &cid) {
        return Err(ApiError::bad_request(
            50086,
            "Community server channels must be text channels",
        ));
    }
    if let Some(ows) = &f.overwrites {
        need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_ROLES)?;
        check_overwrite_targets(g, ows)?;
        check_overwrite_grants(g, actor, &g.channels[ci].permission_overwrites, ows)?;
    }
    if let Some(Some(pid)) = &f.parent_id
        && let Some(p) = g.channel(pid)
    {
        need_in_channel(g, p, actor, Permissions::MANAGE_CHANNELS)?;
    }
    let c = &mut g.channels[ci];
    let before = channel_snapshot(c);
    c.kind = new_kind;
    if let Some(n) = f.name {
        c.name = n;
    }
    if let Some(t) = f.topic {
        c.topic = t;
    }
    if let Some(p) = f.position {
        c.position = p;
    }
    if let Some(p) = f.parent_id {
        c.parent_id = p;
    }
    if let Some(n) = f.nsfw {
        c.nsfw = n;
    }
    if let Some(v) = f.rate_limit {
        c.rate_limit_per_user = Some(v);
    }
    if let Some(v) = f.bitrate {
        c.bitrate = Some(v);
    }
    if let Some(v) = f.user_limit {
        c.user_limit = Some(v);
    }
    if let Some(v) = f.rtc_region {
        c.rtc_region = v;
    }
    if let Some(v) = f.video_quality_mode {
        c.video_quality_mode = Some(v);
    }
    if let Some(v) = f.auto_archive {
        c.default_auto_archive_duration = Some(v);
    }
    if let Some(v) = f.thread_rate_limit {
        c.default_thread_rate_limit_per_user = Some(v);
    }
    if let Some(v) = f.flags {
        c.flags = v;
    }
    if let Some(tags) = f.tags {
        c.available_tags = resolve_tags(&c.available_tags, tags, snowflake);
    }
    if let Some(v) = f.reaction {
        c.default_reaction_emoji = v;
    }
    if let Some(v) = f.sort_order {
        c.default_sort_order = v;
    }
    if let Some(v) = f.layout {
        c.default_forum_layout = v;
    }
    let changes = diff_snapshots(before, channel_snapshot(c));
    if !changes.is_empty() {
        Entry::on(CHANNEL_UPDATE, &cid)
            .changes(changes)
            .by(actor, ctx.reason.as_deref())
            .record(g, snowflake);
    }
    // permission_overwrites replaces the whole set (§4.2) and logs 13/14/15.
    if let Some(ows) = f.overwrites {
        let old = g.channels[ci].permission_overwrites.clone();
        set_overwrites(g, ci, ows.clone());
        log_overwrite_diff(g, snowflake, actor, ctx.reason.as_deref(), &cid, &old, &ows);
    }
    fired(
        ok(render::channel(&g.id, &g.channels[ci])),
        [events::channel(
            events::CHANNEL_UPDATE,
            &g.id,
            &g.channels[ci],
        )],
    )
}

pub async fn delete_channel(AxState(app): AxState<App>, ctx: Ctx, Path(cid): Path<String>) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let actor = ctx.user_id.as_str();
    need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_CHANNELS)?;
    if is_community_channel(g, &cid) {
        return Err(ApiError::bad_request(
            50074,
            "Cannot delete a channel required for Community guilds",
        ));
    }
    let c = g.channels.remove(ci);
    let mut changes = snapshot_changes(channel_snapshot(&c), false);
    changes.push(change(
        "permission_overwrites",
        json!(c.permission_overwrites),
        Value::Null,
    ));
    Entry::on(CHANNEL_DELETE, &cid)
        .changes(changes)
        .by(actor, ctx.reason.as_deref())
        .record(g, snowflake);
    // A deleted category orphans its children, each a CHANNEL_UPDATE (§4.6).
    if c.kind == 4 {
        let orphans: Vec<String> = g
            .channels
            .iter_mut()
            .filter(|x| x.parent_id.as_deref() == Some(&cid))
            .map(|x| {
                x.parent_id = None;
                x.id.clone()
            })
            .collect();
        for id in orphans {
            let ch = vec![change("parent_id", json!(cid), Value::Null)];
            Entry::on(CHANNEL_UPDATE, &id)
                .changes(ch)
                .by(actor, None)
                .record(g, snowflake);
        }
    }
    g.forget_channel(&cid);
    fired(
        ok(render::channel(&g.id, &c)),
        [events::channel(events::CHANNEL_DELETE, &g.id, &c)],
    )
}

/// `PATCH /guilds/{g}/channels`: positions, parents and lock_permissions.
/// 204; takes no audit reason (§7.1) but logs CHANNEL_UPDATE entries.
pub async fn patch_channel_positions(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_CHANNELS)?;
    let items = form::list(&body)?;
    struct Move {
        ci: usize,
        position: Option<i64>,
        parent: Option<Option<String>>,
        lock: bool,
    }
    let mut errs = FieldErrors::default();
    let mut moves = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(mut r) = form::item(&mut errs, vec![i.to_string()], item) else {
            continue;
        };
        let id = r.snowflake("id");
        let position = r.int("position").set();
        let parent = r.snowflake("parent_id").into_option();
        let lock = r.boolean("lock_permissions").set().unwrap_or(false);
        // Null or missing is BASE_TYPE_REQUIRED; a non-snowflake already has its error.
        let Some(id) = r.require("id", id) else {
            continue;
        };
        let Some(ci) = g.channels.iter().position(|c| c.id == id) else {
            return Err(ApiError::unknown_channel());
        };
        if let Some(Some(pid)) = &parent {
            match g.channel(pid) {
                Some(p) if p.kind == 4 && g.channels[ci].kind != 4 => {
                    let n = g
                        .channels
                        .iter()
                        .filter(|c| c.parent_id.as_deref() == Some(pid) && c.id != id)
                        .count();
                    if n >= MAX_CATEGORY_CHILDREN {
                        r.err(
                            "parent_id",
                            "CHANNEL_PARENT_MAX_CHANNELS",
                            "Maximum number of channels in category reached (50)",
                        );
                    }
                }
                _ => r.err("parent_id", "CHANNEL_PARENT_INVALID_TYPE", "Not a category"),
            }
        }
        moves.push(Move {
            ci,
            position,
            parent,
            lock,
        });
    }
    errs.check()?;
    let parent_changes = moves
        .iter()
        .filter(|m| {
            m.parent
                .as_ref()
                .is_some_and(|p| *p != g.channels[m.ci].parent_id)
        })
        .count();
    if parent_changes > 1 {
        return Err(ApiError::bad_request(
            40009,
            "Only one channel can have parent_id modified at a time",
        ));
    }
    for m in &moves {
        let c = &g.channels[m.ci];
        let moving = m.parent.as_ref().is_some_and(|p| *p != c.parent_id);
        if moving || m.lock {
            // Changing parent needs to see the channel (50001) and manage it.
            need_in_channel(g, c, actor, Permissions::MANAGE_CHANNELS)?;
        }
        if m.lock {
            need(guild_permissions(g, actor), Permissions::MANAGE_ROLES)?;
        }
    }
    // The channels that changed, in the order of the body, each sent as it is at the end.
    let mut changed = Vec::new();
    for m in moves {
        let cid = g.channels[m.ci].id.clone();
        let mut changes = Vec::new();
        if let Some(p) = m.position {
            diff(
                &mut changes,
                "position",
                json!(g.channels[m.ci].position),
                json!(p),
            );
            g.channels[m.ci].position = p;
        }
        if let Some(p) = m.parent {
            diff(
                &mut changes,
                "parent_id",
                json!(g.channels[m.ci].parent_id),
                json!(p),
            );
            g.channels[m.ci].parent_id = p;
        }
        let moved = !changes.is_empty();
        if moved {
            Entry::on(CHANNEL_UPDATE, &cid)
                .changes(changes)
                .by(actor, None)
                .record(g, snowflake);
        }
        if moved || m.lock {
            // Several Channel Update: one per channel that changed (the reference's Events).
            changed.push(m.ci);
        }
        if m.lock
            && let Some(pid) = g.channels[m.ci].parent_id.clone()
            && let Some(p) = g.channel(&pid)
        {
            // lock_permissions copies the (new) parent's overwrites.
            let new = p.permission_overwrites.clone();
            let old = g.channels[m.ci].permission_overwrites.clone();
            set_overwrites(g, m.ci, new.clone());
            log_overwrite_diff(g, snowflake, actor, None, &cid, &old, &new);
        }
    }
    let fires: Vec<_> = changed
        .into_iter()
        .map(|ci| events::channel(events::CHANNEL_UPDATE, &g.id, &g.channels[ci]))
        .collect();
    fired(no_content(), fires)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_keep_what_the_type_takes() {
        let all = PINNED | REQUIRE_TAG | HIDE_MEDIA_DOWNLOAD_OPTIONS | IS_SPOILER_CHANNEL;
        assert_eq!(
            channel_flags(16, all),
            REQUIRE_TAG | HIDE_MEDIA_DOWNLOAD_OPTIONS | IS_SPOILER_CHANNEL
        );
        assert_eq!(channel_flags(15, all), REQUIRE_TAG | IS_SPOILER_CHANNEL);
        assert_eq!(channel_flags(0, all), IS_SPOILER_CHANNEL);
        assert_eq!(channel_flags(2, all), IS_SPOILER_CHANNEL);
        assert_eq!(channel_flags(13, all), 0, "no spoiler stage channels");
        // A bit Discord does not document survives.
        assert_eq!(channel_flags(0, 1 << 30), 1 << 30);
        assert!(check_spoiler(IS_SPOILER_CHANNEL, true, true).is_err());
        assert!(check_spoiler(IS_SPOILER_CHANNEL, false, true).is_ok());
        assert!(check_spoiler(0, true, true).is_ok());
    }
}
