//! Discord's limits on what a guild holds and what its objects may say, in one place: the
//! manifest's checks, the template import and the CDN reader all hold to these. Each group
//! names its source in docs/discord.md (or Discord's docs).

// docs/discord.md §4.2, §4.6, §5.1; Discord's docs for roles.
/// A guild's name: 2–100 characters (docs/discord.md §5.1).
pub const GUILD_NAME_LEN: (usize, usize) = (2, 100);
/// A guild's description: at most 300 characters (docs/discord.md §5.1).
pub const GUILD_DESCRIPTION_MAX: usize = 300;
/// A role's name: at most 100 characters (Discord's docs, resources/guild: Create Guild Role).
pub const ROLE_NAME_MAX: usize = 100;
/// A channel's name: at most 100 characters (docs/discord.md §4.2).
pub const CHANNEL_NAME_MAX: usize = 100;
/// A text channel's topic: at most 1,024 characters (docs/discord.md §4.2).
pub const TOPIC_MAX: usize = 1024;
/// A forum or media channel's topic (its guidelines): at most 4,096 characters (docs/discord.md §4.2).
pub const FORUM_TOPIC_MAX: usize = 4096;
/// Slowmode: at most 21,600 seconds, six hours (docs/discord.md §4.2).
pub const SLOWMODE_MAX: u32 = 21600;
/// A voice or stage channel's bitrate: at least 8,000 bits a second (docs/discord.md §4.2).
pub const BITRATE_MIN: u32 = 8000;
/// A voice channel's bitrate: at most 384,000 (boost level 3; docs/discord.md §4.2).
pub const VOICE_BITRATE_MAX: u32 = 384_000;
/// A stage channel's bitrate: at most 64,000 (docs/discord.md §4.2).
pub const STAGE_BITRATE_MAX: u32 = 64_000;
/// A voice channel's user limit: at most 99, 0 for none (docs/discord.md §4.2).
pub const VOICE_USER_LIMIT_MAX: u32 = 99;
/// A stage channel's user limit: at most 10,000 (docs/discord.md §4.2).
pub const STAGE_USER_LIMIT_MAX: u32 = 10_000;
/// The AFK timeouts Discord accepts, in seconds (docs/discord.md §5.1).
pub const AFK_TIMEOUTS: [u32; 5] = [60, 300, 900, 1800, 3600];
/// The thread auto-archive durations Discord accepts, in minutes (docs/discord.md §4.2).
pub const AUTO_ARCHIVE_DURATIONS: [u32; 4] = [60, 1440, 4320, 10080];
/// A category holds at most 50 channels (docs/discord.md §4.6).
pub const CATEGORY_CHILDREN_MAX: usize = 50;
/// A guild holds at most 500 channels, categories included (docs/discord.md §4.6).
pub const CHANNELS_MAX: usize = 500;
/// A guild holds at most 250 roles (docs/discord.md §2.3, error 30005).
pub const ROLES_MAX: usize = 250;
/// The largest colour: 24-bit RGB.
pub const COLOR_MAX: u32 = 0xFF_FFFF;
// docs/discord.md §5.3-§5.5 and §6.
/// A welcome screen lists at most 5 channels (docs/discord.md §5.3).
pub const WELCOME_CHANNELS_MAX: usize = 5;
/// A welcome screen's description: at most 140 characters (docs/discord.md §5.3).
pub const WELCOME_DESCRIPTION_MAX: usize = 140;
/// A welcome channel's description: 1–50 characters (docs/discord.md §5.3).
pub const WELCOME_CHANNEL_DESCRIPTION_LEN: (usize, usize) = (1, 50);
/// Onboarding holds at most 15 prompts (docs/discord.md §5.4).
pub const PROMPTS_MAX: usize = 15;
/// An onboarding prompt's title: 1–100 characters (docs/discord.md §5.4).
pub const PROMPT_TITLE_LEN: (usize, usize) = (1, 100);
/// An onboarding prompt has 1–50 options (docs/discord.md §5.4).
pub const PROMPT_OPTIONS_LEN: (usize, usize) = (1, 50);
/// A prompt option's title: 1–50 characters (docs/discord.md §5.4).
pub const OPTION_TITLE_LEN: (usize, usize) = (1, 50);
/// A prompt option's description: at most 100 characters (docs/discord.md §5.4).
pub const OPTION_DESCRIPTION_MAX: usize = 100;
/// A prompt option gives at most 50 roles (docs/discord.md §5.4).
pub const OPTION_ROLES_MAX: usize = 50;
/// A prompt option opens at most 50 channels (docs/discord.md §5.4).
pub const OPTION_CHANNELS_MAX: usize = 50;
/// Onboarding's default channels: at most 500 (docs/discord.md §5.4).
pub const DEFAULT_CHANNELS_MAX: usize = 500;
/// Onboarding can be enabled only with at least this many default channels ...
pub const ONBOARDING_DEFAULT_CHANNELS_MIN: usize = 7;
/// ... of which at least this many let @everyone send messages (checked by the planner).
pub const ONBOARDING_WRITABLE_CHANNELS_MIN: usize = 5;
/// A webhook's name: 1–80 characters (docs/discord.md §6).
pub const WEBHOOK_NAME_LEN: (usize, usize) = (1, 80);
/// Substrings Discord refuses in webhook names, in any case.
pub const WEBHOOK_NAME_FORBIDDEN: [&str; 2] = ["clyde", "discord"];
/// A channel holds at most 15 webhooks (docs/discord.md §6).
pub const WEBHOOKS_PER_CHANNEL_MAX: usize = 15;
// docs/discord.md §9.5.
/// A forum or media channel holds at most 20 tags (docs/discord.md §9.5).
pub const TAGS_MAX: usize = 20;
/// A tag's name: 1–20 characters (docs/discord.md §9.5).
pub const TAG_NAME_LEN: (usize, usize) = (1, 20);
// docs/discord.md §10.2: letters, digits and underscores.
/// An emoji's name: 2–32 letters, digits and underscores (docs/discord.md §10.2).
pub const EMOJI_NAME_LEN: (usize, usize) = (2, 32);

