//! Webhook routes (docs/discord.md §6): create and list per channel, list
//! per guild, get/modify/delete by id (bot auth) and by token (no auth).
//!
//! The token is a credential: it is shown only to the application that created
//! the webhook and to whoever calls a token route (they sent it), never written
//! to the audit log, and cut from recorded paths
//! (`request_log::redact_webhook_token`).

use axum::extract::{Path, State as AxState};
use serde_json::{Value, json};

use super::error::{ApiError, FieldErrors};
use super::form::{self, Field, Reader};
use super::perms::guild_permissions;
use super::render;
use super::state::{AuditEntry, Guild, State, Webhook};
use crate::access::{InGuild, channel_loc, digits, guild_idx, need, need_in_channel};
use crate::app::{App, Ctx, JsonBody, lock};
use crate::app::{R, fired, no_content, ok};
use crate::audit_log::action::{WEBHOOK_CREATE, WEBHOOK_DELETE, WEBHOOK_UPDATE};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::events::{self, Dispatch};
use crate::form::image_hash;
use crate::names::stored_display_name;
use discord_permissions::Permissions;

const MAX_PER_CHANNEL: usize = 15;
const MAX_PER_GUILD: usize = 1000;

/// Channel types that hold webhooks: everything with messages (text,
/// voice's text chat, announcement, stage, forum, media); not categories.
fn holds_webhooks(kind: u8) -> bool {
    matches!(kind, 0 | 2 | 5 | 13 | 15 | 16)
}

/// `name`: stored as nicknames are (trimmed, inner whitespace runs collapsed;
/// §6, §9.2), then 1–80 characters and without "clyde" or "discord" in any
/// case. `required` for create.
fn read_name(r: &mut Reader, required: bool) -> Option<String> {
    let raw = match r.string("name") {
        Field::Absent if !required => return None,
        // Null is refused on modify too: a webhook always has a name.
        f => r.require("name", f)?,
    };
    let name = stored_display_name(&raw);
    if !(1..=80).contains(&name.chars().count()) {
        r.err(
            "name",
            "BASE_TYPE_BAD_LENGTH",
            "Must be between 1 and 80 in length.",
        );
        return None;
    }
    let lower = name.to_lowercase();
    if let Some(word) = ["clyde", "discord"].into_iter().find(|w| lower.contains(w)) {
        r.err(
            "name",
            "USERNAME_INVALID_CONTAINS",
            &format!("Username cannot contain \"{word}\""),
        );
        return None;
    }
    Some(name)
}

pub(crate) fn snapshot(w: &Webhook) -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!(w.name)),
        ("type", json!(w.kind)),
        ("channel_id", json!(w.channel_id)),
        // Audit logs name the image by its hash (§6).
        ("avatar_hash", json!(w.avatar)),
    ]
}

/// Renders with the creator, and the token if `caller` created it.
fn show(st: &State, g: &Guild, w: &Webhook, caller: &str) -> Value {
    let creator = w.user_id.as_deref().and_then(|u| st.user(u));
    let own = w.application_id.as_deref() == Some(st.application_id(caller).as_str());
    render::webhook(&g.id, w, creator, own)
}

/// The room left for webhooks in channel `cid` and in the guild.
pub(crate) fn check_room(g: &Guild, cid: &str) -> Result<(), ApiError> {
    if g.webhooks.len() >= MAX_PER_GUILD {
        return Err(ApiError::bad_request(
            30058,
            "Maximum number of webhooks per guild reached (1000)",
        ));
    }
    let here = g
        .webhooks
        .iter()
        .filter(|w| w.channel_id.as_deref() == Some(cid))
        .count();
    if here >= MAX_PER_CHANNEL {
        return Err(ApiError::bad_request(
            30007,
            "Maximum number of webhooks reached (15)",
        ));
    }
    Ok(())
}

pub(crate) fn wrong_channel_type() -> ApiError {
    ApiError::bad_request(50024, "Cannot execute action on this channel type")
}

