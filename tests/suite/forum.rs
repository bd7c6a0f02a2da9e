//! Forum and media channels end to end over HTTP against the emulator: tags, the default
//! reaction, sort order, layout, REQUIRE_TAG and thread slowmode through plan, apply,
//! export and drift; a tag renamed with `previous_names` keeps its id.

use crate::common;

use common::{GuildNames, Harness};
use discord_emulator::state::Channel as EmuChannel;
use serde_json::{Value, json};

const REQUIRE_TAG: u64 = 1 << 4;
/// Another channel flag (HIDE_MEDIA_DOWNLOAD_OPTIONS), which guildctl must keep.
const HIDE_MEDIA_DOWNLOAD_OPTIONS: u64 = 1 << 15;
const CUSTOM_EMOJI: &str = "123456789012345678";

const FORUM: &str = r#"version: 1
channels:
  - name: Help
    type: category
    channels:
      - name: support
        type: forum
        topic: Ask here
        tags:
          - { name: bug, emoji: "🐛" }
          - { name: question }
          - { name: solved, moderated: true }
          - { name: ferris, emoji: { id: "123456789012345678", name: ferris } }
        default_reaction: "👍"
        sort_order: creation_date
        layout: gallery
        require_tag: true
        default_thread_slowmode: 60
      - name: clips
        type: media
        tags: [{ name: video }]
        default_reaction: { id: "123456789012345678" }
        sort_order: latest_activity
"#;

fn channel(h: &Harness, name: &str) -> EmuChannel {
    h.guild().channel_named(name).clone()
}

fn tag_ids(c: &EmuChannel) -> Vec<(String, String)> {
    c.available_tags
        .iter()
        .map(|t| (t.name.clone(), t.id.clone()))
        .collect()
}

fn id_of(tags: &[(String, String)], name: &str) -> String {
    tags.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("tag {name} in {tags:?}"))
        .1
        .clone()
}

async fn plan_is_empty(h: &Harness, manifest: &str) {
    let plan = h
        .run(&["plan", "-f", manifest, "--detailed-exitcode"])
        .await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);
}

/// A channel of the emulator's state, from the JSON Discord would send.
fn emu_channel(v: Value) -> EmuChannel {
    serde_json::from_value(v).expect("a channel")
}

