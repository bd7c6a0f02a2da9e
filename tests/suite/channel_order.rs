//! The order of channel calls reaches the manifest's state (issue 41, point 3;
//! docs/decisions.md, "Order of overwrite writes"). Discord copies a category's new
//! overwrites to every channel synced with it (docs/discord.md §4.5), so a plan that
//! moves channels between categories, syncs and unsyncs them and changes a category's
//! overwrites and its children's in one go ends right only if its calls come in the right
//! order. For generated small guilds (one to three categories, synced and unsynced children
//! with role overwrites) and generated edits (moves between categories, to and from the top
//! level and into a category the plan creates; sync on and off; category and child
//! overwrites changed, kept or left unmanaged; channels created; channels left out), each
//! case is planned, rehearsed, applied to the emulator, and planned again: apply succeeds,
//! the next plan is empty, and the rehearsal said so beforehand.
//!
//! `cargo test` runs 200 cases (32 to 42 s in a debug build on a shared two-core machine, 14 s
//! of CPU);
//! `GUILDCTL_CHANNEL_ORDER_CASES=5000 cargo test --release --test suite channel_order::`
//! draws new ones.

use crate::common;

use std::fmt::Write as _;

use common::property;
use common::{GuildNames, Harness, arrange, bare_guild_state};
use discord_emulator::state::Overwrite;
use discord_emulator::{EmulatorOptions, RunningEmulator, State};
use guildctl::apply::{ApplyOptions, apply};
use guildctl::discord::Client;
use guildctl::manifest;
use guildctl::plan;
use guildctl::rehearse::{RehearseOptions, rehearse};
use guildctl::snapshot::Snapshot;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

/// The roles overwrites name, and the permissions they allow and deny.
const TARGETS: [&str; 3] = ["@everyone", "Alpha", "Beta"];
const PERMS: [&str; 3] = ["view_channel", "send_messages", "attach_files"];
const CATEGORIES: [&str; 3] = ["Zero", "One", "Two"];
/// The category a case may create.
const FRESH: &str = "Fresh";

/// An overwrite set: per target (an index into [`TARGETS`]), the allowed and denied
/// permissions as bit masks over [`PERMS`]. An entry may allow and deny nothing: Discord
/// keeps such an entry, and its sync check ignores it.
#[derive(Debug, Clone, PartialEq)]
struct Set(Vec<(usize, u8, u8)>);

/// A live channel: in category `parent` (an index into the live categories) or at the top
/// level, with the category's set copied (synced) or a set of its own.
#[derive(Debug, Clone)]
struct LiveChannel {
    parent: Option<usize>,
    own: Option<Set>,
}

/// Where an edit puts a channel.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dest {
    Stay,
    Category(usize),
    /// The category the case creates (the top level when it creates none).
    Fresh,
    Top,
    /// Left out of the manifest: unmanaged, kept where it is.
    Undeclared,
}

/// What an edit declares of a channel's overwrites.
#[derive(Debug, Clone, PartialEq)]
enum Ows {
    /// `sync_permissions: true` (its own set where it ends at the top level).
    Sync,
    /// Its live set, written out.
    Keep,
    Set(Set),
    /// Neither: its overwrites are not managed.
    Unmanaged,
}

#[derive(Debug, Clone)]
enum CategoryEdit {
    Keep,
    Change(Set),
    Unmanaged,
}

#[derive(Debug, Clone)]
struct Case {
    categories: Vec<Set>,
    channels: Vec<LiveChannel>,
    category_edits: Vec<CategoryEdit>,
    fresh: Option<Set>,
    channel_edits: Vec<(Dest, Ows)>,
    /// Channels the plan creates.
    created: Vec<(Dest, Ows)>,
}

fn set() -> impl Strategy<Value = Set> {
    proptest::collection::vec(proptest::option::weighted(0.5, (0u8..8, 0u8..8)), 3).prop_map(
        |entries| {
            Set(entries
                .into_iter()
                .enumerate()
                .filter_map(|(t, e)| e.map(|(allow, deny)| (t, allow, deny & !allow)))
                .collect())
        },
    )
}

