//! The default state: "Ferris Fans", a guild that grew by hand (not community
//! yet), with fixed ids so runs are deterministic.

use serde_json::json;

use super::state::{
    ActionMetadata, AutoModAction, AutoModRule, Ban, Channel, Emoji, EmulatorConfig, Guild,
    Integration, IntegrationApplication, Invite, Member, MemberDetails, Onboarding, Overwrite,
    RecurrenceRule, Role, ScheduledEvent, SnowflakeGen, Sound, State, Sticker, Thread,
    TriggerMetadata, User, Webhook, WelcomeScreen,
};
use discord_permissions::Permissions;

/// A fixed snowflake: 2021-06-01T00:00:00Z plus `n` seconds.
pub(super) fn sf(n: u64) -> String {
    fixed(n).to_string()
}

pub(super) fn fixed(n: u64) -> u64 {
    const START_MS: u64 = 1_622_505_600_000 - super::state::DISCORD_EPOCH_MS;
    (START_MS + n * 1000) << 22
}

pub(super) fn perms(names: &[&str]) -> Permissions {
    names
        .iter()
        .filter_map(|n| Permissions::from_name(n))
        .fold(Permissions::NONE, |a, b| a | b)
}

pub(super) fn role(
    n: u64,
    name: &str,
    position: i64,
    p: Permissions,
    color: u32,
    hoist: bool,
) -> Role {
    Role {
        id: sf(n),
        name: name.into(),
        permissions: p,
        position,
        color,
        secondary_color: None,
        tertiary_color: None,
        hoist,
        managed: false,
        mentionable: false,
        icon: None,
        unicode_emoji: None,
        flags: 0,
        tags: None,
    }
}

pub(super) fn ow(id: &str, kind: u8, allow: Permissions, deny: Permissions) -> Overwrite {
    Overwrite {
        id: id.into(),
        kind,
        allow,
        deny,
    }
}

pub(super) fn chan(n: u64, kind: u8, name: &str, position: i64, parent: Option<u64>) -> Channel {
    let voice = matches!(kind, 2 | 13);
    Channel {
        id: sf(n),
        kind,
        name: name.into(),
        position,
        parent_id: parent.map(sf),
        permission_overwrites: Vec::new(),
        topic: None,
        nsfw: false,
        flags: 0,
        rate_limit_per_user: if kind == 4 { None } else { Some(0) },
        bitrate: voice.then_some(64000),
        user_limit: voice.then_some(0),
        rtc_region: None,
        video_quality_mode: None,
        default_auto_archive_duration: None,
        default_thread_rate_limit_per_user: None,
        available_tags: Vec::new(),
        default_reaction_emoji: None,
        default_sort_order: None,
        default_forum_layout: 0,
    }
}

pub(super) fn user(n: u64, name: &str, bot: bool) -> User {
    User {
        id: sf(n),
        username: name.into(),
        discriminator: "0".into(),
        global_name: (!bot).then(|| {
            let mut c = name.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }),
        avatar: None,
        bot,
        public_flags: 0,
    }
}

