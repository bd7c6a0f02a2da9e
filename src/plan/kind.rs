//! The kind table: what each kind of object is, for every room that asks, in one
//! exhaustive `match` ([`Kind::facts`]).
//!
//! A new [`Kind`] does not compile until its row is written here, and the rooms that
//! behave per kind (the deletion gate, SARIF, drift's questions and doors, `protect:`,
//! apply's scheduler) read this row or match the kind exhaustively: this module and
//! those deny `clippy::wildcard_enum_match_arm`, so no `_ =>` arm lets a kind through
//! untaught (docs/architecture.md, "The kind table").
#![deny(clippy::wildcard_enum_match_arm)]

use serde::{Deserialize, Serialize};

use crate::discord::audit::{ActionType, action};
use crate::snapshot::{ExpressionList, Listed};

/// A kind of object a plan changes; its facts are one row of [`Kind::facts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The guild's settings.
    Guild,
    /// A role.
    Role,
    /// A category.
    Category,
    /// A channel.
    Channel,
    /// The welcome screen.
    WelcomeScreen,
    /// Onboarding.
    Onboarding,
    /// The widget.
    Widget,
    /// An incoming webhook.
    Webhook,
    /// A channel's permission overwrites as a set: unmanaged when a declared channel
    /// leaves `overwrites` out (the object named is the channel).
    Overwrites,
    /// An application (bot or app) added to the guild; its id is the integration's.
    Integration,
    /// An invite; its id is the invite's code.
    Invite,
    /// One user holding a roster role: created when given, deleted when taken
    /// (named `Role ← user`, the id is the user's).
    RosterEntry,
    /// One banned user: created when banned, deleted when the ban is lifted.
    Ban,
    /// A custom emoji.
    Emoji,
    /// A soundboard sound.
    Sound,
    /// An AutoMod rule.
    AutoModRule,
    /// A scheduled event.
    ScheduledEvent,
    /// A guild sticker.
    Sticker,
    /// A policy (`policies:`): in the repository, not in Discord; named by risks only.
    Policy,
}

/// What one kind of object is, as each room needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindFacts {
    /// The kind as a plan names it: "role", "AutoMod rule", "overwrites on".
    pub label: &'static str,
    /// What the deletion gate counts a deletion of this kind as (`None`: not counted;
    /// nothing of the kind is ever deleted).
    pub gate: Option<DeleteKind>,
    /// The manifest entry that deletes an undeclared object of this kind: where SARIF
    /// places a pruning risk (`None`: no `prune` key deletes it; SARIF says `prune`).
    pub prune_key: Option<&'static str>,
    /// The audit-log action types Discord records for the kind's create, update and delete
    /// (`GUILD_UPDATE` alone for what Discord audits as a guild update, or does not audit).
    pub audit: AuditActions,
    /// What drift asks the audit log about a declared object that is missing.
    pub when_missing: WhenMissing,
    /// What a `protect: true` entry of the kind is matched by (`None`: nothing of the kind
    /// can be protected).
    pub protect: Option<Protect>,
    /// What apply's later calls rely on a call of this kind for.
    pub relied_on: ReliedOn,
    /// Whom a grant carried by a change of the kind is to (`None`: the kind grants nothing).
    pub grants_to: Option<Grantee>,
    /// The audit-log entries of a person's that explain one of the kind (`None`: an
    /// object's, by [`KindFacts::audit`]).
    pub people: Option<PeopleEntries>,
    /// What drift reports an unmanaged live one as (`None`: not a way in, nothing said).
    pub door: Option<Door>,
}

/// Where a kind's live object is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// The guild object (its settings; the widget's are part of it).
    Guild,
    /// The guild's onboarding.
    Onboarding,
    /// A role, by id.
    Role,
    /// A channel or category, by id (its overwrites are the channel's).
    Channel,
    /// By id in one of the snapshot's lists.
    Listed(Listed),
    /// Not one object the audit log describes field by field, and why.
    NotOne(&'static str),
}

/// What the deletion gate counts a class's live objects by, for its default limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The guild's roles but @everyone.
    Roles,
    /// Channels and categories.
    Channels,
    /// The members holding a roster role.
    RosterHolders,
    /// The guild's bans.
    Bans,
    /// One of the snapshot's lists by id.
    Listed(Listed),
    /// Not counted (the guild's members are not read): the limit is the least one.
    Nothing,
}

/// What a `protect: true` entry is matched by: the live object's name, read where the
/// kind's objects are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protect {
    /// A role, by its name.
    Role,
    /// A channel or category (its name as its type stores it).
    Channel,
    /// A webhook, by its name.
    Webhook,
}

