//! `owners:` in the workspace file: which manifest files may declare what
//! (docs/workspace.md, "Owners by path").
//!
//! ```yaml
//! owners:
//!   default: ["@ferris/admins"]          # everything not delegated, guildctl.yaml included
//!   delegate:
//!     - files: guilds/de.yaml            # a path or a pattern (`*`, `**`), from this folder
//!       teams: ["@ferris/de-mods"]
//!       sections: [roles, channels]      # the top-level sections it may write
//!       roles: ["DE *"]                  # the roles it may declare, by name
//!       channels: ["DE/**"]              # the channels, by path (and the category `DE`)
//!       cannot_grant: [administrator]    # in any `permissions:` or `allow:` it writes
//! ```
//!
//! What a file declares is read from the file's own text, as its author wrote it: a base
//! it extends is its own file, judged by its own delegation. A file no delegation matches
//! is the default owners' (CODEOWNERS' `*`, which `guildctl codeowners` writes), so a new
//! file in a pull request is reviewed by them.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use super::diagnostic::{Located, Report, Severity};
use super::pattern::ChannelPattern;
use super::source::WORKSPACE_FILE;
use super::source_map::Span;
use super::tree::{At, Node, Scalar, ScalarNode};
use crate::permissions::Permissions;

/// The workspace's `owners:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owners {
    /// Who owns what no delegation names, the workspace file included (CODEOWNERS' `*`).
    pub default: Vec<String>,
    /// The delegations, in the file's order. A file takes the last one that matches it,
    /// as CODEOWNERS does.
    pub delegate: Vec<Delegation>,
}

/// One delegation: the files it names, their owners and what they may declare (each
/// `None`: anything).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegation {
    /// A path or pattern, relative to the workspace's folder (`guilds/de.yaml`, `guilds/de/**`).
    pub files: String,
    /// Their owners in CODEOWNERS (`@org/team`, `@user`, an e-mail address).
    pub teams: Vec<String>,
    /// The top-level sections they may write (`version` and `extends` always).
    pub sections: Option<Vec<String>>,
    /// The roles they may declare, by name pattern.
    pub roles: Option<Vec<String>>,
    /// The channels they may declare, by path pattern; `DE/*` covers the category `DE`.
    pub channels: Option<Vec<String>>,
    /// Permissions they may not write in a `permissions:` or `allow:` list.
    pub cannot_grant: Vec<String>,
    /// Its line in the workspace file, for messages.
    pub line: usize,
}

impl Owners {
    /// The delegation a file (relative to the workspace's folder, with `/`) is under.
    pub fn of(&self, file: &str) -> Option<&Delegation> {
        self.delegate
            .iter()
            .rev()
            .find(|d| pattern_matches(&d.files, file))
    }
}

fn pattern_matches(pattern: &str, text: &str) -> bool {
    ChannelPattern::new(pattern).is_ok_and(|p| p.matches(text))
}

/// `owners:` read from the workspace file's tree: Err((line, column), message).
pub(super) fn parse(node: &At<Node>) -> Result<Owners, ((u32, u32), String)> {
    let at = |n: &At<Node>| (n.loc.line, n.loc.column);
    let Node::Map(fields) = &node.value else {
        return Err((at(node), "`owners` has `default` and `delegate`".into()));
    };
    let mut owners = Owners::default();
    for (k, v) in fields {
        match k.value.0.as_str() {
            "default" => owners.default = strings(v, "owners.default")?,
            "delegate" => {
                let Node::Seq(items) = &v.value else {
                    return Err((at(v), "`owners.delegate` is a list of delegations".into()));
                };
                for item in items {
                    owners.delegate.push(delegation(item)?);
                }
            }
            other => {
                return Err((
                    (k.loc.line, k.loc.column),
                    format!("unknown key `owners.{other}`: `owners` has `default` and `delegate`"),
                ));
            }
        }
    }
    Ok(owners)
}

