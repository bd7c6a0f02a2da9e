//! A network of guilds (issue 45): two bots in one run, owners by path, people kept once.
//! The workspace's other pieces (`--all`, `--like`, `--ids-out`) are in `workspace.rs`.

use crate::common;

use common::Harness;
use common::guild::StateNames;
use discord_emulator::{default_state, with_guild_copies};

/// `validate --all` in the harness's folder refuses, and says each of `says`.
async fn validate_refuses(h: &Harness, says: &[&str]) {
    let refused = h.run(&["validate", "--all"]).await;
    refused.assert_code(1);
    for said in says {
        assert!(refused.stderr.contains(said), "{said}: {}", refused.stderr);
    }
}

/// Two bots in one emulator state: `token_env:` names the variable that holds a guild's
/// bot token, and `--all` runs each bot's guilds with its own token, side by side. Each bot
/// is a member of its own guilds only, so a guild read or changed with the other bot's
/// token would fail. No token shows in any output; `watch` (one process per bot) names the
/// variables; a missing variable is named before any request.
#[tokio::test]
async fn two_bots_each_run_their_own_guilds_in_one_run() {
    let mut state = with_guild_copies(default_state(), 2);
    let events = state.guilds[1].id.clone();
    let token_b =
        discord_emulator::with_second_bot(&mut state, "events-bot", std::slice::from_ref(&events));
    let h = Harness::with_state(Some(state)).await;
    let en = h.emu.guild_id.clone();
    h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Network Staff\n",
    );
    let workspace = format!(
        "version: 1\nguilds:\n  en: {{ id: \"{en}\", manifest: guild.yaml }}\n  events: {{ id: \"{events}\", manifest: guild.yaml, token_env: EVENTS_BOT_TOKEN }}\n"
    );
    h.put("guildctl.yaml", workspace.as_bytes());
    let token_a = h.emu.token.clone();
    let env = [("EVENTS_BOT_TOKEN", token_b.as_str())];

    let applied = h.run_env(&["apply", "--all", "--yes"], &env).await;
    applied.assert_code(0);
    let state = h.emu.state();
    for g in &state.guilds {
        assert!(
            g.roles.iter().any(|r| r.name == "Network Staff"),
            "{} has the role: {}",
            g.name,
            applied.stderr
        );
    }
    for shown in [&applied.stdout, &applied.stderr] {
        assert!(!shown.contains(&token_a) && !shown.contains(&token_b));
    }
    // Every request of the run was answered (but the welcome screen of a guild without
    // one, 404 as on Discord): neither bot touched the other's guild.
    let refused: Vec<_> = h
        .emu
        .requests()
        .into_iter()
        .filter(|r| r.status >= 400 && !r.path.ends_with("/welcome-screen"))
        .map(|r| format!("{} {} {}", r.status, r.method, r.path))
        .collect();
    assert!(refused.is_empty(), "{refused:?}");

    let again = h
        .run_env(&["plan", "--all", "--detailed-exitcode"], &env)
        .await;
    again.assert_code(0);

    let watch = h.run_env(&["watch", "--all"], &env).await;
    watch.assert_code(1);
    assert!(
        watch.stderr.contains("DISCORD_TOKEN, EVENTS_BOT_TOKEN"),
        "{}",
        watch.stderr
    );
    let missing = h.run(&["plan", "--all"]).await;
    missing.assert_code(1);
    assert!(
        missing.stderr.contains("set EVENTS_BOT_TOKEN"),
        "{}",
        missing.stderr
    );
}

