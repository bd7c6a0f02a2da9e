//! The planners: what to change, per kind of object, to make the live guild the manifest
//! (docs/architecture.md, "The house"). `diff` runs them in their turn over one planning
//! context (`context::Ctx`), then has the plan judged (`crate::judge`); the planners share
//! their kit: `context` (the context, change builders, `Op`), `matching` (a declared entry's
//! live object), `calls` (the change and call of an update, a creation and a deletion),
//! `order` (target orders), `images` (declared image files), `expressions` (what custom
//! emoji, sounds and stickers share).
//!
//! One planner per kind: `roles` (with `role_style` for colours), `channels` (with `forum`
//! for forum and media channels), `settings`, `welcome_onboarding_widget`, `webhooks`,
//! `integrations`, `invites`, `regions`, `members` (rosters and bans), `emojis`, `sounds`,
//! `stickers`, `automod` and `events`.

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
pub use diff::{access_view, diff, diff_loaded, diff_with, differences};
pub use members::BULK_BAN_MAX;
