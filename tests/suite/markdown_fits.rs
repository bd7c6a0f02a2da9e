//! Markdown for pull requests and issues: the verdict first, details folded, within a
//! GitHub comment's 65,536 characters whatever the plan's size, and a refused plan
//! shows its refusals instead of nothing.

use crate::common;

use common::Harness;
use guildctl::permissions::NAMED;

#[tokio::test]
async fn a_huge_plan_fits_one_comment_with_its_verdict_first() {
    let h = Harness::start().await;
    let permissions = NAMED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    let mut yaml = String::from("version: 1\nroles:\n");
    for i in 0..240 {
        yaml += &format!(
            "  - {{ name: \"Role {i:03} {}\", permissions: [{permissions}] }}\n",
            "x".repeat(80)
        );
    }
    let m = h.manifest("huge.yaml", &yaml);
    let m = m.to_str().unwrap();

    let text = h.run(&["plan", "-f", m]).await;
    text.assert_code(0);
    assert!(text.stdout.chars().count() > 200_000, "the plan is huge");

    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(0);
    let n = md.stdout.chars().count();
    assert!(n <= 65_536, "{n} characters");
    assert!(
        md.stdout.starts_with("### guildctl plan for"),
        "{}",
        &md.stdout[..200]
    );
    let verdict = md.stdout.lines().nth(2).unwrap_or_default();
    assert_eq!(
        verdict,
        "**240 to create, 0 to update, 0 to reorder, 0 to delete.**"
    );
    assert!(
        md.stdout
            .contains("<details><summary>Changes (240)</summary>")
    );
    // Every role is created with administrator: 240 risks, all listed first, never cut;
    // the changes' diff is what is cut, saying how many of which kind it left out.
    assert!(
        md.stdout
            .contains("**Widens access or destroys (240):** 240 role grants"),
        "{}",
        &md.stdout[..400]
    );
    let granted = md
        .stdout
        .lines()
        .filter(|l| l.starts_with("- role Role ") && l.ends_with(" gains administrator"))
        .count();
    assert_eq!(granted, 240);
    assert!(
        md.stdout
            .contains("changes left out to fit a GitHub comment: "),
        "{}",
        md.stdout
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The digests a reviewer matches still close it.
    assert!(
        md.stdout.contains("Changes digest"),
        "{}",
        &md.stdout[n.saturating_sub(600)..]
    );
}

#[tokio::test]
async fn a_refused_plan_renders_its_refusals_in_markdown_and_json() {
    let h = Harness::start().await;
    let m = h.manifest(
        "refused.yaml",
        "version: 1\nwidget: { enabled: true, channel: no-such-channel }\n",
    );
    let m = m.to_str().unwrap();
    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(1);
    assert!(
        md.stdout
            .contains("**The plan was refused: 1 problem(s), before any change was made.**"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("no\\-such\\-channel"), "{}", md.stdout);
    assert!(md.stdout.contains("(`widget.channel`)"), "{}", md.stdout);

    let json = h.run(&["plan", "-f", m, "--format", "json"]).await;
    json.assert_code(1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON on stdout");
    assert_eq!(v["refused"], true);
    assert_eq!(v["problems"].as_array().map(Vec::len), Some(1));
    assert!(h.writes().is_empty());
}
