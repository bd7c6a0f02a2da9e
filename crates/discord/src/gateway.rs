//! Discord's Gateway, for `watch` (docs/discord.md §11): the bot's shards, as many as `GET
//! /gateway/bot` recommends or the ones asked for, through twilight-gateway, which keeps the
//! heartbeats, queues identifies within `max_concurrency`, resumes a dropped connection with
//! backoff (identifying again when Discord says the session is gone) and decompresses
//! `zlib-stream`. Each dispatch is handed over as its name and raw JSON: guildctl reads the
//! few it cares about with its own models.

use std::pin::Pin;

use futures_util::stream::{SelectAll, Stream, StreamExt};
use serde::Deserialize;
use serde_json::Value;
use twilight_gateway::{ConfigBuilder, Intents, Message, Shard, ShardId};

use crate::client::Client;
use crate::error::ClientError;

/// Intent bits (docs/discord.md §11.4).
#[allow(missing_docs)] // named as Discord names them
pub mod intent {
    pub const GUILDS: u64 = 1 << 0;
    pub const GUILD_MODERATION: u64 = 1 << 2;
    pub const GUILD_EXPRESSIONS: u64 = 1 << 3;
    pub const GUILD_INTEGRATIONS: u64 = 1 << 4;
    pub const GUILD_WEBHOOKS: u64 = 1 << 5;
    pub const GUILD_INVITES: u64 = 1 << 6;
    pub const GUILD_SCHEDULED_EVENTS: u64 = 1 << 16;
    pub const AUTO_MODERATION_CONFIGURATION: u64 = 1 << 20;
}

/// `GET /gateway/bot`.
#[derive(Debug, Clone, Deserialize)]
pub struct GatewayBot {
    /// Where to connect (`wss://gateway.discord.gg`, the emulator's `ws://…/gateway`).
    pub url: String,
    /// The recommended shard count.
    pub shards: u32,
    /// The identify budget.
    pub session_start_limit: SessionStartLimit,
}

/// How many sessions the bot may still start today, and how many at once.
#[derive(Debug, Clone, Deserialize)]
pub struct SessionStartLimit {
    /// Sessions a day (1,000 for most bots).
    pub total: u32,
    /// Sessions left today.
    pub remaining: u32,
    /// Milliseconds until `remaining` is `total` again.
    pub reset_after: u64,
    /// Shards that may identify at once (one per 5 s per bucket).
    pub max_concurrency: u32,
}

/// Which shards this process runs: `index` of `count` (`--shard I/N`), or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSet {
    /// The shards' total; `None`: as many as `GET /gateway/bot` recommends.
    pub count: Option<u32>,
    /// One shard of them; `None`: every one.
    pub only: Option<u32>,
}

/// What the Gateway says.
#[derive(Debug)]
pub enum GatewayEvent {
    /// A dispatch (op 0): its name (`GUILD_AUDIT_LOG_ENTRY_CREATE`, `READY`, …) and `d`.
    Dispatch {
        /// The shard it came on.
        shard: u32,
        /// The event's name.
        name: String,
        /// Its `d`.
        data: Value,
    },
    /// A shard's connection closed; twilight reconnects unless the code is fatal.
    Closed {
        /// The shard.
        shard: u32,
        /// The close code, if the frame had one.
        code: Option<u16>,
        /// Discord says not to reconnect after it: the shard has stopped.
        fatal: bool,
    },
    /// A shard could not receive (a network error, a payload it could not read); twilight
    /// reconnects.
    Trouble {
        /// The shard.
        shard: u32,
        /// What went wrong, as twilight says it (no token in it).
        error: String,
    },
}

/// Close codes after which Discord says not to reconnect (docs/discord.md §11.2).
const FATAL: [u16; 6] = [4004, 4010, 4011, 4012, 4013, 4014];

type ShardStream = Pin<Box<dyn Stream<Item = GatewayEvent> + Send>>;

/// The connected shards, their events merged.
pub struct Gateway {
    streams: SelectAll<ShardStream>,
    /// The shards run here, `[id, count]` each.
    pub shards: Vec<[u32; 2]>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("shards", &self.shards)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// Asks `GET /gateway/bot` where and with how many shards, then starts the shards of
    /// `set` with `intents` (they connect as they are first polled).
    pub async fn connect(
        client: &Client,
        intents: u64,
        set: ShardSet,
    ) -> Result<(Gateway, GatewayBot), ClientError> {
        let bot: GatewayBot = client.get("/gateway/bot").await?;
        let count = set.count.unwrap_or(bot.shards).max(1);
        let ids: Vec<u32> = match set.only {
            Some(i) => vec![i],
            None => (0..count).collect(),
        };
        let mut streams = SelectAll::new();
        let mut shards = Vec::new();
        for id in ids {
            let config = ConfigBuilder::new(
                client.token().expose().to_owned(),
                Intents::from_bits_retain(intents),
            )
            .proxy_url(bot.url.trim_end_matches('/').to_owned())
            .build();
            let shard = Shard::with_config(ShardId::new(id, count), config);
            streams.push(events(shard, id));
            shards.push([id, count]);
        }
        Ok((Gateway { streams, shards }, bot))
    }

    /// Whether guild `guild_id` is on shard `shard` as run here (Discord's formula,
    /// docs/discord.md §11.3).
    pub fn holds(&self, shard: u32, guild_id: &str) -> bool {
        let id: u64 = guild_id.parse().unwrap_or(0);
        self.shards
            .iter()
            .any(|[i, n]| *i == shard && (id >> 22) % u64::from((*n).max(1)) == u64::from(shard))
    }

    /// The next event of any shard; `None` when every shard has stopped for good.
    pub async fn next(&mut self) -> Option<GatewayEvent> {
        self.streams.next().await
    }
}

/// A shard's messages as events, ended after a fatal close.
fn events(shard: Shard, id: u32) -> ShardStream {
    let stream = shard
        .map(move |m| match m {
            Ok(Message::Text(text)) => dispatch(id, &text),
            Ok(Message::Close(frame)) => {
                let code = frame.map(|f| f.code);
                Some(GatewayEvent::Closed {
                    shard: id,
                    code,
                    fatal: code.is_some_and(|c| FATAL.contains(&c)),
                })
            }
            Err(e) => Some(GatewayEvent::Trouble {
                shard: id,
                error: e.to_string(),
            }),
        })
        .filter_map(std::future::ready)
        .scan(false, |ended, e| {
            if *ended {
                return std::future::ready(None);
            }
            *ended = matches!(e, GatewayEvent::Closed { fatal: true, .. });
            std::future::ready(Some(e))
        });
    Box::pin(stream)
}

/// A dispatch out of a payload's text; `None` for the other opcodes (twilight answers
/// them).
fn dispatch(shard: u32, text: &str) -> Option<GatewayEvent> {
    #[derive(Deserialize)]
    struct Payload {
        op: u8,
        #[serde(default)]
        t: Option<String>,
        #[serde(default)]
        d: Value,
    }
    let p: Payload = serde_json::from_str(text).ok()?;
    match (p.op, p.t) {
        (0, Some(name)) => Some(GatewayEvent::Dispatch {
            shard,
            name,
            data: p.d,
        }),
        _ => None,
    }
}
