//! Executing webhooks and their messages: Execute Webhook (JSON and multipart, `wait`,
//! `thread_id`, `thread_name`, the content, embed, component, poll and flag rules), the
//! chat-tool and code-host variants, and Get, Edit and Delete Webhook Message.

use crate::emulator_support;

use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

/// (id, token) of a default webhook by name.
fn hook(t: &T, name: &str) -> (String, String) {
    let st = t.emu.state();
    let w = st.guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("webhook {name}"));
    (w.id.clone(), w.token.clone().expect("a token"))
}

/// A new webhook of the bot in channel `cid`: (id, token).
async fn new_hook(t: &T, cid: &str, name: &str) -> (String, String) {
    let (s, w) = t
        .post(&format!("/channels/{cid}/webhooks"), json!({"name": name}))
        .await;
    assert_eq!(s, 200, "{w}");
    (
        w["id"].as_str().unwrap().to_owned(),
        w["token"].as_str().unwrap().to_owned(),
    )
}

fn uid(t: &T, name: &str) -> String {
    t.emu
        .state()
        .users
        .iter()
        .find(|u| u.username == name)
        .unwrap()
        .id
        .clone()
}

fn last_events(t: &T) -> Vec<String> {
    t.emu.requests().last().unwrap().events.clone()
}

/// A multipart/form-data body: (content type, bytes). Parts are (name, file name, data).
fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "emulatorboundary7MA4YWxk";
    let mut body = Vec::new();
    for (name, file, data) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: text/plain\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn exec(t: &T, path: String, body: Value) -> (u16, Value) {
    t.anonymous(Method::POST, &path, Some(body)).await
}

