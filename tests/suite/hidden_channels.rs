//! Channels the bot cannot see (docs/discord.md §9.1): Discord omits them from
//! the API, so a declared channel that is missing may exist hidden. guildctl never
//! creates a second copy: without administrator, a missing declared channel or a
//! missing pinned id is refused with what to do, and `--create-unseen` is the
//! explicit override.

use crate::common;

use common::{Harness, arrange};
use discord_emulator::State;

/// The default guild with the bot's role stripped of administrator: it manages
/// roles and channels, and views what its permissions let it view.
fn non_admin_state() -> State {
    let mut state = discord_emulator::default_state();
    arrange(&mut state).role("guildctl").permissions(&[
        "view_channel",
        "manage_channels",
        "manage_roles",
        "manage_guild",
        "send_messages",
    ]);
    state
}

const NEW_CHANNEL: &str = "version: 1\nchannels:\n  - { name: brand-new }\n";

#[tokio::test]
async fn a_missing_channel_is_not_created_by_a_bot_that_may_not_see_it() {
    let h = Harness::with_state(Some(non_admin_state())).await;
    let m = h.manifest("guild.yaml", NEW_CHANNEL);
    let m = m.to_str().unwrap();

    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr.contains(
            "channel `#brand-new` is not among the channels the bot can see; it may exist hidden"
        ),
        "{}",
        plan.stderr
    );
    assert!(plan.stderr.contains("--create-unseen"), "{}", plan.stderr);
    assert!(plan.stderr.contains("guild.yaml:3:"), "{}", plan.stderr);

    let apply = h.run(&["apply", "--yes", "-f", m]).await;
    apply.assert_code(1);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    assert!(!h.guild().channels.iter().any(|c| c.name == "brand-new"));

    // The explicit override creates it, once.
    let apply = h
        .run(&["apply", "--yes", "--create-unseen", "brand-new", "-f", m])
        .await;
    apply.assert_code(0);
    let created = h
        .guild()
        .channels
        .iter()
        .filter(|c| c.name == "brand-new")
        .count();
    assert_eq!(created, 1);
}

#[tokio::test]
async fn an_administrator_bot_creates_a_missing_channel_without_an_override() {
    let h = Harness::start().await;
    let m = h.manifest("guild.yaml", NEW_CHANNEL);
    h.run(&["apply", "--yes", "-f", m.to_str().unwrap()])
        .await
        .assert_code(0);
    assert!(h.guild().channels.iter().any(|c| c.name == "brand-new"));
}

#[tokio::test]
async fn a_pinned_channel_id_that_is_missing_is_never_created() {
    let h = Harness::with_state(Some(non_admin_state())).await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nchannels:\n  - { id: \"999999999999999999\", name: secret-room }\n",
    );
    let run = h
        .run(&[
            "apply",
            "--yes",
            "--create-unseen",
            "secret-room",
            "-f",
            m.to_str().unwrap(),
        ])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "pinned to id 999999999999999999, which is not among the channels the bot can see"
        ),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn a_reference_to_an_unseen_channel_says_it_may_be_hidden() {
    let h = Harness::with_state(Some(non_admin_state())).await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nwidget: { enabled: true, channel: staff-only }\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "channel `staff-only` is neither declared nor among the channels the bot can see"
        ),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn channels_that_exist_hidden_from_the_bot_are_never_created_again() {
    // Staff, #mod-chat and #mod-log deny view_channel to @everyone; the non-admin
    // bot's role has no overwrite there, so Discord leaves them out of its reads.
    let h = Harness::with_state(Some(non_admin_state())).await;
    let staff_id = h.channel_id("Staff");
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nchannels:\n  - name: Staff\n    type: category\n    channels:\n      - { name: mod-chat }\n",
    );
    let run = h.run(&["apply", "--yes", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("channel `Staff` is not among the channels the bot can see"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("view_channel"), "{}", run.stderr);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    let staff = h
        .guild()
        .channels
        .iter()
        .filter(|c| c.name == "Staff")
        .count();
    assert_eq!(staff, 1, "a second Staff category was created");
    assert!(h.guild().channels.iter().any(|c| c.id == staff_id));
}

/// A plan that would hide a declared channel from the bot itself is refused at the channel:
/// after it, Discord would omit the channel, and the next plan could neither see it nor
/// create it again (found by the seams property test: apply was accepted, and the fresh plan
/// after it refused).
#[tokio::test]
async fn a_plan_that_would_hide_a_channel_from_the_bot_is_refused_at_the_channel() {
    let h = Harness::with_state(Some(non_admin_state())).await;
    let hidden = h.manifest(
        "guild.yaml",
        "version: 1\nchannels:\n  - name: bot-spam\n    overwrites:\n      - { role: \"@everyone\", deny: [view_channel] }\n",
    );
    let plan = h.run(&["plan", "-f", hidden.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr
            .contains("once applied, the bot could no longer view channel `#bot-spam`"),
        "{}",
        plan.stderr
    );
    assert!(plan.stderr.contains("guild.yaml:3:"), "{}", plan.stderr);
    assert!(
        plan.stderr
            .contains("allow `view_channel` to `guildctl` in the overwrites of `#bot-spam`"),
        "{}",
        plan.stderr
    );
    let apply = h
        .run(&["apply", "--yes", "-f", hidden.to_str().unwrap()])
        .await;
    apply.assert_code(1);
    assert!(h.writes().is_empty(), "{:?}", h.writes());

    // Kept in sight of the bot's own role, the same change is planned and applied.
    let kept = h.manifest(
        "kept.yaml",
        "version: 1\nchannels:\n  - name: bot-spam\n    overwrites:\n      - { role: \"@everyone\", deny: [view_channel] }\n      - { role: guildctl, allow: [view_channel] }\n",
    );
    h.run(&["apply", "--yes", "-f", kept.to_str().unwrap()])
        .await
        .assert_code(0);
    let again = h.plan_json(kept.to_str().unwrap()).await;
    assert_eq!(again["changes"], serde_json::json!([]), "{again:#}");
}
