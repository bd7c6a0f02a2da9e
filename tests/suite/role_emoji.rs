//! A role's `unicode_emoji` needs the guild feature ROLE_ICONS (issue 20, point 8): `plan`
//! refuses it at its manifest line before any call on a guild without the feature, and
//! plans, applies and converges on one with it. Over HTTP against the emulator.

use crate::common;

use common::{GuildNames, Harness};

const EMOJI: &str = "version: 1\nroles:\n  - name: Helper\n    unicode_emoji: \"📚\"\n";

#[tokio::test]
async fn without_role_icons_plan_refuses_unicode_emoji_at_its_line() {
    let h = Harness::start().await;
    assert!(!h.guild().features.iter().any(|f| f == "ROLE_ICONS"));
    let m = h.manifest("m.yaml", EMOJI);
    h.emu.clear_requests();
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "role `Helper`: `unicode_emoji` needs the guild feature ROLE_ICONS, which this guild does not have (Discord refuses it: 50101)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("m.yaml:4:"),
        "at its line: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("remove `unicode_emoji` from this role"),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());

    // apply refuses it as plan does, before any write.
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    run.assert_code(1);
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());

    // Taking an emoji off needs no feature: `null` plans (to no change here).
    let m = h.manifest(
        "off.yaml",
        "version: 1\nroles:\n  - name: Helper\n    unicode_emoji: null\n",
    );
    h.run(&["plan", "-f", m.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn with_role_icons_unicode_emoji_applies_and_converges() {
    let mut st = discord_emulator::default_state();
    st.guilds[0].features.push("ROLE_ICONS".into());
    let h = Harness::with_state(Some(st)).await;
    let m = h.manifest("m.yaml", EMOJI);
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("unicode_emoji"), "{}", plan.stdout);
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let g = h.guild();
    let helper = g.role_named("Helper");
    assert_eq!(helper.unicode_emoji.as_deref(), Some("📚"));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);

    // The feature lost (boosts gone), the emoji kept: an unchanged emoji is no call, so
    // no refusal either.
    let mut st = h.emu.state();
    st.guilds[0].features.retain(|f| f != "ROLE_ICONS");
    let h = Harness::with_state(Some(st)).await;
    let m = h.manifest("m.yaml", EMOJI);
    h.run(&["plan", "-f", m.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
}
