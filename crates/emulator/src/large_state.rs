//! `large_state`: the default guild grown to a chosen size (by default to
//! Discord's limits), for tests of scale: constant-call reads, limit errors,
//! plans over hundreds of objects. Deterministic, like `default_state`.

use super::default_state::{
    chan, default_state, fixed, fixed_webhook_token, ow, perms, role, sf, user,
};
use super::state::{
    Member, Onboarding, Prompt, PromptOption, State, Webhook, WelcomeChannel, WelcomeScreen,
};
use crate::automod::discord_mention_spam_rule;
use discord_permissions::Permissions;

/// Discord's limits (docs/discord.md §2.3, §5.4, §6).
const MAX_ROLES: usize = 250;
const MAX_CHANNELS: usize = 500;
const MAX_WEBHOOKS: usize = 1000;
const WEBHOOKS_PER_CHANNEL: usize = 15;
const MAX_PROMPTS: usize = 15;
const MAX_OPTIONS: usize = 50;

/// Children per generated category: below the limit of 50 so tests can still
/// add a channel to any category.
const CHILDREN_PER_CATEGORY: usize = 40;

// Id ranges (seconds after the default state's epoch) for generated objects.
const ROLE_IDS: u64 = 1_000;
const CHANNEL_IDS: u64 = 2_000;
const WEBHOOK_IDS: u64 = 3_000;
const AUTOMOD_IDS: u64 = 4_000;
const PROMPT_IDS: u64 = 5_000;
const OPTION_IDS: u64 = 6_000;
const USER_IDS: u64 = 10_000;

/// Sizes for [`large_state`]. Counts are totals, the default guild's objects
/// included; they are clamped to Discord's limits and to at least what the
/// default guild has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LargeStateOptions {
    /// Roles, @everyone included (limit 250).
    pub roles: usize,
    /// Channels, categories included (limit 500).
    pub channels: usize,
    /// Webhooks (limit 1000 per guild, 15 per channel).
    pub webhooks: usize,
    /// Members, the default guild's six included.
    pub members: usize,
    /// A community guild with a full welcome screen and an enabled onboarding
    /// of 15 prompts of 50 options.
    pub community: bool,
}

impl Default for LargeStateOptions {
    /// A guild at Discord's limits.
    fn default() -> Self {
        LargeStateOptions {
            roles: MAX_ROLES,
            channels: MAX_CHANNELS,
            webhooks: MAX_WEBHOOKS,
            members: 1000,
            community: true,
        }
    }
}