#[tokio::test]
async fn forum_settings_apply_then_plan_to_zero() {
    let h = Harness::start().await;
    let m = h.manifest("forum.yaml", FORUM);
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(0);
    for shown in [
        "tags:",
        "bug 🐛",
        "solved (moderated)",
        "sort_order: \"creation_date\"",
        "layout: \"gallery\"",
        "require_tag: true",
    ] {
        assert!(plan.stdout.contains(shown), "{shown}\n{}", plan.stdout);
    }
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);

    let support = channel(&h, "support");
    assert_eq!(support.kind, 15);
    let tags: Vec<(&str, bool, Option<&str>, Option<&str>)> = support
        .available_tags
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.moderated,
                t.emoji_id.as_deref(),
                t.emoji_name.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        tags,
        [
            ("bug", false, None, Some("🐛")),
            ("question", false, None, None),
            ("solved", true, None, None),
            // Discord keeps a custom emoji by id alone.
            ("ferris", false, Some(CUSTOM_EMOJI), None),
        ]
    );
    let reaction = support.default_reaction_emoji.clone().unwrap();
    assert_eq!(
        (reaction.emoji_id, reaction.emoji_name.as_deref()),
        (None, Some("👍"))
    );
    assert_eq!(support.default_sort_order, Some(1));
    assert_eq!(support.default_forum_layout, 2);
    assert_eq!(support.flags, REQUIRE_TAG);
    assert_eq!(support.default_thread_rate_limit_per_user, Some(60));
    assert_eq!(support.topic.as_deref(), Some("Ask here"));

    let clips = channel(&h, "clips");
    assert_eq!(clips.kind, 16);
    assert_eq!(tag_ids(&clips)[0].0, "video");
    let reaction = clips.default_reaction_emoji.clone().unwrap();
    assert_eq!(reaction.emoji_id.as_deref(), Some(CUSTOM_EMOJI));
    assert_eq!(clips.default_sort_order, Some(0));
    assert_eq!(clips.flags, 0);

    // Discord's create route takes no flags: REQUIRE_TAG is set by an update of the new
    // forum, after the create.
    let writes = h.writes();
    let create = writes
        .iter()
        .position(|r| r.method == "POST" && r.body.as_ref().is_some_and(|b| b["name"] == "support"))
        .expect("the forum is created");
    assert!(writes[create].body.as_ref().unwrap().get("flags").is_none());
    let flags = writes
        .iter()
        .position(|r| r.method == "PATCH" && r.path.ends_with(&format!("/channels/{}", support.id)))
        .expect("the flags are set");
    assert!(flags > create);
    assert_eq!(writes[flags].body, Some(json!({"flags": REQUIRE_TAG})));

    h.emu.clear_requests();
    plan_is_empty(&h, m).await;
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_tag_renamed_with_previous_names_keeps_its_id() {
    let h = Harness::start().await;
    let before = "version: 1
channels:
  - name: ideas
    type: forum
    tags: [{ name: bug }, { name: idea }]
";
    let m = h.manifest("forum.yaml", before);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let first = tag_ids(&channel(&h, "ideas"));

    // An edit and a rename keep their ids; a new tag gets one from Discord.
    let renamed = r#"version: 1
channels:
  - name: ideas
    type: forum
    tags:
      - { name: bug, emoji: "🐞", moderated: true }
      - { name: feature-request, previous_names: [idea] }
      - { name: wontfix }
"#;
    h.manifest("forum.yaml", renamed);
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("- idea"), "{}", plan.stdout);
    // A rename says it is one, on its own line; a new tag does not.
    assert!(
        plan.stdout
            .contains("+ feature-request (renamed from idea; its posts keep it)"),
        "{}",
        plan.stdout
    );
    assert!(!plan.stdout.contains("wontfix (renamed"), "{}", plan.stdout);
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let second = tag_ids(&channel(&h, "ideas"));
    assert_eq!(id_of(&second, "bug"), id_of(&first, "bug"));
    assert_eq!(id_of(&second, "feature-request"), id_of(&first, "idea"));
    let new = id_of(&second, "wontfix");
    assert!(first.iter().all(|(_, id)| *id != new));
    let sent = h
        .writes()
        .into_iter()
        .rev()
        .find(|r| r.method == "PATCH")
        .and_then(|r| r.body)
        .unwrap();
    assert_eq!(
        sent["available_tags"][1]["id"],
        json!(id_of(&first, "idea"))
    );
    assert!(sent["available_tags"][2].get("id").is_none(), "{sent}");
    plan_is_empty(&h, m).await;

    // Without previous_names a new name is a new tag: the old one is deleted and the
    // new one gets another id (posts lose the old tag).
    let replaced = "version: 1
