//! Standard output, written in one place: [`out!`](crate::out), [`outln!`](crate::outln)
//! and [`write_all`]. A reader that leaves early (`guildctl plan | head -1`) closes the pipe;
//! Rust ignores SIGPIPE, so the next write fails with `BrokenPipe`, where `print!` would
//! panic. Here that write and every later one are dropped in silence, and the command
//! finishes its work and exits with its own code (docs/decisions.md, "A closed standard
//! output"). Any other failure (a full disk) also ends the output, and [`finish`] hands it
//! to `main`, which reports it: output lost is not success.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set at the first failed write: nothing more is written.
static ENDED: AtomicBool = AtomicBool::new(false);
/// The first failure that was not a closed pipe.
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);

/// Writes formatted text (what `out!` and `outln!` expand to).
pub fn print(args: fmt::Arguments<'_>) {
    write(|out| out.write_fmt(args));
}

/// Writes bytes made elsewhere (a manual page, a completion script).
pub fn write_all(bytes: &[u8]) {
    write(|out| out.write_all(bytes));
}

fn write(f: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>) {
    if ENDED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = f(&mut io::stdout().lock()) {
        end(e);
    }
}

fn end(e: io::Error) {
    ENDED.store(true, Ordering::Relaxed);
    if e.kind() != io::ErrorKind::BrokenPipe {
        let mut failed = FAILED.lock().unwrap_or_else(|p| p.into_inner());
        failed.get_or_insert(e);
    }
}

/// Flushes what is still buffered. The first write that failed other than on a closed
/// pipe, if any: `main` says so and exits 1.
pub fn finish() -> io::Result<()> {
    if !ENDED.load(Ordering::Relaxed)
        && let Err(e) = io::stdout().lock().flush()
    {
        end(e);
    }
    match FAILED.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
