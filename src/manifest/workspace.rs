//! The workspace file, `guildctl.yaml` at a repository's root: the guilds one repository
//! governs, each with its id and manifest.
//!
//! ```yaml
//! guilds:
//!   main:  { id: "81384788765712384", manifest: guilds/main.yaml }
//!   staff: { id: "81384788765712385", manifest: guilds/staff/ }
//! policies:            # kept by every guild's manifest (docs/access.md)
//!   - name: few-admins
//!     only: { who: [Admin], can: [administrator] }
//! ```
//!
//! The file is read with the manifest's YAML parser and limits, so its errors name the line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::owners::Owners;
use super::source::{self, WORKSPACE_FILE, Within};
use super::tree::{At, Node, Scalar, ScalarNode};

/// A workspace: where its file is and its guilds, in the file's order.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace file.
    pub path: PathBuf,
    /// Its folder: manifests' paths are relative to it, and bases must lie in it.
    pub root: PathBuf,
    /// Its guilds, in the file's order.
    pub guilds: Vec<WorkspaceGuild>,
    /// Which files may declare what (`owners:`).
    pub owners: Owners,
    /// The people file (`people:`), joined to the workspace's folder.
    pub people: Option<PathBuf>,
}

/// One guild of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceGuild {
    /// Its name in the workspace (`main`): letters, digits, `-` and `_`.
    pub name: String,
    /// The guild's id.
    pub id: String,
    /// The manifest (a file or a folder), joined to the workspace's folder.
    pub manifest: PathBuf,
    /// The workspace's folder: the manifest must stay inside it, symbolic links resolved.
    pub workspace: PathBuf,
    /// The workspace's `rate:`: how fast guildctl may send with the bot's token.
    pub rate: Rate,
    /// The environment variable that holds its bot's token (`token_env:`); none:
    /// `DISCORD_TOKEN`.
    pub token_env: Option<String>,
}

/// `rate:` in the workspace file (docs/workspace.md); `--max-rps` and `--global-limit`
/// take precedence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rate {
    /// guildctl's own requests a second at most, below the bot's limit.
    pub max_rps: Option<u32>,
    /// The bot's global limit, when Discord granted it more than 50.
    pub global_limit: Option<u32>,
}

impl WorkspaceGuild {
    /// Where the guild's manifest must stay: the workspace's folder.
    pub fn within(&self) -> Within {
        Within::workspace(&self.workspace)
    }
}

/// Why a workspace could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No workspace file in the folder or any above it.
    #[error(
        "no workspace file: --all and --guilds need a {WORKSPACE_FILE} in this folder or one above it (guilds: {{ NAME: {{ id: \"…\", manifest: PATH }} }})"
    )]
    NotFound,
    /// The workspace file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The workspace file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The workspace file is not a valid workspace, at this place.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The workspace file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// A guild asked for by name that the workspace does not have.
    #[error("the workspace {path} has no guild named {name:?} (it has: {known})")]
    UnknownGuild {
        /// The workspace file.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The names it has, in words.
        known: String,
    },
}

impl Workspace {
    /// Finds the workspace file in `start` or the nearest folder above it, and reads it.
    pub fn find(start: &Path) -> Result<Workspace, WorkspaceError> {
        let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
        let file = source::workspace_file_above(&start, None).ok_or(WorkspaceError::NotFound)?;
        let mut ws = Workspace::read(&file)?;
        // Named from the working folder when they lie in it, as a repository's checkout
        // names them: messages, reports and annotations (which GitHub places by a path
        // relative to the checkout) show `guilds/main.yaml`, not the runner's folders.
        ws.path = shown_from_working_folder(&ws.path);
        for g in &mut ws.guilds {
            g.manifest = shown_from_working_folder(&g.manifest);
        }
        ws.people = ws.people.map(|p| shown_from_working_folder(&p));
        Ok(ws)
    }

    /// The workspace file in `start` or the nearest folder above it, read as [`Workspace::find`]
    /// reads it, once per process while it stays as it was: each guild of a run asks for
    /// its workspace (owners, people), and a run over N guilds reads it once.
    pub fn find_kept(start: &Path) -> Result<Arc<Workspace>, WorkspaceError> {
        let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
        let file = source::workspace_file_above(&start, None).ok_or(WorkspaceError::NotFound)?;
        source::kept(&file, || Workspace::find(&start))
    }

    /// Reads the workspace file at `path`.
    pub fn read(path: &Path) -> Result<Workspace, WorkspaceError> {
        let text = source::read_text(path, &Within::given(path)).map_err(|message| {
            WorkspaceError::Read {
                path: path.to_path_buf(),
                message,
            }
        })?;
        let root = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let (guilds, owners, people) = parse(path, &root, &text)?;
        Ok(Workspace {
            path: path.to_path_buf(),
            root,
            guilds,
            owners,
            people,
        })
    }

