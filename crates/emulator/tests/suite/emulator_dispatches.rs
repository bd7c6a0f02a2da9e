//! The Gateway dispatches REST writes fire, payload and all: each `d` must read as the
//! matching payload of twilight-model 0.18 (a Discord library nobody here wrote), in the
//! right guild, naming the objects the write touched. There is no Gateway to listen on
//! yet, so each request runs in process through the emulator's whole service
//! (`run_for_dispatches`), and the dispatches are read off its response.

use crate::emulator_support::files::{data_uri, mp3, multipart, png};
use crate::emulator_support::{TEST_TIME_SCALE, rfc3339_in};

use axum::body::Body;
use discord_emulator::state::{BotToken, State, User, UserToken};
use discord_emulator::{DispatchSeen, default_state, run_for_dispatches};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use twilight_model::gateway::payload::incoming::{
    AutoModerationRuleCreate, AutoModerationRuleDelete, AutoModerationRuleUpdate, BanAdd,
    BanRemove, ChannelCreate, ChannelDelete, ChannelUpdate, GuildEmojisUpdate,
    GuildIntegrationsUpdate, GuildScheduledEventCreate, GuildScheduledEventDelete,
    GuildScheduledEventUpdate, GuildStickersUpdate, GuildUpdate, IntegrationDelete, InviteDelete,
    MemberAdd, MemberRemove, MemberUpdate, MessageCreate, MessageDelete, MessageUpdate, RoleCreate,
    RoleDelete, RoleUpdate, ThreadCreate, ThreadUpdate, WebhooksUpdate,
};

const TOKEN: &str = "dispatch-test-token";

/// The emulator's state between requests, and the bot's token.
struct Gw {
    state: Option<State>,
    gid: String,
}

/// What one request answered, and the dispatches it fired.
struct Sent {
    status: u16,
    body: Value,
    dispatches: Vec<DispatchSeen>,
}

impl Gw {
    fn new() -> Gw {
        Gw::with(default_state())
    }

    /// Starts on `st` with a known bot token; rate limits at the tests' time scale, as
    /// `T::with` sets them.
    fn with(mut st: State) -> Gw {
        if st.config.time_scale == 1.0 {
            st.config.time_scale = TEST_TIME_SCALE;
        }
        st.tokens.push(BotToken {
            token: TOKEN.into(),
            user_id: st.bot_user_id.clone(),
        });
        let gid = st.guilds[0].id.clone();
        Gw {
            state: Some(st),
            gid,
        }
    }

    fn state(&self) -> &State {
        self.state.as_ref().unwrap()
    }

    fn user(&self, name: &str) -> String {
        let u = self.state().users.iter().find(|u| u.username == name);
        u.unwrap_or_else(|| panic!("user {name}")).id.clone()
    }

    fn role(&self, name: &str) -> String {
        let r = self.state().guilds[0].roles.iter().find(|r| r.name == name);
        r.unwrap_or_else(|| panic!("role {name}")).id.clone()
    }

    fn chan(&self, name: &str) -> String {
        let c = self.state().guilds[0]
            .channels
            .iter()
            .find(|c| c.name == name);
        c.unwrap_or_else(|| panic!("channel {name}")).id.clone()
    }

    /// One request (as the bot when `bot`), with a body of the given type.
    async fn raw(
        &mut self,
        method: &str,
        path: &str,
        body: Option<(String, Vec<u8>)>,
        bot: bool,
    ) -> Sent {
        let mut req = axum::http::Request::builder()
            .method(method)
            .uri(format!("/api/v10{path}"))
            .header("host", "127.0.0.1");
        if bot {
            req = req.header("authorization", format!("Bot {TOKEN}"));
        }
        let req = match body {
            Some((ct, bytes)) => req.header("content-type", ct).body(Body::from(bytes)),
            None => req.body(Body::empty()),
        }
        .unwrap();
        let (after, resp, dispatches) = run_for_dispatches(self.state.take().unwrap(), req).await;
        self.state = Some(after);
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Sent {
            status,
            body,
            dispatches,
        }
    }

    /// A JSON request as the bot (`Value::Null`: no body).
    async fn bot(&mut self, method: &str, path: &str, body: Value) -> Sent {
        let body = (!body.is_null())
            .then(|| ("application/json".to_owned(), body.to_string().into_bytes()));
        self.raw(method, path, body, true).await
    }

