//! What apply does differently for rosters and bans: a bulk ban's `failed_users` (and the
//! 500000 error, when nobody was banned) are looked up one by one, since Discord counts a
//! user already banned as failed, and only users still not banned are a failure; a roster
//! member who left the guild since the plan is reported, not a failure.

use serde::Deserialize;
use serde_json::Value;

use crate::discord::{Client, ClientError, Route};

/// Discord's "Failed to ban users": nobody in the call could be banned.
const FAILED_TO_BAN: i64 = 500_000;
/// Unknown Member.
const UNKNOWN_MEMBER: i64 = 10_007;

#[derive(Deserialize)]
struct BulkBanned {
    #[serde(default)]
    failed_users: Vec<String>,
}

/// Sends one bulk ban; users Discord lists as failed are asked after, and the call fails
/// only for those it did not ban and who are not banned now.
pub(super) async fn bulk_ban(
    client: &Client,
    route: &Route,
    guild: &str,
    body: Option<&Value>,
    reason: &str,
) -> Result<Option<String>, ClientError> {
    let named: Vec<String> = body
        .and_then(|b| b.get("user_ids"))
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let failed = match client.call(route, body, Some(reason)).await {
        Ok(response) => response
            .and_then(|v| serde_json::from_value::<BulkBanned>(v).ok())
            .map(|b| b.failed_users)
            .unwrap_or_default(),
        Err(ClientError::Api(e)) if e.code() == Some(FAILED_TO_BAN) => named.clone(),
        Err(e) => return Err(e),
    };
    if failed.is_empty() {
        return Ok(None);
    }
    let mut not_banned = Vec::new();
    for user in &failed {
        match client
            .get::<Value>(&format!("/guilds/{guild}/bans/{user}"))
            .await
        {
            Ok(_) => {}
            Err(ClientError::Api(e)) if e.status.as_u16() == 404 => not_banned.push(user.clone()),
            Err(e) => return Err(e),
        }
    }
    let already = failed.len() - not_banned.len();
    if not_banned.is_empty() {
        return Ok(Some(format!(
            "{already} of {} user(s) were banned already",
            named.len()
        )));
    }
    Err(ClientError::Partial {
        method: route.method(),
        path: route.path(),
        detail: format!(
            "Discord banned {} of {} user(s); these are not banned (unknown users, the guild's owner, or members ranked at or above the bot): {}",
            named.len() - failed.len(),
            named.len(),
            not_banned.join(", ")
        ),
    })
}

/// A role given to or taken from a user who is no longer a member: nothing to do, said so.
pub(super) fn member_gone(route: &Route, e: &ClientError) -> Option<String> {
    let ClientError::Api(api) = e else {
        return None;
    };
    let (Route::AddMemberRole { user, .. } | Route::RemoveMemberRole { user, .. }) = route else {
        return None;
    };
    (api.status.as_u16() == 404 && api.code() == Some(UNKNOWN_MEMBER)).then(|| {
        format!("user {user} is no longer a member of the guild (left since the plan); nothing to give or take")
    })
}
