//! The GitHub Action (action.yml), run the way a runner runs a composite action: each
//! `shell: bash` step in order as `bash --noprofile --norc -eo pipefail FILE`, its
//! `${{ }}` expressions evaluated into its `env`, with fresh `GITHUB_OUTPUT`, `GITHUB_PATH`
//! and a shared `GITHUB_STEP_SUMMARY`, a real `pull_request` event payload in
//! `GITHUB_EVENT_PATH`, against the Discord emulator, a stand-in for GitHub's REST API
//! (tests/suite/common/github/) and a local folder of releases served over loopback.
//! `uses:` steps (the build cache) are not run; whether the runner would run them is.
//! The example workflows' jobs run the same way, step by step (`workflow_jobs`).
//!
//! The runner and its kit are here; the tests are in a module per concern: `installing`,
//! `running`, `supply_chain`, `workspace`, `workflow_jobs`.

mod installing;
mod running;
mod supply_chain;
mod workflow_jobs;
mod workspace;

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
            _ => panic!("tests/suite/action/ cannot evaluate ${{{{ {expr} }}}}"),
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
            // After a failed step only `always() && …` steps run, as on GitHub.
            let cond = step["if"].as_str();
            let always = cond.and_then(|c| c.strip_prefix("always() && "));
            if code != 0 && always.is_none() {
                continue;
            }
            if !self.condition(&action, &steps, always.or(cond)) {
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
            // The first failure is the job's.
            if code == 0 {
                code = out.status.code().unwrap_or(-1);
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
