//! Channel references: one rule everywhere.

use super::*;

#[test]
fn split_channel_refs() {
    assert_eq!(split_channel_ref("help"), (None, "help"));
    assert_eq!(split_channel_ref("Help/help"), (Some("Help"), "help"));
    assert_eq!(split_channel_ref("A/B/lounge"), (Some("A/B"), "lounge"));
    assert_eq!(split_channel_ref("/help"), (None, "/help"));
    assert_eq!(split_channel_ref("help/"), (None, "help/"));
}

#[test]
fn match_channel_refs() {
    use guildctl::manifest::ChannelType::{Text, Voice};
    let cands = [
        ChannelKey {
            kind: Text,
            name: "general",
            category: Some("General"),
        },
        ChannelKey {
            kind: Voice,
            name: "General",
            category: Some("General"),
        },
        ChannelKey {
            kind: Text,
            name: "general",
            category: Some("Staff"),
        },
        ChannelKey {
            kind: Voice,
            name: "AC/DC",
            category: None,
        },
        ChannelKey {
            kind: Text,
            name: "Off Topic",
            category: None,
        },
    ];
    // Plain name: every text channel "general" (exact stored names tie).
    assert_eq!(match_channel_ref("general", cands), vec![0, 2]);
    // Qualified.
    assert_eq!(match_channel_ref("Staff/general", cands), vec![2]);
    // A text and a voice channel answer to "General"; the exact stored name wins.
    assert_eq!(match_channel_ref("General/General", cands), vec![1]);
    // Text-like names compare as Discord stores them.
    assert_eq!(match_channel_ref("off-topic", cands), vec![4]);
    assert_eq!(match_channel_ref("OFF TOPIC", cands), vec![4]);
    // A name with a slash that is not a qualified reference.
    assert_eq!(match_channel_ref("AC/DC", cands), vec![3]);
    assert!(match_channel_ref("Nowhere/general", cands).is_empty());
}

const TWO_GENERALS: &str = "channels:
  - name: General
    type: category
    channels:
      - name: general
  - name: Staff
    type: category
    channels:
      - name: general
      - name: Lounge
        type: voice
";

#[test]
fn ambiguous_plain_channel_name_is_an_error_suggesting_the_qualified_form() {
    let ds = diags(&format!(
        "settings:\n  system_channel: general\n{TWO_GENERALS}"
    ));
    has(
        &ds,
        Error,
        "settings.system_channel",
        "\"general\" names 2 declared channels (channels[0].channels[0], channels[1].channels[0])",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "settings.system_channel")
        .unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some("qualify the name with its category: `General/general` or `Staff/general`")
    );
    clean(&diags(&format!(
        "settings:\n  system_channel: Staff/general\n{TWO_GENERALS}"
    )));
    clean(&diags(&format!(
        "widget:\n  channel: General/general\n{TWO_GENERALS}"
    )));
}

#[test]
fn qualified_reference_to_an_undeclared_category_or_channel_is_a_warning() {
    let ds = diags(&format!(
        "settings:\n  system_channel: Staf/general\n  rules_channel: Staff/rules\n  afk_channel: General/Lounge\n{TWO_GENERALS}"
    ));
    has(
        &ds,
        Warning,
        "settings.system_channel",
        "category \"Staf\" is not declared in this manifest",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "settings.system_channel")
        .unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `Staff/general`?"));
    has(
        &ds,
        Warning,
        "settings.rules_channel",
        "no channel \"rules\" is declared in category \"Staff\"",
    );
    has(
        &ds,
        Warning,
        "settings.afk_channel",
        "no channel \"Lounge\" is declared in category \"General\"",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "settings.afk_channel")
        .unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some("it is declared elsewhere: did you mean `Staff/Lounge`?")
    );
    assert!(ds.iter().all(|d| d.severity == Warning), "{ds:#?}");
}

#[test]
fn references_compare_stored_names_of_text_channels() {
    clean(&diags(
        "settings:\n  system_channel: Welcome Here\nchannels:\n  - name: welcome-here\n",
    ));
    // Voice and text channels with one name: the type picks.
    clean(&diags(
        "settings:\n  afk_channel: lounge\n  system_channel: lounge\nchannels:\n  - name: lounge\n  - name: lounge\n    type: voice\n",
    ));
}

#[test]
fn same_names_are_allowed_when_every_one_pins_an_id() {
    clean(&diags(
        "roles:
  - name: Team
    id: \"100000000000000001\"
  - name: Team
    id: \"100000000000000002\"
channels:
  - name: C
    type: category
    channels:
      - name: chat
        id: \"200000000000000001\"
      - name: chat
        id: \"200000000000000002\"
",
    ));
    let ds = diags(
        "roles:\n  - name: Team\n    id: \"100000000000000001\"\n  - name: Team\nchannels:\n  - name: chat\n  - name: chat\n    id: \"200000000000000002\"\n",
    );
    has(&ds, Error, "roles[1].name", "duplicate role name \"Team\"");
    has(
        &ds,
        Error,
        "channels[1].name",
        "duplicate text channel name \"chat\"",
    );
    // ... but a reference by that name is ambiguous.
    let ds = diags(
        "roles:\n  - name: Team\n    id: \"100000000000000001\"\n  - name: Team\n    id: \"100000000000000002\"\nchannels:\n  - name: chat\n    overwrites:\n      - role: Team\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[0].role",
        "\"Team\" names 2 declared roles (roles[0], roles[1])",
    );
}

#[test]
fn an_id_is_pinned_once() {
    let ds = diags(
        "roles:\n  - name: A\n    id: \"100000000000000001\"\n  - name: B\n    id: \"100000000000000001\"\nwebhooks:\n  - name: X\n    channel: a\n    id: \"300000000000000001\"\n  - name: Y\n    channel: a\n    id: \"300000000000000001\"\nchannels:\n  - name: a\n",
    );
    has(
        &ds,
        Error,
        "roles[1].id",
        "role id 100000000000000001 is also pinned by roles[0]",
    );
    has(
        &ds,
        Error,
        "webhooks[1].id",
        "webhook id 300000000000000001 is also pinned by webhooks[0]",
    );
}
