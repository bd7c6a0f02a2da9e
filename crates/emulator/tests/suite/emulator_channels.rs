//! The emulator's channel behaviours, observed over real HTTP on loopback: forum tags
//! and fields, creation and category overwrites, positions, slowmode, the per-category
//! limit.

use crate::emulator_support;

use discord_emulator::default_state;
use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

fn is_snowflake(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| (17..=19).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
}

fn tag_names(c: &Value) -> Vec<&str> {
    c["available_tags"]
        .as_array()
        .unwrap_or_else(|| panic!("no available_tags: {c}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn forum_channels_keep_tags_and_their_defaults() {
    let t = T::new().await;
    let (s, f) = t
        .post(
            &format!("/guilds/{}/channels", t.g()),
            json!({"name": "Support", "type": 15, "flags": 16,
                   "available_tags": [
                       {"name": "bug", "emoji_name": "🐛"},
                       {"id": "123", "name": "question", "moderated": true}],
                   "default_reaction_emoji": {"emoji_id": null, "emoji_name": "👍"},
                   "default_sort_order": 1, "default_forum_layout": 2,
                   "default_thread_rate_limit_per_user": 60}),
        )
        .await;
    assert_eq!(s, 201, "{f}");
    let fid = f["id"].as_str().unwrap().to_owned();
    assert_eq!(tag_names(&f), ["bug", "question"]);
    let (bug, question) = (&f["available_tags"][0], &f["available_tags"][1]);
    assert!(
        is_snowflake(&bug["id"]) && is_snowflake(&question["id"]),
        "{f}"
    );
    assert_ne!(bug["id"], question["id"]);
    assert_eq!(
        *bug,
        json!({"id": bug["id"], "name": "bug", "moderated": false,
               "emoji_id": null, "emoji_name": "🐛"})
    );
    assert_eq!(question["moderated"], true);
    assert_eq!(
        f["default_reaction_emoji"],
        json!({"emoji_id": null, "emoji_name": "👍"})
    );
    assert_eq!(f["default_sort_order"], 1);
    assert_eq!(f["default_forum_layout"], 2);
    assert_eq!(f["flags"], 16, "REQUIRE_TAG");
    assert_eq!(f["default_thread_rate_limit_per_user"], 60);
    // Every read shows the same.
    assert_eq!(t.channel(&fid).await, f);
    let (_, all) = t.get(&format!("/guilds/{}/channels", t.g())).await;
    let listed = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == fid.as_str());
    assert_eq!(listed, Some(&f));
    let created = &t.audit(&format!("?action_type=10&target_id={fid}")).await[0];
    let tags_change = created["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "available_tags")
        .unwrap_or_else(|| panic!("{created}"));
    assert_eq!(tags_change["new_value"], f["available_tags"]);

    // An update sends the whole list: ids keep their tag, the rest are new,
    // what is left out is deleted.
    let bug_id = bug["id"].clone();
    let (s, f2) = t
        .patch(
            &format!("/channels/{fid}"),
            json!({"available_tags": [
                       {"id": bug_id, "name": "bug-report", "emoji_name": "🐞"},
                       {"name": "feature"}],
                   "default_reaction_emoji": null, "default_sort_order": 0,
                   "default_forum_layout": 1}),
        )
        .await;
    assert_eq!(s, 200, "{f2}");
    assert_eq!(tag_names(&f2), ["bug-report", "feature"]);
    assert_eq!(f2["available_tags"][0]["id"], bug_id);
    let feature_id = &f2["available_tags"][1]["id"];
    assert!(is_snowflake(feature_id) && *feature_id != bug_id && *feature_id != question["id"]);
    assert!(f2["default_reaction_emoji"].is_null());
    assert_eq!(f2["default_sort_order"], 0);
    assert_eq!(f2["default_forum_layout"], 1);
    let updated = &t.audit(&format!("?action_type=11&target_id={fid}")).await[0];
    let mut keys: Vec<&str> = updated["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "available_tags",
            "default_forum_layout",
            "default_reaction_emoji",
            "default_sort_order"
        ]
    );
    let change = |key: &str| {
        updated["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["key"] == key)
            .unwrap()
            .clone()
    };
    assert_eq!(change("available_tags")["old_value"], f["available_tags"]);
    assert_eq!(change("available_tags")["new_value"], f2["available_tags"]);
    assert_eq!(change("default_sort_order")["old_value"], 1);
    assert_eq!(change("default_sort_order")["new_value"], 0);
    assert!(
        change("default_reaction_emoji").get("new_value").is_none(),
        "reset"
    );

    // Sending the list as it is changes nothing and logs nothing.
    let before = t.audit("?action_type=11").await.len();
    let (s, f3) = t
        .patch(
            &format!("/channels/{fid}"),
            json!({"available_tags": f2["available_tags"]}),
        )
        .await;
    assert_eq!((s, &f3["available_tags"]), (200, &f2["available_tags"]));
    assert_eq!(t.audit("?action_type=11").await.len(), before);
    // Null empties the list.
    let (s, f4) = t
        .patch(&format!("/channels/{fid}"), json!({"available_tags": null}))
        .await;
    assert_eq!((s, &f4["available_tags"]), (200, &json!([])));
}

#[tokio::test]
async fn forum_fields_are_validated_and_ignored_where_they_do_not_apply() {
    let t = T::new().await;
    let path = format!("/guilds/{}/channels", t.g());
    let tags: Vec<Value> = (0..21).map(|i| json!({"name": format!("t{i}")})).collect();
    let long = "x".repeat(21);
    for (body, at, code) in [
        (
            json!({"available_tags": tags}),
            vec!["available_tags"],
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            json!({"available_tags": [{"name": ""}]}),
            vec!["available_tags", "0", "name"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"available_tags": [{"name": "ok"}, {"name": long}]}),
            vec!["available_tags", "1", "name"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            json!({"available_tags": [{"moderated": true}]}),
            vec!["available_tags", "0", "name"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            json!({"available_tags": [{"name": "a", "emoji_id": "x"}]}),
            vec!["available_tags", "0", "emoji_id"],
            "NUMBER_TYPE_COERCE",
        ),
        (
            json!({"available_tags": ["bug"]}),
            vec!["available_tags", "0"],
            "DICT_TYPE_CONVERT",
        ),
        (
            json!({"default_reaction_emoji": "👍"}),
            vec!["default_reaction_emoji"],
            "DICT_TYPE_CONVERT",
        ),
        (
            json!({"default_sort_order": 2}),
            vec!["default_sort_order"],
            "BASE_TYPE_CHOICES",
        ),
        (
            json!({"default_forum_layout": 3}),
            vec!["default_forum_layout"],
            "BASE_TYPE_CHOICES",
        ),
    ] {
        let mut body = body;
        body["name"] = json!("forum");
        body["type"] = json!(15);
        let (s, v) = t.post(&path, body.clone()).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{body}: {v}");
        let mut node = &v["errors"];
        for k in &at {
            node = &node[*k];
        }
        assert_eq!(node["_errors"][0]["code"], code, "{body}: {v}");
    }

    // Media channels: tags and defaults, but no layout (forum only).
    let (s, m) = t
        .post(
            &path,
            json!({"name": "clips", "type": 16, "flags": 16, "default_forum_layout": 2,
                   "available_tags": [{"name": "funny"}], "default_sort_order": 0}),
        )
        .await;
    assert_eq!(s, 201, "{m}");
    assert_eq!(tag_names(&m), ["funny"]);
    assert_eq!(m["default_sort_order"], 0);
    assert_eq!(m["flags"], 16);
    assert!(m.get("default_forum_layout").is_none(), "{m}");

    // Other types ignore them (as Discord ignores fields that do not apply),
    // REQUIRE_TAG included, even values that would be refused on a forum.
    let (s, c) = t
        .post(
            &path,
            json!({"name": "chat", "flags": 16, "available_tags": [{"name": ""}],
                   "default_sort_order": 9, "default_forum_layout": 2,
                   "default_reaction_emoji": {"emoji_name": "👍"}}),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(c["flags"], 0);
    for key in [
        "available_tags",
        "default_sort_order",
        "default_forum_layout",
        "default_reaction_emoji",
    ] {
        assert!(c.get(key).is_none(), "{key}: {c}");
    }
    let general = t.chan("general");
    let (s, c) = t
        .patch(
            &format!("/channels/{general}"),
            json!({"flags": 16, "available_tags": [{"name": "x"}]}),
        )
        .await;
    assert_eq!((s, &c["flags"]), (200, &json!(0)), "{c}");
    assert!(
        t.emu.state().guilds[0]
            .channels
            .iter()
            .all(|c| c.available_tags.is_empty() || c.kind == 15 || c.kind == 16)
    );

    // A state file from before these fields loads: a bare forum renders defaults.
    let mut st: Value = serde_json::to_value(t.emu.state()).unwrap();
    st["guilds"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "849075999999999999", "type": 15, "name": "old-forum"}));
    t.emu
        .set_state(serde_json::from_value(st).expect("old state loads"));
    let f = t.channel("849075999999999999").await;
    assert_eq!(f["available_tags"], json!([]));
    assert!(f["default_reaction_emoji"].is_null() && f["default_sort_order"].is_null());
    assert_eq!(f["default_forum_layout"], 0);
}

#[tokio::test]
async fn channel_create_normalises_copies_category_overwrites_and_goes_to_bottom() {
    let t = T::new().await;
    let g = t.g();
    let general = t.chan("General");
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "My Cool Channel!", "parent_id": general}),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(c["name"], "my-cool-channel");
    assert_eq!(c["position"], 3, "below general, off-topic, memes");
    let cat = t.channel(&general).await;
    assert_eq!(c["permission_overwrites"], cat["permission_overwrites"]);
    // Explicit overwrites are taken as they are; voice names keep their case.
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "Big Room", "type": 2, "parent_id": general, "permission_overwrites": []}),
        )
        .await;
    assert_eq!(s, 201);
    assert_eq!(c["name"], "Big Room");
    assert_eq!(c["position"], 2, "below Lounge and Gaming");
    assert_eq!(c["permission_overwrites"], json!([]));
    // Parent must be a category.
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "x", "parent_id": t.chan("general")}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"]["parent_id"]["_errors"][0]["code"],
        "CHANNEL_PARENT_INVALID_TYPE"
    );
}

