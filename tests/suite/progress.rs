//! What `apply` shows on stderr when it is not a terminal (CI, a pipe): plain lines,
//! no bar, no control characters, and one line per rate-limit wait naming the route,
//! never a token. Waits run on a scaled clock (`time_scale` 100 in the emulator,
//! `GUILDCTL_CLOCK_SCALE=100` for guildctl, whose notice threshold of one second of
//! the API's clock becomes 10 ms), so each test waits well under a second.

use crate::common;

use std::process::Command;

use common::Harness;
use discord_emulator::state::BotToken;
use discord_emulator::{FaultKind, FaultRule, FaultSet, Scope, State, Storm};

const BOT_TOKEN: &str = "pinned-bot-token-for-the-progress-tests";
const SCALE: &str = "100";

/// Two role edits: they share the guild's role-edit bucket.
const TWO_ROLE_EDITS: &str = "version: 1
roles:
  - name: Helper
    color: \"#123456\"
  - name: Contributor
    color: \"#654321\"
";

/// The default guild with a pinned bot token, its clock 100 times Discord's, and room
/// for one role edit per 50 emulated seconds (half a real second).
fn slow_role_edits() -> State {
    let mut st = discord_emulator::default_state();
    st.tokens.push(BotToken {
        token: BOT_TOKEN.into(),
        user_id: st.bot_user_id.clone(),
    });
    st.config.time_scale = 100.0;
    let bucket = st
        .config
        .route_buckets
        .iter_mut()
        .find(|b| b.method == "PATCH" && b.route == "/guilds/{guild_id}/roles/{role_id}")
        .expect("the role-edit bucket");
    bucket.limit = 1;
    bucket.window_seconds = 50.0;
    st
}

/// Every secret the state holds: the bot token and the webhooks' tokens.
fn secrets(st: &State) -> Vec<String> {
    let mut out: Vec<String> = st.tokens.iter().map(|t| t.token.clone()).collect();
    out.extend(st.guilds[0].webhooks.iter().filter_map(|w| w.token.clone()));
    out
}

/// Plain output holds no escape sequence, carriage return or other control character.
fn assert_plain(text: &str) {
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character in plain output:\n{text:?}"
    );
}

fn assert_no_secret(text: &str, st: &State) {
    for secret in secrets(st) {
        assert!(!text.contains(&secret), "a token in the output:\n{text}");
    }
}

#[test]
fn a_rate_limit_wait_in_the_sandbox_is_one_plain_line_naming_the_route() {
    let dir = tempfile::tempdir().unwrap();
    let st = slow_role_edits();
    std::fs::write(
        dir.path().join("sandbox.json"),
        serde_json::to_string(&st).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("guild.yaml"), TWO_ROLE_EDITS).unwrap();
    // stdout and stderr are pipes: not a terminal.
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(["apply", "-f", "guild.yaml", "--yes"])
        .args(["--sandbox", "--sandbox-state", "sandbox.json"])
        .current_dir(dir.path())
        .env("GUILDCTL_CLOCK_SCALE", SCALE)
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("GUILDCTL_GUILD")
        .env_remove("DISCORD_TOKEN")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");

    let route = format!(
        "for Discord's rate limit on PATCH /guilds/{}/roles/{{id}}",
        st.guilds[0].id
    );
    let notices: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("waiting "))
        .collect();
    assert_eq!(notices.len(), 1, "one wait, one line:\n{stderr}");
    let notice = notices[0];
    // `waiting 0.5 s for …`: the second role edit waits out the first one's window.
    let seconds: f64 = notice
        .strip_prefix("waiting ")
        .and_then(|l| l.strip_suffix(&format!(" s {route}")))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not the notice expected: {notice:?}"));
    assert!(seconds > 0.0 && seconds <= 0.5, "{notice}");

    // Both calls are reported, one plain line each, in the documented form.
    let done: Vec<&str> = stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(done.len(), 2, "{stderr}");
    assert!(done.iter().all(|l| l.ends_with(": done")), "{stderr}");
    assert!(
        done.contains(&"[2/2] update role Contributor: done")
            || done.contains(&"[2/2] update role Helper: done")
    );
    assert_plain(&stdout);
    assert_plain(&stderr);
    assert_no_secret(&stdout, &st);
    assert_no_secret(&stderr, &st);
}

