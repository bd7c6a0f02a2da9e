//! What a person sees on stderr while guildctl works: a progress bar for `apply` on a
//! terminal (the call in flight, an ETA), plain lines anywhere else, and one line each
//! time Discord's rate limit makes guildctl wait long enough to notice.
//!
//! Plain output (docs/rate-limits.md): one line per finished call, `[DONE/TOTAL] SUMMARY:
//! done|FAILED|skipped` (a failure's error on the next line, indented), and `waiting
//! 4.2 s for Discord's rate limit on METHOD /path` before a wait of a second or more.
//! No colour, no `\r`, no cursor movement. Nothing printed here ever holds a token:
//! webhook token segments of paths are replaced with `{token}` on the way out. Nor a
//! control character or a workflow command from a name or an error body: every line is
//! made inert ([`crate::inert::terminal`]) on the way out.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::time::Instant;

use crate::apply::{Progress, Status};
use crate::discord::ratelimit::Wait;
use crate::discord::time::human_duration;
use crate::inert;
use crate::inert::redact;

/// Waits shorter than this pass without a notice: below a second nobody wonders
/// whether guildctl hangs, and Discord's global limit alone causes many such waits.
pub const NOTICE_AFTER: Duration = Duration::from_secs(1);

/// Whether stderr should show a progress bar: it is a terminal that can redraw a line
/// (`TERM=dumb`, as in Emacs' shell, cannot).
pub fn stderr_wants_bar() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// Where progress lines and notices go: above the bar while one is drawn, else as
/// whole lines on a writer (stderr). Cheap to clone; safe to use from any task.
#[derive(Clone)]
pub struct Console {
    inner: Arc<Mutex<Inner>>,
    /// Waits shorter than this are not announced.
    notice_after: Duration,
}

struct Inner {
    bar: Option<ProgressBar>,
    plain: Box<dyn Write + Send>,
    /// The end of the last global wait announced: every request held by one global
    /// 429 reports it, and it is said once.
    global_until: Option<Instant>,
}

impl Console {
    /// Lines on stderr; waits of `notice_after` or more are announced.
    pub fn stderr(notice_after: Duration) -> Console {
        Console::to_writer(Box::new(std::io::stderr()), notice_after)
    }