channels:
  - name: ideas
    type: forum
    tags: [{ name: bug, emoji: \"🐞\", moderated: true }, { name: enhancement }, { name: wontfix }]
";
    h.manifest("forum.yaml", replaced);
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout
            .contains("tag `feature-request` of `ideas` is deleted"),
        "{}",
        plan.stdout
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let third = tag_ids(&channel(&h, "ideas"));
    let enhancement = id_of(&third, "enhancement");
    assert!(second.iter().all(|(_, id)| *id != enhancement));
    assert_eq!(id_of(&third, "wontfix"), new);
    plan_is_empty(&h, m).await;
}

/// A guild whose forum and media channels were set up by hand, with every kind of value:
/// a custom and a standard emoji, no reaction, a sort order and layout never set, another
/// channel flag beside REQUIRE_TAG.
fn hand_made_forums() -> discord_emulator::State {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    g.channels.push(emu_channel(json!({
        "id": "950000000000000001", "type": 15, "name": "questions", "position": 5,
        "topic": "Ask away", "flags": REQUIRE_TAG, "rate_limit_per_user": 0,
        "default_thread_rate_limit_per_user": 30,
        "available_tags": [
            {"id": "950000000000000011", "name": "rust", "moderated": false,
             "emoji_id": CUSTOM_EMOJI, "emoji_name": null},
            {"id": "950000000000000012", "name": "answered", "moderated": true,
             "emoji_id": null, "emoji_name": "✅"},
        ],
        "default_reaction_emoji": {"emoji_id": null, "emoji_name": "🦀"},
        "default_sort_order": 0,
        "default_forum_layout": 1,
    })));
    g.channels.push(emu_channel(json!({
        "id": "950000000000000002", "type": 16, "name": "gallery", "position": 6,
        "flags": HIDE_MEDIA_DOWNLOAD_OPTIONS, "rate_limit_per_user": 0,
        "available_tags": [],
    })));
    g.channels.push(emu_channel(json!({
        "id": "950000000000000003", "type": 15, "name": "empty-forum", "position": 7,
        "flags": 0, "rate_limit_per_user": 0,
    })));
    state
}

#[tokio::test]
async fn export_of_forum_settings_plans_back_to_no_changes() {
    let h = Harness::with_state(Some(hand_made_forums())).await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let path = h.dir.path().join("exported.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "# yaml-language-server: $schema={}",
            guildctl::manifest::SCHEMA_ID
        )
    );
    for written in [
        "require_tag: true",
        "name: answered",
        "moderated: true",
        "sort_order: latest_activity",
        "layout: list",
        "default_reaction: 🦀",
        "default_thread_slowmode: 30",
    ] {
        assert!(text.contains(written), "{written}\n{text}");
    }
    let p = path.to_str().unwrap();
    h.run(&["validate", "-f", p]).await.assert_code(0);
    h.emu.clear_requests();
    plan_is_empty(&h, p).await;
    h.run(&["apply", "-f", p, "--yes"]).await.assert_code(0);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn require_tag_keeps_the_other_channel_flags() {
    let h = Harness::with_state(Some(hand_made_forums())).await;
    let on = "version: 1
channels:
  - name: gallery
    type: media
    tags: [{ name: art }]
    require_tag: true
";
    let m = h.manifest("media.yaml", on);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert_eq!(
        channel(&h, "gallery").flags,
        HIDE_MEDIA_DOWNLOAD_OPTIONS | REQUIRE_TAG
    );
    plan_is_empty(&h, m).await;
    h.manifest(
        "media.yaml",
        &on.replace("require_tag: true", "require_tag: false"),
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert_eq!(channel(&h, "gallery").flags, HIDE_MEDIA_DOWNLOAD_OPTIONS);
    plan_is_empty(&h, m).await;
}

#[tokio::test]
async fn forum_fields_left_out_are_not_managed() {
    let h = Harness::with_state(Some(hand_made_forums())).await;
    let before = channel(&h, "questions");
    // Only the topic is managed; tags, reaction, order, layout and flags are left alone.
    let m = h.manifest(
        "forum.yaml",
        "version: 1\nchannels:\n  - { name: questions, type: forum, topic: New topic }\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let patch = h
        .writes()
        .into_iter()
        .find(|r| r.method == "PATCH")
        .unwrap();
    assert_eq!(patch.body, Some(json!({"topic": "New topic"})));
    let after = channel(&h, "questions");
    assert_eq!(after.topic.as_deref(), Some("New topic"));
    assert_eq!(after.available_tags, before.available_tags);
    assert_eq!(after.default_reaction_emoji, before.default_reaction_emoji);
    assert_eq!(after.flags, before.flags);
    // `tags` unmanaged with live tags: require_tag is fine.
    h.manifest(
        "forum.yaml",
        "version: 1\nchannels:\n  - { name: questions, type: forum, topic: New topic, require_tag: true }\n",
    );
    plan_is_empty(&h, m).await;
}

#[tokio::test]
async fn require_tag_on_a_forum_left_without_tags_is_refused() {
    let h = Harness::with_state(Some(hand_made_forums())).await;
    for (name, why) in [
        (
            "empty-forum",
            "it has no tags live and `tags` is not declared",
        ),
        ("brand-new", "it is new and `tags` is not declared"),
    ] {
        let m = h.manifest(
            "forum.yaml",
            &format!(
                "version: 1\nchannels:\n  - {{ name: {name}, type: forum, require_tag: true }}\n"
            ),
        );
        h.emu.clear_requests();
        let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
        plan.assert_code(1);
        let said = format!("`{name}` requires a tag on every post, but {why}");
        assert!(plan.stderr.contains(&said), "{}", plan.stderr);
        assert!(h.writes().is_empty());
    }
}

#[tokio::test]
async fn drift_reports_a_hand_edit_of_the_tags() {
    let h = Harness::with_state(Some(hand_made_forums())).await;
    h.run(&["export", "-o", "guild.yaml"]).await.assert_code(0);
    let p = h.dir.path().join("guild.yaml");
    let p = p.to_str().unwrap();
    h.run(&["drift", "-f", p]).await.assert_code(0);
    // Someone renames a tag and changes the sort order in Discord.
    let res = reqwest::Client::new()
        .patch(format!("{}/channels/950000000000000001", h.emu.api_base))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .json(&json!({
            "available_tags": [
                {"id": "950000000000000011", "name": "rustlang", "emoji_id": CUSTOM_EMOJI},
                {"id": "950000000000000012", "name": "answered", "moderated": true, "emoji_name": "✅"},
            ],
            "default_sort_order": 1,
        }))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    let drift = h.run(&["drift", "-f", p]).await;
    drift.assert_code(2);
    for shown in ["tags", "rustlang", "sort_order"] {
        assert!(drift.stdout.contains(shown), "{shown}\n{}", drift.stdout);
    }
    // Applying the manifest puts it back, the tag under its old id.
    h.run(&["apply", "-f", p, "--yes"]).await.assert_code(0);
    let tags = tag_ids(&channel(&h, "questions"));
    assert_eq!(id_of(&tags, "rust"), "950000000000000011");
    plan_is_empty(&h, p).await;
}

/// `default_thread_slowmode`: changed in place on text, forum and media channels; on an
/// existing announcement channel Discord ignores a change (it is set only on create), so
/// the plan refuses one rather than send it on every apply.
#[tokio::test]
async fn thread_slowmode_of_an_announcement_channel_is_set_only_on_create() {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    g.features.push("NEWS".into());
    g.channels.push(emu_channel(json!({
        "id": "950000000000000004", "type": 5, "name": "news", "position": 8,
        "flags": 0, "default_thread_rate_limit_per_user": 30,
    })));
    let h = Harness::with_state(Some(state)).await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - { name: news, type: announcement, default_thread_slowmode: 60 }\n",
    );
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr
            .contains("Discord sets only when the channel is created"),
        "{}",
        plan.stderr
    );
    assert!(
        plan.stderr.contains("default_thread_slowmode: 30"),
        "{}",
        plan.stderr
    );
    // The live value plans to nothing; a new announcement channel gets it on create, and a
    // text channel's changes in place.
    h.manifest(
        "m.yaml",
        "version: 1\nchannels:
  - { name: news, type: announcement, default_thread_slowmode: 30 }
  - { name: releases, type: announcement, default_thread_slowmode: 120 }
  - { name: bot-spam, default_thread_slowmode: 90 }
",
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert_eq!(
        channel(&h, "releases").default_thread_rate_limit_per_user,
        Some(120)
    );
    assert_eq!(
        channel(&h, "bot-spam").default_thread_rate_limit_per_user,
        Some(90)
    );
    plan_is_empty(&h, m).await;
}
