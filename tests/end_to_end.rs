//! The foundation end to end: the real binary plans and applies manifests
//! against the emulator over loopback HTTP.

mod common;

use common::{Harness, example};
use serde_json::{Value, json};

fn ranked_role_names(h: &Harness) -> Vec<String> {
    let g = h.guild();
    let mut roles = g.roles.clone();
    roles.sort_by(|a, b| {
        let everyone = |r: &guildctl::emulator::state::Role| r.id == g.id;
        everyone(a)
            .cmp(&everyone(b))
            .then(b.position.cmp(&a.position))
            .then(a.id.len().cmp(&b.id.len()).then(a.id.cmp(&b.id)))
    });
    roles.into_iter().map(|r| r.name).collect()
}

fn role_id(h: &Harness, name: &str) -> String {
    h.guild()
        .roles
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("role {name} exists"))
        .id
        .clone()
}

fn channel_id(h: &Harness, name: &str) -> String {
    h.guild()
        .channels
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("channel {name} exists"))
        .id
        .clone()
}

#[tokio::test]
async fn example_applies_then_plans_to_zero_with_only_gets() {
    let h = Harness::start().await;
    let manifest = example("community.yaml");
    let m = manifest.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    plan.assert_code(2);
    assert!(h.writes().is_empty(), "plan must not write");

    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert!(!h.writes().is_empty());

    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    again.assert_code(0);
    assert!(again.stdout.contains("No changes"), "{}", again.stdout);
    let requests = h.requests();
    assert!(requests.len() <= 7, "plan sent {} requests", requests.len());
    assert!(requests.iter().all(|r| r.method == "GET"), "{requests:?}");
}

#[tokio::test]
async fn plan_reads_a_large_guild_in_the_same_number_of_calls() {
    let small = Harness::start().await;
    let manifest = small.manifest("m.yaml", "version: 1\nroles:\n  - name: Member\n");
    let m = manifest.to_str().unwrap();
    small.run(&["plan", "-f", m]).await.assert_code(0);
    let small_count = small.requests().len();

    let mut state = guildctl::emulator::default_state();
    let guild = &mut state.guilds[0];
    for c in 0..8 {
        let cat_id = format!("9100000000000000{c:03}");
        guild.channels.push(
            serde_json::from_value(
                json!({"id": cat_id, "type": 4, "name": format!("Bulk {c}"), "position": 10 + c}),
            )
            .unwrap(),
        );
        for i in 0..40 {
            guild.channels.push(
                serde_json::from_value(json!({
                    "id": format!("92000000000000{c:02}{i:03}"), "type": 0, "name": format!("bulk-{c}-{i}"),
                    "position": i, "parent_id": cat_id,
                    "permission_overwrites": [{"id": guild.id, "type": 0, "allow": "0", "deny": "2048"}]
                }))
                .unwrap(),
            );
        }
    }
    for i in 0..150 {
        guild.roles.push(
            serde_json::from_value(json!({"id": format!("930000000000000{i:03}"), "name": format!("Bulk role {i}"), "position": 1}))
                .unwrap(),
        );
    }
    let big = Harness::with_state(Some(state)).await;
    let manifest = big.manifest("m.yaml", "version: 1\nroles:\n  - name: Member\n");
    let run = big.run(&["plan", "-f", manifest.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("Bulk role 149"),
        "unmanaged roles are listed"
    );
    assert_eq!(big.requests().len(), small_count);
    assert!(small_count <= 7);
}

#[tokio::test]
async fn every_write_carries_the_reason_and_is_in_the_audit_log() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let reason = "review: PR #42 — ✓ approved";
    h.run(&[
        "apply",
        "-f",
        m.to_str().unwrap(),
        "--yes",
        "--reason",
        reason,
    ])
    .await
    .assert_code(0);
    let writes = h.writes();
    let positions_route = format!("/api/v10/guilds/{}/channels", h.emu.guild_id);
    for w in &writes {
        if w.method == "PATCH" && w.path == positions_route {
            continue; // Discord takes no reason on the channel positions route.
        }
        assert_eq!(w.reason.as_deref(), Some(reason), "{} {}", w.method, w.path);
    }
    let audited: Vec<_> = writes
        .iter()
        .filter(|w| !(w.method == "PATCH" && w.path == positions_route))
        .collect();
    // Read the audit log through the API, as a person would.
    let url = format!(
        "{}/guilds/{}/audit-logs?limit=100",
        h.emu.api_base, h.emu.guild_id
    );
    let log: Value = reqwest::Client::new()
        .get(url)
        .header("Authorization", format!("Bot {}", h.emu.token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let entries = log["audit_log_entries"].as_array().unwrap();
    let with_reason: Vec<&Value> = entries.iter().filter(|e| e["reason"] == reason).collect();
    for w in &audited {
        // The object each write touched has an entry carrying the reason.
        let target = w.path.rsplit('/').next().unwrap();
        let found = match (w.method.as_str(), w.path.as_str()) {
            ("POST", p) if p.ends_with("/roles") => {
                with_reason.iter().any(|e| e["action_type"] == 30)
            }
            ("POST", p) if p.ends_with("/channels") => {
                with_reason.iter().any(|e| e["action_type"] == 10)
            }
            ("PATCH", p) if p.ends_with("/roles") => {
                with_reason.iter().any(|e| e["action_type"] == 31)
            }
            _ => with_reason.iter().any(|e| e["target_id"] == target),
        };
        assert!(
            found,
            "no audit entry with the reason for {} {}",
            w.method, w.path
        );
    }
    let creates = audited.iter().filter(|w| w.method == "POST").count();
    let create_entries = with_reason
        .iter()
        .filter(|e| e["action_type"] == 30 || e["action_type"] == 10)
        .count();
    assert_eq!(creates, create_entries);
}

#[tokio::test]
async fn default_reason_names_guildctl_apply() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: true\n",
    );
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1);
    assert!(
        writes[0]
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl apply")),
        "{:?}",
        writes[0].reason
    );
}

