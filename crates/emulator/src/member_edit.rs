//! Modifying members: Modify Guild Member (nick, roles, mute and deaf, moves and
//! disconnects, timeouts, flags), Modify Current Member and the deprecated Modify Current
//! User Nick. Each change is audited as Discord's action types say (MEMBER_UPDATE 24 for
//! the member's own fields, MEMBER_ROLE_UPDATE 25, MEMBER_MOVE 26, MEMBER_DISCONNECT 27)
//! with the request's reason, and fires Guild Member Update.

use axum::extract::Path;
use discord_permissions::Permissions;
use serde_json::{Value, json};

use crate::access::{InGuild, digits, guild_for_write, need, need_in_channel};
use crate::app::{JsonBody, R, fired, ok};
use crate::audit_log::action::{MEMBER_DISCONNECT, MEMBER_MOVE, MEMBER_ROLE_UPDATE, MEMBER_UPDATE};
use crate::audit_log::{Entry, change, diff, string_options};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader, image_hash};
use crate::names::stored_display_name;
use crate::perms::{bits, can_manage_role, guild_permissions, is_owner, outranks};
use crate::render;
use crate::state::{AuditChange, Guild, MemberDetails, SnowflakeGen, State};
use crate::time::{parse_timestamp, timestamp};

/// The one member flag a caller may set or clear: BYPASSES_VERIFICATION (1 << 2); the
/// others are Discord's to set (reference, Member flags, "Editable").
pub(crate) const EDITABLE_MEMBER_FLAGS: u64 = 1 << 2;
/// A timeout may end at most 28 days ahead (reference, Limits).
const MAX_TIMEOUT_MS: u64 = 28 * 86_400_000;
/// Nicknames are stored as Discord stores them (§9.2) and hold at most 32 characters
/// (the spec's `maxLength`).
const NICK_MAX: usize = 32;

/// `nick`: absent → None; null or empty → Some(None) (removes it); else the stored
/// nickname, 1–32 characters.
pub(crate) fn read_nick(r: &mut Reader) -> Option<Option<String>> {
    match r.string("nick") {
        Field::Absent => None,
        Field::Null => Some(None),
        Field::Set(sent) => {
            let nick = stored_display_name(&sent);
            if nick.chars().count() > NICK_MAX {
                r.err(
                    "nick",
                    "BASE_TYPE_MAX_LENGTH",
                    &format!("Must be {NICK_MAX} or fewer in length."),
                );
                return None;
            }
            Some((!nick.is_empty()).then_some(nick))
        }
    }
}

/// 400 40032: mute, deaf and moves need the member in a voice channel (reference,
/// Errors).
fn not_in_voice() -> ApiError {
    ApiError::bad_request(40032, "Target user is not connected to voice.")
}

/// The fields of Modify Guild Member that were sent (null where null means something).
struct MemberEdit {
    nick: Option<Option<String>>,
    roles: Option<Vec<String>>,
    mute: Option<bool>,
    deaf: Option<bool>,
    /// Some(None) disconnects.
    channel: Option<Option<String>>,
    /// Some(None) removes the timeout.
    timeout: Option<Option<(String, u64)>>,
    flags: Option<u64>,
}

