//! The flows over the in-memory fake (`fake`): each state of the drift issue, the plan
//! comment kept current, the reviewed-plan pick. No HTTP: the adapters' contract with
//! GitHub and GitLab is held by one test per forge in tests/suite.

use super::fake::{Fake, FakeError, WORDS, block_on};
use super::*;

const ME: &str = "github-actions[bot]";
const MARKER: &str = "<!-- guildctl:drift:guild.yaml -->";
const LABEL: &str = "guildctl-drift";

fn report(body: &str, drifted: bool) -> DriftReport<'_> {
    DriftReport {
        marker: MARKER,
        label: LABEL,
        title: "guildctl: drift",
        body,
        drifted,
        closing_comment: "The guild matches its manifest again; closing this issue.",
    }
}

fn sync(fake: &Fake, body: &str, drifted: bool) -> DriftSync {
    block_on(sync_drift_issue(fake, ME, &report(body, drifted))).unwrap()
}

/// Drift reported as `body`, which must open an issue: its number.
fn opened(fake: &Fake, body: &str) -> u64 {
    match sync(fake, body, true).issue {
        DriftIssue::Opened { number, .. } => number,
        other => panic!("not opened: {other:?}"),
    }
}

#[test]
fn no_drift_and_no_issue_writes_nothing() {
    let fake = Fake::new(ME);
    let done = sync(&fake, "all fine", false);
    assert_eq!(done.issue, DriftIssue::Nothing);
    assert!(fake.writes().is_empty());
    assert_eq!(done.issue.describe(), "No drift and no open drift issue.");
}

#[test]
fn drift_opens_one_labelled_issue_that_carries_the_marker() {
    let fake = Fake::new(ME);
    let done = sync(&fake, "1 to update.\n", true);
    let DriftIssue::Opened { number, url } = &done.issue else {
        panic!("{:?}", done.issue);
    };
    let issue = fake.issue(*number);
    assert_eq!(issue.issue.body, format!("{MARKER}\n1 to update.\n"));
    assert_eq!(issue.labels, [LABEL]);
    assert_eq!(issue.issue.title, "guildctl: drift");
    assert_eq!(fake.writes(), [format!("open_issue {number}")]);
    assert_eq!(
        done.issue.describe(),
        format!("Opened drift issue #{number}: {url}")
    );
    assert_eq!(done.written_as, None);
}

#[test]
fn lasting_drift_edits_the_issue_and_an_unchanged_report_writes_nothing() {
    let fake = Fake::new(ME);
    let number = opened(&fake, "1 to update.\n");
    let edited = sync(&fake, "2 to update.\n", true);
    assert!(
        matches!(edited.issue, DriftIssue::Updated { number: n, .. } if n == number),
        "{:?}",
        edited.issue
    );
    assert!(fake.issue(number).issue.body.ends_with("2 to update.\n"));
    let writes = fake.writes().len();
    let same = sync(&fake, "2 to update.\n", true);
    assert!(matches!(same.issue, DriftIssue::Unchanged { .. }));
    assert!(same.issue.describe().contains("is already current"));
    assert_eq!(fake.writes().len(), writes, "nothing written");
}

#[test]
fn a_new_title_alone_edits_the_issue() {
    let fake = Fake::new(ME);
    sync(&fake, "x", true);
    let mut r = report("x", true);
    r.title = "guildctl: the guild drifted from guild.yaml";
    let done = block_on(sync_drift_issue(&fake, ME, &r)).unwrap();
    assert!(matches!(done.issue, DriftIssue::Updated { .. }));
}

#[test]
fn matching_again_comments_then_closes_and_later_drift_opens_a_new_issue() {
    let fake = Fake::new(ME);
    let number = opened(&fake, "drift");
    let done = sync(&fake, "No changes.", false);
    assert!(matches!(done.issue, DriftIssue::Closed { number: n, .. } if n == number));
    let closed = fake.issue(number);
    assert!(!closed.open);
    assert_eq!(
        closed.comments,
        ["The guild matches its manifest again; closing this issue."]
    );
    assert_eq!(
        fake.writes()[1..],
        [
            format!("comment_on_issue {number}"),
            format!("close_issue {number}")
        ],
        "the comment comes first, so the closed issue says why"
    );
    // Drift after that: a new issue; the closed one stays closed.
    let again = sync(&fake, "drift", true);
    let DriftIssue::Opened { number: new, .. } = again.issue else {
        panic!("{:?}", again.issue);
    };
    assert_ne!(new, number);
    assert!(!fake.issue(number).open);
}

