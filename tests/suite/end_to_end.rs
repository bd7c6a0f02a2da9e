//! The foundation end to end: the real binary plans and applies manifests
//! against the emulator over loopback HTTP.

use crate::common;

use common::{GuildNames, Harness, arrange, example};
use serde_json::{Value, json};

fn ranked_role_names(h: &Harness) -> Vec<String> {
    let g = h.guild();
    let mut roles = g.roles.clone();
    roles.sort_by(|a, b| {
        let everyone = |r: &discord_emulator::state::Role| r.id == g.id;
        everyone(a)
            .cmp(&everyone(b))
            .then(b.position.cmp(&a.position))
            .then(a.id.len().cmp(&b.id.len()).then(a.id.cmp(&b.id)))
    });
    roles.into_iter().map(|r| r.name).collect()
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
    // The guild's seven, the role member counts the example's `holders` policy needs, and
    // the listings of its AutoMod rules and scheduled events.
    assert!(
        requests.len() <= 10,
        "plan sent {} requests",
        requests.len()
    );
    assert!(requests.iter().all(|r| r.method == "GET"), "{requests:?}");
}

#[tokio::test]
async fn plan_reads_a_large_guild_in_the_same_number_of_calls() {
    let small = Harness::start().await;
    let manifest = small.manifest("m.yaml", "version: 1\nroles:\n  - name: Member\n");
    let m = manifest.to_str().unwrap();
    small.run(&["plan", "-f", m]).await.assert_code(0);
    let small_count = small.requests().len();

    let mut state = discord_emulator::default_state();
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
    // On a terminal the unmanaged roles are counted, the first few named (JSON has all).
    assert!(
        run.stdout.contains(" roles, ") && run.stdout.contains("--format json lists them"),
        "unmanaged roles are listed: {}",
        run.stdout
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
            // Guild sub-resources are recorded against the guild.
            ("PATCH", p) if p.ends_with("/welcome-screen") || p.ends_with("/widget") => with_reason
                .iter()
                .any(|e| e["action_type"] == 1 && e["target_id"] == h.emu.guild_id.as_str()),
            ("PUT", p) if p.ends_with("/onboarding") => with_reason
                .iter()
                .any(|e| e["action_type"] == 166 || e["action_type"] == 167),
            ("POST", p) if p.ends_with("/webhooks") => {
                with_reason.iter().any(|e| e["action_type"] == 50)
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
        .filter(|e| [30, 10, 50].iter().any(|t| e["action_type"] == *t))
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
    let helper = h.role_id("Helper");
    let showcase = h.channel_id("showcase");
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
    let mut writes = h.writes();
    // Independent calls run concurrently: compare in a fixed order.
    writes.sort_by(|a, b| b.path.cmp(&a.path));
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
    assert_eq!(h.role_id("Helpers"), helper);
    assert_eq!(h.channel_id("projects"), showcase);
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
    let mod_log = h.channel_id("mod-log");
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
    let helper = h.role_id("Helper");
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

/// An overwrite that allows and denies nothing changes no permission, but Discord keeps it
/// and lists the role in the channel's permissions: the plan shows it being added (issue
/// 20, point 5), apply creates it, and it then converges.
#[tokio::test]
async fn an_empty_overwrite_is_shown_created_and_converges() {
    let h = Harness::start().await;
    let mod_log = h.channel_id("mod-log");
    let m = h.manifest(
        "m.yaml",
        r#"version: 1
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        overwrites:
          - { role: "@everyone", deny: [view_channel] }
          - { role: Helper }
"#,
    );
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m, "--format", "json"]).await;
    plan.assert_code(0);
    let json: serde_json::Value = serde_json::from_str(&plan.stdout).unwrap();
    let change = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["object"]["name"] == "Staff/#mod-log")
        .unwrap_or_else(|| panic!("mod-log is not changed: {json:#}"));
    let overwrites = change["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "overwrites")
        .unwrap_or_else(|| panic!("{change:#}"));
    // A field change names the API field it is sent as (plan format 4).
    assert_eq!(overwrites["api"], "permission_overwrites", "{overwrites:#}");
    let after = overwrites["after"].clone();
    assert!(
        after
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"role": "Helper"})),
        "the empty overwrite is shown: {after:#}"
    );
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let live = h
        .guild()
        .channels
        .into_iter()
        .find(|c| c.id == mod_log)
        .unwrap();
    let helper = h.role_id("Helper");
    assert!(
        live.permission_overwrites.iter().any(|o| o.id == helper),
        "{:?}",
        live.permission_overwrites
    );
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    // Export keeps it, so the exported manifest plans to nothing as well.
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let exported = h.dir.path().join("exported.yaml");
    let text = std::fs::read_to_string(&exported).unwrap();
    assert!(text.contains("role: Helper"), "{text}");
    h.run(&[
        "plan",
        "-f",
        exported.to_str().unwrap(),
        "--detailed-exitcode",
    ])
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
    let mut state = discord_emulator::default_state();
    arrange(&mut state).role("guildctl").permissions(&[
        "manage_roles",
        "manage_channels",
        "manage_guild",
        "view_channel",
        "send_messages",
    ]);
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
    let reviewers = h.role_id("Reviewers");
    let g = h.guild();
    let category = g.channel_named("Review");
    let queue = g.channel_named("Review/queue");
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

