//! Running: the plan comment on a pull request, the drift issue, annotations, SARIF, the
//! merge run's reviewed plan, a huge plan, and comments the token did not write.

use super::*;

#[tokio::test]
async fn a_pull_request_gets_one_plan_comment_and_a_second_push_updates_it() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());

    let first = r.run().await;
    assert_eq!(first.code, 0, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    let plan_path = first.out("plan").to_owned();
    let plan_text = std::fs::read_to_string(&plan_path).expect("the plan file");
    let plan: Value = serde_json::from_str(&plan_text).unwrap();
    let expected = plan["changes_sha256"]
        .as_str()
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| hex(plan_text.as_bytes()));
    assert_eq!(first.out("plan-digest"), expected);
    assert!(
        first.summary.starts_with("### guildctl plan"),
        "{}",
        first.summary
    );
    assert!(
        h.writes().is_empty(),
        "plan, and its rehearsal, write nothing to Discord"
    );
    assert_eq!(first.out("rehearsal"), "passed");

    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    assert!(body.starts_with("<!-- guildctl:plan:"), "{body}");
    assert!(body.contains("### guildctl plan"), "{body}");
    // The rehearsal's verdict is among the comment's first lines.
    assert!(
        body.lines()
            .take(8)
            .any(|l| l.starts_with("**Rehearsed:** ") && l.ends_with("converges")),
        "{body}"
    );
    assert!(
        body.contains(&format!("Plan digest `{expected}`")),
        "{body}"
    );
    assert!(body.contains("https://github.com/Codertocat/Hello-World/actions/runs/4242"));
    assert_eq!(
        first.out("comment-url"),
        format!(
            "https://github.com/{REPO}/pull/{PR_NUMBER}#issuecomment-{}",
            comments[0].id
        )
    );
    let report = std::fs::read_to_string(first.out("report")).unwrap();
    assert!(report.contains(&expected));
    // The access page, from the same plan, is kept as an artifact the comment links to.
    let page = std::fs::read_to_string(first.out("page")).expect("the access page");
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..80]);
    assert!(page.contains("Content-Security-Policy"));
    assert!(
        first.ran.iter().any(|s| s == "Keep the access page"),
        "{:?}",
        first.ran
    );
    assert!(
        body.contains("**Access page:**")
            && body.contains("artifact `guildctl-access-page`")
            && body.contains("actions/runs/4242#artifacts"),
        "{body}"
    );
    assert!(
        first.summary.contains("**Access page:**"),
        "{}",
        first.summary
    );

    // A second push changes the manifest: the same comment shows the new plan.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#e67e22", "#123456", 1)).unwrap();
    r.event("pull_request", &event("pull_request-synchronize"));
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert!(
        second.log.contains("is already installed"),
        "{}",
        second.log
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(comments[0].body.contains("#123456"), "{}", comments[0].body);
    assert_ne!(second.out("plan-digest"), first.out("plan-digest"));
    assert_eq!(second.out("comment-url"), first.out("comment-url"));

    // A push that breaks the manifest: the comment says the plan failed, not the old plan.
    let good = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        "version: 1\nroles:\n  - name: Mods\n    colr: x\n",
    )
    .unwrap();
    let broken = r.run().await;
    assert_eq!(broken.code, 1, "{}", broken.log);
    assert_eq!(broken.out("exit-code"), "1");
    assert!(
        !broken.ran.iter().any(|s| s == "Keep the access page"),
        "a failed plan keeps no page"
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(
        comments[0].body.contains("### guildctl plan failed"),
        "{}",
        comments[0].body
    );
    assert!(!comments[0].body.contains("#123456"));
    std::fs::write(&manifest, good).unwrap();
    assert_eq!(r.run().await.code, 0);
    assert!(gh.comments(PR_NUMBER)[0].body.contains("#123456"));

    // comment: false, or a push: no comment is touched.
    let writes = gh.writes().len();
    r.input("comment", "false");
    assert_eq!(r.run().await.code, 0);
    r.input("comment", "true")
        .event("push", &event("pull_request-opened"));
    let push = r.run().await;
    assert_eq!(push.code, 0, "{}", push.log);
    assert_eq!(push.out("comment-url"), "");
    assert_eq!(gh.writes().len(), writes);

    assert_secrets_hidden(&first, &[&h.emu.token, &gh.token]);
    assert_secrets_hidden(&second, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

#[tokio::test]
async fn drift_opens_updates_and_closes_one_issue_and_apply_converges() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let schedule = h.dir.path().join("schedule.json");
    std::fs::write(&schedule, r#"{"schedule": "17 6 * * *"}"#).unwrap();
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("schedule", &schedule)
        .input("command", "drift")
        .input("manifest", manifest.to_str().unwrap());
    let ours = || {
        gh.issues()
            .into_iter()
            .filter(|i| i.labels.contains(&"guildctl-drift".to_owned()))
            .collect::<Vec<_>>()
    };

    // Drift: the job fails (exit 2, captured under -eo pipefail) and one issue opens.
    let first = r.run().await;
    assert_eq!(first.code, 2, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    let issues = ours();
    assert_eq!(issues.len(), 1);
    assert_eq!(
        first.out("comment-url"),
        format!("https://github.com/{REPO}/issues/{}", issues[0].number)
    );
    assert!(
        issues[0].body.contains("guildctl drift report"),
        "{}",
        issues[0].body
    );

    // Drift that changed: the same issue, updated; fail-on-drift false keeps the job green.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#e67e22", "#654321", 1)).unwrap();
    r.input("fail-on-drift", "false");
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert_eq!(second.out("changes"), "true");
    let again = ours();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].number, issues[0].number);
    // Inert in markdown: `#654321` would link issue 654321, so a zero-width space follows `#`.
    assert!(
        again[0].body.contains("\\#\u{200b}654321"),
        "{}",
        again[0].body
    );

    // Merge: apply; then drift finds none, and the issue closes with a comment.
    let mut apply = Runner::new(&h.dir.path().join("runner-apply"));
    apply
        .for_services(&h, &gh, &releases)
        .event("push", &schedule)
        .input("command", "apply")
        .input("manifest", manifest.to_str().unwrap());
    let applied = apply.run().await;
    assert_eq!(applied.code, 0, "{}", applied.log);
    assert_eq!(applied.out("exit-code"), "0");
    assert!(!h.writes().is_empty());

    let third = r.run().await;
    assert_eq!(third.code, 0, "{}", third.log);
    assert_eq!(third.out("changes"), "false");
    assert!(third.summary.contains("No changes"), "{}", third.summary);
    let closed = ours();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].state, "closed");
    assert_eq!(closed[0].state_reason.as_deref(), Some("completed"));
    assert_eq!(gh.comments(closed[0].number).len(), 1);

    // No drift, no open issue: nothing written.
    let writes = gh.writes().len();
    let fourth = r.run().await;
    assert_eq!(fourth.code, 0, "{}", fourth.log);
    assert_eq!(fourth.out("comment-url"), "");
    assert_eq!(gh.writes().len(), writes);

    // The manifest goes back; the live colour is the apply's. `applier` reaches `drift
    // --applier` (split on commas and spaces): naming the bot that applied credits
    // guildctl, naming others leaves the entry the bot's own, whose reason only claims it.
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("#654321", "#e67e22", 1)).unwrap();
    let body = || {
        let open: Vec<_> = ours().into_iter().filter(|i| i.state == "open").collect();
        assert_eq!(open.len(), 1);
        open[0].body.clone()
    };
    let bot = h.emu.state().bot_user_id;
    r.input("applier", &format!("1234, {bot}"));
    let credited = r.run().await;
    assert_eq!(credited.code, 0, "{}", credited.log);
    assert!(
        body().contains("(guildctl, commit ec26c3e57ca3"),
        "{}",
        body()
    );
    r.input("applier", "1234,5678");
    let others = r.run().await;
    assert_eq!(others.code, 0, "{}", others.log);
    assert!(
        body().contains("(claims guildctl, but not the applying bot's change)"),
        "{}",
        body()
    );

    for run in [&first, &second, &applied, &third, &credited, &others] {
        assert_secrets_hidden(run, &[&h.emu.token, &gh.token]);
    }
    gh.assert_conforms();
}