/// `POST /channels/{c}/webhooks` → 200 with the token (§8: create is 200).
pub async fn post_webhook(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(cid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let actor = ctx.user_id.as_str();
    {
        let g = &st.guilds[gi];
        need_in_channel(g, &g.channels[ci], actor, Permissions::MANAGE_WEBHOOKS)?;
    }
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = read_name(&mut r, true);
    let avatar = r.image("avatar").set();
    errs.check()?;
    let g = &st.guilds[gi];
    if !holds_webhooks(g.channels[ci].kind) {
        return Err(wrong_channel_type());
    }
    check_room(g, &cid)?;
    let application_id = st.application_id(actor);
    let State {
        guilds, snowflake, ..
    } = &mut *st;
    let g = &mut guilds[gi];
    let w = Webhook {
        id: snowflake.next_id(),
        kind: 1,
        channel_id: Some(cid.clone()),
        name: name.unwrap_or_default(),
        avatar: avatar.map(|a| image_hash(&a)),
        token: Some(super::random_webhook_token()),
        application_id: Some(application_id),
        user_id: Some(actor.to_owned()),
        source_guild: None,
        source_channel: None,
    };
    let wid = w.id.clone();
    let changes = snapshot_changes(snapshot(&w), true);
    g.webhooks.push(w);
    Entry::on(WEBHOOK_CREATE, &wid)
        .changes(changes)
        .by(actor, ctx.reason.as_deref())
        .record(g, snowflake);
    let g = &st.guilds[gi];
    let w = g.webhooks.last().ok_or_else(ApiError::unknown_webhook)?;
    fired(
        ok(show(&st, g, w, actor)),
        [events::webhooks_update(&g.id, Some(&cid))],
    )
}

/// `GET /channels/{c}/webhooks`: MANAGE_WEBHOOKS in that channel.
pub async fn get_channel_webhooks(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(cid): Path<String>,
) -> R {
    let st = lock(&app.state);
    let (gi, ci) = channel_loc(&st, &cid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    need_in_channel(
        g,
        &g.channels[ci],
        &ctx.user_id,
        Permissions::MANAGE_WEBHOOKS,
    )?;
    if g.channels[ci].kind == 4 {
        return Err(wrong_channel_type());
    }
    ok(Value::Array(
        g.webhooks
            .iter()
            .filter(|w| w.channel_id.as_deref() == Some(&cid))
            .map(|w| show(&st, g, w, &ctx.user_id))
            .collect(),
    ))
}

/// `GET /guilds/{g}/webhooks`: MANAGE_WEBHOOKS in the guild.
pub async fn get_guild_webhooks(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(
        guild_permissions(g, &call.actor),
        Permissions::MANAGE_WEBHOOKS,
    )?;
    ok(Value::Array(
        g.webhooks
            .iter()
            .map(|w| show(&st, g, w, &call.actor))
            .collect(),
    ))
}

/// (guild index, webhook index) of webhook `wid`, if it exists.
fn find(st: &State, wid: &str) -> Result<(usize, usize), ApiError> {
    digits(wid)?;
    st.guilds
        .iter()
        .enumerate()
        .find_map(|(gi, g)| {
            g.webhooks
                .iter()
                .position(|w| w.id == wid)
                .map(|wi| (gi, wi))
        })
        .ok_or_else(ApiError::unknown_webhook)
}

/// (guild, webhook) indices for a bot call: the caller must be in the guild
/// and hold MANAGE_WEBHOOKS where the webhook lives, unless `owner_may` and
/// its application created it (Get Webhook).
fn find_managed(
    st: &State,
    wid: &str,
    actor: &str,
    owner_may: bool,
) -> Result<(usize, usize), ApiError> {
    let (gi, wi) = find(st, wid)?;
    let g = &st.guilds[gi];
    let gi = guild_idx(st, &g.id, actor)?;
    let w = &g.webhooks[wi];
    if owner_may && w.application_id.as_deref() == Some(st.application_id(actor).as_str()) {
        return Ok((gi, wi));
    }
    match w.channel_id.as_deref().and_then(|c| g.channel(c)) {
        Some(c) => need_in_channel(g, c, actor, Permissions::MANAGE_WEBHOOKS)?,
        None => need(guild_permissions(g, actor), Permissions::MANAGE_WEBHOOKS)?,
    }
    Ok((gi, wi))
}

/// (guild, webhook) indices for a token call: unknown id 10015, wrong token
/// 401 50027 (§6).
pub(crate) fn find_by_token(
    st: &State,
    wid: &str,
    token: &str,
) -> Result<(usize, usize), ApiError> {
    let (gi, wi) = find(st, wid)?;
    match &st.guilds[gi].webhooks[wi].token {
        Some(t) if t == token => Ok((gi, wi)),
        _ => Err(ApiError::invalid_webhook_token()),
    }
}

pub async fn get_webhook(AxState(app): AxState<App>, ctx: Ctx, Path(wid): Path<String>) -> R {
    let st = lock(&app.state);
    let (gi, wi) = find_managed(&st, &wid, &ctx.user_id, true)?;
    let g = &st.guilds[gi];
    ok(show(&st, g, &g.webhooks[wi], &ctx.user_id))
}

pub async fn get_webhook_with_token(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
) -> R {
    let st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let g = &st.guilds[gi];
    ok(token_view(&g.id, &g.webhooks[wi]))
}

/// What the token routes return: no `user` (§6), and the token, which the
/// caller sent in the path and so already holds.
fn token_view(guild_id: &str, w: &Webhook) -> Value {
    render::webhook(guild_id, w, None, true)
}

/// The body of Modify Webhook; `channel_id` only with bot auth.
struct WebhookEdit {
    name: Option<String>,
    avatar: Option<Option<String>>,
    channel_id: Option<String>,
}

fn read_edit(body: &Value, with_channel: bool) -> Result<WebhookEdit, ApiError> {
    let obj = form::object(body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = read_name(&mut r, false);
    let avatar = r.image("avatar").into_option();
    // Token calls cannot move a webhook: the field is not even read.
    let channel_id = if with_channel {
        match r.snowflake("channel_id") {
            Field::Absent => None,
            f => r.require("channel_id", f),
        }
    } else {
        None
    };
    errs.check()?;
    Ok(WebhookEdit {
        name,
        avatar,
        channel_id,
    })
}

/// Applies an edit and logs WEBHOOK_UPDATE (51) when something changed.
fn apply_edit(st: &mut State, gi: usize, wi: usize, edit: WebhookEdit, who: Who) {
    let State {
        guilds, snowflake, ..
    } = st;
    let g = &mut guilds[gi];
    let w = &mut g.webhooks[wi];
    let before = snapshot(w);
    if let Some(n) = edit.name {
        w.name = n;
    }
    if let Some(a) = edit.avatar {
        w.avatar = a.map(|data| image_hash(&data));
    }
    if let Some(c) = edit.channel_id {
        w.channel_id = Some(c);
    }
    let changes = diff_snapshots(before, snapshot(w));
    let wid = w.id.clone();
    if !changes.is_empty() {
        log(g, snowflake, who, WEBHOOK_UPDATE, &wid, changes);
    }
}

/// Who made a webhook change: a bot (with its reason), or an anonymous
/// token holder, logged without a user (Discord's attribution of token
/// calls is undocumented).
enum Who<'a> {
    Bot {
        user: &'a str,
        reason: Option<&'a str>,
    },
    Token,
}

fn log(
    g: &mut Guild,
    snow: &mut super::state::SnowflakeGen,
    who: Who,
    action: u32,
    wid: &str,
    changes: Vec<super::state::AuditChange>,
) {
    match who {
        Who::Bot { user, reason } => Entry::on(action, wid)
            .changes(changes)
            .by(user, reason)
            .record(g, snow),
        Who::Token => g.audit_log.push(AuditEntry {
            id: snow.next_id(),
            action_type: action,
            user_id: None,
            target_id: Some(wid.to_owned()),
            changes,
            options: None,
            reason: None,
        }),
    }
}

pub async fn patch_webhook(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(wid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_managed(&st, &wid, &ctx.user_id, false)?;
    let actor = ctx.user_id.as_str();
    let edit = read_edit(&body, true)?;
    if let Some(target) = &edit.channel_id {
        // Moves stay within the guild and need MANAGE_WEBHOOKS there too (§6).
        let g = &st.guilds[gi];
        let c = g.channel(target).ok_or_else(ApiError::unknown_channel)?;
        need_in_channel(g, c, actor, Permissions::MANAGE_WEBHOOKS)?;
        if !holds_webhooks(c.kind) {
            return Err(wrong_channel_type());
        }
        if g.webhooks[wi].channel_id.as_deref() != Some(target) {
            check_room(g, target)?;
        }
    }
    let who = Who::Bot {
        user: actor,
        reason: ctx.reason.as_deref(),
    };
    let left = st.guilds[gi].webhooks[wi].channel_id.clone();
    apply_edit(&mut st, gi, wi, edit, who);
    let g = &st.guilds[gi];
    let w = &g.webhooks[wi];
    fired(ok(show(&st, g, w, actor)), channels_updated(&g.id, left, w))
}

pub async fn patch_webhook_with_token(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    // No channel_id here: the field is ignored, as unknown fields are.
    let edit = read_edit(&body, false)?;
    let left = st.guilds[gi].webhooks[wi].channel_id.clone();
    apply_edit(&mut st, gi, wi, edit, Who::Token);
    let g = &st.guilds[gi];
    let w = &g.webhooks[wi];
    fired(ok(token_view(&g.id, w)), channels_updated(&g.id, left, w))
}

/// WEBHOOKS_UPDATE for the channel webhook `w` was in (`left`) and, when it moved, for
/// the one it is in now: each channel's list of webhooks changed.
fn channels_updated(guild_id: &str, left: Option<String>, w: &Webhook) -> Vec<Dispatch> {
    match (left.as_deref(), w.channel_id.as_deref()) {
        (Some(a), Some(b)) if a != b => vec![
            events::webhooks_update(guild_id, Some(a)),
            events::webhooks_update(guild_id, Some(b)),
        ],
        (a, b) => vec![events::webhooks_update(guild_id, a.or(b))],
    }
}

/// Deletes webhook (gi, wi) and logs it; fires WEBHOOKS_UPDATE for its channel.
fn remove(st: &mut State, gi: usize, wi: usize, who: Who) -> Dispatch {
    let State {
        guilds, snowflake, ..
    } = st;
    let g = &mut guilds[gi];
    let w = g.webhooks.remove(wi);
    let update = events::webhooks_update(&g.id, w.channel_id.as_deref());
    log(
        g,
        snowflake,
        who,
        WEBHOOK_DELETE,
        &w.id,
        snapshot_changes(snapshot(&w), false),
    );
    update
}

pub async fn delete_webhook(AxState(app): AxState<App>, ctx: Ctx, Path(wid): Path<String>) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_managed(&st, &wid, &ctx.user_id, false)?;
    let who = Who::Bot {
        user: &ctx.user_id,
        reason: ctx.reason.as_deref(),
    };
    let deleted = remove(&mut st, gi, wi, who);
    fired(no_content(), [deleted])
}

pub async fn delete_webhook_with_token(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let deleted = remove(&mut st, gi, wi, Who::Token);
    fired(no_content(), [deleted])
}
