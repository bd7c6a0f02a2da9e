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
