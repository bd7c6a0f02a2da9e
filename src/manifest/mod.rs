//! Manifests: the YAML types, loading with source locations, and checks.
//!
//! [`load`] reads a file into a [`LoadedManifest`] (with a [`SourceMap`] of node positions),
//! [`check`] runs the semantic rules ([`check_loaded`] adds the file checks), [`schema_json`] generates the JSON schema, and
//! [`render`] prints [`Diagnostic`]s compiler-style.

pub mod check;
pub mod diagnostic;
pub mod load;
pub mod schema;
pub mod types;

pub use check::{check, check_loaded, read_image, split_channel_ref};
pub use diagnostic::{Diagnostic, Severity, render};
pub use load::{LoadedManifest, ManifestError, SourceMap, load, load_str};
pub use schema::{schema_json, validate_against_schema};
pub use types::*;
