//! A [`Host`] for a program that embeds guildctl: no terminal, no Git, no workflow.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Failure, GuildTarget, Host};
use crate::manifest::{LoadedManifest, Report};
use crate::plan::{PlanOptions, PolicyBaseline};

/// The caller's side of an operation for a program that embeds guildctl (a bot applying a
/// layout from its own process): the findings shown are kept for the program to read
/// ([`Embedded::take_reports`]) instead of printed; the plan's options are the program's;
/// no policies of a base revision, no commit; every call that takes an audit-log reason
/// carries the program's. Clones share the kept reports, so a clone handed to an operation keeps them for
/// the original.
#[derive(Debug, Clone)]
pub struct Embedded {
    reason: String,
    options: PlanOptions,
    reports: Arc<Mutex<Vec<Report>>>,
}

impl Embedded {
    /// A host whose calls carry `reason` in the guild's audit log (Discord shows it beside
    /// each change), with the default plan options.
    pub fn new(reason: impl Into<String>) -> Embedded {
        Embedded {
            reason: reason.into(),
            options: PlanOptions::default(),
            reports: Arc::default(),
        }
    }

    /// This host with these plan options (`create_unseen`, the deletion and policy
    /// allowances) for every guild.
    pub fn with_plan_options(self, options: PlanOptions) -> Embedded {
        Embedded { options, ..self }
    }

    /// The reports the operations showed since the last call (a manifest's warnings as it
    /// loaded, a refused plan's problems on its lines, the call a rehearsal refused), in
    /// the order they came; reports with nothing in them are not kept.
    pub fn take_reports(&self) -> Vec<Report> {
        // A report pushed whole is whole: a panic elsewhere while the lock was held leaves
        // the list as it was.
        std::mem::take(&mut *self.reports.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn keep(&self, report: &Report) {
        if !report.items.is_empty() {
            self.reports
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(report.clone());
        }
    }
}

impl Host for Embedded {
    fn show(&self, report: &Report) -> Result<(), Failure> {
        self.keep(report);
        Ok(())
    }

    fn annotate(&self, report: &Report) -> Result<(), Failure> {
        self.keep(report);
        Ok(())
    }

    fn plan_options(&self) -> PlanOptions {
        self.options.clone()
    }

    fn policy_baseline(&self, _guild: &GuildTarget, _loaded: &LoadedManifest) -> PolicyBaseline {
        PolicyBaseline::NotGiven
    }

    fn commit(&self, _manifest: &Path) -> Option<String> {
        None
    }

    fn reason(&self, _manifest: &Path) -> String {
        self.reason.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{Located, Severity};

    fn report_with(message: &str) -> Report {
        let mut report = Report::new(Path::new("layout.yaml"), Vec::new());
        report.items.push(Located {
            severity: Severity::Warning,
            rule: "test".into(),
            message: message.to_owned(),
            help: None,
            path: String::new(),
            span: None,
            related: Vec::new(),
        });
        report
    }

    #[test]
    fn keeps_what_was_shown_through_its_clones_and_hands_it_over_once() {
        let host = Embedded::new("a bot's layout");
        let handed_to_an_operation = host.clone();
        handed_to_an_operation.show(&report_with("first")).unwrap();
        handed_to_an_operation
            .show(&Report::new(Path::new("layout.yaml"), Vec::new()))
            .unwrap();
        handed_to_an_operation
            .annotate(&report_with("second"))
            .unwrap();
        let kept: Vec<String> = host
            .take_reports()
            .iter()
            .map(|r| r.items[0].message.clone())
            .collect();
        assert_eq!(kept, ["first", "second"]);
        assert!(host.take_reports().is_empty());
        assert_eq!(host.reason(Path::new("layout.yaml")), "a bot's layout");
        assert_eq!(host.commit(Path::new("layout.yaml")), None);
    }
}
