//! The `guildctl` command line.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::parser::ValueSource;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use discord_emulator::{EmulatorOptions, RunningEmulator};
use guildctl::apply::{self, Status};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::drift::{self, DriftOptions};
use guildctl::manifest::stored::as_stored;
use guildctl::manifest::{self, Diagnostic, LoadedManifest, Severity};
use guildctl::plan::{self, Allowance, Plan, PlanError, PlanOptions};
use guildctl::private_file::write_private;
use guildctl::progress::{self, ApplyProgress, Console};
use guildctl::report::{self, Format, Heading};
use guildctl::snapshot::Snapshot;

/// Exit codes (DESIGN.md): 0 nothing to change, 1 error, 2 changes pending.
const EXIT_CHANGES: u8 = 2;

#[derive(Parser)]
#[command(
    name = "guildctl",
    version,
    about = "Keep a Discord guild's configuration in Git: plan, apply, drift, export"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check manifests (YAML, schema and semantic rules) without touching the network.
    #[command(after_help = "Examples:
  guildctl validate -f guild.yaml
  guildctl validate -f guild/ --format github     # annotations in a GitHub workflow
  guildctl validate -f a.yaml -f b.yaml --format json")]
    Validate {
        /// Manifests: YAML files, or folders of them merged by section.
        #[arg(short = 'f', long = "file", required = true)]
        files: Vec<PathBuf>,
        /// text: compiler-style on stderr; github: workflow annotations on stdout; json: one
        /// document on stdout.
        #[arg(long, value_enum, default_value = "text")]
        format: manifest::ReportFormat,
        #[command(flatten)]
        output: ColorArg,
    },
    /// Print the manifest's JSON schema (also kept in schema/).
    #[command(after_help = "Examples:
  guildctl schema > schema/guildctl.schema.json
  # and in a manifest, for editors: # yaml-language-server: $schema=schema/guildctl.schema.json")]
    Schema,
    /// Show what apply would change.
    #[command(after_help = "Examples:
  guildctl plan --sandbox -f examples/community.yaml     # try it on the built-in emulator
  DISCORD_TOKEN=... guildctl plan -f guild.yaml --detailed-exitcode
  guildctl plan -f guild.yaml --out plan.json --format markdown > plan.md")]
    Plan {
        #[command(flatten)]
        target: Target,
        /// Also write the plan as JSON, for `apply --plan`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// text for a terminal, markdown for a pull request, json for tools.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Exit 2 when there are changes, 0 when there are none.
        #[arg(long)]
        detailed_exitcode: bool,
    },
    /// Make the guild match the manifest.
    #[command(after_help = "Examples:
  guildctl apply --sandbox -f examples/community.yaml --yes
  guildctl apply -f guild.yaml --plan plan.json --yes     # exactly the reviewed plan
  guildctl apply -f guild.yaml --webhook-urls ~/secrets/webhooks.json")]
    Apply {
        #[command(flatten)]
        target: Target,
        /// Apply this saved plan (from `plan --out`) instead of planning anew; refused if
        /// the guild changed since it was made, or if it was made from another manifest
        /// (`-f`), for another guild or by another guildctl version.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Do not ask for confirmation. It does not lift the deletion gate.
        #[arg(long)]
        yes: bool,
        /// Allow the plan to delete up to N objects in total (roles, channels, categories,
        /// webhooks), in place of the default limits and of the manifest's
        /// `safety.allow_deletes`; apply refuses a plan that deletes more.
        #[arg(long, value_name = "N")]
        allow_deletes: Option<usize>,
        /// The audit-log reason; by default "guildctl apply" with the Git commit and author.
        #[arg(long)]
        reason: Option<String>,
        /// After a failed call, go on with the calls that do not depend on it (by
        /// default no new call starts after a failure).
        #[arg(long)]
        keep_going: bool,
        /// Write the URLs of webhooks this run creates (they contain their secret tokens)
        /// to this file, created readable by you alone, for your secret store.
        #[arg(long)]
        webhook_urls: Option<PathBuf>,
    },
    /// Report where the live guild differs from the manifest, who changed it, when and
    /// why (from the audit log), and unmanaged objects by risk. Needs only view_channel
    /// and view_audit_log; never writes. Exit 2 when something managed drifted or a
    /// high-risk object is not in the manifest.
    #[command(after_help = "Examples:
  guildctl drift -f guild.yaml
  guildctl drift -f guild.yaml --format markdown > drift.md
  guildctl drift -f guild.yaml --fail-on-unmanaged --audit-pages 20")]
    Drift {
        #[command(flatten)]
        target: Target,
        /// text for a terminal, markdown for an issue, json for tools.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Audit-log pages (100 entries each) read at most to attribute changes.
        #[arg(long, value_name = "N", default_value_t = guildctl::drift::DEFAULT_MAX_PAGES)]
        audit_pages: usize,
        /// Also exit 2 for low-risk objects that are not in the manifest.
        #[arg(long)]
        fail_on_unmanaged: bool,
        /// The user id of the bot that applies, when drift runs as another (repeatable):
        /// only its entries count as guildctl's. Default: the bot drift runs as.
        #[arg(long, value_name = "USER_ID", value_parser = drift::parse_user_id)]
        applier: Vec<String>,
    },
    /// Write the live guild as a manifest.
    #[command(after_help = "Examples:
  guildctl export --guild 81384788765712384 -o guild.yaml
  guildctl export --sandbox")]
    Export {
        #[command(flatten)]
        conn: Connection,
        /// The file to write (standard output without it).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
    },
    /// For the GitHub Action: the plan comment, the drift issue, a plan's digest
    /// (docs/github.md).
    #[command(hide = true)]
    Github(guildctl::github::cli::GithubArgs),
    /// Run the local Discord API emulator, or make a hand change in a saved sandbox
    /// guild (`emulator call`).
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:
  guildctl emulator                       # prints {\"api_base\",\"token\",\"guild_id\"} on one line
  guildctl emulator --listen 127.0.0.1:9000 --state saved.json
  guildctl emulator call --state sandbox.json --as ferris PATCH /channels/849074915901440000 '{\"rate_limit_per_user\": 30}'"
    )]
    Emulator {
        #[command(subcommand)]
        action: Option<EmulatorAction>,
        /// The loopback address to serve on.
        #[arg(long, default_value = "127.0.0.1:8787")]
        listen: SocketAddr,
        /// A saved emulator state (JSON) to start from.
        #[arg(long)]
        state: Option<PathBuf>,
    },
    /// Print a shell completion script.
    #[command(after_help = "Examples:
  guildctl completions bash > /etc/bash_completion.d/guildctl
  guildctl completions zsh > \"${fpath[1]}/_guildctl\"")]
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff).
    #[command(after_help = "Example:
  guildctl man > /usr/local/share/man/man1/guildctl.1")]
    Man,
}

