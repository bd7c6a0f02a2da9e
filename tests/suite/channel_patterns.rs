//! Channel patterns (`where:` of a policy, `access --channel`; docs/access.md, "Patterns"):
//! matched in time linear in the pattern and the name, whatever the stars, and bounded in
//! length. The matcher's step bound is `manifest::pattern`'s unit test; its speed over 500
//! channels is `benches/patterns.rs`.

use std::time::Duration;

use crate::common::{Harness, Run};

/// Long enough for a debug build on a loaded machine: turns the old matcher's hang (hours
/// for these names) into a failure rather than a stuck suite. Not a measure of speed.
const WAIT: Duration = Duration::from_secs(120);

async fn run(h: &Harness, args: &[&str]) -> Run {
    let mut cmd = h.command(args);
    cmd.kill_on_drop(true);
    let out = tokio::time::timeout(WAIT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("guildctl {args:?} did not finish within {WAIT:?}"))
        .expect("guildctl runs");
    Run::of(out)
}

/// Six stars before a `b`, over channel names of 100 letters: what hung validate and plan.
const STARS: &str = "*a*a*a*a*a*a*b";

fn manifest(pattern: &str) -> String {
    let (with_b, without) = (format!("{}b", "a".repeat(99)), "a".repeat(100));
    format!(
        "version: 1
channels:
  - name: {with_b}
    overwrites:
      - {{ role: \"@everyone\", allow: [view_channel] }}
  - name: {without}
    overwrites:
      - {{ role: \"@everyone\", allow: [view_channel] }}
policies:
  - name: no-b-for-everyone
    never: {{ who: \"@everyone\", can: [view_channel], where: [\"{pattern}\"] }}
"
    )
}

#[tokio::test]
async fn a_pattern_of_many_stars_is_judged_at_once() {
    let h = Harness::start().await;
    h.manifest("guild.yaml", &manifest(STARS));
    let with_b = format!("#{}b", "a".repeat(99));
    let without = format!("#{}", "a".repeat(100));

    let validated = run(&h, &["validate", "-f", "guild.yaml"]).await;
    validated.assert_code(1);
    let breach = format!("@everyone has view_channel in {with_b}");
    assert!(validated.stderr.contains(&breach), "{}", validated.stderr);
    assert!(
        !validated.stderr.contains(&format!("in {without}")),
        "{}",
        validated.stderr
    );

    let planned = run(&h, &["plan", "-f", "guild.yaml"]).await;
    planned.assert_code(1);
    let all = format!("{}{}", planned.stdout, planned.stderr);
    assert!(
        all.contains("no-b-for-everyone") && all.contains(&breach),
        "{all}"
    );

    let access = run(
        &h,
        &["access", "-f", "guild.yaml", "--live", "--channel", STARS],
    )
    .await;
    // Nothing live has the name yet: the pattern names no channel, and says so.
    access.assert_code(1);
    assert!(
        access.stderr.contains("names no channel"),
        "{}",
        access.stderr
    );
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}

#[tokio::test]
async fn a_pattern_past_the_limit_is_a_validate_error_at_its_line() {
    let h = Harness::start().await;
    let long = format!("Staff/{}", "*".repeat(251));
    h.manifest("guild.yaml", &manifest(&long));
    let validated = run(&h, &["validate", "-f", "guild.yaml"]).await;
    validated.assert_code(1);
    let said = &validated.stderr;
    assert!(
        said.contains(
            "error: the channel pattern has 257 characters; a pattern may have at most 256"
        ) && said.contains("--> guild.yaml:11:61"),
        "{said}"
    );
    // At the limit, a pattern is a pattern.
    h.manifest("guild.yaml", &manifest(&long[1..]));
    let at_limit = run(&h, &["validate", "-f", "guild.yaml"]).await;
    assert!(
        !at_limit.stderr.contains("at most 256"),
        "{}",
        at_limit.stderr
    );

    h.manifest("plain.yaml", "version: 1\n");
    let access = run(
        &h,
        &["access", "-f", "plain.yaml", "--live", "--channel", &long],
    )
    .await;
    access.assert_code(1);
    assert!(
        access.stderr.contains("a pattern may have at most 256"),
        "{}",
        access.stderr
    );
}
