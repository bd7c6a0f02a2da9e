//! The manifest's JSON schema, generated from the types with schemars, and validation of a
//! manifest (as JSON) against it, with messages that say what is wrong and how to fix it.

use std::sync::OnceLock;

use serde_json::Value;

use super::diagnostic::Diagnostic;
use super::types::Manifest;

/// The schema's `$id`: where the schema of the main branch is served, so that a manifest's
/// `# yaml-language-server: $schema=` line naming it works in an editor without a copy of
/// the file (docs/editor.md). guildctl itself never fetches it: the schema it validates
/// with is compiled in.
pub const SCHEMA_ID: &str =
    "https://raw.githubusercontent.com/guildctl/guildctl/main/schema/guildctl.schema.json";

/// The JSON schema of a manifest, pretty-printed, with a trailing newline. This is what
/// `schema/guildctl.schema.json` holds (`cargo run -- schema > schema/guildctl.schema.json`).
pub fn schema_json() -> String {
    let mut s = serde_json::to_string_pretty(schema_value()).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// The schema as a value: schemars' output, with the upper bound of 32-bit fields written
/// out (`"format": "uint32"` alone lets validators accept any integer).
fn schema_value() -> &'static Value {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| {
        let schema = schemars::schema_for!(Manifest);
        let mut v = serde_json::to_value(&schema).unwrap_or(Value::Null);
        bound_u32(&mut v);
        if let Value::Object(o) = &mut v {
            // After `$schema`, where readers look for it.
            let mut with_id = serde_json::Map::new();
            for (k, val) in std::mem::take(o) {
                let is_schema = k == "$schema";
                with_id.insert(k, val);
                if is_schema {
                    with_id.insert("$id".into(), Value::from(SCHEMA_ID));
                }
            }
            if !with_id.contains_key("$id") {
                with_id.insert("$id".into(), Value::from(SCHEMA_ID));
            }
            *o = with_id;
        }
        v
    })
}

fn bound_u32(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("format").and_then(Value::as_str) == Some("uint32")
                && !o.contains_key("maximum")
            {
                o.insert("maximum".into(), Value::from(u32::MAX));
            }
            for child in o.values_mut() {
                bound_u32(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(bound_u32),
        _ => {}
    }
}

/// The checked-in schema, which `tests/manifest_schema.rs` holds equal to [`schema_json`],
/// compiled into code when guildctl is built: a run neither generates the schema from the
/// types nor compiles it (compiling it, with jsonschema's check of the schema against its
/// meta-schema, cost more than validating a 250-role manifest against it;
/// docs/performance.md).
#[jsonschema::validator(path = "schema/guildctl.schema.json")]
struct ManifestSchema;

/// A schema violation: the diagnostic, and whether it is best shown at the key of the entry
/// its path names (an unknown field) rather than at its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub diagnostic: Diagnostic,
    pub at_key: bool,
}

/// Validates a manifest (parsed to JSON) against the generated schema. Each violation becomes
/// an error whose path is written like the checks' (`roles[2].color`).
pub fn validate_against_schema(value: &Value) -> Vec<Diagnostic> {
    violations(value)
        .into_iter()
        .map(|v| v.diagnostic)
        .collect()
}

/// [`validate_against_schema`], keeping where each is best shown.
pub fn violations(value: &Value) -> Vec<Violation> {
    // The common case, a valid manifest, answered without the error iterator's bookkeeping.
    if ManifestSchema::is_valid(value) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in ManifestSchema::iter_errors(value) {
        flatten(&e, &mut out);
    }
    out.dedup();
    // A value of the wrong type also fails its enum or bounds: say only the first.
    let typed: Vec<String> = out
        .iter()
        .filter(|v| v.diagnostic.message.starts_with("expected "))
        .map(|v| v.diagnostic.path.clone())
        .collect();
    out.retain(|v| {
        v.diagnostic.message.starts_with("expected ") || !typed.contains(&v.diagnostic.path)
    });
    out
}

