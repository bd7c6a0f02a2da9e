//! The Gateway's sessions and what they are sent: IDENTIFY and RESUME taken or refused,
//! READY and GUILD_CREATE, and each dispatch numbered, kept for RESUME and sent to the
//! sessions that see it. Holds no lock: its callers lock `state`, then `gateway`.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use discord_permissions::Permissions;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use super::intents::intent_of;
use crate::config::GatewayConfig;
use crate::events::Dispatch;
use crate::perms::guild_permissions;
use crate::render;
use crate::state::State;

/// What a connection is told to do next, besides sending its payloads.
#[derive(Debug)]
pub(crate) enum Out {
    /// One payload, as text (compressed by the connection when it asked for it).
    Payload(String),
    /// A close frame with this code and reason; the connection ends.
    Close(u16, &'static str),
    /// The TCP connection goes without a close frame, as a network failure would end it.
    Drop,
}

/// One session: what IDENTIFY asked for, its sequence, and the dispatches it was sent.
#[derive(Debug)]
struct Session {
    user_id: String,
    intents: u64,
    shard: [u64; 2],
    seq: u64,
    /// Sent dispatches kept for RESUME, oldest first: `(s, payload)`.
    sent: VecDeque<(u64, String)>,
    /// The connection it is attached to, while it has one: `(connection, its outbox)`.
    conn: Option<(u64, UnboundedSender<Out>)>,
}

impl Session {
    /// Numbers and sends (or keeps, while no connection is attached) one dispatch.
    fn dispatch(&mut self, name: &str, data: &Value, keep: usize) {
        self.seq += 1;
        let text = json!({"op": 0, "t": name, "s": self.seq, "d": data}).to_string();
        if let Some((_, tx)) = &self.conn {
            let _ = tx.send(Out::Payload(text.clone()));
        }
        self.sent.push_back((self.seq, text));
        while self.sent.len() > keep {
            self.sent.pop_front();
        }
    }
}

/// The Gateway's sessions and identify limits (`Shared::gateway`).
#[derive(Debug, Default)]
pub struct Gateway {
    sessions: HashMap<String, Session>,
    /// The last IDENTIFY accepted per bot and `shard_id % max_concurrency` bucket.
    last_identify: HashMap<(String, u64), Instant>,
    /// IDENTIFYs accepted per bot in the current day: `(count, when the day began)`.
    starts: HashMap<String, (u32, Instant)>,
    /// Every audit-log entry with an id up to this one has been dispatched (ids grow with
    /// the emulator's snowflakes); `None` until the first session.
    audit_sent_to: Option<u64>,
    next_id: u64,
}

/// Discord's day of identifies.
const DAY: Duration = Duration::from_secs(86_400);

/// The shard a guild belongs to among `count` (Discord's formula).
pub fn shard_of(guild_id: &str, count: u64) -> u64 {
    (guild_id.parse::<u64>().unwrap_or(0) >> 22) % count.max(1)
}

/// A control command for sessions (`POST /_emulator/gateway`).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct GatewayCommand {
    /// `reconnect` (op 7), `invalid_session` (op 9 with `resumable`), `close` (a close
    /// frame with `code`, 4000 by default) or `drop` (the TCP connection goes, no frame).
    pub send: String,
    #[serde(default)]
    pub resumable: bool,
    #[serde(default)]
    pub code: Option<u16>,
    /// One session; all when left out.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// A session as `GET /_emulator/gateway` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionInfo {
    pub session_id: String,
    pub user_id: String,
    pub shard: [u64; 2],
    pub intents: u64,
    pub seq: u64,
    pub connected: bool,
}

