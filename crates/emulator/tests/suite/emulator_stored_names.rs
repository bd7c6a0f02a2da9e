//! Names as Discord stores them (docs/discord.md §9.2): webhook names come back
//! trimmed and collapsed, role, category and voice names trimmed with their inner
//! whitespace kept (or collapsed, with `collapse_inner_whitespace`), text-like channels
//! normalised further (§4.2); lengths are checked on the stored form, and audit-log
//! entries record what was stored. Over real HTTP.

use crate::emulator_support;

use discord_emulator::default_state;
use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

/// The first error under `errors.<key>`.
fn name_error(v: &Value) -> &Value {
    &v["errors"]["name"]["_errors"][0]
}

/// Asserts a 400 50035 with BASE_TYPE_BAD_LENGTH on `name`.
fn assert_bad_length(s: u16, v: &Value, min: usize, max: usize) {
    assert_eq!((s, err_code(v)), (400, 50035), "{v}");
    assert_eq!(
        *name_error(v),
        json!({"code": "BASE_TYPE_BAD_LENGTH",
               "message": format!("Must be between {min} and {max} in length.")}),
        "{v}"
    );
}

/// The `new_value` (or `old_value`) of `key` in the newest entry of
/// `action_type` for `target`.
async fn logged(t: &T, action_type: u32, target: &str, key: &str, side: &str) -> Value {
    let entries = t
        .audit(&format!("?action_type={action_type}&target_id={target}"))
        .await;
    let e = entries
        .first()
        .unwrap_or_else(|| panic!("no {action_type} entry for {target}"));
    e["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == key)
        .unwrap_or_else(|| panic!("no {key} change in {e}"))[side]
        .clone()
}

// ------------------------------------------------------------------ roles

/// A test state whose role, category and voice names keep their inner whitespace
/// (Discord's own data) or collapse it (`collapse_inner_whitespace`).
fn spacing(collapse: bool) -> discord_emulator::State {
    let mut st = default_state();
    st.config.collapse_inner_whitespace = collapse;
    st
}

#[tokio::test]
async fn role_names_are_stored_trimmed_with_inner_whitespace_as_configured() {
    for (collapse, created, renamed) in [
        (false, "Release \t  Team", "Ops \n\n Crew"),
        (true, "Release Team", "Ops Crew"),
    ] {
        let t = T::with(spacing(collapse)).await;
        let g = t.g();
        let (s, r) = t
            .post(
                &format!("/guilds/{g}/roles"),
                json!({"name": "  Release \t  Team  "}),
            )
            .await;
        assert_eq!(s, 200, "{r}");
        assert_eq!(r["name"], created);
        let rid = r["id"].as_str().unwrap().to_owned();
        let (_, back) = t.get(&format!("/guilds/{g}/roles/{rid}")).await;
        assert_eq!(back["name"], created, "a read returns the stored name");
        assert_eq!(logged(&t, 30, &rid, "name", "new_value").await, created);

        let (s, r) = t
            .patch(
                &format!("/guilds/{g}/roles/{rid}"),
                json!({"name": "\nOps \n\n Crew "}),
            )
            .await;
        assert_eq!(s, 200, "{r}");
        assert_eq!(r["name"], renamed);
        assert_eq!(logged(&t, 31, &rid, "name", "old_value").await, created);
        assert_eq!(logged(&t, 31, &rid, "name", "new_value").await, renamed);

        // Sending the stored form again is no change: no new entry.
        let before = t.audit("?action_type=31").await.len();
        let (s, _) = t
            .patch(
                &format!("/guilds/{g}/roles/{rid}"),
                json!({"name": renamed}),
            )
            .await;
        assert_eq!(s, 200);
        assert_eq!(t.audit("?action_type=31").await.len(), before);
    }
}

/// Asserts a 400 50035 with BASE_TYPE_REQUIRED on `name`.
fn assert_required(s: u16, v: &Value) {
    assert_eq!((s, err_code(v)), (400, 50035), "{v}");
    assert_eq!(
        *name_error(v),
        json!({"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}),
        "{v}"
    );
}

#[tokio::test]
async fn role_name_lengths_are_checked_on_the_stored_name() {
    let t = T::new().await;
    let g = t.g();
    for body in [json!({"name": "   "}), json!({"name": ""})] {
        let (s, v) = t.post(&format!("/guilds/{g}/roles"), body).await;
        assert_required(s, &v);
    }
    let member = t.role("Member");
    let (s, v) = t
        .patch(
            &format!("/guilds/{g}/roles/{member}"),
            json!({"name": " \t "}),
        )
        .await;
    assert_required(s, &v);
    assert_eq!(
        t.emu.state().guilds[0].role(&member).unwrap().name,
        "Member"
    );

    // 100 characters once trimmed: accepted though 104 were sent.
    let hundred = "r".repeat(100);
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/roles"),
            json!({"name": format!("  {hundred}  ")}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["name"], hundred.as_str());
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/roles"),
            json!({"name": "r".repeat(101)}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035), "{v}");
    assert_eq!(
        *name_error(&v),
        json!({"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."})
    );
}

// --------------------------------------------------------------- webhooks

#[tokio::test]
async fn webhook_names_are_stored_collapsed_on_every_route() {
    let t = T::new().await;
    let general = t.chan("general");
    let (s, w) = t
        .post(
            &format!("/channels/{general}/webhooks"),
            json!({"name": "  Deploy \t\t bot "}),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "Deploy bot");
    let wid = w["id"].as_str().unwrap().to_owned();
    let token = w["token"].as_str().expect("own webhook's token").to_owned();
    assert_eq!(
        logged(&t, 50, &wid, "name", "new_value").await,
        "Deploy bot"
    );

    let (s, w) = t
        .patch(
            &format!("/webhooks/{wid}"),
            json!({"name": "Build   Bot  "}),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "Build Bot");
    assert_eq!(logged(&t, 51, &wid, "name", "new_value").await, "Build Bot");

    let (s, w) = t
        .anonymous(
            Method::PATCH,
            &format!("/webhooks/{wid}/{token}"),
            Some(json!({"name": "\u{3000}Token \n Name"})),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], "Token Name", "unicode whitespace counts too");
    assert_eq!(logged(&t, 51, &wid, "name", "old_value").await, "Build Bot");
    assert_eq!(
        logged(&t, 51, &wid, "name", "new_value").await,
        "Token Name"
    );
    let (_, back) = t.get(&format!("/webhooks/{wid}")).await;
    assert_eq!(back["name"], "Token Name");

    // Whitespace only is refused like an empty name, on every route.
    let (s, v) = t
        .post(
            &format!("/channels/{general}/webhooks"),
            json!({"name": " \n "}),
        )
        .await;
    assert_bad_length(s, &v, 1, 80);
    let (s, v) = t
        .patch(&format!("/webhooks/{wid}"), json!({"name": "  "}))
        .await;
    assert_bad_length(s, &v, 1, 80);
    let (s, v) = t
        .anonymous(
            Method::PATCH,
            &format!("/webhooks/{wid}/{token}"),
            Some(json!({"name": "\t"})),
        )
        .await;
    assert_bad_length(s, &v, 1, 80);
    // 80 once collapsed: accepted though more was sent.
    let eighty = format!("{} {}", "w".repeat(40), "w".repeat(39));
    let (s, w) = t
        .patch(
            &format!("/webhooks/{wid}"),
            json!({"name": format!("  {}    {}  ", "w".repeat(40), "w".repeat(39))}),
        )
        .await;
    assert_eq!(s, 200, "{w}");
    assert_eq!(w["name"], eighty.as_str());
}

// --------------------------------------------------------------- channels

#[tokio::test]
async fn channel_names_of_every_type_are_stored_normalised() {
    for collapse in [false, true] {
        channel_names_stored(collapse).await;
    }
}

async fn channel_names_stored(collapse: bool) {
    let mut st = spacing(collapse);
    // Announcement channels need NEWS (§4.1).
    st.guilds[0].features.push("NEWS".into());
    let t = T::with(st).await;
    let g = t.g();
    let kept =
        |kept: &'static str, collapsed: &'static str| if collapse { collapsed } else { kept };
    let cases = [
        (0, "  Big   News!  ", "big-news"),
        (5, " Release  Notes ", "release-notes"),
        (15, "Q&A  Help", "qa-help"),
        (2, "  Voice \t Chat ", kept("Voice \t Chat", "Voice Chat")),
        (13, " Town   Hall ", kept("Town   Hall", "Town Hall")),
        (4, "  Staff   Area ", kept("Staff   Area", "Staff Area")),
    ];
    for (kind, sent, stored) in cases {
        let (s, c) = t
            .post(
                &format!("/guilds/{g}/channels"),
                json!({"name": sent, "type": kind}),
            )
            .await;
        assert_eq!(s, 201, "type {kind}: {c}");
        assert_eq!(c["name"], stored, "type {kind}");
        let cid = c["id"].as_str().unwrap().to_owned();
        assert_eq!(t.channel(&cid).await["name"], stored, "type {kind} read");
        assert_eq!(
            logged(&t, 10, &cid, "name", "new_value").await,
            stored,
            "type {kind} create entry"
        );
    }
}

#[tokio::test]
async fn channel_renames_are_stored_normalised_and_logged_so() {
    for collapse in [false, true] {
        channel_renames(collapse).await;
    }
}

async fn channel_renames(collapse: bool) {
    let t = T::with(spacing(collapse)).await;
    let kept =
        |kept: &'static str, collapsed: &'static str| if collapse { collapsed } else { kept };
    let renames = [
        ("general", "  Main   Hall ", "main-hall"),
        (
            "Lounge",
            "  Chill \n Zone ",
            kept("Chill \n Zone", "Chill Zone"),
        ),
        (
            "General",
            " Common   Room",
            kept("Common   Room", "Common Room"),
        ),
    ];
    for (old, sent, stored) in renames {
        let cid = t.chan(old);
        let (s, c) = t
            .patch(&format!("/channels/{cid}"), json!({"name": sent}))
            .await;
        assert_eq!(s, 200, "{old}: {c}");
        assert_eq!(c["name"], stored, "{old}");
        assert_eq!(t.channel(&cid).await["name"], stored);
        assert_eq!(logged(&t, 11, &cid, "name", "old_value").await, old);
        assert_eq!(logged(&t, 11, &cid, "name", "new_value").await, stored);
    }
}

#[tokio::test]
async fn channel_name_lengths_are_checked_on_the_stored_name() {
    let t = T::new().await;
    let g = t.g();
    for (kind, sent) in [(2, "   "), (4, "\t\n"), (0, " !!! "), (13, "")] {
        let (s, v) = t
            .post(
                &format!("/guilds/{g}/channels"),
                json!({"name": sent, "type": kind}),
            )
            .await;
        assert_bad_length(s, &v, 1, 100);
    }
    let lounge = t.chan("Lounge");
    let (s, v) = t
        .patch(&format!("/channels/{lounge}"), json!({"name": "  "}))
        .await;
    assert_bad_length(s, &v, 1, 100);
    assert_eq!(t.channel(&lounge).await["name"], "Lounge");

    // 100 once stored: accepted although more characters were sent.
    let hundred = "v".repeat(100);
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": format!("   {hundred}   "), "type": 2}),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(c["name"], hundred.as_str());
    let (s, c) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": format!("{hundred}!?"), "type": 0}),
        )
        .await;
    assert_eq!(s, 201, "punctuation dropped first: {c}");
    assert_eq!(c["name"], hundred.as_str());
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/channels"),
            json!({"name": "v".repeat(101), "type": 2}),
        )
        .await;
    assert_bad_length(s, &v, 1, 100);
}