    /// A JSON request without Authorization (the webhook token routes).
    async fn anonymous(&mut self, method: &str, path: &str, body: Value) -> Sent {
        let body = (!body.is_null())
            .then(|| ("application/json".to_owned(), body.to_string().into_bytes()));
        self.raw(method, path, body, false).await
    }
}

impl Sent {
    /// The dispatches' names, after checking each is in guild `gid`, carries a payload,
    /// and that the payload names the same guild where it has a `guild_id`.
    fn names(&self, gid: &str) -> Vec<&'static str> {
        for (name, guild, data) in &self.dispatches {
            assert_eq!(guild.as_deref(), Some(gid), "{name} in the guild");
            let data = data
                .as_ref()
                .unwrap_or_else(|| panic!("{name} carries no payload"));
            if let Some(g) = data.get("guild_id") {
                assert_eq!(g, gid, "{name}'s guild_id");
            }
        }
        self.dispatches.iter().map(|d| d.0).collect()
    }

    /// The payloads, once the request succeeded with `status` and fired exactly `names`.
    fn expect(&self, gid: &str, status: u16, names: &[&str]) -> Vec<&Value> {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(self.names(gid), names);
        self.dispatches
            .iter()
            .filter_map(|d| d.2.as_ref())
            .collect()
    }

    /// The one payload of a request that fired only `name`.
    fn one(&self, gid: &str, status: u16, name: &str) -> &Value {
        self.expect(gid, status, &[name])[0]
    }

    fn id(&self) -> String {
        self.body["id"].as_str().unwrap().to_owned()
    }
}

/// `d` read as the payload type `P`.
fn read<P: DeserializeOwned>(d: &Value) -> P {
    serde_json::from_value(d.clone())
        .unwrap_or_else(|e| panic!("not a {}: {e}\n{d:#}", std::any::type_name::<P>()))
}

#[tokio::test]
async fn channel_writes_send_the_channel_as_it_is_after() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let mut made = Vec::new();
    for (name, kind) in [("text", 0), ("voice", 2), ("a category", 4), ("forum", 15)] {
        let sent = gw
            .bot(
                "POST",
                &format!("/guilds/{g}/channels"),
                json!({"name": name, "type": kind}),
            )
            .await;
        let c: ChannelCreate = read(sent.one(&g, 201, "CHANNEL_CREATE"));
        assert_eq!(c.id.to_string(), sent.id());
        assert_eq!(c.guild_id.map(|i| i.to_string()), Some(g.clone()));
        assert_eq!(u8::from(c.kind), kind);
        made.push(sent.id());
    }
    let text = made[0].clone();
    let sent = gw
        .bot(
            "PATCH",
            &format!("/channels/{text}"),
            json!({"topic": "now"}),
        )
        .await;
    let c: ChannelUpdate = read(sent.one(&g, 200, "CHANNEL_UPDATE"));
    assert_eq!(
        (c.id.to_string(), c.topic.as_deref()),
        (text.clone(), Some("now"))
    );

    // Overwrites arrive inside CHANNEL_UPDATE, with the channel's set after the edit.
    let muted = gw.role("Muted");
    let sent = gw
        .bot(
            "PUT",
            &format!("/channels/{text}/permissions/{muted}"),
            json!({"type": 0, "allow": "0", "deny": "2048"}),
        )
        .await;
    let c: ChannelUpdate = read(sent.one(&g, 204, "CHANNEL_UPDATE"));
    let ows = c.permission_overwrites.clone().unwrap();
    assert!(
        ows.iter()
            .any(|o| o.id.to_string() == muted && o.deny.bits() == 2048)
    );
    let sent = gw
        .bot(
            "DELETE",
            &format!("/channels/{text}/permissions/{muted}"),
            Value::Null,
        )
        .await;
    let c: ChannelUpdate = read(sent.one(&g, 204, "CHANNEL_UPDATE"));
    assert_eq!(c.id.to_string(), text);
    let ows = c.permission_overwrites.clone().unwrap();
    assert!(ows.iter().all(|o| o.id.to_string() != muted));

    // The bulk position route: one CHANNEL_UPDATE per channel that changed, each at its
    // new place.
    let (general, memes) = (gw.chan("general"), gw.chan("memes"));
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/channels"),
            json!([{"id": general, "position": 5}, {"id": memes, "position": 0},
                   {"id": text}]),
        )
        .await;
    let moved = sent.expect(&g, 204, &["CHANNEL_UPDATE", "CHANNEL_UPDATE"]);
    let moved: Vec<(String, Option<i32>)> = moved
        .into_iter()
        .map(|d| {
            let c: ChannelUpdate = read(d);
            (c.id.to_string(), c.position)
        })
        .collect();
    assert_eq!(moved, [(general, Some(5)), (memes, Some(0))]);

    let sent = gw
        .bot("DELETE", &format!("/channels/{text}"), Value::Null)
        .await;
    let c: ChannelDelete = read(sent.one(&g, 200, "CHANNEL_DELETE"));
    assert_eq!(c.id.to_string(), text);
}

