//! AutoMod rules (§10.1).

use discord_emulator::{
    DISCORD_SYSTEM_USER_ID, LargeStateOptions, default_state, discord_mention_spam_rule,
    large_state,
};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry, with_bot_permissions};
use crate::emulator_support::{T, err_code, error_at};

fn rules_path(t: &T) -> String {
    format!("/guilds/{}/auto-moderation/rules", t.g())
}

fn keyword_rule(name: &str) -> Value {
    json!({
        "name": name, "event_type": 1, "trigger_type": 1,
        "trigger_metadata": {"keyword_filter": ["discord.gg/*"]},
        "actions": [{"type": 1}],
    })
}

/// A rule body of `trigger` type with its own event and a fitting action.
fn rule_of(trigger: u8) -> Value {
    let (event, metadata, action) = match trigger {
        4 => (1, json!({"presets": [1]}), json!({"type": 1})),
        5 => (1, json!({"mention_total_limit": 10}), json!({"type": 1})),
        6 => (2, json!({"keyword_filter": ["nitro"]}), json!({"type": 4})),
        _ => (1, json!({}), json!({"type": 1})),
    };
    json!({
        "name": format!("rule {trigger}"), "event_type": event, "trigger_type": trigger,
        "trigger_metadata": metadata, "actions": [action],
    })
}

