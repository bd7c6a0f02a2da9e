//! Shared test harness: an emulator on a loopback port and the real `guildctl`
//! binary run against it, as a user would run it.

use std::path::{Path, PathBuf};
use std::process::Output;

pub mod github;
pub mod gitlab;
pub mod guild;
pub mod lower_bound;
pub mod property;
pub mod snapshot;

pub use guild::{Bot, GuildEdit, GuildNames, StateNames, arrange, arrange_guild};

use discord_emulator::{EmulatorOptions, RequestRecord, RunningEmulator, State};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::snapshot::Snapshot;
use serde_json::Value;

pub struct Harness {
    pub emu: RunningEmulator,
    pub dir: tempfile::TempDir,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Harness {
    /// `guildctl plan -f PATH --format json`, which must succeed: its plan.
    pub async fn plan_json(&self, path: &str) -> Value {
        let run = self.run(&["plan", "-f", path, "--format", "json"]).await;
        run.assert_code(0);
        run.json()
    }

    /// `guildctl plan -f PATH --rehearse --format json`, which must succeed: its plan, the
    /// rehearsal under `rehearsal`.
    pub async fn rehearsed_plan(&self, path: &str) -> Value {
        let run = self
            .run(&["plan", "-f", path, "--rehearse", "--format", "json"])
            .await;
        run.assert_code(0);
        run.json()
    }

    pub async fn start() -> Harness {
        Self::with_state(None).await
    }

    pub async fn with_state(state: Option<State>) -> Harness {
        // Rate limits stay on, but emulated time runs a million times faster so
        // guildctl's bursts fit in every window (crates/emulator/README.md).
        let mut state = state.unwrap_or_else(discord_emulator::default_state);
        if state.config.time_scale == 1.0 {
            state.config.time_scale = 1e6;
        }
        let state = Some(state);
        let emu = RunningEmulator::start(EmulatorOptions { state })
            .await
            .expect("emulator starts");
        Harness {
            emu,
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// Writes a manifest into the harness's folder and returns its path.
    pub fn manifest(&self, name: &str, yaml: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, yaml).expect("write manifest");
        path
    }

    /// Runs `guildctl ARGS` against the emulator.
    pub async fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[]).await
    }