#[tokio::test]
async fn everyone_manages_only_its_permissions_and_unknown_bits_survive() {
    let mut state = discord_emulator::default_state();
    let mut guild = arrange(&mut state);
    let gid = guild.id.clone();
    // Bit 60 has no name: it must survive an apply that rewrites the named bits.
    guild.role("@everyone").permissions.0 |= 1 << 60;
    let h = Harness::with_state(Some(state)).await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: \"@everyone\"\n    permissions: [view_channel, read_message_history]\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = h.writes();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].path, format!("/api/v10/guilds/{gid}/roles/{gid}"));
    let g = h.guild();
    let everyone = g.role_named("@everyone");
    assert_eq!(everyone.permissions.0, (1 << 10) | (1 << 16) | (1 << 60));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn prune_deletes_what_is_not_declared_and_keeps_it_otherwise() {
    let h = Harness::start().await;
    let keep = h.manifest(
        "keep.yaml",
        "version: 1\nchannels:\n  - name: Staff\n    type: category\n    channels: [{ name: mod-chat }, { name: mod-log }]\n",
    );
    let run = h
        .run(&["plan", "-f", keep.to_str().unwrap(), "--detailed-exitcode"])
        .await;
    run.assert_code(0);
    let json = h
        .run(&["plan", "-f", keep.to_str().unwrap(), "--format", "json"])
        .await;
    assert!(
        json.stdout.contains("\"General/#memes\""),
        "{}",
        json.stdout
    );

    let prune = h.manifest(
        "prune.yaml",
        "version: 1\nchannels:\n  - name: Staff\n    type: category\n    channels: [{ name: mod-chat }, { name: mod-log }]\n  - { name: AFK, type: voice }\n  - { name: general }\nsettings: { system_channel: general, afk_channel: AFK }\nprune: { channels: true }\n",
    );
    let plan = h.run(&["plan", "-f", prune.to_str().unwrap()]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout.contains("delete channel General/#memes"),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout.contains("delete category Help"),
        "{}",
        plan.stdout
    );
    let categories: Vec<String> = h
        .guild()
        .channels
        .iter()
        .filter(|c| c.kind == 4)
        .map(|c| format!("/api/v10/channels/{}", c.id))
        .collect();
    // 13 channels and the 2 webhooks of #bot-spam: above the default deletion limits.
    h.run(&[
        "apply",
        "-f",
        prune.to_str().unwrap(),
        "--yes",
        "--allow-deletes",
        "15",
    ])
    .await
    .assert_code(0);
    let deletes: Vec<String> = h
        .writes()
        .into_iter()
        .filter(|w| w.method == "DELETE")
        .map(|w| w.path)
        .collect();
    // Children go before their categories: every category delete comes after all others.
    let first_category = deletes.iter().position(|p| categories.contains(p)).unwrap();
    assert!(
        deletes[first_category..]
            .iter()
            .all(|p| categories.contains(p)),
        "{deletes:?}"
    );
    assert!(first_category > 0);
    let names: Vec<String> = h.guild().channels.into_iter().map(|c| c.name).collect();
    let mut names_sorted = names.clone();
    names_sorted.sort();
    assert_eq!(
        names_sorted,
        ["AFK", "Staff", "general", "mod-chat", "mod-log"]
    );
    h.run(&["plan", "-f", prune.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_saved_plan_applies_only_to_the_guild_it_was_made_for() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: true\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["plan", "-f", m, "--out", "plan.json"])
        .await
        .assert_code(0);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(h.dir.path().join("plan.json")).unwrap())
            .unwrap();
    assert_eq!(saved["operations"].as_array().unwrap().len(), 1);

    // Someone changes the guild by hand: the saved plan is refused.
    let other = h.manifest(
        "other.yaml",
        "version: 1\nroles:\n  - name: Muted\n    hoist: true\n",
    );
    h.run(&["apply", "-f", other.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    h.emu.clear_requests();
    let stale = h
        .run(&["apply", "-f", m, "--plan", "plan.json", "--yes"])
        .await;
    stale.assert_code(1);
    assert!(stale.stderr.contains("changed since"), "{}", stale.stderr);
    assert!(h.writes().is_empty());

    h.run(&["plan", "-f", m, "--out", "plan.json"])
        .await
        .assert_code(0);
    h.run(&["apply", "-f", m, "--plan", "plan.json", "--yes"])
        .await
        .assert_code(0);
    assert_eq!(h.writes().len(), 1);
}

#[tokio::test]
async fn formats_and_exit_codes_and_no_token_in_any_output() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    let json = h.run(&["plan", "-f", m, "--format", "json"]).await;
    json.assert_code(0);
    let plan: Value = serde_json::from_str(&json.stdout).expect("plan JSON on stdout");
    assert!(plan["changes"].as_array().unwrap().len() > 10);
    let md = h
        .run(&[
            "plan",
            "-f",
            m,
            "--format",
            "markdown",
            "--detailed-exitcode",
        ])
        .await;
    md.assert_code(2);
    assert!(md.stdout.starts_with("### guildctl plan"), "{}", md.stdout);
    assert!(md.stdout.contains("```diff"));
    let drift = h.run(&["drift", "-f", m]).await;
    drift.assert_code(2);
    let apply = h.run(&["apply", "-f", m, "--yes"]).await;
    apply.assert_code(0);
    // Converged, but the default guild keeps hand-made high-risk objects the example
    // does not declare (the Admin role, two webhooks): drift still fails on them.
    let after = h.run(&["drift", "-f", m]).await;
    after.assert_code(2);
    assert!(after.stdout.contains("No changes"), "{}", after.stdout);
    assert!(after.stdout.contains("HIGH RISK"), "{}", after.stdout);
    for run in [&json, &md, &drift, &apply] {
        assert!(!run.stdout.contains(&h.emu.token));
        assert!(!run.stderr.contains(&h.emu.token));
    }
    let bad_token = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["plan", "-f", m])
        .env("DISCORD_TOKEN", "not-the-token")
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_GUILD", &h.emu.guild_id)
        .output()
        .await
        .unwrap();
    assert_eq!(bad_token.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad_token.stderr);
    assert!(stderr.contains("401"), "{stderr}");
    assert!(!stderr.contains("not-the-token"), "{stderr}");
}

#[tokio::test]
async fn apply_without_yes_and_without_a_terminal_changes_nothing() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nroles:\n  - name: Member\n    hoist: true\n",
    );
    let run = h.run(&["apply", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn moving_a_channel_to_another_category_keeps_it() {
    let h = Harness::start().await;
    let memes = h.channel_id("memes");
    let help_category = h.channel_id("Help");
    let m = h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - name: Help\n    type: category\n    channels: [{ name: help }, { name: showcase }, { name: memes }]\n",
    );
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let writes = h.writes();
    assert!(writes.iter().all(|w| w.method == "PATCH"), "{writes:?}");
    let moves: Vec<_> = writes
        .iter()
        .filter(|w| {
            w.body
                .as_ref()
                .and_then(|b| b.as_array())
                .is_some_and(|a| a.iter().any(|e| e.get("parent_id").is_some()))
        })
        .collect();
    assert_eq!(moves.len(), 1, "one parent change per call: {writes:?}");
    let live = h
        .guild()
        .channels
        .into_iter()
        .find(|c| c.id == memes)
        .unwrap();
    assert_eq!(live.parent_id.as_deref(), Some(help_category.as_str()));
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_type_change_discord_refuses_is_refused_at_plan_time() {
    let h = Harness::start().await;
    let m = h.manifest(
        "m.yaml",
        "version: 1\nchannels:\n  - name: General\n    type: category\n    channels: [{ name: Lounge, type: stage }]\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("voice channel live"), "{}", run.stderr);
    assert!(h.writes().is_empty());
}
