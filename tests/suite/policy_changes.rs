//! Policies hold against the pull request that would loosen them (issue 42, points 1 to 3;
//! docs/access.md, "Changing a policy"): a policy removed, renamed or weakened in the
//! manifest, a base or guildctl.yaml, or lost with its `extends:`, is compared with the
//! reviewed revision (`--policies-base`, a Git repository made here), listed first in every
//! format and gated by apply; a guild's own file cannot drop the policies under it; and a
//! channel, role or member leaving what a policy covers is a risk, refused when the same
//! plan does what the policy forbade there.

use std::path::Path;

use crate::common::{Harness, StateNames, git};

const WORKSPACE_POLICY: &str = "  - name: staff-stays-private
    never: { who: \"@everyone\", can: [view_channel], where: [\"Staff/*\"] }
";

fn workspace_file(guild: &str, policies: &str) -> String {
    format!(
        "guilds:\n  main: {{ id: \"{guild}\", manifest: guilds/main.yaml }}\npolicies:\n{policies}"
    )
}

/// The reviewed revision: guildctl.yaml with a policy, a base with one, and the guild's
/// manifest extending the base with one of its own; committed in a repository at the
/// harness's folder.
fn reviewed_workspace(h: &Harness) -> &Path {
    let dir = h.dir.path();
    h.put(
        "guildctl.yaml",
        workspace_file(&h.emu.guild_id, WORKSPACE_POLICY).as_bytes(),
    );
    h.put(
        "layouts/community.yaml",
        b"version: 1
policies:
  - name: audit-log-is-staff
    only: { who: [Admin, Moderator], can: [view_audit_log] }
",
    );
    h.put(
        "guilds/main.yaml",
        b"version: 1
extends: ../layouts/community.yaml
channels:
  - name: bot-spam
    topic: Bot commands go here.
policies:
  - name: few-admins
    only: { who: [Admin], can: [administrator] }
",
    );
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "reviewed"]);
    dir
}

/// `plan` with the reviewed revision as the base, in text, markdown and JSON, each exiting 0.
async fn plans(h: &Harness, file: &str) -> (String, String, serde_json::Value) {
    let mut out = Vec::new();
    for format in ["text", "markdown", "json"] {
        let run = h
            .run(&[
                "plan",
                "-f",
                file,
                "--policies-base",
                "HEAD",
                "--format",
                format,
            ])
            .await;
        run.assert_code(0);
        out.push(run.stdout);
    }
    let json = serde_json::from_str(&out[2]).unwrap();
    (out[0].clone(), out[1].clone(), json)
}

fn has(haystack: &str, needle: &str) {
    assert!(haystack.contains(needle), "{needle:?} in\n{haystack}");
}

