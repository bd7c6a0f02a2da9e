//! Channel flags and channel followers (issue 33, point 6) over HTTP against the emulator:
//! `spoiler` and `hide_media_download_options` by name, applied and converged, a spoiler
//! channel that is age-restricted refused at the manifest line and at plan; `follows`
//! followed into a channel, an unlisted follow removed, a followed channel that is not an
//! announcement channel and a channel without `manage_webhooks` refused before any call,
//! a follow added by hand blamed on who did it, the export round trip, the rehearsal's
//! copy, and `extends:`.

use crate::common::Harness;
use crate::common::guild::{GuildNames, perms};
use discord_emulator::State;
use discord_emulator::state::BotToken;
use serde_json::{Value, json};

const HIDE_MEDIA_DOWNLOAD_OPTIONS: u64 = 1 << 15;
const IS_SPOILER_CHANNEL: u64 = 1 << 21;
const HUMAN_TOKEN: &str = "human-owner-token-for-channel-data-tests";
/// The channel the default guild's follower webhook follows (in a guild the bot is not in).
const RUST_BLOG: &str = "273541522815713281";

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

/// The default guild, a copy of it the bot is in too, whose `general` is an announcement
/// channel (what the tests follow), and the owner able to act by hand.
fn two_guilds() -> (State, String) {
    let mut st = discord_emulator::with_guild_copies(discord_emulator::default_state(), 2);
    let owner = st.guilds[0].owner_id.clone();
    st.tokens.push(BotToken {
        token: HUMAN_TOKEN.into(),
        user_id: owner,
    });
    let other = &mut st.guilds[1];
    let at = other
        .channels
        .iter()
        .position(|c| c.name == "general")
        .expect("general");
    other.channels[at].kind = 5;
    let news = other.channels[at].id.clone();
    (st, news)
}

const FLAGS: &str = "version: 1
channels:
  - name: Help
    type: category
    channels:
      - { name: help, spoiler: true }
      - { name: art, type: media, hide_media_download_options: true, spoiler: true }
";