/// An `anyOf` failure (every optional field is `anyOf [T, null]`) says only that the parent
/// matched no branch; report the errors of the branch that got furthest instead.
fn flatten(e: &jsonschema::ValidationError<'_>, out: &mut Vec<Violation>) {
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
    out.extend(describe(e));
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

fn segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The last field name of a path (`roles[2].color` → `color`, `roles[2]` → `roles`).
fn field_name(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split('[').next().unwrap_or(last)
}

/// Resolves `$ref`s (to `#/$defs/...`).
fn deref<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix("#/$defs/") {
                Some(name) => match root.get("$defs").and_then(|d| d.get(name)) {
                    Some(next) => s = next,
                    None => return s,
                },
                None => return s,
            },
            None => return s,
        }
    }
    s
}

/// The branches of a schema node: itself, or each branch of its `anyOf`/`oneOf`, resolved.
fn branches<'a>(root: &'a Value, s: &'a Value) -> Vec<&'a Value> {
    let s = deref(root, s);
    let mut out = Vec::new();
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            for b in list {
                out.extend(branches(root, b));
            }
        }
    }
    if out.is_empty() {
        out.push(s);
    }
    out
}

/// The schema of the node at an instance pointer, following `properties` and `items`
/// (through `$ref`, `anyOf` and `oneOf`).
fn schema_at<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut here = vec![root];
    for seg in segments(pointer) {
        let mut next = Vec::new();
        for s in here {
            for b in branches(root, s) {
                let child = if seg.bytes().all(|c| c.is_ascii_digit()) {
                    b.get("items")
                } else {
                    b.get("properties").and_then(|p| p.get(&seg))
                };
                next.extend(child);
            }
        }
        if next.is_empty() {
            return None;
        }
        here = next;
    }
    here.first().copied()
}

/// The fields an object at `pointer` may have.
fn allowed_fields(root: &Value, pointer: &str) -> Vec<String> {
    let Some(s) = schema_at(root, pointer) else {
        return Vec::new();
    };
    branches(root, s)
        .into_iter()
        .filter_map(|b| b.get("properties").and_then(Value::as_object))
        .flat_map(|p| p.keys().cloned())
        .collect()
}

/// The types the node at `pointer` may have, in words (`a string`, `a list`).
fn expected_types(root: &Value, pointer: &str) -> Vec<&'static str> {
    let Some(s) = schema_at(root, pointer) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in branches(root, s) {
        let types: Vec<&str> = match b.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ if b.get("enum").is_some() || b.get("const").is_some() => vec!["string"],
            _ => vec![],
        };
        for t in types {
            let word = type_word(t);
            if !out.contains(&word) {
                out.push(word);
            }
        }
    }
    out
}

fn type_word(t: &str) -> &'static str {
    match t {
        "string" => "a string",
        "integer" => "a whole number",
        "number" => "a number",
        "boolean" => "true or false",
        "array" => "a list",
        "object" => "a mapping",
        "null" => "null",
        _ => "a value",
    }
}

/// What a value is, in words, with the value when short (`the number 2024`).
fn describe_value(v: &Value) -> String {
    let short = |s: String| {
        if s.chars().count() > 40 {
            format!("{}…", s.chars().take(40).collect::<String>())
        } else {
            s
        }
    };
    match v {
        Value::Null => "null (an empty value)".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Number(n) => format!("the number `{n}`"),
        Value::String(s) => format!("the string \"{}\"", short(s.clone())),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a mapping".into(),
    }
}

