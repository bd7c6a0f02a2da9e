//! SIGINT (Ctrl-C) and SIGTERM while apply makes its calls (docs/safety.md,
//! "Interrupting apply"). The first stops the client: no new call starts, the calls
//! already sent finish (each within the client's per-request timeout), and apply ends
//! with its summary, exit code 130. The second ends the process at once.
//!
//! The watch starts just before the first write: until then the signals keep their
//! default, which ends the process at once, as nothing has been changed yet (a
//! confirmation prompt answers Ctrl-C at once too).

use std::path::Path;

use anyhow::{Context, Result};
use tokio::signal::unix::{SignalKind, signal};

use guildctl::discord::Client;
use guildctl::discord::time::human_duration;
use guildctl::progress::Console;

use super::{EXIT_INTERRUPTED, client_options};

/// Watches for SIGINT and SIGTERM until the process ends, stopping `clients` (each bot's)
/// at the first and exiting at the second. `sandbox_state`: the state file an apply writes
/// back, which an exit at once leaves as it was.
pub(crate) fn watch<'a>(
    clients: impl IntoIterator<Item = &'a Client>,
    console: &Console,
    sandbox_state: Option<&Path>,
) -> Result<()> {
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch for Ctrl-C")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot watch for SIGTERM")?;
    let bound = human_duration(client_options()?.timeout);
    let clients: Vec<Client> = clients.into_iter().cloned().collect();
    let console = console.clone();
    let kept = match sandbox_state {
        Some(path) => format!(
            "; {} keeps the state it had before this apply",
            path.display()
        ),
        None => String::new(),
    };
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            if first {
                first = false;
                clients.iter().for_each(Client::stop);
                console.line(&format!(
                    "Interrupted ({name}): no new call starts; the calls already sent finish, each within {bound}. Interrupt again to stop at once."
                ));
                continue;
            }
            console.line(&format!(
                "Interrupted again ({name}): stopping at once. The calls in flight may or may not have been made; run `guildctl apply` again to finish{kept}."
            ));
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    });
    Ok(())
}
