//! What guildctl's flows ask of a forge, as traits each forge's adapter implements over
//! its HTTP client (`github`, `gitlab`) and an in-memory fake implements for the flows'
//! tests: [`Tracker`] (the drift issue, and the plan comment or note on a pull or merge
//! request) and [`Reviews`] (the runs that planned a merged change). The adapters speak
//! the forge's API and say what its items are called ([`Words`]); the flows
//! (`forge::drift_issue`, `forge::comment`, `forge::reviewed`) decide what to do.

/// How a forge names what the flows touch, for what guildctl says on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// "GitHub", "GitLab".
    pub forge: &'static str,
    /// What guildctl writes on a pull or merge request: "comment", "note".
    pub comment: &'static str,
    /// "Commented on", "Noted on".
    pub commented: &'static str,
    /// What comes before a pull or merge request's number: "#", "!".
    pub change: &'static str,
    /// What ran the plan: "run" (a workflow run), "pipeline".
    pub run: &'static str,
    /// The plural of `run`.
    pub runs: &'static str,
}

/// A comment on a pull request (GitHub) or a note on a merge request (GitLab).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub id: u64,
    /// Its author's login or username; `None` for a deleted account.
    pub author: Option<String>,
    pub body: String,
    /// Written by the forge itself (GitLab's system notes): never guildctl's.
    pub system: bool,
    /// Where a person reads it.
    pub url: String,
}

/// An issue, as the drift flow sees it: its number (GitLab's project-scoped `iid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub number: u64,
    pub author: Option<String>,
    pub title: String,
    pub body: String,
    pub url: String,
}

/// A pull or merge request's comments, read just before guildctl writes on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// The pull or merge request's number.
    pub change: u64,
    /// Its comments, oldest first.
    pub comments: Vec<Comment>,
    /// Its head commit, when it was asked for (GitLab's note is written only by the
    /// pipeline of the head).
    pub head: Option<String>,
    /// Its web page, for a forge whose comments carry no URL of their own (GitLab's
    /// notes are the merge request's page at `#note_ID`).
    pub page: Option<String>,
}

/// The flows' questions about drift issues and plan comments.
///
/// guildctl awaits these one at a time on one task, so the futures need not be `Send`.
#[allow(async_fn_in_trait)]
pub trait Tracker {
    type Error;

    /// How this forge names what the flows touch, for what guildctl says.
    fn words(&self) -> Words;
    /// The marker on its own line, then `body`, cut to the forge's limit with a note
    /// saying where the whole report is (`forge::body_with_marker`).
    fn body_with_marker(&self, marker: &str, body: &str) -> String;

    /// The open issues carrying `label`, every page, pull requests left out.
    async fn open_issues(&self, label: &str) -> Result<Vec<Issue>, Self::Error>;
    async fn open_issue(&self, title: &str, body: &str, label: &str) -> Result<Issue, Self::Error>;
    async fn edit_issue(&self, number: u64, title: &str, body: &str) -> Result<Issue, Self::Error>;
    async fn comment_on_issue(&self, number: u64, body: &str) -> Result<(), Self::Error>;
    /// Closes it as done (GitHub: `state_reason: completed`).
    async fn close_issue(&self, number: u64) -> Result<Issue, Self::Error>;

    /// Pull or merge request `change` and its comments, every page; its head commit with
    /// `with_head`.
    async fn thread(&self, change: u64, with_head: bool) -> Result<Thread, Self::Error>;
    async fn create_comment(&self, thread: &Thread, body: &str) -> Result<Comment, Self::Error>;
    async fn edit_comment(
        &self,
        thread: &Thread,
        id: u64,
        body: &str,
    ) -> Result<Comment, Self::Error>;
}

/// A commit that is no commit sha: refused before any request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a commit sha")]
pub struct NotASha(pub String);

/// The pull or merge request a commit merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub number: u64,
    /// Its head commit: what its own plan runs planned.
    pub head_sha: String,
}

/// Which runs hold the plan: the plan workflow (GitHub) or the plan job (GitLab), and
/// whether one that failed counts (a workspace's plan fails when one guild's does, and
/// saves the others').
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanRuns<'a> {
    pub name: &'a str,
    pub include_failed: bool,
}

impl PlanRuns<'_> {
    /// The runs taken, in words: `finished` (failed ones too) or `successful`.
    pub fn taken(&self) -> &'static str {
        if self.include_failed {
            "finished"
        } else {
            "successful"
        }
    }
}

/// A run for the merged change, as its forge judged it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub id: u64,
    /// Why it is not the change's own finished plan run; `None` when it is.
    pub why_not: Option<String>,
}

/// One page of a listing, and where the next one is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

/// The reviewed-plan pick's questions.
#[allow(async_fn_in_trait)]
pub trait Reviews {
    type Error: From<NotASha>;

    /// The pull or merge request `sha` merged into this repository, if any.
    async fn merged(&self, sha: &str) -> Result<Option<Merged>, Self::Error>;
    /// One page of `change`'s runs, newest first (`page`: the next page's address from
    /// the page before; `None` for the first), each judged by the forge's rules.
    async fn runs(
        &self,
        change: &Merged,
        plan: PlanRuns<'_>,
        page: Option<String>,
    ) -> Result<Page<Candidate>, Self::Error>;
    /// What holds the plan in run `run` (the run itself, or its plan job), or why none.
    async fn plan_in(
        &self,
        run: u64,
        plan: PlanRuns<'_>,
    ) -> Result<Result<u64, String>, Self::Error>;
}
