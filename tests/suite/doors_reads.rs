//! Reads that help decisions (issue 24): the widget image URL a plan shows, and the
//! vanity code `export` writes. Over HTTP against the emulator, with the real binary.

use crate::common;

use common::Harness;
use serde_json::Value;

/// The plan in each format, for `manifest`.
async fn plans(h: &Harness, manifest: &str) -> (String, String, Value) {
    let m = h.manifest("m.yaml", manifest);
    let m = m.to_str().unwrap();
    let mut out = Vec::new();
    for format in ["text", "markdown", "json"] {
        let run = h.run(&["plan", "-f", m, "--format", format]).await;
        assert!(
            run.code == 0 || run.code == 2,
            "{}{}",
            run.stdout,
            run.stderr
        );
        out.push(run.stdout);
    }
    let json = serde_json::from_str(&out[2]).unwrap_or_else(|e| panic!("{e}: {}", out[2]));
    (out[0].clone(), out[1].clone(), json)
}

#[tokio::test]
async fn plan_shows_the_widget_image_url_when_the_widget_is_on() {
    let h = Harness::start().await;
    assert!(h.guild().widget_enabled, "the default guild's widget is on");
    let url = format!("{}/guilds/{}/widget.png", h.emu.api_base, h.emu.guild_id);

    // On live, not managed by the manifest: shown.
    let (text, markdown, json) = plans(&h, "version: 1\n").await;
    assert!(text.contains(&format!("Widget image: {url}")), "{text}");
    assert!(
        markdown.contains(&format!("Widget image: `{url}`")),
        "{markdown}"
    );
    assert_eq!(json["widget_image_url"], Value::String(url.clone()));
    // The URL is Get Guild Widget Image on the API base in use: it answers a PNG.
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");

    // Turned off by the plan: not shown, in any format.
    let (text, markdown, json) = plans(&h, "version: 1\nwidget: { enabled: false }\n").await;
    assert!(!text.contains("Widget image"), "{text}");
    assert!(!markdown.contains("Widget image"), "{markdown}");
    assert!(json.get("widget_image_url").is_none(), "{json}");
    assert!(h.writes().is_empty(), "plan only reads");
}

#[tokio::test]
async fn plan_shows_the_widget_image_url_once_the_manifest_turns_it_on() {
    let mut st = discord_emulator::default_state();
    st.guilds[0].widget_enabled = false;
    let h = Harness::with_state(Some(st)).await;
    let url = format!("{}/guilds/{}/widget.png", h.emu.api_base, h.emu.guild_id);

    let (text, _, json) = plans(&h, "version: 1\n").await;
    assert!(
        !text.contains("Widget image"),
        "off live, not managed: {text}"
    );
    assert!(json.get("widget_image_url").is_none(), "{json}");
    // Off now, the image is refused: the URL is only worth showing once it is on.
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status().as_u16(), 403);

    let manifest = "version: 1\nwidget: { enabled: true }\n";
    let (text, markdown, json) = plans(&h, manifest).await;
    assert!(text.contains(&format!("Widget image: {url}")), "{text}");
    assert!(markdown.contains(&format!("`{url}`")), "{markdown}");
    assert_eq!(json["widget_image_url"], Value::String(url.clone()));

    // After apply, the URL the plan showed answers with the image.
    let m = h.manifest("on.yaml", manifest);
    h.run(&["apply", "-f", m.to_str().unwrap(), "--yes"])
        .await
        .assert_code(0);
    let resp = reqwest::get(&url).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
}

#[tokio::test]
async fn export_writes_the_vanity_code_and_plans_to_no_changes() {
    let mut st = discord_emulator::default_state();
    st.guilds[0].vanity_url_code = Some("ferris".into());
    let h = Harness::with_state(Some(st)).await;
    let out = h.dir.path().join("exported.yaml");
    h.run(&["export", "-o", out.to_str().unwrap()])
        .await
        .assert_code(0);
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(yaml.lines().any(|l| l.trim() == "vanity: ferris"), "{yaml}");

    h.emu.clear_requests();
    let run = h
        .run(&["plan", "-f", out.to_str().unwrap(), "--detailed-exitcode"])
        .await;
    run.assert_code(0);
    assert!(run.stdout.contains("No changes"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("vanity URL is"),
        "the exported code matches: {}",
        run.stdout
    );
    assert!(h.writes().is_empty());

    // The code Discord reports is what the manifest holds: another code is a warning.
    let other = yaml.replace("vanity: ferris", "vanity: crabs");
    assert_ne!(other, yaml);
    let m = h.manifest("other.yaml", &other);
    let run = h.run(&["plan", "-f", m.to_str().unwrap()]).await;
    assert!(
        run.stdout
            .contains("the vanity URL is `ferris`, not `crabs`"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}
