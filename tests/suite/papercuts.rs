//! The first hour's papercuts (issue 35, point 6): each small wrong turn a new user met,
//! run as they would meet it, against the emulator over HTTP.

use crate::common::{self, Harness};
use discord_emulator::{FaultKind, FaultRule, FaultSet};

/// Serves `body` for `GET route` from now on.
fn serve(h: &Harness, route: &str, body: String) {
    h.emu
        .set_faults(FaultSet {
            seed: Some(1),
            rules: vec![FaultRule {
                method: "GET".into(),
                path: route.into(),
                probability: 1.0,
                kind: FaultKind::Body(body),
            }],
        })
        .unwrap();
}

/// The emulator's real answer to `GET path`, as JSON.
async fn real(h: &Harness, path: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(format!("{}{path}", h.emu.api_base))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A managed setting the server did not return is reported, and drift does not then say
/// the guild matches or exit 0: a value it could not read is not a match.
#[tokio::test]
async fn drift_of_a_managed_setting_it_could_not_read_is_not_a_match() {
    let h = Harness::start().await;
    let path = format!("/guilds/{}", h.emu.guild_id);
    let mut guild = real(&h, &path).await;
    guild
        .as_object_mut()
        .unwrap()
        .remove("safety_alerts_channel_id");
    serve(&h, "/guilds/*", guild.to_string());
    let m = h.manifest(
        "manages.yaml",
        "version: 1\nsettings:\n  safety_alerts_channel: mod-log\n",
    );
    let run = h.run(&["drift", "-f", m.to_str().unwrap()]).await;
    run.assert_code(2);
    assert!(
        run.stdout
            .contains("the live guild's `safety_alerts_channel` is unknown"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("No changes"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("The guild could not be shown to match the manifest: 1 manifest problem(s)"),
        "{}",
        run.stdout
    );
}

/// A typo in `--state` is refused, rather than quietly starting a new guild in a new file.
#[tokio::test]
async fn emulator_call_refuses_a_state_file_that_does_not_exist() {
    let h = Harness::start().await;
    let run = h
        .run(&[
            "emulator",
            "call",
            "--state",
            "sandbx.json",
            "GET",
            "/users/@me",
        ])
        .await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("the sandbox state sandbx.json does not exist"),
        "{}",
        run.stderr
    );
    assert!(!h.dir.path().join("sandbx.json").exists());

    // Asked for, a new state starts from the default guild.
    let run = h
        .run(&[
            "emulator",
            "call",
            "--state",
            "new.json",
            "--new",
            "GET",
            "/users/@me",
        ])
        .await;
    run.assert_code(0);
    assert!(h.dir.path().join("new.json").exists());
}

const ALICE: &str = "849074781683712000";

/// The rehearsal's verdict is said once ("Rehearsed: …", not "Rehearsal: rehearsed: …"),
/// and what it could not rehearse is a short list, its reasons left to JSON and markdown.
#[tokio::test]
async fn the_rehearsal_verdict_reads_once_and_short() {
    let h = Harness::start().await;
    let m = h.manifest("guild.yaml", "version: 1\nroles:\n  - name: Janitor\n");
    let run = h
        .run(&["plan", "-f", m.to_str().unwrap(), "--rehearse"])
        .await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("Rehearsed: 1 call accepted, converges"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("Rehearsal: rehearsed"),
        "{}",
        run.stdout
    );
    let not = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Not rehearsed ("))
        .unwrap_or_else(|| panic!("no Not rehearsed line in\n{}", run.stdout));
    assert!(not.ends_with("(--format json says why)"), "{not}");
    assert!(!not.contains("so the copy"), "{not}");
}

/// A roster entry may be a bare user id; taking a holder off reads as a roster removal,
/// not as "deletes 1 of 2 roster removals".
#[tokio::test]
async fn a_bare_id_roster_and_its_removal_read_right() {
    let h = Harness::start().await;
    let m = h.manifest(
        "staff.yaml",
        &format!("version: 1\nroles:\n  - name: Moderator\n    members: [\"{ALICE}\"]\n"),
    );
    let path = m.to_str().unwrap();
    h.run(&["validate", "-f", path]).await.assert_code(0);
    let run = h.run(&["plan", "-f", path]).await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("- delete roster entry Moderator ← erin"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "Deletion gate: passes; removes 1 of 2 roster entries (50%), within the default limits"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("roster removals ("), "{}", run.stdout);
}

/// A manifest without `channels:` (a roster file) does not make the plan print every
/// channel, nor drift list them as unmanaged.
#[tokio::test]
async fn a_roster_only_manifest_does_not_list_every_channel() {
    let h = Harness::start().await;
    let m = h.manifest(
        "staff.yaml",
        &format!("version: 1\nroles:\n  - name: Moderator\n    members: [\"{ALICE}\", \"849074798460928000\"]\n"),
    );
    let path = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", path]).await;
    plan.assert_code(0);
    let kept = plan
        .stdout
        .lines()
        .find(|l| l.starts_with("Not in the manifest, kept as they are ("))
        .unwrap_or_else(|| panic!("{}", plan.stdout));
    assert!(kept.contains(" more ("), "{kept}");
    assert!(kept.contains("--format json lists them"), "{kept}");
    assert!(!kept.contains("#memes"), "{kept}");

    let drift = h.run(&["drift", "-f", path]).await;
    assert!(!drift.stdout.contains("#memes"), "{}", drift.stdout);
    assert!(!drift.stdout.contains("category Staff"), "{}", drift.stdout);
}

/// An unmanaged category with overwrites is not said to have "no permission of its own".
#[tokio::test]
async fn drift_says_what_an_unmanaged_categorys_overwrites_are() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nchannels:\n  - name: AFK\n    type: voice\n",
    );
    let run = h.run(&["drift", "-f", m.to_str().unwrap()]).await;
    assert!(
        !run.stdout.contains("no permission of its own"),
        "{}",
        run.stdout
    );
    let staff = run
        .stdout
        .lines()
        .find(|l| l.contains("category Staff"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        staff.contains("2 permission overwrite(s), none granting a dangerous permission"),
        "{staff}"
    );
}

/// The sandbox's webhooks exist in the sandbox alone: no advice to copy their URLs "from
/// Discord"; against a guild, that advice stays.
#[tokio::test]
async fn webhook_url_advice_fits_the_sandbox() {
    let h = Harness::start().await;
    let m = h.manifest(
        "hooks.yaml",
        "version: 1\nwebhooks:\n  - name: Releases\n    channel: general\n",
    );
    let path = m.to_str().unwrap();
    let sandbox = h.run(&["apply", "--sandbox", "-f", path, "--yes"]).await;
    sandbox.assert_code(0);
    assert!(
        sandbox.stderr.contains("they exist in the sandbox only"),
        "{}",
        sandbox.stderr
    );
    assert!(
        !sandbox.stderr.contains("from Discord"),
        "{}",
        sandbox.stderr
    );
    let real = h.run(&["apply", "-f", path, "--yes"]).await;
    real.assert_code(0);
    assert!(
        real.stderr.contains("copy them from Discord"),
        "{}",
        real.stderr
    );
}

/// `--allow-deletes` names everything the gate counts.
#[tokio::test]
async fn allow_deletes_help_names_roster_removals_and_lifted_bans() {
    let h = Harness::start().await;
    let run = h.run(&["apply", "--help"]).await;
    run.assert_code(0);
    let help: String = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("roster removals, lifted bans, and members banned"),
        "{help}"
    );
}

/// The schema's `version` is the constant 1, so an editor offers and checks it.
#[tokio::test]
async fn the_schema_version_is_the_constant_1() {
    let h = Harness::start().await;
    let run = h.run(&["schema"]).await;
    run.assert_code(0);
    let schema: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        schema["properties"]["version"]["const"], 1,
        "{}",
        schema["properties"]["version"]
    );
}