#[tokio::test]
async fn category_overwrite_changes_follow_to_synced_children_only() {
    let t = T::new().await;
    let general = t.chan("General");
    let everyone = t.g();
    let (s, _) = t
        .put(
            &format!("/channels/{general}/permissions/{everyone}"),
            json!({"type": 0, "deny": "64"}),
        )
        .await;
    assert_eq!(s, 204);
    let cat = t.channel(&general).await;
    for name in ["general", "off-topic", "Lounge", "Gaming"] {
        let c = t.channel(&t.chan(name)).await;
        assert_eq!(
            c["permission_overwrites"], cat["permission_overwrites"],
            "{name} was synced"
        );
    }
    let memes = t.channel(&t.chan("memes")).await;
    assert_ne!(memes["permission_overwrites"], cat["permission_overwrites"]);
    // PATCH with permission_overwrites replaces the set and propagates too.
    let (s, _) = t
        .patch(
            &format!("/channels/{general}"),
            json!({"permission_overwrites": []}),
        )
        .await;
    assert_eq!(s, 200);
    let c = t.channel(&t.chan("general")).await;
    assert_eq!(c["permission_overwrites"], json!([]));
}

#[tokio::test]
async fn deleting_a_category_orphans_its_children() {
    let t = T::new().await;
    let help = t.chan("Help");
    let (s, c) = t
        .call(
            Method::DELETE,
            &format!("/channels/{help}"),
            None,
            Some("tidy"),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(c["id"], help);
    for name in ["help", "showcase"] {
        let c = t.channel(&t.chan(name)).await;
        assert_eq!(c["parent_id"], Value::Null);
        let entries = t
            .audit(&format!("?action_type=11&target_id={}", t.chan(name)))
            .await;
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0]["changes"][0]["key"], "parent_id");
    }
    let deleted = t.audit("?action_type=12").await;
    assert_eq!(deleted[0]["reason"], "tidy");
}

