//! The Gateway events an operation fires, by the names they travel under on the
//! Gateway (the reference's Events table writes them as words: "Guild Member Update" is
//! `GUILD_MEMBER_UPDATE`). A handler attaches them to its response ([`crate::app::fired`]),
//! each a [`Dispatch`] with its payload; the request log records their names
//! (`GET /_emulator/requests`, `events`) and the Gateway sends them to the shards and
//! intents that see them (`crate::gateway`).

use serde_json::{Value, json};

use crate::render::{self, Dialect};
use crate::state::{Channel, Guild, Role, State};

/// One Gateway dispatch a write fires: the event's name, the guild it happened in (which
/// decides the shard and, with the name, the intent that sees it), and its `d` as Discord's
/// Gateway Events page writes it. `data: None` is a name alone: logged, not sent.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub name: &'static str,
    pub guild_id: Option<String>,
    pub data: Option<Value>,
}

impl Dispatch {
    /// `name` in guild `guild_id`, with its payload `data`.
    pub fn new(name: &'static str, guild_id: &str, data: Value) -> Dispatch {
        Dispatch {
            name,
            guild_id: Some(guild_id.to_owned()),
            data: Some(data),
        }
    }

    /// `name` in guild `guild_id` without a payload: logged, not sent. For an event whose
    /// `d` needs an object the state does not hold (a user it does not know).
    fn bare(name: &'static str, guild_id: &str) -> Dispatch {
        Dispatch {
            name,
            guild_id: Some(guild_id.to_owned()),
            data: None,
        }
    }
}

// The payloads, each as Discord's Gateway Events page writes it, built with the REST
// responses' render functions so that an object reads the same on both.

/// CHANNEL_CREATE, CHANNEL_UPDATE, CHANNEL_DELETE: the channel object (with `guild_id`).
pub(crate) fn channel(name: &'static str, guild_id: &str, c: &Channel) -> Dispatch {
    Dispatch::new(name, guild_id, render::channel(guild_id, c))
}

/// GUILD_UPDATE: the guild object, as `GET /guilds/{id}` renders it (no counts).
pub(crate) fn guild_update(g: &Guild, dialect: Dialect) -> Dispatch {
    Dispatch::new(GUILD_UPDATE, &g.id, render::guild(g, false, dialect))
}

/// GUILD_ROLE_CREATE, GUILD_ROLE_UPDATE: `{guild_id, role}`.
pub(crate) fn role(name: &'static str, guild_id: &str, r: &Role, dialect: Dialect) -> Dispatch {
    let data = json!({"guild_id": guild_id, "role": render::role(r, dialect)});
    Dispatch::new(name, guild_id, data)
}

/// GUILD_ROLE_DELETE: `{guild_id, role_id}`.
pub(crate) fn role_delete(guild_id: &str, role_id: &str) -> Dispatch {
    let data = json!({"guild_id": guild_id, "role_id": role_id});
    Dispatch::new(GUILD_ROLE_DELETE, guild_id, data)
}

/// GUILD_MEMBER_ADD, GUILD_MEMBER_UPDATE: the guild member object (`user` included) with
/// `guild_id`, as the member is now.
pub(crate) fn member(name: &'static str, st: &State, guild_id: &str, user_id: &str) -> Dispatch {
    let shown = st.guild(guild_id).and_then(|g| {
        let m = g.member(user_id)?;
        let u = st.user(user_id)?;
        Some(render::member(m, u, g.member_details.get(user_id)))
    });
    match shown {
        Some(v) => Dispatch::new(name, guild_id, with_guild_id(v, guild_id)),
        None => Dispatch::bare(name, guild_id),
    }
}

/// GUILD_MEMBER_REMOVE, GUILD_BAN_ADD, GUILD_BAN_REMOVE: `{guild_id, user}`.
pub(crate) fn user(name: &'static str, st: &State, guild_id: &str, user_id: &str) -> Dispatch {
    match st.user(user_id) {
        Some(u) => {
            let data = json!({"guild_id": guild_id, "user": render::user(u)});
            Dispatch::new(name, guild_id, data)
        }
        None => Dispatch::bare(name, guild_id),
    }
}

