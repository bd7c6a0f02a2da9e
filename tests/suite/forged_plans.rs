//! A saved plan is a digest to match, never a script (issue 19, point 1): apply plans
//! again and runs only the calls it derived. Each forgery here is refused before any
//! write, with the attacker holding the same digest function guildctl uses.

use crate::common;

use common::Harness;
use guildctl::plan::{Change, Operation, binding::changes_digest};
use serde_json::{Value, json};

/// What the pull request shows: a harmless new role.
const REVIEWED: &str = "version: 1\nroles:\n  - name: Greeter\n";
/// What the attacker wants: administrator for everyone.
const EVIL: &str =
    "version: 1\nroles:\n  - name: \"@everyone\"\n    permissions: [administrator]\n";
/// Deletions refused outright, and every channel protected.
const GUARDED: &str = "version: 1\nroles:\n  - name: Greeter\nsafety: { allow_deletes: 0 }\n";

async fn saved(h: &Harness, manifest: &str, out: &str) -> Value {
    h.run(&["plan", "-f", manifest, "--out", out])
        .await
        .assert_code(0);
    serde_json::from_str(&std::fs::read_to_string(h.dir.path().join(out)).unwrap()).unwrap()
}

/// Writes `plan` with its digest recomputed over its (edited) changes and operations,
/// as an attacker who read guildctl's source would.
fn write_with_recomputed_digest(h: &Harness, name: &str, mut plan: Value) {
    let changes: Vec<Change> = serde_json::from_value(plan["changes"].clone()).unwrap();
    let operations: Vec<Operation> = serde_json::from_value(plan["operations"].clone()).unwrap();
    plan["changes_sha256"] = json!(changes_digest(&changes, &operations));
    std::fs::write(h.dir.path().join(name), plan.to_string()).unwrap();
}

/// `guildctl apply --plan PLAN -f MANIFEST --yes`.
async fn apply_reviewed(h: &Harness, plan: &str, manifest: &str) -> common::Run {
    h.run(&["apply", "--plan", plan, "-f", manifest, "--yes"])
        .await
}

fn everyone_is_admin(h: &Harness) -> bool {
    let g = h.guild();
    let everyone = g.roles.iter().find(|r| r.id == g.id).unwrap();
    everyone.permissions.bits() & 8 == 8
}

#[tokio::test]
async fn operations_that_differ_from_the_shown_changes_are_never_run() {
    let h = Harness::start().await;
    h.manifest("reviewed.yaml", REVIEWED);
    let reviewed = saved(&h, "reviewed.yaml", "reviewed.json").await;
    h.manifest("evil.yaml", EVIL);
    let evil = saved(&h, "evil.yaml", "evil.json").await;
    assert!(!everyone_is_admin(&h));

    // Shows "create role Greeter"; its calls grant administrator to @everyone.
    let mut forged = reviewed.clone();
    let mut calls = evil["operations"].clone();
    for call in calls.as_array_mut().unwrap() {
        call["change"] = json!(0);
    }
    forged["operations"] = calls;
    write_with_recomputed_digest(&h, "forged.json", forged);
    h.emu.clear_requests();
    let run = apply_reviewed(&h, "forged.json", "reviewed.yaml").await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "refusing to apply: the plan this run derives from the manifest and the live guild (changes sha256 {}) is not the reviewed plan",
            reviewed["changes_sha256"].as_str().unwrap()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("its changes are the same, its calls are not"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("nothing was sent to Discord"));
    assert!(h.writes().is_empty(), "refused before any write");
    assert!(!everyone_is_admin(&h));
}

#[tokio::test]
async fn changes_and_operations_both_edited_with_the_digest_recomputed_are_refused() {
    let h = Harness::start().await;
    h.manifest("reviewed.yaml", REVIEWED);
    let reviewed = saved(&h, "reviewed.yaml", "reviewed.json").await;
    h.manifest("evil.yaml", EVIL);
    let evil = saved(&h, "evil.yaml", "evil.json").await;

    // The whole evil plan, bound to the reviewed manifest.
    let mut forged = evil.clone();
    forged["manifest_sha256"] = reviewed["manifest_sha256"].clone();
    write_with_recomputed_digest(&h, "forged.json", forged);
    h.emu.clear_requests();
    let run = apply_reviewed(&h, "forged.json", "reviewed.yaml").await;
    run.assert_code(1);
    // The refusal says which changes differ, both ways.
    assert!(
        run.stderr.contains(
            "the reviewed plan shows, and this run would not make: update role @everyone (permissions)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "this run would make, and the reviewed plan does not show: create role Greeter"
        ),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty(), "refused before any write");
    assert!(!everyone_is_admin(&h));
}

#[tokio::test]
async fn forged_deletions_meet_the_gate_and_protect_of_the_derived_plan() {
    let h = Harness::start().await;
    h.manifest("guarded.yaml", GUARDED);
    let reviewed = saved(&h, "guarded.yaml", "guarded.json").await;
    let channels_before = h.guild().channels.len();
    assert!(channels_before >= 18);

    // Its calls delete every channel; its gate says nothing is deleted.
    let mut forged = reviewed.clone();
    let deletes: Vec<Value> = h
        .guild()
        .channels
        .iter()
        .map(|c| {
            json!({
                "route": {"delete_channel": {"channel": c.id}},
                "method": "DELETE",
                "path": format!("/channels/{}", c.id),
                "summary": "create role Greeter",
                "change": 0,
                "stage": 0
            })
        })
        .collect();
    forged["operations"] = Value::Array(deletes);
    forged["deletion_gate"] = json!({"refused": false, "deletes": 0, "kinds": []});
    write_with_recomputed_digest(&h, "forged.json", forged);
    h.emu.clear_requests();
    let run = apply_reviewed(&h, "forged.json", "guarded.yaml").await;
    run.assert_code(1);
    assert!(h.writes().is_empty(), "{}", run.stderr);
    assert_eq!(h.guild().channels.len(), channels_before);

    // The reviewed file itself applies, and runs the derived call: one role created.
    let run = apply_reviewed(&h, "guarded.json", "guarded.yaml").await;
    run.assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].method, "POST");
    assert!(writes[0].path.ends_with("/roles"), "{}", writes[0].path);
    assert_eq!(h.guild().channels.len(), channels_before);
}

#[tokio::test]
async fn a_plan_reviewed_before_the_guild_moved_is_refused() {
    let h = Harness::start().await;
    h.manifest("reviewed.yaml", REVIEWED);
    saved(&h, "reviewed.yaml", "reviewed.json").await;
    // Someone changes the guild by hand after review.
    h.manifest("hand.yaml", "version: 1\nroles:\n  - name: Hand Made\n");
    h.run(&["apply", "-f", "hand.yaml", "--yes"])
        .await
        .assert_code(0);
    h.emu.clear_requests();
    let run = apply_reviewed(&h, "reviewed.json", "reviewed.yaml").await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("the guild changed since the reviewed plan was made"),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty());
}