pub fn default_state() -> State {
    let gid = sf(0);
    // Users.
    let ferris = user(1, "ferris", false);
    let bot = user(2, "guildctl", true);
    let alice = user(3, "alice", false);
    let bob = user(4, "bob", false);
    let carol = user(5, "carol", false);
    let dave = user(6, "dave", false);
    // More members, so that rosters have holders to show (erin is a second moderator,
    // given the role by hand), and two users banned by hand who are no longer members.
    let erin = user(7, "erin", false);
    let frank = user(8, "frank", false);
    let grace = user(9, "grace", false);
    let heidi = user(18, "heidi", false);
    let ivan = user(19, "ivan", false);
    let spammer = user(20, "free_nitro_4u", false);
    let raider = user(21, "raid_leader", false);

    // Roles, highest first (ids 10..).
    let everyone_perms = perms(&[
        "create_instant_invite",
        "add_reactions",
        "stream",
        "view_channel",
        "send_messages",
        "embed_links",
        "attach_files",
        "read_message_history",
        "use_external_emojis",
        "connect",
        "speak",
        "use_vad",
        "change_nickname",
        "use_application_commands",
        "create_public_threads",
        "send_messages_in_threads",
    ]);
    let admin = role(10, "Admin", 8, Permissions::ADMINISTRATOR, 0xE74C3C, true);
    let mut bot_role = role(11, "guildctl", 7, Permissions::ADMINISTRATOR, 0, false);
    bot_role.managed = true;
    bot_role.tags = Some(json!({ "bot_id": bot.id }));
    let moderator = role(
        12,
        "Moderator",
        6,
        perms(&[
            "kick_members",
            "ban_members",
            "view_audit_log",
            "manage_messages",
            "mute_members",
            "deafen_members",
            "move_members",
            "manage_nicknames",
            "manage_threads",
            "moderate_members",
        ]),
        0x3498DB,
        true,
    );
    let helper = role(
        13,
        "Helper",
        5,
        perms(&["manage_messages", "manage_threads"]),
        0x2ECC71,
        true,
    );
    let contributor = role(14, "Contributor", 4, Permissions::NONE, 0xF1C40F, false);
    let mut booster = role(15, "Server Booster", 3, Permissions::NONE, 0xF47FFF, false);
    booster.managed = true;
    booster.tags = Some(json!({ "premium_subscriber": null }));
    let member = role(16, "Member", 2, Permissions::NONE, 0, false);
    let muted = role(17, "Muted", 1, Permissions::NONE, 0x95A5A6, false);
    let mut everyone = role(0, "@everyone", 0, everyone_perms, 0, false);
    everyone.id = gid.clone();

    let view = Permissions::VIEW_CHANNEL;
    let send = Permissions::SEND_MESSAGES;
    let none = Permissions::NONE;
    let speak = perms(&["speak"]);
    let attach = perms(&["attach_files"]);

    // Channels (ids 30..).
    let info_ows = vec![ow(&gid, 0, none, send)];
    let general_ows = vec![ow(&muted.id, 0, none, send | speak)];
    let staff_ows = vec![ow(&gid, 0, none, view), ow(&moderator.id, 0, view, none)];

    let mut channels = Vec::new();
    let mut c = chan(30, 4, "Information", 0, None);
    c.permission_overwrites = info_ows.clone();
    channels.push(c);
    for (n, name, pos, topic) in [
        (31, "welcome", 0, "Say hi!"),
        (32, "rules", 1, "Read these first"),
        (33, "faq", 2, "Frequently asked questions"),
    ] {
        let mut c = chan(n, 0, name, pos, Some(30));
        c.topic = Some(topic.into());
        c.permission_overwrites = info_ows.clone();
        channels.push(c);
    }
    let mut c = chan(34, 4, "General", 1, None);
    c.permission_overwrites = general_ows.clone();
    channels.push(c);
    for (n, kind, name, pos) in [
        (35, 0, "general", 0),
        (36, 0, "off-topic", 1),
        (37, 0, "memes", 2),
        (38, 2, "Lounge", 0),
        (39, 2, "Gaming", 1),
    ] {
        let mut c = chan(n, kind, name, pos, Some(34));
        c.permission_overwrites = general_ows.clone();
        if name == "memes" {
            // Hand-edited once: no longer synced with General.
            c.permission_overwrites
                .push(ow(&contributor.id, 0, attach, none));
            c.rate_limit_per_user = Some(10);
        }
        channels.push(c);
    }
    channels.push(chan(40, 4, "Help", 2, None));
    let mut c = chan(41, 0, "help", 0, Some(40));
    c.topic = Some("Ask anything about Rust".into());
    channels.push(c);
    let mut c = chan(42, 0, "showcase", 1, Some(40));
    c.permission_overwrites = vec![ow(&gid, 0, none, send), ow(&contributor.id, 0, send, none)];
    channels.push(c);
    let mut c = chan(43, 4, "Staff", 3, None);
    c.permission_overwrites = staff_ows.clone();
    channels.push(c);
    let mut c = chan(44, 0, "mod-chat", 0, Some(43));
    c.permission_overwrites = staff_ows.clone();
    channels.push(c);
    let mut c = chan(45, 0, "mod-log", 1, Some(43));
    c.permission_overwrites = vec![
        ow(&gid, 0, none, view),
        ow(&moderator.id, 0, view, send),
        ow(&admin.id, 0, view | send, none),
    ];
    channels.push(c);
    channels.push(chan(46, 0, "bot-spam", 0, None));
    channels.push(chan(47, 2, "AFK", 0, None));

    let members = vec![
        Member {
            user_id: ferris.id.clone(),
            roles: vec![admin.id.clone()],
            nick: None,
            joined_at: "2021-06-01T00:00:00.000000+00:00".into(),
        },
        Member {
            user_id: bot.id.clone(),
            roles: vec![bot_role.id.clone()],
            nick: None,
            joined_at: "2021-06-02T10:00:00.000000+00:00".into(),
        },
        Member {
            user_id: alice.id.clone(),
            roles: vec![moderator.id.clone(), member.id.clone()],
            nick: Some("Alice (mod)".into()),
            joined_at: "2021-06-03T09:30:00.000000+00:00".into(),
        },
        Member {
            user_id: bob.id.clone(),
            roles: vec![helper.id.clone(), member.id.clone()],
            nick: None,
            joined_at: "2021-07-11T18:12:00.000000+00:00".into(),
        },
        Member {
            user_id: carol.id.clone(),
            roles: vec![
                contributor.id.clone(),
                booster.id.clone(),
                member.id.clone(),
            ],
            nick: None,
            joined_at: "2022-01-20T08:45:00.000000+00:00".into(),
        },
        Member {
            user_id: dave.id.clone(),
            roles: vec![muted.id.clone(), member.id.clone()],
            nick: None,
            joined_at: "2023-03-05T21:00:00.000000+00:00".into(),
        },
        Member {
            user_id: erin.id.clone(),
            roles: vec![moderator.id.clone(), member.id.clone()],
            nick: None,
            joined_at: "2023-08-14T16:20:00.000000+00:00".into(),
        },
        Member {
            user_id: frank.id.clone(),
            roles: vec![helper.id.clone(), member.id.clone()],
            nick: None,
            joined_at: "2024-02-02T11:00:00.000000+00:00".into(),
        },
        Member {
            user_id: grace.id.clone(),
            roles: vec![contributor.id.clone(), member.id.clone()],
            nick: None,
            joined_at: "2024-05-30T07:45:00.000000+00:00".into(),
        },
        Member {
            user_id: heidi.id.clone(),
            roles: vec![member.id.clone()],
            nick: None,
            joined_at: "2024-09-09T19:10:00.000000+00:00".into(),
        },
        Member {
            user_id: ivan.id.clone(),
            roles: vec![member.id.clone()],
            nick: None,
            joined_at: "2025-01-12T13:30:00.000000+00:00".into(),
        },
    ];
    let bans = vec![
        Ban {
            user_id: spammer.id.clone(),
            reason: Some("Spam links in #general".into()),
        },
        Ban {
            user_id: raider.id.clone(),
            reason: None,
        },
    ];

    // Webhooks (ids 50..): two made by hand, one following an announcement
    // channel elsewhere, one that guildctl's bot created earlier (the only
    // one whose token the bot may see, §6).
    let webhook = |n: u64, name: &str, channel: u64, creator: &User, app: bool| Webhook {
        id: sf(n),
        kind: 1,
        channel_id: Some(sf(channel)),
        name: name.into(),
        avatar: None,
        token: Some(fixed_webhook_token(n)),
        application_id: app.then(|| creator.id.clone()),
        user_id: Some(creator.id.clone()),
        source_guild: None,
        source_channel: None,
    };
    let mut follower = webhook(52, "Rust Blog #announcements", 35, &ferris, false);
    follower.kind = 2;
    follower.token = None;
    follower.source_guild = Some(
        json!({"id": "273534239310479360", "name": "Rust Programming Language", "icon": null}),
    );
    follower.source_channel = Some(json!({"id": "273541522815713281", "name": "announcements"}));
    let webhooks = vec![
        webhook(50, "GitHub", 46, &ferris, false),
        webhook(51, "Mod Mail", 45, &alice, false),
        follower,
        webhook(53, "CI", 46, &bot, true),
    ];

    // Integrations (ids 60..): guildctl's own bot, and an app with commands only
    // (no bot user, no role).
    let integration = |n: u64, name: &str, app_id: &str, bot_id: Option<&str>, by: &User| {
        let mut scopes = vec!["applications.commands".to_owned()];
        if bot_id.is_some() {
            scopes.insert(0, "bot".to_owned());
        }
        Integration {
            id: sf(n),
            name: name.into(),
            kind: "discord".into(),
            enabled: true,
            application: Some(IntegrationApplication {
                id: app_id.into(),
                name: name.into(),
                icon: None,
                description: String::new(),
                bot_id: bot_id.map(str::to_owned),
            }),
            account: None,
            user_id: Some(by.id.clone()),
            scopes,
            role_id: None,
        }
    };
    let integrations = vec![
        integration(60, "guildctl", &bot.id, Some(&bot.id), &ferris),
        integration(61, "Ferris Polls", &sf(62), None, &alice),
    ];
    // Invites: one that never expires nor runs out, made by hand long ago, and one
    // limited to 100 uses.
    let invite = |code: &str, channel: u64, by: &User, uses: u32, max_uses: u32| Invite {
        code: code.into(),
        channel_id: sf(channel),
        inviter_id: Some(by.id.clone()),
        uses,
        max_uses,
        max_age: 0,
        temporary: false,
        created_at: "2021-06-02T10:00:00.000000+00:00".into(),
        flags: 0,
        target_user_ids: Vec::new(),
        target_users_job: None,
    };
    let invites = vec![
        invite("ferrisfans", 31, &ferris, 412, 0),
        invite("helpdesk", 41, &alice, 12, 100),
    ];

    let guild = Guild {
        id: gid.clone(),
        name: "Ferris Fans".into(),
        owner_id: ferris.id.clone(),
        icon: None,
        description: None,
        home_header: None,
        splash: None,
        discovery_splash: None,
        banner: None,
        features: vec!["ANIMATED_ICON".into(), "INVITE_SPLASH".into()],
        application_id: None,
        region: "deprecated".into(),
        afk_channel_id: Some(sf(47)),
        afk_timeout: 300,
        system_channel_id: Some(sf(35)),
        system_channel_flags: 0,
        widget_enabled: true,
        widget_channel_id: Some(sf(31)),
        verification_level: 1,
        default_message_notifications: 1,
        mfa_level: 0,
        explicit_content_filter: 0,
        max_presences: None,
        max_members: 500_000,
        max_stage_video_channel_users: 50,
        max_video_channel_users: 25,
        vanity_url_code: None,
        premium_tier: 1,
        premium_subscription_count: 3,
        preferred_locale: "en-US".into(),
        rules_channel_id: None,
        safety_alerts_channel_id: None,
        public_updates_channel_id: None,
        premium_progress_bar_enabled: false,
        nsfw: false,
        nsfw_level: 0,
        incidents_data: None,
        roles: vec![
            admin,
            bot_role,
            moderator,
            helper,
            contributor,
            booster,
            member,
            muted,
            everyone,
        ],
        channels,
        members,
        bans,
        audit_log: Vec::new(),
        // Welcome screen and onboarding need COMMUNITY, which this guild lacks.
        welcome_screen: WelcomeScreen::default(),
        onboarding: Onboarding::default(),
        webhooks,
        images: Default::default(),
        integrations,
        invites,
        vanity_uses: 0,
        // bob sits in Lounge and dave in Gaming (voice state), so mute, deafen and
        // moves have someone to act on; carol boosts since she joined.
        member_details: [
            (sf(4), in_voice(38)),
            (sf(6), in_voice(39)),
            (
                sf(5),
                MemberDetails {
                    premium_since: Some("2022-01-20T09:00:00.000000+00:00".into()),
                    ..MemberDetails::default()
                },
            ),
        ]
        .into_iter()
        .collect(),
        // A question in #help still open, and an old thread of #general, archived.
        threads: vec![
            thread(
                70,
                41,
                "Why does the borrow checker hate me?",
                &sf(5),
                false,
            ),
            thread(71, 35, "Release party 2024", &sf(3), true),
        ],
        messages: Vec::new(),
        // The rest of the guild (ids 80..): expressions, an AutoMod rule and an event,
        // made by hand.
        emojis: vec![
            emoji(80, "ferris_wave", &ferris, false, DOT_PNG),
            emoji(81, "party_crab", &alice, true, DOT_GIF),
        ],
        stickers: vec![Sticker {
            id: sf(82),
            name: "ferris".into(),
            description: Some("Ferris waving".into()),
            tags: "crab".into(),
            format_type: 1,
            available: true,
            user_id: Some(ferris.id.clone()),
            file: Some(FERRIS_STICKER_PNG.into()),
        }],
        soundboard_sounds: vec![Sound {
            sound_id: sf(83),
            name: "airhorn".into(),
            volume: 0.8,
            emoji_id: None,
            emoji_name: Some("📯".into()),
            available: true,
            user_id: Some(alice.id.clone()),
            sound: Some(silent_mp3(38)),
        }],
        auto_moderation_rules: vec![AutoModRule {
            id: sf(84),
            name: "No invite links".into(),
            creator_id: ferris.id.clone(),
            event_type: 1,
            trigger_type: 1,
            trigger_metadata: TriggerMetadata {
                keyword_filter: vec!["discord.gg/*".into()],
                ..TriggerMetadata::default()
            },
            actions: vec![
                AutoModAction {
                    kind: 1,
                    metadata: ActionMetadata {
                        custom_message: Some("Invites are not allowed here".into()),
                        ..ActionMetadata::default()
                    },
                },
                AutoModAction {
                    kind: 2,
                    metadata: ActionMetadata {
                        channel_id: Some(sf(45)),
                        ..ActionMetadata::default()
                    },
                },
            ],
            enabled: true,
            exempt_roles: vec![sf(12)],
            exempt_channels: Vec::new(),
        }],
        // Weekly office hours in Lounge, on Wednesdays, from 2030.
        scheduled_events: vec![ScheduledEvent {
            id: sf(85),
            channel_id: Some(sf(38)),
            creator_id: Some(ferris.id.clone()),
            name: "Office hours".into(),
            description: Some("Ask the maintainers anything".into()),
            scheduled_start_time: "2030-01-02T18:00:00.000000+00:00".into(),
            scheduled_end_time: Some("2030-01-02T19:00:00.000000+00:00".into()),
            privacy_level: 2,
            status: 1,
            entity_type: 2,
            entity_id: None,
            entity_metadata: None,
            image: None,
            recurrence_rule: Some(RecurrenceRule {
                start: "2030-01-02T18:00:00.000000+00:00".into(),
                end: None,
                frequency: 2,
                interval: 1,
                by_weekday: Some(vec![2]),
                by_n_weekday: None,
                by_month: None,
                by_month_day: None,
                by_year_day: None,
                count: None,
            }),
            user_count: 4,
        }],
    };

    State {
        guilds: vec![guild],
        bot_user_id: bot.id.clone(),
        users: vec![
            ferris, bot, alice, bob, carol, dave, erin, frank, grace, heidi, ivan, spammer, raider,
        ],
        tokens: Vec::new(),
        snowflake: SnowflakeGen {
            last: fixed(100),
            ..SnowflakeGen::default()
        },
        config: EmulatorConfig::default(),
        application: Default::default(),
        user_tokens: Vec::new(),
    }
}

