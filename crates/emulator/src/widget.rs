//! The guild widget (docs/discord.md §5.5): settings under
//! `/guilds/{g}/widget` (MANAGE_GUILD) and the public `widget.json`.

use axum::extract::{Path, State as AxState};
use serde_json::{Value, json};

use super::error::{ApiError, FieldErrors};
use super::form::{self, Field, Reader};
use super::perms::{everyone_permissions, guild_permissions};
use super::render;
use super::state::Guild;
use crate::access::{InGuild, digits, guild_for_write, need};
use crate::app::{App, JsonBody, lock};
use crate::app::{R, fired, ok};
use crate::audit_log::action::GUILD_UPDATE;
use crate::audit_log::{Entry, diff};
use crate::events;
use discord_permissions::Permissions;

fn settings(g: &Guild) -> Value {
    json!({"enabled": g.widget_enabled, "channel_id": g.widget_channel_id})
}

pub async fn get_widget_settings(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    ok(settings(g))
}

/// PATCH `{enabled?, channel_id?}` → the settings; GUILD_UPDATE entry with
/// `widget_enabled` / `widget_channel_id` (§7.2).
pub async fn patch_widget(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let dialect = render::Dialect::of(&st.config);
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_GUILD)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let enabled = r.boolean("enabled").set();
    let channel = r.snowflake("channel_id");
    if let Field::Set(id) = &channel
        && g.channel(id).is_none()
    {
        r.err("channel_id", "CHANNEL_NOT_FOUND", "Unknown channel");
    }
    errs.check()?;
    let mut changes = Vec::new();
    if let Some(e) = enabled {
        diff(
            &mut changes,
            "widget_enabled",
            json!(g.widget_enabled),
            json!(e),
        );
        g.widget_enabled = e;
    }
    if let Some(c) = channel.into_option() {
        diff(
            &mut changes,
            "widget_channel_id",
            json!(g.widget_channel_id),
            json!(c),
        );
        g.widget_channel_id = c;
    }
    if !changes.is_empty() {
        let gid = g.id.clone();
        Entry::on(GUILD_UPDATE, &gid)
            .changes(changes)
            .by(actor, call.reason())
            .record(g, snowflake);
    }
    fired(ok(settings(g)), [events::guild_update(g, dialect)])
}

/// A stable invite code for the widget's channel (the emulator has no
/// invites; the code only has to look like one and stay the same).
fn invite_code(channel_id: &str) -> String {
    use sha2::{Digest, Sha256};
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    Sha256::digest(channel_id.as_bytes())
        .iter()
        .take(10)
        .map(|b| ALNUM[usize::from(*b) % ALNUM.len()] as char)
        .collect()
}

/// `GET /guilds/{g}/widget.json`: public, no token needed; 403 50004 when
/// the widget is off. Voice and stage channels @everyone can see; no members
/// (the emulator has no presences).
pub async fn get_widget_json(AxState(app): AxState<App>, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    digits(&gid)?;
    let g = st.guild(&gid).ok_or_else(ApiError::unknown_guild)?;
    if !g.widget_enabled {
        return Err(ApiError::widget_disabled());
    }
    let mut voice: Vec<_> = g
        .channels
        .iter()
        .filter(|c| matches!(c.kind, 2 | 13))
        .filter(|c| everyone_permissions(g, c).contains(Permissions::VIEW_CHANNEL))
        .collect();
    voice.sort_by(|a, b| a.position.cmp(&b.position).then(a.id.cmp(&b.id)));
    let invite = g
        .widget_channel_id
        .as_deref()
        .map(|c| format!("https://discord.com/invite/{}", invite_code(c)));
    ok(json!({
        "id": g.id,
        "name": g.name,
        "instant_invite": invite,
        "channels": voice.iter().map(|c| json!({"id": c.id, "name": c.name, "position": c.position})).collect::<Vec<_>>(),
        "members": [],
        "presence_count": 0,
    }))
}

/// A 1×1 PNG: the emulator does not draw widgets, but answers with a real image.
const WIDGET_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x02, 0x00,
    0x00, 0x05, 0x00, 0x01, 0x7a, 0x5e, 0xab, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44,
    0xae, 0x42, 0x60, 0x82,
];

/// `GET /guilds/{g}/widget.png?style=…`: no authentication; `style` one of shield
/// (default), banner1-banner4; a disabled widget is 403 50004 as for widget.json.
pub async fn get_widget_png(
    AxState(app): AxState<App>,
    Path(gid): Path<String>,
    axum::extract::RawQuery(q): axum::extract::RawQuery,
) -> R {
    use axum::response::IntoResponse;
    let st = lock(&app.state);
    digits(&gid)?;
    let g = st.guild(&gid).ok_or_else(ApiError::unknown_guild)?;
    let styles = ["shield", "banner1", "banner2", "banner3", "banner4"];
    if let Some(s) = crate::app::query_params(q).get("style")
        && !styles.contains(&s.as_str())
    {
        return Err(ApiError::field(
            &["style"],
            "BASE_TYPE_CHOICES",
            "Value must be one of ('shield', 'banner1', 'banner2', 'banner3', 'banner4').",
        ));
    }
    if !g.widget_enabled {
        return Err(ApiError::widget_disabled());
    }
    Ok((
        [(axum::http::header::CONTENT_TYPE, "image/png")],
        WIDGET_PNG,
    )
        .into_response())
}