#[tokio::test]
async fn role_writes_send_the_role_or_its_id() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/roles"),
            json!({"name": "Gateway", "color": 0x00FF00, "hoist": true}),
        )
        .await;
    let r: RoleCreate = read(sent.one(&g, 200, "GUILD_ROLE_CREATE"));
    let rid = sent.id();
    assert_eq!(
        (
            r.guild_id.to_string(),
            r.role.id.to_string(),
            r.role.name.as_str()
        ),
        (g.clone(), rid.clone(), "Gateway")
    );
    assert_eq!(
        (r.role.colors.primary_color, r.role.hoist),
        (0x00FF00, true)
    );

    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/roles/{rid}"),
            json!({"name": "Renamed"}),
        )
        .await;
    let r: RoleUpdate = read(sent.one(&g, 200, "GUILD_ROLE_UPDATE"));
    assert_eq!(
        (r.role.id.to_string(), r.role.name.as_str()),
        (rid.clone(), "Renamed")
    );

    // A reorder: one GUILD_ROLE_UPDATE per role that moved, at its new position.
    let (member, muted) = (gw.role("Member"), gw.role("Muted"));
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/roles"),
            json!([{"id": member, "position": 2}, {"id": muted, "position": 3}]),
        )
        .await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    let positions: Vec<(String, i64)> = sent
        .expect(&g, 200, &vec!["GUILD_ROLE_UPDATE"; sent.dispatches.len()])
        .into_iter()
        .map(|d| {
            let r: RoleUpdate = read(d);
            assert_eq!(r.guild_id.to_string(), g);
            (r.role.id.to_string(), r.role.position)
        })
        .collect();
    assert!(!positions.is_empty());
    let state = &gw.state().guilds[0];
    for (id, position) in &positions {
        let now = state.role(id).unwrap().position;
        assert_eq!(
            *position, now,
            "role {id} at its position after the reorder"
        );
    }
    assert!(positions.iter().any(|(id, _)| *id == muted));

    let sent = gw
        .bot("DELETE", &format!("/guilds/{g}/roles/{rid}"), Value::Null)
        .await;
    let r: RoleDelete = read(sent.one(&g, 204, "GUILD_ROLE_DELETE"));
    assert_eq!((r.guild_id.to_string(), r.role_id.to_string()), (g, rid));
}

#[tokio::test]
async fn guild_writes_send_the_guild_as_get_guild_renders_it() {
    let mut st = default_state();
    st.guilds[0].features.push("COMMUNITY".into());
    let mut gw = Gw::with(st);
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}"),
            json!({"afk_timeout": 900}),
        )
        .await;
    let u: GuildUpdate = read(sent.one(&g, 200, "GUILD_UPDATE"));
    assert_eq!((u.id.to_string(), u.afk_timeout.get()), (g.clone(), 900));
    // The same object GET /guilds/{id} returns (without the approximate counts).
    let fired = sent.dispatches[0].2.clone().unwrap();
    let got = gw.bot("GET", &format!("/guilds/{g}"), Value::Null).await;
    assert_eq!(fired, got.body);

    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/widget"),
            json!({"enabled": true}),
        )
        .await;
    let u: GuildUpdate = read(sent.one(&g, 200, "GUILD_UPDATE"));
    assert!(u.widget_enabled.unwrap_or(false));

    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/welcome-screen"),
            json!({"enabled": true}),
        )
        .await;
    let u: GuildUpdate = read(sent.one(&g, 200, "GUILD_UPDATE"));
    let features = serde_json::to_value(&u.features).unwrap();
    let shown = features
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "WELCOME_SCREEN_ENABLED");
    assert!(shown, "{features}");
}

