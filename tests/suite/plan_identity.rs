//! One object, one identity, where only the live guild can tell: references to channels and
//! roles the manifest does not declare, written in two spellings (name, `Category/name`,
//! Discord's stored form, id), are refused by `plan` and `apply` at the second entry, with
//! its file and line, before any write; and they never count twice toward onboarding's
//! minimum of 7 channels.

use crate::common;

use common::Harness;

/// Runs `plan` and `apply --yes` on the manifest: both exit 1 with every `expected` text on
/// stderr, and nothing but GETs reaches the emulator.
async fn refused(h: &Harness, yaml: &str, expected: &[String]) {
    let path = h.manifest("m.yaml", yaml);
    let m = path.to_str().unwrap();
    for args in [vec!["plan", "-f", m], vec!["apply", "-f", m, "--yes"]] {
        let run = h.run(&args).await;
        run.assert_code(1);
        for e in expected {
            assert!(
                run.stderr.contains(e.as_str()),
                "{args:?}: expected {e:?} in\n{}",
                run.stderr
            );
        }
        assert!(
            run.stderr.contains("before any change was made"),
            "{}",
            run.stderr
        );
    }
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn a_live_channel_named_twice_is_refused_and_counted_once() {
    let h = Harness::start().await;
    let faq = h.channel_id("faq");
    // Seven entries, five channels: without the duplicates Discord would refuse the
    // onboarding PUT halfway through an apply.
    let yaml = format!(
        "version: 1
onboarding:
  enabled: true
  default_channels:
    - rules
    - Information/rules
    - \"{faq}\"
    - faq
    - welcome
    - general
    - off-topic
"
    );
    refused(
        &h,
        &yaml,
        &[
            "error: `Information/rules` names the same channel as `rules` (first at onboarding.default_channels[0])".into(),
            "m.yaml:6:7".into(),
            "error: `faq` names the same channel as `".to_string() + &faq + "` (first at onboarding.default_channels[2])",
            "m.yaml:8:7".into(),
            "the plan leaves 5 channels".into(),
            "help: remove this entry".into(),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_live_role_by_name_and_by_id_is_one_role() {
    let h = Harness::start().await;
    let member = h.role_id("Member");
    let guild = h.emu.guild_id.clone();
    // The manifest names no guild, so only the live guild knows that its id is @everyone's.
    let yaml = format!(
        "version: 1
channels:
  - name: General
    type: category
    channels:
      - name: general
        overwrites:
          - {{ role: \"@everyone\", deny: [send_messages] }}
          - {{ role: \"{guild}\", allow: [view_channel] }}
onboarding:
  enabled: false
  prompts:
    - title: Who are you?
      options:
        - title: A member
          roles: [Member, \"{member}\"]
          channels: [off-topic, General/off-topic]
"
    );
    refused(
        &h,
        &yaml,
        &[
            format!(
                "error: `{guild}` names the same role as `@everyone` (first at channels[0].channels[0].overwrites[0])"
            ),
            "m.yaml:9:13".into(),
            format!(
                "error: `{member}` names the same role as `Member` (first at onboarding.prompts[0].options[0].roles[0])"
            ),
            "error: `General/off-topic` names the same channel as `off-topic` (first at onboarding.prompts[0].options[0].channels[0])".into(),
        ],
    )
    .await;
}

#[tokio::test]
async fn live_ids_are_references_that_plan_resolves() {
    let h = Harness::start().await;
    let rules = h.channel_id("rules");
    let yaml = format!(
        "version: 1
settings:
  system_channel: \"{rules}\"
"
    );
    let path = h.manifest("m.yaml", &yaml);
    let run = h
        .run(&["plan", "-f", path.to_str().unwrap(), "--format", "json"])
        .await;
    run.assert_code(0);
    let plan: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let text = plan.to_string();
    assert!(
        text.contains(&format!("\"system_channel_id\":\"{rules}\"")),
        "{text}"
    );
    assert!(h.writes().is_empty());
}