/// `owners:` delegates: a file may declare only what its delegation lets it, and `validate`
/// (and so `plan` and `apply`) refuses the rest at the file's line, naming the delegation;
/// a base the file extends is its own file, judged by its own owners. `codeowners` writes
/// the CODEOWNERS file that matches, and `--check` says when one is out of date.
#[tokio::test]
async fn owners_refuse_what_a_file_declares_outside_its_delegation() {
    let h = Harness::with_state(Some(with_guild_copies(default_state(), 2))).await;
    let ids: Vec<String> = h.emu.state().guilds.iter().map(|g| g.id.clone()).collect();
    let workspace = format!(
        "version: 1
guilds:
  en: {{ id: \"{}\", manifest: guilds/en.yaml }}
  de: {{ id: \"{}\", manifest: guilds/de.yaml }}
owners:
  default: [\"@ferris/admins\"]
  delegate:
    - files: guilds/de.yaml
      teams: [\"@ferris/de-mods\"]
      sections: [roles, channels]
      roles: [\"DE *\"]
      channels: [\"DE/**\"]
      cannot_grant: [administrator]
",
        ids[0], ids[1]
    );
    h.put("guildctl.yaml", workspace.as_bytes());
    // The base is the default owners': its Admin role is not the delegated file's doing.
    h.put(
        "base.yaml",
        b"version: 1\nroles:\n  - name: Admin\n    permissions: [administrator]\n",
    );
    h.put("guilds/en.yaml", b"version: 1\nextends: ../base.yaml\n");
    let allowed = "version: 1
extends: ../base.yaml
roles:
  - name: DE Mods
    permissions: [kick_members]
channels:
  - name: DE
    type: category
    channels:
      - name: allgemein
";
    h.put("guilds/de.yaml", allowed.as_bytes());
    h.run(&["validate", "--all"]).await.assert_code(0);

    let outside = "version: 1
settings:
  name: Ferris DE
roles:
  - name: DE Mods
    permissions: [kick_members, administrator]
  - name: Admin
channels:
  - name: general
";
    h.put("guilds/de.yaml", outside.as_bytes());
    validate_refuses(
        &h,
        &[
            "guilds/de.yaml:2:1",
            "may not declare `settings`",
            "guilds/de.yaml:6:33",
            "may not grant `administrator`",
            "guilds/de.yaml:7:11",
            "may not declare the role `Admin`",
            "guilds/de.yaml:9:11",
            "may not declare the channel `general`",
            "guildctl.yaml (`owners`, line 8)",
        ],
    )
    .await;
    // A plan of that guild alone is refused the same way, before any request.
    h.emu.clear_requests();
    let plan = h
        .run(&["plan", "-f", "guilds/de.yaml", "--guild", &ids[1]])
        .await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("may not declare the role `Admin`"));
    assert!(h.emu.requests().is_empty(), "nothing sent");

    let codeowners = h.run(&["codeowners"]).await;
    codeowners.assert_code(0);
    let lines: Vec<&str> = codeowners
        .stdout
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(
        lines[..3],
        [
            "* @ferris/admins",
            "/guilds/de.yaml @ferris/de-mods",
            "/guildctl.yaml @ferris/admins",
        ]
    );
    let file = h.dir.path().join(".github/CODEOWNERS");
    h.run(&["codeowners", "-o", ".github/CODEOWNERS"])
        .await
        .assert_code(0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), codeowners.stdout);
    h.run(&["codeowners", "--check", ".github/CODEOWNERS"])
        .await
        .assert_code(0);
    let widened = workspace.replace("guilds/de.yaml\n", "guilds/*.yaml\n");
    h.put("guildctl.yaml", widened.as_bytes());
    let stale = h
        .run(&["codeowners", "--check", ".github/CODEOWNERS"])
        .await;
    stale.assert_code(1);
    assert!(
        stale.stderr.contains("guildctl codeowners -o"),
        "{}",
        stale.stderr
    );

    // A delegation may not take in the workspace file, which says who may declare what.
    let grab = workspace.replace("files: guilds/de.yaml", "files: \"*.yaml\"");
    h.put("guildctl.yaml", grab.as_bytes());
    validate_refuses(&h, &["guildctl.yaml:8:", "stays the default owners'"]).await;
}

/// The people file keeps each person once: a group gives the staff Moderator in both
/// guilds, a direct role gives alice Helper in one. Taking alice out of the file is one
/// change, which every guild's plan shows, and the run's block by person says it in one
/// line before the guilds' plans. A role the file names that a manifest lacks, or one held
/// directly with no roster in the manifest, is refused at the file's line.
#[tokio::test]
async fn people_are_kept_once_and_leaving_is_one_change() {
    let h = Harness::with_state(Some(with_guild_copies(default_state(), 2))).await;
    let state = h.emu.state();
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let (alice, heidi) = (state.user_id("alice"), state.user_id("heidi"));
    let workspace = format!(
        "version: 1\npeople: people.yaml\nguilds:\n  en: {{ id: \"{}\", manifest: guilds/en.yaml }}\n  de: {{ id: \"{}\", manifest: guilds/de.yaml }}\n",
        ids[0], ids[1]
    );
    h.put("guildctl.yaml", workspace.as_bytes());
    h.put(
        "guilds/en.yaml",
        b"version: 1\nroles:\n  - name: Moderator\n",
    );
    h.put(
        "guilds/de.yaml",
        b"version: 1\nroles:\n  - name: Moderator\n  - name: Helper\n    members: []\n",
    );
    let people = |with_alice: bool| {
        let alice = format!(
            "  alice:\n    discord: \"{alice}\"\n    github: alice-gh\n    groups: [staff]\n    roles:\n      de: [Helper]\n"
        );
        format!(
            "people:\n{}  heidi:\n    discord: \"{heidi}\"\n    groups: [staff]\ngroups:\n  staff: {{ roles: {{ en: Moderator, de: Moderator }} }}\n",
            if with_alice { alice.as_str() } else { "" }
        )
    };
    h.put("people.yaml", people(true).as_bytes());
    // Helper in de had other holders: taking it from them passes the deletion gate.
    h.run(&["apply", "--all", "--yes", "--allow-deletes", "3"])
        .await
        .assert_code(0);
    let state = h.emu.state();
    for id in &ids {
        assert_eq!(state.holders(id, "Moderator"), ["alice", "heidi"], "{id}");
    }
    assert_eq!(
        state.holders(&ids[1], "Helper"),
        ["alice"],
        "held directly in de"
    );

    // alice leaves: one change to the people file, every guild's plan.
    h.put("people.yaml", people(false).as_bytes());
    let plan = h.run(&["plan", "--all"]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout
            .contains("People:\n  alice leaves: Moderator in en, de; Helper in de\n"),
        "{}",
        plan.stdout
    );
    assert_eq!(
        plan.stdout
            .matches("- delete roster entry Moderator ← alice")
            .count(),
        2,
        "{}",
        plan.stdout
    );
    let md = h.run(&["plan", "--all", "--format", "markdown"]).await;
    assert!(
        md.stdout.contains("### People\n\n- alice leaves:"),
        "{}",
        md.stdout
    );

    // A role the file names that the guild's manifest does not declare.
    h.put(
        "people.yaml",
        people(true)
            .replace("de: [Helper]", "en: [Helper]")
            .as_bytes(),
    );
    validate_refuses(
        &h,
        &[
            "people.yaml:7:11:",
            "`Helper` in en: guilds/en.yaml declares no role of that name",
        ],
    )
    .await;
    // Held directly, with no roster in the manifest: the last holder leaving would keep it.
    h.put(
        "guilds/en.yaml",
        b"version: 1\nroles:\n  - name: Moderator\n  - name: Helper\n",
    );
    let refused = h.run(&["plan", "--guilds", "en"]).await;
    refused.assert_code(1);
    assert!(
        refused.stdout.contains("write `members: []` under it"),
        "{}",
        refused.stdout
    );

    // A group that takes its members from a GitHub team: validate reads no network and
    // takes the listed people; a plan needs the team read (the Action reads it).
    h.put(
        "guilds/en.yaml",
        b"version: 1\nroles:\n  - name: Moderator\n",
    );
    let with_team = people(false).replace(
        "staff: { roles:",
        "staff: { github_team: ferris/staff, roles:",
    );
    h.put("people.yaml", with_team.as_bytes());
    h.run(&["validate", "--all"]).await.assert_code(0);
    // A guild name the workspace does not have: refused where the file writes it.
    let typo = people(false).replace("en: Moderator", "eng: Moderator");
    h.put("people.yaml", typo.as_bytes());
    validate_refuses(
        &h,
        &["the workspace has no guild named `eng` (it has: en, de)"],
    )
    .await;
    h.put("people.yaml", with_team.as_bytes());
    let unread = h.run(&["plan", "--guilds", "en"]).await;
    unread.assert_code(1);
    assert!(
        unread
            .stdout
            .contains("which this run did not read: run `guildctl github teams"),
        "{}",
        unread.stdout
    );
    let teams = h.dir.path().join("teams.json");
    std::fs::write(&teams, r#"{"github": {"ferris/staff": []}}"#).unwrap();
    let read = h
        .run_env(
            &["plan", "--guilds", "en"],
            &[("GUILDCTL_TEAMS", teams.to_str().unwrap())],
        )
        .await;
    read.assert_code(0);
}

/// A manifest's roster may name people of the people file (`{ person: alice }`): the load
/// gives them their ids; a name the file lacks is refused at its line.
#[tokio::test]
async fn a_roster_names_people_of_the_people_file() {
    let h = Harness::start().await;
    let state = h.emu.state();
    let alice = state.user_id("alice");
    let workspace = format!(
        "version: 1\npeople: people.yaml\nguilds:\n  en: {{ id: \"{}\", manifest: en.yaml }}\n",
        h.emu.guild_id
    );
    h.put("guildctl.yaml", workspace.as_bytes());
    h.put(
        "people.yaml",
        format!("people:\n  ally: {{ discord: \"{alice}\" }}\n").as_bytes(),
    );
    h.put(
        "en.yaml",
        b"version: 1\nroles:\n  - name: Helper\n    members:\n      - { person: ally }\n      - { person: nobody }\n",
    );
    validate_refuses(
        &h,
        &[
            "en.yaml:6:",
            "`person: nobody`: people.yaml has no person of that name",
        ],
    )
    .await;
    h.put(
        "en.yaml",
        b"version: 1\nroles:\n  - name: Helper\n    members:\n      - { person: ally }\n",
    );
    let plan = h.run(&["plan", "--all"]).await;
    plan.assert_code(0);
    assert!(
        plan.stdout.contains("create roster entry Helper ← alice"),
        "{}",
        plan.stdout
    );
}
