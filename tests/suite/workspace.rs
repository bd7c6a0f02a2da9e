//! Many guilds from one repository: a workspace file (`guildctl.yaml`) of three guilds
//! that extend one base, run with `--all` / `--guilds` against one emulator serving the
//! three guilds for one bot, over HTTP.

use crate::common;

use std::collections::HashMap;

use common::Harness;
use discord_emulator::faults::{FaultKind, FaultRule, FaultSet};
use discord_emulator::{State, default_state, with_guild_copies};

const BASE: &str = "version: 1
roles:
  - { name: Shared Helper, color: \"#123456\", permissions: [send_messages] }
channels:
  - { name: shared-news, type: text, topic: From the base }
";

/// Three guilds (copies of the default one), a base, and a workspace whose guild `a`
/// overrides the base's topic, `b` adds a channel and `c` takes the base as it is.
async fn workspace(c_extra: &str) -> (Harness, Vec<String>) {
    let state: State = with_guild_copies(default_state(), 3);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    std::fs::create_dir_all(h.dir.path().join("guilds")).unwrap();
    h.manifest("base.yaml", BASE);
    h.manifest(
        "guilds/a.yaml",
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: shared-news, topic: A's own news }\n",
    );
    h.manifest(
        "guilds/b.yaml",
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text }\n",
    );
    h.manifest(
        "guilds/c.yaml",
        &format!("version: 1\nextends: ../base.yaml\n{c_extra}"),
    );
    h.manifest(
        "guildctl.yaml",
        &format!(
            "guilds:\n  a: {{ id: \"{}\", manifest: guilds/a.yaml }}\n  b: {{ id: \"{}\", manifest: guilds/b.yaml }}\n  c: {{ id: \"{}\", manifest: guilds/c.yaml }}\n",
            ids[0], ids[1], ids[2]
        ),
    );
    (h, ids)
}

fn guild(h: &Harness, id: &str) -> discord_emulator::state::Guild {
    h.emu.state().guild(id).expect("guild").clone()
}

/// GET requests per guild id in the path (`/users/@me` is counted apart).
fn gets_per_guild(h: &Harness, ids: &[String]) -> (HashMap<String, usize>, usize) {
    let mut per = HashMap::new();
    let mut me = 0;
    for r in h.requests().into_iter().filter(|r| r.method == "GET") {
        if r.path.ends_with("/users/@me") {
            me += 1;
        }
        for id in ids {
            if r.path.contains(&format!("/guilds/{id}")) {
                *per.entry(id.clone()).or_insert(0) += 1;
            }
        }
    }
    (per, me)
}