/// GUILD_EMOJIS_UPDATE: `{guild_id, emojis}`, every emoji of the guild after the change,
/// as the guild object carries them.
pub(crate) fn emojis_update(g: &Guild) -> Dispatch {
    let data = json!({"guild_id": g.id, "emojis": render::emojis(g)});
    Dispatch::new(GUILD_EMOJIS_UPDATE, &g.id, data)
}

/// GUILD_STICKERS_UPDATE: `{guild_id, stickers}`, every sticker of the guild after the
/// change.
pub(crate) fn stickers_update(g: &Guild) -> Dispatch {
    let data = json!({"guild_id": g.id, "stickers": render::stickers(g)});
    Dispatch::new(GUILD_STICKERS_UPDATE, &g.id, data)
}

/// GUILD_SOUNDBOARD_SOUND_DELETE: `{sound_id, guild_id}`.
pub(crate) fn sound_delete(guild_id: &str, sound_id: &str) -> Dispatch {
    let data = json!({"sound_id": sound_id, "guild_id": guild_id});
    Dispatch::new(GUILD_SOUNDBOARD_SOUND_DELETE, guild_id, data)
}

/// WEBHOOKS_UPDATE: `{guild_id, channel_id}`, the channel whose webhooks changed (none
/// for a webhook in no channel: logged, not sent, since the payload needs one).
pub(crate) fn webhooks_update(guild_id: &str, channel_id: Option<&str>) -> Dispatch {
    match channel_id {
        Some(c) => {
            let data = json!({"guild_id": guild_id, "channel_id": c});
            Dispatch::new(WEBHOOKS_UPDATE, guild_id, data)
        }
        None => Dispatch::bare(WEBHOOKS_UPDATE, guild_id),
    }
}

/// INVITE_DELETE: `{channel_id, guild_id, code}`.
pub(crate) fn invite_delete(guild_id: &str, channel_id: &str, code: &str) -> Dispatch {
    let data = json!({"channel_id": channel_id, "guild_id": guild_id, "code": code});
    Dispatch::new(INVITE_DELETE, guild_id, data)
}

/// GUILD_INTEGRATIONS_UPDATE: `{guild_id}`.
pub(crate) fn integrations_update(guild_id: &str) -> Dispatch {
    Dispatch::new(
        GUILD_INTEGRATIONS_UPDATE,
        guild_id,
        json!({"guild_id": guild_id}),
    )
}

/// INTEGRATION_DELETE: `{id, guild_id, application_id?}`, the application's id for a bot
/// or app integration.
pub(crate) fn integration_delete(
    guild_id: &str,
    id: &str,
    application_id: Option<&str>,
) -> Dispatch {
    let mut data = json!({"id": id, "guild_id": guild_id});
    if let (Some(a), Some(o)) = (application_id, data.as_object_mut()) {
        o.insert("application_id".into(), json!(a));
    }
    Dispatch::new(INTEGRATION_DELETE, guild_id, data)
}

/// MESSAGE_CREATE, MESSAGE_UPDATE: the message object (as the REST routes render it)
/// with `guild_id`, and each mentioned user that is a member with its partial `member`
/// (the guild member object without `user`). No `member` for the author: the emulator's
/// messages are all webhooks', which have none.
pub(crate) fn message(name: &'static str, st: &State, guild_id: &str, message: Value) -> Dispatch {
    let mut message = with_guild_id(message, guild_id);
    let g = st.guild(guild_id);
    let mentions = message.get_mut("mentions").and_then(Value::as_array_mut);
    for mention in mentions.into_iter().flatten() {
        let id = mention
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let member = g.and_then(|g| {
            let m = g.member(id)?;
            let u = st.user(id)?;
            Some(render::member(m, u, g.member_details.get(id)))
        });
        if let (Some(mut member), Some(o)) = (member, mention.as_object_mut()) {
            if let Some(m) = member.as_object_mut() {
                m.remove("user");
            }
            o.insert("member".into(), member);
        }
    }
    Dispatch::new(name, guild_id, message)
}