#[derive(Subcommand)]
enum EmulatorAction {
    /// Make one Discord API call as a member of the saved sandbox guild, as if they had
    /// done it by hand in Discord (their permissions apply, the audit log records them
    /// and the reason), and save the guild back: a hand change for `drift` to find.
    /// Prints the response; webhook tokens in it are hidden.
    #[command(after_help = "Examples:
  # ferris, the owner, turns on slow mode in #general (ids as in an exported manifest)
  guildctl emulator call --state sandbox.json --as ferris --reason 'too busy' \\
    PATCH /channels/849074915901440000 '{\"rate_limit_per_user\": 30}'
  guildctl emulator call --state sandbox.json GET /guilds/849074769100800000/audit-logs")]
    Call {
        /// The sandbox state (as `--sandbox-state` writes it); the default guild when the
        /// file does not exist yet. Written back after a successful call.
        #[arg(long, value_name = "FILE")]
        state: PathBuf,
        /// Who makes the call: a user name or id of the state (default: the guild's owner).
        #[arg(long = "as", value_name = "USER")]
        user: Option<String>,
        /// The audit-log reason, as someone would type it in Discord.
        #[arg(long)]
        reason: Option<String>,
        /// GET, POST, PATCH, PUT or DELETE.
        method: String,
        /// The API path, such as /channels/ID (with or without /api/v10).
        path: String,
        /// The JSON body.
        body: Option<String>,
    },
}

#[derive(Args)]
struct ColorArg {
    /// Colour output: auto (a terminal without NO_COLOR), always or never.
    #[arg(long, value_enum, default_value = "auto", global = true)]
    color: ColorChoice,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    fn enabled(self, stream_is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stream_is_terminal && std::env::var_os("NO_COLOR").is_none(),
        }
    }
}