fn join_or(words: &[&str]) -> String {
    match words {
        [] => "another type".into(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// One or more violations for a schema error, in the manifest's words.
fn describe(e: &jsonschema::ValidationError<'_>) -> Vec<Violation> {
    use jsonschema::error::ValidationErrorKind as K;
    let root = schema_value();
    let pointer = e.instance_path().as_str().to_string();
    let path = pointer_to_path(&pointer);
    let instance: &Value = e.instance();
    let field = field_name(&path).to_string();
    let error = |message: String, help: String| Violation {
        diagnostic: Diagnostic::error(path.clone(), message).with_help(help),
        at_key: false,
    };
    match e.kind() {
        K::AdditionalProperties { unexpected } => {
            let allowed = allowed_fields(root, &pointer);
            unexpected
                .iter()
                .map(|name| {
                    let child = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}.{name}")
                    };
                    let help =
                        match super::suggest::closest(name, allowed.iter().map(String::as_str)) {
                            Some(best) => format!("did you mean `{best}`?"),
                            None if allowed.is_empty() => "remove the field".to_string(),
                            None => format!(
                                "remove it; the fields allowed here are: {}",
                                allowed.join(", ")
                            ),
                        };
                    Violation {
                        diagnostic: Diagnostic::error(child, format!("unknown field `{name}`"))
                            .with_help(help),
                        at_key: true,
                    }
                })
                .collect()
        }
        K::Required { property } => {
            let name = property.as_str().unwrap_or("?");
            let what = if path.is_empty() {
                "the manifest".to_string()
            } else {
                path.clone()
            };
            vec![error(
                format!("missing field `{name}` in {what}"),
                format!("add `{name}:`; see docs/manifest.md for what it means"),
            )]
        }
        K::AnyOf { .. } | K::OneOfNotValid { .. }
            if instance.is_string() && !consts(root, &pointer).is_empty() =>
        {
            vec![enum_violation(
                &path,
                &field,
                instance,
                &consts(root, &pointer),
            )]
        }
        K::Type { .. } | K::AnyOf { .. } | K::OneOfNotValid { .. } => {
            let mut expected = expected_types(root, &pointer);
            if expected.len() > 1 {
                // `null` is allowed for most fields, but is rarely what was meant.
                expected.retain(|t| *t != "null");
            }
            let expected_text = join_or(&expected);
            let found = describe_value(instance);
            let integer = match instance {
                Value::Number(n) if is_permission_field(&path) => {
                    super::suggest::integer_names(&n.to_string())
                }
                Value::String(s) if is_permission_field(&path) => super::suggest::integer_names(s),
                _ => None,
            };
            let help = integer.unwrap_or_else(|| match instance {
                Value::Number(n) if expected.contains(&"a string") => {
                    format!(
                        "YAML reads `{n}` as a number: quote it to make it text (`{field}: \"{n}\"`)"
                    )
                }
                Value::Bool(b) if expected.contains(&"a string") => {
                    format!(
                        "YAML reads `{b}` as a boolean: quote it to make it text (`{field}: \"{b}\"`)"
                    )
                }
                Value::String(s) if expected.contains(&"true or false") => {
                    let lower = s.to_lowercase();
                    if ["yes", "no", "on", "off", "y", "n"].contains(&lower.as_str()) {
                        "manifests are YAML 1.2: only `true` and `false` are booleans (not yes/no/on/off)".to_string()
                    } else {
                        "write `true` or `false`".to_string()
                    }
                }
                Value::String(s)
                    if expected.contains(&"a whole number") && s.trim().parse::<f64>().is_ok() =>
                {
                    format!("remove the quotes: `{field}: {}`", s.trim())
                }
                Value::String(_) if expected.contains(&"a whole number") => {
                    "write a whole number, without quotes or units".to_string()
                }
                Value::Null if expected.contains(&"a list") => format!(
                    "write `{field}: []` for an empty list, or remove the field to leave it unmanaged"
                ),
                Value::Null => {
                    "give it a value, or remove the field to leave it unmanaged".to_string()
                }
                Value::Object(_) if expected.contains(&"a list") => format!(
                    "`{field}` is a list: write each entry on its own line starting with `- `"
                ),
                Value::Array(_) if expected.contains(&"a mapping") => format!(
                    "`{field}` is a mapping of `key: value` lines, not a list: remove the `- `"
                ),
                _ => format!("write {expected_text} here"),
            });
            vec![error(
                format!("expected {expected_text}, found {found}"),
                help,
            )]
        }
        K::Enum { options } => {
            let names: Vec<Value> = options.as_array().cloned().unwrap_or_default();
            vec![enum_violation(&path, &field, instance, &names)]
        }
        K::Pattern { pattern } => vec![pattern_violation(&path, &field, instance, pattern)],
        K::Minimum { limit } | K::ExclusiveMinimum { limit } => vec![error(
            format!(
                "{field} {} is below the minimum, {limit}",
                value_text(instance)
            ),
            format!("use a value of at least {limit}"),
        )],
        K::Maximum { limit } | K::ExclusiveMaximum { limit } => vec![error(
            format!(
                "{field} {} is above the maximum, {limit}",
                value_text(instance)
            ),
            format!("use a value of at most {limit}"),
        )],
        K::MinLength { limit } => vec![error(
            format!("{field} is shorter than {limit} characters"),
            format!("write at least {limit} characters"),
        )],
        K::MaxLength { limit } => vec![error(
            format!("{field} is longer than {limit} characters"),
            format!("shorten it to {limit} characters"),
        )],
        K::MinItems { limit } => vec![error(
            format!("{field} has fewer than {limit} entries"),
            format!("list at least {limit}"),
        )],
        K::MaxItems { limit } => vec![error(
            format!("{field} has more than {limit} entries"),
            format!("list at most {limit}"),
        )],
        _ => vec![error(
            format!("{e}"),
            "see schema/guildctl.schema.json or docs/manifest.md".to_string(),
        )],
    }
}

/// Whether `path` is a list of permissions (`roles[0].permissions`, `…overwrites[1].deny`)
/// or one of its entries.
fn is_permission_field(path: &str) -> bool {
    let list = path
        .strip_suffix(']')
        .and_then(|p| p.rsplit_once('['))
        .map_or(path, |(l, _)| l);
    ["permissions", "allow", "deny"]
        .iter()
        .any(|f| list == *f || list.ends_with(&format!(".{f}")))
}

/// The values a `oneOf`/`anyOf` of constants allows (a documented enum: `type: txt`).
fn consts(root: &Value, pointer: &str) -> Vec<Value> {
    let Some(s) = schema_at(root, pointer) else {
        return Vec::new();
    };
    branches(root, s)
        .into_iter()
        .filter_map(|b| b.get("const").cloned())
        .collect()
}

/// A value as a person writes it: a string without its quotes, anything else as JSON.
pub(crate) fn bare(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A value that is not one of the allowed ones: a suggestion for a misspelt name; for
/// numbers, just the list.
fn enum_violation(path: &str, field: &str, instance: &Value, options: &[Value]) -> Violation {
    let names: Vec<String> = options.iter().map(bare).collect();
    let got = bare(instance);
    let all_text = options.iter().all(Value::is_string);
    let help = match super::suggest::closest(&got, names.iter().map(String::as_str)) {
        Some(best) if all_text && instance.is_string() => format!("did you mean `{best}`?"),
        _ => "use one of the values listed".to_string(),
    };
    Violation {
        diagnostic: Diagnostic::error(
            path,
            format!(
                "`{got}` is not a valid {field}: expected one of {}",
                names.join(", ")
            ),
        )
        .with_help(help),
        at_key: false,
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// A string that does not match its pattern: say what the pattern is for.
fn pattern_violation(path: &str, field: &str, instance: &Value, pattern: &str) -> Violation {
    let s = instance.as_str().unwrap_or("");
    let (message, help) = if pattern.contains("{15,20}") {
        (
            format!("\"{s}\" is not a Discord id"),
            "an id is a snowflake of 15 to 20 digits, written in quotes: copy it with Developer \
             Mode (right-click, Copy ID)"
                .to_string(),
        )
    } else if pattern.starts_with("^#") {
        (
            format!("\"{s}\" is not a colour"),
            "write a colour as \"#rrggbb\", for example \"#3498db\"".to_string(),
        )
    } else if pattern.contains("bit_") {
        let help = super::suggest::permission_help(s);
        (format!("unknown permission `{s}`"), help)
    } else {
        (
            format!("\"{s}\" is not a valid {field} (it must match `{pattern}`)"),
            "see schema/guildctl.schema.json or docs/manifest.md".to_string(),
        )
    };
    Violation {
        diagnostic: Diagnostic::error(path, message).with_help(help),
        at_key: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_schema_nodes() {
        let root = schema_value();
        let role = allowed_fields(root, "/roles/0");
        assert!(role.contains(&"color".to_string()), "{role:?}");
        assert_eq!(expected_types(root, "/roles/0/name"), vec!["a string"]);
        assert!(expected_types(root, "/settings/afk_timeout").contains(&"a whole number"));
        assert!(
            allowed_fields(root, "/channels/0/channels/1/overwrites/0")
                .contains(&"deny".to_string())
        );
    }

    #[test]
    fn u32_fields_have_an_upper_bound() {
        assert!(schema_json().contains("\"maximum\": 4294967295"));
    }
}
