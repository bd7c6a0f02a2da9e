//! Bounded reads (docs/rate-limits.md, "Bounds"): a response body larger than the
//! client's cap is refused while it streams in, and every retry path ends within its
//! count and the call's deadline, with an error that names the call. All over HTTP
//! against the emulator, whose `oversized_body` fault streams a body of any size and
//! whose `storm_429` fault answers 429 for as long as a test likes.

use crate::common;

use std::time::{Duration, Instant};

use common::{Harness, example};
use discord_emulator::state::{AuditChange, AuditEntry, State};
use discord_emulator::{
    FaultKind, FaultRule, FaultSet, LargeStateOptions, Oversized, Scope, Storm, large_state,
};
use discord_permissions::Permissions;
use guildctl::discord::{Client, ClientError, ClientOptions, Token};
use guildctl::snapshot::Snapshot;
use reqwest::Method;

/// The reads guildctl makes of a guild (`Snapshot::fetch`, and drift's audit-log page).
fn reads(h: &Harness) -> Vec<String> {
    let g = &h.emu.guild_id;
    let bot = h.emu.state().bot_user_id;
    vec![
        "/users/@me".into(),
        format!("/guilds/{g}"),
        format!("/guilds/{g}/channels"),
        format!("/guilds/{g}/members/{bot}"),
        format!("/guilds/{g}/welcome-screen"),
        format!("/guilds/{g}/onboarding"),
        format!("/guilds/{g}/webhooks"),
        format!("/guilds/{g}/audit-logs?limit=100"),
    ]
}

/// The size in bytes of the emulator's answer to each of [`reads`].
async fn sizes(h: &Harness) -> Vec<(String, usize)> {
    let http = reqwest::Client::new();
    let mut out = Vec::new();
    for path in reads(h) {
        let resp = http
            .get(format!("{}{path}", h.emu.api_base))
            .header("Authorization", format!("Bot {}", h.emu.token))
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        out.push((path, resp.bytes().await.unwrap().len()));
    }
    out
}

/// A guild at Discord's limits and then some: `large_state`'s 250 roles, 500 channels,
/// 1,000 webhooks and 750 onboarding options, with every name at its longest, every
/// topic at 1,024 characters, every channel carrying `overwrites` overwrites (250: one
/// per role; 1,000: Discord's most, the other 750 for members) with every known
/// permission bit allowed and denied, and 100 audit-log entries that each replace a
/// channel's overwrites with a 512-character reason. Far beyond any real guild.
fn densest_guild(overwrites: usize) -> State {
    let mut st = large_state(LargeStateOptions::default());
    let g = &mut st.guilds[0];
    let long = |s: &str, n: usize| format!("{s}{}", "x".repeat(n.saturating_sub(s.len())));
    for r in &mut g.roles {
        r.name = long(&r.name, 100);
    }
    let every_bit = Permissions(Permissions::known_mask());
    let targets = g
        .roles
        .iter()
        .map(|r| (&r.id, 0))
        .chain(g.members.iter().map(|m| (&m.user_id, 1)));
    let list: Vec<_> = targets
        .take(overwrites)
        .map(|(id, kind)| discord_emulator::state::Overwrite {
            id: id.clone(),
            kind,
            allow: every_bit,
            deny: every_bit,
        })
        .collect();
    assert_eq!(list.len(), overwrites);
    for c in &mut g.channels {
        c.name = long(&c.name, 100);
        c.permission_overwrites = list.clone();
        if matches!(c.kind, 0 | 5) {
            // Two bytes a character in UTF-8: 2 KiB of topic.
            c.topic = Some("é".repeat(1024));
        }
    }
    for w in &mut g.webhooks {
        w.name = long(&w.name, 80);
    }
    for p in &mut g.onboarding.prompts {
        p.title = long(&p.title, 100);
        for opt in &mut p.options {
            opt.title = long(&opt.title, 50);
            opt.description = Some("d".repeat(100));
        }
    }
    let as_json = serde_json::to_value(&list).unwrap();
    let channel = g.channels[0].id.clone();
    let owner = g.owner_id.clone();
    for i in 0..100u64 {
        g.audit_log.push(AuditEntry {
            id: (1_300_000_000_000_000_000 + i).to_string(),
            action_type: 11,
            user_id: Some(owner.clone()),
            target_id: Some(channel.clone()),
            changes: vec![AuditChange {
                key: "permission_overwrites".into(),
                old_value: Some(as_json.clone()),
                new_value: Some(as_json.clone()),
            }],
            options: None,
            reason: Some("r".repeat(512)),
        });
    }
    st
}