    /// Lines on `out` (tests capture them).
    pub fn to_writer(out: Box<dyn Write + Send>, notice_after: Duration) -> Console {
        Console {
            inner: Arc::new(Mutex::new(Inner {
                bar: None,
                plain: out,
                global_until: None,
            })),
            notice_after,
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while printing leaves nothing half-done worth refusing to print after.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Prints one line (tokens redacted, inert), whole, whatever else prints at the same
    /// time.
    pub fn line(&self, text: &str) {
        let text = inert::terminal(&redact(text)).into_owned();
        let mut inner = self.inner();
        match &inner.bar {
            Some(bar) => bar.println(text),
            None => {
                // One write of the whole line under the lock: lines never interleave.
                let _ = inner.plain.write_all(format!("{text}\n").as_bytes());
                let _ = inner.plain.flush();
            }
        }
    }

    /// Announces a rate-limit wait that is long enough to notice, once.
    pub fn rate_limit_wait(&self, wait: Wait<'_>) {
        let left = wait.until.saturating_duration_since(Instant::now());
        if left < self.notice_after {
            return;
        }
        if wait.route.is_none() {
            let mut inner = self.inner();
            if inner.global_until == Some(wait.until) {
                return;
            }
            inner.global_until = Some(wait.until);
        }
        self.line(&wait_notice(wait.route.map(|r| r.key.as_str()), left));
    }

    fn set_bar(&self, bar: Option<ProgressBar>) {
        self.inner().bar = bar;
    }
}

/// `waiting 4.2 s for Discord's rate limit on PATCH /channels/123`, from a limiter
/// route key (`METHOD /path`, ids other than the major one as `:id`), or for the
/// global limit when there is no route.
pub fn wait_notice(route: Option<&str>, wait: Duration) -> String {
    let wait = human_duration(wait);
    match route {
        Some(route) => format!(
            "waiting {wait} for Discord's rate limit on {}",
            redact(&route.replace(":id", "{id}"))
        ),
        None => format!("waiting {wait} for Discord's global rate limit (every call waits)"),
    }
}

/// Shows `apply`'s progress: a bar with the calls in flight and an ETA on a terminal,
/// and on every output one line per finished call.
pub struct ApplyProgress {
    console: Console,
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    /// Calls in flight, oldest first, as (operation index, summary).
    running: Vec<(usize, String)>,
}

impl ApplyProgress {
    /// Starts showing the progress of `total` calls; with `bar`, a progress bar is
    /// drawn on stderr until [`ApplyProgress::finish`].
    pub fn new(console: &Console, total: usize, bar: bool) -> ApplyProgress {
        let bar = bar.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{bar:25}] {pos}/{len} calls, ETA {eta} · {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            // The spinner keeps turning through a long rate-limit wait: not hung.
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        console.set_bar(bar.clone());
        ApplyProgress {
            console: console.clone(),
            bar,
            total,
            done: 0,
            running: Vec::new(),
        }
    }

    /// Takes one event from [`crate::apply::apply`].
    pub fn event(&mut self, p: Progress<'_>) {
        if p.status == Status::Running {
            let summary = inert::terminal(&redact(&p.operation.summary)).into_owned();
            self.running.push((p.index, summary));
            self.show_running();
            return;
        }
        self.running.retain(|(i, _)| *i != p.index);
        let mark = match p.status {
            Status::Done => {
                self.done += 1;
                "done"
            }
            Status::Failed => "FAILED",
            _ => "skipped",
        };
        self.console.line(&format!(
            "[{}/{}] {}: {mark}",
            self.done, self.total, p.operation.summary
        ));
        if let Some(e) = p.error {
            self.console.line(&format!("        {e}"));
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.show_running();
    }

    fn show_running(&self) {
        let Some(bar) = &self.bar else { return };
        let message = match self.running.as_slice() {
            [] => String::new(),
            [(_, one)] => one.clone(),
            [.., (_, last)] => format!("{last} (+{} more)", self.running.len() - 1),
        };
        bar.set_message(message);
    }

    /// Clears the bar; later lines print plainly again.
    pub fn finish(self) {
        self.console.set_bar(None);
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discord::ratelimit::Route;

    #[test]
    fn webhook_tokens_are_redacted_and_ids_kept() {
        assert_eq!(
            redact("PATCH /webhooks/849074991398912000/Ab-c_d.e9"),
            "PATCH /webhooks/849074991398912000/{token}"
        );
        assert_eq!(
            redact(
                "see http://127.0.0.1:1/api/v10/webhooks/1/tok?wait=true and /webhooks/2/tok2/github"
            ),
            "see http://127.0.0.1:1/api/v10/webhooks/1/{token}?wait=true and /webhooks/2/{token}/github"
        );
        assert_eq!(
            redact("POST /interactions/5/secret/callback"),
            "POST /interactions/5/{token}/callback"
        );
        // Bot routes hold no token and stay as they are.
        for plain in [
            "PATCH /webhooks/849074991398912000",
            "GET /channels/1/webhooks",
            "GET /guilds/1/webhooks/",
            "/webhooks/1/{token}",
            "webhooks/",
        ] {
            assert_eq!(redact(plain), plain);
        }
    }

    #[test]
    fn notices_name_the_route_without_its_token() {
        let route = Route::of(&reqwest::Method::PATCH, "/guilds/9/roles/10");
        assert_eq!(
            wait_notice(Some(&route.key), Duration::from_millis(4_150)),
            "waiting 4.2 s for Discord's rate limit on PATCH /guilds/9/roles/{id}"
        );
        let token_route = Route::of(&reqwest::Method::PATCH, "/webhooks/7/s3cr3t-token");
        let notice = wait_notice(Some(&token_route.key), Duration::from_secs(2));
        assert_eq!(
            notice,
            "waiting 2.0 s for Discord's rate limit on PATCH /webhooks/7/{token}"
        );
        assert_eq!(
            wait_notice(None, Duration::from_secs(75)),
            "waiting 1 min 15 s for Discord's global rate limit (every call waits)"
        );
    }

    /// A writer tests can read back.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn short_waits_pass_silently_and_a_global_wait_is_said_once() {
        let out = Captured::default();
        let console = Console::to_writer(Box::new(out.clone()), NOTICE_AFTER);
        let route = Route::of(&reqwest::Method::PATCH, "/channels/42");
        let now = Instant::now();
        console.rate_limit_wait(Wait {
            route: Some(&route),
            until: now + Duration::from_millis(999),
        });
        assert_eq!(out.text(), "", "under a second: no notice");
        console.rate_limit_wait(Wait {
            route: Some(&route),
            until: now + Duration::from_millis(4_200),
        });
        // Eight requests held by one global 429, then a second one.
        for _ in 0..8 {
            console.rate_limit_wait(Wait {
                route: None,
                until: now + Duration::from_secs(3),
            });
        }
        console.rate_limit_wait(Wait {
            route: None,
            until: now + Duration::from_secs(5),
        });
        assert_eq!(
            out.text(),
            "waiting 4.2 s for Discord's rate limit on PATCH /channels/42\n\
             waiting 3.0 s for Discord's global rate limit (every call waits)\n\
             waiting 5.0 s for Discord's global rate limit (every call waits)\n"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_bucket_wait_is_told_by_the_request_that_sleeps_not_those_queued_behind_it() {
        use crate::discord::ratelimit::{Limiter, WaitHook};
        let out = Captured::default();
        let console = Console::to_writer(Box::new(out.clone()), NOTICE_AFTER);
        let limiter = Arc::new(Limiter::new(50, Duration::from_secs(1), 100));
        let notices = console.clone();
        limiter.on_wait(WaitHook(Arc::new(move |w| notices.rate_limit_wait(w))));
        let route = Route::of(&reqwest::Method::PATCH, "/channels/42");
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-ratelimit-remaining", "0".parse().unwrap());
        headers.insert("x-ratelimit-reset-after", "2.5".parse().unwrap());
        let mut permit = limiter.acquire(&route).await;
        limiter.update(&route, &mut permit, &headers);
        drop(permit);
        let queued: Vec<_> = (0..4)
            .map(|_| {
                let (limiter, route) = (limiter.clone(), route.clone());
                tokio::spawn(async move { drop(limiter.acquire(&route).await) })
            })
            .collect();
        for q in queued {
            q.await.unwrap();
        }
        assert_eq!(
            out.text(),
            "waiting 2.5 s for Discord's rate limit on PATCH /channels/42\n"
        );
    }

    #[test]
    fn plain_progress_is_one_line_per_finished_call() {
        let out = Captured::default();
        let console = Console::to_writer(Box::new(out.clone()), NOTICE_AFTER);
        let op = |summary: &str| crate::plan::Operation {
            route: crate::discord::Route::UpdateWebhook {
                webhook: crate::plan::IdRef::Live("1".into()),
            },
            body: None,
            creates: None,
            reason: None,
            summary: summary.into(),
            change: 0,
            after: Vec::new(),
            stage: 0,
        };
        let (a, b) = (op("update role A"), op("move webhook /webhooks/1/tok"));
        let mut shown = ApplyProgress::new(&console, 2, false);
        let event = |index, operation, status| Progress {
            index,
            total: 2,
            operation,
            status,
            error: None,
        };
        shown.event(event(0, &a, Status::Running));
        shown.event(event(1, &b, Status::Running));
        shown.event(event(0, &a, Status::Done));
        shown.event(event(1, &b, Status::Skipped));
        shown.finish();
        let text = out.text();
        assert_eq!(
            text,
            "[1/2] update role A: done\n[1/2] move webhook /webhooks/1/{token}: skipped\n"
        );
        assert!(!text.contains('\r') && !text.contains('\u{1b}'));
    }
}