#[tokio::test(flavor = "multi_thread")]
async fn three_guilds_share_a_base_plan_apply_and_converge() {
    let (h, ids) = workspace("").await;
    h.run(&["validate", "--all"]).await.assert_code(0);

    let plan = h.run(&["plan", "--all", "--detailed-exitcode"]).await;
    plan.assert_code(2);
    // The summary table comes first, one line per guild, then each guild's plan.
    let lines: Vec<&str> = plan.stdout.lines().collect();
    assert!(lines[0].starts_with("guild"), "{}", plan.stdout);
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        assert!(lines[1 + i].starts_with(name), "{}", plan.stdout);
        assert!(lines[1 + i].contains(&ids[i]), "{}", plan.stdout);
        assert!(lines[1 + i].contains("to create"), "{}", plan.stdout);
    }
    assert!(plan.stdout.contains("\n== b ("), "{}", plan.stdout);
    assert!(
        plan.stdout
            .contains("3 guild(s): 0 failed, 3 with changes, 0 unchanged."),
        "{}",
        plan.stdout
    );
    // 7 GETs per guild, and no 429 across them.
    let (per, me) = gets_per_guild(&h, &ids);
    for id in &ids {
        assert_eq!(per.get(id), Some(&6), "GETs naming guild {id}");
    }
    assert_eq!(me, 3, "GET /users/@me once per guild");
    assert!(h.requests().iter().all(|r| r.status != 429));

    // Without `--detailed-exitcode` the exit code is 0, and the summary still counts the
    // guilds that would change.
    let plain = h.run(&["plan", "--all"]).await;
    plain.assert_code(0);
    assert!(
        plain
            .stdout
            .contains("3 guild(s): 0 failed, 3 with changes, 0 unchanged."),
        "{}",
        plain.stdout
    );

    h.emu.clear_requests();
    h.run(&["apply", "--all", "--yes"]).await.assert_code(0);
    assert!(h.requests().iter().all(|r| r.status != 429));
    // Each guild got the merge of the base and its own file.
    let topic = |g: &discord_emulator::state::Guild, name: &str| {
        g.channels
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.topic.clone())
    };
    let (a, b, c) = (guild(&h, &ids[0]), guild(&h, &ids[1]), guild(&h, &ids[2]));
    assert_eq!(topic(&a, "shared-news"), Some(Some("A's own news".into())));
    assert_eq!(topic(&b, "shared-news"), Some(Some("From the base".into())));
    assert!(topic(&b, "b-only").is_some());
    assert!(topic(&a, "b-only").is_none());
    assert_eq!(topic(&c, "shared-news"), Some(Some("From the base".into())));
    for g in [&a, &b, &c] {
        assert!(g.roles.iter().any(|r| r.name == "Shared Helper"));
    }
    h.run(&["plan", "--all", "--detailed-exitcode"])
        .await
        .assert_code(0);

    // A change to the base plans every guild that extends it; JSON has one result each.
    h.manifest("base.yaml", &BASE.replace("#123456", "#654321"));
    let json = h
        .run(&["plan", "--all", "--detailed-exitcode", "--format", "json"])
        .await;
    json.assert_code(2);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("one JSON document");
    let guilds = doc["guilds"].as_array().expect("guilds");
    assert_eq!(guilds.len(), 3);
    for g in guilds {
        assert_eq!(g["exit_code"], 2, "{g}");
        let changes = g["result"]["changes"].as_array().expect("changes");
        assert_eq!(changes.len(), 1, "{g}");
    }
    // --guilds runs only those named.
    let some = h
        .run(&["plan", "--guilds", "b", "--detailed-exitcode"])
        .await;
    some.assert_code(2);
    assert!(some.stdout.contains("\n== b ("));
    assert!(!some.stdout.contains("\n== a ("));
}

