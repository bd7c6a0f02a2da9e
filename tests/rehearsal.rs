//! Rehearsal (docs/rehearsal.md): the plan applied first to an in-process copy of the live
//! guild. The real binary runs against the emulator over HTTP; the live emulator's request
//! log shows what reached "Discord".

mod common;

use common::{Harness, bare_guild_state, example};
use discord_permissions::Permissions;
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest;
use guildctl::plan;
use guildctl::rehearse::{RehearseOptions, rehearse};
use guildctl::snapshot::Snapshot;
use serde_json::Value;

async fn snapshot(h: &Harness) -> Snapshot {
    let client = Client::with_options(
        &h.emu.api_base,
        Token::new(h.emu.token.clone()).unwrap(),
        ClientOptions::default(),
    )
    .unwrap();
    Snapshot::fetch(&client, &h.emu.guild_id).await.unwrap()
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Each example plans with a passing rehearsal that sends nothing to the live guild but
/// its seven reads; applying it for real then leaves nothing to change, as rehearsed.
#[tokio::test]
async fn the_example_plans_rehearse_and_converge() {
    for (name, state) in [
        ("minimal.yaml", None),
        ("community.yaml", None),
        ("prune-everything.yaml", None),
        ("community.yaml", Some(bare_guild_state())),
    ] {
        let h = Harness::with_state(state).await;
        let path = example(name);
        let path = path.to_str().unwrap();
        let run = h
            .run(&["plan", "-f", path, "--rehearse", "--format", "json"])
            .await;
        run.assert_code(0);
        let plan = json_of(&run.stdout);
        let r = &plan["rehearsal"];
        let ops = plan["operations"].as_array().unwrap().len();
        assert!(ops > 0, "{name}: the example changes something");
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(r["converges"], true, "{name}: {r}");
        assert_eq!(r["refusal"], Value::Null, "{name}: {r}");
        assert_eq!(r["calls"], ops, "{name}: every call accepted");
        let requests = h.requests();
        assert!(
            requests.iter().all(|q| q.method == "GET") && requests.len() == 7,
            "{name}: the rehearsal adds no request to Discord: {:?}",
            requests
                .iter()
                .map(|q| format!("{} {}", q.method, q.path))
                .collect::<Vec<_>>()
        );
        if name == "prune-everything.yaml" {
            continue; // its deletions are past the default gate; planning is the point here
        }
        let applied = h.run(&["apply", "-f", path, "--yes"]).await;
        applied.assert_code(0);
        assert!(
            applied.stdout.contains(&format!(
                "Rehearsal: rehearsed: {ops} calls accepted, converges"
            )),
            "{}",
            applied.stdout
        );
        assert_eq!(
            h.writes().len(),
            ops,
            "{name}: apply made the rehearsed calls"
        );
        let again = h.run(&["plan", "-f", path, "--format", "json"]).await;
        again.assert_code(0);
        assert_eq!(
            json_of(&again.stdout)["changes"],
            serde_json::json!([]),
            "{name}: the live guild converged as the copy did"
        );
    }
}

/// Two new categories in a guild holding four, where the guild allows five: a server-side
/// limit (emulator config `max_categories`, error 30030) preflight does not model.
const SIX_CATEGORIES: &str = "version: 1
channels:
  - name: Archive
    type: category
  - name: Events
    type: category
";

#[tokio::test]
async fn a_refusal_preflight_does_not_model_is_caught_and_apply_writes_nothing() {
    let mut state = discord_emulator::default_state();
    state.config.max_categories = Some(5);
    let h = Harness::with_state(Some(state)).await;
    let path = h.manifest("guild.yaml", SIX_CATEGORIES);
    let path = path.to_str().unwrap();
    let rules = h.manifest("rules.json", r#"{"max_categories": 5}"#);
    let env = [("GUILDCTL_REHEARSAL_RULES", rules.to_str().unwrap())];

    // Preflight passes: the limit is not one it knows.
    h.run_env(&["plan", "-f", path], &env).await.assert_code(0);

    let planned = h
        .run_env(
            &["plan", "-f", path, "--rehearse", "--format", "json"],
            &env,
        )
        .await;
    planned.assert_code(1);
    let r = &json_of(&planned.stdout)["rehearsal"];
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["calls"], 1, "the first category was accepted: {r}");
    let refusal = &r["refusal"];
    assert_eq!(refusal["status"], 400, "{r}");
    assert_eq!(refusal["code"], 30030, "{r}");
    assert_eq!(refusal["source"], "channels[1]", "{r}");
    assert_eq!(refusal["line"], format!("{path}:5"), "{r}");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("Maximum number of server categories"),
        "{r}"
    );
    // The refusal is shown on the manifest's line.
    assert!(
        planned.stderr.contains("guild.yaml:5"),
        "{}",
        planned.stderr
    );

    h.emu.clear_requests();
    let applied = h.run_env(&["apply", "-f", path, "--yes"], &env).await;
    applied.assert_code(1);
    assert!(h.writes().is_empty(), "0 writes: {:?}", h.writes());
    assert!(
        applied.stderr.contains("refusing to apply")
            && applied.stderr.contains("30030")
            && applied.stderr.contains("channels[1]")
            && applied.stderr.contains("guild.yaml:5"),
        "{}",
        applied.stderr
    );

    // Without the rehearsal the same apply stops halfway on the live guild.
    let unrehearsed = h
        .run_env(&["apply", "-f", path, "--yes", "--no-rehearse"], &env)
        .await;
    unrehearsed.assert_code(1);
    let writes = h.writes();
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert_eq!(writes[1].status, 400);
}

