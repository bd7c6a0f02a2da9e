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

/// Output read only in part (`guildctl schema | head`) ends guildctl's output, not guildctl:
/// no panic, the exit code of the command. The pipe is closed before the first write.
#[test]
fn a_closed_pipe_on_standard_output_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .arg("schema")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("guildctl runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("guildctl ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