    /// Runs `guildctl ARGS` against the emulator with more environment variables (which
    /// may replace the harness's own, `DISCORD_TOKEN` or `GITHUB_SHA`).
    pub async fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        Run::of(cmd.output().await.expect("guildctl runs"))
    }

    /// `guildctl ARGS` set up as [`Harness::run`] runs it, for a test to add to.
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
        cmd.args(args)
            .env("DISCORD_TOKEN", &self.emu.token)
            .env("GUILDCTL_API_BASE", &self.emu.api_base)
            .env("GUILDCTL_GUILD", &self.emu.guild_id)
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_SHA")
            .current_dir(self.dir.path());
        cmd
    }

    pub fn requests(&self) -> Vec<RequestRecord> {
        self.emu.requests()
    }

    /// Writes a file beside the manifests (`rel` under the harness's folder), folders made.
    pub fn put(&self, rel: &str, bytes: &[u8]) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// From now on every `method` to `path` (`*` for one segment) is carried out and its
    /// answer lost: the connection drops after the write, as a network cut would.
    pub fn lose_answers(&self, method: &str, path: &str) {
        self.emu
            .set_faults(discord_emulator::faults::FaultSet {
                seed: Some(1),
                rules: vec![discord_emulator::faults::FaultRule {
                    method: method.into(),
                    path: path.into(),
                    probability: 1.0,
                    kind: discord_emulator::faults::FaultKind::DropAfter,
                }],
            })
            .unwrap();
    }

    pub fn writes(&self) -> Vec<RequestRecord> {
        self.requests()
            .into_iter()
            .filter(|r| r.method != "GET")
            .collect()
    }

    /// The paths of the GETs since the requests were last cleared.
    pub fn reads(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "GET")
            .map(|r| r.path)
            .collect()
    }

    pub fn guild(&self) -> discord_emulator::state::Guild {
        let state = self.emu.state();
        state
            .guilds
            .into_iter()
            .find(|g| g.id == self.emu.guild_id)
            .expect("the emulator's guild")
    }

    /// Changes the running emulator's guild by name (a hand edit nobody logs).
    pub fn arrange(&self, edit: impl FnOnce(&mut GuildEdit)) {
        self.arrange_in(&self.emu.guild_id, edit);
    }

    /// Changes another of the emulator's guilds (a workspace's) by name.
    pub fn arrange_in(&self, guild_id: &str, edit: impl FnOnce(&mut GuildEdit)) {
        let mut state = self.emu.state();
        edit(&mut arrange_guild(&mut state, guild_id));
        self.emu.set_state(state);
    }

    pub fn role_id(&self, name: &str) -> String {
        self.guild().role_id(name)
    }

    /// A channel by `name`, or `Category/name`.
    pub fn channel_id(&self, path: &str) -> String {
        self.guild().channel_id(path)
    }

    pub fn user_id(&self, username: &str) -> String {
        self.emu.state().user_id(username)
    }

    /// guildctl's own client, as the bot, with `options`.
    pub fn client_with(&self, options: ClientOptions) -> Client {
        let token = Token::new(self.emu.token.clone()).expect("the emulator's token");
        Client::with_options(&self.emu.api_base, token, options).expect("a client")
    }

    /// guildctl's own client, as the bot.
    pub fn client(&self) -> Client {
        self.client_with(ClientOptions::default())
    }

    /// The live guild as guildctl reads it.
    pub async fn snapshot(&self) -> Snapshot {
        Snapshot::fetch(&self.client(), &self.emu.guild_id)
            .await
            .expect("the guild reads")
    }

    /// `plan` of the manifest at `file` in text, markdown and JSON, each exiting 0.
    pub async fn plans(&self, file: &str) -> (String, String, Value) {
        let mut out = Vec::new();
        for format in ["text", "markdown", "json"] {
            let run = self.run(&["plan", "-f", file, "--format", format]).await;
            run.assert_code(0);
            out.push(run.stdout);
        }
        let json = serde_json::from_str(&out[2]).unwrap_or_else(|e| panic!("{e}: {}", out[2]));
        (out[0].clone(), out[1].clone(), json)
    }
}

/// The default guild emptied as a new guild is, to apply a whole manifest to: only
/// @everyone and the bot's own role, no channels, webhooks or member roles; with the NEWS
/// feature, so announcement channels can be created.
/// The emulator's default state with `token` acting as the guild's owner: a person who
/// makes hand changes for drift to find.
pub fn state_with_owner_token(token: &str) -> State {
    let mut st = discord_emulator::default_state();
    let owner = st.guilds[0].owner_id.clone();
    st.tokens.push(discord_emulator::state::BotToken {
        token: token.into(),
        user_id: owner,
    });
    st
}

pub fn bare_guild_state() -> State {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    let bot_member = g
        .members
        .iter()
        .find(|m| m.user_id == state.bot_user_id)
        .expect("the bot is a member");
    let keep: Vec<String> = bot_member.roles.clone();
    let gid = g.id.clone();
    g.roles.retain(|r| r.id == gid || keep.contains(&r.id));
    for m in &mut g.members {
        m.roles.retain(|r| keep.contains(r));
    }
    g.channels.clear();
    g.webhooks.clear();
    g.invites.clear();
    g.afk_channel_id = None;
    g.system_channel_id = None;
    g.widget_channel_id = None;
    g.features.push("NEWS".into());
    state
}

/// The path of a tool a test drives (pre-commit, gitlab-ci-local), from the variable `var`
/// that names it. The build script compiles such a test `#[ignore]`d unless `var` named an
/// executable when it was built, so here it is set (unless the test binary is run by hand,
/// without the variable it was built with).
pub fn external_tool(var: &str) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{var} was set when this test was built, but is not now: set it to the tool's path")
    })
}

/// `git ARGS` in `dir` as a test user; its trimmed stdout, or a panic with its stderr.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

impl Run {
    /// A finished process's exit code and output.
    pub fn of(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Stdout as JSON (`--format json`).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}\n--- stdout\n{}\n--- stderr\n{}",
                self.stdout, self.stderr
            )
        })
    }

    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}
