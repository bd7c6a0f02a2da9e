//! Manifests: the YAML types, loading with source locations, and checks.

pub mod types;

pub use types::*;
