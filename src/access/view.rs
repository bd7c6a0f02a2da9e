//! What `guildctl access` shows: the matrix of roles × channels (who can view, send and
//! manage where), or a preview as a member holding some roles (or as one user): the
//! channels they see and what they can do there.

use serde::Serialize;
use serde_with::skip_serializing_none;

use super::model::{Guild, is_text_like};
use super::onboarding::{Joining, WalkError, walk};
pub use super::place::Place;
use super::rules::{Access, Holder};
use crate::discord::models::channel_type;
use crate::discord::names::EVERYONE;
use crate::manifest::pattern::{ChannelPattern, PatternTooLong};
use crate::permissions::Permissions;

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The guild as it is today rather than once the plan is applied.
    pub live: bool,
    /// Preview as a member holding these roles (by name), or as this user (`--user`).
    pub who: Who,
    /// Only the channels this pattern names (`Staff/*`, `#general`), with every permission.
    pub channel: Option<String>,
    /// Name every holder of each role (the member listing), not only the rosters' people.
    pub people: bool,
}

/// Whose access to show.
#[derive(Debug, Clone, Default)]
pub enum Who {
    /// The matrix of every role.
    #[default]
    Everyone,
    /// A preview as a member holding these roles (by name).
    Roles(Vec<String>),
    /// A preview as this user (by id, or by a username the plan read), with the roles the
    /// guild says they hold.
    User(String),
    /// A new member walking onboarding (`--new-member`), these answers
    /// (`PROMPT=OPTION[;OPTION]`) picked.
    NewMember(Vec<String>),
}

/// A view of the guild's access: one of the two shapes.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    /// The guild's id.
    pub guild_id: String,
    /// The guild's name, as Discord has it.
    pub guild_name: String,
    /// `after_plan` or `live`.
    pub state: &'static str,
    /// Roles holding administrator (they see and do everything), bots' included.
    pub administrators: Vec<String>,
    /// What the view could not learn, in words (the member listing refused).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The matrix or the preview.
    #[serde(flatten)]
    pub shape: Shape,
}

/// The two shapes of a view (`view` in its JSON says which).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "view", rename_all = "snake_case")]
pub enum Shape {
    /// Every role × every channel.
    Matrix(Matrix),
    /// What one member (or a member holding some roles) sees and may do.
    Preview(Preview),
    /// What a new member meets on joining and sees once they have answered
    /// (`--new-member`).
    NewMember(super::onboarding::NewMember),
}

/// Roles × channels.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// Every role, highest first, `@everyone` last.
    pub roles: Vec<String>,
    /// One row per channel, in Discord's order.
    pub channels: Vec<MatrixRow>,
}

/// One channel of the matrix: who sees it, writes there and manages it.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct MatrixRow {
    /// The channel.
    #[serde(flatten)]
    pub place: Place,
    /// Who sees it: `@everyone` alone when every member does, else the roles that do
    /// (administrators left out: they see everything); then each member whose own
    /// overwrite lets them see it where their roles do not (`alice (123)`).
    pub view: Vec<String>,
    /// Who writes (text-like) or joins (voice and stage) there, alike.
    pub send: Vec<String>,
    /// Who holds a `manage_*` permission there, alike.
    pub manage: Vec<String>,
    /// Every role's permissions there (roles that have none left out), when asked for
    /// some channels (`--channel`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<RolePermissions>,
}

/// What one role may do in one channel, and who holds it.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct RolePermissions {
    /// The role's name.
    pub role: String,
    /// What it may do there, by name.
    pub permissions: Vec<String>,
    /// Who holds the role (none for `@everyone`: every member).
    pub holders: Option<RoleHolders>,
}

/// The members holding a role, as far as they are known.
#[derive(Debug, Clone, Serialize)]
pub struct RoleHolders {
    /// How many members hold it: exact for a roster (after the plan) or the member listing
    /// (`--people`), else Discord's member count; none when it was not read.
    pub count: Option<u64>,
    /// The holders named (`username (id)`): a roster's, the member listing's, and any member
    /// the plan read for another reason (a member overwrite, `--user`).
    pub named: Vec<String>,
}

/// What a member holding some roles sees, and may do.
#[derive(Debug, Clone, Serialize)]
pub struct Preview {
    /// Who: `Moderator, Helper` or `alice (123)`.
    pub who: String,
    /// The roles held (by name), `@everyone` implied.
    pub roles: Vec<String>,
    /// Every permission when the holder is an administrator or the owner.
    pub administrator: bool,
    /// The guild-wide permissions held (kick, ban, manage roles, ...), by name.
    pub guild_wide: Vec<String>,
    /// Channels in the guild, categories left out; with `--channel`, those it names.
    pub total_channels: usize,
    /// What `--channel` named, when it was given: the header counts those channels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub among: Option<String>,
    /// The channels seen, in Discord's order.
    pub channels: Vec<PreviewRow>,
}

/// One channel the previewed member sees, and what they may do there.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct PreviewRow {
    /// The channel.
    #[serde(flatten)]
    pub place: Place,
    /// What they may do there, by name.
    pub permissions: Vec<String>,
}