/// A live name that differs only in whitespace is noted at the entry's `name`.
#[tokio::test]
async fn the_whitespace_note_points_at_the_name() {
    let mut state = discord_emulator::default_state();
    let g = &mut state.guilds[0];
    g.roles
        .iter_mut()
        .find(|r| r.name == "Moderator")
        .unwrap()
        .name = "Mod  Team".into();
    g.channels
        .iter_mut()
        .find(|c| c.name == "Staff")
        .unwrap()
        .name = "Staff  Room".into();
    let h = Harness::with_state(Some(state)).await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Mod Team\nchannels:\n  - name: Staff Room\n    type: category\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(0);
    let note = |kind: &str| {
        run.stdout
            .lines()
            .find(|l| l.contains(&format!("{kind} \"")) && l.contains("only in whitespace"))
            .unwrap_or_else(|| panic!("no {kind} note in\n{}", run.stdout))
            .to_owned()
    };
    assert!(
        note("role").ends_with("(roles[0].name)"),
        "{}",
        note("role")
    );
    assert!(
        note("channel").ends_with("(channels[0].name)"),
        "{}",
        note("channel")
    );
}

/// YAML's comment trap: `#` after a space starts a comment. Said at its line, with the
/// quoted form.
#[tokio::test]
async fn a_hash_after_a_space_is_said_with_the_quoted_form() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Mods\n    color: #1abc9c\nchannels:\n  - name: help\n    topic: Read #rules first\n",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    for said in [
        "`color` has no value: YAML reads `#1abc9c` as a comment",
        "guild.yaml:4:12",
        "quote the value: `color: \"#1abc9c\"`",
        "`topic` reads as \"Read\": YAML reads `#rules first` as a comment",
        "guild.yaml:7:17",
        "`topic: \"Read #rules first\"`",
    ] {
        assert!(run.stderr.contains(said), "{said}:\n{}", run.stderr);
    }

    // In a flow mapping the comment hides the closing bracket: that is the error.
    let m = h.manifest(
        "flow.yaml",
        "version: 1\nroles:\n  - { name: Mods, color: #1abc9c }\n",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("hides the rest of the line, its closing bracket too"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("flow.yaml:3:26"), "{}", run.stderr);
    assert!(!run.stderr.contains("never closed"), "{}", run.stderr);
}

