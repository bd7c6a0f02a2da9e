//! `guildctl emulator`: serve the local Discord API, or make one hand change in a saved
//! sandbox guild (`emulator call`) for `drift` to find.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};

use discord_emulator::{EmulatorOptions, RunningEmulator};
use guildctl::discord::{Client, Token};
use guildctl::inert;

use super::{client_options, write_state};

#[derive(Args)]
pub struct EmulatorArgs {
    #[command(subcommand)]
    action: Option<EmulatorAction>,
    /// The loopback address to serve on.
    #[arg(long, default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    /// A saved emulator state (JSON) to start from.
    #[arg(long)]
    state: Option<PathBuf>,
}

pub async fn run(args: EmulatorArgs) -> Result<u8> {
    match args.action {
        Some(call) => emulator_call(call).await,
        None => {
            discord_emulator::run_cli(args.listen, args.state, |line| guildctl::outln!("{line}"))
                .await?;
            Ok(0)
        }
    }
}

#[derive(Subcommand)]
pub enum EmulatorAction {
    /// Make one Discord API call as a member of the saved sandbox guild, as if they had
    /// done it by hand in Discord (their permissions apply, the audit log records them
    /// and the reason), and save the guild back: a hand change for `drift` to find.
    /// Prints the response; webhook tokens in it are hidden.
    #[command(after_help = "Examples:
  # ferris, the owner, turns on slow mode in #general (ids as in an exported manifest)
  guildctl emulator call --state sandbox.json --as ferris --reason 'too busy' \\
    PATCH /channels/849074915901440000 '{\"rate_limit_per_user\": 30}'
  guildctl emulator call --state sandbox.json GET /guilds/849074769100800000/audit-logs
  # the same hand change in an emulator that is running (`guildctl emulator`), which
  # `guildctl watch` may be watching
  guildctl emulator call --emulator http://127.0.0.1:8787 --as ferris --reason 'too busy' \
    PATCH /channels/849074915901440000 '{\"rate_limit_per_user\": 30}'")]
    Call {
        /// The sandbox state (as `--sandbox-state` writes it); it must exist unless --new
        /// is given. Written back after a successful call.
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "emulator",
            conflicts_with = "emulator"
        )]
        state: Option<PathBuf>,
        /// Make the call in the emulator running at URL (`guildctl emulator` prints it),
        /// as the user, instead of in a saved state: it keeps the change.
        #[arg(long, value_name = "URL")]
        emulator: Option<String>,
        /// Start FILE from the emulator's default guild when it does not exist yet.
        #[arg(long)]
        new: bool,
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

/// `guildctl emulator call`: one API call as a member of the saved sandbox guild,
/// through the emulator's whole stack (permissions, audit log, rate limits), so a hand
/// change looks to `drift` as one made in Discord's app would.
async fn emulator_call(action: EmulatorAction) -> Result<u8> {
    let EmulatorAction::Call {
        state: file,
        emulator,
        new,
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
    let file = match (file, emulator) {
        (_, Some(url)) => {
            return running_call(
                &url,
                user.as_deref(),
                reason.as_deref(),
                method,
                &path,
                body,
            )
            .await;
        }
        (Some(file), None) => file,
        (None, None) => {
            bail!("name the sandbox state with --state, or a running emulator with --emulator")
        }
    };
    // A typo in the name must not quietly start a fresh guild beside the real one.
    if !file.exists() && !new {
        bail!(
            "the sandbox state {} does not exist: check the name, or pass --new to start it from the emulator's default guild",
            file.display()
        );
    }
    // Locked from before it is read until it is written back, as apply locks it.
    let writer = super::locks::Writer::from_env("guildctl emulator call")?;
    let _state_lock = super::locks::sandbox_state(&file, &writer).await?;
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
            inert::redact(&e.to_string()),
            file.display()
        )
    })?;
    after.tokens.retain(|t| t.token != token);
    write_state(&file, &after)?;
    if let Some(mut value) = response {
        hide_tokens(&mut value);
        guildctl::outln!("{}", inert::redact(&inert::json_pretty(&value)));
    }
    eprintln!(
        "{method} {} as {}: done; saved to {}",
        inert::redact(&path),
        inert::terminal(&name),
        file.display()
    );
    Ok(0)
}

/// `emulator call --emulator URL`: the call made in a running emulator, as `user` (a
/// token for them from its control endpoint, `POST /_emulator/tokens`).
async fn running_call(
    url: &str,
    user: Option<&str>,
    reason: Option<&str>,
    method: reqwest::Method,
    path: &str,
    body: Option<serde_json::Value>,
) -> Result<u8> {
    let base = url.trim_end_matches('/').trim_end_matches("/api/v10");
    let host = reqwest::Url::parse(base)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .ok_or_else(|| anyhow!("{url:?} is not an emulator's URL, like http://127.0.0.1:8787"))?;
    // Only an emulator on this machine: the token endpoint answers loopback names alone.
    if !matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]") {
        bail!("--emulator takes a loopback URL (http://127.0.0.1:PORT), not {url:?}");
    }
    let ask = serde_json::json!({ "user": user });
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{base}/_emulator/tokens"))
        .json(&ask)
        .send()
        .await
        .with_context(|| format!("no emulator answers at {base}"))?
        .error_for_status()
        .map_err(|e| {
            anyhow!(
                "the emulator at {base} refused a token for {}: {e}",
                user.unwrap_or("the owner")
            )
        })?
        .json()
        .await?;
    let token = answer["token"]
        .as_str()
        .ok_or_else(|| anyhow!("the emulator at {base} gave no token"))?;
    let client = Client::with_options(
        &format!("{base}/api/v10"),
        Token::new(token)?,
        client_options()?,
    )?;
    let response = client
        .send(method.clone(), path, body.as_ref(), reason)
        .await
        .map_err(|e| anyhow!("{}", inert::redact(&e.to_string())))?;
    if let Some(mut value) = response {
        hide_tokens(&mut value);
        guildctl::outln!("{}", inert::redact(&inert::json_pretty(&value)));
    }
    eprintln!(
        "{method} {} as {}: done",
        inert::redact(path),
        inert::terminal(user.unwrap_or("the owner"))
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