fn dest() -> impl Strategy<Value = Dest> {
    prop_oneof![
        3 => Just(Dest::Stay),
        3 => (0usize..3).prop_map(Dest::Category),
        1 => Just(Dest::Fresh),
        2 => Just(Dest::Top),
        1 => Just(Dest::Undeclared),
    ]
}

/// What a live channel's edit declares of its overwrites.
fn ows() -> impl Strategy<Value = Ows> {
    prop_oneof![
        3 => Just(Ows::Sync),
        3 => Just(Ows::Keep),
        2 => set().prop_map(Ows::Set),
        1 => Just(Ows::Unmanaged),
    ]
}

/// What a new channel declares: it has no live set to keep.
fn new_ows() -> impl Strategy<Value = Ows> {
    prop_oneof![
        3 => Just(Ows::Sync),
        2 => set().prop_map(Ows::Set),
        1 => Just(Ows::Unmanaged),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let live_channel =
        (0usize..4, proptest::option::weighted(0.4, set())).prop_map(|(parent, own)| (parent, own));
    (
        proptest::collection::vec(set(), 1..=3),
        proptest::collection::vec(live_channel, 1..=6),
        proptest::collection::vec(
            prop_oneof![
                2 => Just(CategoryEdit::Keep),
                3 => set().prop_map(CategoryEdit::Change),
                1 => Just(CategoryEdit::Unmanaged),
            ],
            3,
        ),
        proptest::option::weighted(0.3, set()),
        proptest::collection::vec((dest(), ows()), 6),
        proptest::collection::vec((dest(), new_ows()), 0..=2),
    )
        .prop_map(
            |(categories, channels, mut category_edits, fresh, mut channel_edits, created)| {
                let n = categories.len();
                // A parent index past the categories is the top level; a top-level channel
                // has a set of its own.
                let channels: Vec<LiveChannel> = channels
                    .into_iter()
                    .map(|(parent, own)| {
                        let parent = (parent < n).then_some(parent);
                        let own = match parent {
                            None => Some(own.unwrap_or(Set(Vec::new()))),
                            Some(_) => own,
                        };
                        LiveChannel { parent, own }
                    })
                    .collect();
                category_edits.truncate(n);
                channel_edits.truncate(channels.len());
                Case {
                    categories,
                    channels,
                    category_edits,
                    fresh,
                    channel_edits,
                    created,
                }
            },
        )
}

impl Case {
    /// Where a channel ends: `Some(Some(k))` in category `k` (`CATEGORIES.len()` for the
    /// fresh one), `Some(None)` at the top level, `None` undeclared.
    fn place(&self, live_parent: Option<usize>, dest: Dest) -> Option<Option<usize>> {
        let n = self.categories.len();
        match dest {
            Dest::Stay => Some(live_parent),
            Dest::Category(k) => Some(Some(k % n)),
            Dest::Fresh if self.fresh.is_some() => Some(Some(CATEGORIES.len())),
            Dest::Fresh | Dest::Top => Some(None),
            Dest::Undeclared => None,
        }
    }

    /// The live set of channel `i`.
    fn live_set(&self, i: usize) -> &Set {
        let c = &self.channels[i];
        match (&c.own, c.parent) {
            (Some(own), _) => own,
            (None, Some(p)) => &self.categories[p],
            (None, None) => unreachable!("a top-level channel has a set of its own"),
        }
    }
}

fn overwrites_of(set: &Set, role_ids: &[String]) -> Vec<Overwrite> {
    set.0
        .iter()
        .map(|&(t, allow, deny)| {
            serde_json::from_value(serde_json::json!({
                "id": role_ids[t], "type": 0,
                "allow": bits(allow).to_string(), "deny": bits(deny).to_string(),
            }))
            .expect("an overwrite")
        })
        .collect()
}

fn bits(mask: u8) -> u64 {
    PERMS
        .iter()
        .enumerate()
        .filter(|(k, _)| mask & (1 << k) != 0)
        .map(|(_, name)| common::guild::perms(&[name]).0)
        .fold(0, |a, b| a | b)
}

fn state_of(c: &Case) -> State {
    let mut state = bare_guild_state();
    state.config.rate_limits_enabled = false;
    let mut g = arrange(&mut state);
    let role_ids = vec![
        g.id.clone(),
        g.new_role("Alpha", &[]),
        g.new_role("Beta", &[]),
    ];
    let categories: Vec<String> = c
        .categories
        .iter()
        .enumerate()
        .map(|(k, set)| g.new_channel(CATEGORIES[k], 4, None, overwrites_of(set, &role_ids)))
        .collect();
    for (i, ch) in c.channels.iter().enumerate() {
        let parent = ch.parent.map(|p| categories[p].as_str());
        let set = overwrites_of(c.live_set(i), &role_ids);
        g.new_channel(&format!("room-{i}"), 0, parent, set);
    }
    state
}

fn yaml_set(y: &mut String, indent: &str, set: &Set) {
    if set.0.is_empty() {
        let _ = writeln!(y, "{indent}overwrites: []");
        return;
    }
    let _ = writeln!(y, "{indent}overwrites:");
    let names = |mask: u8| -> String {
        let v: Vec<&str> = (0..PERMS.len())
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| PERMS[k])
            .collect();
        format!("[{}]", v.join(", "))
    };
    for &(t, allow, deny) in &set.0 {
        let _ = writeln!(
            y,
            "{indent}  - role: \"{}\"\n{indent}    allow: {}\n{indent}    deny: {}",
            TARGETS[t],
            names(allow),
            names(deny)
        );
    }
}

