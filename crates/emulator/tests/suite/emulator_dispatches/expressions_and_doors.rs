//! The dispatches of expressions, sounds, events, AutoMod rules, webhooks, invites,
//! integrations and webhook messages.

use super::*;

#[tokio::test]
async fn emoji_and_sticker_writes_send_every_one_of_the_guild() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let emojis_now = |gw: &Gw| ids(gw.state().guilds[0].emojis.iter().map(|e| e.id.clone()));
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/emojis"),
            json!({"name": "gw", "image": data_uri("image/png", &png(8, 8))}),
        )
        .await;
    let eid = sent.id();
    let u: GuildEmojisUpdate = read(sent.one(&g, 201, "GUILD_EMOJIS_UPDATE"));
    assert_eq!(u.guild_id.to_string(), g);
    let sent_ids = ids(u.emojis.iter().map(|e| e.id.to_string()));
    assert!(sent_ids.contains(&eid));
    assert_eq!(sent_ids, emojis_now(&gw));
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/emojis/{eid}"),
            json!({"name": "gw2"}),
        )
        .await;
    let u: GuildEmojisUpdate = read(sent.one(&g, 200, "GUILD_EMOJIS_UPDATE"));
    assert!(
        u.emojis
            .iter()
            .any(|e| e.id.to_string() == eid && e.name == "gw2")
    );
    let sent = gw
        .bot("DELETE", &format!("/guilds/{g}/emojis/{eid}"), Value::Null)
        .await;
    let u: GuildEmojisUpdate = read(sent.one(&g, 204, "GUILD_EMOJIS_UPDATE"));
    let sent_ids = ids(u.emojis.iter().map(|e| e.id.to_string()));
    assert!(!sent_ids.contains(&eid) && !sent_ids.is_empty());
    assert_eq!(sent_ids, emojis_now(&gw));

    let stickers_now = |gw: &Gw| ids(gw.state().guilds[0].stickers.iter().map(|s| s.id.clone()));
    let file = png(320, 320);
    let form = multipart(&[
        ("name", None, b"gateway"),
        ("tags", None, b"crab"),
        ("file", Some("s.png"), &file),
    ]);
    let sent = gw
        .raw("POST", &format!("/guilds/{g}/stickers"), Some(form), true)
        .await;
    let sid = sent.id();
    let u: GuildStickersUpdate = read(sent.one(&g, 201, "GUILD_STICKERS_UPDATE"));
    let sent_ids = ids(u.stickers.iter().map(|s| s.id.to_string()));
    assert!(sent_ids.contains(&sid));
    assert_eq!(sent_ids, stickers_now(&gw));
    assert!(
        u.stickers
            .iter()
            .all(|s| s.guild_id.map(|i| i.to_string()) == Some(g.clone()))
    );
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/stickers/{sid}"),
            json!({"name": "gateway2"}),
        )
        .await;
    let u: GuildStickersUpdate = read(sent.one(&g, 200, "GUILD_STICKERS_UPDATE"));
    assert!(
        u.stickers
            .iter()
            .any(|s| s.id.to_string() == sid && s.name == "gateway2")
    );
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/stickers/{sid}"),
            Value::Null,
        )
        .await;
    let u: GuildStickersUpdate = read(sent.one(&g, 204, "GUILD_STICKERS_UPDATE"));
    let sent_ids = ids(u.stickers.iter().map(|s| s.id.to_string()));
    assert!(!sent_ids.contains(&sid));
    assert_eq!(sent_ids, stickers_now(&gw));
}

/// Discord's soundboard sound object (the Soundboard page); twilight-model 0.18 has no
/// soundboard payloads. Unknown fields are refused, so nothing undocumented is sent.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read to check the shape; only the ids are compared.
struct SoundboardSound {
    name: String,
    sound_id: String,
    volume: f64,
    emoji_id: Option<String>,
    emoji_name: Option<String>,
    guild_id: Option<String>,
    available: bool,
    #[serde(default)]
    user: Option<twilight_model::user::User>,
}

/// GUILD_SOUNDBOARD_SOUND_DELETE's payload (the Gateway Events page).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SoundDelete {
    sound_id: String,
    guild_id: String,
}