/// The default guild ("Ferris Fans") grown to `opts`:
/// - roles "Team 001"… below the default ones (the bot can manage them);
/// - categories "Area 01"… of up to 40 channels: text channels with topics,
///   every 8th a voice channel, every 10th an announcement channel in a
///   community; even areas hidden from @everyone and open to one team, their
///   children synced, every 6th child with an overwrite of its own;
/// - members "member0007"… with a team role and Member;
/// - webhooks "Feed 0001"… spread over the text channels, every 5th created by
///   the bot (so its token is visible to it), the rest by the owner;
/// - with `community`: COMMUNITY, rules and updates channels, the mention-spam AutoMod
///   rule Discord makes for community guilds, a welcome
///   screen of 5 channels and onboarding enabled with 15 prompts of 50 options.
pub fn large_state(opts: LargeStateOptions) -> State {
    let mut st = default_state();
    let bot_id = st.bot_user_id.clone();
    let g = &mut st.guilds[0];
    let gid = g.id.clone();
    let owner = g.owner_id.clone();
    let member_role = g
        .roles
        .iter()
        .find(|r| r.name == "Member")
        .map(|r| r.id.clone())
        .unwrap_or_else(|| gid.clone());

    // Roles: generated ones take positions 1..=n; the default ones move up.
    let extra_roles = opts.roles.clamp(g.roles.len(), MAX_ROLES) - g.roles.len();
    for r in g.roles.iter_mut().filter(|r| r.id != gid) {
        r.position += extra_roles as i64;
    }
    let moderation = perms(&["manage_messages", "moderate_members"]);
    let mut teams = Vec::new();
    for k in 1..=extra_roles {
        let p = if k.is_multiple_of(10) {
            moderation
        } else {
            Permissions::NONE
        };
        let color = (k as u32 * 0x0a1b2c) & 0xFF_FFFF;
        let mut r = role(
            ROLE_IDS + k as u64,
            &format!("Team {k:03}"),
            (extra_roles + 1 - k) as i64,
            p,
            color,
            k.is_multiple_of(25),
        );
        r.mentionable = k.is_multiple_of(7);
        teams.push(r.id.clone());
        g.roles.push(r);
    }
    let team = |i: usize| {
        if teams.is_empty() {
            member_role.clone()
        } else {
            teams[i % teams.len()].clone()
        }
    };

    // Channels.
    let target = opts.channels.clamp(g.channels.len(), MAX_CHANNELS);
    let first_position = g
        .channels
        .iter()
        .filter(|c| c.kind == 4)
        .map(|c| c.position + 1)
        .max()
        .unwrap_or(0);
    let view = Permissions::VIEW_CHANNEL;
    let send = Permissions::SEND_MESSAGES;
    let none = Permissions::NONE;
    let mut n = CHANNEL_IDS;
    let mut area = 0usize;
    while g.channels.len() < target {
        area += 1;
        n += 1;
        let cat_n = n;
        let mut cat = chan(cat_n, 4, &format!("Area {area:02}"), 0, None);
        cat.position = first_position + area as i64 - 1;
        if area.is_multiple_of(2) {
            cat.permission_overwrites =
                vec![ow(&gid, 0, none, view), ow(&team(area), 0, view, none)];
        }
        let cat_ows = cat.permission_overwrites.clone();
        g.channels.push(cat);
        let (mut text_pos, mut voice_pos) = (0, 0);
        for i in 1..=CHILDREN_PER_CATEGORY {
            if g.channels.len() >= target {
                break;
            }
            n += 1;
            let kind = if i.is_multiple_of(8) {
                2
            } else if i.is_multiple_of(10) && opts.community {
                5
            } else {
                0
            };
            let mut c = if kind == 2 {
                voice_pos += 1;
                chan(
                    n,
                    2,
                    &format!("Area {area} Voice {i}"),
                    voice_pos - 1,
                    Some(cat_n),
                )
            } else {
                text_pos += 1;
                let mut c = chan(
                    n,
                    kind,
                    &format!("area-{area:02}-{i:02}"),
                    text_pos - 1,
                    Some(cat_n),
                );
                c.topic = Some(format!("Channel {i} of area {area}"));
                c
            };
            c.permission_overwrites = cat_ows.clone();
            let own = team(area + i);
            if i.is_multiple_of(6) && !c.permission_overwrites.iter().any(|o| o.id == own) {
                c.permission_overwrites.push(ow(&own, 0, send, none));
            }
            g.channels.push(c);
        }
    }

    // Members.
    let base_members = g.members.len();
    let members = opts.members.max(base_members);
    for k in base_members + 1..=members {
        let u = user(USER_IDS + k as u64, &format!("member{k:04}"), false);
        g.members.push(Member {
            user_id: u.id.clone(),
            roles: vec![team(k), member_role.clone()],
            nick: None,
            joined_at: "2024-01-01T00:00:00.000000+00:00".into(),
        });
        st.users.push(u);
    }

    // Webhooks, round robin over the channels that have room.
    let holders: Vec<String> = g
        .channels
        .iter()
        .filter(|c| c.kind == 0)
        .map(|c| c.id.clone())
        .collect();
    let room = |g: &super::state::Guild, c: &str| {
        g.webhooks
            .iter()
            .filter(|w| w.channel_id.as_deref() == Some(c))
            .count()
            < WEBHOOKS_PER_CHANNEL
    };
    let want = opts.webhooks.clamp(g.webhooks.len(), MAX_WEBHOOKS);
    let mut k = 0usize;
    let mut misses = 0usize;
    while g.webhooks.len() < want && misses < holders.len() {
        let c = &holders[k % holders.len()];
        k += 1;
        if !room(g, c) {
            misses += 1;
            continue;
        }
        misses = 0;
        let id = WEBHOOK_IDS + k as u64;
        let by_bot = k.is_multiple_of(5);
        let creator = if by_bot { &bot_id } else { &owner };
        g.webhooks.push(Webhook {
            id: sf(id),
            kind: 1,
            channel_id: Some(c.clone()),
            name: format!("Feed {k:04}"),
            avatar: None,
            token: Some(fixed_webhook_token(id)),
            application_id: by_bot.then(|| bot_id.clone()),
            user_id: Some(creator.clone()),
            source_guild: None,
            source_channel: None,
        });
    }

    if opts.community {
        make_community(&mut st);
    }
    let last = USER_IDS + members as u64 + 1;
    st.snowflake.last = fixed(last.max(OPTION_IDS + (MAX_PROMPTS * MAX_OPTIONS) as u64 + 1));
    st
}

