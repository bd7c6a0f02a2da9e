//! Members and bans over real HTTP: the member listing behind the GUILD_MEMBERS intent,
//! role member counts, giving and taking roles (hierarchy, managed roles, audit entries),
//! bans with their paging and the bulk ban with its partial failures.

use crate::emulator_support;

use discord_emulator::default_state;
use discord_permissions::Permissions;
use emulator_support::{T, err_code};
use reqwest::Method;
use serde_json::{Value, json};

fn user(t: &T, name: &str) -> String {
    // Users are looked up by username in the state, as a test writer knows them.
    t.emu
        .state()
        .users
        .iter()
        .find(|u| u.username == name)
        .unwrap_or_else(|| panic!("user {name}"))
        .id
        .clone()
}

fn holds(t: &T, name: &str, role: &str) -> bool {
    let (uid, rid) = (user(t, name), t.role(role));
    t.emu.state().guilds[0]
        .member(&uid)
        .is_some_and(|m| m.roles.contains(&rid))
}

#[tokio::test]
async fn member_counts_cover_every_role_but_everyone() {
    let t = T::new().await;
    let (s, v) = t
        .get(&format!("/guilds/{}/roles/member-counts", t.g()))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v[t.role("Moderator")], json!(2));
    assert_eq!(v[t.role("Member")], json!(9));
    assert_eq!(v[t.role("Admin")], json!(1));
    assert!(v.get(t.g()).is_none(), "@everyone is left out: {v}");
    assert_eq!(v.as_object().unwrap().len(), 8);
}

#[tokio::test]
async fn giving_and_taking_a_role_is_audited_with_its_reason() {
    let t = T::new().await;
    let (g, heidi, helper) = (t.g(), user(&t, "heidi"), t.role("Helper"));
    let path = format!("/guilds/{g}/members/{heidi}/roles/{helper}");
    let (s, _) = t
        .call(Method::PUT, &path, None, Some("roster%20change"))
        .await;
    assert_eq!(s, 204);
    assert!(holds(&t, "heidi", "Helper"));
    // Giving it again changes nothing and logs nothing.
    let (s, _) = t.call(Method::PUT, &path, None, None).await;
    assert_eq!(s, 204);
    let (s, _) = t.call(Method::DELETE, &path, None, Some("off")).await;
    assert_eq!(s, 204);
    assert!(!holds(&t, "heidi", "Helper"));
    let entries = t.audit("?action_type=25").await;
    assert_eq!(entries.len(), 2, "{entries:?}");
    let removed = &entries[0];
    assert_eq!(removed["target_id"], json!(heidi));
    assert_eq!(removed["reason"], json!("off"));
    assert_eq!(removed["changes"][0]["key"], json!("$remove"));
    assert_eq!(
        removed["changes"][0]["new_value"],
        json!([{ "id": helper, "name": "Helper" }])
    );
    assert_eq!(entries[1]["changes"][0]["key"], json!("$add"));
    assert_eq!(entries[1]["reason"], json!("roster change"));
}

#[tokio::test]
async fn role_changes_follow_the_hierarchy_and_refuse_managed_roles() {
    let t = T::new().await;
    let (g, heidi) = (t.g(), user(&t, "heidi"));
    let role_path = |r: &str| format!("/guilds/{g}/members/{heidi}/roles/{r}");
    // Admin sits above the bot's own role.
    let (s, v) = t.put(&role_path(&t.role("Admin")), Value::Null).await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t.put(&role_path(&t.role("guildctl")), Value::Null).await;
    assert_eq!((s, err_code(&v)), (400, 50028), "the bot's managed role");
    let (s, v) = t
        .put(&role_path(&t.role("Server Booster")), Value::Null)
        .await;
    assert_eq!((s, err_code(&v)), (400, 50028));
    let (s, v) = t.put(&role_path(&g), Value::Null).await;
    assert_eq!((s, err_code(&v)), (400, 50028), "@everyone");
    let (s, v) = t.put(&role_path("1234567890123456789"), Value::Null).await;
    assert_eq!((s, err_code(&v)), (404, 10011));
    // A user who is not a member (banned, left).
    let gone = user(&t, "free_nitro_4u");
    let helper = t.role("Helper");
    let (s, v) = t
        .put(
            &format!("/guilds/{g}/members/{gone}/roles/{helper}"),
            Value::Null,
        )
        .await;
    assert_eq!((s, err_code(&v)), (404, 10007));
    assert!(t.audit("?action_type=25").await.is_empty());

    let weak = T::non_admin(Permissions::BAN_MEMBERS).await;
    let (s, v) = weak
        .put(
            &format!(
                "/guilds/{}/members/{}/roles/{}",
                weak.g(),
                user(&weak, "heidi"),
                weak.role("Helper")
            ),
            Value::Null,
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013), "MANAGE_ROLES is needed");
}