impl Gateway {
    fn new_id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!(
            "{prefix}{:016x}",
            self.next_id.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        )
    }

    pub(crate) fn next_connection(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn sessions(&self) -> Vec<SessionInfo> {
        let mut out: Vec<SessionInfo> = self
            .sessions
            .iter()
            .map(|(id, s)| SessionInfo {
                session_id: id.clone(),
                user_id: s.user_id.clone(),
                shard: s.shard,
                intents: s.intents,
                seq: s.seq,
                connected: s.conn.is_some(),
            })
            .collect();
        out.sort_by(|a, b| a.shard.cmp(&b.shard).then(a.session_id.cmp(&b.session_id)));
        out
    }

    /// Carries out a control command; returns how many sessions it reached.
    pub fn command(&mut self, c: &GatewayCommand) -> Result<usize, String> {
        let payload = match c.send.as_str() {
            "reconnect" => Some(json!({"op": 7, "d": null}).to_string()),
            "invalid_session" => Some(json!({"op": 9, "d": c.resumable}).to_string()),
            "close" | "drop" => None,
            other => {
                return Err(format!(
                    "send must be reconnect, invalid_session, close or drop, not {other:?}"
                ));
            }
        };
        let ids: Vec<String> = match &c.session_id {
            Some(id) if self.sessions.contains_key(id) => vec![id.clone()],
            Some(id) => return Err(format!("no session {id:?}")),
            None => self.sessions.keys().cloned().collect(),
        };
        let mut reached = 0;
        for id in ids {
            let Some(s) = self.sessions.get_mut(&id) else {
                continue;
            };
            if let Some((_, tx)) = &s.conn {
                let out = match (&payload, c.send.as_str()) {
                    (Some(p), _) => Out::Payload(p.clone()),
                    (None, "drop") => Out::Drop,
                    (None, _) => Out::Close(c.code.unwrap_or(4000), "closed by the emulator"),
                };
                let _ = tx.send(out);
                reached += 1;
            }
            if c.send == "invalid_session" && !c.resumable {
                self.sessions.remove(&id);
            }
        }
        Ok(reached)
    }

    /// A connection ended: its session stays, for RESUME, without it.
    pub(crate) fn detach(&mut self, session_id: &str, connection: u64) {
        if let Some(s) = self.sessions.get_mut(session_id)
            && s.conn.as_ref().is_some_and(|(c, _)| *c == connection)
        {
            s.conn = None;
        }
    }

    pub(crate) fn end_session(&mut self, session_id: &str) {
        self.sessions.remove(session_id);
    }
}

/// Why an IDENTIFY or a RESUME is not taken.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Close the connection with this code.
    Close(u16, &'static str),
    /// Answer op 9 with this `d` (may the client resume?).
    InvalidSession(bool),
}

/// What IDENTIFY asks (Discord's Identify structure; the rest is accepted and ignored).
#[derive(Debug, Deserialize)]
pub(crate) struct Identify {
    token: String,
    intents: u64,
    #[serde(default)]
    shard: Option<[u64; 2]>,
}

/// Every intent Discord defines (bits 0–25 less those it retired), and the privileged ones.
const KNOWN_INTENTS: u64 = 0x3FF_FFFF & !(1 << 22) & !(1 << 23);
const GUILD_MEMBERS: u64 = 1 << 1;
const GUILD_PRESENCES: u64 = 1 << 8;
const MESSAGE_CONTENT: u64 = 1 << 15;

fn bot_of(st: &State, token: &str) -> Option<String> {
    let token = token.strip_prefix("Bot ").unwrap_or(token);
    st.tokens
        .iter()
        .find(|t| t.token == token)
        .map(|t| t.user_id.clone())
}

/// The bot's guilds, in the state's order.
fn guilds_of<'a>(st: &'a State, user_id: &'a str) -> impl Iterator<Item = &'a crate::state::Guild> {
    st.guilds
        .iter()
        .filter(move |g| g.member(user_id).is_some())
}

/// `ws://HOST/gateway`, the URL `/gateway` gives and READY's `resume_gateway_url`.
pub fn url(host: &str) -> String {
    format!("ws://{host}/gateway")
}

