//! `State.config`: the emulator's knobs. Behaviour where Discord's rules are
//! unverified (docs/discord.md §8 "Open questions") and every rate limit
//! (§1), with defaults taken from the reference where it gives a number and
//! typical values otherwise (the crate README lists the source of each).
//!
//! All durations are in emulated seconds; `time_scale` says how fast emulated
//! time runs against real time.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Knobs for unverified behaviour and for the rate limits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct EmulatorConfig {
    /// Default channels onboarding needs to be enabled (§5.4: 7 officially;
    /// userdoccers says 1).
    pub onboarding_min_default_channels: usize,
    /// Of those, how many must let @everyone send messages (§5.4: 5 officially).
    pub onboarding_min_writable_channels: usize,

    /// Master switch for every limit below (route buckets, global limit,
    /// name/topic sublimit, role creations, invalid-request refusal). Faults
    /// are independent of it.
    pub rate_limits_enabled: bool,
    /// Emulated seconds per real second: 100.0 makes every window 100× shorter
    /// in real time. Header values are always real seconds.
    pub time_scale: f64,
    /// Requests per second for the whole bot (§1.1: 50). Webhook token routes
    /// are exempt (§1.1, userdoccers).
    pub global_per_second: u32,
    /// Per-route buckets, first match wins. Routes without an entry have no
    /// per-route limit and send no `X-RateLimit-*` headers.
    pub route_buckets: Vec<RouteBucket>,
    /// `PATCH /channels/{id}` changing `name` or `topic`: this many per channel
    /// per 600 s (§1.5: 2 per 10 minutes), a 429 while the route bucket still
    /// has room.
    pub channel_name_topic_per_10min: u32,
    /// The bucket of `POST /guilds/{guild_id}/roles`, per guild (§1.5: 250 per
    /// ~48 h). It takes precedence over any `route_buckets` entry for that route.
    pub role_creates: Limit,
    /// Responses with status 401, 403 or 429 (not 429s of scope `shared`) per
    /// `invalid_requests_window_seconds` before the API refuses every request
    /// for `invalid_requests_block_seconds` (§1.4: 10,000 per 10 minutes).
    pub invalid_requests_limit: u32,
    pub invalid_requests_window_seconds: f64,
    /// How long the refusal lasts (§1.4: userdoccers says 24 hours).
    pub invalid_requests_block_seconds: f64,
    /// Also send `X-RateLimit-Scope: user` on responses that are not 429s
    /// (twilight ≥0.17 reads bucket headers only when a scope is present,
    /// §1.2). Discord's documented behaviour is not to.
    pub scope_header_on_success: bool,
    /// Role, category and voice names are stored trimmed with their inner whitespace as
    /// sent (`Mod  Team`), as Discord's own data shows (server templates keep such names);
    /// true collapses every inner run to one space, as nicknames and webhook names are
    /// (§9.2). Clients must work either way.
    pub collapse_inner_whitespace: bool,
    /// Whether the bot's application has the GUILD_MEMBERS privileged intent, which
    /// `GET /guilds/{id}/members` needs (reference, "Authentication" 3); without it the
    /// listing is refused with 403 50001. On by default, as a bot that manages rosters has it.
    pub guild_members_intent: bool,
    /// Categories a guild may have, refused past it with 400 30030 "Maximum number of
    /// server categories has been reached (N)". Unverified (§2.3: the docs' text says 5,
    /// userdoccers 50 of the 500 channels), so off (`null`) by default: a server-side limit
    /// to set when a guild is known to have one.
    pub max_categories: Option<usize>,
    /// Send every role's deprecated `color` as 0, whatever its colours, as a
    /// Discord-compatible server (Spacebar) does beside a colour set through `colors`.
    /// Discord keeps `color` equal to `colors.primary_color` (§3.1), so off by default: a
    /// client that reads `color` where `colors` is sent reads the wrong colour.
    pub role_color_zero: bool,
    /// Emoji slots (static, and as many animated) a guild with the MORE_EMOJI feature has
    /// at least, whatever its boost tier (Discord documents the feature, not the number).
    pub more_emoji_slots: usize,
    /// Sticker slots a guild with MORE_STICKERS has at least (same: the number is ours).
    pub more_sticker_slots: usize,
    /// Soundboard slots a guild with MORE_SOUNDBOARD has at least (same).
    pub more_soundboard_slots: usize,
    /// Refuse a scheduled event whose `scheduled_start_time` is in the past (§10.3:
    /// observed, not documented), on create and when a PATCH moves a scheduled event's
    /// start.
    pub refuse_past_event_start: bool,
    /// The Gateway's numbers (`crate::gateway`).
    pub gateway: GatewayConfig,
}

