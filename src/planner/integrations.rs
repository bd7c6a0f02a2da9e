//! Integrations (bots and apps): the applications `integrations:` allows, every other
//! reported, and removed with `prune.integrations` (Delete Guild Integration, which also
//! removes the application's bot, its role and its webhooks: the change says which).
//!
//! Only applications are judged (type `discord`); services linked to the guild (Twitch,
//! YouTube, role subscriptions) are left alone. The bot guildctl runs as is always allowed.

use hashbrown::HashSet;

use serde_json::{Value, json};

use crate::discord::Route;
use crate::plan::field::Integration as Gone;
use crate::plan::{Action, FieldChange, IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::context::{Ctx, Op, change};
use crate::snapshot::doors::{Integration, MAX_INTEGRATIONS};

/// The plan's problem when the live objects of `section` (its key: `integrations`,
/// `invites`, `webhooks`) could not be read: what to `grant` the bot's role.
pub(super) fn unreadable(cx: &mut Ctx, section: &str, grant: &str) {
    cx.problem(
        Some(section.to_owned()),
        format!("the bot cannot read this guild's {section}"),
        Some(&format!(
            "grant the bot's role {grant}, or leave `{section}` out"
        )),
    );
}

pub(super) fn plan_integrations(cx: &mut Ctx) {
    if cx.manifest.integrations.is_none() && !cx.manifest.prune.integrations {
        return;
    }
    let Some(live) = cx.snap.doors.integrations.clone() else {
        unreadable(cx, "integrations", "`manage_guild`");
        return;
    };
    if cx.manifest.prune.integrations && cx.manifest.integrations.is_none() {
        cx.problem(
            Some("prune.integrations".into()),
            "`prune.integrations` removes the applications `integrations` does not list, but there is no `integrations` list".into(),
            Some("list the applications to keep under `integrations` (an empty list removes every other)"),
        );
        return;
    }
    if live.len() >= MAX_INTEGRATIONS {
        cx.warn(
            Some("integrations".into()),
            format!(
                "Discord lists at most {MAX_INTEGRATIONS} integrations and this guild has that many: any beyond them are neither seen nor removed"
            ),
        );
    }
    let mut allowed: HashSet<String> = cx
        .manifest
        .integrations
        .iter()
        .flatten()
        .map(|a| a.application.0.clone())
        .collect();
    // The bot guildctl runs as: a bot's application id is its user id.
    allowed.insert(cx.snap.bot.id.clone());
    for i in &live {
        let Some(app) = i.application_id() else {
            continue;
        };
        if allowed.contains(app) {
            continue;
        }
        let object = ObjectRef {
            kind: Kind::Integration,
            name: i.display_name(),
            id: Some(i.id.clone()),
        };
        if !cx.manifest.prune.integrations {
            cx.unmanaged.push(object);
            continue;
        }
        let idx = cx.push_change(change(
            Action::Delete,
            Kind::Integration,
            object.name.clone(),
            object.id.clone(),
            goes_with(cx, i),
            Some(Kind::Integration.pruned_by().into()),
        ));
        let route = Route::DeleteIntegration {
            guild: cx.guild(),
            integration: IdRef::Live(i.id.clone()),
        };
        let summary = format!("remove integration {}", object.name);
        cx.push_op(Op::new(Phase::IntegrationDelete, idx, route, summary));
    }
}

/// What Discord removes with the integration: its application, bot, the bot's role
/// and the application's webhooks, as the change's fields (before → gone).
fn goes_with(cx: &Ctx, i: &Integration) -> Vec<FieldChange> {
    let gone = |field: Gone, before: Value| FieldChange::new(field, before, Value::Null);
    let mut fields = Vec::new();
    if let Some(app) = &i.application {
        fields.push(gone(Gone::Application, json!(app.id)));
        if let Some(bot) = &app.bot {
            fields.push(gone(Gone::Bot, json!(bot.username)));
            let roles: Vec<&str> = bot_roles(cx, &bot.id).collect();
            if !roles.is_empty() {
                fields.push(gone(Gone::BotRole, json!(roles)));
            }
        }
        let hooks: Vec<String> = cx
            .snap
            .webhooks
            .iter()
            .flatten()
            .filter(|w| w.application_id.as_deref() == Some(app.id.as_str()))
            .map(|w| w.name.clone().unwrap_or_else(|| w.id.clone()))
            .collect();
        if !hooks.is_empty() {
            fields.push(gone(Gone::Webhooks, json!(hooks)));
        }
    }
    fields
}

/// The names of the managed roles Discord made for bot `bot_id`.
pub(crate) fn bot_roles<'a>(cx: &'a Ctx, bot_id: &'a str) -> impl Iterator<Item = &'a str> {
    cx.snap.guild.roles.iter().filter_map(move |r| {
        let tagged = r
            .tags
            .as_ref()
            .and_then(|t| t.get("bot_id"))
            .and_then(Value::as_str)
            == Some(bot_id);
        (r.managed && tagged).then_some(r.name.as_str())
    })
}
