//! guildctl's integration tests, built as one test binary (as cargo's own
//! `tests/testsuite`): each file is a module, the shared kit is `common`. One crate to
//! compile and one link of guildctl, its dependencies and the emulator, where there were
//! 47. Run one file's tests with `cargo test --test suite drift::`.
//!
//! The tests share a process, so none may change what the process holds for all: the
//! environment, the current directory, resource limits. What needs its own environment,
//! folder or limits runs `guildctl` as a child process (`Harness::command`, the rlimit of
//! `bounded_reads::run_limited`), and variables such as `GUILDCTL_FUZZ_SECONDS` are only
//! read. The one process-wide thing set here is `bounded_reads`' global allocator: it
//! counts the bytes each thread holds, and a test reads only its own thread's count, so
//! the other tests running beside it do not move the figure.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod access;
mod action;
mod apply_safety;
mod architecture;
mod automod;
mod bounded_reads;
mod broken_reads;
mod channel_data;
mod channel_order;
mod channel_patterns;
mod cli_help;
mod closed_pipe;
mod concurrency;
mod container;
mod doors;
mod doors_reads;
mod drift;
mod duplicates;
mod emojis;
mod end_to_end;
mod event_channel_gates;
mod events;
mod export_files;
mod forged_plans;
mod forum;
mod github_api;
mod gitlab_api;
mod gitlab_component;
mod hidden_channels;
mod html;
mod ignored_tests;
mod images;
mod import_template;
mod inert;
mod manifest_check;
mod manifest_corpus;
mod manifest_folders;
mod manifest_fuzz;
mod manifest_load;
mod manifest_schema;
mod markdown_fits;
mod mcp;
mod member_overwrites;
mod network;
mod new_member;
mod normalisation;
mod papercuts;
mod people;
mod permission_names;
mod plan_identity;
mod plan_risks;
mod policy_changes;
mod pre_commit;
mod progress;
mod rate_limits;
mod readme_tour;
mod rehearsal;
mod rehearsal_agreement;
mod resilience;
mod role_colors;
mod role_emoji;
mod roster_risks;
mod rosters;
mod safety;
mod sandbox_tour;
mod sarif;
mod seams;
mod soundboard;
mod stickers;
mod watch;
mod whole_guild;
mod workspace;