#[derive(Args)]
struct Target {
    /// The manifest file.
    #[arg(short = 'f', long = "file")]
    file: PathBuf,
    /// Create this declared channel even though the bot cannot see whether it exists
    /// (Discord hides channels a bot cannot view). Repeat for several; `Category/name`
    /// picks one in a category.
    #[arg(long = "create-unseen", value_name = "CHANNEL")]
    create_unseen: Vec<String>,
    /// Also write the manifest's errors and the plan's refusals to FILE as GitHub
    /// workflow annotations (`::error file=…,line=…::…`), for a workflow to print, so
    /// they show on the manifest's lines in the pull request.
    #[arg(long, value_name = "FILE")]
    annotations: Option<PathBuf>,
    #[command(flatten)]
    conn: Connection,
}

impl Target {
    fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            create_unseen: self.create_unseen.clone(),
        }
    }

    /// Shows a report on the manifest: text on stderr, and annotations in the
    /// `--annotations` file when asked for one.
    fn show(&self, report: &manifest::Report) -> Result<()> {
        if report.items.is_empty() {
            return Ok(());
        }
        eprint!("{}", report.render_text(self.conn.color_err()));
        if let Some(path) = &self.annotations {
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

#[derive(Args)]
struct Connection {
    /// The guild id, for a manifest without `guild:` (refused when it names another guild
    /// than the manifest's).
    #[arg(long, env = "GUILDCTL_GUILD")]
    guild: Option<String>,
    /// Whether `guild` came from GUILDCTL_GUILD rather than --guild, for messages.
    #[arg(skip)]
    guild_from_env: bool,
    /// Base URL of the Discord API.
    #[arg(
        long,
        env = "GUILDCTL_API_BASE",
        default_value = "https://discord.com/api/v10"
    )]
    api_base: String,
    /// Read the bot token from this file (otherwise from DISCORD_TOKEN).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Run against an in-process emulator instead of Discord.
    #[arg(long)]
    sandbox: bool,
    /// With --sandbox: the sandbox's guild lives in this file (JSON). Loaded when it
    /// exists (otherwise the default guild), written back after `apply`, so a tour
    /// across separate commands works.
    #[arg(long, requires = "sandbox")]
    sandbox_state: Option<PathBuf>,
    #[command(flatten)]
    color: ColorArg,
}

/// A connection to the guild: the client, the guild id, and the in-process
/// emulator kept alive for `--sandbox`.
struct Session {
    client: Client,
    guild_id: String,
    /// The in-process emulator of `--sandbox`, kept alive for the session.
    sandbox: Option<RunningEmulator>,
    /// Where progress and rate-limit notices go (stderr).
    console: Console,
}

impl Session {
    /// A session whose rate-limit waits of a second or more (of the API's clock) are
    /// announced on stderr.
    fn new(client: Client, guild_id: String, sandbox: Option<RunningEmulator>) -> Result<Session> {
        let console = Console::stderr(progress::NOTICE_AFTER / clock_scale()?);
        let notices = console.clone();
        client.on_rate_limit_wait(move |wait| notices.rate_limit_wait(wait));
        Ok(Session {
            client,
            guild_id,
            sandbox,
            console,
        })
    }

    /// Writes the sandbox's state to `--sandbox-state FILE`, if both are in use, whole
    /// or not at all.
    fn save_sandbox(&self, conn: &Connection) -> Result<()> {
        let (Some(emu), Some(path)) = (&self.sandbox, &conn.sandbox_state) else {
            return Ok(());
        };
        write_state(path, &emu.state())?;
        eprintln!("Sandbox state saved to {}", path.display());
        Ok(())
    }
}

/// Writes a sandbox state, readable by the user alone (it holds the webhooks' tokens).
fn write_state(path: &Path, state: &discord_emulator::State) -> Result<()> {
    let mut json = serde_json::to_string_pretty(state)?;
    json.push('\n');
    write_private(path, json.as_bytes())
        .with_context(|| format!("cannot write the sandbox state to {}", path.display()))
}

