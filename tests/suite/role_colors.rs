//! Roles as Discord draws them since 2025-07, over HTTP against the emulator: `colors`
//! (gradients, the holographic style) seen by plan, drift and export, sent as `colors`
//! rather than the deprecated `color`; role icons as image files.

use crate::common;

use common::{Harness, arrange};
use discord_emulator::State;
use serde_json::{Value, json};

const HOLOGRAPHIC: (u32, Option<u32>, Option<u32>) =
    (11_127_295, Some(16_759_788), Some(16_761_760));

fn with_features(features: &[&str]) -> State {
    let mut state = discord_emulator::default_state();
    for f in features {
        state.guilds[0].features.push((*f).to_owned());
    }
    state
}

/// The id of the default guild's role "Contributor".
fn cid(h: &Harness) -> String {
    h.role_id("Contributor")
}

fn triple(h: &Harness, id: &str) -> (u32, Option<u32>, Option<u32>) {
    let g = h.guild();
    let r = g.roles.iter().find(|r| r.id == id).expect("the role");
    (r.color, r.secondary_color, r.tertiary_color)
}

fn role_patches(h: &Harness) -> Vec<Value> {
    h.writes()
        .into_iter()
        .filter(|r| r.method == "PATCH" && r.path.contains("/roles/"))
        .map(|r| r.body.unwrap_or_default())
        .collect()
}

