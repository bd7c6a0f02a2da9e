//! What every command that reads a manifest or the guild shares: the manifest and
//! connection arguments, the session (client, guild id, sandbox), and loading a manifest
//! with its checks shown on its lines.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;

use discord_emulator::{EmulatorOptions, RunningEmulator};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::file_lock::Held;
use guildctl::manifest::{self, LoadedManifest, Workspace, WorkspaceGuild};
use guildctl::ops::{self, Failure, GuildTarget, Targets};
use guildctl::plan::{PlanError, PlanOptions, PolicyBaseline};
use guildctl::private_file::write_private;
use guildctl::progress::{self, Console};

use super::locks::{self, Writer};

#[derive(Args, Clone)]
pub(crate) struct ColorArg {
    /// Colour output: auto (a terminal without NO_COLOR), always or never.
    #[arg(long, value_enum, default_value = "auto", global = true)]
    pub(crate) color: ColorChoice,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub(crate) fn enabled(self, stream_is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stream_is_terminal && std::env::var_os("NO_COLOR").is_none(),
        }
    }
}

/// Which guilds of the workspace to run.
#[derive(Args, Clone, Default)]
pub(crate) struct Selection {
    /// Run for every guild of the workspace file (guildctl.yaml, in this folder or above).
    #[arg(long, conflicts_with = "guilds", group = "workspace_run")]
    pub(crate) all: bool,
    /// Run for these guilds of the workspace file (names, comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAME,...",
        group = "workspace_run"
    )]
    pub(crate) guilds: Vec<String>,
    /// With --all or --guilds: also write each guild's report to DIR/NAME.md (or .txt,
    /// .json, as --format says) and one line per guild, `NAME<TAB>EXIT CODE`, to
    /// DIR/guilds.tsv, for a step that posts one comment or issue per guild.
    #[arg(long, value_name = "DIR", requires = "workspace_run")]
    pub(crate) reports: Option<PathBuf>,
}

impl Selection {
    pub(crate) fn active(&self) -> bool {
        self.all || !self.guilds.is_empty()
    }

    /// Refuses `--reports` where a command does not write them.
    pub(crate) fn no_reports(&self, command: &str) -> Result<()> {
        if self.reports.is_some() {
            bail!("--reports is for plan and drift; {command} --all prints its reports");
        }
        Ok(())
    }

    /// The workspace's guilds chosen, in the workspace's order for `--all`.
    pub(crate) fn resolve(&self) -> Result<Vec<WorkspaceGuild>> {
        let ws = Workspace::find(Path::new("."))?;
        let names = (!self.all).then_some(self.guilds.as_slice());
        Ok(ws.select(names)?)
    }
}

#[derive(Args, Clone)]
pub(crate) struct Target {
    /// The manifest file (or folder); or --all / --guilds for a workspace's guilds.
    #[arg(
        short = 'f',
        long = "file",
        required_unless_present_any = ["all", "guilds"],
        conflicts_with_all = ["all", "guilds"]
    )]
    pub(crate) file: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) selection: Selection,
    /// Create this declared channel even though the bot cannot see whether it exists
    /// (Discord hides channels a bot cannot view). Repeat for several; `Category/name`
    /// picks one in a category.
    #[arg(long = "create-unseen", value_name = "CHANNEL")]
    pub(crate) create_unseen: Vec<String>,
    /// Also write the manifest's errors and the plan's refusals to FILE as GitHub
    /// workflow annotations (`::error file=…,line=…::…`), for a workflow to print, so
    /// they show on the manifest's lines in the pull request.
    #[arg(long, value_name = "FILE")]
    pub(crate) annotations: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) conn: Connection,
    /// Where the manifest must stay: set for a workspace's guild (its folder); else the
    /// folder `-f` implies ([`manifest::Within::given`]).
    #[arg(skip)]
    pub(crate) within: Option<manifest::Within>,
    /// The revision whose policies a plan is compared with (`--policies-base`, set by plan
    /// and apply).
    #[arg(skip)]
    pub(crate) policies_base: Option<String>,
    /// The manifest applies to the guild given on the command line by names, its pinned
    /// ids and `guild:` left out (`--like`, set by plan and apply).
    #[arg(skip)]
    pub(crate) like: bool,
}

impl Target {
    /// The manifest given with -f (clap requires it unless a workspace's guilds are run).
    pub(crate) fn file(&self) -> &Path {
        self.file.as_deref().unwrap_or(Path::new("."))
    }

