//! The `body` fault: a 200 with a body of the test's choosing, for testing
//! clients against responses Discord would never send.

mod emulator_support;

use discord_emulator::{FaultKind, FaultRule, FaultSet};
use emulator_support::T;

#[tokio::test]
async fn a_body_fault_answers_200_with_the_text_and_does_no_write() {
    let t = T::new().await;
    let g = t.emu.guild_id.clone();
    let broken = "[{\"id\": \"1\", \"type\": 0, \"name\": \"trunc";
    t.emu
        .set_faults(FaultSet {
            seed: Some(3),
            rules: vec![
                FaultRule {
                    method: "GET".into(),
                    path: "/guilds/*/channels".into(),
                    probability: 1.0,
                    kind: FaultKind::Body(broken.into()),
                },
                FaultRule {
                    method: "PATCH".into(),
                    path: "/guilds/*".into(),
                    probability: 1.0,
                    kind: FaultKind::Body("not json".into()),
                },
            ],
        })
        .unwrap();
    let get = |path: String| {
        t.http
            .get(format!("{}{path}", t.emu.api_base))
            .header("Authorization", format!("Bot {}", t.emu.token))
            .send()
    };
    let resp = get(format!("/guilds/{g}/channels")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    assert_eq!(resp.text().await.unwrap(), broken);

    // A matching write is answered the same way, and not done.
    let patch = t
        .http
        .patch(format!("{}/guilds/{g}", t.emu.api_base))
        .header("Authorization", format!("Bot {}", t.emu.token))
        .json(&serde_json::json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status().as_u16(), 200);
    assert_eq!(patch.text().await.unwrap(), "not json");
    assert_eq!(t.emu.state().guilds[0].name, "Ferris Fans");

    // Other routes are untouched.
    let guild: serde_json::Value = get(format!("/guilds/{g}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(guild["id"], g.as_str());

    let log = t.emu.requests();
    assert_eq!(log[0].fault.as_deref(), Some("body"));
    assert_eq!(log[0].status, 200);
    assert_eq!(log[1].fault.as_deref(), Some("body"));
    assert_eq!(log[2].fault, None);
}

#[tokio::test]
async fn the_body_kind_is_posted_as_json() {
    let t = T::new().await;
    let resp = t
        .http
        .post(format!("{}/_emulator/faults", t.emu.base_url))
        .json(&serde_json::json!({"rules": [
            {"method": "GET", "path": "/guilds/*/roles", "kind": {"body": "{}"}}
        ]}))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    assert_eq!(t.emu.faults().rules[0].kind, FaultKind::Body("{}".into()));
}
