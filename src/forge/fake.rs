//! An in-memory forge for the flows' tests: it implements [`Tracker`] and [`Reviews`] over
//! plain lists, records every write, and answers at once, so each state of the flows is
//! tested in microseconds. The adapters' own tests (and one HTTP contract test per forge
//! in tests/suite) show that GitHub and GitLab are spoken as this fake is.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use super::tracker::{
    Candidate, Comment, Issue, Merged, NotASha, Page, PlanRuns, Reviews, Thread, Tracker, Words,
};

/// Runs a future that never waits (the fake's): polled once.
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("the fake forge never waits"),
    }
}

pub const WORDS: Words = Words {
    forge: "Fakehub",
    comment: "comment",
    commented: "Commented on",
    change: "#",
    run: "run",
    runs: "runs",
};

#[derive(Debug, PartialEq, Eq)]
pub enum FakeError {
    NotASha(String),
    NoSuchChange(u64),
}

impl From<NotASha> for FakeError {
    fn from(e: NotASha) -> FakeError {
        FakeError::NotASha(e.0)
    }
}

#[derive(Debug, Clone)]
pub struct FakeIssue {
    pub issue: Issue,
    pub labels: Vec<String>,
    pub open: bool,
    pub comments: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct FakeChange {
    pub head: String,
    pub comments: Vec<Comment>,
}

#[derive(Debug, Default)]
pub struct State {
    pub issues: Vec<FakeIssue>,
    pub changes: std::collections::BTreeMap<u64, FakeChange>,
    /// Every write, in order, e.g. `close_issue 3`.
    pub writes: Vec<String>,
    /// Every question, in order, e.g. `thread 2 head`.
    pub reads: Vec<String>,
    /// The merged change of each merge commit.
    pub merged: Vec<(String, Merged)>,
    /// The merged change's runs, newest first, already judged.
    pub runs: Vec<Candidate>,
    /// What holds each run's plan, or why none (a run not named has its own id).
    pub plans: Vec<(u64, Result<u64, String>)>,
    next_id: u64,
}

pub struct Fake {
    /// The login the fake writes as (a forge can write as another than guildctl thinks).
    pub writes_as: String,
    /// Items of a listing per page.
    pub page_size: usize,
    pub state: RefCell<State>,
}

impl Fake {
    pub fn new(writes_as: &str) -> Fake {
        Fake {
            writes_as: writes_as.to_owned(),
            page_size: 3,
            state: RefCell::new(State {
                next_id: 100,
                ..State::default()
            }),
        }
    }

    fn next_id(&self) -> u64 {
        let mut s = self.state.borrow_mut();
        s.next_id += 1;
        s.next_id
    }

    pub fn add_issue(&self, author: &str, title: &str, body: &str, label: &str) -> u64 {
        let number = self.next_id();
        self.state.borrow_mut().issues.push(FakeIssue {
            issue: Issue {
                number,
                author: Some(author.to_owned()),
                title: title.to_owned(),
                body: body.to_owned(),
                url: format!("https://forge.test/issues/{number}"),
            },
            labels: vec![label.to_owned()],
            open: true,
            comments: Vec::new(),
        });
        number
    }

    pub fn add_change(&self, number: u64, head: &str) {
        self.state.borrow_mut().changes.insert(
            number,
            FakeChange {
                head: head.to_owned(),
                comments: Vec::new(),
            },
        );
    }

    pub fn add_comment(&self, change: u64, author: &str, body: &str, system: bool) -> u64 {
        let id = self.next_id();
        let mut s = self.state.borrow_mut();
        let c = s.changes.entry(change).or_default();
        c.comments.push(Comment {
            id,
            author: Some(author.to_owned()),
            body: body.to_owned(),
            system,
            url: format!("https://forge.test/pull/{change}#comment-{id}"),
        });
        id
    }

    pub fn issue(&self, number: u64) -> FakeIssue {
        let s = self.state.borrow();
        s.issues
            .iter()
            .find(|i| i.issue.number == number)
            .cloned()
            .expect("the issue exists")
    }

    pub fn comments(&self, change: u64) -> Vec<Comment> {
        self.state.borrow().changes[&change].comments.clone()
    }

    pub fn writes(&self) -> Vec<String> {
        self.state.borrow().writes.clone()
    }

    pub fn reads(&self) -> Vec<String> {
        self.state.borrow().reads.clone()
    }

    fn wrote(&self, what: String) {
        self.state.borrow_mut().writes.push(what);
    }

    fn read(&self, what: String) {
        self.state.borrow_mut().reads.push(what);
    }

