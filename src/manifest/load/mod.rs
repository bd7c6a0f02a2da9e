//! Loading a manifest, one file or a folder of files, in stages that each report every problem
//! they find before the next one runs:
//!
//! 1. **read** ([`super::source`]): size limits, UTF-8;
//! 2. **syntax** (`parse`): YAML 1.2 into a tree with positions, within a parse budget
//!    (depth, nodes, aliases, one document); what is wrong said in words (`wording`);
//! 3. **version** (`merge`): `version: 1`, before the shape is looked at (a future format
//!    may not fit);
//! 4. **merge** (`merge`): a folder's files merged by top-level section, into one JSON value
//!    and a [`SourceMap`] from node paths (`roles[2].name`) to file, line and column; then
//!    the layers under it (`layers`): its bases (`extends:`) and the workspace's policies;
//! 5. **schema**: the value against the generated JSON schema (every violation at once);
//! 6. **type**: the typed [`Manifest`] from the value.
//!
//! This file holds the loaded manifest, the load error, the entry points and stages 5 and 6.
//! The semantic checks ([`super::check`]) run on the result.

mod comments;
mod layers;
mod merge;
mod parse;
mod wording;

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::diagnostic::{Diagnostic, Located, Report, Severity};
use super::shared::Derived;
use super::source::{self, SourceFile, Within};
use super::source_map::{SourceMap, Span};
use super::types::Manifest;
use layers::extend;
use merge::{check_files, merge, merged_value};
use parse::{normalize_breaks, parse_files};
use std::sync::OnceLock;
use wording::{serde_path, type_hint, type_message};

pub use merge::is_split_list;
pub(super) use parse::parse_tree;
#[cfg(feature = "test-hooks")]
pub use parse::{assert_parses_agree, parses_fast};

/// The only manifest format version.
pub const MANIFEST_VERSION: u32 = 1;

/// How deep YAML may nest (mappings and lists). The deepest manifest node
/// (`onboarding.prompts[].options[].emoji.id`) is at depth 7.
pub const MAX_DEPTH: usize = 32;
/// The most YAML nodes (scalars, mappings, lists) a file may have, aliases expanded.
pub const MAX_NODES: usize = 250_000;
/// The most aliases (`*name`) a file may use.
pub const MAX_ALIASES: usize = 1_000;

/// A parsed manifest with its files' text and node locations.
#[derive(Debug, Clone)]
pub struct LoadedManifest {
    /// What `-f` named: the manifest file, or the folder of its files.
    pub path: PathBuf,
    /// Whether `path` is a folder.
    pub is_dir: bool,
    /// The files, in merge order (one for a file manifest).
    pub files: Vec<SourceFile>,
    /// Shared with every load of the same content in this process (`manifest::shared`).
    pub manifest: Arc<Manifest>,
    /// Where each node of the manifest is (file, line, column), for placing findings.
    pub locations: SourceMap,
    /// What the load stages said of a manifest they took: warnings (a text cut short by a
    /// `#`, `yaml-comment`), placed. [`super::check_report`] puts them first in the report.
    pub load_warnings: Vec<Located>,
    /// [`Self::stored`] and the checks' findings, made once per content: the checks and the
    /// plan both read the stored form.
    derived: Arc<Derived>,
}

impl LoadedManifest {
    /// The manifest as Discord will store it ([`super::stored::as_stored`]), which the
    /// checks check and the plan plans.
    pub fn stored(&self) -> &Manifest {
        self.derived
            .stored
            .get_or_init(|| super::stored::as_stored(&self.manifest))
    }

    /// The manifest as it applies to another guild (`plan --like`, `apply --like`): `guild:`
    /// and every id it pins (roles, channels, forum tags, webhooks, expressions, events,
    /// AutoMod rules) left out, so each entry is matched by name. What it names outside
    /// the guild (users, applications, a followed channel) stays.
    pub fn like(&self) -> LoadedManifest {
        let mut manifest = (*self.manifest).clone();
        manifest.unpin();
        self.with_manifest(manifest)
    }

    /// This load with `manifest` in place of its own (made from it: `like`, the people
    /// file's rosters), its derived forms made anew; its files and places stay.
    pub fn with_manifest(&self, manifest: super::Manifest) -> LoadedManifest {
        let manifest = Arc::new(manifest);
        LoadedManifest {
            derived: Arc::new(Derived {
                manifest: Arc::clone(&manifest),
                stored: OnceLock::new(),
                checks: OnceLock::new(),
                digest: OnceLock::new(),
            }),
            manifest,
            ..self.clone()
        }
    }

