//! A broken read is never an empty guild: when one of the seven reads answers something
//! Discord never sends (a list missing, an entry without its id or type, a value of the wrong
//! type, a cut-off or non-JSON body, a welcome screen, onboarding or webhook list of the wrong
//! shape, a guild without @everyone), `plan` and `apply --yes` exit 1 with an error naming the
//! call and what was wrong, and send nothing but GETs.
//!
//! Each case replaces one response with the emulator's `body` fault; the manifest is the
//! community example, which a correct read would turn into many writes.

use crate::common;

use common::{Harness, example};
use discord_emulator::{FaultKind, FaultRule, FaultSet};
use serde_json::Value;

/// The emulator's real answer to `GET path`, as JSON.
async fn real(h: &Harness, path: &str) -> Value {
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

/// Serves `body` for `GET route` from now on.
fn break_route(h: &Harness, route: &str, body: String) {
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
    h.emu.clear_requests();
}

/// `plan` and `apply --yes` both fail with `call` and `what` in the message; no write.
async fn refused(h: &Harness, call: &str, what: &str) {
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    for args in [vec!["plan", "-f", m], vec!["apply", "-f", m, "--yes"]] {
        let run = h.run(&args).await;
        run.assert_code(1);
        let line = run
            .stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("{args:?}: no error line in\n{}", run.stderr));
        assert!(
            line.contains(&format!("{call}: the response was not what Discord sends")),
            "{args:?}: expected {call} in {line}"
        );
        assert!(line.contains(what), "{args:?}: expected {what:?} in {line}");
        assert!(
            line.starts_with("error: reading the live guild: "),
            "{args:?}: {line}"
        );
        assert!(
            !run.stdout.contains("Plan for"),
            "{args:?}: a plan was made from a broken read:\n{}",
            run.stdout
        );
    }
    let requests = h.requests();
    assert!(!requests.is_empty(), "guildctl did read");
    let writes: Vec<_> = requests.iter().filter(|r| r.method != "GET").collect();
    assert!(writes.is_empty(), "{writes:?}");
}

async fn guild_case(edit: impl FnOnce(&mut Value), what: &str) {
    let h = Harness::start().await;
    let path = format!("/guilds/{}", h.emu.guild_id);
    let mut guild = real(&h, &path).await;
    edit(&mut guild);
    break_route(&h, "/guilds/*", guild.to_string());
    refused(&h, &format!("GET {path}"), what).await;
}

async fn channels_case(edit: impl FnOnce(&mut Value) -> String, what: &str) {
    let h = Harness::start().await;
    let path = format!("/guilds/{}/channels", h.emu.guild_id);
    let mut channels = real(&h, &path).await;
    let body = edit(&mut channels);
    break_route(&h, "/guilds/*/channels", body);
    refused(&h, &format!("GET {path}"), what).await;
}

#[tokio::test]
async fn a_guild_without_roles() {
    guild_case(
        |g| {
            g.as_object_mut().unwrap().remove("roles");
        },
        "missing field `roles`",
    )
    .await;
}

#[tokio::test]
async fn a_guild_whose_roles_lack_everyone() {
    guild_case(
        |g| g["roles"] = Value::Array(Vec::new()),
        "`roles` lacks @everyone (the role whose id is the guild's) among its 0 role(s)",
    )
    .await;
}

#[tokio::test]
async fn a_role_of_the_wrong_type() {
    guild_case(
        |g| g["roles"][1]["position"] = Value::String("high".into()),
        "at roles[1].position: invalid type: string \"high\"",
    )
    .await;
}

#[tokio::test]
async fn a_channel_without_its_id() {
    channels_case(
        |c| {
            c[2].as_object_mut().unwrap().remove("id");
            c.to_string()
        },
        "at [2]: missing field `id`",
    )
    .await;
}

#[tokio::test]
async fn a_channel_without_its_type() {
    channels_case(
        |c| {
            c[0].as_object_mut().unwrap().remove("type");
            c.to_string()
        },
        "at [0]: missing field `type`",
    )
    .await;
}

#[tokio::test]
async fn a_channel_type_of_the_wrong_type() {
    channels_case(
        |c| {
            c[1]["type"] = Value::String("text".into());
            c.to_string()
        },
        "at [1].type: invalid type: string \"text\"",
    )
    .await;
}

#[tokio::test]
async fn a_channel_without_its_overwrites() {
    channels_case(
        |c| {
            c[3].as_object_mut()
                .unwrap()
                .remove("permission_overwrites");
            c.to_string()
        },
        "at [3]: missing field `permission_overwrites`",
    )
    .await;
}

#[tokio::test]
async fn a_channel_listed_twice() {
    channels_case(
        |c| {
            let first = c[0].clone();
            c.as_array_mut().unwrap().push(first);
            c.to_string()
        },
        "is listed twice",
    )
    .await;
}

