//! The member operations of the service reference: Search, Add, Modify and Remove Guild
//! Member, Modify Current Member, Modify Current User Nick, and Begin Guild Prune, each
//! rule a test; their audit entries and the Gateway events the request log records.

use crate::emulator_support;

use discord_emulator::state::{User, UserToken};
use discord_emulator::{RequestRecord, default_state};
use discord_permissions::Permissions;
use emulator_support::{T, err_code, rfc3339_in};
use reqwest::Method;
use serde_json::{Value, json};

fn uid(t: &T, name: &str) -> String {
    t.emu
        .state()
        .users
        .iter()
        .find(|u| u.username == name)
        .unwrap_or_else(|| panic!("user {name}"))
        .id
        .clone()
}

/// The Gateway events of the last request to `path` (method `m`).
fn events_of(t: &T, m: &str, path: &str) -> Vec<String> {
    let log: Vec<RequestRecord> = t.emu.requests();
    log.iter()
        .rev()
        .find(|r| r.method == m && r.path.starts_with(&format!("/api/v10{path}")))
        .map(|r| r.events.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn search_matches_a_prefix_of_username_or_nickname() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t.get(&format!("/guilds/{g}/members/search?query=f")).await;
    assert_eq!(s, 200);
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m["user"]["username"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&v), ["ferris"], "limit defaults to 1, by user id");
    let (_, v) = t
        .get(&format!("/guilds/{g}/members/search?query=F&limit=10"))
        .await;
    // free_nitro_4u is banned, not a member.
    assert_eq!(names(&v), ["ferris", "frank"], "case is ignored");
    let (_, v) = t
        .get(&format!(
            "/guilds/{g}/members/search?query=alice%20(m&limit=5"
        ))
        .await;
    assert_eq!(names(&v), ["alice"], "nicknames count");
    let (s, v) = t.get(&format!("/guilds/{g}/members/search")).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert!(v["errors"]["query"].is_object(), "{v}");
    let (s, _) = t
        .get(&format!("/guilds/{g}/members/search?query=a&limit=1001"))
        .await;
    assert_eq!(s, 400);
}

fn with_newcomers() -> discord_emulator::State {
    let mut st = default_state();
    let newbie = "900000000000000001";
    st.users.push(User {
        id: newbie.into(),
        username: "newbie".into(),
        ..User::default()
    });
    let raider = st
        .users
        .iter()
        .find(|u| u.username == "raid_leader")
        .unwrap()
        .id
        .clone();
    let token = |t: &str, user: &str, scopes: &[&str]| UserToken {
        token: t.into(),
        user_id: user.into(),
        application_id: String::new(),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
    };
    st.user_tokens = vec![
        token("newbie-join", newbie, &["identify", "guilds.join"]),
        token("newbie-identify", newbie, &["identify"]),
        token("raider-join", &raider, &["guilds.join"]),
    ];
    st
}

#[tokio::test]
async fn add_member_needs_the_users_guilds_join_token() {
    let t = T::with(with_newcomers()).await;
    let g = t.g();
    let newbie = "900000000000000001";
    let path = format!("/guilds/{g}/members/{newbie}");
    for (token, why) in [
        ("nope", "unknown token"),
        ("newbie-identify", "no guilds.join"),
        ("raider-join", "another user's token"),
    ] {
        let (s, v) = t.put(&path, json!({"access_token": token})).await;
        assert_eq!((s, err_code(&v)), (400, 50025), "{why}: {v}");
    }
    let (s, v) = t.put(&path, json!({})).await;
    assert_eq!((s, err_code(&v)), (400, 50035), "access_token is required");
    let member = t.role("Member");
    let (s, v) = t
        .put(
            &path,
            json!({"access_token": "newbie-join", "nick": "  New   Kid ", "roles": [member]}),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    assert_eq!(v["user"]["id"], newbie);
    assert_eq!(v["nick"], "New Kid", "stored as nicknames are");
    assert_eq!(v["roles"], json!([member]));
    assert_eq!(v["pending"], false);
    assert_eq!(events_of(&t, "PUT", &path), ["GUILD_MEMBER_ADD"]);
    // Already a member: 204, nothing changes.
    let (s, v) = t
        .put(
            &path,
            json!({"access_token": "newbie-join", "nick": "Other"}),
        )
        .await;
    assert_eq!((s, v), (204, Value::Null));
    let (_, m) = t.get(&path).await;
    assert_eq!(m["nick"], "New Kid");
    // A banned user cannot be added.
    let raider = uid(&t, "raid_leader");
    let (s, v) = t
        .put(
            &format!("/guilds/{g}/members/{raider}"),
            json!({"access_token": "raider-join"}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 40007), "{v}");
}

#[tokio::test]
async fn add_member_is_pending_under_screening_and_needs_create_instant_invite() {
    let mut st = with_newcomers();
    st.guilds[0]
        .features
        .push("MEMBER_VERIFICATION_GATE_ENABLED".into());
    let t = T::with(st).await;
    let path = format!("/guilds/{}/members/900000000000000001", t.g());
    let (s, v) = t.put(&path, json!({"access_token": "newbie-join"})).await;
    assert_eq!(s, 201, "{v}");
    assert_eq!(v["pending"], true);

    let mut st = with_newcomers();
    let bot_role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    bot_role.permissions = Permissions::VIEW_CHANNEL;
    let gid = st.guilds[0].id.clone();
    st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.id == gid)
        .unwrap()
        .permissions = Permissions::VIEW_CHANNEL;
    let t = T::with(st).await;
    let path = format!("/guilds/{}/members/900000000000000001", t.g());
    let (s, v) = t.put(&path, json!({"access_token": "newbie-join"})).await;
    assert_eq!((s, err_code(&v)), (403, 50013), "{v}");
}

