//! `guildctl github ...`: the steps of the Action call these; they print the URL of
//! what they made on stdout and say what they did on stderr.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::inert;
use crate::plan::Plan;
use crate::report::{self, Heading, MarkdownRoom};

use super::client::GitHub;
use super::error::GithubError;
use super::files::pull_request_files;
use super::identity::{Identity, identity};
use super::types::{pull_request_from_event, read};
use crate::forge::{
    DriftIssueArgs, Foreign, Marked, MarkedBody, PlanRuns, Posted, Tracker, every_guild,
    left_alone, plan_digest, plan_rehearsal, reviewed_plan, sync_drift_issue, touched_guilds,
    upsert_comment,
};

#[derive(Args)]
pub struct GithubArgs {
    #[command(subcommand)]
    pub command: GithubCommand,
}

#[derive(Subcommand)]
pub enum GithubCommand {
    /// Read the members of the GitHub teams the workspace's people file names
    /// (`github_team:`) and write them, logins by team, for the runs that follow
    /// (`GUILDCTL_TEAMS=FILE`); with no team named, a file of none.
    #[command(after_help = "Example:\n  guildctl github teams --out teams.json")]
    Teams {
        /// The JSON file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The repository's root, where guildctl.yaml is.
        #[arg(long, default_value = ".")]
        repo_root: PathBuf,
    },
    /// Create the pull request's comment carrying `<!-- guildctl:MARKER -->`, or update
    /// the one that already does and that guildctl's identity wrote; print its URL.
    #[command(
        after_help = "Example:\n  guildctl github comment --marker plan:guild.yaml --body-file report.md"
    )]
    Comment {
        #[command(flatten)]
        text: MarkedBody,
        /// The pull request's number (default: the pull request of GITHUB_EVENT_PATH).
        #[arg(long)]
        pr: Option<u64>,
        #[command(flatten)]
        author: AuthorArg,
    },
    /// Open, update or close the issue carrying `<!-- guildctl:MARKER -->` that
    /// guildctl's identity opened; print its URL.
    #[command(
        after_help = "Example:\n  guildctl github drift-issue --marker drift:guild.yaml --body-file drift.md --drifted true"
    )]
    DriftIssue {
        #[command(flatten)]
        issue: DriftIssueArgs,
        #[command(flatten)]
        author: AuthorArg,
    },
    /// Find the plan reviewed for a commit on the default branch: the pull request it
    /// merged and the newest successful run of the plan workflow for that pull request's
    /// head that GitHub lists as that pull request's and that ran from this repository
    /// (not a fork). Prints `pull-request=`, `head-sha=` and `run-id=` lines (empty when
    /// there is none, as for a direct push), for `>> "$GITHUB_OUTPUT"`.
    #[command(
        after_help = "Example:\n  guildctl github reviewed-plan --workflow guild-plan.yml >> \"$GITHUB_OUTPUT\""
    )]
    ReviewedPlan {
        /// The plan workflow's file name (or id).
        #[arg(long)]
        workflow: String,
        /// Also take a run that failed (never one cancelled): a workspace's plan run
        /// fails when one guild's plan does, and saves the plans of the others.
        #[arg(long)]
        include_failed: bool,
        /// The commit (default: GITHUB_SHA).
        #[arg(long, env = "GITHUB_SHA")]
        sha: String,
    },
    /// Print the names of the workspace's guilds (guildctl.yaml) that the pull request
    /// touches, comma-separated on one line for `--guilds` (empty when none): those with
    /// a changed file among their manifest's files, bases included, so a change to a base
    /// touches every guild that extends it. Says on stderr why each is touched.
    #[command(
        after_help = "Example:\n  guilds=$(guildctl github changed-guilds)\n  guildctl plan --guilds \"$guilds\" --out plans"
    )]
    ChangedGuilds {
        /// The pull request's number (default: the pull request of GITHUB_EVENT_PATH).
        #[arg(long)]
        pr: Option<u64>,
        /// The repository's folder, which the pull request's paths are relative to.
        #[arg(long, env = "GITHUB_WORKSPACE", default_value = ".")]
        repo_root: PathBuf,
    },
    /// Print a saved plan's digest: its `changes_sha256` when it has one, otherwise the
    /// SHA-256 of the file.
    #[command(after_help = "Example:\n  guildctl github plan-digest plan.json")]
    PlanDigest {
        /// The plan file from `guildctl plan --out`.
        plan: PathBuf,
    },
    /// Print a saved plan as markdown for the job summary: the whole plan, up to the
    /// summary's 1 MiB (the comment carries a cut version that points here).
    #[command(
        after_help = "Example:\n  guildctl github plan-summary plan.json >> \"$GITHUB_STEP_SUMMARY\""
    )]
    PlanSummary {
        /// The plan file from `guildctl plan --out`.
        plan: PathBuf,
    },
    /// Print a saved plan's rehearsal verdict as one word: `passed`, `failed`, or
    /// `none` when it was not rehearsed (`plan --rehearse`).
    #[command(after_help = "Example:\n  guildctl github plan-rehearsal plan.json")]
    PlanRehearsal {
        /// The plan file from `guildctl plan --out`.
        plan: PathBuf,
    },
}

