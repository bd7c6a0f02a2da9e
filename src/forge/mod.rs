//! What the GitHub and GitLab sides share (`github`, `gitlab`): the markers that find
//! guildctl's own comments and issues again, bodies cut to a forge's limit, which of the
//! marked items are guildctl's own, which plan run was reviewed, the guilds a change
//! touches, and what a saved plan file says of itself. Nothing here talks to a forge.

mod marker;
mod plan_file;
mod reviewed;
mod touched;

pub use marker::{EmptyMarker, body_with_marker, carries, marker};
pub use plan_file::{PlanFileError, plan_digest, plan_rehearsal, read};
pub use reviewed::{PassedOver, Pick};
pub use touched::{
    ChangedFiles, Touched, absolute, every_guild, is_same_file, touched_guilds, used_by_guilds,
};