#[tokio::test(flavor = "multi_thread")]
async fn one_guild_refused_leaves_the_others_applied_and_reported() {
    // c prunes channels the base does not declare: more than the deletion gate allows.
    let (h, ids) = workspace("prune: { channels: true }\n").await;
    let before_c = guild(&h, &ids[2]);
    let run = h.run(&["apply", "--all", "--yes"]).await;
    run.assert_code(1);
    let c_line = run.stdout.lines().find(|l| l.starts_with("c ")).unwrap();
    assert!(c_line.contains("error"), "{}", run.stdout);
    assert!(run.stdout.contains("1 failed"), "{}", run.stdout);
    // c is untouched; a and b are applied whole.
    assert_eq!(guild(&h, &ids[2]), before_c);
    h.run(&["plan", "--guilds", "a,b", "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn diagnostics_name_the_file_a_value_came_from() {
    let (h, _) = workspace("").await;
    // A bad value in the base is shown in the base, one in the guild's file in that file.
    h.manifest("base.yaml", &BASE.replace("send_messages", "send_mesages"));
    h.manifest(
        "guilds/b.yaml",
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text, topik: typo }\n",
    );
    let run = h.run(&["validate", "--guilds", "b"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("base.yaml:3:"),
        "the base's line: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("b.yaml:4:"),
        "the guild's line: {}",
        run.stderr
    );
    // A base may not name a guild; a missing base is shown on the `extends:` line.
    h.manifest(
        "base.yaml",
        &format!("{BASE}guild: \"81384788765712384\"\n"),
    );
    let run = h.run(&["validate", "--guilds", "a"]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("base.yaml:6:"), "{}", run.stderr);
    assert!(run.stderr.contains("names a guild"), "{}", run.stderr);
    h.manifest("guilds/a.yaml", "version: 1\nextends: [../nope.yaml]\n");
    let run = h.run(&["validate", "--guilds", "a"]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("a.yaml:2:"), "{}", run.stderr);
    // An unknown guild name is an error naming the known ones.
    let run = h.run(&["plan", "--guilds", "zzz"]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("a, b, c"), "{}", run.stderr);
}

/// One bot, one budget: 20 guilds planned through one client against the emulator's
/// global limit on a scaled clock (50 a second, ten times faster). The 140 GETs meet no
/// 429, and take at least the time the global limit sets (140 / 500 per second).
#[tokio::test(flavor = "multi_thread")]
async fn many_guilds_share_one_global_limit_without_a_429() {
    const GUILDS: usize = 20;
    const SCALE: u32 = 10;
    let mut state = with_guild_copies(default_state(), GUILDS);
    state.config.time_scale = f64::from(SCALE);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let mut ws = String::from("guilds:\n");
    for (i, id) in ids.iter().enumerate() {
        h.manifest(&format!("g{i}.yaml"), "version: 1\n");
        ws.push_str(&format!(
            "  g{i}: {{ id: \"{id}\", manifest: g{i}.yaml }}\n"
        ));
    }
    h.manifest("guildctl.yaml", &ws);
    let start = std::time::Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["plan", "--all", "--detailed-exitcode"])
        .env("DISCORD_TOKEN", &h.emu.token)
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_CLOCK_SCALE", SCALE.to_string())
        .env("NO_COLOR", "1")
        .current_dir(h.dir.path())
        .output()
        .await
        .expect("guildctl runs");
    let wall = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = h.requests();
    assert_eq!(
        requests.iter().filter(|r| r.method == "GET").count(),
        7 * GUILDS
    );
    let limited: Vec<_> = requests.iter().filter(|r| r.status == 429).collect();
    assert!(limited.is_empty(), "429s: {limited:?}");
    let (per, _) = gets_per_guild(&h, &ids);
    assert!(ids.iter().all(|id| per.get(id) == Some(&6)), "{per:?}");
    // The global limit held: 140 requests at 50 per window of 0.1 s need three windows,
    // so at least two whole windows pass (they were not all let through at once).
    let window = 1.0 / f64::from(SCALE);
    let windows = (7 * GUILDS).div_ceil(50) as f64;
    assert!(
        wall.as_secs_f64() >= (windows - 1.0) * window,
        "wall {wall:?}: faster than the global limit allows"
    );
}

/// A network's ban list lives in one base; each guild adds its own bans on top, merged by
/// user id (docs/manifest.md, "Bases"), and `apply --all` bans each list in its guild.
#[tokio::test(flavor = "multi_thread")]
async fn a_shared_ban_list_merges_by_user_with_each_guilds_own() {
    let (h, ids) = workspace("").await;
    let (frank, ivan) = (h.user_id("frank"), h.user_id("ivan"));
    h.manifest(
        "bans.yaml",
        &format!("version: 1\nbans:\n  - {{ id: \"{frank}\", reason: Network-wide spam }}\n"),
    );
    for (name, extra) in [
        (
            "a",
            format!("bans:\n  - {{ id: \"{ivan}\", reason: Raid in a }}\n"),
        ),
        ("b", String::new()),
        ("c", String::new()),
    ] {
        h.manifest(
            &format!("guilds/{name}.yaml"),
            &format!("version: 1\nextends: [../base.yaml, ../bans.yaml]\n{extra}"),
        );
    }
    h.run(&["apply", "--all", "--yes"]).await.assert_code(0);
    let banned = |id: &str| -> Vec<String> {
        guild(&h, id)
            .bans
            .iter()
            .map(|b| b.user_id.clone())
            .collect()
    };
    for id in &ids {
        assert!(banned(id).contains(&frank), "the shared ban in {id}");
    }
    assert!(banned(&ids[0]).contains(&ivan), "a's own ban");
    assert!(!banned(&ids[1]).contains(&ivan), "b does not have a's ban");
    h.run(&["plan", "--all", "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// Each guild is rehearsed before its first write, as one guild's apply is: guild `c`
/// adds two categories to a guild of four where Discord allows five (a server-side
/// limit preflight does not model, given to the rehearsal's copy by
/// GUILDCTL_REHEARSAL_RULES). `c`'s rehearsal fails and `c` gets no request that
/// writes; `a` and `b` are applied. `plan --all --rehearse` says the same per guild.
#[tokio::test(flavor = "multi_thread")]
async fn a_guild_whose_rehearsal_fails_is_refused_and_the_others_apply() {
    let (h, ids) = workspace(
        "channels:\n  - { name: Archive, type: category }\n  - { name: Events, type: category }\n",
    )
    .await;
    let rules = h.manifest("rules.json", r#"{"max_categories": 5}"#);
    let env = [("GUILDCTL_REHEARSAL_RULES", rules.to_str().unwrap())];

    let plan = h
        .run_env(&["plan", "--all", "--rehearse", "--format", "json"], &env)
        .await;
    plan.assert_code(1);
    let doc: serde_json::Value = serde_json::from_str(&plan.stdout).expect("one JSON document");
    let codes: Vec<(String, i64, bool)> = doc["guilds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap().to_owned(),
                g["exit_code"].as_i64().unwrap(),
                g["result"]["rehearsal"]["ok"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("a".to_owned(), 0, true),
            ("b".to_owned(), 0, true),
            ("c".to_owned(), 1, false)
        ]
    );
    assert_eq!(
        doc["guilds"][2]["result"]["rehearsal"]["refusal"]["code"], 30030,
        "{}",
        plan.stdout
    );
    assert!(h.writes().is_empty(), "plan --rehearse writes nothing");

    let before_c = guild(&h, &ids[2]);
    let applied = h.run_env(&["apply", "--all", "--yes"], &env).await;
    applied.assert_code(1);
    let c_line = applied
        .stdout
        .lines()
        .find(|l| l.starts_with("c "))
        .unwrap();
    // The row says what failed; c's section shows its plan, whose verdict says the refusal
    // once, with its manifest place (issue 41).
    assert!(
        c_line.contains("refusing to apply: rehearsal refused") && !c_line.contains("30030"),
        "{}",
        applied.stdout
    );
    let section = applied.stdout.split("== c (").nth(1).unwrap_or_default();
    assert_eq!(section.matches("30030").count(), 1, "{}", applied.stdout);
    assert!(
        section.contains("Rehearsal refused: "),
        "{}",
        applied.stdout
    );
    assert!(applied.stdout.contains("1 failed"), "{}", applied.stdout);
    // c got no write at all; a and b were applied and converge.
    let writes = h.writes();
    assert!(!writes.is_empty());
    assert!(
        writes.iter().all(|w| !w.path.contains(&ids[2])),
        "{writes:?}"
    );
    assert_eq!(guild(&h, &ids[2]), before_c);
    h.run(&["plan", "--guilds", "a,b", "--detailed-exitcode"])
        .await
        .assert_code(0);

    // --no-rehearse skips the copy: c's apply goes to the live guild (which has no such
    // limit here) and is made.
    h.run_env(&["apply", "--guilds", "c", "--yes", "--no-rehearse"], &env)
        .await
        .assert_code(0);
    assert_ne!(guild(&h, &ids[2]), before_c);
}

/// Guilds whose files read alike are loaded, validated and checked once (`manifest::shared`),
/// yet each guild's report names its own file: a warning the checks find and an error the
/// schema finds, both on line 4 of a file the three guilds' files repeat word for word.
#[tokio::test(flavor = "multi_thread")]
async fn guilds_whose_files_read_alike_each_see_their_own_file_named() {
    let (h, _) = workspace("").await;
    // The three files made to read `own`, validated: each guild's finding is on line 4 of its
    // own file, once.
    let validate_alike = async |own: &str, code: i32| {
        for g in ["a", "b", "c"] {
            h.manifest(&format!("guilds/{g}.yaml"), own);
        }
        let run = h.run(&["validate", "--all"]).await;
        run.assert_code(code);
        let out = format!("{}{}", run.stdout, run.stderr);
        for g in ["a", "b", "c"] {
            assert_eq!(
                out.matches(&format!("guilds/{g}.yaml:4:")).count(),
                1,
                "{g}'s finding in its own file: {out}"
            );
        }
        out
    };
    // A warning the checks find.
    let out = validate_alike(
        "version: 1\nextends: ../base.yaml\nsettings:\n  afk_channel: nowhere\n",
        0,
    )
    .await;
    assert_eq!(out.matches("is not declared").count(), 3, "{out}");
    // An error the schema finds.
    validate_alike(
        "version: 1\nextends: ../base.yaml\nsettings:\n  afk_timeout: soon\n",
        1,
    )
    .await;
}

/// Files that read alike in two folders: the paths in them are relative to their folder, so
/// the avatar one folder has and the other lacks is an error only there.
#[tokio::test(flavor = "multi_thread")]
async fn files_alike_in_two_folders_are_checked_each_in_its_own() {
    let (h, ids) = workspace("").await;
    // No `extends:`, so the folder is all that tells the two apart.
    let own = "version: 1\nchannels:\n  - { name: news, type: text }\nwebhooks:\n  - { name: Hook, channel: news, avatar: hook.png }\n";
    for g in ["x", "y"] {
        std::fs::create_dir_all(h.dir.path().join(format!("guilds/{g}"))).unwrap();
        h.manifest(&format!("guilds/{g}/main.yaml"), own);
    }
    std::fs::write(
        h.dir.path().join("guilds/x/hook.png"),
        b"\x89PNG\r\n\x1a\nhook",
    )
    .unwrap();
    h.manifest(
        "guildctl.yaml",
        &format!(
            "guilds:\n  x: {{ id: \"{}\", manifest: guilds/x/main.yaml }}\n  y: {{ id: \"{}\", manifest: guilds/y/main.yaml }}\n",
            ids[0], ids[1]
        ),
    );
    let run = h.run(&["validate", "--all"]).await;
    run.assert_code(1);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("guilds/y/main.yaml:5:"), "{out}");
    assert!(!out.contains("guilds/x/main.yaml:5:"), "{out}");
}

/// `apply --all` says what one guild's apply says of a guild whose calls fail: the failed
/// calls, and by name the calls that were not made because of them (it gave the count
/// alone before `ops::apply` ran both).
#[tokio::test(flavor = "multi_thread")]
async fn a_guild_whose_calls_fail_names_the_calls_skipped() {
    let (h, ids) = workspace(
        "channels:\n  - name: Cellar\n    type: category\n    channels:\n      - { name: inside, type: text }\n",
    )
    .await;
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "POST".into(),
                path: format!("/guilds/{}/channels", ids[2]),
                probability: 1.0,
                kind: FaultKind::Status(403),
            }],
        })
        .unwrap();
    let run = h.run(&["apply", "--all", "--yes", "--no-rehearse"]).await;
    run.assert_code(1);
    let c = run.stdout.split("\n== c (").nth(1).expect("c's report");
    assert!(c.contains("  failed: create channel"), "{}", run.stdout);
    let skipped = c
        .lines()
        .find(|l| l.starts_with("  Skipped: "))
        .unwrap_or_else(|| panic!("no Skipped line for c:\n{}", run.stdout));
    assert!(skipped.contains("inside"), "{skipped}");
    // The others were applied whole.
    assert!(
        run.stdout.contains("3 guild(s): 1 failed"),
        "{}",
        run.stdout
    );
}