#[tokio::test]
async fn flags_are_set_by_name_kept_apart_from_others_and_converge() {
    let h = Harness::start().await;
    // A flag the manifest does not name stays as it is.
    h.arrange(|g| g.channel("Help/help").flags = 1 << 6);
    let m = h.manifest("m.yaml", FLAGS);
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let fields = |name: &str| -> Vec<Value> {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["object"]["name"].as_str().unwrap().contains(name))
            .flat_map(|c| c["fields"].as_array().unwrap().clone())
            .collect()
    };
    let help = fields("help");
    assert_eq!(help.len(), 1, "{plan:#}");
    assert_eq!(help[0]["field"], "spoiler");
    assert_eq!(help[0]["api"], "flags");
    assert_eq!(
        (&help[0]["before"], &help[0]["after"]),
        (&json!(false), &json!(true))
    );
    let art: Vec<Value> = fields("art");
    for f in ["spoiler", "hide_media_download_options"] {
        assert!(art.iter().any(|c| c["field"] == f), "{f}: {plan:#}");
    }
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    assert_eq!(
        g.channel_named("Help/help").flags,
        (1 << 6) | IS_SPOILER_CHANNEL
    );
    assert_eq!(
        g.channel_named("Help/art").flags,
        IS_SPOILER_CHANNEL | HIDE_MEDIA_DOWNLOAD_OPTIONS,
        "both flags of a new channel in one value"
    );
    let update = g
        .audit_log
        .iter()
        .find(|e| e.action_type == 11 && e.changes.iter().any(|c| c.key == "flags"))
        .expect("audited");
    assert!(
        update
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl")),
        "{update:#?}"
    );
    assert_eq!(h.plan_json(m).await["changes"], json!([]));

    // Turned off by name: the other bit stays.
    let off = h.manifest(
        "off.yaml",
        &FLAGS.replace("help, spoiler: true", "help, spoiler: false"),
    );
    h.run(&["apply", "-f", off.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    assert_eq!(h.guild().channel_named("Help/help").flags, 1 << 6);
}

#[tokio::test]
async fn a_spoiler_channel_that_is_age_restricted_is_refused_at_the_line_and_at_plan() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1
channels:
  - name: Help
    type: category
    channels:
      - name: help
        nsfw: true
        spoiler: true
      - { name: voice, type: voice, hide_media_download_options: true }
",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("m.yaml:8:"), "{said}");
    assert!(
        said.contains("both a spoiler channel and age-restricted"),
        "{said}"
    );
    assert!(
        said.contains("`hide_media_download_options` does not apply to a voice channel"),
        "{said}"
    );

    // Live nsfw, and a manifest that asks for a spoiler alone: refused before any call.
    h.arrange(|g| g.channel("Help/help").nsfw = true);
    let m = h.manifest(
        "live.yaml",
        "version: 1
channels:
  - name: Help
    type: category
    channels:
      - { name: help, spoiler: true }
",
    );
    h.emu.clear_requests();
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("both a spoiler channel and age-restricted"),
        "{all}"
    );
    assert!(
        all.contains("live.yaml:6"),
        "placed at the manifest line: {all}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

fn follows_manifest(into: &str, ids: &[&str]) -> String {
    let list: Vec<String> = ids
        .iter()
        .map(|id| format!("          - {{ channel: \"{id}\" }}\n"))
        .collect();
    format!(
        "version: 1
channels:
  - name: General
    type: category
    channels:
      - name: {into}
        follows:
{}",
        list.concat()
    )
}

#[tokio::test]
async fn a_follow_is_made_converges_and_an_unlisted_one_is_removed() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    let m = h.manifest("m.yaml", &follows_manifest("general", &[&news]));
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    let plan = h.plan_json(m).await;
    // The seven reads, and the followed channel and its guild (not followed yet).
    let reads = h.reads();
    assert_eq!(reads.len(), 9, "{reads:#?}");
    assert!(
        reads
            .iter()
            .any(|r| r.ends_with(&format!("/channels/{news}"))),
        "{reads:#?}"
    );
    let changes = plan["changes"].as_array().unwrap();
    let made = changes
        .iter()
        .find(|c| c["action"] == "create")
        .unwrap_or_else(|| panic!("{plan:#}"));
    assert_eq!(made["object"]["kind"], "webhook");
    assert_eq!(made["object"]["name"], "Ferris Fans 2 #general", "{made:#}");
    assert_eq!(made["fields"][0]["field"], "follows");
    let gone = changes
        .iter()
        .find(|c| c["action"] == "delete")
        .unwrap_or_else(|| panic!("{plan:#}"));
    assert_eq!(gone["object"]["name"], "Rust Blog #announcements");
    assert_eq!(gone["source"], "channels[0].channels[0].follows");
    // The deletion gate counts the unfollow as a webhook deletion.
    h.run(&["apply", "-f", m, "--yes", "--allow-deletes", "1"])
        .await
        .assert_code(0);
    let g = h.guild();
    let general = g.channel_id("General/general");
    let followers: Vec<_> = g
        .webhooks
        .iter()
        .filter(|w| w.kind == 2 && w.channel_id.as_deref() == Some(general.as_str()))
        .collect();
    assert_eq!(followers.len(), 1, "{followers:#?}");
    assert_eq!(followers[0].source_channel.as_ref().unwrap()["id"], news);
    let follow_entry = g
        .audit_log
        .iter()
        .find(|e| e.action_type == 50)
        .expect("the follow is audited");
    assert!(
        follow_entry
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl")),
        "{follow_entry:#?}"
    );
    h.emu.clear_requests();
    assert_eq!(h.plan_json(m).await["changes"], json!([]));
    assert_eq!(h.reads().len(), 7, "a follow in place costs no read");
}

#[tokio::test]
async fn a_follow_discord_would_refuse_is_refused_before_any_call() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    let text = h.emu.state().guilds[1].channel_id("General/off-topic");
    // Not an announcement channel.
    let m = h.manifest("text.yaml", &follows_manifest("off-topic", &[&text]));
    h.emu.clear_requests();
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("is not an announcement channel"), "{all}");
    assert!(all.contains("50024"), "{all}");
    assert!(all.contains("text.yaml:8"), "{all}");
    // A channel of no guild the bot is in.
    let m = h.manifest(
        "unknown.yaml",
        &follows_manifest("off-topic", &["999999999999999999"]),
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        format!("{}{}", run.stdout, run.stderr).contains("10003 Unknown Channel"),
        "{}",
        run.stdout
    );
    // The bot lacks manage_webhooks in the receiving channel.
    h.arrange(|g| {
        g.role("guildctl").permissions(&[
            "view_channel",
            "manage_channels",
            "manage_roles",
            "manage_webhooks",
        ]);
        let bot = g.user_id("guildctl");
        g.channel("General/off-topic").permission_overwrites.push(
            discord_emulator::state::Overwrite {
                id: bot,
                kind: 1,
                allow: perms(&[]),
                deny: perms(&["manage_webhooks"]),
            },
        );
    });
    let m = h.manifest("denied.yaml", &follows_manifest("off-topic", &[&news]));
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("the bot lacks `manage_webhooks` in channel `General/#off-topic`"),
        "{all}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn a_follow_added_by_hand_is_drift_naming_who_did_it() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    let general = h.channel_id("General/general");
    let m = h.manifest("m.yaml", &follows_manifest("general", &[RUST_BLOG]));
    let m = m.to_str().unwrap();
    let res = reqwest::Client::new()
        .post(format!("{}/channels/{news}/followers", h.emu.api_base))
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", "we want their news")
        .json(&json!({ "webhook_channel_id": general }))
        .send()
        .await
        .expect("request");
    assert!(res.status().is_success(), "{}", res.status());
    h.emu.clear_requests();
    let run = h.run(&["drift", "-f", m, "--format", "json"]).await;
    run.assert_code(2);
    assert!(h.writes().is_empty(), "drift only reads");
    let r = json_of(&run.stdout);
    let d = r["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "Ferris Fans 2 #general")
        .unwrap_or_else(|| panic!("{r:#}"));
    let who = &d["blame"]["entry"];
    assert_eq!(who["user"]["name"], "ferris", "{d:#}");
    assert_eq!(who["action_type"], 50);
    assert_eq!(who["reason"], "we want their news");
}

