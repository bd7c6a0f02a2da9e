//! The first hour's papercuts (issue 35, point 6): each small wrong turn a new user met,
//! run as they would meet it, against the emulator over HTTP.

mod common;

use common::Harness;
use discord_emulator::{FaultKind, FaultRule, FaultSet};

/// Serves `body` for `GET route` from now on.
fn serve(h: &Harness, route: &str, body: String) {
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "GET".into(),
                path: route.into(),
                probability: 1.0,
                kind: FaultKind::Body(body),
            }],
        })
        .unwrap();
}

/// The emulator's real answer to `GET path`, as JSON.
async fn real(h: &Harness, path: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(format!("{}{path}", h.emu.api_base))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A managed setting the server did not return is reported, and drift does not then say
/// the guild matches or exit 0: a value it could not read is not a match.
#[tokio::test]
async fn drift_of_a_managed_setting_it_could_not_read_is_not_a_match() {
    let h = Harness::start().await;
    let path = format!("/guilds/{}", h.emu.guild_id);
    let mut guild = real(&h, &path).await;
    guild
        .as_object_mut()
        .unwrap()
        .remove("safety_alerts_channel_id");
    serve(&h, "/guilds/*", guild.to_string());
    let m = h.manifest(
        "manages.yaml",
        "version: 1\nsettings:\n  safety_alerts_channel: mod-log\n",
    );
    let run = h.run(&["drift", "-f", m.to_str().unwrap()]).await;
    run.assert_code(2);
    assert!(
        run.stdout
            .contains("the live guild's `safety_alerts_channel` is unknown"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("No changes"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("The guild could not be shown to match the manifest: 1 manifest problem(s)"),
        "{}",
        run.stdout
    );
}

/// A typo in `--state` is refused, rather than quietly starting a new guild in a new file.
#[tokio::test]
async fn emulator_call_refuses_a_state_file_that_does_not_exist() {
    let h = Harness::start().await;
    let run = h
        .run(&[
            "emulator",
            "call",
            "--state",
            "sandbx.json",
            "GET",
            "/users/@me",
        ])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("the sandbox state sandbx.json does not exist"),
        "{}",
        run.stderr
    );
    assert!(!h.dir.path().join("sandbx.json").exists());

    // Asked for, a new state starts from the default guild.
    let run = h
        .run(&[
            "emulator",
            "call",
            "--state",
            "new.json",
            "--new",
            "GET",
            "/users/@me",
        ])
        .await;
    run.assert_code(0);
    assert!(h.dir.path().join("new.json").exists());
}