/// The Gateway's limits and timings (Discord's Gateway pages and `docs/discord.md`
/// §11 give the defaults). Its times are real milliseconds, not scaled by `time_scale`:
/// clients keep them with their own timers, and a test lowers them here.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct GatewayConfig {
    /// HELLO's `heartbeat_interval` (Discord sends 41,250 ms). A connection that sends no
    /// heartbeat for an interval and a half is closed (4009) and its session ends.
    pub heartbeat_interval_ms: u64,
    /// Guilds a shard may hold before IDENTIFY is refused with 4011 (Discord: 2,500).
    pub guilds_per_shard: usize,
    /// `/gateway/bot`'s `shards`: one per this many of the bot's guilds (Discord recommends
    /// about one per 1,000).
    pub guilds_per_recommended_shard: usize,
    /// IDENTIFYs a bot may send per day (`session_start_limit.total`: 1,000); past it one is
    /// answered with INVALID_SESSION (`d: false`).
    pub session_start_total: u32,
    /// `session_start_limit.max_concurrency`: shards whose `shard_id % max_concurrency` is
    /// equal share a bucket of one IDENTIFY per `identify_interval_ms` (5 s); a second
    /// one in the window is answered with INVALID_SESSION (`d: false`).
    pub max_concurrency: u32,
    pub identify_interval_ms: u64,
    /// Payloads a client may send per 60 s before the connection is closed with 4008 (120).
    pub sends_per_minute: usize,
    /// Dispatches a session keeps for RESUME; a RESUME from further back is refused with
    /// INVALID_SESSION (`d: false`).
    pub replay_limit: usize,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            heartbeat_interval_ms: 41_250,
            guilds_per_shard: 2500,
            guilds_per_recommended_shard: 1000,
            session_start_total: 1000,
            max_concurrency: 1,
            identify_interval_ms: 5_000,
            sends_per_minute: 120,
            replay_limit: 10_000,
        }
    }
}

/// One per-route bucket: `limit` requests per `window_seconds` for each major
/// id (the guild, channel or webhook of the path).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RouteBucket {
    /// An HTTP method, or `*` for any.
    pub method: String,
    /// A route template under `/api/v10`, e.g. `/channels/{channel_id}`: each
    /// `{…}` segment matches one path segment.
    pub route: String,
    pub limit: u32,
    pub window_seconds: f64,
    /// The `X-RateLimit-Bucket` value. Routes sharing a limit share the hash;
    /// counters are kept per (hash, major id).
    pub bucket: String,
}

/// `limit` per `window_seconds`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Limit {
    pub limit: u32,
    pub window_seconds: f64,
}

impl Default for EmulatorConfig {
    fn default() -> Self {
        EmulatorConfig {
            onboarding_min_default_channels: 7,
            onboarding_min_writable_channels: 5,
            rate_limits_enabled: true,
            time_scale: 1.0,
            global_per_second: 50,
            route_buckets: default_route_buckets(),
            channel_name_topic_per_10min: 2,
            role_creates: Limit {
                limit: 250,
                window_seconds: 48.0 * 3600.0,
            },
            invalid_requests_limit: 10_000,
            invalid_requests_window_seconds: 600.0,
            invalid_requests_block_seconds: 24.0 * 3600.0,
            scope_header_on_success: false,
            collapse_inner_whitespace: false,
            guild_members_intent: true,
            max_categories: None,
            role_color_zero: false,
            more_emoji_slots: 200,
            more_sticker_slots: 60,
            more_soundboard_slots: 48,
            refuse_past_event_start: true,
            gateway: GatewayConfig::default(),
        }
    }
}

/// The bucket hash of `POST /guilds/{guild_id}/roles` (`role_creates`).
pub fn role_create_bucket() -> String {
    bucket_hash("role-create")
}

