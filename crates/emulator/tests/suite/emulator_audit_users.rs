//! The audit log records who did what for every user, not only the bot: a human
//! member acting with its own token leaves entries with its user id, reason, changes
//! and options, and the filters and ordering rules (§7.3) hold across users.

use crate::emulator_support;

use discord_emulator::default_state;
use discord_emulator::state::BotToken;
use emulator_support::T;
use reqwest::Method;
use serde_json::{Value, json};

const HUMAN: &str = "human-token-for-audit-tests";

async fn as_human(t: &T, method: Method, path: &str, body: Value, reason: &str) -> u16 {
    t.http
        .request(method, format!("{}{path}", t.emu.api_base))
        .header("Authorization", format!("Bot {HUMAN}"))
        .header("X-Audit-Log-Reason", reason.replace(' ', "%20"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_humans_writes_are_audited_as_theirs_and_filters_hold() {
    let mut st = default_state();
    let owner = st.guilds[0].owner_id.clone();
    st.tokens.push(BotToken {
        token: HUMAN.into(),
        user_id: owner.clone(),
    });
    let t = T::with(st).await;
    let g = t.g();
    let moderator = t.role("Moderator");
    let status = as_human(
        &t,
        Method::PATCH,
        &format!("/guilds/{g}/roles/{moderator}"),
        json!({"color": 255}),
        "by hand",
    )
    .await;
    assert_eq!(status, 200);
    let status = as_human(
        &t,
        Method::POST,
        &format!("/guilds/{g}/roles"),
        json!({"name": "Hand", "permissions": "8"}),
        "new role",
    )
    .await;
    assert_eq!(status, 200);
    let chan = t.emu.state().guilds[0]
        .channels
        .iter()
        .find(|c| c.kind == 0)
        .unwrap()
        .id
        .clone();
    let status = as_human(
        &t,
        Method::PUT,
        &format!("/channels/{chan}/permissions/{moderator}"),
        json!({"type": 0, "allow": "8192", "deny": "0"}),
        "ow",
    )
    .await;
    assert_eq!(status, 204);

    // Newest first by default: the overwrite, the create, the update.
    let mine = t.audit(&format!("?user_id={owner}")).await;
    let kinds: Vec<u64> = mine
        .iter()
        .map(|e| e["action_type"].as_u64().unwrap())
        .collect();
    assert_eq!(kinds, vec![13, 30, 31], "{mine:#?}");
    let update = &mine[2];
    assert_eq!(update["target_id"], moderator.as_str());
    assert_eq!(update["reason"], "by hand");
    let color = update["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "color")
        .unwrap();
    assert_eq!(color["new_value"], 255);
    assert!(color.get("old_value").is_some());
    let create = &mine[1];
    assert_eq!(create["reason"], "new role");
    assert!(
        create["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["key"] == "permissions" && c["new_value"] == "8")
    );
    let ow = &mine[0];
    assert_eq!(ow["target_id"], chan.as_str());
    assert_eq!(ow["options"]["id"], moderator.as_str());
    assert_eq!(ow["options"]["type"], "0");
    assert_eq!(ow["options"]["role_name"], "Moderator");
    // The user is resolved in `users`.
    let (_, page) = t
        .get(&format!("/guilds/{g}/audit-logs?user_id={owner}"))
        .await;
    assert!(
        page["users"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["id"] == owner.as_str())
    );

    // after → oldest first; before → newest first, strictly older; limit cuts.
    let asc = t.audit(&format!("?user_id={owner}&after=0")).await;
    let ids: Vec<u64> = asc
        .iter()
        .map(|e| e["id"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let before = t
        .audit(&format!("?user_id={owner}&before={}", ids[2]))
        .await;
    assert_eq!(before.len(), 2);
    assert_eq!(before[0]["id"], asc[1]["id"]);
    let after = t
        .audit(&format!("?user_id={owner}&after={}&limit=1", ids[0]))
        .await;
    assert_eq!(after[0]["id"], asc[1]["id"]);
    assert_eq!(
        t.audit(&format!("?action_type=31&target_id={moderator}"))
            .await
            .len(),
        1
    );
    // The bot did nothing: nothing is filed under it.
    let bot = t.emu.state().bot_user_id;
    assert!(t.audit(&format!("?user_id={bot}")).await.is_empty());
}

/// Discord's permission migrations (212 pin messages, 213 bypass slowmode) are audit
/// entries of types the OpenAPI enum does not list, made by no user. A state put through
/// `PUT /_emulator/state` holds them, and the log serves and filters them as any other.
#[tokio::test]
async fn a_permission_migration_entry_put_in_the_state_is_served() {
    let t = T::new().await;
    let base = &t.emu.base_url;
    let moderator = t.role("Moderator");
    // Made now: within the log's 45 days.
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let id = ((now_ms - 1_420_070_400_000) << 22).to_string();
    let mut st: Value = t
        .http
        .get(format!("{base}/_emulator/state"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let entry = json!({
        "id": id,
        "action_type": 212,
        "user_id": null,
        "target_id": moderator,
        "changes": [{"key": "permissions", "old_value": "8192", "new_value": "2251799813693440"}]
    });
    st["guilds"][0]["audit_log"]
        .as_array_mut()
        .unwrap()
        .push(entry.clone());
    let r = t
        .http
        .put(format!("{base}/_emulator/state"))
        .json(&st)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let served = t.audit("?action_type=212").await;
    assert_eq!(served, vec![entry], "{served:#?}");
    let all = t.audit("").await;
    assert!(all.iter().any(|e| e["action_type"] == 212), "{all:#?}");
    assert!(
        t.audit(&format!("?action_type=213&target_id={moderator}"))
            .await
            .is_empty()
    );
}
