//! The emulator's guild arranged and read by name, as a person would point at it:
//! `arrange(&mut state).role("Helper").permissions(&["manage_roles"])`,
//! `guild.channel_named("Staff/mod-log")`, `h.user_id("alice")`. A name that is not there, or
//! names two things, panics with what was looked for and what there is, so a test that
//! arranges the wrong object fails at the line that named it.

use discord_emulator::State;
use discord_emulator::state::{
    Ban, BotToken, Channel, Guild, Integration, IntegrationApplication, Member, Overwrite, Role,
    User, Webhook,
};
use discord_permissions::Permissions;
use serde_json::json;

/// Permissions from their manifest names (`view_channel`, `ban_members`, ...).
pub fn perms(names: &[&str]) -> Permissions {
    names.iter().fold(Permissions::NONE, |all, name| {
        all | Permissions::from_name(name).unwrap_or_else(|| panic!("no permission {name:?}"))
    })
}

/// The one item `named` picks, or a panic that lists the names there are.
fn one<T: Named>(items: &[T], what: &str, wanted: &str, named: impl Fn(&T) -> bool) -> usize {
    let found: Vec<usize> = (0..items.len()).filter(|&i| named(&items[i])).collect();
    match found[..] {
        [i] => i,
        [] => panic!(
            "no {what} {wanted:?}; there are: {:?}",
            items.iter().map(Named::name).collect::<Vec<_>>()
        ),
        _ => panic!("{} {what}s are named {wanted:?}", found.len()),
    }
}

trait Named {
    fn name(&self) -> &str;
}

impl Named for Role {
    fn name(&self) -> &str {
        &self.name
    }
}
impl Named for Channel {
    fn name(&self) -> &str {
        &self.name
    }
}
impl Named for Webhook {
    fn name(&self) -> &str {
        &self.name
    }
}
impl Named for Integration {
    fn name(&self) -> &str {
        &self.name
    }
}
impl Named for User {
    fn name(&self) -> &str {
        &self.username
    }
}

/// A channel by `name`, or by `Category/name` where the name alone is not enough.
fn channel_index(g: &Guild, path: &str) -> usize {
    match path.split_once('/') {
        Some((category, name)) => {
            let parent = &g.channels[one(&g.channels, "category", category, |c| {
                c.kind == 4 && c.name == category
            })]
            .id;
            one(&g.channels, "channel", path, |c| {
                c.name == name && c.parent_id.as_ref() == Some(parent)
            })
        }
        None => one(&g.channels, "channel", path, |c| c.name == path),
    }
}

/// Reading a guild by name: `h.guild().role_named("Moderator").permissions`.
/// (The emulator's own `Guild::role` and `Guild::channel` look up by id.)
pub trait GuildNames {
    fn role_named(&self, name: &str) -> &Role;
    /// A channel by `name`, or `Category/name`.
    fn channel_named(&self, path: &str) -> &Channel;
    fn webhook_named(&self, name: &str) -> &Webhook;
    fn integration_named(&self, name: &str) -> &Integration;

    fn role_id(&self, name: &str) -> String {
        self.role_named(name).id.clone()
    }
    fn channel_id(&self, path: &str) -> String {
        self.channel_named(path).id.clone()
    }
}

impl GuildNames for Guild {
    fn role_named(&self, name: &str) -> &Role {
        &self.roles[one(&self.roles, "role", name, |r| r.name == name)]
    }
    fn channel_named(&self, path: &str) -> &Channel {
        &self.channels[channel_index(self, path)]
    }
    fn webhook_named(&self, name: &str) -> &Webhook {
        &self.webhooks[one(&self.webhooks, "webhook", name, |w| w.name == name)]
    }
    fn integration_named(&self, name: &str) -> &Integration {
        &self.integrations[one(&self.integrations, "integration", name, |i| i.name == name)]
    }
}

/// Reading the emulator's users, and its first guild, by name (the emulator's own
/// `State::user` looks up by id).
pub trait StateNames {
    fn user_named(&self, username: &str) -> &User;
    fn user_id(&self, username: &str) -> String {
        self.user_named(username).id.clone()
    }
    /// A role of the first guild.
    fn role_id(&self, name: &str) -> String;
    /// The usernames of those who hold role `role` in guild `guild`, sorted.
    fn holders(&self, guild: &str, role: &str) -> Vec<String>;
}

impl StateNames for State {
    fn user_named(&self, username: &str) -> &User {
        &self.users[one(&self.users, "user", username, |u| u.username == username)]
    }
    fn role_id(&self, name: &str) -> String {
        self.guilds[0].role_id(name)
    }
    fn holders(&self, guild: &str, role: &str) -> Vec<String> {
        let g = self.guild(guild).expect("the guild is in the state");
        let rid = g.role_id(role);
        let mut names: Vec<String> = g
            .members
            .iter()
            .filter(|m| m.roles.contains(&rid))
            .map(|m| {
                self.user(&m.user_id)
                    .expect("a member's user")
                    .username
                    .clone()
            })
            .collect();
        names.sort();
        names
    }
}

