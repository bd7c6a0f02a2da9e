//! The workspace's people file (`people: people.yaml` in `guildctl.yaml`): each person once,
//! and the roles they hold in which guilds (docs/workspace.md, "People kept once").
//!
//! ```yaml
//! people:
//!   alice:
//!     discord: "81384788765712399"
//!     github: alice-gh                 # optional: for rosters from GitHub teams
//!     roles:                           # by guild name, then role names
//!       events-2026: [Admin]
//!     groups: [staff]
//! groups:                              # a group: each guild's own role for it
//!   staff:
//!     roles: { en: Moderator, de: Moderator }
//!     github_team: ferris/staff        # optional: its members, by `github`, are in it
//! ```
//!
//! A role some person or group names in a guild is that guild's roster from the people
//! file: its holders are the manifest's `members:` and these people, and no one else. A
//! person taken out of the file, or a role out of a person, is then one change that every
//! guild's plan shows as the role taken away. So that taking the last holder out still takes
//! the role away, a role held directly (not through a group) must have a roster in the
//! manifest (`members: []` at least): otherwise the file would stop managing it and its last
//! holder would keep it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::load::LoadedManifest;
use super::source::{self, Within};
use super::tree::{At, Node, Scalar, ScalarNode};
use super::types::{RosterMember, Snowflake};

/// The people file, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct People {
    /// The file.
    pub path: PathBuf,
    /// Its people, in the file's order.
    pub people: Vec<Person>,
    /// Its groups: each guild's role for the group.
    pub groups: Vec<Group>,
}

/// One person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// Their name in the file (`alice`).
    pub name: String,
    /// Their Discord user id.
    pub discord: String,
    /// Their GitHub login, if given.
    pub github: Option<String>,
    /// Their GitLab username, if given.
    pub gitlab: Option<String>,
    /// The roles they hold directly: (guild name, role name, where the file names it).
    pub roles: Vec<(String, String, Place)>,
    /// The groups they are in.
    pub groups: Vec<String>,
    /// The line of their entry.
    pub line: usize,
}

/// A group: the role it is in each guild that maps it, and the forge's team whose
/// members are in it too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// (guild name, role name, where the file names it).
    pub roles: Vec<(String, String, Place)>,
    /// A GitHub team (`org/slug`): its members, by their `github` login, are in the group.
    pub github_team: Option<String>,
    /// A GitLab group (its full path): its members, by their `gitlab` username, are in it.
    pub gitlab_group: Option<String>,
    /// Where the group is written.
    pub at: Place,
}

/// The members of the forge teams the groups name, as `guildctl github teams` (or
/// `guildctl gitlab groups`) read them: logins by team, in the JSON file `GUILDCTL_TEAMS`
/// names.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Teams {
    /// GitHub teams (`org/slug`) to their members' logins.
    #[serde(default)]
    pub github: BTreeMap<String, Vec<String>>,
    /// GitLab groups (full paths) to their members' usernames.
    #[serde(default)]
    pub gitlab: BTreeMap<String, Vec<String>>,
}

/// The variable that names the teams file.
pub const TEAMS_ENV: &str = "GUILDCTL_TEAMS";

impl Teams {
    /// The teams file `GUILDCTL_TEAMS` names, if it is set: read once per run while it
    /// stays as it was (`source::kept`), as every guild's load asks for it.
    pub fn from_env() -> Result<Option<Arc<Teams>>, PeopleError> {
        let Some(path) = std::env::var_os(TEAMS_ENV).map(PathBuf::from) else {
            return Ok(None);
        };
        let read = |message: String| PeopleError::Read {
            path: path.clone(),
            message,
        };
        source::kept(&path, || {
            let text = std::fs::read_to_string(&path).map_err(|e| read(e.to_string()))?;
            serde_json::from_str(&text).map_err(|e| read(format!("not a teams file ({e})")))
        })
        .map(Some)
    }
}

