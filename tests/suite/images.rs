//! The guild's images (icon, banner, splash, discovery splash) as files beside the manifest,
//! over HTTP against the emulator: sent once, compared by content, refused without the
//! feature Discord asks for, exported as files that plan back to no changes.

use crate::common;

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
    h.put("images/icon.png", &png("icon"));
    h.put("images/splash.png", &png("splash"));
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
    h.put("images/icon.png", &png("icon"));
    h.put("images/splash.png", &png("splash"));
    let m = h.manifest("guild.yaml", MANIFEST);
    let m = m.to_str().unwrap();
    h.run(&["apply", "-f", m, "--yes"]).await.assert_code(0);
    let first = h.guild().icon.clone();

    h.put("images/icon.png", &png("a new icon"));
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
    h.put("images/banner.png", &png("banner"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  name: Ferris Fans\n  banner: images/banner.png\n",
    );
    let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("BANNER"), "{}", plan.stderr);
    assert!(plan.stderr.contains("guild.yaml:4"), "{}", plan.stderr);
    assert!(h.writes().is_empty());

    h.put("images/d.png", &png("discovery"));
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
    h.put("images/icon.gif", &gif("spin"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  icon: images/icon.gif\n",
    );
    let plan = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("ANIMATED_ICON"), "{}", plan.stderr);
    // A still image needs no feature.
    h.put("images/icon.gif", &png("still"));
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
    h.put("images/icon.png", &png("icon"));
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
    h.put("images/icon.png", &png("icon"));
    h.put("images/splash.png", &png("splash"));
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

/// A PNG whose header says `width`×`height` (all the checks and the size reading look at);
/// `tag` makes it unique.
fn png_sized(width: u32, height: u32, tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&width.to_be_bytes());
    b.extend_from_slice(&height.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(tag.as_bytes());
    b
}

/// Images are bound by their bytes, not their names (issue 30, point 5): the plan shows
/// the reviewed file's digest and dimensions and its changes digest covers them, so a file
/// replaced after review is refused at `apply --plan` before any call is sent.
#[tokio::test]
async fn an_image_replaced_after_review_is_refused_at_apply_with_nothing_sent() {
    let h = Harness::start().await;
    let reviewed = png_sized(512, 256, "the reviewed icon");
    h.put("images/icon.png", &reviewed);
    h.put("images/ci.png", &png_sized(128, 128, "the reviewed avatar"));
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nsettings:\n  icon: images/icon.png\nwebhooks:\n  - { name: Deploys, channel: general, avatar: images/ci.png }\n",
    );
    let m = m.to_str().unwrap();
    let digest = guildctl::discord::cdn::digest(&reviewed);
    let comment = h
        .run(&[
            "plan",
            "-f",
            m,
            "--format",
            "markdown",
            "--out",
            "plan.json",
        ])
        .await;
    comment.assert_code(0);
    assert!(
        comment.stdout.contains(&format!(
            "icon: \"images/icon.png\" (sha256 {}…, 512×256 image/png, {} bytes)",
            &digest[..12],
            reviewed.len()
        )),
        "the comment shows the digest's start and the dimensions:\n{}",
        comment.stdout
    );
    assert!(
        comment.stdout.contains("128×128 image/png"),
        "{}",
        comment.stdout
    );
    // The saved plan carries the whole digest, in the change and in the upload.
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(h.dir.path().join("plan.json")).unwrap()).unwrap();
    let text = saved.to_string();
    assert_eq!(saved["format"], 4, "the plan format was raised");
    assert_eq!(text.matches(&digest).count(), 2, "{text}");
    let reads = h.requests().len();
    assert!(h.writes().is_empty());

    // After review, the icon is replaced; the manifest is the same text.
    h.put(
        "images/icon.png",
        &png_sized(512, 256, "swapped in after review"),
    );
    let r = h
        .run(&["apply", "--plan", "plan.json", "-f", m, "--yes"])
        .await;
    r.assert_code(1);
    assert!(
        r.stderr.contains("is not the reviewed plan")
            && r.stderr.contains("update guild Ferris Fans (icon)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("nothing was sent to Discord"),
        "{}",
        r.stderr
    );
    let requests = h.requests();
    assert!(
        requests[reads..].iter().all(|q| q.method == "GET"),
        "only reads: {:#?}",
        &requests[reads..]
    );
    assert_eq!(h.writes().len(), 0, "{:#?}", h.writes());
    assert!(h.guild().icon.is_none());

    // The reviewed bytes back in place: the reviewed plan applies, and sends them.
    h.put("images/icon.png", &reviewed);
    h.run(&["apply", "--plan", "plan.json", "-f", m, "--yes"])
        .await
        .assert_code(0);
    let patches = guild_patches(&h);
    assert_eq!(patches.len(), 1, "{patches:#?}");
    let sent = patches[0]["icon"].as_str().unwrap();
    use base64::Engine;
    let sent = base64::engine::general_purpose::STANDARD
        .decode(sent.trim_start_matches("data:image/png;base64,"))
        .unwrap();
    assert_eq!(sent, reviewed, "the reviewed bytes were sent");
}
