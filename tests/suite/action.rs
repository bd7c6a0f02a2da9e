//! The GitHub Action (action.yml), run the way a runner runs a composite action: each
//! `shell: bash` step in order as `bash --noprofile --norc -eo pipefail FILE`, its
//! `${{ }}` expressions evaluated into its `env`, with fresh `GITHUB_OUTPUT`, `GITHUB_PATH`
//! and a shared `GITHUB_STEP_SUMMARY`, a real `pull_request` event payload in
//! `GITHUB_EVENT_PATH`, against the Discord emulator, a stand-in for GitHub's REST API
//! (tests/suite/common/github.rs) and a local folder of releases served over loopback.
//! `uses:` steps (the build cache) are not run; whether the runner would run them is.
//! The example workflows' jobs run the same way, step by step (see "Workflow jobs").

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::github::{BOT_LOGIN, FakeGitHub, OTHER_LOGIN, PR_NUMBER, REPO, USER_LOGIN};
use common::{Harness, example};
use serde_json::Value;
use sha2::{Digest, Sha256};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const VERSION: &str = env!("CARGO_PKG_VERSION");
const TARGET: &str = "x86_64-unknown-linux-musl";

fn action() -> Value {
    let text = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).expect("action.yml is YAML")
}

// ---------------------------------------------------------------------------------------
// A folder of releases on loopback, as GitHub serves `releases/download/vX.Y.Z/ASSET`.