#[tokio::test]
async fn member_writes_send_the_member_or_the_user() {
    let mut st = default_state();
    st.users.push(User {
        id: "900000000000000001".into(),
        username: "newbie".into(),
        discriminator: "0".into(),
        global_name: None,
        avatar: None,
        bot: false,
        public_flags: 0,
    });
    st.user_tokens.push(UserToken {
        token: "newbie-join".into(),
        user_id: "900000000000000001".into(),
        application_id: String::new(),
        scopes: vec!["identify".into(), "guilds.join".into()],
    });
    let mut gw = Gw::with(st);
    let g = gw.gid.clone();
    let newbie = "900000000000000001";
    let sent = gw
        .bot(
            "PUT",
            &format!("/guilds/{g}/members/{newbie}"),
            json!({"access_token": "newbie-join", "nick": "New Kid"}),
        )
        .await;
    let m: MemberAdd = read(sent.one(&g, 201, "GUILD_MEMBER_ADD"));
    assert_eq!(
        (
            m.guild_id.to_string(),
            m.user.id.to_string(),
            m.nick.as_deref()
        ),
        (g.clone(), newbie.to_owned(), Some("New Kid"))
    );

    let heidi = gw.user("heidi");
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/members/{heidi}"),
            json!({"nick": "H"}),
        )
        .await;
    let m: MemberUpdate = read(sent.one(&g, 200, "GUILD_MEMBER_UPDATE"));
    assert_eq!(
        (
            m.guild_id.to_string(),
            m.user.id.to_string(),
            m.nick.as_deref()
        ),
        (g.clone(), heidi.clone(), Some("H"))
    );
    assert!(m.joined_at.is_some());

    let muted = gw.role("Muted");
    let sent = gw
        .bot(
            "PUT",
            &format!("/guilds/{g}/members/{heidi}/roles/{muted}"),
            Value::Null,
        )
        .await;
    let m: MemberUpdate = read(sent.one(&g, 204, "GUILD_MEMBER_UPDATE"));
    assert!(
        m.roles.iter().any(|r| r.to_string() == muted),
        "the role added"
    );
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/members/{heidi}/roles/{muted}"),
            Value::Null,
        )
        .await;
    let m: MemberUpdate = read(sent.one(&g, 204, "GUILD_MEMBER_UPDATE"));
    assert!(
        m.roles.iter().all(|r| r.to_string() != muted),
        "the role taken"
    );

    let bot = gw.state().bot_user_id.clone();
    for (path, body) in [
        (format!("/guilds/{g}/members/@me"), json!({"nick": "Bot"})),
        (
            format!("/guilds/{g}/members/@me/nick"),
            json!({"nick": "Bot2"}),
        ),
    ] {
        let sent = gw.bot("PATCH", &path, body.clone()).await;
        let m: MemberUpdate = read(sent.one(&g, 200, "GUILD_MEMBER_UPDATE"));
        assert_eq!(
            (m.user.id.to_string(), m.nick.as_deref()),
            (bot.clone(), body["nick"].as_str()),
            "{path}"
        );
    }

    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/members/{heidi}"),
            Value::Null,
        )
        .await;
    let m: MemberRemove = read(sent.one(&g, 204, "GUILD_MEMBER_REMOVE"));
    assert_eq!(
        (m.guild_id.to_string(), m.user.id.to_string()),
        (g.clone(), heidi)
    );

    // A prune: one GUILD_MEMBER_REMOVE per member it removed, naming them.
    let before: Vec<String> = gw.state().guilds[0]
        .members
        .iter()
        .map(|m| m.user_id.clone())
        .collect();
    let member = gw.role("Member");
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/prune"),
            json!({"days": 1, "include_roles": [member]}),
        )
        .await;
    let pruned = sent.body["pruned"].as_u64().unwrap() as usize;
    assert!(pruned > 0, "the default state has members to prune");
    let after = &gw.state().guilds[0].members;
    let gone: Vec<String> = before
        .into_iter()
        .filter(|u| after.iter().all(|m| m.user_id != *u))
        .collect();
    let removed: Vec<String> = sent
        .expect(&g, 200, &vec!["GUILD_MEMBER_REMOVE"; pruned])
        .into_iter()
        .map(|d| read::<MemberRemove>(d).user.id.to_string())
        .collect();
    assert_eq!(removed, gone);
}