    pub(crate) fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            create_unseen: self.create_unseen.clone(),
            ..PlanOptions::default()
        }
    }

    /// Shows a report on the manifest: text on stderr, and annotations in the
    /// `--annotations` file when asked for one.
    pub(crate) fn show(&self, report: &manifest::Report) -> Result<()> {
        if report.items.is_empty() {
            return Ok(());
        }
        eprint!("{}", report.render_text(self.conn.color_err()));
        self.annotate(report)
    }

    /// Writes a report to the `--annotations` file alone, when asked for one: for what
    /// another output already says on the terminal.
    pub(crate) fn annotate(&self, report: &manifest::Report) -> Result<()> {
        if let Some(path) = &self.annotations
            && !report.items.is_empty()
        {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(report.render_github().as_bytes()))
                .with_context(|| format!("cannot write annotations to {}", path.display()))?;
        }
        Ok(())
    }
}

#[derive(Args, Clone)]
pub(crate) struct Connection {
    /// The guild id, for a manifest without `guild:` (refused when it names another guild
    /// than the manifest's).
    #[arg(long, env = "GUILDCTL_GUILD")]
    pub(crate) guild: Option<String>,
    /// Whether `guild` came from GUILDCTL_GUILD rather than --guild, for messages.
    #[arg(skip)]
    pub(crate) guild_from_env: bool,
    /// Base URL of the Discord API.
    #[arg(
        long,
        env = "GUILDCTL_API_BASE",
        default_value = "https://discord.com/api/v10"
    )]
    pub(crate) api_base: String,
    /// Read the bot token from this file (otherwise from DISCORD_TOKEN).
    #[arg(long)]
    pub(crate) token_file: Option<PathBuf>,
    /// Send at most N requests a second, below the bot's global limit: room for the bot's
    /// own traffic when guildctl runs beside it (docs/rate-limits.md).
    #[arg(long, env = "GUILDCTL_MAX_RPS", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_rps: Option<u32>,
    /// The bot's global limit, in requests a second: Discord's 50, unless Discord granted
    /// the bot more.
    #[arg(long, env = "GUILDCTL_GLOBAL_LIMIT", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) global_limit: Option<u32>,
    /// The workspace's `rate:`, under the two above (set by `open_for`).
    #[arg(skip)]
    pub(crate) workspace_rate: manifest::workspace::Rate,
    /// The variable that holds the token, when the workspace's guilds name one
    /// (`token_env:`, set by `open_for`); otherwise DISCORD_TOKEN.
    #[arg(skip)]
    pub(crate) token_env: Option<String>,
    /// Run against an in-process emulator instead of Discord.
    #[arg(long)]
    pub(crate) sandbox: bool,
    /// With --sandbox: the sandbox's guild lives in this file (JSON). Loaded when it
    /// exists (otherwise the default guild), written back after `apply`, so a tour
    /// across separate commands works.
    #[arg(long, requires = "sandbox")]
    pub(crate) sandbox_state: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) color: ColorArg,
    /// Set by the commands that write (apply, lockdown): they lock the sandbox state
    /// from before it is read until it is written back, and apply locks a live guild
    /// ([`Session::lock_guild`]). Commands that only read take no lock: the state file
    /// is replaced whole, so a reader sees the old state or the new one.
    #[arg(skip)]
    pub(crate) writer: Option<Writer>,
}

/// A connection to the guild: the client, the guild id, and the in-process
/// emulator kept alive for `--sandbox`.
pub(crate) struct Session {
    pub(crate) client: Client,
    pub(crate) guild_id: String,
    /// The in-process emulator of `--sandbox`, kept alive for the session.
    pub(crate) sandbox: Option<RunningEmulator>,
    /// Where progress and rate-limit notices go (stderr).
    pub(crate) console: Console,
    /// The command that writes, if this session is one's ([`Connection::writer`]).
    writer: Option<Writer>,
    /// The lock on `--sandbox-state`, held by a session that writes it back.
    sandbox_lock: Option<Held>,
}