/// COMMUNITY with its settings, a welcome screen and an enabled onboarding
/// that meets Discord's requirements.
fn make_community(st: &mut State) {
    let g = &mut st.guilds[0];
    let id_of = |name: &str| {
        g.channels
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.id.clone())
            .unwrap_or_default()
    };
    let (rules, updates) = (id_of("rules"), id_of("mod-log"));
    let welcome: Vec<String> = ["welcome", "rules", "faq", "general", "help"]
        .iter()
        .map(|n| id_of(n))
        .collect();
    for f in ["COMMUNITY", "NEWS", "WELCOME_SCREEN_ENABLED"] {
        if !g.has_feature(f) {
            g.features.push(f.to_owned());
        }
    }
    g.rules_channel_id = Some(rules);
    g.public_updates_channel_id = Some(updates);
    g.explicit_content_filter = 2;
    g.auto_moderation_rules
        .push(discord_mention_spam_rule(sf(AUTOMOD_IDS)));
    g.welcome_screen = WelcomeScreen {
        description: Some("Welcome to Ferris Fans, where Rustaceans gather.".into()),
        welcome_channels: welcome
            .iter()
            .zip(["Say hi", "Read these first", "Answers", "Chat", "Ask"])
            .map(|(c, d)| WelcomeChannel {
                channel_id: c.clone(),
                description: d.into(),
                emoji_id: None,
                emoji_name: Some("🦀".into()),
            })
            .collect(),
    };
    // Default channels: the default guild's public ones, then public areas.
    let mut defaults: Vec<String> = [
        "welcome",
        "rules",
        "general",
        "off-topic",
        "memes",
        "help",
        "bot-spam",
    ]
    .iter()
    .map(|n| id_of(n))
    .collect();
    let text: Vec<String> = g
        .channels
        .iter()
        .filter(|c| c.kind == 0 && c.permission_overwrites.is_empty())
        .map(|c| c.id.clone())
        .collect();
    for c in text.iter().take(30) {
        if !defaults.contains(c) {
            defaults.push(c.clone());
        }
    }
    let roles: Vec<String> = g
        .roles
        .iter()
        .filter(|r| r.name.starts_with("Team "))
        .map(|r| r.id.clone())
        .collect();
    let mut prompts = Vec::new();
    for p in 0..MAX_PROMPTS {
        let options = (0..MAX_OPTIONS)
            .map(|o| {
                let k = p * MAX_OPTIONS + o;
                PromptOption {
                    id: sf(OPTION_IDS + k as u64),
                    title: format!("Option {}", o + 1),
                    description: o
                        .is_multiple_of(2)
                        .then(|| format!("Choice {} of question {}", o + 1, p + 1)),
                    channel_ids: text
                        .get(k % text.len().max(1))
                        .cloned()
                        .into_iter()
                        .collect(),
                    role_ids: roles
                        .get(k % roles.len().max(1))
                        .cloned()
                        .into_iter()
                        .collect(),
                    emoji_id: None,
                    emoji_name: o.is_multiple_of(3).then(|| "🦀".to_owned()),
                    emoji_animated: false,
                }
            })
            .collect();
        prompts.push(Prompt {
            id: sf(PROMPT_IDS + p as u64),
            kind: (p % 2) as u8,
            title: format!("Question {}", p + 1),
            options,
            single_select: p.is_multiple_of(3),
            required: p == 0,
            in_onboarding: true,
        });
    }
    g.onboarding = Onboarding {
        enabled: true,
        mode: 0,
        default_channel_ids: defaults,
        prompts,
    };
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::onboarding::meets_requirements;

    #[test]
    fn the_default_is_a_guild_at_discords_limits() {
        let st = large_state(LargeStateOptions::default());
        let g = &st.guilds[0];
        assert_eq!(g.roles.len(), MAX_ROLES);
        assert_eq!(g.channels.len(), MAX_CHANNELS);
        assert_eq!(g.webhooks.len(), MAX_WEBHOOKS);
        assert_eq!(g.members.len(), 1000);
        // The default guild's two banned users are users but not members.
        assert_eq!(st.users.len(), 1002);
        assert_eq!(g.onboarding.prompts.len(), MAX_PROMPTS);
        assert!(
            g.onboarding
                .prompts
                .iter()
                .all(|p| p.options.len() == MAX_OPTIONS)
        );
        assert!(g.onboarding.enabled);
        assert!(meets_requirements(g, &g.onboarding, &st.config));
        assert_eq!(g.welcome_screen.welcome_channels.len(), 5);
        assert!(g.has_feature("COMMUNITY") && g.has_feature("WELCOME_SCREEN_ENABLED"));
        assert!(g.channels.iter().any(|c| c.kind == 5));
        assert_eq!(
            large_state(LargeStateOptions::default()),
            st,
            "deterministic"
        );
    }

    #[test]
    fn generated_objects_are_consistent() {
        let st = large_state(LargeStateOptions::default());
        let g = &st.guilds[0];
        // The community guild carries the rule Discord makes, made by Discord itself.
        let rules: Vec<(&str, u8, &str)> = g
            .auto_moderation_rules
            .iter()
            .filter(|r| r.trigger_type == 5)
            .map(|r| (r.name.as_str(), r.trigger_type, r.creator_id.as_str()))
            .collect();
        assert_eq!(
            rules,
            [("Block Mention Spam", 5, crate::DISCORD_SYSTEM_USER_ID)]
        );
        let mut ids = HashSet::new();
        let all = g
            .roles
            .iter()
            .map(|r| &r.id)
            .chain(g.channels.iter().map(|c| &c.id))
            .chain(g.webhooks.iter().map(|w| &w.id))
            .chain(g.auto_moderation_rules.iter().map(|r| &r.id))
            .chain(st.users.iter().map(|u| &u.id))
            .chain(g.onboarding.prompts.iter().map(|p| &p.id))
            .chain(
                g.onboarding
                    .prompts
                    .iter()
                    .flat_map(|p| &p.options)
                    .map(|o| &o.id),
            );
        for id in all {
            // @everyone shares the guild's id, the only allowed repeat.
            assert!(ids.insert(id.clone()) || *id == g.id, "id {id} repeated");
            assert!(id.parse::<u64>().is_ok_and(|n| n < st.snowflake.last));
        }
        // Positions 1..=n for the non-@everyone roles, each once.
        let mut pos: Vec<i64> = g
            .roles
            .iter()
            .filter(|r| r.id != g.id)
            .map(|r| r.position)
            .collect();
        pos.sort_unstable();
        assert_eq!(pos, (1..MAX_ROLES as i64).collect::<Vec<_>>());
        // The bot's role stays above every generated role.
        let bot_pos = g
            .roles
            .iter()
            .find(|r| r.name == "guildctl")
            .unwrap()
            .position;
        assert!(
            g.roles
                .iter()
                .filter(|r| r.name.starts_with("Team "))
                .all(|r| r.position < bot_pos)
        );
        for c in g.channels.iter().filter(|c| c.kind == 4) {
            let children = g
                .channels
                .iter()
                .filter(|x| x.parent_id.as_ref() == Some(&c.id))
                .count();
            assert!(children <= 49, "{} has {children}", c.name);
        }
        for c in &g.channels {
            let n = g
                .webhooks
                .iter()
                .filter(|w| w.channel_id.as_ref() == Some(&c.id))
                .count();
            assert!(n <= WEBHOOKS_PER_CHANNEL);
            let mut ow: Vec<&str> = c
                .permission_overwrites
                .iter()
                .map(|o| o.id.as_str())
                .collect();
            ow.sort_unstable();
            ow.dedup();
            assert_eq!(
                ow.len(),
                c.permission_overwrites.len(),
                "{} repeats an overwrite",
                c.name
            );
            assert!(
                c.permission_overwrites
                    .iter()
                    .all(|o| g.role(&o.id).is_some())
            );
        }
        for id in g.onboarding.default_channel_ids.iter().chain(
            g.onboarding
                .prompts
                .iter()
                .flat_map(|p| &p.options)
                .flat_map(|o| &o.channel_ids),
        ) {
            assert!(g.channel(id).is_some());
        }
        let text = serde_json::to_string(&st).unwrap();
        let back: State = serde_json::from_str(&text).unwrap();
        assert_eq!(back, st, "round-trips through the state format");
    }

    #[test]
    fn sizes_are_totals_clamped_to_the_default_guild_and_the_limits() {
        let small = LargeStateOptions {
            roles: 20,
            channels: 40,
            webhooks: 10,
            members: 12,
            community: false,
        };
        let st = large_state(small);
        let g = &st.guilds[0];
        assert_eq!(
            (
                g.roles.len(),
                g.channels.len(),
                g.webhooks.len(),
                g.members.len()
            ),
            (20, 40, 10, 12)
        );
        assert!(!g.has_feature("COMMUNITY"));
        assert!(
            g.channels.iter().all(|c| c.kind != 5),
            "no NEWS, no announcements"
        );
        assert_eq!(g.onboarding, Onboarding::default());

        let tiny = large_state(LargeStateOptions {
            roles: 1,
            channels: 1,
            webhooks: 0,
            members: 0,
            community: false,
        });
        let d = default_state();
        assert_eq!(tiny.guilds[0].roles, d.guilds[0].roles);
        assert_eq!(tiny.guilds[0].channels, d.guilds[0].channels);
        let huge = large_state(LargeStateOptions {
            roles: 10_000,
            channels: 10_000,
            webhooks: 10_000,
            members: 0,
            community: false,
        });
        let g = &huge.guilds[0];
        assert_eq!(
            (g.roles.len(), g.channels.len(), g.webhooks.len()),
            (250, 500, 1000)
        );
    }
}