    /// The guilds named (each once, in the order given), or all of them for `None`.
    pub fn select(&self, names: Option<&[String]>) -> Result<Vec<WorkspaceGuild>, WorkspaceError> {
        let Some(names) = names else {
            return Ok(self.guilds.clone());
        };
        let mut out: Vec<WorkspaceGuild> = Vec::new();
        for name in names {
            let name = name.trim();
            let g = self.guilds.iter().find(|g| g.name == name).ok_or_else(|| {
                WorkspaceError::UnknownGuild {
                    path: self.path.clone(),
                    name: name.to_owned(),
                    known: self
                        .guilds
                        .iter()
                        .map(|g| g.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?;
            if !out.contains(g) {
                out.push(g.clone());
            }
        }
        Ok(out)
    }
}

/// `path` (absolute, links resolved) relative to the working folder when it lies inside
/// it; otherwise as it is.
fn shown_from_working_folder(path: &Path) -> PathBuf {
    std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
}

/// A `rate:` mapping (the workspace's, or one bot's under `bots:`), named `what` in
/// messages.
fn parse_rate(v: &At<Node>, what: &str) -> Result<Rate, ((u32, u32), String)> {
    let Node::Map(fields) = &v.value else {
        return Err((
            (v.loc.line, v.loc.column),
            format!("`{what}` has `max_rps` and `global_limit`, requests a second"),
        ));
    };
    let mut rate = Rate::default();
    for (fk, fv) in fields {
        let n = match &fv.value {
            Node::Scalar(ScalarNode {
                kind: Scalar::Int(n),
                ..
            }) => u32::try_from(*n).ok().filter(|n| (1..=100_000).contains(n)),
            _ => None,
        };
        let key = fk.value.0.as_str();
        let n = n.ok_or_else(|| {
            (
                (fv.loc.line, fv.loc.column),
                format!("`{what}.{key}` is a number of requests a second, at least 1"),
            )
        });
        match key {
            "max_rps" => rate.max_rps = Some(n?),
            "global_limit" => rate.global_limit = Some(n?),
            other => {
                return Err((
                    (fk.loc.line, fk.loc.column),
                    format!(
                        "unknown key `{what}.{other}`: `{what}` has `max_rps` and `global_limit`"
                    ),
                ));
            }
        }
    }
    Ok(rate)
}

fn parse(
    path: &Path,
    root: &Path,
    text: &str,
) -> Result<(Vec<WorkspaceGuild>, Owners, Option<PathBuf>), WorkspaceError> {
    let invalid = |loc: (u32, u32), message: String| WorkspaceError::Invalid {
        path: path.to_path_buf(),
        line: loc.0.max(1) as usize,
        column: loc.1.max(1) as usize,
        message,
    };
    let at = |n: &At<Node>| (n.loc.line, n.loc.column);
    let tree = super::load::parse_tree(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map_or((1, 1), |l| (l.line() as u32, l.column() as u32));
        invalid(
            (line, column),
            format!("invalid YAML: {}", e.without_snippet()),
        )
    })?;
    let Node::Map(top) = &tree.value else {
        return Err(invalid(
            at(&tree),
            "a workspace file is a mapping: `guilds: { NAME: { id: \"…\", manifest: PATH } }`"
                .into(),
        ));
    };
    let mut guilds_node = None;
    let mut rate = Rate::default();
    let mut bots: Vec<(String, Rate, (u32, u32))> = Vec::new();
    let mut owners = Owners::default();
    let mut people = None;
    for (k, v) in top {
        match k.value.0.as_str() {
            "guilds" => guilds_node = Some(v),
            "rate" => rate = parse_rate(v, "rate").map_err(|(loc, m)| invalid(loc, m))?,
            // Each bot's own `rate:`, by the variable that holds its token.
            "bots" => {
                let Node::Map(entries) = &v.value else {
                    return Err(invalid(
                        at(v),
                        "`bots` maps a token's variable (DISCORD_TOKEN, or a guild's `token_env`) to its `max_rps` and `global_limit`".into(),
                    ));
                };
                for (bk, bv) in entries {
                    let var = bk.value.0.clone();
                    let what = format!("bots.{var}");
                    let r = parse_rate(bv, &what).map_err(|(loc, m)| invalid(loc, m))?;
                    bots.push((var, r, (bk.loc.line, bk.loc.column)));
                }
            }
            "version" => match &v.value {
                Node::Scalar(ScalarNode {
                    kind: Scalar::Int(1),
                    ..
                }) => {}
                _ => return Err(invalid(at(v), "`version` is 1, the only version".into())),
            },
            // Every guild's manifest takes them, and checks them (manifest::load).
            "policies" => {}
            "owners" => owners = super::owners::parse(v).map_err(|(at, m)| invalid(at, m))?,
            "people" => {
                let rel = match &v.value {
                    Node::Scalar(ScalarNode {
                        kind: Scalar::Str(s),
                        ..
                    }) if !s.trim().is_empty() => Path::new(s),
                    _ => {
                        return Err(invalid(
                            at(v),
                            "`people` is the path of the people file, relative to this folder"
                                .into(),
                        ));
                    }
                };
                if rel.is_absolute()
                    || rel
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir))
                {
                    return Err(invalid(
                        at(v),
                        "`people` is a path inside the workspace's folder, relative to it".into(),
                    ));
                }
                people = Some(root.join(rel));
            }
            other => {
                return Err(invalid(
                    (k.loc.line, k.loc.column),
                    format!(
                        "unknown key `{other}`: a workspace file has `version`, `guilds`, `policies`, `rate`, `bots`, `owners` and `people`"
                    ),
                ));
            }
        }
    }
    let Some(guilds) = guilds_node else {
        return Err(invalid(
            at(&tree),
            "the workspace file has no `guilds:`".into(),
        ));
    };
    let Node::Map(entries) = &guilds.value else {
        return Err(invalid(
            at(guilds),
            "`guilds` maps each guild's name to its `id` and `manifest`".into(),
        ));
    };
    if entries.is_empty() {
        return Err(invalid(at(guilds), "`guilds` is empty".into()));
    }
    let mut out: Vec<WorkspaceGuild> = Vec::new();
    for (k, v) in entries {
        let name = k.value.0.clone();
        let kloc = (k.loc.line, k.loc.column);
        if name.is_empty()
            || name.len() > 64
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(invalid(
                kloc,
                format!(
                    "guild name {name:?}: use letters, digits, `-` and `_` (at most 64); it names the guild's plan and comment"
                ),
            ));
        }
        if out.iter().any(|g| g.name == name) {
            return Err(invalid(kloc, format!("guild `{name}` is listed twice")));
        }
        let Node::Map(fields) = &v.value else {
            return Err(invalid(
                at(v),
                format!("guild `{name}` needs `id` and `manifest`"),
            ));
        };
        let (mut id, mut manifest, mut token_env) = (None, None, None);
        for (fk, fv) in fields {
            let text = match &fv.value {
                Node::Scalar(ScalarNode {
                    kind: Scalar::Str(s),
                    ..
                }) => Some(s.clone()),
                _ => None,
            };
            match fk.value.0.as_str() {
                "id" => {
                    let id_text = text.filter(|s| {
                        (17..=20).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
                    });
                    id = Some(id_text.ok_or_else(|| {
                        invalid(
                            at(fv),
                            format!(
                                "guild `{name}`: `id` is the guild's id as a quoted string of 17 to 20 digits"
                            ),
                        )
                    })?);
                }
                "manifest" => {
                    let rel = text.filter(|s| !s.trim().is_empty()).ok_or_else(|| {
                        invalid(
                            at(fv),
                            format!("guild `{name}`: `manifest` is the path of its manifest file or folder"),
                        )
                    })?;
                    let rel_path = Path::new(&rel);
                    if rel_path.is_absolute()
                        || rel_path
                            .components()
                            .any(|c| matches!(c, std::path::Component::ParentDir))
                    {
                        return Err(invalid(
                            at(fv),
                            format!(
                                "guild `{name}`: `manifest` is a path inside the workspace's folder, relative to it"
                            ),
                        ));
                    }
                    manifest = Some(root.join(rel_path));
                }
                "token_env" => {
                    let var = text.filter(|s| {
                        !s.is_empty()
                            && s.len() <= 64
                            && !s.starts_with(|c: char| c.is_ascii_digit())
                            && s.bytes()
                                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                    });
                    token_env = Some(var.ok_or_else(|| {
                        invalid(
                            at(fv),
                            format!(
                                "guild `{name}`: `token_env` names the environment variable that holds its bot's token (A-Z, 0-9 and _), never the token"
                            ),
                        )
                    })?);
                }
                other => {
                    return Err(invalid(
                        (fk.loc.line, fk.loc.column),
                        format!(
                            "guild `{name}`: unknown key `{other}` (a guild has `id`, `manifest` and `token_env`)"
                        ),
                    ));
                }
            }
        }
        let (Some(id), Some(manifest)) = (id, manifest) else {
            return Err(invalid(
                at(v),
                format!("guild `{name}` needs both `id` and `manifest`"),
            ));
        };
        if let Some(other) = out.iter().find(|g| g.id == id) {
            return Err(invalid(
                at(v),
                format!(
                    "guild `{name}` has the id of `{}`: one guild, one manifest",
                    other.name
                ),
            ));
        }
        let var = token_env.as_deref().unwrap_or("DISCORD_TOKEN");
        let rate = match bots.iter().find(|(v, ..)| v == var) {
            Some((_, own, _)) => Rate {
                max_rps: own.max_rps.or(rate.max_rps),
                global_limit: own.global_limit.or(rate.global_limit),
            },
            None => rate,
        };
        out.push(WorkspaceGuild {
            name,
            id,
            manifest,
            workspace: root.to_path_buf(),
            rate,
            token_env,
        });
    }
    if let Some((var, _, loc)) = bots.iter().find(|(var, ..)| {
        !out.iter()
            .any(|g| g.token_env.as_deref().unwrap_or("DISCORD_TOKEN") == var)
    }) {
        return Err(invalid(
            *loc,
            format!(
                "`bots.{var}`: no guild's bot token is in {var} (DISCORD_TOKEN, or a guild's `token_env`)"
            ),
        ));
    }
    Ok((out, owners, people))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(text: &str) -> Result<Vec<WorkspaceGuild>, WorkspaceError> {
        parse(Path::new("guildctl.yaml"), Path::new("repo"), text).map(|(guilds, ..)| guilds)
    }

