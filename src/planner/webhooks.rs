//! Incoming webhooks: create, rename, move, change avatar, prune. Their tokens
//! never enter a plan: guildctl reads webhooks without them.

use std::borrow::Cow;

use hashbrown::HashSet;

use serde_json::{Value, json};

use crate::discord::Route;
use crate::discord::models::{WEBHOOK_INCOMING, Webhook as LiveWebhook, channel_type};
use crate::manifest::Webhook;
use crate::plan::{IdRef, Kind, ObjectRef, Phase, field};
use crate::plan_kit::calls::{Calls, Live};
use crate::plan_kit::context::{ChangeBuilder, Ctx};
use crate::plan_kit::images::declared_file;
use crate::plan_kit::matching::match_live;

use super::integrations::unreadable;

/// Webhooks post to text-like channels.
const WEBHOOK_CHANNELS: &[u8] = &[
    channel_type::TEXT,
    channel_type::ANNOUNCEMENT,
    channel_type::FORUM,
    channel_type::MEDIA,
];

/// Webhooks' calls; their writes go with the guild's features (after the channels exist).
const WEBHOOK: Calls = Calls {
    kind: Kind::Webhook,
    noun: "webhook",
    key: "webhook",
    write: Phase::Features,
    delete: Phase::WebhookDelete,
};

fn webhook_ref(w: &LiveWebhook) -> ObjectRef {
    ObjectRef {
        kind: Kind::Webhook,
        name: w.name.clone().unwrap_or_default(),
        id: Some(w.id.clone()),
    }
}

pub(super) fn plan_webhooks(cx: &mut Ctx) {
    // Borrowed for the manifest's and the snapshot's lifetime, not cloned: a guild may
    // have a thousand webhooks.
    let (manifest, snap) = (cx.manifest, cx.snap);
    let Some(declared) = manifest.webhooks.as_deref() else {
        for w in cx.snap.webhooks.iter().flatten() {
            if cx.managed_followers.contains(&w.id) {
                continue;
            }
            cx.unmanaged.push(webhook_ref(w));
        }
        return;
    };
    let Some(live) = snap.webhooks.as_deref() else {
        unreadable(cx, "webhooks", "`manage_webhooks`");
        return;
    };
    // Only incoming webhooks are managed; channel-follower and application ones are not.
    let incoming: Vec<&LiveWebhook> = live.iter().filter(|w| w.kind == WEBHOOK_INCOMING).collect();
    let matches = match_live(
        cx,
        "webhooks",
        Kind::Webhook,
        declared,
        &incoming,
        |w| (&w.id, Cow::Borrowed(w.name.as_deref().unwrap_or_default())),
        |_, _| false,
    );
    for (i, d) in declared.iter().enumerate() {
        let source = format!("webhooks[{i}]");
        let Some(channel) =
            cx.resolve_channel(&d.channel, &format!("{source}.channel"), WEBHOOK_CHANNELS)
        else {
            continue;
        };
        match matches[i] {
            Some(w) => plan_update(cx, d, w, channel, source),
            None => plan_create(cx, d, channel, source),
        }
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|w| w.id.as_str()).collect();
    for w in live {
        if matched.contains(w.id.as_str()) {
            continue;
        }
        let name = w.name.clone().unwrap_or_default();
        let prunable = w.kind == WEBHOOK_INCOMING && cx.manifest.prune.webhooks;
        // Asked only where it decides something: it searches every entry of the manifest.
        let protector = prunable
            .then(|| {
                crate::judge::deletion_gate::protector(cx.manifest, Kind::Webhook, &w.id, &name, 0)
            })
            .flatten();
        if let Some(by) = &protector {
            cx.warn(
                None,
                format!(
                    "webhook `{name}` (id {}) is kept although `prune.webhooks` is on: {by} protects it",
                    w.id
                ),
            );
        }
        if prunable && protector.is_none() {
            let route = Route::DeleteWebhook {
                webhook: IdRef::Live(w.id.clone()),
            };
            let live = Live {
                name: &name,
                id: &w.id,
            };
            // Pointed at the `prune:` line that asks for it.
            let source = WEBHOOK.kind.pruned_by().to_owned();
            WEBHOOK.delete(cx, live, Vec::new(), source, route, "");
        } else if !cx.managed_followers.contains(&w.id) {
            cx.unmanaged.push(webhook_ref(w));
        }
    }
}

fn channel_display(cx: &Ctx, id: &IdRef) -> Value {
    json!(cx.channel_label(id))
}

/// Discord reports only whether an avatar is set (an opaque hash), so guildctl sets
/// one where none is, and removes it when the manifest says `null`. The file is bound by
/// its bytes, as every image is ([`crate::plan_kit::images::ImageFile::value`]).
fn avatar_change(
    cx: &mut Ctx,
    b: &mut ChangeBuilder,
    d: &Webhook,
    live_has_avatar: bool,
    source: &str,
) {
    match &d.avatar {
        Some(Some(path)) if !live_has_avatar => {
            let Some(file) = declared_file(cx, &format!("{source}.avatar"), path) else {
                return;
            };
            b.set(
                field::Webhook::Avatar,
                Value::Null,
                file.value(path),
                file.upload(path),
            );
        }
        Some(None) if live_has_avatar => {
            b.set(
                field::Webhook::Avatar,
                json!("(set)"),
                Value::Null,
                Value::Null,
            );
        }
        _ => {}
    }
}

fn plan_update(cx: &mut Ctx, d: &Webhook, live: &LiveWebhook, channel: IdRef, source: String) {
    let mut b = ChangeBuilder::new();
    let live_name = live.name.clone().unwrap_or_default();
    if live_name != d.name {
        b.set(
            field::Webhook::Name,
            json!(live_name),
            json!(d.name),
            json!(d.name),
        );
    }
    let live_channel = live.channel_id.clone().map(IdRef::Live);
    if live_channel.as_ref() != Some(&channel) {
        let before = live_channel
            .as_ref()
            .map(|c| channel_display(cx, c))
            .unwrap_or(Value::Null);
        b.set(
            field::Webhook::Channel,
            before,
            channel_display(cx, &channel),
            channel.to_value(),
        );
    }
    avatar_change(cx, &mut b, d, live.avatar.is_some(), &source);
    let route = Route::UpdateWebhook {
        webhook: IdRef::Live(live.id.clone()),
    };
    WEBHOOK.update(cx, &d.name, &live.id, b, source, route);
}

fn plan_create(cx: &mut Ctx, d: &Webhook, channel: IdRef, source: String) {
    let mut b = ChangeBuilder::new();
    b.set(
        field::Webhook::Name,
        Value::Null,
        json!(d.name),
        json!(d.name),
    );
    // The channel is in the create's path, not its body.
    b.show(
        field::Webhook::Channel,
        Value::Null,
        channel_display(cx, &channel),
    );
    avatar_change(cx, &mut b, d, false, &source);
    let route = Route::CreateWebhook { channel };
    WEBHOOK.create(cx, &d.name, b, source, route);
}