#[tokio::test]
async fn members_are_listed_by_id_in_pages_only_with_the_intent() {
    let t = T::new().await;
    let g = t.g();
    let mut seen: Vec<String> = Vec::new();
    let mut after = "0".to_owned();
    loop {
        let (s, page) = t
            .get(&format!("/guilds/{g}/members?limit=4&after={after}"))
            .await;
        assert_eq!(s, 200, "{page}");
        let ids: Vec<String> = page
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["user"]["id"].as_str().unwrap().to_owned())
            .collect();
        assert!(ids.len() <= 4);
        let Some(last) = ids.last().cloned() else {
            break;
        };
        seen.extend(ids);
        after = last;
    }
    let mut sorted = seen.clone();
    sorted.sort_by_key(|id| id.parse::<u64>().unwrap());
    assert_eq!(seen, sorted, "ascending user id");
    assert_eq!(seen.len(), t.emu.state().guilds[0].members.len());
    let (s, page) = t.get(&format!("/guilds/{g}/members")).await;
    assert_eq!(
        (s, page.as_array().map(Vec::len)),
        (200, Some(1)),
        "limit defaults to 1"
    );
    let (s, v) = t.get(&format!("/guilds/{g}/members?limit=1001")).await;
    assert_eq!((s, err_code(&v)), (400, 50035));

    let mut st = default_state();
    st.config.guild_members_intent = false;
    let t = T::with(st).await;
    let (s, v) = t
        .get(&format!("/guilds/{}/members?limit=1000", t.g()))
        .await;
    assert_eq!((s, err_code(&v)), (403, 50001), "{v}");
    // One member is still read by id.
    let (s, _) = t
        .get(&format!("/guilds/{}/members/{}", t.g(), user(&t, "alice")))
        .await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn bans_page_by_user_id_and_a_ban_removes_the_member() {
    let t = T::new().await;
    let g = t.g();
    let (s, v) = t.get(&format!("/guilds/{g}/bans")).await;
    assert_eq!(s, 200);
    let listed: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["user"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["free_nitro_4u", "raid_leader"]);
    assert_eq!(v[0]["reason"], json!("Spam links in #general"));
    assert_eq!(v[1]["reason"], Value::Null);

    let ivan = user(&t, "ivan");
    let (s, _) = t
        .call(
            Method::PUT,
            &format!("/guilds/{g}/bans/{ivan}"),
            Some(json!({"delete_message_seconds": 3600})),
            Some("alt%20account"),
        )
        .await;
    assert_eq!(s, 204);
    assert!(
        t.emu.state().guilds[0].member(&ivan).is_none(),
        "a ban removes the member"
    );
    let (s, b) = t.get(&format!("/guilds/{g}/bans/{ivan}")).await;
    assert_eq!((s, &b["reason"]), (200, &json!("alt account")));
    let entry = &t.audit("?action_type=22").await[0];
    assert_eq!(
        (&entry["target_id"], &entry["reason"]),
        (&json!(ivan), &json!("alt account"))
    );

    // Paging: three bans, one at a time after each other, and before the last.
    let first = {
        let (_, v) = t.get(&format!("/guilds/{g}/bans?limit=1")).await;
        v[0]["user"]["id"].as_str().unwrap().to_owned()
    };
    let (_, v) = t
        .get(&format!("/guilds/{g}/bans?limit=1&after={first}"))
        .await;
    let second = v[0]["user"]["id"].as_str().unwrap().to_owned();
    let (_, v) = t
        .get(&format!("/guilds/{g}/bans?limit=2&after={second}"))
        .await;
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    let third = v[0]["user"]["id"].as_str().unwrap().to_owned();
    let (_, v) = t
        .get(&format!(
            "/guilds/{g}/bans?limit=5&before={third}&after={third}"
        ))
        .await;
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["user"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [first.as_str(), second.as_str()],
        "before wins over after"
    );

    let (s, _) = t
        .call(
            Method::DELETE,
            &format!("/guilds/{g}/bans/{ivan}"),
            None,
            Some("appeal"),
        )
        .await;
    assert_eq!(s, 204);
    assert_eq!(
        t.audit("?action_type=23").await[0]["reason"],
        json!("appeal")
    );
    let (s, v) = t.delete(&format!("/guilds/{g}/bans/{ivan}")).await;
    assert_eq!((s, err_code(&v)), (404, 10026));
    let (s, v) = t.get(&format!("/guilds/{g}/bans/{ivan}")).await;
    assert_eq!((s, err_code(&v)), (404, 10026));

    // The owner and members ranked at or above the bot cannot be banned.
    let (s, v) = t
        .put(
            &format!("/guilds/{g}/bans/{}", user(&t, "ferris")),
            Value::Null,
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, v) = t
        .put(
            &format!("/guilds/{g}/bans/9999999999999999999"),
            Value::Null,
        )
        .await;
    assert_eq!((s, err_code(&v)), (404, 10013));
}