/// A 1×1 PNG and a 1×1 GIF: the default emoji's images.
const DOT_PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const DOT_GIF: &str =
    "data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
/// A 320×320 PNG (an orange disc): the default sticker's file, base64.
const FERRIS_STICKER_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAUAAAAFAAQMAAAD3XjfpAAAABlBMVEX3TAD///8wTQM0AAAAAnRSTlP/AOW3MEoAAAK6SURBVHja7ZpBkqMwEASL4MCRJ/AUnuZ5mp7CEzhycLC747GRZIeqS4RYxjPSOQ90tgib7sIf8aCCFaxgErxoIP6diwB+fIKwwfnGobPAFfczGuD0AFsDxHYuFFw82FPQebBh4IrgjARcQrAnoAvBhoCIziUJXmNwSIJTDLZJ8CMGkQSfuOghkX7E+CHxesP86RKgewabBAiQh0Si0S/tRqLRL+0GqSWqBqSWqBqk+xL3BqyWsBqk+xL3BqyWsBqk7tjzTQMrOiwbtOigbNCig7JBiw7KBul01G1QO4EfUDuBH1A7gR9wO94P0u9B/DaAa/QiwTV6keAavUhwjV4kuEYvElyjFwlD4yYShsZNJAyNm0gYGjeRMDRuImFo3ETmglMabCPQpcEmAtO+H8Zh+X4YzwRXBo4BeGXgsAdcGNgH4MzAbg84MbANQMfAZg/IWn1vNswO3nuYB64cHPPBKweHfHDhYJ8PzhzsNnDiYJsPOg42B4L8ln3dszzQ4G73LAtcLXA8DLxa4JALLhbYHwbOFtgdBk4W2B4GOgtsDgOtV+b20pwMmtzna/gm4GqD49uAVxscfjG42GBfwQr+L3C2wa56rOC3A+vvDAV/1H+KH/Vv7y3+Xp/49XHiN9eJX5onfl+XHxacOPkoP8Y5YNR04tys/BBQnj+WH32WH8+WHyGXH3PrE3Zn3olccDLvxGErDXmbUn6RI++Qyq+v9M2ZszqYvd0rv1iUd5ryllTeu8qbXH037Azf+ftreSMu79jlrb2cA5CTBXpWwXGNO/IUckJDznzIKRI5lyInXfTszETt7Mn3yIkhOYMkp5r0nJScvJKzXHI6TM6b6Qk2ORMnp+zk3J6eBJxSd2x3WlHOP+qJSjmjKac+5RypnkyVs656elbO48oJXz0zrKeQ9VxzzYdX8DeCfwExcdaLd+npEAAAAABJRU5ErkJggg==";

