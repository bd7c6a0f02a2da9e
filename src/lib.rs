//! guildctl: Discord guild configuration kept in Git.
//!
//! The modules follow the data path: `manifest` (YAML → desired state),
//! `snapshot` (live state read through `discord`), `plan` (the difference and
//! its safety gates), `apply` (ordered calls), `report` (text, markdown, JSON),
//! and `emulator` (a local Discord API for tests and `--sandbox`).

pub mod apply;
pub mod discord;
pub mod emulator;
pub mod export;
pub mod manifest;
pub mod permissions;
pub mod plan;
pub mod report;
pub mod snapshot;
