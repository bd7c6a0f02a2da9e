//! Semantic checks: at least one failing manifest per rule, asserting path and message;
//! and the examples are clean.
//!
//! The rules of the whole manifest are here; a module per section or concern holds the rest.

mod channel_refs;
mod identity;
mod onboarding;
mod webhooks;
mod welcome_screen;
mod widget;

use std::path::Path;

use guildctl::manifest::check::RULES;

fn normalize_channel_name(name: &str) -> String {
    guildctl::discord::names::stored_channel_name(0, name).into_owned()
}
use guildctl::manifest::check::{ChannelKey, match_channel_ref};
use guildctl::manifest::{
    Diagnostic, Severity, check, check_loaded, load, read_image, split_channel_ref,
};

/// The semantic checks alone, on the typed manifest (some of what they check, the schema
/// refuses first when a manifest is loaded: these rules still stand behind it).
fn diags(yaml: &str) -> Vec<Diagnostic> {
    let text = format!("version: 1\n{yaml}");
    let manifest: guildctl::manifest::Manifest =
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    check(&manifest)
}

#[track_caller]
fn has(ds: &[Diagnostic], severity: Severity, path: &str, message: &str) {
    assert!(
        ds.iter()
            .any(|d| d.severity == severity && d.path == path && d.message.contains(message)),
        "expected {severity:?} at {path} containing {message:?}, got:\n{ds:#?}"
    );
    let d = ds.iter().find(|d| d.path == path).unwrap();
    assert!(d.help.is_some(), "diagnostic without help: {d:?}");
}

#[track_caller]
fn clean(ds: &[Diagnostic]) {
    assert!(ds.is_empty(), "expected no diagnostics, got:\n{ds:#?}");
}

use Severity::{Error, Warning};

#[test]
fn every_rule_has_a_name() {
    assert!(RULES.len() >= 15);
    let mut names: Vec<_> = RULES.iter().map(|(n, _)| *n).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), RULES.len());
}

#[test]
fn a_good_manifest_is_clean() {
    clean(&diags(
        r##"
settings:
  name: Good Guild
  afk_channel: AFK
  afk_timeout: 300
  system_channel: general
roles:
  - name: Mod
    previous_names: [Moderator]
    permissions: [kick_members]
    color: "#ff0000"
  - name: "@everyone"
    permissions: [view_channel]
channels:
  - name: Text
    type: category
    overwrites:
      - role: Mod
        allow: [send_messages]
    channels:
      - name: general
        topic: hi
        slowmode: 5
        sync_permissions: true
      - name: general
        type: voice
        bitrate: 64000
        user_limit: 10
  - name: AFK
    type: voice
"##,
    ));
}

#[test]
fn duplicate_role_names() {
    let ds = diags("roles:\n  - name: Mod\n  - name: Member\n  - name: Mod\n");
    has(&ds, Error, "roles[2].name", "duplicate role name \"Mod\"");
}

#[test]
fn role_name_equal_to_another_roles_previous_name() {
    let ds = diags("roles:\n  - name: Mods\n  - name: Moderator\n    previous_names: [Mods]\n");
    has(
        &ds,
        Error,
        "roles[1].previous_names[0]",
        "\"Mods\" is a previous name of role \"Moderator\" but also the name of roles[0]",
    );
    let ds = diags(
        "roles:\n  - name: A\n    previous_names: [X]\n  - name: B\n    previous_names: [X]\n",
    );
    has(
        &ds,
        Error,
        "roles[1].previous_names[0]",
        "previous name \"X\" is also listed by roles[0]",
    );
}

#[test]
fn duplicate_channel_names_in_parent_and_group() {
    // Text-like names compare in Discord's normalised form.
    let ds = diags(
        "channels:\n  - name: Cat\n    type: category\n    channels:\n      - name: general\n      - name: General\n",
    );
    has(
        &ds,
        Error,
        "channels[0].channels[1].name",
        "duplicate text channel name \"General\" in category \"Cat\"",
    );
    // Announcement and text share a group.
    let ds = diags("channels:\n  - name: news\n  - name: news\n    type: announcement\n");
    has(&ds, Error, "channels[1].name", "at the top level");
    // Voice-like group.
    let ds =
        diags("channels:\n  - name: Lounge\n    type: voice\n  - name: Lounge\n    type: stage\n");
    has(
        &ds,
        Error,
        "channels[1].name",
        "duplicate voice/stage channel name",
    );
    // Different groups or parents are fine.
    clean(&diags(
        "channels:\n  - name: lounge\n  - name: lounge\n    type: voice\n  - name: A\n    type: category\n    channels:\n      - name: lounge\n",
    ));
}