#[tokio::test]
async fn an_export_round_trips_flags_and_follows() {
    let h = Harness::start().await;
    h.arrange(|g| g.channel("General/memes").flags = IS_SPOILER_CHANNEL);
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(yaml.contains("spoiler: true"), "{yaml}");
    assert_eq!(yaml.matches("spoiler: true").count(), 1, "{yaml}");
    assert!(
        yaml.contains(&format!("follows:\n      - channel: '{RUST_BLOG}'"))
            || yaml.contains(&format!("follows:\n      - channel: \"{RUST_BLOG}\""))
            || yaml.contains(&format!("channel: \"{RUST_BLOG}\"")),
        "{yaml}"
    );
    let plan = h.plan_json("exported.yaml").await;
    assert_eq!(plan["changes"], json!([]), "{plan:#}");
    assert!(
        !plan["unmanaged"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["name"] == "Rust Blog #announcements"),
        "a follow the manifest names is managed: {plan:#}"
    );
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_followed_channel_and_the_flags() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    let yaml = follows_manifest("general", &[RUST_BLOG, &news]).replace(
        "      - name: general\n",
        "      - name: general\n        spoiler: true\n",
    );
    let m = h.manifest("m.yaml", &yaml);
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 2, "{r:#}");
    assert!(
        h.writes().is_empty(),
        "the rehearsal writes only to its copy"
    );
}

#[tokio::test]
async fn a_base_s_follows_are_kept_and_a_guild_adds_a_flag() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    h.manifest(
        "base.yaml",
        &follows_manifest("general", &[RUST_BLOG, &news]),
    );
    let m = h.manifest(
        "m.yaml",
        "version: 1
extends: [base.yaml]
channels:
  - name: General
    type: category
    channels:
      - { name: general, spoiler: true }
",
    );
    let plan = h.plan_json(m.to_str().unwrap()).await;
    let changes = plan["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["action"] == "create" && c["object"]["name"] == "Ferris Fans 2 #general"),
        "the base's follow: {plan:#}"
    );
    assert!(
        changes.iter().any(|c| c["fields"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["field"] == "spoiler"))),
        "the guild's flag: {plan:#}"
    );
    assert!(
        !changes.iter().any(|c| c["action"] == "delete"),
        "the base's follow in place is kept: {plan:#}"
    );
}