/// One declared channel: its name and what it declares of its overwrites.
fn yaml_channel(y: &mut String, indent: &str, name: &str, ows: &Ows, live: Option<&Set>) {
    let _ = writeln!(y, "{indent}- name: {name}");
    let inner = format!("{indent}  ");
    match ows {
        Ows::Sync => {
            let _ = writeln!(y, "{inner}sync_permissions: true");
        }
        Ows::Keep => yaml_set(y, &inner, live.expect("a live channel")),
        Ows::Set(set) => yaml_set(y, &inner, set),
        Ows::Unmanaged => {}
    }
}

/// What a channel declared at `place` says of its overwrites: nothing to sync with at the
/// top level, so its own set instead.
fn at_place(place: Option<usize>, ows: &Ows, live: Option<&Set>) -> Ows {
    match (ows, place) {
        (Ows::Sync, None) if live.is_some() => Ows::Keep,
        (Ows::Sync, None) => Ows::Unmanaged,
        (other, _) => other.clone(),
    }
}

fn manifest_of(c: &Case) -> String {
    // (name, overwrites, live set) of the channels declared in each place: the top level,
    // then each category, the fresh one last.
    type Declared<'a> = Vec<(String, Ows, Option<&'a Set>)>;
    let mut places: Vec<Declared> = vec![Vec::new(); CATEGORIES.len() + 2];
    let slot = |place: Option<usize>| place.map_or(0, |k| k + 1);
    let mut entries = Vec::new();
    for (i, ch) in c.channels.iter().enumerate() {
        let (dest, ows) = &c.channel_edits[i];
        if let Some(place) = c.place(ch.parent, *dest) {
            let live = Some(c.live_set(i));
            let name = format!("room-{i}");
            entries.push((slot(place), (name, at_place(place, ows, live), live)));
        }
    }
    for (j, (dest, ows)) in c.created.iter().enumerate() {
        let dest = if *dest == Dest::Undeclared || *dest == Dest::Stay {
            Dest::Top
        } else {
            *dest
        };
        if let Some(place) = c.place(None, dest) {
            let name = format!("new-{j}");
            entries.push((slot(place), (name, at_place(place, ows, None), None)));
        }
    }
    for (at, entry) in entries {
        places[at].push(entry);
    }
    let mut y = String::from("version: 1\nchannels:\n");
    for (name, ows, live) in &places[0] {
        yaml_channel(&mut y, "  ", name, ows, *live);
    }
    let category = |y: &mut String, name: &str, set: Option<&Set>, children: &Declared| {
        let _ = writeln!(y, "  - name: {name}\n    type: category");
        if let Some(set) = set {
            yaml_set(y, "    ", set);
        }
        if !children.is_empty() {
            let _ = writeln!(y, "    channels:");
            for (name, ows, live) in children {
                yaml_channel(y, "      ", name, ows, *live);
            }
        }
    };
    for (k, live) in c.categories.iter().enumerate() {
        let set = match &c.category_edits[k] {
            CategoryEdit::Keep => Some(live),
            CategoryEdit::Change(set) => Some(set),
            CategoryEdit::Unmanaged => None,
        };
        category(&mut y, CATEGORIES[k], set, &places[k + 1]);
    }
    if let Some(fresh) = &c.fresh {
        category(&mut y, FRESH, Some(fresh), &places[CATEGORIES.len() + 1]);
    }
    y
}

