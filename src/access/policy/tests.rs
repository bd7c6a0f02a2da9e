use super::*;
use crate::access::model::{Member, Overwrite, ROLE};
use crate::access::test_kit::{self, p, set_general, set_mod_log, staff_guild};

/// Admin (10), Moderator (11, ban_members), Helper (12), the bot's role (13, administrator);
/// Staff/#mod-log hidden from @everyone, seen by Moderator.
fn guild() -> Guild {
    let mut g = staff_guild();
    g.owner_id = "900".into();
    g.bot_id = "800".into();
    g.set_role("10", "Admin", Some(p(&["administrator"])), None, None);
    g.set_role("11", "Moderator", Some(p(&["ban_members"])), None, None);
    g.set_role("12", "Helper", Some(Permissions::NONE), None, None);
    g.set_role("13", "guildctl", Some(p(&["administrator"])), None, None);
    g.roles[3].managed = true;
    g.roles[3].bot_id = Some("800".into());
    for (user, role) in [("500", "11"), ("501", "11"), ("502", "12")] {
        g.members.insert(
            user.into(),
            Member {
                roles: [role.to_owned()].into(),
                ..Member::default()
            },
        );
    }
    g
}

fn never(who: &str, can: &[&str], places: Option<&[&str]>) -> Policy {
    test_kit::never("n", who, can, places)
}

fn only(who: &[&str], can: &[&str], places: Option<&[&str]>) -> Policy {
    test_kit::only("o", who, can, places)
}

fn holders(role: &str, min: Option<u32>, max: Option<u32>) -> Policy {
    test_kit::holders("h", role, min, max)
}

fn run(policy: &Policy, g: &Guild) -> Verdict {
    let count = |r: &Role| -> Option<u64> {
        Some(
            g.members
                .values()
                .filter(|m| m.roles.contains(&r.id))
                .count() as u64,
        )
    };
    judge(
        &[("policies[0]".into(), policy)],
        g,
        &count,
        Certainty::Whole,
    )
}