/// An opaque 32-hex-digit bucket hash, as Discord's look (§1.2), derived from
/// a name so the defaults are stable.
pub fn bucket_hash(name: &str) -> String {
    let d = Sha256::digest(format!("guildctl-emulator-bucket:{name}"));
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The default per-route buckets. Sources (the crate README has the table):
/// docs/discord.md §1.5 for `PATCH /channels/{id}`; hata's observed limits
/// (HuyaneMatsu/hata, 2021) for overwrites, role edits, the welcome screen,
/// member reads, emojis, stickers, AutoMod rules and scheduled events; a typical
/// 5 per 5 s for the other writes. Reads other than members have no per-route
/// limit (hata saw none announced).
pub fn default_route_buckets() -> Vec<RouteBucket> {
    let b = |method: &str, route: &str, limit: u32, window: f64, name: &str| RouteBucket {
        method: method.into(),
        route: route.into(),
        limit,
        window_seconds: window,
        bucket: bucket_hash(name),
    };
    vec![
        b("PATCH", "/guilds/{guild_id}", 5, 5.0, "guild-edit"),
        b("PATCH", "/guilds/{guild_id}/roles", 5, 5.0, "role-reorder"),
        b(
            "PATCH",
            "/guilds/{guild_id}/roles/{role_id}",
            1000,
            86_400.0,
            "role-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/roles/{role_id}",
            5,
            5.0,
            "role-delete",
        ),
        b(
            "POST",
            "/guilds/{guild_id}/channels",
            5,
            5.0,
            "channel-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/channels",
            5,
            5.0,
            "channel-positions",
        ),
        b("PATCH", "/channels/{channel_id}", 10, 15.0, "channel-edit"),
        b(
            "PUT",
            "/channels/{channel_id}/permissions/{overwrite_id}",
            10,
            15.0,
            "overwrite",
        ),
        b(
            "DELETE",
            "/channels/{channel_id}/permissions/{overwrite_id}",
            10,
            15.0,
            "overwrite",
        ),
        b(
            "POST",
            "/channels/{channel_id}/webhooks",
            5,
            5.0,
            "webhook-create",
        ),
        b("PATCH", "/webhooks/{webhook_id}", 5, 5.0, "webhook-edit"),
        b(
            "PATCH",
            "/webhooks/{webhook_id}/{webhook_token}",
            5,
            5.0,
            "webhook-edit",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/welcome-screen",
            100,
            86_400.0,
            "welcome-screen-edit",
        ),
        b("PATCH", "/guilds/{guild_id}/widget", 5, 5.0, "widget-edit"),
        b(
            "PUT",
            "/guilds/{guild_id}/onboarding",
            5,
            5.0,
            "onboarding-edit",
        ),
        b(
            "GET",
            "/guilds/{guild_id}/members/{user_id}",
            5,
            1.0,
            "member-get",
        ),
        b(
            "PUT",
            "/guilds/{guild_id}/members/{user_id}/roles/{role_id}",
            10,
            10.0,
            "member-role",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/members/{user_id}/roles/{role_id}",
            10,
            10.0,
            "member-role",
        ),
        b("PUT", "/guilds/{guild_id}/bans/{user_id}", 5, 5.0, "ban"),
        b("DELETE", "/guilds/{guild_id}/bans/{user_id}", 5, 5.0, "ban"),
        b("POST", "/guilds/{guild_id}/bulk-ban", 5, 5.0, "bulk-ban"),
        // Emoji routes are limited per guild, more strictly than others (§1.5).
        b(
            "POST",
            "/guilds/{guild_id}/emojis",
            50,
            3600.0,
            "emoji-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/emojis/{emoji_id}",
            1,
            2.0,
            "emoji-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/emojis/{emoji_id}",
            1,
            2.0,
            "emoji-delete",
        ),
        b(
            "POST",
            "/guilds/{guild_id}/stickers",
            50,
            3600.0,
            "sticker-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/stickers/{sticker_id}",
            1,
            2.0,
            "sticker-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/stickers/{sticker_id}",
            1,
            2.0,
            "sticker-delete",
        ),
        b(
            "POST",
            "/guilds/{guild_id}/soundboard-sounds",
            5,
            5.0,
            "sound-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/soundboard-sounds/{sound_id}",
            5,
            5.0,
            "sound-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/soundboard-sounds/{sound_id}",
            5,
            5.0,
            "sound-delete",
        ),
        b(
            "POST",
            "/guilds/{guild_id}/auto-moderation/rules",
            5,
            30.0,
            "automod-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/auto-moderation/rules/{rule_id}",
            10,
            30.0,
            "automod-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/auto-moderation/rules/{rule_id}",
            5,
            30.0,
            "automod-delete",
        ),
        b(
            "POST",
            "/guilds/{guild_id}/scheduled-events",
            5,
            60.0,
            "event-create",
        ),
        b(
            "PATCH",
            "/guilds/{guild_id}/scheduled-events/{event_id}",
            5,
            20.0,
            "event-edit",
        ),
        b(
            "DELETE",
            "/guilds/{guild_id}/scheduled-events/{event_id}",
            5,
            20.0,
            "event-delete",
        ),
        b(
            "POST",
            "/channels/{channel_id}/followers",
            5,
            5.0,
            "channel-follow",
        ),
    ]
}

impl EmulatorConfig {
    /// Rejects values the limiter cannot work with (a scale or window that is
    /// not a positive finite number, a malformed route).
    pub fn validate(&self) -> Result<(), String> {
        let positive = |what: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{what} must be a positive number, not {v}"))
            }
        };
        positive("time_scale", self.time_scale)?;
        for (what, n) in [
            (
                "gateway.heartbeat_interval_ms",
                self.gateway.heartbeat_interval_ms as usize,
            ),
            ("gateway.guilds_per_shard", self.gateway.guilds_per_shard),
            (
                "gateway.guilds_per_recommended_shard",
                self.gateway.guilds_per_recommended_shard,
            ),
            (
                "gateway.max_concurrency",
                self.gateway.max_concurrency as usize,
            ),
        ] {
            if n == 0 {
                return Err(format!("{what} must be at least 1"));
            }
        }
        positive(
            "role_creates.window_seconds",
            self.role_creates.window_seconds,
        )?;
        positive(
            "invalid_requests_window_seconds",
            self.invalid_requests_window_seconds,
        )?;
        if !(self.invalid_requests_block_seconds.is_finite()
            && self.invalid_requests_block_seconds >= 0.0)
        {
            return Err(format!(
                "invalid_requests_block_seconds must be 0 or more, not {}",
                self.invalid_requests_block_seconds
            ));
        }
        for (i, b) in self.route_buckets.iter().enumerate() {
            positive(
                &format!("route_buckets[{i}].window_seconds"),
                b.window_seconds,
            )?;
            if !b.route.starts_with('/') {
                return Err(format!(
                    "route_buckets[{i}].route must start with '/': {}",
                    b.route
                ));
            }
            if b.method != "*" && !is_method(&b.method) {
                return Err(format!(
                    "route_buckets[{i}].method must be an HTTP method or '*': {}",
                    b.method
                ));
            }
            if b.bucket.is_empty() {
                return Err(format!("route_buckets[{i}].bucket must not be empty"));
            }
        }
        Ok(())
    }
}