impl Connection {
    async fn open(&self, manifest_guild: Option<&str>) -> Result<Session> {
        if self.sandbox {
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
                client_options()?,
            )?;
            return Session::new(client, guild_id, Some(emu));
        }
        let token = match &self.token_file {
            Some(p) => std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the token file {}", p.display()))?,
            None => std::env::var("DISCORD_TOKEN").map_err(|_| {
                anyhow!(
                    "no bot token: set DISCORD_TOKEN or pass --token-file PATH (or try --sandbox)"
                )
            })?,
        };
        let guild_id = self
            .guild
            .clone()
            .or_else(|| manifest_guild.map(str::to_owned))
            .ok_or_else(|| {
                anyhow!("no guild id: set `guild:` in the manifest, --guild or GUILDCTL_GUILD")
            })?;
        let client = Client::with_options(&self.api_base, Token::new(token)?, client_options()?)?;
        Session::new(client, guild_id, None)
    }

    fn color_out(&self) -> bool {
        self.color.color.enabled(std::io::stdout().is_terminal())
    }

    fn color_err(&self) -> bool {
        self.color.color.enabled(std::io::stderr().is_terminal())
    }
}

/// Client tuning from the environment, for unusual setups and scaled emulators:
/// `GUILDCTL_CLOCK_SCALE` (an emulator's `time_scale`: the global limit's one-second
/// window shrinks by it, as does the one second a wait lasts before it is announced),
/// `GUILDCTL_TIMEOUT_MS`
/// (per request, default 30000), `GUILDCTL_INVALID_BUDGET` (401/403/429 responses
/// before a run stops, default 100).
fn client_options() -> Result<ClientOptions> {
    let mut o = ClientOptions {
        global_window: std::time::Duration::from_secs(1) / clock_scale()?,
        ..ClientOptions::default()
    };
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
fn clock_scale() -> Result<u32> {
    Ok(u32::try_from(
        env_number("GUILDCTL_CLOCK_SCALE")?.unwrap_or(1).max(1),
    )?)
}

fn env_number(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| anyhow!("{name} must be a whole number, not {v:?}")),
        Err(_) => Ok(None),
    }
}

impl Command {
    fn connection_mut(&mut self) -> Option<&mut Connection> {
        match self {
            Command::Plan { target, .. }
            | Command::Apply { target, .. }
            | Command::Drift { target, .. } => Some(&mut target.conn),
            Command::Export { conn, .. } => Some(conn),
            _ => None,
        }
    }
}

/// Parses the command line, noting where the guild id came from.
fn parse() -> Cli {
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Only commands that connect have the argument (asking others panics).
    let from_env = matches
        .subcommand()
        .filter(|(_, m)| m.ids().any(|id| id == "guild"))
        .and_then(|(_, m)| m.value_source("guild"))
        == Some(ValueSource::EnvVariable);
    if let Some(conn) = cli.command.connection_mut() {
        conn.guild_from_env = from_env;
    }
    cli
}

