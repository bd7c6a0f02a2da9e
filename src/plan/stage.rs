//! The stages a plan's operations run in: the order of kinds of call (roles, channels,
//! settings, …, deletions), and which stages wait for every earlier one.

/// When an operation runs, relative to the others. Operations are sorted by
/// phase (stably), which orders every dependency a plan can contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Phase {
    RoleCreate,
    RoleUpdate,
    RoleOrder,
    CategoryWrite,
    ChannelWrite,
    /// Guild settings reference channels, so they follow channel creation.
    Settings,
    /// Announcement channels need the NEWS feature that enabling COMMUNITY grants.
    AfterCommunity,
    /// Welcome screen, onboarding, widget and webhooks name channels and roles.
    Features,
    ChannelMove,
    ChannelOrder,
    /// Webhooks go before the channels that hold them.
    WebhookDelete,
    ChannelDelete,
    CategoryDelete,
    RoleDelete,
    /// Last, so the stages of earlier kinds keep their numbers: an integration takes
    /// its bot, role and webhooks with it.
    IntegrationDelete,
    InviteDelete,
    /// Roster roles given and taken, once the roles exist with their permissions.
    Rosters,
    /// Bans and lifted bans.
    Bans,
    /// Custom emoji deleted (pruned, or replaced for a new image) before any is created, so
    /// their slots are free.
    EmojiDelete,
    /// Custom emoji created and changed, once the roles they name exist.
    EmojiWrite,
    /// Soundboard sounds deleted (pruned, or replaced for a new file), then created and
    /// changed (after the emoji they may show).
    SoundDelete,
    SoundWrite,
    /// AutoMod rules deleted (first: a guild holds at most six keyword rules), then
    /// created and updated, once the roles and channels they name exist.
    AutoModDelete,
    AutoModWrite,
    /// Scheduled events deleted, then created and updated, in the channels they name.
    EventDelete,
    EventWrite,
    /// Guild stickers deleted (pruned, or replaced for a new file) before any is created, so
    /// their slots are free; then created and changed.
    StickerDelete,
    StickerWrite,
    /// Announcement channels of other guilds followed into channels (a channel's `follows`),
    /// once the channels exist; unfollowing is a webhook deletion (`WebhookDelete`).
    Follows,
}

impl Phase {
    /// The first phase whose calls wait for every call of the phases before it
    /// (settings, community, features, moves, order and deletions are few, and
    /// their prerequisites broad); calls of earlier phases wait only for what
    /// they name.
    pub const FIRST_BARRIER: Phase = Phase::Settings;
}

/// Operations of this stage and later wait for every operation of an earlier stage.
pub fn barrier_stage() -> u8 {
    Phase::FIRST_BARRIER as u8
}

/// Whether a call of stage `stage` waits for every earlier call of stage `earlier`,
/// whatever it names: from the settings stage on, for every earlier stage; the role
/// order for the role creates.
pub fn stage_waits_for(stage: u8, earlier: u8) -> bool {
    let barrier = Phase::FIRST_BARRIER as u8;
    (stage >= barrier && earlier < stage)
        || (stage == Phase::RoleOrder as u8 && earlier == Phase::RoleCreate as u8)
}
