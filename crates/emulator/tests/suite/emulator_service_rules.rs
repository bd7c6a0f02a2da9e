//! Rules of the service reference that cut across routes: 45-day audit-log retention on
//! the emulator's clock, guild names of 2–100 characters after trimming, authentication
//! before rate limits, `Content-Type` exactly `application/json`, the Gateway events in
//! the request log; and the remaining reads: Get Guild Preview, List Active Guild
//! Threads, invite Target Users and their job.

use crate::emulator_support;

use discord_emulator::state::{BotToken, User};
use discord_emulator::{RouteBucket, default_state};
use discord_permissions::Permissions;
use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

const DAY: f64 = 86_400.0;

#[tokio::test]
async fn audit_entries_are_kept_45_days_on_the_emulators_clock() {
    let t = T::new().await;
    let g = t.g();
    let (s, _) = t
        .post(&format!("/guilds/{g}/roles"), json!({"name": "Old"}))
        .await;
    assert_eq!(s, 200);
    t.emu.advance_clock(44.0 * DAY);
    assert_eq!(t.audit("?action_type=30").await.len(), 1, "44 days: kept");
    t.post(&format!("/guilds/{g}/roles"), json!({"name": "New"}))
        .await;
    t.emu.advance_clock(2.0 * DAY);
    let entries = t.audit("?action_type=30").await;
    assert_eq!(entries.len(), 1, "46 days: the first is gone");
    assert_eq!(entries[0]["changes"][0]["new_value"], "New");
    // The control endpoint moves the same clock.
    let clock: Value = t
        .http
        .post(format!("{}/_emulator/clock", t.emu.base_url))
        .json(&json!({"advance_seconds": 45.0 * DAY}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(clock["wall"].is_string(), "{clock}");
    assert!(t.audit("?action_type=30").await.is_empty());
    assert!(t.audit("").await.is_empty(), "no entry of any kind is left");
}

#[tokio::test]
async fn guild_names_are_2_to_100_characters_after_trimming() {
    let t = T::new().await;
    let path = format!("/guilds/{}", t.g());
    for bad in ["  a  ", " ", &"x".repeat(101)] {
        let (s, v) = t.patch(&path, json!({"name": bad})).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{bad:?}: {v}");
        assert!(v["errors"]["name"].is_object());
    }
    let (s, v) = t.patch(&path, json!({"name": "  ab  "})).await;
    assert_eq!((s, v["name"].clone()), (200, json!("ab")), "stored trimmed");
    let long = format!(" {} ", "y".repeat(100));
    let (s, v) = t.patch(&path, json!({"name": long})).await;
    assert_eq!(s, 200);
    assert_eq!(v["name"].as_str().unwrap().len(), 100);
}

#[tokio::test]
async fn a_bogus_or_missing_token_gets_401_never_the_bots_429() {
    let t = T::new().await;
    let mut cfg = t.emu.config();
    cfg.time_scale = 1.0;
    cfg.route_buckets = vec![RouteBucket {
        method: "GET".into(),
        route: "/guilds/{guild_id}".into(),
        limit: 2,
        window_seconds: 600.0,
        bucket: "0123456789abcdef0123456789abcdef".into(),
    }];
    t.emu.set_config(cfg).unwrap();
    let url = format!("{}/guilds/{}", t.emu.api_base, t.g());
    let bogus = || async {
        t.http
            .get(&url)
            .header("Authorization", "Bot not-the-token")
            .send()
            .await
            .unwrap()
    };
    // They use none of the bot's slots.
    for _ in 0..3 {
        let r = bogus().await;
        assert_eq!(r.status().as_u16(), 401);
        assert!(r.headers().get("x-ratelimit-bucket").is_none());
    }
    assert_eq!(t.get(&format!("/guilds/{}", t.g())).await.0, 200);
    assert_eq!(t.get(&format!("/guilds/{}", t.g())).await.0, 200);
    assert_eq!(
        t.get(&format!("/guilds/{}", t.g())).await.0,
        429,
        "the bot's bucket is spent"
    );
    assert_eq!(
        bogus().await.status().as_u16(),
        401,
        "still 401, not the bot's 429"
    );
    let none = t.http.get(&url).send().await.unwrap();
    assert_eq!(none.status().as_u16(), 401);
}

#[tokio::test]
async fn json_answers_say_exactly_application_json() {
    let t = T::new().await;
    let g = t.g();
    let ci = t.emu.state().guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == "CI")
        .map(|w| (w.id.clone(), w.token.clone().unwrap()))
        .unwrap();
    let send = |m: Method, path: String, body: Option<Value>| {
        let mut rb = t
            .http
            .request(m, format!("{}{path}", t.emu.api_base))
            .header("Authorization", format!("Bot {}", t.emu.token));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        rb.send()
    };
    for (m, path, body) in [
        (Method::GET, format!("/guilds/{g}"), None),
        (Method::GET, "/channels/1".to_owned(), None),
        (Method::GET, "/nowhere".to_owned(), None),
        (
            Method::PATCH,
            format!("/guilds/{g}"),
            Some(json!({"name": ""})),
        ),
        (
            Method::POST,
            format!("/webhooks/{}/{}?wait=true", ci.0, ci.1),
            Some(json!({"content": "hi"})),
        ),
        (
            Method::POST,
            format!("/webhooks/{}/{}/slack", ci.0, ci.1),
            Some(json!({"text": "hi"})),
        ),
    ] {
        let r = send(m.clone(), path.clone(), body).await.unwrap();
        assert_eq!(
            r.headers()["content-type"],
            "application/json",
            "{m} {path}: discord.py reads JSON only under exactly this type"
        );
    }
}

#[tokio::test]
async fn refused_requests_fire_nothing_and_served_ones_their_events() {
    let t = T::new().await;
    let g = t.g();
    let events = |t: &T| t.emu.requests().last().unwrap().events.clone();
    t.post(&format!("/guilds/{g}/roles"), json!({"name": "E"}))
        .await;
    assert_eq!(events(&t), ["GUILD_ROLE_CREATE"]);
    t.patch(&format!("/guilds/{g}"), json!({"afk_timeout": 900}))
        .await;
    assert_eq!(events(&t), ["GUILD_UPDATE"]);
    t.post(&format!("/guilds/{g}/channels"), json!({"name": "e"}))
        .await;
    assert_eq!(events(&t), ["CHANNEL_CREATE"]);
    t.post(
        &format!("/channels/{}/webhooks", t.chan("general")),
        json!({"name": "E"}),
    )
    .await;
    assert_eq!(events(&t), ["WEBHOOKS_UPDATE"]);
    let heidi = t
        .emu
        .state()
        .users
        .iter()
        .find(|u| u.username == "heidi")
        .unwrap()
        .id
        .clone();
    t.put(&format!("/guilds/{g}/bans/{heidi}"), json!({})).await;
    assert_eq!(events(&t), ["GUILD_BAN_ADD"]);
    let (member, muted) = (t.role("Member"), t.role("Muted"));
    t.patch(
        &format!("/guilds/{g}/roles"),
        json!([{"id": member, "position": 1}, {"id": muted, "position": 2}]),
    )
    .await;
    assert_eq!(
        events(&t),
        ["GUILD_ROLE_UPDATE", "GUILD_ROLE_UPDATE"],
        "one per moved role"
    );
    let (s, _) = t.patch(&format!("/guilds/{g}"), json!({"name": "x"})).await;
    assert_eq!(s, 400);
    assert!(events(&t).is_empty());
    // The request log over HTTP carries them too.
    let log: Value = t
        .http
        .get(format!("{}/_emulator/requests", t.emu.base_url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(log[0]["events"], json!(["GUILD_ROLE_CREATE"]));
}

/// The default state with a second bot, `outsider`, that is in no guild.
fn with_outsider() -> discord_emulator::State {
    let mut st = default_state();
    st.users.push(User {
        id: "900000000000000009".into(),
        username: "outsider".into(),
        bot: true,
        ..User::default()
    });
    st.tokens.push(BotToken {
        token: "outsider-token".into(),
        user_id: "900000000000000009".into(),
    });
    st
}

#[tokio::test]
async fn the_preview_is_for_members_or_of_discoverable_guilds() {
    let t = T::with(with_outsider()).await;
    let g = t.g();
    let (s, p) = t.get(&format!("/guilds/{g}/preview")).await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["name"], "Ferris Fans");
    assert_eq!(p["approximate_member_count"], 11);
    assert_eq!(p["approximate_presence_count"], 0);
    let outsider = || {
        t.http
            .get(format!("{}/guilds/{g}/preview", t.emu.api_base))
            .header("Authorization", "Bot outsider-token")
            .send()
    };
    let r = outsider().await.unwrap();
    assert_eq!(r.status().as_u16(), 404, "not discoverable");
    let mut st = t.emu.state();
    st.guilds[0].features.push("DISCOVERABLE".into());
    t.emu.set_state(st);
    assert_eq!(outsider().await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn active_threads_are_the_visible_unarchived_ones_newest_first() {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    let mod_chat = g
        .channels
        .iter()
        .find(|c| c.name == "mod-chat")
        .unwrap()
        .id
        .clone();
    let bot = st.bot_user_id.clone();
    let mut staff = g.threads[0].clone();
    staff.id = "900000000000000100".into();
    staff.parent_id = mod_chat;
    staff.name = "Staff only".into();
    let mut joined = g.threads[0].clone();
    joined.id = "900000000000000200".into();
    joined.name = "Bot joined".into();
    joined.member_ids.push(bot.clone());
    g.threads.push(staff);
    g.threads.push(joined);
    let t = T::with(st.clone()).await;
    let (s, v) = t.get(&format!("/guilds/{}/threads/active", t.g())).await;
    assert_eq!(s, 200, "{v}");
    let names: Vec<&str> = v["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|th| th["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Bot joined",
            "Staff only",
            "Why does the borrow checker hate me?"
        ]
    );
    assert_eq!(v["has_more"], false);
    assert_eq!(
        v["members"],
        json!([{
        "id": "900000000000000200", "user_id": bot,
        "join_timestamp": v["members"][0]["join_timestamp"], "flags": 0}])
    );
    // A bot that cannot see Staff does not get its threads.
    let role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    role.permissions = Permissions::VIEW_CHANNEL;
    let t = T::with(st).await;
    let (_, v) = t.get(&format!("/guilds/{}/threads/active", t.g())).await;
    assert_eq!(v["threads"].as_array().unwrap().len(), 2);
}

fn multipart_file(name: &str, data: &str) -> (String, Vec<u8>) {
    let b = "targetsboundary42";
    let body = format!(
        "--{b}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"users.csv\"\r\nContent-Type: text/csv\r\n\r\n{data}\r\n--{b}--\r\n"
    );
    (
        format!("multipart/form-data; boundary={b}"),
        body.into_bytes(),
    )
}

#[tokio::test]
async fn target_users_go_in_as_csv_and_their_job_reports() {
    let t = T::new().await;
    let url = format!("{}/invites/ferrisfans/target-users", t.emu.api_base);
    let auth = format!("Bot {}", t.emu.token);
    let put = |data: &str, field: &str| {
        let (ct, body) = multipart_file(field, data);
        t.http
            .put(&url)
            .header("Authorization", &auth)
            .header("content-type", ct)
            .body(body)
            .send()
    };
    let job = || async { t.get("/invites/ferrisfans/target-users/job-status").await };
    let (s, j) = job().await;
    assert_eq!(
        (s, j["status"].clone()),
        (200, json!(0)),
        "no job yet: UNSPECIFIED"
    );
    let st = t.emu.state();
    let id = |n: &str| {
        st.users
            .iter()
            .find(|u| u.username == n)
            .unwrap()
            .id
            .clone()
    };
    let (alice, bob) = (id("alice"), id("bob"));
    let r = put(&format!("user_id\n{alice}\n{bob}\n"), "target_users_file")
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    let r = t
        .http
        .get(&url)
        .header("Authorization", &auth)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/csv");
    assert_eq!(
        r.text().await.unwrap(),
        format!("user_id\n{alice}\n{bob}\n")
    );
    let (_, j) = job().await;
    assert_eq!(j["status"], 2, "COMPLETED: {j}");
    assert_eq!(
        (j["total_users"].clone(), j["processed_users"].clone()),
        (json!(2), json!(2))
    );
    // Values that are not user ids: 400 naming them; nothing changes.
    let r = put(
        &format!("user_id\n{alice}\nbob\n12x\n"),
        "target_users_file",
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().await.unwrap();
    let msg = v["errors"]["target_users_file"]["_errors"][0]["message"]
        .as_str()
        .unwrap();
    assert!(msg.contains("bob") && msg.contains("12x"), "{msg}");
    // Ids of nobody: the job fails with a message.
    let r = put("999999999999999999\n", "target_users_file")
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    let (_, j) = job().await;
    assert_eq!(j["status"], 3, "FAILED: {j}");
    assert!(
        j["error_message"]
            .as_str()
            .unwrap()
            .contains("999999999999999999")
    );
    let r = put("1\n", "another_field").await.unwrap();
    assert_eq!(r.status().as_u16(), 400, "target_users_file is required");

    // VIEW_AUDIT_LOG reads but does not write; the inviter may do both.
    let t = T::non_admin(Permissions::VIEW_AUDIT_LOG).await;
    let (s, _) = t.get("/invites/ferrisfans/target-users/job-status").await;
    assert_eq!(s, 200);
    let (ct, body) = multipart_file("target_users_file", "1\n");
    let r = t
        .http
        .put(format!(
            "{}/invites/ferrisfans/target-users",
            t.emu.api_base
        ))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

#[tokio::test]
async fn a_deleted_channel_takes_its_threads_and_messages_and_a_ban_its_voice_state() {
    let t = T::new().await;
    let help = t.chan("help");
    let (_, hook) = t
        .post(
            &format!("/channels/{help}/webhooks"),
            json!({"name": "Help Hook"}),
        )
        .await;
    let path = format!(
        "/webhooks/{}/{}",
        hook["id"].as_str().unwrap(),
        hook["token"].as_str().unwrap()
    );
    let (s, _) = t
        .anonymous(Method::POST, &path, Some(json!({"content": "hi"})))
        .await;
    assert_eq!(s, 204);
    assert_eq!(t.emu.state().guilds[0].messages.len(), 1);
    let (s, _) = t.delete(&format!("/channels/{help}")).await;
    assert_eq!(s, 200);
    let (_, v) = t.get(&format!("/guilds/{}/threads/active", t.g())).await;
    assert_eq!(v["threads"], json!([]), "the #help thread went with it");
    let st = t.emu.state();
    assert!(st.guilds[0].messages.is_empty());
    // bob was in Lounge; banned, he is gone with his voice state.
    let bob = st
        .users
        .iter()
        .find(|u| u.username == "bob")
        .unwrap()
        .id
        .clone();
    let (s, _) = t
        .put(&format!("/guilds/{}/bans/{bob}", t.g()), json!({}))
        .await;
    assert_eq!(s, 204);
    assert!(!t.emu.state().guilds[0].member_details.contains_key(&bob));
}
