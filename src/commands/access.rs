//! `guildctl access`: who can do what, where — the matrix of roles × channels, a preview
//! as a member holding some roles (or as one user), or a new member's walk through
//! onboarding — of the guild as the manifest would make
//! it, or of today's (`--live`). Reads only.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;

use guildctl::access::view::{Query, Who};
use guildctl::inert;
use guildctl::ops;
use guildctl::report::{self, Format, html};

use super::{Connection, Target, connect_loaded, failure, load_checked};

#[derive(Args)]
pub struct AccessArgs {
    /// The manifest file (or folder).
    #[arg(short = 'f', long = "file")]
    file: PathBuf,
    /// The guild as it is today, not as the manifest would make it.
    #[arg(long)]
    live: bool,
    /// Preview as a member holding these roles (names, comma-separated; `@everyone` for a
    /// member with none): the channels they see and what they can do there.
    #[arg(
        long = "as",
        value_name = "ROLE,...",
        value_delimiter = ',',
        conflicts_with = "user"
    )]
    roles: Option<Vec<String>>,
    /// Preview as this member, with the roles they hold (after the plan's roster changes,
    /// unless --live): their user id (one read more), or the username of a member the plan
    /// reads (its rosters and member overwrites name them).
    #[arg(long, value_name = "ID|USERNAME", value_parser = user_arg)]
    user: Option<String>,
    /// Only the channels this names: `Staff/*`, `#general`, `Staff` (a category); with
    /// every permission of each role there.
    #[arg(long, value_name = "PATH")]
    channel: Option<String>,
    /// With --channel: name every member holding each role there, from the member listing
    /// (one read per 1,000 members; needs the Server Members intent). Without it, the
    /// rosters' people are named and the others counted.
    #[arg(long, requires = "channel")]
    people: bool,
    /// Walk onboarding as a new member: the welcome screen, the channels in their list on
    /// joining, each question with the roles and channels its answers give, and what they
    /// see once they have answered (--answers).
    #[arg(long, conflicts_with_all = ["roles", "user", "channel"])]
    new_member: bool,
    /// With --new-member: the answers picked, `QUESTION=ANSWER`, several answers to one
    /// question separated by `;` (titles without case; repeat the flag for each question).
    #[arg(long, value_name = "QUESTION=ANSWER[;ANSWER]", requires = "new_member")]
    answers: Vec<String>,
    /// text: a channel tree for a terminal; markdown: a table for a pull request or a
    /// wiki; json: for tools; html: one self-contained page, every role and person in
    /// every channel, with filters.
    #[arg(long, value_enum, default_value = "text")]
    format: AccessFormat,
    #[command(flatten)]
    conn: Connection,
}

/// `access --format`: the report's formats, and the page. The page is this command's and
/// `plan`'s alone, so it is not a value of the shared [`Format`]: `drift` and `watch` keep
/// refusing `html` as a value they do not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AccessFormat {
    Text,
    Markdown,
    Json,
    Html,
}

impl AccessFormat {
    /// The report format, or `None` for the page (made from the whole guild, not a view).
    fn report(self) -> Option<Format> {
        match self {
            AccessFormat::Text => Some(Format::Text),
            AccessFormat::Markdown => Some(Format::Markdown),
            AccessFormat::Json => Some(Format::Json),
            AccessFormat::Html => None,
        }
    }
}

impl AccessArgs {
    pub(crate) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

/// `--user`: an id (digits), or a username (a name Discord allows: 2 to 32 characters).
fn user_arg(s: &str) -> Result<String, String> {
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return guildctl::drift::parse_user_id(s);
    }
    let name = s.trim().trim_start_matches('@');
    if (2..=32).contains(&name.chars().count()) {
        Ok(name.to_owned())
    } else {
        Err("a user id, or a username of 2 to 32 characters".to_owned())
    }
}

pub async fn run(args: AccessArgs) -> Result<u8> {
    let AccessArgs {
        file,
        live,
        roles,
        user,
        channel,
        people,
        new_member,
        answers,
        format,
        conn,
    } = args;
    let target = Target {
        file: Some(file),
        selection: Default::default(),
        create_unseen: Vec::new(),
        annotations: None,
        within: None,
        policies_base: None,
        like: false,
        conn,
    };
    let Some(format) = format.report() else {
        if roles.is_some() || user.is_some() || channel.is_some() {
            anyhow::bail!(
                "--format html shows every role, person and channel, with filters of its own: leave out --as, --user and --channel, and open the page at #role=NAME, #person=USERNAME or #channel=TEXT (docs/access.md, \"The picture: access as a page\")"
            );
        }
        if !answers.is_empty() {
            anyhow::bail!(
                "--format html shows a new member's path with nothing answered: leave out --answers, or see the answers' path with --new-member --answers … --format text"
            );
        }
        // `--new-member` asks for what the page shows anyway, under the grid.
        return page(&target, live).await;
    };
    let loaded = Arc::new(load_checked(&target)?);
    let query = Query {
        live,
        who: match (roles, user) {
            _ if new_member => Who::NewMember(answers),
            (Some(roles), _) => Who::Roles(roles),
            (None, Some(user)) => Who::User(user),
            (None, None) => Who::Everyone,
        },
        channel,
        people,
    };
    let session = connect_loaded(&target, &loaded).await?;
    let guild = target.guild(session.guild_id.clone());
    let (view, problems) = ops::access(&session.client, &guild, Some(loaded), &target, &query)
        .await
        .map_err(failure)?;
    note_problems(&problems);
    for note in &view.notes {
        eprintln!("note: {note}");
    }
    guildctl::out!("{}", report::access::render(&view, format));
    Ok(0)
}

/// `--format html`: the page of every who in every channel.
async fn page(target: &Target, live: bool) -> Result<u8> {
    let loaded = Arc::new(load_checked(target)?);
    let session = connect_loaded(target, &loaded).await?;
    let guild = target.guild(session.guild_id.clone());
    let read = ops::access_guild(&session.client, &guild, Some(loaded), target, live)
        .await
        .map_err(failure)?;
    note_problems(&read.problems);
    let grid = guildctl::access::grid::grid(&read.model);
    let new_member = html::new_member_json(&read.model, &read.joining);
    guildctl::out!(
        "{}",
        html::render(&html::Page {
            guild_id: &read.model.id,
            guild_name: &read.name,
            shown: if live {
                html::Shown::Live
            } else {
                html::Shown::AfterPlan
            },
            grid: &grid,
            access: &[],
            new_member: new_member.as_ref(),
        })
    );
    Ok(0)
}

/// The problems for which apply would refuse the plan whose guild is shown, on stderr.
fn note_problems(problems: &[guildctl::plan::Problem]) {
    if !problems.is_empty() {
        eprintln!(
            "note: apply would refuse this plan ({} problem(s), `guildctl plan` shows them); this is the guild as the manifest would make it",
            problems.len()
        );
        for p in problems.iter().take(5) {
            eprintln!("  - {}", inert::terminal(&p.message));
        }
    }
}
