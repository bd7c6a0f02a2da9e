//! Manifests: the YAML types, loading with source locations, and checks.
//!
//! [`load`] reads a file or a folder of files into a [`LoadedManifest`] (with a [`SourceMap`]
//! of node positions), refusing it with a [`LoadError`] that lists every problem of the stage
//! that failed (syntax, version, merge, schema, types); [`check`] runs the semantic rules
//! ([`check_loaded`] adds the file checks); [`validate`] does both and returns a [`Report`],
//! which renders as text, GitHub annotations or JSON; [`schema_json`] generates the JSON schema.

pub mod check;
pub mod diagnostic;
pub mod load;
pub mod schema;
pub mod source;
pub mod types;

use std::borrow::Cow;
use std::path::Path;

pub use check::{check, check_loaded, read_image, split_channel_ref};
pub use diagnostic::{
    Diagnostic, Located, Output, Report, ReportFormat, Severity, Span, render, render_reports,
};
pub use load::{LoadError, LoadedManifest, SourceMap, load, load_str};
pub use schema::{schema_json, validate_against_schema};
pub use source::SourceFile;
pub use types::*;

/// Loads the manifest at `path` (a file or a folder) and runs every check: the loaded
/// manifest (if it loaded) and the report of everything found, sorted by position. The
/// manifest is usable when the report has no errors.
pub fn validate(path: &Path) -> (Option<LoadedManifest>, Report) {
    match load(path) {
        Ok(loaded) => {
            let report = check_report(&loaded);
            (Some(loaded), report)
        }
        Err(e) => (None, e.report),
    }
}

/// The semantic checks of a loaded manifest ([`check_loaded`]) as a report, each diagnostic
/// named by its rule.
pub fn check_report(loaded: &LoadedManifest) -> Report {
    let mut report = loaded.report();
    let found = check::check_loaded_by_rule(loaded);
    report.add_diagnostics(
        &loaded.locations,
        found.iter().map(|(rule, d)| (Cow::Borrowed(*rule), d)),
    );
    report.sort();
    report
}