#[tokio::test]
async fn soundboard_writes_send_the_sound_or_its_id() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/soundboard-sounds"),
            json!({"name": "gateway", "sound": data_uri("audio/mpeg", &mp3(5))}),
        )
        .await;
    let id = sent.body["sound_id"].as_str().unwrap().to_owned();
    let s: SoundboardSound = read(sent.one(&g, 201, "GUILD_SOUNDBOARD_SOUND_CREATE"));
    assert_eq!(
        (s.sound_id.as_str(), s.guild_id.as_deref()),
        (id.as_str(), Some(g.as_str()))
    );
    assert_eq!(s.name, "gateway");
    let bot = gw.state().bot_user_id.clone();
    assert_eq!(s.user.map(|u| u.id.to_string()), Some(bot), "its creator");
    let sent = gw
        .bot(
            "PATCH",
            &format!("/guilds/{g}/soundboard-sounds/{id}"),
            json!({"volume": 0.5}),
        )
        .await;
    let s: SoundboardSound = read(sent.one(&g, 200, "GUILD_SOUNDBOARD_SOUND_UPDATE"));
    assert_eq!((s.sound_id.as_str(), s.volume), (id.as_str(), 0.5));
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/soundboard-sounds/{id}"),
            Value::Null,
        )
        .await;
    let s: SoundDelete = read(sent.one(&g, 204, "GUILD_SOUNDBOARD_SOUND_DELETE"));
    assert_eq!((s.sound_id, s.guild_id), (id, g));
}

#[tokio::test]
async fn scheduled_event_and_automod_writes_send_the_object() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/scheduled-events"),
            json!({"name": "ev", "privacy_level": 2, "entity_type": 3,
                   "entity_metadata": {"location": "Montreal"},
                   "scheduled_start_time": rfc3339_in(5.0),
                   "scheduled_end_time": rfc3339_in(6.0)}),
        )
        .await;
    let eid = sent.id();
    let e: GuildScheduledEventCreate = read(sent.one(&g, 200, "GUILD_SCHEDULED_EVENT_CREATE"));
    assert_eq!(
        (e.id.to_string(), e.guild_id.to_string()),
        (eid.clone(), g.clone())
    );
    assert_eq!(e.name, "ev");
    let path = format!("/guilds/{g}/scheduled-events/{eid}");
    let sent = gw.bot("PATCH", &path, json!({"name": "ev2"})).await;
    let e: GuildScheduledEventUpdate = read(sent.one(&g, 200, "GUILD_SCHEDULED_EVENT_UPDATE"));
    assert_eq!((e.id.to_string(), e.name.as_str()), (eid.clone(), "ev2"));
    let sent = gw.bot("DELETE", &path, Value::Null).await;
    let e: GuildScheduledEventDelete = read(sent.one(&g, 204, "GUILD_SCHEDULED_EVENT_DELETE"));
    assert_eq!((e.id.to_string(), e.name.as_str()), (eid, "ev2"));

    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/auto-moderation/rules"),
            json!({"name": "no links", "event_type": 1, "trigger_type": 1,
                   "trigger_metadata": {"keyword_filter": ["http*"]},
                   "actions": [{"type": 1}]}),
        )
        .await;
    let rid = sent.id();
    let r: AutoModerationRuleCreate = read(sent.one(&g, 200, "AUTO_MODERATION_RULE_CREATE"));
    assert_eq!(
        (r.id.to_string(), r.guild_id.to_string()),
        (rid.clone(), g.clone())
    );
    let path = format!("/guilds/{g}/auto-moderation/rules/{rid}");
    let sent = gw.bot("PATCH", &path, json!({"enabled": true})).await;
    let r: AutoModerationRuleUpdate = read(sent.one(&g, 200, "AUTO_MODERATION_RULE_UPDATE"));
    assert_eq!((r.id.to_string(), r.enabled), (rid.clone(), true));
    let sent = gw.bot("DELETE", &path, Value::Null).await;
    let r: AutoModerationRuleDelete = read(sent.one(&g, 204, "AUTO_MODERATION_RULE_DELETE"));
    assert_eq!((r.id.to_string(), r.name.as_str()), (rid, "no links"));
}

