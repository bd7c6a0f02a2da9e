//! Every call guildctl makes to change a guild, as a type (twilight's `Route`): a route
//! knows its method, its path, whether Discord records an audit-log reason for it, its
//! rate-limit bucket and the guild permissions it needs. Nothing is read back from a path's
//! text.
//!
//! A route is generic over its ids: a plan's routes may name an object an earlier call of
//! the run creates (`plan::IdRef`), and apply resolves them to `Route<String>`, the only
//! routes [`super::Client::call`] sends.

use std::fmt::Display;

use reqwest::Method;
use serde::{Deserialize, Serialize};

use super::ratelimit;
use discord_permissions::Permissions;

/// A write guildctl makes. Each variant is one of Discord's routes, named as Discord's
/// reference names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route<I = String> {
    /// Create Guild Role: `POST /guilds/{guild}/roles` (docs/discord.md §3.2).
    CreateRole {
        /// The guild.
        guild: I,
    },
    /// The bulk reorder of the roles.
    UpdateRolePositions {
        /// The guild.
        guild: I,
    },
    /// Modify Guild Role: `PATCH /guilds/{guild}/roles/{role}` (docs/discord.md §3.2).
    UpdateRole {
        /// The guild.
        guild: I,
        /// The role.
        role: I,
    },
    /// Delete Guild Role: `DELETE /guilds/{guild}/roles/{role}` (docs/discord.md §3.2).
    DeleteRole {
        /// The guild.
        guild: I,
        /// The role.
        role: I,
    },
    /// Create Guild Channel: `POST /guilds/{guild}/channels` (docs/discord.md §4).
    CreateChannel {
        /// The guild.
        guild: I,
    },
    /// The bulk reorder (and move) of channels: the one write Discord does not audit (§7.1).
    UpdateChannelPositions {
        /// The guild.
        guild: I,
    },
    /// Modify Channel: `PATCH /channels/{channel}`, its overwrites included (docs/discord.md §4).
    UpdateChannel {
        /// The channel.
        channel: I,
    },
    /// Delete Channel: `DELETE /channels/{channel}` (docs/discord.md §4.6).
    DeleteChannel {
        /// The channel.
        channel: I,
    },
    /// Modify Guild: `PATCH /guilds/{guild}` (docs/discord.md §5.1).
    UpdateGuild {
        /// The guild.
        guild: I,
    },
    /// Modify Guild Welcome Screen: `PATCH /guilds/{guild}/welcome-screen` (docs/discord.md §5.3).
    UpdateWelcomeScreen {
        /// The guild.
        guild: I,
    },
    /// Modify Guild Onboarding: `PUT /guilds/{guild}/onboarding` (docs/discord.md §5.4).
    UpdateOnboarding {
        /// The guild.
        guild: I,
    },
    /// Modify Guild Widget: `PATCH /guilds/{guild}/widget` (docs/discord.md §5.5).
    UpdateWidget {
        /// The guild.
        guild: I,
    },
    /// Create Webhook: `POST /channels/{channel}/webhooks` (docs/discord.md §6).
    CreateWebhook {
        /// The channel.
        channel: I,
    },
    /// Modify Webhook: `PATCH /webhooks/{webhook}`, a move included (docs/discord.md §6).
    UpdateWebhook {
        /// The webhook.
        webhook: I,
    },
    /// Delete Webhook: `DELETE /webhooks/{webhook}` (docs/discord.md §6).
    DeleteWebhook {
        /// The webhook.
        webhook: I,
    },
    /// Delete Guild Integration: `DELETE /guilds/{guild}/integrations/{integration}`; the
    /// application's bot, roles and webhooks go with it.
    DeleteIntegration {
        /// The guild.
        guild: I,
        /// The integration.
        integration: I,
    },
    /// An invite is known by its code, not an id.
    DeleteInvite {
        /// The invite's code.
        code: String,
    },
    /// Add Guild Member Role: `PUT /guilds/{guild}/members/{user}/roles/{role}`.
    AddMemberRole {
        /// The guild.
        guild: I,
        /// The user.
        user: I,
        /// The role.
        role: I,
    },
    /// Remove Guild Member Role: `DELETE /guilds/{guild}/members/{user}/roles/{role}`.
    RemoveMemberRole {
        /// The guild.
        guild: I,
        /// The user.
        user: I,
        /// The role.
        role: I,
    },
    /// Create Guild Ban: `PUT /guilds/{guild}/bans/{user}`.
    CreateBan {
        /// The guild.
        guild: I,
        /// The user.
        user: I,
    },
    /// Remove Guild Ban: `DELETE /guilds/{guild}/bans/{user}`.
    DeleteBan {
        /// The guild.
        guild: I,
        /// The user.
        user: I,
    },
    /// Bulk Guild Ban: `POST /guilds/{guild}/bulk-ban`, up to 200 users a call.
    BulkBan {
        /// The guild.
        guild: I,
    },
    /// `guildctl lockdown`: joins and DMs paused.
    UpdateIncidentActions {
        /// The guild.
        guild: I,
    },
    /// Create Guild Emoji: `POST /guilds/{guild}/emojis` (docs/discord.md §10.2).
    CreateEmoji {
        /// The guild.
        guild: I,
    },
    /// Only `name` and `roles`: Discord cannot replace an emoji's image.
    UpdateEmoji {
        /// The guild.
        guild: I,
        /// The emoji.
        emoji: I,
    },
    /// Delete Guild Emoji: `DELETE /guilds/{guild}/emojis/{emoji}` (docs/discord.md §10.2).
    DeleteEmoji {
        /// The guild.
        guild: I,
        /// The emoji.
        emoji: I,
    },
    /// Create Guild Soundboard Sound: `POST /guilds/{guild}/soundboard-sounds` (docs/discord.md §10.2).
    CreateSound {
        /// The guild.
        guild: I,
    },
    /// `name`, `volume` and the emoji: Discord cannot replace a sound's file.
    UpdateSound {
        /// The guild.
        guild: I,
        /// The sound.
        sound: I,
    },
    /// Delete Guild Soundboard Sound (docs/discord.md §10.2).
    DeleteSound {
        /// The guild.
        guild: I,
        /// The sound.
        sound: I,
    },
    /// Create Auto Moderation Rule: `POST /guilds/{guild}/auto-moderation/rules` (docs/discord.md §10.1).
    CreateAutoModRule {
        /// The guild.
        guild: I,
    },
    /// Modify Auto Moderation Rule (docs/discord.md §10.1).
    UpdateAutoModRule {
        /// The guild.
        guild: I,
        /// The AutoMod rule.
        rule: I,
    },
    /// Delete Auto Moderation Rule (docs/discord.md §10.1).
    DeleteAutoModRule {
        /// The guild.
        guild: I,
        /// The AutoMod rule.
        rule: I,
    },
    /// Create Guild Scheduled Event: `POST /guilds/{guild}/scheduled-events` (docs/discord.md §10.3).
    CreateScheduledEvent {
        /// The guild.
        guild: I,
    },
    /// Modify Guild Scheduled Event (docs/discord.md §10.3).
    UpdateScheduledEvent {
        /// The guild.
        guild: I,
        /// The scheduled event.
        event: I,
    },
    /// Delete Guild Scheduled Event (docs/discord.md §10.3).
    DeleteScheduledEvent {
        /// The guild.
        guild: I,
        /// The scheduled event.
        event: I,
    },
    /// A multipart/form-data upload: `name`, `description`, `tags` and the `file`.
    CreateSticker {
        /// The guild.
        guild: I,
    },
    /// `name`, `description` and `tags` (JSON): Discord cannot replace a sticker's file.
    UpdateSticker {
        /// The guild.
        guild: I,
        /// The sticker.
        sticker: I,
    },
    /// Delete Guild Sticker (docs/discord.md §10.2).
    DeleteSticker {
        /// The guild.
        guild: I,
        /// The sticker.
        sticker: I,
    },
    /// Follow Announcement Channel: `channel` is the followed one (of another guild); the
    /// channel that receives its posts is in the body (`webhook_channel_id`).
    FollowChannel {
        /// The channel.
        channel: I,
    },
}

