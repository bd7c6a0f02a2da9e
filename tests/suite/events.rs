//! `events:` (issue 33, point 5) over HTTP against the emulator: apply, converge, a past
//! one-off never recreated, rename in place, recurrence and place refused at the manifest
//! line, an event changed by hand blamed on who did it, the export round trip, and the
//! rehearsal's copy holding the events. Event times are years ahead of (or behind) the
//! wall clock, so what is past and future does not depend on when the tests run.

use crate::common::Harness;
use discord_emulator::State;
use discord_emulator::state::BotToken;
use serde_json::{Value, json};

const HUMAN_TOKEN: &str = "human-owner-token-for-event-tests";

fn state() -> State {
    let mut st = discord_emulator::default_state();
    let owner = st.guilds[0].owner_id.clone();
    st.tokens.push(BotToken {
        token: HUMAN_TOKEN.into(),
        user_id: owner,
    });
    st
}

/// The default guild's weekly event as it is live, written as a manifest writes it.
const OFFICE_HOURS: &str = "  - name: Office hours
    channel: Lounge
    start: \"2030-01-02T18:00:00Z\"
    end: \"2030-01-02T19:00:00Z\"
    recurrence: { frequency: weekly, weekdays: [wednesday] }
    description: Ask the maintainers anything
";

fn json_of(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

fn event<'g>(
    g: &'g discord_emulator::state::Guild,
    name: &str,
) -> &'g discord_emulator::state::ScheduledEvent {
    g.scheduled_events
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("event {name}: {:#?}", g.scheduled_events))
}

#[tokio::test]
async fn future_events_are_created_a_past_one_off_is_not_and_a_second_plan_is_empty() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest(
        "m.yaml",
        &format!(
            "version: 1
events:
{OFFICE_HOURS}  - name: Meetup
    location: Berlin
    start: \"2031-03-01T18:00:00+01:00\"
    end: \"2031-03-01T21:00:00+01:00\"
  - name: Launch party
    location: Online
    start: \"2021-01-06T18:00:00Z\"
    end: \"2021-01-06T19:00:00Z\"
"
        ),
    );
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    let plan = h.plan_json(m).await;
    // The seven reads of the guild and one listing of the events.
    assert_eq!(h.requests().len(), 8, "{:#?}", h.requests());
    let changes = plan["changes"].as_array().unwrap();
    assert_eq!(
        changes.len(),
        1,
        "the live weekly event matches as written: {plan:#}"
    );
    assert_eq!(changes[0]["action"], "create");
    assert_eq!(changes[0]["object"]["name"], "Meetup");
    let warned = plan["warnings"].to_string();
    assert!(
        warned.contains("a past one-off event is not created"),
        "{warned}"
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let meetup = event(&g, "Meetup");
    assert_eq!(meetup.entity_type, 3);
    assert_eq!(
        meetup.entity_metadata.as_ref().map(|m| m.location.as_str()),
        Some("Berlin")
    );
    assert!(g.scheduled_events.iter().all(|e| e.name != "Launch party"));
    let created = g
        .audit_log
        .iter()
        .find(|e| e.action_type == 100)
        .expect("audited");
    assert!(
        created
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl")),
        "{created:#?}"
    );
    assert_eq!(h.plan_json(m).await["changes"], json!([]));
}