/// Why a query cannot be shown.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum ViewError {
    /// A role asked for (`--as`) that the guild does not have.
    #[error("the guild has no role named {name:?} (it has: {known})")]
    UnknownRole {
        /// The name asked for.
        name: String,
        /// The guild's role names, for the message.
        known: String,
    },
    /// The user asked for (`--user`) is not a member.
    #[error(
        "user {0} is not a member of the guild (or Discord would not show the member): nothing to preview"
    )]
    NotAMember(String),
    /// A username (`--user`) no member the plan read has.
    #[error(
        "no member the plan read is named {0:?} (the plan reads the members its rosters and member overwrites name): give their user id"
    )]
    UnknownUsername(String),
    /// The `--channel` pattern matches no channel.
    #[error("--channel {0:?} names no channel of the guild")]
    NoChannel(String),
    /// The `--channel` pattern is too long to match.
    #[error("--channel: {0}")]
    Pattern(PatternTooLong),
    /// `--answers` names what onboarding does not ask, or too much.
    #[error(transparent)]
    Walk(#[from] WalkError),
}

/// Permissions that manage a channel or what is in it.
pub(super) fn manage_mask() -> Permissions {
    [
        "manage_channels",
        "manage_roles",
        "manage_messages",
        "manage_threads",
        "manage_webhooks",
        "manage_events",
    ]
    .iter()
    .filter_map(|n| Permissions::from_name(n))
    .fold(Permissions::NONE, |a, b| a | b)
}

/// What "send" means in a channel of `kind`: sending messages, or joining a voice channel.
pub(super) fn send_bit(kind: u8) -> Permissions {
    if is_text_like(kind) || kind == channel_type::CATEGORY {
        Permissions::SEND_MESSAGES
    } else {
        Permissions::CONNECT
    }
}

