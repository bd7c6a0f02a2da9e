//! What access costs a plan on the largest guild the emulator generates (250 roles, 500
//! channels, Discord's limits): the live model read from the snapshot, the access diff
//! between it and the guild a plan leaves (every role and `@everyone` against every
//! channel, twice), and the policies judged on it; beside the whole plan's time. Prints CPU
//! time (this thread's, CLOCK_THREAD_CPUTIME_ID). See docs/performance.md, "Access".
//!
//! Run: `cargo bench --bench access` (`-- --quick` for one iteration).

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/cpu.rs"]
mod cpu;
use cpu::{measure, ms};

use discord_emulator::{EmulatorOptions, LargeStateOptions, RunningEmulator, large_state};
use guildctl::access::model::{ChannelSpec, Overwrite, ROLE};
use guildctl::access::policy::{self, Certainty};
use guildctl::access::{Guild, diff};
use guildctl::discord::{Client, ClientOptions, Token};
use guildctl::manifest::{self, Policy};
use guildctl::permissions::Permissions;
use guildctl::plan::PlanOptions;
use guildctl::snapshot::Snapshot;

async fn largest() -> Snapshot {
    let mut state = large_state(LargeStateOptions::default());
    state.config.time_scale = 1e6;
    let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
        .await
        .expect("emulator");
    let client = Client::with_options(
        &emu.api_base,
        Token::new(emu.token.clone()).expect("token"),
        ClientOptions::default(),
    )
    .expect("client");
    Snapshot::fetch(&client, &emu.guild_id)
        .await
        .expect("snapshot")
}

/// The live guild changed as a broad plan changes it: @everyone's permissions (every
/// role's access in every channel moves with them), and the overwrites of every tenth
/// channel opened to @everyone.
fn after_of(live: &Guild) -> Guild {
    let mut after = live.clone();
    let everyone = live.everyone().expect("@everyone");
    let perms = everyone.permissions | Permissions::from_name("mention_everyone").unwrap();
    after.set_role(&live.id, "@everyone", Some(perms), None, Some(0));
    for (k, c) in live.channels.iter().enumerate().step_by(10) {
        let open = vec![Overwrite {
            target: live.id.clone(),
            kind: ROLE,
            allow: Permissions::VIEW_CHANNEL,
            deny: Permissions::NONE,
        }];
        after.set_channel(
            ChannelSpec {
                id: &c.id,
                name: &c.name,
                kind: c.kind,
                parent: c.parent.as_deref(),
            },
            Some(open),
            None,
            Some(k + 1),
        );
    }
    after
}

fn policies() -> Vec<Policy> {
    let yaml = r#"
- name: staff-stays-private
  never: { who: "@everyone", can: [view_channel], where: ["Staff/*"] }
- name: nobody-pings-all-in-teams
  never: { who: anyone, can: [mention_everyone], where: ["**"] }
- name: few-admins
  only: { who: [Admin], can: [administrator, manage_guild, manage_roles] }
- name: moderators-two-to-six
  holders: { role: Moderator, min: 2, max: 6 }
"#;
    serde_saphyr::from_str(yaml).expect("policies")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let iters = if quick { 1 } else { 15 };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let snap = runtime.block_on(largest());

    let live = Guild::live(&snap);
    let after = after_of(&live);
    let lines = diff::between(&live, &after);
    assert!(!lines.is_empty(), "the broad change shows");
    let policies = policies();
    let declared: Vec<(String, &Policy)> = policies
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("policies[{i}]"), p))
        .collect();
    let count = |_: &guildctl::access::model::Role| Some(3u64);

    let model = measure(iters, || {
        std::hint::black_box(Guild::live(&snap).clone());
    });
    let between = measure(iters, || {
        std::hint::black_box(diff::between(&live, &after));
    });
    let judged = measure(iters, || {
        std::hint::black_box(policy::judge(&declared, &after, &count, Certainty::Whole));
    });

    // The whole plan of the exported guild with its topics changed, as the scale bench's.
    let dir = tempfile::tempdir().expect("temp dir");
    let exported = guildctl::export::export(&snap).expect("export");
    let edited = dir.path().join("guild.yaml");
    std::fs::write(
        &edited,
        exported.replace("topic: Channel ", "topic: Changed "),
    )
    .expect("write");
    let (loaded, report) = manifest::validate(&edited);
    assert!(!report.has_errors(), "{}", report.render_text(false));
    let loaded = loaded.expect("loaded");
    let options = PlanOptions::default();
    let whole = measure(iters, || {
        std::hint::black_box(
            guildctl::planner::diff_loaded(&loaded, &snap, &options).expect("plan"),
        );
    });

    println!(
        "CPU ms, median of {iters}{} — {} roles, {} channels, {} access lines:",
        if quick { " (--quick)" } else { "" },
        live.roles.len(),
        live.channels.len(),
        lines.len()
    );
    println!("| live model | access diff | 4 policies | access in all | whole plan |");
    println!("|---:|---:|---:|---:|---:|");
    let all = model + between + judged;
    println!(
        "| {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        ms(model),
        ms(between),
        ms(judged),
        ms(all),
        ms(whole)
    );
}
