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
         (or GUILDCTL_UPDATE_SCHEMA=1 cargo test --test suite manifest_schema::)"
    );
}

#[test]
fn schema_is_valid_json_with_descriptions() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    assert_eq!(schema["title"], "guildctl manifest");
    // Every property anywhere in the schema (top level, definitions, inline objects, the
    // branches of `anyOf`) and every definition has a description: it is what editors show.
    let mut missing = Vec::new();
    fn walk(v: &serde_json::Value, at: &str, missing: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(props) = o.get("properties").and_then(|p| p.as_object()) {
                    for (name, p) in props {
                        if p.get("description").is_none() {
                            missing.push(format!("{at}/properties/{name}"));
                        }
                    }
                }
                for (k, child) in o {
                    walk(child, &format!("{at}/{k}"), missing);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    walk(&schema, "#", &mut missing);
    for (name, def) in schema["$defs"].as_object().unwrap() {
        if def.get("description").is_none() {
            missing.push(format!("#/$defs/{name}"));
        }
    }
    assert!(
        missing.is_empty(),
        "properties or definitions without a description: {missing:#?}"
    );
    assert!(schema_json().ends_with("}\n"));
}

/// Every `examples` value is valid where it stands, so an editor never suggests what the
/// schema then refuses.
#[test]
fn examples_in_the_schema_are_valid() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    let mut found = Vec::new();
    fn walk(v: &serde_json::Value, at: String, found: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(o) => {
                if o.contains_key("examples") {
                    found.push((at.clone(), v.clone()));
                }
                for (k, child) in o {
                    walk(child, format!("{at}/{k}"), found);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }
    walk(&schema, "#".into(), &mut found);
    assert!(found.len() >= 10, "{} nodes with examples", found.len());
    for (at, node) in found {
        let mut sub = node.clone();
        sub["$defs"] = schema["$defs"].clone();
        let validator = jsonschema::validator_for(&sub).unwrap();
        for example in node["examples"].as_array().unwrap() {
            assert!(
                validator.is_valid(example),
                "{at}: example {example} is not valid there"
            );
        }
    }
}

#[test]
fn schema_has_its_id() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    assert_eq!(schema["$id"], guildctl::manifest::SCHEMA_ID);
    assert!(guildctl::manifest::SCHEMA_ID.starts_with("https://"));
    assert!(guildctl::manifest::SCHEMA_ID.ends_with("/schema/guildctl.schema.json"));
}

/// Permission names are an enumeration an editor completes, each with what it allows;
/// `bit_N` is the one documented way to name another bit.
#[test]
fn permission_names_are_an_enumeration_with_bit_n_beside_it() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    let def = &schema["$defs"]["PermissionName"];
    let branches = def["anyOf"].as_array().expect("anyOf of names and bit_N");
    assert_eq!(branches.len(), 2, "{def:#}");
    let names: Vec<&str> = branches[0]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert!(b["description"].is_string(), "{b}");
            b["const"].as_str().unwrap()
        })
        .collect();
    let known: Vec<&str> = guildctl::permissions::NAMED
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(names, known);
    assert_eq!(branches[1]["pattern"], "^bit_[0-9]{1,2}$");
    assert!(branches[1]["description"].is_string());

    let manifest = |perm: &str| serde_json::json!({"version": 1, "roles": [{"name": "Mod", "permissions": [perm]}]});
    assert!(validate_against_schema(&manifest("manage_roles")).is_empty());
    assert!(validate_against_schema(&manifest("bit_53")).is_empty());
    let diags = validate_against_schema(&manifest("mange_roles"));
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].path, "roles[0].permissions[0]");
    assert_eq!(diags[0].message, "unknown permission `mange_roles`");
    assert_eq!(
        diags[0].help.as_deref(),
        Some("did you mean `manage_roles`?")
    );
    assert!(!validate_against_schema(&manifest("bit_x")).is_empty());
}

#[test]
fn preferred_locale_is_an_enumeration_of_discords_locales() {
    let schema: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
    let locales: Vec<&str> = schema["$defs"]["Locale"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["const"].as_str().unwrap())
        .collect();
    assert_eq!(locales, guildctl::discord::models::LOCALES);
    let manifest =
        |locale: &str| serde_json::json!({"version": 1, "settings": {"preferred_locale": locale}});
    assert!(validate_against_schema(&manifest("pt-BR")).is_empty());
    let diags = validate_against_schema(&manifest("en-us"));
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].path, "settings.preferred_locale");
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `en-US`?"));
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