#[tokio::test]
async fn validate_annotates_lines_and_apply_takes_a_saved_plan() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let bad = h.manifest(
        "bad.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: \"#ffffff\"\n",
    );
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .input("command", "validate")
        .input("manifest", bad.to_str().unwrap());
    let validate = r.run().await;
    assert_eq!(validate.code, 1, "{}", validate.log);
    assert_eq!(validate.out("exit-code"), "1");
    assert!(validate.log.contains("::error file="), "{}", validate.log);
    assert!(validate.log.contains("line=4"), "{}", validate.log);

    // plan (not on a pull request) then apply that very plan file.
    let manifest = config_repo(&h);
    r.event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());
    let plan = r.run().await;
    assert_eq!(plan.code, 0, "{}", plan.log);
    assert!(
        gh.requests().is_empty(),
        "no comment outside a pull request"
    );
    r.input("command", "apply").input("plan", plan.out("plan"));
    let apply = r.run().await;
    assert_eq!(apply.code, 0, "{}", apply.log);
    assert!(!h.writes().is_empty());
    r.input("command", "drift")
        .input("drift-issue", "false")
        .input("plan", "");
    let drift = r.run().await;
    assert_eq!(drift.code, 0, "{}", drift.log);
    assert_eq!(drift.out("changes"), "false");

    // install: guildctl on PATH for later steps, nothing else run.
    r.input("command", "install");
    let install = r.run().await;
    assert_eq!(install.code, 0, "{}", install.log);
    assert_eq!(install.out("exit-code"), "0");
    assert!(install.path.contains("guildctl/bin"), "{}", install.path);
    assert!(
        install.log.contains(&format!("guildctl {VERSION}")),
        "{}",
        install.log
    );

    // An unknown command says so.
    r.input("command", "destroy");
    let unknown = r.run().await;
    assert_eq!(unknown.code, 1);
    assert!(unknown.log.contains("::error::unknown command 'destroy'"));
}