/// The largest of the answers to [`reads`] for `state`, after checking that guildctl's
/// client reads the whole guild through the default cap.
async fn largest_read(what: &str, state: State) -> usize {
    let h = Harness::with_state(Some(state)).await;
    let mut largest = 0;
    for (path, n) in sizes(&h).await {
        eprintln!("{what}: GET {path}: {n} bytes");
        largest = largest.max(n);
    }
    let c = h.client();
    let snap = Snapshot::fetch(&c, &h.emu.guild_id)
        .await
        .expect("snapshot");
    assert_eq!(snap.guild.roles.len(), 250);
    assert_eq!(snap.channels.len(), 500);
    assert_eq!(snap.webhooks.as_ref().map(Vec::len), Some(1000));
    let page = format!("/guilds/{}/audit-logs?limit=100", h.emu.guild_id);
    let _: serde_json::Value = c.get(&page).await.expect("an audit-log page");
    largest
}

#[tokio::test]
async fn a_guild_at_discords_limits_reads_far_below_the_body_cap() {
    let cap = ClientOptions::default().max_body_bytes;
    let generated = largest_read("large_state", large_state(LargeStateOptions::default())).await;
    let dense = largest_read("250 overwrites a channel", densest_guild(250)).await;
    eprintln!("largest: {generated} and {dense} bytes; cap {cap} bytes");
    // The documented margin: a guild at Discord's limits, every channel with an
    // overwrite for every role, stays under a quarter of the cap.
    assert!(generated < dense);
    assert!(dense * 4 <= cap, "{dense} bytes is too near the cap");
}

/// Discord's most overwrites (1,000) on each of 500 channels still fits under the cap.
/// About 40 s in a debug build: run with `-- --ignored` when the cap or the models change.
#[tokio::test]
#[ignore = "slow: measures the overwrite ceiling"]
async fn even_discords_most_overwrites_on_every_channel_fit_under_the_cap() {
    let cap = ClientOptions::default().max_body_bytes;
    let ceiling = largest_read("1000 overwrites a channel", densest_guild(1000)).await;
    eprintln!("largest: {ceiling} bytes; cap {cap} bytes");
    assert!(ceiling < cap, "{ceiling} bytes is over the cap");
}

/// Serves a `bytes`-byte body to every `GET /guilds/*/channels`, announced or not.
fn oversize(h: &Harness, bytes: u64, content_length: bool) {
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "GET".into(),
                path: "/guilds/*/channels".into(),
                probability: 1.0,
                kind: FaultKind::OversizedBody(Oversized {
                    bytes,
                    content_length,
                }),
            }],
        })
        .unwrap();
}

const MB200: u64 = 200_000_000;