/// Whose comments and issues are guildctl's own.
#[derive(Args)]
pub struct AuthorArg {
    /// The login the token writes as, e.g. `my-app[bot]` for a GitHub App's token
    /// (default: the token's user from GitHub, or `github-actions[bot]` for an
    /// installation token such as the workflow's GITHUB_TOKEN). Only a comment or issue
    /// this login wrote is ever edited.
    #[arg(long = "author", env = "GUILDCTL_GITHUB_AUTHOR", value_name = "LOGIN")]
    login: Option<String>,
}

async fn whoami(gh: &GitHub, author: &AuthorArg) -> Result<Identity, GithubError> {
    let me = identity(gh, author.login.as_deref()).await?;
    eprintln!("guildctl writes on GitHub as {}.", me.describe());
    Ok(me)
}

/// Says what was left alone, and warns when GitHub wrote what guildctl created under
/// another login than the one it looks for (the next run would not find it).
fn report_foreign(kind: &str, foreign: &[Foreign], written_as: Option<&str>, me: &Identity) {
    for line in left_alone(kind, foreign, &me.login) {
        eprintln!("{line}");
    }
    if let Some(actual) = written_as {
        eprintln!(
            "::warning::guildctl: GitHub wrote this {kind} as {actual}, not as {}: the next run will not know it as its own; pass --author {actual} (the Action's github-author input)",
            me.login
        );
    }
}

