//! A roster change that gives a member a role holding a dangerous permission is among the
//! plan's risks (issue 23), in text, markdown and JSON, like a role's own grant; over
//! HTTP against the emulator.

use crate::common;

use common::{GuildNames, Harness, StateNames};
use discord_emulator::State;
use serde_json::Value;

/// A manifest declaring `role`'s roster as its holders today plus heidi (who holds it not),
/// with `extra` lines under the role: the plan gives heidi the role and takes it from nobody.
fn roster_plus_heidi(state: &State, role: &str, extra: &str) -> String {
    let g = &state.guilds[0];
    let rid = &g.role_id(role);
    let mut members: Vec<String> = g
        .members
        .iter()
        .filter(|m| m.roles.contains(rid))
        .map(|m| format!("      - {{ id: \"{}\" }}\n", m.user_id))
        .collect();
    assert!(!members.is_empty(), "{role} has holders today");
    let heidi = state.user_id("heidi");
    assert!(
        g.members
            .iter()
            .any(|m| m.user_id == heidi && !m.roles.contains(rid))
    );
    members.push(format!("      - {{ id: \"{heidi}\", name: heidi }}\n"));
    format!(
        "version: 1\nroles:\n  - name: {role}\n{extra}    members:\n{}",
        members.concat()
    )
}

/// The plan of `manifest` in text, markdown and JSON.
async fn plans(h: &Harness, manifest: &str) -> (String, String, Value) {
    let f = h.manifest("staff.yaml", manifest);
    h.plans(f.to_str().unwrap()).await
}

#[tokio::test]
async fn giving_a_member_a_dangerous_role_is_a_risk_in_every_format() {
    let h = Harness::start().await;
    let manifest = roster_plus_heidi(&h.emu.state(), "Moderator", "");
    let (text, markdown, json) = plans(&h, &manifest).await;

    // heidi gains Moderator's dangerous permissions; the role also opens the staff
    // channels to her (issue 30): risks of their own.
    {
        let _redacted = common::snapshot::redacted();
        insta::assert_snapshot!("moderator_to_heidi_text", text);
        insta::assert_snapshot!("moderator_to_heidi_markdown", markdown);
    }

    let risks = json["risks"].as_array().unwrap();
    assert_eq!(risks.len(), 3, "{json}");
    assert!(
        risks[1..]
            .iter()
            .all(|r| r["kind"] == "access" && r["object"]["kind"] == "roster_entry"),
        "{json}"
    );
    let r = &risks[0];
    assert_eq!(r["kind"], "grant");
    assert_eq!(r["object"]["kind"], "roster_entry");
    assert_eq!(r["object"]["id"], h.user_id("heidi").as_str());
    let perms: Vec<&str> = r["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(perms.contains(&"ban_members"), "{perms:?}");
    assert!(
        !perms.contains(&"view_audit_log"),
        "only dangerous ones: {perms:?}"
    );
    // The change carries what it grants, so a saved plan's risks come from its changes.
    let change = &json["changes"][r["change"].as_u64().unwrap() as usize];
    assert_eq!(change["fields"][0]["field"], "grants");
    assert!(h.writes().is_empty(), "plan only reads");
}

#[tokio::test]
async fn a_roster_role_grants_what_the_manifest_declares() {
    let h = Harness::start().await;
    let st = h.emu.state();

    // Contributor grants nothing dangerous, but its overwrite lets her write in
    // Help/#showcase, where @everyone may not: that is the roster entry's one risk.
    let (text, markdown, json) = plans(&h, &roster_plus_heidi(&st, "Contributor", "")).await;
    assert!(
        text.contains("+ create roster entry Contributor ← heidi"),
        "{text}"
    );
    let heidi = st.user_id("heidi");
    let line = format!("heidi ({heidi}) gains send_messages in Help/#showcase");
    assert!(
        text.contains("Widens access or destroys (1): 1 access widening"),
        "{text}"
    );
    assert!(text.contains(&format!("! {line}")), "{text}");
    assert!(
        markdown.contains("**Widens access or destroys (1):** 1 access widening"),
        "{markdown}"
    );
    let risks = json["risks"].as_array().unwrap();
    assert_eq!(risks.len(), 1, "{json}");
    assert_eq!(risks[0]["kind"], "access");
    assert_eq!(risks[0]["object"]["kind"], "roster_entry");
    assert_eq!(risks[0]["channel"], "Help/#showcase");

    // Declared with administrator, it is: the role's own grant and the member's.
    let admin = "    permissions: [administrator]\n";
    let (text, _, json) = plans(&h, &roster_plus_heidi(&st, "Contributor", admin)).await;
    assert!(
        text.contains("Widens access or destroys (2): 2 role grants"),
        "{text}"
    );
    assert!(
        text.contains("! role Contributor gains administrator"),
        "{text}"
    );
    assert!(
        text.contains("! roster entry Contributor ← heidi gains administrator"),
        "{text}"
    );
    assert_eq!(json["risks"].as_array().unwrap().len(), 2, "{json}");

    // Helper holds manage_messages live, but the manifest takes it away: no grant.
    let tamed = "    permissions: [view_audit_log]\n";
    let (text, _, json) = plans(&h, &roster_plus_heidi(&st, "Helper", tamed)).await;
    assert!(
        text.contains("+ create roster entry Helper ← heidi"),
        "{text}"
    );
    assert!(!text.contains("Widens access"), "{text}");
    assert_eq!(json["risks"], Value::Array(vec![]), "{json}");
}

/// A holder the member listing names (not declared by the roster that takes the role away)
/// is computed with every role they hold: erin, a Moderator who is also a Helper, keeps
/// Helper's `manage_messages` when the roster takes Moderator from her. Found by the seams
/// property test: the listing kept the roster roles alone, so she was shown losing what
/// Helper still gives her.
#[tokio::test]
async fn a_listed_holder_taken_off_a_roster_keeps_what_her_other_roles_give() {
    let h = Harness::start().await;
    h.arrange(|g| {
        g.member("erin").add_role("Helper");
    });
    let state = h.emu.state();
    let manifest = format!(
        "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{}\" }}\n",
        state.user_id("alice")
    );
    let f = h.manifest("staff.yaml", &manifest);
    let json = h.plan_json(f.to_str().unwrap()).await;
    let erin = state.user_id("erin");
    let lines: Vec<&Value> = json["access"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["who_id"] == erin)
        .collect();
    assert!(!lines.is_empty(), "erin loses Moderator's powers: {json:#}");
    // Where she still sees the channel, Helper still gives her manage_messages.
    for l in &lines {
        let loses = l["loses"].as_array().unwrap();
        if loses.iter().any(|p| p == "view_channel") {
            continue;
        }
        assert!(
            !loses.iter().any(|p| p == "manage_messages"),
            "Helper still gives erin manage_messages: {l:#}"
        );
    }
    assert!(
        lines.iter().any(|l| l["loses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "kick_members")),
        "{lines:#?}"
    );
}
