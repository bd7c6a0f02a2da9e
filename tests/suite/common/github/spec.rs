//! The description

use super::*;

pub(super) struct Spec {
    doc: Value,
    cache: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl Spec {
    pub(super) fn load() -> Spec {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/github-openapi-subset.json"
        ))
        .expect("the GitHub API subset is present");
        let mut doc: Value = serde_json::from_str(&text).expect("it parses");
        denull(&mut doc);
        Spec {
            doc,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The path template and operation that serve `path` with `method`, and the path's
    /// parameters.
    pub(super) fn route(
        &self,
        method: &Method,
        path: &str,
    ) -> Option<(String, &Value, HashMap<String, String>)> {
        let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let paths = self.doc["paths"].as_object()?;
        for (template, ops) in paths {
            let tsegs: Vec<&str> = template.trim_start_matches('/').split('/').collect();
            if tsegs.len() != segs.len() {
                continue;
            }
            let mut params = HashMap::new();
            let matched = tsegs.iter().zip(&segs).all(|(t, s)| {
                if let Some(name) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                    let value = percent_encoding::percent_decode_str(s).decode_utf8_lossy();
                    params.insert(name.to_owned(), value.into_owned());
                    !s.is_empty()
                } else {
                    t == s
                }
            });
            if let Some(op) = ops.get(method.as_str().to_lowercase()).filter(|_| matched) {
                return Some((template.clone(), op, params));
            }
        }
        None
    }

    pub(super) fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => self
                .doc
                .pointer(r.trim_start_matches('#'))
                .unwrap_or(&Value::Null),
            None => v,
        }
    }

    pub(super) fn errors(&self, key: &str, schema: &Value, instance: &Value) -> Vec<String> {
        let validator = {
            let mut cache = self.cache.lock().unwrap();
            cache
                .entry(key.to_owned())
                .or_insert_with(|| {
                    // The schema with the description's components, so `#/components/...`
                    // references resolve inside it.
                    let mut root = match schema {
                        Value::Object(m) => m.clone(),
                        other => {
                            let mut m = serde_json::Map::new();
                            m.insert("allOf".into(), json!([other]));
                            m
                        }
                    };
                    root.insert("components".into(), self.doc["components"].clone());
                    Arc::new(
                        jsonschema::options()
                            .with_draft(jsonschema::Draft::Draft202012)
                            .should_validate_formats(true)
                            .build(&Value::Object(root))
                            .expect("the description's schema compiles"),
                    )
                })
                .clone()
        };
        validator
            .iter_errors(instance)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }
}

/// OpenAPI 3.0's `nullable: true` as JSON Schema's `null` type (what OpenAPI 3.1 and
/// GitHub's descriptions-next write).
fn denull(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for child in m.values_mut() {
                denull(child);
            }
            if m.get("nullable") == Some(&Value::Bool(true)) {
                m.remove("nullable");
                match m.get("type").cloned() {
                    Some(Value::String(t)) => {
                        m.insert("type".into(), json!([t, "null"]));
                        if let Some(Value::Array(e)) = m.get_mut("enum") {
                            e.push(Value::Null);
                        }
                    }
                    _ => {
                        let inner = Value::Object(std::mem::take(m));
                        m.insert("anyOf".into(), json!([inner, { "type": "null" }]));
                    }
                }
            } else if m.get("nullable") == Some(&Value::Bool(false)) {
                m.remove("nullable");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(denull),
        _ => {}
    }
}

/// A parameter's text as the JSON value its schema describes.
pub(super) fn typed(schema: &Value, text: &str) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(text.to_owned())),
        Some("boolean") => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

pub(super) fn query_pairs(uri: &Uri) -> Vec<(String, String)> {
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (dec(k), dec(v))
        })
        .collect()
}