struct Releases {
    url: String,
    dir: PathBuf,
    _keep: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Releases {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Releases {
    /// Release `VERSION` for Linux x86_64 with a correct SHA256SUMS. Its "binary" is a
    /// two-line script that runs the guildctl under test: the install step handles it
    /// exactly like the real one (download, verify, unpack, install), at a fraction of the
    /// size.
    async fn start() -> Releases {
        let keep = tempfile::tempdir().unwrap();
        let dir = keep.path().to_owned();
        let folder = format!("guildctl-{VERSION}-{TARGET}");
        let stage = dir.join("stage").join(&folder);
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::write(
            stage.join("guildctl"),
            format!(
                "#!/bin/sh\nexec '{}' \"$@\"\n",
                env!("CARGO_BIN_EXE_guildctl")
            ),
        )
        .unwrap();
        let release = dir.join(format!("v{VERSION}"));
        std::fs::create_dir_all(&release).unwrap();
        let asset = format!("{folder}.tar.gz");
        let status = std::process::Command::new("tar")
            .arg("-czf")
            .arg(release.join(&asset))
            .arg("-C")
            .arg(dir.join("stage"))
            .arg(&folder)
            .status()
            .unwrap();
        assert!(status.success());
        let sum = hex(&std::fs::read(release.join(&asset)).unwrap());
        std::fs::write(
            release.join("SHA256SUMS"),
            format!(
                "{}  guildctl-{VERSION}-aarch64-apple-darwin.tar.gz\n{sum}  {asset}\n",
                "0".repeat(64)
            ),
        )
        .unwrap();

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let root = Arc::new(dir.clone());
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let root = root.clone();
            async move {
                let rel = uri.path().trim_start_matches('/');
                if rel.split('/').any(|s| s == ".." || s.is_empty()) {
                    return Err(axum::http::StatusCode::NOT_FOUND);
                }
                std::fs::read(root.join(rel)).map_err(|_| axum::http::StatusCode::NOT_FOUND)
            }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Releases {
            url,
            dir,
            _keep: keep,
            task,
        }
    }

    fn sums(&self) -> PathBuf {
        self.dir.join(format!("v{VERSION}/SHA256SUMS"))
    }
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The runner

#[derive(Default, Clone)]
struct Runner {
    inputs: HashMap<String, String>,
    /// `github.*` contexts: action_ref, action_repository, token, event_name.
    github: HashMap<String, String>,
    /// The job's environment (workflow `env:` and the runner's variables).
    env: Vec<(String, String)>,
    /// Outputs of `uses:` steps, which are not run.
    uses_outputs: HashMap<String, HashMap<String, String>>,
    /// Where `$RUNNER_TEMP` is: kept across runs in one job, like the runner's.
    temp: PathBuf,
    /// The steps' working folder (the runner's is the checkout), when not the tests'.
    cwd: Option<PathBuf>,
}

struct ActionRun {
    code: i32,
    outputs: HashMap<String, String>,
    steps: HashMap<String, HashMap<String, String>>,
    /// Names of the steps the runner would run, `uses:` ones included.
    ran: Vec<String>,
    summary: String,
    path: String,
    log: String,
}

impl ActionRun {
    fn out(&self, name: &str) -> &str {
        self.outputs.get(name).map(String::as_str).unwrap_or("")
    }
}

impl Runner {
    fn new(temp: &Path) -> Runner {
        std::fs::create_dir_all(temp).unwrap();
        let mut r = Runner {
            temp: temp.to_owned(),
            ..Runner::default()
        };
        r.github("token", "ghs_defaultTokenNotForThisRepo");
        r.github("action_repository", "guildctl/guildctl");
        r.github("event_name", "pull_request");
        // No test builds guildctl for real: a stand-in `cargo` records its arguments and
        // "installs" the binary under test.
        let fake = temp.join("fakebin");
        std::fs::create_dir_all(&fake).unwrap();
        let script = fake.join("cargo");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"$@\" >> '{calls}'\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && cp '{bin}' \"$root/bin/guildctl\"\n",
                calls = temp.join("cargo-calls").display(),
                bin = env!("CARGO_BIN_EXE_guildctl")
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!(
            "{}:{}",
            fake.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        r.env("PATH", &path);
        r.env("RUNNER_OS", "Linux");
        r.env("RUNNER_ARCH", "X64");
        r.env("GITHUB_ACTION_PATH", ROOT);
        r.env("GITHUB_SHA", "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
        r.env("GITHUB_EVENT_NAME", "pull_request");
        r.env("GITHUB_REPOSITORY", REPO);
        r.env("GITHUB_SERVER_URL", "https://github.com");
        r.env("GITHUB_RUN_ID", "4242");
        r
    }

    fn input(&mut self, k: &str, v: &str) -> &mut Self {
        self.inputs.insert(k.into(), v.into());
        self
    }

    fn github(&mut self, k: &str, v: &str) -> &mut Self {
        self.github.insert(k.into(), v.into());
        self
    }

    fn env(&mut self, k: &str, v: &str) -> &mut Self {
        self.env.retain(|(n, _)| n != k);
        self.env.push((k.into(), v.into()));
        self
    }

    fn event(&mut self, name: &str, payload: &Path) -> &mut Self {
        self.github("event_name", name);
        self.env("GITHUB_EVENT_NAME", name);
        self.env("GITHUB_EVENT_PATH", payload.to_str().unwrap())
    }

    /// Puts a stand-in `gh` on the steps' PATH: it records each call's arguments (and
    /// whether it had a token) in `gh-calls`, answers `attestation verify --help`, and
    /// ends a verification with `verify_code`.
    fn fake_gh(&mut self, verify_code: i32) -> &mut Self {
        let script = self.temp.join("fakebin/gh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"token=${{GH_TOKEN:+set}} $*\" >> '{calls}'\ncase \"$*\" in *--help*) exit 0 ;; esac\nexit {verify_code}\n",
                calls = self.temp.join("gh-calls").display(),
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn gh_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.temp.join("gh-calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The arguments of each `cargo` the steps ran.
    fn cargo_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.temp.join("cargo-calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn for_services(&mut self, h: &Harness, gh: &FakeGitHub, releases: &Releases) -> &mut Self {
        for (k, v) in gh.env() {
            if k != "GITHUB_TOKEN" {
                self.env(k, &v);
            }
        }
        self.github("token", &gh.token);
        self.env("GUILDCTL_API_BASE", &h.emu.api_base);
        self.env("GUILDCTL_RELEASES_URL", &releases.url);
        self.input("token", &h.emu.token);
        self.input("guild", &h.emu.guild_id);
        self.input("version", VERSION)
    }

    /// `${{ ... }}` in `text`, evaluated.
    fn eval(
        &self,
        action: &Value,
        steps: &HashMap<String, HashMap<String, String>>,
        text: &str,
    ) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("closed expression") + start;
            out.push_str(&self.value(action, steps, rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn value(
        &self,
        action: &Value,
        steps: &HashMap<String, HashMap<String, String>>,
        expr: &str,
    ) -> String {
        // `A || B`: the first side that is not empty (GitHub's first truthy one).
        if expr.contains("||") {
            return expr
                .split("||")
                .map(|side| self.value(action, steps, side.trim()))
                .find(|v| !v.is_empty())
                .unwrap_or_default();
        }
        // `A == B`, each side an expression or a quoted literal: "true" or "false".
        if let Some((left, right)) = expr.split_once("==") {
            let side = |s: &str| match s.trim() {
                s if s.starts_with('\'') => s.trim_matches('\'').to_owned(),
                s => self.value(action, steps, s),
            };
            return (side(left) == side(right)).to_string();
        }
        let parts: Vec<&str> = expr.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => match self.inputs.get(*name) {
                Some(v) => v.clone(),
                None => {
                    let input = &action["inputs"][*name];
                    assert!(input.is_object(), "no input {name} in action.yml");
                    let default = input["default"].as_str().unwrap_or("");
                    self.eval(action, steps, default)
                }
            },
            // `github.event.before` is looked up as `event.before`.
            ["github", path @ ..] => self
                .github
                .get(&path.join("."))
                .cloned()
                .unwrap_or_default(),
            ["runner", "temp"] => self.temp.to_str().unwrap().to_owned(),
            ["runner", "os"] => "Linux".into(),
            ["steps", id, "outputs", name] => steps
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            _ => panic!("tests/suite/action.rs cannot evaluate ${{{{ {expr} }}}}"),
        }
    }

    /// A step's `if:`: `EXPR == 'literal'` or nothing.
    fn condition(
        &self,
        action: &Value,
        steps: &HashMap<String, HashMap<String, String>>,
        cond: Option<&str>,
    ) -> bool {
        let Some(cond) = cond else { return true };
        let (left, right) = cond.split_once("==").expect("an `A == 'b'` condition");
        let right = right.trim().trim_matches('\'');
        self.value(action, steps, left.trim()) == right
    }

    async fn run(&self) -> ActionRun {
        let action = action();
        let summary = self.temp.join("step-summary.md");
        std::fs::write(&summary, "").unwrap();
        let mut steps: HashMap<String, HashMap<String, String>> = HashMap::new();
        let mut ran = Vec::new();
        let mut log = String::new();
        let mut path_file = String::new();
        let mut code = 0;
        for (n, step) in action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let name = step["name"].as_str().unwrap_or("?").to_owned();
            if !self.condition(&action, &steps, step["if"].as_str()) {
                continue;
            }
            ran.push(name.clone());
            let id = step["id"].as_str().map(str::to_owned);
            if step["uses"].is_string() {
                if let Some(id) = id {
                    let outs = self.uses_outputs.get(&id).cloned().unwrap_or_default();
                    steps.insert(id, outs);
                }
                continue;
            }
            assert_eq!(step["shell"], "bash", "step {name}: shell bash");
            assert!(
                step["if"].is_null(),
                "a run step's condition lives in its script"
            );
            let script = step["run"].as_str().expect("run");
            assert!(
                !script.contains("${{"),
                "step {name}: expressions go through env"
            );
            let dir = self.temp.join(format!("step-{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("script.sh");
            std::fs::write(&file, script).unwrap();
            let output = dir.join("output");
            let path = dir.join("path");
            std::fs::write(&output, "").unwrap();
            std::fs::write(&path, "").unwrap();
            let mut cmd = tokio::process::Command::new("bash");
            if let Some(cwd) = &self.cwd {
                cmd.current_dir(cwd);
            }
            cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(&file)
                .env_clear()
                .env("HOME", std::env::var("HOME").unwrap_or_default())
                .env("RUNNER_TEMP", &self.temp)
                .env("GITHUB_OUTPUT", &output)
                .env("GITHUB_PATH", &path)
                .env("GITHUB_STEP_SUMMARY", &summary)
                .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            if let Some(env) = step["env"].as_object() {
                for (k, v) in env {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    cmd.env(k, self.eval(&action, &steps, &v));
                }
            }
            let out = cmd.output().await.unwrap();
            log.push_str(&format!("== {name}\n"));
            log.push_str(&String::from_utf8_lossy(&out.stdout));
            log.push_str(&String::from_utf8_lossy(&out.stderr));
            path_file.push_str(&std::fs::read_to_string(&path).unwrap());
            if let Some(id) = id {
                steps.insert(
                    id,
                    parse_outputs(&std::fs::read_to_string(&output).unwrap()),
                );
            }
            code = out.status.code().unwrap_or(-1);
            if code != 0 {
                break;
            }
        }
        let mut outputs = HashMap::new();
        for (k, v) in action["outputs"].as_object().unwrap() {
            let value = self.eval(&action, &steps, v["value"].as_str().unwrap());
            outputs.insert(k.clone(), value);
        }
        ActionRun {
            code,
            outputs,
            steps,
            ran,
            summary: std::fs::read_to_string(&summary).unwrap(),
            path: path_file,
            log,
        }
    }
}

/// `GITHUB_OUTPUT`'s format: `name=value` lines, or `name<<DELIMITER` blocks.
fn parse_outputs(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((k, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                value.push(l);
            }
            out.insert(k.to_owned(), value.join("\n"));
        } else if let Some((k, v)) = line.split_once('=') {
            out.insert(k.to_owned(), v.to_owned());
        }
    }
    out
}

/// What the runner's log shows: the tokens only in `::add-mask::` lines, which the runner
/// swallows (and masks everywhere after).
fn assert_secrets_hidden(run: &ActionRun, secrets: &[&str]) {
    for s in secrets {
        assert!(
            run.log.contains(&format!("::add-mask::{s}")),
            "the first step masks every token"
        );
        for line in run.log.lines().filter(|l| !l.starts_with("::add-mask::")) {
            assert!(!line.contains(s), "a token in the log: {line}");
        }
        assert!(!run.summary.contains(s));
        assert!(run.outputs.values().all(|v| !v.contains(s)));
    }
}

fn event(name: &str) -> PathBuf {
    Path::new(ROOT).join(format!("tests/data/github-event-{name}.json"))
}

/// community.yaml and its assets in the harness's folder, as a config repository has them.
fn config_repo(h: &Harness) -> PathBuf {
    let assets = h.dir.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::copy(example("assets/ci.png"), assets.join("ci.png")).unwrap();
    // The example, plus what people made by hand in the sandbox guild with power
    // (the Admin role, two webhooks): a config repository that declares everything
    // has no high-risk drift left once it is applied.
    let manifest = h.dir.path().join("guild.yaml");
    let text = std::fs::read_to_string(example("community.yaml")).unwrap();
    let declared = text.replacen(
        "webhooks:\n",
        "webhooks:\n  - { name: GitHub, channel: bot-spam }\n  - { name: Mod Mail, channel: mod-log }\n",
        1,
    );
    assert_ne!(declared, text, "the example has a webhooks section");
    let declared = declared.replacen("roles:\n", "roles:\n  - name: Admin\n", 1);
    std::fs::write(&manifest, declared).unwrap();
    manifest
}

// ---------------------------------------------------------------------------------------
// Installing

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

// ---------------------------------------------------------------------------------------
// Running

#[tokio::test]
async fn a_pull_request_gets_one_plan_comment_and_a_second_push_updates_it() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());

    let first = r.run().await;
    assert_eq!(first.code, 0, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    let plan_path = first.out("plan").to_owned();
    let plan_text = std::fs::read_to_string(&plan_path).expect("the plan file");
    let plan: Value = serde_json::from_str(&plan_text).unwrap();
    let expected = plan["changes_sha256"]
        .as_str()
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| hex(plan_text.as_bytes()));
    assert_eq!(first.out("plan-digest"), expected);
    assert!(
        first.summary.starts_with("### guildctl plan"),
        "{}",
        first.summary
    );
    assert!(
        h.writes().is_empty(),
        "plan, and its rehearsal, write nothing to Discord"
    );
    assert_eq!(first.out("rehearsal"), "passed");

    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    assert!(body.starts_with("<!-- guildctl:plan:"), "{body}");
    assert!(body.contains("### guildctl plan"), "{body}");
    // The rehearsal's verdict is among the comment's first lines.
    assert!(
        body.lines()
            .take(8)
            .any(|l| l.starts_with("**Rehearsed:** ") && l.ends_with("converges")),
        "{body}"
    );
    assert!(
        body.contains(&format!("Plan digest `{expected}`")),
        "{body}"
    );
    assert!(body.contains("https://github.com/Codertocat/Hello-World/actions/runs/4242"));
    assert_eq!(
        first.out("comment-url"),
        format!(
            "https://github.com/{REPO}/pull/{PR_NUMBER}#issuecomment-{}",
            comments[0].id
        )
    );
    let report = std::fs::read_to_string(first.out("report")).unwrap();
    assert!(report.contains(&expected));

    // A second push changes the manifest: the same comment shows the new plan.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#e67e22", "#123456", 1)).unwrap();
    r.event("pull_request", &event("pull_request-synchronize"));
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert!(
        second.log.contains("is already installed"),
        "{}",
        second.log
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(comments[0].body.contains("#123456"), "{}", comments[0].body);
    assert_ne!(second.out("plan-digest"), first.out("plan-digest"));
    assert_eq!(second.out("comment-url"), first.out("comment-url"));

    // A push that breaks the manifest: the comment says the plan failed, not the old plan.
    let good = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        "version: 1\nroles:\n  - name: Mods\n    colr: x\n",
    )
    .unwrap();
    let broken = r.run().await;
    assert_eq!(broken.code, 1, "{}", broken.log);
    assert_eq!(broken.out("exit-code"), "1");
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(
        comments[0].body.contains("### guildctl plan failed"),
        "{}",
        comments[0].body
    );
    assert!(!comments[0].body.contains("#123456"));
    std::fs::write(&manifest, good).unwrap();
    assert_eq!(r.run().await.code, 0);
    assert!(gh.comments(PR_NUMBER)[0].body.contains("#123456"));

    // comment: false, or a push: no comment is touched.
    let writes = gh.writes().len();
    r.input("comment", "false");
    assert_eq!(r.run().await.code, 0);
    r.input("comment", "true")
        .event("push", &event("pull_request-opened"));
    let push = r.run().await;
    assert_eq!(push.code, 0, "{}", push.log);
    assert_eq!(push.out("comment-url"), "");
    assert_eq!(gh.writes().len(), writes);

    assert_secrets_hidden(&first, &[&h.emu.token, &gh.token]);
    assert_secrets_hidden(&second, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

#[tokio::test]
async fn drift_opens_updates_and_closes_one_issue_and_apply_converges() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let schedule = h.dir.path().join("schedule.json");
    std::fs::write(&schedule, r#"{"schedule": "17 6 * * *"}"#).unwrap();
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("schedule", &schedule)
        .input("command", "drift")
        .input("manifest", manifest.to_str().unwrap());
    let ours = || {
        gh.issues()
            .into_iter()
            .filter(|i| i.labels.contains(&"guildctl-drift".to_owned()))
            .collect::<Vec<_>>()
    };

    // Drift: the job fails (exit 2, captured under -eo pipefail) and one issue opens.
    let first = r.run().await;
    assert_eq!(first.code, 2, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    let issues = ours();
    assert_eq!(issues.len(), 1);
    assert_eq!(
        first.out("comment-url"),
        format!("https://github.com/{REPO}/issues/{}", issues[0].number)
    );
    assert!(
        issues[0].body.contains("guildctl drift report"),
        "{}",
        issues[0].body
    );

    // Drift that changed: the same issue, updated; fail-on-drift false keeps the job green.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#e67e22", "#654321", 1)).unwrap();
    r.input("fail-on-drift", "false");
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert_eq!(second.out("changes"), "true");
    let again = ours();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].number, issues[0].number);
    // Inert in markdown: `#654321` would link issue 654321, so a zero-width space follows `#`.
    assert!(
        again[0].body.contains("\\#\u{200b}654321"),
        "{}",
        again[0].body
    );

    // Merge: apply; then drift finds none, and the issue closes with a comment.
    let mut apply = Runner::new(&h.dir.path().join("runner-apply"));
    apply
        .for_services(&h, &gh, &releases)
        .event("push", &schedule)
        .input("command", "apply")
        .input("manifest", manifest.to_str().unwrap());
    let applied = apply.run().await;
    assert_eq!(applied.code, 0, "{}", applied.log);
    assert_eq!(applied.out("exit-code"), "0");
    assert!(!h.writes().is_empty());

    let third = r.run().await;
    assert_eq!(third.code, 0, "{}", third.log);
    assert_eq!(third.out("changes"), "false");
    assert!(third.summary.contains("No changes"), "{}", third.summary);
    let closed = ours();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].state, "closed");
    assert_eq!(closed[0].state_reason.as_deref(), Some("completed"));
    assert_eq!(gh.comments(closed[0].number).len(), 1);

    // No drift, no open issue: nothing written.
    let writes = gh.writes().len();
    let fourth = r.run().await;
    assert_eq!(fourth.code, 0, "{}", fourth.log);
    assert_eq!(fourth.out("comment-url"), "");
    assert_eq!(gh.writes().len(), writes);

    // The manifest goes back; the live colour is the apply's. `applier` reaches `drift
    // --applier` (split on commas and spaces): naming the bot that applied credits
    // guildctl, naming others leaves the entry the bot's own, whose reason only claims it.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#654321", "#e67e22", 1)).unwrap();
    let body = || {
        let open: Vec<_> = ours().into_iter().filter(|i| i.state == "open").collect();
        assert_eq!(open.len(), 1);
        open[0].body.clone()
    };
    let bot = h.emu.state().bot_user_id;
    r.input("applier", &format!("1234, {bot}"));
    let credited = r.run().await;
    assert_eq!(credited.code, 0, "{}", credited.log);
    assert!(
        body().contains("(guildctl, commit ec26c3e57ca3"),
        "{}",
        body()
    );
    r.input("applier", "1234,5678");
    let others = r.run().await;
    assert_eq!(others.code, 0, "{}", others.log);
    assert!(
        body().contains("(claims guildctl, but not the applying bot's change)"),
        "{}",
        body()
    );

    for run in [&first, &second, &applied, &third, &credited, &others] {
        assert_secrets_hidden(run, &[&h.emu.token, &gh.token]);
    }
    gh.assert_conforms();
}

#[tokio::test]
async fn validate_annotates_lines_and_apply_takes_a_saved_plan() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let bad = h.manifest(
        "bad.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: \"#ffffff\"\n",
    );
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .input("command", "validate")
        .input("manifest", bad.to_str().unwrap());
    let validate = r.run().await;
    assert_eq!(validate.code, 1, "{}", validate.log);
    assert_eq!(validate.out("exit-code"), "1");
    assert!(validate.log.contains("::error file="), "{}", validate.log);
    assert!(validate.log.contains("line=4"), "{}", validate.log);

    // plan (not on a pull request) then apply that very plan file.
    let manifest = config_repo(&h);
    r.event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());
    let plan = r.run().await;
    assert_eq!(plan.code, 0, "{}", plan.log);
    assert!(
        gh.requests().is_empty(),
        "no comment outside a pull request"
    );
    r.input("command", "apply").input("plan", plan.out("plan"));
    let apply = r.run().await;
    assert_eq!(apply.code, 0, "{}", apply.log);
    assert!(!h.writes().is_empty());
    r.input("command", "drift")
        .input("drift-issue", "false")
        .input("plan", "");
    let drift = r.run().await;
    assert_eq!(drift.code, 0, "{}", drift.log);
    assert_eq!(drift.out("changes"), "false");

    // install: guildctl on PATH for later steps, nothing else run.
    r.input("command", "install");
    let install = r.run().await;
    assert_eq!(install.code, 0, "{}", install.log);
    assert_eq!(install.out("exit-code"), "0");
    assert!(install.path.contains("guildctl/bin"), "{}", install.path);
    assert!(
        install.log.contains(&format!("guildctl {VERSION}")),
        "{}",
        install.log
    );

    // An unknown command says so.
    r.input("command", "destroy");
    let unknown = r.run().await;
    assert_eq!(unknown.code, 1);
    assert!(unknown.log.contains("::error::unknown command 'destroy'"));
}

#[tokio::test]
async fn the_sarif_input_writes_validate_and_plan_findings_for_code_scanning() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let bad = h.manifest(
        "bad.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: \"#ffffff\"\n",
    );
    let out = h.dir.path().join("validate.sarif");
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .input("command", "validate")
        .input("manifest", bad.to_str().unwrap())
        .input("sarif", out.to_str().unwrap());
    let validate = r.run().await;
    assert_eq!(validate.code, 1, "{}", validate.log);
    assert_eq!(validate.out("sarif"), out.to_str().unwrap());
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "schema");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );

    // plan: the risks of the example's plan, on its lines.
    let manifest = config_repo(&h);
    let out = h.dir.path().join("plan.sarif");
    r.event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap())
        .input("sarif", out.to_str().unwrap());
    let plan = r.run().await;
    assert_eq!(plan.code, 0, "{}", plan.log);
    assert_eq!(plan.out("sarif"), out.to_str().unwrap());
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["ruleId"] == "risk-grant"),
        "{results:?}"
    );
    assert!(h.writes().is_empty());
}

