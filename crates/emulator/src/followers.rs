//! Channel followers (resources/channel, "Follow Announcement Channel"; §6): an
//! announcement channel followed into a channel of one of the caller's guilds, through a
//! webhook of type 2 (Channel Follower) that the webhook routes then list with its
//! `source_guild` and `source_channel`.

use axum::extract::{Path, State as AxState};
use serde_json::json;

use crate::access::{channel_loc, guild_at, need_in_channel};
use crate::app::{App, Ctx, JsonBody, R, fired, lock, ok};
use crate::audit_log::action::WEBHOOK_CREATE;
use crate::audit_log::{Entry, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Reader};
use crate::perms::can_view_channel;
use crate::state::Webhook;
use crate::webhooks::{check_room, snapshot, wrong_channel_type};
use discord_permissions::Permissions;

/// `POST /channels/{c}/followers` `{webhook_channel_id}` → 200 `{channel_id, webhook_id}`.
/// The followed channel must be an announcement channel the caller can view (50024 for
/// another type); the target a text or announcement channel of a guild the caller is in,
/// where it holds MANAGE_WEBHOOKS and there is room for one more webhook. Logged in the
/// target guild as WEBHOOK_CREATE (50), with the reason.
pub async fn follow_channel(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(cid): Path<String>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = lock(&app.state);
    let actor = ctx.user_id.clone();
    let (sgi, sci) = channel_loc(&st, &cid, &actor)?;
    let source = {
        let sg = &st.guilds[sgi];
        if !can_view_channel(sg, sci, &actor) {
            return Err(ApiError::missing_access());
        }
        let ch = &sg.channels[sci];
        if ch.kind != 5 {
            return Err(wrong_channel_type());
        }
        (
            json!({"id": sg.id, "name": sg.name, "icon": sg.icon}),
            json!({"id": ch.id, "name": ch.name}),
            format!("{} #{}", sg.name, ch.name),
            sg.icon.clone(),
        )
    };
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let target = r.snowflake("webhook_channel_id");
    let target = r.present("webhook_channel_id", target, true);
    errs.check()?;
    let Some(target) = target else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    let (tgi, tci) = channel_loc(&st, &target, &actor)?;
    {
        let tg = &st.guilds[tgi];
        let ch = &tg.channels[tci];
        need_in_channel(tg, ch, &actor, Permissions::MANAGE_WEBHOOKS)?;
        if !matches!(ch.kind, 0 | 5) {
            return Err(wrong_channel_type());
        }
        check_room(tg, &target)?;
    }
    let (source_guild, source_channel, name, avatar) = source;
    let (g, snowflake) = guild_at(&mut st, tgi);
    let update = events::webhooks_update(&g.id, Some(&target));
    let w = Webhook {
        id: snowflake.next_id(),
        kind: 2,
        channel_id: Some(target),
        name,
        avatar,
        token: None,
        application_id: None,
        user_id: Some(actor.clone()),
        source_guild: Some(source_guild),
        source_channel: Some(source_channel),
    };
    let wid = w.id.clone();
    let changes = snapshot_changes(snapshot(&w), true);
    g.webhooks.push(w);
    Entry::on(WEBHOOK_CREATE, &wid)
        .changes(changes)
        .by(&actor, ctx.reason.as_deref())
        .record(g, snowflake);
    fired(ok(json!({"channel_id": cid, "webhook_id": wid})), [update])
}
