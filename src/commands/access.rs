//! `guildctl access`: who can do what, where — the matrix of roles × channels, or a preview
//! as a member holding some roles (or as one user) — of the guild as the manifest would make
//! it, or of today's (`--live`). Reads only.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use guildctl::access::view::{Query, View, Who};
use guildctl::inert;
use guildctl::manifest::LoadedManifest;
use guildctl::plan::{self, Problem};
use guildctl::report::{self, Format};

use guildctl::snapshot::{self, Reading};

use super::{Connection, Target, connect_loaded, load_checked};

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
    /// Preview as this member (user id), with the roles they hold (after the plan's roster
    /// changes, unless --live); one read more.
    #[arg(long, value_name = "ID", value_parser = guildctl::drift::parse_user_id)]
    user: Option<String>,
    /// Only the channels this names: `Staff/*`, `#general`, `Staff` (a category); with
    /// every permission of each role there.
    #[arg(long, value_name = "PATH")]
    channel: Option<String>,
    /// text: a channel tree for a terminal; markdown: a table for a pull request or a
    /// wiki; json: for tools.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[command(flatten)]
    conn: Connection,
}

impl AccessArgs {
    pub(crate) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

pub async fn run(args: AccessArgs) -> Result<u8> {
    let AccessArgs {
        file,
        live,
        roles,
        user,
        channel,
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
        conn,
    };
    let loaded = load_checked(&target)?;
    let query = Query {
        live,
        who: match (roles, user) {
            (Some(roles), _) => Who::Roles(roles),
            (None, Some(user)) => Who::User(user),
            (None, None) => Who::Everyone,
        },
        channel,
    };
    let (view, problems) = view_loaded(&target, &loaded, &query).await?;
    if !problems.is_empty() {
        eprintln!(
            "note: apply would refuse this plan ({} problem(s), `guildctl plan` shows them); this is the guild as the manifest would make it",
            problems.len()
        );
        for p in problems.iter().take(5) {
            eprintln!("  - {}", inert::terminal(&p.message));
        }
    }
    guildctl::out!("{}", report::access::render(&view, format));
    Ok(0)
}

/// What `query` asks of a loaded manifest's guild, with the problems for which apply would
/// refuse its plan: the live guild read as the manifest needs (and the member `--user`
/// names, one read more).
pub(crate) async fn view_loaded(
    target: &Target,
    loaded: &LoadedManifest,
    query: &Query,
) -> Result<(View, Vec<Problem>)> {
    let session = connect_loaded(target, loaded).await?;
    let users: Vec<String> = match &query.who {
        Who::User(user) => vec![user.clone()],
        Who::Everyone | Who::Roles(_) => Vec::new(),
    };
    let reading = Reading::of(&loaded.manifest).with_users(&users);
    let snap = snapshot::read(&session.client, &session.guild_id, reading).await?;
    let options = target
        .plan_options()
        .with_api_base(session.client.api_base());
    Ok(plan::access_view(loaded, &snap, &options, query)?)
}