fn contributor(h: &Harness, line: &str) -> String {
    let m = h.manifest(
        "guild.yaml",
        &format!("version: 1\nroles:\n  - name: Contributor\n    {line}\n"),
    );
    m.to_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_gradient_is_sent_as_colors_and_plans_back_to_no_changes() {
    let h = Harness::with_state(Some(with_features(&["ENHANCED_ROLE_COLORS"]))).await;
    let m = contributor(
        &h,
        r##"colors: { primary: "#5865f2", secondary: "#eb459e" }"##,
    );
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let patches = role_patches(&h);
    assert_eq!(
        patches,
        [
            json!({"colors": {"primary_color": 0x5865f2, "secondary_color": 0xeb459e, "tertiary_color": null}})
        ],
        "colors, never the deprecated color"
    );
    assert_eq!(triple(&h, &cid(&h)), (0x5865f2, Some(0xeb459e), None));
    h.emu.clear_requests();
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn holographic_is_discords_triple_and_color_reads_as_the_primary() {
    let h = Harness::with_state(Some(with_features(&["ENHANCED_ROLE_COLORS"]))).await;
    let m = contributor(&h, "colors: holographic");
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    assert_eq!(triple(&h, &cid(&h)), HOLOGRAPHIC);
    let role: Value = reqwest::Client::new()
        .get(format!(
            "{}/guilds/{}/roles/{}",
            h.emu.api_base,
            h.emu.guild_id,
            cid(&h)
        ))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(role["color"], HOLOGRAPHIC.0);
    assert_eq!(role["colors"]["tertiary_color"], 16_761_760);
    h.emu.clear_requests();
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_solid_colour_stays_color_in_the_manifest_and_is_sent_as_colors() {
    let h = Harness::start().await;
    let m = contributor(&h, r##"color: "#123456""##);
    let plan = h.run(&["plan", "-f", &m]).await;
    plan.assert_code(0);
    assert!(plan.stdout.contains("color"), "{}", plan.stdout);
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let patches = role_patches(&h);
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert!(patches[0].get("color").is_none(), "{}", patches[0]);
    assert_eq!(patches[0]["colors"]["primary_color"], 0x123456);
    assert_eq!(triple(&h, &cid(&h)), (0x123456, None, None));
}

#[tokio::test]
async fn a_live_gradient_is_seen_by_plan_and_drift() {
    let mut state = with_features(&["ENHANCED_ROLE_COLORS"]);
    arrange(&mut state).role("Contributor").secondary_color = Some(0x00ff00);
    let h = Harness::with_state(Some(state)).await;
    // The manifest says the solid colour the role had: the gradient is a difference.
    let m = contributor(&h, r##"color: "#f1c40f""##);
    let plan = h.run(&["plan", "-f", &m, "--detailed-exitcode"]).await;
    plan.assert_code(2);
    assert!(plan.stdout.contains("colors"), "{}", plan.stdout);
    assert!(plan.stdout.contains("#00ff00"), "{}", plan.stdout);
    let drift = h.run(&["drift", "-f", &m]).await;
    drift.assert_code(2);
    assert!(drift.stdout.contains("Contributor"), "{}", drift.stdout);
}

#[tokio::test]
async fn export_writes_gradients_and_holographic_and_plans_back_to_no_changes() {
    let mut state = with_features(&["ENHANCED_ROLE_COLORS"]);
    let mut g = arrange(&mut state);
    g.role("Contributor").secondary_color = Some(0x00ff00);
    let mut helper = g.role("Helper");
    (helper.color, helper.secondary_color, helper.tertiary_color) = HOLOGRAPHIC;
    let h = Harness::with_state(Some(state)).await;
    let out = h.dir.path().join("exported.yaml");
    h.run(&["export", "-o", out.to_str().unwrap()])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(yaml.contains("colors: holographic"), "{yaml}");
    assert!(
        yaml.contains("primary: '#f1c40f'") || yaml.contains("primary: \"#f1c40f\""),
        "{yaml}"
    );
    assert!(
        yaml.contains("secondary: '#00ff00'") || yaml.contains("secondary: \"#00ff00\""),
        "{yaml}"
    );
    // A solid colour stays one line.
    assert!(
        yaml.contains("color: '#3498db'") || yaml.contains("color: \"#3498db\""),
        "{yaml}"
    );
    h.run(&["plan", "-f", out.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());
}

#[tokio::test]
async fn a_gradient_without_enhanced_role_colors_is_refused_at_plan_on_its_line() {
    let h = Harness::start().await;
    let m = contributor(
        &h,
        r##"colors: { primary: "#5865f2", secondary: "#eb459e" }"##,
    );
    let plan = h.run(&["plan", "-f", &m]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr.contains("ENHANCED_ROLE_COLORS"),
        "{}",
        plan.stderr
    );
    assert!(plan.stderr.contains("guild.yaml:4"), "{}", plan.stderr);
    // The emulator refuses it too, as Discord does.
    let resp = reqwest::Client::new()
        .patch(format!(
            "{}/guilds/{}/roles/{}",
            h.emu.api_base,
            h.emu.guild_id,
            cid(&h)
        ))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .json(&json!({"colors": {"primary_color": 1, "secondary_color": 2}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(resp.json::<Value>().await.unwrap()["code"], 50101);
}

#[tokio::test]
async fn color_beside_colors_is_refused_by_validate() {
    let h = Harness::start().await;
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Contributor\n    color: \"#ffffff\"\n    colors: holographic\n",
    );
    let v = h.run(&["validate", "-f", m.to_str().unwrap()]).await;
    v.assert_code(1);
    assert!(v.stderr.contains("not both"), "{}", v.stderr);
}

#[tokio::test]
async fn a_role_icon_is_an_image_file_sent_once() {
    let h = Harness::with_state(Some(with_features(&["ROLE_ICONS"]))).await;
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(b"role icon");
    std::fs::create_dir_all(h.dir.path().join("images")).unwrap();
    std::fs::write(h.dir.path().join("images/c.png"), &png).unwrap();
    let m = contributor(&h, "icon: images/c.png");
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);
    let patches = role_patches(&h);
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert!(
        patches[0]["icon"]
            .as_str()
            .is_some_and(|d| d.starts_with("data:image/png"))
    );
    assert!(
        h.guild()
            .roles
            .iter()
            .any(|r| r.id == cid(&h) && r.icon.is_some())
    );
    h.emu.clear_requests();
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());

    // Exported as a file, and planned back to no changes.
    let out = h.dir.path().join("exported/guild.yaml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    h.run(&["export", "-o", out.to_str().unwrap()])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(
        yaml.contains(&format!("icon: images/role-{}.png", cid(&h))),
        "{yaml}"
    );
    h.run(&["plan", "-f", out.to_str().unwrap(), "--detailed-exitcode"])
        .await
        .assert_code(0);
}

#[tokio::test]
async fn a_role_icon_without_role_icons_is_refused_at_plan() {
    let h = Harness::start().await;
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(b"role icon");
    std::fs::create_dir_all(h.dir.path().join("images")).unwrap();
    std::fs::write(h.dir.path().join("images/c.png"), &png).unwrap();
    let m = contributor(&h, "icon: images/c.png");
    let plan = h.run(&["plan", "-f", &m]).await;
    plan.assert_code(1);
    assert!(plan.stderr.contains("ROLE_ICONS"), "{}", plan.stderr);
    assert!(plan.stderr.contains("guild.yaml:4"), "{}", plan.stderr);
}

/// A Discord-compatible server (Spacebar) sends `color: 0` beside a colour set through
/// `colors`. The plan and the rehearsal's copy read one typed snapshot, so an apply that
/// leaves colours alone is not refused by a rehearsal blaming them (issue 32).
#[tokio::test]
async fn color_zero_beside_colors_is_read_alike_by_the_plan_and_the_rehearsal() {
    let mut state = with_features(&[]);
    state.config.role_color_zero = true;
    let h = Harness::with_state(Some(state)).await;
    // The premise: the live role says 0 in `color` and its colour in `colors`.
    let role: Value = reqwest::Client::new()
        .get(format!(
            "{}/guilds/{}/roles/{}",
            h.emu.api_base,
            h.emu.guild_id,
            cid(&h)
        ))
        .header("Authorization", format!("Bot {}", h.emu.token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(role["color"], 0);
    assert_eq!(role["colors"]["primary_color"], 0xf1c40f);

    // The manifest keeps the role's colour and changes something else.
    let m = contributor(&h, "color: \"#f1c40f\"\n    hoist: true");
    let run = h.run(&["apply", "-f", &m, "--yes"]).await;
    run.assert_code(0);
    assert!(!run.stdout.contains("color"), "{}", run.stdout);
    assert_eq!(role_patches(&h), [json!({"hoist": true})]);
    assert_eq!(triple(&h, &cid(&h)), (0xf1c40f, None, None));
    h.emu.clear_requests();
    h.run(&["plan", "-f", &m, "--detailed-exitcode"])
        .await
        .assert_code(0);
    assert!(h.writes().is_empty());
}