#[tokio::test]
async fn the_sarif_input_writes_validate_and_plan_findings_for_code_scanning() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let bad = h.manifest(
        "bad.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: \"#ffffff\"\n",
    );
    let out = h.dir.path().join("validate.sarif");
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .input("command", "validate")
        .input("manifest", bad.to_str().unwrap())
        .input("sarif", out.to_str().unwrap());
    let validate = r.run().await;
    assert_eq!(validate.code, 1, "{}", validate.log);
    assert_eq!(validate.out("sarif"), out.to_str().unwrap());
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "schema");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );

    // plan: the risks of the example's plan, on its lines.
    let manifest = config_repo(&h);
    let out = h.dir.path().join("plan.sarif");
    r.event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap())
        .input("sarif", out.to_str().unwrap());
    let plan = r.run().await;
    assert_eq!(plan.code, 0, "{}", plan.log);
    assert_eq!(plan.out("sarif"), out.to_str().unwrap());
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["ruleId"] == "risk-grant"),
        "{results:?}"
    );
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn the_merge_run_refuses_a_reviewed_plan_when_the_guild_changed_since_review() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("push", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);

    // Someone edits the guild by hand between review and merge.
    h.arrange(|g| g.role("Helper").color ^= 0x00ff00);
    h.emu.clear_requests();

    r.input("command", "apply")
        .input("plan", reviewed.out("plan"));
    let merged = r.run().await;
    assert_eq!(merged.code, 1, "{}", merged.log);
    assert_eq!(merged.out("exit-code"), "1");
    assert!(
        merged.log.contains("changed since") && merged.log.contains("plan"),
        "{}",
        merged.log
    );
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    assert_secrets_hidden(&merged, &[&h.emu.token, &gh.token]);
}

