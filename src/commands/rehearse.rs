//! How a failed rehearsal ends a command (`plan --rehearse`, `apply`, the MCP server's
//! `plan`); the rehearsal itself is a step of `guildctl::ops`.

use anyhow::anyhow;

use guildctl::plan::Plan;

/// The error a failed rehearsal ends a command with: what failed, not the verdict again
/// (the plan, or the refusal on its manifest line, says it).
pub(crate) fn failed(plan: &Plan) -> Option<anyhow::Error> {
    let r = plan.rehearsal.as_ref().filter(|r| !r.ok)?;
    Some(anyhow!(
        "{}, as the plan's rehearsal verdict says; nothing was sent to Discord",
        r.failure()
    ))
}