// ---------------------------------------------------------------------------------------
// Supply chain

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

#[tokio::test]
async fn the_merge_run_refuses_a_reviewed_plan_when_the_guild_changed_since_review() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);

    // Someone edits the guild by hand between review and merge.
    h.arrange(|g| g.role("Helper").color ^= 0x00ff00);
    h.emu.clear_requests();

    r.input("command", "apply")
        .input("plan", reviewed.out("plan"));
    let merged = r.run().await;
    assert_eq!(merged.code, 1, "{}", merged.log);
    assert_eq!(merged.out("exit-code"), "1");
    assert!(
        merged.log.contains("changed since") && merged.log.contains("plan"),
        "{}",
        merged.log
    );
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    assert_secrets_hidden(&merged, &[&h.emu.token, &gh.token]);
}

/// A plan too large for a comment is whole in the job summary, which the comment points
/// to; a refused plan shows its refusals in the comment and on the manifest's lines.
#[tokio::test]
async fn a_huge_plan_is_whole_in_the_summary_and_refusals_land_on_the_lines() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let permissions = guildctl::permissions::NAMED
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    let mut yaml = String::from("version: 1\nroles:\n");
    for i in 0..240 {
        yaml += &format!(
            "  - {{ name: \"Role {i:03} {}\", permissions: [{permissions}] }}\n",
            "x".repeat(80)
        );
    }
    let huge = h.manifest("huge.yaml", &yaml);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", huge.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    let comment = &gh.comments(PR_NUMBER)[0].body;
    assert!(comment.chars().count() <= 65_536, "{}", comment.len());
    assert!(comment.contains("left out to fit a GitHub comment"));
    assert!(comment.contains("the run's job summary"));
    // The diff is cut; the risk every new administrator role carries is not.
    assert!(
        !comment.contains("+ create role Role 239"),
        "the comment is cut"
    );
    assert!(
        comment.contains(&format!(
            "- role Role 239 {} gains administrator",
            "x".repeat(80)
        )),
        "{comment}"
    );
    // Every change is in the summary, within its 1 MiB, with the digest line.
    assert!(run.summary.len() > 65_536, "{}", run.summary.len());
    assert!(run.summary.len() <= 1 << 20);
    assert!(run.summary.contains("Role 000") && run.summary.contains("Role 239"));
    assert!(!run.summary.contains("left out"));
    assert!(
        run.summary
            .contains(&format!("Plan digest `{}`", run.out("plan-digest")))
    );

    // Refused: the widget names a channel nobody declared or made.
    let refused = h.manifest(
        "refused.yaml",
        "version: 1\nwidget:\n  enabled: true\n  channel: no-such-channel\n",
    );
    r.input("manifest", refused.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 1, "{}", run.log);
    // One comment per manifest: this one is refused.yaml's.
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2);
    let comment = &comments[1].body;
    assert!(comment.contains("refused.yaml -->"), "{comment}");
    assert!(comment.contains("The plan was refused"), "{comment}");
    assert!(comment.contains("widget.channel"), "{comment}");
    assert!(run.summary.contains("The plan was refused"));
    let annotation = run
        .log
        .lines()
        .find(|l| l.starts_with("::error file=") && l.contains("refused.yaml"))
        .unwrap_or_else(|| panic!("no annotation in {}", run.log));
    assert!(annotation.contains("line=4"), "{annotation}");
    assert!(annotation.contains("no-such-channel"), "{annotation}");

    // A manifest error in a plan run is annotated on its line too.
    let broken = h.manifest(
        "broken.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: x\n",
    );
    r.input("manifest", broken.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 1, "{}", run.log);
    assert!(
        run.log
            .lines()
            .any(|l| l.starts_with("::error file=") && l.contains("line=4")),
        "{}",
        run.log
    );
    assert!(h.writes().is_empty(), "nothing was sent to Discord");
    gh.assert_conforms();
}

