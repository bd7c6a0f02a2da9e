//! A role's `unicode_emoji` needs the guild feature ROLE_ICONS, as an icon image does
//! (reference, Create Guild Role's table): refused with 50101 without it, on create and
//! modify; clearing it (null) is allowed either way.

use crate::emulator_support;

use discord_emulator::default_state;
use emulator_support::{T, err_code};
use serde_json::json;

#[tokio::test]
async fn unicode_emoji_needs_role_icons() {
    let t = T::new().await;
    assert!(
        !t.emu.state().guilds[0]
            .features
            .iter()
            .any(|f| f == "ROLE_ICONS"),
        "the default guild has no ROLE_ICONS"
    );
    let roles = format!("/guilds/{}/roles", t.g());
    let (s, e) = t
        .post(&roles, json!({"name": "Readers", "unicode_emoji": "📚"}))
        .await;
    assert_eq!((s, err_code(&e)), (400, 50101), "{e}");
    assert!(
        !t.emu.state().guilds[0]
            .roles
            .iter()
            .any(|r| r.name == "Readers"),
        "nothing was created"
    );
    let helper = format!("{roles}/{}", t.role("Helper"));
    let (s, e) = t.patch(&helper, json!({"unicode_emoji": "📚"})).await;
    assert_eq!((s, err_code(&e)), (400, 50101), "{e}");
    // Null takes an emoji off, which needs no feature.
    let (s, r) = t.patch(&helper, json!({"unicode_emoji": null})).await;
    assert_eq!(s, 200, "{r}");

    let mut st = default_state();
    st.guilds[0].features.push("ROLE_ICONS".into());
    let t = T::with(st).await;
    let helper = format!("/guilds/{}/roles/{}", t.g(), t.role("Helper"));
    let (s, r) = t.patch(&helper, json!({"unicode_emoji": "📚"})).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["unicode_emoji"], "📚");
}
