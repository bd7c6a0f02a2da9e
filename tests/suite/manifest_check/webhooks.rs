//! Webhooks.

use super::*;

#[test]
fn webhook_names() {
    let ds = diags_with_channels(&format!(
        "webhooks:
  - {{name: Discord Bot, channel: general}}
  - {{name: ClydeBot, channel: general}}
  - {{name: \"\", channel: general}}
  - {{name: {}, channel: general}}
  - {{name: CI, channel: general}}
  - {{name: CI, channel: help}}
  - {{name: Deploys, channel: help, previous_names: [CI]}}
",
        "w".repeat(81)
    ));
    has(
        &ds,
        Error,
        "webhooks[0].name",
        "webhook name \"Discord Bot\" contains \"discord\": Discord refuses webhook names containing \"clyde\" or \"discord\", in any case",
    );
    has(&ds, Error, "webhooks[1].name", "contains \"clyde\"");
    has(
        &ds,
        Error,
        "webhooks[2].name",
        "webhook name is 0 characters; Discord allows 1 to 80",
    );
    has(
        &ds,
        Error,
        "webhooks[3].name",
        "webhook name is 81 characters",
    );
    has(
        &ds,
        Error,
        "webhooks[5].name",
        "duplicate webhook name \"CI\" (first declared at webhooks[4])",
    );
    has(
        &ds,
        Error,
        "webhooks[6].previous_names[0]",
        "\"CI\" is a previous name of webhook \"Deploys\" but also the name of webhooks[4]",
    );
    // Same name in two channels is fine when both are pinned.
    clean(&diags_with_channels(
        "webhooks:\n  - {name: Captain Hook, channel: general, id: \"300000000000000001\"}\n  - {name: Captain Hook, channel: help, id: \"300000000000000002\"}\n",
    ));
}

#[test]
fn webhook_channels() {
    let ds = diags_with_channels(
        "webhooks:\n  - {name: A, channel: Lounge}\n  - {name: B, channel: Chat}\n  - {name: C, channel: ci}\n  - {name: D, channel: news}\n",
    );
    has(
        &ds,
        Error,
        "webhooks[0].channel",
        "a webhook's channel must be a text, announcement, forum or media channel, but \"Lounge\" is declared as voice",
    );
    has(
        &ds,
        Error,
        "webhooks[1].channel",
        "is declared as a category",
    );
    has(
        &ds,
        Warning,
        "webhooks[2].channel",
        "channel \"ci\" is not declared",
    );
    assert!(!ds.iter().any(|d| d.path == "webhooks[3].channel"));
    let hooks: String = (0..16)
        .map(|i| format!("  - {{name: H{i}, channel: general}}\n"))
        .collect();
    let ds = diags_with_channels(&format!("webhooks:\n{hooks}"));
    has(
        &ds,
        Error,
        "webhooks[15].channel",
        "16 webhooks declared in channel \"general\"; Discord allows 15 per channel",
    );
}

#[test]
fn webhook_avatar_paths_are_checked_without_files() {
    let ds = diags_with_channels(
        "webhooks:
  - {name: A, channel: general, avatar: /etc/ci.png}
  - {name: B, channel: general, avatar: ../ci.png}
  - {name: C, channel: general, avatar: assets/../../ci.png}
  - {name: D, channel: general, avatar: null}
",
    );
    has(
        &ds,
        Error,
        "webhooks[0].avatar",
        "image path \"/etc/ci.png\" is absolute",
    );
    has(
        &ds,
        Error,
        "webhooks[1].avatar",
        "leaves the manifest's folder",
    );
    has(
        &ds,
        Error,
        "webhooks[2].avatar",
        "leaves the manifest's folder",
    );
    assert!(!ds.iter().any(|d| d.path == "webhooks[3].avatar"));
}

const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn avatar_diags(dir: &Path, avatars: &[&str]) -> Vec<Diagnostic> {
    let hooks: String = avatars
        .iter()
        .enumerate()
        .map(|(i, a)| format!("  - {{name: H{i}, channel: general, avatar: \"{a}\"}}\n"))
        .collect();
    let text = format!("version: 1\nchannels:\n  - name: general\nwebhooks:\n{hooks}");
    let path = dir.join("guild.yaml");
    std::fs::write(&path, &text).unwrap();
    let loaded = load(&path).unwrap();
    check_loaded(&loaded)
}

#[test]
fn webhook_avatar_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("guild");
    let assets = root.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(assets.join("ci.png"), PNG_1X1).unwrap();
    std::fs::write(assets.join("photo.jpg"), [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).unwrap();
    std::fs::write(assets.join("anim.gif"), b"GIF89a\x01\x00\x01\x00").unwrap();
    std::fs::write(assets.join("notes.png"), b"not an image").unwrap();
    let big = std::fs::File::create(assets.join("big.png")).unwrap();
    big.set_len(8 * 1024 * 1024 + 1).unwrap();
    std::fs::write(tmp.path().join("outside.png"), PNG_1X1).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("outside.png"), assets.join("link.png")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("ci.png", assets.join("inside-link.png")).unwrap();

    clean(&avatar_diags(
        &root,
        &[
            "assets/ci.png",
            "./assets/photo.jpg",
            "assets/../assets/anim.gif",
        ],
    ));
    let ds = avatar_diags(
        &root,
        &[
            "assets/missing.png",
            "assets/notes.png",
            "assets/big.png",
            "assets",
            "../outside.png",
        ],
    );
    has(
        &ds,
        Error,
        "webhooks[0].avatar",
        "image \"assets/missing.png\" does not exist",
    );
    has(
        &ds,
        Error,
        "webhooks[1].avatar",
        "image \"assets/notes.png\" is not a PNG, JPEG or GIF file",
    );
    has(
        &ds,
        Error,
        "webhooks[2].avatar",
        "image \"assets/big.png\" is 8388609 bytes; Discord takes at most 8 MiB",
    );
    has(
        &ds,
        Error,
        "webhooks[3].avatar",
        "image \"assets\" is not a file",
    );
    has(
        &ds,
        Error,
        "webhooks[4].avatar",
        "leaves the manifest's folder",
    );
    assert_eq!(
        ds.iter().filter(|d| d.path == "webhooks[4].avatar").count(),
        1,
        "a path refused by check is not read again"
    );
    #[cfg(unix)]
    {
        let ds = avatar_diags(&root, &["assets/link.png", "assets/inside-link.png"]);
        has(
            &ds,
            Error,
            "webhooks[0].avatar",
            "image \"assets/link.png\" is a symbolic link to",
        );
        assert!(ds[0].message.contains("outside the manifest's folder"));
        assert!(!ds.iter().any(|d| d.path == "webhooks[1].avatar"));
    }

    // read_image makes the same checks, and gives the type and the bytes.
    let (mime, bytes) = read_image(&root, "assets/ci.png").unwrap();
    assert_eq!((mime, bytes.as_slice()), ("image/png", PNG_1X1));
    assert_eq!(
        read_image(&root, "assets/photo.jpg").unwrap().0,
        "image/jpeg"
    );
    assert_eq!(read_image(&root, "assets/anim.gif").unwrap().0, "image/gif");
    assert!(
        read_image(&root, "../outside.png")
            .unwrap_err()
            .contains("leaves the manifest's folder")
    );
    assert!(
        read_image(&root, "assets/notes.png")
            .unwrap_err()
            .contains("not a PNG, JPEG or GIF")
    );
}

#[test]
fn examples_have_no_diagnostics() {
    for name in ["community.yaml", "minimal.yaml"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let loaded = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let ds = check_loaded(&loaded);
        assert!(
            ds.is_empty(),
            "{}",
            guildctl::manifest::render(&loaded, &ds, false)
        );
    }
}

#[test]
fn community_example_has_what_the_brief_asks() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/community.yaml");
    let m = load(&path).unwrap().manifest;
    let roles = m.roles.as_ref().unwrap();
    assert!(roles.len() >= 8);
    assert!(
        roles
            .iter()
            .all(|r| r.name != "Admin" && r.name != "guildctl")
    );
    assert!(roles.iter().any(|r| r.previous_names == ["Helper"]));
    let booster = roles.iter().find(|r| r.name == "Server Booster").unwrap();
    assert_eq!(
        booster,
        &guildctl::manifest::Role {
            name: "Server Booster".into(),
            ..Default::default()
        }
    );
    let top = m.channels.as_ref().unwrap();
    let cats = top
        .iter()
        .filter(|c| c.kind == Some(guildctl::manifest::ChannelType::Category))
        .count();
    let all: Vec<_> = top
        .iter()
        .flat_map(|c| std::iter::once(c).chain(c.channels.iter().flatten()))
        .collect();
    let channels = all
        .iter()
        .filter(|c| c.kind != Some(guildctl::manifest::ChannelType::Category))
        .count();
    assert!(
        cats >= 4 && channels >= 15,
        "{cats} categories, {channels} channels"
    );
    assert!(all.iter().any(|c| c.previous_names == ["showcase"]));
    assert!(all.iter().filter(|c| c.overwrites.is_some()).count() >= 3);
    assert!(all.iter().any(|c| c.sync_permissions == Some(true)));
    let s = m.settings.as_ref().unwrap();
    assert_eq!(s.community, Some(true));
    assert_eq!(
        s.verification_level,
        Some(guildctl::manifest::VerificationLevel::Medium)
    );
    assert_eq!(
        s.explicit_content_filter,
        Some(guildctl::manifest::ExplicitContentFilter::AllMembers)
    );
}

#[test]
fn community_example_uses_every_section() {
    use guildctl::manifest::{ChannelType, Emoji, OnboardingMode};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/community.yaml");
    let loaded = load(&path).unwrap();
    let m = &loaded.manifest;
    let ctx = guildctl::manifest::check::Ctx::new(m);
    let find = |r: &str| match ctx.lookup_channel(r, &[]) {
        guildctl::manifest::check::ChannelLookup::Found(i) => i,
        other => panic!("{r}: {other:?}"),
    };

    let ws = m.welcome_screen.as_ref().expect("welcome_screen");
    let wc = ws.channels.as_ref().unwrap();
    assert!((3..=5).contains(&wc.len()));
    assert!(
        wc.iter()
            .all(|c| matches!(c.emoji, Some(Emoji::Unicode(_))))
    );

    let ob = m.onboarding.as_ref().expect("onboarding");
    assert_eq!(ob.enabled, Some(true));
    assert_eq!(ob.mode, Some(OnboardingMode::Default));
    let defaults = ob.default_channels.as_ref().unwrap();
    assert!(defaults.len() >= 7);
    let prompts = ob.prompts.as_ref().unwrap();
    assert!((2..=3).contains(&prompts.len()));
    let options = || prompts.iter().flat_map(|p| &p.options);
    assert!(options().any(|o| !o.roles.is_empty()));
    assert!(options().any(|o| !o.channels.is_empty()));

    // At least 5 default channels where @everyone can send messages, by the declared
    // @everyone permissions and overwrites (a synced channel has its category's).
    let roles = m.roles.as_ref().unwrap();
    let everyone = roles.iter().find(|r| r.name == "@everyone").unwrap();
    let base = |p: &str| everyone.permissions.iter().flatten().any(|x| x.0 == p);
    assert!(base("view_channel") && base("send_messages"));
    let writable = defaults
        .iter()
        .filter(|r| {
            let c = &ctx.channels[find(r)];
            assert!(c.channel.channel_type().is_text_like(), "{r}");
            let own = if c.channel.sync_permissions == Some(true) {
                ctx.channels[c.parent.unwrap()].channel.overwrites.clone()
            } else {
                c.channel.overwrites.clone()
            };
            let denied = own.iter().flatten().any(|o| {
                o.role.as_deref() == Some("@everyone")
                    && o.deny
                        .iter()
                        .any(|p| p.0 == "send_messages" || p.0 == "view_channel")
            });
            !denied
        })
        .count();
    assert!(
        writable >= 5,
        "{writable} default channels writable by @everyone"
    );

    let widget = m.widget.as_ref().expect("widget");
    assert_eq!(widget.enabled, Some(true));
    find(widget.channel.clone().flatten().as_deref().unwrap());

    let hooks = m.webhooks.as_ref().expect("webhooks");
    assert_eq!(hooks.len(), 2);
    assert!(hooks.iter().any(|w| w.name == "CI"));
    let with_avatar: Vec<_> = hooks
        .iter()
        .filter_map(|w| w.avatar.clone().flatten())
        .collect();
    assert_eq!(with_avatar.len(), 1);
    let (mime, bytes) = read_image(&loaded.dir(), &with_avatar[0]).unwrap();
    assert_eq!(mime, "image/png");
    assert!(bytes.len() < 64 * 1024, "keep the example's image small");
    for w in hooks {
        let c = &ctx.channels[find(&w.channel)];
        assert!(c.channel.channel_type().is_text_like());
    }
    assert_ne!(
        ctx.channels[find("announcements")].channel.channel_type(),
        ChannelType::Text
    );

    // `prune` is written out (all off) to show it.
    assert!(loaded.files[0].text.contains("\nprune:\n"));
    assert!(!m.prune.roles && !m.prune.channels && !m.prune.webhooks);
}
