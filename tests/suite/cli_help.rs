//! The CLI explains itself: every command's help ends with examples, every option
//! has a description, and completions and the manual page are generated.

use std::process::Command;

fn guildctl(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .output()
        .expect("guildctl runs");
    assert!(out.status.success(), "guildctl {args:?} failed");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

const COMMANDS: [&str; 13] = [
    "validate",
    "schema",
    "plan",
    "apply",
    "drift",
    "export",
    "import",
    "import template",
    "emulator",
    "emulator call",
    "completions",
    "man",
    "help",
];

#[test]
fn every_command_ends_its_help_with_examples_and_describes_every_option() {
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.push("-h");
        let help = guildctl(&args);
        assert!(
            help.contains("\nExample"),
            "{command} -h has no examples:\n{help}"
        );
        let options = help
            .split("\nOptions:\n")
            .nth(1)
            .and_then(|rest| rest.split("\n\n").next())
            .unwrap_or("");
        for line in options.lines() {
            // "  -f, --file <FILE>  The manifest file": the flag, two spaces, the text.
            let described = line
                .trim_start()
                .split_once("  ")
                .is_some_and(|(_, text)| !text.trim().is_empty());
            assert!(
                described,
                "{command}: an option without a description: {line:?}"
            );
        }
    }
}

#[test]
fn completions_and_the_manual_page_are_generated() {
    assert!(guildctl(&["completions", "bash"]).contains("_guildctl()"));
    assert!(guildctl(&["completions", "zsh"]).contains("#compdef guildctl"));
    assert!(guildctl(&["completions", "fish"]).contains("complete -c guildctl"));
    assert!(guildctl(&["completions", "powershell"]).contains("Register-ArgumentCompleter"));
    let man = guildctl(&["man"]);
    assert!(
        man.contains(".TH guildctl 1"),
        "{}",
        &man[..200.min(man.len())]
    );
    assert!(man.contains("plan"));
}

/// A manual page as a reader sees it, 60 columns wide (narrower than the longer examples):
/// groff (Debian's groff-base, which `man` uses) or mandoc (BSD, macOS), as plain UTF-8.
fn rendered(page: &std::path::Path) -> String {
    let groff = Command::new("groff")
        .args(["-man", "-Tutf8", "-rLL=60n", "-P-cbou"])
        .arg(page)
        .output();
    let out = match groff {
        Ok(out) => out,
        Err(_) => Command::new("mandoc")
            .args(["-Tutf8", "-Owidth=60"])
            .arg(page)
            .output()
            .expect(
                "rendering a manual page needs groff or mandoc (Debian: apt-get install groff-base)",
            ),
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // mandoc marks bold by overstriking (`x\bx`): keep the last character of each.
    let text = String::from_utf8(out.stdout).expect("UTF-8 page");
    let mut plain = String::new();
    for c in text.chars() {
        if c == '\u{8}' {
            plain.pop();
        } else {
            plain.push(c);
        }
    }
    plain
}

/// Examples are preformatted: a line wider than the page is neither wrapped nor
/// hyphenated, its hyphen-minus and quotes stay ASCII, so it pastes as written; the footer
/// has guildctl's version where the date goes, not the subcommand's name.
#[test]
fn the_manual_pages_show_examples_as_written_and_a_versioned_footer() {
    let dir = tempfile::tempdir().unwrap();
    guildctl(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    let validate = rendered(&dir.path().join("guildctl-validate.1"));
    let lines: Vec<&str> = validate.lines().map(str::trim).collect();
    for example in [
        "guildctl validate -f guild/ --format github     # annotations in a GitHub workflow",
        "guildctl validate -f a.yaml -f b.yaml --format json",
    ] {
        assert!(
            lines.contains(&example),
            "{example:?} not intact in:\n{validate}"
        );
    }
    assert!(lines.contains(&"EXAMPLES"), "{validate}");
    assert!(!lines.contains(&"EXTRA"), "{validate}");
    let footer = lines.iter().rev().find(|l| !l.is_empty()).unwrap();
    assert_eq!(
        footer.split_whitespace().collect::<Vec<_>>(),
        [
            "guildctl",
            env!("CARGO_PKG_VERSION"),
            "guildctl-validate(1)"
        ],
        "{validate}"
    );
    let access = rendered(&dir.path().join("guildctl-access.1"));
    let example = "guildctl access -f guild.yaml --channel 'Staff/*' --format markdown";
    assert!(
        access.lines().any(|l| l.trim() == example),
        "{example:?} not intact in:\n{access}"
    );
    // The roff source says the same, whatever renders it.
    let source = std::fs::read_to_string(dir.path().join("guildctl-validate.1")).unwrap();
    assert!(
        source.contains(".SH EXAMPLES\n.EX\nguildctl validate \\-f guild.yaml\n"),
        "{source}"
    );
    assert!(
        source.contains(&format!(
            ".TH guildctl-validate 1 {} guildctl \"guildctl manual\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{source}"
    );
}
