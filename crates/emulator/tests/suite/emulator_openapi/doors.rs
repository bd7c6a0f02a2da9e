//! The doors' routes (integrations, invites, incident actions, voice regions, the vanity
//! URL, the widget image, the prune count) against the spec.

use super::*;

/// The doors into the guild (issue 24): integrations, invites, incident actions, voice
/// regions, the vanity URL, the widget image and the prune count.
#[tokio::test]
async fn doors_routes_match_the_spec() {
    let mut st = discord_emulator::default_state();
    // A vanity code, so its read returns one (the default guild has none).
    st.guilds[0].vanity_url_code = Some("ferris".into());
    st.guilds[0].vanity_uses = 7;
    let c = Client::start(Some(st)).await;
    let g = c.emu.guild_id.clone();
    let st = c.emu.state();
    let polls = st.guilds[0]
        .integrations
        .iter()
        .find(|i| i.name == "Ferris Polls")
        .unwrap()
        .id
        .clone();
    use Method as M;
    let calls: Vec<(M, &str, String, Option<Value>, u16)> = vec![
        (
            M::GET,
            "/guilds/{guild_id}/integrations",
            format!("/guilds/{g}/integrations"),
            None,
            200,
        ),
        (
            M::DELETE,
            "/guilds/{guild_id}/integrations/{integration_id}",
            format!("/guilds/{g}/integrations/{polls}"),
            None,
            204,
        ),
        (
            M::DELETE,
            "/guilds/{guild_id}/integrations/{integration_id}",
            format!("/guilds/{g}/integrations/{polls}"),
            None,
            404,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/invites",
            format!("/guilds/{g}/invites"),
            None,
            200,
        ),
        (
            M::GET,
            "/invites/{code}",
            "/invites/ferrisfans?with_counts=true".to_owned(),
            None,
            200,
        ),
        (
            M::DELETE,
            "/invites/{code}",
            "/invites/helpdesk".to_owned(),
            None,
            200,
        ),
        (
            M::GET,
            "/invites/{code}",
            "/invites/helpdesk".to_owned(),
            None,
            404,
        ),
        (
            M::PUT,
            "/guilds/{guild_id}/incident-actions",
            format!("/guilds/{g}/incident-actions"),
            Some(
                json!({"invites_disabled_until": rfc3339_in(6.0), "dms_disabled_until": rfc3339_in(2.0)}),
            ),
            200,
        ),
        (
            M::PUT,
            "/guilds/{guild_id}/incident-actions",
            format!("/guilds/{g}/incident-actions"),
            Some(json!({"invites_disabled_until": rfc3339_in(30.0)})),
            400,
        ),
        (
            M::PUT,
            "/guilds/{guild_id}/incident-actions",
            format!("/guilds/{g}/incident-actions"),
            Some(json!({"invites_disabled_until": null, "dms_disabled_until": null})),
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/regions",
            format!("/guilds/{g}/regions"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/vanity-url",
            format!("/guilds/{g}/vanity-url"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/prune",
            format!("/guilds/{g}/prune?days=7"),
            None,
            200,
        ),
        (
            M::GET,
            "/guilds/{guild_id}/prune",
            format!("/guilds/{g}/prune?days=31"),
            None,
            400,
        ),
    ];
    for (method, template, path, body, want) in calls {
        let (s, v) = c.call(method.clone(), template, &path, body).await;
        assert_eq!(s, want, "{method} {path}: {v}");
    }

    // The widget image is a PNG, as the spec's content type says; a disabled widget's
    // refusal is JSON like any other error.
    let png = "/guilds/{guild_id}/widget.png";
    let content = c.checker.response("GET", png, 200)["content"].clone();
    assert!(content.get("image/png").is_some(), "{content}");
    let resp = c
        .http
        .get(format!(
            "{}/guilds/{g}/widget.png?style=banner2",
            c.emu.api_base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    let bytes = resp.bytes().await.unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{bytes:?}");
    c.call(
        M::PATCH,
        "/guilds/{guild_id}/widget",
        &format!("/guilds/{g}/widget"),
        Some(json!({"enabled": false})),
    )
    .await;
    let (s, v) = c
        .call(M::GET, png, &format!("/guilds/{g}/widget.png"), None)
        .await;
    assert_eq!(s, 403, "{v}");
    c.emu.shutdown().await;
}