/// A guild whose apply creates webhooks is told that their URLs were not saved, under
/// `--all` as alone (it was silent before).
#[tokio::test(flavor = "multi_thread")]
async fn apply_all_says_the_new_webhooks_urls_were_not_saved() {
    let (h, _) = workspace("webhooks:\n  - { name: Deploys, channel: shared-news }\n").await;
    let run = h.run(&["apply", "--all", "--yes"]).await;
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("Created 1 webhook(s) (Deploys); their URLs were not saved"),
        "{}",
        run.stderr
    );
}

/// `drift --all --prune-days N` counts each guild's prune, as `drift -f` does (the flag
/// was ignored with --all before).
#[tokio::test(flavor = "multi_thread")]
async fn drift_all_counts_each_guilds_prune() {
    let (h, ids) = workspace("").await;
    h.emu.clear_requests();
    let run = h
        .run(&["drift", "--all", "--prune-days", "7", "--format", "json"])
        .await;
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    let guilds = doc["guilds"].as_array().expect("guilds");
    assert_eq!(guilds.len(), 3);
    for g in guilds {
        assert_eq!(g["result"]["prune_count"]["days"], 7, "{g}");
    }
    for id in &ids {
        assert!(
            h.requests().iter().any(
                |q| q.method == "GET" && q.path.contains(&format!("/guilds/{id}/prune?days=7"))
            ),
            "no prune count read for {id}"
        );
    }
}

