//! What a saved plan file (`plan --out`) says of itself, for the steps that show it: its
//! digest and its rehearsal's verdict. Each comes out as a fixed word or a hex digest,
//! whatever the file says.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::inert;

#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("cannot read {}: {source}", inert::terminal(&.path.display().to_string()))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a saved plan (JSON): {source}", inert::terminal(&.path.display().to_string()))]
    Plan {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// Reads a file a step wrote (a report, a plan, an event payload).
pub fn read(path: &Path) -> Result<String, PlanFileError> {
    std::fs::read_to_string(path).map_err(|source| PlanFileError::Read {
        path: path.to_owned(),
        source,
    })
}

fn parse(path: &Path, text: &str) -> Result<serde_json::Value, PlanFileError> {
    serde_json::from_str(text).map_err(|source| PlanFileError::Plan {
        path: path.to_owned(),
        source,
    })
}

/// A saved plan's rehearsal verdict: `passed`, `failed` or `none`.
pub fn plan_rehearsal(path: &Path) -> Result<&'static str, PlanFileError> {
    let plan = parse(path, &read(path)?)?;
    Ok(
        match plan
            .get("rehearsal")
            .and_then(|r| r.get("ok"))
            .and_then(serde_json::Value::as_bool)
        {
            Some(true) => "passed",
            Some(false) => "failed",
            None => "none",
        },
    )
}

/// The digest reviewers see next to a plan: the plan's own `changes_sha256` (the digest
/// of its changes and operations) when it carries one, else the SHA-256 of the file.
pub fn plan_digest(path: &Path) -> Result<String, PlanFileError> {
    let text = read(path)?;
    let plan = parse(path, &text)?;
    if let Some(d) = plan
        .get("changes_sha256")
        .and_then(serde_json::Value::as_str)
        .filter(|d| !d.is_empty())
    {
        return Ok(d.to_owned());
    }
    Ok(Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