impl Session {
    /// A session whose rate-limit waits of a second or more (of the API's clock) are
    /// announced on stderr.
    pub(crate) fn new(
        client: Client,
        guild_id: String,
        sandbox: Option<RunningEmulator>,
    ) -> Result<Session> {
        let console = Console::stderr(progress::NOTICE_AFTER / clock_scale()?);
        let notices = console.clone();
        client.on_rate_limit_wait(move |wait| notices.rate_limit_wait(wait));
        Ok(Session {
            client,
            guild_id,
            sandbox,
            console,
            writer: None,
            sandbox_lock: None,
        })
    }

    /// Locks guild `guild_id` for this session's writes, on a live guild; the sandbox has
    /// none to share (its state file is locked when the session opens). Held until the
    /// lock is dropped.
    pub(crate) async fn lock_guild(&self, guild_id: &str) -> Result<Option<Held>> {
        match (&self.writer, &self.sandbox) {
            (Some(writer), None) => Ok(Some(
                locks::guild(self.client.api_base(), guild_id, writer).await?,
            )),
            _ => Ok(None),
        }
    }

    /// Writes the sandbox's state to `--sandbox-state FILE`, if both are in use, whole
    /// or not at all.
    pub(crate) fn save_sandbox(&self, conn: &Connection) -> Result<()> {
        let (Some(emu), Some(path)) = (&self.sandbox, &conn.sandbox_state) else {
            return Ok(());
        };
        if self.sandbox_lock.is_none() {
            bail!(
                "internal error: {} is written only under its lock; it was left as it was",
                path.display()
            );
        }
        write_state(path, &emu.state())?;
        eprintln!("Sandbox state saved to {}", path.display());
        Ok(())
    }
}

/// Writes a sandbox state, readable by the user alone (it holds the webhooks' tokens).
pub(crate) fn write_state(path: &Path, state: &discord_emulator::State) -> Result<()> {
    let mut json = serde_json::to_string_pretty(state)?;
    json.push('\n');
    write_private(path, json.as_bytes())
        .with_context(|| format!("cannot write the sandbox state to {}", path.display()))
}

impl Connection {
    pub(crate) async fn open(&self, manifest_guild: Option<&str>) -> Result<Session> {
        if self.sandbox {
            // A command that writes the state back locks it before reading it: another
            // one's writes are then in what it reads, and its own are not lost.
            let sandbox_lock = match (&self.sandbox_state, &self.writer) {
                (Some(path), Some(writer)) => Some(locks::sandbox_state(path, writer).await?),
                _ => None,
            };
            let state = match &self.sandbox_state {
                Some(p) if p.exists() => Some(discord_emulator::load_state_file(p)?),
                _ => None,
            };
            let emu = RunningEmulator::start(EmulatorOptions { state }).await?;
            eprintln!(
                "Sandbox: an in-process Discord API emulator at {}",
                emu.api_base
            );
            // The sandbox has its own guild; --guild still wins when given.
            let guild_id = self.guild.clone().unwrap_or_else(|| emu.guild_id.clone());
            let client = Client::with_options(
                &emu.api_base,
                Token::new(emu.token.clone())?,
                self.rate(client_options()?),
            )?;
            let mut session = Session::new(client, guild_id, Some(emu))?;
            session.writer = self.writer.clone();
            session.sandbox_lock = sandbox_lock;
            return Ok(session);
        }
        let token = match &self.token_file {
            Some(p) => std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the token file {}", p.display()))?,
            None => {
                let var = self.token_env.as_deref().unwrap_or("DISCORD_TOKEN");
                std::env::var(var).map_err(|_| {
                    anyhow!("no bot token: set {var} or pass --token-file PATH (or try --sandbox)")
                })?
            }
        };
        let guild_id = self
            .guild
            .clone()
            .or_else(|| manifest_guild.map(str::to_owned))
            .ok_or_else(|| {
                anyhow!("no guild id: set `guild:` in the manifest, --guild or GUILDCTL_GUILD")
            })?;
        let client = Client::with_options(
            &self.api_base,
            Token::new(token)?,
            self.rate(client_options()?),
        )?;
        let mut session = Session::new(client, guild_id, None)?;
        session.writer = self.writer.clone();
        Ok(session)
    }

    /// The requests a second the client sends at most: the bot's global limit, or
    /// `--max-rps` below it.
    fn rate(&self, options: ClientOptions) -> ClientOptions {
        let ws = self.workspace_rate;
        let global = self.global_limit.or(ws.global_limit).unwrap_or(50);
        let limit = self
            .max_rps
            .or(ws.max_rps)
            .map_or(global, |cap| cap.min(global));
        ClientOptions {
            global_limit: limit as usize,
            ..options
        }
    }