/// The first guild of `state`, to arrange by name before the emulator starts.
pub fn arrange(state: &mut State) -> GuildEdit<'_> {
    GuildEdit { state, at: 0 }
}

/// A guild of a state with several (a workspace's), by id.
pub fn arrange_guild<'a>(state: &'a mut State, id: &str) -> GuildEdit<'a> {
    let at = state
        .guilds
        .iter()
        .position(|g| g.id == id)
        .unwrap_or_else(|| panic!("no guild {id}"));
    GuildEdit { state, at }
}

/// One guild of a state being arranged; it reads users by name from the whole state.
/// Everything the builders do not say is reached through `Deref` to the guild.
pub struct GuildEdit<'a> {
    state: &'a mut State,
    at: usize,
}

impl std::ops::Deref for GuildEdit<'_> {
    type Target = Guild;
    fn deref(&self) -> &Guild {
        &self.state.guilds[self.at]
    }
}

impl std::ops::DerefMut for GuildEdit<'_> {
    fn deref_mut(&mut self) -> &mut Guild {
        &mut self.state.guilds[self.at]
    }
}

impl GuildEdit<'_> {
    pub fn role(&mut self, name: &str) -> RoleEdit<'_> {
        let i = one(&self.roles, "role", name, |r| r.name == name);
        RoleEdit(&mut self.roles[i])
    }

    /// A channel by `name`, or `Category/name`.
    pub fn channel(&mut self, path: &str) -> ChannelEdit<'_> {
        let i = channel_index(self, path);
        ChannelEdit(&mut self.channels[i])
    }

    pub fn webhook(&mut self, name: &str) -> &mut Webhook {
        let i = one(&self.webhooks, "webhook", name, |w| w.name == name);
        &mut self.webhooks[i]
    }

    pub fn user_id(&self, username: &str) -> String {
        self.state.user_id(username)
    }

    pub fn user(&mut self, username: &str) -> &mut User {
        let i = one(&self.state.users, "user", username, |u| {
            u.username == username
        });
        &mut self.state.users[i]
    }

    /// A member by username; the user must be a member.
    pub fn member(&mut self, username: &str) -> MemberEdit<'_> {
        let id = self.user_id(username);
        let guild = &mut self.state.guilds[self.at];
        let i = guild
            .members
            .iter()
            .position(|m| m.user_id == id)
            .unwrap_or_else(|| panic!("{username} is not a member"));
        MemberEdit {
            roles: &guild.roles,
            member: &mut guild.members[i],
        }
    }

    /// Adds a user who is not a member yet.
    pub fn new_user(&mut self, id: &str, username: &str, bot: bool) -> &mut Self {
        self.state.users.push(User {
            id: id.into(),
            username: username.into(),
            bot,
            ..Default::default()
        });
        self
    }

    /// Makes the user a member holding `roles` (by name), as of 2024-01-01.
    pub fn join(&mut self, username: &str, roles: &[&str]) -> &mut Self {
        let member = Member {
            user_id: self.user_id(username),
            roles: roles.iter().map(|r| self.role_id(r)).collect(),
            nick: None,
            joined_at: "2024-01-01T00:00:00.000000+00:00".into(),
        };
        self.members.push(member);
        self
    }

    /// The member leaves the guild.
    pub fn leave(&mut self, username: &str) -> &mut Self {
        let id = self.user_id(username);
        self.members.retain(|m| m.user_id != id);
        self
    }

    /// Bans the user, with the audit-log reason the ban was made with.
    pub fn ban(&mut self, username: &str, reason: Option<&str>) -> &mut Self {
        let ban = Ban {
            user_id: self.user_id(username),
            reason: reason.map(str::to_owned),
        };
        self.bans.push(ban);
        self
    }

    /// A bot the owner added by hand: its user, its managed role named `bot.name` (just
    /// above @everyone, with `permissions`), its membership and its integration.
    pub fn add_bot(&mut self, bot: &Bot, permissions: Permissions) -> &mut Self {
        self.new_user(bot.user_id, &bot.name.to_lowercase(), true);
        self.roles.push(Role {
            id: bot.role_id.into(),
            name: bot.name.into(),
            permissions,
            position: 1,
            color: 0,
            secondary_color: None,
            tertiary_color: None,
            hoist: false,
            managed: true,
            mentionable: false,
            icon: None,
            unicode_emoji: None,
            flags: 0,
            tags: Some(json!({ "bot_id": bot.user_id })),
        });
        self.join(&bot.name.to_lowercase(), &[bot.name]);
        let owner = self.owner_id.clone();
        self.integrations.push(Integration {
            id: bot.integration_id.into(),
            name: bot.name.into(),
            kind: "discord".into(),
            enabled: true,
            application: Some(IntegrationApplication {
                id: bot.application_id.into(),
                name: bot.name.into(),
                icon: None,
                description: String::new(),
                bot_id: Some(bot.user_id.into()),
            }),
            account: None,
            user_id: Some(owner),
            scopes: vec!["bot".into()],
            role_id: None,
        });
        self
    }

    /// Lets `token` act as the user (the owner, a moderator): hand edits made with it are
    /// a person's, as the audit log tells them apart from the bot's.
    pub fn token_for(&mut self, username: &str, token: &str) -> &mut Self {
        let user_id = self.user_id(username);
        self.state.tokens.push(BotToken {
            token: token.into(),
            user_id,
        });
        self
    }

    /// Lets `token` act as the guild's owner.
    pub fn owner_token(&mut self, token: &str) -> &mut Self {
        let user_id = self.owner_id.clone();
        self.state.tokens.push(BotToken {
            token: token.into(),
            user_id,
        });
        self
    }

    /// A new role with `permissions`, just above @everyone; its id.
    pub fn new_role(&mut self, name: &str, permissions: &[&str]) -> String {
        let id = self.state.snowflake.next_id();
        let role = serde_json::from_value(json!({ "id": id, "name": name, "position": 1 }))
            .expect("a role");
        self.roles.push(role);
        self.role(name).permissions(permissions);
        id
    }

    /// A new channel of `kind` (0 text, 4 category, ...) at the bottom of its place, in the
    /// category with id `parent`, with exactly `overwrites`; its id.
    pub fn new_channel(
        &mut self,
        name: &str,
        kind: u8,
        parent: Option<&str>,
        overwrites: Vec<discord_emulator::state::Overwrite>,
    ) -> String {
        let id = self.state.snowflake.next_id();
        let position = self
            .channels
            .iter()
            .filter(|c| c.parent_id.as_deref() == parent)
            .count();
        let channel = serde_json::from_value(json!({
            "id": id, "type": kind, "name": name, "position": position, "parent_id": parent,
            "permission_overwrites": overwrites,
        }))
        .expect("a channel");
        self.channels.push(channel);
        id
    }

    /// A second role just like `name`, with a newer id: what two applies creating the role
    /// at once leave behind. Its id.
    pub fn copy_role(&mut self, name: &str) -> String {
        let mut copy = self.role(name).clone();
        copy.id = self.state.snowflake.next_id();
        self.roles.push(copy.clone());
        copy.id
    }

    /// A second channel just like `path` (`name` or `Category/name`), in the same place,
    /// with a newer id. Its id.
    pub fn copy_channel(&mut self, path: &str) -> String {
        let mut copy = self.channel(path).clone();
        copy.id = self.state.snowflake.next_id();
        self.channels.push(copy.clone());
        copy.id
    }

    /// A second webhook just like `name`, in the same channel, with a newer id and its own
    /// token. Its id.
    pub fn copy_webhook(&mut self, name: &str) -> String {
        let mut copy = self.webhook(name).clone();
        copy.id = self.state.snowflake.next_id();
        copy.token = copy.token.map(|t| format!("{t}-copy"));
        self.webhooks.push(copy.clone());
        copy.id
    }
}