/// The pull request's attacks on each layer: the workspace policy's `where` narrowed, the
/// `extends:` that brought the base's policy dropped, the manifest's own policy renamed.
#[tokio::test]
async fn loosening_policies_in_every_layer_is_a_risk_at_the_top_of_every_format_and_gated() {
    let h = Harness::start().await;
    reviewed_workspace(&h);
    h.put(
        "guildctl.yaml",
        workspace_file(
            &h.emu.guild_id,
            "  - name: staff-stays-private
    never: { who: \"@everyone\", can: [view_channel], where: [\"Staff/mod-chat\"] }
",
        )
        .as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        b"version: 1
channels:
  - name: bot-spam
    topic: Bot commands only.
policies:
  - name: admins-only
    only: { who: [Admin], can: [administrator] }
",
    );
    let (text, md, json) = plans(&h, "guilds/main.yaml").await;
    let weakened = "policy staff-stays-private weakened: before never @everyone: view_channel in Staff/*; after never @everyone: view_channel in Staff/mod-chat; no longer covers channel Staff/#mod-log";
    let lost = "policy audit-log-is-staff removed: layouts/community.yaml, which defined it, is no longer one of the manifest's files";
    let renamed = "policy few-admins renamed to admins-only (rule: only Admin: administrator (guild-wide), in guilds/main.yaml)";
    // At the top, before the changes.
    let top = text.split("  ~ update").next().unwrap();
    has(top, "Widens access or destroys (3): 3 policy changes");
    for line in [weakened, lost, renamed] {
        has(top, line);
    }
    // "Kept" is never said of a policy the change touched.
    assert!(!text.contains(" kept ("), "{text}");
    has(
        &text,
        "3 changed by this plan: staff-stays-private (weakened), audit-log-is-staff (removed), few-admins (renamed to admins-only)",
    );
    has(
        &text,
        "Apply will refuse: removes, renames or loosens 3 policies",
    );
    // Markdown: the same lines, above the changes.
    let md_top = md.split("<summary>Changes").next().unwrap();
    has(
        md_top,
        "**Widens access or destroys (3):** 3 policy changes",
    );
    has(
        md_top,
        "- policy staff\\-stays\\-private weakened: before never @\u{200b}everyone: view\\_channel in Staff/\\*; after never @\u{200b}everyone: view\\_channel in Staff/mod\\-chat",
    );
    has(md_top, "- policy audit\\-log\\-is\\-staff removed:");
    has(md_top, "- policy few\\-admins renamed to admins\\-only");
    has(
        md_top,
        "> **Apply will refuse:** removes, renames or loosens 3 policies",
    );
    assert!(!md.contains(" kept \\("), "{md}");
    // JSON: the risks open the document, each with the policy's before and after.
    let risks = json["risks"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = risks
        .iter()
        .take(3)
        .map(|r| {
            (
                r["policy"].as_str().unwrap(),
                r["policy_change"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("staff-stays-private", "weakened"),
            ("audit-log-is-staff", "removed"),
            ("few-admins", "renamed"),
        ]
    );
    assert_eq!(risks[0]["kind"], "policy");
    assert_eq!(
        risks[0]["before"],
        "never @everyone: view_channel in Staff/*"
    );
    assert_eq!(
        risks[0]["after"],
        "never @everyone: view_channel in Staff/mod-chat"
    );
    assert_eq!(risks[0]["defined_in"], "guildctl.yaml");
    assert_eq!(risks[1]["defined_in"], "layouts/community.yaml");
    assert_eq!(json["policy_gate"]["refused"], true);
    assert_eq!(json["policy_gate"]["changes"], 3);
    assert_eq!(json["policy_base"]["compared"], "revision");
    assert_eq!(json["policy_base"]["revision"], "HEAD");
    assert_eq!(
        json["policy_base"]["commit"],
        git(h.dir.path(), &["rev-parse", "HEAD"])
    );
    assert!(json.get("policies_kept").is_none(), "{json}");
    // SARIF: each on the policy's declaration, the one removed on `policies:`.
    let sarif = h
        .run(&[
            "plan",
            "-f",
            "guilds/main.yaml",
            "--policies-base",
            "HEAD",
            "--format",
            "sarif",
        ])
        .await;
    sarif.assert_code(0);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let placed: Vec<(String, String, u64)> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "risk-policy")
        .map(|r| {
            let p = &r["locations"][0]["physicalLocation"];
            (
                // SARIF messages are markdown-escaped (text from the manifest is inert).
                r["message"]["text"]
                    .as_str()
                    .unwrap()
                    .replace('\\', "")
                    .chars()
                    .take(40)
                    .collect(),
                p["artifactLocation"]["uri"].as_str().unwrap().to_owned(),
                p["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    let at = |text: &str, uri: &str, line: u64| (text.to_owned(), uri.to_owned(), line);
    assert_eq!(
        placed,
        [
            at(
                "policy audit-log-is-staff removed: layou",
                "guilds/main.yaml",
                5
            ),
            at(
                "policy few-admins renamed to admins-only",
                "guilds/main.yaml",
                6
            ),
            at(
                "policy staff-stays-private weakened: bef",
                "guildctl.yaml",
                4
            ),
        ]
    );

    // Apply refuses without an allowance, and with one too small; nothing is sent.
    h.emu.clear_requests();
    let apply = |extra: &'static [&'static str]| {
        let mut args = vec![
            "apply",
            "-f",
            "guilds/main.yaml",
            "--yes",
            "--no-rehearse",
            "--policies-base",
            "HEAD",
        ];
        args.extend_from_slice(extra);
        args
    };
    let refused = h.run(&apply(&[])).await;
    refused.assert_code(1);
    has(
        &refused.stderr,
        "apply refused: the plan removes, renames or loosens 3 policies (staff-stays-private: weakened; audit-log-is-staff: removed; few-admins: renamed to admins-only), and apply allows no policy change by default",
    );
    has(&refused.stderr, "pass --allow-policy-changes 3 to apply");
    let short = h.run(&apply(&["--allow-policy-changes", "2"])).await;
    short.assert_code(1);
    has(
        &short.stderr,
        "more than the 2 that --allow-policy-changes 2 allows",
    );
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
    // Allowed: it applies, and says what allowed it.
    let allowed = h.run(&apply(&["--allow-policy-changes", "3"])).await;
    allowed.assert_code(0);
    has(
        &allowed.stdout,
        "Policy gate: passes; changes 3 policies, allowed by --allow-policy-changes 3",
    );
    assert_eq!(h.writes().len(), 1, "{:?}", h.writes());
}

/// The manifest's own allowance lets the change through as `allow_deletes` does.
#[tokio::test]
async fn the_manifests_allowance_lets_a_policy_change_through() {
    let h = Harness::start().await;
    reviewed_workspace(&h);
    h.put(
        "guilds/main.yaml",
        b"version: 1
extends: ../layouts/community.yaml
channels:
  - name: bot-spam
    topic: Bot commands only.
safety: { allow_policy_changes: 1 }
",
    );
    let apply = h
        .run(&[
            "apply",
            "-f",
            "guilds/main.yaml",
            "--yes",
            "--no-rehearse",
            "--policies-base",
            "HEAD",
        ])
        .await;
    apply.assert_code(0);
    has(
        &apply.stdout,
        "policy few-admins removed: deleted from guilds/main.yaml (it was: only Admin: administrator (guild-wide), in guilds/main.yaml)",
    );
    has(
        &apply.stdout,
        "Policy gate: passes; changes 1 policy, allowed by `safety.allow_policy_changes: 1`",
    );
}

/// Deleting a policy in the same change as what it forbids: the plan is judged by the
/// policy as it was, so it is refused whatever the allowance; nothing is sent.
#[tokio::test]
async fn deleting_a_policy_with_what_it_forbade_is_refused_even_when_allowed() {
    let h = Harness::start().await;
    reviewed_workspace(&h);
    h.put(
        "guildctl.yaml",
        format!(
            "guilds:\n  main: {{ id: \"{}\", manifest: guilds/main.yaml }}\n",
            h.emu.guild_id
        )
        .as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        b"version: 1
extends: ../layouts/community.yaml
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        overwrites:
          - { role: \"@everyone\", allow: [view_channel] }
policies:
  - name: few-admins
    only: { who: [Admin], can: [administrator] }
",
    );
    h.emu.clear_requests();
    let plan = h
        .run(&["plan", "-f", "guilds/main.yaml", "--policies-base", "HEAD"])
        .await;
    plan.assert_code(1);
    has(
        &plan.stderr,
        "policy `staff-stays-private`, as it was before this change (as guildctl.yaml had it), is broken once the plan is applied: @everyone has view_channel in Staff/#mod-log",
    );
    // On the line that opens it.
    has(&plan.stderr, "guilds/main.yaml:8:");
    let apply = h
        .run(&[
            "apply",
            "-f",
            "guilds/main.yaml",
            "--yes",
            "--policies-base",
            "HEAD",
            "--allow-policy-changes",
            "5",
        ])
        .await;
    apply.assert_code(1);
    has(&apply.stderr, "as it was before this change");
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
}

/// Without a base revision the plan says the policies were not compared (never a silent
/// pass); a base that cannot be read says why.
#[tokio::test]
async fn a_plan_says_when_policies_were_not_compared_and_why() {
    let h = Harness::start().await;
    reviewed_workspace(&h);
    let plain = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    plain.assert_code(0);
    has(
        &plain.stdout,
        "Policy changes were not compared with a base revision (--policies-base REV): a policy this change removes or weakens is not seen here.",
    );
    let md = h
        .run(&["plan", "-f", "guilds/main.yaml", "--format", "markdown"])
        .await;
    has(
        &md.stdout,
        "> [!WARNING]\n> Policy changes were not compared",
    );
    let unknown = h
        .run(&[
            "plan",
            "-f",
            "guilds/main.yaml",
            "--policies-base",
            "no-such-branch",
            "--format",
            "json",
        ])
        .await;
    unknown.assert_code(0);
    let j = unknown.json();
    assert_eq!(j["policy_base"]["compared"], "unreadable");
    has(
        j["policy_base"]["why"].as_str().unwrap(),
        "this repository has no commit no-such-branch (a shallow checkout lacks the history",
    );
    // Outside Git.
    let outside = Harness::start().await;
    outside.manifest(
        "guild.yaml",
        "version: 1\npolicies:\n  - { name: few-admins, only: { who: [Admin], can: [administrator] } }\n",
    );
    let run = outside
        .run(&["plan", "-f", "guild.yaml", "--policies-base", "HEAD"])
        .await;
    run.assert_code(0);
    has(
        &run.stdout,
        "Policy changes could not be compared with HEAD: the manifest is not in a Git repository",
    );
}

/// Layers hold: a guild's own manifest (or a base) cannot drop the policies of the
/// workspace file and its bases with a `policies:` that is no list.
#[tokio::test]
async fn a_guilds_own_file_cannot_drop_the_policies_under_it() {
    let h = Harness::start().await;
    reviewed_workspace(&h);
    h.put(
        "guilds/main.yaml",
        b"version: 1
extends: ../layouts/community.yaml
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        overwrites:
          - { role: \"@everyone\", allow: [view_channel] }
policies: ~
",
    );
    let v = h.run(&["validate", "-f", "guilds/main.yaml"]).await;
    v.assert_code(1);
    has(
        &v.stderr,
        "`policies` here is not a list, so it would drop the policies of the workspace file (guildctl.yaml) and the bases under this file",
    );
    has(&v.stderr, "guilds/main.yaml:10:1");
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    plan.assert_code(1);
    has(&plan.stderr, "`policies` here is not a list");
    assert!(h.requests().is_empty(), "refused before any read");
    // A base's policies alone (no workspace policy) hold as well.
    h.put(
        "guildctl.yaml",
        format!(
            "guilds:\n  main: {{ id: \"{}\", manifest: guilds/main.yaml }}\n",
            h.emu.guild_id
        )
        .as_bytes(),
    );
    let v = h.run(&["validate", "-f", "guilds/main.yaml"]).await;
    v.assert_code(1);
    has(&v.stderr, "`policies` here is not a list");
    // A reference by a previous name in the workspace's policy is an error naming the new
    // name, on the policy's line, whichever file renames the role.
    h.put(
        "guildctl.yaml",
        workspace_file(
            &h.emu.guild_id,
            "  - name: helpers-never-ban
    never: { who: Helper, can: [ban_members] }
",
        )
        .as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        b"version: 1\nroles:\n  - name: Helpers\n    previous_names: [Helper]\n",
    );
    let v = h.run(&["validate", "-f", "guilds/main.yaml"]).await;
    v.assert_code(1);
    has(
        &v.stderr,
        "role \"Helper\" is a previous name of the role \"Helpers\" (roles[0])",
    );
    has(&v.stderr, "guildctl.yaml:5:19");
}

/// The walk-around: a workspace policy `never @everyone view_channel in Staff/*`,
/// and the guild's own manifest moves #mod-log out of Staff. Opening it in the same plan is
/// refused (the policy still covers it until a plan takes it out); the move alone is a risk
/// naming the policy it leaves, and apply refuses it unless allowed.
#[tokio::test]
async fn moving_a_channel_out_of_a_policy_is_refused_with_what_it_forbids_and_gated_alone() {
    let h = Harness::start().await;
    h.put(
        "guildctl.yaml",
        workspace_file(&h.emu.guild_id, WORKSPACE_POLICY).as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        b"version: 1
channels:
  - name: mod-log
    type: text
    overwrites:
      - { role: \"@everyone\", allow: [view_channel] }
",
    );
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    plan.assert_code(1);
    has(
        &plan.stderr,
        "policy `staff-stays-private` (policies[0]) is broken once the plan is applied: @everyone has view_channel in #mod-log, which the policy covers until this plan takes it out",
    );
    has(&plan.stderr, "guilds/main.yaml:5:");
    let apply = h
        .run(&[
            "apply",
            "-f",
            "guilds/main.yaml",
            "--yes",
            "--allow-policy-changes",
            "1",
        ])
        .await;
    apply.assert_code(1);
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());

    // The move alone.
    h.put(
        "guilds/main.yaml",
        b"version: 1\nchannels:\n  - name: mod-log\n    type: text\n",
    );
    let (mut text, mut md, mut json) = (String::new(), String::new(), serde_json::Value::Null);
    for format in ["text", "markdown", "json"] {
        let run = h
            .run(&["plan", "-f", "guilds/main.yaml", "--format", format])
            .await;
        run.assert_code(0);
        match format {
            "text" => text = run.stdout,
            "markdown" => md = run.stdout,
            _ => json = run.json(),
        }
    }
    let line = "channel Staff/#mod-log leaves policy staff-stays-private (never @everyone: view_channel in Staff/*): now #mod-log";
    has(text.split("  ~ update").next().unwrap(), line);
    has(
        &text,
        "Policies: 1 changed by this plan: staff-stays-private (Staff/#mod-log leaves)",
    );
    assert!(!text.contains(" kept ("), "{text}");
    has(
        &md,
        "- channel Staff/\\#\u{200b}mod\\-log leaves policy staff\\-stays\\-private",
    );
    let risk = &json["risks"][0];
    assert_eq!(risk["policy_change"], "leaves");
    assert_eq!(risk["item"]["kind"], "channel");
    assert_eq!(risk["item"]["name"], "Staff/#mod-log");
    assert_eq!(risk["item"]["id"], h.channel_id("Staff/mod-log"));
    assert_eq!(risk["now"], "now #mod-log");
    h.emu.clear_requests();
    let refused = h
        .run(&["apply", "-f", "guilds/main.yaml", "--yes", "--no-rehearse"])
        .await;
    refused.assert_code(1);
    has(
        &refused.stderr,
        "apply refused: the plan removes, renames or loosens 1 policy (staff-stays-private: Staff/#mod-log leaves)",
    );
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
    let allowed = h
        .run(&[
            "apply",
            "-f",
            "guilds/main.yaml",
            "--yes",
            "--no-rehearse",
            "--allow-policy-changes",
            "1",
        ])
        .await;
    allowed.assert_code(0);
    let moved = h
        .guild()
        .channels
        .into_iter()
        .find(|c| c.name == "mod-log")
        .unwrap();
    assert_eq!(moved.parent_id, None, "moved out of Staff");
}

/// Renaming the role a policy names (pinned by id, so no previous name tells validate) takes
/// it out of the policy: a gated risk; granting it what the policy forbids in the same plan
/// is refused.
#[tokio::test]
async fn renaming_the_role_a_policy_names_is_a_gated_risk_and_cannot_carry_a_breach() {
    let h = Harness::start().await;
    let helper = h.role_id("Helper");
    h.put(
        "guildctl.yaml",
        workspace_file(
            &h.emu.guild_id,
            "  - name: helpers-never-ban
    never: { who: Helper, can: [ban_members] }
",
        )
        .as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        format!("version: 1\nroles:\n  - {{ name: Helpers, id: \"{helper}\" }}\n").as_bytes(),
    );
    let plan = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    plan.assert_code(0);
    has(
        &plan.stdout,
        "role Helper leaves policy helpers-never-ban (never Helper: ban_members anywhere): renamed Helpers",
    );
    h.emu.clear_requests();
    let apply = h
        .run(&["apply", "-f", "guilds/main.yaml", "--yes", "--no-rehearse"])
        .await;
    apply.assert_code(1);
    has(&apply.stderr, "helpers-never-ban: Helper leaves");
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
    h.put(
        "guilds/main.yaml",
        format!(
            "version: 1\nroles:\n  - {{ name: Helpers, id: \"{helper}\", permissions: [manage_messages, manage_threads, ban_members] }}\n"
        )
        .as_bytes(),
    );
    let plan = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    plan.assert_code(1);
    has(
        &plan.stderr,
        "policy `helpers-never-ban` (policies[0]) is broken once the plan is applied: Helpers has ban_members guild-wide",
    );
}

/// A member given an `only` rule's role, or taken out of a `never` rule's, is listed with
/// the policy; a roster entry is an act on people, so the gate does not count it.
#[tokio::test]
async fn a_member_entering_or_leaving_a_policys_who_is_listed_and_not_gated() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let (alice, erin, heidi, bob) = (
        st.user_id("alice"),
        st.user_id("erin"),
        st.user_id("heidi"),
        st.user_id("bob"),
    );
    h.put(
        "guildctl.yaml",
        workspace_file(
            &h.emu.guild_id,
            "  - name: only-mods-ban
    only: { who: [Admin, Moderator], can: [ban_members] }
  - name: helpers-never-ban
    never: { who: Helper, can: [ban_members] }
",
        )
        .as_bytes(),
    );
    h.put(
        "guilds/main.yaml",
        format!(
            "version: 1
roles:
  - name: Moderator
    members: [{{ id: \"{alice}\" }}, {{ id: \"{erin}\" }}, {{ id: \"{heidi}\" }}]
  - name: Helper
    members: [{{ id: \"{bob}\" }}]
"
        )
        .as_bytes(),
    );
    let plan = h
        .run(&["plan", "-f", "guilds/main.yaml", "--format", "json"])
        .await;
    plan.assert_code(0);
    let j = plan.json();
    let said: Vec<String> = j["risks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "policy")
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["policy"].as_str().unwrap(),
                r["policy_change"].as_str().unwrap(),
                r["item"]["id"].as_str().unwrap(),
                r["now"].as_str().unwrap()
            )
        })
        .collect();
    let frank = st.user_id("frank");
    assert_eq!(
        said,
        [
            format!("only-mods-ban enters {heidi} holds Moderator once applied"),
            format!("helpers-never-ban leaves {frank} no longer holds Helper"),
        ]
    );
    // No change the gate counts: the plan carries no gate.
    assert_eq!(j.get("policy_gate"), None, "{j}");
    let apply = h
        .run(&["apply", "-f", "guilds/main.yaml", "--yes", "--no-rehearse"])
        .await;
    apply.assert_code(0);
}

/// A workspace policy deleted from guildctl.yaml is a risk in every guild's plan of a
/// `--all` run, and `apply --all` refuses each guild until the change is allowed.
#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_policy_deleted_is_a_risk_for_every_guild_of_an_all_run() {
    let state = discord_emulator::with_guild_copies(discord_emulator::default_state(), 2);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let guilds = format!(
        "guilds:\n  a: {{ id: \"{}\", manifest: guilds/a.yaml }}\n  b: {{ id: \"{}\", manifest: guilds/b.yaml }}\n",
        ids[0], ids[1]
    );
    h.put(
        "guildctl.yaml",
        format!("{guilds}policies:\n{WORKSPACE_POLICY}").as_bytes(),
    );
    for g in ["a", "b"] {
        h.put(
            &format!("guilds/{g}.yaml"),
            b"version: 1\nchannels:\n  - { name: news, type: text }\n",
        );
    }
    git(h.dir.path(), &["init", "-q"]);
    git(h.dir.path(), &["add", "-A"]);
    git(h.dir.path(), &["commit", "-qm", "reviewed"]);
    h.put("guildctl.yaml", guilds.as_bytes());

    let plan = h.run(&["plan", "--all", "--policies-base", "HEAD"]).await;
    plan.assert_code(0);
    let removed = "policy staff-stays-private removed: deleted from guildctl.yaml (it was: never @everyone: view_channel in Staff/*, in guildctl.yaml)";
    assert_eq!(plan.stdout.matches(removed).count(), 2, "{}", plan.stdout);
    assert!(!plan.stdout.contains(" kept ("), "{}", plan.stdout);

    h.emu.clear_requests();
    let refused = h
        .run(&[
            "apply",
            "--all",
            "--yes",
            "--no-rehearse",
            "--policies-base",
            "HEAD",
        ])
        .await;
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    let said = format!("{}{}", refused.stdout, refused.stderr);
    let refusal = "removes, renames or loosens 1 policy (staff-stays-private: removed)";
    for (guild, id) in ["a", "b"].iter().zip(&ids) {
        let row = said
            .lines()
            .find(|l| l.starts_with(&format!("{guild} ")))
            .unwrap_or_else(|| panic!("{said}"));
        has(
            row,
            &format!("{id}    1     error: apply refused: the plan {refusal}"),
        );
    }
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
    h.run(&[
        "apply",
        "--all",
        "--yes",
        "--no-rehearse",
        "--policies-base",
        "HEAD",
        "--allow-policy-changes",
        "1",
    ])
    .await
    .assert_code(0);
    assert!(!h.writes().is_empty());
}

/// The merge's apply holds what the pull request's plan reviewed: a policy change listed
/// there is counted by apply's gate though apply itself compares with no revision (or one
/// that cannot be read), so dropping the base revision at apply lets nothing through.
#[tokio::test]
async fn apply_of_a_reviewed_plan_counts_the_policy_changes_it_listed() {
    let h = Harness::start().await;
    let dir = reviewed_workspace(&h);
    h.put(
        "guilds/main.yaml",
        b"version: 1
extends: ../layouts/community.yaml
channels:
  - name: bot-spam
    topic: Bot commands only.
",
    );
    h.run(&[
        "plan",
        "-f",
        "guilds/main.yaml",
        "--policies-base",
        "HEAD",
        "--out",
        "reviewed.json",
    ])
    .await
    .assert_code(0);
    git(dir, &["commit", "-qam", "merged"]);
    let apply = [
        "apply",
        "-f",
        "guilds/main.yaml",
        "--plan",
        "reviewed.json",
        "--yes",
        "--no-rehearse",
    ];
    let refused = h.run(&apply).await;
    refused.assert_code(1);
    has(
        &format!("{}{}", refused.stdout, refused.stderr),
        "removes, renames or loosens 1 policy (few-admins: removed",
    );
    // Nothing was sent: the reviewed change is still to make.
    let still = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    has(&still.stdout, "Bot commands only.");
    let allowed = [&apply[..], &["--allow-policy-changes", "1"]].concat();
    h.run(&allowed).await.assert_code(0);
}