/// Anyone can open an issue with the label and the marker: it is neither edited nor
/// closed, it is named, and guildctl's own issue is opened beside it.
#[test]
fn an_issue_someone_else_opened_is_left_alone() {
    let fake = Fake::new(ME);
    let theirs = fake.add_issue("mallory", "drift", &format!("{MARKER}\nclose me"), LABEL);
    fake.add_issue("mallory", "unrelated", "no marker", LABEL);
    let done = sync(&fake, "all fine", false);
    assert_eq!(done.issue, DriftIssue::Nothing);
    assert_eq!(
        done.foreign,
        [Foreign {
            id: theirs,
            author: "mallory".into()
        }]
    );
    assert!(fake.writes().is_empty());
    assert_eq!(
        left_alone("issue", &done.foreign, ME),
        [format!(
            "Left alone: issue {theirs} by mallory carries guildctl's marker, but guildctl writes as {ME}."
        )]
    );

    let done = sync(&fake, "drift", true);
    let DriftIssue::Opened { number, .. } = done.issue else {
        panic!("{:?}", done.issue);
    };
    sync(&fake, "over", false);
    assert!(!fake.issue(number).open);
    let t = fake.issue(theirs);
    assert!(t.open && t.comments.is_empty() && t.issue.body.ends_with("close me"));
    assert!(
        !fake
            .writes()
            .iter()
            .any(|w| w.ends_with(&format!(" {theirs}"))),
        "{:?}",
        fake.writes()
    );
}

#[test]
fn logins_compare_without_case_and_a_deleted_author_is_nobody() {
    let fake = Fake::new(ME);
    let ours = fake.add_issue("GitHub-Actions[bot]", "t", &format!("{MARKER}\nold"), LABEL);
    let done = sync(&fake, "new", true);
    assert!(matches!(done.issue, DriftIssue::Updated { number, .. } if number == ours));
    assert!(drift_issue::is_mine(Some("GITHUB-actions[bot]"), ME));
    assert!(!drift_issue::is_mine(Some("github-actions"), ME));
    assert!(!drift_issue::is_mine(None, ME));
    assert_eq!(
        Foreign::new(3, None),
        Foreign {
            id: 3,
            author: "ghost".into()
        }
    );
}

/// A forge that writes as another login than guildctl looks for: said at once, since the
/// next run would not find the issue as its own.
#[test]
fn an_item_the_forge_wrote_as_someone_else_is_reported() {
    let fake = Fake::new("my-app[bot]");
    let done = sync(&fake, "drift", true);
    assert_eq!(done.written_as.as_deref(), Some("my-app[bot]"));
    fake.add_change(2, "abc1234");
    let Posted::Written(c) =
        block_on(upsert_comment(&fake, ME, 2, "<!-- m -->", "plan", None)).unwrap()
    else {
        panic!("superseded");
    };
    assert_eq!(c.written_as.as_deref(), Some("my-app[bot]"));
}

fn post(fake: &Fake, change: u64, body: &str, commit: Option<&str>) -> Posted {
    block_on(upsert_comment(
        fake,
        ME,
        change,
        "<!-- guildctl:plan:guild.yaml -->",
        body,
        commit,
    ))
    .unwrap()
}

fn written(p: Posted) -> Upserted {
    match p {
        Posted::Written(u) => u,
        Posted::Superseded { head } => panic!("superseded by {head}"),
    }
}

#[test]
fn the_plan_comment_is_created_then_edited_in_place_then_left_when_current() {
    let fake = Fake::new(ME);
    fake.add_change(2, "abc1234");
    fake.add_comment(2, "octocat", "LGTM, but see the plan", false);
    let first = written(post(&fake, 2, "2 to create.\n", None));
    assert_eq!(first.action, CommentAction::Created);
    let comments = fake.comments(2);
    assert_eq!(comments.len(), 2);
    assert_eq!(
        comments[1].body,
        "<!-- guildctl:plan:guild.yaml -->\n2 to create.\n"
    );
    assert_eq!(first.url, comments[1].url);
    assert_eq!(
        first.describe(WORDS, 2),
        format!("Commented on #2: {}", first.url)
    );

    let second = written(post(&fake, 2, "1 to update.\n", None));
    assert_eq!(
        (second.action, second.id),
        (CommentAction::Updated, first.id)
    );
    assert_eq!(fake.comments(2).len(), 2, "still one plan comment");
    assert!(
        second
            .describe(WORDS, 2)
            .starts_with("Updated the comment on #2: ")
    );

    let writes = fake.writes().len();
    let third = written(post(&fake, 2, "1 to update.\n", None));
    assert_eq!(third.action, CommentAction::Unchanged);
    assert_eq!(fake.writes().len(), writes, "nothing written");
    assert!(
        third
            .describe(WORDS, 2)
            .starts_with("The comment is already current on #2: ")
    );

    // Another manifest has its own comment.
    let other = block_on(upsert_comment(
        &fake,
        ME,
        2,
        "<!-- guildctl:plan:staging/guild.yaml -->",
        "x",
        None,
    ))
    .unwrap();
    assert!(matches!(other, Posted::Written(u) if u.action == CommentAction::Created));
    assert_eq!(fake.comments(2).len(), 3);
}

