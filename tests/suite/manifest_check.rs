//! Semantic checks: at least one failing manifest per rule, asserting path and message;
//! and the examples are clean.

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

// ---------------------------------------------------------------------------------------------
// Channel references: one rule everywhere

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

// ---------------------------------------------------------------------------------------------
// Welcome screen

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

// ---------------------------------------------------------------------------------------------
// Onboarding

#[test]
fn onboarding_enable_needs_seven_default_channels() {
    let ds = diags_with_channels(
        "onboarding:\n  enabled: true\n  default_channels: [rules, faq, general]\n",
    );
    has(
        &ds,
        Error,
        "onboarding.default_channels",
        "3 default channels; Discord needs at least 7 to enable onboarding",
    );
    // Disabled, or default channels not managed: nothing to count.
    clean(&diags_with_channels(
        "onboarding:\n  enabled: false\n  default_channels: [rules, faq, general]\n",
    ));
    clean(&diags_with_channels("onboarding:\n  enabled: true\n"));
    // Advanced mode counts the channels of the questions too.
    clean(&diags_with_channels(
        "onboarding:
  enabled: true
  mode: advanced
  default_channels: [rules, faq, general]
  prompts:
    - title: What brings you here?
      options:
        - {title: Help, channels: [help, off-topic]}
        - {title: News, channels: [news, welcome]}
",
    ));
    let ds = diags_with_channels(
        "onboarding:\n  enabled: true\n  mode: advanced\n  default_channels: [rules, faq, general]\n  prompts:\n    - title: Q\n      options:\n        - {title: A, channels: [rules]}\n",
    );
    has(
        &ds,
        Error,
        "onboarding.default_channels",
        "3 channels (default channels and channels of the questions, in advanced mode)",
    );
}

#[test]
fn onboarding_limits() {
    let prompts: String = (0..16)
        .map(|i| format!("    - title: Q{i}\n      options: [{{title: A}}]\n"))
        .collect();
    let ds = diags_with_channels(&format!("onboarding:\n  prompts:\n{prompts}"));
    has(
        &ds,
        Error,
        "onboarding.prompts",
        "16 onboarding prompts; Discord allows 15",
    );

    let many_opts: String = (0..51).map(|i| format!("{{title: O{i}}}, ")).collect();
    let many_roles: String = (0..51).map(|i| format!("R{i}, ")).collect();
    let many_chans: String = (0..51).map(|i| format!("c{i}, ")).collect();
    let ds = diags_with_channels(&format!(
        "onboarding:
  prompts:
    - title: \"\"
      options: []
    - title: {}
      options: [{many_opts}]
    - title: Pick
      options:
        - title: {}
          description: {}
        - title: Roles
          roles: [{many_roles}]
        - title: Channels
          channels: [{many_chans}]
        - title: Roles
",
        "q".repeat(101),
        "o".repeat(51),
        "d".repeat(101),
    ));
    has(
        &ds,
        Error,
        "onboarding.prompts[0].title",
        "prompt title is 0 characters; Discord allows 1 to 100",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[0].options",
        "prompt \"\" has 0 options; Discord needs 1 to 50",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[1].title",
        "prompt title is 101 characters",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[1].options",
        "has 51 options",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[2].options[0].title",
        "option title is 51 characters; Discord allows 1 to 50",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[2].options[0].description",
        "option description is 101 characters; Discord allows at most 100",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[2].options[1].roles",
        "option \"Roles\" lists 51 roles; Discord allows 50",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[2].options[2].channels",
        "option \"Channels\" lists 51 channels; Discord allows 50",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[2].options[3].title",
        "duplicate option title \"Roles\" in prompt \"Pick\" (first at onboarding.prompts[2].options[1])",
    );

    let defaults: String = (0..501).map(|i| format!("c{i}, ")).collect();
    let ds = diags_with_channels(&format!(
        "onboarding:\n  default_channels: [{defaults}]\n  prompts:\n    - {{title: Same, options: [{{title: A}}]}}\n    - {{title: Same, options: [{{title: A}}]}}\n"
    ));
    has(
        &ds,
        Error,
        "onboarding.default_channels",
        "501 default channels; Discord allows 500",
    );
    has(
        &ds,
        Error,
        "onboarding.prompts[1].title",
        "duplicate prompt title \"Same\" (first at onboarding.prompts[0])",
    );
}

