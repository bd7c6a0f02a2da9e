//! State → response JSON, with the fields Discord returns for each object.

use serde_json::{Map, Value, json};

use super::config::EmulatorConfig;
use super::perms::rank;
use super::state::{
    AuditEntry, AutoModRule, Channel, Emoji, Guild, Member, MemberDetails, RecurrenceRule, Role,
    ScheduledEvent, Sound, Sticker, Thread, User, Webhook,
};

pub fn user(u: &User) -> Value {
    let mut v = json!({
        "id": u.id,
        "username": u.username,
        "avatar": u.avatar,
        "discriminator": u.discriminator,
        "public_flags": u.public_flags,
        "flags": u.public_flags,
        "global_name": u.global_name,
        "banner": null,
        "accent_color": null,
        "avatar_decoration_data": null,
        "collectibles": null,
        "primary_guild": null,
    });
    if u.bot
        && let Some(o) = v.as_object_mut()
    {
        o.insert("bot".into(), Value::Bool(true));
    }
    v
}

/// `GET /users/@me`: the user object plus the private fields.
pub fn current_user(u: &User) -> Value {
    let mut v = user(u);
    if let Some(o) = v.as_object_mut() {
        o.insert("mfa_enabled".into(), Value::Bool(false));
        o.insert("locale".into(), Value::String("en-US".into()));
        o.insert("premium_type".into(), json!(0));
        o.insert("email".into(), Value::Null);
        o.insert("verified".into(), Value::Bool(true));
    }
    v
}

/// How the server departs from Discord in what it sends ([`EmulatorConfig`]'s
/// compatibility knobs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Dialect {
    /// `color: 0` on every role (`role_color_zero`).
    pub role_color_zero: bool,
}

impl Dialect {
    pub fn of(config: &EmulatorConfig) -> Dialect {
        Dialect {
            role_color_zero: config.role_color_zero,
        }
    }
}

pub fn role(r: &Role, dialect: Dialect) -> Value {
    let mut v = json!({
        "id": r.id,
        "name": r.name,
        "description": null,
        "permissions": r.permissions,
        "position": r.position,
        "color": if dialect.role_color_zero { 0 } else { r.color },
        // colors.primary_color always equals color (§3.1).
        "colors": {
            "primary_color": r.color,
            "secondary_color": r.secondary_color,
            "tertiary_color": r.tertiary_color,
        },
        "hoist": r.hoist,
        "icon": r.icon,
        "unicode_emoji": r.unicode_emoji,
        "managed": r.managed,
        "mentionable": r.mentionable,
        "flags": r.flags,
    });
    if let (Some(tags), Some(o)) = (&r.tags, v.as_object_mut()) {
        o.insert("tags".into(), tags.clone());
    }
    v
}

/// Roles highest first, the order Discord's client shows them.
pub fn roles(g: &Guild, dialect: Dialect) -> Value {
    let mut rs: Vec<&Role> = g.roles.iter().collect();
    rs.sort_by_key(|r| std::cmp::Reverse(rank(g, r)));
    Value::Array(rs.into_iter().map(|r| role(r, dialect)).collect())
}

pub fn channel(guild_id: &str, c: &Channel) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(c.id));
    o.insert("type".into(), json!(c.kind));
    o.insert("guild_id".into(), json!(guild_id));
    o.insert("name".into(), json!(c.name));
    o.insert("position".into(), json!(c.position));
    o.insert("flags".into(), json!(c.flags));
    o.insert("parent_id".into(), json!(c.parent_id));
    o.insert(
        "permission_overwrites".into(),
        json!(c.permission_overwrites),
    );
    let text_like = matches!(c.kind, 0 | 5 | 15 | 16);
    let voice_like = matches!(c.kind, 2 | 13);
    if c.kind != 4 {
        o.insert("nsfw".into(), json!(c.nsfw));
        o.insert("last_message_id".into(), Value::Null);
    }
    if text_like {
        o.insert("topic".into(), json!(c.topic));
    }
    if text_like || voice_like {
        o.insert(
            "rate_limit_per_user".into(),
            json!(c.rate_limit_per_user.unwrap_or(0)),
        );
    }
    if voice_like {
        o.insert("bitrate".into(), json!(c.bitrate.unwrap_or(64000)));
        o.insert("user_limit".into(), json!(c.user_limit.unwrap_or(0)));
        o.insert("rtc_region".into(), json!(c.rtc_region));
        if let Some(q) = c.video_quality_mode {
            o.insert("video_quality_mode".into(), json!(q));
        }
    }
    if let Some(d) = c.default_auto_archive_duration {
        o.insert("default_auto_archive_duration".into(), json!(d));
    }
    if let Some(d) = c.default_thread_rate_limit_per_user {
        o.insert("default_thread_rate_limit_per_user".into(), json!(d));
    }
    if matches!(c.kind, 15 | 16) {
        o.insert("available_tags".into(), json!(c.available_tags));
        o.insert(
            "default_reaction_emoji".into(),
            json!(c.default_reaction_emoji),
        );
        o.insert("default_sort_order".into(), json!(c.default_sort_order));
        o.insert("default_tag_setting".into(), Value::Null);
    }
    if c.kind == 15 {
        o.insert("default_forum_layout".into(), json!(c.default_forum_layout));
    }
    Value::Object(o)
}

