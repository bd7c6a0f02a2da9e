//! Effective permissions, computed as Discord documents it (`topics/permissions`;
//! docs/discord.md §3.6): the guild's base permissions, then a channel's overwrites,
//! then the implicit rules, for a member holding some roles.
//!
//! 1. Base: the owner has every permission; else `@everyone`'s permissions OR those of
//!    every role held; administrator among them gives every permission.
//! 2. In a channel (administrator and the owner skip this): `@everyone`'s overwrite (deny,
//!    then allow), then the overwrites of the roles held taken together (their denies, then
//!    their allows: an allow of one role beats a deny of another), then the member's own.
//! 3. Implicit rules ("Implicit Permissions"): without `view_channel` nothing else in the
//!    channel counts; without `send_messages`, `mention_everyone`, `send_tts_messages`,
//!    `attach_files` and `embed_links` do not either; in a voice or stage channel without
//!    `connect`, nothing but `view_channel` counts (Discord: "denying CONNECT also
//!    implicitly denies other permissions"; discord.py takes only the voice permissions,
//!    `manage_channels` and `manage_roles` away — guildctl follows Discord's words, see
//!    docs/access.md). Threads take their parent's permissions except sending, which is
//!    `send_messages_in_threads` alone ("Inherited Permissions (Threads)"), so no rule
//!    ties it to `send_messages`.
//! 4. Only what means something in the kind of channel is kept (Discord's table,
//!    [`crate::permissions::CHANNEL_TYPES`]): no `speak` in a text channel, no thread
//!    permissions in a voice channel. A category keeps what any kind of channel could
//!    inherit from it, and is visible when one of its channels is ("Channel Visibility").
//!
//! Timeouts (a timed-out member keeps only `view_channel` and `read_message_history`)
//! belong to a member at a moment, not to roles, and are not computed.

use std::sync::OnceLock;

use super::model::{Channel, Guild, MEMBER, ROLE};
use crate::discord::models::channel_type;
use crate::permissions::{ChannelKind, Permissions};

/// Whom permissions are computed for: a member holding `roles` (ids; `@everyone` is
/// implied), and, for member overwrites and the owner, which user they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holder {
    /// The roles held (ids), `@everyone` left out.
    pub roles: Vec<String>,
    /// The user, when it is one (member overwrites and the owner then count).
    pub user: Option<String>,
}

impl Holder {
    /// A member with no role but `@everyone`.
    pub fn everyone() -> Holder {
        Holder::default()
    }

    /// A member holding these roles.
    pub fn roles<I: IntoIterator<Item = S>, S: Into<String>>(ids: I) -> Holder {
        Holder {
            roles: ids.into_iter().map(Into::into).collect(),
            user: None,
        }
    }

    /// User `user` with the roles `g` knows they hold (none when it knows none).
    pub fn member(g: &Guild, user: &str) -> Holder {
        Holder {
            roles: g
                .members
                .get(user)
                .map(|m| m.roles.iter().cloned().collect())
                .unwrap_or_default(),
            user: Some(user.to_owned()),
        }
    }
}

/// What a holder may do: guild-wide, and in each channel of the guild (by index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Guild-wide: what the roles give (everything for an administrator or the owner).
    pub base: Permissions,
    /// In each channel, by its index in the guild's `channels`: overwrites and implicit
    /// rules applied.
    pub channels: Vec<Permissions>,
}

impl Access {
    /// Whether the holder sees channel `i`.
    pub fn sees(&self, i: usize) -> bool {
        self.channels
            .get(i)
            .is_some_and(|p| p.contains(Permissions::VIEW_CHANNEL))
    }
}

/// The kind of Discord's permission table a channel type belongs to; `None` for a category.
fn kind_of(kind: u8) -> Option<ChannelKind> {
    match kind {
        channel_type::CATEGORY => None,
        channel_type::VOICE => Some(ChannelKind::Voice),
        channel_type::STAGE => Some(ChannelKind::Stage),
        _ => Some(ChannelKind::Text),
    }
}

/// The permissions that mean something in a channel of Discord type `kind`.
pub fn meaningful(kind: u8) -> Permissions {
    static MASKS: OnceLock<[Permissions; 4]> = OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        [
            Permissions::in_channel_kind(ChannelKind::Text),
            Permissions::in_channel_kind(ChannelKind::Voice),
            Permissions::in_channel_kind(ChannelKind::Stage),
            Permissions::in_any_channel(),
        ]
    });
    match kind_of(kind) {
        Some(ChannelKind::Text) => masks[0],
        Some(ChannelKind::Voice) => masks[1],
        Some(ChannelKind::Stage) => masks[2],
        None => masks[3],
    }
}