#[tokio::test]
async fn bans_send_the_user() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let heidi = gw.user("heidi");
    let sent = gw
        .bot("PUT", &format!("/guilds/{g}/bans/{heidi}"), json!({}))
        .await;
    let b: BanAdd = read(sent.one(&g, 204, "GUILD_BAN_ADD"));
    assert_eq!(
        (
            b.guild_id.to_string(),
            b.user.id.to_string(),
            b.user.name.as_str()
        ),
        (g.clone(), heidi.clone(), "heidi")
    );
    let sent = gw
        .bot("DELETE", &format!("/guilds/{g}/bans/{heidi}"), Value::Null)
        .await;
    let b: BanRemove = read(sent.one(&g, 204, "GUILD_BAN_REMOVE"));
    assert_eq!(
        (b.guild_id.to_string(), b.user.id.to_string()),
        (g.clone(), heidi.clone())
    );

    let ids = [gw.user("ivan"), heidi];
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/bulk-ban"),
            json!({"user_ids": ids}),
        )
        .await;
    let banned: Vec<String> = sent
        .expect(&g, 200, &["GUILD_BAN_ADD", "GUILD_BAN_ADD"])
        .into_iter()
        .map(|d| read::<BanAdd>(d).user.id.to_string())
        .collect();
    assert_eq!(banned, ids);
}

/// The guild's expressions' ids, for comparing with the lists the updates send.
fn ids(list: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = list.collect();
    v.sort();
    v
}

#[tokio::test]
async fn emoji_and_sticker_writes_send_every_one_of_the_guild() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let emojis_now = |gw: &Gw| ids(gw.state().guilds[0].emojis.iter().map(|e| e.id.clone()));
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/emojis"),
            json!({"name": "gw", "image": data_uri("image/png", &png(8, 8))}),
        )
        .await;
    let eid = sent.id();
    let u: GuildEmojisUpdate = read(sent.one(&g, 201, "GUILD_EMOJIS_UPDATE"));
    assert_eq!(u.guild_id.to_string(), g);
    let sent_ids = ids(u.emojis.iter().map(|e| e.id.to_string()));
    assert!(sent_ids.contains(&eid));
    assert_eq!(sent_ids, emojis_now(&gw));
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/emojis/{eid}"),
            json!({"name": "gw2"}),
        )
        .await;
    let u: GuildEmojisUpdate = read(sent.one(&g, 200, "GUILD_EMOJIS_UPDATE"));
    assert!(
        u.emojis
            .iter()
            .any(|e| e.id.to_string() == eid && e.name == "gw2")
    );
    let sent = gw
        .bot("DELETE", &format!("/guilds/{g}/emojis/{eid}"), Value::Null)
        .await;
    let u: GuildEmojisUpdate = read(sent.one(&g, 204, "GUILD_EMOJIS_UPDATE"));
    let sent_ids = ids(u.emojis.iter().map(|e| e.id.to_string()));
    assert!(!sent_ids.contains(&eid) && !sent_ids.is_empty());
    assert_eq!(sent_ids, emojis_now(&gw));

    let stickers_now = |gw: &Gw| ids(gw.state().guilds[0].stickers.iter().map(|s| s.id.clone()));
    let file = png(320, 320);
    let form = multipart(&[
        ("name", None, b"gateway"),
        ("tags", None, b"crab"),
        ("file", Some("s.png"), &file),
    ]);
    let sent = gw
        .raw("POST", &format!("/guilds/{g}/stickers"), Some(form), true)
        .await;
    let sid = sent.id();
    let u: GuildStickersUpdate = read(sent.one(&g, 201, "GUILD_STICKERS_UPDATE"));
    let sent_ids = ids(u.stickers.iter().map(|s| s.id.to_string()));
    assert!(sent_ids.contains(&sid));
    assert_eq!(sent_ids, stickers_now(&gw));
    assert!(
        u.stickers
            .iter()
            .all(|s| s.guild_id.map(|i| i.to_string()) == Some(g.clone()))
    );
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/stickers/{sid}"),
            json!({"name": "gateway2"}),
        )
        .await;
    let u: GuildStickersUpdate = read(sent.one(&g, 200, "GUILD_STICKERS_UPDATE"));
    assert!(
        u.stickers
            .iter()
            .any(|s| s.id.to_string() == sid && s.name == "gateway2")
    );
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/stickers/{sid}"),
            Value::Null,
        )
        .await;
    let u: GuildStickersUpdate = read(sent.one(&g, 204, "GUILD_STICKERS_UPDATE"));
    let sent_ids = ids(u.stickers.iter().map(|s| s.id.to_string()));
    assert!(!sent_ids.contains(&sid));
    assert_eq!(sent_ids, stickers_now(&gw));
}

