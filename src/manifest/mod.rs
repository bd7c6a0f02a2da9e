//! Manifests: the YAML types, loading with source locations, and checks.
//!
//! [`load()`] reads a file or a folder of files into a [`LoadedManifest`] (with a [`SourceMap`]
//! of node positions), refusing it with a [`LoadError`] that lists every problem of the stage
//! that failed (syntax, version, merge, schema, types); [`load_str`] reads one from a string
//! (a program's own layout); [`check()`] runs the semantic rules ([`check_loaded`] adds the
//! file checks, [`check_report`] places them on the manifest's lines); [`validate`] does both
//! and returns a [`Report`], which renders as text, GitHub annotations or JSON;
//! [`schema_json`] generates the JSON schema.
//!
//! For a program that embeds guildctl (docs/library.md) this is the manifest's face: the
//! types ([`Manifest`] and its sections), loading and checking, the report, the workspace
//! file ([`Workspace`]). Every public item here is documented, and `missing_docs` keeps it
//! so; the modules marked `#[doc(hidden)]` are the checker's, the binary's and the tests'
//! rooms, not API.

#![deny(missing_docs)]

#[doc(hidden)] // the semantic rules and what they share; check() and check_loaded are the API.
pub mod check;
pub mod diagnostic;
mod extends;
pub mod load;
mod output;
pub mod owners;
#[doc(hidden)] // channel patterns: the checker's and the planner's matcher; not API.
pub mod pattern;
pub mod people;
#[doc(hidden)] // docs/rules.md compiled in, for SARIF and the MCP server; the binary's.
pub mod rules;
#[doc(hidden)] // `validate --format sarif`; the binary's.
pub mod sarif;
#[doc(hidden)] // the schema's generation and checking; schema_json is the API.
pub mod schema;
mod shared;
pub mod source;
pub mod source_map;
#[doc(hidden)] // names as Discord stores them: the checker's and the planner's; not API.
pub mod stored;
mod suggest;
mod tree;
pub mod types;
pub mod workspace;

use std::borrow::Cow;
use std::path::Path;

pub(crate) use check::resolve_channel_ref;
#[doc(hidden)]
// the file checks' tables and readers: the planner's, the binary's and the tests'.
pub use check::{
    FileRules, IMAGE_MAX_BYTES, IMAGE_RULES, LOTTIE, UPLOAD_RULES, expression_files, image_fields,
    read_file_as, read_image, split_channel_ref,
};
pub use check::{check, check_loaded};
pub use diagnostic::{Diagnostic, Located, Report, Severity};
pub use load::{LoadError, LoadedManifest, load, load_in, load_str, report_on};
#[doc(hidden)] // loading for the fuzzers and a base revision's copy, rendering for the tests.
pub use load::{load_folder_sources, load_in_tree, render};
pub use output::{Output, ReportFormat, render_reports};
#[doc(hidden)] // the schema stage of loading: the tests'.
pub use schema::validate_against_schema;
pub use schema::{SCHEMA_ID, schema_json};
pub use source::{SourceFile, WORKSPACE_FILE, Within};
pub use source_map::{SourceMap, Span};
#[doc(hidden)] // "did you mean": the binary's.
pub use suggest::closest;
pub use types::*;
pub use workspace::{Workspace, WorkspaceError, WorkspaceGuild};

/// Loads the manifest at `path` (a file or a folder) and runs every check: the loaded
/// manifest (if it loaded) and the report of everything found, sorted by position. The
/// manifest is usable when the report has no errors.
pub fn validate(path: &Path) -> (Option<LoadedManifest>, Report) {
    validate_in(path, &Within::given(path))
}

/// [`validate`] for a path that must stay `within` a folder (a workspace guild's manifest).
pub fn validate_in(path: &Path, within: &Within) -> (Option<LoadedManifest>, Report) {
    match load_in(path, within) {
        Ok(loaded) => {
            let (loaded, unresolved) = with_people_named(loaded);
            let mut report = check_report(&loaded);
            report.add_diagnostics(
                &loaded.locations,
                unresolved.iter().map(|d| (Cow::Borrowed("workspace"), d)),
            );
            check_owners(&mut report, &loaded);
            report.sort();
            (Some(loaded), report)
        }
        Err(e) => (None, e.report),
    }
}

