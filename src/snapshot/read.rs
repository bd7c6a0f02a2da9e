//! The reading room: a guild read as one manifest needs it, or whole for `export`, in one
//! sequence for every reader — `plan`, `apply`, `drift`, `access`, the rehearsal's read-back
//! and `export` (docs/performance.md, "What each read costs"). What to read is decided here,
//! from the manifest and the live guild, without the planner: a roster role's live id comes
//! from the same matcher the role planner uses ([`super::matching`]).

use std::collections::BTreeSet;

use super::Snapshot;
use super::matching::match_entries;
use super::people::PeopleQuery;
use super::{Wants, automod, events, expressions};
use crate::discord::models::OVERWRITE_MEMBER;
use crate::discord::names::{EVERYONE, stored_display_name};
use crate::discord::{Client, ClientError};
use crate::manifest::Manifest;

/// What to read of a guild beside its seven reads ([`Snapshot::fetch`]).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    scope: Scope<'a>,
    /// Users whose membership (roles) is read too, one read each (`access --user`).
    users: &'a [String],
    /// Whether Discord's voice regions are read when the manifest names one: the
    /// rehearsal's copy has the emulator's list, so its read-back keeps the snapshot's.
    regions: bool,
    /// How many members hold each role (one read), and whether the member listing names
    /// every holder of every role (`access --channel`, `--people`).
    holders: Holders,
}

/// What a reading learns of who holds the roles, beyond what the manifest asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Holders {
    /// Only what the manifest's rosters and policies need.
    #[default]
    AsNeeded,
    /// Each role's member count too.
    Counted,
    /// The count, and every holder named by the member listing.
    Named,
}

#[derive(Debug, Clone, Copy)]
enum Scope<'a> {
    /// What `manifest` manages: the integrations, invites and voice regions it asks about,
    /// the people its rosters, bans and member overwrites name, and its optional sections.
    For(&'a Manifest),
    /// Everything `export` writes, whatever a manifest says: AutoMod rules, scheduled
    /// events, the expression lists (their files are `export`'s to read), and
    /// the members holding each role and the bans when asked for.
    Everything { members: bool, bans: bool },
}

impl<'a> Reading<'a> {
    /// The guild as `manifest` needs it.
    pub fn of(manifest: &'a Manifest) -> Reading<'a> {
        Reading {
            scope: Scope::For(manifest),
            users: &[],
            regions: true,
            holders: Holders::AsNeeded,
        }
    }

    /// The whole guild, for `export`: with every role's holders when `members` (the member
    /// listing) and the ban list when `bans`.
    pub fn everything(members: bool, bans: bool) -> Reading<'static> {
        Reading {
            scope: Scope::Everything { members, bans },
            users: &[],
            regions: true,
            holders: Holders::AsNeeded,
        }
    }

    /// Also the membership of `users`.
    pub fn with_users(self, users: &'a [String]) -> Reading<'a> {
        Reading { users, ..self }
    }

    /// Also who holds the roles, as `holders` says.
    pub fn with_holders(self, holders: Holders) -> Reading<'a> {
        Reading { holders, ..self }
    }

    /// Without Discord's voice regions (the caller has them already).
    pub fn without_regions(self) -> Reading<'a> {
        Reading {
            regions: false,
            ..self
        }
    }
}

/// Which step of a read failed, and Discord's answer.
#[derive(Debug, thiserror::Error)]
#[error("{step}")]
pub struct ReadError {
    /// What was being read, in words (`reading the live guild`).
    pub step: &'static str,
    #[source]
    pub source: ClientError,
}

fn step(step: &'static str) -> impl FnOnce(ClientError) -> ReadError {
    move |source| ReadError { step, source }
}

