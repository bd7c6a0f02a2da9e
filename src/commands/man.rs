//! `guildctl man`: manual pages (roff) made by clap_mangen from the command line's own
//! definitions, with two things clap_mangen does its own way changed:
//!
//! - A command's examples (its `after_help`, "Examples:" and indented command lines) are an
//!   EXAMPLES section of preformatted text (`.EX`/`.EE`), not an "EXTRA" section of filled
//!   text: `man` neither wraps nor hyphenates them, so a line pasted from the page is the
//!   command as written.
//! - The `.TH` line names the version where the date goes and guildctl as the source: with
//!   clap_mangen's empty date (written as no argument at all), the next argument, the
//!   subcommand's name, took the date's place in the footer. The version, not a build date,
//!   so one release's pages are the same bytes wherever they are made (docs/decisions.md,
//!   "Manual pages").

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use clap::Command;
use roff::{Roff, roman};

/// The manual's name, in every page's header.
const MANUAL: &str = "guildctl manual";

/// `guildctl man`: guildctl's own page on standard output, or a page for it and every
/// command (hidden ones aside) written into `out_dir`.
pub fn run(cli: Command, out_dir: Option<&Path>) -> Result<u8> {
    // As clap_mangen's generate_to: no `help` subcommand page, names built
    // (`guildctl-plan`).
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    match out_dir {
        None => {
            // Made whole, then written as any output is (a closed pipe ends it quietly).
            guildctl::stdout::write_all(&page(&cli)?);
            Ok(0)
        }
        Some(dir) => {
            write_pages(&cli, dir)
                .with_context(|| format!("cannot write the manual pages to {}", dir.display()))?;
            eprintln!("Manual pages written to {}", dir.display());
            Ok(0)
        }
    }
}

fn write_pages(cmd: &Command, dir: &Path) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    let name = format!("{}.1", display_name(cmd));
    let mut file =
        std::fs::File::create(dir.join(&name)).with_context(|| format!("cannot create {name}"))?;
    file.write_all(&page(cmd)?)
        .with_context(|| format!("cannot write {name}"))?;
    Ok(())
}

fn display_name(cmd: &Command) -> &str {
    cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
}

/// One command's page: clap_mangen's sections without its "EXTRA", and the examples as
/// their own section, before VERSION where the page has one.
pub fn page(cmd: &Command) -> Result<Vec<u8>> {
    let examples = cmd.get_after_help().map(|h| examples(&h.to_string()));
    let without_examples = cmd.clone().after_help(None::<&str>);
    let mut out = Vec::new();
    clap_mangen::Man::new(without_examples)
        .date(env!("CARGO_PKG_VERSION"))
        .source("guildctl")
        .manual(MANUAL)
        .render(&mut out)?;
    let Some(examples) = examples else {
        return Ok(out);
    };
    let mut page = String::from_utf8(out).context("the manual page is not UTF-8")?;
    let at = page.find("\n.SH VERSION\n").map_or(page.len(), |i| i + 1);
    page.insert_str(at, &examples.render());
    Ok(page.into_bytes())
}

/// The examples of a command's `after_help` ("Examples:" then indented lines) as an
/// EXAMPLES section: the lines as written, their common indentation removed, in a
/// preformatted block.
fn examples(after_help: &str) -> Roff {
    let mut lines: Vec<&str> = after_help.lines().collect();
    if lines
        .first()
        .is_some_and(|l| matches!(l.trim(), "Example:" | "Examples:"))
    {
        lines.remove(0);
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    roff.control("EX", []);
    for line in lines {
        // roff escapes `\`, `-` (as `\-`, an ASCII hyphen-minus on a terminal, not a
        // hyphen), `'` and a leading `.`; no-fill mode keeps the spaces.
        roff.text([roman(line.get(indent..).unwrap_or("").trim_end())]);
    }
    roff.control("EE", []);
    roff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_a_preformatted_block_of_the_lines_as_written() {
        let r =
            examples("Examples:\n  guildctl plan -f a.yaml   # 'quoted'\n  .hidden\n").to_roff();
        assert_eq!(
            r,
            ".SH EXAMPLES\n.EX\nguildctl plan \\-f a.yaml   # 'quoted'\n\\&.hidden\n.EE\n"
        );
    }
}
