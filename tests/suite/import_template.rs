//! `guildctl import template`: a Discord server template becomes a manifest that validates,
//! applies to the emulator and then plans to no changes; names made distinct and what the
//! manifest cannot express are said on stderr and at the top of the file; hostile templates
//! are refused with the JSON path at fault, never a panic.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{GuildNames, Harness, bare_guild_state};
use guildctl::import::{NoteKind, import_template};
use guildctl::manifest;
use proptest::prelude::*;
use serde_json::{Value, json};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

const BOOK_CLUB: &str = "template-book-club.json";

// ---------------------------------------------------------------------------------------------
// A realistic template, as large as the public ones of issue 20: 40 roles, 90 channels in 10
// categories, about 1,500 overwrites; duplicate names; voice, forum, announcement and stage
// channels; permission bits without a name.

const ROLE_NAMES: [&str; 39] = [
    // Lowest first, as a template lists them (after @everyone).
    "Muted",
    "Bots",
    "Member",
    "Level 1",
    "Level 5",
    "Level 10",
    "Level 20",
    "Level 30",
    "Level 50",
    "🎮 Gamer",
    "🎨 Artist",
    "🎵 Musician",
    "📚 Reader",
    "he/him",
    "she/her",
    "they/them",
    "Europe",
    "Americas",
    "Asia",
    "Oceania",
    "Announcements Ping",
    "Events Ping",
    "Member",
    "Server Booster",
    "Patreon",
    "Verified",
    "Contributor",
    "Partner",
    "Event Host",
    "・Helper・",
    "Support",
    "Trial Mod",
    "Moderator",
    "Senior Mod",
    "Community Manager",
    "Developer",
    "Admin",
    "Co-Owner",
    "Owner",
];

/// Permissions by rank: the higher the role, the more it may do; a few carry bits guildctl
/// has no name for (47, 53, 60), as templates of newer guilds do.
fn role_permissions(k: usize) -> u64 {
    let named = |names: &[&str]| -> u64 {
        names
            .iter()
            .map(|n| {
                guildctl::permissions::Permissions::from_name(n)
                    .unwrap()
                    .bits()
            })
            .fold(0, |a, b| a | b)
    };
    let mut p = match k {
        0 => 0,
        1..=28 => named(&["change_nickname", "embed_links", "attach_files"]),
        29..=33 => named(&[
            "manage_messages",
            "moderate_members",
            "kick_members",
            "view_audit_log",
            "manage_threads",
        ]),
        34..=37 => named(&[
            "manage_channels",
            "manage_roles",
            "ban_members",
            "manage_guild",
        ]),
        _ => named(&["administrator"]),
    };
    if k % 9 == 4 {
        p |= 1 << 47;
    }
    if k == 20 {
        p |= (1 << 53) | (1 << 60);
    }
    p
}

