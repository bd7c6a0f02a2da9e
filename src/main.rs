//! The `guildctl` command line: parses the arguments and hands each command to its
//! module in `commands/`.

#![forbid(unsafe_code)]

mod commands;

use std::process::ExitCode;

use anyhow::Result;
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::access::AccessArgs;
use commands::apply::ApplyArgs;
use commands::codeowners::CodeownersArgs;
use commands::drift::DriftArgs;
use commands::emulator::EmulatorArgs;
use commands::export::ExportArgs;
use commands::import::ImportArgs;
use commands::lockdown::LockdownArgs;
use commands::mcp::McpArgs;
use commands::plan::PlanArgs;
use commands::validate::ValidateArgs;
use commands::watch::WatchArgs;
use guildctl::inert;
use guildctl::manifest;

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
    Validate(ValidateArgs),
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
    Plan(PlanArgs),
    /// Make the guild match the manifest.
    #[command(after_help = "Examples:
  guildctl apply --sandbox -f examples/community.yaml --yes
  guildctl apply -f guild.yaml --plan plan.json --yes     # exactly the reviewed plan
  guildctl apply -f guild.yaml --webhook-urls ~/secrets/webhooks.json")]
    Apply(ApplyArgs),
    /// Report where the live guild differs from the manifest, who changed it, when and
    /// why (from the audit log), and unmanaged objects by risk. Needs only view_channel
    /// and view_audit_log; never writes. Exit 2 when something managed drifted or a
    /// high-risk object is not in the manifest.
    #[command(after_help = "Examples:
  guildctl drift -f guild.yaml
  guildctl drift -f guild.yaml --format markdown > drift.md
  guildctl drift -f guild.yaml --fail-on-unmanaged --audit-pages 20")]
    Drift(DriftArgs),
    /// Watch guilds on Discord's Gateway and tell every change within seconds: who made
    /// it, when and why (the audit-log entry as it is written), and each guild's drift from
    /// its manifest once its changes settle. Reads each guild once, then only after it
    /// changed; never writes. Runs until stopped. Needs view_audit_log.
    #[command(after_help = "Examples:
  guildctl watch -f guild.yaml
  guildctl watch --all --format json >> drift.jsonl
  guildctl watch --all --shard 0/2      # and --shard 1/2 on another machine")]
    Watch(WatchArgs),
    /// Who can do what, where: the matrix of roles × channels (who can view, send and
    /// manage), or a preview as some roles or one user; of the guild as the manifest would
    /// make it, or today's (--live). Reads only.
    #[command(after_help = "Examples:
  guildctl access --sandbox -f examples/community.yaml
  guildctl access -f guild.yaml --as Moderator,Member
  guildctl access -f guild.yaml --user 81384788765712384 --live
  guildctl access -f guild.yaml --channel 'Staff/*' --format markdown")]
    Access(AccessArgs),
    /// Pause joins (invites) and direct messages during a raid, for at most 24 hours, or
    /// lift the pause (Modify Guild Incident Actions). Sent with --reason as the
    /// audit-log reason; drift shows a lockdown in force.
    #[command(after_help = "Examples:
  guildctl lockdown --invites 6h --dms 6h --reason \"raid in #general\"
  guildctl lockdown --lift --reason \"raid over\"")]
    Lockdown(LockdownArgs),
    /// Serve read-only tools (validate, plan, access, drift, explain, schema) to an AI
    /// assistant over the Model Context Protocol on stdin/stdout (docs/mcp.md). Nothing it
    /// serves writes to Discord: changes stay reviewed pull requests.
    #[command(after_help = "Examples:
  guildctl mcp --sandbox                  # try it on the built-in emulator
  DISCORD_TOKEN=... guildctl mcp          # plan, access and drift read the live guild")]
    Mcp(McpArgs),
    /// Write a CODEOWNERS file from the workspace's `owners:` (guildctl.yaml): each
    /// delegated file to its teams, everything else (guildctl.yaml first) to the default
    /// owners. No network.
    #[command(after_help = "Examples:
  guildctl codeowners -o .github/CODEOWNERS
  guildctl codeowners --check .github/CODEOWNERS     # in CI: exit 1 when out of date")]
    Codeowners(CodeownersArgs),
    /// Write the live guild as a manifest.
    #[command(after_help = "Examples:
  guildctl export --guild 81384788765712384 -o guild.yaml
  guildctl export --sandbox")]
    Export(ExportArgs),
    /// Make a manifest from a Discord server template (no network).
    #[command(after_help = "Examples:
  guildctl import template template.json -o guild.yaml
  guildctl import template template.json > guild.yaml && guildctl validate -f guild.yaml")]
    Import(ImportArgs),
    /// For the GitHub Action: the plan comment, the drift issue, a plan's digest
    /// (docs/github.md).
    #[command(hide = true)]
    Github(guildctl::github::cli::GithubArgs),
    /// For the GitLab CI/CD component: the plan note, the drift issue, the reviewed plan
    /// (docs/gitlab.md).
    #[command(hide = true)]
    Gitlab(guildctl::gitlab::cli::GitlabArgs),
    /// Run the local Discord API emulator, or make a hand change in a saved sandbox
    /// guild (`emulator call`).
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:
  guildctl emulator                       # prints {\"api_base\",\"token\",\"guild_id\"} on one line
  guildctl emulator --listen 127.0.0.1:9000 --state saved.json
  guildctl emulator call --state sandbox.json --as ferris PATCH /channels/849074915901440000 '{\"rate_limit_per_user\": 30}'"
    )]
    Emulator(EmulatorArgs),
    /// Print a shell completion script.
    #[command(after_help = "Examples:
  guildctl completions bash > /etc/bash_completion.d/guildctl
  guildctl completions zsh > \"${fpath[1]}/_guildctl\"")]
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Write a manual page (roff) for every command into a folder, or print guildctl's own.
    #[command(after_help = "Examples:
  guildctl man --out-dir /usr/local/share/man/man1   # guildctl.1, guildctl-plan.1, ...
  guildctl man > guildctl.1")]
    Man {
        /// Write guildctl.1 and one page per command (guildctl-plan.1,
        /// guildctl-emulator-call.1, ...) into DIR, which must exist.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<std::path::PathBuf>,
    },
}

