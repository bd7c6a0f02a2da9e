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

mod expressions_and_doors;