/// The Action tells guildctl whose comments are its own: `github-actions[bot]` for the
/// workflow's token, the person GitHub names for another token, or `github-author`. A
/// comment carrying the marker that someone else wrote is left alone.
#[tokio::test]
async fn the_action_edits_only_comments_its_token_wrote() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let marker = format!("<!-- guildctl:plan:{} -->", manifest.display());
    let planted = format!("{marker}\nNo changes.");
    let theirs = gh.add_comment(PR_NUMBER, &planted);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());

    // The workflow's own token: github-actions[bot], told by the Action (no GET /user).
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert!(
        run.log
            .contains("writes on GitHub as github-actions[bot] (as given)"),
        "{}",
        run.log
    );
    assert!(!gh.requests().iter().any(|q| q.path == "/user"));
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!((comments[0].id, &comments[0].body), (theirs, &planted));
    assert_eq!(comments[0].author, OTHER_LOGIN);
    assert_eq!(comments[1].author, BOT_LOGIN);
    assert!(
        run.log
            .contains(&format!("Left alone: comment {theirs} by {OTHER_LOGIN}"))
    );

    // A person's token: GitHub names the person, whose comment is a new one.
    r.input("github-token", &gh.user_token.clone());
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert!(
        run.log.contains(&format!(
            "writes on GitHub as {USER_LOGIN} (the token's user)"
        )),
        "{}",
        run.log
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 3);
    assert_eq!(comments[2].author, USER_LOGIN);
    assert_secrets_hidden(&run, &[&gh.user_token, &h.emu.token]);

    // github-author is taken as given.
    r.input("github-author", USER_LOGIN);
    let before = gh.requests().iter().filter(|q| q.path == "/user").count();
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(
        gh.requests().iter().filter(|q| q.path == "/user").count(),
        before
    );
    assert_eq!(gh.comments(PR_NUMBER).len(), 3, "its own comment, updated");
    assert_eq!(gh.comments(PR_NUMBER)[0].body, planted);
    gh.assert_conforms();
}

