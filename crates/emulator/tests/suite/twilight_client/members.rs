//! Members through twilight: search, modify, kick, add, prune.

use super::*;

/// Members through twilight (issue 34): search, modify (nick, mute, a move, a timeout),
/// the current member, a kick audited as MEMBER_KICK, and adding a user by its token.
#[tokio::test]
async fn members_search_modify_kick_and_add() {
    let mut st = default_state();
    st.users.push(discord_emulator::state::User {
        id: "900000000000000001".into(),
        username: "newbie".into(),
        ..Default::default()
    });
    st.user_tokens.push(discord_emulator::state::UserToken {
        token: "newbie-join".into(),
        user_id: "900000000000000001".into(),
        application_id: String::new(),
        scopes: vec!["guilds.join".into()],
    });
    let t = T::with(st).await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let user = |name: &str| -> Id<twilight_model::id::marker::UserMarker> {
        id(&t
            .emu
            .state()
            .users
            .iter()
            .find(|u| u.username == name)
            .unwrap()
            .id)
    };
    let found = c
        .search_guild_members(gid, "he")
        .limit(5)
        .await
        .expect("search")
        .models()
        .await
        .expect("twilight parses the members");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].user.name, "heidi");

    let gaming: Id<ChannelMarker> = id(&t.chan("Gaming"));
    let until = twilight_model::util::Timestamp::from_secs(
        i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        )
        .unwrap()
            + 3600,
    )
    .unwrap();
    let bob = c
        .update_guild_member(gid, user("bob"))
        .nick(Some("Bobby"))
        .mute(true)
        .channel_id(Some(gaming))
        .communication_disabled_until(Some(until))
        .reason("twilight: moderate")
        .await
        .expect("update member")
        .model()
        .await
        .expect("twilight parses the member");
    assert_eq!(bob.nick.as_deref(), Some("Bobby"));
    assert!(bob.mute);
    assert_eq!(
        bob.communication_disabled_until.map(|t| t.as_secs()),
        Some(until.as_secs())
    );

    // twilight reads no body here; the reference answers 200 with the member.
    let me = c
        .update_current_member(gid)
        .nick(Some("Twilight"))
        .await
        .expect("update current member");
    assert_eq!(me.status().get(), 200);
    let bot = t.emu.state().bot_user_id.clone();
    let nick = t.emu.state().guilds[0].member(&bot).unwrap().nick.clone();
    assert_eq!(nick.as_deref(), Some("Twilight"));

    let resp = c
        .remove_guild_member(gid, user("heidi"))
        .reason("twilight: kick")
        .await
        .expect("kick");
    assert_eq!(resp.status().get(), 204);
    let log = c
        .audit_log(gid)
        .action_type(AuditLogEventType::MemberKick)
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses the audit log");
    assert_eq!(log.entries[0].target_id, Some(user("heidi").cast()));
    assert_eq!(log.entries[0].reason.as_deref(), Some("twilight: kick"));
    let moves = c
        .audit_log(gid)
        .action_type(AuditLogEventType::MemberMove)
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses a move's options");
    let opts = moves.entries[0].options.as_ref().expect("options");
    assert_eq!(opts.channel_id, Some(gaming));
    assert_eq!(
        opts.count.as_deref(),
        Some("1"),
        "option values are strings"
    );

    let added = c
        .add_guild_member(gid, id("900000000000000001"), "newbie-join")
        .nick("Newbie")
        .await
        .expect("add member");
    assert_eq!(added.status().get(), 201);
    let again = c
        .add_guild_member(gid, id("900000000000000001"), "newbie-join")
        .await
        .expect("add member again");
    assert_eq!(again.status().get(), 204);
}

/// Prune through twilight: the count and the prune agree, by the role rule.
#[tokio::test]
async fn prune_count_then_prune() {
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let member: Id<RoleMarker> = id(&t.role("Member"));
    let count = c
        .guild_prune_count(gid)
        .days(30)
        .include_roles(&[member])
        .await
        .expect("prune count")
        .model()
        .await
        .expect("twilight parses the count");
    assert_eq!(count.pruned, 2);
    let pruned = c
        .create_guild_prune(gid)
        .days(30)
        .include_roles(&[member])
        .compute_prune_count(true)
        .reason("twilight: prune")
        .await
        .expect("prune")
        .model()
        .await
        .expect("twilight parses the prune");
    assert_eq!(pruned.pruned, 2);
    let log = c
        .audit_log(gid)
        .action_type(AuditLogEventType::MemberPrune)
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses the prune entry");
    let opts = log.entries[0].options.as_ref().expect("options");
    assert_eq!(opts.delete_member_days.as_deref(), Some("30"));
    assert_eq!(opts.members_removed.as_deref(), Some("2"));
}
