//! Workflow jobs: a job of an example workflow run as the runner runs it. Its steps in
//! order, each with its `if:` (default `success()`); `run:` steps as `bash --noprofile
//! --norc -eo pipefail`, the Action (`guildctl/guildctl@...`) through `Runner` with the
//! step's `with:` as inputs, `actions/checkout` as the checkout already there, and
//! `actions/upload-artifact` / `download-artifact` as copies to and from a folder of
//! artifacts by run id and name.

use super::workspace::{guild_comments, repo_of, workspace_repo};
use super::*;

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