fn main() -> ExitCode {
    let cli = parse();
    // One thread does for a command: its work is waiting on a few connections at a time, and
    // worker threads would only add their stacks and allocator arenas to its memory. The
    // emulator, a server for others, keeps a thread per core.
    let runtime = match &cli.command {
        Command::Emulator { .. } => tokio::runtime::Runtime::new(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

async fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Validate {
            files,
            format,
            output,
        } => validate(&files, format, output.color),
        Command::Schema => {
            print!("{}", manifest::schema::schema_json());
            Ok(0)
        }
        Command::Plan {
            target,
            out,
            format,
            detailed_exitcode,
        } => {
            let (_session, plan) = plan_for(&target, format).await?;
            if let Some(path) = out {
                std::fs::write(&path, report::plan_json(&plan))
                    .with_context(|| format!("cannot write the plan to {}", path.display()))?;
                eprintln!(
                    "Plan saved to {} (changes sha256:{})",
                    path.display(),
                    plan.changes_sha256
                );
            }
            print!(
                "{}",
                report::render(&plan, format, Heading::Plan, target.conn.color_out())
            );
            Ok(if detailed_exitcode && !plan.is_empty() {
                EXIT_CHANGES
            } else {
                0
            })
        }
        Command::Drift {
            target,
            format,
            audit_pages,
            fail_on_unmanaged,
            applier,
        } => {
            let (loaded, session, snap) = read_guild(&target).await?;
            // Drift needs only eyes: the differences without apply's gates.
            let (plan, problems) = plan::differences(&loaded, &snap, &target.plan_options());
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0);
            let mut options = DriftOptions::new(now_ms, current_commit(&target.file));
            options.max_pages = audit_pages;
            options.appliers = applier;
            let report =
                drift::investigate(&session.client, &snap, &plan, &problems, &options).await;
            print!("{}", drift::render(&report, format));
            Ok(report.exit_code(fail_on_unmanaged))
        }
        Command::Apply {
            target,
            plan,
            yes,
            allow_deletes,
            reason,
            keep_going,
            webhook_urls,
        } => {
            let flags = ApplyFlags {
                yes,
                keep_going,
                allow_deletes,
            };
            apply_cmd(
                &target,
                plan.as_deref(),
                flags,
                reason,
                webhook_urls.as_deref(),
            )
            .await
        }
        Command::Export { conn, output } => {
            let session = conn.open(None).await?;
            let snap = Snapshot::fetch(&session.client, &session.guild_id)
                .await
                .context("reading the live guild")?;
            let yaml = guildctl::export::export(&snap)?;
            match output {
                Some(path) => {
                    std::fs::write(&path, yaml)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    eprintln!("Wrote {}", path.display());
                }
                None => print!("{yaml}"),
            }
            Ok(0)
        }
        Command::Github(args) => Ok(guildctl::github::cli::run(args).await?),
        Command::Emulator {
            action: Some(call), ..
        } => emulator_call(call).await,
        Command::Emulator {
            action: None,
            listen,
            state,
        } => {
            discord_emulator::run_cli(listen, state).await?;
            Ok(0)
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
            Ok(0)
        }
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "guildctl",
                &mut std::io::stdout(),
            );
            Ok(0)
        }
    }
}

/// Validates each manifest and prints the findings; exit 1 when any has an error (warnings
/// alone do not fail).
fn validate(files: &[PathBuf], format: manifest::ReportFormat, color: ColorChoice) -> Result<u8> {
    let color = color.enabled(std::io::stderr().is_terminal());
    let reports: Vec<manifest::Report> = files.iter().map(|f| manifest::validate(f).1).collect();
    let out = manifest::render_reports(&reports, format, color);
    print!("{}", out.stdout);
    eprint!("{}", out.stderr);
    Ok(u8::from(reports.iter().any(manifest::Report::has_errors)))
}

/// Loads a manifest (a file or a folder) and runs every check; warnings are printed, errors
/// refuse it before anything is sent to Discord.
fn load_checked(target: &Target) -> Result<LoadedManifest> {
    let path = &target.file;
    let (loaded, report) = manifest::validate(path);
    target.show(&report)?;
    match loaded {
        Some(loaded) if !report.has_errors() => Ok(loaded),
        _ => bail!(
            "{}: {}; nothing was sent to Discord",
            path.display(),
            report.summary()
        ),
    }
}

/// Loads and checks the manifest and connects, without a request yet: a manifest that
/// names its guild is refused with --guild or GUILDCTL_GUILD naming another.
async fn connect(target: &Target) -> Result<(LoadedManifest, Session)> {
    let loaded = load_checked(target)?;
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
            target.file.display()
        );
    }
    let session = target.conn.open(manifest_guild).await?;
    Ok((loaded, session))
}

/// Loads and checks the manifest, connects, and reads the live guild.
async fn read_guild(target: &Target) -> Result<(LoadedManifest, Session, Snapshot)> {
    let (loaded, session) = connect(target).await?;
    let snap = fetch(&session).await?;
    Ok((loaded, session, snap))
}

async fn fetch(session: &Session) -> Result<Snapshot> {
    Snapshot::fetch(&session.client, &session.guild_id)
        .await
        .context("reading the live guild")
}

async fn plan_for(target: &Target, format: Format) -> Result<(Session, Plan)> {
    let (loaded, session, snap) = read_guild(target).await?;
    let plan = plan::diff_loaded(&loaded, &snap, &target.plan_options()).map_err(|e| {
        // Machine output says why too: a pull request comment is made from it.
        match format {
            Format::Markdown => print!("{}", report::refusal_markdown(&e)),
            Format::Json => println!(
                "{}",
                serde_json::json!({ "refused": true, "problems": e.problems })
            ),
            Format::Text => {}
        }
        refused(target, &loaded, &e)
    })?;
    Ok((session, plan))
}

