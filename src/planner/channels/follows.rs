//! A channel's `follows`: the announcement channels of other guilds whose posts Discord
//! copies into it (Follow Announcement Channel, docs/discord.md §6). Each follow is
//! a webhook of type 2 ("Channel Follower") of the channel, listed with the guild's
//! webhooks, so following is a `POST /channels/{followed}/followers` and unfollowing is
//! deleting that webhook. The list is authoritative for the channel: a follow it does not
//! name is removed.

use serde_json::json;

use crate::discord::Route;
use crate::discord::models::{Webhook as LiveWebhook, channel_type};
use crate::manifest::Channel;
use crate::plan::{Action, FieldChange, IdRef, Kind, Phase, field};
use crate::plan_kit::context::{Ctx, Op, change};
use crate::snapshot::follows::FollowSource;

/// Discord's refusal when the followed channel is not an announcement channel.
const NOT_ANNOUNCEMENT: &str = "50024 Cannot execute action on this channel type";

/// Plans the follows of declared channel `ch` (written at `source`), which is `target`
/// (live, or created earlier in the run), shown as `shown`.
pub(super) fn plan_follows(cx: &mut Ctx, ch: &Channel, source: &str, target: &IdRef, shown: &str) {
    let Some(follows) = &ch.follows else { return };
    let snap = cx.snap;
    let live: Vec<&LiveWebhook> = match (target.live(), snap.webhooks.as_deref()) {
        (None, _) => Vec::new(),
        (Some(_), None) => {
            cx.problem(
                Some(format!("{source}.follows")),
                "the bot cannot read this guild's webhooks, which hold its follows".into(),
                Some("grant the bot's role `manage_webhooks`, or leave `follows` out"),
            );
            return;
        }
        (Some(id), Some(all)) => all
            .iter()
            .filter(|w| w.channel_id.as_deref() == Some(id) && w.followed_channel().is_some())
            .collect(),
    };
    for w in &live {
        cx.managed_followers.insert(w.id.clone());
    }
    for (i, f) in follows.iter().enumerate() {
        let at = format!("{source}.follows[{i}]");
        let followed = f.channel.0.as_str();
        if live.iter().any(|w| w.followed_channel() == Some(followed)) {
            continue;
        }
        let name = match snap.follow_sources.get(followed) {
            Some(FollowSource::Refused { status }) => {
                let why = if *status == 404 {
                    "does not exist, or the bot is not a member of its guild (Discord: 404, 10003 Unknown Channel)"
                } else {
                    "cannot be viewed by the bot (Discord: 403, 50001 Missing Access)"
                };
                cx.problem(
                    Some(format!("{at}.channel")),
                    format!("`{shown}` follows channel {followed}, which {why}"),
                    Some(
                        "the bot must be a member of the followed channel's guild and see the channel; or correct the id",
                    ),
                );
                continue;
            }
            Some(FollowSource::Channel { kind, name, .. })
                if *kind != channel_type::ANNOUNCEMENT =>
            {
                cx.problem(
                    Some(format!("{at}.channel")),
                    format!(
                        "`{shown}` follows #{name} (channel {followed}), which is not an announcement channel: Discord refuses to follow it ({NOT_ANNOUNCEMENT})"
                    ),
                    Some("only announcement channels can be followed: name one, or remove this entry"),
                );
                continue;
            }
            // As Discord names the webhook it makes: "GUILD #channel".
            Some(FollowSource::Channel {
                name,
                guild_name: Some(guild),
                ..
            }) => format!("{guild} #{name}"),
            Some(FollowSource::Channel { name, .. }) => format!("#{name}"),
            None => format!("channel {followed}"),
        };
        let idx = cx.push_change(change(
            Action::Create,
            Kind::Webhook,
            name.clone(),
            None,
            vec![FieldChange::new(
                field::Webhook::Follows,
                json!(null),
                json!(shown),
            )],
            Some(at),
        ));
        let route = Route::FollowChannel {
            channel: IdRef::Live(followed.to_owned()),
        };
        let summary = format!("follow {name} into {shown}");
        cx.push_op(
            Op::new(Phase::Follows, idx, route, summary)
                .body(json!({ "webhook_channel_id": target.to_value() })),
        );
    }
    for w in live {
        let followed = w.followed_channel().unwrap_or_default();
        if follows.iter().any(|f| f.channel.0 == followed) {
            continue;
        }
        let name = w.follow_label();
        let idx = cx.push_change(change(
            Action::Delete,
            Kind::Webhook,
            name.clone(),
            Some(w.id.clone()),
            vec![],
            Some(format!("{source}.follows")),
        ));
        let route = Route::DeleteWebhook {
            webhook: IdRef::Live(w.id.clone()),
        };
        let summary = format!("unfollow {name} from {shown}");
        cx.push_op(Op::new(Phase::WebhookDelete, idx, route, summary));
    }
}
