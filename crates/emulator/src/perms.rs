//! Permission computation and role hierarchy (docs/discord.md §3.4, §3.6).

use std::cmp::Reverse;
use std::collections::HashSet;

use super::state::{Channel, Guild, Overwrite, Role};
use discord_permissions::Permissions;

/// Bits the shared `discord-permissions` crate has no constant for (values from
/// docs/discord.md §3.5), named as it names its own.
pub(crate) mod bits {
    use discord_permissions::Permissions;
    pub const CREATE_INSTANT_INVITE: Permissions = Permissions(1 << 0);
    pub const CONNECT: Permissions = Permissions(1 << 20);
    pub const MUTE_MEMBERS: Permissions = Permissions(1 << 22);
    pub const DEAFEN_MEMBERS: Permissions = Permissions(1 << 23);
    pub const MOVE_MEMBERS: Permissions = Permissions(1 << 24);
    pub const CHANGE_NICKNAME: Permissions = Permissions(1 << 26);
    pub const MANAGE_NICKNAMES: Permissions = Permissions(1 << 27);
    pub const MODERATE_MEMBERS: Permissions = Permissions(1 << 40);
}

/// Where a role sits: @everyone lowest, then by position, and for equal
/// positions the lower (older) id ranks higher (§3.3). Larger = higher.
pub type Rank = (u8, i64, Reverse<u64>);

pub fn rank(g: &Guild, r: &Role) -> Rank {
    let id = r.id.parse::<u64>().unwrap_or(u64::MAX);
    if r.id == g.id {
        (0, 0, Reverse(id))
    } else {
        (1, r.position, Reverse(id))
    }
}

pub fn is_owner(g: &Guild, user_id: &str) -> bool {
    g.owner_id == user_id
}

/// Guild-level permissions of a member: owner ⇒ all; @everyone | roles;
/// ADMINISTRATOR ⇒ all.
pub fn guild_permissions(g: &Guild, user_id: &str) -> Permissions {
    if is_owner(g, user_id) {
        return Permissions::ALL;
    }
    let Some(member) = g.member(user_id) else {
        return Permissions::NONE;
    };
    let mut p = g.everyone().map(|r| r.permissions).unwrap_or_default();
    for rid in &member.roles {
        if let Some(r) = g.role(rid) {
            p |= r.permissions;
        }
    }
    if p.contains(Permissions::ADMINISTRATOR) {
        Permissions::ALL
    } else {
        p
    }
}

pub fn is_admin(g: &Guild, user_id: &str) -> bool {
    guild_permissions(g, user_id) == Permissions::ALL
}

/// Channel-level permissions: @everyone overwrite, then the member's role
/// overwrites OR'd (deny then allow), then the member overwrite.
pub fn channel_permissions(g: &Guild, ch: &Channel, user_id: &str) -> Permissions {
    let base = guild_permissions(g, user_id);
    if base == Permissions::ALL {
        return base;
    }
    let Some(member) = g.member(user_id) else {
        return Permissions::NONE;
    };
    let mut p = with_everyone_overwrite(g, ch, base.0);
    let (mut allow, mut deny) = (0u64, 0u64);
    for rid in &member.roles {
        if let Some(o) = ch
            .permission_overwrites
            .iter()
            .find(|o| o.kind == 0 && &o.id == rid)
        {
            allow |= o.allow.0;
            deny |= o.deny.0;
        }
    }
    p &= !deny;
    p |= allow;
    if let Some(o) = ch
        .permission_overwrites
        .iter()
        .find(|o| o.kind == 1 && o.id == user_id)
    {
        p &= !o.deny.0;
        p |= o.allow.0;
    }
    Permissions(p)
}

/// Which channels `user_id` can view (§9.1), by index into `g.channels`;
/// `None` when every one is (owner, ADMINISTRATOR), so the common admin bot
/// pays for no per-channel work. A channel is viewable with VIEW_CHANNEL on
/// it; a category also when any of its children is ("channel categories are
/// viewable if any of their child channels are viewable": an addition to the
/// general rule, not a replacement, so an empty category the caller may view
/// stays visible).
pub fn viewable_channels(g: &Guild, user_id: &str) -> Option<Vec<bool>> {
    if guild_permissions(g, user_id) == Permissions::ALL {
        return None;
    }
    let mut seen: Vec<bool> = g
        .channels
        .iter()
        .map(|c| channel_permissions(g, c, user_id).contains(Permissions::VIEW_CHANNEL))
        .collect();
    let via_child: HashSet<&str> = g
        .channels
        .iter()
        .zip(&seen)
        .filter(|(c, v)| **v && c.kind != 4)
        .filter_map(|(c, _)| c.parent_id.as_deref())
        .collect();
    for (c, v) in g.channels.iter().zip(seen.iter_mut()) {
        if c.kind == 4 && via_child.contains(c.id.as_str()) {
            *v = true;
        }
    }
    Some(seen)
}