fn delegation(item: &At<Node>) -> Result<Delegation, ((u32, u32), String)> {
    let at = (item.loc.line, item.loc.column);
    let Node::Map(fields) = &item.value else {
        return Err((
            at,
            "a delegation is a mapping: `files`, `teams`, and what they may declare".into(),
        ));
    };
    let mut d = Delegation {
        files: String::new(),
        teams: Vec::new(),
        sections: None,
        roles: None,
        channels: None,
        cannot_grant: Vec::new(),
        line: item.loc.line as usize,
    };
    for (k, v) in fields {
        let key = k.value.0.as_str();
        let what = format!("owners.delegate[].{key}");
        match key {
            "files" => {
                let files = string(v, &what)?;
                let rel = Path::new(&files);
                if files.trim().is_empty()
                    || rel.is_absolute()
                    || rel
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir))
                {
                    return Err((
                        (v.loc.line, v.loc.column),
                        format!(
                            "`{what}` is a path or pattern inside the workspace's folder, relative to it"
                        ),
                    ));
                }
                // The workspace file holds the delegations: whoever may change it may
                // change what every file may declare, so it stays the default owners'.
                if pattern_matches(&files, WORKSPACE_FILE) {
                    return Err((
                        (v.loc.line, v.loc.column),
                        format!(
                            "`{files}` takes in {WORKSPACE_FILE}, which stays the default owners': name the manifests it delegates"
                        ),
                    ));
                }
                d.files = files;
            }
            "teams" => d.teams = strings(v, &what)?,
            "sections" => d.sections = Some(strings(v, &what)?),
            "roles" => d.roles = Some(patterns(v, &what)?),
            "channels" => d.channels = Some(patterns(v, &what)?),
            "cannot_grant" => {
                let names = strings(v, &what)?;
                if let Some(bad) = names.iter().find(|n| Permissions::parse_name(n).is_none()) {
                    return Err((
                        (v.loc.line, v.loc.column),
                        format!(
                            "`{bad}` in `{what}` is not a permission's name (`administrator`, `manage_roles`, ...)"
                        ),
                    ));
                }
                d.cannot_grant = names;
            }
            other => {
                return Err((
                    (k.loc.line, k.loc.column),
                    format!(
                        "unknown key `{other}` in a delegation: it has `files`, `teams`, `sections`, `roles`, `channels` and `cannot_grant`"
                    ),
                ));
            }
        }
    }
    if d.files.is_empty() {
        return Err((
            at,
            "a delegation needs `files`: the manifests it names".into(),
        ));
    }
    Ok(d)
}

fn string(v: &At<Node>, what: &str) -> Result<String, ((u32, u32), String)> {
    match &v.value {
        Node::Scalar(ScalarNode {
            kind: Scalar::Str(s),
            ..
        }) => Ok(s.clone()),
        _ => Err(((v.loc.line, v.loc.column), format!("`{what}` is a text"))),
    }
}

/// A list of texts, or one text for a list of one.
fn strings(v: &At<Node>, what: &str) -> Result<Vec<String>, ((u32, u32), String)> {
    match &v.value {
        Node::Seq(items) => items.iter().map(|i| string(i, what)).collect(),
        _ => string(v, what)
            .map(|s| vec![s])
            .map_err(|(at, _)| (at, format!("`{what}` is a list of texts"))),
    }
}

fn patterns(v: &At<Node>, what: &str) -> Result<Vec<String>, ((u32, u32), String)> {
    let list = strings(v, what)?;
    if let Some(e) = list.iter().find_map(|p| ChannelPattern::new(p).err()) {
        return Err(((v.loc.line, v.loc.column), format!("`{what}`: {e}")));
    }
    Ok(list)
}

