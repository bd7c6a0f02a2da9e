//! Permission names from other tools and permissions integers get the right name back
//! (issue 20, point 3): every alias of the table, in every spelling other tools use.

use crate::common;

use common::Harness;
use guildctl::permissions::aliases::ALIASES;

async fn refused_with(h: &Harness, permissions: &str, help: &str) {
    let yaml = format!("version: 1\nroles:\n  - name: Helper\n    permissions: {permissions}\n");
    let m = h.manifest("guild.yaml", &yaml);
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(help),
        "{permissions}: expected {help:?} in\n{}",
        run.stderr
    );
    assert!(run.stderr.contains("guild.yaml:4:"), "{}", run.stderr);
}

#[tokio::test]
async fn every_alias_gets_the_permission_it_stands_for() {
    let h = Harness::start().await;
    for a in ALIASES {
        refused_with(
            &h,
            &format!("[{}]", a.alias),
            &format!("write `{}`", a.name),
        )
        .await;
    }
    // The cases, as other tools spell them.
    for (theirs, ours) in [
        ("read_messages", "view_channel"),
        ("manage_emojis", "manage_guild_expressions"),
        ("ManageEmojisAndStickers", "manage_guild_expressions"),
        ("USE_SLASH_COMMANDS", "use_application_commands"),
        ("timeout_members", "moderate_members"),
        ("send_thread_messages", "send_messages_in_threads"),
        ("use_voice_activation", "use_vad"),
        ("create_polls", "send_polls"),
    ] {
        refused_with(&h, &format!("[{theirs}]"), &format!("write `{ours}`")).await;
    }
    // Our names in another tool's spelling.
    refused_with(
        &h,
        "[ViewChannel]",
        "permission names are snake_case: write `view_channel`",
    )
    .await;
    refused_with(
        &h,
        "[KICK_MEMBERS]",
        "permission names are snake_case: write `kick_members`",
    )
    .await;
    // A typo still gets the nearest name.
    refused_with(&h, "[mange_roles]", "did you mean `manage_roles`?").await;
}

#[tokio::test]
async fn a_permissions_integer_is_refused_with_the_names_it_stands_for() {
    let h = Harness::start().await;
    let ready = "write its names instead: [view_channel, send_messages, read_message_history]";
    let bits = (1u64 << 10) | (1 << 11) | (1 << 16);
    refused_with(&h, &bits.to_string(), ready).await;
    refused_with(&h, &format!("\"{bits}\""), ready).await;
    refused_with(&h, "[8]", "write its names instead: [administrator]").await;
    refused_with(&h, "[\"2048\"]", "write its names instead: [send_messages]").await;
    // Bits without a name are kept in the form guildctl reads back.
    refused_with(
        &h,
        &((1u64 << 53) | 1).to_string(),
        "write its names instead: [create_instant_invite, bit_53]",
    )
    .await;
    // The list it gives is accepted as written.
    let m = h.manifest(
        "ok.yaml",
        "version: 1\nroles:\n  - name: Helper\n    permissions: [view_channel, send_messages, read_message_history]\n",
    );
    h.run(&["validate", "-f", m.to_str().unwrap()])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn overwrites_get_the_same_help() {
    let h = Harness::start().await;
    let yaml = "version: 1\nchannels:\n  - name: general\n    overwrites:\n      - role: \"@everyone\"\n        deny: [read_messages]\n        allow: 3072\n";
    let m = h.manifest("guild.yaml", yaml);
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("write `view_channel`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("write its names instead: [view_channel, send_messages]"),
        "{}",
        run.stderr
    );
}

/// Since 2026-02-23 `manage_messages` no longer pins and `manage_channels` no longer
/// bypasses slowmode (issue 20, point 8): the plan says what such a role no longer allows,
/// and when a manifest written before the split would undo Discord's migration.
#[tokio::test]
async fn the_2026_permission_split_is_noted_in_plans() {
    let h = Harness::start().await;
    let before_split =
        "version: 1\nroles:\n  - name: Janitor\n    permissions: [manage_messages, pin_messages]\n";
    let m = h.manifest("guild.yaml", before_split);
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    // The manifest as it was written before the split, against the migrated role.
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Janitor\n    permissions: [manage_messages]\n  - name: Tidy\n    permissions: [manage_channels]\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("role `Janitor`: the plan takes away `pin_messages`, which Discord gave it on 2026-02-23 when `manage_messages` stopped allowing members to pin messages"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("role `Tidy` grants `manage_channels`, which since 2026-02-23 no longer lets members send without waiting for slowmode: that is `bypass_slowmode` now"),
        "{}",
        run.stdout
    );
    // Listing the new bit says nothing more.
    let m = h.manifest("guild.yaml", before_split);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert!(!run.stdout.contains("2026-02-23"), "{}", run.stdout);
}