    pub(crate) fn color_out(&self) -> bool {
        self.color.color.enabled(std::io::stdout().is_terminal())
    }

    pub(crate) fn color_err(&self) -> bool {
        self.color.color.enabled(std::io::stderr().is_terminal())
    }
}

/// Client tuning from the environment, for unusual setups and scaled emulators:
/// `GUILDCTL_CLOCK_SCALE` (an emulator's `time_scale`: the global limit's one-second
/// window shrinks by it, as do the one second a wait lasts before it is announced and
/// a call's deadline), `GUILDCTL_TIMEOUT_MS`
/// (per request, default 30000), `GUILDCTL_INVALID_BUDGET` (401/403/429 responses
/// before a run stops, default 100), `GUILDCTL_MAX_BODY_MB` (the response body cap,
/// default 64).
pub(crate) fn client_options() -> Result<ClientOptions> {
    let scale = clock_scale()?;
    let defaults = ClientOptions::default();
    let mut o = ClientOptions {
        global_window: std::time::Duration::from_secs(1) / scale,
        deadline: defaults.deadline / scale,
        ..defaults
    };
    if let Some(v) = env_number("GUILDCTL_MAX_BODY_MB")? {
        o.max_body_bytes = usize::try_from(v.saturating_mul(1 << 20))?;
    }
    if let Some(v) = env_number("GUILDCTL_TIMEOUT_MS")? {
        o.timeout = std::time::Duration::from_millis(v);
    }
    if let Some(v) = env_number("GUILDCTL_INVALID_BUDGET")? {
        o.invalid_budget = usize::try_from(v)?;
    }
    Ok(o)
}

/// `GUILDCTL_CLOCK_SCALE`: how much faster than Discord's the API's clock runs (an
/// emulator's `time_scale`), 1 without it.
pub(crate) fn clock_scale() -> Result<u32> {
    Ok(u32::try_from(
        env_number("GUILDCTL_CLOCK_SCALE")?.unwrap_or(1).max(1),
    )?)
}

pub(crate) fn env_number(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| anyhow!("{name} must be a whole number, not {v:?}")),
        Err(_) => Ok(None),
    }
}

/// A manifest its checks refused, with the report that says why: the error
/// [`load_checked`] ends with, which a caller that shows diagnostics its own way (`mcp`)
/// takes the report from.
pub(crate) use guildctl::ops::Invalid;

/// A guild's failure as the command's error, a refused manifest kept as itself (callers
/// look for [`Invalid`]).
pub(crate) fn failure(e: Failure) -> anyhow::Error {
    match e.downcast::<Invalid>() {
        Ok(invalid) => anyhow::Error::new(*invalid),
        Err(e) => anyhow::Error::from_boxed(e),
    }
}

/// Loads a manifest (a file or a folder) and runs every check; warnings are printed, errors
/// refuse it ([`Invalid`]) before anything is sent to Discord.
pub(crate) fn load_checked(target: &Target) -> Result<LoadedManifest> {
    let guild = target.guild(target.conn.guild.clone().unwrap_or_default());
    let loaded = ops::load(target, &guild).map_err(failure)?;
    if !target.like {
        return Ok(loaded);
    }
    if target.conn.guild.is_none() && !target.conn.sandbox {
        bail!(
            "--like applies {} to another guild: name it with --guild ID (or GUILDCTL_GUILD)",
            target.file().display()
        );
    }
    Ok(loaded.like())
}

/// Loads and checks the manifest and connects, without a request yet: a manifest that
/// names its guild is refused with --guild or GUILDCTL_GUILD naming another.
pub(crate) async fn connect(target: &Target) -> Result<(LoadedManifest, Session)> {
    let loaded = load_checked(target)?;
    let session = connect_loaded(target, &loaded).await?;
    Ok((loaded, session))
}

/// [`connect`] for a manifest already loaded and checked.
pub(crate) async fn connect_loaded(target: &Target, loaded: &LoadedManifest) -> Result<Session> {
    let manifest_guild = loaded.manifest.guild.as_ref().map(|g| g.0.as_str());
    if let (Some(declared), Some(given)) = (manifest_guild, target.conn.guild.as_deref())
        && declared != given
    {
        let (source, fix) = if target.conn.guild_from_env {
            ("GUILDCTL_GUILD", "unset GUILDCTL_GUILD")
        } else {
            ("--guild", "drop --guild")
        };
        bail!(
            "{} is for guild {declared} (its `guild:`), but {source} names guild {given}; a manifest that names its guild is applied to that guild only: {fix}, or remove `guild:` from the manifest to choose the guild when running. Nothing was sent to Discord",
            target.file().display()
        );
    }
    target.conn.open(manifest_guild).await
}

