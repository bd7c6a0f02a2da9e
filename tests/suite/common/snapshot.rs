//! Snapshots of what guildctl prints (insta, `tests/suite/snapshots/`), with what varies
//! from run to run redacted: the emulator's port, digests, guildctl's version, the
//! test's temporary folder, and times (drift's "just now", the audit log's timestamps).
//! Ids stay: the default guild's are fixed.
//!
//! ```ignore
//! let _redacted = common::snapshot::redacted();
//! insta::assert_snapshot!("purge_text", text);
//! ```
//!
//! After an intended change of wording: `INSTA_UPDATE=always cargo test --test suite
//! NAME::`, then review the snapshots' diff (`git diff tests/suite/snapshots`).

/// Redacts until the guard is dropped (insta's settings are per thread).
pub fn redacted() -> insta::internals::SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]");
    settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[digest]");
    settings.add_filter(r"/\S*?/\.tmp[0-9A-Za-z]{6}", "[dir]");
    let version = env!("CARGO_PKG_VERSION").replace('.', r"\.");
    settings.add_filter(
        &format!(r"guildctl (`?){version}\b"),
        "guildctl $1[version]",
    );
    settings.add_filter(r"\b(just now|\d+ (second|minute|hour|day)s? ago)", "[ago]");
    settings.add_filter(
        r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?( UTC|Z|[+-]\d\d:\d\d)",
        "[time]",
    );
    settings.bind_to_scope()
}
