//! What Discord stores is what guildctl compares: manifests whose names carry
//! extra whitespace, odd case and punctuation (which Discord trims, lower-cases or
//! drops) are applied to the emulator, and a second plan is always empty, a second
//! apply sends no write, and no object exists twice.
//!
//! The emulator stores names by its own rules, written from the reference
//! (crates/emulator/src/names.rs), so a planner that compared the names it was
//! given instead of the names Discord keeps would fail here.
//!
//! Cases: 24 by default (about a second each); `GUILDCTL_PROPTEST_CASES=N` for more.

mod common;

use std::collections::HashSet;

use common::Harness;
use guildctl::apply::{self, ApplyOptions};
use guildctl::discord::{Client, Token};
use guildctl::manifest;
use guildctl::plan::{self, Plan};
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
    )
        .prop_flat_map(|(roles, category, voice, texts, locale, pad, upper)| {
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
            )
        })
        .prop_map(
            |(roles, category, voice, texts, hooks, locale, afk_reference, hook_references)| {
                Generated {
                    roles,
                    category,
                    voice,
                    texts,
                    hooks,
                    locale,
                    afk_reference,
                    hook_references,
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
        "settings: {{ preferred_locale: {}, afk_channel: {} }}\n",
        g.locale,
        q(&g.afk_reference)
    );
    y += "roles:\n";
    for (name, color) in &g.roles {
        y += &format!("  - {{ name: {}, color: \"#{color:06X}\" }}\n", q(name));
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
    plan::diff(m, &snap).map_err(|e| format!("plan refused: {e}"))
}

/// Applies the generated manifest twice; returns a failure message, if any.
async fn converges(g: &Generated) -> Result<(), String> {
    let yaml = manifest_yaml(g);
    let h = Harness::start().await;
    let path = h.manifest("guild.yaml", &yaml);
    let loaded = manifest::load_str(&path, yaml.clone()).map_err(|e| format!("{e}\n{yaml}"))?;
    let problems = manifest::check_loaded(&loaded);
    if manifest::diagnostic::has_errors(&problems) {
        return Err(format!("validation refused it: {problems:?}\n{yaml}"));
    }
    let m = &loaded.manifest;
    let c = Client::new(&h.emu.api_base, Token::new(h.emu.token.clone()).unwrap()).unwrap();
    let options = ApplyOptions::new("normalisation test", h.dir.path().to_path_buf());

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
    for name in guild
        .roles
        .iter()
        .map(|r| format!("role {}", r.name))
        .chain(
            guild
                .channels
                .iter()
                .map(|c| format!("channel {:?} {} {}", c.parent_id, c.kind, c.name)),
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
        let stored = declared.split_whitespace().collect::<Vec<_>>().join(" ");
        if !guild.roles.iter().any(|r| r.name == stored) {
            return Err(format!("role {declared:?} was not created as {stored:?}"));
        }
    }
    Ok(())
}

#[test]
fn names_discord_rewrites_converge_in_one_apply_without_duplicates() {
    let cases = std::env::var("GUILDCTL_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        // Each case runs a whole apply; shrinking a failure is worth a few more.
        max_shrink_iters: 64,
        ..ProptestConfig::default()
    });
    runner
        .run(&generated(), |g| {
            runtime.block_on(converges(&g)).map_err(TestCaseError::fail)
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