/// Adds to `report` what the manifest's files declare outside their delegation in
/// `owners` (the workspace's, whose folder is `root`), placed on their lines.
/// `trees` are the files' YAML trees as the load parsed them (file index, tree): each is
/// read as written, never parsed again.
pub(super) fn check(
    report: &mut Report,
    owners: &Owners,
    root: &Path,
    trees: &[(usize, Arc<At<Node>>)],
) {
    if owners.delegate.is_empty() {
        return;
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut found = Vec::new();
    for (index, f) in report.files.iter().enumerate() {
        let Some(rel) = std::fs::canonicalize(&f.path)
            .ok()
            .and_then(|p| p.strip_prefix(&root).ok().map(Path::to_path_buf))
        else {
            continue;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        let Some(d) = owners.of(&rel) else {
            continue;
        };
        let Some((_, tree)) = trees.iter().find(|(file, _)| *file == index) else {
            continue; // a file the load could not read: the report says so already
        };
        let mut file = FileCheck {
            file: index,
            rel: &rel,
            d,
            found: &mut found,
        };
        file.top(tree);
    }
    report.items.extend(found);
}

/// An error of the `owners` rule.
pub(super) fn owners_error(span: Option<Span>, message: String, help: String) -> Located {
    Located {
        severity: Severity::Error,
        rule: Cow::Borrowed("owners"),
        message,
        help: Some(help),
        path: String::new(),
        span,
        related: Vec::new(),
    }
}

/// One file's text against its delegation.
struct FileCheck<'a> {
    file: usize,
    rel: &'a str,
    d: &'a Delegation,
    found: &'a mut Vec<Located>,
}

impl FileCheck<'_> {
    fn refuse<T>(&mut self, node: &At<T>, len: usize, what: String, may: String) {
        let span = Span {
            file: self.file,
            line: node.loc.line as usize,
            column: node.loc.column as usize,
            len: len.max(1),
        };
        let message = format!(
            "{} may not {what}: {WORKSPACE_FILE} (`owners`, line {}) {may}",
            self.rel, self.d.line
        );
        let help = "move it to a file its owners may declare it in, or ask the workspace's default owners to widen the delegation".into();
        self.found.push(owners_error(Some(span), message, help));
    }

    fn top(&mut self, tree: &At<Node>) {
        let Node::Map(entries) = &tree.value else {
            return;
        };
        for (k, v) in entries {
            let section = k.value.0.as_str();
            if let Some(allowed) = &self.d.sections
                && !matches!(section, "version" | "extends")
                && !allowed.iter().any(|s| s == section)
            {
                let may = format!("lets it declare the sections {}", allowed.join(", "));
                let what = format!("declare `{section}`");
                self.refuse(k, section.chars().count(), what, may);
            }
            match section {
                "roles" => self.roles(v),
                "channels" => self.channels(v, None),
                _ => {}
            }
        }
        self.grants(tree);
    }

    fn roles(&mut self, list: &At<Node>) {
        let Some(patterns) = &self.d.roles else {
            return;
        };
        for (name_node, name) in named_items(list) {
            if !patterns.iter().any(|p| pattern_matches(p, &name)) {
                let may = format!("lets it declare roles named {}", quoted(patterns));
                let what = format!("declare the role `{name}`");
                self.refuse(name_node, name.chars().count(), what, may);
            }
        }
    }

    fn channels(&mut self, list: &At<Node>, parent: Option<&str>) {
        let Node::Seq(items) = &list.value else {
            return;
        };
        for item in items {
            let Some((name_node, name)) = name_of(item) else {
                continue;
            };
            let path = parent.map_or_else(|| name.clone(), |p| format!("{p}/{name}"));
            let nested = field(item, "channels");
            if let Some(patterns) = &self.d.channels {
                // A category is the delegation's when its channels could be: `DE/*`
                // covers the category `DE` as well as what is in it.
                let inside = format!("{path}/x");
                let allowed = patterns.iter().any(|p| {
                    pattern_matches(p, &path) || (is_category(item) && pattern_matches(p, &inside))
                });
                if !allowed {
                    let may = format!("lets it declare the channels {}", quoted(patterns));
                    let what = format!("declare the channel `{path}`");
                    self.refuse(name_node, name.chars().count(), what, may);
                }
            }
            if let Some(nested) = nested {
                self.channels(nested, Some(&path));
            }
        }
    }

    /// Every `permissions:` and `allow:` list in the file, wherever it is.
    fn grants(&mut self, node: &At<Node>) {
        if self.d.cannot_grant.is_empty() {
            return;
        }
        match &node.value {
            Node::Map(entries) => {
                for (k, v) in entries {
                    if matches!(k.value.0.as_str(), "permissions" | "allow") {
                        for (at, name) in texts(v) {
                            if self.d.cannot_grant.contains(&name) {
                                let may =
                                    format!("keeps {} from it", self.d.cannot_grant.join(", "));
                                let what = format!("grant `{name}`");
                                self.refuse(at, name.chars().count(), what, may);
                            }
                        }
                    } else {
                        self.grants(v);
                    }
                }
            }
            Node::Seq(items) => items.iter().for_each(|i| self.grants(i)),
            Node::Scalar(_) => {}
        }
    }
}