#[tokio::test]
async fn webhook_writes_name_the_channels_whose_webhooks_changed() {
    let mut st = default_state();
    // An announcement channel to follow (the default state has none).
    let faq = st.guilds[0]
        .channels
        .iter_mut()
        .find(|c| c.name == "faq")
        .unwrap();
    faq.kind = 5;
    let mut gw = Gw::with(st);
    let g = gw.gid.clone();
    let webhooks_update = |d: &Value| {
        let w: WebhooksUpdate = read(d);
        assert_eq!(w.guild_id.to_string(), g);
        w.channel_id.to_string()
    };
    let (general, off_topic) = (gw.chan("general"), gw.chan("off-topic"));
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "gw"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        general
    );
    let (wid, token) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());

    // A move changes two channels' lists: the one it left, then the one it joined.
    let sent = gw
        .bot(
            "PATCH",
            &format!("/webhooks/{wid}"),
            json!({"channel_id": off_topic}),
        )
        .await;
    let channels: Vec<String> = sent
        .expect(&g, 200, &["WEBHOOKS_UPDATE", "WEBHOOKS_UPDATE"])
        .into_iter()
        .map(webhooks_update)
        .collect();
    assert_eq!(channels, [general.clone(), off_topic.clone()]);
    let sent = gw
        .bot(
            "PATCH",
            &format!("/webhooks/{wid}"),
            json!({"name": "renamed"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
    let sent = gw
        .anonymous(
            "PATCH",
            &format!("/webhooks/{wid}/{token}"),
            json!({"name": "again"}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
    let sent = gw
        .anonymous("DELETE", &format!("/webhooks/{wid}/{token}"), Value::Null)
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 204, "WEBHOOKS_UPDATE")),
        off_topic
    );

    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "gw2"}),
        )
        .await;
    let wid = sent.id();
    let sent = gw
        .bot("DELETE", &format!("/webhooks/{wid}"), Value::Null)
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 204, "WEBHOOKS_UPDATE")),
        general
    );

    let faq = gw.chan("faq");
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{faq}/followers"),
            json!({"webhook_channel_id": off_topic}),
        )
        .await;
    assert_eq!(
        webhooks_update(sent.one(&g, 200, "WEBHOOKS_UPDATE")),
        off_topic
    );
}

#[tokio::test]
async fn invite_and_integration_deletes_send_what_was_deleted() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let help = gw.chan("help");
    let sent = gw.bot("DELETE", "/invites/helpdesk", Value::Null).await;
    let i: InviteDelete = read(sent.one(&g, 200, "INVITE_DELETE"));
    assert_eq!(
        (
            i.guild_id.to_string(),
            i.channel_id.to_string(),
            i.code.as_str()
        ),
        (g.clone(), help, "helpdesk")
    );

    let polls = gw.state().guilds[0]
        .integrations
        .iter()
        .find(|i| i.name == "Ferris Polls")
        .unwrap()
        .clone();
    let sent = gw
        .bot(
            "DELETE",
            &format!("/guilds/{g}/integrations/{}", polls.id),
            Value::Null,
        )
        .await;
    let both = sent.expect(
        &g,
        204,
        &["GUILD_INTEGRATIONS_UPDATE", "INTEGRATION_DELETE"],
    );
    let u: GuildIntegrationsUpdate = read(both[0]);
    assert_eq!(u.guild_id.to_string(), g);
    let d: IntegrationDelete = read(both[1]);
    assert_eq!(
        (d.id.to_string(), d.guild_id.to_string()),
        (polls.id.clone(), g.clone())
    );
    assert_eq!(
        d.application_id.map(|a| a.to_string()),
        polls.application.map(|a| a.id)
    );
}

