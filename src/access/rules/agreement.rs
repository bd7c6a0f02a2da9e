//! The computation agrees with the emulator's, written apart from it (the emulator's rules
//! come from the reference, never from guildctl): on random guilds, for every member and
//! channel, base permissions, permissions after overwrites and visibility are the same.

use proptest::prelude::*;

use discord_emulator::perms;
use discord_emulator::state as emu;

use super::Holder;
use crate::access::model::{ChannelSpec, Guild, MEMBER, Member, Overwrite, ROLE};
use crate::permissions::Permissions;

const GUILD: &str = "1";
const KINDS: [u8; 7] = [0, 2, 4, 5, 13, 15, 16];

/// A random guild, described once and built twice (the emulator's state, guildctl's model).
#[derive(Debug, Clone)]
struct Spec {
    everyone: u64,
    roles: Vec<u64>,
    /// (kind, parent: index of an earlier channel, overwrites)
    channels: Vec<(u8, Option<usize>, Vec<OwSpec>)>,
    /// Each member's roles (indexes into `roles`).
    members: Vec<Vec<usize>>,
    /// Index of the member who owns the guild, if one does.
    owner: Option<usize>,
}

#[derive(Debug, Clone)]
struct OwSpec {
    /// 0: @everyone, 1: a role, 2: a member.
    kind: u8,
    index: usize,
    allow: u64,
    deny: u64,
}

fn role_id(i: usize) -> String {
    format!("{}", 100 + i)
}

fn user_id(i: usize) -> String {
    format!("{}", 700 + i)
}

fn channel_id(i: usize) -> String {
    format!("{}", 300 + i)
}

/// Permission bits, the ones that decide most (view, send, connect) often set, and
/// administrator seldom, so most guilds are not all-powerful.
fn bits() -> impl Strategy<Value = u64> {
    let key = Permissions::VIEW_CHANNEL.0 | Permissions::SEND_MESSAGES.0 | Permissions::CONNECT.0;
    (any::<u64>(), any::<u64>(), 0..12u8).prop_map(move |(a, b, admin)| {
        let mut v = (a & b) | (a & key);
        v &= !Permissions::ADMINISTRATOR.0;
        if admin == 0 {
            v |= Permissions::ADMINISTRATOR.0;
        }
        v
    })
}

fn overwrite_bits() -> impl Strategy<Value = (u64, u64)> {
    (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, d, r)| {
        // Sparse sets, as real overwrites are; never one bit both allowed and denied.
        let allow = a & r;
        let deny = d & !r & !allow;
        (allow, deny)
    })
}

fn spec() -> impl Strategy<Value = Spec> {
    (1..7usize, 1..10usize, 1..5usize).prop_flat_map(|(n_roles, n_channels, n_members)| {
        let roles = prop::collection::vec(bits(), n_roles);
        let channels = prop::collection::vec(
            (
                prop::sample::select(KINDS.to_vec()),
                any::<prop::sample::Index>(),
                any::<bool>(),
                prop::collection::vec(
                    (0..3u8, any::<prop::sample::Index>(), overwrite_bits()),
                    0..5,
                ),
            ),
            n_channels,
        );
        let members = prop::collection::vec(
            prop::collection::btree_set(0..n_roles, 0..=n_roles.min(3)),
            n_members,
        );
        let owner = prop::option::weighted(0.2, 0..n_members);
        (bits(), roles, channels, members, owner).prop_map(
            move |(everyone, roles, channels, members, owner)| {
                let mut out: Vec<(u8, Option<usize>, Vec<OwSpec>)> = Vec::new();
                for (i, (kind, parent, in_category, ows)) in channels.into_iter().enumerate() {
                    let categories: Vec<usize> = (0..i).filter(|&j| out[j].0 == 4).collect();
                    let parent = (kind != 4 && in_category && !categories.is_empty())
                        .then(|| categories[parent.index(categories.len())]);
                    // One overwrite per target, as Discord keeps them.
                    let mut seen = std::collections::BTreeSet::new();
                    let ows: Vec<OwSpec> = ows
                        .into_iter()
                        .map(|(k, at, (allow, deny))| OwSpec {
                            kind: k,
                            index: match k {
                                1 => at.index(n_roles),
                                2 => at.index(n_members),
                                _ => 0,
                            },
                            allow,
                            deny,
                        })
                        .filter(|o| seen.insert((o.kind, o.index)))
                        .collect();
                    out.push((kind, parent, ows));
                }
                Spec {
                    everyone: everyone & !Permissions::ADMINISTRATOR.0,
                    roles,
                    channels: out,
                    members: members
                        .into_iter()
                        .map(|s| s.into_iter().collect())
                        .collect(),
                    owner,
                }
            },
        )
    })
}

fn target(o: &OwSpec) -> (String, u8) {
    match o.kind {
        0 => (GUILD.to_owned(), 0),
        1 => (role_id(o.index), 0),
        _ => (user_id(o.index), 1),
    }
}

