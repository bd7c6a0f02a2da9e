//! `access`: who can do what, where, in the guild as its manifest would make it (or as it
//! is).

use super::Failure;
use super::targets::loaded;
use super::{GuildTarget, Host};
use crate::access::view::{Query, View, Who};
use crate::discord::Client;
use crate::manifest::LoadedManifest;
use crate::plan::Problem;
use crate::snapshot::{self, Holders, Reading};

/// What `query` asks of one guild, with the problems for which apply would refuse its
/// plan: the live guild read as the manifest needs (and the member `query` names, one read
/// more).
pub async fn access(
    client: &Client,
    guild: &GuildTarget,
    pre: Option<std::sync::Arc<LoadedManifest>>,
    host: &impl Host,
    query: &Query,
) -> Result<(View, Vec<Problem>), Failure> {
    let loaded = loaded(host, guild, pre).await?;
    // A user asked for by id is read; one asked for by username is one the plan reads.
    let users: Vec<String> = match &query.who {
        Who::User(user) if user.bytes().all(|b| b.is_ascii_digit()) => vec![user.clone()],
        Who::User(_) | Who::Everyone | Who::Roles(_) | Who::NewMember(_) => Vec::new(),
    };
    // Who holds each role is said for the channels `--channel` names: counted (one read),
    // or named by the member listing with `--people`.
    let holders = match (query.people, query.channel.is_some()) {
        (true, _) => Holders::Named,
        (false, true) => Holders::Counted,
        (false, false) => Holders::AsNeeded,
    };
    let reading = Reading::of(&loaded.manifest)
        .with_users(&users)
        .with_holders(holders);
    let snap = snapshot::read(client, &guild.id, reading).await?;
    let options = host.plan_options().with_api_base(client.api_base());
    let (mut view, problems) = crate::planner::access_view(&loaded, &snap, &options, query)?;
    if query.people && snap.people.as_ref().is_some_and(|p| p.listing_refused) {
        view.notes.push(
            "--people: Discord refused the member listing (the application needs the Server Members intent, GUILD_MEMBERS, in the developer portal): holders are counted, and only the members the plan read are named".to_owned(),
        );
    }
    Ok((view, problems))
}

/// The guild `access` computes on, whole (for the HTML page, which shows every role and
/// person in every channel): today's when `live`, else the one the manifest would make,
/// with the problems for which apply would refuse its plan, and the guild's name.
pub async fn access_guild(
    client: &Client,
    guild: &GuildTarget,
    pre: Option<std::sync::Arc<LoadedManifest>>,
    host: &impl Host,
    live: bool,
) -> Result<AccessGuild, Failure> {
    let loaded = loaded(host, guild, pre).await?;
    let snap = snapshot::read(client, &guild.id, Reading::of(&loaded.manifest)).await?;
    let options = host.plan_options().with_api_base(client.api_base());
    let (model, joining, problems) = crate::planner::access_guild(&loaded, &snap, &options, live);
    Ok(AccessGuild {
        name: snap.guild.name.clone(),
        model,
        joining,
        problems,
    })
}

/// What [`access_guild`] read: the guild's name, its access model, and the plan's problems.
#[derive(Debug)]
pub struct AccessGuild {
    /// The guild's name, as Discord has it.
    pub name: String,
    /// The guild as access computes on it.
    pub model: crate::access::Guild,
    /// Its welcome screen and onboarding: a new member's path on the page.
    pub joining: crate::access::onboarding::Joining,
    /// The problems for which apply would refuse the plan (none for the live guild).
    pub problems: Vec<Problem>,
}
