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
    let mut out = Vec::new();
    for e in v.iter_errors(value) {
        flatten(&e, &mut out);
    }
    out.dedup();
    out
}

/// An `anyOf` failure (every optional field is `anyOf [T, null]`) says only that the parent
/// matched no branch; report the errors of the branch that got furthest instead.
fn flatten(e: &jsonschema::ValidationError<'_>, out: &mut Vec<Diagnostic>) {
    if let jsonschema::error::ValidationErrorKind::AnyOf { context } = e.kind() {
        let depth = |branch: &Vec<jsonschema::ValidationError<'static>>| {
            branch
                .iter()
                .map(|e| e.instance_path().as_str().len() + usize::from(!is_type_error(e)))
                .max()
                .unwrap_or(0)
        };
        let here = e.instance_path().as_str().len();
        if let Some(best) = context.iter().max_by_key(|b| depth(b))
            && depth(best) > here
        {
            for sub in best {
                flatten(sub, out);
            }
            return;
        }
    }
    let path = pointer_to_path(e.instance_path().as_str());
    out.push(
        Diagnostic::error(path, format!("schema: {e}"))
            .with_help("see schema/guildctl.schema.json or docs/manifest.md"),
    );
}

fn is_type_error(e: &jsonschema::ValidationError<'_>) -> bool {
    matches!(
        e.kind(),
        jsonschema::error::ValidationErrorKind::Type { .. }
    )
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
