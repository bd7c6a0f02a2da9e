//! Duplicates are never hidden (issue 41, point 6; docs/decisions.md, "Duplicates"): where
//! the live guild has two objects that one declared entry matches (two roles named
//! Moderator, two `general` channels in one category, two webhooks named CI), every plan
//! format and drift say so at the entry, naming both ids and which one the entry manages:
//! the pinned one, else the oldest. This is how a create that raced another apply is caught
//! by the next plan.

use crate::common;

use common::{GuildNames, Harness};
use serde_json::Value;

/// The plan's duplicates (JSON) as `(source, managed, others)`.
fn duplicates(plan: &Value) -> Vec<(String, String, Vec<String>)> {
    plan["duplicates"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|d| {
                    let others = d["others"].as_array().unwrap();
                    (
                        d["source"].as_str().unwrap().to_owned(),
                        d["managed"].as_str().unwrap().to_owned(),
                        others
                            .iter()
                            .map(|o| o.as_str().unwrap().to_owned())
                            .collect(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A role and a webhook copied by hand beside the declared ones (the copies newer, the
/// copied role ranked higher): each entry manages the oldest, and the plan says so in text,
/// markdown and JSON, and drift reports it (exit 2) with the copy as a medium-risk object.
#[tokio::test]
async fn a_second_role_or_webhook_of_a_declared_name_is_reported_everywhere() {
    let h = Harness::start().await;
    let role = h.role_id("Moderator");
    let webhook = h.guild().webhook_named("CI").id.clone();
    let (mut role_copy, mut webhook_copy) = (String::new(), String::new());
    h.arrange(|g| {
        role_copy = g.copy_role("Moderator");
        webhook_copy = g.copy_webhook("CI");
        // Ranked above the original: the oldest is managed, not the highest.
        let top = g.roles.iter().map(|r| r.position).max().unwrap_or(0);
        g.roles
            .iter_mut()
            .find(|r| r.id == role_copy)
            .unwrap()
            .position = top + 1;
    });
    let file = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Moderator\n    color: \"#123456\"\nwebhooks:\n  - name: CI\n    channel: bot-spam\n",
    );
    let file = file.to_str().unwrap();
    let (text, markdown, json) = h.plans(file).await;
    assert_eq!(
        duplicates(&json),
        [
            ("roles[0]".to_owned(), role.clone(), vec![role_copy.clone()]),
            (
                "webhooks[0]".to_owned(),
                webhook.clone(),
                vec![webhook_copy.clone()]
            ),
        ],
        "{json:#}"
    );
    // The colour goes to the oldest Moderator.
    let update = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["object"]["name"] == "Moderator")
        .unwrap_or_else(|| panic!("an update of Moderator: {json:#}"));
    assert_eq!(update["object"]["id"], role.as_str());
    for (format, out) in [("text", &text), ("markdown", &markdown)] {
        for id in [&role, &role_copy, &webhook, &webhook_copy] {
            assert!(out.contains(id.as_str()), "{format} names {id}:\n{out}");
        }
        assert!(
            out.contains("the oldest named `Moderator`")
                || out.contains("the oldest named \\`Moderator\\`"),
            "{format}:\n{out}"
        );
        assert!(out.contains("matches 2 live objects"), "{format}:\n{out}");
        assert!(
            out.contains("2 declared entries match more than one live object"),
            "{format}:\n{out}"
        );
    }
    assert!(
        text.contains("(roles[0])"),
        "the warning is at the entry:\n{text}"
    );
    let warnings = json["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["source"] == "roles[0]"
                && w["message"].as_str().unwrap().contains(&role_copy)),
        "{json:#}"
    );

    let drift = h.run(&["drift", "-f", file, "--format", "json"]).await;
    drift.assert_code(2);
    let report = drift.json();
    assert_eq!(duplicates(&report).len(), 2, "{report:#}");
    let copy = report["unmanaged"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == role_copy.as_str())
        .unwrap_or_else(|| panic!("the copy is unmanaged: {report:#}"));
    assert_eq!(copy["medium_risk"], true, "{copy:#}");
    assert!(copy["risk"].as_str().unwrap().contains(&role), "{copy:#}");
    let drift_text = h.run(&["drift", "-f", file]).await;
    drift_text.assert_code(2);
    assert!(
        drift_text.stdout.contains(&role_copy),
        "{}",
        drift_text.stdout
    );
}

/// A second `#general` in General beside an exported manifest (every entry pinned), as an
/// apply racing another would leave it: the plan has nothing to change, yet it does not say
/// the guild matches; it names both channels and manages the pinned one.
#[tokio::test]
async fn a_second_channel_beside_a_pinned_one_is_not_a_silent_no_changes() {
    let h = Harness::start().await;
    h.run(&["export", "-o", "live.yaml"]).await.assert_code(0);
    let general = h.channel_id("General/general");
    let mut copy = String::new();
    h.arrange(|g| copy = g.copy_channel("General/general"));
    let file = h.dir.path().join("live.yaml");
    let file = file.to_str().unwrap();
    let run = h.run(&["plan", "-f", file, "--detailed-exitcode"]).await;
    run.assert_code(0);
    assert!(!run.stdout.contains("the guild matches"), "{}", run.stdout);
    assert!(run.stdout.contains("No changes to make"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&copy) && run.stdout.contains(&general),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("pinned by its `id`"), "{}", run.stdout);
    let json = h.plan_json(file).await;
    let found = duplicates(&json);
    assert_eq!(found.len(), 1, "{json:#}");
    let (source, managed, others) = &found[0];
    assert!(
        source.starts_with("channels[") && source.contains("].channels["),
        "{source}"
    );
    assert_eq!((managed, others), (&general, &vec![copy.clone()]));
    assert_eq!(json["duplicates"][0]["kind"], "channel");
    let sarif = h.run(&["plan", "-f", file, "--format", "sarif"]).await;
    sarif.assert_code(0);
    assert!(
        sarif.stdout.contains("\"duplicate\"") && sarif.stdout.contains(&copy),
        "{}",
        sarif.stdout
    );
}
