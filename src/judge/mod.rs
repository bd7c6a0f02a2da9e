//! The judges: what a plan is held to once it is made (docs/safety.md). `preflight` finds
//! what Discord would refuse of its calls (with `channel_preflight`, what it checks in one
//! channel, and `member_preflight`, the roster and ban calls); `deletion_gate` counts what it
//! deletes against the limits or an allowance, and its policy changes against theirs, and
//! finds what `protect:` forbids; `risk` reads what it widens or destroys; `policies` judges
//! the manifest's `policies:` on the guild it leaves; `policy_changes` compares the
//! policies with a base revision's. Each verdict is a value of `crate::plan`; a judge
//! imports the plan value, never the planners.

mod channel_preflight;
pub mod deletion_gate;
mod member_preflight;
pub mod policies;
pub mod policy_changes;
pub mod preflight;
pub mod risk;

pub use deletion_gate::{deletion_gate, hold_reviewed_policy_changes, policy_gate};
pub use risk::assess as risks;