/// `Deref` from a handle to the object it arranges: every field the builders do not name.
macro_rules! reaches_every_field {
    ($handle:ident, $target:ty, $field:tt) => {
        impl std::ops::Deref for $handle<'_> {
            type Target = $target;
            fn deref(&self) -> &$target {
                self.$field
            }
        }
        impl std::ops::DerefMut for $handle<'_> {
            fn deref_mut(&mut self) -> &mut $target {
                self.$field
            }
        }
    };
}

/// The ids of a bot added by hand ([`GuildEdit::add_bot`]).
pub struct Bot<'a> {
    pub name: &'a str,
    pub user_id: &'a str,
    pub application_id: &'a str,
    pub role_id: &'a str,
    pub integration_id: &'a str,
}

/// A role being arranged; `Deref` reaches every other field.
pub struct RoleEdit<'a>(&'a mut Role);

impl RoleEdit<'_> {
    /// Exactly these permissions, by their manifest names.
    pub fn permissions(self, names: &[&str]) -> Self {
        self.0.permissions = perms(names);
        self
    }
    pub fn color(self, color: u32) -> Self {
        self.0.color = color;
        self
    }
    pub fn position(self, position: i64) -> Self {
        self.0.position = position;
        self
    }
}

reaches_every_field!(RoleEdit, Role, 0);

/// A channel being arranged; `Deref` reaches every other field.
pub struct ChannelEdit<'a>(&'a mut Channel);

impl ChannelEdit<'_> {
    pub fn topic(self, topic: &str) -> Self {
        self.0.topic = Some(topic.into());
        self
    }

    /// One more permission overwrite, for the user of id `user` (a member overwrite).
    pub fn member_overwrite(self, user: &str, allow: &[&str], deny: &[&str]) -> Self {
        self.0.permission_overwrites.push(Overwrite {
            id: user.into(),
            kind: 1,
            allow: perms(allow),
            deny: perms(deny),
        });
        self
    }
}

reaches_every_field!(ChannelEdit, Channel, 0);

/// A member being arranged.
pub struct MemberEdit<'a> {
    roles: &'a [Role],
    member: &'a mut Member,
}

impl MemberEdit<'_> {
    /// One more role, by name.
    pub fn add_role(self, name: &str) -> Self {
        let id = self.roles[one(self.roles, "role", name, |r| r.name == name)]
            .id
            .clone();
        self.member.roles.push(id);
        self
    }
}

reaches_every_field!(MemberEdit, Member, member);
