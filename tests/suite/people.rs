//! The people a plan names, as Discord knows them (issue 30, points 1 and 2), over HTTP
//! against the emulator: a staff purge dressed as a spam clean-up, bans of the owner and the
//! bot, a roster entry whose `name` is someone else's, a ban of a user who is not a member,
//! and the rehearsal's copy holding the members a plan bans. Reads and writes are counted
//! from the emulator's request log.

use crate::common;

use common::{Harness, StateNames, arrange};
use discord_emulator::State;
use discord_emulator::state::User;
use serde_json::Value;

/// The default guild's members ranked below the bot: everyone but the owner and the bot.
const BELOW_THE_BOT: [&str; 9] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
];

/// Every member below the bot banned as `spam_bot_N`, under `safety`.
fn staff_purge(state: &State, safety: &str) -> String {
    let bans: String = BELOW_THE_BOT
        .iter()
        .enumerate()
        .map(|(k, name)| {
            format!(
                "  - {{ id: \"{}\", name: spam_bot_{k}, reason: spam }}\n",
                state.user_id(name)
            )
        })
        .collect();
    format!("version: 1\nbans:\n{bans}{safety}")
}

#[tokio::test]
async fn a_staff_purge_is_nine_member_bans_at_the_top_and_apply_refuses_it() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let f = h.manifest(
        "purge.yaml",
        &staff_purge(&st, "safety: { allow_deletes: 0 }\n"),
    );
    let f = f.to_str().unwrap();
    h.emu.clear_requests();
    let (text, markdown, json) = h.plans(f).await;
    assert!(h.writes().is_empty(), "plan only reads: {:#?}", h.writes());
    // Each run: 7 + one page of bans + one member read per user named.
    let reads = h.requests().len();
    assert_eq!(reads, 3 * (7 + 1 + 9), "{:#?}", h.requests());

    // Nine member bans at the top, each with the roles it takes and the manifest's word
    // for who it is; the change names them as Discord does; apply will refuse.
    {
        let _redacted = common::snapshot::redacted();
        insta::assert_snapshot!("staff_purge_text", text);
        insta::assert_snapshot!("staff_purge_markdown", markdown);
    }
    let alice = st.user_id("alice");

    let risks = json["risks"].as_array().unwrap();
    assert_eq!(risks.len(), 9, "{json:#}");
    for (r, name) in risks.iter().zip(BELOW_THE_BOT) {
        assert_eq!(r["kind"], "bans_member", "{r:#}");
        assert_eq!(r["object"]["name"], name, "{r:#}");
        assert_eq!(r["object"]["id"], st.user_id(name).as_str());
        assert!(
            r["named_in_manifest"]
                .as_str()
                .is_some_and(|n| n.starts_with("spam_bot_")),
            "{r:#}"
        );
        assert!(!r["roles"].as_array().unwrap().is_empty(), "{r:#}");
    }
    assert_eq!(risks[0]["roles"][0]["name"], "Moderator");
    assert!(
        risks[0]["roles"][0]["dangerous"]
            .as_array()
            .unwrap()
            .contains(&Value::from("ban_members"))
    );
    assert_eq!(risks[0]["roles"][1]["name"], "Member");
    assert!(risks[0]["roles"][1].get("dangerous").is_none());
    let change = &json["changes"][0];
    assert_eq!(change["person"]["username"], "alice");
    assert_eq!(change["person"]["member"], true);
    assert_eq!(change["person"]["named_in_manifest"], "spam_bot_0");
    assert_eq!(json["format"], 4);
    let gate = &json["deletion_gate"];
    assert_eq!(gate["refused"], true, "{gate:#}");
    let kinds = gate["kinds"].as_array().unwrap();
    assert!(
        kinds
            .iter()
            .any(|k| k["kind"] == "member_bans" && k["deletes"] == 9),
        "{gate:#}"
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains(&format!(
            "the manifest calls user {alice} `spam_bot_0`, but their username is `alice`"
        )),
        "{warnings}"
    );

    h.emu.clear_requests();
    let apply = h.run(&["apply", "-f", f, "--yes"]).await;
    apply.assert_code(1);
    assert!(
        apply.stderr.contains("bans 9 member(s)"),
        "{}{}",
        apply.stdout,
        apply.stderr
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
    assert_eq!(h.guild().members.len(), 11, "nobody left");
}