/// Discord's soundboard sound object (the Soundboard page); twilight-model 0.18 has no
/// soundboard payloads. Unknown fields are refused, so nothing undocumented is sent.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read to check the shape; only the ids are compared.
struct SoundboardSound {
    name: String,
    sound_id: String,
    volume: f64,
    emoji_id: Option<String>,
    emoji_name: Option<String>,
    guild_id: Option<String>,
    available: bool,
    #[serde(default)]
    user: Option<twilight_model::user::User>,
}

/// GUILD_SOUNDBOARD_SOUND_DELETE's payload (the Gateway Events page).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SoundDelete {
    sound_id: String,
    guild_id: String,
}

#[tokio::test]
async fn soundboard_writes_send_the_sound_or_its_id() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/soundboard-sounds"),
            json!({"name": "gateway", "sound": data_uri("audio/mpeg", &mp3(5))}),
        )
        .await;
    let id = sent.body["sound_id"].as_str().unwrap().to_owned();
    let s: SoundboardSound = read(sent.one(&g, 201, "GUILD_SOUNDBOARD_SOUND_CREATE"));
    assert_eq!(
        (s.sound_id.as_str(), s.guild_id.as_deref()),
        (id.as_str(), Some(g.as_str()))
    );
    assert_eq!(s.name, "gateway");
    let bot = gw.state().bot_user_id.clone();
    assert_eq!(s.user.map(|u| u.id.to_string()), Some(bot), "its creator");
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/soundboard-sounds/{id}"),
            json!({"volume": 0.5}),
        )
        .await;
    let s: SoundboardSound = read(sent.one(&g, 200, "GUILD_SOUNDBOARD_SOUND_UPDATE"));
    assert_eq!((s.sound_id.as_str(), s.volume), (id.as_str(), 0.5));
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/soundboard-sounds/{id}"),
            Value::Null,
        )
        .await;
    let s: SoundDelete = read(sent.one(&g, 204, "GUILD_SOUNDBOARD_SOUND_DELETE"));
    assert_eq!((s.sound_id, s.guild_id), (id, g));
}

#[tokio::test]
async fn scheduled_event_and_automod_writes_send_the_object() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/scheduled-events"),
            json!({"name": "ev", "privacy_level": 2, "entity_type": 3,
                   "entity_metadata": {"location": "Montreal"},
                   "scheduled_start_time": rfc3339_in(5.0),
                   "scheduled_end_time": rfc3339_in(6.0)}),
        )
        .await;
    let eid = sent.id();
    let e: GuildScheduledEventCreate = read(sent.one(&g, 200, "GUILD_SCHEDULED_EVENT_CREATE"));
    assert_eq!(
        (e.id.to_string(), e.guild_id.to_string()),
        (eid.clone(), g.clone())
    );
    assert_eq!(e.name, "ev");
    let path = format!("/guilds/{g}/scheduled-events/{eid}");
    let sent = gw.bot("PATCH", &path, json!({"name": "ev2"})).await;
    let e: GuildScheduledEventUpdate = read(sent.one(&g, 200, "GUILD_SCHEDULED_EVENT_UPDATE"));
    assert_eq!((e.id.to_string(), e.name.as_str()), (eid.clone(), "ev2"));
    let sent = gw.bot("DELETE", &path, Value::Null).await;
    let e: GuildScheduledEventDelete = read(sent.one(&g, 204, "GUILD_SCHEDULED_EVENT_DELETE"));
    assert_eq!((e.id.to_string(), e.name.as_str()), (eid, "ev2"));

    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/auto-moderation/rules"),
            json!({"name": "no links", "event_type": 1, "trigger_type": 1,
                   "trigger_metadata": {"keyword_filter": ["http*"]},
                   "actions": [{"type": 1}]}),
        )
        .await;
    let rid = sent.id();
    let r: AutoModerationRuleCreate = read(sent.one(&g, 200, "AUTO_MODERATION_RULE_CREATE"));
    assert_eq!(
        (r.id.to_string(), r.guild_id.to_string()),
        (rid.clone(), g.clone())
    );
    let path = format!("/guilds/{g}/auto-moderation/rules/{rid}");
    let sent = gw.bot("PATCH", &path, json!({"enabled": true})).await;
    let r: AutoModerationRuleUpdate = read(sent.one(&g, 200, "AUTO_MODERATION_RULE_UPDATE"));
    assert_eq!((r.id.to_string(), r.enabled), (rid.clone(), true));
    let sent = gw.bot("DELETE", &path, Value::Null).await;
    let r: AutoModerationRuleDelete = read(sent.one(&g, 204, "AUTO_MODERATION_RULE_DELETE"));
    assert_eq!((r.id.to_string(), r.name.as_str()), (rid, "no links"));
}