/// The caret of the tab error is on the tab, not on the scalar before it.
#[tokio::test]
async fn the_tab_error_points_at_the_tab() {
    let h = Harness::start().await;
    let m = h.manifest(
        "tab.yaml",
        "version: 1\nroles:\n  - name: Mods\n\tcolor: 5\n",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(run.stderr.contains("tab.yaml:4:1"), "{}", run.stderr);
    assert!(
        run.stderr.contains("YAML indents with spaces only"),
        "{}",
        run.stderr
    );
}

/// A reference to a name the manifest renames away is an error naming the new name.
#[tokio::test]
async fn a_reference_to_a_previous_name_is_an_error_naming_the_new_one() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Moderators\n    previous_names: [Moderator]\nchannels:\n  - name: Staff\n    type: category\n    overwrites:\n      - { role: Moderator, allow: [view_channel] }\n",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "role \"Moderator\" is a previous name of the role \"Moderators\" (roles[0])"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("name it by its new name: \"Moderators\""),
        "{}",
        run.stderr
    );
}

/// A reference typo keeps its "did you mean" when plan refuses it.
#[tokio::test]
async fn a_reference_typo_keeps_did_you_mean_at_plan() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  rules_channel: rule\n",
    );
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("channel `rule` is neither declared nor in the guild"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean `rules`?"),
        "{}",
        run.stderr
    );
}

/// A role created beside an unmanaged one just like it: the plan suggests
/// `previous_names`, since apply would otherwise make a second role.
#[tokio::test]
async fn a_create_that_looks_like_an_unmanaged_object_suggests_previous_names() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Helpers\n    permissions: [manage_messages, manage_threads]\n    color: \"#2ecc71\"\nchannels:\n  - name: Staff Room\n    type: category\n    overwrites:\n      - { role: \"@everyone\", deny: [view_channel] }\n      - { role: Moderator, allow: [view_channel] }\n",
    );
    let path = m.to_str().unwrap();
    let run = h.run(&["plan", "-f", path]).await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("role `Helpers` is created beside live role `Helper`")
            && run.stdout.contains("add `previous_names: [Helper]`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("category `Staff Room` is created beside live category `Staff`")
            && run.stdout.contains("add `previous_names: [Staff]`"),
        "{}",
        run.stdout
    );

    // In markdown the names are code spans, not escaped backticks.
    let md = h.run(&["plan", "-f", path, "--format", "markdown"]).await;
    assert!(
        md.stdout
            .contains("role `Helpers` is created beside live role `Helper`"),
        "{}",
        md.stdout
    );
    assert!(!md.stdout.contains("\\`Helpers\\`"), "{}", md.stdout);
}

/// Alias hints read as sentences.
#[tokio::test]
async fn alias_hints_read_as_sentences() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Mods\n    permissions: [read_messages]\n",
    );
    let run = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains(
            "`read_messages` is discord.py's and Discord's earlier name for `view_channel`: write `view_channel`"
        ),
        "{}",
        run.stderr
    );
}