/// The error a refused plan ends a command with (its problems are shown on the manifest's
/// lines already).
pub(crate) fn refused(e: &PlanError) -> anyhow::Error {
    anyhow!(
        "the plan was refused ({} problem(s)) before any change was made",
        e.problems.len()
    )
}

/// A refused plan's problems as errors placed on the manifest's lines.
pub(crate) use guildctl::ops::refusal_report;

impl Target {
    /// The manifest given with -f as the one guild `id` to run for.
    pub(crate) fn guild(&self, id: String) -> GuildTarget {
        let path = self.file().to_path_buf();
        let within = self
            .within
            .clone()
            .unwrap_or_else(|| manifest::Within::given(&path));
        GuildTarget::file(path, within, id)
    }

    /// The one guild of a session, with its manifest loaded already.
    pub(crate) fn one(&self, session: &Session, loaded: &Arc<LoadedManifest>) -> Targets {
        Targets::one(self.guild(session.guild_id.clone()), Arc::clone(loaded))
    }
}

/// What the operations ask of the command line: where a manifest's findings go, the plan's
/// options, the policies' base revision, Git's commit and the audit-log reason.
impl ops::Host for Target {
    fn show(&self, report: &manifest::Report) -> Result<(), Failure> {
        Ok(Target::show(self, report)?)
    }

    fn annotate(&self, report: &manifest::Report) -> Result<(), Failure> {
        Ok(Target::annotate(self, report)?)
    }

    fn plan_options(&self) -> PlanOptions {
        Target::plan_options(self)
    }

    fn policy_baseline(&self, guild: &GuildTarget, loaded: &LoadedManifest) -> PolicyBaseline {
        // A workspace's guild is compared for its own id; a manifest alone for --guild's.
        let id = match &guild.name {
            Some(_) => Some(guild.id.as_str()),
            None => self.conn.guild.as_deref(),
        };
        super::policy_base::baseline(self.policies_base.as_deref(), loaded, id)
    }

    fn commit(&self, manifest: &Path) -> Option<String> {
        super::git::current_commit(manifest)
    }

    fn reason(&self, manifest: &Path) -> String {
        super::git::default_reason(manifest)
    }
}

/// The outcome of the one guild an operation was run for, its failure as the command's
/// error.
pub(crate) fn only<T>(outcomes: Vec<ops::Guild<T>>) -> Result<T> {
    match outcomes.into_iter().next() {
        Some(g) => g.result.map_err(failure),
        None => bail!("internal error: the operation ran for no guild"),
    }
}

/// One session (one client, one rate-limit budget) for every guild of a workspace, for a
/// command that runs one bot (`watch`: one process per bot token); guilds of several bots
/// are refused, naming their variables.
pub(crate) async fn open_for(conn: &Connection, guilds: &[WorkspaceGuild]) -> Result<Session> {
    let by_bot = by_token(conn, guilds);
    if by_bot.len() > 1 {
        let vars: Vec<&str> = by_bot.iter().map(|(var, _)| var.as_str()).collect();
        bail!(
            "the guilds chosen use {} bots' tokens ({}): run one process per bot, choosing its guilds with --guilds",
            vars.len(),
            vars.join(", ")
        );
    }
    let var = by_bot.into_iter().next().map(|(var, _)| var);
    bot_connection(conn, guilds, var)
        .open(guilds.first().map(|g| g.id.as_str()))
        .await
}

/// The chosen guilds by the variable that holds their bot's token, each bot in the order
/// its first guild comes. One group in the sandbox (one emulator serves every guild) or
/// with `--token-file` (the one token given).
fn by_token(conn: &Connection, guilds: &[WorkspaceGuild]) -> Vec<(String, Vec<WorkspaceGuild>)> {
    let mut groups: Vec<(String, Vec<WorkspaceGuild>)> = Vec::new();
    for g in guilds {
        let var = match g.token_env.as_deref() {
            _ if conn.sandbox || conn.token_file.is_some() => "DISCORD_TOKEN",
            Some(var) => var,
            None => "DISCORD_TOKEN",
        };
        match groups.iter_mut().find(|(v, _)| v == var) {
            Some((_, mine)) => mine.push(g.clone()),
            None => groups.push((var.to_owned(), vec![g.clone()])),
        }
    }
    groups
}

