//! The checked-in JSON schema matches the types, and every example manifest validates against
//! it and passes the semantic checks.

use std::path::{Path, PathBuf};

use guildctl::manifest::{Severity, check_loaded, load, schema_json, validate_against_schema};

const SCHEMA_PATH: &str = "schema/guildctl.schema.json";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn checked_in_schema_is_up_to_date() {
    let generated = schema_json();
    let path = root().join(SCHEMA_PATH);
    if std::env::var_os("GUILDCTL_UPDATE_SCHEMA").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{SCHEMA_PATH} is out of date with src/manifest/types.rs.\n\
         Regenerate it with:\n    cargo run -- schema > {SCHEMA_PATH}\n\
         (or GUILDCTL_UPDATE_SCHEMA=1 cargo test --test manifest_schema)"
    );
}

#[test]
fn schema_is_valid_json_with_descriptions() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    assert_eq!(schema["title"], "guildctl manifest");
    // Every property of every object definition has a description (what editors show).
    let mut missing = Vec::new();
    fn walk(v: &serde_json::Value, at: &str, missing: &mut Vec<String>) {
        if let Some(props) = v.get("properties").and_then(|p| p.as_object()) {
            for (name, p) in props {
                if p.get("description").is_none() {
                    missing.push(format!("{at}.{name}"));
                }
            }
        }
        if let Some(defs) = v.get("$defs").and_then(|d| d.as_object()) {
            for (name, d) in defs {
                walk(d, name, missing);
            }
        }
    }
    walk(&schema, "Manifest", &mut missing);
    assert!(
        missing.is_empty(),
        "properties without a description: {missing:?}"
    );
    assert!(schema_json().ends_with("}\n"));
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no example manifests found");
    files
}

fn checked_in_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join(SCHEMA_PATH)).expect("schema file");
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn as_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn examples_validate_against_the_checked_in_schema() {
    let validator = checked_in_validator();
    for path in examples() {
        let value = as_json(&path);
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        assert!(
            validate_against_schema(&value).is_empty(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn examples_load_and_pass_the_checks() {
    for path in examples() {
        let loaded = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let diags = check_loaded(&loaded);
        let errors: Vec<_> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert!(
            errors.is_empty(),
            "{}",
            guildctl::manifest::render(&loaded, &diags, false)
        );
    }
}

#[test]
fn examples_start_with_the_schema_modeline() {
    for path in examples() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# yaml-language-server: $schema=../schema/guildctl.schema.json\n"),
            "{}",
            path.display()
        );
    }
}

#[test]
fn schema_rejects_what_the_types_reject() {
    let bad = serde_json::json!({
        "version": 1,
        "roles": [{ "name": "x", "colour": "#ffffff" }],
        "settings": { "verification_level": "extreme" }
    });
    let diags = validate_against_schema(&bad);
    assert!(
        diags
            .iter()
            .any(|d| d.path == "roles[0].colour" && d.message == "unknown field `colour`"),
        "{diags:#?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d.path == "settings.verification_level"),
        "{diags:#?}"
    );
}

#[test]
fn loaded_manifest_converts_to_json_for_the_schema() {
    let loaded = load(&root().join("examples/community.yaml")).unwrap();
    let value = loaded.json_value().unwrap();
    assert_eq!(value["settings"]["community"], true);
    assert!(validate_against_schema(&value).is_empty());
}

#[test]
fn enumerations_are_names_each_with_a_description() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    let defs = schema["$defs"].as_object().unwrap();
    let mut enums = 0;
    for (name, def) in defs {
        assert!(
            def.get("enum").is_none(),
            "{name}: an enumeration without a description per value"
        );
        let Some(branches) = def.get("oneOf").and_then(|b| b.as_array()) else {
            continue;
        };
        if !branches.iter().all(|b| b.get("const").is_some()) {
            continue;
        }
        enums += 1;
        for b in branches {
            assert!(b["const"].is_string(), "{name}: {b} is not a name");
            assert!(
                b.get("description").is_some(),
                "{name}: {b} has no description"
            );
        }
    }
    assert!(enums >= 8, "{enums} enumerations");
}
