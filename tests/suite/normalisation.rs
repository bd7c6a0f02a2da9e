//! What Discord stores is what guildctl compares: manifests whose names carry
//! extra whitespace, odd case and punctuation (which Discord trims, lower-cases or
//! drops) are applied to the emulator, and a second plan is always empty, a second
//! apply sends no write, and no object exists twice.
//!
//! The emulator stores names by its own rules, written from the reference
//! (crates/emulator/src/names.rs), so a planner that compared the names it was
//! given instead of the names Discord keeps would fail here.
//!
//! Roles and a category made by hand before guildctl, with inner runs of whitespace
//! (`Held  0w`), are declared with other spacing: they are the same objects, never
//! created twice nor renamed. Every case runs with the emulator keeping inner
//! whitespace (as Discord's own data shows) and collapsing it (as nicknames are).
//!
//! Cases: 16 by default (each two applies of about a second); `GUILDCTL_PROPTEST_CASES=N`
//! for more.

use crate::common;

use std::collections::HashSet;

use common::Harness;
use guildctl::apply::{self, ApplyOptions};
use guildctl::discord::Client;
use guildctl::manifest;
use guildctl::plan::Plan;
use guildctl::snapshot::Snapshot;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

const LOCALES: [&str; 4] = ["en-US", "de", "pt-BR", "zh-TW"];

/// Whitespace Discord trims or collapses.
fn space() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", " ", "  ", "\t", " \t "]).prop_map(str::to_owned)
}

/// A display name built around a unique core: whitespace around it and, sometimes,
/// a run of whitespace inside it.
fn display_name(core: String) -> impl Strategy<Value = String> {
    (
        space(),
        space(),
        prop::sample::select(vec![" ", "  ", "\t", " \t"]),
    )
        .prop_map(move |(before, after, inner)| {
            let (a, b) = core.split_at(core.len() / 2);
            format!("{before}{a}{inner}{b}{after}")
        })
}

/// A text channel name Discord will lower-case, hyphenate and strip of punctuation.
fn text_name(core: String) -> impl Strategy<Value = String> {
    (
        display_name(core),
        any::<bool>(),
        prop::sample::select(vec!["", "!", "'", "?", "."]),
    )
        .prop_map(|(name, upper, punctuation)| {
            let name = if upper { name.to_uppercase() } else { name };
            format!("{name}{punctuation}")
        })
}

#[derive(Debug, Clone)]
struct Generated {
    roles: Vec<(String, u32)>,
    category: String,
    voice: String,
    texts: Vec<String>,
    hooks: Vec<String>,
    locale: &'static str,
    /// How the AFK setting refers to the voice channel: `Category/name`, re-spaced.
    afk_reference: String,
    /// How each webhook refers to its text channel, re-spaced and re-cased.
    hook_references: Vec<String>,
    /// Roles that exist before guildctl runs, made by hand with a double space inside;
    /// declared with these spellings.
    held: Vec<String>,
    /// Whether the category exists before, made by hand with a double space inside.
    category_by_hand: bool,
    /// The guild's name, with whitespace around it (Discord trims it) and, sometimes, a
    /// run inside (which Discord keeps).
    guild_name: String,
}

/// How a hand-made name is spelt: the core split in two by a double space.
fn by_hand(core: &str) -> String {
    let (a, b) = core.split_at(core.len() / 2);
    format!("{a}  {b}")
}

fn generated() -> impl Strategy<Value = Generated> {
    let roles = (1usize..4).prop_flat_map(|n| {
        (0..n)
            .map(|i| (display_name(format!("Role{i}x")), 0u32..=0xFF_FFFF))
            .collect::<Vec<_>>()
    });
    let texts = (1usize..4).prop_flat_map(|n| {
        (0..n)
            .map(|i| text_name(format!("topic{i}z")))
            .collect::<Vec<_>>()
    });
    (
        roles,
        display_name("PtCategory".to_owned()),
        display_name("PtLounge".to_owned()),
        texts,
        prop::sample::select(LOCALES.to_vec()),
        space(),
        any::<bool>(),
        (0usize..3).prop_flat_map(|n| {
            (0..n)
                .map(|i| display_name(format!("Held{i}w")))
                .collect::<Vec<_>>()
        }),
        any::<bool>(),
        display_name("PtGuild".to_owned()),
    )
        .prop_flat_map(
            |(roles, category, voice, texts, locale, pad, upper, held, by_hand, guild_name)| {
                let hooks = (0..texts.len())
                    .map(|i| display_name(format!("Hook{i}y")))
                    .collect::<Vec<_>>();
                let hook_references: Vec<String> = texts
                    .iter()
                    .map(|t| {
                        let t = t.trim_end_matches(['!', '\'', '?', '.']);
                        let t = if upper {
                            t.to_lowercase()
                        } else {
                            t.to_owned()
                        };
                        format!("{pad}{t}{pad}")
                    })
                    .collect();
                let afk_reference = format!("{pad}{category}/{voice}{pad}");
                (
                    Just(roles),
                    Just(category),
                    Just(voice),
                    Just(texts),
                    hooks,
                    Just(locale),
                    Just(afk_reference),
                    Just(hook_references),
                    Just((held, by_hand, guild_name)),
                )
            },
        )
        .prop_map(
            |(
                roles,
                category,
                voice,
                texts,
                hooks,
                locale,
                afk_reference,
                hook_references,
                (held, category_by_hand, guild_name),
            )| {
                Generated {
                    roles,
                    category,
                    voice,
                    texts,
                    hooks,
                    locale,
                    afk_reference,
                    hook_references,
                    held,
                    category_by_hand,
                    guild_name,
                }
            },
        )
}

