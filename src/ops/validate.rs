//! `validate`: each manifest's schema, semantic and policy checks; no network.

use super::{GuildTarget, Targets};
use crate::manifest::{Located, Report, Severity};

/// Each guild's report, in the targets' order.
pub fn validate(targets: &Targets) -> Vec<Report> {
    targets.guilds().map(validate_guild).collect()
}

/// One guild checked as `validate` checks it (policies included); a workspace's guild
/// has its manifest's `guild:` held to the workspace's id.
pub fn validate_guild(g: &GuildTarget) -> Report {
    let (loaded, mut report) = crate::access::policy::validate_in(&g.manifest, &g.within);
    // The people file's rosters for the guild: a role it names that the manifest lacks.
    if let Some(loaded) = loaded.as_ref().filter(|_| !report.has_errors()) {
        match super::with_people(g, loaded.clone(), false) {
            Ok((_, warnings)) => report.items.extend(warnings),
            Err(e) => report.items.push(Located {
                severity: Severity::Error,
                rule: "workspace".into(),
                message: e.to_string(),
                help: Some(
                    "the people file gives this guild's roles their holders (docs/workspace.md, \"People kept once\")"
                        .into(),
                ),
                path: String::new(),
                span: None,
                related: Vec::new(),
            }),
        }
    }
    let Some(name) = &g.name else {
        return report;
    };
    if let Some(declared) = loaded.as_ref().and_then(|l| l.manifest.guild.as_ref())
        && declared.0 != g.id
    {
        report.items.push(Located {
            severity: Severity::Error,
            rule: "workspace".into(),
            message: format!(
                "the manifest is for guild {}, but the workspace gives `{name}` the id {}",
                declared.0, g.id
            ),
            help: Some("make `guild:` and the workspace's `id` the same guild".into()),
            path: "guild".into(),
            span: loaded.as_ref().and_then(|l| l.locations.span("guild")),
            related: Vec::new(),
        });
    }
    report
}
