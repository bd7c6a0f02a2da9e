//! `--ids-out FILE` of `plan`, `apply` and `export`: the guild's ids by name, read as it is
//! once the command is done, for a bot's configuration (docs/workspace.md, "Ids for a
//! bot"): JSON when FILE ends in `.json`, else an env file (`GUILD_ID=…`, `ROLE_…=…`).

use std::path::Path;

use anyhow::{Context, Result, anyhow};

use guildctl::ops;

use super::Session;

/// Reads the session's guild's ids and writes them to `path`.
pub(crate) async fn write(session: &Session, path: &Path) -> Result<()> {
    let ids = ops::ids(&session.client, &session.guild_id)
        .await
        .map_err(|e| anyhow!("--ids-out: the guild's ids could not be read: {e}"))?;
    let text = if path.extension().is_some_and(|e| e == "json") {
        let mut json = serde_json::to_string_pretty(&ids)?;
        json.push('\n');
        json
    } else {
        ids.to_env()
    };
    std::fs::write(path, text)
        .with_context(|| format!("--ids-out: cannot write {}", path.display()))?;
    eprintln!(
        "Wrote the guild's ids ({} roles, {} channels, {} webhooks) to {}.",
        ids.roles.len(),
        ids.channels.len(),
        ids.webhooks.len(),
        guildctl::inert::terminal(&path.display().to_string())
    );
    Ok(())
}