#[test]
fn duplicate_category_names() {
    let ds = diags(
        "channels:\n  - name: Info\n    type: category\n  - name: Info\n    type: category\n",
    );
    has(
        &ds,
        Error,
        "channels[1].name",
        "duplicate category name \"Info\"",
    );
}

#[test]
fn channel_previous_name_equal_to_a_sibling() {
    let ds = diags(
        "channels:\n  - name: projects\n    previous_names: [showcase]\n  - name: showcase\n",
    );
    has(
        &ds,
        Error,
        "channels[0].previous_names[0]",
        "\"showcase\" is a previous name of \"projects\" but also the name of channels[1]",
    );
}

#[test]
fn everyone_only_sets_permissions() {
    let ds = diags(
        "roles:\n  - name: \"@everyone\"\n    previous_names: [everyone]\n    color: \"#ffffff\"\n    hoist: true\n    id: \"123456789012345678\"\n",
    );
    has(
        &ds,
        Error,
        "roles[0].previous_names",
        "`previous_names` cannot be set on @everyone",
    );
    has(
        &ds,
        Error,
        "roles[0].color",
        "`color` cannot be set on @everyone",
    );
    has(
        &ds,
        Error,
        "roles[0].hoist",
        "`hoist` cannot be set on @everyone",
    );
    assert!(!ds.iter().any(|d| d.path == "roles[0].id"));
    let ds = diags("roles:\n  - name: \"@everyone\"\n  - name: Member\n");
    has(&ds, Warning, "roles[0]", "not listed last");
}

#[test]
fn unknown_permission_names() {
    let ds = diags(
        "roles:\n  - name: A\n    permissions: [view_channel, send_mesages, bit_53, SEND_MESSAGES, fly]\n",
    );
    has(
        &ds,
        Error,
        "roles[0].permissions[1]",
        "unknown permission `send_mesages`",
    );
    let d = ds
        .iter()
        .find(|d| d.path == "roles[0].permissions[1]")
        .unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `send_messages`?"));
    let d = ds
        .iter()
        .find(|d| d.path == "roles[0].permissions[3]")
        .unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some("permission names are snake_case: write `send_messages`")
    );
    has(
        &ds,
        Error,
        "roles[0].permissions[4]",
        "unknown permission `fly`",
    );
    assert!(
        !ds.iter().any(|d| d.path == "roles[0].permissions[2]"),
        "bit_N is allowed"
    );
    let ds = diags(
        "channels:\n  - name: a\n    overwrites:\n      - role: \"@everyone\"\n        deny: [veiw_channel]\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[0].deny[0]",
        "unknown permission `veiw_channel`",
    );
}

#[test]
fn permission_both_allowed_and_denied() {
    let ds = diags(
        "channels:\n  - name: a\n    overwrites:\n      - role: \"@everyone\"\n        allow: [view_channel, send_messages]\n        deny: [send_messages]\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[0].deny[0]",
        "`send_messages` is both allowed and denied",
    );
}

#[test]
fn overwrite_needs_exactly_one_target() {
    let ds = diags(
        "channels:\n  - name: a\n    overwrites:\n      - role: \"@everyone\"\n        member: \"123456789012345678\"\n      - allow: [view_channel]\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[0]",
        "both `role` and `member`",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[1]",
        "neither `role` nor `member`",
    );
}

#[test]
fn two_overwrites_for_one_target() {
    let ds = diags(
        "channels:\n  - name: a\n    overwrites:\n      - role: \"@everyone\"\n      - role: \"@everyone\"\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[1].role",
        "a second overwrite for role \"@everyone\"",
    );
}

