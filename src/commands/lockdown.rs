//! `guildctl lockdown`: pause joins and DMs during a raid, or lift the pause. An
//! imperative command, sent with an audit-log reason like apply's.

use anyhow::{Result, bail};
use clap::Args;

use guildctl::inert;
use guildctl::lockdown::{self, Action};

use super::Connection;

#[derive(Args)]
pub struct LockdownArgs {
    #[command(flatten)]
    pub conn: Connection,
    /// Pause joins through invites for this long (`6h`, `90m`; at most 24h).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    invites: Option<u64>,
    /// Pause direct messages between members for this long (at most 24h).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    dms: Option<u64>,
    /// End both pauses now.
    #[arg(long, conflicts_with_all = ["invites", "dms"])]
    lift: bool,
    /// The audit-log reason, required: who locked the guild down and why.
    #[arg(long)]
    reason: String,
}

fn duration(s: &str) -> Result<u64, String> {
    lockdown::parse_duration(s).map_err(|e| e.to_string())
}

pub async fn run(args: LockdownArgs) -> Result<u8> {
    let LockdownArgs {
        conn,
        invites,
        dms,
        lift,
        reason,
    } = args;
    let action = if lift {
        Action::Lift
    } else {
        Action::Pause {
            invites_secs: invites,
            dms_secs: dms,
        }
    };
    if reason.trim().is_empty() {
        bail!("--reason must say why (it goes to the audit log)");
    }
    // Refused before connecting: nothing to send.
    lockdown::body(&action, 0)?;
    // It writes a sandbox state back: locked from before it is read. A live guild is
    // not locked: a raid's lockdown never waits behind an apply, whose calls it does
    // not touch.
    let mut conn = conn;
    if conn.sandbox_state.is_some() {
        conn.writer = Some(super::locks::Writer::from_env("guildctl lockdown")?);
    }
    let session = conn.open(None).await?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let data = lockdown::run(&session.client, &session.guild_id, &action, &reason, now_ms).await?;
    let show = |key: &str| match data.get(key).and_then(|v| v.as_str()) {
        Some(t) => format!("paused until {}", inert::terminal(t)),
        None => "not paused".to_owned(),
    };
    guildctl::outln!(
        "Guild {}: joins (invites) {}; DMs {}.",
        session.guild_id,
        show("invites_disabled_until"),
        show("dms_disabled_until")
    );
    session.save_sandbox(&conn)?;
    Ok(0)
}