/// A YAML double-quoted string (JSON's escapes are YAML's).
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

fn manifest_yaml(g: &Generated) -> String {
    let mut y = String::from("version: 1\n");
    y += &format!(
        "settings: {{ name: {}, preferred_locale: {}, afk_channel: {} }}\n",
        q(&g.guild_name),
        g.locale,
        q(&g.afk_reference)
    );
    y += "roles:\n";
    for (name, color) in &g.roles {
        y += &format!("  - {{ name: {}, color: \"#{color:06X}\" }}\n", q(name));
    }
    for name in &g.held {
        y += &format!("  - {{ name: {}, hoist: true }}\n", q(name));
    }
    y += "channels:\n";
    y += &format!(
        "  - name: {}\n    type: category\n    channels:\n",
        q(&g.category)
    );
    y += &format!("      - {{ name: {}, type: voice }}\n", q(&g.voice));
    for t in &g.texts {
        y += &format!("  - {{ name: {} }}\n", q(t));
    }
    y += "webhooks:\n";
    for (name, channel) in g.hooks.iter().zip(&g.hook_references) {
        y += &format!("  - {{ name: {}, channel: {} }}\n", q(name), q(channel));
    }
    y
}

async fn plan_once(c: &Client, h: &Harness, m: &manifest::Manifest) -> Result<Plan, String> {
    let snap = Snapshot::fetch(c, &h.emu.guild_id)
        .await
        .map_err(|e| format!("snapshot: {e}"))?;
    guildctl::planner::diff(m, &snap).map_err(|e| format!("plan refused: {e}"))
}

