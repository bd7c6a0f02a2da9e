//! `guildctl gitlab ...`: the component's jobs (templates/guildctl.yml) call these; they
//! print what they made (a URL, or `key=value` lines for a dotenv report) on stdout and
//! say what they did on stderr.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::forge::{
    DriftIssueArgs, Foreign, Marked, MarkedBody, PlanRuns, Posted, Tracker, left_alone,
    plan_digest, reviewed_plan, sync_drift_issue, upsert_comment,
};
use crate::inert;

use super::artifact::download_artifact;
use super::client::{GitLab, Identity, identity};
use super::error::GitlabError;

#[derive(Args)]
pub struct GitlabArgs {
    #[command(subcommand)]
    pub command: GitlabCommand,
}

/// Whose notes and issues are guildctl's own.
#[derive(Args)]
pub struct AuthorArg {
    /// The username the token writes as (default: the token's user, from GET /user).
    /// Only a note or issue this user wrote is ever edited.
    #[arg(
        long = "author",
        env = "GUILDCTL_GITLAB_AUTHOR",
        value_name = "USERNAME"
    )]
    username: Option<String>,
}

#[derive(Subcommand)]
pub enum GitlabCommand {
    /// Read the members of the GitLab groups the workspace's people file names
    /// (`gitlab_group:`, inherited members included) and write them, usernames by group,
    /// for the runs that follow (`GUILDCTL_TEAMS=FILE`); with no group named, a file of none.
    #[command(after_help = "Example:\n  guildctl gitlab teams --out teams.json")]
    Teams {
        /// The JSON file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The repository's root, where guildctl.yaml is.
        #[arg(long, default_value = ".")]
        repo_root: PathBuf,
    },
    /// Create the merge request's note carrying `<!-- guildctl:MARKER -->`, or update the
    /// one that already does and that guildctl's user wrote; print its URL.
    #[command(
        after_help = "Example:\n  guildctl gitlab note --marker plan:guild.yaml --body-file report.md"
    )]
    Note {
        #[command(flatten)]
        text: MarkedBody,
        /// The merge request's iid (default: CI_MERGE_REQUEST_IID).
        #[arg(long, env = "CI_MERGE_REQUEST_IID")]
        mr: Option<u64>,
        /// The commit the note is about (default: CI_MERGE_REQUEST_SOURCE_BRANCH_SHA in a
        /// merged results pipeline, else CI_COMMIT_SHA). The note is written only while
        /// it is the merge request's head: a pipeline of an older push writes nothing.
        #[arg(long)]
        sha: Option<String>,
        #[command(flatten)]
        author: AuthorArg,
    },
    /// Open, update or close the issue carrying `<!-- guildctl:MARKER -->` that guildctl's
    /// user opened; print its URL.
    #[command(
        after_help = "Example:\n  guildctl gitlab drift-issue --marker drift:guild.yaml --body-file drift.md --drifted true"
    )]
    DriftIssue {
        #[command(flatten)]
        issue: DriftIssueArgs,
        #[command(flatten)]
        author: AuthorArg,
    },
    /// Find the plan reviewed for a commit on the default branch: the merge request it
    /// merged and the newest successful pipeline of that merge request that ran in this
    /// project, for its head, on `refs/merge-requests/IID/head`, with a successful JOB.
    /// Prints `merge-request=`, `head-sha=`, `pipeline-id=` and `job-id=` lines (empty
    /// when there is none, as for a direct push).
    #[command(
        after_help = "Example:\n  guildctl gitlab reviewed-plan --job guildctl-plan > reviewed.env"
    )]
    ReviewedPlan {
        /// The plan job's name.
        #[arg(long)]
        job: String,
        /// Also take a pipeline and plan job that failed (never canceled ones): a
        /// workspace's plan job fails when one guild's plan does, and saves the others'.
        #[arg(long)]
        include_failed: bool,
        /// The commit (default: CI_COMMIT_SHA).
        #[arg(long, env = "CI_COMMIT_SHA")]
        sha: String,
    },
    /// Print a saved plan's digest: its `changes_sha256` when it has one, otherwise the
    /// SHA-256 of the file.
    #[command(after_help = "Example:\n  guildctl gitlab plan-digest guildctl/plan.json")]
    PlanDigest {
        /// The plan file from `guildctl plan --out`.
        plan: PathBuf,
    },
    /// Write one file of a job's artifacts (the reviewed plan) to OUT.
    #[command(
        after_help = "Example:\n  guildctl gitlab artifact --job 42 --path guildctl/plan.json --out reviewed-plan.json"
    )]
    Artifact {
        /// The job's id.
        #[arg(long)]
        job: u64,
        /// The file's path inside the job's artifacts.
        #[arg(long)]
        path: String,
        #[arg(long)]
        out: PathBuf,
    },
}

async fn whoami(gl: &GitLab, author: &AuthorArg) -> Result<Identity, GitlabError> {
    let me = identity(gl, author.username.as_deref()).await?;
    eprintln!("guildctl writes on GitLab as {}.", me.describe());
    Ok(me)
}

fn report_foreign(kind: &str, foreign: &[Foreign], me: &Identity) {
    for line in left_alone(kind, foreign, &me.username) {
        eprintln!("{line}");
    }
}