/// A comment with the marker by someone else is never edited (an attacker's "No changes,
/// approve away"), nor is a system note; guildctl's own is created beside them.
#[test]
fn a_marker_comment_by_someone_else_or_the_forge_is_left_alone() {
    let fake = Fake::new(ME);
    fake.add_change(2, "abc1234");
    let planted = "<!-- guildctl:plan:guild.yaml -->\nNo changes. Approve away.";
    let theirs = fake.add_comment(2, "mallory", planted, false);
    let system = fake.add_comment(
        2,
        ME,
        "<!-- guildctl:plan:guild.yaml --> added 1 commit",
        true,
    );
    let done = written(post(&fake, 2, "3 to delete.\n", None));
    assert_eq!(done.action, CommentAction::Created);
    assert_eq!(
        done.foreign,
        [Foreign {
            id: theirs,
            author: "mallory".into()
        }]
    );
    let again = written(post(&fake, 2, "4 to delete.\n", None));
    assert_eq!((again.action, again.id), (CommentAction::Updated, done.id));
    let comments = fake.comments(2);
    assert_eq!(comments[0].body, planted);
    assert!(comments[1].body.ends_with("added 1 commit"));
    assert!(
        !fake
            .writes()
            .iter()
            .any(|w| w.ends_with(&format!(" {theirs}")) || w.ends_with(&format!(" {system}"))),
        "{:?}",
        fake.writes()
    );
}

/// With the commit a pipeline planned, the comment is written only while it is the
/// change's head: an older pipeline finishing last writes nothing.
#[test]
fn only_the_heads_plan_is_written() {
    let fake = Fake::new(ME);
    fake.add_change(5, "5555555555");
    let old = post(&fake, 5, "older plan", Some("1111111111"));
    assert_eq!(
        old,
        Posted::Superseded {
            head: "5555555555".into()
        }
    );
    assert!(fake.writes().is_empty());
    assert_eq!(fake.reads(), ["thread 5 head"]);
    // The head, however its case is written.
    let new = written(post(
        &fake,
        5,
        "newer plan",
        Some("5555555555".to_uppercase().as_str()),
    ));
    assert_eq!(new.action, CommentAction::Created);
    // No commit known: written as asked, without asking for the head.
    written(post(&fake, 5, "by hand", None));
    assert_eq!(fake.reads().last().map(String::as_str), Some("thread 5"));
    assert!(fake.comments(5)[0].body.ends_with("by hand"));
}

#[test]
fn a_long_body_is_cut_to_the_forges_limit() {
    let fake = Fake::new(ME);
    fake.add_change(2, "abc1234");
    let done = written(post(&fake, 2, &"line\n".repeat(1_000), None));
    let body = &fake.comments(2)[0].body;
    assert!(body.chars().count() <= 1_000, "{}", body.chars().count());
    assert!(body.ends_with("(cut to fit the fake's limit)\n"));
    // The cut body is what is compared next time: unchanged, nothing written.
    let writes = fake.writes().len();
    let again = written(post(&fake, 2, &"line\n".repeat(1_000), None));
    assert_eq!(
        (again.action, again.id),
        (CommentAction::Unchanged, done.id)
    );
    assert_eq!(fake.writes().len(), writes);
}

const MERGE: &str = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
const HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const PLAN: PlanRuns<'static> = PlanRuns {
    name: "guild-plan.yml",
    include_failed: false,
};

fn merged_fake(runs: Vec<(u64, Option<&str>)>) -> Fake {
    let fake = Fake::new(ME);
    {
        let mut s = fake.state.borrow_mut();
        s.merged.push((
            MERGE.into(),
            Merged {
                number: 2,
                head_sha: HEAD.into(),
            },
        ));
        s.runs = runs
            .into_iter()
            .map(|(id, why)| Candidate {
                id,
                why_not: why.map(str::to_owned),
            })
            .collect();
    }
    fake
}

