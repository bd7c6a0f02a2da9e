//! Random guilds and random edits of them, described once (`Case`), resolved into the
//! guild the test knows (`World`), and written twice: as the emulator's live state, and,
//! after the edits, as the manifest that asks for the edited guild.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use discord_emulator::State;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The permissions roles and overwrites are drawn from: channel permissions of text and
/// voice channels, and guild-wide ones. Administrator is drawn apart, seldom.
pub const POOL: [&str; 11] = [
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "mention_everyone",
    "read_message_history",
    "manage_messages",
    "connect",
    "speak",
    "kick_members",
    "ban_members",
];

/// Ids: the guild, users, roles and channels each in a range of their own.
pub const GUILD: u64 = 900_000_000_000_000_000;
const OWNER: u64 = GUILD + 1;
pub const BOT: u64 = GUILD + 2;
const BOT_ROLE: u64 = GUILD + 3;
const MEMBER0: u64 = GUILD + 100;
const ROLE0: u64 = GUILD + 200;
const CHANNEL0: u64 = GUILD + 300;

pub fn member_id(i: usize) -> String {
    (MEMBER0 + i as u64).to_string()
}

fn role_id(i: usize) -> String {
    (ROLE0 + i as u64).to_string()
}

fn channel_id(i: usize) -> String {
    (CHANNEL0 + i as u64).to_string()
}

fn names(mask: u16) -> BTreeSet<&'static str> {
    POOL.iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, n)| *n)
        .collect()
}

// ---- the case as drawn ----

/// An overwrite as drawn: its target (0 `@everyone`, 1 a role, 2 a member; `index` taken
/// modulo what there is) and its bits over [`POOL`].
#[derive(Debug, Clone)]
pub struct OwDraw {
    target: u8,
    index: usize,
    allow: u16,
    deny: u16,
}

#[derive(Debug, Clone)]
pub struct ChannelDraw {
    voice: bool,
    /// A category (modulo their number), or the top level.
    parent: Option<usize>,
    synced: bool,
    overwrites: Vec<OwDraw>,
}

#[derive(Debug, Clone)]
pub enum Edit {
    /// A channel moves to a category, or to the top level (keeping the overwrites it has).
    Move {
        channel: usize,
        to: Option<usize>,
    },
    /// A channel in a category follows it, or keeps its overwrites as its own.
    Sync {
        channel: usize,
        on: bool,
    },
    CategoryOverwrites {
        category: usize,
        overwrites: Vec<OwDraw>,
    },
    ChannelOverwrites {
        channel: usize,
        overwrites: Vec<OwDraw>,
    },
    RolePermissions {
        role: usize,
        permissions: u16,
    },
    EveryonePermissions {
        permissions: u16,
    },
    RenameRole {
        role: usize,
    },
    RenameChannel {
        channel: usize,
    },
    RenameCategory {
        category: usize,
    },
    /// The role's holders become exactly these members.
    Roster {
        role: usize,
        members: Vec<usize>,
    },
}

#[derive(Debug, Clone)]
pub struct Case {
    /// The bot is an administrator; else it holds `manage_roles`, `manage_channels` and the
    /// pool but the permission `bot_lacks` names (if any).
    bot_admin: bool,
    bot_lacks: Option<usize>,
    everyone: u16,
    /// Each role's permissions, and whether it is an administrator.
    roles: Vec<(u16, bool)>,
    /// Each member's roles (indexes modulo the roles).
    members: Vec<Vec<usize>>,
    categories: Vec<Vec<OwDraw>>,
    channels: Vec<ChannelDraw>,
    edits: Vec<Edit>,
}

fn bits() -> impl Strategy<Value = u16> {
    // Sparse: most grants and overwrites carry a few permissions.
    (any::<u16>(), any::<u16>()).prop_map(|(a, b)| a & b & ((1 << POOL.len()) - 1))
}

/// Overwrites carry channel permissions only (the first nine of [`POOL`]).
fn channel_bits() -> impl Strategy<Value = u16> {
    bits().prop_map(|b| b & ((1 << 9) - 1))
}

fn overwrite() -> impl Strategy<Value = OwDraw> {
    (0u8..3, 0usize..8, channel_bits(), channel_bits()).prop_map(|(target, index, allow, deny)| {
        OwDraw {
            target,
            index,
            allow,
            deny,
        }
    })
}