#[tokio::test]
async fn member_bans_are_a_gate_kind_of_their_own_with_a_default_limit_of_two() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let ban = |names: &[&str]| {
        let list: String = names
            .iter()
            .map(|n| format!("  - {{ id: \"{}\" }}\n", st.user_id(n)))
            .collect();
        format!("version: 1\nbans:\n{list}")
    };
    // Three members: above the default limit, whatever the guild's size.
    let three = h.manifest("three.yaml", &ban(&["grace", "heidi", "ivan"]));
    let run = h.run(&["plan", "-f", three.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(
        run.stdout.contains(
            "Apply will refuse: bans 3 members, above the default limit of 2 members banned in one apply"
        ),
        "{}",
        run.stdout
    );
    let run = h
        .run(&["apply", "-f", three.to_str().unwrap(), "--yes"])
        .await;
    run.assert_code(1);
    assert!(h.writes().is_empty(), "{:#?}", h.writes());

    // Two pass, and say so; banned, they leave the guild.
    let two = h.manifest("two.yaml", &ban(&["heidi", "ivan"]));
    let run = h.run(&["plan", "-f", two.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("Deletion gate: passes; bans 2 member(s), within the default limits"),
        "{}",
        run.stdout
    );
    h.run(&["apply", "-f", two.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let g = h.guild();
    assert_eq!(g.bans.len(), 4);
    assert!(!g.members.iter().any(|m| m.user_id == st.user_id("ivan")));
    // Banned now: no member read, no risk, no gate.
    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", two.to_str().unwrap()]).await;
    again.assert_code(0);
    assert!(again.stdout.contains("No changes"), "{}", again.stdout);
    assert_eq!(h.requests().len(), 7 + 1, "{:#?}", h.requests());
}

#[tokio::test]
async fn banning_the_owner_or_the_bot_is_refused_on_its_line() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let owner = st.guilds[0].owner_id.clone();
    let bot = st.bot_user_id.clone();
    for (who, id, why) in [
        ("owner", &owner, "ferris (user"),
        ("bot", &bot, "guildctl (user"),
    ] {
        let yaml = format!(
            "version: 1\nsafety: {{ allow_deletes: 5 }}\nbans:\n  - {{ id: \"{}\", name: spam }}\n  - {{ id: \"{id}\", name: spam_bot }}\n",
            st.user_id("ivan")
        );
        let f = h.manifest(&format!("{who}.yaml"), &yaml);
        h.emu.clear_requests();
        for args in [
            vec!["plan", "-f", f.to_str().unwrap()],
            vec!["apply", "-f", f.to_str().unwrap(), "--yes"],
        ] {
            let run = h.run(&args).await;
            run.assert_code(1);
            assert!(
                run.stderr.contains(&format!("{who}.yaml:5")),
                "{who}: {}",
                run.stderr
            );
            assert!(run.stderr.contains(why), "{who}: {}", run.stderr);
            assert!(
                run.stderr.contains("guildctl never bans them"),
                "{who}: {}",
                run.stderr
            );
        }
        assert!(h.writes().is_empty(), "{who}: {:#?}", h.writes());
    }
    assert!(
        h.guild()
            .bans
            .iter()
            .all(|b| b.user_id != owner && b.user_id != bot)
    );
}

#[tokio::test]
async fn a_ban_of_a_member_ranked_above_the_bot_is_refused_before_any_call() {
    let mut st = discord_emulator::default_state();
    let heidi = st.user_id("heidi");
    arrange(&mut st).member("heidi").add_role("Admin");
    let h = Harness::with_state(Some(st)).await;
    let f = h.manifest(
        "admin.yaml",
        &format!("version: 1\nbans:\n  - {{ id: \"{heidi}\" }}\n"),
    );
    let run = h.run(&["apply", "-f", f.to_str().unwrap(), "--yes"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("cannot ban heidi (user")
            && run
                .stderr
                .contains("their role `Admin` is at or above the bot's highest role"),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn a_spoofed_roster_name_shows_the_live_username_in_every_format() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let (alice, erin, ivan) = (st.user_id("alice"), st.user_id("erin"), st.user_id("ivan"));
    let f = h.manifest(
        "mods.yaml",
        &format!(
            "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{alice}\" }}\n      - {{ id: \"{erin}\" }}\n      - {{ id: \"{ivan}\", name: alice }}\n"
        ),
    );
    let f = f.to_str().unwrap();
    h.emu.clear_requests();
    let (text, markdown, json) = h.plans(f).await;
    // No read more than before: the roster's users were read already (counts, 3 members).
    assert_eq!(h.requests().len(), 3 * (7 + 1 + 3), "{:#?}", h.requests());

    let risk = format!(
        "roster entry Moderator ← ivan gains kick_members, ban_members, manage_messages, manage_nicknames, manage_threads, moderate_members (user {ivan}); the manifest calls them \"alice\""
    );
    assert!(text.contains(&format!("! {risk}")), "{text}");
    assert!(
        text.contains(&format!(
            "+ create roster entry Moderator ← ivan  (id {ivan})  ! the manifest calls them \"alice\""
        )),
        "{text}"
    );
    assert!(!text.contains("← alice"), "{text}");
    let warning = format!("the manifest calls user {ivan} `alice`, but their username is `ivan`");
    assert!(text.contains(&warning), "{text}");
    assert!(text.contains("(roles[0].members[2].name)"), "{text}");

    assert!(markdown.contains(&format!("- {risk}")), "{markdown}");
    assert!(
        markdown.contains(&format!(
            "+ create roster entry Moderator ← ivan  (id {ivan})  ! the manifest calls them \"alice\""
        )),
        "{markdown}"
    );
    // Warnings in markdown show names as code spans.
    assert!(markdown.contains("their username is `ivan`"), "{markdown}");
    assert!(!markdown.contains("\\`ivan\\`"), "{markdown}");

    let change = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["object"]["id"] == ivan.as_str())
        .expect("ivan's entry");
    assert_eq!(change["object"]["name"], "Moderator ← ivan");
    assert_eq!(change["person"]["username"], "ivan");
    assert_eq!(change["person"]["named_in_manifest"], "alice");
    assert_eq!(json["risks"][0]["named_in_manifest"], "alice");
    assert!(json["warnings"].to_string().contains(&warning), "{json:#}");

    // Named rightly, nothing is said.
    let honest = h.manifest(
        "honest.yaml",
        &format!(
            "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{alice}\", name: Alice }}\n      - {{ id: \"{erin}\" }}\n      - {{ id: \"{ivan}\", name: ivan }}\n"
        ),
    );
    let (text, _, json) = h.plans(honest.to_str().unwrap()).await;
    assert!(!text.contains("the manifest calls"), "{text}");
    assert!(
        json["changes"][0]["person"]
            .get("named_in_manifest")
            .is_none(),
        "{json:#}"
    );
}

#[tokio::test]
async fn one_name_for_two_users_is_a_warning() {
    let h = Harness::start().await;
    let st = h.emu.state();
    let (alice, heidi) = (st.user_id("alice"), st.user_id("heidi"));
    let f = h.manifest(
        "twice.yaml",
        &format!(
            "version: 1\nroles:\n  - name: Moderator\n    members:\n      - {{ id: \"{alice}\", name: alice }}\n      - {{ id: \"{heidi}\", name: heidi }}\nbans:\n  - {{ id: \"{}\", name: Alice }}\n",
            st.user_id("free_nitro_4u")
        ),
    );
    let run = h.run(&["plan", "-f", f.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(
        run.stdout.contains(&format!(
            "the manifest calls two users `Alice`: {alice} (roles[0].members[0]) and {}",
            st.user_id("free_nitro_4u")
        )),
        "{}",
        run.stdout
    );
}

#[tokio::test]
async fn a_ban_of_a_user_who_is_not_a_member_says_so() {
    let mut st = discord_emulator::default_state();
    st.users.push(User {
        id: "900000000000000001".into(),
        username: "raider_two".into(),
        ..User::default()
    });
    let h = Harness::with_state(Some(st)).await;
    let f = h.manifest(
        "raid.yaml",
        "version: 1\nbans:\n  - { id: \"900000000000000001\", name: raider_two, reason: raid }\n",
    );
    let f = f.to_str().unwrap();
    h.emu.clear_requests();
    let (text, markdown, json) = h.plans(f).await;
    // 7 + bans + the member read (404) + Get User for the username, per run.
    assert_eq!(
        h.requests().len(),
        3 * (7 + 1 + 1 + 1),
        "{:#?}",
        h.requests()
    );
    assert!(
        text.contains("+ create ban raider_two  (id 900000000000000001)  not a member"),
        "{text}"
    );
    assert!(!text.contains("Widens access"), "{text}");
    assert!(!text.contains("the manifest calls"), "{text}");
    assert!(markdown.contains("not a member"), "{markdown}");
    assert_eq!(json["risks"], Value::Array(vec![]));
    assert_eq!(json["changes"][0]["person"]["member"], false);
    assert_eq!(json["changes"][0]["person"]["username"], "raider_two");
    h.run(&["apply", "-f", f, "--yes"]).await.assert_code(0);
    assert_eq!(h.guild().bans.len(), 3);

    // An id Discord knows no user by is refused on its line: Discord would refuse the ban.
    let nobody = h.manifest(
        "nobody.yaml",
        "version: 1\nbans:\n  - { id: \"900000000000000002\", name: spammer }\n",
    );
    h.emu.clear_requests();
    let run = h
        .run(&["apply", "-f", nobody.to_str().unwrap(), "--yes"])
        .await;
    run.assert_code(1);
    assert!(run.stderr.contains("nobody.yaml:3"), "{}", run.stderr);
    assert!(
        run.stderr.contains("Discord knows no user with this id"),
        "{}",
        run.stderr
    );
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn the_rehearsal_copy_holds_the_members_a_plan_bans() {
    use guildctl::{manifest, rehearse, snapshot::Snapshot};
    let h = Harness::start().await;
    let st = h.emu.state();
    let yaml = staff_purge(&st, "safety: { allow_deletes: 9 }\n");
    let loaded = manifest::load_str(std::path::Path::new("purge.yaml"), yaml.clone()).unwrap();
    let client = h.client();
    let mut snap = Snapshot::fetch(&client, &h.emu.guild_id).await.unwrap();
    let q = guildctl::snapshot::people_query(&loaded.manifest, &snap);
    snap.read_people(&client, &q).await.unwrap();
    let copy = rehearse::copy_of(&snap, None).expect("copy");
    let g = &copy.guilds[0];
    let live = h.guild();
    for name in BELOW_THE_BOT {
        let id = st.user_id(name);
        let held = &g
            .members
            .iter()
            .find(|m| m.user_id == id)
            .expect(name)
            .roles;
        let live_roles = &live.members.iter().find(|m| m.user_id == id).unwrap().roles;
        let (mut a, mut b) = (held.clone(), live_roles.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b, "{name} holds in the copy what they hold live");
    }

    // Rehearsed, the bans remove them from the copy: it converges, and nothing is said to
    // be left out about the users to ban.
    let f = h.manifest("purge.yaml", &yaml);
    h.emu.clear_requests();
    let plan = h.rehearsed_plan(f.to_str().unwrap()).await;
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
    let r = &plan["rehearsal"];
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["converges"], true, "{r:#}");
    let not = r["not_rehearsed"].to_string();
    assert!(!not.contains("users to ban"), "{not}");
    assert!(not.contains("the 9 member(s) the manifest names"), "{not}");
}