/// One segment of a route's path.
enum Part<'a, I> {
    Lit(&'static str),
    /// The id that keys the rate-limit bucket (the guild, channel or webhook, §1.2).
    Major(&'a I),
    /// Any other id: the same bucket whatever it is.
    Minor(&'a I),
    Code(&'a str),
}

const MANAGE_ROLES: &[(&str, Permissions)] = &[("manage_roles", Permissions::MANAGE_ROLES)];
const MANAGE_CHANNELS: &[(&str, Permissions)] =
    &[("manage_channels", Permissions::MANAGE_CHANNELS)];
const MANAGE_GUILD: &[(&str, Permissions)] = &[("manage_guild", Permissions::MANAGE_GUILD)];
const MANAGE_WEBHOOKS: &[(&str, Permissions)] =
    &[("manage_webhooks", Permissions::MANAGE_WEBHOOKS)];
const CREATE_EVENTS: &[(&str, Permissions)] = &[("create_events", Permissions::CREATE_EVENTS)];
const BAN_MEMBERS: &[(&str, Permissions)] = &[("ban_members", Permissions::BAN_MEMBERS)];
const ONBOARDING: &[(&str, Permissions)] = &[
    ("manage_guild", Permissions::MANAGE_GUILD),
    ("manage_roles", Permissions::MANAGE_ROLES),
];
/// Since 2026-02-23 creating needs CREATE_GUILD_EXPRESSIONS, which also lets the bot change
/// and delete what it uploaded; others' expressions need MANAGE_GUILD_EXPRESSIONS too, which
/// the gates ask of each such call (they know whose it is).
const CREATE_EXPRESSIONS: &[(&str, Permissions)] = &[(
    "create_guild_expressions",
    Permissions::CREATE_GUILD_EXPRESSIONS,
)];
const BULK_BAN: &[(&str, Permissions)] = &[
    ("ban_members", Permissions::BAN_MEMBERS),
    ("manage_guild", Permissions::MANAGE_GUILD),
];

impl<I> Route<I> {
    /// The method and the path's segments.
    fn parts(&self) -> (Method, Vec<Part<'_, I>>) {
        use Part::{Code, Lit, Major, Minor};
        match self {
            Route::CreateRole { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("roles")],
            ),
            Route::UpdateRolePositions { guild } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("roles")],
            ),
            Route::UpdateRole { guild, role } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("roles"), Minor(role)],
            ),
            Route::DeleteRole { guild, role } => (
                Method::DELETE,
                vec![Lit("guilds"), Major(guild), Lit("roles"), Minor(role)],
            ),
            Route::CreateChannel { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("channels")],
            ),
            Route::UpdateChannelPositions { guild } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("channels")],
            ),
            Route::UpdateChannel { channel } => {
                (Method::PATCH, vec![Lit("channels"), Major(channel)])
            }
            Route::DeleteChannel { channel } => {
                (Method::DELETE, vec![Lit("channels"), Major(channel)])
            }
            Route::UpdateGuild { guild } => (Method::PATCH, vec![Lit("guilds"), Major(guild)]),
            Route::UpdateWelcomeScreen { guild } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("welcome-screen")],
            ),
            Route::UpdateOnboarding { guild } => (
                Method::PUT,
                vec![Lit("guilds"), Major(guild), Lit("onboarding")],
            ),
            Route::UpdateWidget { guild } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("widget")],
            ),
            Route::CreateWebhook { channel } => (
                Method::POST,
                vec![Lit("channels"), Major(channel), Lit("webhooks")],
            ),
            Route::UpdateWebhook { webhook } => {
                (Method::PATCH, vec![Lit("webhooks"), Major(webhook)])
            }
            Route::DeleteWebhook { webhook } => {
                (Method::DELETE, vec![Lit("webhooks"), Major(webhook)])
            }
            Route::DeleteIntegration { guild, integration } => (
                Method::DELETE,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("integrations"),
                    Minor(integration),
                ],
            ),
            Route::DeleteInvite { code } => (Method::DELETE, vec![Lit("invites"), Code(code)]),
            Route::AddMemberRole { guild, user, role } => (
                Method::PUT,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("members"),
                    Minor(user),
                    Lit("roles"),
                    Minor(role),
                ],
            ),
            Route::RemoveMemberRole { guild, user, role } => (
                Method::DELETE,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("members"),
                    Minor(user),
                    Lit("roles"),
                    Minor(role),
                ],
            ),
            Route::CreateBan { guild, user } => (
                Method::PUT,
                vec![Lit("guilds"), Major(guild), Lit("bans"), Minor(user)],
            ),
            Route::DeleteBan { guild, user } => (
                Method::DELETE,
                vec![Lit("guilds"), Major(guild), Lit("bans"), Minor(user)],
            ),
            Route::BulkBan { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("bulk-ban")],
            ),
            Route::UpdateIncidentActions { guild } => (
                Method::PUT,
                vec![Lit("guilds"), Major(guild), Lit("incident-actions")],
            ),
            Route::CreateEmoji { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("emojis")],
            ),
            Route::UpdateEmoji { guild, emoji } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("emojis"), Minor(emoji)],
            ),
            Route::DeleteEmoji { guild, emoji } => (
                Method::DELETE,
                vec![Lit("guilds"), Major(guild), Lit("emojis"), Minor(emoji)],
            ),
            Route::CreateSound { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("soundboard-sounds")],
            ),
            Route::UpdateSound { guild, sound } => (
                Method::PATCH,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("soundboard-sounds"),
                    Minor(sound),
                ],
            ),
            Route::DeleteSound { guild, sound } => (
                Method::DELETE,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("soundboard-sounds"),
                    Minor(sound),
                ],
            ),
            Route::CreateAutoModRule { guild } => (
                Method::POST,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("auto-moderation"),
                    Lit("rules"),
                ],
            ),
            Route::UpdateAutoModRule { guild, rule } => (
                Method::PATCH,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("auto-moderation"),
                    Lit("rules"),
                    Minor(rule),
                ],
            ),
            Route::DeleteAutoModRule { guild, rule } => (
                Method::DELETE,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("auto-moderation"),
                    Lit("rules"),
                    Minor(rule),
                ],
            ),
            Route::CreateScheduledEvent { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("scheduled-events")],
            ),
            Route::UpdateScheduledEvent { guild, event } => (
                Method::PATCH,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("scheduled-events"),
                    Minor(event),
                ],
            ),
            Route::DeleteScheduledEvent { guild, event } => (
                Method::DELETE,
                vec![
                    Lit("guilds"),
                    Major(guild),
                    Lit("scheduled-events"),
                    Minor(event),
                ],
            ),
            Route::CreateSticker { guild } => (
                Method::POST,
                vec![Lit("guilds"), Major(guild), Lit("stickers")],
            ),
            Route::UpdateSticker { guild, sticker } => (
                Method::PATCH,
                vec![Lit("guilds"), Major(guild), Lit("stickers"), Minor(sticker)],
            ),
            Route::DeleteSticker { guild, sticker } => (
                Method::DELETE,
                vec![Lit("guilds"), Major(guild), Lit("stickers"), Minor(sticker)],
            ),
            Route::FollowChannel { channel } => (
                Method::POST,
                vec![Lit("channels"), Major(channel), Lit("followers")],
            ),
        }
    }

    /// The HTTP method of the call.
    pub fn method(&self) -> Method {
        self.parts().0
    }

    /// Whether Discord records the call's `X-Audit-Log-Reason` (§7.1): every route here
    /// but the channel positions.
    pub fn takes_reason(&self) -> bool {
        !matches!(self, Route::UpdateChannelPositions { .. })
    }

    /// Whether Discord takes the body as multipart/form-data, its text fields and one file
    /// (Create Guild Sticker), rather than JSON.
    pub fn takes_form(&self) -> bool {
        matches!(self, Route::CreateSticker { .. })
    }

    /// The guild permissions Discord requires of the caller, each with its name.
    pub fn permissions(&self) -> &'static [(&'static str, Permissions)] {
        match self {
            Route::CreateRole { .. }
            | Route::UpdateRolePositions { .. }
            | Route::UpdateRole { .. }
            | Route::DeleteRole { .. }
            | Route::AddMemberRole { .. }
            | Route::RemoveMemberRole { .. } => MANAGE_ROLES,
            Route::CreateChannel { .. }
            | Route::UpdateChannelPositions { .. }
            | Route::UpdateChannel { .. }
            | Route::DeleteChannel { .. } => MANAGE_CHANNELS,
            Route::UpdateGuild { .. }
            | Route::UpdateWelcomeScreen { .. }
            | Route::UpdateWidget { .. }
            | Route::UpdateIncidentActions { .. }
            | Route::CreateAutoModRule { .. }
            | Route::UpdateAutoModRule { .. }
            | Route::DeleteAutoModRule { .. }
            | Route::DeleteIntegration { .. }
            // Any invite of the guild, not only one of a channel the bot manages.
            | Route::DeleteInvite { .. } => MANAGE_GUILD,
            Route::UpdateOnboarding { .. } => ONBOARDING,
            // Others' events need manage_events besides (plan::gates).
            Route::CreateScheduledEvent { .. }
            | Route::UpdateScheduledEvent { .. }
            | Route::DeleteScheduledEvent { .. } => CREATE_EVENTS,
            // In the channel that receives the posts, too (plan::gates).
            Route::CreateWebhook { .. }
            | Route::UpdateWebhook { .. }
            | Route::DeleteWebhook { .. }
            | Route::FollowChannel { .. } => MANAGE_WEBHOOKS,
            Route::CreateBan { .. } | Route::DeleteBan { .. } => BAN_MEMBERS,
            Route::BulkBan { .. } => BULK_BAN,
            Route::CreateEmoji { .. }
            | Route::UpdateEmoji { .. }
            | Route::DeleteEmoji { .. }
            | Route::CreateSound { .. }
            | Route::UpdateSound { .. }
            | Route::DeleteSound { .. }
            | Route::CreateSticker { .. }
            | Route::UpdateSticker { .. }
            | Route::DeleteSticker { .. } => CREATE_EXPRESSIONS,
        }
    }

    /// The ids the path names, in order.
    pub fn ids(&self) -> impl Iterator<Item = &I> {
        self.parts().1.into_iter().filter_map(|p| match p {
            Part::Major(id) | Part::Minor(id) => Some(id),
            Part::Lit(_) | Part::Code(_) => None,
        })
    }

    /// The same route with each id mapped by `f` (a plan's placeholders to the ids created).
    pub fn try_map<J, E>(&self, mut f: impl FnMut(&I) -> Result<J, E>) -> Result<Route<J>, E> {
        Ok(match self {
            Route::CreateRole { guild } => Route::CreateRole { guild: f(guild)? },
            Route::UpdateRolePositions { guild } => Route::UpdateRolePositions { guild: f(guild)? },
            Route::UpdateRole { guild, role } => Route::UpdateRole {
                guild: f(guild)?,
                role: f(role)?,
            },
            Route::DeleteRole { guild, role } => Route::DeleteRole {
                guild: f(guild)?,
                role: f(role)?,
            },
            Route::CreateChannel { guild } => Route::CreateChannel { guild: f(guild)? },
            Route::UpdateChannelPositions { guild } => {
                Route::UpdateChannelPositions { guild: f(guild)? }
            }
            Route::UpdateChannel { channel } => Route::UpdateChannel {
                channel: f(channel)?,
            },
            Route::DeleteChannel { channel } => Route::DeleteChannel {
                channel: f(channel)?,
            },
            Route::UpdateGuild { guild } => Route::UpdateGuild { guild: f(guild)? },
            Route::UpdateWelcomeScreen { guild } => Route::UpdateWelcomeScreen { guild: f(guild)? },
            Route::UpdateOnboarding { guild } => Route::UpdateOnboarding { guild: f(guild)? },
            Route::UpdateWidget { guild } => Route::UpdateWidget { guild: f(guild)? },
            Route::CreateWebhook { channel } => Route::CreateWebhook {
                channel: f(channel)?,
            },
            Route::UpdateWebhook { webhook } => Route::UpdateWebhook {
                webhook: f(webhook)?,
            },
            Route::DeleteWebhook { webhook } => Route::DeleteWebhook {
                webhook: f(webhook)?,
            },
            Route::DeleteIntegration { guild, integration } => Route::DeleteIntegration {
                guild: f(guild)?,
                integration: f(integration)?,
            },
            Route::DeleteInvite { code } => Route::DeleteInvite { code: code.clone() },
            Route::AddMemberRole { guild, user, role } => Route::AddMemberRole {
                guild: f(guild)?,
                user: f(user)?,
                role: f(role)?,
            },
            Route::RemoveMemberRole { guild, user, role } => Route::RemoveMemberRole {
                guild: f(guild)?,
                user: f(user)?,
                role: f(role)?,
            },
            Route::CreateBan { guild, user } => Route::CreateBan {
                guild: f(guild)?,
                user: f(user)?,
            },
            Route::DeleteBan { guild, user } => Route::DeleteBan {
                guild: f(guild)?,
                user: f(user)?,
            },
            Route::BulkBan { guild } => Route::BulkBan { guild: f(guild)? },
            Route::UpdateIncidentActions { guild } => {
                Route::UpdateIncidentActions { guild: f(guild)? }
            }
            Route::CreateEmoji { guild } => Route::CreateEmoji { guild: f(guild)? },
            Route::UpdateEmoji { guild, emoji } => Route::UpdateEmoji {
                guild: f(guild)?,
                emoji: f(emoji)?,
            },
            Route::DeleteEmoji { guild, emoji } => Route::DeleteEmoji {
                guild: f(guild)?,
                emoji: f(emoji)?,
            },
            Route::CreateSound { guild } => Route::CreateSound { guild: f(guild)? },
            Route::UpdateSound { guild, sound } => Route::UpdateSound {
                guild: f(guild)?,
                sound: f(sound)?,
            },
            Route::DeleteSound { guild, sound } => Route::DeleteSound {
                guild: f(guild)?,
                sound: f(sound)?,
            },
            Route::CreateAutoModRule { guild } => Route::CreateAutoModRule { guild: f(guild)? },
            Route::UpdateAutoModRule { guild, rule } => Route::UpdateAutoModRule {
                guild: f(guild)?,
                rule: f(rule)?,
            },
            Route::DeleteAutoModRule { guild, rule } => Route::DeleteAutoModRule {
                guild: f(guild)?,
                rule: f(rule)?,
            },
            Route::CreateScheduledEvent { guild } => {
                Route::CreateScheduledEvent { guild: f(guild)? }
            }
            Route::UpdateScheduledEvent { guild, event } => Route::UpdateScheduledEvent {
                guild: f(guild)?,
                event: f(event)?,
            },
            Route::DeleteScheduledEvent { guild, event } => Route::DeleteScheduledEvent {
                guild: f(guild)?,
                event: f(event)?,
            },
            Route::CreateSticker { guild } => Route::CreateSticker { guild: f(guild)? },
            Route::UpdateSticker { guild, sticker } => Route::UpdateSticker {
                guild: f(guild)?,
                sticker: f(sticker)?,
            },
            Route::DeleteSticker { guild, sticker } => Route::DeleteSticker {
                guild: f(guild)?,
                sticker: f(sticker)?,
            },
            Route::FollowChannel { channel } => Route::FollowChannel {
                channel: f(channel)?,
            },
        })
    }
}