    fn edit<R>(&self, number: u64, f: impl FnOnce(&mut FakeIssue) -> R) -> R {
        let mut s = self.state.borrow_mut();
        let issue = s
            .issues
            .iter_mut()
            .find(|i| i.issue.number == number)
            .expect("the flow names an issue it was given");
        f(issue)
    }
}

impl Tracker for Fake {
    type Error = FakeError;

    fn words(&self) -> Words {
        WORDS
    }

    fn body_with_marker(&self, marker: &str, body: &str) -> String {
        super::body_with_marker(marker, body, 1_000, "cut to fit the fake's limit")
    }

    async fn open_issues(&self, label: &str) -> Result<Vec<Issue>, FakeError> {
        self.read(format!("open_issues {label}"));
        Ok(self
            .state
            .borrow()
            .issues
            .iter()
            .filter(|i| i.open && i.labels.iter().any(|l| l == label))
            .map(|i| i.issue.clone())
            .collect())
    }

    async fn open_issue(&self, title: &str, body: &str, label: &str) -> Result<Issue, FakeError> {
        let number = self.add_issue(&self.writes_as, title, body, label);
        self.wrote(format!("open_issue {number}"));
        Ok(self.issue(number).issue)
    }

    async fn edit_issue(&self, number: u64, title: &str, body: &str) -> Result<Issue, FakeError> {
        self.wrote(format!("edit_issue {number}"));
        Ok(self.edit(number, |i| {
            i.issue.title = title.to_owned();
            i.issue.body = body.to_owned();
            i.issue.clone()
        }))
    }

    async fn comment_on_issue(&self, number: u64, body: &str) -> Result<(), FakeError> {
        self.wrote(format!("comment_on_issue {number}"));
        self.edit(number, |i| i.comments.push(body.to_owned()));
        Ok(())
    }

    async fn close_issue(&self, number: u64) -> Result<Issue, FakeError> {
        self.wrote(format!("close_issue {number}"));
        Ok(self.edit(number, |i| {
            i.open = false;
            i.issue.clone()
        }))
    }

    async fn thread(&self, change: u64, with_head: bool) -> Result<Thread, FakeError> {
        self.read(format!(
            "thread {change}{}",
            if with_head { " head" } else { "" }
        ));
        let s = self.state.borrow();
        let c = s
            .changes
            .get(&change)
            .ok_or(FakeError::NoSuchChange(change))?;
        Ok(Thread {
            change,
            comments: c.comments.clone(),
            head: with_head.then(|| c.head.clone()),
            page: None,
        })
    }

    async fn create_comment(&self, thread: &Thread, body: &str) -> Result<Comment, FakeError> {
        let id = self.add_comment(thread.change, &self.writes_as, body, false);
        self.wrote(format!("create_comment {id}"));
        Ok(self.comments(thread.change).pop().expect("just added"))
    }

    async fn edit_comment(
        &self,
        thread: &Thread,
        id: u64,
        body: &str,
    ) -> Result<Comment, FakeError> {
        self.wrote(format!("edit_comment {id}"));
        let mut s = self.state.borrow_mut();
        let c = s
            .changes
            .get_mut(&thread.change)
            .and_then(|c| c.comments.iter_mut().find(|c| c.id == id))
            .expect("the flow edits a comment it was given");
        c.body = body.to_owned();
        Ok(c.clone())
    }
}

impl Reviews for Fake {
    type Error = FakeError;

    async fn merged(&self, sha: &str) -> Result<Option<Merged>, FakeError> {
        self.read(format!("merged {sha}"));
        let s = self.state.borrow();
        Ok(s.merged
            .iter()
            .find(|(m, _)| m == sha)
            .map(|(_, c)| c.clone()))
    }

    async fn runs(
        &self,
        change: &Merged,
        _plan: PlanRuns<'_>,
        page: Option<String>,
    ) -> Result<Page<Candidate>, FakeError> {
        let n: usize = page.as_deref().map_or(1, |p| p.parse().unwrap_or(1));
        self.read(format!("runs {} page {n}", change.number));
        let s = self.state.borrow();
        let start = (n - 1) * self.page_size;
        let items: Vec<Candidate> = s
            .runs
            .iter()
            .skip(start)
            .take(self.page_size)
            .cloned()
            .collect();
        let next = (start + self.page_size < s.runs.len()).then(|| (n + 1).to_string());
        Ok(Page { items, next })
    }

    async fn plan_in(
        &self,
        run: u64,
        _plan: PlanRuns<'_>,
    ) -> Result<Result<u64, String>, FakeError> {
        self.read(format!("plan_in {run}"));
        let s = self.state.borrow();
        Ok(s.plans
            .iter()
            .find(|(r, _)| *r == run)
            .map_or(Ok(run), |(_, p)| p.clone()))
    }
}
