//! `guildctl import`: a manifest from what another tool keeps (a Discord server template).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use guildctl::import::{import_template, shown};
use guildctl::manifest;

use super::ColorArg;

/// The largest template file read. Discord's own are well under 1 MiB (500 channels with
/// their overwrites); this only keeps a wrong file from filling memory.
const MAX_TEMPLATE_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    what: ImportKind,
}

#[derive(Subcommand)]
enum ImportKind {
    /// Turn a Discord server template into a manifest.
    ///
    /// FILE is the JSON of GET /guilds/templates/{code}. Names made distinct, and
    /// everything the manifest cannot express, are listed on stderr and at the top of the
    /// manifest; the result is checked as `validate` would (exit 1 on errors).
    #[command(after_help = "Examples:
  curl -s https://discord.com/api/v10/guilds/templates/hgM48av5Q69A > template.json
  guildctl import template template.json -o guild.yaml
  guildctl plan --sandbox -f guild.yaml")]
    Template {
        /// The template's JSON file.
        file: PathBuf,
        /// The manifest to write (standard output without it).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        color: ColorArg,
    },
}

/// Writes the manifest, says on stderr what was renamed, changed or left out, and checks
/// the result as `validate` would: exit 1 when it has errors (it is written all the same,
/// to be fixed by hand).
pub fn run(args: ImportArgs) -> Result<u8> {
    let ImportKind::Template {
        file,
        output,
        color,
    } = args.what;
    let text = read_template(&file)?;
    let imported = import_template(&text)
        .with_context(|| format!("cannot import {}", shown(&file.display().to_string())))?;
    for note in &imported.notes {
        eprintln!("note: {}", shown(&note.to_string()));
    }
    let shown_as = match &output {
        Some(path) => {
            std::fs::write(path, &imported.yaml)
                .with_context(|| format!("cannot write {}", path.display()))?;
            path.clone()
        }
        None => {
            guildctl::out!("{}", imported.yaml);
            PathBuf::from("<stdout>")
        }
    };
    // Checked as written, so a finding points at a line of the file.
    let report = match manifest::load_str(&shown_as, imported.yaml.clone()) {
        Ok(loaded) => manifest::check_report(&loaded),
        Err(e) => e.report,
    };
    if !report.items.is_empty() {
        use std::io::IsTerminal;
        eprint!(
            "{}",
            report.render_text(color.color.enabled(std::io::stderr().is_terminal()))
        );
    }
    if let Some(path) = &output {
        eprintln!(
            "Wrote {} ({} roles, {} channels and categories; {} note(s))",
            path.display(),
            imported.manifest.roles.as_ref().map_or(0, Vec::len),
            count_channels(&imported.manifest),
            imported.notes.len()
        );
    }
    Ok(u8::from(report.has_errors()))
}

fn count_channels(m: &manifest::Manifest) -> usize {
    m.channels
        .iter()
        .flatten()
        .map(|c| 1 + c.channels.as_ref().map_or(0, Vec::len))
        .sum()
}

/// The file's text: a regular file (never a FIFO or device, which could block), at most
/// [`MAX_TEMPLATE_BYTES`], UTF-8.
fn read_template(path: &Path) -> Result<String> {
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read the template {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{} is not a regular file: give the template's JSON file",
            path.display()
        );
    }
    if meta.len() > MAX_TEMPLATE_BYTES {
        bail!(
            "{} is {} bytes; a template is at most {MAX_TEMPLATE_BYTES}",
            path.display(),
            meta.len()
        );
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_TEMPLATE_BYTES + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read the template {}", path.display()))?;
    if bytes.len() as u64 > MAX_TEMPLATE_BYTES {
        bail!(
            "{} grew past {MAX_TEMPLATE_BYTES} bytes while read",
            path.display()
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", path.display()))
}
