//! The rest of the guild's routes (AutoMod, emoji, stickers, soundboard, scheduled
//! events, channel followers) against the spec.

use super::*;

/// AutoMod rules, emoji, stickers, soundboard sounds, scheduled events and channel
/// followers (§10), their error answers, and what they add to the guild object, the
/// preview, the audit log and the webhook lists.
#[tokio::test]
async fn rest_of_the_guild_routes_match_the_spec() {
    use emulator_support::files::{data_uri, gif, mp3, ogg, png};
    let mut st = discord_emulator::with_guild_copies(discord_emulator::default_state(), 2);
    {
        let g = &mut st.guilds[1];
        g.features.push("NEWS".into());
        let c = g.channels.iter_mut().find(|c| c.name == "faq").unwrap();
        c.kind = 5;
    }
    let news = st.guilds[1]
        .channels
        .iter()
        .find(|c| c.kind == 5)
        .unwrap()
        .id
        .clone();
    let c = Client::start(Some(st)).await;
    let g = c.emu.guild_id.clone();
    let st = c.emu.state();
    let chan = |name: &str| {
        st.guilds[0]
            .channels
            .iter()
            .find(|x| x.name == name)
            .unwrap()
            .id
            .clone()
    };
    use Method as M;

    // AutoMod: one rule of every trigger type.
    let rt = "/guilds/{guild_id}/auto-moderation/rules";
    let rt1 = "/guilds/{guild_id}/auto-moderation/rules/{rule_id}";
    let rules = format!("/guilds/{g}/auto-moderation/rules");
    let mut ids = Vec::new();
    for body in [
        json!({"name": "Keywords", "event_type": 1, "trigger_type": 1,
               "trigger_metadata": {"keyword_filter": ["bad*"], "regex_patterns": ["x+y"]},
               "actions": [{"type": 1, "metadata": {"custom_message": "No."}},
                           {"type": 2, "metadata": {"channel_id": chan("mod-log")}},
                           {"type": 3, "metadata": {"duration_seconds": 60}}],
               "enabled": true}),
        json!({"name": "Spam", "event_type": 1, "trigger_type": 3, "actions": [{"type": 1}]}),
        json!({"name": "Presets", "event_type": 1, "trigger_type": 4,
               "trigger_metadata": {"presets": [1, 3]}, "actions": [{"type": 1}]}),
        json!({"name": "Mentions", "event_type": 1, "trigger_type": 5,
               "trigger_metadata": {"mention_total_limit": 5}, "actions": [{"type": 1}]}),
        json!({"name": "Profiles", "event_type": 2, "trigger_type": 6,
               "trigger_metadata": {"keyword_filter": ["nitro"]}, "actions": [{"type": 4}]}),
    ] {
        let (s, r) = c.call(M::POST, rt, &rules, Some(body)).await;
        assert_eq!(s, 200, "{r}");
        ids.push(r["id"].as_str().unwrap().to_owned());
    }
    let (s, _) = c.call(M::GET, rt, &rules, None).await;
    assert_eq!(s, 200);
    let one = format!("{rules}/{}", ids[0]);
    let (s, _) = c.call(M::GET, rt1, &one, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(M::PATCH, rt1, &one, Some(json!({"enabled": false})))
        .await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(M::PATCH, rt1, &one, Some(json!({"trigger_type": 3})))
        .await;
    assert_eq!(s, 400);
    let (s, _) = c
        .call(M::DELETE, rt1, &format!("{rules}/{}", ids[1]), None)
        .await;
    assert_eq!(s, 204);
    let (s, _) = c
        .call(M::GET, rt1, &format!("{rules}/123456789012345678"), None)
        .await;
    assert_eq!(s, 404);

    // Emoji.
    let et = "/guilds/{guild_id}/emojis";
    let et1 = "/guilds/{guild_id}/emojis/{emoji_id}";
    let emojis = format!("/guilds/{g}/emojis");
    let (s, e) = c
        .call(
            M::POST,
            et,
            &emojis,
            Some(json!({"name": "spec_png", "image": data_uri("image/png", &png(64, 64))})),
        )
        .await;
    assert_eq!(s, 201);
    let (s, _) = c
        .call(
            M::POST,
            et,
            &emojis,
            Some(json!({"name": "spec_gif", "image": data_uri("image/gif", &gif(64, 64))})),
        )
        .await;
    assert_eq!(s, 201);
    let (s, _) = c
        .call(
            M::POST,
            et,
            &emojis,
            Some(json!({"name": "x", "image": "nope"})),
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = c.call(M::GET, et, &emojis, None).await;
    assert_eq!(s, 200);
    let one = format!("{emojis}/{}", e["id"].as_str().unwrap());
    let (s, _) = c.call(M::GET, et1, &one, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(
            M::PATCH,
            et1,
            &one,
            Some(json!({"name": "spec_renamed", "roles": []})),
        )
        .await;
    assert_eq!(s, 200);

    // Stickers.
    let stt = "/guilds/{guild_id}/stickers";
    let st1 = "/guilds/{guild_id}/stickers/{sticker_id}";
    let stickers = format!("/guilds/{g}/stickers");
    let file = png(320, 320);
    let (s, sticker) = c
        .post_multipart(
            stt,
            &stickers,
            &[
                ("name", None, b"spec"),
                ("tags", None, b"crab"),
                ("file", Some("s.png"), &file),
            ],
        )
        .await;
    assert_eq!(s, 201, "{sticker}");
    let (s, _) = c
        .post_multipart(stt, &stickers, &[("name", None, b"spec")])
        .await;
    assert_eq!(s, 400);
    let (s, _) = c.call(M::GET, stt, &stickers, None).await;
    assert_eq!(s, 200);
    let one = format!("{stickers}/{}", sticker["id"].as_str().unwrap());
    let (s, _) = c.call(M::GET, st1, &one, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(
            M::PATCH,
            st1,
            &one,
            Some(json!({"description": "A crab", "tags": "crab,rust"})),
        )
        .await;
    assert_eq!(s, 200);

    // Soundboard.
    let sbt = "/guilds/{guild_id}/soundboard-sounds";
    let sb1 = "/guilds/{guild_id}/soundboard-sounds/{sound_id}";
    let sounds = format!("/guilds/{g}/soundboard-sounds");
    let (s, sound) = c
        .call(M::POST, sbt, &sounds, Some(json!({"name": "spec_mp3", "sound": data_uri("audio/mpeg", &mp3(50)), "emoji_name": "📯"})))
        .await;
    assert_eq!(s, 201);
    let (s, _) = c
        .call(M::POST, sbt, &sounds, Some(json!({"name": "spec_ogg", "sound": data_uri("audio/ogg", &ogg(2.0)), "volume": 0.5})))
        .await;
    assert_eq!(s, 201);
    let (s, _) = c
        .call(
            M::POST,
            sbt,
            &sounds,
            Some(json!({"name": "long", "sound": data_uri("audio/ogg", &ogg(9.0))})),
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = c.call(M::GET, sbt, &sounds, None).await;
    assert_eq!(s, 200);
    let one = format!("{sounds}/{}", sound["sound_id"].as_str().unwrap());
    let (s, _) = c.call(M::GET, sb1, &one, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(
            M::PATCH,
            sb1,
            &one,
            Some(json!({"volume": 0.3, "emoji_name": null})),
        )
        .await;
    assert_eq!(s, 200);

    // Scheduled events of every entity type, one recurring.
    let evt = "/guilds/{guild_id}/scheduled-events";
    let ev1 = "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}";
    let events = format!("/guilds/{g}/scheduled-events");
    let (_, stage) = c
        .call(
            M::POST,
            "/guilds/{guild_id}/channels",
            &format!("/guilds/{g}/channels"),
            Some(json!({"name": "Spec Stage", "type": 13})),
        )
        .await;
    let mut event_ids = Vec::new();
    for body in [
        json!({"name": "Voice", "privacy_level": 2, "entity_type": 2, "channel_id": chan("Lounge"),
               "scheduled_start_time": rfc3339_in(24.0), "image": data_uri("image/png", &png(16, 16)),
               "recurrence_rule": {"start": rfc3339_in(24.0), "frequency": 1,
                                   "by_n_weekday": [{"n": 2, "day": 3}]}}),
        json!({"name": "Stage", "privacy_level": 2, "entity_type": 1, "channel_id": stage["id"],
               "scheduled_start_time": rfc3339_in(24.0), "description": "On stage"}),
        json!({"name": "Outside", "privacy_level": 2, "entity_type": 3,
               "entity_metadata": {"location": "Park"},
               "scheduled_start_time": rfc3339_in(24.0), "scheduled_end_time": rfc3339_in(26.0)}),
    ] {
        let (s, e) = c.call(M::POST, evt, &events, Some(body)).await;
        assert_eq!(s, 200, "{e}");
        event_ids.push(e["id"].as_str().unwrap().to_owned());
    }
    let (s, _) = c
        .call(
            M::POST,
            evt,
            &events,
            Some(json!({"name": "Bad", "privacy_level": 2, "entity_type": 3})),
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = c
        .call(M::GET, evt, &format!("{events}?with_user_count=true"), None)
        .await;
    assert_eq!(s, 200);
    let one = format!("{events}/{}", event_ids[0]);
    let (s, _) = c.call(M::GET, ev1, &one, None).await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(M::PATCH, ev1, &one, Some(json!({"status": 2})))
        .await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(M::DELETE, ev1, &format!("{events}/{}", event_ids[2]), None)
        .await;
    assert_eq!(s, 204);

    // Channel flags and a follower.
    let (s, _) = c
        .call(
            M::POST,
            "/guilds/{guild_id}/channels",
            &format!("/guilds/{g}/channels"),
            Some(json!({"name": "spec-media", "type": 16, "flags": (1 << 15) | (1 << 4)})),
        )
        .await;
    assert_eq!(s, 201);
    let ft = "/channels/{channel_id}/followers";
    let (s, _) = c
        .call(
            M::POST,
            ft,
            &format!("/channels/{news}/followers"),
            Some(json!({"webhook_channel_id": chan("general")})),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = c
        .call(
            M::POST,
            ft,
            &format!("/channels/{}/followers", chan("general")),
            Some(json!({"webhook_channel_id": chan("general")})),
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = c
        .call(
            M::GET,
            "/guilds/{guild_id}/webhooks",
            &format!("/guilds/{g}/webhooks"),
            None,
        )
        .await;
    assert_eq!(s, 200);

    // What the guild, its preview and its audit log now carry.
    let (s, guild) = c
        .call(M::GET, "/guilds/{guild_id}", &format!("/guilds/{g}"), None)
        .await;
    assert_eq!(s, 200);
    assert!(guild["emojis"].as_array().unwrap().len() >= 2);
    assert!(!guild["stickers"].as_array().unwrap().is_empty());
    for key in [
        "auto_moderation_rules",
        "scheduled_events",
        "soundboard_sounds",
    ] {
        assert!(guild.get(key).is_none(), "{key} is not a guild field");
    }
    let (s, _) = c
        .call(
            M::GET,
            "/guilds/{guild_id}/preview",
            &format!("/guilds/{g}/preview"),
            None,
        )
        .await;
    assert_eq!(s, 200);
    let (s, log) = c
        .call(
            M::GET,
            "/guilds/{guild_id}/audit-logs",
            &format!("/guilds/{g}/audit-logs?limit=100"),
            None,
        )
        .await;
    assert_eq!(s, 200);
    assert!(!log["auto_moderation_rules"].as_array().unwrap().is_empty());
    assert!(!log["guild_scheduled_events"].as_array().unwrap().is_empty());

    // Deletions last: the objects above were read back by the guild and the log.
    let (s, _) = c
        .call(
            M::DELETE,
            et1,
            &format!("{emojis}/{}", e["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(s, 204);
    let (s, _) = c
        .call(
            M::DELETE,
            st1,
            &format!("{stickers}/{}", sticker["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(s, 204);
    let (s, _) = c
        .call(
            M::DELETE,
            sb1,
            &format!("{sounds}/{}", sound["sound_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(s, 204);
    c.emu.shutdown().await;
}