pub fn guild(g: &Guild, with_counts: bool, dialect: Dialect) -> Value {
    let mut v = serde_json::to_value(g).unwrap_or_else(|_| json!({}));
    if let Some(o) = v.as_object_mut() {
        o.remove("channels");
        o.remove("members");
        o.remove("audit_log");
        o.remove("welcome_screen");
        o.remove("onboarding");
        o.remove("webhooks");
        o.remove("integrations");
        o.remove("invites");
        o.remove("vanity_uses");
        o.remove("member_details");
        o.remove("threads");
        o.remove("messages");
        o.remove("soundboard_sounds");
        o.remove("auto_moderation_rules");
        o.remove("scheduled_events");
        // The emulator's own keeping: uploads behind the hashes, and bans (their own route).
        o.remove("images");
        o.remove("bans");
        o.insert("roles".into(), roles(g, dialect));
        o.insert("emojis".into(), emojis(g));
        o.insert("stickers".into(), stickers(g));
        if with_counts {
            o.insert("approximate_member_count".into(), json!(g.members.len()));
            o.insert("approximate_presence_count".into(), json!(0));
        }
    }
    v
}

/// A member with its details (defaults when it has none).
pub fn member(m: &Member, u: &User, d: Option<&MemberDetails>) -> Value {
    let none = MemberDetails::default();
    let d = d.unwrap_or(&none);
    json!({
        "avatar": d.avatar,
        "banner": d.banner,
        "communication_disabled_until": d.communication_disabled_until,
        "flags": d.flags,
        "joined_at": m.joined_at,
        "nick": m.nick,
        "pending": d.pending,
        "premium_since": d.premium_since,
        "roles": m.roles,
        "user": user(u),
        "mute": d.mute,
        "deaf": d.deaf,
    })
}

/// A thread as channel reads return it; `me` adds the caller's thread member when it
/// joined.
pub fn thread(guild_id: &str, t: &Thread, message_count: usize) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(t.id));
    o.insert("type".into(), json!(t.kind));
    o.insert("guild_id".into(), json!(guild_id));
    o.insert("parent_id".into(), json!(t.parent_id));
    o.insert("name".into(), json!(t.name));
    o.insert("owner_id".into(), json!(t.owner_id));
    o.insert("flags".into(), json!(t.flags));
    o.insert("last_message_id".into(), Value::Null);
    o.insert("rate_limit_per_user".into(), json!(t.rate_limit_per_user));
    o.insert("message_count".into(), json!(message_count));
    o.insert("member_count".into(), json!(t.member_ids.len().min(50)));
    o.insert("total_message_sent".into(), json!(t.total_message_sent));
    o.insert(
        "thread_metadata".into(),
        json!({
            "archived": t.archived,
            "archive_timestamp": t.archive_timestamp,
            "auto_archive_duration": t.auto_archive_duration,
            "locked": t.locked,
        }),
    );
    if !t.applied_tags.is_empty() {
        o.insert("applied_tags".into(), json!(t.applied_tags));
    }
    Value::Object(o)
}

pub fn audit_entry(e: &AuditEntry) -> Value {
    serde_json::to_value(e).unwrap_or_else(|_| json!({}))
}

/// A webhook. `creator` is omitted on the token routes; the token is shown
/// only to the application that created the webhook (§6) and on the token
/// routes.
pub fn webhook(guild_id: &str, w: &Webhook, creator: Option<&User>, show_token: bool) -> Value {
    let mut o = Map::new();
    o.insert("application_id".into(), json!(w.application_id));
    o.insert("avatar".into(), json!(w.avatar));
    o.insert("channel_id".into(), json!(w.channel_id));
    o.insert("guild_id".into(), json!(guild_id));
    o.insert("id".into(), json!(w.id));
    o.insert("name".into(), json!(w.name));
    o.insert("type".into(), json!(w.kind));
    if let Some(u) = creator {
        o.insert("user".into(), user(u));
    }
    if show_token
        && w.kind == 1
        && let Some(t) = &w.token
    {
        o.insert("token".into(), json!(t));
    }
    if w.kind == 2 {
        if let Some(sg) = &w.source_guild {
            o.insert("source_guild".into(), sg.clone());
        }
        if let Some(sc) = &w.source_channel {
            o.insert("source_channel".into(), sc.clone());
        }
    }
    Value::Object(o)
}