/// How a guild's rosters are taken from the people file.
#[derive(Debug, Clone, Copy)]
pub struct Taking<'a> {
    /// The forge teams' members, when read.
    pub teams: Option<&'a Teams>,
    /// Whether a group whose team was not read is refused (plan, apply, drift), or taken
    /// with its listed people only (validate, which reads no network).
    pub teams_required: bool,
}

/// Why the people file could not be read, or does not fit a guild's manifest.
#[derive(Debug, thiserror::Error)]
pub enum PeopleError {
    /// It could not be read.
    #[error("cannot read {}: {message}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// It is not a people file, or does not fit the manifest, at this place.
    #[error("{}:{line}:{column}: {message}", .path.display())]
    At {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong there.
        message: String,
    },
}

type Found<T> = Result<T, ((u32, u32), String)>;

/// A line and a column, from 1.
type Place = (usize, usize);

impl People {
    /// Reads the people file at `path`, which must stay `within` the workspace's folder.
    pub fn read(path: &Path, within: &Within) -> Result<People, PeopleError> {
        let text = source::read_text(path, within).map_err(|message| PeopleError::Read {
            path: path.to_path_buf(),
            message,
        })?;
        let at = |(line, column): (u32, u32), message: String| PeopleError::At {
            path: path.to_path_buf(),
            line: line.max(1) as usize,
            column: column.max(1) as usize,
            message,
        };
        let tree = super::load::parse_tree(&text).map_err(|e| {
            let place = e
                .location()
                .map_or((1, 1), |l| (l.line() as u32, l.column() as u32));
            at(place, format!("invalid YAML: {}", e.without_snippet()))
        })?;
        let mut people = parse(&tree).map_err(|(place, m)| at(place, m))?;
        people.path = path.to_path_buf();
        Ok(people)
    }