/// The permission-split notes are not raised where the plan leaves a role's permissions
/// as they are: an untouched export, and the shipped example, plan back without them.
#[tokio::test]
async fn an_untouched_export_and_the_example_raise_no_split_notes() {
    let h = Harness::start().await;
    h.run(&["export", "-o", "exported.yaml"])
        .await
        .assert_code(0);
    let run = h.run(&["plan", "-f", "exported.yaml"]).await;
    run.assert_code(0);
    assert!(!run.stdout.contains("2026-02-23"), "{}", run.stdout);
    let example = common::example("community.yaml");
    let run = h.run(&["plan", "-f", example.to_str().unwrap()]).await;
    run.assert_code(0);
    assert!(!run.stdout.contains("2026-02-23"), "{}", run.stdout);
    // The example renames #showcase to #projects: welcome screen and onboarding lines
    // name it by its new name.
    assert!(
        run.stdout.contains("name: \"showcase\" → \"projects\""),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("#showcase"), "{}", run.stdout);
    assert!(!run.stdout.contains(", showcase"), "{}", run.stdout);
}

/// `guildctl man --out-dir DIR` writes a page for every command.
#[tokio::test]
async fn man_writes_a_page_for_every_command() {
    let h = Harness::start().await;
    std::fs::create_dir(h.dir.path().join("man1")).unwrap();
    let run = h.run(&["man", "--out-dir", "man1"]).await;
    run.assert_code(0);
    for page in [
        "guildctl.1",
        "guildctl-plan.1",
        "guildctl-apply.1",
        "guildctl-emulator-call.1",
        "guildctl-import-template.1",
    ] {
        let text = std::fs::read_to_string(h.dir.path().join("man1").join(page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page}: {text}");
    }
    let plan = std::fs::read_to_string(h.dir.path().join("man1/guildctl-plan.1")).unwrap();
    assert!(plan.contains("detailed\\-exitcode"), "{plan}");
}

/// The SchemaStore catalog entries are ready to submit: they point at the schemas' own
/// `$id`s, `guildctl.yaml` gets the workspace schema (not the manifest's), and that schema
/// takes the README's workspace and refuses what guildctl refuses.
#[test]
fn the_schemastore_entries_point_at_schemas_that_fit_their_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(name)).unwrap()).unwrap()
    };
    let catalog = read("schemastore-catalog.json");
    let manifest = read("guildctl.schema.json");
    let workspace = read("guildctl-workspace.schema.json");
    let entry = |file: &str| {
        catalog
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["fileMatch"].as_array().unwrap().iter().any(|m| m == file))
            .unwrap_or_else(|| panic!("no entry for {file}"))
            .clone()
    };
    assert_eq!(entry("guild.yaml")["url"], manifest["$id"]);
    assert_eq!(entry("guildctl.yaml")["url"], workspace["$id"]);
    for e in catalog.as_array().unwrap() {
        for key in ["name", "description", "fileMatch", "url"] {
            assert!(!e[key].is_null(), "{key} in {e}");
        }
    }

    let validator = jsonschema::validator_for(&workspace).unwrap();
    let ok = serde_json::json!({
        "guilds": {
            "main": { "id": "81384788765712384", "manifest": "guilds/main.yaml" },
            "staff": { "id": "81384788765712385", "manifest": "guilds/staff/" }
        },
        "policies": [{ "name": "few-admins", "only": { "who": ["Admin"], "can": ["administrator"] } }]
    });
    assert!(validator.is_valid(&ok));
    for bad in [
        serde_json::json!({ "guilds": {} }),
        serde_json::json!({ "guilds": { "main": { "id": "1", "manifest": "a.yaml" } } }),
        serde_json::json!({ "guilds": { "main": { "id": "81384788765712384", "manifest": "../a.yaml" } } }),
        serde_json::json!({ "guilds": { "main": { "id": "81384788765712384", "manifest": "a.yaml", "x": 1 } } }),
        serde_json::json!({ "guilds": { "a b": { "id": "81384788765712384", "manifest": "a.yaml" } } }),
        serde_json::json!({ "version": 2, "guilds": { "main": { "id": "81384788765712384", "manifest": "a.yaml" } } }),
        serde_json::json!({ "guild": {} }),
    ] {
        assert!(!validator.is_valid(&bad), "accepted {bad}");
    }
}
