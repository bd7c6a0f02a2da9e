//! `guildctl validate`: schema and semantic checks, no network.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use guildctl::access::policy;
use guildctl::manifest::{self, WORKSPACE_FILE, Workspace};
use guildctl::{forge, inert};

use super::ColorArg;

#[derive(Args)]
pub struct ValidateArgs {
    /// Manifests: YAML files, or folders of them merged by section.
    #[arg(
        short = 'f',
        long = "file",
        required_unless_present_any = ["all", "guilds", "changed"],
        conflicts_with_all = ["all", "guilds", "changed"]
    )]
    files: Vec<PathBuf>,
    /// The files a commit changes, as a pre-commit hook passes them: with a workspace
    /// file (guildctl.yaml) here, the guilds whose manifests use one of them (bases
    /// included; every guild when guildctl.yaml is among them); other files, each as a
    /// manifest.
    #[arg(
        long,
        num_args = 0..,
        value_name = "FILE",
        conflicts_with_all = ["all", "guilds"]
    )]
    changed: Option<Vec<PathBuf>>,
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
    if let Some(changed) = args.changed {
        return validate_changed(&changed, args.format, color);
    }
    Ok(validate_files(&args.files, args.format, color))
}

fn validate_files(files: &[PathBuf], format: manifest::ReportFormat, color: bool) -> u8 {
    let reports: Vec<manifest::Report> = files.iter().map(|f| policy::validate(f).1).collect();
    let out = manifest::render_reports(&reports, format, color);
    guildctl::out!("{}", out.stdout);
    eprint!("{}", out.stderr);
    u8::from(reports.iter().any(manifest::Report::has_errors))
}

/// `--changed`: what a commit's files touch. In a workspace, a changed file used by a
/// guild's manifest (its own files or a base) validates that guild as `--guilds` does;
/// a changed workspace file validates every guild; a changed file no guild uses is
/// validated as a manifest of its own.
fn validate_changed(
    changed: &[PathBuf],
    format: manifest::ReportFormat,
    color: bool,
) -> Result<u8> {
    if !Path::new(WORKSPACE_FILE).is_file() {
        if changed.is_empty() {
            eprintln!("No changed manifest to validate.");
            return Ok(0);
        }
        return Ok(validate_files(changed, format, color));
    }
    let ws = Workspace::find(Path::new("."))?;
    let files = forge::ChangedFiles {
        paths: changed.iter().map(|p| p.display().to_string()).collect(),
        complete: true,
    };
    let touched = forge::touched_guilds(&ws, Path::new("."), &files);
    let used = forge::used_by_guilds(&ws);
    let alone: Vec<PathBuf> = changed
        .iter()
        .filter(|p| !forge::is_same_file(p, &ws.path) && !used.contains(&forge::absolute(p)))
        .cloned()
        .collect();
    if touched.is_empty() && alone.is_empty() {
        eprintln!("No changed file belongs to a guild's manifest: nothing to validate.");
        return Ok(0);
    }
    let mut code = 0;
    if !touched.is_empty() {
        for t in &touched {
            eprintln!("Guild {} is touched: {}.", t.name, inert::terminal(&t.why));
        }
        let selection = super::workspace::Selection {
            all: false,
            guilds: touched.into_iter().map(|t| t.name).collect(),
            reports: None,
        };
        code = super::workspace::validate(&selection, format, color)?;
    }
    if !alone.is_empty() {
        code = code.max(validate_files(&alone, format, color));
    }
    Ok(code)
}