/// Shows a refused plan's problems on the manifest's lines.
fn refused(target: &Target, loaded: &LoadedManifest, e: &PlanError) -> anyhow::Error {
    let diags: Vec<Diagnostic> = e
        .problems
        .iter()
        .map(|p| Diagnostic {
            severity: Severity::Error,
            path: p.source.clone().unwrap_or_default(),
            message: p.message.clone(),
            help: p.help.clone(),
        })
        .collect();
    if let Err(shown) = target.show(&manifest::report_on(loaded, &diags)) {
        return shown;
    }
    anyhow!(
        "the plan was refused ({} problem(s)) before any change was made",
        e.problems.len()
    )
}

struct ApplyFlags {
    yes: bool,
    keep_going: bool,
    allow_deletes: Option<usize>,
}

/// Reads a saved plan and checks, before any request, that it was made from this
/// manifest, for this guild, by this guildctl, with the changes it holds.
fn read_saved_plan(path: &Path, loaded: &LoadedManifest, session: &Session) -> Result<Plan> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the plan {}", path.display()))?;
    let plan: Plan = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a guildctl plan", path.display()))?;
    let digest = plan::binding::manifest_digest(loaded);
    plan.verify_binding(&digest, &session.guild_id)
        .map_err(|e| {
            anyhow!(
                "refusing to apply {} with {}: {e}. Apply it with the manifest and guild it was made for, or make and review a new plan; nothing was sent to Discord",
                path.display(),
                loaded.path.display(),
            )
        })?;
    Ok(plan)
}

async fn apply_cmd(
    target: &Target,
    saved: Option<&Path>,
    ApplyFlags {
        yes,
        keep_going,
        allow_deletes,
    }: ApplyFlags,
    reason: Option<String>,
    webhook_urls: Option<&Path>,
) -> Result<u8> {
    // Before the first call: a file that could not take the URLs is found now, not
    // after the webhooks exist.
    let webhook_urls = webhook_urls
        .map(apply::WebhookUrlFile::prepare)
        .transpose()
        .map_err(|e| anyhow!("--webhook-urls {e}; nothing was sent to Discord"))?;
    let (loaded, session) = connect(target).await?;
    let saved_plan = match saved {
        Some(path) => Some((path, read_saved_plan(path, &loaded, &session)?)),
        None => None,
    };
    let snap = fetch(&session).await?;
    let mut plan = match saved_plan {
        Some((path, plan)) => {
            if plan.base_fingerprint != snap.fingerprint() {
                bail!(
                    "the guild changed since {} was made; run `guildctl plan` again",
                    path.display()
                );
            }
            let problems =
                plan::safety::protect_problems(&plan, &as_stored(&loaded.manifest), &snap);
            if !problems.is_empty() {
                let e = PlanError {
                    problems,
                    partial: Box::new(plan),
                };
                return Err(refused(target, &loaded, &e));
            }
            plan
        }
        None => plan::diff_loaded(&loaded, &snap, &target.plan_options())
            .map_err(|e| refused(target, &loaded, &e))?,
    };
    // The gate is judged again here, with this run's --allow-deletes and the live guild,
    // never taken from a saved file.
    plan.deletion_gate = plan::safety::deletion_gate(
        &plan,
        &snap,
        Allowance::resolve(allow_deletes, &loaded.manifest),
    );
    let color = target.conn.color_out();
    print!(
        "{}",
        report::render(&plan, Format::Text, Heading::Plan, color)
    );
    if plan.is_empty() {
        return Ok(0);
    }
    plan.raise_if_unsafe()
        .map_err(|e| anyhow!("{e}. Nothing was changed"))?;
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!("apply needs confirmation: run it in a terminal, or pass --yes");
        }
        eprint!("Apply these changes to {}? [y/N] ", plan.guild_name);
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("Nothing was changed.");
            return Ok(1);
        }
    }
    let reason = reason.unwrap_or_else(|| default_reason(&target.file));
    let options = apply::ApplyOptions {
        keep_going,
        webhook_urls,
        ..apply::ApplyOptions::new(reason, loaded.dir())
    };
    let mut shown = ApplyProgress::new(
        &session.console,
        plan.operations.len(),
        progress::stderr_wants_bar(),
    );
    let outcome = apply::apply(&session.client, &plan, &options, |p| shown.event(p)).await;
    shown.finish();
    // Saved whatever the outcome: the calls that were made changed the guild.
    session.save_sandbox(&target.conn)?;
    let urls_lost = webhook_urls_report(&outcome);
    println!(
        "\nApplied {} of {} calls; {} failed, {} skipped.",
        outcome.count(Status::Done),
        plan.operations.len(),
        outcome.count(Status::Failed),
        outcome.count(Status::Skipped)
    );
    if !outcome.succeeded() {
        if !outcome.failures.is_empty() {
            println!("Failed:");
        }
        for (i, e) in &outcome.failures {
            println!("  {}: {e}", plan.operations[*i].summary);
        }
        let skipped: Vec<&str> = outcome
            .statuses
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == Status::Skipped)
            .map(|(i, _)| plan.operations[i].summary.as_str())
            .collect();
        if !skipped.is_empty() {
            println!("Skipped: {}", skipped.join(", "));
        }
        if let Some(message) = urls_lost {
            bail!("{message}");
        }
        bail!(
            "{} call(s) failed; the calls marked done were made. Run `guildctl apply` again once the cause is fixed to finish",
            outcome.failures.len()
        );
    }
    if session.sandbox.is_some() {
        // In the sandbox, show that one apply converges.
        let after = Snapshot::fetch(&session.client, &session.guild_id).await?;
        match plan::diff_loaded(&loaded, &after, &target.plan_options()) {
            Ok(p) if p.is_empty() => println!("A fresh plan against the sandbox shows no changes."),
            Ok(p) => println!("A fresh plan still shows: {}", report::summary_line(&p)),
            Err(e) => println!("A fresh plan was refused: {e}"),
        }
    }
    Ok(0)
}