/// What sending takes with it when it is missing ("Implicit Permissions").
const WITH_SENDING: Permissions = Permissions(
    Permissions::MENTION_EVERYONE.0
        | Permissions::SEND_TTS_MESSAGES.0
        | Permissions::ATTACH_FILES.0
        | Permissions::EMBED_LINKS.0,
);

/// Channel permissions after the implicit rules, kept to what means something in a
/// channel of type `kind`.
pub fn implicit(p: Permissions, kind: u8) -> Permissions {
    let mut p = p & meaningful(kind);
    if !p.contains(Permissions::VIEW_CHANNEL) {
        return Permissions::NONE;
    }
    if !p.contains(Permissions::SEND_MESSAGES) {
        p = p & !WITH_SENDING;
    }
    let voice = matches!(kind, channel_type::VOICE | channel_type::STAGE);
    if voice && !p.contains(Permissions::CONNECT) {
        p = p & Permissions::VIEW_CHANNEL;
    }
    p
}

impl Guild {
    /// Whether `h` is the guild's owner.
    pub fn is_owner(&self, h: &Holder) -> bool {
        h.user.as_deref() == Some(self.owner_id.as_str()) && !self.owner_id.is_empty()
    }

    /// Guild-wide permissions (Discord's `compute_base_permissions`).
    pub fn base(&self, h: &Holder) -> Permissions {
        if self.is_owner(h) {
            return Permissions::ALL;
        }
        let mut p = self.everyone().map(|r| r.permissions).unwrap_or_default();
        for id in &h.roles {
            if let Some(r) = self.role(id) {
                p |= r.permissions;
            }
        }
        if p.contains(Permissions::ADMINISTRATOR) {
            Permissions::ALL
        } else {
            p
        }
    }

    /// A channel's overwrites applied to `base` (Discord's `compute_overwrites`), before
    /// the implicit rules.
    pub fn overwritten(&self, c: &Channel, h: &Holder, base: Permissions) -> Permissions {
        if base.contains(Permissions::ADMINISTRATOR) {
            return Permissions::ALL;
        }
        let (mut everyone, mut member) = (None, None);
        let (mut allow, mut deny) = (Permissions::NONE, Permissions::NONE);
        for o in &c.overwrites {
            if o.target == self.id {
                everyone = everyone.or(Some(o));
            } else if o.kind == ROLE && h.roles.contains(&o.target) {
                allow |= o.allow;
                deny |= o.deny;
            } else if o.kind == MEMBER && h.user.as_deref() == Some(o.target.as_str()) {
                member = member.or(Some(o));
            }
        }
        let mut p = base;
        if let Some(o) = everyone {
            p = (p & !o.deny) | o.allow;
        }
        p = (p & !deny) | allow;
        if let Some(o) = member {
            p = (p & !o.deny) | o.allow;
        }
        p
    }

    /// Effective permissions in channel `i` for `h` of guild-wide permissions `base`: what
    /// [`Guild::access`] gives there, computed for that channel alone (and, for a category,
    /// the channels that make it visible).
    pub fn channel_access(&self, h: &Holder, base: Permissions, i: usize) -> Permissions {
        let c = &self.channels[i];
        let p = implicit(self.overwritten(c, h, base), c.kind);
        if c.kind != channel_type::CATEGORY || p.contains(Permissions::VIEW_CHANNEL) {
            return p;
        }
        let child_seen = self.children(&c.id).any(|j| {
            let child = &self.channels[j];
            child.kind != channel_type::CATEGORY
                && implicit(self.overwritten(child, h, base), child.kind)
                    .contains(Permissions::VIEW_CHANNEL)
        });
        if child_seen {
            p | Permissions::VIEW_CHANNEL
        } else {
            p
        }
    }

    /// Effective permissions everywhere: guild-wide, and in every channel after the
    /// implicit rules; a category is visible when one of its channels is.
    pub fn access(&self, h: &Holder) -> Access {
        let base = self.base(h);
        let mut channels: Vec<Permissions> = self
            .channels
            .iter()
            .map(|c| implicit(self.overwritten(c, h, base), c.kind))
            .collect();
        for (i, c) in self.channels.iter().enumerate() {
            if c.kind == channel_type::CATEGORY || !channels[i].contains(Permissions::VIEW_CHANNEL)
            {
                continue;
            }
            if let Some(p) = c.parent.as_deref().and_then(|p| self.channel_index(p)) {
                channels[p] |= Permissions::VIEW_CHANNEL;
            }
        }
        Access { base, channels }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod agreement;
