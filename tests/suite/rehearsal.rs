//! Rehearsal (docs/rehearsal.md): the plan applied first to an in-process copy of the live
//! guild. The real binary runs against the emulator over HTTP; the live emulator's request
//! log shows what reached "Discord".

use crate::common;

use common::{Bot, GuildNames, Harness, arrange, bare_guild_state, example};
use discord_permissions::Permissions;
use guildctl::manifest;
use guildctl::rehearse::{RehearseOptions, rehearse};
use serde_json::Value;

/// Each example plans with a passing rehearsal that sends nothing to the live guild but
/// its reads; applying it for real then leaves nothing to change, as rehearsed.
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
        let plan = h.rehearsed_plan(path).await;
        let r = &plan["rehearsal"];
        let ops = plan["operations"].as_array().unwrap().len();
        assert!(ops > 0, "{name}: the example changes something");
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(r["converges"], true, "{name}: {r}");
        assert_eq!(r["refusal"], Value::Null, "{name}: {r}");
        assert_eq!(r["calls"], ops, "{name}: every call accepted");
        let requests = h.requests();
        // The community example's `holders` policy reads the role member counts too, and
        // its `automod:` and `events:` one listing each.
        let reads = if name == "community.yaml" { 10 } else { 7 };
        assert!(
            requests.iter().all(|q| q.method == "GET") && requests.len() == reads,
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
            applied
                .stdout
                .contains(&format!("Rehearsed: {ops} calls accepted, converges")),
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
            again.json()["changes"],
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
    let r = &planned.json()["rehearsal"];
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["calls"], 1, "the first category was accepted: {r}");
    let refusal = &r["refusal"];
    assert_eq!(refusal["status"], 400, "{r}");
    assert_eq!(refusal["code"], 30030, "{r}");
    assert_eq!(refusal["source"], "channels[1]", "{r}");
    // The file, line and column a diagnostic about `channels[1]` is shown at: its name.
    assert_eq!(refusal["line"], format!("{path}:5:11"), "{r}");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("Maximum number of server categories"),
        "{r}"
    );

    h.emu.clear_requests();
    let applied = h.run_env(&["apply", "-f", path, "--yes"], &env).await;
    applied.assert_code(1);
    assert!(h.writes().is_empty(), "0 writes: {:?}", h.writes());
    assert!(
        applied.stdout.contains("30030")
            && applied.stdout.contains("channels[1]")
            && applied.stdout.contains("guild.yaml:5:11"),
        "{}",
        applied.stdout
    );
    assert!(
        applied
            .stderr
            .contains("refusing to apply: rehearsal refused"),
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

/// Issue 41: the rehearsal's refusal is said once, with its manifest place (file, line and
/// column), in every format of `plan --rehearse` and in `apply`: in the plan's verdict, and
/// neither again on stderr nor in the closing `error:` line. `--annotations` still puts it
/// on its line for a pull request.
#[tokio::test]
async fn a_rehearsal_refusal_is_said_once_with_its_place() {
    let mut state = discord_emulator::default_state();
    state.config.max_categories = Some(5);
    let h = Harness::with_state(Some(state)).await;
    let path = h.manifest("guild.yaml", SIX_CATEGORIES);
    let path = path.to_str().unwrap();
    let rules = h.manifest("rules.json", r#"{"max_categories": 5}"#);
    let env = [("GUILDCTL_REHEARSAL_RULES", rules.to_str().unwrap())];
    let said = "Maximum number of server categories";
    let place = format!("{path}:5:11");
    for format in ["text", "markdown", "json"] {
        let run = h
            .run_env(
                &["plan", "-f", path, "--rehearse", "--format", format],
                &env,
            )
            .await;
        run.assert_code(1);
        let both = format!("{}{}", run.stdout, run.stderr);
        assert_eq!(both.matches(said).count(), 1, "{format}: {both}");
        assert_eq!(both.matches(&place).count(), 1, "{format}: {both}");
        assert!(
            run.stderr
                .contains("error: rehearsal refused, as the plan's rehearsal verdict says"),
            "{format}: {}",
            run.stderr
        );
    }
    let applied = h.run_env(&["apply", "-f", path, "--yes"], &env).await;
    applied.assert_code(1);
    let both = format!("{}{}", applied.stdout, applied.stderr);
    assert_eq!(both.matches(said).count(), 1, "{both}");
    assert_eq!(both.matches(&place).count(), 1, "{both}");

    let annotations = h.dir.path().join("annotations.txt");
    h.run_env(
        &[
            "plan",
            "-f",
            path,
            "--rehearse",
            "--annotations",
            annotations.to_str().unwrap(),
        ],
        &env,
    )
    .await
    .assert_code(1);
    let written = std::fs::read_to_string(&annotations).unwrap();
    assert!(
        written.starts_with("::error ")
            && written.contains(",line=5,")
            && written.contains("30030"),
        "{written}"
    );
}

/// A guild whose bot lacks `ban_members`: the plan granting it is refused by preflight
/// and by the rehearsal of the same plan, with the same cause (the same manifest place).
#[tokio::test]
async fn a_missing_grant_is_refused_by_preflight_and_rehearsal_alike() {
    let mut state = discord_emulator::default_state();
    arrange(&mut state).role("guildctl").permissions(&[
        "manage_roles",
        "manage_channels",
        "view_channel",
    ]);
    let h = Harness::with_state(Some(state)).await;
    let snap = h.snapshot().await;
    let loaded = manifest::load_str(
        std::path::Path::new("guild.yaml"),
        "version: 1\nroles:\n  - name: Bouncers\n    permissions: [ban_members]\n".into(),
    )
    .unwrap();
    let refused = guildctl::planner::diff_loaded(&loaded, &snap, &Default::default())
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
    assert_eq!(refusal.line.as_deref(), Some("guild.yaml:3:11"));
    assert!(h.writes().is_empty());
}

/// Issue 41: a welcome screen (or enabled onboarding) on a guild that is not a community
/// and that the manifest does not make one is refused by plan at its manifest line, saying
/// how to make it one, with the cause the rehearsal of the same call finds (Discord's
/// 10069 Unknown Guild Welcome Screen); apply writes nothing. Made a community by the same
/// manifest, it plans, rehearses and converges.
#[tokio::test]
async fn community_only_settings_are_refused_by_plan_on_a_guild_that_is_not_one() {
    let h = Harness::start().await;
    assert!(!h.guild().features.iter().any(|f| f == "COMMUNITY"));
    let snap = h.snapshot().await;
    let welcome = "version: 1\nwelcome_screen:\n  enabled: true\n  description: Hi\n";
    let loaded = manifest::load_str(std::path::Path::new("guild.yaml"), welcome.into()).unwrap();
    let refused = guildctl::planner::diff_loaded(&loaded, &snap, &Default::default())
        .expect_err("plan refuses the welcome screen");
    let problem = &refused.problems[0];
    assert_eq!(refused.problems.len(), 1, "{:?}", refused.problems);
    assert_eq!(problem.source.as_deref(), Some("welcome_screen"));
    assert!(
        problem.message.contains("needs a community guild"),
        "{problem:?}"
    );
    let help = problem.help.as_deref().unwrap_or_default();
    assert!(help.contains("settings.community: true"), "{help}");
    let verdict = rehearse(
        &loaded,
        &snap,
        &refused.partial,
        &RehearseOptions::default(),
    )
    .await
    .unwrap();
    let refusal = verdict.refusal.expect("the copy refuses it too");
    assert_eq!((refusal.status, refusal.code), (404, Some(10069)));
    assert_eq!(refusal.source, problem.source);

    for (file, text, place, said) in [
        (
            "welcome.yaml",
            welcome,
            "welcome.yaml:2:1",
            "a welcome screen needs a community guild",
        ),
        (
            "onboarding.yaml",
            "version: 1\nonboarding:\n  enabled: true\n",
            "onboarding.yaml:2:1",
            "onboarding can be enabled only in a community guild",
        ),
    ] {
        let path = h.manifest(file, text);
        let path = path.to_str().unwrap();
        let planned = h.run(&["plan", "-f", path]).await;
        planned.assert_code(1);
        let error = planned.stderr.split("error: ").nth(1).unwrap_or_default();
        assert!(error.starts_with(said), "{}", planned.stderr);
        assert!(
            error.contains(place) && error.contains("settings.community: true"),
            "{}",
            planned.stderr
        );
        h.emu.clear_requests();
        h.run(&["apply", "-f", path, "--yes"]).await.assert_code(1);
        assert!(h.writes().is_empty(), "{:?}", h.writes());
    }

    let path = h.manifest(
        "community.yaml",
        "version: 1\nsettings:\n  community: true\n  rules_channel: rules\n  public_updates_channel: mod-log\n  verification_level: low\n  explicit_content_filter: all_members\nwelcome_screen:\n  enabled: true\n  description: Hi\n",
    );
    let plan = h.rehearsed_plan(path.to_str().unwrap()).await;
    assert_eq!(plan["rehearsal"]["converges"], true, "{plan:#}");
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
            .any(|l| l.starts_with("**Rehearsed:** ") && l.ends_with("converges")),
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
        head.contains("> **Rehearsal refused, apply will refuse:** 1 of 2 calls accepted")
            && head.contains("30030")
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
    arrange(&mut state).role("guildctl").permissions(&[
        "manage_roles",
        "manage_channels",
        "view_channel",
        "manage_guild",
    ]);
    let h = Harness::with_state(Some(state)).await;
    let snap = h.snapshot().await;
    assert!(!snap.sees_every_channel());
    let loaded = manifest::load_str(
        std::path::Path::new("guild.yaml"),
        "version: 1\nroles:\n  - name: Readers\n".into(),
    )
    .unwrap();
    let p = guildctl::planner::diff_loaded(&loaded, &snap, &Default::default()).unwrap();
    let verdict = rehearse(&loaded, &snap, &p, &RehearseOptions::default())
        .await
        .unwrap();
    assert!(verdict.ok, "{verdict:?}");
    let listed = verdict.not_rehearsed.join("\n");
    assert!(listed.contains("channels the bot cannot view"), "{listed}");
    assert!(listed.contains("members other than the bot"), "{listed}");
    assert!(listed.contains("rate limits"), "{listed}");
}

// Rosters, bans, images, role colours, integrations and invites: what the snapshot reads of
// them is in the copy, so each plan rehearses, converges, and costs the live guild exactly
// the reads the plan made.

/// The live requests of one run, in a comparable order (the reads run concurrently).
fn live_requests(h: &Harness) -> Vec<String> {
    let mut out: Vec<String> = h
        .requests()
        .into_iter()
        .map(|q| format!("{} {}", q.method, q.path))
        .collect();
    out.sort();
    out
}

/// Plans `manifest` without and then with the rehearsal: the rehearsal passes and
/// converges with every call accepted, and the live guild saw the same reads both times
/// (and no write). Then applies it for real: the next plan is empty, as rehearsed. Returns
/// the rehearsal's verdict.
async fn rehearses_and_converges(h: &Harness, manifest: &str) -> Value {
    let path = h.manifest("guild.yaml", manifest);
    let path = path.to_str().unwrap();
    h.emu.clear_requests();
    let plain = h.run(&["plan", "-f", path, "--format", "json"]).await;
    plain.assert_code(0);
    let plan_reads = live_requests(h);
    h.emu.clear_requests();
    let plan = h.rehearsed_plan(path).await;
    let r = plan["rehearsal"].clone();
    let ops = plan["operations"].as_array().unwrap().len();
    assert!(ops > 0, "the manifest changes something: {plan}");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["converges"], true, "{r}");
    assert_eq!(r["calls"], ops, "{r}");
    assert_eq!(
        live_requests(h),
        plan_reads,
        "the rehearsal sends nothing to the live guild"
    );
    assert!(
        plan_reads.iter().all(|q| q.starts_with("GET ")),
        "{plan_reads:?}"
    );
    h.run(&["apply", "-f", path, "--yes"]).await.assert_code(0);
    let again = h.run(&["plan", "-f", path, "--format", "json"]).await;
    again.assert_code(0);
    assert_eq!(
        again.json()["changes"],
        serde_json::json!([]),
        "the live guild converged as the copy did"
    );
    r
}

fn listed(r: &Value) -> String {
    r["not_rehearsed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Moderator's roster gives heidi the role and takes it from erin, whom only the member
/// listing names: the copy holds the members read, with their roles.
#[tokio::test]
async fn a_roster_change_rehearses_on_the_members_read() {
    let h = Harness::start().await;
    let yaml = format!(
        "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{}\" }}\n      - {{ id: \"{}\" }}\n",
        h.user_id("alice"),
        h.user_id("heidi")
    );
    let r = rehearses_and_converges(&h, &yaml).await;
    let listed = listed(&r);
    assert!(listed.contains("members the plan did not read"), "{listed}");
    // The listing gives every role of the holders it names, and the copy holds them all.
    assert!(
        !listed.contains("the other roles of roster holders"),
        "{listed}"
    );
    assert!(!listed.contains("members other than the bot"), "{listed}");
}

/// Without the GUILD_MEMBERS intent the holders outside the roster are not known: the copy
/// refuses the listing as the guild did, and the verdict names them.
#[tokio::test]
async fn holders_the_bot_cannot_list_are_not_rehearsed() {
    let mut state = discord_emulator::default_state();
    state.config.guild_members_intent = false;
    let h = Harness::with_state(Some(state)).await;
    let yaml = format!(
        "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{}\" }}\n      - {{ id: \"{}\" }}\n",
        h.user_id("alice"),
        h.user_id("heidi")
    );
    let path = h.manifest("guild.yaml", &yaml);
    let plan = h.rehearsed_plan(path.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["converges"], true, "{r}");
    let listed = listed(r);
    assert!(
        listed.contains("1 member(s) holding `Moderator` the bot cannot list"),
        "{listed}"
    );
}

/// A ban list that adds ivan (a member) and lifts raid_leader's ban (prune.bans): the copy
/// holds the bans read and ivan as a member with his roles, so his ban is rehearsed as a
/// member's (the gate counts it beside the lifted ban).
#[tokio::test]
async fn a_ban_list_rehearses_on_the_bans_read() {
    let h = Harness::start().await;
    let ivan = h.user_id("ivan");
    let yaml = format!(
        "version: 1\nbans:\n  - {{ id: \"{}\" }}\n  - {{ id: \"{ivan}\", reason: alt account }}\nprune: {{ bans: true }}\nsafety: {{ allow_deletes: 2 }}\n",
        h.user_id("free_nitro_4u"),
    );
    let r = rehearses_and_converges(&h, &yaml).await;
    assert_eq!(r["calls"], 2, "one ban, one lifted: {r}");
    let listed = listed(&r);
    assert!(!listed.contains("the users to ban"), "{listed}");
    assert!(
        listed.contains("the 1 member(s) the manifest names"),
        "{listed}"
    );
    assert_eq!(h.guild().bans.len(), 2);
    assert!(!h.guild().members.iter().any(|m| m.user_id == ivan));
}

fn put_png(h: &Harness, rel: &str, tag: &str) {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(tag.as_bytes());
    let path = h.dir.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A new splash beside an icon and a role icon already set: the copy holds the live images'
/// hashes (not their bytes), and the second plan sees the unchanged ones unchanged.
#[tokio::test]
async fn images_rehearse_beside_images_already_set() {
    let mut state = discord_emulator::default_state();
    state.guilds[0].features.push("ROLE_ICONS".into());
    let h = Harness::with_state(Some(state)).await;
    put_png(&h, "images/icon.png", "icon");
    put_png(&h, "images/mod.png", "moderator");
    let first = "version: 1\nsettings:\n  icon: images/icon.png\nroles:\n  - name: Moderator\n    icon: images/mod.png\n";
    rehearses_and_converges(&h, first).await;
    put_png(&h, "images/splash.png", "splash");
    let second = "version: 1\nsettings:\n  icon: images/icon.png\n  splash: images/splash.png\nroles:\n  - name: Moderator\n    icon: images/mod.png\n";
    let r = rehearses_and_converges(&h, second).await;
    assert_eq!(r["calls"], 1, "the splash alone: {r}");
}

/// A gradient colour on an existing role and a new role, then a change beside the gradient:
/// the copy keeps the live gradient.
#[tokio::test]
async fn a_gradient_role_colour_rehearses() {
    let mut state = discord_emulator::default_state();
    state.guilds[0].features.push("ENHANCED_ROLE_COLORS".into());
    let h = Harness::with_state(Some(state)).await;
    let gradient = r##"colors: { primary: "#5865f2", secondary: "#eb459e" }"##;
    let first = format!(
        "version: 1\nroles:\n  - name: Moderator\n    {gradient}\n  - name: Contributor\n    {gradient}\n"
    );
    rehearses_and_converges(&h, &first).await;
    let second = format!(
        "version: 1\nroles:\n  - name: Moderator\n    {gradient}\n  - name: Contributor\n    {gradient}\n    hoist: true\n"
    );
    let r = rehearses_and_converges(&h, &second).await;
    assert_eq!(r["calls"], 1, "{r}");
}

/// A bot added by hand, with its managed role and a webhook: prune.integrations removes it
/// in the copy as Discord would (the role and webhook go with it), and the second plan agrees.
#[tokio::test]
async fn prune_integrations_rehearses() {
    let mut state = discord_emulator::default_state();
    let raidbot = "900000000000000001";
    let mut g = arrange(&mut state);
    g.add_bot(
        &Bot {
            name: "Raidbot",
            user_id: raidbot,
            application_id: "900000000000000002",
            role_id: "900000000000000003",
            integration_id: "900000000000000005",
        },
        Permissions::ADMINISTRATOR,
    );
    let general = g.channel_id("general");
    g.webhooks.push(
        serde_json::from_value(serde_json::json!({
            "id": "900000000000000004", "type": 1, "channel_id": general, "name": "Raid",
            "application_id": "900000000000000002", "user_id": raidbot,
        }))
        .unwrap(),
    );
    let h = Harness::with_state(Some(state)).await;
    let polls = h
        .guild()
        .integration_named("Ferris Polls")
        .application
        .clone()
        .unwrap()
        .id;
    let yaml = format!(
        "version: 1\nintegrations:\n  - {{ application: \"{polls}\", name: Ferris Polls }}\nprune: {{ integrations: true }}\nsafety: {{ allow_deletes: 2 }}\n"
    );
    let r = rehearses_and_converges(&h, &yaml).await;
    assert_eq!(r["calls"], 1, "{r}");
    let g = h.guild();
    assert!(g.roles.iter().all(|r| r.name != "Raidbot"));
    assert!(g.webhooks.iter().all(|w| w.name != "Raid"));
}

/// An invite rule and prune.invites: the permanent `ferrisfans` goes in the copy, `helpdesk`
/// (limited to 100 uses) stays in both.
#[tokio::test]
async fn prune_invites_rehearses() {
    let h = Harness::start().await;
    let yaml = "version: 1\ninvites:\n  rules:\n    - { max_uses: 100 }\nprune: { invites: true }\nsafety: { allow_deletes: 1 }\n";
    let r = rehearses_and_converges(&h, yaml).await;
    assert_eq!(r["calls"], 1, "{r}");
    let codes: Vec<String> = h.guild().invites.iter().map(|i| i.code.clone()).collect();
    assert_eq!(codes, ["helpdesk"]);
}

/// Without manage_guild the invites come without their metadata: the verdict says so.
#[tokio::test]
async fn invites_read_without_metadata_are_listed_as_not_rehearsed() {
    let mut state = discord_emulator::default_state();
    arrange(&mut state).role("guildctl").permissions(&[
        "view_audit_log",
        "view_channel",
        "manage_roles",
    ]);
    let h = Harness::with_state(Some(state)).await;
    let path = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Readers\ninvites:\n  rules:\n    - { max_uses: 100 }\n",
    );
    let plan = h.rehearsed_plan(path.to_str().unwrap()).await;
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r}");
    assert!(listed(r).contains("invite metadata: not read"), "{r}");
}

/// The copy a rehearsal applies its plan to answers guildctl alone (issue 30, point 7): no
/// control endpoint to read or replace its state, and an API that wants a random token
/// only the rehearsing process holds (not the live bot's, not another copy's).
#[tokio::test]
async fn the_rehearsal_copy_refuses_control_requests_and_other_tokens() {
    use guildctl::rehearse::{copy_of, serve_copy};
    let h = Harness::start().await;
    let snap = h.snapshot().await;
    let copy = serve_copy(copy_of(&snap, None).unwrap()).await.unwrap();
    let other = serve_copy(copy_of(&snap, None).unwrap()).await.unwrap();
    let http = reqwest::Client::new();
    let base = &copy.base_url;
    for (method, path) in [
        (reqwest::Method::GET, "/_emulator/state"),
        (reqwest::Method::PUT, "/_emulator/state"),
        (reqwest::Method::GET, "/_emulator/requests"),
        (reqwest::Method::POST, "/_emulator/faults"),
        (reqwest::Method::GET, "/%5Femulator/state"),
    ] {
        let r = http
            .request(method.clone(), format!("{base}{path}"))
            .header("Content-Type", "application/json")
            .body(r#"{"guilds": []}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 404, "{method} {path}");
    }
    assert_eq!(
        copy.state().guilds.len(),
        1,
        "the copy's state is untouched"
    );
    let me = format!("{}/users/@me", copy.api_base);
    let status = |token: Option<String>| {
        let mut req = http.get(&me);
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bot {t}"));
        }
        async move { req.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(status(None).await, 401, "no token");
    assert_eq!(
        status(Some(h.emu.token.clone())).await,
        401,
        "the live token"
    );
    assert_eq!(
        status(Some(other.token.clone())).await,
        401,
        "another copy's"
    );
    assert_ne!(copy.token, other.token);
    assert_eq!(status(Some(copy.token.clone())).await, 200, "its own token");
    copy.shutdown().await;
    other.shutdown().await;
}
