//! The planners: what to change, per kind of object, to make the live guild the manifest
//! (docs/architecture.md, "The house"). `diff` runs them in their turn over one planning
//! context (`crate::plan_kit::context::Ctx`), then has the plan judged (`crate::judge`);
//! their kit is the room below, `crate::plan_kit`.
//!
//! One planner per kind that is not yet a section of its own: `roles` (with `role_style` for
//! colours), `channels` (with `forum` for forum and media channels), `settings`,
//! `welcome_onboarding_widget`, `webhooks`, `integrations`, `invites`, `regions`, `members`
//! (rosters and bans); the sections that are units (`crate::sections::ALL`) plan their own,
//! each in its turn.

mod channels;
mod diff;
mod forum;
mod integrations;
mod invites;
mod members;
mod regions;
mod role_style;
mod roles;
mod settings;
mod webhooks;
mod welcome_onboarding_widget;

pub use crate::plan_kit::images::read_image_files;
pub use diff::{
    AccessBoth, access_guild, access_view, diff, diff_loaded, diff_loaded_with_access, diff_with,
    differences,
};
pub use members::BULK_BAN_MAX;
