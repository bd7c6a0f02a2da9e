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
    /// file (guildctl.yaml) here, the guilds whose manifests read one of them (bases and
    /// images included; every guild when guildctl.yaml is among them); other files that
    /// are manifests (guild*.yaml, under guilds/, or stating `version: 1`), each as one.
    /// Other files are left alone.
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
    print_reports(&reports, format, color)
}

/// Prints the reports as `validate` does; 1 when any has an error.
fn print_reports(reports: &[manifest::Report], format: manifest::ReportFormat, color: bool) -> u8 {
    let out = manifest::render_reports(reports, format, color);
    guildctl::out!("{}", out.stdout);
    eprint!("{}", out.stderr);
    u8::from(reports.iter().any(manifest::Report::has_errors))
}

/// `--changed`: what a commit's files touch. In a workspace, a changed file a guild's
/// manifest reads (its own files, a base, an image it names) validates that guild; a
/// changed workspace file validates every guild. A changed file no guild reads is validated
/// as a manifest of its own when it is one ([`is_manifest_like`]); other files are not
/// guildctl's. Everything is printed as `validate -f` prints it, each manifest's line in
/// turn, and a problem in a file several manifests read once.
fn validate_changed(
    changed: &[PathBuf],
    format: manifest::ReportFormat,
    color: bool,
) -> Result<u8> {
    let mut reports: Vec<manifest::Report> = Vec::new();
    let mut read: Vec<PathBuf> = Vec::new();
    if Path::new(WORKSPACE_FILE).is_file() {
        let ws = Workspace::find(Path::new("."))?;
        let files = forge::ChangedFiles {
            paths: changed.iter().map(|p| p.display().to_string()).collect(),
            complete: true,
        };
        for t in forge::touched_guilds(&ws, Path::new("."), &files) {
            eprintln!("Guild {} is touched: {}.", t.name, inert::terminal(&t.why));
            if let Some(g) = ws.guilds.iter().find(|g| g.name == t.name) {
                reports.push(super::workspace::validate_guild(g));
            }
        }
        read.push(forge::absolute(&ws.path));
        read.extend(forge::used_by_guilds(&ws));
        // A guild whose manifest does not load still read its files up to the problem (a
        // broken base among them): they are its, not manifests of their own.
        read.extend(
            reports
                .iter()
                .flat_map(|r| r.files.iter().map(|f| forge::absolute(&f.path))),
        );
    }
    let alone: Vec<&PathBuf> = changed
        .iter()
        .filter(|p| !read.contains(&forge::absolute(p)) && is_manifest_like(p))
        .collect();
    reports.extend(alone.into_iter().map(|f| policy::validate(f).1));
    if reports.is_empty() {
        eprintln!("No changed file is a manifest or read by one: nothing to validate.");
        return Ok(0);
    }
    Ok(print_reports(&reports, format, color))
}

/// Whether a changed file that no guild reads is a manifest to validate: a YAML file named
/// as manifests usually are (`guild*.yaml`, or under a `guilds/` folder), or one stating
/// `version: 1` at its top level, as every manifest does. The hook passes every changed
/// file, so other YAML (workflows, `dependabot.yml`, `.pre-commit-config.yaml`) and other
/// files are left alone.
fn is_manifest_like(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if !(name.ends_with(".yaml") || name.ends_with(".yml"))
        || name == WORKSPACE_FILE
        || !path.is_file()
    {
        return false;
    }
    let in_guilds = path
        .parent()
        .is_some_and(|d| d.components().any(|c| c.as_os_str() == "guilds"));
    if name.starts_with("guild") || in_guilds {
        return true;
    }
    // A file longer than a manifest may be is none (validate would say so of one).
    let fits = std::fs::metadata(path).is_ok_and(|m| m.len() <= manifest::source::MAX_FILE_BYTES);
    fits && std::fs::read(path).is_ok_and(|bytes| {
        String::from_utf8_lossy(&bytes).lines().any(|l| {
            l.strip_prefix("version:")
                .is_some_and(|v| v.split('#').next().is_some_and(|v| v.trim() == "1"))
        })
    })
}