    /// The rules' findings ([`super::check::check_loaded_by_rule`] without the file
    /// checks), made by `check` the first time any load of this content asks.
    pub(super) fn checked(
        &self,
        check: impl FnOnce(&Self) -> Vec<(&'static str, Diagnostic)>,
    ) -> &[(&'static str, Diagnostic)] {
        self.derived.checks.get_or_init(|| check(self))
    }

    /// The content digest (`plan::binding::manifest_digest`), made by `digest` the first
    /// time any load of this content asks: the same files in the same folder have one.
    pub(crate) fn digest(&self, digest: impl FnOnce(&Self) -> String) -> &str {
        self.derived.digest.get_or_init(|| digest(self))
    }

    /// The folder files the manifest names (webhook avatars) are relative to: the folder
    /// itself for a folder manifest, the file's folder otherwise (`.` for a bare file name).
    pub fn dir(&self) -> PathBuf {
        manifest_dir(&self.path, self.is_dir)
    }

    /// The manifest as JSON (its files merged), as validated against the schema. Made anew
    /// from the files' trees: nothing needs it after loading, so it is not kept.
    pub fn json_value(&self) -> Option<Value> {
        Some(value_of(&self.locations))
    }

    /// An empty report about this manifest, to add diagnostics to.
    pub fn report(&self) -> Report {
        Report::new(&self.path, self.files.clone())
    }
}

/// The folder a manifest's relative paths start from ([`LoadedManifest::dir`]).
fn manifest_dir(path: &Path, is_dir: bool) -> PathBuf {
    if is_dir {
        return path.to_path_buf();
    }
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Why a manifest could not be loaded: every problem of the stage that stopped it, placed in
/// the files. `Display` gives one `file:line:col: error: message` line per problem.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// Every problem of the stage that stopped it, placed in the files.
    pub report: Report,
}

impl LoadError {
    /// The problems, sorted by position.
    pub fn items(&self) -> &[Located] {
        &self.report.items
    }

    /// `(line, column)` of the first problem, if it has a place.
    pub fn location(&self) -> Option<(usize, usize)> {
        self.report
            .items
            .first()
            .and_then(|d| d.span)
            .map(|s| (s.line, s.column))
    }

    /// The first problem's message.
    pub fn message(&self) -> &str {
        self.report.items.first().map_or("", |d| d.message.as_str())
    }

    /// The first problem's help.
    pub fn hint(&self) -> Option<&str> {
        self.report.items.first().and_then(|d| d.help.as_deref())
    }

    /// What found the first problem (`syntax`, `schema`, ...).
    pub fn rule(&self) -> &str {
        self.report.items.first().map_or("", |d| &d.rule)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.report.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let file = d
                .span
                .and_then(|s| self.report.files.get(s.file))
                .map_or(&self.report.root, |f| &f.path);
            match d.span {
                Some(s) => write!(f, "{}:{}:{}: ", file.display(), s.line, s.column)?,
                None => write!(f, "{}: ", file.display())?,
            }
            write!(f, "{}: {}", d.severity, crate::inert::redact(&d.message))?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Reads and parses a manifest given with `-f`: a YAML file, or a folder of them merged by
/// section. The path must stay inside the working folder if it is relative, inside the folder
/// it is given in if it is absolute ([`Within::given`]).
pub fn load(path: &Path) -> Result<LoadedManifest, LoadError> {
    load_in(path, &Within::given(path))
}

/// [`load`] for a path that must stay `within` a folder (a workspace's guild: its folder).
pub fn load_in(path: &Path, within: &Within) -> Result<LoadedManifest, LoadError> {
    load_under(path, within, None)
}

/// [`load_in`] for a copy of a repository's tree whose root is `top` (a base revision's,
/// read from Git): the workspace file and the bases are looked for no higher than `top`,
/// so nothing outside the copy is read, whatever lies above it on the machine.
pub fn load_in_tree(path: &Path, within: &Within, top: &Path) -> Result<LoadedManifest, LoadError> {
    let top = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
    load_under(path, within, Some(&top))
}

fn load_under(
    path: &Path,
    within: &Within,
    top: Option<&Path>,
) -> Result<LoadedManifest, LoadError> {
    let read = source::read(path, within);
    let mut report = Report::new(path, read.files);
    for p in read.problems {
        report.items.push(Located {
            severity: Severity::Error,
            rule: Cow::Borrowed("read"),
            message: p.message,
            help: Some(p.help),
            path: String::new(),
            span: match (p.file, p.at) {
                (Some(file), Some((line, column))) => Some(Span {
                    file,
                    line,
                    column,
                    len: 1,
                }),
                _ => None,
            },
            related: Vec::new(),
        });
    }
    load_files(report, read.is_dir, &read.usable, top)
}

/// Parses manifest text; `path` is only used in messages and [`LoadedManifest::path`].
pub fn load_str(path: &Path, source: String) -> Result<LoadedManifest, LoadError> {
    let report = Report::new(
        path,
        vec![SourceFile {
            path: path.to_path_buf(),
            text: source,
        }],
    );
    load_files(report, false, &[true], None)
}

/// Parses a folder manifest's files given in memory (`files` in merge order, paths as they
/// should be shown); `root` is the folder. For tests and fuzzing: [`load`] reads a folder.
pub fn load_folder_sources(
    root: &Path,
    files: Vec<SourceFile>,
) -> Result<LoadedManifest, LoadError> {
    let usable = vec![true; files.len()];
    let mut report = Report::new(root, files);
    if report.files.is_empty() {
        push(
            &mut report,
            "read",
            None,
            format!("the folder {} has no YAML files", root.display()),
            "put the manifest's sections in YAML files in this folder".into(),
        );
        return Err(fail(report));
    }
    load_files(report, true, &usable, None)
}

fn push(
    report: &mut Report,
    rule: &'static str,
    span: Option<Span>,
    message: String,
    help: String,
) {
    report.items.push(Located {
        severity: Severity::Error,
        rule: Cow::Borrowed(rule),
        message,
        help: Some(help),
        path: String::new(),
        span,
        related: Vec::new(),
    });
}

fn fail(mut report: Report) -> LoadError {
    report.sort();
    LoadError { report }
}

/// Stages 2 to 6 on files already read (`usable[i]`: file `i` was read without problems);
/// `top`, when given, is the highest folder the layers under the manifest are looked for in.
fn load_files(
    mut report: Report,
    is_dir: bool,
    usable: &[bool],
    top: Option<&Path>,
) -> Result<LoadedManifest, LoadError> {
    normalize_breaks(&mut report.files);
    // 2. Syntax, file by file: a broken file does not hide the problems of the others.
    let trees = parse_files(&mut report, 0, usable);
    if report.has_errors() {
        return Err(fail(report));
    }

    // 3. Shape of each file and the version gate.
    check_files(&mut report, is_dir, &trees);
    if report.has_errors() {
        return Err(fail(report));
    }

    // 4. Merge into one value, with the source map; then the bases it extends, if any.
    let merged = merge(&mut report, trees);
    if report.has_errors() {
        return Err(fail(report));
    }
    let locations = match extend(&mut report, merged, top) {
        Some(l) if !report.has_errors() => l,
        _ => return Err(fail(report)),
    };
    // 5 and 6, once per distinct content (`shared`): guilds that share a layout share them.
    let dir = manifest_dir(&report.root, is_dir);
    let derived = super::shared::derive(&dir, is_dir, &report.files, || {
        let mut found = Report::new(&report.root, Vec::new());
        match typed_manifest(&mut found, &locations) {
            Some(m) => Ok(m),
            None => Err(found.items),
        }
    });
    match derived {
        // No error got this far: what the stages said is warnings.
        Ok(derived) => Ok(LoadedManifest {
            path: report.root,
            is_dir,
            files: report.files,
            manifest: Arc::clone(&derived.manifest),
            locations,
            load_warnings: report.items,
            derived,
        }),
        Err(items) => {
            report.items.extend(items);
            Err(fail(report))
        }
    }
}

/// Stages 5 and 6: the merged value against the schema, then the typed manifest; `None`
/// with the problems in `report`.
fn typed_manifest(report: &mut Report, locations: &SourceMap) -> Option<Manifest> {
    let value = value_of(locations);

    // 5. The JSON schema: every violation at once.
    let violations = super::schema::violations(&value);
    if !violations.is_empty() {
        for v in &violations {
            let span = if v.at_key {
                locations.key_span(&v.diagnostic.path)
            } else {
                None
            }
            .or_else(|| locations.span(&v.diagnostic.path));
            report.items.push(Located {
                severity: v.diagnostic.severity,
                rule: Cow::Borrowed("schema"),
                message: v.diagnostic.message.clone(),
                help: v.diagnostic.help.clone(),
                path: v.diagnostic.path.clone(),
                span,
                related: Vec::new(),
            });
        }
        return None;
    }

    // 6. The typed manifest. The schema accepted the value, so this fails only where the
    // types are stricter (a number too large for its field).
    // Read without tracking the path first (a third of the cost); only a value the types
    // refuse is read again to learn where.
    let typed = <Manifest as serde::Deserialize>::deserialize(&value)
        .or_else(|_| serde_path_to_error::deserialize::<_, Manifest>(&value));
    match typed {
        Ok(m) => Some(m),
        Err(e) => {
            let path = serde_path(e.path());
            let inner = e.into_inner().to_string();
            let d =
                Diagnostic::error(path.clone(), type_message(&inner))
                    .with_help(type_hint(&inner).unwrap_or_else(|| {
                    "see schema/guildctl.schema.json or docs/manifest.md for what this field takes"
                        .into()
                }));
            report.add_diagnostics(locations, [(Cow::Borrowed("type"), &d)]);
            None
        }
    }
}

/// The manifest as JSON: merged from its bases (`extends:`), or from its files' trees.
fn value_of(locations: &SourceMap) -> Value {
    locations
        .merged_value()
        .unwrap_or_else(|| merged_value(locations.trees()))
}

/// Diagnostics about a loaded manifest (the planner's refusals), placed on its lines and
/// sorted by position, to render as text or GitHub annotations.
pub fn report_on(loaded: &LoadedManifest, diags: &[Diagnostic]) -> Report {
    let mut report = loaded.report();
    report.add_diagnostics(
        &loaded.locations,
        diags.iter().map(|d| (Cow::Borrowed("plan"), d)),
    );
    report.sort();
    report
}

/// Renders diagnostics about a loaded manifest compiler-style; `color` adds ANSI colours.
pub fn render(loaded: &LoadedManifest, diags: &[Diagnostic], color: bool) -> String {
    report_on(loaded, diags).render_text(color)
}