/// MESSAGE_DELETE: `{id, channel_id, guild_id}`.
pub(crate) fn message_delete(guild_id: &str, channel_id: &str, id: &str) -> Dispatch {
    let data = json!({"id": id, "channel_id": channel_id, "guild_id": guild_id});
    Dispatch::new(MESSAGE_DELETE, guild_id, data)
}

/// `v` (an object) with `guild_id` set.
fn with_guild_id(mut v: Value, guild_id: &str) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.insert("guild_id".into(), json!(guild_id));
    }
    v
}

impl From<&'static str> for Dispatch {
    fn from(name: &'static str) -> Dispatch {
        Dispatch {
            name,
            guild_id: None,
            data: None,
        }
    }
}

pub const GUILD_UPDATE: &str = "GUILD_UPDATE";
pub const CHANNEL_CREATE: &str = "CHANNEL_CREATE";
pub const CHANNEL_UPDATE: &str = "CHANNEL_UPDATE";
pub const CHANNEL_DELETE: &str = "CHANNEL_DELETE";
pub const GUILD_MEMBER_ADD: &str = "GUILD_MEMBER_ADD";
pub const GUILD_MEMBER_UPDATE: &str = "GUILD_MEMBER_UPDATE";
pub const GUILD_MEMBER_REMOVE: &str = "GUILD_MEMBER_REMOVE";
pub const GUILD_BAN_ADD: &str = "GUILD_BAN_ADD";
pub const GUILD_BAN_REMOVE: &str = "GUILD_BAN_REMOVE";
pub const GUILD_ROLE_CREATE: &str = "GUILD_ROLE_CREATE";
pub const GUILD_ROLE_UPDATE: &str = "GUILD_ROLE_UPDATE";
pub const GUILD_ROLE_DELETE: &str = "GUILD_ROLE_DELETE";
pub const GUILD_INTEGRATIONS_UPDATE: &str = "GUILD_INTEGRATIONS_UPDATE";
pub const INTEGRATION_DELETE: &str = "INTEGRATION_DELETE";
pub const INVITE_DELETE: &str = "INVITE_DELETE";
pub const WEBHOOKS_UPDATE: &str = "WEBHOOKS_UPDATE";
/// Beyond the reference's table, from Discord's Gateway docs: what posting, editing and
/// deleting a message, and making or unarchiving a thread, fire.
pub const MESSAGE_CREATE: &str = "MESSAGE_CREATE";
pub const MESSAGE_UPDATE: &str = "MESSAGE_UPDATE";
pub const MESSAGE_DELETE: &str = "MESSAGE_DELETE";
pub const THREAD_CREATE: &str = "THREAD_CREATE";
pub const THREAD_UPDATE: &str = "THREAD_UPDATE";
/// Also from the Gateway docs: what the expression, AutoMod and scheduled-event routes
/// fire.
pub const GUILD_EMOJIS_UPDATE: &str = "GUILD_EMOJIS_UPDATE";
pub const GUILD_STICKERS_UPDATE: &str = "GUILD_STICKERS_UPDATE";
pub const GUILD_SOUNDBOARD_SOUND_CREATE: &str = "GUILD_SOUNDBOARD_SOUND_CREATE";
pub const GUILD_SOUNDBOARD_SOUND_UPDATE: &str = "GUILD_SOUNDBOARD_SOUND_UPDATE";
pub const GUILD_SOUNDBOARD_SOUND_DELETE: &str = "GUILD_SOUNDBOARD_SOUND_DELETE";
pub const AUTO_MODERATION_RULE_CREATE: &str = "AUTO_MODERATION_RULE_CREATE";
pub const AUTO_MODERATION_RULE_UPDATE: &str = "AUTO_MODERATION_RULE_UPDATE";
pub const AUTO_MODERATION_RULE_DELETE: &str = "AUTO_MODERATION_RULE_DELETE";
pub const GUILD_SCHEDULED_EVENT_CREATE: &str = "GUILD_SCHEDULED_EVENT_CREATE";
pub const GUILD_SCHEDULED_EVENT_UPDATE: &str = "GUILD_SCHEDULED_EVENT_UPDATE";
pub const GUILD_SCHEDULED_EVENT_DELETE: &str = "GUILD_SCHEDULED_EVENT_DELETE";
