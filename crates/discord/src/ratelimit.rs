//! Discord's rate limits, as a client keeps to them (docs/discord.md §1):
//! per-route buckets learned from response headers and keyed by the bucket hash
//! and the top-level resource, one request in flight per bucket, a global limit
//! per second, and a budget of invalid (401, 403, 429) responses, counted per API for the
//! whole process.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use hashbrown::HashMap;
use reqwest::Method;
use reqwest::header::HeaderMap;
use tokio::time::Instant;

/// Discord bans for 10,000 invalid responses in ten minutes; the window counted here.
pub const INVALID_WINDOW: Duration = Duration::from_secs(600);

/// The route a request belongs to, for bucketing: the method and the path with
/// ids replaced, and the major parameter (the guild, channel or webhook id).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Route {
    /// The method and the path with the minor ids left out (`PUT /guilds/1/members/:id`).
    pub key: String,
    /// The major parameter's id: buckets are per major parameter (docs/discord.md §1.1).
    pub major: String,
}

impl Route {
    /// The route of a call by its method and path (the query left out).
    pub fn of(method: &Method, path: &str) -> Route {
        let path = path.split('?').next().unwrap_or(path);
        let mut major = String::new();
        let mut parts: Vec<&str> = Vec::new();
        let segments: Vec<&str> = path.split('/').collect();
        for (i, seg) in segments.iter().enumerate() {
            let is_id = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
            let after = i.checked_sub(1).map(|p| segments[p]).unwrap_or("");
            if is_id && major.is_empty() && matches!(after, "guilds" | "channels" | "webhooks") {
                major = (*seg).to_owned();
                parts.push(seg);
            } else if is_id {
                parts.push(":id");
            } else {
                parts.push(seg);
            }
        }
        Route {
            key: format!("{method} {}", parts.join("/")),
            major,
        }
    }
}

/// What one bucket knows from its last response.
#[derive(Debug, Default)]
struct BucketState {
    remaining: Option<u64>,
    reset_at: Option<Instant>,
}

/// A bucket's state behind a lock that is held for the whole request: one
/// request in flight per bucket.
type Bucket = tokio::sync::Mutex<BucketState>;

/// The invalid responses (401, 403, and 429s other than `shared`) one API gave this
/// process in the last ten minutes. Discord counts them per IP address, not per token
/// (docs/discord.md §1.4): every client the process makes for the same API, whatever
/// its token, writes to one ledger ([`InvalidLedger::for_api`]), so several bots in one run
/// cannot spend the address's allowance once each. Another API (the rehearsal's in-process
/// copy, a sandbox) is not Discord and keeps its own.
#[derive(Debug, Default)]
pub struct InvalidLedger {
    seen: Mutex<VecDeque<Instant>>,
}

impl InvalidLedger {
    /// The process's ledger for the API at `api_base` (by origin: scheme, host and port),
    /// made on first use and kept while a client holds it or it counts a response.
    pub fn for_api(api_base: &str) -> Arc<InvalidLedger> {
        static LEDGERS: OnceLock<Mutex<HashMap<String, Arc<InvalidLedger>>>> = OnceLock::new();
        let origin = reqwest::Url::parse(api_base)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|_| api_base.to_owned());
        let mut ledgers = lock(LEDGERS.get_or_init(Mutex::default));
        // An API no client uses any more, with nothing counted in the window, is
        // forgotten: each rehearsal's copy is an API of its own.
        let now = Instant::now();
        ledgers.retain(|_, l| Arc::strong_count(l) > 1 || l.count(now) > 0);
        ledgers.entry(origin).or_default().clone()
    }

    /// Counts one invalid response now; how many the window then holds.
    fn spend(&self, now: Instant) -> usize {
        let mut seen = lock(&self.seen);
        expire(&mut seen, now);
        seen.push_back(now);
        seen.len()
    }

    /// How many invalid responses the window holds at `now`.
    fn count(&self, now: Instant) -> usize {
        let mut seen = lock(&self.seen);
        expire(&mut seen, now);
        seen.len()
    }
}

fn expire(seen: &mut VecDeque<Instant>, now: Instant) {
    while seen
        .front()
        .is_some_and(|t| now.duration_since(*t) > INVALID_WINDOW)
    {
        seen.pop_front();
    }
}