#[tokio::test]
async fn a_keyword_rule_is_created_read_listed_and_audited() {
    let t = T::new().await;
    let path = rules_path(&t);
    let (mod_log, moderator, memes) = (t.chan("mod-log"), t.role("Moderator"), t.chan("memes"));
    let before = t.get(&path).await.1.as_array().unwrap().len();
    let (s, r) = t
        .call(
            Method::POST,
            &path,
            Some(json!({
                "name": "No scam links", "event_type": 1, "trigger_type": 1,
                "trigger_metadata": {
                    "keyword_filter": ["free nitro*", "*steamgift*"],
                    "regex_patterns": ["(?i)d[i1]sc[o0]rd\\.gift"],
                    "allow_list": ["discord.gift/official"],
                },
                "actions": [
                    {"type": 1, "metadata": {"custom_message": "No scam links here."}},
                    {"type": 2, "metadata": {"channel_id": mod_log}},
                    {"type": 3, "metadata": {"duration_seconds": 600}},
                ],
                "enabled": true,
                "exempt_roles": [moderator], "exempt_channels": [memes],
            })),
            Some("automod%20as%20code"),
        )
        .await;
    assert_eq!(s, 200, "create answers 200: {r}");
    assert_eq!(r["guild_id"], t.g().as_str());
    assert_eq!(r["creator_id"], t.emu.state().bot_user_id.as_str());
    assert_eq!(r["trigger_metadata"]["keyword_filter"][1], "*steamgift*");
    assert_eq!(
        r["trigger_metadata"]["allow_list"][0],
        "discord.gift/official"
    );
    assert_eq!(
        r["actions"][0]["metadata"]["custom_message"],
        "No scam links here."
    );
    assert_eq!(r["actions"][1]["metadata"]["channel_id"], mod_log.as_str());
    assert_eq!(r["actions"][2]["metadata"]["duration_seconds"], 600);
    assert_eq!(
        (r["enabled"].clone(), r["exempt_roles"][0].clone()),
        (json!(true), json!(moderator))
    );
    let id = r["id"].as_str().unwrap().to_owned();
    let (s, got) = t.get(&format!("{path}/{id}")).await;
    assert_eq!((s, &got), (200, &r), "read back as created");
    let (_, list) = t.get(&path).await;
    assert_eq!(list.as_array().unwrap().len(), before + 1);
    let e = last_entry(&t, 140).await;
    assert_eq!(
        (e["target_id"].clone(), e["reason"].clone()),
        (json!(id), json!("automod as code"))
    );
    assert_eq!(change(&e, "trigger_type"), Some(&json!(1)));
    assert_eq!(
        change(&e, "trigger_metadata").unwrap()["regex_patterns"][0],
        "(?i)d[i1]sc[o0]rd\\.gift"
    );
    // The page names the rule it refers to.
    let (_, page) = t
        .get(&format!("/guilds/{}/audit-logs?action_type=140", t.g()))
        .await;
    assert!(
        page["auto_moderation_rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == id.as_str())
    );
}

#[tokio::test]
async fn every_route_needs_manage_guild() {
    let t = T::with(with_bot_permissions(Permissions::VIEW_CHANNEL)).await;
    let path = rules_path(&t);
    let (s, v) = t.get(&path).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t.post(&path, keyword_rule("x")).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let t = T::with(with_bot_permissions(Permissions::MANAGE_GUILD)).await;
    let (s, v) = t.post(&rules_path(&t), keyword_rule("x")).await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn a_guild_holds_six_keyword_rules_and_one_of_each_other_type() {
    let mut st = default_state();
    st.guilds[0].auto_moderation_rules.clear();
    let t = T::with(st).await;
    let path = rules_path(&t);
    for i in 0..6 {
        let (s, v) = t.post(&path, keyword_rule(&format!("k{i}"))).await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = t.post(&path, keyword_rule("k6")).await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert_eq!(
        error_at(&v, &["trigger_type"]),
        "AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED"
    );
    for trigger in [3, 4, 5, 6] {
        let (s, v) = t.post(&path, rule_of(trigger)).await;
        assert_eq!(s, 200, "first of type {trigger}: {v}");
        let (s, v) = t.post(&path, rule_of(trigger)).await;
        assert_eq!(
            (s, error_at(&v, &["trigger_type"]).as_str()),
            (400, "AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED"),
            "second of type {trigger}"
        );
    }
    assert_eq!(t.emu.state().guilds[0].auto_moderation_rules.len(), 10);
}

#[tokio::test]
async fn trigger_metadata_is_held_to_discords_limits() {
    let t = T::new().await;
    let path = rules_path(&t);
    let with = |metadata: Value| {
        let mut b = keyword_rule("limits");
        b["trigger_metadata"] = metadata;
        b
    };
    let long = |n: usize| "a".repeat(n);
    for (metadata, at) in [
        (
            json!({"keyword_filter": vec!["w"; 1001]}),
            vec!["keyword_filter"],
        ),
        (
            json!({"keyword_filter": [long(61)]}),
            vec!["keyword_filter", "0"],
        ),
        (
            json!({"regex_patterns": vec!["a"; 11]}),
            vec!["regex_patterns"],
        ),
        (
            json!({"regex_patterns": ["ok", long(261)]}),
            vec!["regex_patterns", "1"],
        ),
        (json!({"allow_list": vec!["w"; 101]}), vec!["allow_list"]),
        (json!({"allow_list": [long(61)]}), vec!["allow_list", "0"]),
    ] {
        let (s, v) = t.post(&path, with(metadata.clone())).await;
        assert_eq!((s, err_code(&v)), (400, 50035), "{metadata}");
        assert!(
            !error_at(&v, &[&["trigger_metadata"][..], at.as_slice()].concat()).is_empty(),
            "{at:?}: {v}"
        );
    }
    // At the limits: accepted.
    let (s, v) = t
        .post(
            &path,
            with(
                json!({"keyword_filter": vec![long(60); 1000], "regex_patterns": vec!["^x$"; 10],
                        "allow_list": vec![long(60); 100]}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    // A regex must compile (Rust's flavour; look-around is not in it).
    for bad in ["(unclosed", "a{2,1}", "(?<=x)y", "(a)\\1"] {
        let (s, v) = t.post(&path, with(json!({"regex_patterns": [bad]}))).await;
        assert_eq!(
            (
                s,
                error_at(&v, &["trigger_metadata", "regex_patterns", "0"]).as_str()
            ),
            (400, "AUTO_MODERATION_INVALID_REGEX"),
            "{bad}"
        );
    }
    // Presets 1-3, an allow list of 1000 for preset rules.
    let preset = |metadata: Value| {
        json!({"name": "p", "event_type": 1, "trigger_type": 4, "trigger_metadata": metadata,
               "actions": [{"type": 1}]})
    };
    let (s, v) = t.post(&path, preset(json!({"presets": [4]}))).await;
    assert_eq!(
        error_at(&v, &["trigger_metadata", "presets", "0"]),
        "BASE_TYPE_CHOICES",
        "{s}"
    );
    let (s, v) = t
        .post(
            &path,
            preset(json!({"presets": [1], "allow_list": vec!["w"; 1001]})),
        )
        .await;
    assert_eq!(
        error_at(&v, &["trigger_metadata", "allow_list"]),
        "BASE_TYPE_MAX_LENGTH",
        "{s}"
    );
    let (s, v) = t
        .post(
            &path,
            preset(json!({"presets": [1, 2, 3], "allow_list": vec!["w"; 1000]})),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["trigger_metadata"]["presets"], json!([1, 2, 3]));
    // Preset and profile rules need their metadata.
    let mut b = preset(json!(null));
    b["name"] = json!("p2");
    let (s, v) = t.post(&path, b).await;
    assert_eq!(
        error_at(&v, &["trigger_metadata"]),
        "BASE_TYPE_REQUIRED",
        "{s}"
    );
    // Mention spam: at most 50 mentions.
    let mention = |metadata: Value| {
        json!({"name": "m", "event_type": 1, "trigger_type": 5, "trigger_metadata": metadata,
               "actions": [{"type": 1}]})
    };
    let (s, v) = t
        .post(&path, mention(json!({"mention_total_limit": 51})))
        .await;
    assert_eq!(
        error_at(&v, &["trigger_metadata", "mention_total_limit"]),
        "NUMBER_TYPE_MAX",
        "{s}"
    );
    let (s, v) = t
        .post(
            &path,
            mention(json!({"mention_total_limit": 50, "mention_raid_protection_enabled": true})),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["trigger_metadata"],
        json!({"mention_total_limit": 50, "mention_raid_protection_enabled": true})
    );
}

#[tokio::test]
async fn actions_follow_the_trigger_type_and_their_limits() {
    let t = T::new().await;
    let path = rules_path(&t);
    let with_actions = |trigger: u8, actions: Value| {
        let mut b = rule_of(trigger);
        b["actions"] = actions;
        b
    };
    let lounge = t.chan("Lounge");
    for (trigger, action, at) in [
        (
            1,
            json!({"type": 1, "metadata": {"custom_message": "x".repeat(151)}}),
            vec!["metadata", "custom_message"],
        ),
        (
            1,
            json!({"type": 2, "metadata": {"channel_id": lounge}}),
            vec!["metadata", "channel_id"],
        ),
        (
            1,
            json!({"type": 2, "metadata": {"channel_id": "123456789012345678"}}),
            vec!["metadata", "channel_id"],
        ),
        (1, json!({"type": 2}), vec!["metadata", "channel_id"]),
        (
            1,
            json!({"type": 3, "metadata": {"duration_seconds": 2_419_201}}),
            vec!["metadata", "duration_seconds"],
        ),
        (
            3,
            json!({"type": 3, "metadata": {"duration_seconds": 60}}),
            vec!["type"],
        ),
        (
            4,
            json!({"type": 3, "metadata": {"duration_seconds": 60}}),
            vec!["type"],
        ),
        (1, json!({"type": 4}), vec!["type"]),
        (6, json!({"type": 1}), vec!["type"]),
        (1, json!({"type": 9}), vec!["type"]),
    ] {
        let (s, v) = t
            .post(&path, with_actions(trigger, json!([action.clone()])))
            .await;
        let at = [&["actions", "0"][..], at.as_slice()].concat();
        assert_eq!(s, 400, "{action} on trigger {trigger}");
        assert!(!error_at(&v, &at).is_empty(), "{at:?}: {v}");
    }
    let (s, v) = t.post(&path, with_actions(1, json!([]))).await;
    assert_eq!(
        (s, error_at(&v, &["actions"]).as_str()),
        (400, "BASE_TYPE_MIN_LENGTH")
    );
    let (s, v) = t
        .post(&path, with_actions(1, json!(vec![json!({"type": 1}); 6])))
        .await;
    assert_eq!(
        (s, error_at(&v, &["actions"]).as_str()),
        (400, "BASE_TYPE_MAX_LENGTH")
    );
    // Four weeks is the longest timeout; mention-spam rules may time out too.
    let (s, v) = t
        .post(
            &path,
            with_actions(
                5,
                json!([{"type": 3, "metadata": {"duration_seconds": 2_419_200}}]),
            ),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    // Profile rules run on member updates and block member interaction.
    let (s, v) = t.post(&path, rule_of(6)).await;
    assert_eq!((s, v["event_type"].clone()), (200, json!(2)), "{v}");
    let mut wrong_event = rule_of(1);
    wrong_event["event_type"] = json!(2);
    let (s, v) = t.post(&path, wrong_event).await;
    assert_eq!(
        (s, error_at(&v, &["event_type"]).as_str()),
        (400, "BASE_TYPE_CHOICES")
    );
}

#[tokio::test]
async fn a_timeout_action_needs_moderate_members_too() {
    let timeout = {
        let mut b = keyword_rule("timeout");
        b["actions"] = json!([{"type": 3, "metadata": {"duration_seconds": 60}}]);
        b
    };
    let t = T::with(with_bot_permissions(Permissions::MANAGE_GUILD)).await;
    let (s, v) = t.post(&rules_path(&t), timeout.clone()).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    assert!(
        t.emu.state().guilds[0]
            .auto_moderation_rules
            .iter()
            .all(|r| r.name != "timeout")
    );
    let moderate = Permissions::from_name("moderate_members").unwrap();
    let t = T::with(with_bot_permissions(Permissions::MANAGE_GUILD | moderate)).await;
    let (s, v) = t.post(&rules_path(&t), timeout).await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test]
async fn exempt_lists_are_bounded_and_name_the_guilds_own() {
    let t = T::new().await;
    let path = rules_path(&t);
    let st = t.emu.state();
    let g = &st.guilds[0];
    let body = |roles: Value, channels: Value| {
        let mut b = keyword_rule("exempt");
        b["exempt_roles"] = roles;
        b["exempt_channels"] = channels;
        b
    };
    let many = |n: usize| {
        (0..n)
            .map(|i| (1_000_000_000_000_000u64 + i as u64).to_string())
            .collect::<Vec<_>>()
    };
    let (s, v) = t.post(&path, body(json!(many(21)), json!([]))).await;
    assert_eq!(
        (s, error_at(&v, &["exempt_roles"]).as_str()),
        (400, "BASE_TYPE_MAX_LENGTH")
    );
    let (s, v) = t.post(&path, body(json!([]), json!(many(51)))).await;
    assert_eq!(
        (s, error_at(&v, &["exempt_channels"]).as_str()),
        (400, "BASE_TYPE_MAX_LENGTH")
    );
    let (s, v) = t
        .post(&path, body(json!(["123456789012345678"]), json!([])))
        .await;
    assert_eq!(
        (s, error_at(&v, &["exempt_roles", "0"]).as_str()),
        (400, "ROLE_NOT_FOUND")
    );
    let (s, v) = t.post(&path, body(json!([]), json!([g.id]))).await;
    assert_eq!(
        (s, error_at(&v, &["exempt_channels", "0"]).as_str()),
        (400, "CHANNEL_NOT_FOUND")
    );
    let roles: Vec<&str> = g.roles.iter().map(|r| r.id.as_str()).take(9).collect();
    let channels: Vec<&str> = g.channels.iter().map(|c| c.id.as_str()).collect();
    let (s, v) = t.post(&path, body(json!(roles), json!(channels))).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["exempt_channels"].as_array().unwrap().len(),
        g.channels.len()
    );
}

#[tokio::test]
async fn a_rule_changes_in_place_but_never_its_trigger_type() {
    let t = T::new().await;
    let path = rules_path(&t);
    let (_, r) = t.post(&path, keyword_rule("edit me")).await;
    let one = format!("{path}/{}", r["id"].as_str().unwrap());
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(json!({"enabled": true, "name": "Edited",
                        "trigger_metadata": {"keyword_filter": ["spam*"]}})),
            Some("turned%20on"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["name"].clone(), v["enabled"].clone()),
        (json!("Edited"), json!(true))
    );
    assert_eq!(
        v["trigger_metadata"]["keyword_filter"],
        json!(["spam*"]),
        "replaced whole"
    );
    assert_eq!(v["actions"], r["actions"], "what was not sent stays");
    let e = last_entry(&t, 141).await;
    assert_eq!(e["reason"], "turned on");
    let enabled = e["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "enabled")
        .unwrap();
    assert_eq!(
        (enabled["old_value"].clone(), enabled["new_value"].clone()),
        (json!(false), json!(true))
    );
    // The trigger type is the rule's: another is refused, the same is nothing.
    let (s, v) = t.patch(&one, json!({"trigger_type": 3})).await;
    assert_eq!(
        (s, error_at(&v, &["trigger_type"]).as_str()),
        (400, "AUTO_MODERATION_TRIGGER_TYPE_IMMUTABLE")
    );
    let (s, _) = t
        .patch(&one, json!({"trigger_type": 1, "name": "Same type"}))
        .await;
    assert_eq!(s, 200);
    // Actions are checked against the rule's trigger type on modify too.
    let (s, v) = t.patch(&one, json!({"actions": [{"type": 4}]})).await;
    assert_eq!(
        (s, error_at(&v, &["actions", "0", "type"]).as_str()),
        (400, "AUTO_MODERATION_ACTION_NOT_ALLOWED")
    );
    let (s, v) = t
        .patch(
            &format!("{path}/123456789012345678"),
            json!({"enabled": false}),
        )
        .await;
    assert_eq!(
        (s, v["message"].clone()),
        (404, json!("Unknown Auto Moderation Rule"))
    );
}

#[tokio::test]
async fn a_deleted_rule_is_gone_and_logged() {
    let t = T::new().await;
    let path = rules_path(&t);
    let (_, r) = t.post(&path, keyword_rule("short lived")).await;
    let one = format!("{path}/{}", r["id"].as_str().unwrap());
    let (s, v) = t.call(Method::DELETE, &one, None, Some("cleanup")).await;
    assert_eq!((s, v), (204, Value::Null));
    let (s, _) = t.get(&one).await;
    assert_eq!(s, 404);
    let e = last_entry(&t, 142).await;
    assert_eq!(
        (e["target_id"].clone(), e["reason"].clone()),
        (r["id"].clone(), json!("cleanup"))
    );
    assert_eq!(change(&e, "name"), Some(&json!("short lived")));
}

#[tokio::test]
async fn a_community_guild_carries_the_mention_spam_rule_discord_made() {
    let st = large_state(LargeStateOptions {
        roles: 20,
        channels: 40,
        webhooks: 4,
        members: 12,
        community: true,
    });
    let t = T::with(st).await;
    let path = rules_path(&t);
    let (_, list) = t.get(&path).await;
    let discords: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["trigger_type"] == 5)
        .collect();
    assert_eq!(discords.len(), 1, "{list}");
    let rule = discords[0];
    assert_eq!(
        rule["creator_id"], DISCORD_SYSTEM_USER_ID,
        "made by Discord, not the bot"
    );
    assert_ne!(rule["creator_id"], t.emu.state().bot_user_id.as_str());
    assert_eq!(rule["enabled"], true);
    // It takes the one mention-spam slot: matched, never duplicated.
    let (s, v) = t.post(&path, rule_of(5)).await;
    assert_eq!(
        (s, error_at(&v, &["trigger_type"]).as_str()),
        (400, "AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED")
    );
    // And it can be edited like any rule.
    let (s, v) = t
        .patch(
            &format!("{path}/{}", rule["id"].as_str().unwrap()),
            json!({"enabled": false}),
        )
        .await;
    assert_eq!(
        (s, v["enabled"].clone(), v["creator_id"].clone()),
        (200, json!(false), json!(DISCORD_SYSTEM_USER_ID))
    );
    // The builder is public, for states that make their own community guilds.
    assert_eq!(discord_mention_spam_rule("1".into()).trigger_type, 5);
}