impl<I: Display> Route<I> {
    /// The path under the API base: `/guilds/1/roles/2`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for part in self.parts().1 {
            out.push('/');
            match part {
                Part::Lit(s) | Part::Code(s) => out.push_str(s),
                Part::Major(id) | Part::Minor(id) => out.push_str(&id.to_string()),
            }
        }
        out
    }

    /// The rate-limit bucket the call waits in until Discord names one (§1.2): the method
    /// and the path with the major id kept and the others left out.
    pub fn bucket(&self) -> ratelimit::Route {
        let (method, parts) = self.parts();
        let mut key = format!("{method} ");
        let mut major = String::new();
        for part in parts {
            key.push('/');
            match part {
                Part::Lit(s) => key.push_str(s),
                Part::Major(id) => {
                    major = id.to_string();
                    key.push_str(&major);
                }
                Part::Minor(_) => key.push_str(":id"),
                Part::Code(_) => key.push_str(":code"),
            }
        }
        ratelimit::Route { key, major }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_knows_its_method_path_reason_and_bucket() {
        let give = Route::AddMemberRole {
            guild: "1".to_owned(),
            user: "2".to_owned(),
            role: "3".to_owned(),
        };
        assert_eq!(give.method(), Method::PUT);
        assert_eq!(give.path(), "/guilds/1/members/2/roles/3");
        assert!(give.takes_reason());
        let bucket = give.bucket();
        assert_eq!(bucket.key, "PUT /guilds/1/members/:id/roles/:id");
        assert_eq!(bucket.major, "1");
        // The bucket is the one a path's text gives (what reads are keyed by).
        assert_eq!(bucket, ratelimit::Route::of(&Method::PUT, &give.path()));

        let order = Route::UpdateChannelPositions {
            guild: "1".to_owned(),
        };
        assert!(
            !order.takes_reason(),
            "Discord does not audit channel positions"
        );
        assert_eq!(order.path(), "/guilds/1/channels");

        let invite = Route::<String>::DeleteInvite { code: "abc".into() };
        assert_eq!(invite.bucket().key, "DELETE /invites/:code");
        assert_eq!(invite.bucket().major, "");
    }

    #[test]
    fn ids_are_mapped_and_listed_in_path_order() {
        let route: Route<u32> = Route::AddMemberRole {
            guild: 1,
            user: 2,
            role: 3,
        };
        assert_eq!(route.ids().copied().collect::<Vec<_>>(), [1, 2, 3]);
        let named: Route<String> = route
            .try_map(|i| Ok::<_, ()>(format!("{}", i * 10)))
            .unwrap();
        assert_eq!(named.path(), "/guilds/10/members/20/roles/30");
        assert_eq!(
            route.try_map(|_| Err::<String, _>("unknown")),
            Err("unknown")
        );
    }
}