#[tokio::test]
async fn a_200_mb_body_is_refused_with_an_error_naming_the_call_and_the_cap() {
    let h = Harness::start().await;
    let c = h.client();
    let path = format!("/guilds/{}/channels", h.emu.guild_id);
    for announced in [true, false] {
        oversize(&h, MB200, announced);
        h.emu.clear_requests();
        let start = Instant::now();
        let e = c
            .get::<serde_json::Value>(&path)
            .await
            .expect_err("a 200 MB body is refused");
        let took = start.elapsed();
        match &e {
            ClientError::BodyTooLarge {
                method,
                path: p,
                cap,
                announced: a,
            } => {
                assert_eq!((method, p.as_str()), (&Method::GET, path.as_str()));
                assert_eq!(*cap, 64 << 20);
                assert_eq!(*a, announced.then_some(MB200));
            }
            other => panic!("announced {announced}: {other:?}"),
        }
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "GET {path}: the response is larger than the 64 MiB guildctl reads"
            )),
            "{text}"
        );
        assert!(text.contains("GUILDCTL_API_BASE"), "{text}");
        // Refused once, not retried: a body that large is no passing fault.
        let asked = h
            .requests()
            .iter()
            .filter(|r| r.path.ends_with(&path))
            .count();
        assert_eq!(asked, 1, "announced {announced}");
        eprintln!("announced {announced}: refused in {took:?}");
    }
    // A smaller cap is the caller's to choose, and a body under it reads as usual.
    let small = h.client_with(ClientOptions {
        max_body_bytes: 1000,
        ..ClientOptions::default()
    });
    h.emu.clear_faults();
    let e = small.get::<serde_json::Value>(&path).await.unwrap_err();
    assert!(e.to_string().contains("larger than the 1000 bytes"), "{e}");
    assert!(small.get::<serde_json::Value>("/users/@me").await.is_ok());
}

#[tokio::test]
async fn a_webhook_token_in_a_refused_path_is_not_shown() {
    let h = Harness::start().await;
    let c = h.client();
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "GET".into(),
                path: "/webhooks/*/*".into(),
                probability: 1.0,
                kind: FaultKind::OversizedBody(Oversized {
                    bytes: MB200,
                    content_length: false,
                }),
            }],
        })
        .unwrap();
    let e = c
        .get::<serde_json::Value>("/webhooks/123/secret-token-value")
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("GET /webhooks/123/{token}: "), "{text}");
    assert!(!text.contains("secret-token-value"), "{text}");
}

/// Data memory (`RLIMIT_DATA`: heap and private writable mappings) a `plan` may use
/// here: less than a 200 MB body, more than the 64 MiB cap with room to spare.
const DATA_LIMIT: u64 = 192_000_000;

/// Runs `guildctl ARGS` against the harness's emulator with its data memory limited to
/// [`DATA_LIMIT`]: a process that tries to hold more is killed by the allocator (no exit
/// code). The exit code, and stderr.
// The one unsafe call: setting the child's data limit between fork and exec (below).
#[allow(unsafe_code)]
async fn run_limited(h: &Harness, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_guildctl"));
    cmd.args(args)
        .env("DISCORD_TOKEN", &h.emu.token)
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_GUILD", &h.emu.guild_id)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .current_dir(h.dir.path());
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent's.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: DATA_LIMIT as libc::rlim_t,
                rlim_max: DATA_LIMIT as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn plan_stops_at_a_200_mb_body_without_holding_it() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    let path = format!("/guilds/{}/channels", h.emu.guild_id);
    for announced in [true, false] {
        oversize(&h, MB200, announced);
        // Under a memory limit smaller than the body, the run ends as it should.
        let (code, stderr) = run_limited(&h, &["plan", "-f", m], &[]).await;
        assert_eq!(code, Some(1), "announced {announced}: {stderr}");
        let expected = format!(
            "error: reading the live guild: GET {path}: the response is larger than the 64 MiB guildctl reads"
        );
        assert!(stderr.contains(&expected), "{stderr}");
        let writes = h.writes();
        assert!(writes.is_empty(), "{writes:?}");
        // The limit is real: with the cap raised past the body, the same run is killed
        // trying to hold it.
        let (code, stderr) =
            run_limited(&h, &["plan", "-f", m], &[("GUILDCTL_MAX_BODY_MB", "256")]).await;
        assert_eq!(
            code, None,
            "announced {announced}: the whole body fit?\n{stderr}"
        );
        assert!(stderr.contains("memory allocation"), "{stderr}");
    }
}