/// The view `q` asks for of guild `g` (named `name`), whose welcome screen and onboarding
/// are `joining` (a new member's view reads them).
pub fn view(g: &Guild, name: &str, q: &Query, joining: &Joining) -> Result<View, ViewError> {
    let channels: Vec<usize> = match &q.channel {
        None => (0..g.channels.len()).collect(),
        Some(pattern) => {
            let compiled = ChannelPattern::new(pattern).map_err(ViewError::Pattern)?;
            // A pattern of one part (`#mod-log`, `mod-log`, `*-log`) names channels by their
            // own name in any category too, as a person asks "who can see #mod-log".
            let own_name = !pattern.contains('/');
            let found: Vec<usize> = (0..g.channels.len())
                .filter(|&i| {
                    let path = g.path(i);
                    compiled.matches(&path)
                        || (own_name
                            && path
                                .rsplit_once('/')
                                .is_some_and(|(_, name)| compiled.matches(name)))
                })
                .collect();
            if found.is_empty() {
                return Err(ViewError::NoChannel(pattern.clone()));
            }
            found
        }
    };
    let administrators: Vec<String> = g
        .roles
        .iter()
        .filter(|r| r.permissions.contains(Permissions::ADMINISTRATOR))
        .map(|r| r.name.clone())
        .collect();
    let shape = match &q.who {
        Who::Everyone => Shape::Matrix(matrix(g, &channels, q.channel.is_some())),
        Who::Roles(names) => {
            let mut ids = Vec::new();
            for n in names {
                let key = crate::discord::names::stored_display_name(n.trim());
                let r = g
                    .roles
                    .iter()
                    .find(|r| crate::discord::names::stored_display_name(&r.name) == key)
                    .ok_or_else(|| ViewError::UnknownRole {
                        name: n.clone(),
                        known: g
                            .roles
                            .iter()
                            .map(|r| r.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?;
                if r.id != g.id {
                    ids.push(r.id.clone());
                }
            }
            let holder = Holder::roles(ids);
            let who = if names.is_empty() {
                EVERYONE.to_owned()
            } else {
                names.join(", ")
            };
            Shape::Preview(preview(g, &holder, who, &channels, q.channel.as_deref()))
        }
        Who::User(asked) => {
            let user = member_named(g, asked)?;
            let Some(m) = g.members.get(&user) else {
                return Err(ViewError::NotAMember(user));
            };
            let user = &user;
            let who = super::person(m.username.as_deref(), user);
            let holder = Holder::member(g, user);
            Shape::Preview(preview(g, &holder, who, &channels, q.channel.as_deref()))
        }
        Who::NewMember(answers) => Shape::NewMember(walk(g, joining, answers)?),
    };
    Ok(View {
        guild_id: g.id.clone(),
        guild_name: name.to_owned(),
        state: if q.live { "live" } else { "after_plan" },
        administrators,
        notes: Vec::new(),
        shape,
    })
}

/// The members a member overwrite names (the owner and users who are not members left
/// out), each as `username (id)` with what they may do, and what they could do holding the
/// same roles without their own overwrites: the matrix lists them where those make the
/// difference.
fn people(g: &Guild) -> Vec<Person> {
    g.overwrite_members()
        .into_iter()
        .filter(|u| *u != g.owner_id && g.is_member(u) != Some(false))
        .map(|u| {
            let holder = Holder::member(g, u);
            Person {
                label: g.person(u),
                access: g.access(&holder),
                by_roles: g.access(&Holder::roles(holder.roles)),
            }
        })
        .collect()
}

struct Person {
    label: String,
    access: Access,
    by_roles: Access,
}

fn matrix(g: &Guild, channels: &[usize], detailed: bool) -> Matrix {
    let admin = |r: &super::model::Role| r.permissions.contains(Permissions::ADMINISTRATOR);
    // One computation per role, every channel at once.
    let everyone = g.access(&Holder::everyone());
    let per_role: Vec<(&super::model::Role, Access)> = g
        .roles
        .iter()
        .filter(|r| r.id != g.id && !admin(r))
        .map(|r| (r, g.access(&Holder::roles([r.id.clone()]))))
        .collect();
    let people = people(g);
    // Who holds each role, once per role (a member listing may name thousands), when the
    // rows list every role's permissions.
    let holders: Vec<Option<RoleHolders>> = per_role
        .iter()
        .map(|(r, _)| {
            detailed.then(|| {
                let (named, count) = g.role_holders(&r.id);
                RoleHolders { count, named }
            })
        })
        .collect();
    let rows = channels
        .iter()
        .map(|&i| {
            let c = &g.channels[i];
            // Who holds any of `bits`: `@everyone`, else the roles that do, then each person
            // whose own overwrite gives it where their roles do not.
            let who_has = |bits: Permissions| -> Vec<String> {
                let has = |p: Permissions| !(p & bits).is_empty();
                let mut out: Vec<String> = if has(everyone.channels[i]) {
                    vec![EVERYONE.to_owned()]
                } else {
                    per_role
                        .iter()
                        .filter(|(_, a)| has(a.channels[i]))
                        .map(|(r, _)| r.name.clone())
                        .collect()
                };
                out.extend(
                    people
                        .iter()
                        .filter(|p| has(p.access.channels[i]) && !has(p.by_roles.channels[i]))
                        .map(|p| p.label.clone()),
                );
                out
            };
            let managers = who_has(manage_mask());
            let permissions = if detailed {
                let everyone_row = (!everyone.channels[i].is_empty()).then(|| RolePermissions {
                    role: EVERYONE.to_owned(),
                    permissions: everyone.channels[i].display_names(),
                    holders: None,
                });
                everyone_row
                    .into_iter()
                    .chain(
                        per_role
                            .iter()
                            .zip(&holders)
                            .filter(|((_, a), _)| !a.channels[i].is_empty())
                            .map(|((r, a), held)| RolePermissions {
                                role: r.name.clone(),
                                permissions: a.channels[i].display_names(),
                                holders: held.clone(),
                            }),
                    )
                    .collect()
            } else {
                Vec::new()
            };
            MatrixRow {
                place: Place::of(g, i),
                view: who_has(Permissions::VIEW_CHANNEL),
                send: who_has(send_bit(c.kind)),
                manage: managers,
                permissions,
            }
        })
        .collect();
    Matrix {
        roles: g.roles.iter().map(|r| r.name.clone()).collect(),
        channels: rows,
    }
}

/// The preview of `channels` (every channel, or those `among` names) as holder `h`.
fn preview(g: &Guild, h: &Holder, who: String, channels: &[usize], among: Option<&str>) -> Preview {
    let access = g.access(h);
    let rows = channels
        .iter()
        .filter(|&&i| access.sees(i))
        .map(|&i| PreviewRow {
            place: Place::of(g, i),
            permissions: access.channels[i].display_names(),
        })
        .collect();
    Preview {
        who,
        roles: h
            .roles
            .iter()
            .filter_map(|r| g.role(r))
            .map(|r| r.name.clone())
            .collect(),
        administrator: access.base == Permissions::ALL,
        guild_wide: if access.base == Permissions::ALL {
            vec!["administrator".to_owned()]
        } else {
            (access.base & !Permissions::in_any_channel()).display_names()
        },
        // Counted over the channels asked about, so "sees 5 of 5" for the five shown.
        total_channels: channels
            .iter()
            .filter(|&&i| g.channels[i].kind != channel_type::CATEGORY)
            .count(),
        among: among.map(str::to_owned),
        channels: rows,
    }
}

/// The id `--user` names: an id as it is, or the member the plan read with that username
/// (without case, a leading `@` left out).
fn member_named(g: &Guild, asked: &str) -> Result<String, ViewError> {
    if asked.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(asked.to_owned());
    }
    let name = asked.trim().trim_start_matches('@');
    g.members
        .iter()
        .find(|(_, m)| {
            m.username
                .as_deref()
                .is_some_and(|u| u.eq_ignore_ascii_case(name))
        })
        .map(|(id, _)| id.clone())
        .ok_or_else(|| ViewError::UnknownUsername(asked.to_owned()))
}