fn read_edit(body: &Value, now: u64) -> Result<MemberEdit, ApiError> {
    let obj = form::object(body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let nick = read_nick(&mut r);
    // Null leaves roles, mute, deaf and flags as they are.
    let roles = r.snowflakes("roles", 350).set();
    let mute = r.boolean("mute").set();
    let deaf = r.boolean("deaf").set();
    let channel = r.snowflake("channel_id").into_option();
    let timeout = match r.string("communication_disabled_until") {
        Field::Absent => None,
        Field::Null => Some(None),
        Field::Set(s) => match parse_timestamp(&s) {
            None => {
                r.err(
                    "communication_disabled_until",
                    "DATE_TIME_TYPE_PARSE",
                    &format!("Could not parse {s}. Should be ISO8601."),
                );
                None
            }
            Some(ms) if ms > now + MAX_TIMEOUT_MS => {
                r.err(
                    "communication_disabled_until",
                    "COMMUNICATION_DISABLED_TIMESTAMP_TOO_LARGE",
                    "Timeouts can only be set up to 28 days in the future.",
                );
                None
            }
            Some(ms) => Some(Some((timestamp(ms), ms))),
        },
    };
    let flags = match r.int("flags") {
        Field::Set(n) if n < 0 => {
            r.err("flags", "NUMBER_TYPE_MIN", "int value should be >= 0.");
            None
        }
        Field::Set(n) => Some(n as u64),
        _ => None,
    };
    errs.check()?;
    Ok(MemberEdit {
        nick,
        roles,
        mute,
        deaf,
        channel,
        timeout,
        flags,
    })
}

/// Whether the caller may set or clear member flags: MANAGE_GUILD, or MANAGE_ROLES, or
/// all of MODERATE_MEMBERS, KICK_MEMBERS and BAN_MEMBERS (reference).
fn may_edit_flags(p: Permissions) -> bool {
    let moderator = bits::MODERATE_MEMBERS | Permissions::KICK_MEMBERS | Permissions::BAN_MEMBERS;
    p.contains(Permissions::MANAGE_GUILD)
        || p.contains(Permissions::MANAGE_ROLES)
        || p.contains(moderator)
}

/// Every check of a Modify Guild Member before anything changes, so a refused request
/// changes nothing.
fn check_edit(g: &Guild, actor: &str, uid: &str, e: &MemberEdit) -> Result<(), ApiError> {
    let p = guild_permissions(g, actor);
    let details = g.member_details.get(uid);
    let in_voice = details.and_then(|d| d.voice_channel_id.as_deref());
    if e.nick.is_some() {
        // One's own nickname needs CHANGE_NICKNAME; another's MANAGE_NICKNAMES and rank.
        if uid == actor {
            if !p.contains(bits::CHANGE_NICKNAME) {
                need(p, bits::MANAGE_NICKNAMES)?;
            }
        } else {
            need(p, bits::MANAGE_NICKNAMES)?;
            if !outranks(g, actor, uid) {
                return Err(ApiError::missing_permissions());
            }
        }
    }
    if let Some(roles) = &e.roles {
        need(p, Permissions::MANAGE_ROLES)?;
        let held = g.member(uid).map(|m| m.roles.clone()).unwrap_or_default();
        for rid in roles.iter().chain(&held) {
            if roles.contains(rid) == held.contains(rid) {
                continue;
            }
            let role = g.role(rid).ok_or_else(ApiError::unknown_role)?;
            // @everyone and managed roles are nobody's to give or take (§3.4).
            if role.id == g.id || role.managed {
                return Err(ApiError::invalid_role());
            }
            if !can_manage_role(g, actor, role) {
                return Err(ApiError::missing_permissions());
            }
        }
    }
    if e.mute.is_some() {
        need(p, bits::MUTE_MEMBERS)?;
        in_voice.ok_or_else(not_in_voice)?;
    }
    if e.deaf.is_some() {
        need(p, bits::DEAFEN_MEMBERS)?;
        in_voice.ok_or_else(not_in_voice)?;
    }
    if let Some(target) = &e.channel {
        need(p, bits::MOVE_MEMBERS)?;
        in_voice.ok_or_else(not_in_voice)?;
        if let Some(cid) = target {
            let c = g.channel(cid).ok_or_else(ApiError::unknown_channel)?;
            if !matches!(c.kind, 2 | 13) {
                return Err(ApiError::bad_request(
                    50024,
                    "Cannot execute action on this channel type",
                ));
            }
            // The caller must be able to connect to where it moves the member.
            need_in_channel(g, c, actor, bits::CONNECT)?;
        }
    }
    if let Some(t) = &e.timeout {
        need(p, bits::MODERATE_MEMBERS)?;
        // 403 on administrators and the owner (reference, Errors), and on members the
        // caller does not outrank.
        let target_admin = guild_permissions(g, uid).contains(Permissions::ADMINISTRATOR);
        if t.is_some() && (target_admin || is_owner(g, uid)) {
            return Err(ApiError::missing_permissions());
        }
        if uid != actor && !outranks(g, actor, uid) {
            return Err(ApiError::missing_permissions());
        }
    }
    if e.flags.is_some() && !may_edit_flags(p) {
        return Err(ApiError::missing_permissions());
    }
    Ok(())
}

/// Applies a checked edit and logs it.
fn apply_edit(
    g: &mut Guild,
    snow: &mut SnowflakeGen,
    actor: &str,
    reason: Option<&str>,
    uid: &str,
    e: MemberEdit,
) {
    let mut member_changes: Vec<AuditChange> = Vec::new();
    if let Some(nick) = e.nick
        && let Some(m) = g.members.iter_mut().find(|m| m.user_id == uid)
    {
        diff(&mut member_changes, "nick", json!(m.nick), json!(nick));
        m.nick = nick;
    }
    let mut role_changes = Vec::new();
    if let Some(roles) = e.roles {
        let held = g.member(uid).map(|m| m.roles.clone()).unwrap_or_default();
        let named = |ids: Vec<&String>| -> Vec<Value> {
            ids.into_iter()
                .filter_map(|id| g.role(id))
                .map(|r| json!({"id": r.id, "name": r.name}))
                .collect()
        };
        let added = named(roles.iter().filter(|r| !held.contains(r)).collect());
        let removed = named(held.iter().filter(|r| !roles.contains(r)).collect());
        if !added.is_empty() {
            role_changes.push(change("$add", Value::Null, Value::Array(added)));
        }
        if !removed.is_empty() {
            role_changes.push(change("$remove", Value::Null, Value::Array(removed)));
        }
        if let Some(m) = g.members.iter_mut().find(|m| m.user_id == uid) {
            m.roles = roles;
        }
    }
    let d: &mut MemberDetails = g.member_details.entry(uid.to_owned()).or_default();
    if let Some(mute) = e.mute {
        diff(&mut member_changes, "mute", json!(d.mute), json!(mute));
        d.mute = mute;
    }
    if let Some(deaf) = e.deaf {
        diff(&mut member_changes, "deaf", json!(d.deaf), json!(deaf));
        d.deaf = deaf;
    }
    if let Some(t) = e.timeout {
        let until = t.map(|(s, _)| s);
        diff(
            &mut member_changes,
            "communication_disabled_until",
            json!(d.communication_disabled_until),
            json!(until),
        );
        d.communication_disabled_until = until;
    }
    if let Some(sent) = e.flags {
        let new = (d.flags & !EDITABLE_MEMBER_FLAGS) | (sent & EDITABLE_MEMBER_FLAGS);
        diff(&mut member_changes, "flags", json!(d.flags), json!(new));
        d.flags = new;
    }
    let mut voice: Option<(u32, Option<String>)> = None;
    if let Some(target) = e.channel
        && d.voice_channel_id != target
    {
        d.voice_channel_id = target.clone();
        voice = Some(match target {
            Some(c) => (MEMBER_MOVE, Some(c)),
            None => (MEMBER_DISCONNECT, None),
        });
    }
    if !member_changes.is_empty() {
        Entry::on(MEMBER_UPDATE, uid)
            .changes(member_changes)
            .by(actor, reason)
            .record(g, snow);
    }
    if !role_changes.is_empty() {
        Entry::on(MEMBER_ROLE_UPDATE, uid)
            .changes(role_changes)
            .by(actor, reason)
            .record(g, snow);
    }
    if let Some((action, channel)) = voice {
        // Moves and disconnects are counted, not targeted (reference, options: count,
        // and channel_id for MEMBER_MOVE).
        let mut opts = vec![("count", "1".to_owned())];
        if let Some(c) = channel {
            opts.push(("channel_id", c));
        }
        Entry::untargeted(action)
            .options(string_options(&opts))
            .by(actor, reason)
            .record(g, snow);
    }
}

/// The member `uid` of guild `gid` as a response.
fn shown(st: &State, gid: &str, uid: &str) -> Result<Value, ApiError> {
    let g = st.guild(gid).ok_or_else(ApiError::unknown_guild)?;
    let m = g.member(uid).ok_or_else(ApiError::unknown_member)?;
    let u = st.user(uid).ok_or_else(ApiError::unknown_user)?;
    Ok(render::member(m, u, g.member_details.get(uid)))
}

/// `PATCH /guilds/{g}/members/{u}` (Modify Guild Member): each field with its own
/// permission (reference table), checked all before anything changes. 200 with the
/// member.
pub async fn modify_member(
    call: InGuild,
    Path((_, uid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    digits(&uid)?;
    let now = st.now_ms();
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::NONE)?;
    if g.member(&uid).is_none() {
        return Err(ApiError::unknown_member());
    }
    let edit = read_edit(&body, now)?;
    check_edit(g, actor, &uid, &edit)?;
    apply_edit(g, snowflake, actor, call.reason(), &uid, edit);
    // Modify Guild Member fires Guild Member Update (reference, Events).
    let updated = events::member(events::GUILD_MEMBER_UPDATE, &st, &call.gid, &uid);
    fired(ok(shown(&st, &call.gid, &uid)?), [updated])
}

/// `PATCH /guilds/{g}/members/@me` (Modify Current Member): `nick` (CHANGE_NICKNAME),
/// `avatar` and `banner` (image data; the guild profile keeps their hashes), `bio` (≤190
/// characters). 200 with the member.
pub async fn modify_current_member(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let nick = read_nick(&mut r);
    let avatar = r.image("avatar").into_option();
    let banner = r.image("banner").into_option();
    let bio = r.string_len("bio", 0, 190).into_option();
    errs.check()?;
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, &actor, Permissions::NONE)?;
    if nick.is_some() {
        need(guild_permissions(g, &actor), bits::CHANGE_NICKNAME)?;
    }
    let mut changes = Vec::new();
    if let Some(nick) = nick
        && let Some(m) = g.members.iter_mut().find(|m| m.user_id == actor)
    {
        diff(&mut changes, "nick", json!(m.nick), json!(nick));
        m.nick = nick;
    }
    let d = g.member_details.entry(actor.clone()).or_default();
    if let Some(a) = avatar {
        let hash = a.map(|data| image_hash(&data));
        diff(&mut changes, "avatar_hash", json!(d.avatar), json!(hash));
        d.avatar = hash;
    }
    if let Some(b) = banner {
        d.banner = b.map(|data| image_hash(&data));
    }
    if let Some(b) = bio {
        d.bio = b.filter(|s| !s.is_empty());
    }
    if !changes.is_empty() {
        Entry::on(MEMBER_UPDATE, &actor)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let updated = events::member(events::GUILD_MEMBER_UPDATE, &st, &call.gid, &actor);
    fired(ok(shown(&st, &call.gid, &actor)?), [updated])
}

/// `PATCH /guilds/{g}/members/@me/nick` (Modify Current User Nick, deprecated): `nick`
/// with CHANGE_NICKNAME → 200 `{"nick"}`.
pub async fn modify_current_nick(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let nick = read_nick(&mut r).unwrap_or(None);
    errs.check()?;
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, &actor, bits::CHANGE_NICKNAME)?;
    let mut changes = Vec::new();
    if let Some(m) = g.members.iter_mut().find(|m| m.user_id == actor) {
        diff(&mut changes, "nick", json!(m.nick), json!(nick));
        m.nick = nick.clone();
    }
    if !changes.is_empty() {
        Entry::on(MEMBER_UPDATE, &actor)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let updated = events::member(events::GUILD_MEMBER_UPDATE, &st, &call.gid, &actor);
    fired(ok(json!({ "nick": nick })), [updated])
}