#[tokio::test]
async fn a_flag_turned_off_and_a_follow_removed_by_hand_are_drift_naming_who() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    let yaml = follows_manifest("general", &[RUST_BLOG, &news]).replace(
        "      - name: general\n",
        "      - name: general\n        spoiler: true\n",
    );
    let m = h.manifest("m.yaml", &yaml);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let general = g.channel_id("General/general");
    let follower = g
        .webhooks
        .iter()
        .find(|w| {
            w.source_channel
                .as_ref()
                .is_some_and(|c| c["id"] == news.as_str())
        })
        .expect("followed")
        .id
        .clone();
    let by_hand = reqwest::Client::new();
    let send = |req: reqwest::RequestBuilder, why: &str| {
        req.header("Authorization", format!("Bot {HUMAN_TOKEN}"))
            .header("X-Audit-Log-Reason", why)
            .send()
    };
    let res = send(
        by_hand
            .patch(format!("{}/channels/{general}", h.emu.api_base))
            .json(&json!({ "flags": 0 })),
        "spoilers are annoying",
    )
    .await
    .expect("request");
    assert!(res.status().is_success(), "{}", res.status());
    let res = send(
        by_hand.delete(format!("{}/webhooks/{follower}", h.emu.api_base)),
        "too much news",
    )
    .await
    .expect("request");
    assert!(res.status().is_success(), "{}", res.status());

    h.emu.clear_requests();
    let run = h.run(&["drift", "-f", m, "--format", "json"]).await;
    run.assert_code(2);
    assert!(h.writes().is_empty(), "drift only reads");
    let r = json_of(&run.stdout);
    let drifted = r["drifted"].as_array().unwrap();
    let flag = drifted
        .iter()
        .flat_map(|d| d["fields"].as_array().unwrap())
        .find(|f| f["field"] == "spoiler")
        .unwrap_or_else(|| panic!("{r:#}"));
    assert_eq!(flag["blame"]["entry"]["user"]["name"], "ferris", "{flag:#}");
    assert_eq!(flag["blame"]["entry"]["reason"], "spoilers are annoying");
    let follow = drifted
        .iter()
        .find(|d| d["action"] == "create" && d["name"] == "Ferris Fans 2 #general")
        .unwrap_or_else(|| panic!("{r:#}"));
    assert_eq!(follow["blame"]["entry"]["action_type"], 52, "{follow:#}");
    assert_eq!(follow["blame"]["entry"]["reason"], "too much news");
}

#[tokio::test]
async fn follows_discord_would_refuse_are_errors_at_their_line() {
    let h = Harness::start().await;
    let many: Vec<String> = (0..16)
        .map(|i| format!("{}", 900000000000000000u64 + i))
        .collect();
    let mut ids: Vec<&str> = many.iter().map(String::as_str).collect();
    ids.push(RUST_BLOG);
    ids.push(RUST_BLOG);
    let yaml = follows_manifest("general", &ids)
        + "      - { name: Lounge, type: voice, follows: [{ channel: \"273541522815713281\" }] }\n";
    let m = h.manifest("m.yaml", &yaml);
    h.emu.clear_requests();
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("follows channel 273541522815713281 twice"),
        "{said}"
    );
    // The second entry for it, 18 lines into the list that starts on line 8.
    assert!(said.contains("m.yaml:25:"), "{said}");
    assert!(said.contains("follows 18 channels"), "{said}");
    assert!(
        said.contains("`follows` does not apply to a voice channel"),
        "{said}"
    );
    assert!(h.requests().is_empty(), "validate reads nothing");
}

/// The gate judges the guild the plan leaves, since follows are made after every role and
/// channel write: a follow into a channel whose overwrites the plan closes to the bot is
/// refused before any call, and one into a channel the plan opens to it is made.
#[tokio::test]
async fn a_follow_is_judged_on_the_overwrites_the_plan_leaves() {
    let (st, news) = two_guilds();
    let h = Harness::with_state(Some(st)).await;
    // Not an administrator, for whom overwrites do not count.
    h.arrange(|g| {
        g.role("guildctl").permissions(&[
            "view_channel",
            "manage_channels",
            "manage_roles",
            "manage_webhooks",
        ]);
    });
    let with_overwrite = |file: &str, overwrite: &str| {
        h.manifest(
            file,
            &format!(
                "version: 1
channels:
  - name: General
    type: category
    channels:
      - name: off-topic
        overwrites:
          - role: guildctl
            {overwrite}: [manage_webhooks]
        follows:
          - {{ channel: \"{news}\" }}
"
            ),
        )
    };
    let closed = with_overwrite("closed.yaml", "deny");
    h.emu.clear_requests();
    let run = h
        .run(&["apply", "-f", closed.to_str().unwrap(), "--yes"])
        .await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("the bot lacks `manage_webhooks` in channel `General/#off-topic`"),
        "{all}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());

    // Live, the channel denies it; the manifest's overwrite allows it before the follow.
    h.arrange(|g| {
        let role = g.role_id("guildctl");
        g.channel("General/off-topic").permission_overwrites.push(
            discord_emulator::state::Overwrite {
                id: role,
                kind: 0,
                allow: perms(&[]),
                deny: perms(&["manage_webhooks"]),
            },
        );
    });
    let opened = with_overwrite("opened.yaml", "allow");
    h.run(&["apply", "-f", opened.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let g = h.guild();
    let off_topic = g.channel_id("General/off-topic");
    assert!(
        g.webhooks
            .iter()
            .any(|w| w.kind == 2 && w.channel_id.as_deref() == Some(off_topic.as_str())),
        "{:#?}",
        g.webhooks
    );
}
