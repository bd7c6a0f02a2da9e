//! Installing: a release only when its checksum and provenance hold, the version the
//! action's ref names, and the build from source without an exact cache hit.

use super::*;

#[tokio::test]
async fn a_release_installs_only_when_its_checksum_matches() {
    let releases = Releases::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut r = Runner::new(&dir.path().join("good"));
    r.env("GUILDCTL_RELEASES_URL", &releases.url)
        .input("command", "validate")
        .input("manifest", example("minimal.yaml").to_str().unwrap())
        .github("action_ref", &format!("v{VERSION}"));
    let good = r.run().await;
    assert_eq!(good.code, 0, "{}", good.log);
    assert_eq!(good.steps["install"]["mode"], "download");
    assert_eq!(good.steps["install"]["version"], VERSION);
    // No gh here (the stand-in runner has none): the checksum alone, and the log says so.
    assert!(
        !std::env::var("PATH")
            .unwrap_or_default()
            .split(':')
            .any(|d| Path::new(d).join("gh").exists()),
        "this test expects no gh on PATH"
    );
    assert!(
        good.log.contains(
            "Checked: SHA-256 against SHA256SUMS only: build provenance not checked, gh is not installed."
        ),
        "{}",
        good.log
    );
    assert!(
        !good.ran.iter().any(|s| s.contains("Restore")),
        "no cache for a release"
    );
    let bin = dir.path().join("good/guildctl/bin");
    assert_eq!(good.path.trim(), bin.to_str().unwrap());
    let v = std::process::Command::new(bin.join("guildctl"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&v.stdout).contains(VERSION));

    // One byte off in SHA256SUMS: refused, nothing installed, guildctl never run.
    let sums = std::fs::read_to_string(releases.sums()).unwrap();
    let tampered: String = sums
        .lines()
        .map(|l| match l.strip_prefix('f') {
            _ if !l.contains(TARGET) => format!("{l}\n"),
            Some(rest) => format!("e{rest}\n"),
            None => format!("f{}\n", &l[1..]),
        })
        .collect();
    assert_ne!(tampered, sums);
    std::fs::write(releases.sums(), &tampered).unwrap();
    let mut bad = Runner::new(&dir.path().join("bad"));
    bad.env("GUILDCTL_RELEASES_URL", &releases.url)
        .input("command", "validate")
        .input("manifest", example("minimal.yaml").to_str().unwrap())
        .input("version", VERSION);
    let refused = bad.run().await;
    assert_eq!(refused.code, 1, "{}", refused.log);
    assert!(
        refused.log.contains("refusing to install"),
        "{}",
        refused.log
    );
    assert!(!dir.path().join("bad/guildctl/bin/guildctl").exists());
    assert!(!refused.ran.iter().any(|s| s.starts_with("Run")));

    // SHA256SUMS without a line for the asset: refused too.
    std::fs::write(
        releases.sums(),
        format!("{}  other.tar.gz\n", "0".repeat(64)),
    )
    .unwrap();
    let missing = bad.run().await;
    assert_eq!(missing.code, 1, "{}", missing.log);
    assert!(missing.log.contains("has no line for"), "{}", missing.log);
}

/// Where gh is there and has a token, a release is installed only when gh verifies its
/// build-provenance attestation for the action's repository, on top of the checksum.
#[tokio::test]
async fn a_release_is_installed_only_when_gh_verifies_its_provenance() {
    let releases = Releases::start().await;
    let dir = tempfile::tempdir().unwrap();
    let asset = format!("guildctl-{VERSION}-{TARGET}.tar.gz");
    let runner = |name: &str, verify_code: i32| {
        let mut r = Runner::new(&dir.path().join(name));
        r.env("GUILDCTL_RELEASES_URL", &releases.url)
            .input("command", "install")
            .input("version", VERSION)
            .fake_gh(verify_code);
        r
    };

    let r = runner("verified", 0);
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(run.steps["install"]["mode"], "download");
    let calls = r.gh_calls();
    let verify: Vec<&String> = calls.iter().filter(|c| !c.contains("--help")).collect();
    assert_eq!(verify.len(), 1, "{calls:?}");
    let words: Vec<&str> = verify[0].split(' ').collect();
    assert_eq!(
        words[..3],
        ["token=set", "attestation", "verify"],
        "{calls:?}"
    );
    assert!(words[3].ends_with(&format!("/{asset}")), "{calls:?}");
    assert_eq!(words[4..], ["--repo", "guildctl/guildctl"], "{calls:?}");
    assert!(
        run.log.contains(
            "Checked: SHA-256 against SHA256SUMS and its build provenance (gh attestation verify --repo guildctl/guildctl)."
        ),
        "{}",
        run.log
    );
    assert!(dir.path().join("verified/guildctl/bin/guildctl").exists());

    // gh says no: refused, nothing installed.
    let r = runner("forged", 1);
    let run = r.run().await;
    assert_eq!(run.code, 1, "{}", run.log);
    assert!(
        run.log
            .contains("no valid build-provenance attestation from guildctl/guildctl"),
        "{}",
        run.log
    );
    assert!(!dir.path().join("forged/guildctl/bin/guildctl").exists());

    // gh without a token cannot ask GitHub: the checksum alone, said so, gh never called
    // to verify.
    let mut r = runner("no-token", 1);
    r.input("github-token", "");
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert!(
        run.log
            .contains("build provenance not checked, gh has no token"),
        "{}",
        run.log
    );
    assert!(r.gh_calls().is_empty(), "{:?}", r.gh_calls());
}

