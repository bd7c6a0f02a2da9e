//! Access as people see it: who can do what, where, computed as Discord computes
//! effective permissions (docs/access.md).
//!
//! - [`model`]: the guild as access sees it (roles, channels, overwrites, known members),
//!   read from a snapshot; the planners record on a copy what a plan changes.
//! - [`rules`]: Discord's computation — base permissions, overwrites, implicit rules.
//! - [`diff`]: who gains and who loses what, where, between two guilds (a plan's `access`).
//! - [`view`]: the matrix of roles × channels and the "preview as" of `guildctl access`.
//! - [`place`]: a channel as every view names it.
//! - [`onboarding`]: a new member's walk through onboarding (`access --new-member`), and
//!   Discord's onboarding requirements.
//! - [`grid`]: every channel × every who, cell by cell, for the HTML page.
//! - [`policy`]: the rules a manifest states (`policies:`), judged on a guild.
//! - `review` (drift's `access`): drift's review of who holds dangerous permissions.
//!
//! It sits below `plan` and above `snapshot` and `manifest`, whose types it reads.

pub mod diff;
pub mod grid;
pub mod model;
pub mod onboarding;
pub mod place;
pub mod policy;
pub mod rules;
#[cfg(test)]
pub(crate) mod test_kit;
pub mod view;

pub use diff::AccessChange;
pub use model::Guild;
pub use rules::{Access, Holder};

/// How a user is shown in access lines: `username (id)` when the username was read, else
/// `user ID`. One place, so every line that names a person names them alike.
pub fn person(username: Option<&str>, id: &str) -> String {
    match username {
        Some(name) => format!("{name} ({id})"),
        None => format!("user {id}"),
    }
}