// ---------------------------------------------------------------------------------------
// A workspace: one comment, one issue, one reviewed plan per guild

const WS_BASE: &str = "version: 1
roles:
  - { name: Shared Helper, color: \"#123456\", permissions: [send_messages] }
channels:
  - { name: shared-news, type: text, topic: From the base }
";

/// Three guilds (`a`, `b`, `c`) that extend one base, as a config repository holds them,
/// and a runner whose checkout is that repository, with `guilds: all`.
async fn workspace_repo() -> (Harness, FakeGitHub, Releases, Runner, Vec<String>) {
    let state = discord_emulator::with_guild_copies(discord_emulator::default_state(), 3);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let repo = h.dir.path().join("repo");
    std::fs::create_dir_all(repo.join("guilds")).unwrap();
    std::fs::write(repo.join("base.yaml"), WS_BASE).unwrap();
    let mut ws = String::from("guilds:\n");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        std::fs::write(
            repo.join(format!("guilds/{name}.yaml")),
            "version: 1\nextends: ../base.yaml\n",
        )
        .unwrap();
        ws.push_str(&format!(
            "  {name}: {{ id: \"{id}\", manifest: guilds/{name}.yaml }}\n"
        ));
    }
    std::fs::write(repo.join("guildctl.yaml"), ws).unwrap();
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.cwd = Some(repo.clone());
    r.for_services(&h, &gh, &releases)
        .env("GITHUB_WORKSPACE", repo.to_str().unwrap())
        .input("guild", "")
        .input("guilds", "all");
    (h, gh, releases, r, ids)
}

fn repo_of(r: &Runner) -> PathBuf {
    r.cwd.clone().unwrap()
}

/// The plan comment of each guild on the pull request, by guild name.
fn guild_comments(gh: &FakeGitHub) -> HashMap<String, common::github::GhComment> {
    gh.comments(PR_NUMBER)
        .into_iter()
        .filter_map(|c| {
            let name = c
                .body
                .strip_prefix("<!-- guildctl:plan:guild/")?
                .split_once(" -->")?
                .0
                .to_owned();
            Some((name, c))
        })
        .collect()
}