fn overwrites() -> impl Strategy<Value = Vec<OwDraw>> {
    prop::collection::vec(overwrite(), 0..=3)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0usize..8, prop::option::of(0usize..4))
            .prop_map(|(channel, to)| Edit::Move { channel, to }),
        2 => (0usize..8, any::<bool>()).prop_map(|(channel, on)| Edit::Sync { channel, on }),
        3 => (0usize..4, overwrites())
            .prop_map(|(category, overwrites)| Edit::CategoryOverwrites { category, overwrites }),
        2 => (0usize..8, overwrites())
            .prop_map(|(channel, overwrites)| Edit::ChannelOverwrites { channel, overwrites }),
        2 => (0usize..4, bits()).prop_map(|(role, permissions)| Edit::RolePermissions { role, permissions }),
        1 => bits().prop_map(|permissions| Edit::EveryonePermissions { permissions }),
        1 => (0usize..4).prop_map(|role| Edit::RenameRole { role }),
        1 => (0usize..8).prop_map(|channel| Edit::RenameChannel { channel }),
        1 => (0usize..4).prop_map(|category| Edit::RenameCategory { category }),
        2 => (0usize..4, prop::collection::vec(0usize..8, 0..=3))
            .prop_map(|(role, members)| Edit::Roster { role, members }),
    ]
}

pub fn case() -> impl Strategy<Value = Case> {
    let channel = (
        0u8..4,
        prop::option::of(0usize..4),
        any::<bool>(),
        overwrites(),
    )
        .prop_map(|(kind, parent, synced, overwrites)| ChannelDraw {
            voice: kind == 0,
            parent,
            synced,
            overwrites,
        });
    (
        (0u8..4, prop::option::of(0usize..POOL.len())),
        bits(),
        prop::collection::vec((bits(), 0u8..16), 1..=4),
        prop::collection::vec(prop::collection::vec(0usize..4, 0..=3), 2..=5),
        prop::collection::vec(overwrites(), 1..=3),
        prop::collection::vec(channel, 2..=6),
        prop::collection::vec(edit(), 1..=4),
    )
        .prop_map(
            |((bot, bot_lacks), everyone, roles, members, categories, channels, edits)| Case {
                bot_admin: bot != 0,
                bot_lacks,
                // @everyone sees by default in most guilds.
                everyone: everyone | 1,
                roles: roles.into_iter().map(|(b, a)| (b, a == 0)).collect(),
                members,
                categories,
                channels,
                edits,
            },
        )
}