/// A name a declared role's is close to is a typo, an error (plan would refuse it); a name
/// close to none may be a role the guild keeps by hand, and an id names a live role on
/// purpose: warnings, which plan checks.
#[test]
fn overwrite_for_a_misspelt_role_is_an_error_and_for_another_undeclared_one_a_warning() {
    let ds = diags(
        "roles:\n  - name: Moderator\nchannels:\n  - name: a\n    overwrites:\n      - role: Moderatr\n      - role: Ghost\n      - role: \"@everyone\"\n      - role: \"123456789012345678\"\n",
    );
    has(
        &ds,
        Error,
        "channels[0].overwrites[0].role",
        "role \"Moderatr\" is not declared",
    );
    let help = |path: &str| {
        ds.iter()
            .find(|d| d.path == path)
            .and_then(|d| d.help.clone())
            .unwrap()
    };
    assert!(
        help("channels[0].overwrites[0].role").starts_with("did you mean \"Moderator\"?"),
        "{ds:#?}"
    );
    assert!(
        help("channels[0].overwrites[0].role").contains("`- name: Moderatr`"),
        "{ds:#?}"
    );
    has(
        &ds,
        Warning,
        "channels[0].overwrites[1].role",
        "role \"Ghost\" is not declared",
    );
    assert!(
        !ds.iter()
            .any(|d| d.path == "channels[0].overwrites[2].role")
    );
    has(
        &ds,
        Warning,
        "channels[0].overwrites[3].role",
        "role \"123456789012345678\" is not declared",
    );
    assert_eq!(ds.len(), 3, "{ds:#?}");
}

#[test]
fn settings_channel_references() {
    let ds = diags("settings:\n  rules_channel: rules\n  safety_alerts_channel: safety\n");
    has(
        &ds,
        Warning,
        "settings.rules_channel",
        "channel \"rules\" is not declared",
    );
    has(
        &ds,
        Warning,
        "settings.safety_alerts_channel",
        "channel \"safety\" is not declared",
    );
    let ds = diags(
        "settings:\n  afk_channel: afk\n  system_channel: Lobby\n  public_updates_channel: news\nchannels:\n  - name: afk\n  - name: Lobby\n    type: voice\n  - name: news\n    type: announcement\n",
    );
    has(
        &ds,
        Error,
        "settings.afk_channel",
        "`afk_channel` must be a voice channel, but \"afk\" is declared as text",
    );
    has(
        &ds,
        Error,
        "settings.system_channel",
        "must be a text channel, but \"Lobby\" is declared as voice",
    );
    has(
        &ds,
        Error,
        "settings.public_updates_channel",
        "declared as announcement",
    );
    // null clears: nothing to check.
    clean(&diags("settings:\n  afk_channel: null\n"));
}

#[test]
fn guild_limits() {
    let ds = diags("settings:\n  name: A\n  afk_timeout: 120\n");
    has(
        &ds,
        Error,
        "settings.name",
        "guild name is 1 character as Discord stores it (without leading and trailing whitespace); Discord allows 2 to 100",
    );
    // Counted as Discord stores it: trimmed.
    has(
        &diags("settings:\n  name: \"  a  \"\n"),
        Error,
        "settings.name",
        "guild name is 1 character as Discord stores it",
    );
    clean(&diags("settings:\n  name: \"  Ferris  Fans  \"\n"));
    has(
        &ds,
        Error,
        "settings.afk_timeout",
        "afk_timeout 120 is not allowed",
    );
    let long = "x".repeat(301);
    let ds = diags(&format!("settings:\n  description: {long}\n"));
    has(
        &ds,
        Error,
        "settings.description",
        "description is 301 characters",
    );
}

#[test]
fn role_and_channel_counts() {
    let roles: String = (0..251).map(|i| format!("  - name: r{i}\n")).collect();
    has(
        &diags(&format!("roles:\n{roles}")),
        Error,
        "roles",
        "251 roles declared",
    );
    let children: String = (0..51).map(|i| format!("      - name: c{i}\n")).collect();
    let ds = diags(&format!(
        "channels:\n  - name: Big\n    type: category\n    channels:\n{children}"
    ));
    has(
        &ds,
        Error,
        "channels[0].channels",
        "category \"Big\" has 51 channels; the limit is 50",
    );
    let cats: String = (0..11)
        .map(|c| {
            let kids: String = (0..45)
                .map(|i| format!("      - name: c{c}-{i}\n"))
                .collect();
            format!("  - name: Cat{c}\n    type: category\n    channels:\n{kids}")
        })
        .collect();
    has(
        &diags(&format!("channels:\n{cats}")),
        Error,
        "channels",
        "506 channels and categories declared",
    );
}