#[tokio::test]
async fn a_base_change_comments_on_every_guild_and_a_guild_file_only_on_its_own() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let repo = repo_of(&r);
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan");

    // The pull request changes the base: each of the three guilds gets its comment.
    gh.set_pull_files(
        PR_NUMBER,
        &[("base.yaml", "modified"), ("README.md", "added")],
    );
    let first = r.run().await;
    assert_eq!(first.code, 0, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    assert_eq!(first.out("rehearsal"), "passed");
    let comments = guild_comments(&gh);
    assert_eq!(comments.len(), 3, "{:?}", gh.comments(PR_NUMBER));
    assert_eq!(gh.comments(PR_NUMBER).len(), 3, "nothing else posted");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        let body = &comments[*name].body;
        assert!(body.contains("### guildctl plan"), "{body}");
        assert!(
            body.contains(id.as_str()),
            "{name}'s comment names its guild: {body}"
        );
        assert!(body.contains("Shared Helper"), "{body}");
        assert!(body.contains(&format!("for guild `{name}`")), "{body}");
    }
    // The plan folder: one reviewed plan per guild planned, and their names.
    let plans = PathBuf::from(first.out("plan"));
    assert_eq!(
        std::fs::read_to_string(plans.join("guilds.txt")).unwrap(),
        "a\nb\nc\n"
    );
    for name in ["a", "b", "c"] {
        assert!(plans.join(format!("{name}.json")).is_file());
    }
    assert_eq!(first.out("plan-digest").split(' ').count(), 3);
    assert!(h.writes().is_empty(), "plan writes nothing to Discord");

    // A push that changes b's own file only: only b is planned, only b's comment moves.
    std::fs::write(
        repo.join("guilds/b.yaml"),
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text }\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/b.yaml", "modified")]);
    let writes = gh.writes().len();
    r.event("pull_request", &event("pull_request-synchronize"));
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    let after = guild_comments(&gh);
    assert_eq!(after.len(), 3, "still one comment per guild");
    let new_writes = &gh.writes()[writes..];
    assert_eq!(new_writes.len(), 1, "{new_writes:?}");
    assert_eq!(new_writes[0].method, "PATCH");
    assert!(after["b"].body.contains("b-only"), "{}", after["b"].body);
    assert_eq!(after["a"].body, comments["a"].body);
    assert_eq!(after["c"].body, comments["c"].body);
    let plans = PathBuf::from(second.out("plan"));
    assert_eq!(
        std::fs::read_to_string(plans.join("guilds.txt")).unwrap(),
        "b\n"
    );
    assert!(
        second.log.contains("Guild b is touched: guilds/b.yaml"),
        "{}",
        second.log
    );

    // A pull request that changes no guild's files: nothing planned, nothing posted.
    gh.set_pull_files(PR_NUMBER, &[("README.md", "modified")]);
    let writes = gh.writes().len();
    let none = r.run().await;
    assert_eq!(none.code, 0, "{}", none.log);
    assert_eq!(none.out("changes"), "false");
    assert_eq!(gh.writes().len(), writes);
    assert!(
        none.summary.contains("changes no guild"),
        "{}",
        none.summary
    );

    // A broken guild file: that guild's comment says the plan failed; the job fails.
    std::fs::write(
        repo.join("guilds/c.yaml"),
        "version: 1\nextends: ../base.yaml\nroles: 7\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/c.yaml", "modified")]);
    let broken = r.run().await;
    assert_eq!(broken.code, 1, "{}", broken.log);
    let c = &guild_comments(&gh)["c"].body;
    assert!(c.contains("guildctl plan failed for `c`"), "{c}");

    assert_secrets_hidden(&first, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

#[tokio::test]
async fn drift_keeps_one_issue_per_guild() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let schedule = h.dir.path().join("schedule.json");
    std::fs::write(&schedule, r#"{"schedule": "17 6 * * *"}"#).unwrap();
    r.event("schedule", &schedule).input("command", "drift");
    // The base declares what the guilds hold with power (roles and hand-made webhooks),
    // so once applied no high-risk drift is left.
    let base = WS_BASE.replacen(
        "roles:\n",
        "roles:\n  - name: Admin\n  - name: Moderator\n  - name: Helper\n",
        1,
    ) + "webhooks:\n  - { name: GitHub, channel: bot-spam }\n  - { name: Mod Mail, channel: mod-log }\n";
    std::fs::write(repo_of(&r).join("base.yaml"), base).unwrap();
    let ours = || {
        gh.issues()
            .into_iter()
            .filter(|i| i.labels.contains(&"guildctl-drift".to_owned()))
            .collect::<Vec<_>>()
    };
    // Every guild lacks the base's role: three issues, one per guild, and the job fails.
    let first = r.run().await;
    assert_eq!(first.code, 2, "{}", first.log);
    let issues = ours();
    assert_eq!(issues.len(), 3, "{issues:?}");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        let i = issues
            .iter()
            .find(|i| {
                i.body
                    .starts_with(&format!("<!-- guildctl:drift:guild/{name} -->"))
            })
            .unwrap_or_else(|| panic!("{name}'s issue: {issues:?}"));
        assert_eq!(
            i.title,
            format!("guildctl: guild {name} drifted from its manifest")
        );
        assert!(i.body.contains(id.as_str()), "{}", i.body);
        assert_eq!(i.state, "open");
    }
    assert_eq!(first.out("comment-url").split(' ').count(), 3);

    // Apply every guild (no reviewed plan: as a workflow_dispatch would), then drift:
    // each guild matches; its issue closes. No new issue opens.
    let mut apply = Runner::new(&h.dir.path().join("runner-apply"));
    apply.cwd = r.cwd.clone();
    apply
        .for_services(&h, &gh, &_releases)
        .event("push", &schedule)
        .input("guild", "")
        .input("guilds", "all")
        .input("command", "apply");
    let applied = apply.run().await;
    assert_eq!(applied.code, 0, "{}", applied.log);
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert_eq!(second.out("changes"), "false");
    let closed = ours();
    assert_eq!(closed.len(), 3);
    assert!(closed.iter().all(|i| i.state == "closed"), "{closed:?}");

    // Drift in one guild only: its issue alone reopens... as a new one (the old is
    // closed); the others stay closed.
    h.arrange_in(&ids[1], |g| g.role("Shared Helper").color ^= 0xff);
    let third = r.run().await;
    assert_eq!(third.code, 2, "{}", third.log);
    let open: Vec<_> = ours().into_iter().filter(|i| i.state == "open").collect();
    assert_eq!(open.len(), 1, "{open:?}");
    assert!(open[0].body.starts_with("<!-- guildctl:drift:guild/b -->"));
    gh.assert_conforms();
}