#[tokio::test]
async fn modify_member_nick_and_roles_are_audited_with_the_reason() {
    let t = T::new().await;
    let g = t.g();
    let heidi = uid(&t, "heidi");
    let path = format!("/guilds/{g}/members/{heidi}");
    let (member, helper) = (t.role("Member"), t.role("Helper"));
    let (s, v) = t
        .call(
            Method::PATCH,
            &path,
            Some(json!({"nick": "Heidi", "roles": [member, helper]})),
            Some("welcome%20aboard"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["nick"], "Heidi");
    assert_eq!(v["roles"], json!([member, helper]));
    assert_eq!(events_of(&t, "PATCH", &path), ["GUILD_MEMBER_UPDATE"]);
    let e = &t.audit("?action_type=24").await[0];
    assert_eq!(e["target_id"], heidi.as_str());
    assert_eq!(e["reason"], "welcome aboard");
    assert_eq!(e["changes"][0]["key"], "nick");
    assert_eq!(e["changes"][0]["new_value"], "Heidi");
    let e = &t.audit("?action_type=25").await[0];
    assert_eq!(e["changes"][0]["key"], "$add");
    assert_eq!(e["changes"][0]["new_value"][0]["name"], "Helper");
    assert_eq!(e["reason"], "welcome aboard");
    // A nick of 33 characters is refused; null removes it.
    let (s, v) = t.patch(&path, json!({"nick": "x".repeat(33)})).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    let (_, v) = t.patch(&path, json!({"nick": null})).await;
    assert_eq!(v["nick"], Value::Null);
    // Managed roles and @everyone are nobody's to give.
    let booster = t.role("Server Booster");
    let (s, v) = t.patch(&path, json!({"roles": [member, booster]})).await;
    assert_eq!((s, err_code(&v)), (400, 50028));
    // The owner's nickname is not the bot's to change.
    let ferris = uid(&t, "ferris");
    let (s, _) = t
        .patch(
            &format!("/guilds/{g}/members/{ferris}"),
            json!({"nick": "boss"}),
        )
        .await;
    assert_eq!(s, 403);
}

#[tokio::test]
async fn mute_deaf_and_moves_need_the_member_in_voice() {
    let t = T::new().await;
    let g = t.g();
    let (bob, heidi) = (uid(&t, "bob"), uid(&t, "heidi"));
    // heidi is not in voice: 400.
    for body in [
        json!({"mute": true}),
        json!({"deaf": true}),
        json!({"channel_id": t.chan("Gaming")}),
    ] {
        let (s, v) = t
            .patch(&format!("/guilds/{g}/members/{heidi}"), body.clone())
            .await;
        assert_eq!((s, err_code(&v)), (400, 40032), "{body}: {v}");
    }
    // bob sits in Lounge.
    let bob_path = format!("/guilds/{g}/members/{bob}");
    let (s, v) = t
        .patch(&bob_path, json!({"mute": true, "deaf": true}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["mute"].clone(), v["deaf"].clone()),
        (json!(true), json!(true))
    );
    let e = &t.audit("?action_type=24").await[0];
    let keys: Vec<&str> = e["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["mute", "deaf"]);
    // A move names the channel and a count; a disconnect only the count.
    let gaming = t.chan("Gaming");
    let (s, _) = t
        .call(
            Method::PATCH,
            &bob_path,
            Some(json!({"channel_id": gaming})),
            Some("room%20change"),
        )
        .await;
    assert_eq!(s, 200);
    let st = t.emu.state();
    assert_eq!(
        st.guilds[0].member_details[&bob]
            .voice_channel_id
            .as_deref(),
        Some(gaming.as_str())
    );
    let e = &t.audit("?action_type=26").await[0];
    assert_eq!(e["options"], json!({"count": "1", "channel_id": gaming}));
    assert_eq!(e["target_id"], Value::Null);
    assert_eq!(e["reason"], "room change");
    let (s, v) = t
        .patch(&bob_path, json!({"channel_id": t.chan("general")}))
        .await;
    assert_eq!(
        (s, err_code(&v)),
        (400, 50024),
        "a text channel is no voice channel"
    );
    let (s, _) = t.patch(&bob_path, json!({"channel_id": null})).await;
    assert_eq!(s, 200);
    let e = &t.audit("?action_type=27").await[0];
    assert_eq!(e["options"], json!({"count": "1"}));
    let st = t.emu.state();
    assert_eq!(st.guilds[0].member_details[&bob].voice_channel_id, None);
    // Disconnected: no more mute changes.
    let (s, _) = t.patch(&bob_path, json!({"mute": false})).await;
    assert_eq!(s, 400);
}

#[tokio::test]
async fn timeouts_reach_28_days_and_spare_administrators_and_the_owner() {
    // grace holds Contributor, a role below the bot's: made an administrator one.
    let mut st = default_state();
    let grace = st
        .users
        .iter()
        .find(|u| u.username == "grace")
        .unwrap()
        .id
        .clone();
    let contributor = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "Contributor")
        .unwrap();
    contributor.permissions = Permissions::ADMINISTRATOR;
    let t = T::with(st).await;
    let g = t.g();
    let heidi = uid(&t, "heidi");
    let path = format!("/guilds/{g}/members/{heidi}");
    let until = rfc3339_in(27.0 * 24.0);
    let (s, v) = t
        .patch(&path, json!({"communication_disabled_until": until}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert!(v["communication_disabled_until"].is_string());
    let e = &t.audit("?action_type=24").await[0];
    assert_eq!(e["changes"][0]["key"], "communication_disabled_until");
    let (s, v) = t
        .patch(
            &path,
            json!({"communication_disabled_until": rfc3339_in(29.0 * 24.0)}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035), "more than 28 days ahead");
    let (_, v) = t
        .patch(&path, json!({"communication_disabled_until": null}))
        .await;
    assert_eq!(
        v["communication_disabled_until"],
        Value::Null,
        "null lifts it"
    );
    let ferris = uid(&t, "ferris");
    for (who, why) in [(&grace, "an administrator"), (&ferris, "the owner")] {
        let (s, v) = t
            .patch(
                &format!("/guilds/{g}/members/{who}"),
                json!({"communication_disabled_until": rfc3339_in(1.0)}),
            )
            .await;
        assert_eq!((s, err_code(&v)), (403, 50013), "{why}: {v}");
    }
}

#[tokio::test]
async fn only_bypasses_verification_is_an_editable_flag_and_who_may_set_it() {
    let t = T::new().await;
    let g = t.g();
    let heidi = uid(&t, "heidi");
    let path = format!("/guilds/{g}/members/{heidi}");
    let (s, v) = t.patch(&path, json!({"flags": 4 | 1 | 128})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["flags"], 4,
        "DID_REJOIN and the quarantine flag are Discord's"
    );
    let (_, v) = t.patch(&path, json!({"flags": 0})).await;
    assert_eq!(v["flags"], 0);

    // MODERATE_MEMBERS, KICK_MEMBERS and BAN_MEMBERS together may; KICK alone may not.
    let moderate = Permissions(1 << 40);
    let t = T::non_admin(moderate | Permissions::KICK_MEMBERS | Permissions::BAN_MEMBERS).await;
    let path = format!("/guilds/{}/members/{}", t.g(), uid(&t, "heidi"));
    let (s, _) = t.patch(&path, json!({"flags": 4})).await;
    assert_eq!(s, 200);
    let t = T::non_admin(Permissions::KICK_MEMBERS).await;
    let path = format!("/guilds/{}/members/{}", t.g(), uid(&t, "heidi"));
    let (s, v) = t.patch(&path, json!({"flags": 4})).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, _) = t.patch(&path, json!({"mute": true})).await;
    assert_eq!(s, 403, "MUTE_MEMBERS is needed first");
}

#[tokio::test]
async fn the_current_member_and_its_nick_discord_js_path_included() {
    let t = T::new().await;
    let g = t.g();
    // discord.js encodes the `@`.
    let (s, v) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}/members/%40me"),
            Some(json!({"nick": "Reconciler", "bio": "I keep the guild"})),
            Some("rename"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["nick"], "Reconciler");
    assert_eq!(v["user"]["id"], t.emu.state().bot_user_id.as_str());
    assert_eq!(
        events_of(&t, "PATCH", &format!("/guilds/{g}/members/@me")),
        ["GUILD_MEMBER_UPDATE"]
    );
    let e = &t.audit("?action_type=24").await[0];
    assert_eq!(e["reason"], "rename");
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/members/@me/nick"),
            json!({"nick": "Old API"}),
        )
        .await;
    assert_eq!((s, v), (200, json!({"nick": "Old API"})));
    let (_, m) = t
        .get(&format!(
            "/guilds/{g}/members/{}",
            t.emu.state().bot_user_id
        ))
        .await;
    assert_eq!(m["nick"], "Old API");
}

