//! A test that cannot run here is reported as ignored, with its reason, never as passed
//! (docs/architecture.md, "Tests"). The tests that drive pre-commit and gitlab-ci-local
//! (and Chromium) are ignored exactly when the build did not find the tool (build.rs), as this suite's
//! own list of ignored tests shows.

use std::process::Command;

const HOOK: &str =
    "pre_commit::the_hook_passes_a_valid_workspace_and_fails_a_broken_layout_once_at_its_line";
const COMPONENT: &str = "gitlab_component::the_component_plans_notes_applies_the_reviewed_plan_and_keeps_the_drift_issue";
const BROWSER: &str =
    "html::the_example_page_shows_in_every_cell_what_a_preview_as_each_role_computes";

#[test]
fn a_test_whose_tool_is_absent_is_listed_as_ignored_and_runs_where_it_is_present() {
    // This binary, asked for its ignored tests (the way `cargo test` decides what to run).
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--list", "--ignored", "--format", "terse"])
        .output()
        .expect("the test binary lists its tests");
    assert!(out.status.success(), "{out:?}");
    let listed = String::from_utf8_lossy(&out.stdout);
    let ignored: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    // The names must be tests of this binary: a renamed test would otherwise pass here
    // wherever its tool is installed, and fail only where it is not.
    let all = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--list", "--format", "terse"])
        .output()
        .expect("the test binary lists its tests");
    let all = String::from_utf8_lossy(&all.stdout);
    for name in [HOOK, COMPONENT, BROWSER] {
        assert!(
            all.lines().any(|l| l.strip_suffix(": test") == Some(name)),
            "{name} is not a test of this binary: rename it here too"
        );
    }
    assert!(
        ignored.contains(&"manifest_fuzz::timed_fuzz_run"),
        "the list is not of ignored tests: {listed}"
    );
    assert_eq!(
        ignored.contains(&HOOK),
        !cfg!(guildctl_pre_commit),
        "pre-commit's test is ignored exactly when GUILDCTL_PRE_COMMIT named no executable at build time: {listed}"
    );
    assert_eq!(
        ignored.contains(&COMPONENT),
        !cfg!(guildctl_gitlab_ci_local),
        "the component's test is ignored exactly when GUILDCTL_GITLAB_CI_LOCAL named no executable at build time: {listed}"
    );
    assert_eq!(
        ignored.contains(&BROWSER),
        !cfg!(guildctl_chromium),
        "the browser tests are ignored exactly when the build found no Chromium (GUILDCTL_CHROMIUM, PATH) and CI was not set: {listed}"
    );
}
