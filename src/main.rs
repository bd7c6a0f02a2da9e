//! The `guildctl` command line.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand};

use discord_emulator::{EmulatorOptions, RunningEmulator};
use guildctl::apply::{self, Status};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest::{self, Diagnostic, LoadedManifest, Severity};
use guildctl::plan::{self, Plan, PlanError, PlanOptions};
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
    Schema,
    /// Show what apply would change.
    Plan {
        #[command(flatten)]
        target: Target,
        /// Also write the plan as JSON, for `apply --plan`.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Exit 2 when there are changes, 0 when there are none.
        #[arg(long)]
        detailed_exitcode: bool,
    },
    /// Make the guild match the manifest.
    Apply {
        #[command(flatten)]
        target: Target,
        /// Apply this saved plan (from `plan --out`) instead of planning anew; refused if
        /// the guild changed since it was made.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Do not ask for confirmation.
        #[arg(long)]
        yes: bool,
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
    /// Report where the live guild differs from the manifest (exit 2 when it does).
    Drift {
        #[command(flatten)]
        target: Target,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Write the live guild as a manifest.
    Export {
        #[command(flatten)]
        conn: Connection,
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
    },
    /// For the GitHub Action: the plan comment, the drift issue, a plan's digest
    /// (docs/github.md).
    #[command(hide = true)]
    Github(guildctl::github::cli::GithubArgs),
    /// Run the local Discord API emulator.
    Emulator {
        #[arg(long, default_value = "127.0.0.1:8787")]
        listen: SocketAddr,
        /// A saved emulator state (JSON) to start from.
        #[arg(long)]
        state: Option<PathBuf>,
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
    #[command(flatten)]
    conn: Connection,
}

impl Target {
    fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            create_unseen: self.create_unseen.clone(),
        }
    }
}

#[derive(Args)]
struct Connection {
    /// The guild id; overrides the manifest's `guild`.
    #[arg(long, env = "GUILDCTL_GUILD")]
    guild: Option<String>,
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
    /// With --sandbox: start the emulator from this saved state (JSON).
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
}