#[test]
fn name_lengths() {
    let long = "a".repeat(101);
    let ds = diags(&format!(
        "roles:\n  - name: \"\"\n  - name: {long}\nchannels:\n  - name: \"\"\n  - name: {long}\n"
    ));
    has(&ds, Error, "roles[0].name", "role name is 0 characters");
    has(&ds, Error, "roles[1].name", "role name is 101 characters");
    has(
        &ds,
        Error,
        "channels[0].name",
        "channel name is 0 characters",
    );
    has(
        &ds,
        Error,
        "channels[1].name",
        "channel name is 101 characters",
    );
}

#[test]
fn channel_value_limits() {
    let topic = "t".repeat(1025);
    let ds = diags(&format!(
        "channels:\n  - name: a\n    topic: {topic}\n    slowmode: 21601\n    default_thread_slowmode: 30000\n    default_auto_archive_duration: 100\n  - name: f\n    type: forum\n    topic: {topic}\n  - name: V\n    type: voice\n    bitrate: 400000\n    user_limit: 100\n  - name: S\n    type: stage\n    bitrate: 96000\n    user_limit: 10001\n  - name: L\n    type: voice\n    bitrate: 7999\n"
    ));
    has(
        &ds,
        Error,
        "channels[0].topic",
        "topic is 1025 characters; a text channel allows 1024",
    );
    has(
        &ds,
        Error,
        "channels[0].slowmode",
        "slowmode 21601 is above 21600",
    );
    has(
        &ds,
        Error,
        "channels[0].default_thread_slowmode",
        "default_thread_slowmode 30000",
    );
    has(
        &ds,
        Error,
        "channels[0].default_auto_archive_duration",
        "100 is not allowed",
    );
    assert!(
        !ds.iter().any(|d| d.path == "channels[1].topic"),
        "forum topics go to 4096"
    );
    has(
        &ds,
        Error,
        "channels[2].bitrate",
        "bitrate 400000 is outside 8000-384000 for a voice channel",
    );
    has(
        &ds,
        Error,
        "channels[2].user_limit",
        "user_limit 100 is above 99",
    );
    has(
        &ds,
        Error,
        "channels[3].bitrate",
        "outside 8000-64000 for a stage channel",
    );
    has(
        &ds,
        Error,
        "channels[3].user_limit",
        "user_limit 10001 is above 10000",
    );
    has(&ds, Error, "channels[4].bitrate", "bitrate 7999");
}

#[test]
fn channels_only_in_categories_and_no_nesting() {
    let ds = diags(
        "channels:\n  - name: a\n    channels:\n      - name: b\n  - name: C\n    type: category\n    channels:\n      - name: D\n        type: category\n",
    );
    has(
        &ds,
        Error,
        "channels[0].channels",
        "only a category holds channels, but \"a\" is a text channel",
    );
    has(
        &ds,
        Error,
        "channels[1].channels[0]",
        "category \"D\" is inside another category",
    );
}

#[test]
fn fields_that_do_not_apply_to_the_type() {
    let ds = diags(
        "channels:\n  - name: V\n    type: voice\n    topic: t\n    default_auto_archive_duration: 60\n  - name: t\n    bitrate: 64000\n    user_limit: 5\n    rtc_region: us-west\n    video_quality_mode: full\n  - name: C\n    type: category\n    nsfw: true\n    slowmode: 5\n  - name: n\n    type: announcement\n    slowmode: 5\n",
    );
    has(
        &ds,
        Error,
        "channels[0].topic",
        "`topic` does not apply to a voice channel",
    );
    has(
        &ds,
        Error,
        "channels[0].default_auto_archive_duration",
        "does not apply to a voice channel",
    );
    has(
        &ds,
        Error,
        "channels[1].bitrate",
        "`bitrate` does not apply to a text channel",
    );
    has(&ds, Error, "channels[1].user_limit", "does not apply");
    has(&ds, Error, "channels[1].rtc_region", "does not apply");
    has(
        &ds,
        Error,
        "channels[1].video_quality_mode",
        "does not apply",
    );
    has(
        &ds,
        Error,
        "channels[2].nsfw",
        "`nsfw` does not apply to a category channel",
    );
    has(&ds, Error, "channels[2].slowmode", "does not apply");
    has(
        &ds,
        Error,
        "channels[3].slowmode",
        "`slowmode` does not apply to an announcement channel",
    );
}

