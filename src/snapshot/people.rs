//! Who holds the roster roles, who is banned, and who each user the manifest names is: read
//! only when the manifest declares rosters or bans, and bounded by what it declares rather
//! than by the guild's size.
//!
//! Rosters cost one read of the role member counts and one read per declared user; the member
//! listing (1,000 a page, behind the GUILD_MEMBERS intent) is read only when the counts show a
//! roster role held by more members than the declared users who hold it. Bans cost one read
//! per 1,000 bans, paged by user id, and one member read per user the ban list names who is
//! not banned yet (a ban of a member is destructive: the plan must know). Each user a member
//! overwrite names (the live guild's, or one the manifest declares) costs one member read,
//! for the roles they hold: access is computed for them as Discord does, and the rehearsal's
//! copy must hold them, since Discord sets an overwrite only for a member. A named user who is
//! not a member, and whom no ban names, costs one more read (Get User) for their username,
//! so a plan shows every user it names as Discord knows them. No user is read twice, and the
//! bot (whose member the snapshot read) not at all.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use tokio::task::JoinSet;

use serde::de::DeserializeOwned;

use crate::discord::models::{Member, User};
use crate::discord::{Client, ClientError};

/// Members and bans a page holds at most (Discord's limits).
pub const PAGE: usize = 1000;
/// Member reads in flight at once.
const CONCURRENT_READS: usize = 8;

/// What to read: the roster roles (live id → the users declared for it), whether bans
/// are managed, and the users the ban list names.
#[derive(Debug, Clone, Default)]
pub struct PeopleQuery {
    pub rosters: BTreeMap<String, BTreeSet<String>>,
    /// Every user a roster declares, also those of roles not yet created.
    pub users: BTreeSet<String>,
    pub bans: bool,
    /// Every user the ban list names: those not banned yet are read as members are.
    pub ban_list: BTreeSet<String>,
    /// Read how many members hold each role (a `holders` policy counts them).
    pub counts: bool,
    /// Every user a member overwrite names, in the live guild or in the manifest: read as
    /// a roster's users are (their roles), without the role counts.
    pub overwrites: BTreeSet<String>,
    /// Read the member listing whatever the rosters say, naming every holder of every role
    /// (`access --people`): one read per 1,000 members, behind the GUILD_MEMBERS intent.
    pub every_holder: bool,
}

impl PeopleQuery {
    pub fn is_empty(&self) -> bool {
        self.rosters.is_empty()
            && self.users.is_empty()
            && !self.bans
            && self.ban_list.is_empty()
            && !self.counts
            && self.overwrites.is_empty()
            && !self.every_holder
    }
}

/// Members and bans as read for the manifest's rosters and ban list.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct People {
    /// The live ids of the roster roles read.
    #[serde(default)]
    pub rosters: BTreeSet<String>,
    /// Role id → members holding it (@everyone left out), when rosters are declared.
    pub role_counts: Option<BTreeMap<String, u64>>,
    /// Each user a plan names whose membership was read (roster users, users to ban who
    /// are not banned yet, and users a member overwrite names) → the roles they hold, or
    /// `None` when they are not a member.
    #[serde(default)]
    pub declared: BTreeMap<String, Option<Vec<String>>>,
    /// Roster role id → every member holding it, when the listing was read.
    pub holders: Option<BTreeMap<String, BTreeSet<String>>>,
    /// Each holder the listing named → every role they hold (`@everyone` left out), so a
    /// holder whose roster changes is computed with the roles they keep, not as a member
    /// holding the roster roles alone.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub listed: BTreeMap<String, Vec<String>>,
    /// The listing was needed and Discord refused it (no GUILD_MEMBERS intent).
    #[serde(default)]
    pub listing_refused: bool,
    /// Member listing pages read.
    #[serde(default)]
    pub listing_pages: usize,
    /// Banned user id → the ban's reason, when bans are managed.
    pub bans: Option<BTreeMap<String, Option<String>>>,
    /// User id → username, for the users read: members, bans, holders listed, and named
    /// users who are not members. A named user who is not a member and has none here is
    /// no user Discord knows.
    #[serde(default)]
    pub usernames: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct LiveBan {
    user: User,
    #[serde(default)]
    reason: Option<String>,
}