#[tokio::test]
async fn webhook_writes_name_the_channels_whose_webhooks_changed() {
    let mut st = default_state();
    // An announcement channel to follow (the default state has none).
    let faq = st.guilds[0]
        .channels
        .iter_mut()
        .find(|c| c.name == "faq")
        .unwrap();
    faq.kind = 5;
    let mut gw = Gw::with(st);
    let g = gw.gid.clone();
    let webhooks_update = |d: &Value| {
        let w: WebhooksUpdate = read(d);
        assert_eq!(w.guild_id.to_string(), g);
        w.channel_id.to_string()
    };
    let (general, off_topic) = (gw.chan("general"), gw.chan("off-topic"));
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "gw"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        general
    );
    let (wid, token) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());

    // A move changes two channels' lists: the one it left, then the one it joined.
    let sent = gw
        .bot(
            "PATCH",
            &format!("/webhooks/{wid}"),
            json!({"channel_id": off_topic}),
        )
        .await;
    let channels: Vec<String> = sent
        .expect(&g, 200, &["WEBHOOKS_UPDATE", "WEBHOOKS_UPDATE"])
        .into_iter()
        .map(webhooks_update)
        .collect();
    assert_eq!(channels, [general.clone(), off_topic.clone()]);
    let sent = gw
        .bot(
            "PATCH",
            &format!("/webhooks/{wid}"),
            json!({"name": "renamed"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
    let sent = gw
        .anonymous(
            "PATCH",
            &format!("/webhooks/{wid}/{token}"),
            json!({"name": "again"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
    let sent = gw
        .anonymous("DELETE", &format!("/webhooks/{wid}/{token}"), Value::Null)
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 204, "WEBHOOKS_UPDATE")),
        off_topic
    );

    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "gw2"}),
        )
        .await;
    let wid = sent.id();
    let sent = gw
        .bot("DELETE", &format!("/webhooks/{wid}"), Value::Null)
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 204, "WEBHOOKS_UPDATE")),
        general
    );

    let faq = gw.chan("faq");
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{faq}/followers"),
            json!({"webhook_channel_id": off_topic}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
}

#[tokio::test]
async fn invite_and_integration_deletes_send_what_was_deleted() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let help = gw.chan("help");
    let sent = gw.bot("DELETE", "/invites/helpdesk", Value::Null).await;
    let i: InviteDelete = read(sent.one(&g, 200, "INVITE_DELETE"));
    assert_eq!(
        (
            i.guild_id.to_string(),
            i.channel_id.to_string(),
            i.code.as_str()
        ),
        (g.clone(), help, "helpdesk")
    );

    let polls = gw.state().guilds[0]
        .integrations
        .iter()
        .find(|i| i.name == "Ferris Polls")
        .unwrap()
        .clone();
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/integrations/{}", polls.id),
            Value::Null,
        )
        .await;
    let both = sent.expect(
        &g,
        204,
        &["GUILD_INTEGRATIONS_UPDATE", "INTEGRATION_DELETE"],
    );
    let u: GuildIntegrationsUpdate = read(both[0]);
    assert_eq!(u.guild_id.to_string(), g);
    let d: IntegrationDelete = read(both[1]);
    assert_eq!(
        (d.id.to_string(), d.guild_id.to_string()),
        (polls.id.clone(), g.clone())
    );
    assert_eq!(
        d.application_id.map(|a| a.to_string()),
        polls.application.map(|a| a.id)
    );
}