impl Connection {
    async fn open(&self, manifest_guild: Option<&str>) -> Result<Session> {
        if self.sandbox {
            let state = match &self.sandbox_state {
                Some(p) => Some(discord_emulator::load_state_file(p)?),
                None => None,
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
            return Ok(Session {
                client,
                guild_id,
                sandbox: Some(emu),
            });
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
        Ok(Session {
            client,
            guild_id,
            sandbox: None,
        })
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
/// window shrinks by it), `GUILDCTL_TIMEOUT_MS`
/// (per request, default 30000), `GUILDCTL_INVALID_BUDGET` (401/403/429 responses
/// before a run stops, default 100).
fn client_options() -> Result<ClientOptions> {
    let mut o = ClientOptions::default();
    let var = |name: &str| -> Result<Option<u64>> {
        match std::env::var(name) {
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| anyhow!("{name} must be a whole number, not {v:?}")),
            Err(_) => Ok(None),
        }
    };
    if let Some(v) = var("GUILDCTL_CLOCK_SCALE")? {
        o.global_window = std::time::Duration::from_secs(1) / u32::try_from(v.max(1))?;
    }
    if let Some(v) = var("GUILDCTL_TIMEOUT_MS")? {
        o.timeout = std::time::Duration::from_millis(v);
    }
    if let Some(v) = var("GUILDCTL_INVALID_BUDGET")? {
        o.invalid_budget = usize::try_from(v)?;
    }
    Ok(o)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
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
            let (_session, plan) = plan_for(&target).await?;
            if let Some(path) = out {
                let json = serde_json::to_string_pretty(&plan)?;
                std::fs::write(&path, json + "\n")
                    .with_context(|| format!("cannot write the plan to {}", path.display()))?;
                eprintln!("Plan saved to {}", path.display());
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
        Command::Drift { target, format } => {
            let (_session, plan) = plan_for(&target).await?;
            print!(
                "{}",
                report::render(&plan, format, Heading::Drift, target.conn.color_out())
            );
            Ok(if plan.is_empty() { 0 } else { EXIT_CHANGES })
        }
        Command::Apply {
            target,
            plan,
            yes,
            reason,
            keep_going,
            webhook_urls,
        } => {
            let flags = ApplyFlags { yes, keep_going };
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
        Command::Emulator { listen, state } => {
            discord_emulator::run_cli(listen, state).await?;
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
fn load_checked(path: &Path, color: bool) -> Result<LoadedManifest> {
    let (loaded, report) = manifest::validate(path);
    if !report.items.is_empty() {
        eprint!("{}", report.render_text(color));
    }
    match loaded {
        Some(loaded) if !report.has_errors() => Ok(loaded),
        _ => bail!(
            "{}: {}; nothing was sent to Discord",
            path.display(),
            report.summary()
        ),
    }
}

/// Loads and checks the manifest, connects, and reads the live guild.
async fn read_guild(target: &Target) -> Result<(LoadedManifest, Session, Snapshot)> {
    let loaded = load_checked(&target.file, target.conn.color_err())?;
    let session = target
        .conn
        .open(loaded.manifest.guild.as_ref().map(|g| g.0.as_str()))
        .await?;
    let snap = Snapshot::fetch(&session.client, &session.guild_id)
        .await
        .context("reading the live guild")?;
    Ok((loaded, session, snap))
}

async fn plan_for(target: &Target) -> Result<(Session, Plan)> {
    let (loaded, session, snap) = read_guild(target).await?;
    let plan = plan::diff_with(&loaded.manifest, &snap, &target.plan_options())
        .map_err(|e| refused(&loaded, &e, target.conn.color_err()))?;
    Ok((session, plan))
}

/// Renders a refused plan's problems against the manifest's lines.
fn refused(loaded: &LoadedManifest, e: &PlanError, color: bool) -> anyhow::Error {
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
    eprint!("{}", manifest::render(loaded, &diags, color));
    anyhow!(
        "the plan was refused ({} problem(s)) before any change was made",
        e.problems.len()
    )
}

struct ApplyFlags {
    yes: bool,
    keep_going: bool,
}

async fn apply_cmd(
    target: &Target,
    saved: Option<&Path>,
    ApplyFlags { yes, keep_going }: ApplyFlags,
    reason: Option<String>,
    webhook_urls: Option<&Path>,
) -> Result<u8> {
    let (loaded, session, snap) = read_guild(target).await?;
    let plan = match saved {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the plan {}", path.display()))?;
            let plan: Plan = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a guildctl plan", path.display()))?;
            if plan.guild_id != snap.guild.id || plan.base_fingerprint != snap.fingerprint() {
                bail!(
                    "the guild changed since {} was made; run `guildctl plan` again",
                    path.display()
                );
            }
            plan
        }
        None => plan::diff_with(&loaded.manifest, &snap, &target.plan_options())
            .map_err(|e| refused(&loaded, &e, target.conn.color_err()))?,
    };
    let color = target.conn.color_out();
    print!(
        "{}",
        report::render(&plan, Format::Text, Heading::Plan, color)
    );
    if plan.is_empty() {
        return Ok(0);
    }
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
        ..apply::ApplyOptions::new(reason, loaded.dir())
    };
    let mut done = 0;
    let outcome = apply::apply(&session.client, &plan, &options, |p| {
        let mark = match p.status {
            Status::Done => "done",
            Status::Failed => "FAILED",
            _ => "skipped",
        };
        if p.status == Status::Done {
            done += 1;
        }
        eprintln!("[{done}/{}] {}: {mark}", p.total, p.operation.summary);
        if let Some(e) = p.error {
            eprintln!("        {e}");
        }
    })
    .await;
    if let Some(path) = webhook_urls {
        write_webhook_urls(path, &outcome.webhook_urls)?;
    }
    println!(
        "\nApplied {} of {} calls; {} failed, {} skipped.",
        outcome.count(Status::Done),
        plan.operations.len(),
        outcome.count(Status::Failed),
        outcome.count(Status::Skipped)
    );
    if !outcome.succeeded() {
        println!("Failed:");
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
        bail!(
            "{} call(s) failed; the calls marked done were made. Run `guildctl apply` again once the cause is fixed to finish",
            outcome.failures.len()
        );
    }
    if session.sandbox.is_some() {
        // In the sandbox, show that one apply converges.
        let after = Snapshot::fetch(&session.client, &session.guild_id).await?;
        match plan::diff_with(&loaded.manifest, &after, &target.plan_options()) {
            Ok(p) if p.is_empty() => println!("A fresh plan against the sandbox shows no changes."),
            Ok(p) => println!("A fresh plan still shows: {}", report::summary_line(&p)),
            Err(e) => println!("A fresh plan was refused: {e}"),
        }
    }
    Ok(0)
}

/// Writes `{"name": "url"}` for each created webhook to a file only its owner can
/// read: the URLs carry the webhooks' tokens.
fn write_webhook_urls(path: &Path, urls: &[(String, guildctl::discord::Secret)]) -> Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let map: serde_json::Map<String, serde_json::Value> = urls
        .iter()
        .map(|(name, url)| {
            (
                name.clone(),
                serde_json::Value::String(url.expose().to_owned()),
            )
        })
        .collect();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    // An existing file keeps its mode on open: make it private before writing.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(serde_json::to_string_pretty(&map)?.as_bytes())?;
    file.write_all(b"\n")?;
    eprintln!(
        "The URLs of {} new webhook(s) are in {} (readable by you alone); put them in your secret store.",
        urls.len(),
        path.display()
    );
    Ok(())
}

/// "guildctl apply" with the commit and its author, so each audit-log entry points
/// back to the change that caused it.
fn default_reason(manifest: &Path) -> String {
    let from_env = std::env::var("GITHUB_SHA").ok().map(|sha| {
        let actor = std::env::var("GITHUB_ACTOR").unwrap_or_default();
        (sha.chars().take(12).collect::<String>(), actor)
    });
    let from_git = || {
        let dir = manifest
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["log", "-1", "--format=%h%x09%an"])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
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