#[tokio::test]
async fn the_version_follows_the_actions_ref_and_a_branch_builds_from_source() {
    let releases = Releases::start().await;
    let dir = tempfile::tempdir().unwrap();
    let install = |r: &mut Runner, temp: &str| {
        let inputs = std::mem::take(&mut r.inputs);
        let github = std::mem::take(&mut r.github);
        *r = Runner::new(&dir.path().join(temp));
        r.inputs = inputs;
        r.github = github;
        r.env("GUILDCTL_RELEASES_URL", &releases.url);
        // Stop after installing: validate a manifest that cannot be read.
        r.input("command", "validate")
            .input("manifest", "/nonexistent.yaml");
    };
    let mut r = Runner::new(dir.path());

    // A moving major tag (v0): the release of the version in the action's Cargo.toml.
    let major = VERSION.split('.').next().unwrap();
    install(&mut r, "major");
    r.github("action_ref", &format!("v{major}"));
    let run = r.run().await;
    assert_eq!(run.steps["install"]["mode"], "download", "{}", run.log);
    assert_eq!(run.steps["install"]["version"], VERSION);
    assert!(r.cargo_calls().is_empty(), "a release is not built");

    // A branch: built from source, with the cache step the runner would run first.
    install(&mut r, "branch");
    r.github("action_ref", "main");
    let run = r.run().await;
    assert_eq!(run.steps["install"]["mode"], "build", "{}", run.log);
    assert!(run.ran.iter().any(|s| s.starts_with("Restore")));
    assert_eq!(r.cargo_calls().len(), 1, "{}", run.log);
    let key = &run.steps["install"]["cache-key"];
    assert!(
        key.starts_with(&run.steps["install"]["cache-prefix"])
            && key.len() > "guildctl-build-Linux-X64-".len() + 20,
        "{key}"
    );

    // Asked to build: built, whatever the ref.
    install(&mut r, "asked");
    r.github("action_ref", &format!("v{VERSION}"))
        .input("build-from-source", "true");
    let run = r.run().await;
    assert_eq!(run.steps["install"]["mode"], "build", "{}", run.log);

    // A version tag without a release asset: built from source, with a warning.
    install(&mut r, "norelease");
    r.input("build-from-source", "false")
        .github("action_ref", "v9.9.9");
    let run = r.run().await;
    assert_eq!(run.steps["install"]["mode"], "build", "{}", run.log);
    assert!(
        run.log
            .contains("::warning::guildctl 9.9.9 has no release asset"),
        "{}",
        run.log
    );
}

#[tokio::test]
async fn the_build_step_runs_cargo_only_without_an_exact_cache_hit() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Runner::new(&dir.path().join("temp"));
    r.github("action_ref", "main")
        .input("command", "validate")
        .input("manifest", example("minimal.yaml").to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    let calls = r.cargo_calls();
    assert_eq!(calls.len(), 1);
    let args = &calls[0];
    assert!(args.starts_with("install --locked --force"), "{args}");
    assert!(args.contains(&format!("--path {ROOT}")), "{args}");
    assert!(run.path.contains("guildctl/bin"));

    // An exact cache hit restored the build: cargo is not run again.
    r.uses_outputs.insert(
        "cache".into(),
        HashMap::from([("cache-hit".into(), "true".into())]),
    );
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(r.cargo_calls().len(), 1);
}