/// A fault answering every request 429 (of `scope`, asking for `retry_after` real
/// seconds), without end.
fn endless_429(scope: Scope, retry_after: f64) -> FaultSet {
    FaultSet {
        seed: Some(1),
        rules: vec![FaultRule {
            method: "*".into(),
            path: "/**".into(),
            probability: 1.0,
            kind: FaultKind::Storm429(Storm {
                count: u32::MAX,
                retry_after,
                scope,
            }),
        }],
    }
}

#[tokio::test]
async fn an_endless_429_of_any_scope_stops_after_its_retries() {
    for scope in [Scope::Shared, Scope::Global, Scope::User] {
        let h = Harness::start().await;
        let c = h.client();
        h.emu.set_faults(endless_429(scope, 0.001)).unwrap();
        let start = Instant::now();
        let e = c
            .get::<serde_json::Value>("/users/@me")
            .await
            .expect_err("an endless 429 ends");
        let took = start.elapsed();
        match &e {
            ClientError::GaveUp {
                method, path, why, ..
            } => {
                assert_eq!((method, path.as_str()), (&Method::GET, "/users/@me"));
                assert_eq!(*why, guildctl::discord::GaveUp::RateLimited { tries: 11 });
            }
            other => panic!("{scope:?}: {other:?}"),
        }
        let text = e.to_string();
        assert!(
            text.starts_with("GET /users/@me: gave up after 11 tries, each answered 429 (the last answer: 429 Too Many Requests"),
            "{text}"
        );
        assert!(text.contains("wait a few minutes and run again"), "{text}");
        // The first try and ten retries, then nothing more.
        let sent = h.requests().len();
        assert_eq!(sent, 11, "{scope:?}");
        assert!(took < Duration::from_secs(5), "{scope:?}: {took:?}");
        if scope == Scope::Shared {
            assert!(text.contains("scope shared"), "{text}");
            // A shared 429 is no invalid request: the budget alone never ended this.
            assert_eq!(c.invalid_responses(), 0);
        } else {
            assert_eq!(c.invalid_responses(), 11, "{scope:?}");
        }
    }
}

#[tokio::test]
async fn plan_stops_at_an_endless_shared_429_naming_the_call() {
    let h = Harness::start().await;
    h.emu.set_faults(endless_429(Scope::Shared, 0.001)).unwrap();
    let run = h
        .run(&["plan", "-f", example("community.yaml").to_str().unwrap()])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("GET /users/@me: gave up after 11 tries, each answered 429 (the last answer: 429 Too Many Requests, scope shared"),
        "{}",
        run.stderr
    );
    assert_eq!(h.requests().len(), 11);
}

#[tokio::test]
async fn server_errors_timeouts_and_dropped_connections_stop_after_their_retries() {
    for kind in [
        FaultKind::Status(503),
        FaultKind::Timeout,
        FaultKind::DropBefore,
    ] {
        let h = Harness::start().await;
        let c = h.client_with(ClientOptions {
            timeout: Duration::from_millis(100),
            backoff: Duration::from_millis(5),
            ..ClientOptions::default()
        });
        h.emu
            .set_faults(FaultSet {
                seed: Some(1),
                rules: vec![FaultRule {
                    method: "*".into(),
                    path: "/**".into(),
                    probability: 1.0,
                    kind: kind.clone(),
                }],
            })
            .unwrap();
        let e = c.get::<serde_json::Value>("/users/@me").await.unwrap_err();
        match &e {
            ClientError::GaveUp { path, why, .. } => {
                assert_eq!(path, "/users/@me");
                assert_eq!(*why, guildctl::discord::GaveUp::Failing { tries: 5 });
            }
            other => panic!("{kind:?}: {other:?}"),
        }
        let text = e.to_string();
        assert!(
            text.starts_with(
                "GET /users/@me: gave up after 5 tries, each failing (the last answer: "
            ),
            "{text}"
        );
        assert!(text.contains("run again later"), "{text}");
        // A hanging request is logged only once the emulator gives up on it.
        if kind != FaultKind::Timeout {
            assert_eq!(h.requests().len(), 5, "{kind:?}");
        }
    }
}

