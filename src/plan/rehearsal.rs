//! The verdict of a rehearsal: the plan applied first to an in-process copy of the live
//! guild (`crate::rehearse` runs it). A plain value the plan carries, so every renderer
//! (text, markdown, JSON) and a saved plan show the same verdict.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// What happened when the plan's calls were sent, in apply's order, to a copy of the guild.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rehearsal {
    /// Every call was accepted and a second plan against the copy is empty.
    pub ok: bool,
    /// Calls the copy accepted.
    pub calls: usize,
    /// Whether a second plan against the copy, after the calls, shows no change.
    pub converges: bool,
    /// The first call the copy refused; `None` when every call was accepted.
    pub refusal: Option<RehearsalRefusal>,
    /// The calls the plan has, accepted or not.
    #[serde(default)]
    pub total: usize,
    /// The calls never sent because of the refusal (their summaries), in plan order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_undone: Vec<String>,
    /// What a second plan against the copy still changes, when it does not converge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub still_changes: Vec<String>,
    /// What the copy could not know, so the rehearsal does not vouch for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_rehearsed: Vec<String>,
}

/// The first call the copy refused, with Discord's answer and the manifest place of the
/// change it makes.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RehearsalRefusal {
    /// The call's summary, e.g. `create category Archive`.
    pub call: String,
    /// The call's HTTP method.
    pub method: String,
    /// The path as sent to the copy (ids of objects created in the rehearsal are the copy's).
    pub path: String,
    /// HTTP status; 0 when no answer came (the call could not be made).
    pub status: u16,
    /// Discord's error code, when the answer had one.
    pub code: Option<i64>,
    /// Discord's message (or why the call could not be made).
    pub message: String,
    /// Where in the manifest the change is declared (`channels[5]`).
    pub source: Option<String>,
    /// The file, line and column of `source`, e.g. `guild.yaml:23:5`.
    pub line: Option<String>,
}

impl Rehearsal {
    /// The verdict in one line: "rehearsed: 12 calls accepted, converges", or the refusal.
    /// `show` makes each value from outside (names, Discord's message) safe where it goes,
    /// `code` the manifest places.
    pub fn headline(&self, show: &dyn Fn(&str) -> String, code: &dyn Fn(&str) -> String) -> String {
        let (verdict, detail) = self.verdict(show, code);
        format!("{}: {detail}", verdict.to_lowercase())
    }

    /// What failed, in a few words ("rehearsal refused", "rehearsal does not converge"), for
    /// the error a command ends with: the verdict itself is said once, in the plan (or on
    /// the refused call's manifest line), never again in that error.
    pub fn failure(&self) -> &'static str {
        if self.refusal.is_some() {
            "rehearsal refused"
        } else if !self.converges {
            "rehearsal does not converge"
        } else {
            "rehearsal passed"
        }
    }

    /// The verdict as a label ("Rehearsed", "Rehearsal refused", "Rehearsal does not
    /// converge") and what follows it, for reports that set the label apart.
    pub fn verdict(
        &self,
        show: &dyn Fn(&str) -> String,
        code: &dyn Fn(&str) -> String,
    ) -> (&'static str, String) {
        let calls = |n: usize| format!("{n} call{}", if n == 1 { "" } else { "s" });
        if let Some(r) = &self.refusal {
            let place = match (&r.source, &r.line) {
                (Some(s), Some(l)) => format!(" (manifest {} at {})", code(s), code(l)),
                (Some(s), None) => format!(" (manifest {})", code(s)),
                _ => String::new(),
            };
            return (
                "Rehearsal refused",
                format!(
                    "{} of {} accepted, then \"{}\" was refused with {}{place}; {} left undone",
                    self.calls,
                    calls(self.total),
                    show(&r.call),
                    r.answer(show),
                    calls(self.left_undone.len())
                ),
            );
        }
        if self.converges {
            (
                "Rehearsed",
                format!("{} accepted, converges", calls(self.calls)),
            )
        } else {
            (
                "Rehearsal does not converge",
                format!(
                    "{} accepted, but a second plan still shows {} change(s)",
                    calls(self.calls),
                    self.still_changes.len()
                ),
            )
        }
    }
}

impl RehearsalRefusal {
    /// Discord's answer: `403, Discord error 50013: Missing Permissions`.
    pub fn answer(&self, show: &dyn Fn(&str) -> String) -> String {
        match (self.status, self.code) {
            (0, _) => format!("no answer ({})", show(&self.message)),
            (s, Some(c)) => format!("{s}, Discord error {c}: {}", show(&self.message)),
            (s, None) => format!("{s}: {}", show(&self.message)),
        }
    }
}
