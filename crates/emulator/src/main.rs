//! `discord-emulator [--listen ADDR] [--state FILE.json]`: serves the emulated
//! Discord API on a loopback address until interrupted. The first line on stdout
//! is JSON with `api_base`, `token` and `guild_id`.

#![forbid(unsafe_code)]

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: discord-emulator [--listen 127.0.0.1:8787] [--state FILE.json]";

#[tokio::main]
async fn main() -> ExitCode {
    let mut listen = SocketAddr::from(([127, 0, 0, 1], 8787));
    let mut state = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--listen", Some(v)) => match v.parse() {
                Ok(addr) => listen = addr,
                Err(e) => return fail(&format!("--listen {v}: {e}")),
            },
            ("--state", Some(v)) => state = Some(PathBuf::from(v)),
            _ => return fail(USAGE),
        }
    }
    // A reader that left (`| head -1`) does not stop the server: the line is dropped,
    // never a panic.
    let announce = |line: &str| {
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    };
    match discord_emulator::run_cli(listen, state, announce).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("discord-emulator: {message}");
    ExitCode::from(2)
}