/// Emoji `n`, made by `by`.
fn emoji(n: u64, name: &str, by: &User, animated: bool, image: &str) -> Emoji {
    Emoji {
        id: sf(n),
        name: name.into(),
        roles: Vec::new(),
        user_id: Some(by.id.clone()),
        require_colons: true,
        managed: false,
        animated,
        available: true,
        image: Some(image.into()),
    }
}

/// `frames` frames of silence, MPEG-1 layer III at 128 kbit/s (26 ms each), as a data URI.
fn silent_mp3(frames: usize) -> String {
    use base64::Engine;
    let mut frame = vec![0u8; 417];
    frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
    let bytes = frame.repeat(frames);
    format!(
        "data:audio/mpeg;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A member connected to voice channel `n`.
fn in_voice(n: u64) -> MemberDetails {
    MemberDetails {
        voice_channel_id: Some(sf(n)),
        ..MemberDetails::default()
    }
}

/// A public thread `n` of channel `parent`, started by `owner`, who joined it.
fn thread(n: u64, parent: u64, name: &str, owner: &str, archived: bool) -> Thread {
    Thread {
        id: sf(n),
        kind: 11,
        parent_id: sf(parent),
        name: name.into(),
        owner_id: owner.into(),
        archived,
        locked: false,
        auto_archive_duration: 1440,
        archive_timestamp: Some("2024-06-01T12:00:00.000000+00:00".into()),
        applied_tags: Vec::new(),
        flags: 0,
        rate_limit_per_user: 0,
        member_ids: vec![owner.into()],
        total_message_sent: 3,
    }
}

/// A fixed 68-character webhook token, so the default state is deterministic.
pub(super) fn fixed_webhook_token(n: u64) -> String {
    use sha2::{Digest, Sha256};
    let a = Sha256::digest(format!("ferris-fans-webhook-{n}"));
    let b = Sha256::digest(a);
    let mut t = super::b64url(&a) + &super::b64url(&b);
    t.truncate(68);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_real_snowflakes_and_everyone_is_the_guild() {
        let st = default_state();
        let g = &st.guilds[0];
        assert!((17..=19).contains(&g.id.len()));
        assert_eq!(g.everyone().map(|r| r.name.as_str()), Some("@everyone"));
        assert_eq!(g.roles.len(), 9);
        assert_eq!(g.channels.len(), 18);
        assert_eq!(default_state(), st, "deterministic");
    }

    #[test]
    fn the_rest_of_the_guild_keeps_the_routes_own_rules() {
        use crate::media;
        let st = default_state();
        let g = &st.guilds[0];
        for e in &g.emojis {
            let d = media::data_uri(e.image.as_deref().unwrap()).unwrap();
            let format = media::image_format(&d.bytes).expect("an emoji image");
            assert_eq!(
                media::is_animated(&d.bytes, format),
                e.animated,
                "{}",
                e.name
            );
        }
        let file = crate::media::decode_base64(g.stickers[0].file.as_deref().unwrap()).unwrap();
        let sticker = media::sticker_file(&file).unwrap();
        assert_eq!((sticker.format_type, sticker.size), (1, Some((320, 320))));
        let sound = media::data_uri(g.soundboard_sounds[0].sound.as_deref().unwrap()).unwrap();
        let (format, seconds) = media::audio(&sound.bytes).unwrap();
        assert_eq!(format, media::AudioFormat::Mp3);
        assert!(seconds > 0.9 && seconds <= 5.2, "{seconds}");
        let rule = &g.auto_moderation_rules[0];
        let alert = rule.actions[1].metadata.channel_id.as_deref().unwrap();
        assert_eq!(g.channel(alert).map(|c| c.kind), Some(0));
        assert!(rule.exempt_roles.iter().all(|r| g.role(r).is_some()));
        let event = &g.scheduled_events[0];
        let channel = g.channel(event.channel_id.as_deref().unwrap()).unwrap();
        assert_eq!(
            (event.entity_type, channel.kind),
            (2, 2),
            "a voice event in a voice channel"
        );
        // Every id is below the generator's last, so new ones never collide.
        for id in [
            &g.emojis[0].id,
            &g.stickers[0].id,
            &g.soundboard_sounds[0].sound_id,
            &rule.id,
            &event.id,
        ] {
            assert!(id.parse::<u64>().unwrap() < st.snowflake.last);
        }
    }

    #[test]
    fn webhooks_live_in_text_channels_and_the_widget_points_at_one() {
        let st = default_state();
        let g = &st.guilds[0];
        assert_eq!(g.webhooks.len(), 4);
        for w in &g.webhooks {
            let c = w.channel_id.as_deref().and_then(|c| g.channel(c));
            assert!(
                c.is_some_and(|c| c.kind == 0),
                "{} in a text channel",
                w.name
            );
            assert!(w.kind == 2 || w.token.as_ref().is_some_and(|t| t.len() == 68));
        }
        let widget = g.widget_channel_id.as_deref().and_then(|c| g.channel(c));
        assert_eq!(widget.map(|c| c.name.as_str()), Some("welcome"));
        // Only the webhook guildctl created is the bot's application's.
        let own: Vec<&str> = g
            .webhooks
            .iter()
            .filter(|w| w.application_id.as_deref() == Some(st.bot_user_id.as_str()))
            .map(|w| w.name.as_str())
            .collect();
        assert_eq!(own, ["CI"]);
    }
}
