//! Rosters (`roles[].members`) and bans over HTTP against the emulator: plans by role with
//! their reads counted, apply with the audit-log reason, the GUILD_MEMBERS intent missing,
//! a member who left, a roster role above the bot, bulk bans with partial failure, lifting
//! bans under `prune.bans` against the deletion gate, drift blame and export.

use crate::common;

use common::{Harness, StateNames, arrange};
use discord_emulator::State;
use discord_emulator::state::User;
use serde_json::Value;

fn holders(h: &Harness, role: &str) -> Vec<String> {
    h.emu.state().holders(&h.emu.guild_id, role)
}

/// Moderator's roster: alice and heidi (erin holds it live, heidi does not).
fn moderators(state: &State) -> String {
    format!(
        "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{}\", name: alice }}\n      - {{ id: \"{}\", name: heidi }}\n",
        state.user_id("alice"),
        state.user_id("heidi")
    )
}

#[tokio::test]
async fn a_roster_change_plans_by_role_reads_what_it_needs_and_applies() {
    let h = Harness::start().await;
    let f = h.manifest("staff.yaml", &moderators(&h.emu.state()));
    let f = f.to_str().unwrap();
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", f]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout
            .contains("+ create roster entry Moderator ← heidi"),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout
            .contains("- delete roster entry Moderator ← erin"),
        "{}",
        plan.stdout
    );
    let got = h.reads();
    // 7 + member counts + 2 declared members + 1 listing page (erin is undeclared).
    assert_eq!(got.len(), 11, "{got:#?}");
    assert_eq!(
        got.iter()
            .filter(|p| p.ends_with("/roles/member-counts"))
            .count(),
        1
    );
    assert_eq!(
        got.iter()
            .filter(|p| p.contains("/members?limit=1000"))
            .count(),
        1
    );

    let apply = h.run(&["apply", "-f", f, "--yes"]).await;
    apply.assert_code(0);
    assert_eq!(holders(&h, "Moderator"), ["alice", "heidi"]);
    let writes = h.writes();
    let roster_writes: Vec<_> = writes
        .iter()
        .filter(|w| w.path.contains("/members/"))
        .collect();
    assert_eq!(roster_writes.len(), 2, "{writes:#?}");
    assert!(
        roster_writes.iter().all(|w| w
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("guildctl apply"))),
        "{roster_writes:#?}"
    );
    // Now the counts match the roster: no listing.
    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", f]).await;
    again.assert_code(0);
    assert!(again.stdout.contains("No changes"), "{}", again.stdout);
    assert_eq!(h.reads().len(), 7 + 1 + 2, "{:#?}", h.reads());
}

#[tokio::test]
async fn without_the_intent_only_declared_members_are_managed_with_a_warning() {
    let mut st = discord_emulator::default_state();
    st.config.guild_members_intent = false;
    let h = Harness::with_state(Some(st)).await;
    let f = h.manifest("staff.yaml", &moderators(&h.emu.state()));
    let f = f.to_str().unwrap();
    let plan = h.run(&["plan", "-f", f]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("GUILD_MEMBERS"), "{}", plan.stdout);
    assert!(
        plan.stdout.contains("1 member(s) hold `Moderator`"),
        "{}",
        plan.stdout
    );
    assert!(!plan.stdout.contains("← erin"), "{}", plan.stdout);
    h.run(&["apply", "-f", f, "--yes"]).await.assert_code(0);
    assert_eq!(holders(&h, "Moderator"), ["alice", "erin", "heidi"]);
}

#[tokio::test]
async fn a_listed_user_who_is_not_a_member_is_reported_not_an_error() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let yaml = format!(
        "version: 1\nroles:\n  - name: Helper\n    members:\n      - {{ id: \"{}\" }}\n      - {{ id: \"{}\" }}\n      - {{ id: \"123456789012345678\", name: gone }}\n",
        st.user_id("bob"),
        st.user_id("frank")
    );
    let f = h.manifest("helpers.yaml", &yaml);
    let plan = h.run(&["plan", "-f", f.to_str().unwrap()]).await;
    plan.assert_code(0);
    // Shown as Discord knows them (no user at all), not by the manifest's `name`.
    assert!(
        plan.stdout.contains(
            "user 123456789012345678 (no user Discord knows) on the roster of `Helper` is not a member"
        ),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stdout
            .contains("the manifest calls user 123456789012345678 `gone`, but Discord knows no user with this id"),
        "{}",
        plan.stdout
    );
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);
}

