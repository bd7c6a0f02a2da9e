//! What channel patterns cost (`where:` of a policy, `access --channel`;
//! `guildctl::manifest::pattern`): the pattern that hung validate and plan before issue 42,
//! `*a*a*a*a*a*a*b`, over 500 channels (Discord's limit) whose names are the worst for it:
//! 100 letters `a` each (every tenth ending in `b`, which it names). Matched alone, in a
//! policy judged on the guild, and the longest pattern allowed (256 characters). Prints CPU
//! time (this thread's, CLOCK_THREAD_CPUTIME_ID). See docs/performance.md, "Patterns".
//!
//! Run: `cargo bench --bench patterns` (`-- --quick` for one iteration).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{measure, ms};

use guildctl::access::Guild;
use guildctl::access::model::{ChannelSpec, Overwrite, ROLE};
use guildctl::access::policy::{self, Certainty};
use guildctl::discord::models::channel_type;
use guildctl::manifest::Policy;
use guildctl::manifest::pattern::{ChannelPattern, MAX_PATTERN_CHARS};
use guildctl::permissions::Permissions;

const STARS: &str = "*a*a*a*a*a*a*b";
const CHANNELS: usize = 500;

/// 500 text channels outside categories, each open to `@everyone`: names of 100 `a`, every
/// tenth ending in `b`.
fn guild() -> Guild {
    let mut g = Guild::new("1", Permissions::NONE);
    for i in 0..CHANNELS {
        let name = if i % 10 == 0 {
            format!("{}b", "a".repeat(99))
        } else {
            "a".repeat(100)
        };
        let open = vec![Overwrite {
            target: "1".into(),
            kind: ROLE,
            allow: Permissions::VIEW_CHANNEL,
            deny: Permissions::NONE,
        }];
        g.set_channel(
            ChannelSpec {
                id: &format!("{}", 100 + i),
                name: &name,
                kind: channel_type::TEXT,
                parent: None,
            },
            Some(open),
            None,
            None,
        );
    }
    g
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let iters = if quick { 1 } else { 25 };

    let g = guild();
    let paths: Vec<String> = (0..g.channels.len()).map(|i| g.path(i)).collect();
    let stars = ChannelPattern::new(STARS).expect("pattern");
    let named = paths.iter().filter(|p| stars.matches(p)).count();
    assert_eq!(
        named,
        CHANNELS / 10,
        "the pattern names the channels ending in b"
    );
    let longest = "*a".repeat(MAX_PATTERN_CHARS / 2);
    let longest = ChannelPattern::new(&longest).expect("at the limit");

    let matched = measure(iters, || {
        let p = ChannelPattern::new(STARS).expect("pattern");
        std::hint::black_box(paths.iter().filter(|path| p.matches(path)).count());
    });
    let at_limit = measure(iters, || {
        std::hint::black_box(paths.iter().filter(|path| longest.matches(path)).count());
    });
    let policies: Vec<Policy> = serde_saphyr::from_str(&format!(
        "- name: no-b\n  never: {{ who: \"@everyone\", can: [view_channel], where: [\"{STARS}\", \"**/{STARS}\"] }}\n"
    ))
    .expect("policies");
    let declared: Vec<(String, &Policy)> = vec![("policies[0]".into(), &policies[0])];
    let count = |_: &guildctl::access::model::Role| Some(0u64);
    let verdict = policy::judge(&declared, &g, &count, Certainty::Whole);
    assert_eq!(
        verdict.breaches.len(),
        CHANNELS / 10,
        "{:?}",
        verdict.breaches
    );
    let judged = measure(iters, || {
        std::hint::black_box(policy::judge(&declared, &g, &count, Certainty::Whole));
    });

    println!(
        "CPU ms, median of {iters}{} — {CHANNELS} channels of 100 letters:",
        if quick { " (--quick)" } else { "" }
    );
    println!("| `{STARS}` over all | 256 characters over all | a `never` policy with it judged |");
    println!("|---:|---:|---:|");
    println!(
        "| {:.3} | {:.3} | {:.3} |",
        ms(matched),
        ms(at_limit),
        ms(judged)
    );
}