#[tokio::test]
async fn bulk_channel_positions() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/channels"),
            json!([
                {"id": t.chan("bot-spam"), "parent_id": t.chan("General")},
                {"id": t.chan("faq"), "parent_id": t.chan("Help")}
            ]),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 40009));
    let bot_spam = t.chan("bot-spam");
    let (s, _) = t
        .call(
            Method::PATCH,
            &format!("/guilds/{g}/channels"),
            Some(json!([
                {"id": bot_spam, "parent_id": t.chan("Staff"), "lock_permissions": true, "position": 5},
                {"id": t.chan("faq"), "position": 0}
            ])),
            Some("ignored here"),
        )
        .await;
    assert_eq!(s, 204);
    let c = t.channel(&bot_spam).await;
    let staff = t.channel(&t.chan("Staff")).await;
    assert_eq!(c["parent_id"], staff["id"]);
    assert_eq!(c["position"], 5);
    assert_eq!(c["permission_overwrites"], staff["permission_overwrites"]);
    let entries = t
        .audit(&format!("?action_type=11&target_id={bot_spam}"))
        .await;
    assert_eq!(entries.len(), 1);
    let keys: Vec<&str> = entries[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["position", "parent_id"]);
    assert!(entries[0].get("reason").is_none(), "route takes no reason");
    assert_eq!(
        t.audit("?action_type=13").await.len(),
        2,
        "locked overwrites"
    );
}

