//! The emulator's whole state: what `GET/PUT /_emulator/state` exchange.
//!
//! Ids are decimal strings, as on the wire. Every field has a serde default so a
//! hand-written state file only needs the parts it cares about.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use discord_permissions::Permissions;

pub use super::config::EmulatorConfig;

mod expressions;
mod messages;

// The objects live in files by what they hold; the state's paths (`state::Emoji`) stay one.
pub use expressions::{
    ActionMetadata, AutoModAction, AutoModRule, Emoji, EntityMetadata, NWeekday, RecurrenceRule,
    ScheduledEvent, Sound, Sticker, TriggerMetadata,
};
pub use messages::{Attachment, Message, Thread, Webhook};

/// Discord epoch (2015-01-01T00:00:00Z) in milliseconds (docs/discord.md §8).
pub const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct State {
    #[serde(default)]
    pub guilds: Vec<Guild>,
    #[serde(default)]
    pub users: Vec<User>,
    /// Bot tokens and the user each authenticates as. Empty = a random token is
    /// generated for `bot_user_id` at start.
    #[serde(default)]
    pub tokens: Vec<BotToken>,
    /// The user that a generated token belongs to.
    #[serde(default)]
    pub bot_user_id: String,
    #[serde(default)]
    pub snowflake: SnowflakeGen,
    /// Behaviour where Discord's rules are unverified (docs/discord.md §8
    /// "Open questions") and the rate limits (§1).
    #[serde(default)]
    pub config: EmulatorConfig,
    /// The bot's application (`GET /oauth2/applications/@me`).
    #[serde(default)]
    pub application: Application,
    /// Users' OAuth2 access tokens (what Add Guild Member's `access_token` names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_tokens: Vec<UserToken>,
}

/// An OAuth2 access token a user granted an application.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct UserToken {
    pub token: String,
    pub user_id: String,
    /// The application it was granted to; "" = the bot's.
    #[serde(default)]
    pub application_id: String,
    /// Granted scopes, e.g. `identify`, `guilds.join`.
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// The application behind `bot_user_id`. Unset fields are derived: a bot's
/// application id is its user id, its name the bot's username, its owner the
/// first guild's owner.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Application {
    /// "" = the bot user's id.
    #[serde(default)]
    pub id: String,
    /// None = the bot's username.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    /// Image hash.
    #[serde(default)]
    pub icon: Option<String>,
    /// None = the owner of the first guild.
    #[serde(default)]
    pub owner_id: Option<String>,
    #[serde(default)]
    pub flags: u64,
    #[serde(default = "yes")]
    pub bot_public: bool,
    #[serde(default)]
    pub bot_require_code_grant: bool,
}

