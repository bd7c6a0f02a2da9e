//! The request log behind `GET /_emulator/requests`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The request's JSON body (if it parsed), for the layers inside `record`.
#[derive(Clone)]
pub struct RequestJson(pub Option<Value>);

/// One API request the emulator served.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RequestRecord {
    pub method: String,
    /// Path including the query string.
    pub path: String,
    pub status: u16,
    /// The percent-decoded `X-Audit-Log-Reason`.
    pub reason: Option<String>,
    /// The request's JSON body, if it had one.
    pub body: Option<serde_json::Value>,
    /// The injected fault that shaped the response (`status`, `latency`,
    /// `drop_before`, `drop_after`, `storm_429`, `timeout`, `body`), if any. Dropped
    /// connections and timeouts are recorded with status 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The Gateway events the operation fired (`GUILD_MEMBER_UPDATE`, ...), in order;
    /// a refused request fires none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
}

/// The request log must not hold webhook tokens (credentials, §6): the
/// segment after `/webhooks/{id}/` becomes `{webhook_token}`.
pub fn redact_webhook_token(path: &str) -> String {
    let (route, query) = match path.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (path, None),
    };
    let mut parts: Vec<&str> = route.split('/').collect();
    if let Some(i) = parts.iter().position(|p| *p == "webhooks")
        && i > 0
        && parts.get(i + 2).is_some()
        && parts[i - 1] == "v10"
    {
        parts[i + 2] = "{webhook_token}";
    }
    let mut out = parts.join("/");
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}
