//! One drift issue per marker, on any forge: opened when drift is found, edited while it
//! lasts, commented on and closed when the guild matches its manifest again. Only an
//! issue guildctl's own login opened is ever edited or closed; one carrying the marker
//! that anyone else opened is left alone (and guildctl opens its own beside it).

use super::marker::carries;
use super::tracker::{Issue, Tracker};

/// What was done with the drift issue (its number: GitLab's `iid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftIssue {
    Opened {
        number: u64,
        url: String,
    },
    Updated {
        number: u64,
        url: String,
    },
    /// Still open and already saying exactly this.
    Unchanged {
        number: u64,
        url: String,
    },
    Closed {
        number: u64,
        url: String,
    },
    /// No drift and no open issue: nothing to do.
    Nothing,
}

impl DriftIssue {
    pub fn url(&self) -> Option<&str> {
        match self {
            DriftIssue::Opened { url, .. }
            | DriftIssue::Updated { url, .. }
            | DriftIssue::Unchanged { url, .. }
            | DriftIssue::Closed { url, .. } => Some(url),
            DriftIssue::Nothing => None,
        }
    }

    /// What was done, for stderr (the URL is the forge's answer: shown inert).
    pub fn describe(&self) -> String {
        let url = crate::inert::terminal(self.url().unwrap_or_default()).into_owned();
        match self {
            DriftIssue::Opened { number, .. } => format!("Opened drift issue #{number}: {url}"),
            DriftIssue::Updated { number, .. } => format!("Updated drift issue #{number}: {url}"),
            DriftIssue::Unchanged { number, .. } => {
                format!("Drift issue #{number} is already current: {url}")
            }
            DriftIssue::Closed { number, .. } => format!("Closed drift issue #{number}: {url}"),
            DriftIssue::Nothing => "No drift and no open drift issue.".to_owned(),
        }
    }
}

/// An item carrying guildctl's marker that guildctl did not write: left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// The comment's id or the issue's number.
    pub id: u64,
    /// Its author's login (`ghost` for a deleted account).
    pub author: String,
}

impl Foreign {
    pub(crate) fn new(id: u64, author: Option<&str>) -> Foreign {
        Foreign {
            id,
            author: author.unwrap_or("ghost").to_owned(),
        }
    }
}

/// What stderr says of the items left alone (`kind`: "comment", "note", "issue").
pub fn left_alone(kind: &str, foreign: &[Foreign], me: &str) -> Vec<String> {
    foreign
        .iter()
        .map(|f| {
            format!(
                "Left alone: {kind} {} by {} carries guildctl's marker, but guildctl writes as {me}.",
                f.id,
                crate::inert::terminal(&f.author)
            )
        })
        .collect()
}

/// Whether `author` is guildctl's login `me` (logins compare without case).
pub(crate) fn is_mine(author: Option<&str>, me: &str) -> bool {
    author.is_some_and(|a| a.eq_ignore_ascii_case(me))
}

/// Who the forge says wrote what guildctl just created, when that is not `me`: the next
/// run would not know it as its own.
pub(crate) fn written_as(author: Option<&str>, me: &str) -> Option<String> {
    (!is_mine(author, me)).then(|| author.unwrap_or("ghost").to_owned())
}

/// The issue's wording, and whether the guild drifted.
pub struct DriftReport<'a> {
    pub marker: &'a str,
    pub label: &'a str,
    pub title: &'a str,
    /// The drift report (markdown).
    pub body: &'a str,
    pub drifted: bool,
    /// The comment left when the issue is closed.
    pub closing_comment: &'a str,
}

/// What was done, and what was left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftSync {
    pub issue: DriftIssue,
    /// Open issues with the label and the marker that someone else opened.
    pub foreign: Vec<Foreign>,
    /// Who the forge says opened the issue guildctl just opened, when that is not `me`.
    pub written_as: Option<String>,
}

impl DriftSync {
    /// Says what was done on stderr, and prints the issue's URL (the forge's answer: shown
    /// inert) on stdout.
    pub fn print(&self) {
        eprintln!("{}", self.issue.describe());
        if let Some(url) = self.issue.url() {
            crate::outln!("{}", crate::inert::terminal(url));
        }
    }
}

/// Opens, edits or closes the drift issue `me` opened, by the four states of (an issue of
/// guildctl's is open, the guild drifted).
pub async fn sync_drift_issue<T: Tracker>(
    forge: &T,
    me: &str,
    report: &DriftReport<'_>,
) -> Result<DriftSync, T::Error> {
    let issues = forge.open_issues(report.label).await?;
    let (ours, foreign): (Vec<&Issue>, Vec<&Issue>) = issues
        .iter()
        .filter(|i| carries(&i.body, report.marker))
        .partition(|i| is_mine(i.author.as_deref(), me));
    let foreign = foreign
        .iter()
        .map(|i| Foreign::new(i.number, i.author.as_deref()))
        .collect();
    let body = forge.body_with_marker(report.marker, report.body);
    let mut written = None;
    let issue = match (ours.first(), report.drifted) {
        (None, false) => DriftIssue::Nothing,
        (None, true) => {
            let opened = forge.open_issue(report.title, &body, report.label).await?;
            written = written_as(opened.author.as_deref(), me);
            DriftIssue::Opened {
                number: opened.number,
                url: opened.url,
            }
        }
        (Some(open), true) if open.body == body && open.title == report.title => {
            DriftIssue::Unchanged {
                number: open.number,
                url: open.url.clone(),
            }
        }
        (Some(open), true) => {
            let edited = forge.edit_issue(open.number, report.title, &body).await?;
            DriftIssue::Updated {
                number: edited.number,
                url: edited.url,
            }
        }
        (Some(open), false) => {
            forge
                .comment_on_issue(open.number, report.closing_comment)
                .await?;
            let closed = forge.close_issue(open.number).await?;
            DriftIssue::Closed {
                number: closed.number,
                url: closed.url,
            }
        }
    };
    Ok(DriftSync {
        issue,
        foreign,
        written_as: written,
    })
}