/// An emoji; `creator` is its `user`, shown to callers with an expression permission.
pub fn emoji(e: &Emoji, creator: Option<Value>) -> Value {
    let mut v = json!({
        "id": e.id,
        "name": e.name,
        "roles": e.roles,
        "require_colons": e.require_colons,
        "managed": e.managed,
        "animated": e.animated,
        "available": e.available,
    });
    if let (Some(u), Some(o)) = (creator, v.as_object_mut()) {
        o.insert("user".into(), u);
    }
    v
}

/// The guild's emoji as the guild object carries them (no creators).
pub fn emojis(g: &Guild) -> Value {
    Value::Array(g.emojis.iter().map(|e| emoji(e, None)).collect())
}

/// A guild sticker (type 2); `creator` is its `user`.
pub fn sticker(guild_id: &str, s: &Sticker, creator: Option<Value>) -> Value {
    let mut v = json!({
        "id": s.id,
        "name": s.name,
        "tags": s.tags,
        "type": 2,
        "format_type": s.format_type,
        "description": s.description,
        "available": s.available,
        "guild_id": guild_id,
    });
    if let (Some(u), Some(o)) = (creator, v.as_object_mut()) {
        o.insert("user".into(), u);
    }
    v
}

/// The guild's stickers as the guild object carries them (no creators).
pub fn stickers(g: &Guild) -> Value {
    Value::Array(g.stickers.iter().map(|s| sticker(&g.id, s, None)).collect())
}

/// A soundboard sound; `creator` is its `user`.
pub fn sound(guild_id: &str, s: &Sound, creator: Option<Value>) -> Value {
    let mut v = json!({
        "name": s.name,
        "sound_id": s.sound_id,
        "volume": s.volume,
        "emoji_id": s.emoji_id,
        "emoji_name": s.emoji_name,
        "guild_id": guild_id,
        "available": s.available,
    });
    if let (Some(u), Some(o)) = (creator, v.as_object_mut()) {
        o.insert("user".into(), u);
    }
    v
}

/// An AutoMod rule. `trigger_metadata` holds exactly the fields of its trigger type,
/// and every action a `metadata` object (empty when the type has none).
pub fn automod_rule(guild_id: &str, r: &AutoModRule) -> Value {
    let m = &r.trigger_metadata;
    let metadata = match r.trigger_type {
        1 | 6 => json!({
            "keyword_filter": m.keyword_filter,
            "regex_patterns": m.regex_patterns,
            "allow_list": m.allow_list,
        }),
        4 => json!({"allow_list": m.allow_list, "presets": m.presets}),
        5 => json!({
            "mention_total_limit": m.mention_total_limit.unwrap_or(0),
            "mention_raid_protection_enabled": m.mention_raid_protection_enabled.unwrap_or(false),
        }),
        _ => json!({}),
    };
    json!({
        "id": r.id,
        "guild_id": guild_id,
        "name": r.name,
        "creator_id": r.creator_id,
        "event_type": r.event_type,
        "trigger_type": r.trigger_type,
        "trigger_metadata": metadata,
        "actions": r.actions,
        "enabled": r.enabled,
        "exempt_roles": r.exempt_roles,
        "exempt_channels": r.exempt_channels,
    })
}

/// A scheduled event; `creator` its creator's user object, `with_user_count` adds
/// `user_count` (the `with_user_count` query).
pub fn scheduled_event(
    guild_id: &str,
    e: &ScheduledEvent,
    creator: Option<Value>,
    with_user_count: bool,
) -> Value {
    let mut v = json!({
        "id": e.id,
        "guild_id": guild_id,
        "channel_id": e.channel_id,
        "creator_id": e.creator_id,
        "name": e.name,
        "description": e.description,
        "scheduled_start_time": e.scheduled_start_time,
        "scheduled_end_time": e.scheduled_end_time,
        "privacy_level": e.privacy_level,
        "status": e.status,
        "entity_type": e.entity_type,
        "entity_id": e.entity_id,
        "entity_metadata": e.entity_metadata,
        "image": e.image,
        "recurrence_rule": e.recurrence_rule.as_ref().map(recurrence_rule),
        // Exceptions to recurring events are undocumented; the emulator has none.
        "guild_scheduled_event_exceptions": [],
    });
    if let Some(o) = v.as_object_mut() {
        if let Some(u) = creator {
            o.insert("creator".into(), u);
        }
        if with_user_count {
            o.insert("user_count".into(), json!(e.user_count));
        }
    }
    v
}

/// A recurrence rule with every field, null where unset.
pub fn recurrence_rule(r: &RecurrenceRule) -> Value {
    json!({
        "start": r.start,
        "end": r.end,
        "frequency": r.frequency,
        "interval": r.interval,
        "by_weekday": r.by_weekday,
        "by_n_weekday": r.by_n_weekday,
        "by_month": r.by_month,
        "by_month_day": r.by_month_day,
        "by_year_day": r.by_year_day,
        "count": r.count,
    })
}