/// Takes an IDENTIFY: a new session attached to `conn`, sent READY and one GUILD_CREATE
/// per guild of its shard. Returns its id.
pub(crate) fn identify(
    st: &State,
    gw: &mut Gateway,
    d: &Value,
    conn: (u64, UnboundedSender<Out>),
    host: &str,
) -> Result<String, Refusal> {
    let id: Identify = serde_json::from_value(d.clone())
        .map_err(|_| Refusal::Close(4002, "Error while decoding payload."))?;
    let Some(user_id) = bot_of(st, &id.token) else {
        return Err(Refusal::Close(4004, "Authentication failed."));
    };
    if id.intents & !KNOWN_INTENTS != 0 {
        return Err(Refusal::Close(4013, "Invalid intent(s)."));
    }
    let privileged = GUILD_PRESENCES
        | MESSAGE_CONTENT
        | if st.config.guild_members_intent {
            0
        } else {
            GUILD_MEMBERS
        };
    if id.intents & privileged != 0 {
        return Err(Refusal::Close(4014, "Disallowed intent(s)."));
    }
    let [shard_id, shard_count] = id.shard.unwrap_or([0, 1]);
    if shard_count == 0 || shard_id >= shard_count {
        return Err(Refusal::Close(4010, "Invalid shard."));
    }
    let cfg: &GatewayConfig = &st.config.gateway;
    let guilds: Vec<&crate::state::Guild> = guilds_of(st, &user_id)
        .filter(|g| shard_of(&g.id, shard_count) == shard_id)
        .collect();
    if guilds.len() > cfg.guilds_per_shard {
        return Err(Refusal::Close(4011, "Sharding required."));
    }
    let now = Instant::now();
    let started = gw.starts.entry(user_id.clone()).or_insert((0, now));
    if now.duration_since(started.1) >= DAY {
        *started = (0, now);
    }
    if started.0 >= cfg.session_start_total {
        return Err(Refusal::InvalidSession(false));
    }
    let bucket = (user_id.clone(), shard_id % u64::from(cfg.max_concurrency));
    if gw
        .last_identify
        .get(&bucket)
        .is_some_and(|t| now.duration_since(*t) < Duration::from_millis(cfg.identify_interval_ms))
    {
        return Err(Refusal::InvalidSession(false));
    }
    gw.last_identify.insert(bucket, now);
    if let Some(s) = gw.starts.get_mut(&user_id) {
        s.0 += 1;
    }
    if gw.audit_sent_to.is_none() {
        gw.audit_sent_to = Some(st.snowflake.last);
    }
    let session_id = gw.new_id("");
    let mut session = Session {
        user_id: user_id.clone(),
        intents: id.intents,
        shard: [shard_id, shard_count],
        seq: 0,
        sent: VecDeque::new(),
        conn: Some(conn),
    };
    let user = st
        .user(&user_id)
        .map(render::current_user)
        .unwrap_or(Value::Null);
    let ready = json!({
        "v": 10,
        "user": user,
        "guilds": guilds.iter().map(|g| json!({"id": g.id, "unavailable": true})).collect::<Vec<_>>(),
        "session_id": session_id,
        "resume_gateway_url": url(host),
        "shard": [shard_id, shard_count],
        "application": {"id": st.application_id(&user_id), "flags": st.application.flags},
        "private_channels": [],
        "relationships": [],
        "user_settings": {},
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": [],
    });
    session.dispatch("READY", &ready, cfg.replay_limit);
    // GUILD_CREATE is a GUILDS event like the rest (the intents table); a session without
    // it learns its guilds from READY alone.
    if intent_of("GUILD_CREATE").is_some_and(|bit| id.intents & bit != 0) {
        for g in guilds {
            let created = guild_create(st, g, &user_id);
            session.dispatch("GUILD_CREATE", &created, cfg.replay_limit);
        }
    }
    gw.sessions.insert(session_id.clone(), session);
    Ok(session_id)
}

/// A guild as GUILD_CREATE gives it: the guild object with its channels, threads, the bot's
/// own member (a bot without GUILD_PRESENCES is sent no others), and what it is a member of.
fn guild_create(st: &State, g: &crate::state::Guild, user_id: &str) -> Value {
    let dialect = render::Dialect::of(&st.config);
    let mut v = render::guild(g, false, dialect);
    let channels: Vec<Value> = g
        .channels
        .iter()
        .map(|c| render::channel(&g.id, c))
        .collect();
    let me = g.member(user_id).and_then(|m| {
        st.user(&m.user_id)
            .map(|u| render::member(m, u, g.member_details.get(&m.user_id)))
    });
    if let Some(o) = v.as_object_mut() {
        o.insert("channels".into(), json!(channels));
        o.insert("threads".into(), json!([]));
        o.insert("members".into(), json!(me.into_iter().collect::<Vec<_>>()));
        o.insert("member_count".into(), json!(g.members.len()));
        o.insert("large".into(), json!(g.members.len() > 250));
        o.insert("unavailable".into(), json!(false));
        o.insert(
            "joined_at".into(),
            json!("2020-01-01T00:00:00.000000+00:00"),
        );
        o.insert("presences".into(), json!([]));
        o.insert("voice_states".into(), json!([]));
        o.insert("stage_instances".into(), json!([]));
        o.insert(
            "guild_scheduled_events".into(),
            json!(
                g.scheduled_events
                    .iter()
                    .map(|e| render::scheduled_event(&g.id, e, None, false))
                    .collect::<Vec<_>>()
            ),
        );
        o.insert(
            "soundboard_sounds".into(),
            json!(
                g.soundboard_sounds
                    .iter()
                    .map(|s| render::sound(&g.id, s, None))
                    .collect::<Vec<_>>()
            ),
        );
    }
    v
}

