//! Scheduled events (§10.3).

use discord_emulator::default_state;
use discord_emulator::state::{ScheduledEvent, State};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::{Value, json};

use super::{change, last_entry, with_bot_permissions};
use crate::emulator_support::files::{data_uri, png};
use crate::emulator_support::{T, err_code, error_at, rfc3339_in};

fn events_path(t: &T) -> String {
    format!("/guilds/{}/scheduled-events", t.g())
}

fn voice_event(t: &T, name: &str) -> Value {
    json!({
        "name": name, "privacy_level": 2, "entity_type": 2,
        "channel_id": t.chan("Lounge"),
        "scheduled_start_time": rfc3339_in(24.0),
        "scheduled_end_time": rfc3339_in(25.0),
        "description": "Ask the maintainers anything",
    })
}

fn external_event(name: &str) -> Value {
    json!({
        "name": name, "privacy_level": 2, "entity_type": 3,
        "entity_metadata": {"location": "RustConf, Montreal"},
        "scheduled_start_time": rfc3339_in(48.0),
        "scheduled_end_time": rfc3339_in(50.0),
    })
}

/// A stage channel in the guild (the default state has none).
async fn stage(t: &T) -> String {
    let (s, c) = t
        .post(
            &format!("/guilds/{}/channels", t.g()),
            json!({"name": "Town Hall", "type": 13}),
        )
        .await;
    assert_eq!(s, 201);
    c["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_voice_event_is_created_read_and_audited() {
    let t = T::new().await;
    let cover = png(64, 64);
    let mut body = voice_event(&t, "Office hours");
    body["image"] = json!(data_uri("image/png", &cover));
    let (s, e) = t
        .call(
            Method::POST,
            &events_path(&t),
            Some(body),
            Some("event%20as%20code"),
        )
        .await;
    assert_eq!(s, 200, "create answers 200: {e}");
    assert_eq!(
        (e["status"].clone(), e["entity_type"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        (e["privacy_level"].clone(), e["entity_metadata"].clone()),
        (json!(2), Value::Null)
    );
    assert_eq!(e["channel_id"], t.chan("Lounge").as_str());
    let bot = t.emu.state().bot_user_id;
    assert_eq!(
        (e["creator_id"].clone(), e["creator"]["id"].clone()),
        (json!(bot), json!(bot))
    );
    assert_eq!(e["description"], "Ask the maintainers anything");
    assert_eq!(e["guild_scheduled_event_exceptions"], json!([]));
    assert!(e.get("user_count").is_none(), "only with with_user_count");
    let id = e["id"].as_str().unwrap();
    let hash = e["image"].as_str().unwrap();
    let (s, _, got) = t.cdn(&format!("guild-events/{id}/{hash}.png")).await;
    assert_eq!((s, got), (200, cover), "the cover image on the CDN");
    let (s, got) = t
        .get(&format!("{}/{id}?with_user_count=true", events_path(&t)))
        .await;
    assert_eq!((s, got["user_count"].clone()), (200, json!(0)));
    let (_, list) = t.get(&events_path(&t)).await;
    assert!(list.as_array().unwrap().iter().any(|x| x["id"] == id));
    let log = last_entry(&t, 100).await;
    assert_eq!(
        (log["target_id"].clone(), log["reason"].clone()),
        (json!(id), json!("event as code"))
    );
    assert_eq!(change(&log, "name"), Some(&json!("Office hours")));
    assert_eq!(change(&log, "image_hash"), Some(&json!(hash)));
    let (_, page) = t
        .get(&format!("/guilds/{}/audit-logs?action_type=100", t.g()))
        .await;
    assert_eq!(page["guild_scheduled_events"][0]["id"], id);
    // External events: a location and an end, no channel.
    let (s, x) = t.post(&events_path(&t), external_event("RustConf")).await;
    assert_eq!(s, 200, "{x}");
    assert_eq!(
        (x["channel_id"].clone(), x["entity_metadata"].clone()),
        (Value::Null, json!({"location": "RustConf, Montreal"}))
    );
    // Stage events: a stage channel.
    let town_hall = stage(&t).await;
    let mut b = voice_event(&t, "Town hall");
    b["entity_type"] = json!(1);
    b["channel_id"] = json!(town_hall);
    let (s, x) = t.post(&events_path(&t), b).await;
    assert_eq!((s, x["entity_type"].clone()), (200, json!(1)), "{x}");
}

#[tokio::test]
async fn the_entity_decides_the_fields_it_needs() {
    let t = T::new().await;
    let path = events_path(&t);
    let general = t.chan("general");
    let town_hall = stage(&t).await;
    let cases: Vec<(Value, Vec<&str>, &str)> = vec![
        (
            {
                let mut b = voice_event(&t, "v");
                b["channel_id"] = json!(general);
                b
            },
            vec!["channel_id"],
            "CHANNEL_TYPE_INVALID",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["channel_id"] = json!(town_hall);
                b
            },
            vec!["channel_id"],
            "CHANNEL_TYPE_INVALID",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["entity_type"] = json!(1);
                b
            },
            vec!["channel_id"],
            "CHANNEL_TYPE_INVALID",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b.as_object_mut().unwrap().remove("channel_id");
                b
            },
            vec!["channel_id"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["channel_id"] = json!("123456789012345678");
                b
            },
            vec!["channel_id"],
            "CHANNEL_NOT_FOUND",
        ),
        (
            {
                let mut b = external_event("x");
                b.as_object_mut().unwrap().remove("entity_metadata");
                b
            },
            vec!["entity_metadata", "location"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            {
                let mut b = external_event("x");
                b["scheduled_end_time"] = Value::Null;
                b
            },
            vec!["scheduled_end_time"],
            "BASE_TYPE_REQUIRED",
        ),
        (
            {
                let mut b = external_event("x");
                b["channel_id"] = json!(general);
                b
            },
            vec!["channel_id"],
            "GUILD_SCHEDULED_EVENT_INVALID",
        ),
        (
            {
                let mut b = external_event("x");
                b["entity_metadata"]["location"] = json!("x".repeat(101));
                b
            },
            vec!["entity_metadata", "location"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["name"] = json!("");
                b
            },
            vec!["name"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["name"] = json!("x".repeat(101));
                b
            },
            vec!["name"],
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["description"] = json!("x".repeat(1001));
                b
            },
            vec!["description"],
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["privacy_level"] = json!(1);
                b
            },
            vec!["privacy_level"],
            "BASE_TYPE_CHOICES",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["scheduled_start_time"] = json!("next tuesday");
                b
            },
            vec!["scheduled_start_time"],
            "DATE_TIME_TYPE_PARSE",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["scheduled_start_time"] = json!(rfc3339_in(-1.0));
                b
            },
            vec!["scheduled_start_time"],
            "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["scheduled_end_time"] = json!(rfc3339_in(23.0));
                b
            },
            vec!["scheduled_end_time"],
            "GUILD_SCHEDULED_EVENT_INVALID",
        ),
        (
            {
                let mut b = voice_event(&t, "v");
                b["image"] = json!("not an image");
                b
            },
            vec!["image"],
            "IMAGE_INVALID",
        ),
    ];
    for (body, at, code) in cases {
        let (s, v) = t.post(&path, body.clone()).await;
        assert_eq!(
            (s, error_at(&v, &at)),
            (400, code.to_owned()),
            "{body}\n{v}"
        );
    }
    assert!(
        t.emu.state().guilds[0]
            .scheduled_events
            .iter()
            .all(|e| e.name != "v" && e.name != "x")
    );
    // A start in the past is refused only as configured.
    let mut cfg = t.emu.config();
    cfg.refuse_past_event_start = false;
    t.emu.set_config(cfg).unwrap();
    let mut b = voice_event(&t, "past");
    b["scheduled_start_time"] = json!(rfc3339_in(-1.0));
    let (s, _) = t.post(&path, b).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn status_moves_scheduled_active_completed_or_scheduled_canceled() {
    let t = T::new().await;
    let path = events_path(&t);
    let (_, e) = t.post(&path, voice_event(&t, "Live")).await;
    let one = format!("{path}/{}", e["id"].as_str().unwrap());
    let (s, v) = t.patch(&one, json!({"status": 3})).await;
    assert_eq!(
        (s, error_at(&v, &["status"]).as_str()),
        (400, "GUILD_SCHEDULED_EVENT_INVALID"),
        "1 → 3"
    );
    let (s, v) = t
        .call(
            Method::PATCH,
            &one,
            Some(json!({"status": 2})),
            Some("going%20live"),
        )
        .await;
    assert_eq!((s, v["status"].clone()), (200, json!(2)));
    let log = last_entry(&t, 101).await;
    let status = log["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "status")
        .unwrap();
    assert_eq!(
        (status["old_value"].clone(), status["new_value"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(log["reason"], "going live");
    let (s, v) = t.patch(&one, json!({"status": 1})).await;
    assert_eq!(
        (s, error_at(&v, &["status"]).as_str()),
        (400, "GUILD_SCHEDULED_EVENT_INVALID"),
        "2 → 1"
    );
    let (s, v) = t.patch(&one, json!({"status": 4})).await;
    assert_eq!(s, 400, "2 → 4: {v}");
    let (s, v) = t
        .patch(&one, json!({"scheduled_start_time": rfc3339_in(30.0)}))
        .await;
    assert_eq!(
        (s, error_at(&v, &["scheduled_start_time"]).as_str()),
        (
            400,
            "GUILD_SCHEDULED_EVENT_SCHEDULE_INVALID_START_BY_STATUS"
        ),
        "a running event keeps its start"
    );
    let (s, v) = t.patch(&one, json!({"status": 3})).await;
    assert_eq!((s, v["status"].clone()), (200, json!(3)));
    // Finished: nothing changes any more.
    let (s, v) = t.patch(&one, json!({"name": "Again"})).await;
    assert_eq!((s, err_code(&v)), (400, 180000));
    let (_, e) = t.post(&path, voice_event(&t, "Called off")).await;
    let one = format!("{path}/{}", e["id"].as_str().unwrap());
    let (s, v) = t.patch(&one, json!({"status": 4})).await;
    assert_eq!((s, v["status"].clone()), (200, json!(4)));
    let (s, v) = t.patch(&one, json!({"status": 1})).await;
    assert_eq!((s, err_code(&v)), (400, 180000));
    // A scheduled event's new start must be ahead too.
    let (_, e) = t.post(&path, voice_event(&t, "Moved")).await;
    let one = format!("{path}/{}", e["id"].as_str().unwrap());
    let (s, v) = t.patch(&one, json!({"scheduled_start_time": rfc3339_in(-2.0), "scheduled_end_time": rfc3339_in(-1.0)})).await;
    assert_eq!(
        (s, error_at(&v, &["scheduled_start_time"]).as_str()),
        (400, "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST")
    );
}

#[tokio::test]
async fn an_event_changes_to_external_only_with_its_fields() {
    let t = T::new().await;
    let path = events_path(&t);
    let (_, e) = t.post(&path, voice_event(&t, "Moving out")).await;
    let one = format!("{path}/{}", e["id"].as_str().unwrap());
    let (s, v) = t
        .patch(
            &one,
            json!({"entity_type": 3, "entity_metadata": {"location": "Park"}}),
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["channel_id"]).as_str()),
        (400, "GUILD_SCHEDULED_EVENT_INVALID")
    );
    let (s, v) = t
        .patch(
            &one,
            json!({"entity_type": 3, "channel_id": null, "scheduled_end_time": null,
                            "entity_metadata": {"location": "Park"}}),
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["scheduled_end_time"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
    let (s, v) = t
        .patch(
            &one,
            json!({"entity_type": 3, "channel_id": null, "entity_metadata": {"location": "Park"}}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (
            v["channel_id"].clone(),
            v["entity_metadata"]["location"].clone()
        ),
        (Value::Null, json!("Park"))
    );
    // Back to voice: the metadata goes, silently.
    let lounge = t.chan("Lounge");
    let (s, v) = t
        .patch(&one, json!({"entity_type": 2, "channel_id": lounge, "entity_metadata": {"location": "ignored"}}))
        .await;
    assert_eq!((s, v["entity_metadata"].clone()), (200, Value::Null), "{v}");
    let (s, _) = t.delete(&one).await;
    assert_eq!(s, 204);
    let (s, v) = t.get(&one).await;
    assert_eq!((s, err_code(&v)), (404, 10070));
    assert_eq!(last_entry(&t, 102).await["target_id"], e["id"]);
}

#[tokio::test]
async fn recurrence_rules_are_held_to_the_system_limitations() {
    let t = T::new().await;
    let path = events_path(&t);
    let start = rfc3339_in(24.0);
    let rule = |r: Value| {
        let mut b = voice_event(&t, "Recurring");
        let mut r = r;
        r["start"] = json!(start);
        b["recurrence_rule"] = r;
        b
    };
    // The docs' own examples.
    for ok in [
        json!({"frequency": 3, "interval": 1, "by_weekday": [0, 1, 2, 3, 4]}),
        json!({"frequency": 3, "by_weekday": [6, 0]}),
        json!({"frequency": 2, "interval": 1, "by_weekday": [2]}),
        json!({"frequency": 2, "interval": 2, "by_weekday": [2]}),
        json!({"frequency": 1, "interval": 1, "by_n_weekday": [{"n": 4, "day": 2}]}),
        json!({"frequency": 0, "interval": 1, "by_month": [7], "by_month_day": [24]}),
        json!({"frequency": 0, "by_month": [2], "by_month_day": [29]}),
    ] {
        let (s, v) = t.post(&path, rule(ok.clone())).await;
        assert_eq!(s, 200, "{ok}: {v}");
        let r = &v["recurrence_rule"];
        assert_eq!(r["frequency"], ok["frequency"]);
        assert_eq!(
            r["interval"],
            ok.get("interval").cloned().unwrap_or(json!(1))
        );
        for key in ["end", "count", "by_year_day"] {
            assert_eq!(r[key], Value::Null, "{key} is never set");
        }
        assert!(
            r.as_object().unwrap().contains_key("by_month"),
            "every field, null when unset"
        );
    }
    for (bad, at) in [
        (
            json!({"frequency": 2, "by_weekday": [2], "end": start}),
            "end",
        ),
        (
            json!({"frequency": 2, "by_weekday": [2], "count": 3}),
            "count",
        ),
        (json!({"frequency": 0, "by_year_day": [100]}), "by_year_day"),
        (json!({"frequency": 3, "by_weekday": [0, 2]}), "by_weekday"),
        (json!({"frequency": 2, "by_weekday": [1, 3]}), "by_weekday"),
        (json!({"frequency": 1, "by_weekday": [1]}), "by_weekday"),
        (
            json!({"frequency": 2, "by_n_weekday": [{"n": 1, "day": 0}]}),
            "by_n_weekday",
        ),
        (
            json!({"frequency": 1, "by_n_weekday": [{"n": 1, "day": 0}, {"n": 3, "day": 0}]}),
            "by_n_weekday",
        ),
        (json!({"frequency": 0, "by_month": [7]}), "by_month"),
        (
            json!({"frequency": 0, "by_month": [7, 8], "by_month_day": [1]}),
            "by_month",
        ),
        (
            json!({"frequency": 1, "by_month": [7], "by_month_day": [1]}),
            "by_month",
        ),
        (
            json!({"frequency": 0, "by_month": [2], "by_month_day": [30]}),
            "by_month_day",
        ),
        (json!({"frequency": 3, "interval": 2}), "interval"),
        (
            json!({"frequency": 2, "interval": 3, "by_weekday": [2]}),
            "interval",
        ),
    ] {
        let (s, v) = t.post(&path, rule(bad.clone())).await;
        assert_eq!(s, 400, "{bad}");
        assert!(
            !error_at(&v, &["recurrence_rule", at]).is_empty(),
            "{bad}: {v}"
        );
    }
    let (s, v) = t
        .post(
            &path,
            rule(json!({"frequency": 2, "by_weekday": [2], "by_n_weekday": [{"n": 1, "day": 2}]})),
        )
        .await;
    assert_eq!(
        (s, error_at(&v, &["recurrence_rule"]).as_str()),
        (400, "GUILD_SCHEDULED_EVENT_INVALID")
    );
    let (s, v) = t.post(&path, rule(json!({"by_weekday": [2]}))).await;
    assert_eq!(
        (s, error_at(&v, &["recurrence_rule", "frequency"]).as_str()),
        (400, "BASE_TYPE_REQUIRED")
    );
}

fn with_events(n: usize, status: u8) -> State {
    let mut st = default_state();
    let g = &mut st.guilds[0];
    g.scheduled_events = (0..n)
        .map(|i| ScheduledEvent {
            id: (1_400_000_000_000_000_000u64 + i as u64).to_string(),
            channel_id: None,
            creator_id: Some(g.owner_id.clone()),
            name: format!("Meetup {i}"),
            description: None,
            scheduled_start_time: "2030-01-02T18:00:00.000000+00:00".into(),
            scheduled_end_time: Some("2030-01-02T19:00:00.000000+00:00".into()),
            privacy_level: 2,
            status,
            entity_type: 3,
            entity_id: None,
            entity_metadata: Some(discord_emulator::state::EntityMetadata {
                location: "Park".into(),
            }),
            image: None,
            recurrence_rule: None,
            user_count: 0,
        })
        .collect();
    st
}

#[tokio::test]
async fn a_guild_holds_100_scheduled_or_active_events() {
    let t = T::with(with_events(100, 1)).await;
    let (s, v) = t.post(&events_path(&t), external_event("101st")).await;
    assert_eq!((s, err_code(&v)), (400, 30038));
    let t = T::with(with_events(100, 3)).await;
    let (s, _) = t
        .post(&events_path(&t), external_event("after the others ended"))
        .await;
    assert_eq!(s, 200, "completed events do not count");
}

#[tokio::test]
async fn create_events_creates_and_manage_events_changes_anyones() {
    let mut st = with_bot_permissions(Permissions::CREATE_EVENTS);
    st.guilds[0].scheduled_events = with_events(1, 1).guilds[0].scheduled_events.clone();
    let t = T::with(st).await;
    let path = events_path(&t);
    let (s, mine) = t.post(&path, external_event("Mine")).await;
    assert_eq!(s, 200, "{mine}");
    let (s, _) = t
        .patch(
            &format!("{path}/{}", mine["id"].as_str().unwrap()),
            json!({"name": "Still mine"}),
        )
        .await;
    assert_eq!(s, 200, "one's own with CREATE_EVENTS");
    let other = format!("{path}/1400000000000000000");
    let (s, v) = t.patch(&other, json!({"name": "Not mine"})).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t.delete(&other).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    // A voice event needs CONNECT in its channel as well (here @everyone lacks it).
    let connect = Permissions::from_name("connect").unwrap();
    let without_connect = |bot: Permissions| {
        let mut st = with_bot_permissions(bot);
        let g = &mut st.guilds[0];
        let everyone = g.id.clone();
        let r = g.roles.iter_mut().find(|r| r.id == everyone).unwrap();
        r.permissions = Permissions(r.permissions.0 & !connect.0);
        st
    };
    let t = T::with(without_connect(Permissions::CREATE_EVENTS)).await;
    let (s, v) = t
        .post(&events_path(&t), voice_event(&t, "No connect"))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let t = T::with(without_connect(Permissions::CREATE_EVENTS | connect)).await;
    let (s, _) = t.post(&events_path(&t), voice_event(&t, "Connect")).await;
    assert_eq!(s, 200);
    // MANAGE_EVENTS alone creates nothing; it changes anyone's.
    let mut st = with_bot_permissions(Permissions::MANAGE_EVENTS);
    st.guilds[0].scheduled_events = with_events(1, 1).guilds[0].scheduled_events.clone();
    let t = T::with(st).await;
    let (s, _) = t.post(&events_path(&t), external_event("Nope")).await;
    assert_eq!(s, 403);
    let (s, _) = t
        .patch(
            &format!("{}/1400000000000000000", events_path(&t)),
            json!({"name": "Renamed"}),
        )
        .await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn events_in_channels_the_caller_cannot_see_are_hidden() {
    let mut st = default_state();
    let hidden = st.guilds[0]
        .channels
        .iter()
        .find(|c| c.name == "mod-chat")
        .unwrap()
        .id
        .clone();
    // A voice channel in Staff, which @everyone cannot view.
    let mut staff_voice = st.guilds[0]
        .channels
        .iter()
        .find(|c| c.name == "Lounge")
        .unwrap()
        .clone();
    staff_voice.id = "1400000000000000099".into();
    staff_voice.name = "Staff Voice".into();
    staff_voice.parent_id = st.guilds[0].channel(&hidden).unwrap().parent_id.clone();
    staff_voice.permission_overwrites = st.guilds[0]
        .channel(&hidden)
        .unwrap()
        .permission_overwrites
        .clone();
    st.guilds[0].channels.push(staff_voice);
    let mut ev = with_events(1, 1).guilds[0].scheduled_events[0].clone();
    ev.entity_type = 2;
    ev.channel_id = Some("1400000000000000099".into());
    ev.entity_metadata = None;
    st.guilds[0].scheduled_events = vec![ev];
    let bot_role = st.guilds[0]
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    bot_role.permissions = Permissions::VIEW_CHANNEL | Permissions::MANAGE_EVENTS;
    let t = T::with(st).await;
    let (s, list) = t.get(&events_path(&t)).await;
    assert_eq!((s, list), (200, json!([])));
    let (s, v) = t
        .get(&format!("{}/1400000000000000099", events_path(&t)))
        .await;
    assert_eq!((s, err_code(&v)), (404, 10070), "not an event id");
    let (s, v) = t
        .get(&format!("{}/1400000000000000000", events_path(&t)))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001));
}