/// A fault seed whose first draw fires at `probability` and whose next `quiet` do not:
/// a rule that fires once. The emulator draws with SplitMix64 seeded with the seed
/// (crates/emulator/README.md, "Fault injection"); a rule of probability 1 would start
/// a new storm with every request, the retry included.
fn seed_firing_first_only(probability: f64, quiet: usize) -> u64 {
    let draws = |seed: u64| {
        let mut state = seed;
        std::iter::repeat_with(move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        })
    };
    (0..)
        .find(|&seed| {
            let mut d = draws(seed);
            d.next().is_some_and(|x| x < probability) && d.take(quiet).all(|x| x >= probability)
        })
        .expect("a seed")
}

/// `guildctl ARGS` against the harness's emulator with a scaled clock; stderr is a pipe.
async fn run_scaled(h: &Harness, args: &[&str]) -> common::Run {
    let mut cmd = h.command(args);
    cmd.env("GUILDCTL_CLOCK_SCALE", SCALE)
        .env_remove("NO_COLOR");
    common::Run::of(cmd.output().await.expect("guildctl runs"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_global_429_over_concurrent_calls_is_announced_once() {
    let h = Harness::with_state(None).await;
    let export = run_scaled(&h, &["export", "-o", "guild.yaml"]).await;
    assert_eq!(export.code, 0, "{}", export.stderr);
    // Seven channels get a topic: seven edits in seven buckets, sent concurrently.
    let path = h.dir.path().join("guild.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    assert_eq!(yaml.matches("topic: null").count(), 7, "{yaml}");
    std::fs::write(&path, yaml.replace("topic: null", "topic: Set by the test")).unwrap();
    // The first edit meets a global 429 for 0.3 s; the others queue behind it.
    h.emu
        .set_faults(FaultSet {
            seed: Some(seed_firing_first_only(0.05, 20)),
            rules: vec![FaultRule {
                method: "PATCH".into(),
                path: "/channels/*".into(),
                probability: 0.05,
                kind: FaultKind::Storm429(Storm {
                    count: 1,
                    retry_after: 0.3,
                    scope: Scope::Global,
                }),
            }],
        })
        .expect("faults");
    let run = run_scaled(&h, &["apply", "-f", "guild.yaml", "--yes"]).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let global_429s = h.requests().iter().filter(|r| r.status == 429).count();
    assert_eq!(global_429s, 1);
    let notices: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("waiting "))
        .collect();
    assert_eq!(
        notices.len(),
        1,
        "one global wait, one line, however many calls wait:\n{}",
        run.stderr
    );
    assert!(
        notices[0].ends_with(" s for Discord's global rate limit (every call waits)"),
        "{}",
        notices[0]
    );
    assert_eq!(run.stderr.matches(": done").count(), 7, "{}", run.stderr);
    assert_plain(&run.stderr);
    assert_plain(&run.stdout);
    let st = h.emu.state();
    assert_no_secret(&run.stderr, &st);
    assert_no_secret(&run.stdout, &st);
    assert!(!run.stderr.contains(&h.emu.token) && !run.stdout.contains(&h.emu.token));
}

/// On a terminal (a pseudo-terminal from util-linux `script`), the bar is drawn and
/// the notice still appears, whole; with `TERM=dumb` nothing but plain lines. util-linux
/// is part of every Linux base system; elsewhere `script` takes other arguments.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "needs util-linux's `script`, a Linux tool"
)]
fn on_a_terminal_apply_draws_a_bar_and_keeps_the_notice() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("util-linux")
        });
    assert!(
        has_script,
        "util-linux's `script` is not installed: install util-linux (bsdutils on Debian)"
    );
    for (term, bar) in [("xterm-256color", true), ("dumb", false)] {
        let dir = tempfile::tempdir().unwrap();
        let st = slow_role_edits();
        std::fs::write(
            dir.path().join("sandbox.json"),
            serde_json::to_string(&st).unwrap(),
        )
        .unwrap();
        std::fs::write(dir.path().join("guild.yaml"), TWO_ROLE_EDITS).unwrap();
        let bin = env!("CARGO_BIN_EXE_guildctl").replace('\'', r"'\''");
        let command = format!(
            "'{bin}' apply -f guild.yaml --yes --sandbox --sandbox-state sandbox.json >/dev/null"
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .current_dir(dir.path())
            .env("TERM", term)
            .env("GUILDCTL_CLOCK_SCALE", SCALE)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        let screen = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{term}: {screen}");
        assert_eq!(screen.contains("calls, ETA"), bar, "{term}: {screen:?}");
        assert_eq!(screen.contains('\u{1b}'), bar, "{term}: {screen:?}");
        assert!(
            screen.contains("for Discord's rate limit on PATCH /guilds/"),
            "{term}: {screen:?}"
        );
        assert_no_secret(&screen, &st);
    }
}
