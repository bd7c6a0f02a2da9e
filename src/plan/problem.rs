//! What stops a plan or stands beside it: a problem found before any call, and a declared
//! entry matching several live objects.

use serde::{Deserialize, Serialize};

use super::kind::Kind;

/// A reason the plan cannot be carried out, found before any call is made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// What is wrong, in one sentence.
    pub message: String,
    /// The manifest path of what caused it, e.g. `roles[0]`.
    pub source: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
    /// The policy (`policies:`) the plan would break, when that is the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

/// Several live objects that one declared entry matches (the same name, or a previous name,
/// in the same place) where there should be one: what two applies creating it at once leave,
/// or a copy made by hand. The entry manages one of them by a fixed rule; the plan says
/// which, and why, at the entry, and `drift` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    /// The entry's kind.
    pub kind: Kind,
    /// The entry as declared (`Moderator`, `General/#general`).
    pub name: String,
    /// Where the manifest declares it (`roles[2]`).
    pub source: String,
    /// The id of the live object the entry manages.
    pub managed: String,
    /// Why that one: pinned by its id, or the oldest of a name.
    pub why: String,
    /// The ids of the other live objects it matches, oldest first: not managed by it.
    pub others: Vec<String>,
}

impl Duplicate {
    /// The finding in one sentence, as the plan's warning and drift say it.
    pub fn describe(&self) -> String {
        format!(
            "{} `{}` matches {} live objects: guildctl manages {} ({}), not {}; pin the one to manage with `id`, and rename or delete the {}",
            self.kind.label(),
            self.name,
            self.others.len() + 1,
            self.managed,
            self.why,
            self.others.join(", "),
            if self.others.len() == 1 {
                "other"
            } else {
                "others"
            }
        )
    }
}
