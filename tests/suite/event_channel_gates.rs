//! What a scheduled event in a voice or stage channel needs of the bot in that channel
//! (Discord's "Permissions for events with entity type VOICE / STAGE_INSTANCE"): the plan
//! refuses, naming the channel and the permission, before any call.

use crate::common::Harness;
use crate::common::guild::perms;
use discord_emulator::state::Overwrite;

/// The bot without Administrator: what events and channels need at guild level.
const BOT: &[&str] = &[
    "view_channel",
    "connect",
    "manage_channels",
    "mute_members",
    "move_members",
    "create_events",
    "manage_events",
];

fn event_in(channel: &str) -> String {
    format!(
        "version: 1
events:
  - name: Game night
    channel: {channel}
    start: \"2031-05-02T18:00:00Z\"
    end: \"2031-05-02T21:00:00Z\"
"
    )
}

/// Denies `denied` to the bot itself in `channel` (a member overwrite).
fn deny_in(h: &Harness, channel: &str, denied: &[&str]) {
    let denied = perms(denied);
    h.arrange(|g| {
        g.role("guildctl").permissions(BOT);
        let bot = g.user_id("guildctl");
        g.channel(channel).permission_overwrites.push(Overwrite {
            id: bot,
            kind: 1,
            allow: perms(&[]),
            deny: denied,
        });
    });
}

#[tokio::test]
async fn a_voice_event_where_the_bot_cannot_connect_is_refused_naming_the_channel() {
    let h = Harness::start().await;
    deny_in(&h, "General/Gaming", &["connect"]);
    let m = h.manifest("m.yaml", &event_in("Gaming"));
    h.emu.clear_requests();
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("the bot lacks `connect` in channel `General/Gaming`"),
        "{said}"
    );
    assert!(said.contains("m.yaml:3"), "placed at the event: {said}");
    assert!(h.writes().is_empty(), "{:#?}", h.writes());

    // The same event in a channel where it may connect plans and applies.
    let ok = h.manifest("ok.yaml", &event_in("Lounge"));
    h.run(&["apply", "-f", ok.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_stage_event_needs_mute_and_move_members_in_its_channel() {
    let h = Harness::start().await;
    h.arrange(|g| g.channel("General/Gaming").kind = 13);
    deny_in(&h, "General/Gaming", &["mute_members", "move_members"]);
    let m = h.manifest("m.yaml", &event_in("Gaming"));
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("the bot lacks `mute_members`, `move_members` in channel `General/Gaming`"),
        "{said}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}