    /// Refuses a guild name the workspace does not have (`guilds`, its names), where the
    /// file first writes it: a typo would give no one the role.
    pub fn check_guilds(&self, guilds: &[&str]) -> Result<(), PeopleError> {
        let written = self
            .people
            .iter()
            .flat_map(|p| p.roles.iter())
            .chain(self.groups.iter().flat_map(|g| g.roles.iter()));
        for (guild, _, (line, column)) in written {
            if !guilds.contains(&guild.as_str()) {
                return Err(PeopleError::At {
                    path: self.path.clone(),
                    line: *line,
                    column: *column,
                    message: format!(
                        "the workspace has no guild named `{guild}` (it has: {})",
                        guilds.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// The person with Discord id `id`.
    pub fn by_id(&self, id: &str) -> Option<&Person> {
        self.people.iter().find(|p| p.discord == id)
    }

    /// The people in group `g`: those who list it, and the members of its forge team
    /// (by login) when the team was read; with the team's members no person has, by login.
    fn members_of<'p>(
        &'p self,
        g: &Group,
        taking: Taking<'_>,
    ) -> Result<(Vec<&'p Person>, Vec<String>), PeopleError> {
        let mut members: Vec<&Person> = self
            .people
            .iter()
            .filter(|p| p.groups.contains(&g.name))
            .collect();
        let mut unknown = Vec::new();
        let forges = [
            (
                "GitHub team",
                &g.github_team,
                taking.teams.map(|t| &t.github),
                "github",
            ),
            (
                "GitLab group",
                &g.gitlab_group,
                taking.teams.map(|t| &t.gitlab),
                "gitlab",
            ),
        ];
        for (what, team, read, forge) in forges {
            let Some(team) = team else { continue };
            let Some(logins) = read.and_then(|r| r.get(team)) else {
                if !taking.teams_required {
                    continue;
                }
                let (line, column) = g.at;
                return Err(PeopleError::At {
                    path: self.path.clone(),
                    line,
                    column,
                    message: format!(
                        "the group `{}` takes its members from the {what} {team}, which this run did not read: run `guildctl {forge} teams --out teams.json` with a token that can read it and set {TEAMS_ENV}=teams.json (the Action and the GitLab component do)",
                        g.name
                    ),
                });
            };
            for login in logins {
                let login_of = |p: &Person| match forge {
                    "github" => p.github.clone(),
                    _ => p.gitlab.clone(),
                };
                match self
                    .people
                    .iter()
                    .find(|p| login_of(p).is_some_and(|l| l.eq_ignore_ascii_case(login)))
                {
                    Some(p) if !members.iter().any(|m| m.discord == p.discord) => members.push(p),
                    Some(_) => {}
                    None => unknown.push(format!(
                        "{login} is in the {what} {team} (the group `{}`), but no one in {} has `{forge}: {login}`: give them an entry with their Discord id, or they hold none of its roles",
                        g.name,
                        self.path.display()
                    )),
                }
            }
        }
        Ok((members, unknown))
    }

    /// Guild `guild`'s rosters from the file: each role a person or a group names there,
    /// whether a group names it, the line that first names it, and its holders; and the
    /// warnings of the teams read (members no person has).
    fn rosters(
        &self,
        guild: &str,
        taking: Taking<'_>,
    ) -> Result<(BTreeMap<&str, Roster<'_>>, Vec<String>), PeopleError> {
        let mut out: BTreeMap<&str, Roster<'_>> = BTreeMap::new();
        let mut warnings = Vec::new();
        for g in &self.groups {
            let mine: Vec<_> = g.roles.iter().filter(|(gl, ..)| gl == guild).collect();
            if mine.is_empty() {
                continue;
            }
            let (members, unknown) = self.members_of(g, taking)?;
            warnings.extend(unknown);
            for (_, role, at) in mine {
                let r = out.entry(role.as_str()).or_insert_with(|| Roster::at(*at));
                r.by_group = true;
                for p in &members {
                    r.add(p);
                }
            }
        }
        for p in &self.people {
            for (_, role, at) in p.roles.iter().filter(|(gl, ..)| gl == guild) {
                out.entry(role.as_str())
                    .or_insert_with(|| Roster::at(*at))
                    .add(p);
            }
        }
        Ok((out, warnings))
    }

    /// `loaded` with guild `guild`'s rosters from the file: each role the file names there
    /// holds the manifest's `members:` and these people. A role the manifest does not
    /// declare, or one held directly that has no roster in it, is refused at the file's line.
    /// Also answers the warnings of the teams read: their members no person has.
    pub fn apply(
        &self,
        guild: &str,
        loaded: &LoadedManifest,
        taking: Taking<'_>,
    ) -> Result<(LoadedManifest, Vec<String>), PeopleError> {
        let (rosters, warnings) = self.rosters(guild, taking)?;
        if rosters.is_empty() {
            return Ok((loaded.clone(), warnings));
        }
        let at = |(line, column): Place, message: String| PeopleError::At {
            path: self.path.clone(),
            line,
            column,
            message,
        };
        let manifest_path = loaded.path.display().to_string();
        let mut manifest = (*loaded.manifest).clone();
        for (role_name, roster) in rosters {
            let Some(role) = manifest
                .roles
                .iter_mut()
                .flatten()
                .find(|r| r.name == role_name)
            else {
                return Err(at(
                    roster.at,
                    format!(
                        "`{role_name}` in {guild}: {manifest_path} declares no role of that name; declare it there, or correct the name"
                    ),
                ));
            };
            if role.members.is_none() && !roster.by_group {
                return Err(at(
                    roster.at,
                    format!(
                        "`{role_name}` in {guild} is held directly, but has no roster in {manifest_path}: write `members: []` under it there, so that its holders stay the people file's when the last one leaves"
                    ),
                ));
            }
            let members = role.members.get_or_insert_with(Vec::new);
            for p in roster.holders {
                if !members.iter().any(|m| m.id.0 == p.discord) {
                    // No `name`: the people file's name is not meant to be their
                    // username, which the plan would warn of.
                    members.push(RosterMember {
                        id: Snowflake(p.discord.clone()),
                        name: None,
                        person: None,
                    });
                }
            }
        }
        Ok((loaded.with_manifest(manifest), warnings))
    }
}

impl People {
    /// `manifest` with each roster entry written as `{ person: NAME }` given that person's
    /// id; the entries that name no person of the file, as (node path, name).
    pub fn resolve(&self, manifest: &mut super::Manifest) -> Vec<(String, String)> {
        let mut unknown = Vec::new();
        for (i, role) in manifest.roles.iter_mut().flatten().enumerate() {
            for (j, m) in role.members.iter_mut().flatten().enumerate() {
                let Some(name) = m.person.take() else {
                    continue;
                };
                match self.people.iter().find(|p| p.name == name) {
                    Some(p) => m.id = Snowflake(p.discord.clone()),
                    None => unknown.push((format!("roles[{i}].members[{j}].person"), name)),
                }
            }
        }
        unknown
    }
}

/// Whether any roster entry of `manifest` names a person (`{ person: NAME }`).
pub fn names_people(manifest: &super::Manifest) -> bool {
    manifest
        .roles
        .iter()
        .flatten()
        .flat_map(|r| r.members.iter().flatten())
        .any(|m| m.person.is_some())
}

/// One role's roster from the people file.
struct Roster<'a> {
    by_group: bool,
    at: Place,
    holders: Vec<&'a Person>,
}

impl<'a> Roster<'a> {
    fn at(at: Place) -> Self {
        Roster {
            by_group: false,
            at,
            holders: Vec::new(),
        }
    }

    fn add(&mut self, p: &'a Person) {
        if !self.holders.iter().any(|h| h.discord == p.discord) {
            self.holders.push(p);
        }
    }
}

fn parse(tree: &At<Node>) -> Found<People> {
    let Node::Map(top) = &tree.value else {
        return Err((loc(tree), "a people file has `people` and `groups`".into()));
    };
    let mut people = People::default();
    for (k, v) in top {
        match k.value.0.as_str() {
            "people" => {
                for (name, entry) in map(v, "`people` maps each person's name to them")? {
                    people.people.push(person(name, entry)?);
                }
            }
            "groups" => {
                for (name, entry) in map(v, "`groups` maps each group's name to it")? {
                    people.groups.push(group(name, entry)?);
                }
            }
            "version" => {}
            other => {
                return Err((
                    (k.loc.line, k.loc.column),
                    format!("unknown key `{other}`: a people file has `people` and `groups`"),
                ));
            }
        }
    }
    for p in &people.people {
        if let Some(g) = p
            .groups
            .iter()
            .find(|g| !people.groups.iter().any(|d| d.name == **g))
        {
            return Err((
                (p.line as u32, 1),
                format!(
                    "{} is in the group `{g}`, which `groups` does not define",
                    p.name
                ),
            ));
        }
        if let Some(other) = people
            .people
            .iter()
            .find(|o| o.discord == p.discord && o.name != p.name)
        {
            return Err((
                (p.line as u32, 1),
                format!(
                    "{} has the Discord id of {}: one person, one entry",
                    p.name, other.name
                ),
            ));
        }
    }
    Ok(people)
}

fn group(name: &str, entry: &At<Node>) -> Found<Group> {
    let mut g = Group {
        name: name.to_owned(),
        roles: Vec::new(),
        github_team: None,
        gitlab_group: None,
        at: place(entry),
    };
    let what = "a group has `roles` (guild names to role names), and optionally `github_team` and `gitlab_group`";
    for (k, v) in map(entry, what)? {
        match k {
            "roles" => {
                for (guild, role) in map(v, "`roles` maps guild names to role names")? {
                    g.roles
                        .push((guild.to_owned(), text(role, "a role's name")?, place(role)));
                }
            }
            "github_team" => {
                let team = text(v, "a GitHub team, `org/slug`")?;
                if team.split('/').filter(|p| !p.is_empty()).count() != 2 {
                    return Err((loc(v), format!("{name}: `github_team` is `org/slug`")));
                }
                g.github_team = Some(team);
            }
            "gitlab_group" => g.gitlab_group = Some(text(v, "a GitLab group's full path")?),
            other => return Err((loc(v), format!("{name}: unknown key `{other}` ({what})"))),
        }
    }
    Ok(g)
}

fn person(name: &str, entry: &At<Node>) -> Found<Person> {
    let mut p = Person {
        name: name.to_owned(),
        discord: String::new(),
        github: None,
        gitlab: None,
        roles: Vec::new(),
        groups: Vec::new(),
        line: entry.loc.line as usize,
    };
    for (k, v) in map(
        entry,
        "a person has `discord`, and optionally `github`, `gitlab`, `roles` and `groups`",
    )? {
        match k {
            "discord" => {
                let id = match &v.value {
                    Node::Scalar(ScalarNode {
                        kind: Scalar::Int(n),
                        ..
                    }) => n.to_string(),
                    _ => text(v, "a Discord user id")?,
                };
                if !(17..=20).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_digit()) {
                    return Err((
                        loc(v),
                        format!("{name}: `discord` is their user id, 17 to 20 digits"),
                    ));
                }
                p.discord = id;
            }
            "github" => p.github = Some(text(v, "a GitHub login")?),
            "gitlab" => p.gitlab = Some(text(v, "a GitLab username")?),
            "groups" => p.groups = texts(v, "a list of group names")?,
            "roles" => {
                for (guild, roles) in map(v, "`roles` maps guild names to the roles held there")? {
                    for role in texts(roles, "a list of role names")? {
                        p.roles.push((guild.to_owned(), role, place(roles)));
                    }
                }
            }
            other => {
                return Err((
                    loc(entry),
                    format!(
                        "{name}: unknown key `{other}` (a person has `discord`, `github`, `gitlab`, `roles` and `groups`)"
                    ),
                ));
            }
        }
    }
    if p.discord.is_empty() {
        return Err((loc(entry), format!("{name} needs `discord`: their user id")));
    }
    Ok(p)
}

/// Where a node is, as a message names it.
fn place(n: &At<Node>) -> Place {
    (n.loc.line as usize, n.loc.column as usize)
}

fn loc(n: &At<Node>) -> (u32, u32) {
    (n.loc.line, n.loc.column)
}

fn map<'t>(n: &'t At<Node>, what: &str) -> Found<Vec<(&'t str, &'t At<Node>)>> {
    match &n.value {
        Node::Map(entries) => Ok(entries
            .iter()
            .map(|(k, v)| (k.value.0.as_str(), v))
            .collect()),
        Node::Scalar(ScalarNode {
            kind: Scalar::Null, ..
        }) => Ok(Vec::new()),
        _ => Err((loc(n), what.to_owned())),
    }
}

fn text(n: &At<Node>, what: &str) -> Found<String> {
    match &n.value {
        Node::Scalar(ScalarNode {
            kind: Scalar::Str(s),
            ..
        }) if !s.trim().is_empty() => Ok(s.clone()),
        _ => Err((loc(n), format!("expected {what}"))),
    }
}

/// A list of texts, or one text.
fn texts(n: &At<Node>, what: &str) -> Found<Vec<String>> {
    match &n.value {
        Node::Seq(items) => items.iter().map(|i| text(i, what)).collect(),
        _ => text(n, what).map(|t| vec![t]),
    }
}

/// The people file a workspace names, read once per process while it stays as it was
/// (`source::kept`): every guild of a run takes its rosters from the same file.
pub fn cached(path: &Path, within: &Within) -> Result<Arc<People>, PeopleError> {
    source::kept(path, || People::read(path, within))
}