// ---- the guild as the test knows it ----

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Everyone,
    Role(usize),
    Member(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ow {
    pub target: Target,
    pub allow: BTreeSet<&'static str>,
    pub deny: BTreeSet<&'static str>,
}

#[derive(Debug, Clone)]
pub struct RoleW {
    pub name: String,
    pub previous: Vec<String>,
    pub permissions: BTreeSet<&'static str>,
    /// Declared holders (`members:`), when the manifest keeps a roster.
    pub roster: Option<BTreeSet<usize>>,
}

#[derive(Debug, Clone)]
pub struct CategoryW {
    pub name: String,
    pub previous: Vec<String>,
    pub overwrites: Vec<Ow>,
}

#[derive(Debug, Clone)]
pub struct ChannelW {
    pub name: String,
    pub previous: Vec<String>,
    pub voice: bool,
    pub parent: Option<usize>,
    /// Follows its category (its overwrites are the category's).
    pub synced: bool,
    /// Its own overwrites (when not synced).
    pub overwrites: Vec<Ow>,
}

#[derive(Debug, Clone)]
pub struct World {
    pub bot: BTreeSet<&'static str>,
    pub everyone: BTreeSet<&'static str>,
    /// Highest first.
    pub roles: Vec<RoleW>,
    /// Each member's roles.
    pub members: Vec<BTreeSet<usize>>,
    pub categories: Vec<CategoryW>,
    pub channels: Vec<ChannelW>,
}

fn resolve(d: &[OwDraw], roles: usize, members: usize) -> Vec<Ow> {
    let mut out: Vec<Ow> = Vec::new();
    for o in d {
        let target = match o.target {
            0 => Target::Everyone,
            1 => Target::Role(o.index % roles),
            _ => Target::Member(o.index % members),
        };
        if out.iter().any(|x| x.target == target) {
            continue;
        }
        let allow = names(o.allow);
        let deny = names(o.deny & !o.allow);
        out.push(Ow {
            target,
            allow,
            deny,
        });
    }
    out
}

impl World {
    /// The live guild a case describes.
    pub fn live(c: &Case) -> World {
        let nr = c.roles.len();
        let nm = c.members.len();
        let bot = if c.bot_admin {
            BTreeSet::from(["administrator"])
        } else {
            let mut p: BTreeSet<&str> = POOL
                .iter()
                .enumerate()
                .filter(|(i, _)| Some(*i) != c.bot_lacks)
                .map(|(_, n)| *n)
                .collect();
            p.extend(["manage_roles", "manage_channels"]);
            p
        };
        let roles = c
            .roles
            .iter()
            .enumerate()
            .map(|(i, (b, admin))| {
                let mut permissions = names(*b);
                if *admin {
                    permissions.insert("administrator");
                }
                RoleW {
                    name: format!("Role{i}"),
                    previous: Vec::new(),
                    permissions,
                    roster: None,
                }
            })
            .collect();
        let members = c
            .members
            .iter()
            .map(|held| held.iter().map(|r| r % nr).collect())
            .collect();
        let categories: Vec<CategoryW> = c
            .categories
            .iter()
            .enumerate()
            .map(|(i, o)| CategoryW {
                name: format!("Cat{i}"),
                previous: Vec::new(),
                overwrites: resolve(o, nr, nm),
            })
            .collect();
        let channels = c
            .channels
            .iter()
            .enumerate()
            .map(|(i, ch)| {
                let parent = ch.parent.map(|p| p % categories.len());
                ChannelW {
                    name: format!("room{i}"),
                    previous: Vec::new(),
                    voice: ch.voice,
                    parent,
                    synced: ch.synced && parent.is_some(),
                    overwrites: resolve(&ch.overwrites, nr, nm),
                }
            })
            .collect();
        World {
            bot,
            everyone: names(c.everyone),
            roles,
            members,
            categories,
            channels,
        }
    }

    /// The overwrites channel `i` has: its category's when synced.
    pub fn overwrites_of(&self, i: usize) -> &[Ow] {
        let c = &self.channels[i];
        match (c.synced, c.parent) {
            (true, Some(p)) => &self.categories[p].overwrites,
            _ => &c.overwrites,
        }
    }

    /// The guild the manifest asks for: the case's edits made to the live one.
    pub fn edited(&self, c: &Case) -> World {
        let mut w = self.clone();
        let (nr, nm) = (w.roles.len(), w.members.len());
        let (ncat, nch) = (w.categories.len(), w.channels.len());
        for e in &c.edits {
            match e {
                Edit::Move { channel, to } => {
                    let i = channel % nch;
                    let to = to.map(|t| t % ncat);
                    // It keeps the overwrites it has now as its own, unless it follows
                    // the category it lands in.
                    let own = w.overwrites_of(i).to_vec();
                    let ch = &mut w.channels[i];
                    let follow = ch.synced && to.is_some();
                    ch.parent = to;
                    ch.synced = follow;
                    if !follow {
                        ch.overwrites = own;
                    }
                }
                Edit::Sync { channel, on } => {
                    let i = channel % nch;
                    let own = w.overwrites_of(i).to_vec();
                    let ch = &mut w.channels[i];
                    if ch.parent.is_some() {
                        ch.synced = *on;
                        ch.overwrites = own;
                    }
                }
                Edit::CategoryOverwrites {
                    category,
                    overwrites,
                } => {
                    w.categories[category % ncat].overwrites = resolve(overwrites, nr, nm);
                }
                Edit::ChannelOverwrites {
                    channel,
                    overwrites,
                } => {
                    let ch = &mut w.channels[channel % nch];
                    ch.synced = false;
                    ch.overwrites = resolve(overwrites, nr, nm);
                }
                Edit::RolePermissions { role, permissions } => {
                    let r = &mut w.roles[role % nr];
                    let admin = r.permissions.contains("administrator");
                    r.permissions = names(*permissions);
                    if admin {
                        r.permissions.insert("administrator");
                    }
                }
                Edit::EveryonePermissions { permissions } => {
                    w.everyone = names(*permissions | 1);
                }
                Edit::RenameRole { role } => {
                    let r = &mut w.roles[role % nr];
                    let new = format!("{}x", r.name);
                    let old = std::mem::replace(&mut r.name, new);
                    r.previous.push(old);
                }
                Edit::RenameChannel { channel } => {
                    let ch = &mut w.channels[channel % nch];
                    let new = format!("{}-x", ch.name);
                    let old = std::mem::replace(&mut ch.name, new);
                    ch.previous.push(old);
                }
                Edit::RenameCategory { category } => {
                    let cat = &mut w.categories[category % ncat];
                    let new = format!("{}x", cat.name);
                    let old = std::mem::replace(&mut cat.name, new);
                    cat.previous.push(old);
                }
                Edit::Roster { role, members } => {
                    let r = role % nr;
                    let holders: BTreeSet<usize> = members.iter().map(|m| m % nm).collect();
                    for (m, held) in w.members.iter_mut().enumerate() {
                        if holders.contains(&m) {
                            held.insert(r);
                        } else {
                            held.remove(&r);
                        }
                    }
                    w.roles[r].roster = Some(holders);
                }
            }
        }
        w
    }

    // ---- written as the emulator's state ----

    fn overwrites_json(&self, o: &[Ow]) -> Vec<Value> {
        o.iter()
            .map(|o| {
                let (id, kind) = match o.target {
                    Target::Everyone => (GUILD.to_string(), 0),
                    Target::Role(r) => (role_id(r), 0),
                    Target::Member(m) => (member_id(m), 1),
                };
                json!({ "id": id, "type": kind, "allow": bits_of(&o.allow), "deny": bits_of(&o.deny) })
            })
            .collect()
    }

    /// The emulator's state holding this guild, as the live guild.
    pub fn state(&self) -> State {
        let n = self.roles.len() as i64;
        let mut roles = vec![
            json!({ "id": GUILD.to_string(), "name": "@everyone", "position": 0,
                    "permissions": bits_of(&self.everyone) }),
            json!({ "id": BOT_ROLE.to_string(), "name": "guildctl", "position": n + 1,
                    "permissions": bits_of(&self.bot), "managed": true,
                    "tags": { "bot_id": BOT.to_string() } }),
        ];
        for (i, r) in self.roles.iter().enumerate() {
            roles.push(
                json!({ "id": role_id(i), "name": r.name, "position": n - i as i64,
                               "permissions": bits_of(&r.permissions) }),
            );
        }
        let mut channels = Vec::new();
        for (i, c) in self.categories.iter().enumerate() {
            channels.push(json!({ "id": channel_id(i), "type": 4, "name": c.name,
                "position": i, "permission_overwrites": self.overwrites_json(&c.overwrites) }));
        }
        let ncat = self.categories.len();
        let mut place: BTreeMap<(Option<usize>, bool), i64> = BTreeMap::new();
        for (i, c) in self.channels.iter().enumerate() {
            let at = place.entry((c.parent, c.voice)).or_default();
            let mut ch = json!({ "id": channel_id(ncat + i), "type": if c.voice { 2 } else { 0 },
                "name": c.name, "position": *at,
                "parent_id": c.parent.map(channel_id),
                "permission_overwrites": self.overwrites_json(self.overwrites_of(i)) });
            if c.voice {
                ch["bitrate"] = json!(64000);
                ch["user_limit"] = json!(0);
            } else {
                ch["rate_limit_per_user"] = json!(0);
            }
            *at += 1;
            channels.push(ch);
        }
        let mut users = vec![
            json!({ "id": OWNER.to_string(), "username": "owner" }),
            json!({ "id": BOT.to_string(), "username": "guildctl", "bot": true }),
        ];
        let mut members = vec![
            json!({ "user_id": OWNER.to_string(), "roles": [] }),
            json!({ "user_id": BOT.to_string(), "roles": [BOT_ROLE.to_string()] }),
        ];
        for (i, held) in self.members.iter().enumerate() {
            users.push(json!({ "id": member_id(i), "username": format!("member{i}") }));
            members.push(json!({ "user_id": member_id(i),
                                 "roles": held.iter().map(|r| role_id(*r)).collect::<Vec<_>>() }));
        }
        let mut state = discord_emulator::default_state();
        let template = serde_json::to_value(&state.guilds[0]).expect("the default guild as JSON");
        let mut guild = json!({
            "id": GUILD.to_string(), "name": "Seams", "owner_id": OWNER.to_string(),
            "roles": roles, "channels": channels, "members": members,
        });
        // Every other field as an empty default guild has it.
        for (k, v) in template.as_object().into_iter().flatten() {
            if guild.get(k).is_none() {
                guild[k] = empty_like(v);
            }
        }
        guild["preferred_locale"] = json!("en-US");
        guild["afk_timeout"] = json!(300);
        guild["max_members"] = json!(500_000);
        state.guilds = vec![serde_json::from_value(guild).expect("a guild the emulator reads")];
        state.users = serde_json::from_value(json!(users)).expect("users");
        state.bot_user_id = BOT.to_string();
        state.tokens.clear();
        state.snowflake.last = CHANNEL0 + 1000;
        state.config.rate_limits_enabled = false;
        state
    }

    // ---- written as the manifest ----

    fn overwrites_yaml(&self, y: &mut String, indent: &str, o: &[Ow]) {
        if o.is_empty() {
            let _ = writeln!(y, "{indent}overwrites: []");
            return;
        }
        let _ = writeln!(y, "{indent}overwrites:");
        for o in o {
            let target = match o.target {
                Target::Everyone => "role: \"@everyone\"".to_owned(),
                Target::Role(r) => format!("role: {}", self.roles[r].name),
                Target::Member(m) => format!("member: \"{}\"", member_id(m)),
            };
            let _ = writeln!(
                y,
                "{indent}  - {target}\n{indent}    allow: {}\n{indent}    deny: {}",
                list(&o.allow),
                list(&o.deny)
            );
        }
    }

    fn channel_yaml(&self, y: &mut String, indent: &str, i: usize) {
        let c = &self.channels[i];
        let _ = writeln!(
            y,
            "{indent}- name: {}\n{indent}  type: {}",
            c.name,
            if c.voice { "voice" } else { "text" }
        );
        if !c.previous.is_empty() {
            let _ = writeln!(y, "{indent}  previous_names: {}", list(&c.previous));
        }
        if c.synced {
            let _ = writeln!(y, "{indent}  sync_permissions: true");
        } else {
            self.overwrites_yaml(y, &format!("{indent}  "), &c.overwrites);
        }
    }

    /// The manifest asking for this guild: every role, category and channel declared.
    pub fn manifest(&self) -> String {
        let mut y = String::from("version: 1\nroles:\n");
        for r in &self.roles {
            let _ = writeln!(y, "  - name: {}", r.name);
            if !r.previous.is_empty() {
                let _ = writeln!(y, "    previous_names: {}", list(&r.previous));
            }
            let _ = writeln!(y, "    permissions: {}", list(&r.permissions));
            if let Some(holders) = &r.roster {
                let ids: Vec<String> = holders
                    .iter()
                    .map(|m| format!("\"{}\"", member_id(*m)))
                    .collect();
                let _ = writeln!(y, "    members: [{}]", ids.join(", "));
            }
        }
        let _ = writeln!(
            y,
            "  - name: \"@everyone\"\n    permissions: {}",
            list(&self.everyone)
        );
        y.push_str("channels:\n");
        for (i, _) in self
            .channels
            .iter()
            .enumerate()
            .filter(|(_, c)| c.parent.is_none())
        {
            self.channel_yaml(&mut y, "  ", i);
        }
        for (k, cat) in self.categories.iter().enumerate() {
            let _ = writeln!(y, "  - name: {}\n    type: category", cat.name);
            if !cat.previous.is_empty() {
                let _ = writeln!(y, "    previous_names: {}", list(&cat.previous));
            }
            self.overwrites_yaml(&mut y, "    ", &cat.overwrites);
            let children: Vec<usize> = (0..self.channels.len())
                .filter(|&i| self.channels[i].parent == Some(k))
                .collect();
            if children.is_empty() {
                continue;
            }
            y.push_str("    channels:\n");
            for i in children {
                self.channel_yaml(&mut y, "      ", i);
            }
        }
        y
    }
}

fn list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let v: Vec<String> = items.into_iter().map(|s| s.as_ref().to_owned()).collect();
    format!("[{}]", v.join(", "))
}

fn bits_of(p: &BTreeSet<&str>) -> String {
    p.iter()
        .map(|n| {
            discord_permissions::Permissions::from_name(n)
                .expect("a permission name")
                .0
        })
        .fold(0u64, |a, b| a | b)
        .to_string()
}

/// A JSON value's empty form: `[]`, `{}`, `null`, `false`, `0` or `""` by its type, so a
/// guild built field by field starts with nothing the default guild holds.
fn empty_like(v: &Value) -> Value {
    match v {
        Value::Array(_) => json!([]),
        Value::Object(o) => {
            // Nested settings objects (welcome screen, onboarding) keep their shape, empty.
            Value::Object(o.iter().map(|(k, v)| (k.clone(), empty_like(v))).collect())
        }
        Value::Null => Value::Null,
        Value::Bool(_) => json!(false),
        Value::Number(_) => json!(0),
        Value::String(_) => json!(""),
    }
}
