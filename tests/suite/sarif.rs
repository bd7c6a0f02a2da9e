//! `validate --format sarif`, `plan --format sarif` and `plan --sarif FILE`: SARIF 2.1.0
//! logs that validate against the OASIS schema (tests/data/sarif-schema-2.1.0.json), with
//! every result on a manifest's file, line and column.

use crate::common;

use common::Harness;
use serde_json::Value;

fn sarif_schema() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(include_str!("../data/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn schema_checked(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let errors: Vec<String> = sarif_schema()
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0: {errors:#?}\n{text}");
    assert_eq!(log["version"], "2.1.0");
    log
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// `(ruleId, uri, startLine, startColumn)` of each result.
fn places(log: &Value) -> Vec<(String, String, u64, u64)> {
    results(log)
        .iter()
        .map(|r| {
            let p = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap().to_owned(),
                p["artifactLocation"]["uri"].as_str().unwrap().to_owned(),
                p["region"]["startLine"].as_u64().unwrap(),
                p["region"]["startColumn"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[tokio::test]
async fn validate_writes_sarif_with_each_finding_on_its_line() {
    let h = Harness::start().await;
    h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Mods\n    permissions: [kick_members]\n  - name: Mods\n",
    );
    let run = h
        .run(&["validate", "-f", "guild.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("guild.yaml: invalid"), "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    assert_eq!(
        places(&log),
        vec![("unique-role-names".into(), "guild.yaml".into(), 5, 11)]
    );
    let result = &results(&log)[0];
    assert_eq!(result["level"], "error");
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .contains("duplicate role name")
    );
    // The first declaration is a related place; the node is the logical location.
    assert_eq!(
        result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert_eq!(
        result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "roles[1].name"
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "unique-role-names"
    );
    assert_eq!(log["runs"][0]["columnKind"], "unicodeCodePoints");

    // A valid manifest is an empty run, exit 0.
    h.manifest("ok.yaml", "version: 1\nroles:\n  - name: Mods\n");
    let ok = h
        .run(&["validate", "-f", "ok.yaml", "--format", "sarif"])
        .await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(results(&schema_checked(&ok.stdout)).is_empty());
}

#[test]
fn the_schema_check_refuses_what_is_not_sarif() {
    let log = serde_json::json!({
        "version": "2.1.0",
        "runs": [{ "tool": { "driver": { "name": "guildctl" } },
                   "results": [{ "message": { "text": "x" }, "level": "fatal" }] }]
    });
    assert!(!sarif_schema().is_valid(&log));
    let mut ok = log.clone();
    ok["runs"][0]["results"][0]["level"] = "error".into();
    assert!(sarif_schema().is_valid(&ok));
}

#[tokio::test]
async fn a_workspace_validates_into_one_sarif_log() {
    let h = Harness::start().await;
    h.manifest(
        "guildctl.yaml",
        "guilds:\n  good: { id: \"111111111111111111\", manifest: good.yaml }\n  bad: { id: \"222222222222222222\", manifest: bad.yaml }\n",
    );
    h.manifest("good.yaml", "version: 1\n");
    h.manifest("bad.yaml", "version: 1\nsettings:\n  afk_timeout: 7\n");
    let run = h.run(&["validate", "--all", "--format", "sarif"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let found = places(&log);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].1.as_str(), found[0].2), ("bad.yaml", 3));
}

#[tokio::test]
async fn a_plan_writes_its_risks_as_sarif_on_the_lines_that_make_them() {
    let h = Harness::start().await;
    // The example with its images, where it is (the run's folder is elsewhere).
    let example = common::example("community.yaml");
    let yaml = std::fs::read_to_string(&example).unwrap();
    let example = example.to_str().unwrap();
    let run = h.run(&["plan", "-f", example, "--format", "sarif"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let found = places(&log);
    // The JSON plan's risks, one result each, in the same order.
    let json = h.run(&["plan", "-f", example, "--format", "json"]).await;
    let plan: Value = serde_json::from_str(&json.stdout).unwrap();
    let risks = plan["risks"].as_array().unwrap();
    assert_eq!(found.len(), risks.len());
    // "role Maintainer gains ..." is on Maintainer's `permissions:`, which grant it.
    let declared = yaml
        .lines()
        .position(|l| l.contains("name: Maintainer"))
        .unwrap();
    let line = declared
        + yaml
            .lines()
            .skip(declared)
            .position(|l| l.trim() == "permissions:")
            .unwrap()
        + 1;
    let line = line as u64;
    let grant = results(&log)
        .iter()
        .zip(&found)
        .find(|(r, _)| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("role Maintainer gains")
        })
        .expect("Maintainer's grant");
    assert_eq!(grant.1.0, "risk-grant");
    assert!(grant.1.1.starts_with("file:///"), "{}", grant.1.1);
    assert!(
        grant.1.1.ends_with("/examples/community.yaml"),
        "{}",
        grant.1.1
    );
    assert_eq!(grant.1.2, line);
    assert_eq!(grant.0["level"], "warning");
    assert!(h.writes().is_empty(), "plan wrote to the guild");
}

#[tokio::test]
async fn a_refused_plan_writes_its_refusals_as_sarif_beside_the_markdown() {
    let h = Harness::start().await;
    h.manifest(
        "refused.yaml",
        "version: 1\nwidget: { enabled: true, channel: no-such-channel }\n",
    );
    let run = h
        .run(&[
            "plan",
            "-f",
            "refused.yaml",
            "--format",
            "markdown",
            "--sarif",
            "plan.sarif",
        ])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("The plan was refused"),
        "{}",
        run.stdout
    );
    let text = std::fs::read_to_string(h.dir.path().join("plan.sarif")).unwrap();
    let log = schema_checked(&text);
    assert_eq!(
        places(&log),
        vec![("plan-refused".into(), "refused.yaml".into(), 2, 35)]
    );
    assert_eq!(results(&log)[0]["level"], "error");

    // A plan apply will refuse (too many deletions) says so, at the manifest.
    let prune = common::example("prune-everything.yaml");
    std::fs::copy(&prune, h.dir.path().join("prune.yaml")).unwrap();
    let run = h
        .run(&["plan", "-f", "prune.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let found = places(&log);
    assert_eq!(found[0].0, "apply-will-refuse");
    assert!(found[1..].iter().all(|f| f.0 == "risk-delete"), "{found:?}");
    assert!(found.len() > 10);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_policy_the_plan_would_break_is_its_own_finding_on_the_change_that_breaks_it() {
    let h = Harness::start().await;
    h.manifest(
        "private.yaml",
        "version: 1
channels:
  - name: Staff
    type: category
    channels:
      - name: mod-log
        type: text
        overwrites:
          - { role: \"@everyone\", allow: [view_channel] }
policies:
  - name: staff-stays-private
    never: { who: \"@everyone\", can: [view_channel], where: [\"Staff/*\"] }
",
    );
    let run = h
        .run(&["plan", "-f", "private.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let found = places(&log);
    assert_eq!(
        found,
        vec![("policy-breach".into(), "private.yaml".into(), 8, 9)],
        "on the overwrites that open the channel"
    );
    assert_eq!(results(&log)[0]["level"], "error");
    let rules = &log["runs"][0]["tool"]["driver"]["rules"];
    let ids: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(ids.contains(&"policy-breach"), "{ids:?}");
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn sarif_takes_one_manifest_at_a_time_in_plan() {
    let h = Harness::start().await;
    h.manifest(
        "guildctl.yaml",
        "guilds:\n  a: { id: \"111111111111111111\", manifest: a.yaml }\n",
    );
    h.manifest("a.yaml", "version: 1\n");
    let run = h.run(&["plan", "--all", "--format", "sarif"]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("--format sarif writes one manifest"),
        "{}",
        run.stderr
    );
}

/// `(ruleId, startLine)` of each result, for what a test knows by line.
fn lines(log: &Value) -> Vec<(String, u64)> {
    places(log).into_iter().map(|(r, _, l, _)| (r, l)).collect()
}

#[tokio::test]
async fn a_risk_lands_on_the_line_that_widens_access() {
    let h = Harness::start().await;
    // A new role with a dangerous permission, let into Staff (and so into #mod-chat, which
    // syncs with it) by the category's overwrite on line 11.
    h.manifest(
        "trusted.yaml",
        "version: 1
roles:
  - name: Trusted
    permissions: [ban_members]
channels:
  - name: Staff
    type: category
    overwrites:
      - { role: \"@everyone\", deny: [view_channel] }
      - { role: Moderator, allow: [view_channel] }
      - { role: Trusted, allow: [view_channel] }
",
    );
    let run = h
        .run(&["plan", "-f", "trusted.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let found = lines(&log);
    // The grant on the role's permissions, the access on the overwrite that opens it,
    // not on `- name: Trusted` (line 3), the first change the access line names.
    assert!(
        found.contains(&("risk-grant".into(), 4)),
        "{found:?}\n{}",
        run.stdout
    );
    let access: Vec<u64> = found
        .iter()
        .filter(|(r, _)| r == "risk-access")
        .map(|(_, l)| *l)
        .collect();
    assert!(!access.is_empty(), "{found:?}");
    assert!(access.iter().all(|l| *l == 11), "{found:?}");
    assert!(h.writes().is_empty());
}

/// A pruned integration, invite or lifted ban is placed on the `prune` entry that deletes
/// it (`prune.integrations`, `prune.invites`, `prune.bans`), as a pruned role is on
/// `prune.roles`: not on `prune` as a whole, nor on the ban list.
#[tokio::test]
async fn a_pruned_integration_invite_or_ban_lands_on_its_prune_entry() {
    let h = Harness::start().await;
    h.manifest(
        "doors.yaml",
        "version: 1
integrations: []
invites:
  rules:
    - { max_uses: 100 }
bans: []
prune:
  integrations: true
  invites: true
  bans: true
safety: { allow_deletes: 10 }
",
    );
    let run = h
        .run(&["plan", "-f", "doors.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = schema_checked(&run.stdout);
    let deletions: Vec<(String, u64)> = results(&log)
        .iter()
        .zip(lines(&log))
        .filter(|(_, (rule, _))| rule == "risk-delete")
        .map(|(r, (_, line))| (r["message"]["text"].as_str().unwrap().to_owned(), line))
        .collect();
    let on = |kind: &str| -> Vec<u64> {
        deletions
            .iter()
            .filter(|(text, _)| text.contains(kind))
            .map(|(_, line)| *line)
            .collect()
    };
    let (integrations, invites, bans) = (on("integration"), on("invite"), on("ban"));
    assert!(!integrations.is_empty(), "{deletions:?}");
    assert!(!invites.is_empty(), "{deletions:?}");
    assert!(!bans.is_empty(), "{deletions:?}");
    assert!(integrations.iter().all(|l| *l == 8), "{deletions:?}");
    assert!(invites.iter().all(|l| *l == 9), "{deletions:?}");
    assert!(bans.iter().all(|l| *l == 10), "{deletions:?}");
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_plan_of_an_invalid_manifest_writes_the_validation_results_as_sarif() {
    let h = Harness::start().await;
    h.manifest(
        "invalid.yaml",
        "version: 1\nroles:\n  - name: Mods\n  - name: Mods\nsettings:\n  afk_timeout: 300\n",
    );
    let run = h
        .run(&[
            "plan",
            "-f",
            "invalid.yaml",
            "--format",
            "markdown",
            "--sarif",
            "plan.sarif",
        ])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let text = std::fs::read_to_string(h.dir.path().join("plan.sarif"))
        .expect("the SARIF file is written for an invalid manifest");
    let log = schema_checked(&text);
    assert_eq!(
        places(&log),
        vec![("unique-role-names".into(), "invalid.yaml".into(), 4, 11)]
    );
    assert_eq!(results(&log)[0]["level"], "error");
    // And on stdout with --format sarif.
    let run = h
        .run(&["plan", "-f", "invalid.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        lines(&schema_checked(&run.stdout)),
        vec![("unique-role-names".into(), 4)]
    );
    assert!(
        h.requests().is_empty(),
        "an invalid manifest reaches no API"
    );
}

/// Names carry markdown links, HTML and mentions; GitHub renders a result's message as
/// markdown, so they reach it escaped (inert::markdown): shown as written, linking,
/// formatting and mentioning nothing.
#[tokio::test]
async fn text_from_the_manifest_is_inert_in_sarif_messages() {
    let h = Harness::start().await;
    let names = [
        "[click me](https://evil.example/x)",
        "<img src=x onerror=alert(1)>",
        "@everyone look",
    ];
    let mut yaml = String::from("version: 1\nroles:\n");
    for name in names {
        // Twice each: the duplicate's message quotes the name.
        for _ in 0..2 {
            yaml.push_str(&format!(
                "  - name: {}\n    permissions: [administrator]\n",
                serde_json::to_string(name).unwrap()
            ));
        }
    }
    h.manifest("names.yaml", &yaml);
    let validate = h
        .run(&["validate", "-f", "names.yaml", "--format", "sarif"])
        .await;
    assert_eq!(validate.code, 1, "{}", validate.stderr);
    // One name each, unique: the plan's risks quote them too.
    let mut yaml = String::from("version: 1\nroles:\n");
    for name in names {
        yaml.push_str(&format!(
            "  - name: {}\n    permissions: [administrator]\n",
            serde_json::to_string(name).unwrap()
        ));
    }
    h.manifest("risky.yaml", &yaml);
    let plan = h
        .run(&["plan", "-f", "risky.yaml", "--format", "sarif"])
        .await;
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    for (what, out, rule) in [
        ("validate", &validate.stdout, "unique-role-names"),
        ("plan", &plan.stdout, "risk-grant"),
    ] {
        let log = schema_checked(out);
        let messages: Vec<&str> = results(&log)
            .iter()
            .filter(|r| r["ruleId"] == rule)
            .map(|r| r["message"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(messages.len(), 3, "{what}: {messages:#?}");
        for m in &messages {
            // What is left once the escaped characters are taken out.
            let unescaped = m.replace("\\]\\(", "").replace("\\<", "");
            for raw in ["](", "<img", "@everyone"] {
                assert!(!unescaped.contains(raw), "{what}: {raw:?} raw in {m:?}");
            }
        }
        let all = messages.join("\n");
        for escaped in [
            "\\[click me\\]\\(https:\u{200b}//evil\\.example/x\\)",
            "\\<img src=x onerror=alert\\(1\\)\\>",
            "@\u{200b}everyone look",
        ] {
            assert!(all.contains(escaped), "{what}: no {escaped:?} in {all}");
        }
    }
    assert!(h.writes().is_empty());
}

/// GitHub shows a rule's fullDescription at the top of an alert and its help below; the
/// SARIF Multitool's GitHub rules want both, and a helpUri. Each is docs/rules.md's section.
#[tokio::test]
async fn every_rule_has_a_full_description_help_and_a_help_uri() {
    let h = Harness::start().await;
    h.manifest(
        "rules.yaml",
        "version: 1\nroles:\n  - name: Mods #x\n  - name: Mods\n",
    );
    let validate = h
        .run(&["validate", "-f", "rules.yaml", "--format", "sarif"])
        .await;
    let prune = common::example("prune-everything.yaml");
    let plan = h
        .run(&["plan", "-f", prune.to_str().unwrap(), "--format", "sarif"])
        .await;
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let rules_doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md"),
    )
    .unwrap();
    let mut seen = Vec::new();
    for out in [&validate.stdout, &plan.stdout] {
        let log = schema_checked(out);
        for rule in log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
        {
            let id = rule["id"].as_str().unwrap();
            let heading = format!("\n## `{id}`\n");
            let section = rules_doc
                .split_once(&heading)
                .unwrap_or_else(|| panic!("docs/rules.md has no section {id}"))
                .1;
            let section = section.split("\n## ").next().unwrap().trim();
            let first = section.split("\n\n").next().unwrap().trim();
            assert_eq!(rule["fullDescription"]["text"], first, "{id}");
            assert_eq!(rule["help"]["text"], section, "{id}");
            assert_eq!(rule["help"]["markdown"], section, "{id}");
            assert_eq!(
                rule["helpUri"],
                format!(
                    "https://github.com/guildctl/guildctl/blob/v{}/docs/rules.md#{id}",
                    env!("CARGO_PKG_VERSION")
                ),
                "{id}"
            );
            assert!(
                !rule["shortDescription"]["text"]
                    .as_str()
                    .unwrap()
                    .is_empty(),
                "{id}"
            );
            seen.push(id.to_owned());
        }
    }
    for id in [
        "yaml-comment",
        "unique-role-names",
        "apply-will-refuse",
        "risk-delete",
    ] {
        assert!(seen.iter().any(|s| s == id), "{id} not in {seen:?}");
    }
}

/// 13,000 roles, each a duplicate name cut short by a comment: 26,000 results, over code
/// scanning's 25,000 per run. The log keeps 25,000, errors first, and says how many it
/// left out; it is still SARIF.
#[tokio::test]
async fn past_25000_results_the_log_stays_valid_and_says_how_many_were_cut() {
    let h = Harness::start().await;
    let mut yaml = String::from("version: 1\nroles:\n");
    for _ in 0..13_000 {
        yaml.push_str("  - name: r #x\n");
    }
    h.manifest("huge.yaml", &yaml);
    let run = h
        .run(&["validate", "-f", "huge.yaml", "--format", "sarif"])
        .await;
    assert_eq!(run.code, 1);
    let log = schema_checked(&run.stdout);
    let kept = results(&log);
    assert_eq!(kept.len(), 25_000);
    let errors = kept.iter().filter(|r| r["level"] == "error").count();
    assert_eq!(errors, 13_000, "every error is kept");
    assert!(
        kept[..errors].iter().all(|r| r["level"] == "error"),
        "errors first"
    );
    let note = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "warning");
    let said = note["message"]["text"].as_str().unwrap();
    assert!(
        said.starts_with("1000 of 26000 results were left out"),
        "{said}"
    );
    assert_eq!(log["runs"][0]["properties"]["resultsLeftOut"], 1000);
    // Every kept result's rule is listed, at its index.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for r in kept.iter().step_by(997) {
        assert_eq!(
            rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
            r["ruleId"]
        );
    }
}
