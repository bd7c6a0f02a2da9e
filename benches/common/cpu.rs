//! CPU time for the benches: this thread's, so the machine's other load counts less than
//! wall time would.

use std::time::Duration;

/// This thread's CPU time so far.
pub fn cpu_now() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The median CPU time of `f` over `iters` runs, after one warm-up run.
#[allow(dead_code)] // not every bench measures a closure
pub fn measure(iters: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..iters)
        .map(|_| {
            let start = cpu_now();
            f();
            cpu_now() - start
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Milliseconds, for printing.
#[allow(dead_code)] // not every bench prints milliseconds
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
