//! What the property tests over live emulators share (rehearsal_agreement, channel_order,
//! seams): a bounded run that draws the same cases every time, a longer one of new cases when
//! the test's variable names a count, a runtime for their async cases, and guildctl's client
//! for an emulator they started.

use discord_emulator::RunningEmulator;
use guildctl::discord::{Client, ClientOptions, Token};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// How many cases to run: the count `var` names, else `bounded`.
pub fn cases(var: &str, bounded: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(bounded)
}

/// A runner of [`cases`] cases on `config`, with no persisted failures (each case is whole in
/// its report): the same cases every run, new ones when `var` is set.
pub fn runner(var: &str, bounded: u32, config: Config) -> TestRunner {
    let config = Config {
        cases: cases(var, bounded),
        failure_persistence: None,
        ..config
    };
    if std::env::var_os(var).is_some() {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    }
}

/// A runtime for cases that talk to emulators.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// guildctl's client as the emulator's bot.
pub fn client(emu: &RunningEmulator) -> Result<Client, String> {
    let token = Token::new(emu.token.clone()).map_err(|e| e.to_string())?;
    Client::with_options(&emu.api_base, token, ClientOptions::default()).map_err(|e| e.to_string())
}