#[test]
fn sync_permissions_rules() {
    let ds = diags(
        "channels:\n  - name: top\n    sync_permissions: true\n  - name: C\n    type: category\n    sync_permissions: false\n    channels:\n      - name: a\n        sync_permissions: true\n        overwrites:\n          - role: \"@everyone\"\n      - name: b\n        sync_permissions: false\n        overwrites:\n          - role: \"@everyone\"\n",
    );
    has(
        &ds,
        Error,
        "channels[0].sync_permissions",
        "not inside a category",
    );
    has(
        &ds,
        Error,
        "channels[1].sync_permissions",
        "not inside a category",
    );
    has(
        &ds,
        Error,
        "channels[1].channels[0].sync_permissions",
        "`sync_permissions: true` together with `overwrites`",
    );
    assert!(
        !ds.iter()
            .any(|d| d.path == "channels[1].channels[1].sync_permissions")
    );
}

#[test]
fn text_names_discord_would_rewrite() {
    let ds = diags(
        "channels:\n  - name: Joey's Cool Channel\n  - name: Voice Chat\n    type: voice\n  - name: \"!!!\"\n",
    );
    has(
        &ds,
        Warning,
        "channels[0].name",
        "Discord will rename text channel \"Joey's Cool Channel\" to \"joeys-cool-channel\"",
    );
    assert!(!ds.iter().any(|d| d.path == "channels[1].name"));
    has(&ds, Error, "channels[2].name", "has nothing Discord keeps");
}

#[test]
fn normalisation() {
    assert_eq!(
        normalize_channel_name("Joey's Cool Channel"),
        "joeys-cool-channel"
    );
    assert_eq!(normalize_channel_name("  a  b--c "), "a-b-c");
    assert_eq!(normalize_channel_name("rust_lang"), "rust_lang");
    assert_eq!(normalize_channel_name("Ünïcode 🦀"), "ünïcode-🦀");
}

#[test]
fn community_prerequisites() {
    let ds = diags(
        "settings:\n  community: true\n  verification_level: none\n  explicit_content_filter: members_without_roles\n",
    );
    has(
        &ds,
        Error,
        "settings.community",
        "`community: true` needs `settings.rules_channel`",
    );
    assert!(ds.iter().any(|d| d.path == "settings.community" && d.message.contains("public_updates_channel")));
    has(
        &ds,
        Error,
        "settings.verification_level",
        "needs verification_level `low` or higher, not `none`",
    );
    has(
        &ds,
        Error,
        "settings.explicit_content_filter",
        "needs explicit_content_filter `all_members`, not `members_without_roles`",
    );
    // Unset verification/filter are not managed: not an error here (the planner checks live values).
    let ds = diags(
        "settings:\n  community: true\n  rules_channel: rules\n  public_updates_channel: mod\nchannels:\n  - name: rules\n  - name: mod\n",
    );
    clean(&ds);
}

#[test]
fn announcement_channels_need_community() {
    let ds = diags("channels:\n  - name: news\n    type: announcement\n");
    has(&ds, Warning, "channels[0].type", "needs a community guild");
    let ds =
        diags("settings:\n  community: false\nchannels:\n  - name: news\n    type: announcement\n");
    has(&ds, Error, "channels[0].type", "`community: false`");
}

/// A community guild's manifest with a few channels, for the welcome screen, onboarding
/// and widget rules.
const SOME_CHANNELS: &str = "channels:
  - name: Info
    type: category
    channels:
      - name: rules
      - name: faq
      - name: welcome
      - name: news
        type: announcement
  - name: Chat
    type: category
    channels:
      - name: general
      - name: help
      - name: off-topic
      - name: Lounge
        type: voice
";

fn diags_with_channels(yaml: &str) -> Vec<Diagnostic> {
    diags(&format!(
        "settings:\n  community: true\n  rules_channel: rules\n  public_updates_channel: faq\n{yaml}{SOME_CHANNELS}"
    ))
}