/// Whom a grant is to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grantee {
    /// A role (or @everyone, which every member has).
    Role,
    /// A user, by id.
    User,
}

/// The audit-log entries that explain a person's change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeopleEntries {
    /// A member role update (`MEMBER_ROLE_UPDATE`) that gave or took the role.
    RoleGiven,
    /// A ban (`MEMBER_BAN_ADD`) or its lifting (`MEMBER_BAN_REMOVE`).
    Ban,
}

/// What an unmanaged live object is, as drift's doors report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// A role, high risk when it grants a dangerous permission.
    Role,
    /// A webhook, high risk when made by hand.
    Webhook,
    /// A channel or category, with its overwrites that grant power.
    Channel,
    /// A declared channel's overwrites the manifest leaves alone.
    Overwrites,
    /// An integration (a bot or an app).
    Integration,
    /// An invite.
    Invite,
    /// A ban the manifest's list does not have.
    Ban,
}

/// Audit-log action types (docs/discord.md §7.2), one per action on a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditActions {
    /// The action type of a creation (0: not audited).
    pub create: ActionType,
    /// The action type of an update (0: not audited).
    pub update: ActionType,
    /// The action type of a deletion (0: not audited).
    pub delete: ActionType,
}

const fn audited(create: ActionType, update: ActionType, delete: ActionType) -> AuditActions {
    AuditActions {
        create,
        update,
        delete,
    }
}

/// Not audited as an object of its own: a guild update at most.
const AS_GUILD_UPDATE: AuditActions = audited(action::NONE, action::GUILD_UPDATE, action::NONE);

/// What explains a declared object that is not live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenMissing {
    /// A deletion entry naming it (its id is gone, its name is not).
    DeletedByName,
    /// Nothing: Discord does not audit it; the reason is shown.
    Unaudited(&'static str),
    /// A guild update or onboarding set up or changed (`GUILD_UPDATE`, `ONBOARDING_CREATE`,
    /// `ONBOARDING_UPDATE`).
    GuildEdit,
}