pub async fn run(args: GitlabArgs) -> Result<u8, GitlabError> {
    match args.command {
        GitlabCommand::Teams { out, repo_root } => {
            let named =
                crate::forge::named_teams::<GitlabError>(&repo_root, |g| g.gitlab_group.as_ref())?;
            let mut teams = crate::manifest::people::Teams::default();
            // A workspace that names no group needs no token.
            if !named.is_empty() {
                let gl = GitLab::from_env()?;
                let gl = &gl;
                teams.gitlab = crate::forge::read_each(named, |group, name| async move {
                    super::teams::members(gl, &group)
                        .await
                        .map_err(|source| GitlabError::Group {
                            group,
                            name,
                            source: Box::new(source),
                        })
                })
                .await?;
            }
            crate::forge::write_teams(&out, &teams).map_err(|source| GitlabError::Write {
                path: out.display().to_string(),
                source,
            })?;
            Ok(0)
        }
        GitlabCommand::Note {
            text,
            mr,
            sha,
            author,
        } => {
            let Marked { marker, body } = text.read::<GitlabError>()?;
            let iid = mr.ok_or(GitlabError::NoMergeRequest)?;
            let commit = sha.or_else(pipeline_commit);
            let gl = GitLab::from_env()?;
            let me = whoami(&gl, &author).await?;
            let posted =
                upsert_comment(&gl, &me.username, iid, &marker, &body, commit.as_deref()).await?;
            let done = match posted {
                Posted::Written(done) => done,
                Posted::Superseded { head } => {
                    // Not a failure: the newer head's own pipeline writes the note.
                    eprintln!(
                        "Not writing the note on !{iid}: a newer head exists ({} is the merge request's head, this pipeline planned {}); its own pipeline writes the note.",
                        inert::terminal(&head),
                        inert::terminal(commit.as_deref().unwrap_or_default())
                    );
                    return Ok(0);
                }
            };
            report_foreign("note", &done.foreign, &me);
            eprintln!("{}", done.describe(gl.words(), iid));
            // The URL is GitLab's answer: shown inert.
            crate::outln!("{}", inert::terminal(&done.url));
            Ok(0)
        }
        GitlabCommand::DriftIssue { issue, author } => {
            let text = issue.text.read::<GitlabError>()?;
            let gl = GitLab::from_env()?;
            let me = whoami(&gl, &author).await?;
            let closing = closing_note();
            let sync = sync_drift_issue(&gl, &me.username, &issue.report(&text, &closing)).await?;
            report_foreign("issue", &sync.foreign, &me);
            sync.print();
            Ok(0)
        }
        GitlabCommand::ReviewedPlan {
            job,
            include_failed,
            sha,
        } => {
            let gl = GitLab::from_env()?;
            let plan = PlanRuns {
                name: &job,
                include_failed,
            };
            let taken = plan.taken();
            let found = reviewed_plan(&gl, &sha, plan).await?;
            let num = |n: Option<u64>| n.map(|i| i.to_string()).unwrap_or_default();
            let (mr, head, pipeline, job_id) = match &found {
                Some(r) => (
                    r.change.to_string(),
                    inert::terminal(&r.head_sha).into_owned(),
                    num(r.run),
                    num(r.plan),
                ),
                None => Default::default(),
            };
            if let Some(r) = &found {
                r.say_passed_over(gl.words());
            }
            match &found {
                None => eprintln!("Commit {sha} merged no merge request: no reviewed plan."),
                Some(r) if r.plan.is_none() => eprintln!(
                    "Merge request !{mr} (head {head}) has no {taken} pipeline of its own with a {taken} {job} job: no reviewed plan."
                ),
                Some(_) => eprintln!(
                    "Merge request !{mr} (head {head}): pipeline {pipeline}, job {job_id}."
                ),
            }
            crate::outln!(
                "merge-request={mr}\nhead-sha={head}\npipeline-id={pipeline}\njob-id={job_id}"
            );
            Ok(0)
        }
        GitlabCommand::PlanDigest { plan } => {
            // The digest a plan file carries: one inert line, whatever the file says.
            crate::outln!("{}", inert::terminal(&plan_digest(&plan)?));
            Ok(0)
        }
        GitlabCommand::Artifact { job, path, out } => {
            let gl = GitLab::from_env()?;
            let n = download_artifact(&gl, job, &path, &out).await?;
            eprintln!(
                "Wrote {} ({n} bytes) from job {job}'s artifacts to {}.",
                inert::terminal(&path),
                inert::terminal(&out.display().to_string())
            );
            Ok(0)
        }
    }
}

/// The commit a merge request pipeline planned: the source branch's head in a merged
/// results pipeline (whose CI_COMMIT_SHA is a merge commit GitLab made), else
/// CI_COMMIT_SHA. `None` outside a pipeline.
fn pipeline_commit() -> Option<String> {
    ["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", "CI_COMMIT_SHA"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.trim().is_empty())
}

/// The note left on a drift issue as it is closed, linking the job that saw the guild
/// match again.
fn closing_note() -> String {
    let job = match std::env::var("CI_JOB_URL") {
        Ok(url) if !url.is_empty() => format!(" ([job]({url}))"),
        _ => String::new(),
    };
    format!("The guild matches its manifest again{job}; closing this issue.")
}