/// `conn` for one bot's guilds: its token's variable and the workspace's `rate:`.
fn bot_connection(conn: &Connection, guilds: &[WorkspaceGuild], var: Option<String>) -> Connection {
    let mut conn = conn.clone();
    conn.guild = None;
    conn.workspace_rate = guilds.first().map(|g| g.rate).unwrap_or_default();
    conn.token_env = var;
    conn
}

/// A workspace's chosen guilds by the bot that serves them (`token_env:`): a session each
/// (its own client: its global limit and route buckets), run side by side, each at its own
/// limit. Discord counts invalid responses per address, and so does every client of the
/// process together ([`guildctl::discord::ClientOptions::invalid_budget`]).
pub(crate) struct Bots {
    bots: Vec<(Session, Vec<WorkspaceGuild>)>,
    /// The guilds' names in the workspace's order, which outcomes are given back in.
    order: Vec<String>,
    /// Where progress and notices go (stderr).
    console: Console,
}

impl Bots {
    /// Opens one session per bot of `guilds`: a bot whose token is missing is refused
    /// before any request, naming its variable.
    pub(crate) async fn open(conn: &Connection, guilds: &[WorkspaceGuild]) -> Result<Bots> {
        let mut bots = Vec::new();
        for (var, mine) in by_token(conn, guilds) {
            let session = bot_connection(conn, &mine, Some(var))
                .open(mine.first().map(|g| g.id.as_str()))
                .await?;
            bots.push((session, mine));
        }
        let order = guilds.iter().map(|g| g.name.clone()).collect();
        let Some(console) = bots.first().map(|(s, _)| s.console.clone()) else {
            bail!("no guild chosen: --guilds names none");
        };
        Ok(Bots {
            bots,
            order,
            console,
        })
    }

    /// The sessions, one per bot.
    pub(crate) fn sessions(&self) -> impl Iterator<Item = &Session> {
        self.bots.iter().map(|(s, _)| s)
    }

    /// Where progress and notices go (stderr).
    pub(crate) fn console(&self) -> &Console {
        &self.console
    }

    /// Runs `op` for each bot's guilds, the bots side by side; the outcomes in the
    /// workspace's order.
    pub(crate) async fn run<T>(
        &self,
        op: impl AsyncFn(&Session, Vec<WorkspaceGuild>) -> Vec<ops::Guild<T>>,
    ) -> Vec<ops::Guild<T>> {
        let parts = self.bots.iter().map(|(_, mine)| mine.clone()).collect();
        self.side_by_side(parts, op).await
    }

    /// Runs `op` on the outcomes of an earlier [`Bots::run`], each bot on its own guilds'
    /// (apply's calls after its plans), the bots side by side; in the workspace's order.
    pub(crate) async fn then<T, U>(
        &self,
        outcomes: Vec<ops::Guild<T>>,
        op: impl AsyncFn(&Session, Vec<ops::Guild<T>>) -> Vec<ops::Guild<U>>,
    ) -> Vec<ops::Guild<U>> {
        let mut parts: Vec<Vec<ops::Guild<T>>> = self.bots.iter().map(|_| Vec::new()).collect();
        for g in outcomes {
            let bot = self
                .bots
                .iter()
                .position(|(_, mine)| mine.iter().any(|m| Some(&m.name) == g.target.name.as_ref()))
                .unwrap_or(0);
            parts[bot].push(g);
        }
        self.side_by_side(parts, op).await
    }

    async fn side_by_side<I, T>(
        &self,
        parts: Vec<I>,
        op: impl AsyncFn(&Session, I) -> Vec<ops::Guild<T>>,
    ) -> Vec<ops::Guild<T>> {
        let runs = self
            .bots
            .iter()
            .zip(parts)
            .map(|((session, _), part)| op(session, part));
        let mut all: Vec<ops::Guild<T>> = futures_util::future::join_all(runs)
            .await
            .into_iter()
            .flatten()
            .collect();
        all.sort_by_key(|g| {
            self.order
                .iter()
                .position(|n| Some(n) == g.target.name.as_ref())
        });
        all
    }
}