impl Default for Application {
    fn default() -> Self {
        Application {
            id: String::new(),
            name: None,
            description: String::new(),
            icon: None,
            owner_id: None,
            flags: 0,
            // New applications start public.
            bot_public: true,
            bot_require_code_grant: false,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BotToken {
    pub token: String,
    pub user_id: String,
}

/// Issues timestamp-based snowflakes that never go backwards, on the emulator's clock.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SnowflakeGen {
    /// The last id issued (0 = none yet).
    #[serde(default)]
    pub last: u64,
    /// How far the emulator's clock runs ahead of the wall clock, in milliseconds: what
    /// `POST /_emulator/clock` (`RunningEmulator::advance_clock`) advanced. Ids,
    /// timestamps and every expiry (audit-log retention, invites, timeouts) read this
    /// clock, so a test can let 45 days pass at once. It never goes back.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub clock_offset_ms: u64,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

impl SnowflakeGen {
    /// The emulator's now, in Unix milliseconds.
    pub fn now_ms(&self) -> u64 {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(DISCORD_EPOCH_MS);
        wall.saturating_add(self.clock_offset_ms)
    }

    /// A fresh id: (ms since Discord epoch) << 22, bumped past the last issued id.
    pub fn next_id(&mut self) -> String {
        let ts = self.now_ms().saturating_sub(DISCORD_EPOCH_MS) << 22;
        let id = ts.max(self.last.saturating_add(1));
        self.last = id;
        id.to_string()
    }
}

/// When a snowflake was made, in Unix milliseconds.
pub fn snowflake_ms(id: &str) -> Option<u64> {
    id.parse::<u64>().ok().map(|n| (n >> 22) + DISCORD_EPOCH_MS)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct User {
    pub id: String,
    pub username: String,
    #[serde(default = "zero_discriminator")]
    pub discriminator: String,
    #[serde(default)]
    pub global_name: Option<String>,
    #[serde(default)]
    pub avatar: Option<String>,
    #[serde(default)]
    pub bot: bool,
    #[serde(default)]
    pub public_flags: u64,
}

fn zero_discriminator() -> String {
    "0".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Guild {
    pub id: String,
    pub name: String,
    pub owner_id: String,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub home_header: Option<String>,
    #[serde(default)]
    pub splash: Option<String>,
    #[serde(default)]
    pub discovery_splash: Option<String>,
    #[serde(default)]
    pub banner: Option<String>,
    #[serde(default)]
    pub features: Vec<String>,
    #[serde(default)]
    pub application_id: Option<String>,
    #[serde(default = "default_region")]
    pub region: String,
    #[serde(default)]
    pub afk_channel_id: Option<String>,
    #[serde(default = "default_afk_timeout")]
    pub afk_timeout: u32,
    #[serde(default)]
    pub system_channel_id: Option<String>,
    #[serde(default)]
    pub system_channel_flags: u32,
    #[serde(default)]
    pub widget_enabled: bool,
    #[serde(default)]
    pub widget_channel_id: Option<String>,
    #[serde(default)]
    pub verification_level: u8,
    #[serde(default)]
    pub default_message_notifications: u8,
    #[serde(default)]
    pub mfa_level: u8,
    #[serde(default)]
    pub explicit_content_filter: u8,
    #[serde(default)]
    pub max_presences: Option<u32>,
    #[serde(default = "default_max_members")]
    pub max_members: u32,
    #[serde(default = "default_stage_video")]
    pub max_stage_video_channel_users: u32,
    #[serde(default = "default_video")]
    pub max_video_channel_users: u32,
    #[serde(default)]
    pub vanity_url_code: Option<String>,
    #[serde(default)]
    pub premium_tier: u8,
    #[serde(default)]
    pub premium_subscription_count: u32,
    #[serde(default = "default_locale")]
    pub preferred_locale: String,
    #[serde(default)]
    pub rules_channel_id: Option<String>,
    #[serde(default)]
    pub safety_alerts_channel_id: Option<String>,
    #[serde(default)]
    pub public_updates_channel_id: Option<String>,
    #[serde(default)]
    pub premium_progress_bar_enabled: bool,
    #[serde(default)]
    pub nsfw: bool,
    #[serde(default)]
    pub nsfw_level: u8,
    /// Custom emoji (emojis.rs).
    #[serde(default)]
    pub emojis: Vec<Emoji>,
    /// Guild stickers (stickers.rs).
    #[serde(default)]
    pub stickers: Vec<Sticker>,
    #[serde(default)]
    pub incidents_data: Option<Value>,
    #[serde(default)]
    pub roles: Vec<Role>,
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[serde(default)]
    pub members: Vec<Member>,
    /// Banned users, in no particular order (`GET …/bans` sorts by user id).
    #[serde(default)]
    pub bans: Vec<Ban>,
    /// Oldest first (ids increase).
    #[serde(default)]
    pub audit_log: Vec<AuditEntry>,
    /// Whether it is shown is the `WELCOME_SCREEN_ENABLED` feature (§5.3).
    #[serde(default)]
    pub welcome_screen: WelcomeScreen,
    #[serde(default)]
    pub onboarding: Onboarding,
    #[serde(default)]
    pub webhooks: Vec<Webhook>,
    /// Uploaded images by the hash the guild and its roles hold (images.rs).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub images: std::collections::BTreeMap<String, String>,
    /// Bots, apps and linked services (the first 50 are readable).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub integrations: Vec<Integration>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invites: Vec<Invite>,
    /// Joins through the vanity URL (`vanity_url_code`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub vanity_uses: u32,
    /// What members carry beyond `members[]`'s user, roles, nick and join time: voice
    /// state, mute and deaf, timeout, flags, guild profile. By user id; a member without
    /// an entry has the defaults. Kept apart so `Member` values written before stay valid.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub member_details: std::collections::BTreeMap<String, MemberDetails>,
    /// Threads of the guild's channels (types 10, 11, 12). Not in `channels`: Get Guild
    /// Channels leaves threads out, and they count toward no channel limit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<Thread>,
    /// Messages webhooks posted, in channels and threads, oldest first (the only
    /// messages the emulator keeps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// Soundboard sounds (soundboard.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub soundboard_sounds: Vec<Sound>,
    /// AutoMod rules (automod.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_moderation_rules: Vec<AutoModRule>,
    /// Scheduled events (scheduled_events.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scheduled_events: Vec<ScheduledEvent>,
}

/// A member's state beyond [`Member`] (reference: Guild Member).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MemberDetails {
    /// Server mute and deafen (voice).
    #[serde(default)]
    pub mute: bool,
    #[serde(default)]
    pub deaf: bool,
    /// The voice or stage channel the member is connected to (its voice state); `None`
    /// when not in voice. Mute, deaf and moves need one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voice_channel_id: Option<String>,
    /// When a timeout ends (ISO 8601); a past time means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub communication_disabled_until: Option<String>,
    /// Member flags (DID_REJOIN 1<<0 ... AUTOMOD_QUARANTINED_GUILD_TAG 1<<10).
    #[serde(default)]
    pub flags: u64,
    /// Not past membership screening yet.
    #[serde(default)]
    pub pending: bool,
    /// Guild avatar and banner hashes, and the guild bio (Modify Current Member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bio: Option<String>,
    /// When the member started boosting (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premium_since: Option<String>,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn default_region() -> String {
    "deprecated".into()
}
fn default_afk_timeout() -> u32 {
    300
}
fn default_max_members() -> u32 {
    500_000
}
fn default_stage_video() -> u32 {
    50
}
fn default_video() -> u32 {
    25
}
fn default_locale() -> String {
    "en-US".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Role {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub permissions: Permissions,
    #[serde(default)]
    pub position: i64,
    /// The primary colour (`colors.primary_color`, and the deprecated `color`).
    #[serde(default)]
    pub color: u32,
    /// A gradient's second colour, and the holographic style's third (§3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secondary_color: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tertiary_color: Option<u32>,
    #[serde(default)]
    pub hoist: bool,
    #[serde(default)]
    pub managed: bool,
    #[serde(default)]
    pub mentionable: bool,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub unicode_emoji: Option<String>,
    #[serde(default)]
    pub flags: u64,
    /// Raw tags object as Discord sends it (null-valued tags mean "true").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Overwrite {
    pub id: String,
    /// 0 role, 1 member.
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(default)]
    pub allow: Permissions,
    #[serde(default)]
    pub deny: Permissions,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Channel {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub name: String,
    #[serde(default)]
    pub position: i64,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub permission_overwrites: Vec<Overwrite>,
    #[serde(default)]
    pub topic: Option<String>,
    #[serde(default)]
    pub nsfw: bool,
    #[serde(default)]
    pub flags: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit_per_user: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitrate: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtc_region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_quality_mode: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_auto_archive_duration: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_thread_rate_limit_per_user: Option<u32>,
    /// Forum and media channels (15, 16) only, like the next two (§9.5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub available_tags: Vec<ForumTag>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_reaction_emoji: Option<DefaultReaction>,
    /// 0 latest activity, 1 creation date; None = not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_sort_order: Option<u8>,
    /// Forum channels (15) only: 0 not set, 1 list, 2 gallery.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub default_forum_layout: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// A tag of a forum or media channel; the server assigns the id (§9.5).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ForumTag {
    pub id: String,
    pub name: String,
    /// Only members with MANAGE_THREADS may apply it.
    #[serde(default)]
    pub moderated: bool,
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
}

/// The emoji a forum or media channel shows as the reaction button on posts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DefaultReaction {
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Member {
    pub user_id: String,
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default)]
    pub nick: Option<String>,
    #[serde(default = "default_joined")]
    pub joined_at: String,
}

/// A ban: the user and the reason it was made with (the audit-log reason).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Ban {
    pub user_id: String,
    #[serde(default)]
    pub reason: Option<String>,
}

fn default_joined() -> String {
    "2021-06-01T12:00:00.000000+00:00".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AuditEntry {
    pub id: String,
    pub action_type: u32,
    pub user_id: Option<String>,
    pub target_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<AuditChange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<serde_json::Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AuditChange {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WelcomeScreen {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub welcome_channels: Vec<WelcomeChannel>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WelcomeChannel {
    pub channel_id: String,
    pub description: String,
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Onboarding {
    #[serde(default)]
    pub enabled: bool,
    /// 0 ONBOARDING_DEFAULT, 1 ONBOARDING_ADVANCED.
    #[serde(default)]
    pub mode: u8,
    #[serde(default)]
    pub default_channel_ids: Vec<String>,
    #[serde(default)]
    pub prompts: Vec<Prompt>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Prompt {
    pub id: String,
    /// 0 MULTIPLE_CHOICE, 1 DROPDOWN.
    #[serde(rename = "type", default)]
    pub kind: u8,
    pub title: String,
    #[serde(default)]
    pub options: Vec<PromptOption>,
    #[serde(default)]
    pub single_select: bool,
    #[serde(default)]
    pub required: bool,
    #[serde(default = "yes")]
    pub in_onboarding: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PromptOption {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub channel_ids: Vec<String>,
    #[serde(default)]
    pub role_ids: Vec<String>,
    #[serde(default)]
    pub emoji_id: Option<String>,
    #[serde(default)]
    pub emoji_name: Option<String>,
    #[serde(default)]
    pub emoji_animated: bool,
}

impl State {
    /// The emulator's now, in Unix milliseconds ([`SnowflakeGen::now_ms`]).
    pub fn now_ms(&self) -> u64 {
        self.snowflake.now_ms()
    }
    pub fn guild(&self, id: &str) -> Option<&Guild> {
        self.guilds.iter().find(|g| g.id == id)
    }
    pub fn guild_mut(&mut self, id: &str) -> Option<&mut Guild> {
        self.guilds.iter_mut().find(|g| g.id == id)
    }
    pub fn user(&self, id: &str) -> Option<&User> {
        self.users.iter().find(|u| u.id == id)
    }
    /// The application a user acts for: the configured one for the bot, else
    /// the user's own id (a bot's application id is its user id).
    pub fn application_id(&self, user_id: &str) -> String {
        if user_id == self.bot_user_id && !self.application.id.is_empty() {
            self.application.id.clone()
        } else {
            user_id.to_owned()
        }
    }
    /// The guild holding channel `id`.
    pub fn guild_of_channel(&self, id: &str) -> Option<String> {
        self.guilds
            .iter()
            .find(|g| g.channels.iter().any(|c| c.id == id))
            .map(|g| g.id.clone())
    }
}

impl Guild {
    pub fn role(&self, id: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.id == id)
    }
    pub fn channel(&self, id: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.id == id)
    }
    pub fn member(&self, user_id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.user_id == user_id)
    }
    pub fn everyone(&self) -> Option<&Role> {
        self.role(&self.id)
    }
    pub fn has_feature(&self, f: &str) -> bool {
        self.features.iter().any(|x| x == f)
    }

    /// `user_id` leaves the guild (kicked, banned, pruned, or an integration's bot
    /// removed): their membership and details go, and so do the permission overwrites that
    /// name them. Discord keeps no member overwrite for a user who is not a member: "Discord
    /// does not preserve user overrides after the user has left & rejoined"
    /// [I:Erisa/Cliptok#158]; staff describe a member overwrite surviving a member's removal
    /// only as a race [I:discord/discord-api-docs#4303]. No audit entry, as for the other
    /// side effects.
    pub fn remove_member(&mut self, user_id: &str) {
        self.members.retain(|m| m.user_id != user_id);
        self.member_details.remove(user_id);
        for c in &mut self.channels {
            c.permission_overwrites
                .retain(|o| !(o.kind == 1 && o.id == user_id));
        }
    }

    /// Drops every reference to a deleted channel. What Discord does here is
    /// undocumented (§8 "Open questions"); settings, welcome screen and
    /// onboarding lose the channel, and its webhooks, threads and messages go with it.
    pub fn forget_channel(&mut self, id: &str) {
        for slot in [
            &mut self.afk_channel_id,
            &mut self.system_channel_id,
            &mut self.widget_channel_id,
            &mut self.safety_alerts_channel_id,
            &mut self.rules_channel_id,
            &mut self.public_updates_channel_id,
        ] {
            if slot.as_deref() == Some(id) {
                *slot = None;
            }
        }
        self.welcome_screen
            .welcome_channels
            .retain(|w| w.channel_id != id);
        self.onboarding.default_channel_ids.retain(|c| c != id);
        for o in self
            .onboarding
            .prompts
            .iter_mut()
            .flat_map(|p| p.options.iter_mut())
        {
            o.channel_ids.retain(|c| c != id);
        }
        self.webhooks
            .retain(|w| w.channel_id.as_deref() != Some(id));
        self.invites.retain(|i| i.channel_id != id);
        // Its threads and messages go with it; members in it are disconnected.
        let threads: Vec<String> = self
            .threads
            .iter()
            .filter(|t| t.parent_id == id)
            .map(|t| t.id.clone())
            .collect();
        self.threads.retain(|t| t.parent_id != id);
        self.messages
            .retain(|m| m.channel_id != id && !threads.contains(&m.channel_id));
        for d in self.member_details.values_mut() {
            if d.voice_channel_id.as_deref() == Some(id) {
                d.voice_channel_id = None;
            }
        }
    }

    /// Drops every reference to a deleted role: member roles, role
    /// overwrites and onboarding options.
    pub fn forget_role(&mut self, id: &str) {
        for m in self.members.iter_mut() {
            m.roles.retain(|x| x != id);
        }
        for c in self.channels.iter_mut() {
            c.permission_overwrites
                .retain(|o| !(o.kind == 0 && o.id == id));
        }
        for o in self
            .onboarding
            .prompts
            .iter_mut()
            .flat_map(|p| p.options.iter_mut())
        {
            o.role_ids.retain(|r| r != id);
        }
    }
}

/// A bot, app or linked service of a guild (integrations.rs serves them).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Integration {
    pub id: String,
    pub name: String,
    /// `discord` for an application (bot or commands), else the service's own type
    /// (`twitch`, `youtube`, `guild_subscription`).
    #[serde(rename = "type", default = "discord")]
    pub kind: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The application, for `discord` integrations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application: Option<IntegrationApplication>,
    /// The account: for an application, its id and name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<Value>,
    /// The user who added it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The subscriber role of a service integration (absent for bots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IntegrationApplication {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub description: String,
    /// The application's bot user, when it was added with the `bot` scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_id: Option<String>,
}

fn discord() -> String {
    "discord".into()
}

/// An invite into one of a guild's channels (invites.rs serves them).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Invite {
    pub code: String,
    pub channel_id: String,
    /// The user who made it; `None` for invites Discord made (the widget's).
    #[serde(default)]
    pub inviter_id: Option<String>,
    #[serde(default)]
    pub uses: u32,
    /// 0 = unlimited.
    #[serde(default)]
    pub max_uses: u32,
    /// Seconds until it expires; 0 = never.
    #[serde(default)]
    pub max_age: u32,
    #[serde(default)]
    pub temporary: bool,
    /// ISO 8601.
    pub created_at: String,
    #[serde(default)]
    pub flags: u32,
    /// The users allowed to accept it (Update Target Users), if it is limited to some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_user_ids: Vec<String>,
    /// The last target-users job (Get Target Users Job Status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_users_job: Option<TargetUsersJob>,
}

/// The processing of an invite's target users (reference: Target-users job status code).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TargetUsersJob {
    /// 0 UNSPECIFIED, 1 PROCESSING, 2 COMPLETED, 3 FAILED.
    pub status: u8,
    pub total_users: u32,
    pub processed_users: u32,
    pub created_at: String,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub error_message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_saved_before_the_rest_of_the_guild_still_load() {
        // A guild of an older state file: no rules, sounds or events, and emoji and
        // stickers as Discord shows them (creators as user objects, which are dropped).
        let g: Guild = serde_json::from_value(serde_json::json!({
            "id": "1", "name": "g", "owner_id": "2",
            "emojis": [{"id": "3", "name": "wave", "roles": [], "require_colons": true,
                        "managed": false, "animated": false, "available": true,
                        "user": {"id": "2", "username": "owner"}}],
            "stickers": [{"id": "4", "name": "crab", "tags": "crab", "type": 2,
                          "format_type": 1, "description": null, "available": true,
                          "guild_id": "1"}],
        }))
        .unwrap();
        assert_eq!(
            (g.emojis[0].name.as_str(), g.emojis[0].user_id.as_deref()),
            ("wave", None)
        );
        assert_eq!(g.stickers[0].format_type, 1);
        assert!(g.auto_moderation_rules.is_empty() && g.soundboard_sounds.is_empty());
        assert!(g.scheduled_events.is_empty());
        // And an empty guild serialises without the new lists.
        let v = serde_json::to_value(&g).unwrap();
        assert!(v.get("scheduled_events").is_none());
    }
}