/// Takes a RESUME: the session, attached to `conn`, is sent what it missed since `seq`,
/// then RESUMED.
pub(crate) fn resume(
    st: &State,
    gw: &mut Gateway,
    d: &Value,
    conn: (u64, UnboundedSender<Out>),
) -> Result<String, Refusal> {
    #[derive(Deserialize)]
    struct Resume {
        token: String,
        session_id: String,
        seq: Option<u64>,
    }
    let r: Resume = serde_json::from_value(d.clone())
        .map_err(|_| Refusal::Close(4002, "Error while decoding payload."))?;
    let Some(user_id) = bot_of(st, &r.token) else {
        return Err(Refusal::Close(4004, "Authentication failed."));
    };
    let keep = st.config.gateway.replay_limit;
    let Some(s) = gw.sessions.get_mut(&r.session_id) else {
        return Err(Refusal::InvalidSession(false));
    };
    let seq = r.seq.unwrap_or(0);
    let covered = s.sent.front().is_some_and(|(first, _)| *first <= seq + 1) || s.seq == seq;
    if s.user_id != user_id || seq > s.seq || !covered {
        return Err(Refusal::InvalidSession(false));
    }
    if let Some((_, old)) = s.conn.take() {
        let _ = old.send(Out::Close(4000, "resumed elsewhere"));
    }
    for (_, text) in s.sent.iter().filter(|(n, _)| *n > seq) {
        let _ = conn.1.send(Out::Payload(text.clone()));
    }
    s.conn = Some(conn);
    s.dispatch("RESUMED", &Value::Null, keep);
    Ok(r.session_id)
}

/// Sends `dispatches` (a write's, in order) and then every audit-log entry written since the
/// last call, each as `GUILD_AUDIT_LOG_ENTRY_CREATE`, to the sessions that see them.
pub(crate) fn publish_to(st: &State, gw: &mut Gateway, dispatches: &[Dispatch]) {
    if gw.sessions.is_empty() {
        gw.audit_sent_to = None;
        return;
    }
    let keep = st.config.gateway.replay_limit;
    for d in dispatches {
        if let (Some(gid), Some(data)) = (&d.guild_id, &d.data) {
            send(st, gw, gid, d.name, data, keep);
        }
    }
    let since = gw.audit_sent_to.unwrap_or(st.snowflake.last);
    let mut entries: Vec<(u64, &str, Value)> = Vec::new();
    for g in &st.guilds {
        for e in g.audit_log.iter().rev() {
            let id = e.id.parse::<u64>().unwrap_or(0);
            if id <= since {
                break;
            }
            let mut v = render::audit_entry(e);
            if let Some(o) = v.as_object_mut() {
                o.insert("guild_id".into(), json!(g.id));
            }
            entries.push((id, g.id.as_str(), v));
        }
    }
    entries.sort_by_key(|(id, _, _)| *id);
    for (_, gid, v) in &entries {
        send(st, gw, gid, "GUILD_AUDIT_LOG_ENTRY_CREATE", v, keep);
    }
    gw.audit_sent_to = Some(st.snowflake.last);
}

/// One dispatch in guild `gid` to each session whose shard holds the guild, whose bot is in
/// it, and whose intents ask for the event (audit entries only to bots that may read the log).
fn send(st: &State, gw: &mut Gateway, gid: &str, name: &str, data: &Value, keep: usize) {
    let Some(g) = st.guild(gid) else {
        return;
    };
    let intent = intent_of(name);
    for s in gw.sessions.values_mut() {
        let sees = shard_of(gid, s.shard[1]) == s.shard[0]
            && intent.is_none_or(|bit| s.intents & bit != 0)
            && g.member(&s.user_id).is_some()
            && (name != "GUILD_AUDIT_LOG_ENTRY_CREATE"
                || guild_permissions(g, &s.user_id).contains(Permissions::VIEW_AUDIT_LOG));
        if sees {
            s.dispatch(name, data, keep);
        }
    }
}

/// `GET /gateway/bot`'s answer for the bot `user_id`: the URL, the recommended shards
/// (one per `guilds_per_recommended_shard` of its guilds) and its identify budget.
pub(crate) fn gateway_bot(st: &State, gw: &Gateway, user_id: &str, url: String) -> Value {
    let cfg = &st.config.gateway;
    let guilds = guilds_of(st, user_id).count();
    let shards = guilds.div_ceil(cfg.guilds_per_recommended_shard).max(1);
    let (used, reset_after) = match gw.starts.get(user_id) {
        Some((n, since)) if since.elapsed() < DAY => (*n, DAY - since.elapsed()),
        _ => (0, DAY),
    };
    json!({
        "url": url,
        "shards": shards,
        "session_start_limit": {
            "total": cfg.session_start_total,
            "remaining": cfg.session_start_total.saturating_sub(used),
            "reset_after": reset_after.as_millis() as u64,
            "max_concurrency": cfg.max_concurrency,
        }
    })
}
