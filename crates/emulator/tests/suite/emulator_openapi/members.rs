//! The member, ban, prune, thread and webhook-message routes' responses against the spec.

use super::*;

#[tokio::test]
async fn member_and_ban_routes_match_the_spec() {
    let c = Client::start(None).await;
    let g = c.emu.guild_id.clone();
    let st = c.emu.state();
    let uid = |name: &str| {
        st.users
            .iter()
            .find(|u| u.username == name)
            .unwrap()
            .id
            .clone()
    };
    let helper = st.guilds[0]
        .roles
        .iter()
        .find(|r| r.name == "Helper")
        .unwrap()
        .id
        .clone();
    let (heidi, ivan, spammer) = (uid("heidi"), uid("ivan"), uid("free_nitro_4u"));
    use Method as M;
    let calls: Vec<(M, &str, String, Option<Value>, u16)> = vec![
        (
            M::GET,
            "/guilds/{guild_id}/members",
            format!("/guilds/{g}/members?limit=1000"),
            None,
            200,
        ),
        // Get User: a member, a user banned (no member), and an id that is no user.
        (
            M::GET,
            "/users/{user_id}",
            format!("/users/{heidi}"),
            None,
            200,
        ),
        (
            M::GET,
            "/users/{user_id}",
            format!("/users/{spammer}"),
            None,
            200,
        ),
        (
            M::GET,
            "/users/{user_id}",
            "/users/123456789012345678".to_owned(),
            None,
            404,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/roles/member-counts",
            format!("/guilds/{g}/roles/member-counts"),
            None,
            200,
        ),
        (
            M::PUT,
            "/guilds/{guild_id}/members/{user_id}/roles/{role_id}",
            format!("/guilds/{g}/members/{heidi}/roles/{helper}"),
            None,
            204,
        ),
        (
            M::DELETE,
            "/guilds/{guild_id}/members/{user_id}/roles/{role_id}",
            format!("/guilds/{g}/members/{heidi}/roles/{helper}"),
            None,
            204,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/bans",
            format!("/guilds/{g}/bans"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/bans/{user_id}",
            format!("/guilds/{g}/bans/{spammer}"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/bans/{user_id}",
            format!("/guilds/{g}/bans/{heidi}"),
            None,
            404,
        ),
        (
            M::PUT,
            "/guilds/{guild_id}/bans/{user_id}",
            format!("/guilds/{g}/bans/{heidi}"),
            Some(json!({})),
            204,
        ),
        (
            M::DELETE,
            "/guilds/{guild_id}/bans/{user_id}",
            format!("/guilds/{g}/bans/{heidi}"),
            None,
            204,
        ),
        (
            M::POST,
            "/guilds/{guild_id}/bulk-ban",
            format!("/guilds/{g}/bulk-ban"),
            Some(json!({"user_ids": [ivan, spammer]})),
            200,
        ),
        (
            M::POST,
            "/guilds/{guild_id}/bulk-ban",
            format!("/guilds/{g}/bulk-ban"),
            Some(json!({"user_ids": [spammer]})),
            400,
        ),
    ];
    for (method, template, path, body, want) in calls {
        let (s, v) = c.call(method.clone(), template, &path, body).await;
        assert_eq!(s, want, "{method} {path}: {v}");
    }
    c.emu.shutdown().await;
}

/// The operations issue 34 added: members, prune, preview, threads, the target-users job,
/// executing webhooks and webhook messages (multipart and CSV bodies aside: their content
/// types are checked against the spec's).
#[tokio::test]
async fn member_prune_thread_and_webhook_message_routes_match_the_spec() {
    let mut st = discord_emulator::default_state();
    st.users.push(discord_emulator::state::User {
        id: "900000000000000001".into(),
        username: "newbie".into(),
        ..Default::default()
    });
    st.user_tokens.push(discord_emulator::state::UserToken {
        token: "newbie-join".into(),
        user_id: "900000000000000001".into(),
        application_id: String::new(),
        scopes: vec!["guilds.join".into()],
    });
    let c = Client::start(Some(st)).await;
    let g = c.emu.guild_id.clone();
    let st = c.emu.state();
    let uid = |name: &str| {
        st.users
            .iter()
            .find(|u| u.username == name)
            .unwrap()
            .id
            .clone()
    };
    let chan = |name: &str| {
        st.guilds[0]
            .channels
            .iter()
            .find(|x| x.name == name)
            .unwrap()
            .id
            .clone()
    };
    let (bob, heidi) = (uid("bob"), uid("heidi"));
    let ci = st.guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == "CI")
        .unwrap();
    let (wid, token) = (ci.id.clone(), ci.token.clone().unwrap());
    let member = "/guilds/{guild_id}/members/{user_id}";
    use Method as M;
    let calls: Vec<(M, &str, String, Option<Value>, u16)> = vec![
        (
            M::GET,
            "/guilds/{guild_id}/preview",
            format!("/guilds/{g}/preview"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/threads/active",
            format!("/guilds/{g}/threads/active"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/members/search",
            format!("/guilds/{g}/members/search?query=a&limit=10"),
            None,
            200,
        ),
        (
            M::PUT,
            member,
            format!("/guilds/{g}/members/900000000000000001"),
            Some(json!({"access_token": "newbie-join", "nick": "Newbie"})),
            201,
        ),
        (
            M::PUT,
            member,
            format!("/guilds/{g}/members/900000000000000001"),
            Some(json!({"access_token": "newbie-join"})),
            204,
        ),
        (
            M::PATCH,
            member,
            format!("/guilds/{g}/members/{bob}"),
            Some(
                json!({"nick": "Bobby", "mute": true, "channel_id": chan("Gaming"),
                        "communication_disabled_until": rfc3339_in(24.0), "flags": 4}),
            ),
            200,
        ),
        (
            M::PATCH,
            member,
            format!("/guilds/{g}/members/{heidi}"),
            Some(json!({"deaf": true})),
            400,
        ),
        (
            M::PATCH,
            "/guilds/{guild_id}/members/@me",
            format!("/guilds/{g}/members/@me"),
            Some(json!({"nick": "Bot"})),
            200,
        ),
        (
            M::DELETE,
            member,
            format!("/guilds/{g}/members/{heidi}"),
            None,
            204,
        ),
        (
            M::POST,
            "/guilds/{guild_id}/prune",
            format!("/guilds/{g}/prune"),
            Some(
                json!({"days": 30, "include_roles": [st.guilds[0].roles.iter().find(|r| r.name == "Member").unwrap().id]}),
            ),
            200,
        ),
        (
            M::POST,
            "/guilds/{guild_id}/prune",
            format!("/guilds/{g}/prune"),
            Some(json!({"compute_prune_count": false})),
            200,
        ),
        (
            M::GET,
            "/invites/{code}/target-users/job-status",
            "/invites/ferrisfans/target-users/job-status".to_owned(),
            None,
            200,
        ),
        (
            M::POST,
            "/webhooks/{webhook_id}/{webhook_token}",
            format!("/webhooks/{wid}/{token}"),
            Some(json!({"content": "no wait"})),
            204,
        ),
        (
            M::POST,
            "/webhooks/{webhook_id}/{webhook_token}/slack",
            format!("/webhooks/{wid}/{token}/slack"),
            Some(
                json!({"text": "from a chat tool", "attachments": [{"title": "t", "color": "#fff"}]}),
            ),
            200,
        ),
        (
            M::POST,
            "/webhooks/{webhook_id}/{webhook_token}/github",
            format!("/webhooks/{wid}/{token}/github"),
            Some(json!({"sender": {"login": "ferris"}})),
            204,
        ),
    ];
    for (method, template, path, body, want) in calls {
        let (s, v) = c.call(method.clone(), template, &path, body).await;
        assert_eq!(s, want, "{method} {path}: {v}");
    }
    // A message with all it can hold, then read, edited and deleted.
    let exec = "/webhooks/{webhook_id}/{webhook_token}";
    let (s, m) = c
        .call(
            M::POST,
            exec,
            &format!("/webhooks/{wid}/{token}?wait=true"),
            Some(json!({
                "content": format!("hello <@{bob}>"), "username": "Spec", "tts": false,
                "embeds": [{"title": "Build", "description": "ok", "color": 3066993,
                            "fields": [{"name": "a", "value": "b"}], "footer": {"text": "f"},
                            "author": {"name": "n"}, "timestamp": "2024-01-01T00:00:00+00:00"}],
                "components": [{"type": 1, "components": [
                    {"type": 2, "style": 5, "label": "Open", "url": "https://example.com"},
                    {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}],
                "poll": {"question": {"text": "?"}, "answers": [{"poll_media": {"text": "y"}}]}
            })),
        )
        .await;
    assert_eq!(s, 200, "{m}");
    let mid = m["id"].as_str().unwrap();
    let msg = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}";
    let mpath = format!("/webhooks/{wid}/{token}/messages/{mid}");
    let (s, _) = c.call(M::GET, msg, &mpath, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(
            M::PATCH,
            msg,
            &mpath,
            Some(json!({"content": "edited", "embeds": null})),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = c.call(M::DELETE, msg, &mpath, None).await;
    assert_eq!(s, 204);
    let (s, _) = c.call(M::GET, msg, &mpath, None).await;
    assert_eq!(s, 404);
    // A components-v2 message and a forum post.
    let (s, _) = c
        .call(
            M::POST,
            exec,
            &format!("/webhooks/{wid}/{token}?wait=true"),
            Some(json!({"flags": 32768, "components": [{"type": 17, "components": [{"type": 10, "content": "v2"}]}]})),
        )
        .await;
    assert_eq!(s, 200);
    let (_, forum) = c
        .call(
            M::POST,
            "/guilds/{guild_id}/channels",
            &format!("/guilds/{g}/channels"),
            Some(json!({"name": "spec-forum", "type": 15})),
        )
        .await;
    let (_, fh) = c
        .call(
            M::POST,
            "/channels/{channel_id}/webhooks",
            &format!("/channels/{}/webhooks", forum["id"].as_str().unwrap()),
            Some(json!({"name": "Forum"})),
        )
        .await;
    let (s, _) = c
        .call(
            M::POST,
            exec,
            &format!(
                "/webhooks/{}/{}?wait=true",
                fh["id"].as_str().unwrap(),
                fh["token"].as_str().unwrap()
            ),
            Some(json!({"content": "post", "thread_name": "A post"})),
        )
        .await;
    assert_eq!(s, 200);
    let (s, v) = c
        .call(
            M::GET,
            "/guilds/{guild_id}/threads/active",
            &format!("/guilds/{g}/threads/active"),
            None,
        )
        .await;
    assert_eq!((s, v["threads"].as_array().map(Vec::len)), (200, Some(2)));
    // Target users travel as multipart and CSV: the spec says so.
    let tu = "/invites/{code}/target-users";
    assert!(
        c.checker.response("GET", tu, 200)["content"]
            .get("text/csv")
            .is_some()
    );
    let put = &c.checker.spec["paths"][tu]["put"];
    assert!(
        put["requestBody"]["content"]
            .get("multipart/form-data")
            .is_some()
    );
    assert!(put["responses"].get("204").is_some());
    c.emu.shutdown().await;
}