impl People {
    /// The members holding `role`, as far as they are known: every holder when the listing
    /// was read, else the declared users who hold it.
    pub fn known_holders(&self, role: &str) -> BTreeSet<String> {
        if let Some(all) = self.holders.as_ref().and_then(|h| h.get(role)) {
            return all.clone();
        }
        self.declared
            .iter()
            .filter(|(_, roles)| roles.as_ref().is_some_and(|r| r.iter().any(|x| x == role)))
            .map(|(u, _)| u.clone())
            .collect()
    }

    /// Holders of `role` the reads could not name: the listing was refused while the counts
    /// show more holders than are known.
    pub fn unnamed_holders(&self, role: &str) -> u64 {
        if self.holders.as_ref().is_some_and(|h| h.contains_key(role)) {
            return 0;
        }
        let count = self
            .role_counts
            .as_ref()
            .and_then(|c| c.get(role))
            .copied()
            .unwrap_or(0);
        count.saturating_sub(self.known_holders(role).len() as u64)
    }
}

/// Reads what `q` asks for (see the module's comment for the cost); `bot` is the bot's
/// user and member as the snapshot read them, so naming the bot costs no read.
pub async fn read(
    client: &Client,
    guild_id: &str,
    q: &PeopleQuery,
    (bot, bot_member): (&User, &Member),
) -> Result<People, ClientError> {
    let mut people = People {
        rosters: q.rosters.keys().cloned().collect(),
        ..People::default()
    };
    let g = format!("/guilds/{guild_id}");
    if q.bans {
        people.bans = read_bans(client, &g, &mut people.usernames).await?;
    }
    // Banned users are no members: the ban gave their username.
    let banned = |u: &String| people.bans.as_ref().is_some_and(|b| b.contains_key(u));
    let mut named = q.users.clone();
    if people.bans.is_some() {
        named.extend(q.ban_list.iter().filter(|u| !banned(u)).cloned());
    }
    let (overwrites_banned, overwrites_read): (Vec<&String>, Vec<&String>) =
        q.overwrites.iter().partition(|u| banned(u));
    named.extend(overwrites_read.into_iter().cloned());
    for user in overwrites_banned {
        people.declared.insert(user.clone(), None);
    }
    if named.remove(&bot.id) {
        people
            .declared
            .insert(bot.id.clone(), Some(bot_member.roles.clone()));
        people
            .usernames
            .insert(bot.id.clone(), bot.username.clone());
    }
    if !q.rosters.is_empty() || !q.users.is_empty() || q.counts || q.every_holder {
        let counts: HashMap<String, u64> = client.get(&format!("{g}/roles/member-counts")).await?;
        people.role_counts = Some(counts.into_iter().collect());
    }
    let members = read_each::<Member>(client, &named, |u| format!("{g}/members/{u}")).await?;
    for (user, member) in members {
        if let Some(u) = member.as_ref().and_then(|m| m.user.as_ref()) {
            people.usernames.insert(user.clone(), u.username.clone());
        }
        people.declared.insert(user, member.map(|m| m.roles));
    }
    let strangers: BTreeSet<String> = people
        .declared
        .iter()
        .filter(|(u, m)| m.is_none() && !people.usernames.contains_key(*u))
        .map(|(u, _)| u.clone())
        .collect();
    for (user, found) in read_each::<User>(client, &strangers, |u| format!("/users/{u}")).await? {
        if let Some(u) = found {
            people.usernames.insert(user, u.username);
        }
    }
    let undeclared = q
        .rosters
        .keys()
        .any(|role| people.unnamed_holders(role) > 0);
    if undeclared || q.every_holder {
        list_holders(client, &g, q, &mut people).await?;
    }
    Ok(people)
}