    #[test]
    fn reads_guilds_in_order() {
        let g = ws("guilds:\n  main: { id: \"81384788765712384\", manifest: guilds/main.yaml }\n  staff:\n    id: \"81384788765712385\"\n    manifest: guilds/staff/\n").unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].name, "main");
        assert_eq!(g[1].manifest, Path::new("repo/guilds/staff/"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = ws("guilds:\n  main: { id: 5, manifest: a.yaml }\n").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("guildctl.yaml:2:"), "{text}");
        assert!(text.contains("quoted string"), "{text}");
        let e = ws("guilds:\n  main: { id: \"81384788765712384\", manifest: ../x.yaml }\n")
            .unwrap_err();
        assert!(e.to_string().contains("inside the workspace"), "{e}");
        let e = ws("guilds:\n  a: { id: \"81384788765712384\", manifest: a.yaml }\n  b: { id: \"81384788765712384\", manifest: b.yaml }\n").unwrap_err();
        assert!(e.to_string().starts_with("guildctl.yaml:3:"), "{e}");
    }

    #[test]
    fn rate_is_read_and_checked_at_its_line() {
        let text = "guilds:\n  main: { id: \"81384788765712384\", manifest: main.yaml }\nrate:\n  max_rps: 20\n  global_limit: 120\n";
        let guilds = ws(text).unwrap();
        assert_eq!(
            guilds[0].rate,
            Rate {
                max_rps: Some(20),
                global_limit: Some(120)
            }
        );
        let bad = "guilds:\n  main: { id: \"81384788765712384\", manifest: main.yaml }\nrate:\n  max_rps: 0\n";
        let e = ws(bad).unwrap_err().to_string();
        assert!(e.contains(":4:"), "{e}");
        assert!(e.contains("rate.max_rps"), "{e}");
        // Each bot's own rate, over the workspace's.
        let bots = "guilds:\n  main: { id: \"81384788765712384\", manifest: main.yaml }\n  events: { id: \"81384788765712385\", manifest: e.yaml, token_env: EVENTS_BOT_TOKEN }\nrate:\n  max_rps: 20\nbots:\n  EVENTS_BOT_TOKEN: { global_limit: 120 }\n";
        let guilds = ws(bots).unwrap();
        assert_eq!(
            guilds[0].rate,
            Rate {
                max_rps: Some(20),
                global_limit: None
            }
        );
        assert_eq!(
            guilds[1].rate,
            Rate {
                max_rps: Some(20),
                global_limit: Some(120)
            }
        );
        let stray = bots.replace("bots:\n  EVENTS_BOT_TOKEN", "bots:\n  EVENT_BOT_TOKEN");
        let e = ws(&stray).unwrap_err().to_string();
        assert!(
            e.contains("guildctl.yaml:7:3")
                && e.contains("no guild's bot token is in EVENT_BOT_TOKEN"),
            "{e}"
        );
        let unknown = "guilds:\n  main: { id: \"81384788765712384\", manifest: main.yaml }\nrate:\n  burst: 3\n";
        assert!(
            ws(unknown)
                .unwrap_err()
                .to_string()
                .contains("unknown key `rate.burst`")
        );
    }
}