#[tokio::test]
async fn an_event_is_renamed_in_place_and_its_rule_changed() {
    let h = Harness::with_state(Some(state())).await;
    let id = event(&h.guild(), "Office hours").id.clone();
    let yaml = format!("version: 1\nevents:\n{OFFICE_HOURS}")
        .replace(
            "  - name: Office hours\n",
            "  - name: Maintainer hours\n    previous_names: [Office hours]\n",
        )
        .replace(
            "{ frequency: weekly, weekdays: [wednesday] }",
            "{ frequency: weekly, interval: 2, weekdays: [wednesday] }",
        );
    let m = h.manifest("m.yaml", &yaml);
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let c = &plan["changes"][0];
    assert_eq!(plan["changes"].as_array().unwrap().len(), 1, "{plan:#}");
    assert_eq!(c["object"]["id"], id.as_str());
    let fields: Vec<_> = c["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "recurrence"], "{c:#}");
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let e = event(&g, "Maintainer hours");
    assert_eq!(e.id, id, "the same event, renamed");
    assert_eq!(e.recurrence_rule.as_ref().map(|r| r.interval), Some(2));
    assert_eq!(h.plan_json(m).await["changes"], json!([]));
}

/// Events are matched as emoji, sounds, stickers and AutoMod rules are
/// (`planner::matching`): a pinned id that names no event, and one an entry before it is
/// pinned to, are refused at the entry's `id` before any call.
#[tokio::test]
async fn a_pinned_id_no_event_has_or_an_earlier_entry_took_is_refused_at_its_id() {
    let h = Harness::with_state(Some(state())).await;
    let id = event(&h.guild(), "Office hours").id.clone();
    let pinned = |name: &str, id: &str| {
        OFFICE_HOURS.replace(
            "  - name: Office hours\n",
            &format!("  - name: {name}\n    id: \"{id}\"\n"),
        )
    };
    let yaml = format!(
        "version: 1\nevents:\n{}{}{}",
        pinned("Office hours", &id),
        pinned("Second hours", &id),
        pinned("Lost hours", "123456789012345678"),
    );
    let m = h.manifest("m.yaml", &yaml);
    h.emu.clear_requests();
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains(&format!(
            "event `Second hours` is pinned to id {id}, which `Office hours` is pinned to already"
        )),
        "{all}"
    );
    assert!(
        all.contains(
            "event `Lost hours` is pinned to id 123456789012345678, which names no event of this guild"
        ),
        "{all}"
    );
    assert!(
        all.contains("events[1].id") && all.contains("events[2].id"),
        "{all}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn recurrence_and_place_are_refused_at_the_manifest_line() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest(
        "m.yaml",
        "version: 1
events:
  - name: Twice a week
    channel: Lounge
    start: \"2030-01-02T18:00:00Z\"
    recurrence: { frequency: weekly, weekdays: [monday, wednesday] }
  - name: Somewhere
    location: Berlin
    start: \"2030-01-02T18:00:00Z\"
",
    );
    h.emu.clear_requests();
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("m.yaml:6:48"), "{}", run.stderr);
    assert!(
        run.stderr.contains("a weekly event names one weekday"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("m.yaml:8:15"), "{}", run.stderr);
    assert!(run.stderr.contains("needs an `end`"), "{}", run.stderr);
    assert!(h.requests().is_empty(), "{:#?}", h.requests());
}

#[tokio::test]
async fn an_event_changed_by_hand_is_drift_naming_who_when_and_why() {
    let h = Harness::with_state(Some(state())).await;
    let g = h.guild();
    let id = event(&g, "Office hours").id.clone();
    let m = h.manifest("m.yaml", &format!("version: 1\nevents:\n{OFFICE_HOURS}"));
    let m = m.to_str().unwrap();
    let res = reqwest::Client::new()
        .patch(format!(
            "{}/guilds/{}/scheduled-events/{id}",
            h.emu.api_base, g.id
        ))
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", "moved to Thursdays")
        .json(&json!({"description": "Ask us on Thursdays"}))
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
        .find(|d| d["name"] == "Office hours")
        .unwrap_or_else(|| panic!("{r:#}"));
    let f = d["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "description")
        .unwrap_or_else(|| panic!("{d:#}"));
    let who = &f["blame"]["entry"];
    assert_eq!(who["user"]["name"], "ferris", "{f:#}");
    assert_eq!(who["action_type"], 101);
    assert_eq!(who["reason"], "moved to Thursdays");
}

#[tokio::test]
async fn an_export_round_trips_the_events() {
    let h = Harness::with_state(Some(state())).await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(yaml.contains("\nevents:\n"), "{yaml}");
    assert!(yaml.contains("start: \"2030-01-02T18:00:00Z\""), "{yaml}");
    assert!(yaml.contains("weekdays: [wednesday]"), "{yaml}");
    let plan = h.plan_json("exported.yaml").await;
    assert_eq!(plan["changes"], json!([]), "{plan:#}");
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_events() {
    let h = Harness::with_state(Some(state())).await;
    let m = h.manifest(
        "m.yaml",
        &format!(
            "version: 1\nevents:\n{}",
            OFFICE_HOURS.replace("Ask the maintainers anything", "Ask us anything")
        ),
    );
    let plan = h.rehearsed_plan(m.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    assert_eq!(r["calls"], 1, "{r:#}");
    assert!(
        h.writes().is_empty(),
        "the rehearsal writes only to its copy"
    );
}

/// A file that is a PNG by its first bytes (all the checks look at); `tag` makes it unique.
fn png(tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(tag.as_bytes());
    b
}

#[tokio::test]
async fn a_cover_image_is_sent_once_and_a_changed_one_again() {
    let h = Harness::with_state(Some(state())).await;
    std::fs::create_dir_all(h.dir.path().join("events")).unwrap();
    let cover = h.dir.path().join("events/office.png");
    std::fs::write(&cover, png("first")).unwrap();
    let m = h.manifest(
        "m.yaml",
        &format!("version: 1\nevents:\n{OFFICE_HOURS}    image: events/office.png\n"),
    );
    let m = m.to_str().unwrap();
    let plan = h.plan_json(m).await;
    let fields: Vec<_> = plan["changes"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["image"], "{plan:#}");
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert!(event(&h.guild(), "Office hours").image.is_some());
    // Read back from the CDN and compared by content: nothing to send again (without the
    // live cover's digest the plan would send the file again).
    assert_eq!(h.plan_json(m).await["changes"], json!([]));
    std::fs::write(&cover, png("second")).unwrap();
    let plan = h.plan_json(m).await;
    assert_eq!(
        plan["changes"][0]["fields"][0]["field"], "image",
        "{plan:#}"
    );
}