#[tokio::test]
async fn the_merge_run_applies_exactly_each_guilds_reviewed_plan() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let repo = repo_of(&r);
    // Reviewed: a pull request that changes the base (all three guilds).
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan");
    gh.set_pull_files(PR_NUMBER, &[("base.yaml", "modified")]);
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);
    // The artifact, as download-artifact puts it in the merge run's checkout.
    let downloaded = repo.join("reviewed-plan");
    std::fs::create_dir_all(&downloaded).unwrap();
    for f in std::fs::read_dir(reviewed.out("plan")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), downloaded.join(f.file_name())).unwrap();
    }
    r.event("push", &event("pull_request-opened"))
        .input("command", "apply")
        .input("plan", "reviewed-plan");
    let merged = r.run().await;
    assert_eq!(merged.code, 0, "{}", merged.log);
    let writes = h.writes();
    for id in &ids {
        let guild = h.emu.state().guild(id).unwrap().clone();
        assert!(
            guild.roles.iter().any(|r| r.name == "Shared Helper"),
            "guild {id} applied"
        );
    }
    assert!(!writes.is_empty());

    // A pull request that changes b's file only: its reviewed plan holds b alone, and
    // the merge run applies b and sends nothing that writes to a or c, even though the
    // base changed in the checkout since (an unreviewed change is not applied).
    std::fs::write(
        repo.join("guilds/b.yaml"),
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text }\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/b.yaml", "modified")]);
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("plan", "");
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);
    std::fs::remove_dir_all(&downloaded).unwrap();
    std::fs::create_dir_all(&downloaded).unwrap();
    for f in std::fs::read_dir(reviewed.out("plan")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), downloaded.join(f.file_name())).unwrap();
    }
    std::fs::write(
        repo.join("base.yaml"),
        WS_BASE.replace("From the base", "Changed after review"),
    )
    .unwrap();
    h.emu.clear_requests();
    r.event("push", &event("pull_request-opened"))
        .input("command", "apply")
        .input("plan", "reviewed-plan");
    let merged = r.run().await;
    // b's plan no longer matches (the base moved under it): refused, nothing written.
    assert_eq!(merged.code, 1, "{}", merged.log);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    // With the base as reviewed, b alone is applied.
    std::fs::write(repo.join("base.yaml"), WS_BASE).unwrap();
    let merged = r.run().await;
    assert_eq!(merged.code, 0, "{}", merged.log);
    let b_channels: Vec<String> = h
        .emu
        .state()
        .guild(&ids[1])
        .unwrap()
        .channels
        .iter()
        .map(|c| c.id.clone())
        .collect();
    let writes = h.writes();
    assert!(!writes.is_empty());
    for w in &writes {
        assert!(
            w.path.contains(&ids[1]) || b_channels.iter().any(|c| w.path.contains(c.as_str())),
            "a write outside b: {} {}",
            w.method,
            w.path
        );
    }
    assert!(
        h.emu
            .state()
            .guild(&ids[1])
            .unwrap()
            .channels
            .iter()
            .any(|c| c.name == "b-only")
    );
    assert_secrets_hidden(&merged, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

// ---------------------------------------------------------------------------------------
// Workflow jobs: a job of an example workflow run as the runner runs it. Its steps in
// order, each with its `if:` (default `success()`); `run:` steps as `bash --noprofile
// --norc -eo pipefail`, the Action (`guildctl/guildctl@...`) through `Runner` with the
// step's `with:` as inputs, `actions/checkout` as the checkout already there, and
// `actions/upload-artifact` / `download-artifact` as copies to and from a folder of
// artifacts by run id and name.

struct Job {
    /// The job's result: 0 when every step that ran succeeded.
    code: i32,
    /// Names (or `uses:`) of the steps that ran.
    ran: Vec<String>,
    steps: HashMap<String, HashMap<String, String>>,
    log: String,
}

/// What a workflow's steps see besides the Action's runner: its secrets, the folder of
/// artifacts (`ARTIFACTS/<run id>/<name>/`), and this run's id.
struct Workflow<'a> {
    base: &'a Runner,
    secrets: HashMap<&'static str, String>,
    artifacts: PathBuf,
    run_id: String,
}

