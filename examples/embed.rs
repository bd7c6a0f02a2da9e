//! guildctl as a library: a program (a bot, say) plans and applies a server layout from its
//! own process, as `guildctl apply` would (docs/library.md).
//!
//! It runs against the emulator of Discord's API (the `discord-emulator` crate), started in
//! this process on 127.0.0.1, so no token and no real guild are involved:
//!
//! ```text
//! cargo run --example embed
//! ```
//!
//! A bot does the same against Discord with its own token:
//! `Client::new("https://discord.com/api/v10", Token::new(token)?)` and its guild's id.
//!
//! It loads a layout from a string, checks it, plans it, prints the plan, applies it (each
//! plan rehearsed first on an in-process copy of the guild) and plans again, which shows
//! nothing left to do. `cargo test --example embed` (and the README's test command) runs it
//! and holds it to what it prints.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use discord_emulator::{EmulatorOptions, RunningEmulator};
use guildctl::discord::{Client, Token};
use guildctl::manifest::{self, Within};
use guildctl::ops::apply::{self, ApplyRun, CallRun, Calls};
use guildctl::ops::{self, Embedded, Failure, GuildTarget, PlanRun, Planned, Targets};
use guildctl::plan::Plan;
use guildctl::report::{self, Format, Heading};

/// The layout the program applies: where a bot would keep it (a file, its database), here
/// written in. Everything it does not name is left as the guild has it.
const LAYOUT: &str = r##"
version: 1
roles:
  - name: Moderator
    color: "#e67e22"
    hoist: true
    permissions: [kick_members, ban_members, moderate_members, pin_messages]
  - name: Sponsor
    color: "#2ecc71"
    hoist: true
channels:
  - name: Lobby
    type: category
    channels:
      - name: welcome
        topic: Read me first.
      - name: introductions
        topic: Who are you, what do you make?
"##;

/// What the audit log says of each change (Discord shows it beside the change).
const REASON: &str = "embed example: the server layout";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Failure> {
    let emulator = RunningEmulator::start(EmulatorOptions { state: None }).await?;
    let mut out = std::io::stdout().lock();
    embed(&emulator, &mut out).await?;
    Ok(())
}

/// Plans, applies and plans again the layout for the emulator's guild, writing what it does
/// to `out`.
async fn embed(emulator: &RunningEmulator, out: &mut dyn Write) -> Result<(), Failure> {
    // The connection: one bot token, one rate-limit budget for every guild it works on.
    let client = Client::new(&emulator.api_base, Token::new(emulator.token.clone())?)?;

    // The layout, loaded and checked as `guildctl validate` checks it. Its path only says
    // where files it names (images, sounds) would be read from, and names it in findings.
    let path = Path::new("layout.yaml");
    let loaded = manifest::load_str(path, LAYOUT.to_owned())?;
    let checked = manifest::check_report(&loaded);
    if checked.has_errors() {
        return Err(checked.render_text(false).into());
    }
    writeln!(out, "layout checked: {}", checked.summary())?;

    // One guild is a workspace of one: the targets every operation below runs for.
    let guild = GuildTarget::file(
        path.to_path_buf(),
        Within::given(path),
        emulator.guild_id.clone(),
    );
    let targets = Targets::one(guild, Arc::new(loaded));
    let host = Embedded::new(REASON);

    let first = plan_one(&client, &targets, &host).await?;
    writeln!(out, "{} changes planned:", first.changes.len())?;
    write!(
        out,
        "{}",
        report::render(&first, Format::Text, Heading::Plan, false)
    )?;

    // Apply in two steps, as `guildctl apply` does: every guild planned and judged (and
    // rehearsed on a copy), nothing written; then each ready guild applied whole.
    let run = ApplyRun {
        rehearse: true,
        ..ApplyRun::default()
    };
    let ready = apply::prepare(&client, targets.clone(), &host, &run, apply::no_lock).await;
    let applied = apply::run(&client, ready, &host, &CallRun::default(), &|_, _| {}).await;
    for guild in applied {
        let applied = guild.result?;
        match applied.calls {
            Calls::Made { outcome, .. } if outcome.succeeded() => {
                writeln!(out, "applied: {} calls made", outcome.statuses.len())?;
            }
            Calls::Made { outcome, .. } => {
                let failures: Vec<String> = outcome
                    .failures
                    .iter()
                    .map(|(_, e)| e.to_string())
                    .collect();
                return Err(format!("some calls failed: {}", failures.join("; ")).into());
            }
            Calls::Nothing => writeln!(out, "applied: nothing to do")?,
            Calls::NotStarted => return Err("the apply was stopped before it began".into()),
        }
    }

    // The guild is now as the layout says: a fresh plan has nothing in it.
    let next = plan_one(&client, &targets, &host).await?;
    if next.is_empty() {
        writeln!(out, "next plan: no changes")?;
    } else {
        writeln!(out, "next plan: {} changes left", next.changes.len())?;
    }

    // What the operations showed on the way (the layout's warnings, a refusal's problems).
    for report in host.take_reports() {
        write!(out, "{}", report.render_text(false))?;
    }
    Ok(())
}

/// The plan for the one guild of `targets` (an error if it was refused).
async fn plan_one(client: &Client, targets: &Targets, host: &Embedded) -> Result<Plan, Failure> {
    let planned = ops::plan(client, targets.clone(), host, PlanRun::default()).await;
    match planned.into_iter().next().map(|guild| guild.result) {
        Some(Ok(Planned::Plan(plan))) => Ok(*plan),
        Some(Ok(Planned::Refused(refused))) => Err(Box::new(refused)),
        Some(Err(failure)) => Err(failure),
        None => Err("no guild was planned".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example as `cargo run --example embed` runs it: the plan it prints has the
    /// layout's roles and channels, the apply makes its calls, and the next plan is empty.
    #[tokio::test(flavor = "current_thread")]
    async fn plans_applies_and_converges_against_the_emulator() {
        let emulator = RunningEmulator::start(EmulatorOptions { state: None })
            .await
            .unwrap();
        let mut out = Vec::new();
        embed(&emulator, &mut out).await.unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("layout checked: 0 errors, 0 warnings\n"),
            "{out}"
        );
        for change in [
            "~ update role Moderator",
            "+ create role Sponsor",
            "+ create category Lobby",
            "~ update channel Lobby/#welcome",
            "+ create channel Lobby/#introductions",
        ] {
            assert!(out.contains(change), "the plan shows {change}:\n{out}");
        }
        let calls = out
            .lines()
            .find_map(|l| l.strip_prefix("applied: ")?.strip_suffix(" calls made"))
            .and_then(|n| n.parse::<usize>().ok());
        assert!(calls.is_some_and(|n| n > 0), "{out}");
        assert!(out.ends_with("next plan: no changes\n"), "{out}");
        // The emulator's guild is as the layout says.
        let state = emulator.state();
        let guild = state
            .guilds
            .iter()
            .find(|g| g.id == emulator.guild_id)
            .unwrap();
        assert!(guild.roles.iter().any(|r| r.name == "Sponsor"));
        assert!(guild.channels.iter().any(|c| c.name == "introductions"));
    }
}
