//! One comment (GitHub) or note (GitLab) per marker on a pull or merge request, created
//! once and then edited in place, so a change shows one current plan per manifest. Only a
//! comment guildctl's own login wrote is ever edited (a forge's system notes never are);
//! one carrying the marker by anyone else is left alone.

use super::drift_issue::{Foreign, is_mine, written_as};
use super::marker::carries;
use super::tracker::{Comment, Tracker, Words};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentAction {
    Created,
    Updated,
    /// The comment already said exactly this.
    Unchanged,
}

/// What happened to the comment, and what was left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upserted {
    pub id: u64,
    pub url: String,
    pub action: CommentAction,
    /// Comments that carry the marker but someone else wrote.
    pub foreign: Vec<Foreign>,
    /// Who the forge says wrote the comment guildctl just created, when that is not `me`.
    pub written_as: Option<String>,
}

impl Upserted {
    /// What was done, for stderr: `Commented on #2: URL` (the URL inert).
    pub fn describe(&self, words: Words, change: u64) -> String {
        let what = words.comment;
        let verb = match self.action {
            CommentAction::Created => words.commented.to_owned(),
            CommentAction::Updated => format!("Updated the {what} on"),
            CommentAction::Unchanged => format!("The {what} is already current on"),
        };
        let url = crate::inert::terminal(&self.url);
        format!("{verb} {}{change}: {url}", words.change)
    }
}

/// What [`upsert_comment`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Posted {
    Written(Upserted),
    /// The change's head is another commit than the one the comment is about: a newer
    /// push, whose own pipeline writes the comment. Nothing was written.
    Superseded {
        head: String,
    },
}

/// Creates the comment carrying `marker` on pull or merge request `change`, or edits the
/// one that already carries it and that `me` wrote.
///
/// With `commit` (the commit the pipeline planned), the comment is written only while
/// that commit is the change's head, read just before writing: an older pipeline that
/// finishes after a newer push's never replaces the newer plan, which is the plan a merge
/// applies (docs/gitlab.md, "The newest head wins").
pub async fn upsert_comment<T: Tracker>(
    forge: &T,
    me: &str,
    change: u64,
    marker: &str,
    body: &str,
    commit: Option<&str>,
) -> Result<Posted, T::Error> {
    let body = forge.body_with_marker(marker, body);
    let thread = forge.thread(change, commit.is_some()).await?;
    let (ours, foreign): (Vec<&Comment>, Vec<&Comment>) = thread
        .comments
        .iter()
        .filter(|c| !c.system && carries(&c.body, marker))
        .partition(|c| is_mine(c.author.as_deref(), me));
    let foreign = foreign
        .iter()
        .map(|c| Foreign::new(c.id, c.author.as_deref()))
        .collect();
    if let (Some(commit), Some(head)) = (commit, &thread.head)
        && !head.eq_ignore_ascii_case(commit)
    {
        return Ok(Posted::Superseded { head: head.clone() });
    }
    let (comment, action) = match ours.first() {
        Some(c) if c.body == body => ((*c).clone(), CommentAction::Unchanged),
        Some(c) => (
            forge.edit_comment(&thread, c.id, &body).await?,
            CommentAction::Updated,
        ),
        None => (
            forge.create_comment(&thread, &body).await?,
            CommentAction::Created,
        ),
    };
    let written_as = (action == CommentAction::Created)
        .then(|| written_as(comment.author.as_deref(), me))
        .flatten();
    Ok(Posted::Written(Upserted {
        id: comment.id,
        url: comment.url,
        action,
        foreign,
        written_as,
    }))
}