/// A guild whose bot lacks `ban_members`: the plan granting it is refused by preflight
/// and by the rehearsal of the same plan, with the same cause (the same manifest place).
#[tokio::test]
async fn a_missing_grant_is_refused_by_preflight_and_rehearsal_alike() {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    let bot_role = g
        .roles
        .iter_mut()
        .find(|r| r.name == "guildctl")
        .expect("the bot's role");
    bot_role.permissions =
        Permissions::MANAGE_ROLES | Permissions::MANAGE_CHANNELS | Permissions::VIEW_CHANNEL;
    let h = Harness::with_state(Some(state)).await;
    let snap = snapshot(&h).await;
    let loaded = manifest::load_str(
        std::path::Path::new("guild.yaml"),
        "version: 1\nroles:\n  - name: Bouncers\n    permissions: [ban_members]\n".into(),
    )
    .unwrap();
    let refused = plan::diff_loaded(&loaded, &snap, &Default::default())
        .expect_err("preflight refuses the grant");
    assert_eq!(refused.problems.len(), 1, "{:?}", refused.problems);
    assert_eq!(refused.problems[0].source.as_deref(), Some("roles[0]"));
    assert!(refused.problems[0].message.contains("ban_members"));

    let verdict = rehearse(
        &loaded,
        &snap,
        &refused.partial,
        &RehearseOptions::default(),
    )
    .await
    .unwrap();
    assert!(!verdict.ok);
    let refusal = verdict.refusal.expect("the copy refuses it too");
    assert_eq!(refusal.status, 403);
    assert_eq!(refusal.code, Some(50013));
    assert_eq!(refusal.source, refused.problems[0].source);
    assert_eq!(refusal.line.as_deref(), Some("guild.yaml:3"));
    assert!(h.writes().is_empty());
}

/// The pull request comment opens with the verdict; a failed rehearsal is a caution there.
#[tokio::test]
async fn the_markdown_plan_carries_the_verdict_in_its_first_lines() {
    let h = Harness::start().await;
    let path = example("minimal.yaml");
    let run = h
        .run(&[
            "plan",
            "-f",
            path.to_str().unwrap(),
            "--rehearse",
            "--format",
            "markdown",
        ])
        .await;
    run.assert_code(0);
    let head: Vec<&str> = run.stdout.lines().take(6).collect();
    assert!(
        head.iter()
            .any(|l| l.starts_with("**Rehearsal:** rehearsed: ") && l.ends_with("converges")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("<details><summary>Not rehearsed ("));

    let mut state = discord_emulator::default_state();
    state.config.max_categories = Some(5);
    let h = Harness::with_state(Some(state)).await;
    let path = h.manifest("guild.yaml", SIX_CATEGORIES);
    let rules = h.manifest("rules.json", r#"{"max_categories": 5}"#);
    let run = h
        .run_env(
            &[
                "plan",
                "-f",
                path.to_str().unwrap(),
                "--rehearse",
                "--format",
                "markdown",
            ],
            &[("GUILDCTL_REHEARSAL_RULES", rules.to_str().unwrap())],
        )
        .await;
    run.assert_code(1);
    let head: String = run.stdout.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(
        head.contains(
            "> **Rehearsal failed, apply will refuse:** rehearsal refused: 1 of 2 calls accepted"
        ) && head.contains("30030")
            && head.contains("(manifest `channels[1]` at `"),
        "{}",
        run.stdout
    );
}

/// What the copy cannot know is named: a bot without Administrator does not see every
/// channel, and says so.
#[tokio::test]
async fn what_the_copy_cannot_know_is_listed_as_not_rehearsed() {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
    bot_role.permissions = Permissions::MANAGE_ROLES
        | Permissions::MANAGE_CHANNELS
        | Permissions::VIEW_CHANNEL
        | Permissions::MANAGE_GUILD;
    let h = Harness::with_state(Some(state)).await;
    let snap = snapshot(&h).await;
    assert!(!snap.sees_every_channel());
    let loaded = manifest::load_str(
        std::path::Path::new("guild.yaml"),
        "version: 1\nroles:\n  - name: Readers\n".into(),
    )
    .unwrap();
    let p = plan::diff_loaded(&loaded, &snap, &Default::default()).unwrap();
    let verdict = rehearse(&loaded, &snap, &p, &RehearseOptions::default())
        .await
        .unwrap();
    assert!(verdict.ok, "{verdict:?}");
    let listed = verdict.not_rehearsed.join("\n");
    assert!(listed.contains("channels the bot cannot view"), "{listed}");
    assert!(listed.contains("members other than the bot"), "{listed}");
    assert!(listed.contains("rate limits"), "{listed}");
}
