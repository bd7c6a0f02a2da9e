//! Supply chain: every action pinned to a commit, the release built with pinned tools,
//! its assets named as the action and binstall expect, the example workflows.

use super::*;

/// action.yml, the release workflow and the example workflows.
fn workflow_files() -> Vec<PathBuf> {
    let mut files = vec![Path::new(ROOT).join("action.yml")];
    for dir in [
        ".github/workflows",
        "examples/github",
        "examples/github/workspace",
    ] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// Every `uses:` value in a YAML document.
fn uses_values(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                match (k.as_str(), child) {
                    ("uses", Value::String(u)) => out.push(u.clone()),
                    _ => uses_values(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| uses_values(i, out)),
        _ => {}
    }
}

/// Every third-party action is pinned to a full commit, its version in a comment beside
/// it (`uses: owner/repo@<40 hex> # vX.Y.Z`): a tag can be moved to other code, a commit
/// cannot. Not pinned, by choice: local actions (`./`), which are this repository's own
/// code, and the examples' `guildctl/guildctl@v0`, which users replace with the release
/// they adopt (docs/github.md, "Pinning").
#[test]
fn every_action_is_pinned_to_a_commit_with_its_version_beside_it() {
    let mut pinned = 0;
    for file in workflow_files() {
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value = serde_saphyr::from_str(&text).unwrap();
        let mut in_yaml = Vec::new();
        uses_values(&doc, &mut in_yaml);
        // The lines, for the comments YAML drops.
        let mut on_lines = Vec::new();
        for line in text.lines() {
            let code = line.trim_start().trim_start_matches("- ");
            let Some(rest) = code.strip_prefix("uses:") else {
                continue;
            };
            let (value, comment) = match rest.split_once(" #") {
                Some((v, c)) => (v.trim(), Some(c.trim())),
                None => (rest.trim(), None),
            };
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            on_lines.push(value.to_owned());
            if value.starts_with("./") {
                continue;
            }
            if name.starts_with("examples/") && value.starts_with("guildctl/guildctl@") {
                continue;
            }
            let (action, reference) = value
                .split_once('@')
                .unwrap_or_else(|| panic!("{name}: `{value}` names no version"));
            assert!(
                action.split('/').count() >= 2 && !action.contains(char::is_whitespace),
                "{name}: `{value}`"
            );
            assert!(
                reference.len() == 40
                    && reference
                        .chars()
                        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
                "{name}: `{value}` is not pinned to a full commit sha"
            );
            let version =
                comment.unwrap_or_else(|| panic!("{name}: `{value}` has no version comment"));
            let v = version.strip_prefix('v').unwrap_or("");
            assert!(
                !v.is_empty()
                    && v.split('.')
                        .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())),
                "{name}: `{value}`: the comment `# {version}` is not a version like v4.2.2"
            );
            pinned += 1;
        }
        on_lines.sort();
        in_yaml.sort();
        assert_eq!(
            on_lines, in_yaml,
            "{name}: every `uses:` was read from its line"
        );
    }
    assert!(pinned >= 10, "only {pinned} pinned actions found");
}

