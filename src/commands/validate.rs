//! `guildctl validate`: schema and semantic checks, no network.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use serde_json::Value;

use guildctl::manifest::{self, WORKSPACE_FILE, Within, Workspace};
use guildctl::ops::{self, GuildTarget, Targets};
use guildctl::{forge, inert};

use super::guilds::{self, Outcome};
use super::{ColorArg, Selection};

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
    selection: Selection,
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
        return validate_all(&args.selection, args.format, color);
    }
    if let Some(changed) = args.changed {
        return validate_changed(&changed, args.format, color);
    }
    Ok(validate_files(&args.files, args.format, color))
}

fn validate_files(files: &[PathBuf], format: manifest::ReportFormat, color: bool) -> u8 {
    let reports = ops::validate(&Targets::ids(files.iter().map(|f| alone(f))));
    print_reports(&reports, format, color)
}

/// A manifest validated on its own, held to the folder its path implies.
fn alone(file: &Path) -> GuildTarget {
    GuildTarget::file(file.to_path_buf(), Within::given(file), String::new())
}

/// `validate --all` / `--guilds`: each guild's report as `validate` prints it, under a
/// summary; SARIF is one log for the whole run, every guild's report in it.
fn validate_all(sel: &Selection, format: manifest::ReportFormat, color: bool) -> Result<u8> {
    sel.no_reports("validate")?;
    let targets = Targets::workspace(sel.resolve()?);
    let reports = ops::validate(&targets);
    let mut outcomes: Vec<Outcome> = Vec::new();
    for (g, report) in targets.guilds().zip(&reports) {
        let errors = report.has_errors();
        let rendered = manifest::render_reports(std::slice::from_ref(report), format, color);
        let json = match format {
            manifest::ReportFormat::Json => {
                serde_json::from_str(&rendered.stdout).unwrap_or(Value::Null)
            }
            _ => Value::Null,
        };
        // Text goes where `validate` puts it: diagnostics on stderr, annotations on stdout.
        eprint!("{}", rendered.stderr);
        outcomes.push(Outcome {
            name: guilds::name(g),
            id: g.id.clone(),
            code: u8::from(errors),
            changed: false,
            summary: if errors {
                format!("invalid ({})", report.summary())
            } else {
                "valid".into()
            },
            text: rendered.stdout,
            json,
            planned: false,
            failure_markdown: None,
        });
    }
    if format == manifest::ReportFormat::Sarif {
        let all: Vec<&manifest::Report> = reports.iter().collect();
        guildctl::out!("{}", manifest::sarif::render(&all, &[]));
        return Ok(guilds::combined(outcomes.iter().map(|o| o.code)));
    }
    Ok(guilds::finish(
        &outcomes,
        format == manifest::ReportFormat::Json,
    ))
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
                reports.push(ops::validate_guild(&g.clone().into()));
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
    reports.extend(
        alone
            .into_iter()
            .map(|f| ops::validate_guild(&self::alone(f))),
    );
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
