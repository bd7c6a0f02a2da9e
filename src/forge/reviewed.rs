//! Which plan run was reviewed: the newest successful run of the plan for the merged
//! change's head that is that change's own (GitHub: a pull request's workflow run from
//! this repository; GitLab: a merge request's pipeline in this project). A run for the
//! same commit is not enough: the same commit can be the head of another change, or be
//! pushed to a fork, whose runs their authors control. Each forge says why a run is not
//! the change's own; [`Pick`] keeps the first that is and what it passed over.

/// A successful run (GitHub) or pipeline (GitLab) for the reviewed head that is not the
/// change's own, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    pub run_id: u64,
    /// Why, e.g. "is for pull request #9" or "came from fork x/y".
    pub why: String,
}

impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "run {} {}", self.run_id, self.why)
    }
}

/// Runs considered newest first: the first that is the change's own is chosen, and every
/// newer one is passed over with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pick {
    pub chosen: Option<u64>,
    pub passed_over: Vec<PassedOver>,
}

impl Pick {
    /// Considers run `id`; `why_not` is `None` when it is the change's own. True once a
    /// run is chosen (the caller stops there).
    pub fn consider(&mut self, id: u64, why_not: Option<String>) -> bool {
        match why_not {
            None => {
                self.chosen = Some(id);
                true
            }
            Some(why) => {
                self.passed_over.push(PassedOver { run_id: id, why });
                false
            }
        }
    }
}