impl Command {
    fn connection_mut(&mut self) -> Option<&mut commands::Connection> {
        match self {
            Command::Plan(PlanArgs { target, .. })
            | Command::Apply(ApplyArgs { target, .. })
            | Command::Drift(DriftArgs { target, .. })
            | Command::Watch(WatchArgs { target, .. }) => Some(&mut target.conn),
            Command::Export(ExportArgs { conn, .. })
            | Command::Lockdown(LockdownArgs { conn, .. }) => Some(conn),
            Command::Access(args) => Some(args.connection_mut()),
            Command::Mcp(args) => Some(args.connection_mut()),
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
        Command::Emulator(_) => tokio::runtime::Runtime::new(),
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
    let result = runtime.block_on(run(cli));
    // Output a reader left early (`| head`) is not an error; output lost otherwise is.
    let written = guildctl::stdout::finish();
    match (result, written) {
        (Ok(code), Ok(())) => ExitCode::from(code),
        (Ok(_), Err(e)) => {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::from(1)
        }
        (Err(e), _) => {
            // Errors carry file names, names and servers' words: one inert line.
            eprintln!("error: {}", inert::terminal(&format!("{e:#}")));
            ExitCode::from(1)
        }
    }
}

async fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Validate(args) => commands::validate::run(args),
        Command::Schema => {
            guildctl::out!("{}", manifest::schema::schema_json());
            Ok(0)
        }
        Command::Plan(args) => commands::plan::run(args).await,
        Command::Apply(args) => commands::apply::run(args).await,
        Command::Drift(args) => commands::drift::run(args).await,
        Command::Watch(args) => commands::watch::run(args).await,
        Command::Access(args) => commands::access::run(args).await,
        Command::Export(args) => commands::export::run(args).await,
        Command::Lockdown(args) => commands::lockdown::run(args).await,
        Command::Mcp(args) => commands::mcp::run(args).await,
        Command::Import(args) => commands::import::run(args),
        Command::Codeowners(args) => commands::codeowners::run(args),
        Command::Github(args) => Ok(guildctl::github::cli::run(args).await?),
        Command::Gitlab(args) => Ok(guildctl::gitlab::cli::run(args).await?),
        Command::Emulator(args) => commands::emulator::run(args).await,
        Command::Man { out_dir } => commands::man::run(Cli::command(), out_dir.as_deref()),
        Command::Completions { shell } => {
            // clap_complete panics when its writer fails: it writes to memory.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "guildctl", &mut script);
            guildctl::stdout::write_all(&script);
            Ok(0)
        }
    }
}
