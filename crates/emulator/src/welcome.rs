//! `GET/PATCH /guilds/{g}/welcome-screen` (docs/discord.md §5.3).
//!
//! The screen belongs to community guilds. Whether it is shown is not in the
//! response: it is the `WELCOME_SCREEN_ENABLED` guild feature.

use serde_json::{Value, json};

use super::error::{ApiError, FieldErrors};
use super::form::{self, Field, Reader};
use super::perms::guild_permissions;
use super::state::{WelcomeChannel, WelcomeScreen};
use crate::access::{InGuild, guild_for_write, need};
use crate::app::JsonBody;
use crate::app::{R, fired, ok};
use crate::audit_log::action::GUILD_UPDATE;
use crate::audit_log::{Entry, change};
use crate::events;
use discord_permissions::Permissions;

const ENABLED: &str = "WELCOME_SCREEN_ENABLED";
const MAX_CHANNELS: usize = 5;

fn render(w: &WelcomeScreen) -> Value {
    json!({
        "description": w.description,
        "welcome_channels": w.welcome_channels.iter().map(|c| json!({
            "channel_id": c.channel_id,
            "description": c.description,
            "emoji_id": c.emoji_id,
            "emoji_name": c.emoji_name,
        })).collect::<Vec<_>>(),
    })
}

pub async fn get_welcome_screen(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    // Only community guilds have one (undocumented; 10069 is Discord's code
    // for a missing welcome screen).
    if !g.has_feature("COMMUNITY") {
        return Err(ApiError::unknown_welcome_screen());
    }
    if !g.has_feature(ENABLED) {
        need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    }
    ok(render(&g.welcome_screen))
}

fn read_channels(r: &mut Reader, g: &super::state::Guild) -> Option<Vec<WelcomeChannel>> {
    let list = r.array("welcome_channels").set()?;
    if list.len() > MAX_CHANNELS {
        r.err(
            "welcome_channels",
            "BASE_TYPE_MAX_LENGTH",
            &format!("Must be {MAX_CHANNELS} or fewer in length."),
        );
        return None;
    }
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let path = vec!["welcome_channels".to_owned(), i.to_string()];
        let Some(mut sub) = form::item(&mut *r.errs, path, v) else {
            continue;
        };
        let channel_id = match sub.snowflake("channel_id") {
            Field::Set(id) if g.channel(&id).is_none() => {
                sub.err("channel_id", "CHANNEL_NOT_FOUND", "Unknown channel");
                None
            }
            f => sub.require("channel_id", f),
        };
        let description = sub.string_len("description", 1, 50);
        let description = sub.require("description", description);
        let emoji_id = sub.snowflake("emoji_id").set();
        let emoji_name = sub.string("emoji_name").set();
        if let (Some(channel_id), Some(description)) = (channel_id, description) {
            out.push(WelcomeChannel {
                channel_id,
                description,
                emoji_id,
                emoji_name,
            });
        }
    }
    Some(out)
}

/// PATCH: every field optional; `enabled` toggles the feature (and, as a
/// guild change, is logged as GUILD_UPDATE `features`); the screen's own
/// edits have no audit action (§7.2).
pub async fn patch_welcome_screen(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let dialect = crate::render::Dialect::of(&st.config);
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_GUILD)?;
    if !g.has_feature("COMMUNITY") {
        return Err(ApiError::unknown_welcome_screen());
    }
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let enabled = r.boolean("enabled").set();
    let description = r.string_len("description", 0, 140).into_option();
    let channels = read_channels(&mut r, g);
    errs.check()?;

    if let Some(d) = description {
        g.welcome_screen.description = d;
    }
    if let Some(c) = channels {
        g.welcome_screen.welcome_channels = c;
    }
    let mut shown_or_hidden = false;
    if let Some(on) = enabled
        && on != g.has_feature(ENABLED)
    {
        shown_or_hidden = true;
        let old = json!(g.features);
        if on {
            g.features.push(ENABLED.to_owned());
        } else {
            g.features.retain(|f| f != ENABLED);
        }
        let features = change("features", old, json!(g.features));
        let gid = g.id.clone();
        Entry::on(GUILD_UPDATE, &gid)
            .changes(vec![features])
            .by(actor, call.reason())
            .record(g, snowflake);
    }
    // "May fire Guild Update": when the screen is shown or hidden, a feature changes.
    let fires = shown_or_hidden.then(|| events::guild_update(g, dialect));
    fired(ok(render(&g.welcome_screen)), fires)
}