pub async fn run(args: GithubArgs) -> Result<u8, GithubError> {
    match args.command {
        GithubCommand::Teams { out, repo_root } => {
            let named =
                crate::forge::named_teams::<GithubError>(&repo_root, |g| g.github_team.as_ref())?;
            let mut teams = crate::manifest::people::Teams::default();
            // A workspace that names no team needs no token.
            if !named.is_empty() {
                let gh = GitHub::from_env()?;
                let gh = &gh;
                teams.github = crate::forge::read_each(named, |team, group| async move {
                    super::teams::members(gh, &team)
                        .await
                        .map_err(|source| GithubError::Team {
                            team,
                            group,
                            source: Box::new(source),
                        })
                })
                .await?;
            }
            crate::forge::write_teams(&out, &teams)
                .map_err(|source| GithubError::Write { path: out, source })?;
            Ok(0)
        }
        GithubCommand::Comment { text, pr, author } => {
            let Marked { marker, body } = text.read::<GithubError>()?;
            let gh = GitHub::from_env()?;
            let number = match pr {
                Some(n) => n,
                None => {
                    let path = std::env::var_os("GITHUB_EVENT_PATH")
                        .ok_or(GithubError::MissingEnv("GITHUB_EVENT_PATH"))?;
                    let pr = pull_request_from_event(path.as_ref())?;
                    if from_fork(&pr.head_repo, &gh.repo().to_string()) {
                        // A pull_request run from a fork gets a read-only token: say why
                        // nothing is posted instead of failing on GitHub's 403.
                        eprintln!(
                            "::notice::guildctl: pull request #{} comes from a fork ({}); its token cannot comment, so the plan is in the job summary only",
                            pr.number,
                            inert::terminal(pr.head_repo.as_deref().unwrap_or("?"))
                        );
                        return Ok(0);
                    }
                    pr.number
                }
            };
            let me = whoami(&gh, &author).await?;
            // A pull request's comment is written by whichever run: no head to compare.
            let done = match upsert_comment(&gh, &me.login, number, &marker, &body, None).await? {
                Posted::Written(done) => done,
                Posted::Superseded { .. } => return Ok(0),
            };
            report_foreign("comment", &done.foreign, done.written_as.as_deref(), &me);
            eprintln!("{}", done.describe(gh.words(), number));
            // The URL is GitHub's answer: shown inert.
            crate::outln!("{}", inert::terminal(&done.url));
            Ok(0)
        }
        GithubCommand::DriftIssue { issue, author } => {
            let text = issue.text.read::<GithubError>()?;
            let gh = GitHub::from_env()?;
            let closing = closing_comment();
            let me = whoami(&gh, &author).await?;
            let sync = sync_drift_issue(&gh, &me.login, &issue.report(&text, &closing)).await?;
            report_foreign("issue", &sync.foreign, sync.written_as.as_deref(), &me);
            sync.print();
            Ok(0)
        }
        GithubCommand::ReviewedPlan {
            workflow,
            include_failed,
            sha,
        } => {
            let gh = GitHub::from_env()?;
            let plan = PlanRuns {
                name: &workflow,
                include_failed,
            };
            let taken = plan.taken();
            let found = reviewed_plan(&gh, &sha, plan).await?;
            let (pr, head, run) = match &found {
                // GitHub's answer, printed as `key=value` lines a step reads: one line each.
                Some(r) => (
                    r.change.to_string(),
                    inert::terminal(&r.head_sha).into_owned(),
                    r.run.map(|i| i.to_string()).unwrap_or_default(),
                ),
                None => Default::default(),
            };
            if let Some(r) = &found {
                r.say_passed_over(gh.words());
            }
            match &found {
                None => eprintln!("Commit {sha} merged no pull request: no reviewed plan."),
                Some(r) if r.run.is_none() => eprintln!(
                    "Pull request #{pr} (head {head}) has no {taken} {workflow} run of its own from this repository: no reviewed plan."
                ),
                Some(_) => eprintln!("Pull request #{pr} (head {head}): plan run {run}."),
            }
            crate::outln!("pull-request={pr}\nhead-sha={head}\nrun-id={run}");
            Ok(0)
        }
        GithubCommand::ChangedGuilds { pr, repo_root } => {
            let ws = crate::manifest::Workspace::find(&repo_root)?;
            let number = match pr {
                Some(n) => n,
                None => {
                    let path = std::env::var_os("GITHUB_EVENT_PATH")
                        .ok_or(GithubError::MissingEnv("GITHUB_EVENT_PATH"))?;
                    pull_request_from_event(path.as_ref())?.number
                }
            };
            let gh = GitHub::from_env()?;
            let files = pull_request_files(&gh, number).await?;
            let touched = if files.complete {
                touched_guilds(&ws, &repo_root, &files)
            } else {
                every_guild(
                    &ws,
                    "GitHub lists only the first 3,000 files of this pull request",
                )
            };
            for t in &touched {
                eprintln!("Guild {} is touched: {}.", t.name, inert::terminal(&t.why));
            }
            if touched.is_empty() {
                eprintln!(
                    "Pull request #{number} changes no guild's manifest ({} file(s) changed).",
                    files.paths.len()
                );
            }
            let names: Vec<&str> = touched.iter().map(|t| t.name.as_str()).collect();
            crate::outln!("{}", names.join(","));
            Ok(0)
        }
        GithubCommand::PlanDigest { plan } => {
            // The digest a plan file carries: one inert line, whatever the file says.
            crate::outln!("{}", inert::terminal(&plan_digest(&plan)?));
            Ok(0)
        }
        GithubCommand::PlanRehearsal { plan } => {
            crate::outln!("{}", plan_rehearsal(&plan)?);
            Ok(0)
        }
        GithubCommand::PlanSummary { plan: path } => {
            let plan: Plan =
                serde_json::from_str(&read(&path)?).map_err(|source| GithubError::Plan {
                    path: path.clone(),
                    source,
                })?;
            crate::out!(
                "{}",
                report::render_markdown(&plan, Heading::Plan, MarkdownRoom::JobSummary)
            );
            Ok(0)
        }
    }
}

/// Whether the pull request's branch lives in another repository than the workflow's.
fn from_fork(head_repo: &Option<String>, repo: &str) -> bool {
    let event = std::env::var("GITHUB_EVENT_NAME").unwrap_or_default();
    event == "pull_request"
        && head_repo
            .as_deref()
            .is_some_and(|h| !h.eq_ignore_ascii_case(repo))
}

/// The comment left on a drift issue as it is closed, linking the run that saw the
/// guild match again.
fn closing_comment() -> String {
    let run = match (
        std::env::var("GITHUB_SERVER_URL"),
        std::env::var("GITHUB_REPOSITORY"),
        std::env::var("GITHUB_RUN_ID"),
    ) {
        (Ok(server), Ok(repo), Ok(id)) if !id.is_empty() => {
            format!(" ([run {id}]({server}/{repo}/actions/runs/{id}))")
        }
        _ => String::new(),
    };
    format!("The guild matches its manifest again{run}; closing this issue.")
}
