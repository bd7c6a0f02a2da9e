//! The forge teams the workspace's people file names (`github_team:`, `gitlab_group:`),
//! read by `guildctl github teams` and `guildctl gitlab teams` into the file the runs
//! after them read (`GUILDCTL_TEAMS`). Each forge reads its own; the rest is here, once.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;

use crate::manifest::people::{Group, People, PeopleError};
use crate::manifest::{Within, Workspace, WorkspaceError};

/// The teams `team_of` picks from the groups of the people file of the workspace at
/// `repo_root`, each with its group's name; none when the workspace has no people file.
pub fn named_teams<E>(
    repo_root: &Path,
    team_of: impl Fn(&Group) -> Option<&String>,
) -> Result<Vec<(String, String)>, E>
where
    E: From<WorkspaceError> + From<PeopleError>,
{
    let ws = Workspace::find(repo_root)?;
    let Some(file) = &ws.people else {
        return Ok(Vec::new());
    };
    let people = People::read(file, &Within::workspace(&ws.root))?;
    Ok(people
        .groups
        .iter()
        .filter_map(|g| Some((team_of(g)?.clone(), g.name.clone())))
        .collect())
}

/// Each team's members, read with `members` (the team's name and its group's, to the
/// logins or the forge's error), saying how many on stderr.
pub async fn read_each<E, F, Fut>(
    named: Vec<(String, String)>,
    members: F,
) -> Result<BTreeMap<String, Vec<String>>, E>
where
    F: Fn(String, String) -> Fut,
    Fut: Future<Output = Result<Vec<String>, E>>,
{
    let mut teams = BTreeMap::new();
    for (team, group) in named {
        let logins = members(team.clone(), group).await?;
        eprintln!("{team}: {} member(s)", logins.len());
        teams.insert(team, logins);
    }
    Ok(teams)
}

/// Writes the teams file.
pub fn write_teams(out: &Path, teams: &crate::manifest::people::Teams) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(teams).unwrap_or_default();
    std::fs::write(out, json + "\n")
}
