//! Discord's documented rules, case by case (`topics/permissions`: "Permission
//! Overwrites", "Implicit Permissions", "Inherited Permissions (Threads)", "Channel
//! Visibility", "Permission Syncing"), on one small guild.

use super::*;
use crate::access::model::{ChannelSpec, Guild, Overwrite};

const GUILD: &str = "1";
const OWNER: &str = "900";
const HELEN: &str = "500"; // Helper, let into #vip by a member overwrite
const MARK: &str = "501"; // Moderator, kept from sending in #vip by one

fn p(names: &[&str]) -> Permissions {
    names
        .iter()
        .map(|n| Permissions::from_name(n).unwrap_or_else(|| panic!("{n}")))
        .fold(Permissions::NONE, |a, b| a | b)
}

fn role(target: &str, allow: &[&str], deny: &[&str]) -> Overwrite {
    Overwrite {
        target: target.into(),
        kind: ROLE,
        allow: p(allow),
        deny: p(deny),
    }
}

fn member(target: &str, allow: &[&str], deny: &[&str]) -> Overwrite {
    Overwrite {
        kind: MEMBER,
        ..role(target, allow, deny)
    }
}

/// A channel of the fixture: id, name, type, category, overwrites.
type ChannelRow = (
    &'static str,
    &'static str,
    u8,
    Option<&'static str>,
    Vec<Overwrite>,
);

/// Roles: Admin (10), Mod (11), Helper (12), Muted (13), Kicker (14); channels as below.
fn guild() -> Guild {
    let mut g = Guild::new(
        GUILD,
        p(&[
            "view_channel",
            "send_messages",
            "read_message_history",
            "add_reactions",
            "embed_links",
            "attach_files",
            "connect",
            "speak",
            "create_public_threads",
            "send_messages_in_threads",
            "request_to_speak",
        ]),
    );
    g.owner_id = OWNER.into();
    for (id, name, perms) in [
        ("10", "Admin", p(&["administrator"])),
        ("11", "Mod", p(&["kick_members", "manage_messages"])),
        ("12", "Helper", Permissions::NONE),
        ("13", "Muted", Permissions::NONE),
        ("14", "Kicker", p(&["kick_members"])),
    ] {
        g.set_role(id, name, Some(perms), None, None);
    }
    let t = channel_type::TEXT;
    let staff = vec![
        role(GUILD, &[], &["view_channel"]),
        role("11", &["view_channel"], &[]),
    ];
    let channels: Vec<ChannelRow> = vec![
        ("20", "general", t, None, vec![]),
        (
            "21",
            "announcements",
            channel_type::ANNOUNCEMENT,
            None,
            vec![
                role(GUILD, &[], &["send_messages"]),
                role("11", &["send_messages"], &[]),
            ],
        ),
        ("22", "Staff", channel_type::CATEGORY, None, staff.clone()),
        ("23", "mod-chat", t, Some("22"), staff),
        (
            "24",
            "mod-log",
            t,
            Some("22"),
            vec![
                role(GUILD, &[], &["view_channel"]),
                role("11", &["view_channel"], &["send_messages"]),
                role("12", &["send_messages"], &[]),
                role("10", &["view_channel", "send_messages"], &[]),
            ],
        ),
        (
            "25",
            "Lounge",
            channel_type::VOICE,
            None,
            vec![role("13", &[], &["speak"])],
        ),
        ("26", "Town Hall", channel_type::STAGE, None, vec![]),
        (
            "27",
            "Silent",
            channel_type::VOICE,
            None,
            vec![role(GUILD, &[], &["connect"])],
        ),
        ("28", "forum", channel_type::FORUM, None, vec![]),
        (
            "29",
            "Empty",
            channel_type::CATEGORY,
            None,
            vec![role(GUILD, &[], &["view_channel"])],
        ),
        (
            "30",
            "Secret",
            channel_type::CATEGORY,
            None,
            vec![role(GUILD, &[], &["view_channel"])],
        ),
        (
            "31",
            "leak",
            t,
            Some("30"),
            vec![role(GUILD, &["view_channel"], &[])],
        ),
        (
            "32",
            "vip",
            t,
            None,
            vec![
                role(GUILD, &[], &["view_channel"]),
                role("11", &["view_channel", "send_messages"], &[]),
                member(HELEN, &["view_channel"], &[]),
                member(MARK, &[], &["send_messages"]),
                member(OWNER, &[], &["view_channel"]),
            ],
        ),
        (
            "33",
            "blind",
            t,
            None,
            vec![role(GUILD, &["send_messages"], &["view_channel"])],
        ),
        (
            "34",
            "threads-only",
            t,
            None,
            vec![role(
                GUILD,
                &["send_messages_in_threads"],
                &["send_messages"],
            )],
        ),
        (
            "35",
            "show-off",
            t,
            None,
            vec![
                role(GUILD, &["mention_everyone"], &[]),
                role("13", &[], &["mention_everyone"]),
            ],
        ),
    ];
    for (id, name, kind, parent, ows) in channels {
        g.set_channel(
            ChannelSpec {
                id,
                name,
                kind,
                parent,
            },
            Some(ows),
            None,
            None,
        );
    }
    g.members.insert(
        HELEN.into(),
        crate::access::model::Member {
            roles: ["12".to_owned()].into(),
            ..Default::default()
        },
    );
    g.members.insert(
        MARK.into(),
        crate::access::model::Member {
            roles: ["11".to_owned()].into(),
            ..Default::default()
        },
    );
    g
}