fn pick(fake: &Fake) -> Option<Reviewed> {
    block_on(reviewed_plan(fake, MERGE, PLAN)).unwrap()
}

#[test]
fn the_reviewed_plan_is_the_newest_run_of_the_changes_own() {
    let fake = merged_fake(vec![(30, None), (20, None), (10, None)]);
    let r = pick(&fake).unwrap();
    assert_eq!((r.change, r.head_sha.as_str()), (2, HEAD));
    assert_eq!((r.run, r.plan), (Some(30), Some(30)));
    assert!(r.passed_over.is_empty());
    assert_eq!(
        fake.reads(),
        [
            format!("merged {MERGE}"),
            "runs 2 page 1".into(),
            "plan_in 30".into()
        ],
        "nothing asked past the first that is the change's own"
    );
}

/// Newer runs that are not the change's own (a stale head, a fork, another pull request)
/// are passed over with why, newest first.
#[test]
fn a_stale_or_untrusted_run_is_passed_over_with_why() {
    let fake = merged_fake(vec![
        (50, Some("came from fork mallory/Hello-World")),
        (40, Some("is for commit 3333333")),
        (35, Some("is for pull request #9")),
        (30, None),
    ]);
    let r = pick(&fake).unwrap();
    assert_eq!(r.run, Some(30));
    assert_eq!(
        passed_over_lines(WORDS, &r.passed_over),
        [
            "Passed over: run 50 came from fork mallory/Hello-World.",
            "Passed over: run 40 is for commit 3333333.",
            "Passed over: run 35 is for pull request #9.",
        ]
    );
}

/// A run of the change's own whose plan job did not finish as asked is passed over too,
/// and the plan comes from the next one.
#[test]
fn a_run_without_its_plan_is_passed_over() {
    let fake = merged_fake(vec![(30, None), (20, None)]);
    fake.state
        .borrow_mut()
        .plans
        .push((30, Err("has no successful job guildctl-plan".into())));
    fake.state.borrow_mut().plans.push((20, Ok(201)));
    let r = pick(&fake).unwrap();
    assert_eq!((r.run, r.plan), (Some(20), Some(201)));
    assert_eq!(r.passed_over[0].why, "has no successful job guildctl-plan");
}

#[test]
fn the_own_run_is_found_on_a_later_page_and_no_page_past_it_is_read() {
    let mut runs: Vec<(u64, Option<&str>)> = (0..4)
        .map(|i| (100 - i, Some("is for pull request #9")))
        .collect();
    runs.push((60, None));
    runs.extend((0..5).map(|i| (50 - i, None)));
    let fake = merged_fake(runs);
    let r = pick(&fake).unwrap();
    assert_eq!(r.run, Some(60));
    assert_eq!(r.passed_over.len(), 4);
    let pages: Vec<String> = fake
        .reads()
        .into_iter()
        .filter(|r| r.starts_with("runs"))
        .collect();
    assert_eq!(pages, ["runs 2 page 1", "runs 2 page 2"]);
}

#[test]
fn no_run_of_its_own_is_no_reviewed_plan_and_a_long_tail_is_counted() {
    let runs: Vec<(u64, Option<&str>)> = (0..25)
        .map(|i| (100 - i, Some("concluded cancelled")))
        .collect();
    let fake = merged_fake(runs);
    let r = pick(&fake).unwrap();
    assert_eq!((r.run, r.plan), (None, None));
    let lines = passed_over_lines(WORDS, &r.passed_over);
    assert_eq!(lines.len(), 21);
    assert_eq!(lines[20], "Passed over 5 more runs.");
}

#[test]
fn a_direct_push_has_no_reviewed_plan_and_a_bad_sha_asks_nothing() {
    let fake = merged_fake(vec![(30, None)]);
    assert_eq!(
        block_on(reviewed_plan(&fake, "0123456789abcdef", PLAN)).unwrap(),
        None
    );
    let reads = fake.reads().len();
    for bad in ["main/../x", "abc", &"a".repeat(65), "g123456"] {
        assert_eq!(
            block_on(reviewed_plan(&fake, bad, PLAN)),
            Err(FakeError::NotASha(bad.to_owned()))
        );
    }
    assert_eq!(fake.reads().len(), reads, "refused before any question");
    assert_eq!(
        NotASha("x/y".into()).to_string(),
        "\"x/y\" is not a commit sha"
    );
}
