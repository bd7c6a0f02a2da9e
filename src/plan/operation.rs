//! An operation: one API call of a plan, as a typed route with its body, and the
//! placeholders that name what an earlier call of the run creates.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use crate::discord::Route;

/// One API call. Ids of objects created earlier in the same run appear in its route as
/// [`IdRef::New`] and in bodies as `{"$created": KEY}`, and are filled in by `apply`.
///
/// A saved plan writes the route and, beside it, its method and path for people and for
/// the changes digest; they are read back only to be checked against the route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "WireOperation", try_from = "WireOperation")]
pub struct Operation {
    /// The call: its method, path, audit-log reason and bucket follow from it.
    pub route: Route<IdRef>,
    /// The JSON body, with placeholders for what earlier calls create; none for a call
    /// that sends none.
    pub body: Option<Value>,
    /// The key under which the id of the object this call creates is remembered.
    pub creates: Option<String>,
    /// The audit-log reason this call sends instead of apply's (a ban's own reason).
    pub reason: Option<String>,
    /// A short human description, for progress output.
    pub summary: String,
    /// Index into `Plan::changes` of the change this call implements.
    pub change: usize,
    /// Indexes of the operations this one needs done first (see [`Plan::prerequisites`](super::Plan::prerequisites)).
    pub after: Vec<usize>,
    /// Its place in the order of kinds of call (roles, channels, settings, ...,
    /// deletions); later stages from settings on wait for every earlier stage.
    pub stage: u8,
}

/// An operation as a saved plan writes it.
#[skip_serializing_none]
#[derive(Serialize, Deserialize)]
struct WireOperation {
    route: Route<IdRef>,
    method: String,
    path: String,
    body: Option<Value>,
    creates: Option<String>,
    reason: Option<String>,
    summary: String,
    change: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    after: Vec<usize>,
    stage: u8,
}

impl From<Operation> for WireOperation {
    fn from(op: Operation) -> WireOperation {
        WireOperation {
            method: op.route.method().to_string(),
            path: op.route.path(),
            route: op.route,
            body: op.body,
            creates: op.creates,
            reason: op.reason,
            summary: op.summary,
            change: op.change,
            after: op.after,
            stage: op.stage,
        }
    }
}

impl TryFrom<WireOperation> for Operation {
    type Error = String;

    fn try_from(w: WireOperation) -> Result<Operation, String> {
        let (method, path) = (w.route.method(), w.route.path());
        if w.method != method.as_str() || w.path != path {
            return Err(format!(
                "an operation shows {} {} but its route is {method} {path}",
                w.method, w.path
            ));
        }
        Ok(Operation {
            route: w.route,
            body: w.body,
            creates: w.creates,
            reason: w.reason,
            summary: w.summary,
            change: w.change,
            after: w.after,
            stage: w.stage,
        })
    }
}

impl Operation {
    /// The creation keys this operation's route and body refer to.
    pub fn references(&self) -> Vec<String> {
        fn walk(v: &Value, out: &mut Vec<String>) {
            if let Some(k) = created_key(v) {
                out.push(k.to_owned());
                return;
            }
            match v {
                Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
                Value::Object(m) => m.values().for_each(|i| walk(i, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(b) = &self.body {
            walk(b, &mut out);
        }
        out.extend(
            self.route
                .ids()
                .filter_map(IdRef::created)
                .map(str::to_owned),
        );
        out
    }
}

/// An id known now (live) or only once an earlier call of the run has created the object.
/// In a saved plan, the id itself or `{"$created": KEY}`; in a path, `{$created:KEY}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdRef {
    /// A live object's id.
    Live(String),
    /// The creation key of an object an earlier call of the run creates.
    New(String),
}

impl IdRef {
    /// The id a model of the guild knows the object by: the live id, or the creation key.
    pub fn key(&self) -> &str {
        match self {
            IdRef::Live(id) | IdRef::New(id) => id,
        }
    }

    /// As a body holds it: the id, or `{"$created": KEY}`.
    pub fn to_value(&self) -> Value {
        match self {
            IdRef::Live(id) => Value::String(id.clone()),
            IdRef::New(key) => created_ref(key),
        }
    }

    /// The live id, for an object that exists before the run.
    pub fn live(&self) -> Option<&str> {
        match self {
            IdRef::Live(id) => Some(id),
            IdRef::New(_) => None,
        }
    }

    /// The creation key, for an object created earlier in the run.
    pub fn created(&self) -> Option<&str> {
        match self {
            IdRef::Live(_) => None,
            IdRef::New(key) => Some(key),
        }
    }
}

impl Serialize for IdRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for IdRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<IdRef, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Live(String),
            New {
                #[serde(rename = "$created")]
                key: String,
            },
        }
        Ok(match Wire::deserialize(d)? {
            Wire::Live(id) => IdRef::Live(id),
            Wire::New { key } => IdRef::New(key),
        })
    }
}

/// As a path shows it: the id, or `{$created:KEY}`.
impl std::fmt::Display for IdRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdRef::Live(id) => f.write_str(id),
            IdRef::New(key) => f.write_str(&created_path_ref(key)),
        }
    }
}

/// The placeholder for the id of an object created earlier in the run.
pub fn created_ref(key: &str) -> Value {
    serde_json::json!({ "$created": key })
}

/// The placeholder for a created object's id inside an operation's path.
pub fn created_path_ref(key: &str) -> String {
    format!("{{$created:{key}}}")
}

/// The placeholder for an image file next to the manifest, sent as a data URI of its bytes
/// once apply has checked that their SHA-256 is `sha256`, the digest the plan was made with.
pub fn image_ref(path: &str, sha256: &str) -> Value {
    serde_json::json!({ "$image": path, "sha256": sha256 })
}

/// The key in a `{"$created": KEY}` placeholder, if `v` is one.
pub fn created_key(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) if m.len() == 1 => m.get("$created").and_then(Value::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved operation is its route, with the method and path shown beside it; a file whose
    /// shown path is not its route's is not a plan (a reviewer would read one call, apply
    /// derive another).
    #[test]
    fn a_saved_operation_shows_its_routes_method_and_path_and_is_read_by_its_route() {
        let op = Operation {
            route: Route::CreateWebhook {
                channel: IdRef::New("channel:Staff/mod-log".into()),
            },
            body: Some(serde_json::json!({"name": "hook"})),
            creates: Some("webhook:hook".into()),
            reason: None,
            summary: "create webhook hook".into(),
            change: 0,
            after: vec![],
            stage: 8,
        };
        let json = serde_json::to_value(&op).unwrap();
        assert_eq!(
            json["route"],
            serde_json::json!({"create_webhook": {"channel": {"$created": "channel:Staff/mod-log"}}})
        );
        assert_eq!(json["method"], "POST");
        assert_eq!(
            json["path"],
            "/channels/{$created:channel:Staff/mod-log}/webhooks"
        );
        assert_eq!(
            serde_json::from_value::<Operation>(json.clone()).unwrap(),
            op
        );
        assert_eq!(op.references(), ["channel:Staff/mod-log"]);

        let mut lying = json;
        lying["path"] = serde_json::json!("/channels/1/webhooks");
        let e = serde_json::from_value::<Operation>(lying)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("an operation shows POST /channels/1/webhooks but its route is POST /channels/{$created:channel:Staff/mod-log}/webhooks"),
            "{e}"
        );
    }
}