#[test]
fn onboarding_references() {
    let ds = diags_with_channels(
        "roles:
  - name: Rustacean
  - name: \"@everyone\"
onboarding:
  default_channels: [rules, faq, Info/faq, nowhere]
  prompts:
    - title: Who are you?
      options:
        - title: A Rustacean
          roles: [Rustacean, Rustacean, Rustaceans, \"@everyone\"]
          channels: [help, help, Lounge, Chat/nowhere]
",
    );
    has(
        &ds,
        Error,
        "onboarding.default_channels[2]",
        "channel \"Info/faq\" is listed twice in default_channels (first at onboarding.default_channels[1], written \"faq\")",
    );
    has(
        &ds,
        Warning,
        "onboarding.default_channels[3]",
        "channel \"nowhere\" is not declared",
    );
    let o = "onboarding.prompts[0].options[0]";
    has(
        &ds,
        Error,
        &format!("{o}.roles[1]"),
        "role \"Rustacean\" is listed twice",
    );
    has(
        &ds,
        Error,
        &format!("{o}.roles[2]"),
        "role \"Rustaceans\" is not declared in this manifest",
    );
    has(
        &ds,
        Warning,
        &format!("{o}.roles[3]"),
        "every member has @everyone",
    );
    has(
        &ds,
        Error,
        &format!("{o}.channels[1]"),
        "channel \"help\" is listed twice in option \"A Rustacean\"",
    );
    has(
        &ds,
        Warning,
        &format!("{o}.channels[3]"),
        "no channel \"nowhere\" is declared in category \"Chat\"",
    );
    assert!(
        !ds.iter().any(|d| d.path == format!("{o}.channels[2]")),
        "voice channels are fine"
    );
}

// ---------------------------------------------------------------------------------------------
// Widget

#[test]
fn widget_channel_reference() {
    let ds = diags_with_channels("widget:\n  enabled: true\n  channel: Info\n");
    has(
        &ds,
        Error,
        "widget.channel",
        "`widget.channel` must be a channel, but \"Info\" is declared as a category at channels[0]",
    );
    let ds = diags_with_channels("widget:\n  enabled: true\n  channel: genral\n");
    has(
        &ds,
        Warning,
        "widget.channel",
        "channel \"genral\" is not declared",
    );
    let d = ds.iter().find(|d| d.path == "widget.channel").unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean \"general\"?"));
    clean(&diags_with_channels(
        "widget:\n  enabled: true\n  channel: welcome\n",
    ));
    clean(&diags_with_channels(
        "widget:\n  enabled: false\n  channel: null\n",
    ));
}

// ---------------------------------------------------------------------------------------------
// Webhooks