impl Workflow<'_> {
    fn value(&self, steps: &HashMap<String, HashMap<String, String>>, expr: &str) -> String {
        let expr = expr.trim();
        if let Some(lit) = expr.strip_prefix('\'') {
            return lit.trim_end_matches('\'').to_owned();
        }
        let parts: Vec<&str> = expr.split('.').collect();
        match parts.as_slice() {
            ["secrets", name] => self.secrets.get(name).cloned().unwrap_or_default(),
            ["github", name] => self.base.github.get(*name).cloned().unwrap_or_default(),
            ["steps", id, "outputs", name] => steps
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            _ => panic!("the workflow runner cannot evaluate ${{{{ {expr} }}}}"),
        }
    }

    /// `${{ ... }}` in `text`, evaluated.
    fn eval(&self, steps: &HashMap<String, HashMap<String, String>>, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("closed expression") + start;
            out.push_str(&self.value(steps, &rest[start + 3..end]));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// A step's `if:`: terms joined by `&&`, each a status function or `A == B`, `A != B`.
    fn condition(
        &self,
        steps: &HashMap<String, HashMap<String, String>>,
        cond: Option<&str>,
        failed: bool,
    ) -> bool {
        let cond = cond.unwrap_or("success()").trim();
        let cond = cond
            .strip_prefix("${{")
            .and_then(|c| c.strip_suffix("}}"))
            .unwrap_or(cond);
        cond.split("&&").all(|term| match term.trim() {
            "success()" => !failed,
            "failure()" => failed,
            "always()" | "!cancelled()" => true,
            t => {
                if let Some((l, r)) = t.split_once("!=") {
                    self.value(steps, l) != self.value(steps, r)
                } else if let Some((l, r)) = t.split_once("==") {
                    self.value(steps, l) == self.value(steps, r)
                } else {
                    panic!("the workflow runner cannot evaluate `if: {t}`")
                }
            }
        })
    }

    /// Runs job `job` of `examples/github/{file}`: its steps in the base runner's
    /// checkout, with its environment, one `RUNNER_TEMP` for the job.
    async fn run(&self, file: &str, job: &str) -> Job {
        let text =
            std::fs::read_to_string(Path::new(ROOT).join("examples/github").join(file)).unwrap();
        let doc: Value = serde_saphyr::from_str(&text).unwrap();
        let job_doc = &doc["jobs"][job];
        assert!(job_doc.is_object(), "no job {job} in {file}");
        let cwd = self.base.cwd.clone().expect("a checkout");
        let mut steps: HashMap<String, HashMap<String, String>> = HashMap::new();
        let mut ran = Vec::new();
        let mut log = String::new();
        let mut failed = false;
        let mut extra_path: Vec<String> = Vec::new();
        for (n, step) in job_doc["steps"].as_array().unwrap().iter().enumerate() {
            let uses = step["uses"].as_str().unwrap_or("");
            let name = step["name"].as_str().unwrap_or(uses).to_owned();
            if !self.condition(&steps, step["if"].as_str(), failed) {
                continue;
            }
            ran.push(name.clone());
            let with = |k: &str| -> String {
                step["with"][k]
                    .as_str()
                    .map(|v| self.eval(&steps, v))
                    .unwrap_or_default()
            };
            let (code, outputs) = if uses.starts_with("actions/checkout@") {
                (0, HashMap::new())
            } else if uses.starts_with("guildctl/guildctl@") {
                let mut r = self.base.clone();
                for (k, v) in step["with"].as_object().unwrap() {
                    r.input(k, &self.eval(&steps, v.as_str().unwrap()));
                }
                let run = r.run().await;
                log.push_str(&format!("== {name} (the Action)\n{}", run.log));
                extra_path.extend(run.path.lines().map(str::to_owned));
                (run.code, run.outputs)
            } else if uses.starts_with("actions/upload-artifact@") {
                let from = PathBuf::from(with("path"));
                let to = self.artifacts.join(&self.run_id).join(with("name"));
                let code = if from.is_dir() {
                    copy_dir(&from, &to);
                    0
                } else {
                    log.push_str(&format!("== {name}: no files at {}\n", from.display()));
                    1
                };
                (code, HashMap::new())
            } else if uses.starts_with("actions/download-artifact@") {
                let from = self.artifacts.join(with("run-id")).join(with("name"));
                let code = if from.is_dir() {
                    copy_dir(&from, &cwd.join(with("path")));
                    0
                } else {
                    log.push_str(&format!("== {name}: no artifact at {}\n", from.display()));
                    1
                };
                (code, HashMap::new())
            } else if let Some(script) = step["run"].as_str() {
                let dir = self.base.temp.join(format!("job-step-{n}"));
                std::fs::create_dir_all(&dir).unwrap();
                let file = dir.join("script.sh");
                std::fs::write(&file, script).unwrap();
                let output = dir.join("output");
                std::fs::write(&output, "").unwrap();
                let mut cmd = tokio::process::Command::new("bash");
                cmd.current_dir(&cwd)
                    .args(["--noprofile", "--norc", "-eo", "pipefail"])
                    .arg(&file)
                    .env_clear()
                    .env("HOME", std::env::var("HOME").unwrap_or_default())
                    .env("RUNNER_TEMP", &self.base.temp)
                    .env("GITHUB_OUTPUT", &output)
                    .envs(self.base.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
                let path = self
                    .base
                    .env
                    .iter()
                    .find(|(k, _)| k == "PATH")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                cmd.env("PATH", format!("{}:{path}", extra_path.join(":")));
                if let Some(env) = step["env"].as_object() {
                    for (k, v) in env {
                        cmd.env(k, self.eval(&steps, v.as_str().unwrap()));
                    }
                }
                let out = cmd.output().await.unwrap();
                log.push_str(&format!("== {name}\n"));
                log.push_str(&String::from_utf8_lossy(&out.stdout));
                log.push_str(&String::from_utf8_lossy(&out.stderr));
                (
                    out.status.code().unwrap_or(-1),
                    parse_outputs(&std::fs::read_to_string(&output).unwrap()),
                )
            } else {
                panic!("the workflow runner does not know step {name} ({uses})");
            };
            if let Some(id) = step["id"].as_str() {
                steps.insert(id.to_owned(), outputs);
            }
            if code != 0 {
                failed = true;
            }
        }
        Job {
            code: i32::from(failed),
            ran,
            steps,
            log,
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

/// The example workspace workflows with one guild whose manifest does not load: every
/// other guild is planned and commented on, the broken guild's comment says why (its
/// file, line and column, relative to the repository) and that its earlier plan no longer
/// holds; the run fails but saves the plans; the merge applies the two guilds planned and
/// names the third, not applied, with why.
#[tokio::test]
async fn one_broken_guild_leaves_the_others_planned_commented_and_applied() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let repo = repo_of(&r);
    let store = h.dir.path().join("artifacts");
    let secrets = HashMap::from([
        ("DISCORD_PLAN_TOKEN", h.emu.token.clone()),
        ("DISCORD_TOKEN", h.emu.token.clone()),
    ]);
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    let merge = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
    r.event("pull_request", &event("pull_request-opened"))
        .env("GITHUB_SHA", head);
    // (The Action's own inputs come from each step's `with:`.)
    r.inputs.remove("guilds");

    // A first push plans all three: each guild's comment shows its plan.
    gh.set_pull_files(PR_NUMBER, &[("base.yaml", "modified")]);
    let earlier = Workflow {
        base: &r,
        secrets: secrets.clone(),
        artifacts: store.clone(),
        run_id: "1".into(),
    }
    .run("workspace/plan.yml", "plan")
    .await;
    assert_eq!(earlier.code, 0, "{}", earlier.log);
    assert!(guild_comments(&gh)["c"].body.contains("Shared Helper"));

    // A second push breaks c's manifest: line 3, column 8.
    std::fs::write(
        repo.join("guilds/c.yaml"),
        "version: 1\nextends: ../base.yaml\nroles: 7\n",
    )
    .unwrap();
    gh.set_pull_files(
        PR_NUMBER,
        &[("base.yaml", "modified"), ("guilds/c.yaml", "modified")],
    );
    gh.merge_pull(PR_NUMBER, head, merge);
    let run_id = gh.add_run_with(
        "guild-plan.yml",
        head,
        "pull_request",
        "failure",
        vec![(PR_NUMBER, REPO.to_owned())],
        REPO,
    );
    r.env("GITHUB_RUN_ID", &run_id.to_string());
    let plan = Workflow {
        base: &r,
        secrets: secrets.clone(),
        artifacts: store.clone(),
        run_id: run_id.to_string(),
    }
    .run("workspace/plan.yml", "plan")
    .await;
    // The job fails for c, after every guild is commented on and the plans are saved.
    assert_eq!(plan.code, 1, "{}", plan.log);
    let comments = guild_comments(&gh);
    assert_eq!(comments.len(), 3, "{:?}", gh.comments(PR_NUMBER));
    for (name, id) in ["a", "b"].iter().zip(&ids) {
        let body = &comments[*name].body;
        assert!(body.contains("### guildctl plan for"), "{body}");
        assert!(
            body.contains(id.as_str()) && body.contains("Shared Helper"),
            "{body}"
        );
    }
    let c = &comments["c"].body;
    assert!(c.contains("guildctl plan failed for `c`"), "{c}");
    assert!(c.contains("`guilds/c.yaml:3:8`"), "the error's place: {c}");
    assert!(c.contains("expected a list"), "the error itself: {c}");
    assert!(c.contains("no longer current"), "{c}");
    assert!(!c.contains("Shared Helper"), "the old plan is gone: {c}");
    let root = repo.canonicalize().unwrap();
    assert!(
        !c.contains(root.to_str().unwrap()) && !c.contains(repo.to_str().unwrap()),
        "the runner's folders: {c}"
    );
    let saved = store.join(run_id.to_string()).join("guildctl-plan");
    assert_eq!(
        std::fs::read_to_string(saved.join("guilds.txt")).unwrap(),
        "a\nb\n"
    );
    let not_planned = std::fs::read_to_string(saved.join("not-planned.tsv")).unwrap();
    assert!(
        not_planned.starts_with("c\tinvalid manifest: guilds/c.yaml:3:8: expected a list"),
        "{not_planned}"
    );
    assert!(!saved.join("c.json").exists());
    assert!(h.writes().is_empty(), "plan writes nothing to Discord");

    // The merge: the apply job finds that run, applies a and b, and names c.
    let mut push = r.clone();
    push.event("push", &event("pull_request-opened"))
        .env("GITHUB_SHA", merge)
        .env("GITHUB_RUN_ID", "5151");
    let apply = Workflow {
        base: &push,
        secrets,
        artifacts: store,
        run_id: "5151".into(),
    }
    .run("workspace/apply.yml", "apply")
    .await;
    assert_eq!(apply.code, 1, "c was not applied: {}", apply.log);
    assert_eq!(
        apply.steps["reviewed"].get("run-id").map(String::as_str),
        Some(run_id.to_string().as_str()),
        "{}",
        apply.log
    );
    assert!(
        !apply
            .ran
            .iter()
            .any(|s| s == "Refuse a push that no pull request reviewed"),
        "{:?}",
        apply.ran
    );
    for id in &ids[..2] {
        let guild = h.emu.state().guild(id).unwrap().clone();
        assert!(
            guild.roles.iter().any(|r| r.name == "Shared Helper"),
            "guild {id} applied: {}",
            apply.log
        );
    }
    let c_guild = h.emu.state().guild(&ids[2]).unwrap().clone();
    assert!(!c_guild.roles.iter().any(|r| r.name == "Shared Helper"));
    assert!(
        h.writes().iter().all(|w| !w.path.contains(ids[2].as_str())),
        "nothing sent to c's guild"
    );
    assert!(
        apply
            .log
            .contains("not applied: it had no plan at review (invalid manifest: guilds/c.yaml:3:8: expected a list"),
        "{}",
        apply.log
    );
    gh.assert_conforms();
}