/// What `policy` finds broken on `g`, each breach in words.
fn breached(policy: &Policy, g: &Guild) -> Vec<String> {
    whats(&run(policy, g))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

fn whats(v: &Verdict) -> Vec<&str> {
    v.breaches.iter().map(|b| b.what.as_str()).collect()
}

#[test]
fn never_holds_until_a_channel_opens() {
    let mut g = guild();
    let policy = never("@everyone", &["view_channel"], Some(&["Staff/*"]));
    let v = run(&policy, &g);
    assert!(v.breaches.is_empty() && v.kept == vec!["n"], "{v:?}");
    set_mod_log(&mut g, vec![], None, Some(3));
    let v = run(&policy, &g);
    assert_eq!(
        whats(&v),
        vec!["@everyone has view_channel in Staff/#mod-log"]
    );
    assert_eq!(v.breaches[0].at.channel, g.channel_index("22"));
    assert!(v.kept.is_empty());
}

#[test]
fn never_anyone_counts_every_role_but_the_bots_and_the_members_overwrites_name() {
    let mut g = guild();
    let mut ows = g.channel("22").unwrap().overwrites.clone();
    ows.push(Overwrite {
        target: "502".into(),
        kind: crate::access::model::MEMBER,
        allow: Permissions::VIEW_CHANNEL,
        deny: Permissions::NONE,
    });
    set_mod_log(&mut g, ows, None, None);
    assert_eq!(
        breached(
            &never("anyone", &["view_channel"], Some(&["Staff/#mod-log"])),
            &g
        ),
        vec![
            "Admin has view_channel in Staff/#mod-log",
            "Moderator has view_channel in Staff/#mod-log",
            "user 502 has view_channel in Staff/#mod-log",
        ]
    );
}

#[test]
fn what_everyone_has_is_said_once_on_everyone() {
    let g = guild();
    // Every member sends in #general: one breach, not one per role.
    assert_eq!(
        breached(
            &never("anyone", &["send_messages"], Some(&["#general"])),
            &g
        ),
        vec!["@everyone has send_messages in #general"]
    );
}

#[test]
fn never_without_where_is_guild_wide_and_everywhere() {
    let g = guild();
    assert_eq!(
        breached(&never("Moderator", &["ban_members"], None), &g),
        vec!["Moderator has ban_members guild-wide"]
    );
    // A role the guild lacks: kept trivially, and the plan says so.
    let v = run(&never("Nobody", &["ban_members"], None), &g);
    assert!(v.breaches.is_empty() && v.kept == vec!["n"]);
    assert!(v.warnings[0].1.contains("names role `Nobody`"), "{v:?}");
    assert_eq!(v.warnings[0].0, "policies[0].never.who");
}

#[test]
fn only_names_the_roles_beyond_its_list_and_spares_the_bot() {
    let g = guild();
    assert_eq!(
        breached(
            &only(&["Admin"], &["administrator", "ban_members"], None),
            &g
        ),
        vec!["Moderator holds ban_members, which only Admin may"]
    );
    let v = run(&only(&["Admin", "Moderator"], &["ban_members"], None), &g);
    assert!(v.breaches.is_empty(), "{v:?}");
    // In channels: @everyone's own is said once, on @everyone.
    assert_eq!(
        breached(
            &only(&["Moderator"], &["send_messages"], Some(&["#general"])),
            &g
        ),
        vec!["@everyone has send_messages in #general, which only Moderator may"]
    );
}

#[test]
fn holders_count_the_members_holding_the_role() {
    let g = guild();
    assert!(
        run(&holders("Moderator", Some(2), Some(6)), &g)
            .breaches
            .is_empty()
    );
    assert_eq!(
        breached(&holders("Moderator", Some(3), None), &g),
        vec!["2 member(s) hold Moderator; the policy allows at least 3"]
    );
    assert_eq!(
        breached(&holders("Helper", None, Some(0)), &g),
        vec!["1 member(s) hold Helper; the policy allows at most 0"]
    );
}

#[test]
fn the_manifest_alone_decides_only_what_it_says() {
    let mut g = guild();
    g.channels[2].overwrites_known = false;
    let policy = never("@everyone", &["view_channel"], Some(&["Staff/*"]));
    g.channels[2].overwrites.clear();
    let v = judge(
        &[("policies[0]".into(), &policy)],
        &g,
        &|_| None,
        Certainty::ManifestOnly,
    );
    assert!(v.breaches.is_empty() && v.unjudged.is_empty(), "{v:?}");
    let v = judge(
        &[("policies[0]".into(), &policy)],
        &g,
        &|_| None,
        Certainty::Whole,
    );
    assert_eq!(
        whats(&v),
        vec!["@everyone has view_channel in Staff/#mod-log"]
    );
}

/// `guild()` with a member overwrite on #general for `user`.
fn with_member_overwrite(user: &str, allow: Permissions, deny: Permissions) -> Guild {
    let mut g = guild();
    set_general(
        &mut g,
        vec![
            Overwrite {
                target: "12".into(),
                kind: ROLE,
                allow: Permissions::NONE,
                deny: Permissions::SEND_MESSAGES,
            },
            Overwrite {
                target: user.into(),
                kind: crate::access::model::MEMBER,
                allow,
                deny,
            },
        ],
        None,
    );
    g
}

#[test]
fn a_never_on_a_role_judges_the_members_holding_it_that_an_overwrite_names() {
    // Helper may not send in #general; 502 holds Helper, and their own overwrite lets them.
    let mut g = with_member_overwrite("502", Permissions::SEND_MESSAGES, Permissions::NONE);
    g.members.get_mut("502").unwrap().username = Some("grace".into());
    let policy = never("Helper", &["send_messages"], Some(&["#general"]));
    let v = run(&policy, &g);
    assert_eq!(whats(&v), vec!["grace (502) has send_messages in #general"]);
    assert_eq!(v.breaches[0].at.user.as_deref(), Some("502"));
    // A member of another role is not in `who`.
    assert_eq!(
        breached(
            &never("Moderator", &["send_messages"], Some(&["#general"])),
            &g
        ),
        vec!["Moderator has send_messages in #general"]
    );
}

#[test]
fn a_person_is_not_judged_again_for_what_their_role_has() {
    // 500 holds Moderator (ban_members); their overwrite on #general changes nothing of it.
    let g = with_member_overwrite("500", Permissions::VIEW_CHANNEL, Permissions::NONE);
    assert_eq!(
        breached(&never("anyone", &["ban_members"], None), &g),
        vec![
            "Admin has ban_members guild-wide",
            "Moderator has ban_members guild-wide"
        ]
    );
    // Under `only`, a member holding an allowed role is allowed.
    let v = run(
        &only(&["Moderator"], &["ban_members"], Some(&["#general"])),
        &g,
    );
    assert!(v.breaches.is_empty(), "{v:?}");
}

#[test]
fn a_user_who_is_not_a_member_breaks_nothing() {
    let mut g = with_member_overwrite("503", Permissions::MANAGE_MESSAGES, Permissions::NONE);
    g.not_members.insert("503".into(), Some("gone".into()));
    assert_eq!(
        breached(
            &never("anyone", &["manage_messages"], Some(&["#general"])),
            &g
        ),
        vec!["Admin has manage_messages in #general"]
    );
}

#[test]
fn the_manifest_alone_judges_a_person_by_their_own_overwrite() {
    // Helper's deny would stop 502 sending, but the manifest does not say 502's roles:
    // only what their own overwrite grants whatever they hold is decided.
    let mut g = with_member_overwrite("502", Permissions::SEND_MESSAGES, Permissions::NONE);
    g.members.clear();
    let manifest_only = |policy: &Policy, g: &Guild| {
        judge(
            &[("policies[0]".into(), policy)],
            g,
            &|_| None,
            Certainty::ManifestOnly,
        )
    };
    // send_messages without view_channel in their overwrite: not decided.
    let policy = never("anyone", &["send_messages"], Some(&["#general"]));
    let v = manifest_only(&policy, &g);
    assert_eq!(
        whats(&v),
        vec!["@everyone has send_messages in #general"],
        "{v:?}"
    );
    let g = with_member_overwrite(
        "502",
        Permissions::SEND_MESSAGES | Permissions::VIEW_CHANNEL | Permissions::MANAGE_MESSAGES,
        Permissions::NONE,
    );
    let policy = never("anyone", &["manage_messages"], Some(&["#general"]));
    let v = manifest_only(&policy, &g);
    assert_eq!(
        whats(&v),
        vec![
            "Admin has manage_messages in #general",
            "user 502 has manage_messages in #general"
        ]
    );
}