/// The client's rate limiter: the buckets Discord names, the global limit, and the count of
/// invalid responses that stops a run before Discord bans its address (docs/discord.md §1).
#[derive(Debug)]
pub struct Limiter {
    /// Route key → bucket hash, learned from `X-RateLimit-Bucket`.
    hashes: Mutex<HashMap<String, String>>,
    buckets: Mutex<HashMap<String, Arc<Bucket>>>,
    global: Arc<GlobalLimit>,
    /// Invalid responses after which this client stops, counted in `invalid`.
    invalid_limit: usize,
    invalid: Arc<InvalidLedger>,
    on_wait: OnceLock<WaitHook>,
}

/// A wait the limiter is about to start: on a route's bucket (`route`) or on the
/// global limit after a global 429 (`None`), until `until`.
#[derive(Debug, Clone, Copy)]
pub struct Wait<'a> {
    /// The bucket's route (`None`: the global limit).
    pub route: Option<&'a Route>,
    /// When the wait ends.
    pub until: Instant,
}

/// Told of each wait before it starts, so a person can be told why nothing moves.
/// A bucket's wait is announced by the one request that sleeps (the others queue
/// on its lock); every request waiting out one global 429 announces the same `until`.
#[derive(Clone)]
pub struct WaitHook(pub Arc<dyn Fn(Wait<'_>) + Send + Sync>);

impl std::fmt::Debug for WaitHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitHook")
    }
}

/// The global limit counts a request from the moment Discord receives it, which the
/// client never sees: only that it lies between sending and the response. So a slot
/// is held while its request is in flight and stamped when the request ends; a request
/// starts only while fewer than `limit` are in flight or ended within the last
/// `window`. Then no `window` of arrival times can hold more than `limit` requests,
/// whatever the latency (stamping at send time let a request sent a window after a
/// slow one arrive inside that one's window: a global 429).
#[derive(Debug)]
struct GlobalLimit {
    state: Mutex<Global>,
    /// Woken when an in-flight request ends, for those waiting on a full window.
    ended: tokio::sync::Notify,
}

#[derive(Debug)]
struct Global {
    limit: usize,
    window: Duration,
    /// When each request of the last `window` ended, oldest first.
    ended: VecDeque<Instant>,
    in_flight: usize,
    locked_until: Option<Instant>,
}

/// A request's place in its bucket and in the global limit; released when dropped.
pub struct Permit {
    guard: tokio::sync::OwnedMutexGuard<BucketState>,
    _global: GlobalSlot,
}

/// A request in flight under the global limit; stamped as ended when dropped.
struct GlobalSlot(Arc<GlobalLimit>);

impl Drop for GlobalSlot {
    fn drop(&mut self) {
        {
            let mut g = lock(&self.0.state);
            g.in_flight = g.in_flight.saturating_sub(1);
            g.ended.push_back(Instant::now());
        }
        self.0.ended.notify_waiters();
    }
}

impl Limiter {
    /// A limiter with a ledger of invalid responses of its own.
    pub fn new(global_limit: usize, global_window: Duration, invalid_budget: usize) -> Limiter {
        Limiter::with_ledger(global_limit, global_window, invalid_budget, Arc::default())
    }

    /// A limiter that counts invalid responses in `invalid`, shared with other clients.
    pub fn with_ledger(
        global_limit: usize,
        global_window: Duration,
        invalid_budget: usize,
        invalid: Arc<InvalidLedger>,
    ) -> Limiter {
        Limiter {
            hashes: Mutex::new(HashMap::new()),
            buckets: Mutex::new(HashMap::new()),
            global: Arc::new(GlobalLimit {
                state: Mutex::new(Global {
                    limit: global_limit.max(1),
                    window: global_window,
                    ended: VecDeque::new(),
                    in_flight: 0,
                    locked_until: None,
                }),
                ended: tokio::sync::Notify::new(),
            }),
            invalid_limit: invalid_budget.max(1),
            invalid,
            on_wait: OnceLock::new(),
        }
    }

    /// Sets the hook told of waits; only the first call takes effect.
    pub fn on_wait(&self, hook: WaitHook) {
        let _ = self.on_wait.set(hook);
    }

    fn announce(&self, route: Option<&Route>, until: Instant) {
        if let Some(hook) = self.on_wait.get() {
            (hook.0)(Wait { route, until });
        }
    }

