//! Access as people see it (issue 31, and issue 30's roster grants), over HTTP against the
//! emulator with the real binary: access lines in every format of a plan (kept when the
//! pull-request comment is cut), a roster grant that opens channels, `guildctl access` on
//! the examples, each kind of policy refusing a plan with nothing sent and the example's
//! policies kept, `validate` judging what the manifest decides, and drift reporting a live
//! breach and who holds dangerous permissions.

use crate::common;

use common::{Harness, StateNames, arrange, example};
use guildctl::report::MARKDOWN_BUDGET;
use serde_json::Value;

/// Staff/#mod-log, opened to @everyone by its @everyone overwrite.
const OPEN_MOD_LOG: &str = "  - name: Staff
    type: category
    channels:
      - name: mod-log
        type: text
        overwrites:
          - { role: \"@everyone\", allow: [view_channel] }
          - { role: Moderator, allow: [view_channel], deny: [send_messages] }
          - { role: Admin, allow: [view_channel, send_messages] }
";

#[tokio::test]
async fn opening_mod_log_to_everyone_reads_as_access_in_text_markdown_and_json() {
    let h = Harness::start().await;
    // Seventy channels with long topics make a comment that must be cut.
    let topic: String = "Topic: lorem ipsum dolor sit amet "
        .repeat(40)
        .chars()
        .take(997)
        .collect();
    let mut yaml = String::from("version: 1\nchannels:\n");
    for i in 0..70 {
        yaml += &format!("  - {{ name: topic-{i:02}, type: text, topic: \"{topic}{i:03}\" }}\n");
    }
    yaml += OPEN_MOD_LOG;
    let m = h.manifest("guild.yaml", &yaml);
    let m = m.to_str().unwrap();
    let line = "@everyone gains view_channel in Staff/#mod-log";

    let text = h.run(&["plan", "-f", m]).await;
    text.assert_code(0);
    assert!(
        text.stdout.len() > MARKDOWN_BUDGET,
        "a plan larger than a comment"
    );
    let risks: Vec<&str> = text
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Widens access or destroys"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        risks
            .iter()
            .any(|l| l.starts_with(&format!("  ! {line} (and with it: send_messages"))),
        "{risks:?}"
    );
    assert!(
        text.stdout.contains(&format!("\n  {line} (and with it: ")),
        "the access section"
    );

    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(0);
    assert!(md.stdout.len() <= MARKDOWN_BUDGET);
    assert!(
        md.stdout
            .contains("changes left out to fit a GitHub comment"),
        "the comment is cut"
    );
    let inert =
        "- @\u{200b}everyone gains view_channel in Staff/\\#\u{200b}mod\\-log (and with it:";
    let at = md.stdout.find(inert).expect("the access risk, kept");
    assert!(at < md.stdout.find("<details><summary>Changes").unwrap());
    // The compact table of the channels whose access changes, kept in the cut comment.
    assert!(
        md.stdout
            .contains("**Access in the channels this plan changes**"),
        "the access table"
    );
    let row = md
        .stdout
        .lines()
        .find(|l| l.starts_with("| Staff/\\#\u{200b}mod\\-log |"))
        .unwrap_or_else(|| panic!("#mod-log's row: {}", md.stdout));
    assert!(row.contains("+view +send"), "{row}");

    let j = h.plan_json(m).await;
    let access = j["access"].as_array().expect("access");
    let opened = access
        .iter()
        .find(|a| a["who"] == "@everyone" && a["channel"] == "Staff/#mod-log")
        .expect("@everyone's line");
    assert_eq!(opened["who_kind"], "everyone");
    assert!(
        opened["gains"]
            .as_array()
            .unwrap()
            .contains(&Value::from("view_channel"))
    );
    assert_eq!(opened["loses"], Value::Array(vec![]));
    let change = opened["changes"][0].as_u64().unwrap() as usize;
    assert_eq!(j["changes"][change]["object"]["name"], "Staff/#mod-log");
    let risk = &j["risks"][0];
    assert_eq!(risk["kind"], "access");
    assert_eq!(risk["who"], "@everyone");
    assert_eq!(risk["channel"], "Staff/#mod-log");
    assert!(h.writes().is_empty(), "plan only reads");
}

