//! Member overwrites (issue 41, points 1 and 2), over HTTP against the emulator: the users
//! they name are read (one member read each, none where no member overwrite exists), the
//! rehearsal's copy holds them so a plan that touches their channel rehearses and applies,
//! and access lines, risks, policies and `guildctl access` compute them with the roles they
//! hold and name them as Discord knows them.

use crate::common;

use common::Harness;
use serde_json::Value;

/// `channels:` with #bot-spam's overwrites alone.
fn bot_spam(overwrites: &str) -> String {
    format!("version: 1\nchannels:\n  - name: bot-spam\n    overwrites: {overwrites}\n")
}

/// `channels:` with General/#general's overwrites alone, and `more` after them.
fn general(overwrites: &str, more: &str) -> String {
    format!(
        "version: 1\nchannels:\n  - name: General\n    type: category\n    channels:\n      - name: general\n        overwrites: {overwrites}\n{more}"
    )
}

/// The plan's access lines as text.
fn access_lines(plan: &Value) -> Vec<String> {
    plan["access"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            format!(
                "{} gains {} in {}",
                a["who"].as_str().unwrap(),
                a["gains"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g.as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join(", "),
                a["channel"].as_str().unwrap_or("the guild")
            )
        })
        .collect()
}

/// The member reads (`…/members/{user}`) and Get User reads since the log was cleared, the
/// bot's own member read (one of the seven) left out.
fn people_reads(h: &Harness) -> Vec<String> {
    let bot = h.emu.state().bot_user_id;
    h.reads()
        .into_iter()
        .map(|p| p.trim_start_matches("/api/v10").to_owned())
        .filter(|p| p.contains("/members/") || p.starts_with("/users/") && p != "/users/@me")
        .filter(|p| !p.ends_with(&format!("/members/{bot}")))
        .collect()
}

