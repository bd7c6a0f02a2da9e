//! The expression-like objects through twilight: AutoMod rules, emoji, stickers,
//! scheduled events.

use super::*;

/// `(seconds from now)` as twilight's timestamp.
fn in_hours(h: i64) -> twilight_model::util::Timestamp {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    twilight_model::util::Timestamp::from_secs(now + h * 3600).expect("a timestamp")
}

#[tokio::test]
async fn automod_rules_are_made_and_read_by_twilight() {
    use twilight_model::guild::auto_moderation::{
        AutoModerationActionType, AutoModerationEventType, AutoModerationTriggerType,
    };
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let mod_log: Id<ChannelMarker> = id(&t.chan("mod-log"));
    let moderator: Id<RoleMarker> = id(&t.role("Moderator"));
    let rule = c
        .create_auto_moderation_rule(gid, "No invite links", AutoModerationEventType::MessageSend)
        .action_block_message_with_explanation("Invites are not allowed here")
        .action_send_alert_message(mod_log)
        .action_timeout(600)
        .exempt_roles(&[moderator])
        .enabled(true)
        .reason("twilight: automod")
        .with_keyword(
            &["discord.gg/*"],
            &["disc[o0]rd\\.gg"],
            &["discord.gg/rust"],
        )
        .await
        .expect("create rule")
        .model()
        .await
        .expect("twilight parses the rule");
    assert_eq!(rule.trigger_type, AutoModerationTriggerType::Keyword);
    assert_eq!(
        rule.trigger_metadata.keyword_filter.as_deref(),
        Some(&["discord.gg/*".to_owned()][..])
    );
    assert_eq!(rule.actions.len(), 3);
    assert_eq!(
        rule.actions[1].kind,
        AutoModerationActionType::SendAlertMessage
    );
    assert_eq!(
        rule.actions[1].metadata.as_ref().and_then(|m| m.channel_id),
        Some(mod_log)
    );
    assert_eq!(rule.exempt_roles, [moderator]);
    assert!(rule.enabled);
    let rules = c
        .auto_moderation_rules(gid)
        .await
        .expect("list rules")
        .models()
        .await
        .expect("twilight parses the list");
    assert!(rules.iter().any(|r| r.id == rule.id));
    let entries = served(&t).await;
    let create = entries
        .iter()
        .find(|r| {
            r["method"] == "POST"
                && r["path"]
                    .as_str()
                    .unwrap()
                    .ends_with("/auto-moderation/rules")
        })
        .unwrap();
    assert_eq!(create["reason"], "twilight: automod");
}

#[tokio::test]
async fn emojis_and_stickers_are_uploaded_by_twilight() {
    use emulator_support::files::{data_uri, png};
    use twilight_model::channel::message::sticker::StickerFormatType;
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let image = png(128, 128);
    let uri = data_uri("image/png", &image);
    let emoji = c
        .create_emoji(gid, "ferris_wave", &uri)
        .await
        .expect("create emoji")
        .model()
        .await
        .expect("twilight parses the emoji");
    assert_eq!(emoji.name, "ferris_wave");
    assert!(!emoji.animated && emoji.available && emoji.require_colons);
    assert_eq!(
        emoji.user.map(|u| u.id.to_string()),
        Some(t.emu.state().bot_user_id)
    );
    let (_, _, got) = t.cdn(&format!("emojis/{}.png", emoji.id)).await;
    assert_eq!(got, image);

    // A multipart upload, as twilight builds it: the file part has no type of its own.
    let file = png(320, 320);
    let sticker = c
        .create_guild_sticker(gid, "ferris", "Ferris waving", "crab", &file)
        .await
        .expect("create sticker")
        .model()
        .await
        .expect("twilight parses the sticker");
    assert_eq!(sticker.format_type, StickerFormatType::Png);
    assert_eq!(
        (sticker.name.as_str(), sticker.tags.as_str()),
        ("ferris", "crab")
    );
    assert_eq!(sticker.guild_id, Some(gid));
    let (_, _, got) = t.cdn(&format!("stickers/{}.png", sticker.id)).await;
    assert_eq!(got, file);
    let stickers = c
        .guild_stickers(gid)
        .await
        .expect("list stickers")
        .models()
        .await
        .expect("twilight parses the list");
    assert!(stickers.iter().any(|s| s.id == sticker.id));
}

#[tokio::test]
async fn scheduled_events_are_made_by_twilight() {
    use twilight_model::guild::scheduled_event::recurrence_rule::{
        RecurrenceRule, RecurrenceRuleFrequency, RecurrenceRuleWeekday,
    };
    use twilight_model::guild::scheduled_event::{EntityType, PrivacyLevel, Status};
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let lounge: Id<ChannelMarker> = id(&t.chan("Lounge"));
    let start = in_hours(24);
    let end = in_hours(25);
    let weekly = RecurrenceRule {
        by_month: None,
        by_month_day: None,
        by_n_weekday: None,
        by_weekday: Some(vec![RecurrenceRuleWeekday::Wednesday]),
        by_year_day: None,
        count: None,
        end: None,
        frequency: RecurrenceRuleFrequency::Weekly,
        interval: 1,
        start,
    };
    let event = c
        .create_guild_scheduled_event(gid, PrivacyLevel::GuildOnly)
        .voice(lounge, "Office hours", &start)
        .scheduled_end_time(&end)
        .description("Ask the maintainers anything")
        .recurrence_rule(&weekly)
        .await
        .expect("create event")
        .model()
        .await
        .expect("twilight parses the event");
    assert_eq!(event.entity_type, EntityType::Voice);
    assert_eq!(event.status, Status::Scheduled);
    assert_eq!(event.channel_id, Some(lounge));
    let rule = event.recurrence_rule.expect("the rule");
    assert_eq!(rule.frequency, RecurrenceRuleFrequency::Weekly);
    assert_eq!(
        rule.by_weekday,
        Some(vec![RecurrenceRuleWeekday::Wednesday])
    );
    let external = c
        .create_guild_scheduled_event(gid, PrivacyLevel::GuildOnly)
        .external("RustConf", "Montreal", &start, &end)
        .await
        .expect("create external event")
        .model()
        .await
        .expect("twilight parses it");
    assert_eq!(
        external.entity_metadata.and_then(|m| m.location).as_deref(),
        Some("Montreal")
    );
    let events = c
        .guild_scheduled_events(gid)
        .await
        .expect("list events")
        .models()
        .await
        .expect("twilight parses the list");
    assert!(events.iter().any(|e| e.id == event.id) && events.iter().any(|e| e.id == external.id));
}