/// The key names are compared by: whitespace collapsed.
fn key(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Applies the generated manifest twice, the emulator collapsing inner whitespace of
/// role, category and voice names or keeping it; returns a failure message, if any.
async fn converges(g: &Generated, collapse: bool) -> Result<(), String> {
    let yaml = manifest_yaml(g);
    let mut state = discord_emulator::default_state();
    state.config.collapse_inner_whitespace = collapse;
    let h = Harness::with_state(Some(state)).await;
    let yaml = format!("# the emulator collapses inner whitespace: {collapse}\n{yaml}");
    let path = h.manifest("guild.yaml", &yaml);
    let loaded = manifest::load_str(&path, yaml.clone()).map_err(|e| format!("{e}\n{yaml}"))?;
    let problems = manifest::check_loaded(&loaded);
    if manifest::diagnostic::has_errors(&problems) {
        return Err(format!("validation refused it: {problems:?}\n{yaml}"));
    }
    let m = &loaded.manifest;
    let c = h.client();
    let options = ApplyOptions::new("normalisation test", h.dir.path().to_path_buf());
    let guild_path = format!("/guilds/{}", h.emu.guild_id);
    let mut hand_made: Vec<serde_json::Value> = g
        .held
        .iter()
        .map(|n| serde_json::json!({"path": "roles", "body": {"name": by_hand(&key(n))}}))
        .collect();
    if g.category_by_hand {
        hand_made.push(serde_json::json!({"path": "channels", "body": {"name": by_hand(&key(&g.category)), "type": 4}}));
    }
    for made in &hand_made {
        let path = format!("{guild_path}/{}", made["path"].as_str().unwrap_or_default());
        c.send(
            reqwest::Method::POST,
            &path,
            Some(&made["body"]),
            Some("by hand"),
        )
        .await
        .map_err(|e| format!("making {made} by hand: {e}"))?;
    }

    let first = plan_once(&c, &h, m)
        .await
        .map_err(|e| format!("{e}\n{yaml}"))?;
    let outcome = apply::apply(&c, &first, &options, |_| {}).await;
    if !outcome.succeeded() {
        return Err(format!("apply failed: {:?}\n{yaml}", outcome.failures));
    }
    let second = plan_once(&c, &h, m)
        .await
        .map_err(|e| format!("{e}\n{yaml}"))?;
    if !second.is_empty() {
        return Err(format!("not converged: {:#?}\n{yaml}", second.changes));
    }
    h.emu.clear_requests();
    let outcome = apply::apply(&c, &second, &options, |_| {}).await;
    let writes = h.writes();
    if !outcome.succeeded() || !writes.is_empty() {
        return Err(format!("a second apply wrote: {writes:?}\n{yaml}"));
    }

    let guild = h.guild();
    let mut seen = HashSet::new();
    // Twice by key is twice, whatever the spacing.
    for name in guild
        .roles
        .iter()
        .map(|r| format!("role {}", key(&r.name)))
        .chain(
            guild
                .channels
                .iter()
                .map(|c| format!("channel {:?} {} {}", c.parent_id, c.kind, key(&c.name))),
        )
    {
        if !seen.insert(name.clone()) {
            return Err(format!("{name} exists twice\n{yaml}"));
        }
    }
    let hooks: HashSet<_> = guild.webhooks.iter().map(|w| w.name.clone()).collect();
    if hooks.len() != guild.webhooks.len() {
        return Err(format!("a webhook exists twice\n{yaml}"));
    }
    for (declared, _) in &g.roles {
        let stored = key(declared);
        if !guild.roles.iter().any(|r| r.name == stored) {
            return Err(format!("role {declared:?} was not created as {stored:?}"));
        }
    }
    // What was made by hand keeps its spelling (as the emulator stored it) and took the
    // declared fields.
    for held in &g.held {
        let spelt = if collapse {
            key(held)
        } else {
            by_hand(&key(held))
        };
        match guild.roles.iter().find(|r| r.name == spelt) {
            Some(r) if r.hoist => {}
            Some(_) => return Err(format!("role {spelt:?} was not updated\n{yaml}")),
            None => return Err(format!("role {spelt:?} was renamed or lost\n{yaml}")),
        }
    }
    Ok(())
}

#[test]
fn names_discord_rewrites_converge_in_one_apply_without_duplicates() {
    let cases = std::env::var("GUILDCTL_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(16);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        // Each case runs a whole apply; shrinking a failure is worth a few more.
        max_shrink_iters: 64,
        ..ProptestConfig::default()
    });
    runner
        .run(&generated(), |g| {
            for collapse in [false, true] {
                runtime
                    .block_on(converges(&g, collapse))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The case: a live `Mod  Team` (as Discord keeps it) declared as `Mod Team` or
/// spelt exactly so is one role: no create, no rename, a note; its export plans to nothing.
#[tokio::test]
async fn a_live_name_with_a_double_space_is_neither_duplicated_nor_renamed() {
    let h = Harness::start().await;
    let c = h.client();
    let path = format!("/guilds/{}/roles", h.emu.guild_id);
    c.send(
        reqwest::Method::POST,
        &path,
        Some(&serde_json::json!({"name": "Mod  Team"})),
        Some("by hand"),
    )
    .await
    .unwrap();
    assert!(h.guild().roles.iter().any(|r| r.name == "Mod  Team"));
    for declared in ["Mod Team", "Mod  Team", " Mod   Team "] {
        let m = h.manifest(
            "guild.yaml",
            &format!("version: 1\nroles:\n  - name: {}\n", q(declared)),
        );
        let run = h
            .run(&["plan", "-f", m.to_str().unwrap(), "--detailed-exitcode"])
            .await;
        run.assert_code(0);
        assert!(!run.stdout.contains("create role"), "{}", run.stdout);
        if declared != "Mod  Team" {
            assert!(
                run.stdout
                    .contains("differs from the manifest's \"Mod Team\" only in whitespace"),
                "{declared:?}: {}",
                run.stdout
            );
        }
    }
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("exported.yaml")).unwrap();
    assert!(text.contains("Mod  Team"), "{text}");
    h.emu.clear_requests();
    h.run(&["apply", "-f", "exported.yaml", "--yes"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    let held = h
        .guild()
        .roles
        .iter()
        .filter(|r| r.name.split_whitespace().collect::<Vec<_>>() == ["Mod", "Team"])
        .count();
    assert_eq!(held, 1);
}

/// Issue 41: Discord stores the guild's name without the whitespace around it, so a
/// manifest that writes some plans nothing for a guild already so called, and applies a
/// new name in one go (the rehearsal converges, the next plan is empty). Its inner
/// whitespace is Discord's to keep, and guildctl's to send as written.
#[tokio::test]
async fn the_guild_name_is_compared_as_discord_stores_it() {
    let h = Harness::start().await;
    assert_eq!(h.guild().name, "Ferris Fans");
    let same = h.manifest(
        "same.yaml",
        "version: 1\nsettings:\n  name: \"  Ferris Fans  \"\n",
    );
    let run = h
        .run(&[
            "plan",
            "-f",
            same.to_str().unwrap(),
            "--rehearse",
            "--detailed-exitcode",
        ])
        .await;
    run.assert_code(0);
    assert!(run.stdout.contains("No changes"), "{}", run.stdout);

    let renamed = h.manifest(
        "renamed.yaml",
        "version: 1\nsettings:\n  name: \"\\tCrab  Club \"\n",
    );
    let renamed = renamed.to_str().unwrap();
    let plan = h.rehearsed_plan(renamed).await;
    let field = &plan["changes"][0]["fields"][0];
    assert_eq!(
        (&field["before"], &field["after"]),
        (&"Ferris Fans".into(), &"Crab  Club".into())
    );
    assert_eq!(plan["rehearsal"]["converges"], true, "{plan:#}");
    h.run(&["apply", "-f", renamed, "--yes"])
        .await
        .assert_code(0);
    assert_eq!(h.guild().name, "Crab  Club");
    h.run(&["plan", "-f", renamed, "--detailed-exitcode"])
        .await
        .assert_code(0);
}