/// Says where the URLs of the webhooks created are, never what they are (each holds
/// its webhook's token). Returns the error to end with when they are not where the
/// user asked.
fn webhook_urls_report(outcome: &apply::Outcome) -> Option<String> {
    use apply::UrlsKept;
    let count = outcome.webhook_urls.len();
    match &outcome.webhook_urls_kept {
        None if count > 0 => {
            let names: Vec<&str> = outcome
                .webhook_urls
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            eprintln!(
                "Created {count} webhook(s) ({}); their URLs were not saved (no --webhook-urls): copy them from Discord (the channel's settings > Integrations > Webhooks).",
                names.join(", ")
            );
            None
        }
        None => None,
        Some(UrlsKept::File(path)) => {
            eprintln!(
                "The URLs of {count} new webhook(s) are in {} (readable by you alone); put them in your secret store.",
                path.display()
            );
            None
        }
        Some(UrlsKept::Fallback { path, error }) => Some(format!(
            "could not write the webhook URLs to {error}, so apply stopped there. The URLs of the {count} webhook(s) it created are kept in {} (readable by you alone): put them in your secret store, then delete that file",
            path.display()
        )),
        Some(UrlsKept::Nowhere {
            error,
            fallback_errors,
            webhooks,
        }) => {
            let tried: Vec<String> = fallback_errors.iter().map(ToString::to_string).collect();
            let hooks: Vec<String> = webhooks
                .iter()
                .map(|(name, id)| format!("{name} (id {id})"))
                .collect();
            Some(format!(
                "could not write the webhook URLs to {error}, nor to a fallback file ({}), so apply stopped there. The URLs are secrets and are not printed; the webhooks exist, and Discord shows their URLs in the channel's settings > Integrations > Webhooks: {}",
                tried.join("; "),
                hooks.join(", ")
            ))
        }
    }
}