/// Roles a channel's overwrites name, by template id: `count` of them starting at `from`.
fn overwrites(from: usize, count: usize, allow: u64, deny: u64) -> Vec<Value> {
    let mut out = vec![json!({"id": 0, "type": 0, "allow": "0", "deny": "1024"})];
    for j in 0..count {
        let role = 1 + (from + j * 2) % 39;
        let extra = if j % 5 == 0 { 1u64 << 47 } else { 0 };
        out.push(json!({
            "id": role,
            "type": 0,
            "allow": (allow | extra).to_string(),
            "deny": if j % 3 == 0 { deny.to_string() } else { "0".to_string() },
        }));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn channel(
    id: usize,
    kind: u8,
    name: &str,
    position: usize,
    parent: Option<usize>,
    ows: Vec<Value>,
    extra: Value,
) -> Value {
    let mut c = json!({
        "id": id,
        "type": kind,
        "name": name,
        "position": position,
        "topic": null,
        "bitrate": 64000,
        "user_limit": 0,
        "nsfw": false,
        "rate_limit_per_user": 0,
        "parent_id": parent,
        "default_auto_archive_duration": null,
        "permission_overwrites": ows,
        "available_tags": null,
        "template": "",
        "default_reaction_emoji": null,
        "default_thread_rate_limit_per_user": null,
        "default_sort_order": null,
        "default_forum_layout": null,
        "default_tag_setting": null,
        "theme_color": null,
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        c[k] = v.clone();
    }
    c
}

const CATEGORIES: [&str; 10] = [
    "Information",
    "Community",
    "Gaming",
    "Creative",
    "Voice",
    "Events",
    "Support",
    "Staff",
    "Community",
    "Archive",
];

/// The large template; its number of role overwrites is the second value.
fn big_template() -> (Value, usize) {
    let view = 1u64 << 10;
    let send = 1u64 << 11;
    let connect = 1u64 << 20;
    let speak = 1u64 << 21;
    let mut roles = vec![json!({
        "id": 0, "name": "@everyone",
        "permissions": (1u64 << 10 | 1 << 11 | 1 << 16 | 1 << 20 | 1 << 21 | 1 << 47).to_string(),
        "color": 0, "colors": null, "hoist": false, "mentionable": false,
        "icon": null, "unicode_emoji": null,
    })];
    for (k, name) in ROLE_NAMES.iter().enumerate() {
        let k = k + 1;
        let color = (k as u64 * 0x0a1b2c) & 0xFF_FFFF;
        let colors = if k % 13 == 0 {
            json!({"primary_color": color, "secondary_color": 0x00ff00, "tertiary_color": null})
        } else {
            json!({"primary_color": color, "secondary_color": null, "tertiary_color": null})
        };
        roles.push(json!({
            "id": k,
            "name": name,
            "permissions": role_permissions(k).to_string(),
            "color": color,
            "colors": colors,
            "hoist": k > 28,
            "mentionable": k % 4 == 0,
            "icon": null,
            "unicode_emoji": if k == 12 { json!("📚") } else { json!(null) },
        }));
    }
    let mut channels = vec![
        channel(
            1,
            0,
            "welcome",
            0,
            None,
            vec![],
            json!({"topic": "Start here"}),
        ),
        channel(2, 2, "AFK", 1, None, vec![], json!({"bitrate": 8000})),
    ];
    let mut next = 100;
    for (c, cat_name) in CATEGORIES.iter().enumerate() {
        let cat_id = 10 + c;
        let cat_ows = overwrites(c * 3, 16, view | send, 1 << 13);
        channels.push(channel(
            cat_id,
            4,
            cat_name,
            c,
            None,
            cat_ows.clone(),
            json!({}),
        ));
        // Eight channels a category (seven in the last two): text, a duplicate "general",
        // voice (two called Lounge), and one of forum, announcement or stage by turn.
        for j in 0..if c < 8 { 8 } else { 7 } {
            next += 1;
            let (kind, name, extra) = match j {
                0 => (
                    0,
                    "general".to_string(),
                    json!({"topic": "Chat about anything", "rate_limit_per_user": 5}),
                ),
                1 if c % 2 == 0 => (
                    0,
                    "general".to_string(),
                    json!({"default_auto_archive_duration": 4320}),
                ),
                1 => (0, format!("chat-{c}"), json!({})),
                2 => (2, "Lounge".to_string(), json!({"user_limit": 10})),
                3 if c == 4 => (2, "Lounge".to_string(), json!({"bitrate": 96000})),
                3 => (2, format!("Room {c}"), json!({})),
                4 => match c % 3 {
                    0 => (
                        15,
                        format!("help-{c}"),
                        json!({
                            "topic": "One post per question",
                            "available_tags": [
                                {"id": null, "name": "solved", "emoji_id": null, "emoji_name": "✅", "moderated": true},
                                {"id": null, "name": "question", "emoji_id": null, "emoji_name": null, "moderated": false},
                            ],
                            "default_reaction_emoji": {"emoji_id": null, "emoji_name": "👍"},
                            "default_sort_order": 0,
                            "default_forum_layout": 1,
                            "default_thread_rate_limit_per_user": 60,
                        }),
                    ),
                    1 => (5, format!("news-{c}"), json!({"topic": "Announcements"})),
                    _ => (
                        13,
                        format!("Stage {c}"),
                        json!({"bitrate": 64000, "user_limit": 500}),
                    ),
                },
                5 => (0, format!("media-{c}"), json!({"nsfw": c == 3})),
                6 => (0, format!("bots-{c}"), json!({"rate_limit_per_user": 30})),
                _ => (0, format!("off-topic-{c}"), json!({})),
            };
            // Most channels keep their category's overwrites; every third has its own.
            let ows = if j % 3 == 2 {
                let (allow, deny) = if matches!(kind, 2 | 13) {
                    (view | connect | speak, 0)
                } else {
                    (view | send, 1 << 6)
                };
                overwrites(c * 5 + j, 16, allow, deny)
            } else {
                cat_ows.clone()
            };
            // Positions as Discord writes them: voice counted apart from text.
            channels.push(channel(next, kind, &name, j, Some(cat_id), ows, extra));
        }
    }
    let role_overwrites = channels
        .iter()
        .map(|c| c["permission_overwrites"].as_array().unwrap().len())
        .sum();
    let template = json!({
        "code": "BiG7eMpLaTe1",
        "name": "Big Community",
        "description": "A generated template the size of real ones",
        "usage_count": 1,
        "creator_id": "132837293881950208",
        "creator": null,
        "created_at": "2024-01-01T00:00:00+00:00",
        "updated_at": "2024-01-01T00:00:00+00:00",
        "source_guild_id": "678070694164299796",
        "serialized_source_guild": {
            "name": "Big Community",
            "description": "Everything in one place",
            "region": null,
            "verification_level": 2,
            "default_message_notifications": 1,
            "explicit_content_filter": 1,
            "preferred_locale": "en-GB",
            "afk_channel_id": 2,
            "afk_timeout": 900,
            "system_channel_id": 1,
            "system_channel_flags": 5,
            "roles": roles,
            "channels": channels,
            "icon_hash": null,
        },
        "is_dirty": null,
    });
    (template, role_overwrites)
}

fn write(h: &Harness, name: &str, v: &Value) -> String {
    let path = h.dir.path().join(name);
    std::fs::write(&path, serde_json::to_string_pretty(v).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

// ---------------------------------------------------------------------------------------------
// Tests

#[tokio::test]
async fn a_small_template_imports_as_written_here() {
    let h = Harness::start().await;
    let run = h
        .run(&["import", "template", data(BOOK_CLUB).to_str().unwrap()])
        .await;
    run.assert_code(0);
    insta::assert_snapshot!("book_club", run.stdout);
    // Every renamed, changed or left-out part: one line each on stderr.
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: "))
        .collect();
    assert_eq!(notes.len(), 7, "{}", run.stderr);
    assert!(notes.contains(
        &"note: renamed: role \"Member\" is \"Member (2)\": another role has that name (at serialized_source_guild.roles[1].name)"
    ), "{notes:#?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("\"spoilers\" is \"spoilers-2\"")),
        "{notes:#?}"
    );
    // The same renames head the file.
    assert!(
        run.stdout.contains(
            "# Renamed so that every name is distinct:\n#   role \"Member\" is \"Member (2)\""
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.starts_with(&format!(
        "# yaml-language-server: $schema={}\n# Imported by `guildctl import template` from template \"Book Club\" (code bK7cLuB2x9Qz) of guild 678070694164299796.\n",
        manifest::SCHEMA_ID
    )));
    assert!(h.requests().is_empty(), "import uses no network");
}

#[tokio::test]
async fn a_small_template_applies_to_the_sandbox_guild_and_converges() {
    // The default guild already has roles and channels of these names: apply adopts them.
    // The template's role emoji needs ROLE_ICONS, which the guild is given here (without it,
    // see the test below).
    let h = Harness::with_state(Some(with_role_icons(discord_emulator::default_state()))).await;
    let m = h.dir.path().join("book-club.yaml");
    let m = m.to_str().unwrap();
    h.run(&[
        "import",
        "template",
        data(BOOK_CLUB).to_str().unwrap(),
        "-o",
        m,
    ])
    .await
    .assert_code(0);
    h.run(&["validate", "-f", m]).await.assert_code(0);
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let again = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    again.assert_code(0);
    let g = h.guild();
    let named = |n: &str| g.roles.iter().filter(|r| r.name == n).count();
    assert_eq!((named("Member"), named("Member (2)")), (1, 1));
    let spoilers: Vec<_> = g
        .channels
        .iter()
        .filter(|c| c.name.starts_with("spoilers"))
        .collect();
    assert_eq!(spoilers.len(), 2);
    let forum = g.channel_named("reviews");
    assert_eq!(forum.kind, 15);
    assert_eq!(forum.available_tags.len(), 3);
}

/// `state` with the guild feature a role's `unicode_emoji` needs.
fn with_role_icons(mut state: discord_emulator::State) -> discord_emulator::State {
    state.guilds[0].features.push("ROLE_ICONS".into());
    state
}

#[tokio::test]
async fn a_template_role_emoji_is_kept_and_refused_at_plan_on_a_guild_without_role_icons() {
    let h = Harness::start().await;
    let m = h.dir.path().join("book-club.yaml");
    let m = m.to_str().unwrap();
    let run = h
        .run(&[
            "import",
            "template",
            data(BOOK_CLUB).to_str().unwrap(),
            "-o",
            m,
        ])
        .await;
    run.assert_code(0);
    assert!(
        run.stderr.contains("note: needs a guild feature: role \"Member\" keeps its emoji 📚, which needs the guild feature ROLE_ICONS"),
        "{}",
        run.stderr
    );
    let yaml = std::fs::read_to_string(m).unwrap();
    let line = 1 + yaml
        .lines()
        .position(|l| l.contains("unicode_emoji: 📚") || l.contains("unicode_emoji: \"📚\""))
        .unwrap_or_else(|| panic!("the emoji is kept: {yaml}"));

    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr
            .contains("`unicode_emoji` needs the guild feature ROLE_ICONS"),
        "{}",
        plan.stderr
    );
    assert!(
        plan.stderr.contains(&format!("book-club.yaml:{line}:")),
        "at line {line}: {}",
        plan.stderr
    );
    assert!(h.writes().is_empty());

    // As the help says: without the line, it applies and converges.
    let kept: Vec<&str> = yaml
        .lines()
        .filter(|l| !l.contains("unicode_emoji: "))
        .collect();
    std::fs::write(m, kept.join("\n") + "\n").unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    h.run(&["plan", "-f", m, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_realistic_template_imports_validates_applies_and_converges() {
    let (template, role_overwrites) = big_template();
    assert!(
        (1400..=1600).contains(&role_overwrites),
        "{role_overwrites} overwrites"
    );
    // Role 12's emoji needs ROLE_ICONS.
    let h = Harness::with_state(Some(with_role_icons(bare_guild_state()))).await;
    let file = write(&h, "big.json", &template);
    let m = h.dir.path().join("big.yaml");
    let m = m.to_str().unwrap();
    let started = Instant::now();
    let run = h.run(&["import", "template", &file, "-o", m]).await;
    eprintln!("import of the large template: {:?}", started.elapsed());
    run.assert_code(0);
    assert!(
        run.stderr.contains("Wrote ")
            && run
                .stderr
                .contains("(40 roles, 90 channels and categories;"),
        "{}",
        run.stderr
    );
    // The two "general" in even categories, the two Lounges in Voice, the two "Member" and
    // the two "Community" categories' names: each duplicate renamed, said once.
    let renamed: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: renamed: "))
        .collect();
    assert_eq!(renamed.len(), 5 + 1 + 1 + 1, "{renamed:#?}");
    let validate = h.run(&["validate", "-f", m]).await;
    validate.assert_code(0);
    assert!(!validate.stderr.contains("error:"), "{}", validate.stderr);

    let apply = h.run(&["apply", "-f", m, "--yes"]).await;
    apply.assert_code(0);
    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    again.assert_code(0);
    assert!(h.writes().is_empty());

    // Everything arrived: 39 roles beside @everyone and the bot's, 90 channels, and every
    // overwrite of the template on its channel.
    let g = h.guild();
    assert_eq!(
        g.roles.len(),
        40 + 1,
        "{:?}",
        g.roles.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
    assert_eq!(g.channels.len(), 90);
    let live: usize = g
        .channels
        .iter()
        .map(|c| c.permission_overwrites.len())
        .sum();
    assert_eq!(live, role_overwrites);
    for name in ["Member (2)", "general-2", "Lounge (2)", "Community (2)"] {
        let found =
            g.roles.iter().any(|r| r.name == name) || g.channels.iter().any(|c| c.name == name);
        assert!(found, "{name} is in the guild");
    }
    let kinds: Vec<u8> = g.channels.iter().map(|c| c.kind).collect();
    for kind in [0, 2, 4, 5, 13, 15] {
        assert!(kinds.contains(&kind), "a channel of type {kind}");
    }
    // Bits without a name arrive as they are.
    // Role 20 of the template (see role_permissions).
    let ping = g.role_named(ROLE_NAMES[20 - 1]);
    assert_eq!(
        ping.permissions.bits() & ((1 << 53) | (1 << 60)),
        (1 << 53) | (1 << 60)
    );
    assert_eq!(g.afk_timeout, 900);
    assert_eq!(g.preferred_locale, "en-GB");
}

#[test]
fn the_realistic_template_keeps_role_order_highest_first() {
    let (template, _) = big_template();
    let imported = import_template(&template.to_string()).unwrap();
    let roles: Vec<String> = imported
        .manifest
        .roles
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(roles.first().map(String::as_str), Some("Owner"));
    assert_eq!(roles.last().map(String::as_str), Some("@everyone"));
    assert_eq!(roles[roles.len() - 2], "Muted");
    // The higher "Member" keeps the name; the lower is the one renamed.
    let member = roles.iter().position(|r| r == "Member").unwrap();
    let second = roles.iter().position(|r| r == "Member (2)").unwrap();
    assert!(member < second, "{roles:?}");
    // Every note is about a renamed duplicate or a gradient (roles 13, 26, 39).
    let left_out: Vec<_> = imported
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::LeftOut)
        .collect();
    assert_eq!(left_out.len(), 3, "{left_out:#?}");
    assert!(left_out.iter().all(|n| n.message.contains("gradient")));
}

#[tokio::test]
async fn a_broken_template_is_refused_naming_the_json_path() {
    let h = Harness::start().await;
    let mut t: Value =
        serde_json::from_str(&std::fs::read_to_string(data(BOOK_CLUB)).unwrap()).unwrap();
    t["serialized_source_guild"]["roles"][2]["permissions"] = json!("lots");
    let file = write(&h, "broken.json", &t);
    let run = h.run(&["import", "template", &file]).await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("`serialized_source_guild.roles[2].permissions` in the template"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let file = h.dir.path().join("not-json.json");
    std::fs::write(&file, "{\"serialized_source_guild\": ").unwrap();
    let run = h.run(&["import", "template", file.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("the template is not JSON"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn outside_names_reach_yaml_exactly_and_stderr_escaped() {
    let h = Harness::start().await;
    let mut t: Value =
        serde_json::from_str(&std::fs::read_to_string(data(BOOK_CLUB)).unwrap()).unwrap();
    let evil = "Mod\n# injected: true\u{1b}[31m \u{202e}x";
    t["serialized_source_guild"]["roles"][3]["name"] = json!(evil);
    t["serialized_source_guild"]["roles"][2]["name"] = json!(evil);
    let file = write(&h, "evil.json", &t);
    let out = h.dir.path().join("evil.yaml");
    let run = h
        .run(&["import", "template", &file, "-o", out.to_str().unwrap()])
        .await;
    run.assert_code(0);
    assert!(!run.stderr.contains('\u{1b}') && !run.stderr.contains('\u{202e}'));
    assert!(
        run.stderr
            .contains("Mod\\n# injected: true\\u{1b}[31m \\u{202e}x"),
        "{}",
        run.stderr
    );
    let text = std::fs::read_to_string(&out).unwrap();
    // No line of the file starts with what the name carried: it stayed inside its string.
    assert!(!text.lines().any(|l| l.starts_with("# injected")), "{text}");
    let loaded = manifest::load(&out).expect("the manifest loads");
    let names: Vec<&str> = loaded
        .manifest
        .roles
        .iter()
        .flatten()
        .map(|r| r.name.as_str())
        .collect();
    assert!(names.contains(&evil), "{names:?}");
    assert!(names.contains(&format!("{evil} (2)").as_str()), "{names:?}");
}

#[tokio::test]
async fn a_fifo_or_folder_is_refused_before_it_is_read() {
    let h = Harness::start().await;
    let run = h
        .run(&["import", "template", h.dir.path().to_str().unwrap()])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("is not a regular file"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile input: nothing panics, and a template that imports gives a manifest that validates.

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::from),
        "[0-9]{1,21}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Values of a template's fields: of the right type (but any value: names of any length,
/// integers out of range, ids that name nothing) or, with `junk`, sometimes any JSON at all.
fn field(right: impl Strategy<Value = Value> + 'static, junk: bool) -> BoxedStrategy<Value> {
    if junk {
        prop_oneof![8 => right, 1 => any_json()].boxed()
    } else {
        right.boxed()
    }
}

fn name(junk: bool) -> BoxedStrategy<Value> {
    let names = prop::sample::select(vec![
        "general",
        "General",
        "Member",
        "Lounge",
        "@everyone",
        "everyone",
        " a  b ",
        "",
        "!!!",
        "a/b",
        "<:x:123456789012345678>",
    ]);
    field(
        prop_oneof![
            names.prop_map(Value::from),
            "\\PC{0,110}".prop_map(Value::from),
            Just(Value::Null),
        ],
        junk,
    )
}

fn small(junk: bool) -> BoxedStrategy<Value> {
    field(
        prop_oneof![
            (0i64..6).prop_map(Value::from),
            (-5i64..500_000).prop_map(Value::from),
            Just(Value::Null),
        ],
        junk,
    )
}

/// A template-local id: mostly the few ids the template uses, so references hit and collide.
fn id(junk: bool) -> BoxedStrategy<Value> {
    field(
        prop_oneof![
            (0u64..6).prop_map(Value::from),
            Just(Value::Null),
            any::<u64>().prop_map(|n| Value::from(n.to_string()))
        ],
        junk,
    )
}

fn bits(junk: bool) -> BoxedStrategy<Value> {
    field(any::<u64>().prop_map(|b| Value::from(b.to_string())), junk)
}

fn emoji(junk: bool) -> BoxedStrategy<Value> {
    field(
        prop::sample::select(vec!["🎉", "✅", "", "x", ":smile:", "<:a:1>", "<ñ:1>"])
            .prop_map(Value::from),
        junk,
    )
}

fn template_shaped(junk: bool) -> impl Strategy<Value = Value> {
    let overwrite = (id(junk), small(junk), bits(junk), bits(junk)).prop_map(|(id, kind, allow, deny)| {
        json!({"id": id.as_null().map_or(id.clone(), |_| json!(0)), "type": kind, "allow": allow, "deny": deny})
    });
    let role = (id(junk), name(junk), bits(junk), small(junk), any::<bool>(), emoji(junk))
        .prop_map(|(id, name, p, color, hoist, emoji)| {
            json!({"id": id, "name": name, "permissions": p, "color": color, "hoist": hoist, "unicode_emoji": emoji})
        });
    let tag = (name(junk), emoji(junk), any::<bool>())
        .prop_map(|(name, e, m)| json!({"name": name, "emoji_name": e, "moderated": m}));
    let chan = (
        (id(junk), prop::sample::select(vec![0i64, 2, 4, 5, 13, 15, 16, 11]), name(junk), small(junk)),
        (id(junk), small(junk), small(junk), small(junk)),
        prop::collection::vec(overwrite, 0..4),
        prop::collection::vec(tag, 0..3),
        (field(prop_oneof![Just(json!("topic")), "\\PC{0,1100}".prop_map(Value::from)], junk), emoji(junk)),
    )
        .prop_map(|((id, kind, name, pos), (parent, bitrate, limit, slow), ows, tags, (topic, reaction))| {
            json!({
                "id": id, "type": kind, "name": name, "position": pos, "parent_id": parent,
                "bitrate": bitrate, "user_limit": limit, "rate_limit_per_user": slow,
                "permission_overwrites": ows, "available_tags": tags, "topic": topic,
                "default_forum_layout": limit, "default_sort_order": pos,
                "default_auto_archive_duration": bitrate, "default_thread_rate_limit_per_user": slow,
                "default_reaction_emoji": {"emoji_id": null, "emoji_name": reaction},
            })
        });
    (
        prop::collection::vec(role, 0..8),
        prop::collection::vec(chan, 0..12),
        (name(junk), id(junk), id(junk), small(junk), small(junk)),
        field(
            prop::sample::select(vec!["en-US", "fr", "xx"]).prop_map(Value::from),
            junk,
        ),
    )
        .prop_map(
            |(roles, channels, (gname, afk, sys, level, timeout), locale)| {
                json!({
                    "code": "x",
                    "serialized_source_guild": {
                        "name": gname, "roles": roles, "channels": channels,
                        "afk_channel_id": afk, "system_channel_id": sys,
                        "verification_level": level, "afk_timeout": timeout,
                        "system_channel_flags": level, "preferred_locale": locale,
                    }
                })
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_json_value_is_imported_or_refused_without_a_panic(v in any_json(), t in template_shaped(true)) {
        let _ = import_template(&v.to_string());
        let _ = import_template(&json!({"serialized_source_guild": v}).to_string());
        let _ = import_template(&t.to_string());
    }

    #[test]
    fn a_template_of_the_right_types_imports_to_a_manifest_that_validates(v in template_shaped(false)) {
        let imported = import_template(&v.to_string())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{v:#}")))?;
        {
            let loaded = manifest::load_str(Path::new("imported.yaml"), imported.yaml.clone())
                .map_err(|e| TestCaseError::fail(format!("{e}\n{}", imported.yaml)))?;
            prop_assert_eq!(&loaded.manifest.roles, &imported.manifest.roles);
            let errors: Vec<String> = manifest::check(&loaded.manifest)
                .into_iter()
                .filter(|d| d.severity == manifest::Severity::Error)
                .map(|d| format!("{d:?}"))
                .collect();
            prop_assert!(errors.is_empty(), "{errors:#?}\n{}", imported.yaml);
        }
    }
}