/// rust-toolchain.toml pins the toolchain; the release workflow builds with it (each job
/// that runs cargo installs the channel the file names, before its first cargo call, and
/// checks rustc is that version), and installs its tools at pinned versions.
#[test]
fn the_release_builds_with_the_pinned_toolchain_and_pinned_tools() {
    let toolchain = std::fs::read_to_string(Path::new(ROOT).join("rust-toolchain.toml")).unwrap();
    let lines: Vec<&str> = toolchain
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(
        lines,
        [
            "[toolchain]",
            "channel = \"1.95.0\"",
            "components = [\"rustfmt\", \"clippy\"]",
            "profile = \"minimal\"",
        ]
    );
    let text =
        std::fs::read_to_string(Path::new(ROOT).join(".github/workflows/release.yml")).unwrap();
    let wf: Value = serde_saphyr::from_str(&text).unwrap();
    for bad in [
        "+stable",
        "+nightly",
        "dtolnay/rust-toolchain",
        "toolchain: stable",
    ] {
        assert!(!text.contains(bad), "release.yml: {bad}");
    }
    let mut jobs_with_cargo = 0;
    for (job, j) in wf["jobs"].as_object().unwrap() {
        let runs: Vec<&str> = j["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["run"].as_str())
            .collect();
        let Some(first_cargo) = runs.iter().position(|r| r.contains("cargo ")) else {
            continue;
        };
        jobs_with_cargo += 1;
        let install = runs
            .iter()
            .position(|r| {
                r.contains("rust-toolchain.toml") && r.contains("rustup toolchain install")
            })
            .unwrap_or_else(|| panic!("{job}: no step installs the pinned toolchain"));
        assert!(
            install < first_cargo,
            "{job}: cargo runs before the toolchain is installed"
        );
        assert!(
            runs[install].contains("rustc --version"),
            "{job}: the version is checked"
        );
        for r in &runs {
            for line in r.lines().filter(|l| l.contains("pip install")) {
                let packages = line.split("pip install").nth(1).unwrap().split_whitespace();
                for p in packages.filter(|p| !p.starts_with('-')) {
                    assert!(p.contains("=="), "{job}: `{p}` is not pinned to a version");
                }
            }
        }
    }
    assert_eq!(jobs_with_cargo, 2, "cargo package and the builds");

    // Provenance: two jobs may sign and store attestations, the archives' (nothing else to
    // write) and the container image's (which writes only its package), and nothing is
    // published before the archives are attested.
    for (job, j) in wf["jobs"].as_object().unwrap() {
        let perms = &j["permissions"];
        if job == "image" {
            assert_eq!(
                perms,
                &serde_json::json!({ "contents": "read", "packages": "write", "id-token": "write", "attestations": "write" })
            );
            assert_eq!(
                j["needs"],
                serde_json::json!(["pinned-image", "release"]),
                "the image follows the release, and is the one the tag pins"
            );
            // Not built again: the digest prepare-release pushed becomes `latest`.
            let steps = serde_json::to_string(&j["steps"]).unwrap();
            for part in [
                "docker buildx imagetools create -t \\\"$IMAGE:latest\\\" \\\"$IMAGE@$DIGEST\\\"",
                "actions/attest-build-provenance@",
                "\"push-to-registry\":true",
                "needs.pinned-image.outputs.digest",
            ] {
                assert!(steps.contains(part), "image: {part}: {steps}");
            }
            assert!(!steps.contains("docker/build-push-action@"), "{steps}");
        } else if job == "pinned-image" {
            // Reads the registry and the attestations; writes nothing.
            assert_eq!(
                perms,
                &serde_json::json!({ "contents": "read", "packages": "read", "attestations": "read" })
            );
        } else if job == "attest" {
            assert_eq!(
                perms,
                &serde_json::json!({ "contents": "read", "id-token": "write", "attestations": "write" })
            );
            let attest = serde_json::to_string(&j["steps"]).unwrap();
            assert!(
                attest.contains("actions/attest-build-provenance@"),
                "{attest}"
            );
            assert!(attest.contains("dist/guildctl-*"), "{attest}");
        } else {
            assert!(
                perms.get("id-token").is_none() && perms.get("attestations").is_none(),
                "{job}: {perms}"
            );
        }
    }
    assert_eq!(wf["permissions"], serde_json::json!({ "contents": "read" }));
    assert!(
        serde_json::to_string(&wf["jobs"]["release"]["needs"])
            .unwrap()
            .contains("attest"),
        "the release waits for the attestations"
    );
}

/// The release workflow, the Action and `cargo binstall` agree on the assets' names.
#[test]
fn release_assets_are_named_as_the_action_and_binstall_expect() {
    let read = |p: &str| std::fs::read_to_string(Path::new(ROOT).join(p)).unwrap();
    let release: Value = serde_saphyr::from_str(&read(".github/workflows/release.yml")).unwrap();
    let build = &release["jobs"]["build"];
    let targets: Vec<&str> = build["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets.len(), 5);
    let steps = build["steps"].as_array().unwrap();
    let package = steps
        .iter()
        .find(|s| s["name"] == "Package")
        .and_then(|s| s["run"].as_str())
        .unwrap();
    assert!(
        package.contains(r#"name="guildctl-$version-$TARGET""#),
        "{package}"
    );
    assert!(package.contains(r#""$name.zip""#) && package.contains(r#""dist/$name.tar.gz""#));

    let action = action();
    let install = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "install")
        .and_then(|s| s["run"].as_str())
        .unwrap();
    for t in &targets {
        assert!(
            install.contains(&format!("target={t};")),
            "the Action knows {t}"
        );
    }
    assert!(install.contains(r#"asset="guildctl-$version-$target.$ext""#));
    assert!(install.contains(r#""$base/v$version/$asset""#));

    // binstall's template, filled in as binstall fills it, is the Action's URL.
    let cargo = read("Cargo.toml");
    let field = |key: &str| {
        cargo
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{key} in [package.metadata.binstall]"))
            .to_owned()
    };
    let fill = |t: &str| {
        t.replace("{ repo }", "https://github.com/guildctl/guildctl")
            .replace("{ name }", "guildctl")
            .replace("{ version }", VERSION)
            .replace("{ target }", TARGET)
            .replace("{ archive-suffix }", ".tar.gz")
            .replace("{ bin }", "guildctl")
            .replace("{ binary-ext }", "")
    };
    assert_eq!(
        fill(&field("pkg-url")),
        format!(
            "https://github.com/guildctl/guildctl/releases/download/v{VERSION}/guildctl-{VERSION}-{TARGET}.tar.gz"
        )
    );
    assert_eq!(
        fill(&field("bin-dir")),
        format!("guildctl-{VERSION}-{TARGET}/guildctl")
    );
}

/// The example workflows use the Action as it is: inputs it has, outputs it gives, least
/// permissions, a concurrency group per guild, and no bot token for forks' pull requests.
#[test]
fn the_example_workflows_fit_the_action() {
    let action = action();
    let inputs = action["inputs"].as_object().unwrap();
    let outputs = action["outputs"].as_object().unwrap();
    for name in [
        "plan",
        "apply",
        "drift",
        "workspace/plan",
        "workspace/apply",
        "workspace/drift",
    ] {
        let path = Path::new(ROOT).join(format!("examples/github/{name}.yml"));
        let text = std::fs::read_to_string(&path).unwrap();
        let wf: Value = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(
            wf["permissions"]["contents"], "read",
            "{name}: read-only by default"
        );
        assert_eq!(wf["permissions"].as_object().unwrap().len(), 1, "{name}");
        let group = wf["concurrency"]["group"].as_str().unwrap();
        // One group per guild; a workspace's runs share one group for all its guilds.
        let prefix = if name.starts_with("workspace/") {
            "guildctl-workspace"
        } else {
            "guildctl-${{ vars.DISCORD_GUILD_ID"
        };
        assert!(group.starts_with(prefix), "{name}: {group}");
        let mut used = 0;
        for (job_name, job) in wf["jobs"].as_object().unwrap() {
            let mut ids = Vec::new();
            for step in job["steps"].as_array().unwrap() {
                let uses = step["uses"].as_str().unwrap_or("");
                if uses.starts_with("guildctl/guildctl@") {
                    used += 1;
                    for k in step["with"].as_object().unwrap().keys() {
                        assert!(inputs.contains_key(k), "{name}/{job_name}: no input {k}");
                    }
                    if let Some(id) = step["id"].as_str() {
                        ids.push(id.to_owned());
                    }
                }
            }
            for id in ids {
                let prefix = format!("steps.{id}.outputs.");
                for (i, _) in text.match_indices(&prefix) {
                    let rest = &text[i + prefix.len()..];
                    let out: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '-')
                        .collect();
                    assert!(outputs.contains_key(&out), "{name}: no output {out}");
                }
            }
        }
        assert!(used > 0, "{name} uses the Action");
    }
    // Applies to one guild are serialised: apply and drift share the guild's group, whose
    // runs are never cancelled halfway; plans run per pull request, apart from them.
    for (apply, drift, plan) in [
        ("apply", "drift", "plan"),
        ("workspace/apply", "workspace/drift", "workspace/plan"),
    ] {
        let concurrency = |name: &str| -> Value {
            let path = Path::new(ROOT).join(format!("examples/github/{name}.yml"));
            let wf: Value =
                serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            wf["concurrency"].clone()
        };
        let (apply, drift, plan) = (concurrency(apply), concurrency(drift), concurrency(plan));
        assert_eq!(apply["cancel-in-progress"], false, "{apply}");
        assert_eq!(drift["cancel-in-progress"], false, "{drift}");
        assert_eq!(apply["group"], drift["group"]);
        let group = apply["group"].as_str().unwrap();
        assert!(
            group.contains("DISCORD_GUILD_ID") || group == "guildctl-workspace",
            "one group per guild (a workspace's: one for all its guilds): {group}"
        );
        assert_ne!(
            plan["group"], apply["group"],
            "plans never wait for applies"
        );
    }
    let plan: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("examples/github/plan.yml")).unwrap(),
    )
    .unwrap();
    let same_repo = "github.event.pull_request.head.repo.full_name == github.repository";
    assert_eq!(plan["jobs"]["plan"]["if"], same_repo);
    assert!(
        !serde_json::to_string(&plan["jobs"]["validate-fork"])
            .unwrap()
            .contains("secrets.")
    );
    assert!(
        !std::fs::read_to_string(Path::new(ROOT).join("examples/github/plan.yml"))
            .unwrap()
            .contains("pull_request_target")
    );
}