#[tokio::test]
async fn a_roster_grant_shows_the_users_new_channels_and_is_a_risk() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let (alice, erin, heidi) = (st.user_id("alice"), st.user_id("erin"), st.user_id("heidi"));
    let yaml = format!(
        "version: 1
roles:
  - name: Moderator
    members:
      - {{ id: \"{alice}\" }}
      - {{ id: \"{erin}\" }}
      - {{ id: \"{heidi}\", name: heidi }}
"
    );
    let m = h.manifest("staff.yaml", &yaml);
    let m = m.to_str().unwrap();
    let j = h.plan_json(m).await;
    let hers: Vec<&Value> = j["access"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["who_id"] == heidi.as_str())
        .collect();
    let channels: Vec<&str> = hers.iter().filter_map(|a| a["channel"].as_str()).collect();
    assert!(
        channels.contains(&"Staff/#mod-log") && channels.contains(&"Staff/#mod-chat"),
        "{channels:?}"
    );
    assert!(
        hers.iter()
            .all(|a| a["who"] == format!("heidi ({heidi})") && a["who_kind"] == "user")
    );
    // The roster entry carries the risks: her new channels, and the role's grant.
    let risks = j["risks"].as_array().unwrap();
    let opens: Vec<&Value> = risks.iter().filter(|r| r["kind"] == "access").collect();
    assert!(
        opens.iter().any(|r| r["channel"] == "Staff/#mod-log"
            && r["object"]["kind"] == "roster_entry"
            && r["object"]["id"] == heidi.as_str()),
        "{risks:#?}"
    );
    let text = h.run(&["plan", "-f", m]).await;
    assert!(
        text.stdout.contains(&format!(
            "  ! heidi ({heidi}) gains view_channel in Staff/#mod-log"
        )),
        "{}",
        text.stdout
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn guildctl_access_shows_the_matrix_and_previews_of_the_examples() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let alice = st.user_id("alice");
    for name in ["community.yaml", "minimal.yaml", "prune-everything.yaml"] {
        let f = example(name);
        let f = f.to_str().unwrap();
        let text = h.run(&["access", "-f", f]).await;
        text.assert_code(0);
        assert!(
            text.stdout.starts_with("Access in Ferris Fans"),
            "{name}: {}",
            text.stdout
        );
        assert!(
            text.stdout.contains("Administrators see and do everything"),
            "{name}"
        );
        let md = h.run(&["access", "-f", f, "--format", "markdown"]).await;
        md.assert_code(0);
        assert!(
            md.stdout
                .contains("| Channel | View | Send (join, for voice) | Manage |")
        );
        let j = h.run(&["access", "-f", f, "--format", "json"]).await.json();
        assert_eq!(j["view"], "matrix", "{name}");
        assert_eq!(j["state"], "after_plan");
        assert!(!j["channels"].as_array().unwrap().is_empty());
    }
    let f = example("community.yaml");
    let f = f.to_str().unwrap();
    // The plan makes Staff/#builds, Moderator's and Maintainer's alone.
    let j = h.run(&["access", "-f", f, "--format", "json"]).await.json();
    let builds = j["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "Staff/#builds")
        .expect("the new channel");
    assert_eq!(
        builds["view"],
        serde_json::json!(["Moderator", "Maintainer"])
    );
    // Today it does not exist.
    let live = h
        .run(&["access", "-f", f, "--live", "--format", "json"])
        .await
        .json();
    assert_eq!(live["state"], "live");
    assert!(
        live["channels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["channel"] != "Staff/#builds")
    );

    // Preview as roles, and as alice (a moderator).
    let helpers = h.run(&["access", "-f", f, "--as", "Helpers"]).await;
    helpers.assert_code(0);
    assert!(
        helpers
            .stdout
            .starts_with("Access as Helpers in Ferris Fans"),
        "{}",
        helpers.stdout
    );
    assert!(
        !helpers.stdout.contains("#mod-log"),
        "hidden from Helpers: {}",
        helpers.stdout
    );
    let as_alice = h
        .run(&["access", "-f", f, "--user", &alice, "--format", "json"])
        .await
        .json();
    assert_eq!(as_alice["view"], "preview");
    assert_eq!(as_alice["who"], format!("alice ({alice})"));
    let seen: Vec<&str> = as_alice["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["channel"].as_str())
        .collect();
    assert!(seen.contains(&"Staff/#mod-log"), "{seen:?}");
    // By the username of a member the plan reads (a roster naming alice), the same
    // preview as by her id; a username the plan did not read is named.
    let roster = h.manifest(
        "roster.yaml",
        &format!("version: 1\nroles:\n  - name: Moderator\n    members: [\"{alice}\"]\n"),
    );
    let roster = roster.to_str().unwrap();
    let by_id = h
        .run(&["access", "-f", roster, "--user", &alice, "--format", "json"])
        .await
        .json();
    let by_name = h
        .run(&[
            "access", "-f", roster, "--user", "@Alice", "--format", "json",
        ])
        .await
        .json();
    assert_eq!(by_name["who"], format!("alice ({alice})"));
    assert_eq!(by_name["channels"], by_id["channels"]);
    let nobody = h.run(&["access", "-f", roster, "--user", "nobody"]).await;
    nobody.assert_code(1);
    assert!(
        nobody
            .stderr
            .contains("no member the plan read is named \"nobody\""),
        "{}",
        nobody.stderr
    );
    // One channel, every role's permissions there.
    let one = h
        .run(&["access", "-f", f, "--channel", "Staff/mod-log"])
        .await;
    one.assert_code(0);
    assert!(one.stdout.contains("      Moderator: "), "{}", one.stdout);
    assert_eq!(
        one.stdout.lines().filter(|l| l.contains("view ")).count(),
        1
    );
    let one = h
        .run(&[
            "access",
            "-f",
            f,
            "--channel",
            "Staff/mod-log",
            "--format",
            "json",
        ])
        .await
        .json();
    let rows = one["channels"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let moderator = rows[0]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["role"] == "Moderator")
        .expect("Moderator's permissions there");
    let can: Vec<&str> = moderator["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        can.contains(&"view_channel") && !can.contains(&"send_messages"),
        "{can:?}"
    );
    // The channel by its own name, as a person asks: `#mod-log` and `mod-log` name
    // Staff/#mod-log; the header counts the channels asked about.
    for name in ["#mod-log", "mod-log"] {
        let by_name = h
            .run(&["access", "-f", f, "--channel", name, "--format", "json"])
            .await
            .json();
        let rows = by_name["channels"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "{name}: {by_name}");
        assert_eq!(rows[0]["channel"], "Staff/#mod-log");
    }
    let as_moderator = h
        .run(&[
            "access",
            "-f",
            f,
            "--as",
            "Moderator",
            "--channel",
            "#mod-log",
        ])
        .await;
    as_moderator.assert_code(0);
    assert!(
        as_moderator
            .stdout
            .lines()
            .next()
            .unwrap()
            .ends_with("sees 1 of 1 channels that --channel #mod-log names"),
        "{}",
        as_moderator.stdout
    );
    // A role the guild lacks is an error naming the ones it has.
    let bad = h.run(&["access", "-f", f, "--as", "Nobody"]).await;
    bad.assert_code(1);
    assert!(
        bad.stderr.contains("no role named \"Nobody\""),
        "{}",
        bad.stderr
    );
    assert!(h.writes().is_empty(), "access only reads");
}

/// The example's policies, kept: the plan says so in every format.
#[tokio::test]
async fn the_examples_policies_are_kept_and_said() {
    let h = Harness::start().await;
    let f = example("community.yaml");
    let f = f.to_str().unwrap();
    let text = h.run(&["plan", "-f", f]).await;
    text.assert_code(0);
    assert!(
        text.stdout
            .contains("Policies: 3 kept (staff-stays-private, few-admins, at-most-six-moderators)"),
        "{}",
        text.stdout
    );
    let md = h.run(&["plan", "-f", f, "--format", "markdown"]).await;
    assert!(
        md.stdout.contains(
            "**Policies: 3 kept \\(staff\\-stays\\-private, few\\-admins, at\\-most\\-six\\-moderators\\)**"
        ),
        "{}",
        md.stdout
    );
    let j = h.plan_json(f).await;
    assert_eq!(j["policies_kept"].as_array().map(Vec::len), Some(3));
    let v = h.run(&["validate", "-f", f]).await;
    v.assert_code(0);
    assert!(h.writes().is_empty());
}

/// Runs `plan` and `apply` of a manifest that breaks one policy: both refuse, naming the
/// policy, who, where, and the manifest line; apply sends nothing.
async fn refused(h: &Harness, yaml: &str, expect: &[&str], line: &str) {
    let m = h.manifest("guild.yaml", yaml);
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(1);
    for e in expect {
        assert!(plan.stderr.contains(e), "{e:?} in\n{}", plan.stderr);
    }
    assert!(
        plan.stderr.contains(&format!("guild.yaml:{line}")),
        "line {line} in\n{}",
        plan.stderr
    );
    let md = h.run(&["plan", "-f", m, "--format", "markdown"]).await;
    md.assert_code(1);
    assert!(md.stdout.contains("> [!CAUTION]"), "{}", md.stdout);
    let apply = h.run(&["apply", "-f", m, "--yes"]).await;
    apply.assert_code(1);
    assert!(apply.stderr.contains(expect[0]), "{}", apply.stderr);
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
}

#[tokio::test]
async fn each_kind_of_policy_refuses_a_plan_that_breaks_it_with_nothing_sent() {
    let h = Harness::start().await;
    let st = h.emu.state();
    // never: the plan opens Staff/#mod-log to @everyone (its overwrites, line 8).
    let never = format!(
        "version: 1\nchannels:\n{OPEN_MOD_LOG}policies:
  - name: staff-stays-private
    never: {{ who: \"@everyone\", can: [view_channel], where: [\"Staff/*\"] }}
"
    );
    refused(
        &h,
        &never,
        &[
            "policy `staff-stays-private` (policies[0]) is broken once the plan is applied: @everyone has view_channel in Staff/#mod-log",
        ],
        "8",
    )
    .await;
    // only: the plan gives Helper manage_roles (line 4).
    let only = "version: 1
roles:
  - name: Helper
    permissions: [manage_messages, manage_threads, manage_roles]
policies:
  - name: few-admins
    only: { who: [Admin], can: [administrator, manage_guild, manage_roles] }
";
    refused(
        &h,
        only,
        &["policy `few-admins` (policies[0]) is broken once the plan is applied: Helper holds manage_roles, which only Admin may"],
        "4",
    )
    .await;
    // holders: the roster leaves one moderator (line 4).
    let alice = st.user_id("alice");
    let holders = format!(
        "version: 1
roles:
  - name: Moderator
    members:
      - {{ id: \"{alice}\" }}
policies:
  - name: moderators-two-to-six
    holders: {{ role: Moderator, min: 2, max: 6 }}
"
    );
    refused(
        &h,
        &holders,
        &["policy `moderators-two-to-six` (policies[0]) is broken once the plan is applied: 1 member(s) hold Moderator; the policy allows 2 to 6"],
        "4",
    )
    .await;
}

#[tokio::test]
async fn a_workspace_policy_holds_for_every_guild_and_stops_apply_all() {
    let h = Harness::start().await;
    let guild = h.emu.guild_id.clone();
    let ws = h.dir.path();
    std::fs::create_dir_all(ws.join("guilds")).unwrap();
    std::fs::write(
        ws.join("guildctl.yaml"),
        format!(
            "guilds:
  main: {{ id: \"{guild}\", manifest: guilds/main.yaml }}
policies:
  - name: staff-stays-private
    never: {{ who: \"@everyone\", can: [view_channel], where: [\"Staff/*\"] }}
"
        ),
    )
    .unwrap();
    std::fs::write(
        ws.join("guilds/main.yaml"),
        format!("version: 1\nchannels:\n{OPEN_MOD_LOG}"),
    )
    .unwrap();
    h.emu.clear_requests();
    let one = h.run(&["plan", "-f", "guilds/main.yaml"]).await;
    one.assert_code(1);
    assert!(
        one.stderr.contains("policy `staff-stays-private`"),
        "{}",
        one.stderr
    );
    // The policy's excerpt is the workspace file's.
    assert!(one.stderr.contains("guildctl.yaml:"), "{}", one.stderr);
    let all = h.run(&["apply", "--all", "--yes"]).await;
    all.assert_code(1);
    assert!(
        all.stdout.contains("staff-stays-private") || all.stderr.contains("staff-stays-private"),
        "{}{}",
        all.stdout,
        all.stderr
    );
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
    // A guild manifest cannot redefine the workspace's policy.
    std::fs::write(
        ws.join("guilds/main.yaml"),
        "version: 1
policies:
  - name: staff-stays-private
    never: { who: \"@everyone\", can: [administrator] }
",
    )
    .unwrap();
    let redefined = h.run(&["validate", "-f", "guilds/main.yaml"]).await;
    redefined.assert_code(1);
    assert!(
        redefined
            .stderr
            .contains("policy `staff-stays-private` is declared twice"),
        "{}",
        redefined.stderr
    );
}

#[tokio::test]
async fn validate_judges_what_the_manifest_alone_decides() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1
channels:
  - name: Staff
    type: category
    overwrites:
      - { role: \"@everyone\", allow: [view_channel] }
    channels:
      - { name: mod-log, sync_permissions: true }
      - { name: mod-chat }
policies:
  - name: staff-stays-private
    never: { who: \"@everyone\", can: [view_channel], where: [\"Staff/*\"] }
",
    );
    let v = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    v.assert_code(1);
    // Synced with an open category: decided. #mod-chat's overwrites are not declared: not.
    assert!(
        v.stderr.contains(
            "is broken by the manifest itself: @everyone has view_channel in Staff/#mod-log"
        ),
        "{}",
        v.stderr
    );
    assert!(!v.stderr.contains("#mod-chat"), "{}", v.stderr);
    assert!(
        h.requests().is_empty(),
        "validate reads nothing from Discord"
    );
}

const HUMAN_TOKEN: &str = "human-owner-token-for-access-tests";

#[tokio::test]
async fn drift_reports_a_live_breach_and_who_holds_dangerous_permissions() {
    let mut st = discord_emulator::default_state();
    arrange(&mut st).owner_token(HUMAN_TOKEN);
    let h = Harness::with_state(Some(st)).await;
    let st = h.emu.state();
    let (alice, erin, heidi) = (st.user_id("alice"), st.user_id("erin"), st.user_id("heidi"));
    // ferris gives heidi Moderator by hand.
    let path = format!(
        "{}/guilds/{}/members/{heidi}/roles/{}",
        h.emu.api_base,
        h.emu.guild_id,
        st.role_id("Moderator")
    );
    let res = reqwest::Client::new()
        .put(&path)
        .header("Authorization", format!("Bot {HUMAN_TOKEN}"))
        .header("X-Audit-Log-Reason", "trusted")
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let yaml = format!(
        "version: 1
roles:
  - name: Moderator
    members:
      - {{ id: \"{alice}\" }}
      - {{ id: \"{erin}\" }}
      - {{ id: \"{heidi}\" }}
  - name: Helper
policies:
  - name: helpers-do-not-moderate
    never: {{ who: Helper, can: [manage_messages] }}
"
    );
    let m = h.manifest("guild.yaml", &yaml);
    let m = m.to_str().unwrap();
    h.emu.clear_requests();
    let j_run = h.run(&["drift", "-f", m, "--format", "json"]).await;
    j_run.assert_code(2);
    let j = j_run.json();
    let breach = &j["policies"][0];
    assert_eq!(breach["policy"], "helpers-do-not-moderate");
    assert_eq!(breach["what"], "Helper has manage_messages guild-wide");
    let review = &j["access_review"];
    let moderator = review["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["role"] == "Moderator")
        .expect("Moderator holds dangerous permissions");
    let given = moderator["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == heidi.as_str())
        .expect("heidi is named");
    assert_eq!(given["name"], format!("heidi ({heidi})"));
    assert_eq!(given["granted"]["entry"]["user"]["name"], "ferris");
    assert_eq!(given["granted"]["entry"]["reason"], "trusted");
    assert_eq!(moderator["others"], 0);
    let admin = review["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["role"] == "Admin")
        .unwrap();
    assert_eq!(admin["others"], 1, "Admin's holder, counted");

    let text = h.run(&["drift", "-f", m]).await;
    text.assert_code(2);
    assert!(
        text.stdout.contains("HIGH RISK, policies the live guild breaks (1):\n  ! policy helpers-do-not-moderate (policies[0]): Helper has manage_messages guild-wide"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains(&format!("heidi ({heidi}) (given by ferris ")),
        "{}",
        text.stdout
    );
    let md = h.run(&["drift", "-f", m, "--format", "markdown"]).await;
    assert!(
        md.stdout
            .contains("| 🔴 HIGH | policy helpers\\-do\\-not\\-moderate |"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout
            .contains("Access review: who holds dangerous permissions")
    );
    assert!(h.writes().is_empty(), "drift only reads");
}

/// Who holds `role`, as `access --channel` lists it for `Staff/#mod-log` (its JSON).
fn mod_log_holders(j: &Value, role: &str) -> Value {
    let row = j["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "Staff/#mod-log")
        .expect("#mod-log");
    row["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["role"] == role)
        .unwrap_or_else(|| panic!("{role} in #mod-log: {row}"))["holders"]
        .clone()
}

/// "Who can see #mod-log" is answered with people: a roster's are named after the plan,
/// the member listing names everyone with `--people`, and otherwise Discord's member count
/// says how many hold each role. Without the Server Members intent, `--people` says so and
/// counts.
#[tokio::test]
async fn access_channel_names_the_people_who_hold_each_role() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let (alice, erin) = (st.user_id("alice"), st.user_id("erin"));
    drop(st);
    let f = example("community.yaml");
    let f = f.to_str().unwrap();

    // Counted: two members hold Moderator today, and no roster names them.
    let text = h.run(&["access", "-f", f, "--channel", "#mod-log"]).await;
    text.assert_code(0);
    assert!(
        text.stdout
            .contains("held by 2 members (none named: a roster or --people names them)"),
        "{}",
        text.stdout
    );
    let j = h
        .run(&[
            "access",
            "-f",
            f,
            "--channel",
            "mod-log",
            "--format",
            "json",
        ])
        .await
        .json();
    let moderator = mod_log_holders(&j, "Moderator");
    assert_eq!(moderator["count"], 2, "{moderator}");
    assert_eq!(moderator["named"], serde_json::json!([]));

    // Named: the member listing names both.
    let people = h
        .run(&["access", "-f", f, "--channel", "#mod-log", "--people"])
        .await;
    people.assert_code(0);
    let line = format!("held by alice ({alice}), erin ({erin})");
    assert!(people.stdout.contains(&line), "{}", people.stdout);
    let md = h
        .run(&[
            "access",
            "-f",
            f,
            "--channel",
            "#mod-log",
            "--people",
            "--format",
            "markdown",
        ])
        .await;
    assert!(
        md.stdout.contains("- Moderator (held by alice"),
        "{}",
        md.stdout
    );

    // A roster: after the plan, Moderator is alice's alone, without --people.
    let roster = format!(
        "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{alice}\" }}\n"
    );
    let m = h.manifest("roster.yaml", &roster);
    let j = h
        .run(&[
            "access",
            "-f",
            m.to_str().unwrap(),
            "--channel",
            "#mod-log",
            "--format",
            "json",
        ])
        .await
        .json();
    let moderator = mod_log_holders(&j, "Moderator");
    assert_eq!(moderator["count"], 1, "{moderator}");
    assert_eq!(
        moderator["named"],
        serde_json::json!([format!("alice ({alice})")])
    );
    // Today (--live), erin still holds it.
    let live = h
        .run(&[
            "access",
            "-f",
            m.to_str().unwrap(),
            "--channel",
            "#mod-log",
            "--live",
            "--format",
            "json",
        ])
        .await
        .json();
    let moderator = mod_log_holders(&live, "Moderator");
    assert_eq!(moderator["count"], 2, "{moderator}");

    // `--people` needs --channel.
    let bare = h.run(&["access", "-f", f, "--people"]).await;
    assert_eq!(bare.code, 2, "{}", bare.stderr);
    assert!(bare.stderr.contains("--channel"), "{}", bare.stderr);
}

#[tokio::test]
async fn access_people_without_the_members_intent_counts_and_says_why() {
    let mut st = discord_emulator::default_state();
    st.config.guild_members_intent = false;
    let h = Harness::with_state(Some(st)).await;
    let f = example("community.yaml");
    let run = h
        .run(&[
            "access",
            "-f",
            f.to_str().unwrap(),
            "--channel",
            "#mod-log",
            "--people",
        ])
        .await;
    run.assert_code(0);
    assert!(run.stderr.contains("GUILD_MEMBERS"), "{}", run.stderr);
    assert!(
        run.stdout.contains("held by 2 members (none named"),
        "{}",
        run.stdout
    );
}