#[tokio::test]
async fn a_call_ends_at_its_deadline_whatever_keeps_it_waiting() {
    let options = |deadline_ms| ClientOptions {
        deadline: Duration::from_millis(deadline_ms),
        // Only the deadline is to end these calls.
        max_rate_limited: 1000,
        max_retries: 1000,
        backoff: Duration::from_millis(5),
        ..ClientOptions::default()
    };
    let deadline_of = |e: &ClientError| match e {
        ClientError::GaveUp {
            why: guildctl::discord::GaveUp::Deadline { deadline, wait },
            ..
        } => (*deadline, *wait),
        other => panic!("{other:?}"),
    };

    // 429s asking for 0.2 s each, without end: the call ends at its deadline of 1 s.
    let h = Harness::start().await;
    let c = h.client_with(options(1000));
    h.emu.set_faults(endless_429(Scope::Shared, 0.2)).unwrap();
    let start = Instant::now();
    let e = c.get::<serde_json::Value>("/users/@me").await.unwrap_err();
    let took = start.elapsed();
    let (deadline, wait) = deadline_of(&e);
    assert_eq!(deadline, Duration::from_secs(1));
    assert_eq!(
        wait,
        Some(Duration::from_millis(200)),
        "the wait that would pass it"
    );
    assert!(took >= Duration::from_millis(750), "{took:?}");
    assert!(took <= Duration::from_millis(1500), "{took:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("GET /users/@me: gave up: Discord asked to wait 0.2 s, past the call's deadline of 1.0 s (the last answer: 429 Too Many Requests, scope shared"),
        "{text}"
    );
    assert!(
        (3..=6).contains(&h.requests().len()),
        "{:?}",
        h.requests().len()
    );

    // A 429 asking for longer than the deadline leaves ends the call at once.
    let h = Harness::start().await;
    let c = h.client_with(options(1000));
    h.emu.set_faults(endless_429(Scope::Global, 30.0)).unwrap();
    let start = Instant::now();
    let e = c.get::<serde_json::Value>("/users/@me").await.unwrap_err();
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(deadline_of(&e).1, Some(Duration::from_secs(30)));
    assert!(
        e.to_string()
            .contains("Discord asked to wait 30 s, past the call's deadline of 1.0 s"),
        "{e}"
    );
    assert_eq!(h.requests().len(), 1);

    // A request that hangs is cut at the deadline, though its own timeout is longer.
    let h = Harness::start().await;
    let c = h.client_with(ClientOptions {
        timeout: Duration::from_secs(30),
        ..options(500)
    });
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "*".into(),
                path: "/**".into(),
                probability: 1.0,
                kind: FaultKind::Timeout,
            }],
        })
        .unwrap();
    let start = Instant::now();
    let e = c.get::<serde_json::Value>("/users/@me").await.unwrap_err();
    let took = start.elapsed();
    assert_eq!(deadline_of(&e), (Duration::from_millis(500), None));
    assert!(
        took >= Duration::from_millis(450) && took <= Duration::from_millis(1000),
        "{took:?}"
    );
    assert!(
        e.to_string()
            .starts_with("GET /users/@me: gave up at the call's deadline of 0.5 s"),
        "{e}"
    );
}