/// Every ban, by user id with its reason (their usernames into `usernames`); `None` when
/// the bot lacks ban_members to read them, which a plan then says.
async fn read_bans(
    client: &Client,
    g: &str,
    usernames: &mut BTreeMap<String, String>,
) -> Result<Option<BTreeMap<String, Option<String>>>, ClientError> {
    let mut bans = BTreeMap::new();
    let mut after = "0".to_owned();
    loop {
        let Some(page) = page_after::<LiveBan>(client, &format!("{g}/bans"), &after).await? else {
            return Ok(None);
        };
        let full = page.len() >= PAGE;
        for b in page {
            after = max_id(&after, &b.user.id);
            usernames.insert(b.user.id.clone(), b.user.username);
            bans.insert(b.user.id, b.reason);
        }
        if !full {
            return Ok(Some(bans));
        }
    }
}

/// One page of the listing `path` (bans, members): up to [`PAGE`] entries after the id
/// `after`; `None` when the bot may not read it (403).
async fn page_after<T: DeserializeOwned>(
    client: &Client,
    path: &str,
    after: &str,
) -> Result<Option<Vec<T>>, ClientError> {
    match client
        .get(&format!("{path}?limit={PAGE}&after={after}"))
        .await
    {
        Ok(page) => Ok(Some(page)),
        Err(ClientError::Api(e)) if e.status.as_u16() == 403 => Ok(None),
        Err(e) => Err(e),
    }
}

/// The larger of two snowflakes (strings of digits).
fn max_id(a: &str, b: &str) -> String {
    if crate::snapshot::snowflake_cmp(a, b).is_lt() {
        b.to_owned()
    } else {
        a.to_owned()
    }
}

/// One read per user (`path` of the user's id), 8 at a time: `None` for a 404 (for a
/// member read: 10007 Unknown Member, who left or never joined, or 10013 Unknown User; for
/// Get User, 10013).
async fn read_each<T: DeserializeOwned + Send + 'static>(
    client: &Client,
    users: &BTreeSet<String>,
    path: impl Fn(&str) -> String,
) -> Result<Vec<(String, Option<T>)>, ClientError> {
    let mut out = Vec::with_capacity(users.len());
    let mut pending = users.iter();
    let mut running: JoinSet<(String, Result<Option<T>, ClientError>)> = JoinSet::new();
    loop {
        while running.len() < CONCURRENT_READS {
            let Some(user) = pending.next() else { break };
            let (client, path, user) = (client.clone(), path(user), user.clone());
            running.spawn(async move {
                let read = match client.get::<T>(&path).await {
                    Ok(found) => Ok(Some(found)),
                    Err(ClientError::Api(e)) if e.status.as_u16() == 404 => Ok(None),
                    Err(e) => Err(e),
                };
                (user, read)
            });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let Ok((user, read)) = joined else {
            continue;
        };
        out.push((user, read?));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Pages through the members to name every holder of the roster roles, with all the roles
/// each holds; keeps no other member, so a guild of a million members costs 1,000 reads but
/// not the memory of a million.
async fn list_holders(
    client: &Client,
    g: &str,
    q: &PeopleQuery,
    people: &mut People,
) -> Result<(), ClientError> {
    let mut holders: BTreeMap<String, BTreeSet<String>> = q
        .rosters
        .keys()
        .map(|r| (r.clone(), BTreeSet::new()))
        .collect();
    let mut after = "0".to_owned();
    loop {
        let Some(page) = page_after::<Member>(client, &format!("{g}/members"), &after).await?
        else {
            // 50001: the application lacks the GUILD_MEMBERS intent.
            people.listing_refused = true;
            return Ok(());
        };
        people.listing_pages += 1;
        let full = page.len() >= PAGE;
        for m in page {
            let Some(user) = m.user else { continue };
            after = max_id(&after, &user.id);
            let mut holds = false;
            for role in &m.roles {
                if q.every_holder {
                    holders.entry(role.clone()).or_default();
                }
                if let Some(set) = holders.get_mut(role) {
                    set.insert(user.id.clone());
                    holds = true;
                }
            }
            if holds {
                people
                    .usernames
                    .insert(user.id.clone(), user.username.clone());
                people.listed.insert(user.id.clone(), m.roles);
            }
        }
        if !full {
            break;
        }
    }
    people.holders = Some(holders);
    Ok(())
}
