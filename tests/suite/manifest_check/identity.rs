//! One object, one identity: a list names each object once, whatever the spelling.

use super::*;

const SPELLINGS: &str = r#"guild: "111111111111111111"
settings:
  community: true
  rules_channel: rules
  public_updates_channel: mod-log
roles:
  - { name: Mod, id: "222222222222222222" }
  - name: "@everyone"
channels:
  - name: Info
    type: category
    channels:
      - { name: rules, id: "333333333333333333" }
      - name: general-chat
  - name: mod-log
    overwrites:
      - { role: Mod, allow: [view_channel] }
      - { role: "222222222222222222", deny: [send_messages] }
      - { role: "@everyone", deny: [view_channel] }
      - { role: "111111111111111111", allow: [read_message_history] }
  - name: a
  - name: b
  - name: AFK
    type: voice
"#;

#[test]
fn two_spellings_of_one_channel_or_role_are_refused_at_the_second() {
    let ds = diags(&format!(
        "{SPELLINGS}onboarding:
  enabled: true
  default_channels: [rules, Info/rules, \"333333333333333333\", general-chat, General Chat, a, b]
  prompts:
    - title: Q
      options:
        - title: O
          roles: [Mod, \"222222222222222222\"]
          channels: [general-chat, Info/general-chat]
welcome_screen:
  channels:
    - {{channel: rules, description: R}}
    - {{channel: \"333333333333333333\", description: Again}}
"
    ));
    let dc = "onboarding.default_channels";
    has(
        &ds,
        Error,
        &format!("{dc}[1]"),
        "channel \"Info/rules\" is listed twice in default_channels (first at onboarding.default_channels[0], written \"rules\")",
    );
    has(
        &ds,
        Error,
        &format!("{dc}[2]"),
        "channel \"333333333333333333\" is listed twice in default_channels (first at onboarding.default_channels[0], written \"rules\")",
    );
    has(
        &ds,
        Error,
        &format!("{dc}[4]"),
        "channel \"General Chat\" is listed twice in default_channels (first at onboarding.default_channels[3], written \"general-chat\")",
    );
    // Seven entries, four channels: the minimum counts channels, not entries.
    has(
        &ds,
        Error,
        dc,
        "4 default channels; Discord needs at least 7 to enable onboarding",
    );
    let o = "onboarding.prompts[0].options[0]";
    has(
        &ds,
        Error,
        &format!("{o}.roles[1]"),
        "role \"222222222222222222\" is listed twice in option \"O\" (first at onboarding.prompts[0].options[0].roles[0], written \"Mod\")",
    );
    has(
        &ds,
        Error,
        &format!("{o}.channels[1]"),
        "channel \"Info/general-chat\" is listed twice in option \"O\"",
    );
    has(
        &ds,
        Error,
        "welcome_screen.channels[1].channel",
        "channel \"333333333333333333\" is on the welcome screen twice (first at welcome_screen.channels[0].channel, written \"rules\")",
    );
    let ow = "channels[1].overwrites";
    has(
        &ds,
        Error,
        &format!("{ow}[1].role"),
        "a second overwrite for role \"222222222222222222\" in \"mod-log\" (first at channels[1].overwrites[0].role, written \"Mod\")",
    );
    // The guild's id is @everyone's.
    has(
        &ds,
        Error,
        &format!("{ow}[3].role"),
        "a second overwrite for role \"111111111111111111\" in \"mod-log\" (first at channels[1].overwrites[2].role, written \"@everyone\")",
    );
    // Each entry is reported once, and the first entries not at all.
    for first in [
        format!("{dc}[0]"),
        format!("{dc}[3]"),
        format!("{o}.roles[0]"),
        format!("{ow}[0]"),
        format!("{ow}[2]"),
    ] {
        assert!(!ds.iter().any(|d| d.path == first), "{first}: {ds:#?}");
    }
    let help = &ds
        .iter()
        .find(|d| d.path == format!("{dc}[2]"))
        .unwrap()
        .help;
    assert!(
        help.as_deref().unwrap().starts_with("remove this entry"),
        "{help:?}"
    );
}

#[test]
fn ids_pinned_in_the_manifest_are_references_too() {
    let ds = diags(&format!(
        "{SPELLINGS}widget:
  channel: \"333333333333333333\"
webhooks:
  - {{name: CI, channel: \"333333333333333333\"}}
onboarding:
  enabled: false
  default_channels: [\"333333333333333333\", \"444444444444444444\"]
  prompts:
    - title: Q
      options:
        - {{title: O, roles: [\"222222222222222222\"]}}
"
    ));
    for resolved in [
        "widget.channel",
        "webhooks[0].channel",
        "onboarding.default_channels[0]",
        "onboarding.prompts[0].options[0].roles[0]",
        "channels[1].overwrites[1].role",
    ] {
        assert!(
            !ds.iter()
                .any(|d| d.path == resolved && d.message.contains("not declared")),
            "{resolved} resolves by id: {ds:#?}"
        );
    }
    // An id nothing pins may exist live: a warning that says so.
    has(
        &ds,
        Warning,
        "onboarding.default_channels[1]",
        "channel \"444444444444444444\" is not declared in this manifest",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "onboarding.default_channels[1]")
        .unwrap();
    assert!(d.help.as_deref().unwrap().contains("with this id"), "{d:?}");
    // By id, the type rule still holds.
    let ds = diags(&SPELLINGS.replace(
        "settings:\n",
        "settings:\n  afk_channel: \"333333333333333333\"\n",
    ));
    has(
        &ds,
        Error,
        "settings.afk_channel",
        "`afk_channel` must be a voice channel, but \"333333333333333333\" is declared as text at channels[0].channels[0]",
    );
}

#[test]
fn names_are_checked_as_discord_stores_them() {
    // Whitespace-only names are empty once Discord trims them.
    let ds = diags(
        r#"
roles: [{ name: "   " }]
channels: [{ name: " \t ", type: voice }]
webhooks: [{ name: "  ", channel: general }]
"#,
    );
    has(
        &ds,
        Error,
        "roles[0].name",
        "0 characters; Discord allows 1 to 100 (counted without surrounding whitespace",
    );
    has(
        &ds,
        Error,
        "channels[0].name",
        "0 characters; Discord allows 1 to 100 (counted without surrounding whitespace",
    );
    has(
        &ds,
        Error,
        "webhooks[0].name",
        "0 characters; Discord allows 1 to 80 (counted without",
    );
    // Names that differ only in whitespace are one name.
    let ds = diags(
        r#"
roles: [{ name: "Deploy bot" }, { name: "  Deploy   bot " }]
webhooks: [{ name: "CI", channel: general }, { name: " CI ", channel: general }]
channels: [{ name: general }]
"#,
    );
    has(
        &ds,
        Error,
        "roles[1].name",
        "duplicate role name \"Deploy bot\"",
    );
    has(
        &ds,
        Error,
        "webhooks[1].name",
        "duplicate webhook name \"CI\"",
    );
}

#[test]
fn the_preferred_locale_is_one_discord_accepts() {
    clean(&diags("settings: { preferred_locale: en-US }"));
    let ds = diags("settings: { preferred_locale: en-us }");
    has(
        &ds,
        Error,
        "settings.preferred_locale",
        "`en-us` is not a locale",
    );
    assert!(ds[0].help.as_deref().unwrap().contains("`en-US`"), "{ds:?}");
    let ds = diags("settings: { preferred_locale: klingon }");
    has(
        &ds,
        Error,
        "settings.preferred_locale",
        "not a locale Discord accepts",
    );
}

#[test]
fn forum_settings_belong_to_forum_and_media_channels() {
    clean(&diags(
        r#"
channels:
  - name: support
    type: forum
    tags: [{ name: bug, emoji: "🐛" }, { name: solved, moderated: true }]
    default_reaction: { id: "123456789012345678", name: ferris }
    sort_order: creation_date
    layout: gallery
    require_tag: true
    default_thread_slowmode: 60
  - name: clips
    type: media
    tags: [{ name: video }]
    default_reaction: null
    sort_order: latest_activity
    require_tag: false
"#,
    ));
    let ds = diags("channels: [{ name: clips, type: media, layout: list }]");
    has(
        &ds,
        Error,
        "channels[0].layout",
        "`layout` does not apply to a media channel",
    );
    for field in [
        "tags: []",
        "default_reaction: null",
        "sort_order: creation_date",
        "require_tag: true",
    ] {
        let name = field.split(':').next().unwrap();
        let ds = diags(&format!(
            "channels: [{{ name: lounge, type: voice, {field} }}]"
        ));
        has(
            &ds,
            Error,
            &format!("channels[0].{name}"),
            &format!("`{name}` does not apply to a voice channel"),
        );
    }
}

#[test]
fn forum_tags_are_few_unique_and_short() {
    let ds = diags(
        r#"
channels:
  - name: support
    type: forum
    require_tag: true
    tags: []
"#,
    );
    has(
        &ds,
        Error,
        "channels[0].require_tag",
        "requires a tag on every post but declares no tags",
    );
    let ds = diags(
        r#"
channels:
  - name: support
    type: forum
    tags:
      - { id: "950000000000000011", name: bug }
      - { id: "950000000000000011", name: question, previous_names: [question] }
      - { name: bug }
      - { name: "", emoji: "<:ferris:123456789012345678>" }
      - { name: idea, previous_names: [old] }
      - { name: feature, previous_names: [old] }
"#,
    );
    has(&ds, Error, "channels[0].tags[1].id", "pinned twice");
    has(
        &ds,
        Error,
        "channels[0].tags[1].previous_names[0]",
        "lists its own name",
    );
    has(
        &ds,
        Error,
        "channels[0].tags[2].name",
        "duplicate tag name \"bug\"",
    );
    has(
        &ds,
        Error,
        "channels[0].tags[3].name",
        "tag name is 0 characters",
    );
    has(
        &ds,
        Error,
        "channels[0].tags[3].emoji",
        "custom emoji written as message text",
    );
    has(
        &ds,
        Error,
        "channels[0].tags[5].previous_names[0]",
        "also listed by channels[0].tags[4]",
    );
    let many: Vec<String> = (0..21).map(|i| format!("{{ name: t{i} }}")).collect();
    let ds = diags(&format!(
        "channels: [{{ name: support, type: forum, tags: [{}] }}]",
        many.join(", ")
    ));
    has(&ds, Error, "channels[0].tags", "21 tags");
}

#[test]
fn voice_listed_above_text_in_a_category_is_a_warning_saying_what_members_see() {
    let ds = diags(
        "channels:\n  - name: General\n    type: category\n    channels:\n      - { name: Lounge, type: voice }\n      - { name: general }\n      - { name: memes }\n",
    );
    has(
        &ds,
        Severity::Warning,
        "channels[0].channels[0]",
        "\"Lounge\" (voice) is listed above text channels in category \"General\", but Discord shows text channels above voice channels; members will see: general, memes, Lounge",
    );
    // Text first, voice after: as members see it, nothing to say.
    clean(&diags(
        "channels:\n  - name: General\n    type: category\n    channels:\n      - { name: general }\n      - { name: Lounge, type: voice }\n",
    ));
}

/// Issue 41: every reference by name goes through one resolver, so naming a role or a
/// channel (or its category) by a previous name is the same error, naming the new name,
/// wherever it is written. Once apply renames the object nothing has the old name, so the
/// reference would resolve to nothing (and a rehearsal would not converge).
#[test]
fn a_previous_name_is_an_error_naming_the_new_one_in_every_reference() {
    let ds = diags(
        r#"
settings:
  rules_channel: rules-old
  afk_channel: Old Voice/afk
roles:
  - name: Mods
    previous_names: [Moderator]
channels:
  - name: Info
    type: category
    channels:
      - name: rules
        previous_names: [rules-old]
  - name: Voice
    type: category
    previous_names: [Old Voice]
    channels:
      - { name: afk, type: voice }
      - { name: Stage, type: stage, previous_names: [Old Stage] }
  - name: general
    overwrites: [{ role: Moderator, allow: [view_channel] }]
welcome_screen:
  channels: [{ channel: rules-old, description: Read them }]
onboarding:
  default_channels: [rules-old]
  prompts:
    - title: Pick
      options: [{ title: Mods, roles: [Moderator], channels: [Info/rules-old] }]
widget: { channel: rules-old }
webhooks:
  - { name: Feed, channel: rules-old }
emojis: [{ name: wave, image: wave.png, roles: [Moderator] }]
automod:
  - name: No invites
    trigger: { keywords: ["discord.gg/*"] }
    actions: [block: {}, alert: rules-old]
    exempt_roles: [Moderator]
    exempt_channels: [Old Voice]
events:
  - { name: Talk, channel: Old Stage, start: "2030-01-01T10:00:00Z" }
invites: { rules: [{ channels: [rules-old] }] }
policies:
  - { name: a, never: { who: Moderator, can: [manage_guild] } }
  - { name: b, only: { who: [Moderator], can: [ban_members], where: ["Old Voice/*"] } }
  - { name: c, holders: { role: Moderator, max: 3 } }
  - { name: d, never: { who: "@everyone", can: [view_channel], where: ["Info/#rules-old"] } }
"#,
    );
    let role = "role \"Moderator\" is a previous name of the role \"Mods\" (roles[0])";
    for path in [
        "channels[2].overwrites[0].role",
        "onboarding.prompts[0].options[0].roles[0]",
        "emojis[0].roles[0]",
        "automod[0].exempt_roles[0]",
        "policies[0].never.who",
        "policies[1].only.who[0]",
        "policies[2].holders.role",
    ] {
        has(&ds, Error, path, role);
    }
    let channel = "channel \"rules-old\" is a previous name of the channel \"rules\"";
    for path in [
        "settings.rules_channel",
        "welcome_screen.channels[0].channel",
        "onboarding.default_channels[0]",
        "widget.channel",
        "webhooks[0].channel",
        "automod[0].actions[1].alert",
        "invites.rules[0].channels[0]",
    ] {
        has(&ds, Error, path, channel);
    }
    for (path, old, new) in [
        ("settings.afk_channel", "Old Voice/afk", "Voice/afk"),
        (
            "onboarding.prompts[0].options[0].channels[0]",
            "Info/rules-old",
            "Info/rules",
        ),
        ("automod[0].exempt_channels[0]", "Old Voice", "Voice"),
        ("events[0].channel", "Old Stage", "Stage"),
        ("policies[1].only.where[0]", "Old Voice/*", "Voice/*"),
        (
            "policies[3].never.where[0]",
            "Info/#rules-old",
            "Info/rules",
        ),
    ] {
        has(
            &ds,
            Error,
            path,
            &format!("channel \"{old}\" is a previous name of the channel \"{new}\""),
        );
        let d = ds.iter().find(|d| d.path == path).unwrap();
        assert_eq!(
            d.help.as_deref(),
            Some(format!("name it by its new name: \"{new}\"").as_str())
        );
    }
    // The new names resolve; a policy's role the manifest leaves alone is no warning.
    clean(&diags(
        r#"
roles:
  - name: Mods
    previous_names: [Moderator]
channels:
  - { name: rules, previous_names: [rules-old] }
  - { name: Lounge, type: voice }
automod:
  - name: No invites
    trigger: { keywords: ["discord.gg/*"] }
    actions: [block: {}, alert: rules]
    exempt_roles: [Mods]
    exempt_channels: [rules]
events:
  - { name: Talk, channel: Lounge, start: "2030-01-01T10:00:00Z" }
policies:
  - { name: a, holders: { role: Admin, max: 3 } }
  - { name: b, only: { who: [Mods], can: [ban_members], where: ["rules"] } }
"#,
    ));
}

#[test]
fn a_user_repeated_on_a_roster_or_in_the_bans_is_refused_at_each_repeat_naming_the_first() {
    let ds = diags(
        r#"roles:
  - name: Mod
    members:
      - { id: "400000000000000001" }
      - { id: "400000000000000002" }
      - { id: "400000000000000001" }
      - { id: "400000000000000001" }
bans:
  - { id: "500000000000000001" }
  - { id: "500000000000000001" }
  - { id: "400000000000000002" }
"#,
    );
    for k in [2, 3] {
        has(
            &ds,
            Severity::Error,
            &format!("roles[0].members[{k}].id"),
            "user 400000000000000001 is listed twice on this roster (first at roles[0].members[0])",
        );
    }
    has(
        &ds,
        Severity::Error,
        "bans[1].id",
        "user 500000000000000001 is banned twice (first at bans[0])",
    );
    has(
        &ds,
        Severity::Error,
        "bans[2].id",
        "user 400000000000000002 is banned and on a roster (roles[0].members[1])",
    );
    assert_eq!(
        ds.iter().filter(|d| d.message.contains("twice")).count(),
        3,
        "{ds:#?}"
    );
}
