//! The announcement channels a manifest's `follows` name and the guild does not follow yet:
//! each read once (`GET /channels/{c}`, then its guild's name), so the plan can say what
//! Discord would refuse (a channel that is not an announcement channel, or one the bot
//! cannot view) before any call, and name the follow as Discord will name its webhook.
//! Follows already in place cost nothing: the guild's webhook listing shows them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::discord::{Client, ClientError};
use crate::manifest::{Channel, Manifest};

/// What a read of a followed channel found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FollowSource {
    /// The channel, with its guild (id and name; the name when the bot could read it).
    Channel {
        kind: u8,
        name: String,
        guild_id: Option<String>,
        guild_name: Option<String>,
    },
    /// Discord refused the read: 403 (the bot cannot view it) or 404 (no such channel, or
    /// none the bot can see).
    Refused { status: u16 },
}

#[derive(Deserialize)]
struct ChannelRead {
    #[serde(rename = "type")]
    kind: u8,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    guild_id: Option<String>,
}

#[derive(Deserialize)]
struct GuildRead {
    name: String,
}

fn declared(channels: &[Channel], out: &mut Vec<String>) {
    for c in channels {
        for f in c.follows.iter().flatten() {
            out.push(f.channel.0.clone());
        }
        declared(c.channels.as_deref().unwrap_or(&[]), out);
    }
}

/// The followed channels `m` names that no follower webhook of the guild follows yet.
pub fn wanted(m: &Manifest, live: Option<&[crate::discord::models::Webhook]>) -> Vec<String> {
    let mut ids = Vec::new();
    declared(m.channels.as_deref().unwrap_or(&[]), &mut ids);
    ids.sort();
    ids.dedup();
    let followed: Vec<&str> = live
        .into_iter()
        .flatten()
        .filter_map(|w| w.followed_channel())
        .collect();
    ids.retain(|id| !followed.contains(&id.as_str()));
    ids
}

/// Reads each channel of `ids`, one after another (a manifest follows a few).
pub async fn read(
    client: &Client,
    ids: &[String],
) -> Result<BTreeMap<String, FollowSource>, ClientError> {
    let mut out = BTreeMap::new();
    for id in ids {
        let found = match client.get::<ChannelRead>(&format!("/channels/{id}")).await {
            Ok(c) => {
                let guild_name = match &c.guild_id {
                    Some(g) => match client.get::<GuildRead>(&format!("/guilds/{g}")).await {
                        Ok(g) => Some(g.name),
                        Err(ClientError::Api(e)) if matches!(e.status.as_u16(), 403 | 404) => None,
                        Err(e) => return Err(e),
                    },
                    None => None,
                };
                FollowSource::Channel {
                    kind: c.kind,
                    name: c.name.unwrap_or_default(),
                    guild_id: c.guild_id,
                    guild_name,
                }
            }
            Err(ClientError::Api(e)) if matches!(e.status.as_u16(), 403 | 404) => {
                FollowSource::Refused {
                    status: e.status.as_u16(),
                }
            }
            Err(e) => return Err(e),
        };
        out.insert(id.clone(), found);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discord::models::Webhook;
    use serde_json::json;

    #[test]
    fn only_channels_not_followed_yet_are_read_each_once() {
        let m: Manifest = serde_json::from_value(json!({
            "version": 1,
            "channels": [
                { "name": "news", "follows": [
                    { "channel": "111111111111111111" },
                    { "channel": "222222222222222222" },
                ] },
                { "name": "Cat", "type": "category", "channels": [
                    { "name": "more", "follows": [{ "channel": "222222222222222222" }] },
                ] },
            ],
        }))
        .expect("a manifest");
        let follower: Webhook = serde_json::from_value(json!({
            "id": "9", "type": 2, "channel_id": "5", "name": "A #news", "avatar": null,
            "application_id": null,
            "source_channel": { "id": "111111111111111111", "name": "news" },
        }))
        .expect("a webhook");
        assert_eq!(
            wanted(&m, Some(&[follower])),
            ["222222222222222222".to_owned()]
        );
        assert_eq!(wanted(&m, None).len(), 2);
    }
}