/// The member leaves between the plan and the call: apply reports it and succeeds.
#[tokio::test]
async fn a_member_who_left_before_the_call_is_a_note() {
    use guildctl::{apply, manifest, snapshot::Snapshot};
    let h = Harness::start().await;
    let loaded = manifest::load_str(
        std::path::Path::new("staff.yaml"),
        moderators(&h.emu.state()),
    )
    .expect("manifest");
    let client = h.client();
    let mut snap = Snapshot::fetch(&client, &h.emu.guild_id).await.unwrap();
    let q = guildctl::snapshot::people_query(&loaded.manifest, &snap);
    snap.read_people(&client, &q).await.unwrap();
    let p = guildctl::planner::diff(&loaded.manifest, &snap).expect("plan");
    // heidi leaves.
    h.arrange(|g| {
        g.leave("heidi");
    });
    let out = apply::apply(&client, &p, &apply::ApplyOptions::new("test", "."), |_| {}).await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
    assert!(
        out.notes[0].1.contains("no longer a member"),
        "{:?}",
        out.notes
    );
    assert_eq!(holders(&h, "Moderator"), ["alice"]);
}

#[tokio::test]
async fn a_roster_role_above_the_bot_is_refused_before_any_call() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let yaml = format!(
        "version: 1\nroles:\n  - name: Admin\n    members:\n      - {{ id: \"{}\" }}\n      - {{ id: \"{}\" }}\n",
        st.user_id("ferris"),
        st.user_id("alice")
    );
    let f = h.manifest("admins.yaml", &yaml);
    h.emu.clear_requests();
    let apply = h.run(&["apply", "-f", f.to_str().unwrap(), "--yes"]).await;
    apply.assert_code(1);
    let all = format!("{}{}", apply.stdout, apply.stderr);
    assert!(
        all.contains("the roster of `Admin` cannot be applied"),
        "{all}"
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

/// The default state with `extra` more users (not members) named spam0000…, and a token
/// for the owner.
fn with_users(extra: usize) -> State {
    let mut st = discord_emulator::default_state();
    for k in 0..extra {
        st.users.push(User {
            id: format!("{}", 900_000_000_000_000_000u64 + k as u64),
            username: format!("spam{k:04}"),
            ..User::default()
        });
    }
    st
}

fn ban_list(ids: &[String], reason: &str) -> String {
    ids.iter()
        .map(|id| format!("  - {{ id: \"{id}\", reason: \"{reason}\" }}\n"))
        .collect()
}

#[tokio::test]
async fn bans_go_out_in_bulk_by_reason_and_plan_back_empty() {
    let h = Harness::with_state(Some(with_users(450))).await;
    let st = h.emu.state();
    let spam: Vec<String> = (0..450)
        .map(|k| st.user_id(&format!("spam{k:04}")))
        .collect();
    let known = vec![st.user_id("free_nitro_4u"), st.user_id("raid_leader")];
    let yaml = format!(
        "version: 1\nbans:\n{}{}  - {{ id: \"{}\", name: ivan, reason: alt account }}\n",
        ban_list(&known, "old"),
        ban_list(&spam, "spam wave"),
        st.user_id("ivan")
    );
    let f = h.manifest("bans.yaml", &yaml);
    let f = f.to_str().unwrap();
    // guildctl's clock as fast as the emulator's: 900 reads are not paced at 50 a second.
    let fast = [("GUILDCTL_CLOCK_SCALE", "1000")];
    h.emu.clear_requests();
    let plan = h.run_env(&["plan", "-f", f], &fast).await;
    plan.assert_code(0);
    // 7 + one page of bans (2 live) + a member read for each of the 451 users not banned
    // yet + Get User for the 450 of them who are not members (their usernames).
    let got = h.reads();
    assert_eq!(got.len(), 8 + 451 + 450, "{got:#?}");
    let get_user = |p: &&String| p.contains("/users/") && !p.ends_with("/users/@me");
    assert_eq!(got.iter().filter(get_user).count(), 450);
    assert!(plan.stdout.contains("451 to create"), "{}", plan.stdout);
    h.run_env(&["apply", "-f", f, "--yes"], &fast)
        .await
        .assert_code(0);
    let writes = h.writes();
    let bulk: Vec<_> = writes
        .iter()
        .filter(|w| w.path.ends_with("/bulk-ban"))
        .collect();
    assert_eq!(bulk.len(), 3, "200 + 200 + 50: {writes:#?}");
    assert!(
        bulk.iter()
            .all(|w| w.reason.as_deref() == Some("spam wave"))
    );
    let single: Vec<_> = writes
        .iter()
        .filter(|w| w.path.contains("/bans/"))
        .collect();
    assert_eq!(single.len(), 1, "ivan alone: {writes:#?}");
    assert_eq!(single[0].method, "PUT");
    assert_eq!(single[0].reason.as_deref(), Some("alt account"));
    assert_eq!(h.guild().bans.len(), 453);
    let again = h.run(&["plan", "-f", f]).await;
    assert!(again.stdout.contains("No changes"), "{}", again.stdout);
}

#[tokio::test]
async fn bulk_ban_partial_failure_counts_only_users_still_not_banned() {
    use guildctl::{apply, manifest, snapshot::Snapshot};
    let h = Harness::with_state(Some(with_users(5))).await;
    let st = h.emu.state();
    let ids: Vec<String> = (0..5).map(|k| st.user_id(&format!("spam{k:04}"))).collect();
    let client = h.client();
    let read = async |ids: &[String]| {
        let yaml = format!("version: 1\nbans:\n{}", ban_list(ids, "spam"));
        let loaded = manifest::load_str(std::path::Path::new("bans.yaml"), yaml).unwrap();
        let mut snap = Snapshot::fetch(&client, &h.emu.guild_id).await.unwrap();
        let q = guildctl::snapshot::people_query(&loaded.manifest, &snap);
        snap.read_people(&client, &q).await.unwrap();
        guildctl::planner::diff(&loaded.manifest, &snap).expect("plan")
    };
    // Someone bans spam0000 by hand after the plan: Discord lists them as failed.
    let p = read(&ids[..3]).await;
    h.arrange(|g| {
        g.ban("spam0000", None);
    });
    let out = apply::apply(&client, &p, &apply::ApplyOptions::new("t", "."), |_| {}).await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert!(
        out.notes[0]
            .1
            .contains("1 of 3 user(s) were banned already"),
        "{:?}",
        out.notes
    );

    // All three banned already: Discord answers 500000, which is no failure either.
    let out = apply::apply(&client, &p, &apply::ApplyOptions::new("t", "."), |_| {}).await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert!(out.notes[0].1.contains("3 of 3"), "{:?}", out.notes);

    // A user Discord will not ban when the call comes is a failure naming them: spam0004
    // owns the guild by then (a plan refuses to ban the owner outright, so the plan is made
    // before the guild changes hands).
    let p = read(&ids[3..]).await;
    h.arrange(|g| g.owner_id = ids[4].clone());
    let out = apply::apply(&client, &p, &apply::ApplyOptions::new("t", "."), |_| {}).await;
    assert_eq!(out.failures.len(), 1, "{:?}", out.failures);
    let failure = out.failures[0].1.to_string();
    assert!(
        failure.contains("Discord banned 1 of 2 user(s); these are not banned")
            && failure.contains(&ids[4]),
        "{failure}"
    );
}

#[tokio::test]
async fn lifting_unlisted_bans_needs_prune_and_passes_the_deletion_gate() {
    let h = Harness::start().await;
    let keep = h.manifest("keep.yaml", "version: 1\nbans: []\n");
    let plan = h.run(&["plan", "-f", keep.to_str().unwrap()]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);

    let lift = h.manifest(
        "lift.yaml",
        "version: 1\nbans: []\nprune: { bans: true }\nsafety: { allow_deletes: 1 }\n",
    );
    let lift = lift.to_str().unwrap();
    let refused = h.run(&["apply", "-f", lift, "--yes"]).await;
    refused.assert_code(1);
    assert!(
        refused.stdout.contains("deletes 2 object(s)"),
        "{}",
        refused.stdout
    );
    assert_eq!(h.guild().bans.len(), 2);
    h.run(&["apply", "-f", lift, "--yes", "--allow-deletes", "2"])
        .await
        .assert_code(0);
    assert!(h.guild().bans.is_empty());
    let entries: Vec<_> = h
        .guild()
        .audit_log
        .into_iter()
        .filter(|e| e.action_type == 23)
        .collect();
    assert_eq!(entries.len(), 2);
}

const HUMAN: &str = "human-owner-token-for-roster-tests";

#[tokio::test]
async fn drift_names_who_gave_a_roster_role_and_who_banned_by_hand() {
    let mut st = discord_emulator::default_state();
    arrange(&mut st).owner_token(HUMAN).webhooks.clear();
    let h = Harness::with_state(Some(st)).await;
    let st = h.emu.state();
    let (g, heidi, ivan) = (
        h.emu.guild_id.clone(),
        st.user_id("heidi"),
        st.user_id("ivan"),
    );
    let admin_role = st.role_id("Moderator");
    let yaml = format!(
        "version: 1\nroles:\n  - name: Admin\n  - name: Moderator\n    members:\n      - {{ id: \"{}\" }}\n      - {{ id: \"{}\" }}\n  - name: Helper\nbans:\n  - {{ id: \"{}\" }}\n  - {{ id: \"{}\" }}\n",
        st.user_id("alice"),
        st.user_id("erin"),
        st.user_id("free_nitro_4u"),
        st.user_id("raid_leader"),
    );
    let f = h.manifest("drift.yaml", &yaml);
    let http = reqwest::Client::new();
    let hand = |method: reqwest::Method, path: String, reason: &'static str| {
        http.request(method, format!("{}{path}", h.emu.api_base))
            .header("Authorization", format!("Bot {HUMAN}"))
            .header("X-Audit-Log-Reason", reason)
            .send()
    };
    let r = hand(
        reqwest::Method::PUT,
        format!("/guilds/{g}/members/{heidi}/roles/{admin_role}"),
        "friend",
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 204);
    let r = hand(
        reqwest::Method::PUT,
        format!("/guilds/{g}/bans/{ivan}"),
        "annoying",
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 204);
    let run = h
        .run(&["drift", "-f", f.to_str().unwrap(), "--format", "json"])
        .await;
    run.assert_code(2);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    let given = report["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "roster_entry")
        .expect("the hand-given role");
    assert_eq!(given["name"], "Moderator ← heidi");
    assert_eq!(
        given["high_risk"], true,
        "Moderator grants ban_members: {given:#}"
    );
    assert_eq!(
        given["blame"]["entry"]["user"]["name"], "ferris",
        "{given:#}"
    );
    assert_eq!(given["blame"]["entry"]["reason"], "friend");
    let banned = report["unmanaged"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["kind"] == "ban")
        .expect("the hand-made ban");
    assert_eq!(banned["id"], ivan.as_str());
    assert_eq!(banned["blame"]["entry"]["user"]["name"], "ferris");
    assert_eq!(banned["blame"]["entry"]["reason"], "annoying");
}

#[tokio::test]
async fn export_writes_small_rosters_and_the_ban_list_that_plan_back_empty() {
    let h = Harness::start().await;
    let out = h.dir.path().join("export.yaml");
    let run = h
        .run(&["export", "--members", "--bans", "-o", out.to_str().unwrap()])
        .await;
    run.assert_code(0);
    let yaml = std::fs::read_to_string(&out).unwrap();
    let st = h.emu.state();
    let alice = st.user_id("alice");
    assert!(
        yaml.contains(&format!("id: '{alice}'")) || yaml.contains(&format!("id: \"{alice}\"")),
        "{yaml}"
    );
    assert!(yaml.contains("name: alice"), "{yaml}");
    assert!(yaml.contains("Spam links in #general"), "{yaml}");
    assert!(yaml.contains("\nbans:\n"), "{yaml}");
    // Member (9 holders) is under the threshold too; @everyone and managed roles have none.
    let plan = h.run(&["plan", "-f", out.to_str().unwrap()]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);

    let mut st = discord_emulator::default_state();
    st.config.guild_members_intent = false;
    let h = Harness::with_state(Some(st)).await;
    let run = h.run(&["export", "--members"]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("GUILD_MEMBERS"), "{}", run.stderr);
}

/// The README's second tour ("who holds what"), run as written: its sh block with this
/// build's `guildctl` first on PATH, in an empty folder.
#[test]
fn the_readme_roster_tour_runs_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let tour = readme
        .split("<!-- roster-tour:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- roster-tour:end -->").next())
        .expect("the roster tour's markers");
    let script = tour
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("an sh block");
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_guildctl"))
        .parent()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    for needle in [
        "+ create roster entry Moderator ← heidi",
        "- delete roster entry Moderator ← erin",
        "+ create ban ivan",
        "drift exited 2",
        "she asked",
    ] {
        assert!(
            stdout.contains(needle),
            "{needle:?} not in\n{stdout}{stderr}"
        );
    }
    let state = std::fs::read_to_string(dir.path().join("people.json")).unwrap();
    let state: State = serde_json::from_str(&state).unwrap();
    assert_eq!(state.guilds[0].bans.len(), 3);
}