#[tokio::test]
async fn bulk_ban_reports_partial_failure_and_fails_whole_with_500000() {
    let t = T::new().await;
    let g = t.g();
    let (heidi, ivan, spammer) = (
        user(&t, "heidi"),
        user(&t, "ivan"),
        user(&t, "free_nitro_4u"),
    );
    let unknown = "9999999999999999999";
    let (s, v) = t
        .call(
            Method::POST,
            &format!("/guilds/{g}/bulk-ban"),
            Some(json!({"user_ids": [heidi, spammer, ivan, unknown]})),
            Some("raid%20wave%202"),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["banned_users"], json!([heidi, ivan]));
    assert_eq!(
        v["failed_users"],
        json!([spammer, unknown]),
        "already banned is failed"
    );
    let entries = t.audit("?action_type=22").await;
    assert_eq!(entries.len(), 2);
    assert!(entries.iter().all(|e| e["reason"] == json!("raid wave 2")));

    let (s, v) = t
        .post(
            &format!("/guilds/{g}/bulk-ban"),
            json!({"user_ids": [heidi, spammer]}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 500_000), "{v}");

    let too_many: Vec<String> = (0..201)
        .map(|i| format!("{}", 100_000_000_000_000_000u64 + i))
        .collect();
    let (s, v) = t
        .post(
            &format!("/guilds/{g}/bulk-ban"),
            json!({"user_ids": too_many}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (400, 50035));
    assert_eq!(
        v["errors"]["user_ids"]["_errors"][0]["code"],
        json!("BASE_TYPE_MAX_LENGTH")
    );
    let (s, v) = t.post(&format!("/guilds/{g}/bulk-ban"), json!({})).await;
    assert_eq!((s, err_code(&v)), (400, 50035));

    // BAN_MEMBERS alone is not enough for the bulk route.
    let weak = T::non_admin(Permissions::BAN_MEMBERS).await;
    let (s, v) = weak
        .post(
            &format!("/guilds/{}/bulk-ban", weak.g()),
            json!({"user_ids": [user(&weak, "heidi")]}),
        )
        .await;
    assert_eq!((s, err_code(&v)), (403, 50013));
    let (s, _) = weak
        .put(
            &format!("/guilds/{}/bans/{}", weak.g(), user(&weak, "heidi")),
            Value::Null,
        )
        .await;
    assert_eq!(s, 204, "the single ban needs BAN_MEMBERS only");
}

/// A member overwrite names a member of the guild: one for a user who is not a member is
/// refused (Discord refused one for a user who had left: [I:Cog-Creators/Red-DiscordBot#3627]),
/// and a member's overwrites go when they leave, banned or kicked ("Discord does not preserve
/// user overrides after the user has left & rejoined": [I:Erisa/Cliptok#158]).
#[tokio::test]
async fn member_overwrites_name_members_and_go_when_they_leave() {
    let t = T::new().await;
    let (g, general) = (t.g(), t.chan("general"));
    let (ivan, heidi) = (user(&t, "ivan"), user(&t, "heidi"));
    let banned = user(&t, "free_nitro_4u");
    let ow = |id: &str| json!({ "id": id, "type": 1, "allow": "2048", "deny": "0" });
    let path = format!("/channels/{general}");
    let (s, v) = t
        .patch(&path, json!({ "permission_overwrites": [ow(&banned)] }))
        .await;
    assert_eq!((s, err_code(&v)), (404, 10013), "{v}");
    let (s, v) = t
        .patch(
            &path,
            json!({ "permission_overwrites": [ow(&ivan), ow(&heidi)] }),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let members_named = |c: &Value| -> Vec<String> {
        c["permission_overwrites"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["type"] == json!(1))
            .map(|o| o["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(members_named(&t.channel(&general).await).len(), 2);

    let (s, _) = t.put(&format!("/guilds/{g}/bans/{ivan}"), json!({})).await;
    assert_eq!(s, 204);
    assert_eq!(
        members_named(&t.channel(&general).await),
        vec![heidi.clone()]
    );
    let entries = t.audit("").await.len();
    let (s, _) = t.delete(&format!("/guilds/{g}/members/{heidi}")).await;
    assert_eq!(s, 204);
    assert!(members_named(&t.channel(&general).await).is_empty());
    // The kick is logged; the overwrite's going is not (a side effect, as Discord's).
    assert_eq!(t.audit("").await.len(), entries + 1);
}