#[tokio::test]
async fn a_channel_list_cut_off() {
    channels_case(
        |c| {
            let text = c.to_string();
            text[..text.len() / 2].to_string()
        },
        "the body ends early, cut off",
    )
    .await;
}

#[tokio::test]
async fn a_channel_list_that_is_not_json() {
    channels_case(
        |_| "<html><body>502 Bad Gateway</body></html>".into(),
        "the body is not JSON",
    )
    .await;
}

#[tokio::test]
async fn a_channel_list_that_is_empty() {
    channels_case(|_| String::new(), "the body is empty").await;
}

#[tokio::test]
async fn a_channel_list_that_is_an_object() {
    channels_case(
        |c| serde_json::json!({ "channels": c }).to_string(),
        "invalid type: map, expected a sequence",
    )
    .await;
}

/// The welcome screen, onboarding and webhooks may be unreadable (403/404 read as "not
/// shown"), but a 200 of the wrong shape is an error, never "none".
#[tokio::test]
async fn a_welcome_screen_onboarding_or_webhook_list_of_the_wrong_shape() {
    for (route, body, what) in [
        (
            "welcome-screen",
            r#"{"description": null, "welcome_channels": {}}"#,
            "at welcome_channels: invalid type: map, expected a sequence",
        ),
        ("onboarding", "[]", "expected struct Onboarding"),
        (
            "onboarding",
            r#"{"guild_id": "1", "prompts": [], "enabled": true, "mode": 0}"#,
            "missing field `default_channel_ids`",
        ),
        (
            "webhooks",
            r#"{"webhooks": []}"#,
            "invalid type: map, expected a sequence",
        ),
        (
            "webhooks",
            r#"[{"type": 1, "channel_id": null, "name": "x", "avatar": null, "application_id": null}]"#,
            "at [0]: missing field `id`",
        ),
    ] {
        let h = Harness::start().await;
        break_route(&h, &format!("/guilds/*/{route}"), body.into());
        refused(&h, &format!("GET /guilds/{}/{route}", h.emu.guild_id), what).await;
    }
}

#[tokio::test]
async fn the_bot_user_without_its_id() {
    let h = Harness::start().await;
    break_route(
        &h,
        "/users/@me",
        r#"{"username": "guildctl", "bot": true}"#.into(),
    );
    refused(&h, "GET /users/@me", "missing field `id`").await;
}

/// A Discord-compatible server that leaves out a settings field (Spacebar omits
/// `safety_alerts_channel_id`): the guild is read, the field is unknown and said once, and
/// only a manifest that manages it is refused (issue 20, point 9).
#[tokio::test]
async fn a_guild_without_a_setting_the_manifest_leaves_alone_is_read() {
    let h = Harness::start().await;
    let path = format!("/guilds/{}", h.emu.guild_id);
    let mut guild = real(&h, &path).await;
    guild
        .as_object_mut()
        .unwrap()
        .remove("safety_alerts_channel_id");
    break_route(&h, "/guilds/*", guild.to_string());

    let leaves_it = h.manifest(
        "leaves.yaml",
        "version: 1\nsettings:\n  afk_timeout: 300\nroles:\n  - name: Moderator\n",
    );
    let run = h.run(&["plan", "-f", leaves_it.to_str().unwrap()]).await;
    assert_ne!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let said = format!(
        "GET {path} did not return `safety_alerts_channel_id`; the manifest does not manage `settings.safety_alerts_channel`, so it is left as it is, unknown"
    );
    assert_eq!(run.stdout.matches(&said).count(), 1, "{}", run.stdout);

    // Export leaves it out rather than writing a value it never read, and plans back clean.
    let export = h.run(&["export", "-o", "exported.yaml"]).await;
    export.assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(!text.contains("safety_alerts_channel"), "{text}");
    assert!(
        text.contains("rules_channel"),
        "the other settings are written: {text}"
    );
    h.run(&["plan", "-f", "exported.yaml", "--detailed-exitcode"])
        .await
        .assert_code(0);

    // Managing it is refused, on its line, before any write.
    let manages_it = h.manifest(
        "manages.yaml",
        "version: 1\nsettings:\n  safety_alerts_channel: mod-log\n",
    );
    for args in [
        vec!["plan", "-f", manages_it.to_str().unwrap()],
        vec!["apply", "-f", manages_it.to_str().unwrap(), "--yes"],
    ] {
        let run = h.run(&args).await;
        run.assert_code(1);
        assert!(
            run.stderr.contains(&format!(
                "the live guild's `safety_alerts_channel` is unknown: GET {path} did not return `safety_alerts_channel_id`"
            )),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("manages.yaml:3:"), "{}", run.stderr);
    }
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}
