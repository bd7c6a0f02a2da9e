//! The least time the emulator's rate limits allow for a plan, shared by
//! `benches/apply_under_limits.rs`, `benches/rosters.rs` and `tests/suite/rate_limits.rs`.

use std::collections::HashMap;
use std::time::Duration;

use guildctl::discord::Route;
use guildctl::plan::{Plan, barrier_stage};

/// The least time the emulator's limits allow for this plan: for each group of
/// stages that runs together, the slowest bucket's full windows or the global
/// limit's (a second for each 50 calls after the first 50), whichever is longer;
/// groups run one after another.
pub fn lower_bound(plan: &Plan, config: &discord_emulator::state::EmulatorConfig) -> Duration {
    let scale = config.time_scale;
    let mut segments: HashMap<u8, Vec<&guildctl::plan::Operation>> = HashMap::new();
    for op in &plan.operations {
        let segment = if op.stage < barrier_stage() {
            0
        } else {
            op.stage
        };
        segments.entry(segment).or_default().push(op);
    }
    let mut total = 0.0;
    for ops in segments.values() {
        let mut per_bucket: HashMap<(String, String), (usize, u32, f64)> = HashMap::new();
        for op in ops {
            let (method, path) = (op.route.method(), op.route.path());
            let limit = if matches!(op.route, Route::CreateRole { .. }) {
                Some((
                    config.role_creates.limit,
                    config.role_creates.window_seconds,
                    "role-create".to_owned(),
                ))
            } else {
                config
                    .route_buckets
                    .iter()
                    .find(|b| {
                        (b.method == "*" || b.method == method.as_str())
                            && template_matches(&b.route, &path)
                    })
                    .map(|b| (b.limit, b.window_seconds, b.bucket.clone()))
            };
            if let Some((limit, window, bucket)) = limit {
                let major = op.route.bucket().major;
                let e = per_bucket
                    .entry((bucket, major))
                    .or_insert((0, limit, window));
                e.0 += 1;
            }
        }
        let buckets = per_bucket
            .values()
            .map(|(n, limit, window)| {
                ((*n as f64 / f64::from(*limit)).ceil() - 1.0).max(0.0) * window / scale
            })
            .fold(0.0, f64::max);
        // As for a bucket: the last window need not end, only begin.
        let per_second = f64::from(config.global_per_second);
        let global = ((ops.len() as f64 / per_second).ceil() - 1.0).max(0.0) / scale;
        total += buckets.max(global);
    }
    Duration::from_secs_f64(total)
}

fn template_matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    t.len() == p.len() && t.iter().zip(&p).all(|(a, b)| a.starts_with('{') || a == b)
}