/// `export --all --members --bans` writes each guild's rosters and ban list, as one
/// guild's export does (both were refused with --all before).
#[tokio::test(flavor = "multi_thread")]
async fn export_all_writes_each_guilds_rosters_and_bans() {
    let (h, _) = workspace("").await;
    let out = h.dir.path().join("exported");
    let run = h
        .run(&[
            "export",
            "--all",
            "--members",
            "--bans",
            "-o",
            out.to_str().unwrap(),
        ])
        .await;
    run.assert_code(0);
    for name in ["a", "b", "c"] {
        let yaml = std::fs::read_to_string(out.join(format!("{name}.yaml"))).unwrap();
        assert!(yaml.contains("name: alice"), "{name}: {yaml}");
        assert!(yaml.contains("\nbans:\n"), "{name}: {yaml}");
    }
}

/// `apply --like`: production's manifest, its ids pinned and its `guild:` set, applied to a
/// test guild by names; production is not touched, and `--ids-out` gives the test guild's
/// ids for its bot.
#[tokio::test]
async fn apply_like_applies_productions_manifest_to_a_test_guild_by_names() {
    let h = Harness::with_state(Some(with_guild_copies(default_state(), 2))).await;
    let prod = h.emu.guild_id.clone();
    let test = h
        .emu
        .state()
        .guilds
        .iter()
        .map(|g| g.id.clone())
        .find(|g| *g != prod)
        .unwrap();
    let moderator = h.role_id("Moderator");
    let yaml = format!(
        "version: 1\nguild: \"{prod}\"\nroles:\n  - name: Moderator\n    id: \"{moderator}\"\n    color: \"#3498db\"\n  - name: Tester\n"
    );
    let m = h.manifest("production.yaml", &yaml);
    let m = m.to_str().unwrap();
    let refused = h.run(&["apply", "-f", m, "--guild", &test, "--yes"]).await;
    refused.assert_code(1);
    assert!(
        refused.stderr.contains("is for guild"),
        "{}",
        refused.stderr
    );
    let ids = h.dir.path().join("test-ids.json");
    let run = h
        .run(&[
            "apply",
            "-f",
            m,
            "--guild",
            &test,
            "--yes",
            "--like",
            "--ids-out",
            ids.to_str().unwrap(),
        ])
        .await;
    run.assert_code(0);
    let state = h.emu.state();
    let roles_of = |id: &str| -> Vec<String> {
        state
            .guilds
            .iter()
            .find(|g| g.id == id)
            .unwrap()
            .roles
            .iter()
            .map(|r| r.name.clone())
            .collect()
    };
    assert!(roles_of(&test).contains(&"Tester".to_owned()));
    assert!(
        !roles_of(&prod).contains(&"Tester".to_owned()),
        "production untouched"
    );
    let ids: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ids).unwrap()).unwrap();
    assert_eq!(ids["guild"], test.as_str());
    let tester = state
        .guilds
        .iter()
        .find(|g| g.id == test)
        .unwrap()
        .roles
        .iter()
        .find(|r| r.name == "Tester")
        .unwrap()
        .id
        .clone();
    assert_eq!(ids["roles"]["Tester"], tester.as_str());
    assert_ne!(
        ids["roles"]["Moderator"],
        moderator.as_str(),
        "the test guild's own"
    );
    // Applied again, by names, it has nothing more to do.
    let again = h
        .run(&[
            "plan",
            "-f",
            m,
            "--guild",
            &test,
            "--like",
            "--detailed-exitcode",
        ])
        .await;
    again.assert_code(0);
}