/// Discord stores at most 512 characters of an audit-log reason (§7.1), a ban's included.
pub const MAX_REASON_CHARS: usize = 512;

/// Discord's limit on an uploaded image (8 MiB).
pub const IMAGE_MAX_BYTES: u64 = 8 * 1024 * 1024;

// Discord's docs, resources/emoji: Create Guild Emoji; docs/discord.md §10.2.
/// An emoji image is at most 256 KiB.
pub const EMOJI_IMAGE_MAX_BYTES: u64 = 256 * 1024;
/// Emoji slots by boost tier (0-3), static and animated counted apart.
pub const EMOJI_SLOTS: [usize; 4] = [50, 100, 150, 250];

// Discord's docs, resources/soundboard: Create Guild Soundboard Sound; docs/discord.md §10.2.
/// A sound is MP3 or Ogg, at most 512 KiB ...
pub const SOUND_MAX_BYTES: u64 = 512 * 1024;
/// ... and plays at most 5.2 seconds.
pub const SOUND_MAX_SECONDS: f64 = 5.2;
/// A sound's name.
pub const SOUND_NAME_LEN: (usize, usize) = (2, 32);
/// Soundboard slots by boost tier (0-3).
pub const SOUND_SLOTS: [usize; 4] = [8, 24, 36, 48];

// Discord's docs, resources/sticker: Create Guild Sticker; docs/discord.md §10.2.
/// A sticker's file is PNG, APNG, GIF or Lottie JSON, at most 512 KiB ...
pub const STICKER_MAX_BYTES: u64 = 512 * 1024;
/// ... and at most 320 pixels each way.
pub const STICKER_MAX_SIDE: u64 = 320;
/// A sticker's name.
pub const STICKER_NAME_LEN: (usize, usize) = (2, 30);
/// A sticker's description: empty, or this long.
pub const STICKER_DESCRIPTION_LEN: (usize, usize) = (2, 100);
/// A sticker's autocomplete tags.
pub const STICKER_TAGS_LEN: (usize, usize) = (1, 200);
/// Sticker slots by boost tier (0-3).
pub const STICKER_SLOTS: [usize; 4] = [5, 15, 30, 60];
// AutoMod rules: Discord's docs, resources/auto-moderation ("Trigger Metadata Field
// Limits", "Action Metadata", "Max per Guild").
/// An AutoMod rule's name: 1–100 characters (docs/discord.md §10.1).
pub const AUTOMOD_NAME_LEN: (usize, usize) = (1, 100);
/// A rule's keyword filter: at most 1,000 words (docs/discord.md §10.1).
pub const AUTOMOD_KEYWORDS_MAX: usize = 1000;
/// A keyword: 1–60 characters (docs/discord.md §10.1).
pub const AUTOMOD_KEYWORD_LEN: (usize, usize) = (1, 60);
/// A rule's regex patterns: at most 10 (docs/discord.md §10.1).
pub const AUTOMOD_REGEX_MAX: usize = 10;
/// A regex pattern: 1–260 characters (docs/discord.md §10.1).
pub const AUTOMOD_REGEX_LEN: (usize, usize) = (1, 260);
/// A keyword rule's allow list: at most 100 (docs/discord.md §10.1).
pub const AUTOMOD_ALLOW_MAX: usize = 100;
/// A keyword-preset rule's allow list: at most 1,000 (docs/discord.md §10.1).
pub const AUTOMOD_PRESET_ALLOW_MAX: usize = 1000;
/// A mention-spam rule's limit: at most 50 mentions (docs/discord.md §10.1).
pub const AUTOMOD_MENTION_LIMIT_MAX: u32 = 50;
/// A rule has 1–5 actions (docs/discord.md §10.1).
pub const AUTOMOD_ACTIONS_LEN: (usize, usize) = (1, 5);
/// A block action's custom message: at most 150 characters (docs/discord.md §10.1).
pub const AUTOMOD_BLOCK_MESSAGE_MAX: usize = 150;
/// Four weeks.
pub const AUTOMOD_TIMEOUT_MAX: u32 = 2_419_200;
/// A rule exempts at most 20 roles (docs/discord.md §10.1).
pub const AUTOMOD_EXEMPT_ROLES_MAX: usize = 20;
/// A rule exempts at most 50 channels (docs/discord.md §10.1).
pub const AUTOMOD_EXEMPT_CHANNELS_MAX: usize = 50;

// Scheduled events: Discord's docs, resources/guild-scheduled-event.
/// A scheduled event's name: 1–100 characters (docs/discord.md §10.3).
pub const EVENT_NAME_LEN: (usize, usize) = (1, 100);
/// A scheduled event's description: at most 1,000 characters (docs/discord.md §10.3).
pub const EVENT_DESCRIPTION_MAX: usize = 1000;
/// An external event's location: 1–100 characters (docs/discord.md §10.3).
pub const EVENT_LOCATION_LEN: (usize, usize) = (1, 100);