#[tokio::test]
async fn bulk_positions_refuse_entries_without_a_channel_id() {
    let t = T::new().await;
    let path = format!("/guilds/{}/channels", t.g());
    let general = t.chan("general");
    let before = t.channel(&general).await["position"].clone();
    for (entry, code) in [
        (json!({"id": null, "position": 3}), "BASE_TYPE_REQUIRED"),
        (json!({"position": 3}), "BASE_TYPE_REQUIRED"),
        (
            json!({"id": "general", "position": 3}),
            "NUMBER_TYPE_COERCE",
        ),
        (json!({"id": true, "position": 3}), "NUMBER_TYPE_COERCE"),
    ] {
        let body = json!([{"id": general, "position": 5}, entry]);
        let (s, v) = t.patch(&path, body).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{entry}: {v}");
        assert_eq!(v["errors"]["1"]["id"]["_errors"][0]["code"], code, "{v}");
        assert!(
            v["errors"].get("0").is_none(),
            "the good entry is fine: {v}"
        );
    }
    assert_eq!(
        t.channel(&general).await["position"],
        before,
        "nothing moved"
    );
}

/// §4.2: `default_thread_rate_limit_per_user` is set on creating an announcement channel,
/// but Modify Channel takes it only for text, forum and media channels.
#[tokio::test]
async fn announcement_thread_slowmode_is_set_on_create_only() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}"),
            json!({"features": ["COMMUNITY"], "rules_channel_id": t.chan("rules"),
                   "public_updates_channel_id": t.chan("mod-log"), "verification_level": 1,
                   "explicit_content_filter": 2}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let (s, news) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "news", "type": 5, "default_thread_rate_limit_per_user": 60}),
        )
        .await;
    assert_eq!(s, 201, "{news}");
    assert_eq!(news["default_thread_rate_limit_per_user"], 60);
    let id = news["id"].as_str().unwrap().to_owned();
    let (s, news) = t
        .patch(
            &format!("/channels/{id}"),
            json!({"default_thread_rate_limit_per_user": 120}),
        )
        .await;
    assert_eq!(s, 200, "{news}");
    assert_eq!(news["default_thread_rate_limit_per_user"], 60, "ignored");
    let general = t.chan("general");
    let (s, text) = t
        .patch(
            &format!("/channels/{general}"),
            json!({"default_thread_rate_limit_per_user": 120}),
        )
        .await;
    assert_eq!(
        (s, &text["default_thread_rate_limit_per_user"]),
        (200, &json!(120))
    );
}

#[tokio::test]
async fn overwrites_through_patch_yield_overwrite_entries() {
    let t = T::new().await;
    let showcase = t.chan("showcase");
    let g = t.g();
    let contributor = t.role("Contributor");
    let helper = t.role("Helper");
    // Before: @everyone deny send, Contributor allow send.
    let (s, _) = t
        .call(
            Method::PATCH,
            &format!("/channels/{showcase}"),
            Some(json!({"topic": "Show us", "permission_overwrites": [
                {"id": g, "type": 0, "deny": "2048", "allow": "0"},
                {"id": contributor, "type": 0, "allow": "2048", "deny": "64"},
                {"id": helper, "type": 0, "allow": "8192"}
            ]})),
            Some("ow"),
        )
        .await;
    assert_eq!(s, 200);
    let create = t.audit("?action_type=13").await;
    assert_eq!(create.len(), 1);
    assert_eq!(
        create[0]["options"],
        json!({"id": helper, "type": "0", "role_name": "Helper"})
    );
    assert_eq!(create[0]["reason"], "ow");
    let update = t.audit("?action_type=14").await;
    assert_eq!(update.len(), 1);
    assert_eq!(
        update[0]["changes"],
        json!([{"key": "deny", "old_value": "0", "new_value": "64"}])
    );
    assert_eq!(t.audit("?action_type=11").await.len(), 1, "topic");
    let (s, _) = t
        .delete(&format!("/channels/{showcase}/permissions/{helper}"))
        .await;
    assert_eq!(s, 204);
    let del = t.audit("?action_type=15").await;
    assert_eq!(del.len(), 1);
    assert_eq!(del[0]["target_id"], showcase);
}

#[tokio::test]
async fn category_holds_at_most_fifty_channels() {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    let help = g
        .channels
        .iter()
        .find(|c| c.name == "Help")
        .unwrap()
        .id
        .clone();
    let template = g
        .channels
        .iter()
        .find(|c| c.name == "help")
        .unwrap()
        .clone();
    for i in 0..48 {
        let mut c = template.clone();
        c.id = (900_000_000_000_000_000u64 + i).to_string();
        c.name = format!("filler-{i}");
        g.channels.push(c);
    }
    let t = T::with(st).await;
    let (s, v) = t
        .post(
            &format!("/guilds/{}/channels", t.g()),
            json!({"name": "fifty-one", "parent_id": help}),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"]["parent_id"]["_errors"][0]["code"],
        "CHANNEL_PARENT_MAX_CHANNELS"
    );
}
