//! The guild's images (icon, banner, splash, discovery splash) as files beside the manifest,
//! over HTTP against the emulator: sent once, compared by content, refused without the
//! feature Discord asks for, exported as files that plan back to no changes.

mod common;

use common::Harness;

/// A file that is a PNG by its first bytes (all the checks look at); `tag` makes it unique.
fn png(tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(tag.as_bytes());
    b
}

fn gif(tag: &str) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend_from_slice(tag.as_bytes());
    b
}

fn put(h: &Harness, rel: &str, bytes: &[u8]) {
    let path = h.dir.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn guild_patches(h: &Harness) -> Vec<serde_json::Value> {
    let path = format!("/api/v10/guilds/{}", h.emu.guild_id);
    h.writes()
        .into_iter()
        .filter(|r| r.method == "PATCH" && r.path == path)
        .map(|r| r.body.unwrap_or_default())
        .collect()
}

const MANIFEST: &str =
    "version: 1\nsettings:\n  icon: images/icon.png\n  splash: images/splash.png\n";

#[tokio::test]
async fn images_are_sent_once_and_an_unchanged_image_is_not_sent_again() {
    let h = Harness::start().await;
    put(&h, "images/icon.png", &png("icon"));
    put(&h, "images/splash.png", &png("splash"));
    let m = h.manifest("guild.yaml", MANIFEST);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let patches = guild_patches(&h);
    assert_eq!(patches.len(), 1, "{patches:#?} {:#?}", h.writes());
    let body = &patches[0];
    assert!(
        body["icon"]
            .as_str()
            .is_some_and(|d| d.starts_with("data:image/png;base64,")),
        "{body}"
    );
    assert!(body["splash"].is_string(), "{body}");
    let g = h.guild();
    assert!(g.icon.is_some() && g.splash.is_some());

    h.emu.clear_requests();
    let again = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    again.assert_code(0);
    assert!(h.writes().is_empty());
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    assert!(h.writes().is_empty(), "{:#?}", h.writes());
}

#[tokio::test]
async fn a_changed_image_is_exactly_one_patch_of_that_image() {
    let h = Harness::start().await;
    put(&h, "images/icon.png", &png("icon"));
    put(&h, "images/splash.png", &png("splash"));
    let m = h.manifest("guild.yaml", MANIFEST);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let first = h.guild().icon.clone();

    put(&h, "images/icon.png", &png("a new icon"));
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", m, "--detailed-exitcode"]).await;
    plan.assert_code(2);
    assert!(plan.stdout.contains("icon"), "{}", plan.stdout);
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let patches = guild_patches(&h);
    assert_eq!(patches.len(), 1, "{patches:#?}");
    let keys: Vec<&String> = patches[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["icon"], "only the changed image is sent");
    assert_ne!(h.guild().icon, first);
    assert_eq!(h.writes().len(), 1, "{:#?}", h.writes());
}

#[tokio::test]
async fn an_image_without_its_feature_is_refused_at_plan_on_its_line() {
    let h = Harness::start().await;
    // The default guild has ANIMATED_ICON and INVITE_SPLASH, not BANNER nor DISCOVERABLE.
    put(&h, "images/banner.png", &png("banner"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  name: Ferris Fans\n  banner: images/banner.png\n",
    );
    let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("BANNER"), "{}", plan.stderr);
    assert!(plan.stderr.contains("guild.yaml:4"), "{}", plan.stderr);
    assert!(h.writes().is_empty());

    put(&h, "images/d.png", &png("discovery"));
    let m = h.manifest(
        "d.yaml",
        "version: 1\nsettings:\n  discovery_splash: images/d.png\n",
    );
    let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("DISCOVERABLE"), "{}", plan.stderr);
    assert!(plan.stderr.contains("d.yaml:3"), "{}", plan.stderr);
}

#[tokio::test]
async fn an_animated_icon_needs_animated_icon() {
    let mut state = discord_emulator::default_state();
    state.guilds[0].features.retain(|f| f != "ANIMATED_ICON");
    let h = Harness::with_state(Some(state)).await;
    put(&h, "images/icon.gif", &gif("spin"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  icon: images/icon.gif\n",
    );
    let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("ANIMATED_ICON"), "{}", plan.stderr);
    // A still image needs no feature.
    put(&h, "images/icon.gif", &png("still"));
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    assert!(h.guild().icon.is_some_and(|i| !i.starts_with("a_")));
}

#[tokio::test]
async fn the_emulator_refuses_an_image_without_its_feature() {
    let h = Harness::start().await;
    let client = reqwest::Client::new();
    let resp = client
        .patch(format!("{}/guilds/{}", h.emu.api_base, h.emu.guild_id))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .json(&serde_json::json!({"banner": "data:image/png;base64,iVBORw0KGgo="}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], 50101);
    assert!(h.guild().banner.is_none());
}

#[tokio::test]
async fn null_removes_an_image() {
    let h = Harness::start().await;
    put(&h, "images/icon.png", &png("icon"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  icon: images/icon.png\n",
    );
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let m = h.manifest("guild.yaml", "version: 1\nsettings:\n  icon: null\n");
    h.emu.clear_requests();
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let patches = guild_patches(&h);
    assert_eq!(patches, [serde_json::json!({"icon": null})]);
    assert!(h.guild().icon.is_none());
}

#[tokio::test]
async fn export_writes_the_images_as_files_and_plans_back_to_no_changes() {
    let h = Harness::start().await;
    put(&h, "images/icon.png", &png("icon"));
    put(&h, "images/splash.png", &png("splash"));
    let m = h.manifest("guild.yaml", MANIFEST);
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);

    let out = h.dir.path().join("exported").join("guild.yaml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    h.run(&["export", "-o", out.to_str().unwrap()])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(yaml.contains("icon: images/icon.png"), "{yaml}");
    assert!(yaml.contains("splash: images/splash.png"), "{yaml}");
    let icon = std::fs::read(out.parent().unwrap().join("images/icon.png")).unwrap();
    assert_eq!(icon, png("icon"), "the exported file is the uploaded image");

    h.emu.clear_requests();
    h.run(&["plan", "-f", out.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());
}