fn quoted(patterns: &[String]) -> String {
    patterns
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn field<'t>(item: &'t At<Node>, key: &str) -> Option<&'t At<Node>> {
    let Node::Map(entries) = &item.value else {
        return None;
    };
    entries
        .iter()
        .find(|(k, _)| k.value.0 == key)
        .map(|(_, v)| v)
}

fn text(node: &At<Node>) -> Option<&str> {
    match &node.value {
        Node::Scalar(ScalarNode {
            kind: Scalar::Str(s),
            ..
        }) => Some(s),
        _ => None,
    }
}

fn name_of(item: &At<Node>) -> Option<(&At<Node>, String)> {
    let node = field(item, "name")?;
    Some((node, text(node)?.to_owned()))
}

fn named_items(list: &At<Node>) -> Vec<(&At<Node>, String)> {
    match &list.value {
        Node::Seq(items) => items.iter().filter_map(name_of).collect(),
        _ => Vec::new(),
    }
}

fn is_category(item: &At<Node>) -> bool {
    field(item, "channels").is_some() || field(item, "type").and_then(text) == Some("category")
}

/// The texts of a list, or a lone text.
fn texts(node: &At<Node>) -> Vec<(&At<Node>, String)> {
    match &node.value {
        Node::Seq(items) => items
            .iter()
            .filter_map(|i| Some((i, text(i)?.to_owned())))
            .collect(),
        _ => text(node)
            .map(|t| vec![(node, t.to_owned())])
            .unwrap_or_default(),
    }
}

/// Why a CODEOWNERS file cannot be written from `owners:`.
#[derive(Debug, thiserror::Error)]
pub enum CodeownersError {
    /// No default owners: the workspace file would be nobody's.
    #[error(
        "{WORKSPACE_FILE} names no default owners (`owners.default`): CODEOWNERS would leave {WORKSPACE_FILE}, which says who may declare what, without a reviewer"
    )]
    NoDefault,
}

impl Owners {
    /// A CODEOWNERS file matching the delegations, for GitHub or GitLab: the default owners
    /// on every file (`*`), each delegation's files to its teams, then the workspace file and
    /// where CODEOWNERS lives back to the default owners, last so nothing overrides them.
    /// `prefix`: the workspace's folder from the repository's root (empty at the root).
    pub fn codeowners(&self, prefix: &str) -> Result<String, CodeownersError> {
        if self.default.is_empty() {
            return Err(CodeownersError::NoDefault);
        }
        let at = |path: &str| {
            let prefix = prefix.trim_matches('/');
            if prefix.is_empty() {
                format!("/{path}")
            } else {
                format!("/{prefix}/{path}")
            }
        };
        let default = self.default.join(" ");
        let mut out = format!(
            "# Written by `guildctl codeowners` from {} (`owners:`); write it again when they\n\
             # change (`guildctl codeowners --check FILE` in CI says when it is out of date).\n\
             * {default}\n",
            at(WORKSPACE_FILE)
        );
        for d in self.delegate.iter().filter(|d| !d.teams.is_empty()) {
            out.push_str(&format!("{} {}\n", at(&d.files), d.teams.join(" ")));
        }
        out.push_str(&format!("{} {default}\n", at(WORKSPACE_FILE)));
        for place in ["/CODEOWNERS", "/.github/", "/.gitlab/", "/docs/CODEOWNERS"] {
            out.push_str(&format!("{place} {default}\n"));
        }
        Ok(out)
    }
}