pub(crate) fn is_method(m: &str) -> bool {
    matches!(
        m.to_ascii_uppercase().as_str(),
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_round_trip() {
        let c = EmulatorConfig::default();
        c.validate().unwrap();
        let back: EmulatorConfig =
            serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // A partial config keeps the other defaults.
        let p: EmulatorConfig = serde_json::from_str(r#"{"time_scale": 100.0}"#).unwrap();
        assert_eq!(p.time_scale, 100.0);
        assert!(p.rate_limits_enabled);
        assert_eq!(p.route_buckets, default_route_buckets());
    }

    #[test]
    fn overwrite_routes_share_one_bucket_and_hashes_look_like_discords() {
        let c = EmulatorConfig::default();
        let ow: Vec<&RouteBucket> = c
            .route_buckets
            .iter()
            .filter(|b| b.route.contains("/permissions/"))
            .collect();
        assert_eq!(ow.len(), 2);
        assert_eq!(ow[0].bucket, ow[1].bucket);
        assert_eq!(ow[0].bucket.len(), 32);
        assert!(ow[0].bucket.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(ow[0].bucket, role_create_bucket());
    }

    #[test]
    fn bad_values_are_rejected() {
        let mut c = EmulatorConfig {
            time_scale: 0.0,
            ..EmulatorConfig::default()
        };
        assert!(c.validate().unwrap_err().contains("time_scale"));
        c.time_scale = 1.0;
        c.route_buckets[0].method = "FETCH".into();
        assert!(c.validate().unwrap_err().contains("method"));
    }
}
