//! Onboarding.

use super::*;

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