/// Reads guild `guild_id` as `reading` says: the seven reads, then, for a manifest, only
/// what it asks about besides (none of it for a manifest without those sections); for
/// `export`, every section.
pub async fn read(
    client: &Client,
    guild_id: &str,
    reading: Reading<'_>,
) -> Result<Snapshot, ReadError> {
    let mut snap = Snapshot::fetch(client, guild_id)
        .await
        .map_err(step("reading the live guild"))?;
    match reading.scope {
        Scope::For(manifest) => {
            let wants = Wants {
                regions: reading.regions && Wants::of(manifest).regions,
                ..Wants::of(manifest)
            };
            snap.read_doors(client, wants).await.map_err(step(
                "reading the guild's integrations, invites or voice regions",
            ))?;
            let mut wanted = people_query(manifest, &snap);
            wanted.users.extend(reading.users.iter().cloned());
            wanted.counts |= reading.holders != Holders::AsNeeded;
            wanted.every_holder = reading.holders == Holders::Named;
            snap.read_people(client, &wanted)
                .await
                .map_err(step("reading the guild's roster members and bans"))?;
            snap.read_sections(client, manifest).await.map_err(step(
                "reading the guild's emojis, soundboard sounds, AutoMod rules or scheduled events",
            ))?;
        }
        Scope::Everything { members, bans } => {
            let mut wanted = PeopleQuery {
                bans,
                ..PeopleQuery::default()
            };
            if members {
                // Every role a roster could be exported for; the listing names their holders.
                let guild = snap.guild.id.clone();
                wanted.rosters = snap
                    .guild
                    .roles
                    .iter()
                    .filter(|r| r.id != guild && !r.managed)
                    .map(|r| (r.id.clone(), Default::default()))
                    .collect();
            }
            wanted.users.extend(reading.users.iter().cloned());
            snap.read_people(client, &wanted)
                .await
                .map_err(step("reading the guild's members and bans"))?;
            let guild = snap.guild.id.clone();
            snap.automod = automod::read(client, &guild)
                .await
                .map_err(step("reading the guild's AutoMod rules"))?;
            snap.events = events::read(client, &guild)
                .await
                .map_err(step("reading the guild's scheduled events"))?;
            for list in expressions::List::ALL {
                snap.read_list(client, list)
                    .await
                    .map_err(step(list.step()))?;
            }
        }
    }
    Ok(snap)
}

/// What the snapshot must read for this manifest's rosters and bans, and for the member
/// overwrites of the guild and the manifest: the live id of each roster role (matched as the
/// role planner matches: [`match_entries`] on the names as Discord stores them) with its
/// declared users, and every user a member overwrite names. Empty for a manifest without
/// rosters or bans on a guild without member overwrites, which then costs no read more.
pub fn people_query(manifest: &Manifest, snap: &Snapshot) -> PeopleQuery {
    let mut q = PeopleQuery {
        overwrites: overwrite_users(manifest, snap),
        bans: manifest.bans.is_some(),
        ban_list: manifest
            .bans
            .iter()
            .flatten()
            .map(|b| b.id.0.clone())
            .collect(),
        counts: manifest
            .policies
            .iter()
            .flatten()
            .any(|p| p.holders.is_some()),
        ..PeopleQuery::default()
    };
    let Some(roles) = &manifest.roles else {
        return q;
    };
    if roles.iter().all(|r| r.members.is_none()) {
        return q;
    }
    let stored = crate::manifest::stored::as_stored(manifest);
    let declared = stored.roles.as_deref().unwrap_or_default();
    let guild_id = &snap.guild.id;
    let ranked: Vec<_> = snap
        .roles_by_rank()
        .into_iter()
        .filter(|r| &r.id != guild_id)
        .collect();
    let keys: Vec<_> = ranked
        .iter()
        .map(|r| (r.id.as_str(), stored_display_name(&r.name)))
        .collect();
    let matches = match_entries(declared, &keys, |_, _| false);
    for (d, found) in declared.iter().zip(&matches.found) {
        let Some(members) = &d.members else { continue };
        let users: BTreeSet<String> = members.iter().map(|m| m.id.0.clone()).collect();
        q.users.extend(users.iter().cloned());
        let live = match found {
            _ if d.name == EVERYONE => snap.everyone_role(),
            Some(k) => Some(ranked[*k]),
            None => None,
        };
        if let Some(role) = live {
            q.rosters.insert(role.id.clone(), users);
        }
    }
    q
}

/// Every user a member overwrite names: in the live guild's channels, and in the channels
/// the manifest declares.
fn overwrite_users(manifest: &Manifest, snap: &Snapshot) -> BTreeSet<String> {
    let live = snap
        .channels
        .iter()
        .flat_map(|c| &c.permission_overwrites)
        .filter(|o| o.kind == OVERWRITE_MEMBER)
        .map(|o| o.id.clone());
    let declared = manifest
        .channels
        .iter()
        .flatten()
        .flat_map(|c| std::iter::once(c).chain(c.channels.iter().flatten()))
        .flat_map(|c| c.overwrites.iter().flatten())
        .filter_map(|o| o.member.as_ref())
        .map(|m| m.0.clone());
    live.chain(declared).collect()
}