    fn bucket(&self, route: &Route) -> Arc<Bucket> {
        let hash = lock(&self.hashes).get(&route.key).cloned();
        // Until Discord names the bucket, each route is a bucket of its own.
        let id = format!(
            "{}:{}",
            hash.unwrap_or_else(|| route.key.clone()),
            route.major
        );
        lock(&self.buckets).entry(id).or_default().clone()
    }

    /// Waits until the route's bucket and the global limit allow one more request.
    pub async fn acquire(&self, route: &Route) -> Permit {
        let guard = self.bucket(route).lock_owned().await;
        if let (Some(0), Some(reset)) = (guard.remaining, guard.reset_at)
            && reset > Instant::now()
        {
            self.announce(Some(route), reset);
            tokio::time::sleep_until(reset).await;
        }
        let global = self.global_slot().await;
        Permit {
            guard,
            _global: global,
        }
    }

    async fn global_slot(&self) -> GlobalSlot {
        loop {
            // Registered before the check, so an end between the check and the wait
            // still wakes it.
            let ended = self.global.ended.notified();
            let mut locked = None;
            let wait = {
                let mut g = lock(&self.global.state);
                let now = Instant::now();
                let window = g.window;
                while g
                    .ended
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= window)
                {
                    g.ended.pop_front();
                }
                match g.locked_until.filter(|u| *u > now) {
                    Some(until) => {
                        locked = Some(until);
                        Some(Some(until))
                    }
                    // Full: wait for the oldest end to leave the window, or, with every
                    // slot in flight, for one to end.
                    None if g.in_flight + g.ended.len() >= g.limit => {
                        Some(g.ended.front().map(|t| *t + window))
                    }
                    None => {
                        g.in_flight += 1;
                        None
                    }
                }
            };
            if let Some(until) = locked {
                self.announce(None, until);
            }
            match wait {
                Some(Some(until)) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => {}
                        () = ended => {}
                    }
                }
                Some(None) => ended.await,
                None => return GlobalSlot(self.global.clone()),
            }
        }
    }

    /// Records what a response's headers say about its bucket.
    pub fn update(&self, route: &Route, permit: &mut Permit, headers: &HeaderMap) {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let mut learned = false;
        if let Some(hash) = header("x-ratelimit-bucket") {
            let mut hashes = lock(&self.hashes);
            if hashes.get(&route.key).map(String::as_str) != Some(hash) {
                hashes.insert(route.key.clone(), hash.to_owned());
                learned = true;
            }
        }
        let remaining = header("x-ratelimit-remaining").and_then(|v| v.parse::<u64>().ok());
        let reset_after = header("x-ratelimit-reset-after").and_then(|v| v.parse::<f64>().ok());
        if let (Some(remaining), Some(after)) = (remaining, reset_after) {
            let reset_at = Instant::now() + secs(after);
            permit.guard.remaining = Some(remaining);
            permit.guard.reset_at = Some(reset_at);
            if learned {
                // The route now maps to the named bucket: it starts from what we know.
                if let Ok(mut named) = self.bucket(route).try_lock() {
                    named.remaining = Some(remaining);
                    named.reset_at = Some(reset_at);
                }
            }
        }
    }

    /// After a 429 for this route (its bucket, or a sublimit): nothing more until `after`.
    pub fn block_bucket(&self, permit: &mut Permit, after: Duration) {
        permit.guard.remaining = Some(0);
        permit.guard.reset_at = Some(Instant::now() + after);
    }

    /// After a global 429: no request at all until `after`.
    pub fn block_global(&self, after: Duration) {
        let until = Instant::now() + after;
        let mut g = lock(&self.global.state);
        g.locked_until = Some(g.locked_until.map_or(until, |u| u.max(until)));
    }

    /// Counts an invalid response; false once the budget is spent.
    pub fn spend_invalid(&self) -> bool {
        self.invalid.spend(Instant::now()) < self.invalid_limit
    }

    /// Whether the budget is spent: no more requests should start.
    pub fn budget_spent(&self) -> bool {
        self.invalid_spent() >= self.invalid_limit
    }

    /// Invalid responses in the window, this client's and every other's on its ledger.
    pub fn invalid_spent(&self) -> usize {
        self.invalid.count(Instant::now())
    }
}