#[tokio::test]
async fn the_deadline_runs_on_the_apis_clock() {
    // guildctl's default deadline is 15 minutes of the API's time: at 1000× speed,
    // 0.9 s. 429s asking for 0.2 s each end the call there, well before its ten retries.
    let h = Harness::start().await;
    h.emu.set_faults(endless_429(Scope::Shared, 0.2)).unwrap();
    let start = Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["plan", "-f", example("community.yaml").to_str().unwrap()])
        .env("DISCORD_TOKEN", &h.emu.token)
        .env("GUILDCTL_API_BASE", &h.emu.api_base)
        .env("GUILDCTL_GUILD", &h.emu.guild_id)
        .env("GUILDCTL_CLOCK_SCALE", "1000")
        .output()
        .await
        .unwrap();
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Which end comes depends on the machine's speed: a wait that would pass the deadline is
    // refused, or a wait that fitted ends with no time left to send the next request.
    assert!(
        stderr.contains("GET /users/@me: gave up: Discord asked to wait 0.2 s, past the call's deadline of 0.9 s")
            || stderr.contains("GET /users/@me: gave up at the call's deadline of 0.9 s (the last answer: no time left to send it)"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(
        (3..=6).contains(&h.requests().len()),
        "{}",
        h.requests().len()
    );
}

// The CDN's reads are bounded too, and nothing is followed elsewhere (issue 30, point 6).
// The emulator's faults answer only its API routes, so a small server on loopback plays
// the hostile origin: its CDN streams 100 MB, announced or not, and its API and CDN answer
// with redirects to a second server that counts whoever comes.

const MB100: u64 = 100_000_000;

/// Counts the bytes allocated and not yet freed by each thread, and their peak: a
/// `#[tokio::test]` runs the client and its connection on its one thread, so the peak
/// during a call is what that call held, whatever other tests allocate meanwhile.
struct PerThread;

thread_local! {
    static LIVE: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
    static PEAK: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

fn counted(delta: i64) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is passed to the system allocator as it came.
#[allow(unsafe_code)] // a global allocator has no safe form
unsafe impl std::alloc::GlobalAlloc for PerThread {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        counted(layout.size() as i64);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        counted(-(layout.size() as i64));
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        counted(new as i64 - layout.size() as i64);
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOCATOR: PerThread = PerThread;

/// The most this thread held above what it held at [`Held::start`].
struct Held(i64);

impl Held {
    fn start() -> Held {
        let live = LIVE.with(std::cell::Cell::get);
        PEAK.with(|p| p.set(live));
        Held(live)
    }

    fn peak(&self) -> u64 {
        u64::try_from(PEAK.with(std::cell::Cell::get) - self.0).unwrap_or(0)
    }
}

/// The hostile origin: what its CDN sent before the client hung up, and how many requests
/// reached the server its redirects point to.
struct Hostile {
    api_base: String,
    sent: std::sync::Arc<std::sync::atomic::AtomicU64>,
    followed: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

async fn hostile() -> Hostile {
    use axum::body::Body;
    use axum::extract::Path as AxPath;
    use axum::http::{StatusCode, header};
    use axum::response::{IntoResponse, Response};
    use futures_util::StreamExt;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    let followed = Arc::new(AtomicU64::new(0));
    let counted = followed.clone();
    let elsewhere = serve(axum::Router::new().fallback(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        async { "you followed a redirect" }
    }))
    .await;
    let sent = Arc::new(AtomicU64::new(0));
    let sent_by_cdn = sent.clone();
    let redirect =
        move |to: String| (StatusCode::FOUND, [(header::LOCATION, to)], "moved").into_response();
    let to_api = format!("{elsewhere}/api/v10/users/@me?token=webhooks/1/stolen-secret");
    let to_cdn = format!("{elsewhere}/image.png");
    let app = axum::Router::new()
        .route(
            "/api/v10/{*rest}",
            axum::routing::any(move || {
                let r = redirect(to_api.clone());
                async move { r }
            }),
        )
        .route(
            "/cdn/{kind}/{id}/{file}",
            axum::routing::get(
                move |AxPath((_, _, file)): AxPath<(String, String, String)>| {
                    let sent = sent_by_cdn.clone();
                    let to_cdn = to_cdn.clone();
                    async move {
                        if file.starts_with("redirect") {
                            return (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, to_cdn)])
                                .into_response();
                        }
                        // 100 MB in 64 KiB chunks, each counted as it is handed to the socket.
                        let chunk = bytes::Bytes::from(vec![0u8; 64 * 1024]);
                        let chunks = MB100.div_ceil(chunk.len() as u64);
                        let stream = futures_util::stream::iter(0..chunks).map(move |_| {
                            sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                            Ok::<_, std::io::Error>(chunk.clone())
                        });
                        let mut resp = Response::new(Body::from_stream(stream));
                        if file.starts_with("announced") {
                            resp.headers_mut()
                                .insert(header::CONTENT_LENGTH, MB100.into());
                        }
                        resp
                    }
                },
            ),
        );
    let base = serve(app).await;
    Hostile {
        api_base: format!("{base}/api/v10"),
        sent,
        followed,
    }
}

fn hostile_client(h: &Hostile) -> Client {
    Client::with_options(
        &h.api_base,
        Token::new("MTE.aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb").unwrap(),
        ClientOptions {
            max_retries: 0,
            ..ClientOptions::default()
        },
    )
    .unwrap()
}

#[tokio::test]
async fn a_100_mb_cdn_image_is_refused_within_the_image_cap() {
    use std::sync::atomic::Ordering;
    let h = hostile().await;
    let c = hostile_client(&h);
    let cap = guildctl::manifest::IMAGE_MAX_BYTES;
    for (hash, announced) in [("announced", true), ("streamed", false)] {
        h.sent.store(0, Ordering::SeqCst);
        let image = guildctl::discord::cdn::LiveImage {
            kind: "icons",
            id: "81384788765712384",
            hash,
        };
        let held = Held::start();
        let e = c.cdn_image(&image).await.expect_err("100 MB is refused");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("GET (CDN) /icons/81384788765712384/{hash}.png: ")),
            "{text}"
        );
        assert!(text.contains("an image is at most 8388608 bytes"), "{text}");
        if announced {
            assert!(
                text.contains("the CDN announced 100000000 bytes (Content-Length)"),
                "{text}"
            );
        } else {
            assert!(text.contains("more than 8388608 bytes arrived"), "{text}");
        }
        let held = held.peak();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let sent = h.sent.load(Ordering::SeqCst);
        eprintln!(
            "{hash}: at most {held} bytes held on this thread; the CDN sent {sent} of {MB100} bytes before the client hung up"
        );
        // The image's bytes up to the cap, and the client's own buffers: never the body.
        assert!(
            held < cap + (4 << 20),
            "{hash}: {held} bytes held, the body was read past the cap"
        );
        assert!(sent < MB100, "{hash}: the whole body was sent");
    }
}

