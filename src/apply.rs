//! Executes a plan's operations in order, filling in the ids of objects created
//! earlier in the run, with the audit-log reason on every call that takes one.

use std::collections::HashMap;

use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use crate::discord::{Client, ClientError};
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
#[error("operation refers to {0}, which was not created in this run")]
pub struct Unresolved(String);

/// Runs the plan. Stops at the first failure: everything after it is skipped,
/// so the guild is left in a state that a rerun of `apply` completes.
pub async fn apply(
    client: &Client,
    plan: &Plan,
    reason: &str,
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
        let result = run_one(client, op, reason, &out.created).await;
        match result {
            Ok(response) => {
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

async fn run_one(
    client: &Client,
    op: &Operation,
    reason: &str,
    created: &HashMap<String, String>,
) -> Result<Option<Value>, ClientError> {
    let method = Method::from_bytes(op.method.as_bytes()).map_err(|e| ClientError::Transport {
        method: Method::GET,
        path: op.path.clone(),
        detail: format!("bad method {}: {e}", op.method),
    })?;
    let body = match &op.body {
        Some(b) => Some(resolve(b, created).map_err(|e| ClientError::Transport {
            method: method.clone(),
            path: op.path.clone(),
            detail: e.to_string(),
        })?),
        None => None,
    };
    let reason = op.audited.then_some(reason);
    client.send(method, &op.path, body.as_ref(), reason).await
}

/// Replaces every `{"$created": KEY}` in `v` with the id created under KEY.
pub fn resolve(v: &Value, created: &HashMap<String, String>) -> Result<Value, Unresolved> {
    if let Some(key) = created_key(v) {
        return created
            .get(key)
            .map(|id| Value::String(id.clone()))
            .ok_or_else(|| Unresolved(key.to_owned()));
    }
    Ok(match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve(i, created))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve(v, created)?)))
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
        assert_eq!(
            resolve(&body, &created).unwrap(),
            json!({"permission_overwrites": [{"id": "123", "type": 0}], "name": "x"})
        );
        assert!(resolve(&json!({"$created": "role:B"}), &created).is_err());
    }
}