/// What later calls of a run rely on a call of a kind for, beyond naming it in `after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReliedOn {
    /// Nothing beyond what names it.
    Nothing,
    /// The guild's settings: what Discord checks on every later call.
    GuildWide,
    /// The object, by the calls that name its id (@everyone's role is guild-wide).
    ById,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 19] = [
        Kind::Guild,
        Kind::Role,
        Kind::Category,
        Kind::Channel,
        Kind::WelcomeScreen,
        Kind::Onboarding,
        Kind::Widget,
        Kind::Webhook,
        Kind::Overwrites,
        Kind::Integration,
        Kind::Invite,
        Kind::RosterEntry,
        Kind::Ban,
        Kind::Emoji,
        Kind::Sound,
        Kind::AutoModRule,
        Kind::ScheduledEvent,
        Kind::Sticker,
        Kind::Policy,
    ];

    /// The kind's row of the table. One arm per kind, no wildcard.
    pub const fn facts(self) -> KindFacts {
        const NONE: KindFacts = KindFacts {
            label: "",
            gate: None,
            prune_key: None,
            audit: AS_GUILD_UPDATE,
            when_missing: WhenMissing::GuildEdit,
            protect: None,
            relied_on: ReliedOn::Nothing,
            grants_to: None,
            people: None,
            door: None,
        };
        match self {
            Kind::Guild => KindFacts {
                label: "guild",
                relied_on: ReliedOn::GuildWide,
                ..NONE
            },
            Kind::Role => KindFacts {
                label: "role",
                gate: Some(DeleteKind::Roles),
                prune_key: Some("prune.roles"),
                audit: audited(
                    action::ROLE_CREATE,
                    action::ROLE_UPDATE,
                    action::ROLE_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                protect: Some(Protect::Role),
                relied_on: ReliedOn::ById,
                grants_to: Some(Grantee::Role),
                people: None,
                door: Some(Door::Role),
            },
            Kind::Category => KindFacts {
                label: "category",
                ..Kind::Channel.facts()
            },
            Kind::Channel => KindFacts {
                label: "channel",
                gate: Some(DeleteKind::Channels),
                prune_key: Some("prune.channels"),
                audit: audited(
                    action::CHANNEL_CREATE,
                    action::CHANNEL_UPDATE,
                    action::CHANNEL_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                protect: Some(Protect::Channel),
                relied_on: ReliedOn::ById,
                door: Some(Door::Channel),
                ..NONE
            },
            Kind::WelcomeScreen => KindFacts {
                label: "welcome screen",
                when_missing: WhenMissing::Unaudited("Discord does not audit welcome-screen edits"),
                ..NONE
            },
            Kind::Onboarding => KindFacts {
                label: "onboarding",
                ..NONE
            },
            Kind::Widget => KindFacts {
                label: "widget",
                ..NONE
            },
            Kind::Webhook => KindFacts {
                label: "webhook",
                gate: Some(DeleteKind::Webhooks),
                prune_key: Some("prune.webhooks"),
                audit: audited(
                    action::WEBHOOK_CREATE,
                    action::WEBHOOK_UPDATE,
                    action::WEBHOOK_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                protect: Some(Protect::Webhook),
                door: Some(Door::Webhook),
                ..NONE
            },
            Kind::Overwrites => KindFacts {
                label: "overwrites on",
                door: Some(Door::Overwrites),
                ..NONE
            },
            Kind::Integration => KindFacts {
                label: "integration",
                gate: Some(DeleteKind::Integrations),
                prune_key: Some("prune.integrations"),
                audit: audited(
                    action::INTEGRATION_CREATE,
                    action::INTEGRATION_UPDATE,
                    action::INTEGRATION_DELETE,
                ),
                door: Some(Door::Integration),
                ..NONE
            },
            Kind::Invite => KindFacts {
                label: "invite",
                gate: Some(DeleteKind::Invites),
                prune_key: Some("prune.invites"),
                audit: audited(
                    action::INVITE_CREATE,
                    action::INVITE_UPDATE,
                    action::INVITE_DELETE,
                ),
                door: Some(Door::Invite),
                ..NONE
            },
            // Taken off a roster because the roster lists who holds the role: no `prune`.
            Kind::RosterEntry => KindFacts {
                label: "roster entry",
                gate: Some(DeleteKind::RosterEntries),
                grants_to: Some(Grantee::User),
                people: Some(PeopleEntries::RoleGiven),
                ..NONE
            },
            Kind::Ban => KindFacts {
                label: "ban",
                gate: Some(DeleteKind::Bans),
                prune_key: Some("prune.bans"),
                people: Some(PeopleEntries::Ban),
                door: Some(Door::Ban),
                ..NONE
            },
            Kind::Emoji => KindFacts {
                label: "emoji",
                gate: Some(DeleteKind::Emojis),
                prune_key: Some("prune.emojis"),
                audit: audited(
                    action::EMOJI_CREATE,
                    action::EMOJI_UPDATE,
                    action::EMOJI_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                ..NONE
            },
            Kind::Sound => KindFacts {
                label: "sound",
                gate: Some(DeleteKind::Sounds),
                prune_key: Some("prune.soundboard"),
                audit: audited(
                    action::SOUNDBOARD_SOUND_CREATE,
                    action::SOUNDBOARD_SOUND_UPDATE,
                    action::SOUNDBOARD_SOUND_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                ..NONE
            },
            Kind::AutoModRule => KindFacts {
                label: "AutoMod rule",
                gate: Some(DeleteKind::AutoModRules),
                prune_key: Some("prune.automod"),
                audit: audited(
                    action::AUTO_MODERATION_RULE_CREATE,
                    action::AUTO_MODERATION_RULE_UPDATE,
                    action::AUTO_MODERATION_RULE_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                ..NONE
            },
            Kind::ScheduledEvent => KindFacts {
                label: "event",
                gate: Some(DeleteKind::ScheduledEvents),
                prune_key: Some("prune.events"),
                audit: audited(
                    action::SCHEDULED_EVENT_CREATE,
                    action::SCHEDULED_EVENT_UPDATE,
                    action::SCHEDULED_EVENT_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                ..NONE
            },
            Kind::Sticker => KindFacts {
                label: "sticker",
                gate: Some(DeleteKind::Stickers),
                prune_key: Some("prune.stickers"),
                audit: audited(
                    action::STICKER_CREATE,
                    action::STICKER_UPDATE,
                    action::STICKER_DELETE,
                ),
                when_missing: WhenMissing::DeletedByName,
                ..NONE
            },
            Kind::Policy => KindFacts {
                label: "policy",
                ..NONE
            },
        }
    }

    /// Where a live one is read, for what looks one up (drift's field questions, the
    /// uploader preflight asks about). A match of its own, with no default, so a new kind
    /// says it.
    pub const fn live(self) -> Live {
        match self {
            Kind::Guild => Live::Guild,
            Kind::Role => Live::Role,
            Kind::Category | Kind::Channel => Live::Channel,
            Kind::WelcomeScreen => Live::NotOne("Discord does not audit welcome-screen edits"),
            Kind::Onboarding => Live::Onboarding,
            Kind::Widget => Live::Guild,
            Kind::Webhook => Live::Listed(Listed::Webhooks),
            Kind::Overwrites => Live::Channel,
            Kind::Integration => Live::Listed(Listed::Integrations),
            Kind::Invite => Live::Listed(Listed::Invites),
            Kind::RosterEntry => Live::NotOne("asked about as a whole"),
            Kind::Ban => Live::NotOne("asked about as a whole"),
            Kind::Emoji => Live::Listed(Listed::Expressions(ExpressionList::Emojis)),
            Kind::Sound => Live::Listed(Listed::Expressions(ExpressionList::Sounds)),
            Kind::AutoModRule => Live::Listed(Listed::AutoModRules),
            Kind::ScheduledEvent => Live::Listed(Listed::ScheduledEvents),
            Kind::Sticker => Live::Listed(Listed::Expressions(ExpressionList::Stickers)),
            Kind::Policy => Live::NotOne("a policy is not in Discord"),
        }
    }

    /// The kind in words, as a plan names it (`role`, `custom emoji`).
    pub const fn label(self) -> &'static str {
        self.facts().label
    }

    /// The manifest entry that deletes an undeclared object of the kind: a deletion's
    /// source, where SARIF places it (`prune` for a kind no `prune` key deletes).
    pub const fn pruned_by(self) -> &'static str {
        match self.facts().prune_key {
            Some(key) => key,
            None => "prune",
        }
    }
}

/// The kinds the deletion gate counts: what `prune` can delete, and bans of members.
/// Each kind's class is its [`KindFacts::gate`]; [`DeleteKind::ALL`] is the gate's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteKind {
    /// Roles.
    Roles,
    /// Channels and categories together, as `prune.channels` deletes both.
    Channels,
    /// Webhooks.
    Webhooks,
    /// Applications removed by `prune.integrations` (their bots, roles and webhooks go too).
    Integrations,
    /// Invites.
    Invites,
    /// Members taken off a roster role.
    RosterEntries,
    /// Bans lifted (`prune.bans`).
    Bans,
    /// Custom emoji deleted: pruned, or replaced for a new image.
    Emojis,
    /// Soundboard sounds deleted: pruned, or replaced for a new file.
    Sounds,
    /// Members banned: each leaves the guild with every role they hold. Counted apart from
    /// the deletions of objects, with the default limit of
    /// [`MIN_DELETE_LIMIT`](super::deletion_gate::MIN_DELETE_LIMIT) whatever the guild's size
    /// (guildctl does not read how many members it has).
    MemberBans,
    /// AutoMod rules deleted: by `prune.automod`, or to change a rule's trigger kind.
    AutoModRules,
    /// Scheduled events deleted by `prune.events`.
    ScheduledEvents,
    /// Guild stickers deleted: pruned, or replaced for a new file.
    Stickers,
}

impl DeleteKind {
    /// Every class, in the order the gate reports them.
    pub const ALL: [DeleteKind; 13] = [
        DeleteKind::Roles,
        DeleteKind::Channels,
        DeleteKind::Webhooks,
        DeleteKind::Integrations,
        DeleteKind::Invites,
        DeleteKind::RosterEntries,
        DeleteKind::Bans,
        DeleteKind::MemberBans,
        DeleteKind::Emojis,
        DeleteKind::Sounds,
        DeleteKind::AutoModRules,
        DeleteKind::ScheduledEvents,
        DeleteKind::Stickers,
    ];

    /// The class in words, as the gate counts it (`roles`, `roster entries`).
    pub const fn label(self) -> &'static str {
        match self {
            DeleteKind::Roles => "roles",
            DeleteKind::Channels => "channels",
            DeleteKind::Webhooks => "webhooks",
            DeleteKind::Integrations => "integrations",
            DeleteKind::Invites => "invites",
            DeleteKind::RosterEntries => "roster removals",
            DeleteKind::Bans => "bans lifted",
            DeleteKind::MemberBans => "members banned",
            DeleteKind::Emojis => "emojis",
            DeleteKind::Sounds => "sounds",
            DeleteKind::AutoModRules => "AutoMod rules",
            DeleteKind::ScheduledEvents => "scheduled events",
            DeleteKind::Stickers => "stickers",
        }
    }

    /// What the gate counts the class's live objects by.
    pub const fn counted(self) -> Counted {
        match self {
            DeleteKind::Roles => Counted::Roles,
            DeleteKind::Channels => Counted::Channels,
            DeleteKind::Webhooks => Counted::Listed(Listed::Webhooks),
            DeleteKind::Integrations => Counted::Listed(Listed::Integrations),
            DeleteKind::Invites => Counted::Listed(Listed::Invites),
            DeleteKind::RosterEntries => Counted::RosterHolders,
            DeleteKind::Bans => Counted::Bans,
            DeleteKind::MemberBans => Counted::Nothing,
            DeleteKind::Emojis => Counted::Listed(Listed::Expressions(ExpressionList::Emojis)),
            DeleteKind::Sounds => Counted::Listed(Listed::Expressions(ExpressionList::Sounds)),
            DeleteKind::AutoModRules => Counted::Listed(Listed::AutoModRules),
            DeleteKind::ScheduledEvents => Counted::Listed(Listed::ScheduledEvents),
            DeleteKind::Stickers => Counted::Listed(Listed::Expressions(ExpressionList::Stickers)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::manifest::types::Prune;

    /// A match with no wildcard: a new kind fails to compile here until it is counted in
    /// [`Kind::ALL`] too.
    const fn place(kind: Kind) -> usize {
        match kind {
            Kind::Guild => 0,
            Kind::Role => 1,
            Kind::Category => 2,
            Kind::Channel => 3,
            Kind::WelcomeScreen => 4,
            Kind::Onboarding => 5,
            Kind::Widget => 6,
            Kind::Webhook => 7,
            Kind::Overwrites => 8,
            Kind::Integration => 9,
            Kind::Invite => 10,
            Kind::RosterEntry => 11,
            Kind::Ban => 12,
            Kind::Emoji => 13,
            Kind::Sound => 14,
            Kind::AutoModRule => 15,
            Kind::ScheduledEvent => 16,
            Kind::Sticker => 17,
            Kind::Policy => 18,
        }
    }

    const fn gate_place(kind: DeleteKind) -> usize {
        match kind {
            DeleteKind::Roles => 0,
            DeleteKind::Channels => 1,
            DeleteKind::Webhooks => 2,
            DeleteKind::Integrations => 3,
            DeleteKind::Invites => 4,
            DeleteKind::RosterEntries => 5,
            DeleteKind::Bans => 6,
            DeleteKind::MemberBans => 7,
            DeleteKind::Emojis => 8,
            DeleteKind::Sounds => 9,
            DeleteKind::AutoModRules => 10,
            DeleteKind::ScheduledEvents => 11,
            DeleteKind::Stickers => 12,
        }
    }

    #[test]
    fn every_kind_is_listed_once_with_a_label() {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(place(kind), i, "{kind:?}");
            assert!(!kind.label().is_empty(), "{kind:?}");
        }
        for (i, kind) in DeleteKind::ALL.into_iter().enumerate() {
            assert_eq!(gate_place(kind), i, "{kind:?}");
        }
    }

    /// The gate counts every class some kind deletes as, and members banned (a ban's
    /// creation), and no other.
    #[test]
    fn the_gate_classes_are_the_kinds_deletions_and_member_bans() {
        let of_kinds: BTreeSet<usize> = Kind::ALL
            .iter()
            .filter_map(|k| k.facts().gate)
            .map(gate_place)
            .chain([gate_place(DeleteKind::MemberBans)])
            .collect();
        let all: BTreeSet<usize> = DeleteKind::ALL.iter().copied().map(gate_place).collect();
        assert_eq!(of_kinds, all);
    }

    /// The table's prune keys are exactly the manifest's `prune:` entries: a kind pruned
    /// by a key the manifest does not have, or a key no kind names, fails here.
    #[test]
    fn the_prune_keys_are_the_manifests() {
        let schema = serde_json::to_value(schemars::schema_for!(Prune)).expect("a schema");
        let manifest: BTreeSet<String> = schema["properties"]
            .as_object()
            .expect("Prune's fields")
            .keys()
            .map(|key| format!("prune.{key}"))
            .collect();
        let table: BTreeSet<String> = Kind::ALL
            .iter()
            .filter_map(|k| k.facts().prune_key)
            .map(str::to_owned)
            .collect();
        assert_eq!(table, manifest);
    }

    /// A kind `prune` deletes, or `protect:` keeps, is one the gate counts (the protecting
    /// entry is found by its gate class).
    #[test]
    fn a_pruned_or_protected_kind_is_counted_by_the_gate() {
        for kind in Kind::ALL {
            let facts = kind.facts();
            if facts.prune_key.is_some() || facts.protect.is_some() {
                assert!(facts.gate.is_some(), "{kind:?}");
            }
        }
    }
}