async fn read(emu: &RunningEmulator) -> Result<(Client, Snapshot), String> {
    let client = property::client(emu)?;
    let snap = Snapshot::fetch(&client, &emu.guild_id)
        .await
        .map_err(|e| e.to_string())?;
    Ok((client, snap))
}

fn calls(p: &plan::Plan) -> Vec<String> {
    p.operations
        .iter()
        .map(|o| {
            format!(
                "{} {} after {:?} {}",
                o.route.method(),
                o.summary,
                o.after,
                o.body.clone().unwrap_or_default()
            )
        })
        .collect()
}

/// Plans, rehearses, applies and plans again; what went wrong, if anything.
async fn judge(c: &Case) -> Result<(), String> {
    let yaml = manifest_of(c);
    let loaded = manifest::load_str(std::path::Path::new("guild.yaml"), yaml.clone())
        .map_err(|e| format!("unloadable: {e:?}\n{yaml}"))?;
    let report = manifest::check_report(&loaded);
    if let Some(first) = report.items.iter().find(|i| i.is_error()) {
        return Err(format!("invalid manifest: {}\n{yaml}", first.message));
    }
    let emu = RunningEmulator::start(EmulatorOptions {
        state: Some(state_of(c)),
    })
    .await
    .map_err(|e| e.to_string())?;
    let (client, snap) = read(&emu).await?;
    let shown = |what: &str| format!("{what}\nmanifest:\n{yaml}\ncase: {c:#?}");
    let the_plan = guildctl::planner::diff_loaded(&loaded, &snap, &Default::default())
        .map_err(|e| shown(&format!("refused: {:#?}", e.problems)))?;
    let verdict = rehearse(&loaded, &snap, &the_plan, &RehearseOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let outcome = apply(
        &client,
        &the_plan,
        &ApplyOptions::new("channel order", dir.path()),
        |_| {},
    )
    .await;
    let (_, after) = read(&emu).await?;
    emu.shutdown().await;
    let again = guildctl::planner::diff_loaded(&loaded, &after, &Default::default())
        .map_err(|e| shown(&format!("refused after apply: {:#?}", e.problems)))?;
    let reached = outcome.succeeded() && again.is_empty();
    if verdict.ok != reached || !reached {
        return Err(shown(&format!(
            "rehearsal ok: {}, apply succeeded: {}, next plan: {:#?}\ncalls: {:#?}\nfailures: {:?}\nverdict: {verdict:#?}",
            verdict.ok,
            outcome.succeeded(),
            again
                .changes
                .iter()
                .map(plan::Change::describe)
                .collect::<Vec<_>>(),
            calls(&the_plan),
            outcome.failures,
        )));
    }
    Ok(())
}

#[test]
fn every_combination_of_moves_syncs_and_overwrite_changes_converges() {
    let runtime = property::runtime();
    let config = Config {
        // Each case starts two emulators: a failure is shown whole rather than shrunk far.
        max_shrink_iters: 64,
        ..Config::default()
    };
    let mut runner = property::runner("GUILDCTL_CHANNEL_ORDER_CASES", 200, config);
    let result = runner.run(&case(), |c| {
        runtime.block_on(judge(&c)).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The default guild exported, then edited by `edits` (each a text that must be there, and
/// what replaces it): the manifest's path.
async fn exported_and_edited(h: &Harness, edits: &[(&str, &str)]) -> String {
    h.run(&["export", "-o", "live.yaml"]).await.assert_code(0);
    let mut text = std::fs::read_to_string(h.dir.path().join("live.yaml")).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "the export has {from:?}:\n{text}");
        text = text.replacen(from, to, 1);
    }
    h.manifest("edited.yaml", &text)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The export's text for General's Muted overwrite, and one that also hides the category.
const MUTED: &str = "    name: General\n    type: category\n    overwrites:\n      - role: Muted\n        deny: [send_messages, speak]\n";
const MUTED_HIDDEN: &str = "    name: General\n    type: category\n    overwrites:\n      - role: Muted\n        deny: [send_messages, speak, view_channel]\n";

/// The reproduction: a synced `#off-topic` moved to the top level with the
/// overwrites it has, while General's Muted overwrite gains a `view_channel` deny. General's
/// update is copied to the still-synced channel before it moves, so the channel's own set is
/// sent after the category's update; the rehearsal converges, apply reaches the manifest,
/// and the next plan is empty.
#[tokio::test]
async fn a_synced_channel_moved_out_of_a_changing_category_keeps_its_overwrites() {
    let h = Harness::start().await;
    let off_topic = h.channel_id("General/off-topic");
    let moved_out = format!(
        "      - id: \"{off_topic}\"\n        name: off-topic\n        topic: null\n        nsfw: false\n        slowmode: 0\n        sync_permissions: true\n"
    );
    let at_top = format!(
        "  - id: \"{off_topic}\"\n    name: off-topic\n    overwrites:\n      - role: Muted\n        deny: [send_messages, speak]\n  - id: \"{}\"\n    name: General\n",
        h.channel_id("General")
    );
    let general_line = format!(
        "  - id: \"{}\"\n    name: General\n",
        h.channel_id("General")
    );
    let file = exported_and_edited(
        &h,
        &[
            (MUTED, MUTED_HIDDEN),
            (&moved_out, ""),
            (&general_line, &at_top),
        ],
    )
    .await;
    let plan = h.rehearsed_plan(&file).await;
    assert_eq!(plan["rehearsal"]["ok"], true, "{:#}", plan["rehearsal"]);
    let summaries: Vec<&str> = plan["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["summary"].as_str().unwrap())
        .collect();
    // The category's update, the channel's set sent again after it, the move, the order:
    // nothing for the synced channels that stay (Discord copies the category's set to them).
    assert_eq!(
        summaries,
        [
            "update category General",
            "update channel #off-topic",
            "move channel #off-topic",
            "reorder channels"
        ],
        "{plan:#}"
    );
    h.run(&["apply", "-f", &file, "--yes"]).await.assert_code(0);
    let muted = h.role_id("Muted");
    let kept = h
        .guild()
        .channel_named("off-topic")
        .permission_overwrites
        .clone();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].id, muted);
    assert!(
        !kept[0]
            .deny
            .contains(common::guild::perms(&["view_channel"])),
        "{kept:?}"
    );
    h.run(&["plan", "-f", &file, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// A channel moved into a category it declares `sync_permissions: true` with, while that
/// category's overwrites change, is synced by its move (`lock_permissions`, one call), and
/// the channels synced with the category that stay get no call of their own.
#[tokio::test]
async fn a_channel_moved_into_a_changing_category_is_synced_by_its_move() {
    let h = Harness::start().await;
    let bot_spam = h.channel_id("bot-spam");
    let general = h.channel_id("General/general");
    let export = h.run(&["export", "-o", "live.yaml"]).await;
    export.assert_code(0);
    let text = std::fs::read_to_string(h.dir.path().join("live.yaml")).unwrap();
    // bot-spam's entry at the top level, as the export writes it: moved under General.
    let start = text.find(&format!("  - id: \"{bot_spam}\"\n")).unwrap();
    let len = text[start + 1..].find("\n  - ").unwrap() + 1;
    let entry = text[start..start + len].to_owned();
    let declared = format!(
        "      - id: \"{bot_spam}\"\n        name: bot-spam\n        sync_permissions: true\n"
    );
    let general_line = format!("      - id: \"{general}\"\n");
    let file = exported_and_edited(
        &h,
        &[
            (MUTED, MUTED_HIDDEN),
            (&entry, ""),
            (&general_line, &format!("{declared}{general_line}")),
        ],
    )
    .await;
    let plan = h.rehearsed_plan(&file).await;
    assert_eq!(plan["rehearsal"]["ok"], true, "{:#}", plan["rehearsal"]);
    let ops = plan["operations"].as_array().unwrap();
    let moved = ops
        .iter()
        .find(|o| o["summary"] == "move channel General/#bot-spam")
        .unwrap_or_else(|| panic!("a move: {plan:#}"));
    assert_eq!(moved["body"][0]["lock_permissions"], true, "{moved:#}");
    let channel_updates: Vec<&str> = ops
        .iter()
        .filter_map(|o| o["summary"].as_str())
        .filter(|s| s.starts_with("update channel"))
        .collect();
    assert!(
        channel_updates.is_empty(),
        "no channel needs its own update: {plan:#}"
    );
    h.run(&["apply", "-f", &file, "--yes"]).await.assert_code(0);
    let guild = h.guild();
    let category = &guild.channel_named("General").permission_overwrites;
    assert_eq!(
        &guild.channel_named("bot-spam").permission_overwrites,
        category
    );
    assert_eq!(
        &guild.channel_named("General/general").permission_overwrites,
        category
    );
    h.run(&["plan", "-f", &file, "--detailed-exitcode"])
        .await
        .assert_code(0);
}

/// A hand edit gives General the overwrites `#memes` has: Discord copies it to General's
/// synced channels, and `#memes`, unsynced, now equals its category. Drift shows General and
/// the channels that followed it, but not `#memes`, whose set is as declared; the plan sends
/// `#memes`' set again after General's update (or General's copy would replace it), and one
/// apply reaches the manifest.
#[tokio::test]
async fn a_child_its_category_drifted_onto_is_kept_and_not_blamed() {
    const OWNER: &str = "owner-token-for-channel-order";
    let mut state = discord_emulator::default_state();
    arrange(&mut state).owner_token(OWNER);
    let h = Harness::with_state(Some(state)).await;
    h.run(&["export", "-o", "live.yaml"]).await.assert_code(0);
    let file = h.dir.path().join("live.yaml");
    let file = file.to_str().unwrap();
    let memes = h
        .guild()
        .channel_named("General/memes")
        .permission_overwrites
        .clone();
    let general = h.channel_id("General");
    let res = reqwest::Client::new()
        .patch(format!("{}/channels/{general}", h.emu.api_base))
        .header("Authorization", format!("Bot {OWNER}"))
        .json(&serde_json::json!({ "permission_overwrites": memes }))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let synced = h
        .guild()
        .channel_named("General/general")
        .permission_overwrites
        .clone();
    assert_eq!(
        synced, memes,
        "Discord copied General's change to its synced channels"
    );

    let drift = h.run(&["drift", "-f", file, "--format", "json"]).await;
    drift.assert_code(2);
    let report = drift.json();
    let names: Vec<&str> = report["drifted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"General") && names.contains(&"General/#general"),
        "{names:?}"
    );
    assert!(!names.contains(&"General/#memes"), "{names:?}");

    let plan = h.rehearsed_plan(file).await;
    assert_eq!(plan["rehearsal"]["ok"], true, "{:#}", plan["rehearsal"]);
    let ops = plan["operations"].as_array().unwrap();
    let at = |summary: &str| {
        ops.iter()
            .position(|o| o["summary"] == summary)
            .unwrap_or_else(|| panic!("{summary}: {plan:#}"))
    };
    let (category, child) = (
        at("update category General"),
        at("update channel General/#memes"),
    );
    assert!(
        ops[child]["after"]
            .as_array()
            .is_some_and(|a| a.contains(&category.into())),
        "#memes' update waits for General's: {plan:#}"
    );
    h.run(&["apply", "-f", file, "--yes"]).await.assert_code(0);
    let by_target = |mut set: Vec<Overwrite>| {
        set.sort_by(|a, b| a.id.cmp(&b.id));
        set
    };
    let kept = h
        .guild()
        .channel_named("General/memes")
        .permission_overwrites
        .clone();
    assert_eq!(by_target(kept), by_target(memes));
    h.run(&["plan", "-f", file, "--detailed-exitcode"])
        .await
        .assert_code(0);
}