#[tokio::test]
async fn a_member_overwrite_plans_rehearses_and_applies() {
    let h = Harness::start().await;
    let carol = h.user_id("carol");
    // The reproduction: the copy lacked carol, so the rehearsal (and apply) refused
    // "Unknown User" where Discord takes the call.
    let f = h.manifest(
        "carol.yaml",
        &bot_spam(&format!(
            "[{{ member: \"{carol}\", allow: [send_tts_messages] }}]"
        )),
    );
    let f = f.to_str().unwrap();
    let plan = h.rehearsed_plan(f).await;
    assert_eq!(plan["rehearsal"]["ok"], true, "{:#}", plan["rehearsal"]);
    h.run(&["apply", "-f", f, "--yes"]).await.assert_code(0);
    let again = h.plan_json(f).await;
    assert!(again["changes"].as_array().unwrap().is_empty(), "{again:#}");

    // A live member overwrite the manifest keeps while it changes another: the update
    // sends dave's too, so the copy must hold dave as well.
    let dave = h.user_id("dave");
    h.arrange(|g| {
        g.channel("bot-spam")
            .member_overwrite(&dave, &["embed_links"], &[]);
    });
    let f = h.manifest(
        "both.yaml",
        &bot_spam(&format!(
            "[{{ member: \"{carol}\", allow: [send_tts_messages] }}, {{ member: \"{dave}\", allow: [embed_links, add_reactions] }}]"
        )),
    );
    let f = f.to_str().unwrap();
    let plan = h.rehearsed_plan(f).await;
    assert_eq!(plan["rehearsal"]["ok"], true, "{:#}", plan["rehearsal"]);
    assert_eq!(plan["rehearsal"]["calls"], 1);
    h.run(&["apply", "-f", f, "--yes"]).await.assert_code(0);
    assert!(
        h.plan_json(f).await["changes"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_muted_member_let_send_by_their_overwrite_is_an_access_line_and_a_risk() {
    let h = Harness::start().await;
    let dave = h.user_id("dave");
    let f = h.manifest(
        "dave.yaml",
        &general(
            &format!(
                "[{{ role: Muted, deny: [send_messages, speak] }}, {{ member: \"{dave}\", allow: [send_messages] }}]"
            ),
            "",
        ),
    );
    let plan = h.plan_json(f.to_str().unwrap()).await;
    // dave holds Muted, which may not send there; his own overwrite lets him, and sending
    // brings back what it takes along.
    assert_eq!(
        access_lines(&plan),
        vec![format!(
            "dave ({dave}) gains send_messages, embed_links, attach_files in General/#general"
        )]
    );
    assert_eq!(plan["access"][0]["who_kind"], "user");
    assert_eq!(plan["access"][0]["who_id"], dave.as_str());
    let risks = plan["risks"].as_array().unwrap();
    assert_eq!(risks.len(), 1, "{risks:#?}");
    assert_eq!(risks[0]["kind"], "access");
    assert_eq!(risks[0]["who"], format!("dave ({dave})"));
    assert_eq!(risks[0]["channel"], "General/#general");
    // The change names him as Discord knows him.
    let after = &plan["changes"][0]["fields"][0]["after"];
    assert!(
        after
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["member"] == format!("dave ({dave})")),
        "{after:#}"
    );
}

#[tokio::test]
async fn a_moderator_given_what_her_role_gives_is_not_flagged_and_is_named_alice() {
    let h = Harness::start().await;
    let alice = h.user_id("alice");
    let f = h.manifest(
        "alice.yaml",
        &bot_spam(&format!(
            "[{{ member: \"{alice}\", allow: [manage_messages] }}]"
        )),
    );
    let plan = h.plan_json(f.to_str().unwrap()).await;
    // alice holds Moderator, which has manage_messages everywhere: she gains nothing.
    assert!(access_lines(&plan).is_empty(), "{:#}", plan["access"]);
    assert!(
        plan["risks"].as_array().is_none_or(Vec::is_empty),
        "{plan:#}"
    );
    let text = h.run(&["plan", "-f", f.to_str().unwrap()]).await;
    text.assert_code(0);
    assert!(
        text.stdout.contains(&format!(
            "+ member: alice ({alice}); allow: manage_messages"
        )),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains(&format!("user {alice}")));
}

#[tokio::test]
async fn a_never_policy_is_broken_through_the_overwrite_of_a_member_holding_the_role() {
    let h = Harness::start().await;
    let dave = h.user_id("dave");
    let policy = "policies:\n  - name: muted-stay-quiet\n    never: { who: Muted, can: [send_messages], where: [\"General/*\"] }\n";
    let f = h.manifest(
        "policy.yaml",
        &general(
            &format!(
                "[{{ role: Muted, deny: [send_messages, speak] }}, {{ member: \"{dave}\", allow: [send_messages] }}]"
            ),
            policy,
        ),
    );
    let f = f.to_str().unwrap();
    // validate cannot know dave's roles: it leaves the judgement to plan.
    h.run(&["validate", "-f", f]).await.assert_code(0);
    let run = h.run(&["plan", "-f", f]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "policy `muted-stay-quiet` (policies[0]) is broken once the plan is applied: dave ({dave}) has send_messages in General/#general"
        )),
        "{}",
        run.stderr
    );
    // Without dave's overwrite, Muted keeps quiet.
    let f = h.manifest(
        "kept.yaml",
        &general("[{ role: Muted, deny: [send_messages, speak] }]", policy),
    );
    h.run(&["plan", "-f", f.to_str().unwrap()])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn access_shows_a_member_an_overwrite_names_with_their_roles() {
    let h = Harness::start().await;
    let dave = h.user_id("dave");
    h.arrange(|g| {
        g.channel("General/general")
            .member_overwrite(&dave, &["send_messages"], &[]);
    });
    let f = h.manifest("plain.yaml", "version: 1\n");
    let f = f.to_str().unwrap();

    h.emu.clear_requests();
    let run = h
        .run(&["access", "-f", f, "--user", &dave, "--format", "json"])
        .await;
    run.assert_code(0);
    let view = run.json();
    assert_eq!(view["who"], format!("dave ({dave})"));
    assert_eq!(view["roles"], serde_json::json!(["Member", "Muted"]));
    let general = view["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "General/#general")
        .unwrap();
    assert!(
        general["permissions"]
            .as_array()
            .unwrap()
            .contains(&Value::from("send_messages")),
        "{general:#}"
    );
    // dave, named by the overwrite and by --user, is read once.
    assert_eq!(
        people_reads(&h),
        vec![format!("/guilds/{}/members/{dave}", h.emu.guild_id)]
    );

    // The matrix names him where his own overwrite lets him send and no role of his does.
    let run = h.run(&["access", "-f", f, "--format", "json"]).await;
    run.assert_code(0);
    let matrix = run.json();
    let row = matrix["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "General/#general")
        .unwrap();
    assert_eq!(
        row["send"],
        serde_json::json!(["@everyone", format!("dave ({dave})")]),
        "{row:#}"
    );
    assert_eq!(row["view"], serde_json::json!(["@everyone"]), "{row:#}");
}

#[tokio::test]
async fn each_user_an_overwrite_names_costs_one_read_and_a_guild_without_costs_none() {
    let h = Harness::start().await;
    let g = h.emu.guild_id.clone();
    let plain = h.manifest("plain.yaml", "version: 1\n");
    let plain = plain.to_str().unwrap();
    h.emu.clear_requests();
    h.plan_json(plain).await;
    assert_eq!(h.reads().len(), 7, "{:#?}", h.reads());

    // Live: dave twice, carol, the bot (the snapshot has it); declared: alice, and dave
    // again. One member read each of dave, carol and alice, side by side; no role counts.
    let [alice, carol, dave] = ["alice", "carol", "dave"].map(|u| h.user_id(u));
    let bot = h.emu.state().bot_user_id;
    h.arrange(|e| {
        e.channel("General/general")
            .member_overwrite(&dave, &["send_messages"], &[]);
        e.channel("bot-spam")
            .member_overwrite(&dave, &[], &["add_reactions"])
            .member_overwrite(&bot, &["view_channel"], &[]);
        e.channel("Help/help")
            .member_overwrite(&carol, &["embed_links"], &[]);
    });
    h.emu.clear_requests();
    h.plan_json(plain).await;
    let mut expected: Vec<String> = [&carol, &dave]
        .iter()
        .map(|u| format!("/guilds/{g}/members/{u}"))
        .collect();
    let mut read = people_reads(&h);
    read.sort();
    expected.sort();
    assert_eq!(read, expected);
    assert_eq!(h.reads().len(), 7 + 2, "{:#?}", h.reads());

    let declared = h.manifest(
        "declared.yaml",
        &bot_spam(&format!(
            "[{{ member: \"{alice}\", allow: [manage_messages] }}, {{ member: \"{dave}\", deny: [add_reactions] }}, {{ member: \"{bot}\", allow: [view_channel] }}]"
        )),
    );
    h.emu.clear_requests();
    h.plan_json(declared.to_str().unwrap()).await;
    assert_eq!(h.reads().len(), 7 + 3, "{:#?}", h.reads());
    assert!(
        !h.reads().iter().any(|p| p.contains("member-counts")),
        "{:#?}",
        h.reads()
    );
}

#[tokio::test]
async fn a_user_who_is_not_a_member_is_read_as_a_user_and_gets_no_line() {
    let h = Harness::start().await;
    let g = h.emu.guild_id.clone();
    // free_nitro_4u is banned, no longer a member; an overwrite outlived them.
    let gone = h.user_id("free_nitro_4u");
    h.arrange(|e| {
        e.channel("bot-spam")
            .member_overwrite(&gone, &["manage_messages"], &[]);
    });
    let plain = h.manifest("plain.yaml", "version: 1\n");
    h.emu.clear_requests();
    let plan = h.plan_json(plain.to_str().unwrap()).await;
    assert_eq!(
        people_reads(&h),
        vec![
            format!("/guilds/{g}/members/{gone}"),
            format!("/users/{gone}")
        ]
    );
    assert!(access_lines(&plan).is_empty(), "{:#}", plan["access"]);

    // With `bans:`, the ban list names them: no read of theirs at all.
    let bans = h.manifest("bans.yaml", "version: 1\nbans: []\n");
    h.emu.clear_requests();
    h.plan_json(bans.to_str().unwrap()).await;
    assert!(people_reads(&h).is_empty(), "{:#?}", h.reads());

    // Declaring it is refused at its line: Discord sets an overwrite only for a member.
    let f = h.manifest(
        "gone.yaml",
        &bot_spam(&format!(
            "[{{ member: \"{gone}\", allow: [manage_messages] }}]"
        )),
    );
    let run = h.run(&["plan", "-f", f.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!(
            "the overwrite on `bot-spam` names free_nitro_4u ({gone}), who is not a member of the guild"
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("gone.yaml:4"), "{}", run.stderr);
}

#[tokio::test]
async fn banning_a_member_whose_overwrite_the_manifest_keeps_does_not_converge() {
    let h = Harness::start().await;
    let dave = h.user_id("dave");
    h.arrange(|e| {
        e.channel("bot-spam")
            .member_overwrite(&dave, &["embed_links"], &[]);
    });
    let f = h.manifest(
        "ban.yaml",
        &format!(
            "{}bans:\n  - {{ id: \"{dave}\", reason: spam }}\nsafety: {{ allow_deletes: 1 }}\n",
            bot_spam(&format!("[{{ member: \"{dave}\", allow: [embed_links] }}]"))
        ),
    );
    // Discord removes a member's overwrites when they leave: after the ban, the manifest's
    // overwrite names a user who is not a member, which no plan can set again.
    let run = h
        .run(&[
            "plan",
            "-f",
            f.to_str().unwrap(),
            "--rehearse",
            "--format",
            "json",
        ])
        .await;
    run.assert_code(1);
    let rehearsal = &run.json()["rehearsal"];
    assert_eq!(rehearsal["converges"], false, "{rehearsal:#}");
    assert!(
        rehearsal["still_changes"][0]
            .as_str()
            .unwrap()
            .contains(&format!("names dave ({dave}), who is not a member")),
        "{rehearsal:#}"
    );
}
