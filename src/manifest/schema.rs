//! The manifest's JSON schema, generated from the types with schemars, and validation of a
//! manifest (as JSON) against it.

use std::sync::OnceLock;

use serde_json::Value;

use super::diagnostic::Diagnostic;
use super::types::Manifest;

/// The JSON schema of a manifest, pretty-printed, with a trailing newline. This is what
/// `schema/guildctl.schema.json` holds (`cargo run -- schema > schema/guildctl.schema.json`).
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Manifest);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

fn validator() -> Option<&'static jsonschema::Validator> {
    static V: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| {
        let schema: Value = serde_json::from_str(&schema_json()).ok()?;
        jsonschema::validator_for(&schema).ok()
    })
    .as_ref()
}

/// Validates a manifest (parsed to JSON) against the generated schema. Each violation becomes
/// an error whose path is written like the checks' (`roles[2].color`).
pub fn validate_against_schema(value: &Value) -> Vec<Diagnostic> {
    let Some(v) = validator() else {
        return vec![Diagnostic::error(
            "",
            "internal error: the generated JSON schema does not compile",
        )];
    };
    v.iter_errors(value)
        .map(|e| {
            let path = pointer_to_path(e.instance_path().as_str());
            Diagnostic::error(path, format!("schema: {e}"))
                .with_help("see schema/guildctl.schema.json or docs/manifest.md")
        })
        .collect()
}

/// `/roles/2/name` → `roles[2].name`.
pub fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}