/// Effective permissions of `h` in the channel named `name`.
fn in_channel(g: &Guild, h: &Holder, name: &str) -> Permissions {
    let i = g
        .channels
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("channel {name}"));
    g.access(h).channels[i]
}

enum Who {
    Everyone,
    Roles(&'static [&'static str]),
    User(&'static str),
}

struct Case {
    rule: &'static str,
    who: Who,
    channel: &'static str,
    has: &'static [&'static str],
    lacks: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        rule: "@everyone's base permissions hold where nothing overwrites them",
        who: Who::Everyone,
        channel: "general",
        has: &[
            "view_channel",
            "send_messages",
            "read_message_history",
            "add_reactions",
        ],
        lacks: &["manage_messages", "mention_everyone"],
    },
    Case {
        rule: "voice permissions mean nothing in a text channel",
        who: Who::Everyone,
        channel: "general",
        has: &[],
        lacks: &["connect", "speak", "request_to_speak"],
    },
    Case {
        rule: "administrator has every permission a text channel knows",
        who: Who::Roles(&["10"]),
        channel: "general",
        has: &[
            "manage_messages",
            "manage_roles",
            "mention_everyone",
            "pin_messages",
        ],
        lacks: &["speak", "kick_members", "administrator"],
    },
    Case {
        rule: "administrator bypasses @everyone's deny",
        who: Who::Roles(&["10"]),
        channel: "Staff",
        has: &["view_channel", "manage_channels"],
        lacks: &[],
    },
    Case {
        rule: "administrator bypasses a role's deny",
        who: Who::Roles(&["10", "13"]),
        channel: "Lounge",
        has: &["speak", "mute_members"],
        lacks: &[],
    },
    Case {
        rule: "the owner has everything, with no role",
        who: Who::User(OWNER),
        channel: "mod-log",
        has: &["view_channel", "send_messages", "manage_roles"],
        lacks: &[],
    },
    Case {
        rule: "the owner bypasses a member overwrite that denies them",
        who: Who::User(OWNER),
        channel: "vip",
        has: &["view_channel", "send_messages"],
        lacks: &[],
    },
    Case {
        rule: "@everyone's deny hides a channel",
        who: Who::Everyone,
        channel: "mod-log",
        has: &[],
        lacks: &["view_channel"],
    },
    Case {
        rule: "a role's allow beats @everyone's deny",
        who: Who::Roles(&["11"]),
        channel: "mod-log",
        has: &["view_channel", "read_message_history", "manage_messages"],
        lacks: &[],
    },
    Case {
        rule: "a role's deny takes what the base gave",
        who: Who::Roles(&["11"]),
        channel: "mod-log",
        has: &[],
        lacks: &["send_messages"],
    },
    Case {
        rule: "no send_messages takes embed_links and attach_files with it",
        who: Who::Roles(&["11"]),
        channel: "mod-log",
        has: &["add_reactions"],
        lacks: &["embed_links", "attach_files", "send_tts_messages"],
    },
    Case {
        rule: "roles count together: one role's allow beats another's deny",
        who: Who::Roles(&["11", "12"]),
        channel: "mod-log",
        has: &["view_channel", "send_messages", "embed_links"],
        lacks: &[],
    },
    Case {
        rule: "an allow for a role that cannot see the channel shows nothing",
        who: Who::Roles(&["12"]),
        channel: "mod-log",
        has: &[],
        lacks: &["view_channel", "send_messages"],
    },
    Case {
        rule: "a member's overwrite lets one user in",
        who: Who::User(HELEN),
        channel: "vip",
        has: &["view_channel", "send_messages"],
        lacks: &[],
    },
    Case {
        rule: "a member's overwrite is theirs alone: the role without the user stays out",
        who: Who::Roles(&["12"]),
        channel: "vip",
        has: &[],
        lacks: &["view_channel"],
    },
    Case {
        rule: "a member's deny beats their role's allow",
        who: Who::User(MARK),
        channel: "vip",
        has: &["view_channel", "read_message_history"],
        lacks: &["send_messages", "attach_files"],
    },
    Case {
        rule: "without view_channel nothing counts, not even the base's reactions",
        who: Who::Everyone,
        channel: "vip",
        has: &[],
        lacks: &["add_reactions", "read_message_history", "send_messages"],
    },
    Case {
        rule: "without view_channel an allowed send_messages counts for nothing",
        who: Who::Everyone,
        channel: "blind",
        has: &[],
        lacks: &["send_messages"],
    },
    Case {
        rule: "an announcement channel others cannot write in is still read",
        who: Who::Everyone,
        channel: "announcements",
        has: &["view_channel", "read_message_history", "add_reactions"],
        lacks: &["send_messages", "embed_links", "attach_files"],
    },
    Case {
        rule: "a role allowed to send in an announcement channel does",
        who: Who::Roles(&["11"]),
        channel: "announcements",
        has: &["send_messages", "embed_links"],
        lacks: &[],
    },
    Case {
        rule: "threads: sending in them is send_messages_in_threads alone",
        who: Who::Everyone,
        channel: "threads-only",
        has: &["send_messages_in_threads", "create_public_threads"],
        lacks: &["send_messages"],
    },
    Case {
        rule: "no send_messages takes mention_everyone even when allowed",
        who: Who::Everyone,
        channel: "threads-only",
        has: &[],
        lacks: &["mention_everyone"],
    },
    Case {
        rule: "an @everyone allow grants what the base lacked",
        who: Who::Everyone,
        channel: "show-off",
        has: &["mention_everyone"],
        lacks: &[],
    },
    Case {
        rule: "a role's deny beats @everyone's allow",
        who: Who::Roles(&["13"]),
        channel: "show-off",
        has: &["send_messages"],
        lacks: &["mention_everyone"],
    },
    Case {
        rule: "voice: members connect and speak; thread permissions mean nothing there",
        who: Who::Everyone,
        channel: "Lounge",
        has: &["view_channel", "connect", "speak", "send_messages"],
        lacks: &[
            "send_messages_in_threads",
            "create_public_threads",
            "request_to_speak",
        ],
    },
    Case {
        rule: "voice: a role denied speak connects but stays silent",
        who: Who::Roles(&["13"]),
        channel: "Lounge",
        has: &["connect"],
        lacks: &["speak"],
    },
    Case {
        rule: "voice: without connect only view_channel is left",
        who: Who::Everyone,
        channel: "Silent",
        has: &["view_channel"],
        lacks: &["connect", "speak", "send_messages", "read_message_history"],
    },
    Case {
        rule: "stage: request_to_speak means something there, speak does not",
        who: Who::Everyone,
        channel: "Town Hall",
        has: &["connect", "request_to_speak"],
        lacks: &["speak"],
    },
    Case {
        rule: "forum: send_messages (new posts) and thread permissions apply",
        who: Who::Everyone,
        channel: "forum",
        has: &[
            "send_messages",
            "send_messages_in_threads",
            "create_public_threads",
        ],
        lacks: &["connect"],
    },
    Case {
        rule: "a category's own allow shows it",
        who: Who::Roles(&["11"]),
        channel: "Staff",
        has: &["view_channel"],
        lacks: &[],
    },
    Case {
        rule: "a category shows what any of its kinds of channel inherit",
        who: Who::Roles(&["11"]),
        channel: "Staff",
        has: &["connect", "speak", "send_messages_in_threads"],
        lacks: &["kick_members"],
    },
    Case {
        rule: "a category is visible when one of its channels is",
        who: Who::Everyone,
        channel: "Secret",
        has: &["view_channel"],
        lacks: &["send_messages"],
    },
    Case {
        rule: "a category denied to all, with no channel, is hidden",
        who: Who::Everyone,
        channel: "Empty",
        has: &[],
        lacks: &["view_channel"],
    },
    Case {
        rule: "a channel synced with its category has the category's access",
        who: Who::Roles(&["11"]),
        channel: "mod-chat",
        has: &["view_channel", "send_messages"],
        lacks: &[],
    },
    Case {
        rule: "a synced channel hides from @everyone as its category does",
        who: Who::Everyone,
        channel: "mod-chat",
        has: &[],
        lacks: &["view_channel"],
    },
    Case {
        rule: "guild-wide permissions are not channel permissions",
        who: Who::Roles(&["14"]),
        channel: "general",
        has: &["send_messages"],
        lacks: &["kick_members"],
    },
    Case {
        rule: "a role id the guild does not have grants nothing",
        who: Who::Roles(&["999"]),
        channel: "mod-log",
        has: &[],
        lacks: &["view_channel"],
    },
];

