//! Which plan run was reviewed: the newest successful run of the plan for the merged
//! change's head that is that change's own (GitHub: a pull request's workflow run from
//! this repository; GitLab: a merge request's pipeline in this project). A run for the
//! same commit is not enough: the same commit can be the head of another change, or be
//! pushed to a fork, whose runs their authors control. Each forge says why a run is not
//! the change's own; [`Pick`] keeps the first that is and what it passed over, and
//! [`reviewed_plan`] is the pick over any forge ([`Reviews`]).

use super::paging::MAX_PAGES;
use super::tracker::{NotASha, PlanRuns, Reviews, Words};

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

impl Reviewed {
    /// Says on stderr which runs were passed over ([`passed_over_lines`]).
    pub fn say_passed_over(&self, words: Words) {
        for line in passed_over_lines(words, &self.passed_over) {
            eprintln!("{line}");
        }
    }
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

/// The change a commit merged, and the run whose plan reviewed its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    /// The pull or merge request's number.
    pub change: u64,
    pub head_sha: String,
    /// The newest run of the change's own that planned its head (and finished as asked).
    pub run: Option<u64>,
    /// What in that run holds the plan: the run itself (GitHub), its plan job (GitLab).
    pub plan: Option<u64>,
    /// Newer runs that were not taken, newest first, each with why.
    pub passed_over: Vec<PassedOver>,
}

/// The plan reviewed for `sha`, a commit on the default branch: `None` when it merged no
/// pull or merge request (a direct push). The change's runs are read newest first, page
/// by page, until the first that is its own and holds a plan.
pub async fn reviewed_plan<F: Reviews>(
    forge: &F,
    sha: &str,
    plan: PlanRuns<'_>,
) -> Result<Option<Reviewed>, F::Error> {
    if !(7..=64).contains(&sha.len()) || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(NotASha(sha.to_owned()).into());
    }
    let Some(merged) = forge.merged(sha).await? else {
        return Ok(None);
    };
    let mut pick = Pick::default();
    let mut held = None;
    let mut page = None;
    'pages: for _ in 0..MAX_PAGES {
        let runs = forge.runs(&merged, plan, page.take()).await?;
        for run in runs.items {
            let mut why = run.why_not;
            if why.is_none() {
                match forge.plan_in(run.id, plan).await? {
                    Ok(id) => held = Some(id),
                    Err(not) => why = Some(not),
                }
            }
            if pick.consider(run.id, why) {
                break 'pages;
            }
        }
        match runs.next {
            Some(next) => page = Some(next),
            None => break,
        }
    }
    Ok(Some(Reviewed {
        change: merged.number,
        head_sha: merged.head_sha,
        run: pick.chosen,
        plan: pick.chosen.and(held),
        passed_over: pick.passed_over,
    }))
}

/// What stderr says of the runs passed over: the first 20, newest first, as the forge
/// listed them; a long tail is counted, not listed.
pub fn passed_over_lines(words: Words, passed_over: &[PassedOver]) -> Vec<String> {
    const SHOWN: usize = 20;
    let mut lines: Vec<String> = passed_over
        .iter()
        .take(SHOWN)
        .map(|p| {
            format!(
                "Passed over: {} {} {}.",
                words.run,
                p.run_id,
                crate::inert::terminal(&p.why)
            )
        })
        .collect();
    if passed_over.len() > SHOWN {
        lines.push(format!(
            "Passed over {} more {}.",
            passed_over.len() - SHOWN,
            words.runs
        ));
    }
    lines
}