/// The emulator's guild for `s`, made from its default guild's objects.
fn emulator_guild(s: &Spec) -> emu::Guild {
    let mut g = discord_emulator::default_state().guilds.swap_remove(0);
    let role_template = g.roles[0].clone();
    let channel_template = g.channels[0].clone();
    let member_template = g.members[0].clone();
    g.id = GUILD.into();
    g.owner_id = s.owner.map(user_id).unwrap_or_else(|| "999".into());
    g.roles = std::iter::once((GUILD.to_owned(), s.everyone, 0))
        .chain(
            s.roles
                .iter()
                .enumerate()
                .map(|(i, p)| (role_id(i), *p, i as i64 + 1)),
        )
        .map(|(id, p, position)| emu::Role {
            id: id.clone(),
            name: format!("role {id}"),
            permissions: Permissions(p),
            position,
            ..role_template.clone()
        })
        .collect();
    g.channels = s
        .channels
        .iter()
        .enumerate()
        .map(|(i, (kind, parent, ows))| emu::Channel {
            id: channel_id(i),
            kind: *kind,
            name: format!("c{i}"),
            position: i as i64,
            parent_id: parent.map(channel_id),
            permission_overwrites: ows
                .iter()
                .map(|o| {
                    let (id, kind) = target(o);
                    emu::Overwrite {
                        id,
                        kind,
                        allow: Permissions(o.allow),
                        deny: Permissions(o.deny),
                    }
                })
                .collect(),
            ..channel_template.clone()
        })
        .collect();
    g.members = s
        .members
        .iter()
        .enumerate()
        .map(|(i, roles)| emu::Member {
            user_id: user_id(i),
            roles: roles.iter().map(|r| role_id(*r)).collect(),
            ..member_template.clone()
        })
        .collect();
    g
}

/// guildctl's model for `s`.
fn model(s: &Spec) -> Guild {
    let mut g = Guild::new(GUILD, Permissions(s.everyone));
    g.owner_id = s.owner.map(user_id).unwrap_or_else(|| "999".into());
    for (i, p) in s.roles.iter().enumerate() {
        g.set_role(
            &role_id(i),
            &format!("role {i}"),
            Some(Permissions(*p)),
            None,
            None,
        );
    }
    for (i, (kind, parent, ows)) in s.channels.iter().enumerate() {
        let set = ows
            .iter()
            .map(|o| {
                let (target, kind) = target(o);
                Overwrite {
                    target,
                    kind: if kind == 0 { ROLE } else { MEMBER },
                    allow: Permissions(o.allow),
                    deny: Permissions(o.deny),
                }
            })
            .collect();
        let parent = parent.map(channel_id);
        g.set_channel(
            ChannelSpec {
                id: &channel_id(i),
                name: &format!("c{i}"),
                kind: *kind,
                parent: parent.as_deref(),
            },
            Some(set),
            None,
            None,
        );
    }
    for (i, roles) in s.members.iter().enumerate() {
        g.members.insert(
            user_id(i),
            Member {
                roles: roles.iter().map(|r| role_id(*r)).collect(),
                ..Member::default()
            },
        );
    }
    g
}

proptest! {
    // Bounded so the whole property runs in about a second.
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn guildctl_and_the_emulator_compute_alike(s in spec()) {
        let eg = emulator_guild(&s);
        let g = model(&s);
        for (u, _) in s.members.iter().enumerate() {
            let user = user_id(u);
            let h = Holder::member(&g, &user);
            let base = g.base(&h);
            prop_assert_eq!(base, perms::guild_permissions(&eg, &user), "base of {}", user);
            let access = g.access(&h);
            let seen = perms::viewable_channels(&eg, &user);
            for (ci, ec) in eg.channels.iter().enumerate() {
                let mi = g.channel_index(&ec.id).expect("same channels");
                let mine = g.overwritten(&g.channels[mi], &h, base);
                prop_assert_eq!(
                    mine,
                    perms::channel_permissions(&eg, ec, &user),
                    "{} in channel {}", user, ec.id
                );
                let theirs = seen.as_ref().is_none_or(|v| v[ci]);
                prop_assert_eq!(access.sees(mi), theirs, "{} sees channel {}", user, ec.id);
                prop_assert_eq!(perms::can_view_channel(&eg, ci, &user), theirs);
            }
        }
        // What @everyone itself may do in each channel (the emulator's onboarding rule).
        let nobody = Holder::everyone();
        let base = g.base(&nobody);
        for ec in &eg.channels {
            let mi = g.channel_index(&ec.id).expect("same channels");
            let mine = g.overwritten(&g.channels[mi], &nobody, base);
            let theirs = perms::everyone_permissions(&eg, ec);
            prop_assert_eq!(mine, theirs, "@everyone in channel {}", ec.id);
        }
    }
}