/// A plan too large for a comment is whole in the job summary, which the comment points
/// to; a refused plan shows its refusals in the comment and on the manifest's lines.
#[tokio::test]
async fn a_huge_plan_is_whole_in_the_summary_and_refusals_land_on_the_lines() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let permissions = guildctl::permissions::NAMED
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    let mut yaml = String::from("version: 1\nroles:\n");
    for i in 0..240 {
        yaml += &format!(
            "  - {{ name: \"Role {i:03} {}\", permissions: [{permissions}] }}\n",
            "x".repeat(80)
        );
    }
    let huge = h.manifest("huge.yaml", &yaml);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", huge.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    let comment = &gh.comments(PR_NUMBER)[0].body;
    assert!(comment.chars().count() <= 65_536, "{}", comment.len());
    assert!(comment.contains("left out to fit a GitHub comment"));
    assert!(comment.contains("the run's job summary"));
    // The diff is cut; the risk every new administrator role carries is not.
    assert!(
        !comment.contains("+ create role Role 239"),
        "the comment is cut"
    );
    assert!(
        comment.contains(&format!(
            "- role Role 239 {} gains administrator",
            "x".repeat(80)
        )),
        "{comment}"
    );
    // Every change is in the summary, within its 1 MiB, with the digest line.
    assert!(run.summary.len() > 65_536, "{}", run.summary.len());
    assert!(run.summary.len() <= 1 << 20);
    assert!(run.summary.contains("Role 000") && run.summary.contains("Role 239"));
    assert!(!run.summary.contains("left out"));
    assert!(
        run.summary
            .contains(&format!("Plan digest `{}`", run.out("plan-digest")))
    );

    // Refused: the widget names a channel nobody declared or made.
    let refused = h.manifest(
        "refused.yaml",
        "version: 1\nwidget:\n  enabled: true\n  channel: no-such-channel\n",
    );
    r.input("manifest", refused.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 1, "{}", run.log);
    // One comment per manifest: this one is refused.yaml's.
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2);
    let comment = &comments[1].body;
    assert!(comment.contains("refused.yaml -->"), "{comment}");
    assert!(comment.contains("The plan was refused"), "{comment}");
    assert!(comment.contains("widget.channel"), "{comment}");
    assert!(run.summary.contains("The plan was refused"));
    let annotation = run
        .log
        .lines()
        .find(|l| l.starts_with("::error file=") && l.contains("refused.yaml"))
        .unwrap_or_else(|| panic!("no annotation in {}", run.log));
    assert!(annotation.contains("line=4"), "{annotation}");
    assert!(annotation.contains("no-such-channel"), "{annotation}");

    // A manifest error in a plan run is annotated on its line too.
    let broken = h.manifest(
        "broken.yaml",
        "version: 1\nroles:\n  - name: Mods\n    colr: x\n",
    );
    r.input("manifest", broken.to_str().unwrap());
    let run = r.run().await;
    assert_eq!(run.code, 1, "{}", run.log);
    assert!(
        run.log
            .lines()
            .any(|l| l.starts_with("::error file=") && l.contains("line=4")),
        "{}",
        run.log
    );
    assert!(h.writes().is_empty(), "nothing was sent to Discord");
    gh.assert_conforms();
}

/// The Action tells guildctl whose comments are its own: `github-actions[bot]` for the
/// workflow's token, the person GitHub names for another token, or `github-author`. A
/// comment carrying the marker that someone else wrote is left alone.
#[tokio::test]
async fn the_action_edits_only_comments_its_token_wrote() {
    let h = Harness::start().await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let manifest = config_repo(&h);
    let marker = format!("<!-- guildctl:plan:{} -->", manifest.display());
    let planted = format!("{marker}\nNo changes.");
    let theirs = gh.add_comment(PR_NUMBER, &planted);
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.for_services(&h, &gh, &releases)
        .event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("manifest", manifest.to_str().unwrap());

    // The workflow's own token: github-actions[bot], told by the Action (no GET /user).
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert!(
        run.log
            .contains("writes on GitHub as github-actions[bot] (as given)"),
        "{}",
        run.log
    );
    assert!(!gh.requests().iter().any(|q| q.path == "/user"));
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!((comments[0].id, &comments[0].body), (theirs, &planted));
    assert_eq!(comments[0].author, OTHER_LOGIN);
    assert_eq!(comments[1].author, BOT_LOGIN);
    assert!(
        run.log
            .contains(&format!("Left alone: comment {theirs} by {OTHER_LOGIN}"))
    );

    // A person's token: GitHub names the person, whose comment is a new one.
    r.input("github-token", &gh.user_token.clone());
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert!(
        run.log.contains(&format!(
            "writes on GitHub as {USER_LOGIN} (the token's user)"
        )),
        "{}",
        run.log
    );
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 3);
    assert_eq!(comments[2].author, USER_LOGIN);
    assert_secrets_hidden(&run, &[&gh.user_token, &h.emu.token]);

    // github-author is taken as given.
    r.input("github-author", USER_LOGIN);
    let before = gh.requests().iter().filter(|q| q.path == "/user").count();
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(
        gh.requests().iter().filter(|q| q.path == "/user").count(),
        before
    );
    assert_eq!(gh.comments(PR_NUMBER).len(), 3, "its own comment, updated");
    assert_eq!(gh.comments(PR_NUMBER)[0].body, planted);
    gh.assert_conforms();
}