#[tokio::test]
async fn a_kick_needs_rank_and_is_audited() {
    let t = T::new().await;
    let g = t.g();
    let heidi = uid(&t, "heidi");
    let path = format!("/guilds/{g}/members/{heidi}");
    let (s, v) = t.call(Method::DELETE, &path, None, Some("spam")).await;
    assert_eq!((s, v), (204, Value::Null));
    assert_eq!(events_of(&t, "DELETE", &path), ["GUILD_MEMBER_REMOVE"]);
    let e = &t.audit("?action_type=20").await[0];
    assert_eq!(
        (e["target_id"].clone(), e["reason"].clone()),
        (json!(heidi), json!("spam"))
    );
    let (s, v) = t.get(&path).await;
    assert_eq!((s, err_code(&v)), (404, 10007));
    let (s, v) = t.delete(&path).await;
    assert_eq!((s, err_code(&v)), (404, 10007), "gone already");
    let ferris = uid(&t, "ferris");
    let (s, _) = t.delete(&format!("/guilds/{g}/members/{ferris}")).await;
    assert_eq!(s, 403, "never the owner");
    // Without KICK_MEMBERS.
    let t = T::non_admin(Permissions::VIEW_CHANNEL).await;
    let (s, _) = t
        .delete(&format!("/guilds/{}/members/{}", t.g(), uid(&t, "ivan")))
        .await;
    assert_eq!(s, 403);
}