/// `guildctl emulator call`: one API call as a member of the saved sandbox guild,
/// through the emulator's whole stack (permissions, audit log, rate limits), so a hand
/// change looks to `drift` as one made in Discord's app would.
async fn emulator_call(action: EmulatorAction) -> Result<u8> {
    let EmulatorAction::Call {
        state: file,
        user,
        reason,
        method,
        path,
        body,
    } = action;
    let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
        .map_err(|_| anyhow!("{method:?} is not an HTTP method"))?;
    let path = path.strip_prefix("/api/v10").unwrap_or(&path).to_owned();
    if !path.starts_with('/') {
        bail!("the path must start with /, like /channels/ID");
    }
    let body: Option<serde_json::Value> = body
        .map(|b| serde_json::from_str(&b))
        .transpose()
        .context("the body is not JSON")?;
    let mut state = if file.exists() {
        discord_emulator::load_state_file(&file)?
    } else {
        discord_emulator::default_state()
    };
    let owner = state
        .guilds
        .first()
        .map(|g| g.owner_id.clone())
        .ok_or_else(|| anyhow!("{} has no guild", file.display()))?;
    let user_id = match &user {
        None => owner,
        Some(who) => state
            .users
            .iter()
            .find(|u| u.username == *who || u.id == *who)
            .map(|u| u.id.clone())
            .ok_or_else(|| {
                let names: Vec<&str> = state.users.iter().map(|u| u.username.as_str()).collect();
                anyhow!(
                    "no user {who:?} in {}; its users are {}",
                    file.display(),
                    names.join(", ")
                )
            })?,
    };
    let name = state
        .users
        .iter()
        .find(|u| u.id == user_id)
        .map_or_else(|| user_id.clone(), |u| u.username.clone());
    // A token for this one call, never saved: the saved state keeps only its own.
    let token = format!("hand-change-{user_id}-{}", std::process::id());
    state.tokens.push(discord_emulator::state::BotToken {
        token: token.clone(),
        user_id,
    });
    let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) }).await?;
    let client =
        Client::with_options(&emu.api_base, Token::new(token.clone())?, client_options()?)?;
    let result = client
        .send(method.clone(), &path, body.as_ref(), reason.as_deref())
        .await;
    let mut after = emu.state();
    emu.shutdown().await;
    // A token route's path holds the token the user typed: not echoed in the error.
    let response = result.map_err(|e| {
        anyhow!(
            "{}; {} is unchanged",
            progress::redact(&e.to_string()),
            file.display()
        )
    })?;
    after.tokens.retain(|t| t.token != token);
    write_state(&file, &after)?;
    if let Some(mut value) = response {
        hide_tokens(&mut value);
        println!(
            "{}",
            progress::redact(&serde_json::to_string_pretty(&value)?)
        );
    }
    eprintln!(
        "{method} {} as {name}: done; saved to {}",
        progress::redact(&path),
        file.display()
    );
    Ok(0)
}

/// Replaces every `token` value in a response (a webhook's secret) with a mark.
fn hide_tokens(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "token" && value.is_string() {
                    *value = serde_json::Value::from("(hidden)");
                } else {
                    hide_tokens(value);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(hide_tokens),
        _ => {}
    }
}

/// The output of `git ARGS` run in the manifest's folder, trimmed; `None` outside Git
/// or when it prints nothing.
fn git_beside(manifest: &Path, args: &[&str]) -> Option<String> {
    let dir = manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The manifest's current commit: GITHUB_SHA in a workflow, else `git rev-parse HEAD`
/// of the manifest's repository; `None` outside Git.
fn current_commit(manifest: &Path) -> Option<String> {
    if let Ok(sha) = std::env::var("GITHUB_SHA")
        && !sha.trim().is_empty()
    {
        return Some(sha.trim().to_owned());
    }
    git_beside(manifest, &["rev-parse", "HEAD"])
}

/// "guildctl apply" with the commit and its author, so each audit-log entry points
/// back to the change that caused it.
fn default_reason(manifest: &Path) -> String {
    let from_env = std::env::var("GITHUB_SHA").ok().map(|sha| {
        let actor = std::env::var("GITHUB_ACTOR").unwrap_or_default();
        (sha.chars().take(12).collect::<String>(), actor)
    });
    let from_git = || {
        let text = git_beside(manifest, &["log", "-1", "--format=%h%x09%an"])?;
        let (sha, author) = text.split_once('\t')?;
        Some((sha.to_owned(), author.to_owned()))
    };
    match from_env.or_else(from_git) {
        Some((sha, author)) if !author.is_empty() => {
            format!("guildctl apply: commit {sha} by {author}")
        }
        Some((sha, _)) => format!("guildctl apply: commit {sha}"),
        None => "guildctl apply".to_owned(),
    }
}