#[test]
fn discord_rules_case_by_case() {
    let g = guild();
    assert!(CASES.len() >= 30, "{} cases", CASES.len());
    let mut failures = Vec::new();
    for c in CASES {
        let h = match &c.who {
            Who::Everyone => Holder::everyone(),
            Who::Roles(ids) => Holder::roles(ids.iter().copied()),
            Who::User(u) => Holder::member(&g, u),
        };
        let got = in_channel(&g, &h, c.channel);
        for n in c.has {
            if !got.contains(p(&[n])) {
                failures.push(format!("{}: lacks {n} in {}", c.rule, c.channel));
            }
        }
        for n in c.lacks {
            if got.contains(p(&[n])) {
                failures.push(format!("{}: has {n} in {}", c.rule, c.channel));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn guild_wide_permissions_come_from_every_role_held() {
    let g = guild();
    assert!(
        g.base(&Holder::roles(["14"]))
            .contains(p(&["kick_members"]))
    );
    assert!(!g.base(&Holder::everyone()).contains(p(&["kick_members"])));
    assert_eq!(g.base(&Holder::roles(["10"])), Permissions::ALL);
    assert_eq!(g.base(&Holder::member(&g, OWNER)), Permissions::ALL);
}

#[test]
fn a_category_carries_new_overwrites_to_its_synced_channels_only() {
    let mut g = guild();
    let open = vec![role(GUILD, &[], &[])];
    g.set_channel(
        ChannelSpec {
            id: "22",
            name: "Staff",
            kind: channel_type::CATEGORY,
            parent: None,
        },
        Some(open),
        None,
        Some(7),
    );
    let everyone = Holder::everyone();
    // mod-chat was synced: it follows, and says which change did it.
    assert!(in_channel(&g, &everyone, "mod-chat").contains(Permissions::VIEW_CHANNEL));
    assert_eq!(g.channel("23").unwrap().changed_by, vec![7]);
    // mod-log had overwrites of its own: it keeps them.
    assert!(!in_channel(&g, &everyone, "mod-log").contains(Permissions::VIEW_CHANNEL));
}

#[test]
fn a_new_channel_in_a_category_copies_its_overwrites() {
    let mut g = guild();
    g.set_channel(
        ChannelSpec {
            id: "channel:Staff/new",
            name: "new",
            kind: channel_type::TEXT,
            parent: Some("22"),
        },
        None,
        None,
        Some(1),
    );
    assert!(!in_channel(&g, &Holder::everyone(), "new").contains(Permissions::VIEW_CHANNEL));
    assert!(in_channel(&g, &Holder::roles(["11"]), "new").contains(Permissions::VIEW_CHANNEL));
    assert_eq!(
        g.path(g.channel_index("channel:Staff/new").unwrap()),
        "Staff/#new"
    );
}

#[test]
fn a_deleted_role_leaves_overwrites_and_members() {
    let mut g = guild();
    g.remove_role("11");
    assert!(
        g.channel("24")
            .unwrap()
            .overwrites
            .iter()
            .all(|o| o.target != "11")
    );
    assert!(
        !in_channel(&g, &Holder::member(&g, MARK), "mod-log").contains(Permissions::VIEW_CHANNEL)
    );
}