#[tokio::test]
async fn renames_are_one_patch_that_keeps_the_id() {
    let h = Harness::start().await;
    let helper = role_id(&h, "Helper");
    let showcase = channel_id(&h, "showcase");
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
roles:
  - name: Helpers
    previous_names: [Helper]
channels:
  - name: Help
    type: category
    channels:
      - name: help
      - name: projects
        previous_names: [showcase]
        topic: Show what you built
"#,
    );
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let writes = h.writes();
    let paths: Vec<String> = writes
        .iter()
        .map(|w| format!("{} {}", w.method, w.path))
        .collect();
    assert_eq!(
        paths,
        vec![
            format!("PATCH /api/v10/guilds/{}/roles/{helper}", h.emu.guild_id),
            format!("PATCH /api/v10/channels/{showcase}"),
        ]
    );
    // Name and topic go in one PATCH (Discord limits name/topic changes per channel).
    assert_eq!(writes[1].body.as_ref().unwrap()["name"], "projects");
    assert_eq!(
        writes[1].body.as_ref().unwrap()["topic"],
        "Show what you built"
    );
    assert_eq!(role_id(&h, "Helpers"), helper);
    assert_eq!(channel_id(&h, "projects"), showcase);
}

#[tokio::test]
async fn a_reordered_role_list_is_one_call_and_holds_after_one_apply() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Muted\n  - name: Member\n  - name: Contributor\n  - name: Helper\n  - name: Moderator\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(
        writes[0].path,
        format!("/api/v10/guilds/{}/roles", h.emu.guild_id)
    );
    assert_eq!(
        ranked_role_names(&h),
        [
            "Admin",
            "guildctl",
            "Muted",
            "Member",
            "Contributor",
            "Server Booster",
            "Helper",
            "Moderator",
            "@everyone"
        ]
    );
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn overwrite_changes_replace_the_set_without_deleting_first() {
    let h = Harness::start().await;
    let mod_log = channel_id(&h, "mod-log");
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        overwrites:
          - { role: "@everyone", deny: [view_channel, send_messages] }
          - { role: Helper, allow: [view_channel] }
"#,
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = h.writes();
    assert!(
        writes
            .iter()
            .all(|w| !(w.method == "DELETE" && w.path.contains("/permissions/"))),
        "{writes:?}"
    );
    let patch = writes
        .iter()
        .find(|w| w.path == format!("/api/v10/channels/{mod_log}"))
        .expect("one PATCH of the channel");
    let sent = patch.body.as_ref().unwrap()["permission_overwrites"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(sent, 2, "the whole set goes in one call");
    let live = h
        .guild()
        .channels
        .into_iter()
        .find(|c| c.id == mod_log)
        .unwrap();
    let helper = role_id(&h, "Helper");
    let mut ids: Vec<&str> = live
        .permission_overwrites
        .iter()
        .map(|o| o.id.as_str())
        .collect();
    ids.sort();
    let mut want = vec![h.emu.guild_id.as_str(), helper.as_str()];
    want.sort();
    assert_eq!(ids, want);
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn editing_a_role_above_the_bot_fails_at_plan_time_naming_it() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Admin\n    color: \"#ff0000\"\n  - name: Moderator\n",
    );
    let m = m.to_str().unwrap();
    for cmd in ["plan", "apply"] {
        let run = h
            .run(&[cmd, "-f", m, "--yes"][..if cmd == "plan" { 3 } else { 4 }])
            .await;
        run.assert_code(1);
        assert!(run.stderr.contains("`Admin`"), "{}", run.stderr);
        assert!(run.stderr.contains("highest role"), "{}", run.stderr);
        assert!(
            run.stderr.contains("m.yaml:3"),
            "points at the line: {}",
            run.stderr
        );
    }
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn granting_a_permission_the_bot_lacks_fails_at_plan_time() {
    let mut state = guildctl::emulator::default_state();
    let guild = &mut state.guilds[0];
    let bot_role = guild
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .unwrap();
    bot_role.permissions =
        guildctl::permissions::Permissions((1 << 28) | (1 << 4) | (1 << 5) | (1 << 10) | (1 << 11));
    let h = Harness::with_state(Some(state)).await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    permissions: [view_channel, ban_members]\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("ban_members"), "{}", run.stderr);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn community_without_a_rules_channel_is_refused_before_any_write() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nsettings:\n  community: true\n  verification_level: low\n  explicit_content_filter: all_members\n  public_updates_channel: general\n",
    );
    let run = h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("rules"), "{}", run.stderr);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn text_channel_names_compare_as_discord_stores_them() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - name: General\n    type: category\n    channels:\n      - name: Off Topic\n",
    );
    let run = h
        .run(&["plan", "-f", m.to_str().unwrap(), "--detailed-exitcode"])
        .await;
    run.assert_code(0);
}

#[tokio::test]
async fn new_roles_and_channels_are_referenced_by_their_new_ids() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
roles:
  - name: Moderator
  - name: Reviewers
    permissions: [view_channel, send_messages]
channels:
  - name: Review
    type: category
    overwrites:
      - { role: "@everyone", deny: [view_channel] }
      - { role: Reviewers, allow: [view_channel] }
    channels:
      - { name: queue, sync_permissions: true }
      - { name: Review Voice, type: voice }
settings:
  system_channel: queue
"#,
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let reviewers = role_id(&h, "Reviewers");
    let g = h.guild();
    let category = g.channels.iter().find(|c| c.name == "Review").unwrap();
    let queue = g.channels.iter().find(|c| c.name == "queue").unwrap();
    assert_eq!(queue.parent_id.as_deref(), Some(category.id.as_str()));
    assert!(
        queue
            .permission_overwrites
            .iter()
            .any(|o| o.id == reviewers)
    );
    assert_eq!(g.system_channel_id.as_deref(), Some(queue.id.as_str()));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}
