//! Executes a plan's operations in order, filling in the ids of objects created
//! earlier in the run, with the audit-log reason on every call that takes one.

use std::collections::HashMap;
use std::path::Path;

use base64::Engine;

use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use crate::discord::{Client, ClientError, Secret};
use crate::plan::{Operation, Plan, created_key};

/// What happened to each operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Done,
    Failed,
    Skipped,
}

/// Progress reported once per operation.
pub struct Progress<'a> {
    pub index: usize,
    pub total: usize,
    pub operation: &'a Operation,
    pub status: Status,
    pub error: Option<&'a ClientError>,
}

#[derive(Debug, Default)]
pub struct Outcome {
    pub statuses: Vec<Status>,
    /// The first failure: the operation's index and the error.
    pub failure: Option<(usize, ClientError)>,
    /// Creation key → id of the object created.
    pub created: HashMap<String, String>,
    /// Name and URL (with its token: a secret) of each webhook created.
    pub webhook_urls: Vec<(String, Secret)>,
}

impl Outcome {
    pub fn count(&self, status: Status) -> usize {
        self.statuses.iter().filter(|s| **s == status).count()
    }

    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Unresolved {
    #[error("operation refers to {0}, which was not created in this run")]
    Created(String),
    #[error("avatar {0}")]
    Image(String),
}

/// Runs the plan. Stops at the first failure: everything after it is skipped,
/// so the guild is left in a state that a rerun of `apply` completes.
/// `manifest_dir` is where image paths in the plan (webhook avatars) are read from.
pub async fn apply(
    client: &Client,
    plan: &Plan,
    reason: &str,
    manifest_dir: &Path,
    mut progress: impl FnMut(Progress<'_>),
) -> Outcome {
    let total = plan.operations.len();
    let mut out = Outcome::default();
    for (index, op) in plan.operations.iter().enumerate() {
        if out.failure.is_some() {
            out.statuses.push(Status::Skipped);
            progress(Progress {
                index,
                total,
                operation: op,
                status: Status::Skipped,
                error: None,
            });
            continue;
        }
        let result = run_one(client, op, reason, &out.created, manifest_dir).await;
        match result {
            Ok(response) => {
                if let Some(url) = webhook_url(client, op, response.as_ref()) {
                    out.webhook_urls.push(url);
                }
                if let (Some(key), Some(id)) = (
                    &op.creates,
                    response
                        .as_ref()
                        .and_then(|v| v.get("id"))
                        .and_then(Value::as_str),
                ) {
                    out.created.insert(key.clone(), id.to_owned());
                }
                out.statuses.push(Status::Done);
                progress(Progress {
                    index,
                    total,
                    operation: op,
                    status: Status::Done,
                    error: None,
                });
            }
            Err(e) => {
                out.statuses.push(Status::Failed);
                progress(Progress {
                    index,
                    total,
                    operation: op,
                    status: Status::Failed,
                    error: Some(&e),
                });
                out.failure = Some((index, e));
            }
        }
    }
    out
}

/// The URL of a webhook this operation created, from the response's token.
fn webhook_url(
    client: &Client,
    op: &Operation,
    response: Option<&Value>,
) -> Option<(String, Secret)> {
    let name = op.creates.as_deref()?.strip_prefix("webhook:")?;
    let response = response?;
    let id = response.get("id")?.as_str()?;
    let token = response.get("token")?.as_str()?;
    let url = format!("{}/webhooks/{id}/{token}", client.api_base());
    Some((name.to_owned(), Secret::new(url)))
}

async fn run_one(
    client: &Client,
    op: &Operation,
    reason: &str,
    created: &HashMap<String, String>,
    manifest_dir: &Path,
) -> Result<Option<Value>, ClientError> {
    let method = Method::from_bytes(op.method.as_bytes()).map_err(|e| ClientError::Transport {
        method: Method::GET,
        path: op.path.clone(),
        detail: format!("bad method {}: {e}", op.method),
    })?;
    let unresolved = |e: Unresolved| ClientError::Transport {
        method: method.clone(),
        path: op.path.clone(),
        detail: e.to_string(),
    };
    let path = resolve_path(&op.path, created).map_err(unresolved)?;
    let body = match &op.body {
        Some(b) => Some(resolve(b, created, manifest_dir).map_err(unresolved)?),
        None => None,
    };
    let reason = op.audited.then_some(reason);
    client.send(method, &path, body.as_ref(), reason).await
}

/// Replaces `{$created:KEY}` segments of a path with the ids created under KEY.
pub fn resolve_path(path: &str, created: &HashMap<String, String>) -> Result<String, Unresolved> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find("{$created:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{$created:".len()..];
        let end = after
            .find('}')
            .ok_or_else(|| Unresolved::Created(after.to_owned()))?;
        let key = &after[..end];
        out.push_str(
            created
                .get(key)
                .ok_or_else(|| Unresolved::Created(key.to_owned()))?,
        );
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Replaces every `{"$created": KEY}` in `v` with the id created under KEY, and
/// every `{"$image": PATH}` with the image's data URI.
pub fn resolve(
    v: &Value,
    created: &HashMap<String, String>,
    manifest_dir: &Path,
) -> Result<Value, Unresolved> {
    if let Some(key) = created_key(v) {
        return created
            .get(key)
            .map(|id| Value::String(id.clone()))
            .ok_or_else(|| Unresolved::Created(key.to_owned()));
    }
    if let Some(path) = v.get("$image").and_then(Value::as_str) {
        let (mime, bytes) =
            crate::manifest::read_image(manifest_dir, path).map_err(Unresolved::Image)?;
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        return Ok(Value::String(format!("data:{mime};base64,{data}")));
    }
    Ok(match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve(i, created, manifest_dir))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve(v, created, manifest_dir)?)))
                .collect::<Result<_, Unresolved>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_are_replaced_at_any_depth() {
        let created = HashMap::from([("role:A".to_owned(), "123".to_owned())]);
        let body = json!({"permission_overwrites": [{"id": {"$created": "role:A"}, "type": 0}], "name": "x"});
        let dir = Path::new(".");
        assert_eq!(
            resolve(&body, &created, dir).unwrap(),
            json!({"permission_overwrites": [{"id": "123", "type": 0}], "name": "x"})
        );
        assert!(resolve(&json!({"$created": "role:B"}), &created, dir).is_err());
        assert_eq!(
            resolve_path("/channels/{$created:role:A}/webhooks", &created).unwrap(),
            "/channels/123/webhooks"
        );
        assert!(resolve_path("/channels/{$created:x}/webhooks", &created).is_err());
    }
}
