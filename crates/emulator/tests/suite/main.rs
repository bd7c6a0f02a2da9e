//! The emulator's tests, built as one test binary (as cargo's own `tests/testsuite`):
//! each file is a module, `emulator_support` the shared client. Run one file's tests
//! with `cargo test -p discord-emulator --test suite coverage::`.
//!
//! The tests share a process, so none may change what the process holds for all (the
//! environment, the current directory). `emulator_fault_body.rs` stays a binary of its
//! own: it measures the process's peak memory.

// A test or bench fails by panicking: its helpers unwrap and expect as its asserts do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod emulator_support;

mod coverage;
mod emulator_audit_users;
mod emulator_behaviour;
mod emulator_channels;
mod emulator_control_guard;
mod emulator_dispatches;
mod emulator_doors;
mod emulator_gateway;
mod emulator_guild_extras;
mod emulator_member_ops;
mod emulator_members;
mod emulator_openapi;
mod emulator_ratelimits;
mod emulator_role_emoji;
mod emulator_service_rules;
mod emulator_stored_names;
mod emulator_visibility;
mod emulator_webhook_messages;
mod emulator_webhooks;
mod independence;
mod rest_of_guild;
mod twilight_client;