/// Seconds from a header, bounded so a bad value cannot stall a run for hours.
pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(if s.is_finite() {
        s.clamp(0.0, 3600.0)
    } else {
        1.0
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere cannot leave these maps inconsistent: keep going.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_keep_the_major_id_and_hide_the_others() {
        let r = Route::of(
            &Method::PATCH,
            "/guilds/123456789012345678/roles/223456789012345678",
        );
        assert_eq!(r.key, "PATCH /guilds/123456789012345678/roles/:id");
        assert_eq!(r.major, "123456789012345678");
        let c = Route::of(&Method::PUT, "/channels/42/permissions/43");
        assert_eq!(c.key, "PUT /channels/42/permissions/:id");
        assert_eq!(c.major, "42");
    }

    #[tokio::test(start_paused = true)]
    async fn the_global_limit_spaces_requests() {
        let l = Limiter::new(2, Duration::from_secs(1), 100);
        let r = Route::of(&Method::GET, "/users/@me");
        let start = Instant::now();
        for _ in 0..5 {
            drop(l.acquire(&r).await);
        }
        // 5 requests at 2 per second: the fifth waits two seconds.
        assert!(Instant::now().duration_since(start) >= Duration::from_secs(2));
        assert!(Instant::now().duration_since(start) < Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn a_global_slot_counts_from_when_its_request_ended() {
        // Discord counts a request when it arrives, somewhere before its response: a
        // request in flight for 0.5 s may have arrived at 0.5 s, so its window runs to
        // 1.5 s. Counting from the send (1.0 s) raced the server's window.
        let l = Limiter::new(1, Duration::from_secs(1), 100);
        let a = Route::of(&Method::GET, "/users/@me");
        let b = Route::of(&Method::GET, "/guilds/1");
        let start = Instant::now();
        let slow = l.acquire(&a).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        drop(slow);
        drop(l.acquire(&b).await);
        assert!(Instant::now().duration_since(start) >= Duration::from_millis(1500));
    }

    #[tokio::test(start_paused = true)]
    async fn an_empty_bucket_waits_for_its_reset() {
        let l = Limiter::new(1000, Duration::from_secs(1), 100);
        let r = Route::of(&Method::PATCH, "/channels/1");
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining", "0".parse().unwrap());
        headers.insert("x-ratelimit-reset-after", "2.5".parse().unwrap());
        headers.insert("x-ratelimit-bucket", "abc".parse().unwrap());
        let mut p = l.acquire(&r).await;
        l.update(&r, &mut p, &headers);
        drop(p);
        let start = Instant::now();
        drop(l.acquire(&r).await);
        assert!(Instant::now().duration_since(start) >= Duration::from_millis(2500));
        // Another channel is another bucket: no wait.
        let other = Route::of(&Method::PATCH, "/channels/2");
        let start = Instant::now();
        drop(l.acquire(&other).await);
        assert_eq!(Instant::now(), start);
    }

    #[test]
    fn the_invalid_budget_runs_out() {
        let l = Limiter::new(50, Duration::from_secs(1), 3);
        assert!(l.spend_invalid());
        assert!(l.spend_invalid());
        assert!(!l.spend_invalid());
    }

    /// Discord counts invalid responses per IP address: two limiters (two clients, two
    /// tokens) on one ledger stop together, and one API is one ledger whatever its path.
    #[test]
    fn limiters_on_one_ledger_share_one_budget() {
        let ledger = InvalidLedger::for_api("http://127.0.0.1:9/api/v10");
        assert!(Arc::ptr_eq(
            &ledger,
            &InvalidLedger::for_api("http://127.0.0.1:9/api/v9")
        ));
        assert!(!Arc::ptr_eq(
            &ledger,
            &InvalidLedger::for_api("http://127.0.0.1:10/api/v10")
        ));
        let a = Limiter::with_ledger(50, Duration::from_secs(1), 3, ledger.clone());
        let b = Limiter::with_ledger(50, Duration::from_secs(1), 3, ledger);
        assert!(a.spend_invalid());
        assert!(b.spend_invalid());
        assert_eq!(a.invalid_spent(), 2);
        assert!(!a.spend_invalid());
        assert!(b.budget_spent());
    }
}