#[tokio::test]
async fn webhook_messages_send_the_message_and_the_threads_they_touch() {
    let mut gw = Gw::new();
    let g = gw.gid.clone();
    let general = gw.chan("general");
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{general}/webhooks"),
            json!({"name": "poster"}),
        )
        .await;
    let (wid, token) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());
    let hook = format!("/webhooks/{wid}/{token}");

    let heidi = gw.user("heidi");
    let hello = format!("hello <@{heidi}>");
    let sent = gw
        .anonymous(
            "POST",
            &format!("{hook}?wait=true"),
            json!({"content": hello}),
        )
        .await;
    let m: MessageCreate = read(sent.one(&g, 200, "MESSAGE_CREATE"));
    let mid = sent.id();
    assert_eq!(
        (
            m.id.to_string(),
            m.channel_id.to_string(),
            m.content.as_str()
        ),
        (mid.clone(), general.clone(), hello.as_str())
    );
    assert_eq!(m.guild_id.map(|i| i.to_string()), Some(g.clone()));
    assert_eq!(m.webhook_id.map(|i| i.to_string()), Some(wid.clone()));
    // A mentioned member comes with its partial member, roles and all.
    let member = gw.role("Member");
    assert_eq!(m.mentions.len(), 1);
    let mentioned = &m.mentions[0];
    let roles = mentioned.member.as_ref().map(|p| &p.roles).unwrap();
    assert_eq!(mentioned.id.to_string(), heidi);
    assert!(roles.iter().any(|r| r.to_string() == member));
    assert!(mentioned.member.as_ref().unwrap().user.is_none());
    // Without `wait` the answer is 204, but the message is sent all the same.
    let sent = gw
        .anonymous("POST", &hook, json!({"content": "quiet"}))
        .await;
    let m: MessageCreate = read(sent.one(&g, 204, "MESSAGE_CREATE"));
    assert_eq!(m.content, "quiet");

    let sent = gw
        .anonymous(
            "PATCH",
            &format!("{hook}/messages/{mid}"),
            json!({"content": "edited"}),
        )
        .await;
    let m: MessageUpdate = read(sent.one(&g, 200, "MESSAGE_UPDATE"));
    assert_eq!(
        (m.id.to_string(), m.content.as_str()),
        (mid.clone(), "edited")
    );
    assert!(m.edited_timestamp.is_some());
    let sent = gw
        .anonymous("DELETE", &format!("{hook}/messages/{mid}"), Value::Null)
        .await;
    let d: MessageDelete = read(sent.one(&g, 204, "MESSAGE_DELETE"));
    assert_eq!(
        (d.id.to_string(), d.channel_id.to_string()),
        (mid, general.clone())
    );
    assert_eq!(d.guild_id.map(|i| i.to_string()), Some(g.clone()));

    // Posting into an archived thread unarchives it: THREAD_UPDATE, then the message.
    let archived = gw.state().guilds[0]
        .threads
        .iter()
        .find(|t| t.parent_id == general && t.archived)
        .unwrap()
        .id
        .clone();
    let sent = gw
        .anonymous(
            "POST",
            &format!("{hook}?wait=true&thread_id={archived}"),
            json!({"content": "back"}),
        )
        .await;
    let both = sent.expect(&g, 200, &["THREAD_UPDATE", "MESSAGE_CREATE"]);
    let t: ThreadUpdate = read(both[0]);
    assert_eq!(t.id.to_string(), archived);
    assert_eq!(t.thread_metadata.as_ref().map(|m| m.archived), Some(false));
    let m: MessageCreate = read(both[1]);
    assert_eq!(m.channel_id.to_string(), archived);

    // A forum post: the thread is made (THREAD_CREATE, newly_created), then the message.
    let sent = gw
        .bot(
            "POST",
            &format!("/guilds/{g}/channels"),
            json!({"name": "forum", "type": 15}),
        )
        .await;
    let forum = sent.id();
    let sent = gw
        .bot(
            "POST",
            &format!("/channels/{forum}/webhooks"),
            json!({"name": "poster"}),
        )
        .await;
    let (fwid, ftoken) = (sent.id(), sent.body["token"].as_str().unwrap().to_owned());
    let sent = gw
        .anonymous(
            "POST",
            &format!("/webhooks/{fwid}/{ftoken}?wait=true"),
            json!({"content": "first post", "thread_name": "A post"}),
        )
        .await;
    let both = sent.expect(&g, 200, &["THREAD_CREATE", "MESSAGE_CREATE"]);
    let t: ThreadCreate = read(both[0]);
    assert_eq!(t.parent_id.map(|p| p.to_string()), Some(forum));
    assert_eq!(t.name.as_deref(), Some("A post"));
    assert_eq!(t.newly_created, Some(true));
    let m: MessageCreate = read(both[1]);
    assert_eq!(m.channel_id, t.id, "the post's message is in its thread");
}