/// Whether `user_id` can view the channel at index `ci` (§9.1; see
/// [`viewable_channels`]).
pub fn can_view_channel(g: &Guild, ci: usize, user_id: &str) -> bool {
    let Some(ch) = g.channels.get(ci) else {
        return false;
    };
    if channel_permissions(g, ch, user_id).contains(Permissions::VIEW_CHANNEL) {
        return true;
    }
    ch.kind == 4
        && g.channels.iter().any(|c| {
            c.kind != 4
                && c.parent_id.as_deref() == Some(ch.id.as_str())
                && channel_permissions(g, c, user_id).contains(Permissions::VIEW_CHANNEL)
        })
}

/// The highest role a member holds (@everyone if none).
pub fn highest_rank(g: &Guild, user_id: &str) -> Rank {
    let mut best = g
        .everyone()
        .map(|r| rank(g, r))
        .unwrap_or((0, 0, Reverse(0)));
    if let Some(m) = g.member(user_id) {
        for rid in &m.roles {
            if let Some(r) = g.role(rid) {
                best = best.max(rank(g, r));
            }
        }
    }
    best
}

/// Whether `user_id` may edit, delete or move `role`: owners always; everyone
/// else only for roles strictly below their highest role (§3.4).
pub fn can_manage_role(g: &Guild, user_id: &str, role: &Role) -> bool {
    is_owner(g, user_id) || rank(g, role) < highest_rank(g, user_id)
}

/// Whether `actor` may act on member `target` (kick, ban, time out, rename): the owner
/// on anyone else; others only on members whose highest role is strictly below theirs,
/// never on the owner (§3.4).
pub fn outranks(g: &Guild, actor: &str, target: &str) -> bool {
    if is_owner(g, target) {
        return false;
    }
    is_owner(g, actor) || highest_rank(g, actor) > highest_rank(g, target)
}

/// Overwrite sets compared as discord.js does for "synced": order does not
/// matter and an all-zero overwrite equals a missing one (§4.5).
pub fn same_overwrites(a: &[Overwrite], b: &[Overwrite]) -> bool {
    let norm = |s: &[Overwrite]| {
        let mut v: Vec<(String, u8, u64, u64)> = s
            .iter()
            .filter(|o| !(o.allow.is_empty() && o.deny.is_empty()))
            .map(|o| (o.id.clone(), o.kind, o.allow.0, o.deny.0))
            .collect();
        v.sort();
        v
    };
    norm(a) == norm(b)
}

/// What @everyone itself may do in a channel: its role permissions with the
/// channel's @everyone overwrite applied (onboarding's "channels that allow
/// @everyone to send messages", §5.4).
pub fn everyone_permissions(g: &Guild, ch: &Channel) -> Permissions {
    let base = g.everyone().map(|r| r.permissions).unwrap_or_default();
    if base.contains(Permissions::ADMINISTRATOR) {
        return Permissions::ALL;
    }
    Permissions(with_everyone_overwrite(g, ch, base.0))
}

/// `p` after the channel's @everyone overwrite (deny, then allow).
fn with_everyone_overwrite(g: &Guild, ch: &Channel, p: u64) -> u64 {
    match ch.permission_overwrites.iter().find(|o| o.id == g.id) {
        Some(o) => (p & !o.deny.0) | o.allow.0,
        None => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::default_state::default_state;

    #[test]
    fn an_admin_needs_no_per_channel_check() {
        let mut st = default_state();
        let bot = st.bot_user_id.clone();
        assert_eq!(viewable_channels(&st.guilds[0], &bot), None);
        let g = &mut st.guilds[0];
        let role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
        role.permissions = Permissions::VIEW_CHANNEL;
        let seen = viewable_channels(g, &bot).expect("checked per channel");
        assert_eq!(seen.len(), g.channels.len());
        let staff = g.channels.iter().position(|c| c.name == "Staff").unwrap();
        assert!(!seen[staff] && !can_view_channel(g, staff, &bot));
    }
}
