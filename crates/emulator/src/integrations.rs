//! Guild integrations (the reference's Integration object, Get Guild Integrations,
//! Delete Guild Integration): bots and apps added to the guild, and the
//! streaming or subscription services linked to it.
//!
//! A bot integration's bot is a member with a managed role (`tags.bot_id`);
//! deleting the integration removes the bot, that role and the webhooks its
//! application made, as the reference says.

use axum::extract::Path;
use serde_json::{Value, json};

use super::error::ApiError;
use super::render;
use super::state::{AuditChange, Guild, Integration, State};
use crate::access::{InGuild, digits, guild_for_write, need};
use crate::app::{R, fired, no_content, ok};
use crate::audit_log::Entry;
use crate::audit_log::action::INTEGRATION_DELETE;
use crate::events;
use crate::perms::guild_permissions;
use discord_permissions::Permissions;

/// Discord returns at most 50; any beyond cannot be retrieved (reference, Limits).
pub const MAX_LISTED: usize = 50;

fn show(st: &State, i: &Integration) -> Value {
    let mut o = serde_json::Map::new();
    o.insert("id".into(), json!(i.id));
    o.insert("name".into(), json!(i.name));
    o.insert("type".into(), json!(i.kind));
    o.insert("enabled".into(), json!(i.enabled));
    let account = i.account.clone().unwrap_or_else(|| match &i.application {
        Some(a) => json!({"id": a.id, "name": a.name}),
        None => json!({"id": i.id, "name": i.name}),
    });
    o.insert("account".into(), account);
    if let Some(a) = &i.application {
        let mut app = json!({
            "id": a.id, "name": a.name, "icon": a.icon,
            "description": a.description, "type": null,
        });
        if let (Some(bot), Some(m)) = (
            a.bot_id.as_deref().and_then(|b| st.user(b)),
            app.as_object_mut(),
        ) {
            m.insert("bot".into(), render::user(bot));
        }
        o.insert("application".into(), app);
        o.insert("scopes".into(), json!(i.scopes));
    } else {
        // Service integrations carry the subscription fields (absent for bots).
        o.insert("syncing".into(), json!(false));
        o.insert("role_id".into(), json!(i.role_id));
        o.insert("expire_behavior".into(), json!(0));
        o.insert("expire_grace_period".into(), json!(1));
        o.insert("revoked".into(), json!(false));
        o.insert("subscriber_count".into(), json!(0));
    }
    if let Some(u) = i.user_id.as_deref().and_then(|u| st.user(u)) {
        o.insert("user".into(), render::user(u));
    }
    Value::Object(o)
}

/// `GET /guilds/{g}/integrations`: MANAGE_GUILD; the first 50.
pub async fn get_integrations(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    ok(Value::Array(
        g.integrations
            .iter()
            .take(MAX_LISTED)
            .map(|i| show(&st, i))
            .collect(),
    ))
}

/// Removes what an application brought: its bot's membership and managed role, and
/// the webhooks it made.
fn remove_application(g: &mut Guild, app_id: &str, bot_id: Option<&str>) {
    g.webhooks
        .retain(|w| w.application_id.as_deref() != Some(app_id));
    let Some(bot) = bot_id else { return };
    g.remove_member(bot);
    let roles: Vec<String> = g
        .roles
        .iter()
        .filter(|r| {
            r.managed
                && r.tags
                    .as_ref()
                    .and_then(|t| t.get("bot_id"))
                    .and_then(Value::as_str)
                    == Some(bot)
        })
        .map(|r| r.id.clone())
        .collect();
    for rid in roles {
        if let Some(at) = g.roles.iter().position(|r| r.id == rid) {
            let gone = g.roles.remove(at);
            for r in g.roles.iter_mut() {
                if r.id != g.id && r.position > gone.position {
                    r.position -= 1;
                }
            }
        }
        g.forget_role(&rid);
    }
}

/// `DELETE /guilds/{g}/integrations/{i}`: MANAGE_GUILD; also deletes its webhooks and
/// removes its bot → 204, INTEGRATION_DELETE (82).
pub async fn delete_integration(call: InGuild, Path((_, iid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_GUILD)?;
    digits(&iid)?;
    let at = g
        .integrations
        .iter()
        .position(|i| i.id == iid)
        .ok_or_else(unknown_integration)?;
    let gone = g.integrations.remove(at);
    if let Some(a) = &gone.application {
        remove_application(g, &a.id, a.bot_id.as_deref());
    }
    let changes = vec![
        AuditChange {
            key: "name".into(),
            old_value: Some(json!(gone.name)),
            new_value: None,
        },
        AuditChange {
            key: "type".into(),
            old_value: Some(json!(gone.kind)),
            new_value: None,
        },
    ];
    Entry::on(INTEGRATION_DELETE, &iid)
        .changes(changes)
        .by(actor, call.reason())
        .record(g, snowflake);
    let app_id = gone.application.as_ref().map(|a| a.id.as_str());
    fired(
        no_content(),
        [
            events::integrations_update(&g.id),
            events::integration_delete(&g.id, &iid, app_id),
        ],
    )
}

pub fn unknown_integration() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        10005,
        "Unknown Integration",
    )
}