async fn send_multipart(
    t: &T,
    method: Method,
    path: &str,
    parts: &[(&str, Option<&str>, &[u8])],
) -> (u16, Value) {
    let (ct, body) = multipart(parts);
    let resp = t
        .http
        .request(method, format!("{}{path}", t.emu.api_base))
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    let s = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (s, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn execute_answers_the_message_with_wait_and_204_without() {
    let t = T::new().await;
    let (id, token) = hook(&t, "CI");
    let path = format!("/webhooks/{id}/{token}");
    let (alice, helper) = (uid(&t, "alice"), t.role("Helper"));
    let content = format!("ping <@{alice}> <@&{helper}> @everyone");
    let (s, m) = t
        .anonymous(
            Method::POST,
            &format!("{path}?wait=true"),
            Some(json!({"content": content, "allowed_mentions": {"parse": ["users"]}})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["content"], content.as_str());
    assert_eq!(m["author"]["id"], id.as_str());
    assert_eq!(m["author"]["username"], "CI");
    assert_eq!(m["author"]["bot"], true);
    assert_eq!(m["webhook_id"], id.as_str());
    assert_eq!(m["channel_id"], t.chan("bot-spam").as_str());
    assert_eq!(m["mentions"][0]["id"], alice.as_str());
    assert_eq!(m["mention_roles"], json!([]), "roles not allowed");
    assert_eq!(m["mention_everyone"], false);
    assert_eq!(last_events(&t), ["MESSAGE_CREATE"]);
    // Without allowed_mentions everything may be mentioned.
    let (_, m) = t
        .anonymous(
            Method::POST,
            &format!("{path}?wait=true"),
            Some(json!({"content": content})),
        )
        .await;
    assert_eq!(m["mention_roles"], json!([helper]));
    assert_eq!(m["mention_everyone"], true);
    // discord.py sends wait as 1 and 0.
    let (s, m) = t
        .anonymous(
            Method::POST,
            &format!("{path}?wait=1"),
            Some(json!({"content": "a"})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    let (s, m) = t
        .anonymous(
            Method::POST,
            &format!("{path}?wait=0&with_components=0"),
            Some(json!({"content": "b"})),
        )
        .await;
    assert_eq!((s, m), (204, Value::Null));
    let (s, _) = t
        .anonymous(
            Method::POST,
            &format!("{path}?wait=maybe"),
            Some(json!({"content": "c"})),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(t.emu.state().guilds[0].messages.len(), 4);
    // A wrong token: 401 50027.
    let (s, v) = t
        .anonymous(
            Method::POST,
            &format!("/webhooks/{id}/nope"),
            Some(json!({"content": "x"})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (401, 50027));
}

#[tokio::test]
async fn message_rules_content_embeds_flags_and_components_v2() {
    let t = T::new().await;
    let (id, token) = hook(&t, "CI");
    let path = format!("/webhooks/{id}/{token}?wait=true");
    let post = |body: Value| t.anonymous(Method::POST, &path, Some(body));
    let (s, v) = post(json!({"content": "x".repeat(2001)})).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert!(v["errors"]["content"].is_object(), "{v}");
    let (s, _) = post(json!({"content": "x".repeat(2000)})).await;
    assert_eq!(s, 200, "2,000 characters fit");
    let (s, v) = post(json!({"embeds": vec![json!({"title": "t"}); 11]})).await;
    assert_eq!((s, err_code(&v)), (400, 50035), "at most 10 embeds");
    let (s, v) = post(json!({})).await;
    assert_eq!((s, err_code(&v)), (400, 50006), "empty");
    let (s, v) = post(json!({"content": "", "embeds": []})).await;
    assert_eq!((s, err_code(&v)), (400, 50006), "still empty");
    let (s, v) = post(json!({"content": "x", "flags": 1 << 1})).await;
    assert_eq!((s, err_code(&v)), (400, 50035), "not an allowed flag: {v}");
    let (s, m) = post(json!({"content": "x", "flags": (1 << 2) | (1 << 12)})).await;
    assert_eq!((s, m["flags"].clone()), (200, json!((1 << 2) | (1 << 12))));
    // Embeds are rich, and what cannot be set is dropped.
    let (s, m) = post(json!({"embeds": [{
        "type": "video", "title": "Build", "color": 3066993,
        "provider": {"name": "x"}, "video": {"url": "https://v"},
        "image": {"url": "https://i/p.png", "width": 5, "height": 5, "proxy_url": "https://p"},
        "fields": [{"name": "a", "value": "b"}]}]}))
    .await;
    assert_eq!(s, 200, "{m}");
    let e = &m["embeds"][0];
    assert_eq!(e["type"], "rich");
    assert!(e.get("provider").is_none() && e.get("video").is_none());
    assert_eq!(e["image"], json!({"url": "https://i/p.png"}));
    assert_eq!(e["fields"][0]["inline"], false);
    // IS_COMPONENTS_V2: only components.
    let v2 = 1 << 15;
    let text = json!([{"type": 10, "content": "Deployed!"}]);
    let (s, v) = post(json!({"content": "x", "components": text, "flags": v2})).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert!(v["errors"]["content"].is_object(), "{v}");
    let (s, v) = post(json!({"embeds": [{"title": "x"}], "components": text, "flags": v2})).await;
    assert_eq!(s, 400, "{v}");
    let (s, m) = post(json!({"components": text, "flags": v2})).await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["components"][0]["id"], 1, "components are numbered");
    // A poll.
    let (s, m) = post(json!({"poll": {"question": {"text": "Ship it?"},
        "answers": [{"poll_media": {"text": "yes"}}, {"poll_media": {"text": "no"}}],
        "duration": 2}}))
    .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["poll"]["answers"][1]["answer_id"], 2);
    assert_eq!(m["poll"]["results"]["is_finalized"], false);
    let (s, _) = post(json!({"poll": {"question": {"text": "?"}, "answers": []}})).await;
    assert_eq!(s, 400);
}

#[tokio::test]
async fn components_of_webhooks_no_application_owns() {
    let t = T::new().await;
    // GitHub was made by a person: not application-owned. CI was made by the bot.
    let (gh, gh_token) = hook(&t, "GitHub");
    let (ci, ci_token) = hook(&t, "CI");
    let link = json!([{"type": 1, "components": [{"type": 2, "style": 5, "label": "Open", "url": "https://example.com"}]}]);
    let button = json!([{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}]);
    let run = |w: &str, tok: &str, q: &str, c: &Value| {
        exec(
            &t,
            format!("/webhooks/{w}/{tok}?wait=true{q}"),
            json!({"content": "see", "components": c}),
        )
    };
    let (s, m) = run(&gh, &gh_token, "", &link).await;
    assert_eq!(
        (s, m["components"].clone()),
        (200, json!([])),
        "ignored without with_components"
    );
    let (s, m) = run(&gh, &gh_token, "&with_components=true", &link).await;
    assert_eq!(s, 200);
    assert_eq!(
        m["components"][0]["components"][0]["url"],
        "https://example.com"
    );
    let (s, v) = run(&gh, &gh_token, "&with_components=true", &button).await;
    assert_eq!((s, err_code(&v)), (400, 50035), "no interactive ones: {v}");
    let (s, m) = run(&ci, &ci_token, "", &button).await;
    assert_eq!(s, 200, "an application's webhook may: {m}");
    assert_eq!(m["components"][0]["components"][0]["custom_id"], "go");
}

#[tokio::test]
async fn overrides_and_multipart_files() {
    let t = T::new().await;
    let (id, token) = hook(&t, "CI");
    let path = format!("/webhooks/{id}/{token}?wait=true");
    let (s, m) = t
        .anonymous(
            Method::POST,
            &path,
            Some(json!({"content": "hi", "username": "  Deploy   Bot ", "avatar_url": "https://example.com/a.png", "tts": true})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["author"]["username"], "Deploy Bot");
    assert_eq!(m["tts"], true);
    let payload =
        json!({"content": "the log", "attachments": [{"id": 0, "description": "build log"}]});
    let payload = payload.to_string();
    let (s, m) = send_multipart(
        &t,
        Method::POST,
        &path,
        &[
            ("payload_json", None, payload.as_bytes()),
            ("files[0]", Some("build.log"), b"all green\n"),
            ("files[1]", Some("extra.txt"), b"dropped: not listed"),
        ],
    )
    .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["content"], "the log");
    let files = m["attachments"].as_array().unwrap();
    assert_eq!(files.len(), 1, "attachments lists the files that stay: {m}");
    assert_eq!(files[0]["filename"], "build.log");
    assert_eq!(files[0]["description"], "build log");
    assert_eq!(files[0]["size"], 10);
    // A file alone is a message.
    let (s, m) = send_multipart(
        &t,
        Method::POST,
        &path,
        &[("files[0]", Some("a.txt"), b"a")],
    )
    .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["attachments"][0]["filename"], "a.txt");
}

#[tokio::test]
async fn thread_id_posts_into_a_thread_and_unarchives_it() {
    let t = T::new().await;
    let general = t.chan("general");
    let (id, token) = new_hook(&t, &general, "General Hook").await;
    let st = t.emu.state();
    let archived = st.guilds[0]
        .threads
        .iter()
        .find(|th| th.archived)
        .unwrap()
        .clone();
    let open = st.guilds[0]
        .threads
        .iter()
        .find(|th| !th.archived)
        .unwrap()
        .clone();
    let (_, active) = t.get(&format!("/guilds/{}/threads/active", t.g())).await;
    assert_eq!(active["threads"].as_array().unwrap().len(), 1);
    let (s, m) = t
        .anonymous(
            Method::POST,
            &format!("/webhooks/{id}/{token}?wait=true&thread_id={}", archived.id),
            Some(json!({"content": "back again"})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["channel_id"], archived.id.as_str());
    assert_eq!(last_events(&t), ["THREAD_UPDATE", "MESSAGE_CREATE"]);
    let (_, active) = t.get(&format!("/guilds/{}/threads/active", t.g())).await;
    let ids: Vec<&str> = active["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|th| th["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [archived.id.as_str(), open.id.as_str()],
        "newest first, unarchived"
    );
    // A thread of another channel is not this webhook's.
    let (s, v) = t
        .anonymous(
            Method::POST,
            &format!("/webhooks/{id}/{token}?thread_id={}", open.id),
            Some(json!({"content": "x"})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (404, 10003));
    // The message is read back with its thread.
    let mid = m["id"].as_str().unwrap();
    let (s, _) = t
        .anonymous(
            Method::GET,
            &format!("/webhooks/{id}/{token}/messages/{mid}"),
            None,
        )
        .await;
    assert_eq!(s, 404, "not in the channel itself");
    let (s, got) = t
        .anonymous(
            Method::GET,
            &format!(
                "/webhooks/{id}/{token}/messages/{mid}?thread_id={}",
                archived.id
            ),
            None,
        )
        .await;
    assert_eq!((s, got["content"].clone()), (200, json!("back again")));
}

#[tokio::test]
async fn forum_and_media_channels_need_a_thread_and_thread_name_makes_one() {
    let t = T::new().await;
    let g = t.g();
    let (s, forum) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "ideas", "type": 15, "available_tags": [{"name": "bug"}, {"name": "idea"}]}),
        )
        .await;
    assert_eq!(s, 201);
    let fid = forum["id"].as_str().unwrap().to_owned();
    let tag = forum["available_tags"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (id, token) = new_hook(&t, &fid, "Forum Hook").await;
    let path = format!("/webhooks/{id}/{token}?wait=true");
    let (s, v) = t
        .anonymous(Method::POST, &path, Some(json!({"content": "orphan"})))
        .await;
    assert_eq!((s, err_code(&v)), (400, 220_001));
    let (s, m) = t
        .anonymous(
            Method::POST,
            &path,
            Some(
                json!({"content": "first post", "thread_name": "Dark mode", "applied_tags": [tag]}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(
        m["channel_id"], m["id"],
        "a post's thread has its first message's id"
    );
    assert_eq!(last_events(&t), ["THREAD_CREATE", "MESSAGE_CREATE"]);
    let (_, active) = t.get(&format!("/guilds/{g}/threads/active")).await;
    let th = active["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|th| th["name"] == "Dark mode")
        .expect("the new post")
        .clone();
    assert_eq!(th["parent_id"], fid.as_str());
    assert_eq!(th["applied_tags"], json!([tag]));
    assert_eq!(th["message_count"], 1);
    let (s, v) = t
        .anonymous(
            Method::POST,
            &path,
            Some(json!({"content": "x", "thread_name": "y", "applied_tags": ["1"]})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035), "not a tag of the forum");
    // thread_name in a text channel: 400 220003.
    let (ci, ci_token) = hook(&t, "CI");
    let (s, v) = t
        .anonymous(
            Method::POST,
            &format!("/webhooks/{ci}/{ci_token}"),
            Some(json!({"content": "x", "thread_name": "nope"})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 220_003));
}

#[tokio::test]
async fn edit_rebuilds_mentions_and_keeps_only_the_listed_attachments() {
    let t = T::new().await;
    let (id, token) = hook(&t, "CI");
    let base = format!("/webhooks/{id}/{token}");
    let (alice, bob) = (uid(&t, "alice"), uid(&t, "bob"));
    let payload = json!({"content": format!("hi <@{alice}>")}).to_string();
    let (s, m) = send_multipart(
        &t,
        Method::POST,
        &format!("{base}?wait=true"),
        &[
            ("payload_json", None, payload.as_bytes()),
            ("files[0]", Some("one.txt"), b"1"),
            ("files[1]", Some("two.txt"), b"22"),
        ],
    )
    .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["mentions"][0]["id"], alice.as_str());
    let mid = m["id"].as_str().unwrap().to_owned();
    let one = m["attachments"][0]["id"].as_str().unwrap().to_owned();
    let mpath = format!("{base}/messages/{mid}");
    // New content: mentions rebuilt, with this request's allowances.
    let (s, m) = t
        .anonymous(
            Method::PATCH,
            &mpath,
            Some(json!({"content": format!("now <@{bob}> and <@{alice}>"),
                        "allowed_mentions": {"users": [bob]}})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    let mentioned: Vec<&str> = m["mentions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert_eq!(mentioned, [bob.as_str()]);
    assert!(m["edited_timestamp"].is_string());
    assert_eq!(last_events(&t), ["MESSAGE_UPDATE"]);
    // v10: attachments lists every one that stays, kept and new.
    let keep = json!({"attachments": [{"id": one}, {"id": "0"}]}).to_string();
    let (s, m) = send_multipart(
        &t,
        Method::PATCH,
        &mpath,
        &[
            ("payload_json", None, keep.as_bytes()),
            ("files[0]", Some("three.txt"), b"333"),
        ],
    )
    .await;
    assert_eq!(s, 200, "{m}");
    let names: Vec<&str> = m["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["filename"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["one.txt", "three.txt"], "two.txt was not listed");
    // Without `attachments`, the files stay.
    let (_, m) = t
        .anonymous(
            Method::PATCH,
            &mpath,
            Some(json!({"content": "same files"})),
        )
        .await;
    assert_eq!(m["attachments"].as_array().unwrap().len(), 2);
    // Polls are for deferred interaction responses only.
    let (s, _) = t
        .anonymous(
            Method::PATCH,
            &mpath,
            Some(json!({"poll": {"question": {"text": "?"}, "answers": [{"poll_media": {"text": "a"}}]}})),
        )
        .await;
    assert_eq!(s, 400);
    // IS_COMPONENTS_V2 only once content, embeds and files are nulled, and never unset.
    let v2 = 1 << 15;
    let text = json!([{"type": 10, "content": format!("for <@{alice}>")}]);
    let (s, v) = t
        .anonymous(
            Method::PATCH,
            &mpath,
            Some(json!({"flags": v2, "components": text})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035), "{v}");
    let (s, m) = t
        .anonymous(
            Method::PATCH,
            &mpath,
            Some(json!({"flags": v2, "components": text, "content": null, "embeds": null, "attachments": []})),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["content"], "");
    assert_eq!(
        m["mentions"][0]["id"],
        alice.as_str(),
        "read from the text display"
    );
    let (s, _) = t
        .anonymous(Method::PATCH, &mpath, Some(json!({"flags": 0})))
        .await;
    assert_eq!(s, 400, "IS_COMPONENTS_V2 cannot be unset");
    let (s, _) = t.anonymous(Method::DELETE, &mpath, None).await;
    assert_eq!(s, 204);
    assert_eq!(last_events(&t), ["MESSAGE_DELETE"]);
    let (s, v) = t.anonymous(Method::GET, &mpath, None).await;
    assert_eq!((s, err_code(&v)), (404, 10008));
    // Another webhook's token does not reach it.
    let (gh, gh_token) = hook(&t, "GitHub");
    let (_, m) = t
        .anonymous(
            Method::POST,
            &format!("{base}?wait=true"),
            Some(json!({"content": "mine"})),
        )
        .await;
    let (s, _) = t
        .anonymous(
            Method::GET,
            &format!(
                "/webhooks/{gh}/{gh_token}/messages/{}",
                m["id"].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn the_chat_tool_format_becomes_a_message() {
    let t = T::new().await;
    let (id, token) = hook(&t, "GitHub");
    let path = format!("/webhooks/{id}/{token}/slack");
    let (s, v) = t
        .anonymous(
            Method::POST,
            &path,
            Some(json!({
                "text": "Deploy finished", "username": "CI Bot",
                "icon_url": "https://example.com/ci.png",
                // Not supported, ignored.
                "channel": "#general", "icon_emoji": ":rocket:", "mrkdwn": true,
                "attachments": [{"title": "v1.2.3", "title_link": "https://example.com/r",
                    "text": "All green", "color": "#36a64f", "ts": 1700000000,
                    "footer": "ci", "mrkdwn_in": ["text"],
                    "fields": [{"title": "Env", "value": "prod", "short": true}]}]
            })),
        )
        .await;
    assert_eq!((s, v), (200, json!("ok")));
    assert_eq!(last_events(&t), ["MESSAGE_CREATE"]);
    let st = t.emu.state();
    let m = st.guilds[0].messages.last().unwrap();
    assert_eq!(m.content, "Deploy finished");
    assert_eq!(m.username, "CI Bot");
    let e = &m.embeds[0];
    assert_eq!(e["title"], "v1.2.3");
    assert_eq!(e["url"], "https://example.com/r");
    assert_eq!(e["description"], "All green");
    assert_eq!(e["color"], 0x36a64f);
    assert_eq!(e["timestamp"], "2023-11-14T22:13:20.000000+00:00");
    assert_eq!(
        e["fields"][0],
        json!({"name": "Env", "value": "prod", "inline": true})
    );
    let (s, v) = t
        .anonymous(
            Method::POST,
            &path,
            Some(json!({"attachments": [{"text": "x", "color": "green"}]})),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035), "{v}");
}

#[tokio::test]
async fn code_host_events_become_embeds_and_others_post_nothing() {
    let t = T::new().await;
    let (id, token) = hook(&t, "GitHub");
    let path = format!("{}/webhooks/{id}/{token}/github", t.emu.api_base);
    let push = json!({
        "ref": "refs/heads/main", "compare": "https://github.com/ferris/fans/compare/a...b",
        "repository": {"full_name": "ferris/fans", "html_url": "https://github.com/ferris/fans"},
        "sender": {"login": "ferris", "avatar_url": "https://example.com/f.png", "html_url": "https://github.com/ferris"},
        "commits": [{"id": "0123456789abcdef", "message": "Fix the build\n\nlong text"}]
    });
    let send = |event: &str, body: &Value| {
        t.http
            .post(&path)
            .header("X-GitHub-Event", event)
            .json(body)
            .send()
    };
    let resp = send("push", &push).await.unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    let st = t.emu.state();
    let m = st.guilds[0].messages.last().expect("a message");
    assert_eq!(m.username, "GitHub");
    assert_eq!(m.embeds[0]["title"], "[ferris/fans:main] 1 new commit");
    assert!(
        m.embeds[0]["description"]
            .as_str()
            .unwrap()
            .contains("`0123456` Fix the build")
    );
    assert_eq!(m.embeds[0]["author"]["name"], "ferris");
    let before = st.guilds[0].messages.len();
    let resp = send("ping", &push).await.unwrap();
    assert_eq!(resp.status().as_u16(), 204);
    assert_eq!(
        t.emu.state().guilds[0].messages.len(),
        before,
        "ping posts nothing"
    );
    let resp = send("push", &json!({"ref": "refs/heads/main"}))
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400, "sender is required");
}
