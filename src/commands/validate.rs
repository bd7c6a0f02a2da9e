//! `guildctl validate`: schema and semantic checks, no network.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use guildctl::access::policy;
use guildctl::manifest;

use super::ColorArg;

#[derive(Args)]
pub struct ValidateArgs {
    /// Manifests: YAML files, or folders of them merged by section.
    #[arg(
        short = 'f',
        long = "file",
        required_unless_present_any = ["all", "guilds"],
        conflicts_with_all = ["all", "guilds"]
    )]
    files: Vec<PathBuf>,
    #[command(flatten)]
    selection: super::workspace::Selection,
    /// text: compiler-style on stderr; github: workflow annotations on stdout; json: one
    /// document on stdout.
    #[arg(long, value_enum, default_value = "text")]
    format: manifest::ReportFormat,
    #[command(flatten)]
    output: ColorArg,
}

/// Validates each manifest and prints the findings; exit 1 when any has an error (warnings
/// alone do not fail).
pub fn run(args: ValidateArgs) -> Result<u8> {
    let color = args.output.color.enabled(std::io::stderr().is_terminal());
    if args.selection.active() {
        return super::workspace::validate(&args.selection, args.format, color);
    }
    let reports: Vec<manifest::Report> = args.files.iter().map(|f| policy::validate(f).1).collect();
    let out = manifest::render_reports(&reports, args.format, color);
    guildctl::out!("{}", out.stdout);
    eprint!("{}", out.stderr);
    Ok(u8::from(reports.iter().any(manifest::Report::has_errors)))
}
