//! Welcome screen.

use super::*;

#[test]
fn welcome_screen_limits() {
    let long = "d".repeat(141);
    let ds = diags_with_channels(&format!(
        "welcome_screen:
  description: {long}
  channels:
    - {{channel: rules, description: Read first}}
    - {{channel: faq, description: \"\"}}
    - {{channel: welcome, description: {}}}
    - {{channel: general, description: Chat}}
    - {{channel: help, description: Questions}}
    - {{channel: off-topic, description: Anything}}
",
        "x".repeat(51)
    ));
    has(
        &ds,
        Error,
        "welcome_screen.channels",
        "the welcome screen lists 6 channels; Discord allows 5",
    );
    has(
        &ds,
        Error,
        "welcome_screen.description",
        "welcome screen description is 141 characters; Discord allows at most 140",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[1].description",
        "welcome channel description is 0 characters; Discord allows 1 to 50",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[2].description",
        "is 51 characters",
    );
}

#[test]
fn welcome_screen_channels_and_emoji() {
    let ds = diags_with_channels(
        "welcome_screen:
  channels:
    - {channel: rules, description: Read first, emoji: \"📜\"}
    - {channel: Info/rules, description: Again}
    - {channel: rulez, description: Typo, emoji: \":scroll:\"}
    - {channel: faq, description: Custom, emoji: {id: \"12\", name: \"my emoji\"}}
    - {channel: help, description: Message text, emoji: \"<:ferris:123456789012345678>\"}
",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[1].channel",
        "channel \"Info/rules\" is on the welcome screen twice (first at welcome_screen.channels[0].channel, written \"rules\")",
    );
    has(
        &ds,
        Warning,
        "welcome_screen.channels[2].channel",
        "channel \"rulez\" is not declared",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[2].emoji",
        "\":scroll:\" is not an emoji",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[3].emoji.id",
        "custom emoji id \"12\" is not a Discord id",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[3].emoji.name",
        "\"my emoji\" is not a custom emoji name",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[4].emoji",
        "is a custom emoji written as message text",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "welcome_screen.channels[4].emoji")
        .unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some("write it as `emoji: {id: \"123456789012345678\", name: ferris}`")
    );
    clean(&diags_with_channels(
        "welcome_screen:
  enabled: true
  description: Welcome!
  channels:
    - {channel: rules, description: Read first, emoji: \"📜\"}
    - {channel: Lounge, description: Talk, emoji: {id: \"123456789012345678\", name: ferris, animated: true}}
",
    ));
}

#[test]
fn welcome_screen_and_onboarding_need_community() {
    let ds = diags("welcome_screen:\n  enabled: true\nonboarding:\n  enabled: false\n");
    has(
        &ds,
        Warning,
        "welcome_screen",
        "a welcome screen needs a community guild",
    );
    has(
        &ds,
        Warning,
        "onboarding",
        "onboarding needs a community guild",
    );
    let ds = diags(
        "settings:\n  community: false\nwelcome_screen:\n  enabled: true\nonboarding:\n  enabled: false\n",
    );
    has(
        &ds,
        Error,
        "welcome_screen",
        "`welcome_screen` in a guild with `community: false`",
    );
    has(
        &ds,
        Error,
        "onboarding",
        "`onboarding` in a guild with `community: false`",
    );
}