#[tokio::test]
async fn webhook_messages_send_the_message_and_the_threads_they_touch() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let general = gw.chan("general");
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "poster"}),
        )
        .await;
    let (wid, token) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());
    let hook = format!("/webhooks/{wid}/{token}");

    let heidi = gw.user("heidi");
    let hello = format!("hello <@{heidi}>");
    let sent = gw
        .anonymous(
            "POST",
            &format!("{hook}?wait=true"),
            json!({"content": hello}),
        )
        .await;
    let m: MessageCreate = read(sent.one(&g, 200, "MESSAGE_CREATE"));
    let mid = sent.id();
    assert_eq!(
        (
            m.id.to_string(),
            m.channel_id.to_string(),
            m.content.as_str()
        ),
        (mid.clone(), general.clone(), hello.as_str())
    );
    assert_eq!(m.guild_id.map(|i| i.to_string()), Some(g.clone()));
    assert_eq!(m.webhook_id.map(|i| i.to_string()), Some(wid.clone()));
    // A mentioned member comes with its partial member, roles and all.
    let member = gw.role("Member");
    assert_eq!(m.mentions.len(), 1);
    let mentioned = &m.mentions[0];
    let roles = mentioned.member.as_ref().map(|p| &p.roles).unwrap();
    assert_eq!(mentioned.id.to_string(), heidi);
    assert!(roles.iter().any(|r| r.to_string() == member));
    assert!(mentioned.member.as_ref().unwrap().user.is_none());
    // Without `wait` the answer is 204, but the message is sent all the same.
    let sent = gw
        .anonymous("POST", &hook, json!({"content": "quiet"}))
        .await;
    let m: MessageCreate = read(sent.one(&g, 204, "MESSAGE_CREATE"));
    assert_eq!(m.content, "quiet");

    let sent = gw
        .anonymous(
            "PATCH",
            &format!("{hook}/messages/{mid}"),
            json!({"content": "edited"}),
        )
        .await;
    let m: MessageUpdate = read(sent.one(&g, 200, "MESSAGE_UPDATE"));
    assert_eq!(
        (m.id.to_string(), m.content.as_str()),
        (mid.clone(), "edited")
    );
    assert!(m.edited_timestamp.is_some());
    let sent = gw
        .anonymous("DELETE", &format!("{hook}/messages/{mid}"), Value::Null)
        .await;
    let d: MessageDelete = read(sent.one(&g, 204, "MESSAGE_DELETE"));
    assert_eq!(
        (d.id.to_string(), d.channel_id.to_string()),
        (mid, general.clone())
    );
    assert_eq!(d.guild_id.map(|i| i.to_string()), Some(g.clone()));

    // Posting into an archived thread unarchives it: THREAD_UPDATE, then the message.
    let archived = gw.state().guilds[0]
        .threads
        .iter()
        .find(|t| t.parent_id == general && t.archived)
        .unwrap()
        .id
        .clone();
    let sent = gw
        .anonymous(
            "POST",
            &format!("{hook}?wait=true&thread_id={archived}"),
            json!({"content": "back"}),
        )
        .await;
    let both = sent.expect(&g, 200, &["THREAD_UPDATE", "MESSAGE_CREATE"]);
    let t: ThreadUpdate = read(both[0]);
    assert_eq!(t.id.to_string(), archived);
    assert_eq!(t.thread_metadata.as_ref().map(|m| m.archived), Some(false));
    let m: MessageCreate = read(both[1]);
    assert_eq!(m.channel_id.to_string(), archived);

    // A forum post: the thread is made (THREAD_CREATE, newly_created), then the message.
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/channels"),
            json!({"name": "forum", "type": 15}),
        )
        .await;
    let forum = sent.id();
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{forum}/webhooks"),
            json!({"name": "poster"}),
        )
        .await;
    let (fwid, ftoken) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());
    let sent = gw
        .anonymous(
            "POST",
            &format!("/webhooks/{fwid}/{ftoken}?wait=true"),
            json!({"content": "first post", "thread_name": "A post"}),
        )
        .await;
    let both = sent.expect(&g, 200, &["THREAD_CREATE", "MESSAGE_CREATE"]);
    let t: ThreadCreate = read(both[0]);
    assert_eq!(t.parent_id.map(|p| p.to_string()), Some(forum));
    assert_eq!(t.name.as_deref(), Some("A post"));
    assert_eq!(t.newly_created, Some(true));
    let m: MessageCreate = read(both[1]);
    assert_eq!(m.channel_id, t.id, "the post's message is in its thread");
}