#[tokio::test]
async fn prune_counts_and_removes_by_the_role_rule_in_discord_py_forms() {
    let t = T::new().await;
    let g = t.g();
    let member = t.role("Member");
    let (s, v) = t.get(&format!("/guilds/{g}/prune")).await;
    assert_eq!((s, v), (200, json!({"pruned": 0})), "everyone has a role");
    let (_, v) = t
        .get(&format!("/guilds/{g}/prune?days=30&include_roles={member}"))
        .await;
    assert_eq!(v, json!({"pruned": 2}), "heidi and ivan hold only Member");
    // discord.py: compute_prune_count as a string, include_roles as one "a, b" string.
    let contributor = t.role("Contributor");
    let (s, v) = t
        .call(
            Method::POST,
            &format!("/guilds/{g}/prune"),
            Some(json!({"days": 7, "compute_prune_count": "true",
                        "include_roles": format!("{member}, {contributor}")})),
            Some("spring%20cleaning"),
        )
        .await;
    assert_eq!((s, v), (200, json!({"pruned": 3})), "grace too");
    assert_eq!(
        events_of(&t, "POST", &format!("/guilds/{g}/prune")),
        ["GUILD_MEMBER_REMOVE"; 3]
    );
    let e = &t.audit("?action_type=21").await[0];
    assert_eq!(
        e["options"],
        json!({"delete_member_days": "7", "members_removed": "3"})
    );
    assert_eq!(e["reason"], "spring cleaning");
    let st = t.emu.state();
    assert!(st.guilds[0].member(&uid(&t, "heidi")).is_none());
    assert!(st.guilds[0].member(&uid(&t, "alice")).is_some());
    let (_, v) = t
        .post(
            &format!("/guilds/{g}/prune"),
            json!({"compute_prune_count": false, "include_roles": [member]}),
        )
        .await;
    assert_eq!(v, json!({"pruned": null}), "not computed");
    for bad in [
        json!({"days": 0}),
        json!({"days": 31}),
        json!({"compute_prune_count": "yes"}),
    ] {
        let (s, v) = t.post(&format!("/guilds/{g}/prune"), bad.clone()).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{bad}");
    }
    let t = T::non_admin(Permissions::KICK_MEMBERS).await;
    let (s, _) = t.post(&format!("/guilds/{}/prune", t.g()), json!({})).await;
    assert_eq!(s, 403, "MANAGE_GUILD too");
}