#[tokio::test]
async fn a_redirect_from_the_api_or_the_cdn_is_refused_naming_the_call() {
    use std::sync::atomic::Ordering;
    let h = hostile().await;
    let c = hostile_client(&h);
    let e = c
        .get::<serde_json::Value>("/users/@me")
        .await
        .expect_err("a redirect is no answer");
    assert!(matches!(e, ClientError::Redirected { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("GET /users/@me: answered 302 Found, a redirect to \"http://127.0.0.1:"),
        "{text}"
    );
    assert!(text.contains("follows no redirect"), "{text}");
    assert!(
        !text.contains("stolen-secret") && text.contains("webhooks/1/{token}"),
        "a token in the location is redacted: {text}"
    );
    let image = guildctl::discord::cdn::LiveImage {
        kind: "icons",
        id: "81384788765712384",
        hash: "redirect",
    };
    let e = c
        .cdn_image(&image)
        .await
        .expect_err("a redirect is no image");
    let text = e.to_string();
    assert!(
        text.starts_with(
            "GET (CDN) /icons/81384788765712384/redirect.png: answered 301 Moved Permanently, a redirect to"
        ),
        "{text}"
    );
    assert_eq!(
        h.followed.load(Ordering::SeqCst),
        0,
        "no request reached where the redirects point"
    );
}