/// `loaded` with its rosters' `{ person: NAME }` entries given their ids from the people
/// file of the workspace above it; an entry naming no person (or with no people file) is
/// an error on its line.
fn with_people_named(loaded: LoadedManifest) -> (LoadedManifest, Vec<Diagnostic>) {
    if !people::names_people(&loaded.manifest) {
        return (loaded, Vec::new());
    }
    let people = Workspace::find_kept(&loaded.dir()).ok().and_then(|ws| {
        let file = ws.people.clone()?;
        Some(people::cached(&file, &Within::workspace(&ws.root)))
    });
    let mut manifest = (*loaded.manifest).clone();
    let unknown = match &people {
        Some(Ok(people)) => people.resolve(&mut manifest),
        _ => {
            let mut all = Vec::new();
            for (i, role) in manifest.roles.iter().flatten().enumerate() {
                for (j, m) in role.members.iter().flatten().enumerate() {
                    if let Some(name) = &m.person {
                        all.push((format!("roles[{i}].members[{j}].person"), name.clone()));
                    }
                }
            }
            all
        }
    };
    let why = match &people {
        Some(Ok(people)) => format!("{} has no person of that name", people.path.display()),
        Some(Err(e)) => format!("the people file could not be read: {e}"),
        None => "the workspace (guildctl.yaml) names no people file (`people:`)".to_owned(),
    };
    let diags = unknown
        .into_iter()
        .map(|(path, name)| Diagnostic {
            severity: Severity::Error,
            path,
            message: format!("`person: {name}`: {why}"),
            help: Some("name a person of the workspace's people file, or write their id".into()),
        })
        .collect();
    (loaded.with_manifest(manifest), diags)
}

/// Adds what the manifest's files declare outside the delegation the workspace above them
/// gives them (`owners:`), on their lines; nothing outside a workspace.
fn check_owners(report: &mut Report, loaded: &LoadedManifest) {
    let folder = if report.root.is_dir() {
        report.root.clone()
    } else {
        report
            .root
            .parent()
            .map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf)
    };
    match Workspace::find_kept(&folder) {
        Err(WorkspaceError::NotFound) => {}
        Ok(ws) => owners::check(
            report,
            &ws.owners,
            &ws.root,
            &loaded.locations.trees().trees,
        ),
        Err(e) => report.items.push(owners::owners_error(
            None,
            format!("cannot check which files may declare what: {e}"),
            "fix the workspace file first".into(),
        )),
    }
}

/// What the load stages said of a loaded manifest (its warnings) and its semantic checks
/// ([`check_loaded`]) as one report, each diagnostic named by its rule.
pub fn check_report(loaded: &LoadedManifest) -> Report {
    let mut report = loaded.report();
    report.items.extend(loaded.load_warnings.iter().cloned());
    let found = check::check_loaded_by_rule(loaded);
    report.add_diagnostics(
        &loaded.locations,
        found.iter().map(|(rule, d)| (Cow::Borrowed(*rule), d)),
    );
    report.sort();
    report
}

/// Runs every stage of validation on arbitrary bytes and renders the outcome in every
/// format, checking that each reported place lies inside its file. For the fuzz harnesses
/// (`tests/manifest_fuzz.rs`, `fuzz/`): panics on any problem, and only then.
///
/// The first byte picks the mode: even, one file (the other bytes); odd, a folder whose files
/// are the other bytes split at `0x1e` (at most 8). Files are "in" a folder that does not
/// exist, so avatar checks read nothing.
///
/// A test hook: compiled only with the `test-hooks` feature, which guildctl's own tests
/// and the fuzz target turn on; no build of the tool has it.
#[cfg(feature = "test-hooks")]
// A fuzz hook's panic is its finding: it asserts, as a test does.
#[allow(clippy::expect_used)]
pub fn fuzz_one(data: &[u8]) {
    let root = Path::new("/nonexistent/guildctl-fuzz");
    let (mode, rest) = match data.split_first() {
        Some((m, rest)) => (*m, rest),
        None => (0, data),
    };
    let result = if mode % 2 == 0 {
        let text = String::from_utf8_lossy(rest).into_owned();
        load::assert_parses_agree(&text);
        load_str(&root.join("guild.yaml"), text)
    } else {
        let files: Vec<SourceFile> = rest
            .split(|b| *b == 0x1e)
            .take(8)
            .enumerate()
            .map(|(i, chunk)| SourceFile {
                path: root.join(format!("part-{i}.yaml")),
                text: String::from_utf8_lossy(chunk).into_owned(),
            })
            .collect();
        for f in &files {
            load::assert_parses_agree(&f.text);
        }
        load_folder_sources(root, files)
    };
    let report = match result {
        Ok(loaded) => {
            let _ = loaded.json_value();
            loaded.locations.assert_lookups_agree();
            check_report(&loaded)
        }
        Err(e) => {
            assert!(e.report.has_errors(), "a load error without an error");
            let _ = e.to_string();
            e.report
        }
    };
    for d in &report.items {
        for s in d.span.iter().chain(d.related.iter().map(|(_, s)| s)) {
            let file = report.files.get(s.file).expect("a span names a known file");
            let lines = file.text.split('\n').count();
            assert!(
                s.line >= 1 && s.line <= lines && s.column >= 1,
                "span {s:?} outside {} ({lines} lines)",
                file.path.display()
            );
        }
    }
    let _ = report.render_text(false);
    let _ = report.render_text(true);
    let _ = report.render_github();
    let _ = render_reports(std::slice::from_ref(&report), ReportFormat::Json, false);
}