#[test]
fn webhook_names() {
    let ds = diags_with_channels(&format!(
        "webhooks:
  - {{name: Discord Bot, channel: general}}
  - {{name: ClydeBot, channel: general}}
  - {{name: \"\", channel: general}}
  - {{name: {}, channel: general}}
  - {{name: CI, channel: general}}
  - {{name: CI, channel: help}}
  - {{name: Deploys, channel: help, previous_names: [CI]}}
",
        "w".repeat(81)
    ));
    has(
        &ds,
        Error,
        "webhooks[0].name",
        "webhook name \"Discord Bot\" contains \"discord\": Discord refuses webhook names containing \"clyde\" or \"discord\", in any case",
    );
    has(&ds, Error, "webhooks[1].name", "contains \"clyde\"");
    has(
        &ds,
        Error,
        "webhooks[2].name",
        "webhook name is 0 characters; Discord allows 1 to 80",
    );
    has(
        &ds,
        Error,
        "webhooks[3].name",
        "webhook name is 81 characters",
    );
    has(
        &ds,
        Error,
        "webhooks[5].name",
        "duplicate webhook name \"CI\" (first declared at webhooks[4])",
    );
    has(
        &ds,
        Error,
        "webhooks[6].previous_names[0]",
        "\"CI\" is a previous name of webhook \"Deploys\" but also the name of webhooks[4]",
    );
    // Same name in two channels is fine when both are pinned.
    clean(&diags_with_channels(
        "webhooks:\n  - {name: Captain Hook, channel: general, id: \"300000000000000001\"}\n  - {name: Captain Hook, channel: help, id: \"300000000000000002\"}\n",
    ));
}

#[test]
fn webhook_channels() {
    let ds = diags_with_channels(
        "webhooks:\n  - {name: A, channel: Lounge}\n  - {name: B, channel: Chat}\n  - {name: C, channel: ci}\n  - {name: D, channel: news}\n",
    );
    has(
        &ds,
        Error,
        "webhooks[0].channel",
        "a webhook's channel must be a text, announcement, forum or media channel, but \"Lounge\" is declared as voice",
    );
    has(
        &ds,
        Error,
        "webhooks[1].channel",
        "is declared as a category",
    );
    has(
        &ds,
        Warning,
        "webhooks[2].channel",
        "channel \"ci\" is not declared",
    );
    assert!(!ds.iter().any(|d| d.path == "webhooks[3].channel"));
    let hooks: String = (0..16)
        .map(|i| format!("  - {{name: H{i}, channel: general}}\n"))
        .collect();
    let ds = diags_with_channels(&format!("webhooks:\n{hooks}"));
    has(
        &ds,
        Error,
        "webhooks[15].channel",
        "16 webhooks declared in channel \"general\"; Discord allows 15 per channel",
    );
}

#[test]
fn webhook_avatar_paths_are_checked_without_files() {
    let ds = diags_with_channels(
        "webhooks:
  - {name: A, channel: general, avatar: /etc/ci.png}
  - {name: B, channel: general, avatar: ../ci.png}
  - {name: C, channel: general, avatar: assets/../../ci.png}
  - {name: D, channel: general, avatar: null}
",
    );
    has(
        &ds,
        Error,
        "webhooks[0].avatar",
        "image path \"/etc/ci.png\" is absolute",
    );
    has(
        &ds,
        Error,
        "webhooks[1].avatar",
        "leaves the manifest's folder",
    );
    has(
        &ds,
        Error,
        "webhooks[2].avatar",
        "leaves the manifest's folder",
    );
    assert!(!ds.iter().any(|d| d.path == "webhooks[3].avatar"));
}

const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn avatar_diags(dir: &Path, avatars: &[&str]) -> Vec<Diagnostic> {
    let hooks: String = avatars
        .iter()
        .enumerate()
        .map(|(i, a)| format!("  - {{name: H{i}, channel: general, avatar: \"{a}\"}}\n"))
        .collect();
    let text = format!("version: 1\nchannels:\n  - name: general\nwebhooks:\n{hooks}");
    let path = dir.join("guild.yaml");
    std::fs::write(&path, &text).unwrap();
    let loaded = load(&path).unwrap();
    check_loaded(&loaded)
}

#[test]
fn webhook_avatar_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("guild");
    let assets = root.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(assets.join("ci.png"), PNG_1X1).unwrap();
    std::fs::write(assets.join("photo.jpg"), [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).unwrap();
    std::fs::write(assets.join("anim.gif"), b"GIF89a\x01\x00\x01\x00").unwrap();
    std::fs::write(assets.join("notes.png"), b"not an image").unwrap();
    let big = std::fs::File::create(assets.join("big.png")).unwrap();
    big.set_len(8 * 1024 * 1024 + 1).unwrap();
    std::fs::write(tmp.path().join("outside.png"), PNG_1X1).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("outside.png"), assets.join("link.png")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("ci.png", assets.join("inside-link.png")).unwrap();

    clean(&avatar_diags(
        &root,
        &[
            "assets/ci.png",
            "./assets/photo.jpg",
            "assets/../assets/anim.gif",
        ],
    ));
    let ds = avatar_diags(
        &root,
        &[
            "assets/missing.png",
            "assets/notes.png",
            "assets/big.png",
            "assets",
            "../outside.png",
        ],
    );
    has(
        &ds,
        Error,
        "webhooks[0].avatar",
        "image \"assets/missing.png\" does not exist",
    );
    has(
        &ds,
        Error,
        "webhooks[1].avatar",
        "image \"assets/notes.png\" is not a PNG, JPEG or GIF file",
    );
    has(
        &ds,
        Error,
        "webhooks[2].avatar",
        "image \"assets/big.png\" is 8388609 bytes; Discord takes at most 8 MiB",
    );
    has(
        &ds,
        Error,
        "webhooks[3].avatar",
        "image \"assets\" is not a file",
    );
    has(
        &ds,
        Error,
        "webhooks[4].avatar",
        "leaves the manifest's folder",
    );
    assert_eq!(
        ds.iter().filter(|d| d.path == "webhooks[4].avatar").count(),
        1,
        "a path refused by check is not read again"
    );
    #[cfg(unix)]
    {
        let ds = avatar_diags(&root, &["assets/link.png", "assets/inside-link.png"]);
        has(
            &ds,
            Error,
            "webhooks[0].avatar",
            "image \"assets/link.png\" is a symbolic link to",
        );
        assert!(ds[0].message.contains("outside the manifest's folder"));
        assert!(!ds.iter().any(|d| d.path == "webhooks[1].avatar"));
    }

    // read_image makes the same checks, and gives the type and the bytes.
    let (mime, bytes) = read_image(&root, "assets/ci.png").unwrap();
    assert_eq!((mime, bytes.as_slice()), ("image/png", PNG_1X1));
    assert_eq!(
        read_image(&root, "assets/photo.jpg").unwrap().0,
        "image/jpeg"
    );
    assert_eq!(read_image(&root, "assets/anim.gif").unwrap().0, "image/gif");
    assert!(
        read_image(&root, "../outside.png")
            .unwrap_err()
            .contains("leaves the manifest's folder")
    );
    assert!(
        read_image(&root, "assets/notes.png")
            .unwrap_err()
            .contains("not a PNG, JPEG or GIF")
    );
}

#[test]
fn examples_have_no_diagnostics() {
    for name in ["community.yaml", "minimal.yaml"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let loaded = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let ds = check_loaded(&loaded);
        assert!(
            ds.is_empty(),
            "{}",
            guildctl::manifest::render(&loaded, &ds, false)
        );
    }
}

#[test]
fn community_example_has_what_the_brief_asks() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/community.yaml");
    let m = load(&path).unwrap().manifest;
    let roles = m.roles.as_ref().unwrap();
    assert!(roles.len() >= 8);
    assert!(
        roles
            .iter()
            .all(|r| r.name != "Admin" && r.name != "guildctl")
    );
    assert!(roles.iter().any(|r| r.previous_names == ["Helper"]));
    let booster = roles.iter().find(|r| r.name == "Server Booster").unwrap();
    assert_eq!(
        booster,
        &guildctl::manifest::Role {
            name: "Server Booster".into(),
            ..Default::default()
        }
    );
    let top = m.channels.as_ref().unwrap();
    let cats = top
        .iter()
        .filter(|c| c.kind == Some(guildctl::manifest::ChannelType::Category))
        .count();
    let all: Vec<_> = top
        .iter()
        .flat_map(|c| std::iter::once(c).chain(c.channels.iter().flatten()))
        .collect();
    let channels = all
        .iter()
        .filter(|c| c.kind != Some(guildctl::manifest::ChannelType::Category))
        .count();
    assert!(
        cats >= 4 && channels >= 15,
        "{cats} categories, {channels} channels"
    );
    assert!(all.iter().any(|c| c.previous_names == ["showcase"]));
    assert!(all.iter().filter(|c| c.overwrites.is_some()).count() >= 3);
    assert!(all.iter().any(|c| c.sync_permissions == Some(true)));
    let s = m.settings.as_ref().unwrap();
    assert_eq!(s.community, Some(true));
    assert_eq!(
        s.verification_level,
        Some(guildctl::manifest::VerificationLevel::Medium)
    );
    assert_eq!(
        s.explicit_content_filter,
        Some(guildctl::manifest::ExplicitContentFilter::AllMembers)
    );
}

#[test]
fn community_example_uses_every_section() {
    use guildctl::manifest::{ChannelType, Emoji, OnboardingMode};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/community.yaml");
    let loaded = load(&path).unwrap();
    let m = &loaded.manifest;
    let ctx = guildctl::manifest::check::Ctx::new(m);
    let find = |r: &str| match ctx.lookup_channel(r, &[]) {
        guildctl::manifest::check::ChannelLookup::Found(i) => i,
        other => panic!("{r}: {other:?}"),
    };

    let ws = m.welcome_screen.as_ref().expect("welcome_screen");
    let wc = ws.channels.as_ref().unwrap();
    assert!((3..=5).contains(&wc.len()));
    assert!(
        wc.iter()
            .all(|c| matches!(c.emoji, Some(Emoji::Unicode(_))))
    );

    let ob = m.onboarding.as_ref().expect("onboarding");
    assert_eq!(ob.enabled, Some(true));
    assert_eq!(ob.mode, Some(OnboardingMode::Default));
    let defaults = ob.default_channels.as_ref().unwrap();
    assert!(defaults.len() >= 7);
    let prompts = ob.prompts.as_ref().unwrap();
    assert!((2..=3).contains(&prompts.len()));
    let options = || prompts.iter().flat_map(|p| &p.options);
    assert!(options().any(|o| !o.roles.is_empty()));
    assert!(options().any(|o| !o.channels.is_empty()));

    // At least 5 default channels where @everyone can send messages, by the declared
    // @everyone permissions and overwrites (a synced channel has its category's).
    let roles = m.roles.as_ref().unwrap();
    let everyone = roles.iter().find(|r| r.name == "@everyone").unwrap();
    let base = |p: &str| everyone.permissions.iter().flatten().any(|x| x.0 == p);
    assert!(base("view_channel") && base("send_messages"));
    let writable = defaults
        .iter()
        .filter(|r| {
            let c = &ctx.channels[find(r)];
            assert!(c.channel.channel_type().is_text_like(), "{r}");
            let own = if c.channel.sync_permissions == Some(true) {
                ctx.channels[c.parent.unwrap()].channel.overwrites.clone()
            } else {
                c.channel.overwrites.clone()
            };
            let denied = own.iter().flatten().any(|o| {
                o.role.as_deref() == Some("@everyone")
                    && o.deny
                        .iter()
                        .any(|p| p.0 == "send_messages" || p.0 == "view_channel")
            });
            !denied
        })
        .count();
    assert!(
        writable >= 5,
        "{writable} default channels writable by @everyone"
    );

    let widget = m.widget.as_ref().expect("widget");
    assert_eq!(widget.enabled, Some(true));
    find(widget.channel.clone().flatten().as_deref().unwrap());

    let hooks = m.webhooks.as_ref().expect("webhooks");
    assert_eq!(hooks.len(), 2);
    assert!(hooks.iter().any(|w| w.name == "CI"));
    let with_avatar: Vec<_> = hooks
        .iter()
        .filter_map(|w| w.avatar.clone().flatten())
        .collect();
    assert_eq!(with_avatar.len(), 1);
    let (mime, bytes) = read_image(&loaded.dir(), &with_avatar[0]).unwrap();
    assert_eq!(mime, "image/png");
    assert!(bytes.len() < 64 * 1024, "keep the example's image small");
    for w in hooks {
        let c = &ctx.channels[find(&w.channel)];
        assert!(c.channel.channel_type().is_text_like());
    }
    assert_ne!(
        ctx.channels[find("announcements")].channel.channel_type(),
        ChannelType::Text
    );

    // `prune` is written out (all off) to show it.
    assert!(loaded.files[0].text.contains("\nprune:\n"));
    assert!(!m.prune.roles && !m.prune.channels && !m.prune.webhooks);
}

// ---------------------------------------------------------------------------------------------
// One object, one identity: a list names each object once, whatever the spelling

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
