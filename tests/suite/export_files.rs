//! The files `export` writes beside a manifest, over HTTP against the emulator: an event's
//! cover image (as emoji images and sounds are written), and `export --all` writing each
//! guild's emoji images and sounds as the single-guild export does; each re-imported
//! manifest plans to no changes.

use crate::common::Harness;
use discord_emulator::{default_state, with_guild_copies};
use serde_json::json;

const OFFICE_HOURS: &str = "  - name: Office hours
    channel: Lounge
    start: \"2030-01-02T18:00:00Z\"
    end: \"2030-01-02T19:00:00Z\"
    recurrence: { frequency: weekly, weekdays: [wednesday] }
    description: Ask the maintainers anything
    image: covers/office.png
";

#[tokio::test]
async fn an_event_cover_is_written_beside_the_export_and_plans_to_nothing() {
    let h = Harness::start().await;
    std::fs::create_dir_all(h.dir.path().join("covers")).unwrap();
    let mut cover = b"\x89PNG\r\n\x1a\n".to_vec();
    cover.extend_from_slice(b"office hours cover");
    std::fs::write(h.dir.path().join("covers/office.png"), &cover).unwrap();
    let m = h.manifest("m.yaml", &format!("version: 1\nevents:\n{OFFICE_HOURS}"));
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);

    std::fs::create_dir_all(h.dir.path().join("out")).unwrap();
    let run = h.run(&["export", "-o", "out/guild.yaml"]).await;
    run.assert_code(0);
    assert!(
        run.stderr.contains("Wrote 1 event cover(s)"),
        "{}",
        run.stderr
    );
    let yaml = std::fs::read_to_string(h.dir.path().join("out/guild.yaml")).unwrap();
    assert!(yaml.contains("image: events/Office_hours.png"), "{yaml}");
    let written = std::fs::read(h.dir.path().join("out/events/Office_hours.png")).unwrap();
    assert_eq!(written, cover, "the CDN's bytes, as uploaded");
    let plan = h.plan_json("out/guild.yaml").await;
    assert_eq!(plan["changes"], json!([]), "{plan:#}");

    // Without -o there is no folder to write it to: said, and the cover left out.
    let run = h.run(&["export"]).await;
    run.assert_code(0);
    assert!(
        run.stderr.contains("the events' cover images are left out"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("image: events/"), "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn export_all_writes_each_guild_s_emoji_images_and_sounds() {
    let state = with_guild_copies(default_state(), 2);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let first = &state.guilds[0];
    let emoji = first
        .emojis
        .iter()
        .find(|e| !e.managed)
        .expect("an emoji")
        .name
        .clone();
    let emojis_written = first.emojis.iter().filter(|e| !e.managed).count();
    let sounds_written = first.soundboard_sounds.len();
    assert!(
        emojis_written > 0 && sounds_written > 0,
        "the default guild has both"
    );
    let h = Harness::with_state(Some(state)).await;
    h.manifest(
        "guildctl.yaml",
        &format!(
            "guilds:\n  a: {{ id: \"{}\", manifest: a.yaml }}\n  b: {{ id: \"{}\", manifest: b.yaml }}\n",
            ids[0], ids[1]
        ),
    );
    h.run(&["export", "--all", "-o", "out"])
        .await
        .assert_code(0);
    let out = h.dir.path().join("out");
    for guild in ["a", "b"] {
        let yaml = std::fs::read_to_string(out.join(format!("{guild}.yaml"))).unwrap();
        assert!(yaml.contains("\nemojis:\n"), "{yaml}");
        assert!(yaml.contains("\nsoundboard:\n"), "{yaml}");
        assert!(
            yaml.contains(&format!("image: emojis/{guild}/{emoji}.")),
            "{yaml}"
        );
        assert!(yaml.contains(&format!("sound: sounds/{guild}/")), "{yaml}");
        let emojis = std::fs::read_dir(out.join("emojis").join(guild))
            .unwrap()
            .count();
        assert_eq!(emojis, emojis_written, "guild {guild}");
        let sounds: Vec<_> = std::fs::read_dir(out.join("sounds").join(guild))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(sounds.len(), sounds_written, "guild {guild}: {sounds:?}");
        // The export reads AutoMod rules and events too, as a single guild's does.
        assert!(yaml.contains("\nautomod:\n"), "{yaml}");
        assert!(yaml.contains("\nevents:\n"), "{yaml}");
    }
    // The first guild's export, planned back: nothing to change.
    let plan = h.plan_json("out/a.yaml").await;
    assert_eq!(plan["changes"], json!([]), "{plan:#}");
}

/// `--ids-out FILE`: the guild's ids by name for a bot's configuration, after `apply` (what
/// it created included), from `plan` (which writes nothing) and from `export`; JSON or an
/// env file by the file's name.
#[tokio::test]
async fn ids_out_writes_the_guilds_ids_by_name_for_a_bot() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Bot Admins\nchannels:\n  - name: Staff\n    type: category\n    channels:\n      - name: bot-log\n",
    );
    let m = m.to_str().unwrap();
    let json = h.dir.path().join("ids.json");
    let run = h
        .run(&[
            "apply",
            "-f",
            m,
            "--yes",
            "--ids-out",
            json.to_str().unwrap(),
        ])
        .await;
    run.assert_code(0);
    let ids: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(ids["guild"], h.emu.guild_id.as_str());
    assert_eq!(ids["roles"]["Bot Admins"], h.role_id("Bot Admins").as_str());
    assert_eq!(ids["roles"]["Moderator"], h.role_id("Moderator").as_str());
    assert_eq!(
        ids["channels"]["Staff/bot-log"],
        h.channel_id("Staff/bot-log").as_str()
    );
    assert_eq!(ids["channels"]["Staff"], h.channel_id("Staff").as_str());
    assert!(
        ids["roles"].get("@everyone").is_none(),
        "it is the guild's id"
    );

    h.emu.clear_requests();
    let env = h.dir.path().join("bot.env");
    let run = h
        .run(&["plan", "-f", m, "--ids-out", env.to_str().unwrap()])
        .await;
    run.assert_code(0);
    assert!(h.writes().is_empty(), "plan writes nothing");
    let text = std::fs::read_to_string(&env).unwrap();
    assert!(
        text.starts_with(&format!("GUILD_ID={}\n", h.emu.guild_id)),
        "{text}"
    );
    assert!(
        text.contains(&format!("ROLE_BOT_ADMINS={}\n", h.role_id("Bot Admins"))),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "CHANNEL_STAFF_MOD_LOG={}\n",
            h.channel_id("Staff/mod-log")
        )),
        "{text}"
    );

    let exported = h.dir.path().join("export.env");
    let run = h
        .run(&[
            "export",
            "-o",
            "out.yaml",
            "--ids-out",
            exported.to_str().unwrap(),
        ])
        .await;
    run.assert_code(0);
    assert_eq!(std::fs::read_to_string(&exported).unwrap(), text);
}
